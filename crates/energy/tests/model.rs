//! Profiles load with provenance, and the energy arithmetic on hand-checked numbers.

use ciphermeter_energy::model::parse_interval;
use ciphermeter_energy::{EnergyError, MessageLoad, Profiles, estimate};
use link::Micros;

#[test]
fn builtin_profiles_cover_the_studies_and_modern_boards() {
    let p = Profiles::builtin().unwrap();
    for d in [
        "sodaq-mbili",
        "mkr-wan-1300",
        "rpi-3b",
        "rpi-zero-w",
        "beaglebone-black",
        "orange-pi-zero",
        "esp32",
        "esp32-c3",
        "nrf52840",
        "stm32l0",
        "stm32wl",
        "stm32l082",
        "nrf54l15",
        "nrf5340",
        "stm32u585",
        "rp2350",
    ] {
        p.device(d).unwrap();
    }
    let sx = p.radio("sx1276").unwrap();
    for dbm in [14, 17, 20] {
        sx.tx_ma(dbm).unwrap();
    }
    for b in ["2xAA", "cr2032", "18650"] {
        p.battery(b).unwrap();
    }
    assert!(matches!(
        p.device("pdp-11"),
        Err(EnergyError::Unknown { .. })
    ));
    assert!(sx.tx_ma(30).is_err());
}

/// A fit verdict is about the device, not the simulated board: every device
/// whose code is simulated carries its own flash and RAM, each with a source.
#[test]
fn every_simulated_device_carries_its_own_memory_with_a_source() {
    let p = Profiles::builtin().unwrap();
    for d in p.devices.iter().filter(|d| d.simulated_target.is_some()) {
        for (what, figure) in [("flash_kib", &d.flash_kib), ("ram_kib", &d.ram_kib)] {
            let f = figure
                .as_ref()
                .unwrap_or_else(|| panic!("{} has no {what}", d.name));
            assert!(f.value > 0 && f.source.is_some(), "{}: {what}", d.name);
        }
    }
    let mkr = p.device("mkr-wan-1300").unwrap();
    assert_eq!(mkr.ram_kib.as_ref().unwrap().value, 32, "SAMD21G18A");
}

// SODAQ Mbili + SX1276 at +14 dBm, 1 ms CPU, 100 ms on air, no RX, 10 minutes, 2xAA:
// CPU 3.3 V x 3.5 mA x 1 ms = 11.55 uJ; TX 3.3 x 44 mA x 0.1 s = 14.52 mJ;
// sleep (3.3 x 0.6 uA + 3.3 x 0.2 uA) x (600 - 0.101) s = 1.583733 mJ.
// Battery 2500 mAh x 3.6 x 3 V x 0.8 = 21600 J, drained by the load (interval_j / 600 s)
// plus self-discharge (3 % of 21600 J a year): days = 21600 / (load W + self W) / 86400.
#[test]
fn hand_checked_estimate() {
    let p = Profiles::builtin().unwrap();
    let load = MessageLoad {
        cpu_time_s: 0.001,
        airtime: Micros::from_ms(100),
        rx_time: Micros::ZERO,
        tx_power_dbm: 14,
    };
    let e = estimate(
        p.device("sodaq-mbili").unwrap(),
        p.radio("sx1276").unwrap(),
        Some(p.battery("2xAA").unwrap()),
        &load,
        600.0,
    )
    .unwrap();
    assert!((e.cpu_j - 11.55e-6).abs() < 1e-12);
    assert!((e.tx_j - 14.52e-3).abs() < 1e-9);
    assert!((e.sleep_j - 3.3 * 0.8e-6 * 599.899).abs() < 1e-9);
    assert!((e.cpu_share + e.radio_share - 1.0).abs() < 1e-12);
    let self_w = 0.03 * 21600.0 / (365.25 * 86400.0);
    let days = 21600.0 / (e.interval_j / 600.0 + self_w) / 86400.0;
    assert!((e.battery_days.unwrap() - days).abs() < 1e-6);
    // Without self-discharge the same load would last longer.
    assert!(e.battery_days.unwrap() < 21600.0 / e.interval_j * 600.0 / 86400.0);
    assert!(e.warnings.is_empty());
}

