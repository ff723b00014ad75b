//! `ciphermeter recommend --device D --link L`: ranks the sealing schemes that meet
//! the constraints by energy per message (then code size, where the device tier
//! measured it), explains the winner, and checks study 003's AES-256-GCM advice.

use std::io::IsTerminal;
use std::path::PathBuf;

use catalogue::{Kind, Status};
use clap::{Args as ClapArgs, ValueEnum};
use energy::model::parse_interval;
use seal::{Pattern, Scheme};

use super::costing::{CpuSource, DeviceTimes, SchemeCost, Setting, cost_scheme, device_target};
use super::linkdata::{links, profiles, usage};
use super::stored::DbArgs;
use crate::error::CliError;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Need {
    /// Encryption and authentication (AEAD or encrypt-then-MAC).
    Confidentiality,
    /// Authentication and integrity; plaintext may travel in clear (adds MACs).
    Integrity,
}

#[derive(ClapArgs)]
pub struct Args {
    /// Device profile (`ciphermeter energy --list`).
    #[arg(long)]
    pub device: String,
    /// Link (`ciphermeter link --list`).
    #[arg(long)]
    pub link: String,
    /// The reading to send: chain:N, record:KB or random:N.
    #[arg(long, default_value = "chain:10")]
    pub payload: String,
    /// Least security level in bits.
    #[arg(long, default_value_t = 128)]
    pub min_security: u32,
    #[arg(long, value_enum, default_value = "integrity")]
    pub need: Need,
    /// Also rank legacy and broken algorithms.
    #[arg(long)]
    pub allow_legacy: bool,
    /// Battery profile for battery life.
    #[arg(long, default_value = "2xAA")]
    pub battery: String,
    /// One message every: 30s, 10m, 1h.
    #[arg(long, default_value = "10m")]
    pub interval: String,
    /// How many ranked schemes to print.
    #[arg(long, default_value_t = 15)]
    pub top: usize,
    #[arg(long)]
    pub data_dir: Option<PathBuf>,
    #[command(flatten)]
    pub db: DbArgs,
}

/// Every scheme the catalogue can build: each AEAD, each MAC alone, and
/// encrypt-then-MAC for the block modes and streams with HMAC-SHA-256.
fn candidates(need: Need) -> Vec<String> {
    let mut out = Vec::new();
    for e in catalogue::catalogue().entries() {
        match e.kind {
            Kind::Aead => out.push(format!("aead:{}", e.id)),
            // Poly1305 is a one-time authenticator: one fixed key for every
            // message would let anyone forge tags, so it is no MAC scheme here.
            Kind::Mac if need == Need::Integrity && e.id != "poly1305" => {
                out.push(format!("hmac:{}", e.id))
            }
            // ECB leaks patterns; CFB8/OFB8 are the same ciphers, slower.
            Kind::BlockMode | Kind::Stream if !e.id.ends_with("-ecb") && !e.id.ends_with('8') => {
                out.push(format!("etm:{}+hmac-sha256", e.id));
            }
            _ => {}
        }
    }
    out
}

pub struct Ranking {
    pub ranked: Vec<SchemeCost>,
    pub excluded: Vec<(String, String)>,
}

