//! `ciphermeter run`: the main job. On this machine it runs the catalogue sweep,
//! the sealed-message path for study 003's readings, the link and energy view for
//! the chosen device and link, the device tier when asked, and the quick versions
//! of the reproductions; stores everything, writes the HTML report and prints a
//! short summary. Ctrl-C stops the current step; everything finished is kept.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use catalogue::Status;
use clap::Args as ClapArgs;
use energy::model::parse_interval;
use measure::{Config, Environment, Sampler};
use store::{NewRun, RunStatus};

use super::campaign::{self, DEFAULT_SIZES, QUICK_ALGORITHMS, STUDIES};
use super::costing::{DeviceTimes, SCHEMES, Setting, cost_scheme, device_target};
use super::linkdata::{links, profiles, usage};
use super::report::{default_output, write_report};
use super::stored::{DbArgs, host_name, store_err};
use crate::error::CliError;

#[derive(ClapArgs)]
pub struct Args {
    /// A short campaign: brief sampling, quick reproductions (under 3 minutes).
    /// Without --quick or --full: the same representative subset with full sampling
    /// and the full reproductions.
    #[arg(long, conflicts_with = "full")]
    quick: bool,
    /// Every catalogue entry, longer sampling, the device tier and full reproductions.
    #[arg(long)]
    full: bool,
    /// Device profile for the energy view (`ciphermeter energy --list`).
    #[arg(long, default_value = "sodaq-mbili")]
    device: String,
    /// Link for the energy view (`ciphermeter link --list`).
    #[arg(long, default_value = "lorawan-eu868-dr3")]
    link: String,
    /// Battery profile for battery life.
    #[arg(long, default_value = "2xAA")]
    battery: String,
    /// One message every: 30s, 10m, 1h.
    #[arg(long, default_value = "10m")]
    interval: String,
    /// Also simulate the device (simavr / QEMU; minutes per algorithm). On with --full.
    #[arg(long)]
    mcu: bool,
    /// Skip the reproductions.
    #[arg(long)]
    no_reproductions: bool,
    /// Where to write the HTML report [default: ciphermeter-run-ID.html here].
    #[arg(long, short)]
    output: Option<PathBuf>,
    /// Directory with extra or replacement data files; also $CIPHERMETER_DATA_DIR.
    #[arg(long)]
    data_dir: Option<PathBuf>,
    #[command(flatten)]
    db: DbArgs,
}

/// Links costed besides the user's, for contrast in the energy chart.
const CONTRAST_LINKS: [&str; 2] = ["ble-1m-251", "nbiot"];

/// Study 003's temperature chains: 1, 10 and 25 thermometers (66 to 470 bytes).
const QUICK_SAMPLES: [&str; 3] = ["chain:1", "chain:10", "chain:25"];
const FULL_SAMPLES: [&str; 6] = [
    "chain:1", "chain:5", "chain:10", "chain:15", "chain:20", "chain:25",
];
/// The reading the energy view and recommendation use.
const ENERGY_SAMPLE: &str = "chain:10";

pub fn run(args: Args) -> Result<(), CliError> {
    let started = Instant::now();
    // Every profile is checked before anything is measured or stored.
    let prof = profiles(&args.data_dir)?;
    let cat = links(&args.data_dir)?;
    let device = prof.device(&args.device).map_err(usage)?;
    let spec = cat.get(&args.link).map_err(usage)?;
    let radio = prof.radio(&spec.radio).map_err(usage)?;
    let battery = prof.battery(&args.battery).map_err(usage)?;
    let interval_s = parse_interval(&args.interval).map_err(usage)?;
    let mut settings = vec![Setting {
        device,
        radio,
        link: spec,
        battery: Some(battery),
        interval_s,
    }];
    for name in CONTRAST_LINKS.iter().filter(|n| **n != spec.name) {
        if let Ok(l) = cat.get(name)
            && let Ok(r) = prof.radio(&l.radio)
        {
            settings.push(Setting {
                device,
                radio: r,
                link: l,
                battery: Some(battery),
                interval_s,
            });
        }
    }

    // The first Ctrl-C asks every loop to stop after its current sample.
    let _ = ctrlc::set_handler(measure::interrupt::request_stop);

    let mut store = args.db.open()?;
    let config = if !args.quick {
        Config::standard()
    } else {
        Config::quick()
    };
    let mut sampler = Sampler::new(config, true);
    let environment =
        Environment::capture(sampler.cycles_source(), measure::environment::perf_status());
    let command = command_line(&args);
    let run = store
        .begin_run(
            &NewRun {
                command: command.clone(),
                host: host_name(),
                origin: "local".into(),
                environment: serde_json::to_value(&environment).map_err(CliError::failed)?,
            },
            RunStatus::Running,
        )
        .map_err(store_err)?;
    eprintln!("run {run}: {command} (store {})", store.path().display());

    let outcome = campaign_steps(&args, &mut store, run, &mut sampler, &settings);
    let interrupted = measure::interrupt::stop_requested();
    let status = match (&outcome, interrupted) {
        (_, true) => RunStatus::Interrupted,
        (Ok(_), false) => RunStatus::Complete,
        (Err(_), false) => RunStatus::Failed,
    };
    store.finish_run(run, status).map_err(store_err)?;
    let path = args.output.clone().unwrap_or_else(|| default_output(run));
    write_report(&store, run, &path)?;
    let notes = outcome?;

    let summary = store.run(run).map_err(store_err)?;
    println!(
        "run {run} {}: {} results stored in {:.0} s",
        status.as_str(),
        summary.results,
        started.elapsed().as_secs_f64()
    );
    for n in &notes {
        println!("  note: {n}");
    }
    if let Some(line) = cheapest_line(&store, run, &settings[0])? {
        println!("  {line}");
    }
    println!("  store:  {}", store.path().display());
    println!("report: {}", path.display());
    if interrupted {
        return Err(CliError::Interrupted(format!(
            "interrupted: run {run} keeps what finished; report written to {}",
            path.display()
        )));
    }
    Ok(())
}