#[test]
fn coin_cell_warns_about_lora_pulses_and_bad_inputs_fail() {
    let p = Profiles::builtin().unwrap();
    let load = MessageLoad {
        cpu_time_s: 0.0,
        airtime: Micros::from_ms(50),
        rx_time: Micros::ZERO,
        tx_power_dbm: 20,
    };
    let e = estimate(
        p.device("stm32l0").unwrap(),
        p.radio("sx1276").unwrap(),
        Some(p.battery("cr2032").unwrap()),
        &load,
        60.0,
    )
    .unwrap();
    assert_eq!(e.warnings.len(), 1);
    assert!(
        estimate(
            p.device("stm32l0").unwrap(),
            p.radio("sx1276").unwrap(),
            None,
            &load,
            0.01
        )
        .is_err()
    );
    let neg = MessageLoad {
        cpu_time_s: -1.0,
        ..load
    };
    assert!(
        estimate(
            p.device("stm32l0").unwrap(),
            p.radio("sx1276").unwrap(),
            None,
            &neg,
            60.0
        )
        .is_err()
    );
}

#[test]
fn intervals() {
    assert_eq!(parse_interval("10m").unwrap(), 600.0);
    assert_eq!(parse_interval("90").unwrap(), 90.0);
    assert_eq!(parse_interval("1.5h").unwrap(), 5400.0);
    assert_eq!(parse_interval("2d").unwrap(), 172800.0);
    for bad in ["", "10x", "-5m", "m", "0s", "abc"] {
        assert!(parse_interval(bad).is_err(), "{bad}");
    }
}

#[test]
fn user_profiles_replace_builtins() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("batteries")).unwrap();
    std::fs::write(
        dir.path().join("batteries/my.toml"),
        r#"
[[battery]]
name = "cr2032"
title = "my bigger coin cell"
capacity_mah = { value = 1000.0, source = "label" }
voltage_v = { value = 3.0, source = "label" }
usable_fraction = { value = 1.0, estimate = "all of it" }
"#,
    )
    .unwrap();
    let p = Profiles::with_dir(Some(dir.path())).unwrap();
    assert_eq!(p.battery("cr2032").unwrap().capacity_mah.value, 1000.0);
    std::fs::write(dir.path().join("batteries/bad.toml"), "[[battery]]\nname = \"x\"\ntitle = \"t\"\ncapacity_mah = { value = 1.0 }\nvoltage_v = { value = 3.0, source = \"s\" }\nusable_fraction = { value = 1.0, source = \"s\" }\n").unwrap();
    let err = Profiles::with_dir(Some(dir.path()))
        .unwrap_err()
        .to_string();
    assert!(err.contains("capacity_mah"), "{err}");
}

#[test]
fn every_builtin_link_has_a_radio_profile_at_its_power() {
    let p = Profiles::builtin().unwrap();
    for l in link::Catalogue::builtin().unwrap().links() {
        let r = p
            .radio(&l.radio)
            .unwrap_or_else(|e| panic!("{}: {e}", l.name));
        r.tx_ma(l.tx_power_dbm)
            .unwrap_or_else(|e| panic!("{}: {e}", l.name));
        // A device's own radio, where it takes the link's place, has it too.
        for d in &p.devices {
            let used = p
                .radio_for(d, l)
                .unwrap_or_else(|e| panic!("{} on {}: {e}", d.name, l.name));
            used.radio
                .tx_ma(l.tx_power_dbm)
                .unwrap_or_else(|e| panic!("{} on {}: {e}", d.name, l.name));
        }
    }
}

