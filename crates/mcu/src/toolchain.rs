//! Checks that the pieces a target needs are installed; says how to get them.

use std::path::Path;
use std::process::Command;

use crate::{McuError, Target};

/// One missing piece and the exact command that installs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Missing {
    pub what: String,
    pub install: String,
}

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .map(|paths| std::env::split_paths(&paths).any(|dir| dir.join(program).is_file()))
        .unwrap_or(false)
}

fn sysroot(toolchain: &str) -> Option<String> {
    let out = Command::new("rustc")
        .arg(format!("+{toolchain}"))
        .args(["--print", "sysroot"])
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn apt(what: &str, packages: &str) -> Missing {
    Missing {
        what: what.into(),
        install: format!("apt-get update && apt-get install -y {packages}"),
    }
}

/// Everything `target` needs that is not installed.
pub fn missing(target: Target) -> Vec<Missing> {
    let mut out = Vec::new();
    if !on_path("rustup") {
        out.push(Missing {
            what: "rustup".into(),
            install: "see https://rustup.rs".into(),
        });
        return out;
    }
    let toolchain = target.toolchain();
    match sysroot(toolchain) {
        None => out.push(Missing {
            what: format!("Rust {toolchain} toolchain"),
            install: format!("rustup toolchain install {toolchain}"),
        }),
        Some(root) if target.is_avr() => {
            if !Path::new(&root)
                .join("lib/rustlib/src/rust/library/core")
                .is_dir()
            {
                out.push(Missing {
                    what: format!("rust-src for {toolchain} (AVR builds core from source)"),
                    install: format!("rustup component add rust-src --toolchain {toolchain}"),
                });
            }
        }
        Some(root) => {
            if !Path::new(&root)
                .join("lib/rustlib")
                .join(target.rust_target())
                .is_dir()
            {
                out.push(Missing {
                    what: format!("Rust target {}", target.rust_target()),
                    install: format!(
                        "rustup target add --toolchain {toolchain} {}",
                        target.rust_target()
                    ),
                });
            }
        }
    }
    if target.is_avr() {
        if !on_path("avr-gcc") {
            out.push(apt("avr-gcc (the AVR linker)", "gcc-avr"));
        }
        if !Path::new("/usr/lib/avr/include/avr/io.h").is_file() {
            out.push(apt("avr-libc", "avr-libc"));
        }
        if !Path::new("/usr/include/simavr/sim_avr.h").is_file() {
            out.push(apt(
                "libsimavr-dev (the harness links libsimavr)",
                "simavr libsimavr-dev",
            ));
        }
        if !Path::new("/usr/include/libelf.h").is_file()
            && !Path::new("/usr/include/libelf/libelf.h").is_file()
        {
            out.push(apt("libelf-dev", "libelf-dev"));
        }
        if !on_path("cc") {
            out.push(apt(
                "a C compiler (cc) for the simavr harness",
                "build-essential",
            ));
        }
    } else if let (Some(qemu), Some(package)) = (target.qemu_binary(), target.qemu_package())
        && !on_path(qemu)
    {
        out.push(apt(qemu, package));
    }
    out
}

/// Fails with every missing piece and one combined install command.
pub fn require(target: Target) -> Result<(), McuError> {
    let missing = missing(target);
    if missing.is_empty() {
        return Ok(());
    }
    let mut msg = format!("the {target} toolchain is incomplete:\n");
    for m in &missing {
        msg.push_str(&format!("  missing {}: {}\n", m.what, m.install));
    }
    msg.push_str("or run scripts/setup, which installs all of them");
    Err(McuError::Missing(msg))
}

/// The tools that produced a target's numbers, for the results store and a
/// table's environment: the Rust compiler (AVR code generation changes
/// between nightlies), the C compiler (Mbed TLS, Monocypher) and the simulator.
pub fn versions(target: Target) -> serde_json::Value {
    let first_line = |program: &str, args: &[&str]| {
        Command::new(program)
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .and_then(|o| {
                let text = String::from_utf8_lossy(&o.stdout).into_owned()
                    + &String::from_utf8_lossy(&o.stderr);
                text.lines()
                    .find(|l| !l.trim().is_empty())
                    .map(str::to_string)
            })
    };
    let rustc = first_line("rustc", &[&format!("+{}", target.toolchain()), "-V"]);
    let c_compiler = first_line(target.c_compiler(), &["--version"]);
    let simulator = match target.qemu_binary() {
        // simavr has no --version; the Debian package says which release it is.
        None => first_line("dpkg-query", &["-W", "-f", "simavr ${Version}", "simavr"]),
        Some(qemu) => first_line(qemu, &["--version"]).map(|v| format!("{qemu}: {v}")),
    };
    serde_json::json!({
        "firmware_revision": crate::cost_table::firmware_revision(&crate::firmware_dir(), target).ok(),
        "target": target.name(),
        "rust_target": target.rust_target(),
        "counter": target.counter(),
        "rustc": rustc,
        "c_compiler": c_compiler,
        "simulator": simulator,
    })
}

/// The tools in an environment whose version can move a count: a table
/// made with another one is not compared as if it were this machine's.
/// (The simulator is recorded but not held: a Debian security release of
/// QEMU or simavr does not change what an instruction count is.)
const COUNTED_BY: [(&str, &str); 2] = [("rustc", "rustc"), ("c_compiler", "C compiler")];

/// How a table's recorded environment differs from `now` (this machine's,
/// [`versions`]) in the tools that make the counts, one plain line each;
/// empty when the same. A tool the table did not record (made before it was
/// recorded) is not a difference; one this machine lacks is.
pub fn differences(recorded: &serde_json::Value, now: &serde_json::Value) -> Vec<String> {
    COUNTED_BY
        .iter()
        .filter_map(|&(key, name)| {
            let made = recorded.get(key).and_then(|v| v.as_str())?;
            let here = now.get(key).and_then(|v| v.as_str());
            (here != Some(made)).then(|| {
                format!(
                    "table made with {name} `{made}`, this machine has {}: counts may differ \
                     (scripts/setup installs the pinned toolchains)",
                    here.map_or("none".to_string(), |h| format!("`{h}`"))
                )
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_environment_with_other_compilers_is_reported() {
        let made = json!({"rustc": "rustc 1.95.0 (59807616e 2026-04-14)",
                          "c_compiler": "arm-none-eabi-gcc (15:12.2.rel1-1) 12.2.1 20221205",
                          "simulator": "qemu 7.2.22", "firmware_revision": "a"});
        // Same tools: nothing, whatever the simulator or revision says.
        let mut same = made.clone();
        same["simulator"] = json!("qemu 7.2.23");
        same["firmware_revision"] = json!("b");
        assert!(differences(&made, &same).is_empty());

        let mut rustc = made.clone();
        rustc["rustc"] = json!("rustc 1.96.0 (0 2026-05-28)");
        let d = differences(&made, &rustc);
        assert_eq!(d.len(), 1, "{d:?}");
        assert!(
            d[0].starts_with(
                "table made with rustc `rustc 1.95.0 (59807616e 2026-04-14)`, \
                 this machine has `rustc 1.96.0 (0 2026-05-28)`: counts may differ"
            ),
            "{}",
            d[0]
        );

        let mut gcc = made.clone();
        gcc["c_compiler"] = json!("arm-none-eabi-gcc 13.2.1");
        let d = differences(&made, &gcc);
        assert_eq!(d.len(), 1, "{d:?}");
        assert!(d[0].contains("C compiler"), "{}", d[0]);

        // This machine without the compiler is a difference too.
        let mut none = made.clone();
        none["c_compiler"] = serde_json::Value::Null;
        assert!(differences(&made, &none)[0].contains("this machine has none"));

        // A table made before the C compiler was recorded: only rustc is held.
        let old = json!({"rustc": made["rustc"]});
        assert!(differences(&old, &gcc).is_empty());
        assert_eq!(differences(&old, &rustc).len(), 1);
    }

    #[test]
    fn the_environment_names_each_targets_c_compiler() {
        for target in Target::ALL {
            let env = versions(target);
            let c = &env["c_compiler"];
            // Null where the compiler is not installed; else its --version line.
            if let Some(line) = c.as_str() {
                assert!(line.starts_with(target.c_compiler()), "{target}: {line}");
            } else {
                assert!(c.is_null(), "{target}: {c}");
            }
        }
    }
}
