//! `ciphermeter energy`: energy per message (CPU and radio) and battery life, for the
//! plaintext and the sealed message: a model estimate (crates/cost `energy_view`).

use std::path::PathBuf;

use clap::{Args as ClapArgs, Subcommand};
use cost::energy_view::{self, CpuSource, Messages, Request};

use crate::args::{DbArgs, Format, ProtocolArgs, SendArgs, links, profiles, show, show_value};
use crate::error::CliError;

#[derive(ClapArgs)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct Args {
    #[command(subcommand)]
    import: Option<Import>,
    /// Device profile (see --list).
    #[arg(long, required_unless_present = "list")]
    device: Option<String>,
    /// Link from the catalogue (`ciphermeter link --list`).
    #[arg(long, required_unless_present = "list")]
    link: Option<String>,
    /// Plaintext message size in bytes; or give --scheme to seal a real message.
    #[arg(
        long,
        required_unless_present_any = ["list", "scheme", "sample"],
        conflicts_with_all = ["scheme", "sample"],
        allow_hyphen_values = true
    )]
    bytes: Option<String>,
    /// Size of the sealed message in bytes [default: same as --bytes].
    #[arg(long, allow_hyphen_values = true, conflicts_with_all = ["overhead", "scheme"])]
    sealed_bytes: Option<String>,
    /// Bytes the sealing adds (nonce, tag, padding), instead of --sealed-bytes.
    #[arg(long, allow_hyphen_values = true, conflicts_with = "scheme")]
    overhead: Option<String>,
    #[command(flatten)]
    message: cost::message::MessageSpec,
    /// µs of device CPU to seal one message, instead of the device's own (with --bytes: 0).
    #[arg(long, allow_hyphen_values = true)]
    cpu_us: Option<String>,
    /// The seal's CPU time: `host` measures it here, a target (atmega1284p, ...) takes its
    /// newest stored run [default: the device's own, stored or from its shipped table].
    #[arg(
        long,
        value_name = "TARGET",
        conflicts_with = "cpu_us",
        requires = "scheme"
    )]
    cpu_from: Option<String>,
    #[command(flatten)]
    db: DbArgs,
    /// Measure the host CPU time briefly (a smoke run, not a figure to report).
    #[arg(long)]
    quick: bool,
    /// Reporting interval: 30s, 10m, 1h, 1d.
    #[arg(long, default_value = "10m", allow_hyphen_values = true)]
    interval: String,
    /// Battery profile for battery life (as `recommend` and `run` assume).
    #[arg(long, default_value = "2xAA")]
    battery: String,
    /// Messages per EDHOC session: a row with the handshake spread over N, and from what N it stops mattering.
    #[arg(long, value_name = "N")]
    session_messages: Option<u64>,
    /// Whose code may seal on the device, as `recommend --impl` reads it (a list, hardware,
    /// software): the scheme's row recommend ranks first under it counts.
    #[arg(long = "impl", value_name = "IMPL", default_value = "all")]
    implementation: String,
    #[command(flatten)]
    send: SendArgs,
    #[command(flatten)]
    protocol: ProtocolArgs,
    /// List devices, radios and batteries and exit.
    #[arg(long)]
    list: bool,
    /// Directory with extra or replacement data files; also $CIPHERMETER_DATA_DIR.
    #[arg(long)]
    data_dir: Option<PathBuf>,
    #[arg(long, value_enum, default_value = "table")]
    format: Format,
}

#[derive(Subcommand)]
enum Import {
    /// A power profiler's trace (PPK2, Joulescope, Otii CSV): each marked operation's
    /// measured charge and energy, and a measured device profile (docs/power-meters.md).
    Import(Box<ImportArgs>),
}

#[derive(ClapArgs)]
struct ImportArgs {
    /// The meter's CSV export.
    trace: PathBuf,
    /// ppk2, joulescope or otii.
    #[arg(long)]
    meter: String,
    /// What marks an operation: a logic line (D0-D7) or a current threshold (above:1mA).
    #[arg(long, default_value = "D0")]
    marker: String,
    /// The supply in volts, where the export has none (PPK2, Otii).
    #[arg(long)]
    voltage: Option<f64>,
    /// Write DIR/devices/DEVICE-measured.toml: --device's profile as measured (for --data-dir DIR).
    #[arg(long, value_name = "DIR", requires = "device")]
    profile: Option<PathBuf>,
    /// The catalogued device the trace was taken on.
    #[arg(long)]
    device: Option<String>,
    #[arg(long)]
    data_dir: Option<PathBuf>,
    #[arg(long, value_enum, default_value = "table")]
    format: Format,
}

fn import(args: ImportArgs) -> Result<(), CliError> {
    let prof = profiles(&args.data_dir)?;
    let device = args.device.as_deref().map(|d| prof.device(d)).transpose();
    let device = device.map_err(CliError::usage)?;
    let imported = energy::trace::Request {
        meter: &args.meter,
        trace: &args.trace,
        marker: &args.marker,
        voltage_v: args.voltage,
        profile: device.zip(args.profile.as_deref()),
    }
    .run()
    .map_err(CliError::usage)?;
    show_value(args.format, &imported, || imported.text())
}

pub fn run(args: Args) -> Result<(), CliError> {
    if let Some(Import::Import(import_args)) = args.import {
        return import(*import_args);
    }
    let prof = profiles(&args.data_dir)?;
    if args.list {
        return show(
            args.format,
            || energy_view::profiles_json(&prof),
            || energy_view::profiles_text(&prof),
        );
    }
    let cat = links(&args.data_dir)?;
    let device = prof
        .device(args.device.as_deref().unwrap_or_default())
        .map_err(CliError::usage)?;
    let link = cat
        .get(args.link.as_deref().unwrap_or_default())
        .map_err(CliError::usage)?;
    let radio = prof.radio_for(device, link).map_err(CliError::usage)?.radio;
    let battery = Some(prof.battery(&args.battery).map_err(CliError::usage)?);
    let spec = args.message;
    let messages = match spec.given() {
        true => Messages::Real(spec),
        false => {
            let bytes = args.bytes.as_deref().unwrap_or_default();
            let (sealed, overhead) = (args.sealed_bytes.as_deref(), args.overhead.as_deref());
            Messages::from_sizes(bytes, sealed, overhead)?
        }
    };
    let (us, from) = (args.cpu_us.as_deref(), args.cpu_from.as_deref());
    let source = CpuSource::from_flags(us, from, args.quick, &args.implementation)?;
    let store = source.reads_store().then(|| args.db.open()).transpose()?;
    let cpu = source.choice(store.as_ref())?;
    let req = Request {
        device,
        link,
        radio,
        battery,
        interval: args.interval.clone(),
        send: args.send.options()?,
        messages,
        cpu,
        session_messages: args.session_messages,
        protocol: energy::protocol::Overrides::from_flags(&args.protocol)
            .map_err(CliError::usage)?,
    };
    let view = energy_view::view(&req)?;
    show(args.format, || view.json(), || view.text())
}
