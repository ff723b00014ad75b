//! The main job (`scripts/run`) builds only what answers (issue 65): the
//! binary with the `answer` feature set, which leaves out the gateway's
//! brokers (AMQP, MQTT and their async runtime) and the shared store's
//! PostgreSQL client. This reads the build command from the script and the
//! packages from `cargo tree`, so a script that builds the defaults again, or
//! a dependency that brings a network stack back, fails here.

use std::path::Path;
use std::process::Command;

/// Packages no answer needs: the brokers' clients, their runtime, PostgreSQL's.
const LEFT_OUT: [&str; 5] = ["lapin", "rumqttc", "tokio", "postgres", "tokio-postgres"];

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

/// The packages (names) a build of the binary with `features` compiles.
fn packages(features: &[&str]) -> Vec<String> {
    let mut args = vec![
        "tree",
        "-p",
        "ciphermeter",
        "-e",
        "normal",
        "--prefix",
        "none",
    ];
    args.extend_from_slice(features);
    let out = Command::new(env!("CARGO"))
        .args(&args)
        .current_dir(root())
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect()
}

#[test]
fn the_main_job_builds_no_network_stack_or_postgres_client() {
    let script = std::fs::read_to_string(root().join("scripts/run")).unwrap();
    let build = script
        .lines()
        .find(|l| l.trim_start().starts_with("cargo build"))
        .expect("scripts/run builds the binary");
    let flags: Vec<&str> = build.split_whitespace().skip(2).collect();
    assert!(
        flags.contains(&"--no-default-features"),
        "scripts/run builds the default features: {build}"
    );
    let features: Vec<&str> = flags
        .iter()
        .copied()
        .filter(|f| *f != "--release" && *f != "-p" && *f != "ciphermeter")
        .collect();
    let main_job = packages(&features);
    for name in LEFT_OUT {
        assert!(
            !main_job.iter().any(|p| p == name),
            "the main job's build compiles {name}: {build}"
        );
    }
    // The full binary (the tests', the gateway's) still has them, so the
    // check above is about the feature set and not a renamed package.
    let full = packages(&[]);
    for name in LEFT_OUT {
        assert!(
            full.iter().any(|p| p == name),
            "{name} is gone from the default build"
        );
    }
}