/// However rarely a device sends, a cell that loses a share s of its charge a
/// year cannot last more than 1/s years: the model's bound, and it is approached.
#[test]
fn self_discharge_bounds_battery_life() {
    let p = Profiles::builtin().unwrap();
    let load = MessageLoad {
        cpu_time_s: 0.0,
        airtime: Micros::from_ms(1),
        rx_time: Micros::ZERO,
        tx_power_dbm: 14,
    };
    let battery = p.battery("2xAA").unwrap();
    let rate = battery.self_discharge_per_year.as_ref().unwrap().value;
    let bound_days = 365.25 / rate;
    let mut previous = 0.0;
    for interval in [600.0, 86_400.0, 30.0 * 86_400.0, 3650.0 * 86_400.0] {
        let e = estimate(
            p.device("stm32l0").unwrap(),
            p.radio("sx1276").unwrap(),
            Some(battery),
            &load,
            interval,
        )
        .unwrap();
        let days = e.battery_days.unwrap();
        assert!(days < bound_days, "{days} days at {interval} s");
        assert!(days > previous, "sending less must not shorten life");
        previous = days;
    }
}

#[test]
fn a_self_discharge_of_a_whole_year_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("batteries")).unwrap();
    std::fs::write(
        dir.path().join("batteries/bad.toml"),
        "[[battery]]\nname = \"leaky\"\ntitle = \"t\"\ncapacity_mah = { value = 1.0, source = \"s\" }\nvoltage_v = { value = 1.0, source = \"s\" }\nusable_fraction = { value = 0.5, source = \"s\" }\nself_discharge_per_year = { value = 1.5, source = \"s\" }\n",
    )
    .unwrap();
    let err = Profiles::with_dir(Some(dir.path()))
        .unwrap_err()
        .to_string();
    assert!(err.contains("self_discharge_per_year"), "{err}");
}

/// A device's own radio takes the link's radio's place only on the
/// protocols its figures cover; a device without one, or a link of another
/// protocol, keeps the link's radio, and the answer says why. A device naming
/// a radio no profile has is refused with its name.
#[test]
fn a_device_s_own_radio_replaces_the_link_s_on_its_protocols() {
    let p = Profiles::builtin().unwrap();
    let links = link::Catalogue::builtin().unwrap();
    let pick = |device: &str, link: &str| {
        let used = p
            .radio_for(p.device(device).unwrap(), links.get(link).unwrap())
            .unwrap();
        (used.radio.name.clone(), used.own, used.basis)
    };
    let (radio, own, basis) = pick("nrf54l15", "ble-1m-251");
    assert_eq!((radio.as_str(), own), ("nrf54l15", true), "{basis}");
    assert_eq!(basis, "nrf54l15, the device's own radio");
    // The nRF54L15's 802.15.4 currents were not found; LoRa is no radio of its.
    for link in ["ieee802154", "lorawan-eu868-dr5"] {
        let (radio, own, basis) = pick("nrf54l15", link);
        assert!(!own, "{link}: {basis}");
        assert!(basis.contains("nrf54l15's own radio (nrf54l15) has no published figures for"));
        assert_eq!(radio, links.get(link).unwrap().radio, "{link}");
    }
    let (radio, own, basis) = pick("rp2350", "ble-1m-251");
    assert_eq!((radio.as_str(), own), ("nrf52840", false));
    assert_eq!(
        basis,
        "nrf52840, the link's radio: rp2350 names no radio of its own"
    );
    // The nRF54L15's currents are its own datasheet's, not the nRF52840's.
    let (ours, theirs) = (p.radio("nrf54l15").unwrap(), p.radio("nrf52840").unwrap());
    assert_eq!(ours.rx_ma.value, 3.4);
    assert_ne!(ours.rx_ma.value, theirs.rx_ma.value);
    // A profile naming a radio that does not exist is refused, named.
    let mut mine = p.clone();
    mine.add_file(
        "devices/mine.toml",
        r#"[[device]]
name = "mine"
title = "t"
cpu = "c"
clock_mhz = { value = 64.0, source = "s" }
voltage_v = { value = 3.0, source = "s" }
active_ma = { value = 3.0, source = "s" }
sleep_ua = { value = 1.0, source = "s" }
radio = { value = "nrf99999", source = "s" }
"#,
    )
    .unwrap();
    let err = mine
        .radio_for(
            mine.device("mine").unwrap(),
            links.get("ble-1m-251").unwrap(),
        )
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("device 'mine'") && err.contains("nrf99999"),
        "{err}"
    );
}
