//! `ciphermeter energy`: energy per message (CPU and radio) and battery life, for the
//! plaintext and the sealed message: a model estimate (crates/cost `energy_view`).

use std::path::PathBuf;

use clap::Args as ClapArgs;
use cost::energy_view::{self, CpuSource, Messages, Request};

use crate::args::{DbArgs, Format, MessageArgs, SendArgs, links, profiles, show, usage};
use crate::error::CliError;

#[derive(ClapArgs)]
pub struct Args {
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
    message: MessageArgs,
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
    /// Whose code may seal on the device (as `recommend --impl`): the fastest measured one counts.
    #[arg(long = "impl", value_name = "IMPL", default_value = "all")]
    implementation: String,
    #[command(flatten)]
    send: SendArgs,
    /// List devices, radios and batteries and exit.
    #[arg(long)]
    list: bool,
    /// Directory with extra or replacement data files; also $CIPHERMETER_DATA_DIR.
    #[arg(long)]
    data_dir: Option<PathBuf>,
    #[arg(long, value_enum, default_value = "table")]
    format: Format,
}

pub fn run(args: Args) -> Result<(), CliError> {
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
        .map_err(usage)?;
    let link = cat
        .get(args.link.as_deref().unwrap_or_default())
        .map_err(usage)?;
    let radio = prof.radio(&link.radio).map_err(usage)?;
    let battery = Some(prof.battery(&args.battery).map_err(usage)?);
    let spec = args.message.spec();
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
    };
    let view = energy_view::view(&req)?;
    show(args.format, || view.json(), || view.text())
}
