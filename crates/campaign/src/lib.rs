//! ciphermeter-campaign: the main job. On this machine it runs the catalogue
//! sweep, the device tier when asked, the sealed-message path for study 003's
//! readings, the energy view for the chosen device and link, the ranking of
//! sealing schemes, and the five reproductions, all in-process; stores each
//! step as it finishes and writes the HTML report. A stop request (Ctrl-C)
//! ends the current step; everything finished is kept.

pub mod process_noise;
pub mod report_file;
pub mod reproductions;
pub mod steps;

use std::path::PathBuf;
use std::time::Instant;

use cost::Error;
use cost::data::{links, profiles};
use cost::device_times::device_target;
use cost::ranking::{self, Need};
use cost::scheme_cost::{SCHEMES, Setting, cost_schemes};
use energy::model::parse_interval;
use measure::{Config, Environment, Sampler};
use serde_json::json;
use store::conventions::{KEY_ESTABLISHMENT, RECOMMENDATION};
use store::{Artifact, NewRun, RunId, RunStatus, Store};

pub use report_file::{default_output, write_report, write_report_with};
pub use steps::{DEFAULT_SIZES, QUICK_ALGORITHMS};

/// What one `run` does, as values.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Brief sampling and the quick reproductions.
    pub quick: bool,
    /// Every catalogue entry, the device tier and the full reproductions.
    pub full: bool,
    pub device: String,
    pub link: String,
    pub battery: String,
    pub interval: String,
    /// Also simulate the device (on with `full`).
    pub mcu: bool,
    pub reproductions: bool,
    pub data_dir: Option<PathBuf>,
    /// The report's path; `None` for [`default_output`].
    pub output: Option<PathBuf>,
    pub host: String,
    /// This binary, to time a few groups again in fresh processes: the
    /// between-process noise `compare` needs (`process_noise`). `None` skips it.
    pub fresh_process: Option<PathBuf>,
}