fn command_line(args: &Args) -> String {
    let mode = match (args.quick, args.full) {
        (true, _) => " --quick",
        (_, true) => " --full",
        _ => "",
    };
    format!("run{mode} --device {} --link {}", args.device, args.link)
}

/// The campaign proper; returns notes (gaps) for the summary.
fn campaign_steps(
    args: &Args,
    store: &mut store::Store,
    run: i64,
    sampler: &mut Sampler,
    settings: &[Setting],
) -> Result<Vec<String>, CliError> {
    let full = args.full;
    let mut notes = Vec::new();
    let stop = measure::interrupt::stop_requested;

    // 1. Catalogue sweep on this host.
    let ids: Vec<String> = if full {
        campaign::all_algorithms(true)
    } else {
        QUICK_ALGORITHMS.iter().map(|s| s.to_string()).collect()
    };
    let sizes: &[usize] = &DEFAULT_SIZES;
    let sweep = campaign::sweep(store, run, sampler, &ids, sizes)?;
    eprintln!(
        "[sweep] {} results from {} algorithms",
        sweep.results,
        ids.len()
    );
    if !sweep.skipped.is_empty() {
        notes.push(format!(
            "{} cases could not run (e.g. {})",
            sweep.skipped.len(),
            sweep.skipped[0]
        ));
    }
    if stop() {
        return Ok(notes);
    }

    // 2. Device tier, when asked (slow: it builds one firmware per algorithm).
    let target = device_target(settings[0].device);
    if full || args.mcu {
        match target {
            Some(t) => match campaign::device_tier(store, run, t)? {
                Ok(n) => eprintln!("[device] {n} results on {}", t.name()),
                Err(gap) => notes.push(gap),
            },
            None => notes.push(format!(
                "device tier: {} has no simulated target",
                settings[0].device.name
            )),
        }
    }
    if stop() {
        return Ok(notes);
    }

    // 3. Sealed-message path (host) and energy per link.
    let device_times = match target {
        Some(t) => DeviceTimes::load(store, t)?,
        None => None,
    };
    let samples: &[&str] = if full { &FULL_SAMPLES } else { &QUICK_SAMPLES };
    for sample in samples {
        let mut rows = Vec::new();
        for scheme in SCHEMES {
            if stop() {
                break;
            }
            crate::progress!("\r\x1b[2K[sealing {sample}] {scheme}");
            let cost = match cost_scheme(
                scheme,
                sample,
                args.quick,
                &settings[0],
                device_times.as_ref(),
            ) {
                Ok(c) => c,
                Err(CliError::Interrupted(_)) => break,
                Err(e) => {
                    notes.push(format!("{scheme}: {e}"));
                    continue;
                }
            };
            rows.push(cost.frame_row());
            if *sample == ENERGY_SAMPLE {
                rows.extend(settings.iter().filter_map(|s| cost.energy_row(s)));
            }
        }
        store.add_results(run, &rows).map_err(store_err)?;
    }
    crate::progress!("\r\x1b[2K");
    if device_times.is_none() && target.is_some() {
        notes.push(format!(
            "energy uses host CPU times: {} was not simulated yet (add --mcu)",
            settings[0].device.name
        ));
    }
    if stop() {
        return Ok(notes);
    }

    // 4. The reproductions, each in a child process with a time limit.
    if !args.no_reproductions {
        let budget = if !args.quick {
            Duration::from_secs(3600)
        } else {
            Duration::from_secs(90)
        };
        let begun = Instant::now();
        for (study, title) in STUDIES {
            if stop() {
                break;
            }
            let left = budget.saturating_sub(begun.elapsed());
            let limit = if !args.quick {
                left
            } else {
                left.min(Duration::from_secs(45))
            };
            crate::progress!("\r\x1b[2K[reproduce] {study}");
            if !campaign::reproduce(store, run, study, title, args.quick, limit)? {
                notes.push(format!(
                    "reproduction {study}: not complete (see the report)"
                ));
            }
        }
        crate::progress!("\r\x1b[2K");
    }
    Ok(notes)
}

/// "cheapest recommended scheme on L: S (N µJ per message)".
fn cheapest_line(store: &store::Store, run: i64, s: &Setting) -> Result<Option<String>, CliError> {
    let ctx = store::conventions::energy_context(&s.device.name, &s.link.name);
    let rows = store.results(run).map_err(store_err)?;
    let best = rows
        .iter()
        .filter(|r| r.section == store::conventions::ENERGY && r.context == ctx)
        .filter(|r| {
            r.data.get("status").and_then(|v| v.as_str()) == Some(Status::Recommended.as_str())
        })
        .min_by(|a, b| a.value.total_cmp(&b.value));
    Ok(best.map(|r| {
        format!(
            "cheapest sealed {ENERGY_SAMPLE} reading on {} with {}: {} ({:.1} uJ per message, model estimate); see `ciphermeter recommend`",
            s.link.name, s.device.name, r.subject, r.value
        )
    }))
}