pub fn rank(args: &Args, quick: bool, progress: bool) -> Result<Ranking, CliError> {
    let prof = profiles(&args.data_dir)?;
    let cat = links(&args.data_dir)?;
    let device = prof.device(&args.device).map_err(usage)?;
    let spec = cat.get(&args.link).map_err(usage)?;
    let radio = prof.radio(&spec.radio).map_err(usage)?;
    let battery = prof.battery(&args.battery).map_err(usage)?;
    let interval_s = parse_interval(&args.interval).map_err(usage)?;
    payload::Sample::parse(&args.payload)
        .map_err(|e| CliError::usage(format!("--payload: {e}")))?;
    let store = args.db.open()?;
    let device_times = match device_target(device) {
        Some(t) => DeviceTimes::load(&store, t)?,
        None => None,
    };
    let setting = Setting {
        device,
        radio,
        link: spec,
        battery: Some(battery),
        interval_s,
    };
    let mut ranked = Vec::new();
    let mut excluded = Vec::new();
    let names = candidates(args.need);
    for (i, name) in names.iter().enumerate() {
        let Ok(scheme) = Scheme::parse(name) else {
            continue;
        };
        if scheme.security_bits() < args.min_security {
            excluded.push((
                scheme.name().to_string(),
                format!(
                    "{} bits < --min-security {}",
                    scheme.security_bits(),
                    args.min_security
                ),
            ));
            continue;
        }
        let insecure = scheme
            .cipher
            .iter()
            .chain(scheme.mac.iter())
            .any(|e| e.status != Status::Recommended);
        if insecure && !args.allow_legacy {
            excluded.push((
                scheme.name().to_string(),
                "legacy or broken (use --allow-legacy)".into(),
            ));
            continue;
        }
        if progress {
            eprint!(
                "\r\x1b[2Kcosting {}/{} {}",
                i + 1,
                names.len(),
                scheme.name()
            );
        }
        let cost = cost_scheme(name, &args.payload, quick, &setting, device_times.as_ref())?;
        if let Some(gap) = &cost.energy_gap {
            excluded.push((cost.name().to_string(), gap.clone()));
            continue;
        }
        ranked.push(cost);
    }
    if progress {
        eprint!("\r\x1b[2K");
    }
    // With device-level times for some schemes, host times of the others are not
    // comparable (an 8-bit MCU is thousands of times slower): rank only the former.
    if ranked
        .iter()
        .any(|c| matches!(c.cpu_source, CpuSource::Device { .. }))
    {
        let (dev, host): (Vec<_>, Vec<_>) = ranked
            .into_iter()
            .partition(|c| matches!(c.cpu_source, CpuSource::Device { .. }));
        excluded.extend(host.into_iter().map(|c| {
            (
                c.name().to_string(),
                "not simulated on this device; host times would not compare".into(),
            )
        }));
        ranked = dev;
    }
    ranked.sort_by(|a, b| {
        let e = |c: &SchemeCost| c.energy.as_ref().map_or(f64::MAX, |e| e.message_j);
        e(a).total_cmp(&e(b)).then(
            a.code_size
                .unwrap_or(i64::MAX)
                .cmp(&b.code_size.unwrap_or(i64::MAX)),
        )
    });
    Ok(Ranking { ranked, excluded })
}

pub fn run(args: Args) -> Result<(), CliError> {
    let r = rank(&args, true, std::io::stderr().is_terminal())?;
    if r.ranked.is_empty() {
        return Err(CliError::usage(format!(
            "no scheme meets the constraints ({} excluded); lower --min-security or add --allow-legacy",
            r.excluded.len()
        )));
    }
    println!(
        "Schemes for {} over {} carrying {} (energy: model estimate)",
        args.device, args.link, args.payload
    );
    println!(
        "{:>3}  {:<38} {:>5} {:>7} {:>10} {:>10} {:>10} {:>9} {:>9}",
        "#", "scheme", "bits", "bytes", "CPU uJ", "radio uJ", "total uJ", "code B", "battery d"
    );
    for (i, c) in r.ranked.iter().enumerate().take(args.top) {
        let e = c.energy.as_ref().expect("ranked schemes have energy");
        println!(
            "{:>3}  {:<38} {:>5} {:>7} {:>10.2} {:>10.2} {:>10.2} {:>9} {:>9}",
            i + 1,
            format!(
                "{}{}",
                c.name(),
                if c.status != Status::Recommended {
                    " [LEGACY]"
                } else {
                    ""
                }
            ),
            c.scheme.security_bits(),
            c.sealed_bytes,
            e.cpu_j * 1e6,
            (e.tx_j + e.rx_j) * 1e6,
            e.message_j * 1e6,
            c.code_size.map_or("-".into(), |s| s.to_string()),
            e.battery_days.map_or("-".into(), |d| format!("{d:.0}"))
        );
    }
    if r.ranked.len() > args.top {
        println!("     ... {} more (--top N)", r.ranked.len() - args.top);
    }
    println!();
    for line in explain(&r) {
        println!("{line}");
    }
    println!();
    println!("{}", study003_verdict(&args, &r));
    println!("CPU time source: {}", r.ranked[0].cpu_source.describe());
    Ok(())
}

