//! Measures algorithms without the CLI and prints JSON rows:
//! `cargo run -p ciphermeter-mcu --example measure -- <target> [algorithm...]`.

use ciphermeter_mcu::{DEFAULT_SIZES, Request};

fn main() {
    let mut args = std::env::args().skip(1);
    let target = args
        .next()
        .unwrap_or_else(|| "atmega1284p".into())
        .parse()
        .expect("target");
    let req = Request {
        target,
        algorithms: args.collect(),
        sizes: DEFAULT_SIZES.to_vec(),
    };
    let rows = ciphermeter_mcu::measure(&req, |a| eprintln!("{a}")).expect("measure");
    println!("{}", serde_json::to_string_pretty(&rows).unwrap());
}
