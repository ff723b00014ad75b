//! `ciphermeter device-send`: the sealing firmware, simulated, seals readings
//! to its UART and this host forwards them (crates/live `device`).

use std::path::PathBuf;

use clap::Args as ClapArgs;

use crate::args::{print_sent, stop_flag};
use crate::error::CliError;

#[derive(ClapArgs)]
pub struct Args {
    /// The simulated device: atmega1284p (simavr), cortex-m0plus, cortex-m3, cortex-m4 (QEMU).
    #[arg(long)]
    target: String,
    /// Whose code the firmware seals with: rustcrypto, or ciphermeter (the
    /// backends of the sealing core; `recommend` names the fastest).
    #[arg(long = "impl", value_name = "IMPL", default_value = "rustcrypto")]
    implementation: String,
    /// Key file from `keygen --nonce counter`: provisioned into the device, and the gateway's key.
    #[arg(long)]
    key_file: PathBuf,
    /// Readings the device seals and sends (across a restart).
    #[arg(long, default_value_t = 10)]
    count: u64,
    /// Cut the device's power after this many messages and boot it again for the rest.
    #[arg(long)]
    restart_after: Option<u64>,
    /// Thermometers per reading (study 003's chain; at 1, 3, 5, 10, 15 or 25 each seal's cost is held to the device table's row).
    #[arg(long, default_value_t = 10)]
    thermometers: u8,
    /// Where the device keeps its nonce counter between boots [default: KEY_FILE.device].
    #[arg(long)]
    state_dir: Option<PathBuf>,
    /// Build the firmware even if its timing leaks the key on the target (`ciphermeter ct`).
    #[arg(long)]
    allow_leaky: bool,
    #[command(flatten)]
    forward: live::sender_options::SenderOptions,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let target: mcu::Target = args.target.parse().map_err(CliError::usage)?;
    let key = seal::SealKey::load(&args.key_file).map_err(CliError::usage)?;
    let send = args.forward.clone().config()?;
    send.check()?;
    let implementation: device_facts::Implementation = args.implementation.parse()?;
    let config = live::device::DeviceSendConfig {
        target,
        implementation,
        count: args.count,
        restart_after: args.restart_after,
        thermometers: args.thermometers,
        state_dir: args
            .state_dir
            .unwrap_or_else(|| live::device::state_dir_of(&args.key_file)),
        send,
        allow_leaky: args.allow_leaky,
    };
    let stop = stop_flag()?;
    let report = live::device::device_send(config, &key, &stop, |m| eprintln!("{m}"))?;
    let shortfall = live::sender_options::shortfall(&report.send);
    print_sent(&report, report.send.sent, shortfall, &stop)
}