pub fn explain(r: &Ranking) -> Vec<String> {
    let w = &r.ranked[0];
    let e = w.energy.as_ref().expect("ranked");
    let mut lines = vec![format!(
        "Winner: {} — {:.2} uJ per message ({:.0} % radio), {} bytes on air for a {}-byte reading, {} security bits.",
        w.name(),
        e.message_j * 1e6,
        e.radio_share * 100.0,
        w.sealed_bytes,
        w.plaintext_bytes,
        w.scheme.security_bits()
    )];
    if let Some(second) = r.ranked.get(1) {
        let e2 = second.energy.as_ref().expect("ranked");
        let why = if (e2.tx_j + e2.rx_j) - (e.tx_j + e.rx_j) > (e2.cpu_j - e.cpu_j) {
            format!(
                "its message is {} bytes shorter on air",
                second.sealed_bytes as i64 - w.sealed_bytes as i64
            )
        } else {
            "it needs less CPU time to seal".to_string()
        };
        lines.push(format!(
            "It beats {} by {:.2} uJ ({:.1} %) because {why}.",
            second.name(),
            (e2.message_j - e.message_j) * 1e6,
            (e2.message_j / e.message_j - 1.0) * 100.0
        ));
    }
    if w.scheme.pattern == Pattern::Hmac {
        lines.push("It authenticates but does not encrypt: use --need confidentiality if the reading is secret.".into());
    }
    lines
}

/// Study 003 recommended AES-256-GCM on the ATmega1284P; says whether our ranking agrees.
pub fn study003_verdict(args: &Args, r: &Ranking) -> String {
    let mut text = verdict_overall(args, r);
    // Study 003 wanted integrity first and encryption as an option: also say how
    // AES-256-GCM does among the schemes that encrypt.
    let aeads: Vec<&SchemeCost> = r
        .ranked
        .iter()
        .filter(|c| c.scheme.pattern != Pattern::Hmac)
        .collect();
    if let (Some(best), Some(pos)) = (
        aeads.first(),
        aeads.iter().position(|c| c.name() == "aead:aes-256-gcm"),
    ) && r.ranked[0].scheme.pattern == Pattern::Hmac
    {
        let (eb, eg) = (
            best.energy.as_ref().expect("ranked"),
            aeads[pos].energy.as_ref().expect("ranked"),
        );
        text.push_str(&format!(
            " Among schemes that also encrypt it ranks #{} of {}, {:.1} % above {}.",
            pos + 1,
            aeads.len(),
            (eg.message_j / eb.message_j - 1.0) * 100.0,
            best.name()
        ));
    }
    text
}

fn verdict_overall(args: &Args, r: &Ranking) -> String {
    let target = "aead:aes-256-gcm";
    let w = &r.ranked[0];
    let device_note = if args.device == "sodaq-mbili" {
        String::new()
    } else {
        format!(
            " (study 003's device was the ATmega1284P, profile sodaq-mbili; this is {})",
            args.device
        )
    };
    let Some((pos, g)) = r
        .ranked
        .iter()
        .enumerate()
        .find(|(_, c)| c.name() == target)
    else {
        let why = r
            .excluded
            .iter()
            .find(|(n, _)| n == target)
            .map_or("not costed".into(), |(_, w)| w.clone());
        return format!(
            "Study 003 recommended AES-256-GCM{device_note}: not in this ranking ({why})."
        );
    };
    let (ew, eg) = (
        w.energy.as_ref().expect("ranked"),
        g.energy.as_ref().expect("ranked"),
    );
    let extra = eg.message_j / ew.message_j - 1.0;
    if pos == 0 {
        format!(
            "Study 003 recommended AES-256-GCM{device_note}: our data agrees — it ranks first here, with 256-bit keys and authenticated encryption in one primitive."
        )
    } else if extra < 0.05 {
        format!(
            "Study 003 recommended AES-256-GCM{device_note}: our data agrees in substance — it ranks #{} but costs only {:.1} % more than {} per message, since the radio ({:.0} % of the energy) dominates and both send {} vs {} bytes.",
            pos + 1,
            extra * 100.0,
            w.name(),
            eg.radio_share * 100.0,
            g.sealed_bytes,
            w.sealed_bytes
        )
    } else {
        let cause = if (eg.cpu_j - ew.cpu_j) > (eg.tx_j + eg.rx_j - ew.tx_j - ew.rx_j) {
            format!(
                "its sealing takes {:.0} us of CPU against {:.0} us",
                g.cpu_us, w.cpu_us
            )
        } else {
            format!(
                "its message is {} bytes on air against {}",
                g.sealed_bytes, w.sealed_bytes
            )
        };
        format!(
            "Study 003 recommended AES-256-GCM{device_note}: our data disagrees — it ranks #{} and costs {:.1} % more per message than {}, because {cause}.",
            pos + 1,
            extra * 100.0,
            w.name()
        )
    }
}
