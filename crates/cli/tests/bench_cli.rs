//! `ciphermeter bench` and `reproduce file-sizes` run as a user runs them.
//! Nothing here asserts a speed: only shapes, known sizes and exit codes.

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;

/// Every bench appends to the results store: keep the tests' runs out of the
/// user's own store.
fn ciphermeter() -> Command {
    let mut cmd = Command::cargo_bin("ciphermeter").unwrap();
    cmd.env(
        "XDG_DATA_HOME",
        std::env::temp_dir().join("ciphermeter-bench-tests"),
    );
    cmd
}

fn bench_json(args: &[&str]) -> Value {
    let out = ciphermeter()
        .arg("bench")
        .args(args)
        .args(["--quick", "--format", "json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("bench prints JSON")
}

fn schema() -> Value {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/bench.schema.json"
    ))
    .unwrap();
    serde_json::from_str(&text).unwrap()
}

fn assert_valid(report: &Value) {
    let validator = jsonschema::validator_for(&schema()).expect("schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(report)
        .map(|e| format!("{} at {}", e, e.instance_path))
        .collect();
    assert!(errors.is_empty(), "schema violations: {errors:#?}");
}

fn find<'a>(report: &'a Value, algorithm: &str, op: &str, size: u64) -> &'a Value {
    report["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["algorithm"] == algorithm && r["operation"] == op && r["size_bytes"] == size)
        .unwrap_or_else(|| panic!("no {algorithm} {op} {size} in {report:#}"))
}

#[test]
fn json_output_validates_against_the_documented_schema() {
    let report = bench_json(&[
        "identity",
        "aes-128-gcm",
        "sha256",
        "hmac-sha256",
        "--sizes",
        "64,1KiB",
    ]);
    assert_valid(&report);
    assert_eq!(report["schema"], "ciphermeter.bench/1");
    assert_eq!(
        report["environment"]["heap_counting"], true,
        "the binary installs the counting allocator"
    );

    // identity: 64 bytes in, 64 out, nothing allocated per call.
    let id = find(&report, "identity", "encrypt", 64);
    assert_eq!(id["output_bytes"], 64);
    assert_eq!(id["expansion_bytes"], 0);
    assert_eq!(id["allocations"], 0);
    // AES-128-GCM adds its 16-byte tag; key setup is measured once, keyed by its 16-byte key.
    let gcm = find(&report, "aes-128-gcm", "encrypt", 1024);
    assert_eq!(gcm["output_bytes"], 1040);
    assert_eq!(gcm["expansion_bytes"], 16);
    let setup = find(&report, "aes-128-gcm", "keysetup", 16);
    assert!(setup["throughput_mb_s"].is_null());
    assert!(
        setup["allocations"].as_u64().unwrap() >= 1,
        "a boxed cipher is allocated"
    );
    assert_eq!(find(&report, "sha256", "digest", 64)["output_bytes"], 32);
    assert_eq!(find(&report, "hmac-sha256", "sign", 64)["output_bytes"], 32);
    find(&report, "hmac-sha256", "verify", 1024);
    // 3 cipher ops (keysetup once) + 2 sizes: 1 + 2 + 2 per cipher; 2 digests; 1 + 2 + 2 MAC.
    assert_eq!(report["results"].as_array().unwrap().len(), 5 + 5 + 2 + 5);

    for r in report["results"].as_array().unwrap() {
        let (lo, med, hi) = (
            r["ci95_low_ns"].as_f64().unwrap(),
            r["median_ns"].as_f64().unwrap(),
            r["ci95_high_ns"].as_f64().unwrap(),
        );
        assert!(lo <= med && med <= hi, "{r}");
        if let Some(t) = r["throughput_mb_s"].as_f64() {
            // MB/s is size / median, in 10^6 B/s.
            let expected = r["size_bytes"].as_f64().unwrap() / med * 1e3;
            assert!((t - expected).abs() <= 1e-9 * expected, "{r}");
        }
    }
}

#[test]
fn ops_filter_and_backend_choice() {
    let report = bench_json(&[
        "aes-128-cbc",
        "--op",
        "decrypt",
        "--sizes",
        "100",
        "--backend",
        "rustcrypto",
    ]);
    let results = report["results"].as_array().unwrap();
    assert_eq!(results.len(), 1);
    // 100 bytes pad to 112 with PKCS#7.
    assert_eq!(results[0]["expansion_bytes"], 12);
    assert_eq!(results[0]["backend"], "rustcrypto");
}

