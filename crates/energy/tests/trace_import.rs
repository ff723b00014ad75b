//! Power-profiler exports of a known current profile (`scripts/make-trace`:
//! 10 operations of 2 ms at 4 mA, D0 high during each on the PPK2, sleep at
//! 5 µA, 2 % noise, 100 kHz) read back within 1 % of the charge and energy
//! put in, in each vendor's format; a malformed, truncated or unmarked trace
//! is refused with the reason.

use std::path::{Path, PathBuf};
use std::process::Command;

use ciphermeter_energy::trace::import;

fn make(dir: &Path, format: &str) -> PathBuf {
    let path = dir.join(format!("{format}.csv"));
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/make-trace");
    let ok = Command::new("python3")
        .arg(script)
        .args([format, path.to_str().unwrap()])
        .status()
        .unwrap()
        .success();
    assert!(ok, "scripts/make-trace {format}");
    path
}

fn within_1_percent(got: f64, want: f64, what: &str) {
    assert!(
        (got - want).abs() / want < 0.01,
        "{what}: {got} against {want}"
    );
}

#[test]
fn each_meter_s_export_gives_the_charge_and_energy_put_in() {
    let dir = tempfile::tempdir().unwrap();
    for (format, marker, voltage, volts) in [
        ("ppk2", "D0", Some(3.0), 3.0),
        ("joulescope", "above:1mA", None, 3.3),
        ("otii", "above:1mA", Some(3.0), 3.0),
    ] {
        let m = import(format, &make(dir.path(), format), marker, voltage).unwrap();
        assert_eq!((m.operations, m.partial), (10, 0), "{format}: {m:?}");
        within_1_percent(m.charge_uc.mean, 8.0, format);
        within_1_percent(m.energy_uj.mean, 8.0 * volts, format);
        within_1_percent(m.duration_ms.mean, 2.0, format);
        within_1_percent(m.sleep_ua, 5.0, format);
        within_1_percent(m.active_ma, 4.0, format);
        // The spread is the noise's: 2 % a sample over 200 samples.
        assert!(m.charge_uc.stddev < 0.05, "{format}: {m:?}");
        assert_eq!(m.voltage_measured, voltage.is_none(), "{format}");
    }
}

#[test]
fn bad_traces_are_refused_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let good = std::fs::read_to_string(make(dir.path(), "ppk2")).unwrap();
    let write = |name: &str, text: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p
    };
    let truncated = write("cut.csv", &good[..good.len() - 12]);
    let malformed = write("bad.csv", &good.replacen("0.010,", "0.010x,", 1));
    let cases = [
        (truncated, "ppk2", "D0", "truncated"),
        (malformed, "ppk2", "D0", "is not a number"),
        (
            dir.path().join("ppk2.csv"),
            "ppk2",
            "D5",
            "D5 high never starts and ends",
        ),
        (
            dir.path().join("ppk2.csv"),
            "otii",
            "D0",
            "not an export of Otii",
        ),
        (dir.path().join("none.csv"), "ppk2", "D0", "none.csv"),
    ];
    for (path, format, marker, why) in cases {
        let e = import(format, &path, marker, Some(3.0))
            .unwrap_err()
            .to_string();
        assert!(e.contains(why), "{}: {e}", path.display());
    }
}

/// The measured currents become a device profile that a data directory
/// serves beside the shipped ones, each figure labelled measured.
#[test]
fn a_measured_profile_loads_from_a_data_directory() {
    use ciphermeter_energy::Profiles;
    use ciphermeter_energy::trace::write_profile;
    let dir = tempfile::tempdir().unwrap();
    let trace = make(dir.path(), "ppk2");
    let m = import("ppk2", &trace, "D0", Some(3.0)).unwrap();
    let builtin = Profiles::builtin().unwrap();
    let base = builtin.device("mkr-wan-1300").unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir_all(data.join("devices")).unwrap();
    let measured = m.profile(base, "mkr-wan-1300-measured", &trace);
    write_profile(&measured, &data.join("devices/measured.toml")).unwrap();
    let loaded = Profiles::with_dir(Some(&data)).unwrap();
    let d = loaded.device("mkr-wan-1300-measured").unwrap();
    within_1_percent(d.active_ma.value, 4.0, "active");
    within_1_percent(d.sleep_ua.value, 5.0, "sleep");
    let source = d.active_ma.source.as_deref().unwrap();
    assert!(
        source.starts_with("measured: ") && source.contains("PPK2"),
        "{source}"
    );
    assert_eq!(
        d.clock_mhz.value, base.clock_mhz.value,
        "the rest is the base's"
    );
    assert!(
        loaded.device("mkr-wan-1300").is_ok(),
        "the shipped one stays"
    );
}
