//! Writes the firmware-image verify table (`data/firmware-update/verify-cycles.json`)
//! to stdout: the probe (firmware-verify/), one scheme a build, on each QEMU
//! target (Cortex-M and RISC-V). Run by `scripts/verify-device-cpu`; never by the tests.
//! `verify_probe TARGET SCHEME` prints that one row instead (a trial run).

use ciphermeter_mcu::verify_probe;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let text = match args.as_slice() {
        [] => verify_probe::table(&verify_probe::targets())
            .map(|t| serde_json::to_string_pretty(&t).expect("a table serializes")),
        [target, scheme] => match target.parse() {
            Ok(t) => verify_probe::measure(t, scheme)
                .map(|r| serde_json::to_string_pretty(&r).expect("a row serializes")),
            Err(e) => {
                eprintln!("verify_probe: {e}");
                std::process::exit(2);
            }
        },
        _ => {
            eprintln!("usage: verify_probe [TARGET SCHEME]");
            std::process::exit(2);
        }
    };
    match text {
        Ok(text) => println!("{text}"),
        Err(e) => {
            eprintln!("verify_probe: {e}");
            std::process::exit(1);
        }
    }
}