/// What the campaign is doing: milestones belong in a log, the work items
/// only on a terminal (they change several times a second).
pub enum Progress<'a> {
    Milestone(&'a str),
    Working(&'a str),
}

/// The milestone that says the run's answer, as soon as its steps have made
/// it (`scripts/bench-first-answer` times the first answer by it).
pub const ANSWER_FIRST_LINE: &str = "answer (the reproductions and the report follow):";

/// What a finished (or interrupted) run left.
pub struct Outcome {
    pub run: RunId,
    pub status: RunStatus,
    pub results: i64,
    pub seconds: f64,
    /// Gaps worth telling the user (skipped cases, failed reproductions).
    pub notes: Vec<String>,
    /// The recommended scheme (confidentiality) for the run's device and link,
    /// and apart the cheapest integrity-only one, labelled as sending in clear.
    pub recommended: Vec<String>,
    pub report: PathBuf,
    pub command: String,
}

impl Outcome {
    /// What `run` prints as it ends: the run, its notes and recommendation,
    /// the store and the report.
    pub fn text(&self, store: &std::path::Path) -> String {
        let mut o = format!(
            "run {} {}: {} results stored in {:.0} s\n",
            self.run,
            self.status.as_str(),
            self.results,
            self.seconds
        );
        for n in &self.notes {
            o += &format!("  note: {n}\n");
        }
        for line in &self.recommended {
            o += &format!("  {line}\n");
        }
        o += &format!(
            "  store:  {}\nreport: {}\n",
            store.display(),
            self.report.display()
        );
        o
    }
}

/// Devices and links key establishment is compared on besides the run's:
/// two whose RAM holds every post-quantum build (Cortex-M4, RISC-V), the
/// slowest LoRaWAN data rate and BLE.
const KEY_DEVICES: [&str; 2] = ["nrf52840", "esp32-c3"];
const KEY_LINKS: [&str; 2] = ["lorawan-eu868-dr0", "ble-1m-251"];

/// `first`, then the others it is not.
fn distinct<'a>(first: &'a str, others: &[&'a str]) -> Vec<&'a str> {
    let mut all = vec![first];
    all.extend(others.iter().filter(|o| **o != first));
    all
}

/// Links costed besides the user's, for contrast in the energy chart.
const CONTRAST_LINKS: [&str; 2] = ["ble-1m-251", "nbiot"];

/// Study 003's temperature chains: 1, 10 and 25 thermometers (66 to 470 bytes).
const QUICK_SAMPLES: [&str; 3] = ["chain:1", "chain:10", "chain:25"];
const FULL_SAMPLES: [&str; 6] = [
    "chain:1", "chain:5", "chain:10", "chain:15", "chain:20", "chain:25",
];
/// The reading the energy view and recommendation use.
pub const ENERGY_SAMPLE: &str = "chain:10";

impl Plan {
    /// The command line as stored with the run.
    pub fn command_line(&self) -> String {
        let mode = match (self.quick, self.full) {
            (true, _) => " --quick",
            (_, true) => " --full",
            _ => "",
        };
        format!("run{mode} --device {} --link {}", self.device, self.link)
    }

    fn ranking_request(&self) -> ranking::Request {
        ranking::Request {
            question: ranking::Question {
                device: self.device.clone(),
                link: self.link.clone(),
                payload: ENERGY_SAMPLE.into(),
                serialization: None,
                min_security: 128,
                // Safe by default: the reading stays secret (integrity-only is said apart).
                need: Need::Confidentiality,
                allow_legacy: false,
                allow_leaky: false,
                containers: vec![seal::Container::Json.into()],
                compression: None,
                battery: self.battery.clone(),
                interval: self.interval.clone(),
                session_messages: None,
                implementations: Vec::new(),
                hardware: true,
                protocol: Default::default(),
            },
            data_dir: self.data_dir.clone(),
            cost_table: None,
        }
    }
}

fn stop() -> bool {
    measure::interrupt::stop_requested()
}

/// Runs the plan: checks every profile first, then measures, stores and
/// writes the report. `progress` hears what is being done.
pub fn execute(
    plan: &Plan,
    store: &mut Store,
    progress: &mut dyn FnMut(Progress),
) -> Result<Outcome, Error> {
    let started = Instant::now();
    let prof = profiles(plan.data_dir.as_deref())?;
    let cat = links(plan.data_dir.as_deref())?;
    let device = prof.device(&plan.device).map_err(Error::invalid)?;
    let spec = cat.get(&plan.link).map_err(Error::invalid)?;
    let radio = prof.radio_for(device, spec).map_err(Error::invalid)?.radio;
    let battery = prof.battery(&plan.battery).map_err(Error::invalid)?;
    let interval_s = parse_interval(&plan.interval).map_err(Error::invalid)?;
    let mut settings = vec![Setting {
        device,
        radio,
        link: spec,
        battery: Some(battery),
        interval_s,
        protocol: Default::default(),
    }];
    for name in CONTRAST_LINKS.iter().filter(|n| **n != spec.name) {
        if let Ok(l) = cat.get(name)
            && let Ok(r) = prof.radio_for(device, l).map(|r| r.radio)
        {
            settings.push(Setting {
                device,
                radio: r,
                link: l,
                battery: Some(battery),
                interval_s,
                protocol: Default::default(),
            });
        }
    }

    let config = if plan.quick {
        Config::quick()
    } else {
        Config::standard()
    };
    let mut sampler = Sampler::new(config, true);
    let environment =
        Environment::capture(sampler.cycles_source(), measure::environment::perf_status());
    let command = plan.command_line();
    let run = store.begin_run(
        &NewRun {
            command: command.clone(),
            host: plan.host.clone(),
            origin: "local".into(),
            environment: run_environment(&environment, plan)?,
        },
        RunStatus::Running,
    )?;
    progress(Progress::Milestone(&format!(
        "run {run}: {command} (store {})",
        store.path().display()
    )));

    let outcome = steps_of(plan, store, run, &mut sampler, &settings, progress);
    let interrupted = stop();
    let status = match (&outcome, interrupted) {
        (_, true) => RunStatus::Interrupted,
        (Ok(_), false) => RunStatus::Complete,
        (Err(_), false) => RunStatus::Failed,
    };
    store.finish_run(run, status)?;
    let path = plan.output.clone().unwrap_or_else(|| default_output(run));
    write_report(store, run, &path)?;
    let notes = outcome?;
    let summary = store.run(run)?;
    Ok(Outcome {
        run,
        status,
        results: summary.results,
        seconds: started.elapsed().as_secs_f64(),
        notes,
        recommended: recommended_lines(store, run)?,
        report: path,
        command,
    })
}

/// The host's environment, plus each target's firmware revision when the
/// device tier runs, so its stored counts are matched to the firmware that
/// made them (`firmware_revisions`, by target).
fn run_environment(env: &Environment, plan: &Plan) -> Result<serde_json::Value, Error> {
    let mut value = serde_json::to_value(env).map_err(Error::failed)?;
    if (plan.full || plan.mcu)
        && let Some(map) = value.as_object_mut()
    {
        let firmware = device_facts::firmware_dir();
        let revisions: serde_json::Map<String, serde_json::Value> = device_facts::Target::ALL
            .into_iter()
            .filter_map(|t| {
                let rev = device_facts::cost_table::firmware_revision(&firmware, t).ok()?;
                Some((t.name().to_string(), rev.into()))
            })
            .collect();
        map.insert("firmware_revisions".into(), revisions.into());
    }
    Ok(value)
}

/// The campaign proper; returns notes (gaps) for the summary.
fn steps_of(
    plan: &Plan,
    store: &mut Store,
    run: RunId,
    sampler: &mut Sampler,
    settings: &[Setting],
    progress: &mut dyn FnMut(Progress),
) -> Result<Vec<String>, Error> {
    let full = plan.full;
    let mut notes = Vec::new();

    // 1. Catalogue sweep on this host.
    let ids: Vec<String> = if full {
        steps::all_algorithms(true)
    } else {
        QUICK_ALGORITHMS.iter().map(|s| s.to_string()).collect()
    };
    let fresh = plan.fresh_process.as_deref().map(|exe| (exe, plan.quick));
    let sweep = steps::sweep(store, run, sampler, &ids, &DEFAULT_SIZES, fresh, progress)?;
    progress(Progress::Milestone(&format!(
        "[sweep] {} results from {} algorithms",
        sweep.results,
        ids.len()
    )));
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
    let target = device_target(settings[0].device)?;
    if full || plan.mcu {
        match target {
            Some(t) => match steps::device_tier(store, run, t, progress)? {
                Ok(n) => progress(Progress::Milestone(&format!(
                    "[device] {n} results on {}",
                    t.name()
                ))),
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
    let device_times = cost::device_times::for_device(store, settings[0].device)?;
    let samples: &[&str] = if full { &FULL_SAMPLES } else { &QUICK_SAMPLES };
    for sample in samples {
        if stop() {
            break;
        }
        progress(Progress::Working(&format!(
            "[sealing {sample}] {} schemes interleaved",
            SCHEMES.len()
        )));
        // The run seals in the json container, study 003's envelope shape.
        let jobs: Vec<(&str, cost::message::Wrap)> = SCHEMES
            .iter()
            .map(|s| (*s, seal::Container::Json.into()))
            .collect();
        let costs = match cost_schemes(
            &jobs,
            sample,
            None,
            plan.quick,
            &settings[0],
            device_times.as_ref(),
            cost::scheme_cost::HostTiming::Always,
        ) {
            Ok(costs) => costs,
            Err(Error::Interrupted(_)) => break,
            Err(e) => return Err(e),
        };
        let mut rows = Vec::new();
        for (scheme, cost) in SCHEMES.iter().zip(costs) {
            let cost = match cost {
                Ok(c) => c,
                Err(e) => {
                    notes.push(format!("{scheme}: {e}"));
                    continue;
                }
            };
            rows.push(cost::scheme_cost::frame_row(&cost));
            if *sample == ENERGY_SAMPLE {
                rows.extend(
                    settings
                        .iter()
                        .filter_map(|s| cost::scheme_cost::energy_row(&cost, s)),
                );
            }
        }
        store.add_results(run, &rows)?;
    }
    match &device_times {
        Some(d) => progress(Progress::Milestone(&format!(
            "[energy] CPU times: {}",
            d.describe()
        ))),
        None => notes.push(format!(
            "energy uses this host's CPU times: {} has no simulated target",
            settings[0].device.name
        )),
    }
    if stop() {
        return Ok(notes);
    }

    // 4. The ranking behind `recommend`, for the report's recommendation section.
    let req = plan.ranking_request();
    let mut winner = None;
    match ranking::rank(&req, store, true, &mut |i, n, name| {
        progress(Progress::Working(&format!("[recommend {i}/{n}] {name}")))
    }) {
        Ok(r) => {
            winner = r.ranked.first().map(|c| c.name().to_string());
            store.add_artifact(
                run,
                &Artifact {
                    kind: RECOMMENDATION.into(),
                    name: "ranking".into(),
                    title: format!("Recommendation for {} over {}", plan.device, plan.link),
                    data: json!({ "ranking": r.summary(&req) }),
                },
            )?
        }
        Err(Error::Interrupted(_)) => return Ok(notes),
        Err(e) => notes.push(format!("recommendation: {e}")),
    }
    if stop() {
        return Ok(notes);
    }

    // 4a. What SCHC saves on the run's link (LoRaWAN only): a reading, a session.
    match cost::schc_savings::on_link(&settings[0], device_times.as_ref(), ENERGY_SAMPLE) {
        Ok(Some(saved)) => store.add_artifact(
            run,
            &Artifact {
                kind: store::conventions::SCHC.into(),
                name: "schc".into(),
                title: format!("SCHC on {}", plan.link),
                data: serde_json::to_value(&saved).map_err(Error::failed)?,
            },
        )?,
        Ok(None) => {}
        Err(Error::Interrupted(_)) => return Ok(notes),
        Err(e) => notes.push(format!("SCHC: {e}")),
    }

    // 4b. Key establishment for the recommended scheme: classical, hybrid and
    // post-quantum, on the run's device and two that hold every build.
    if let Some(scheme) = winner {
        progress(Progress::Milestone(
            "[key establishment] classical, hybrid, post-quantum",
        ));
        let devices = distinct(&plan.device, &KEY_DEVICES);
        let links = distinct(&plan.link, &KEY_LINKS);
        match cost::key_establishment::compare(
            store,
            &scheme,
            ENERGY_SAMPLE,
            &devices,
            &links,
            settings[0].interval_s,
            plan.data_dir.as_deref(),
        ) {
            Ok(c) => store.add_artifact(
                run,
                &Artifact {
                    kind: KEY_ESTABLISHMENT.into(),
                    name: "key-establishment".into(),
                    title: format!("Key establishment for {scheme}"),
                    data: serde_json::to_value(&c).map_err(Error::failed)?,
                },
            )?,
            Err(Error::Interrupted(_)) => return Ok(notes),
            Err(e) => notes.push(format!("key establishment: {e}")),
        }
    }

    // The answer is whole now: say it before the reproductions and the report
    // (whose explore page may build its engine first) take their minutes.
    let lines = recommended_lines(store, run)?;
    if !lines.is_empty() {
        progress(Progress::Milestone(&format!(
            "{ANSWER_FIRST_LINE}\n  {}",
            lines.join("\n  ")
        )));
    }

    // 5. The reproductions, in-process.
    if plan.reproductions {
        for study in reproductions::STUDIES {
            if stop() {
                break;
            }
            progress(Progress::Milestone(&format!("[reproduce] {study}")));
            match reproductions::reproduce_and_store(store, run, study, !full && plan.quick) {
                Ok(None) => {}
                Ok(Some(why)) => notes.push(format!("reproduction {study} failed: {why}")),
                Err(Error::Interrupted(_)) => break,
                Err(e) => return Err(e),
            }
        }
    }
    Ok(notes)
}

/// What the run recommends, as the report's first section says it
/// (`report::summary`): the scheme for confidentiality, the integrity-only
/// one labelled as sending in clear, and the CPU's share per link.
fn recommended_lines(store: &Store, run: RunId) -> Result<Vec<String>, Error> {
    let answer = report::summary::Answer::from_run(&store.results(run)?, &store.artifacts(run)?);
    Ok(answer.lines())
}

#[cfg(test)]
mod outcome_tests {
    use super::*;

    #[test]
    fn the_closing_lines_name_the_run_its_notes_the_store_and_the_report() {
        let outcome = Outcome {
            run: 7,
            status: RunStatus::Complete,
            results: 42,
            seconds: 12.4,
            notes: vec!["skipped x".into()],
            recommended: vec!["recommended: aead:aes-128-gcm".into()],
            report: PathBuf::from("ciphermeter-run-7.html"),
            command: "run --quick".into(),
        };
        assert_eq!(
            outcome.text(std::path::Path::new("/tmp/r.sqlite")),
            "run 7 complete: 42 results stored in 12 s\n  note: skipped x\n  recommended: aead:aes-128-gcm\n  store:  /tmp/r.sqlite\nreport: ciphermeter-run-7.html\n"
        );
    }
}