#[test]
fn csv_and_markdown_carry_the_same_columns() {
    let run = |format: &str| {
        let out = ciphermeter()
            .args([
                "bench", "identity", "--quick", "--sizes", "16,64", "--op", "encrypt", "--format",
                format,
            ])
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    };
    let csv = run("csv");
    let md = run("markdown");
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    assert_eq!(
        &header[..6],
        [
            "algorithm",
            "kind",
            "backend",
            "provider",
            "operation",
            "size_bytes"
        ]
    );
    assert_eq!(csv.lines().count(), 3);
    let md_header: Vec<&str> = md
        .lines()
        .next()
        .unwrap()
        .trim_matches('|')
        .split('|')
        .map(str::trim)
        .collect();
    assert_eq!(header, md_header);
    assert_eq!(md.lines().count(), 4);
    // JSON result objects have exactly these keys.
    let json = bench_json(&["identity", "--sizes", "16", "--op", "encrypt"]);
    let mut keys: Vec<&str> = json["results"][0]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    let mut cols = header.clone();
    keys.sort();
    cols.sort();
    assert_eq!(keys, cols);
    let table = run("table");
    assert!(
        table.contains("identity") && table.contains("median"),
        "{table}"
    );
}

#[test]
fn output_file_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bench.json");
    ciphermeter()
        .args([
            "bench", "identity", "--quick", "--sizes", "16", "--format", "json", "--output",
        ])
        .arg(&path)
        .assert()
        .success()
        .stdout("");
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_valid(&report);
}

#[test]
fn bad_input_exits_2_with_a_message() {
    let cases: &[(&[&str], &str)] = &[
        (&["no-such-cipher"], "unknown algorithm"),
        (&["identity", "--sizes", "12XB"], "12XB"),
        (
            &["identity", "--op", "frobnicate"],
            "unknown operation 'frobnicate'",
        ),
        (
            &["identity", "--backend", "nosuch"],
            "unknown backend 'nosuch'",
        ),
        (&["identity", "--format", "xml"], "unknown format 'xml'"),
        (&["identity", "--time", "0"], "--time"),
        (&["aes-128-cbc", "--op", "digest"], "nothing to measure"),
        (&["--kind", "bogus"], "unknown kind 'bogus'"),
    ];
    for (args, message) in cases {
        ciphermeter()
            .arg("bench")
            .args(*args)
            .arg("--quick")
            .assert()
            .code(2)
            .stderr(predicate::str::contains(*message));
    }
}

#[cfg(unix)]
#[test]
fn ctrl_c_writes_the_finished_results_and_exits_130() {
    use std::process::Stdio;
    let bin = assert_cmd::cargo::cargo_bin("ciphermeter");
    let child = std::process::Command::new(bin)
        .args([
            "bench",
            "identity",
            "--sizes",
            "16,32,64,128,256,512,1024",
            "--time",
            "1",
            "--format",
            "json",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(2500));
    // SAFETY: plain kill(2) on our own child's pid.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).expect("partial report is JSON");
    assert_eq!(report["interrupted"], true);
    assert!(report["results"].as_array().unwrap().len() < 15);
    assert_valid(&report);
}

#[test]
fn file_sizes_streams_through_a_fixed_buffer() {
    let out = ciphermeter()
        .args([
            "reproduce",
            "file-sizes",
            "--max-size",
            "1MiB",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["schema"], "ciphermeter.file-sizes/1");
    let rows = report["rows"].as_array().unwrap();
    assert!(rows.len() >= 12, "{rows:#?}");
    for row in rows {
        assert_eq!(row["size_bytes"], 1 << 20);
        // Never the whole file in memory: the peak stays near the 64 KiB buffer.
        let peak = row["heap_peak_bytes"]
            .as_u64()
            .expect("allocator installed");
        assert!((64 * 1024..256 * 1024).contains(&peak), "{row}");
    }
    let aes = rows
        .iter()
        .find(|r| r["cipher"] == "aes-256" && r["mode"] == "ecb")
        .unwrap();
    assert_eq!(aes["paper_pi3_seconds"], 0.31512);
    let chacha = rows.iter().find(|r| r["cipher"] == "chacha20").unwrap();
    assert_eq!(chacha["paper_pi3_seconds"], 0.235922);
}

#[test]
fn file_sizes_refuses_a_cap_below_one_mib() {
    ciphermeter()
        .args(["reproduce", "file-sizes", "--max-size", "512KiB"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("1 MiB"));
    ciphermeter()
        .args(["reproduce", "file-sizes", "--max-size", "12XB"])
        .assert()
        .code(2);
}

#[test]
fn bench_appends_its_results_to_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("results.sqlite");
    let db = db.to_str().unwrap();
    ciphermeter()
        .args([
            "bench", "identity", "--sizes", "64", "--op", "encrypt", "--quick",
        ])
        .args(["--db", db])
        .assert()
        .success();
    ciphermeter()
        .args(["runs", "--db", db])
        .assert()
        .success()
        .stdout(predicate::str::contains("bench"));
    // --no-store leaves the store as it was.
    let fresh = dir.path().join("untouched.sqlite");
    ciphermeter()
        .args([
            "bench",
            "identity",
            "--sizes",
            "64",
            "--op",
            "encrypt",
            "--quick",
            "--no-store",
        ])
        .args(["--db", fresh.to_str().unwrap()])
        .assert()
        .success();
    assert!(!fresh.exists());
}
