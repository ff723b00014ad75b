//! Writes the SCHC CPU table (`data/schc/device-cpu.json`) to stdout: the
//! probe (firmware-schc/) on each Cortex-M target in QEMU. Run by
//! `scripts/schc-device-cpu`; never by the tests.

fn main() {
    let targets = ciphermeter_mcu::schc_probe::targets();
    match ciphermeter_mcu::schc_probe::table(&targets) {
        Ok(table) => match serde_json::to_string_pretty(&table) {
            Ok(text) => println!("{text}"),
            Err(e) => {
                eprintln!("schc_probe: {e}");
                std::process::exit(1);
            }
        },
        Err(e) => {
            eprintln!("schc_probe: {e}");
            std::process::exit(1);
        }
    }
}
