//! Ranks the sealing schemes that meet a need on one device and link by
//! energy per message (then code size, where the device tier measured it),
//! explains the winner, and says whether study 003's AES-256-GCM advice holds.
//!
//! Schemes whose energies are equal within their uncertainty share a rank:
//! a difference smaller than the host timer's confidence interval is noise,
//! and noise must not pick a winner.

use std::fmt::Write as _;
use std::path::PathBuf;

use energy::model::parse_interval;
use seal::host::container::MessageContainer;

use crate::message::Wrap;
use seal::Pattern;
use serde::{Deserialize, Serialize};
use store::Store;

use crate::Error;
use crate::data::{links, ms, profiles};
use crate::duty_cycle::{self, DutyCycleAnswer};
use crate::scheme_cost::{HostTiming, SchemeCost, Setting, cost_scheme};
use cost_engine::choices::{Asked, Choices, OnDevice, choices};
use cost_engine::choices::{NO_SEAL_PATH, NOT_ON_DEVICE};
pub use cost_engine::choices::{Need, candidates};
use cost_engine::ranking::{
    allowed, cpu_time_basis, energy_range_uj, message_uj, on_air, order, status_of, tie_at_the_top,
};
pub use cost_engine::ranking::{percent_of, shared_ranks};

/// One ranking question, as values (the CLI's flags or the campaign's plan).
#[derive(Clone, Debug)]
pub struct Request {
    pub device: String,
    pub link: String,
    pub payload: String,
    /// How the reading is serialized (`--serialization`); json when none.
    pub serialization: Option<String>,
    pub min_security: u32,
    pub need: Need,
    pub allow_legacy: bool,
    /// Rank builds whose timing leaks on the device (`--allow-leaky`), marked.
    pub allow_leaky: bool,
    /// The containers ranked (each scheme in each): the container is part of
    /// the choice, as its bytes go on air and its code runs on the device.
    pub containers: Vec<MessageContainer>,
    /// `--compression schc[:RULES]`: the oscore container's rows compressed
    /// too, each beside its uncompressed row.
    pub compression: Option<String>,
    pub battery: String,
    pub interval: String,
    pub data_dir: Option<PathBuf>,
    /// Messages per session keyed by a handshake: the winner keyed by each
    /// key establishment (classical, hybrid, post-quantum) is ranked beside
    /// the pre-shared-key schemes. None: pre-shared keys only.
    pub session_messages: Option<u64>,
    /// Whose code a scheme may be costed with on a simulated device
    /// (`--impl`): each scheme's row is the fastest of these whose whole seal
    /// path was measured there. Empty means every implementation.
    pub implementations: Vec<device_facts::Implementation>,
    /// Rank the device's hardware engines too (`--impl` all, or naming
    /// `hardware`; `--impl software` leaves them out): each scheme an engine
    /// does part of gets a row beside its software one, labelled published.
    pub hardware: bool,
    /// A board's measured cost table (`mcu --board … --cost-table FILE`),
    /// whose builds are costed from it instead of the simulation.
    pub cost_table: Option<PathBuf>,
    /// The link protocol's parameters (`--conn-interval`, `--poll-period`,
    /// `--psm`…); default: the stack's, from the link's data.
    pub protocol: energy::protocol::Overrides,
}

pub struct Ranking {
    /// Cheapest first.
    pub ranked: Vec<SchemeCost>,
    /// Rank of each entry of `ranked` (1-based); tied schemes share one.
    pub ranks: Vec<usize>,
    /// Schemes left out, with why.
    pub excluded: Vec<(String, String)>,
    /// One message every this many seconds.
    pub interval_s: f64,
    /// Whether the link's duty cycle allows that interval (none without a rule).
    pub duty_cycle: Option<DutyCycleAnswer>,
    /// When no choice fits one frame: that said, and what would, costed.
    pub frame_fit: Option<crate::frame_fit::FrameFit>,
    /// With `session_messages`: when each key establishment stops mattering.
    pub sessions: Vec<crate::session::SessionAnswer>,
    /// The first choices, when they tie, and what picked among them.
    pub tie: Option<crate::tie::TieGroup>,
}

/// `--container`: one container, or `all` of them.
pub fn containers(text: &str) -> Result<Vec<MessageContainer>, String> {
    if text == "all" {
        return Ok(MessageContainer::ALL.to_vec());
    }
    text.parse::<MessageContainer>()
        .map(|c| vec![c])
        .map_err(|_| {
            let known = MessageContainer::ALL
                .iter()
                .map(|c| c.as_str())
                .chain(["all"]);
            format!(
                "unknown container '{text}'{}; expected json, binary, cose, oscore or all",
                names::did_you_mean(text, known)
            )
        })
}

/// Costs every candidate and ranks them. `progress` hears each scheme's name.
pub fn rank(
    req: &Request,
    store: &Store,
    quick: bool,
    progress: &mut dyn FnMut(usize, usize, &str),
) -> Result<Ranking, Error> {
    rank_names(req, store, &candidates(req.need), quick, progress)
}

/// [`rank`] over the given scheme names.
pub fn rank_names(
    req: &Request,
    store: &Store,
    names: &[String],
    quick: bool,
    progress: &mut dyn FnMut(usize, usize, &str),
) -> Result<Ranking, Error> {
    let prof = profiles(req.data_dir.as_deref())?;
    let cat = links(req.data_dir.as_deref())?;
    let device = prof.device(&req.device).map_err(Error::invalid)?;
    let spec = cat.get(&req.link).map_err(Error::invalid)?;
    let radio = prof.radio(&spec.radio).map_err(Error::invalid)?;
    let battery = prof.battery(&req.battery).map_err(Error::invalid)?;
    let interval_s = parse_interval(&req.interval).map_err(Error::invalid)?;
    // The protocol's parameters judged once, before any scheme is costed.
    energy::protocol::cost(spec, radio, 1, 0.0, interval_s, &req.protocol)
        .map_err(Error::invalid)?;
    if let Some(n) = req.session_messages {
        crate::session::check_messages(n)?;
    }
    payload::Sample::parse(&req.payload).map_err(|e| Error::invalid(format!("--sample: {e}")))?;
    if let Some(text) = &req.compression {
        schc::rules_file::named(text).map_err(Error::invalid)?;
        if !req.containers.iter().any(|c| c.is_oscore()) {
            return Err(Error::invalid(
                "--compression schc compresses the oscore container's messages: add --container oscore (or all)",
            ));
        }
    }
    let mut device_times = crate::device_times::for_device(store, device)?;
    if let Some(path) = &req.cost_table {
        let table = device_facts::cost_table::read_file(path)?;
        let times = device_times.ok_or_else(|| {
            Error::invalid(format!(
                "--cost-table: device '{}' has no simulated target to measure on a board",
                device.name
            ))
        })?;
        device_times = Some(times.prefer_measured(&table)?);
    }
    if let Some(times) = device_times.as_mut()
        && !req.implementations.is_empty()
    {
        times.restrict(&req.implementations);
    }
    if let Some(times) = device_times.as_mut()
        && req.allow_leaky
    {
        times.allow_leaky();
    }
    // The implementations measured on the device's core, for each scheme's choice.
    let implementations = crate::device_row::implementations_table(device)?;
    let setting = Setting {
        device,
        radio,
        link: spec,
        battery: Some(battery),
        interval_s,
        protocol: req.protocol.clone(),
    };
    let engines = crate::device_row::engines(device, req.hardware)?;
    let asked = Asked {
        min_security: req.min_security,
        allow_legacy: req.allow_legacy,
        wraps: Wrap::all(&req.containers, req.compression.as_deref()),
    };
    let on_device = OnDevice {
        times: device_times.as_ref(),
        implementations: implementations.as_ref(),
        engines: &engines,
    };
    let mut cost = |name: &str, wrap: Wrap| {
        cost_scheme(
            name,
            wrap,
            &req.payload,
            req.serialization.as_deref(),
            quick,
            &setting,
            device_times.as_ref(),
            HostTiming::WhereDeviceHasNone,
        )
    };
    let Choices {
        mut ranked,
        excluded,
        too_short,
    } = choices(names, &asked, &on_device, &setting, progress, &mut cost)?;
    // An interval no message could keep is refused with its cause, before
    // anything is ranked against it.
    let costs: Vec<&link::LinkCost> = ranked
        .iter()
        .filter_map(|c| c.link_cost.as_ref())
        .chain(&too_short)
        .collect();
    if let Some(why) = duty_cycle::refusal(spec, interval_s, &costs) {
        return Err(Error::invalid(why));
    }
    let mut ranks = order(&mut ranked, interval_s);
    let mut sessions = Vec::new();
    if let Some(n) = req.session_messages {
        // The winner keyed by each kind of session instead of a pre-shared key.
        if let Some(best) = ranked.first().cloned() {
            for (cost, on_device) in crate::session::establishments_on_device(device, radio, spec)?
            {
                sessions.push(crate::session::answer(
                    &cost,
                    &on_device,
                    best.name(),
                    message_uj(&best),
                    n,
                ));
                if let Some(h) = on_device.measured() {
                    ranked.push(crate::session::keyed_by_session(&best, h, n, &setting)?);
                }
            }
            ranks = order(&mut ranked, interval_s);
        }
    }
    let choices: Vec<duty_cycle::Choice> = ranked
        .iter()
        .filter_map(|c| {
            Some(duty_cycle::Choice {
                scheme: c.name(),
                container: c.container,
                cost: c.link_cost.as_ref()?,
                schc: c.schc.as_ref(),
            })
        })
        .collect();
    let duty_cycle = duty_cycle::answer(&cat, spec, interval_s, &req.payload, &choices)?;
    let asked = crate::frame_fit::Asked {
        interval_s,
        payload: &req.payload,
        serialization: req.serialization.as_deref(),
        containers: &req.containers,
    };
    let frame_fit = crate::frame_fit::answer(&cat, spec, &asked, &choices)?;
    let tie = tie_at_the_top(&mut ranked, &mut ranks, interval_s, spec.stack.as_ref());
    Ok(Ranking {
        ranked,
        ranks,
        excluded,
        interval_s,
        duty_cycle,
        frame_fit,
        sessions,
        tie,
    })
}

impl Ranking {
    /// The schemes sharing the winner's rank, the winner excluded.
    fn tied_with_winner(&self) -> Vec<&SchemeCost> {
        self.ranked
            .iter()
            .zip(&self.ranks)
            .skip(1)
            .filter(|(_, r)| **r == 1)
            .map(|(c, _)| c)
            .collect()
    }

    /// Why the winner wins, in sentences.
    pub fn explain(&self) -> Vec<String> {
        let Some(w) = self.ranked.first() else {
            return vec!["No scheme meets the constraints.".into()];
        };
        let e = w.energy.as_ref().expect("ranked schemes have energy");
        let (air, frames) = on_air(w);
        let mut lines = vec![format!(
            "Winner: {}{} — {:.2} uJ per message ({:.0} % radio), {air} bytes on air in {frames} frame{} (a {}-byte sealed message for a {}-byte reading), {} security bits.",
            w.shown_name(),
            if allowed(w, self.interval_s) {
                ""
            } else {
                " (not allowed at this interval)"
            },
            e.message_j * 1e6,
            e.radio_share * 100.0,
            if frames == 1 { "" } else { "s" },
            w.sealed_bytes,
            w.plaintext_bytes,
            w.scheme.security_bits()
        )];
        let tied = self.tied_with_winner();
        if let Some(tie) = &self.tie {
            lines.push(tie.sentence.clone());
        } else if !tied.is_empty() {
            let names: Vec<String> = tied.iter().map(|c| c.shown_name()).collect();
            let within = crate::tie::model_error_said(&self.ranked[..=tied.len()])
                .unwrap_or_else(|| "the uncertainty of the CPU times".into());
            lines.push(format!(
                "It ties with {}: their energies per message are equal within {within}, so they share rank 1 and the order among them means nothing.",
                names.join(", ")
            ));
        } else if let Some(second) = self.ranked.get(1) {
            let e2 = second.energy.as_ref().expect("ranked schemes have energy");
            let why = if (e2.tx_j + e2.rx_j) - (e.tx_j + e.rx_j) > (e2.cpu_j - e.cpu_j) {
                format!(
                    "its message is {} bytes shorter on air",
                    i64::from(on_air(second).0) - i64::from(on_air(w).0)
                )
            } else {
                "it needs less CPU time to seal".to_string()
            };
            lines.push(format!(
                "It beats {} by {:.2} uJ ({}) because {why}.",
                second.shown_name(),
                (e2.message_j - e.message_j) * 1e6,
                percent_of(e2.message_j - e.message_j, e.message_j)
            ));
        }
        if let Some(engine) = &w.engine {
            lines.push(self.without_engine(w, engine));
        }
        if w.scheme.pattern == Pattern::Hmac {
            lines.push("It authenticates but does not encrypt: use --need confidentiality if the reading is secret.".into());
        }
        lines
    }

    /// The winner depends on an engine: what the best software choice costs.
    fn without_engine(
        &self,
        w: &SchemeCost,
        engine: &cost_engine::engine_use::EngineUse,
    ) -> String {
        let on = format!(
            "The winner depends on the {} (its time from published figures, not simulated)",
            engine.engine_title
        );
        match self.ranked.iter().find(|c| c.engine.is_none()) {
            Some(soft) => format!(
                "{on}; the best software choice, {} by {}, costs {:.2} uJ per message instead ({} more).",
                soft.name(),
                soft.seal_implementation.label(),
                message_uj(soft),
                percent_of(message_uj(soft) - message_uj(w), message_uj(w))
            ),
            None => format!("{on}; no software choice is ranked beside it."),
        }
    }

    /// Study 003 recommended AES-256-GCM on the ATmega1284P; says whether our ranking agrees.
    pub fn study003_verdict(&self, device: &str) -> String {
        let mut text = self.verdict_overall(device);
        // Study 003 wanted integrity first and encryption as an option: also say how
        // AES-256-GCM does among the schemes that encrypt.
        let aeads: Vec<&SchemeCost> = self
            .ranked
            .iter()
            .filter(|c| c.scheme.pattern != Pattern::Hmac)
            .collect();
        if let (Some(best), Some(pos), Some(first)) = (
            aeads.first(),
            aeads.iter().position(|c| c.name() == STUDY_003_CHOICE),
            self.ranked.first(),
        ) && first.scheme.pattern == Pattern::Hmac
        {
            text.push_str(&format!(
                " Among schemes that also encrypt it ranks #{} of {}, {:.1} % above {}.",
                pos + 1,
                aeads.len(),
                (message_uj(aeads[pos]) / message_uj(best) - 1.0) * 100.0,
                best.name()
            ));
        }
        text
    }

    fn verdict_overall(&self, device: &str) -> String {
        let device_note = if device == "sodaq-mbili" {
            String::new()
        } else {
            format!(
                " (study 003's device was the ATmega1284P, profile sodaq-mbili; this is {device})"
            )
        };
        let (Some(w), Some(pos)) = (
            self.ranked.first(),
            self.ranked
                .iter()
                .position(|c| c.name() == STUDY_003_CHOICE),
        ) else {
            let why = self
                .excluded
                .iter()
                .find(|(n, _)| n == STUDY_003_CHOICE)
                .map_or("not costed".into(), |(_, w)| w.clone());
            return format!(
                "Study 003 recommended AES-256-GCM{device_note}: not in this ranking ({why})."
            );
        };
        let g = &self.ranked[pos];
        let (ew, eg) = (
            w.energy.as_ref().expect("ranked"),
            g.energy.as_ref().expect("ranked"),
        );
        let extra = eg.message_j / ew.message_j - 1.0;
        if self.ranks[pos] == 1 {
            format!(
                "Study 003 recommended AES-256-GCM{device_note}: our data agrees — it ranks first here, with 256-bit keys and authenticated encryption in one primitive."
            )
        } else if extra < 0.05 {
            format!(
                "Study 003 recommended AES-256-GCM{device_note}: our data agrees in substance — it ranks #{} but costs only {} more than {} per message, since the radio ({:.0} % of the energy) dominates and {}.",
                self.ranks[pos],
                percent_of(extra, 1.0),
                w.name(),
                eg.radio_share * 100.0,
                bytes_on_air_compared(on_air(g).0, on_air(w).0)
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
                    on_air(g).0,
                    on_air(w).0
                )
            };
            format!(
                "Study 003 recommended AES-256-GCM{device_note}: our data disagrees — it ranks #{} and costs {:.1} % more per message than {}, because {cause}.",
                self.ranks[pos],
                extra * 100.0,
                w.name()
            )
        }
    }

    /// Post-quantum against classical key establishment for the winner the
    /// sessions key (the cheapest pre-shared-key row).
    fn post_quantum(&self, req: &Request) -> Option<String> {
        let n = req.session_messages?;
        let base = self.ranked.iter().find(|c| c.session.is_none())?;
        crate::session::choice_sentence(&self.sessions, message_uj(base), n)
    }

    /// Refused when no scheme meets the constraints, saying what to relax.
    pub fn require_ranked(&self) -> Result<(), Error> {
        if self.ranked.is_empty() {
            return Err(Error::invalid(format!(
                "no scheme meets the constraints ({} excluded); lower --min-security or add --allow-legacy",
                self.excluded.len()
            )));
        }
        Ok(())
    }

    /// The ranking as plain rows, for JSON, the store and the report.
    pub fn summary(&self, req: &Request) -> RankingSummary {
        RankingSummary {
            device: req.device.clone(),
            link: req.link.clone(),
            sample: req.payload.clone(),
            need: req.need,
            min_security: req.min_security,
            interval_s: self.interval_s,
            battery: req.battery.clone(),
            serialization: req.serialization.clone().unwrap_or_else(|| "json".into()),
            containers: req
                .containers
                .iter()
                .map(|c| c.as_str().to_string())
                .collect(),
            duty_cycle: self.duty_cycle.clone(),
            frame_fit: self.frame_fit.clone(),
            sessions: self.sessions.clone(),
            tie: self.tie.clone(),
            build: crate::build_commands::for_request(req, &self.ranked),
            post_quantum: self.post_quantum(req),
            rows: self
                .ranked
                .iter()
                .zip(&self.ranks)
                .map(|(c, &rank)| {
                    let e = c.energy.as_ref().expect("ranked schemes have energy");
                    let (lo, hi) = energy_range_uj(c);
                    RankedRow {
                        rank,
                        scheme: c.name().to_string(),
                        container: c.container.as_str().to_string(),
                        compression: c.schc.as_ref().map(|p| p.summary()),
                        status: status_of(c).0,
                        status_reason: status_of(c).1,
                        security_bits: c.scheme.security_bits(),
                        sealed_bytes: c.sealed_bytes,
                        on_air_bytes: on_air(c).0,
                        frames: on_air(c).1,
                        airtime_ms: c.link_cost.as_ref().map_or(0.0, |l| ms(l.airtime)),
                        min_interval_s: c
                            .link_cost
                            .as_ref()
                            .and_then(|l| l.min_interval.map(|t| t.as_secs())),
                        duty_cycle_allowed: allowed(c, self.interval_s),
                        limits_broken: c
                            .link_cost
                            .as_ref()
                            .map(|l| l.limits_broken(self.interval_s))
                            .unwrap_or_default(),
                        cpu_time_us: c.cpu_us,
                        cpu_uj: e.cpu_j * 1e6,
                        radio_uj: (e.tx_j + e.rx_j) * 1e6,
                        message_uj: e.message_j * 1e6,
                        message_uj_range: [lo, hi],
                        cpu_model_error: c.cpu_model_error.as_ref().map(|e| e.median),
                        code_size_bytes: c.code_size,
                        stack_bytes: c.stack_bytes,
                        battery_days: e.battery_days,
                        battery_note: e.battery_note.clone(),
                        cpu_time_source: c.cpu_source.describe(),
                        device_measured: c.cpu_source.is_device(),
                        device_failure: c.cpu_source.device_failure().map(str::to_string),
                        session_messages: c.session.as_ref().map(|s| s.messages),
                        key_establishment: c.session.as_ref().map(|s| s.protocol.clone()),
                        handshake_share_uj: c.session.as_ref().map(|s| s.handshake_uj),
                        implementation: match &c.engine {
                            Some(engine) => engine.label(),
                            None => c.seal_implementation.name().to_string(),
                        },
                        cpu_time_basis: cpu_time_basis(c).to_string(),
                        engine: c.engine.clone(),
                        seal_paths: c
                            .seal_paths
                            .iter()
                            .map(|(us, imp)| SealPath {
                                implementation: imp.name().to_string(),
                                cpu_time_us: *us,
                            })
                            .collect(),
                        implementation_breakdown: c.implementation.clone(),
                        constant_time: c.constant_time.clone(),
                        key_limit: Some(cost_engine::key_limits::key_lifetime(
                            c.name(),
                            c.sealed_bytes,
                            self.interval_s,
                            req.session_messages,
                        )),
                    }
                })
                .collect(),
            excluded: self
                .excluded
                .iter()
                .map(|(scheme, why)| Excluded {
                    scheme: scheme.clone(),
                    why: why.clone(),
                })
                .collect(),
            explanation: self.explain(),
            study003_verdict: self.study003_verdict(&req.device),
        }
    }
}

/// "both send 280 bytes on air", or "it sends 296 bytes on air against 280".
fn bytes_on_air_compared(it: u32, winner: u32) -> String {
    if it == winner {
        format!("both send {it} bytes on air")
    } else {
        format!("it sends {it} bytes on air against {winner}")
    }
}

/// Study 003's recommendation (sections 6 and 7 of the paper).
const STUDY_003_CHOICE: &str = "aead:aes-256-gcm";

/// A ranking as data: what `recommend --format json` prints and the report shows.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RankingSummary {
    pub device: String,
    pub link: String,
    /// The reading (`--payload`): chain:N, record:KB or random:N, named as `link` and `energy` name it.
    #[serde(alias = "payload")]
    pub sample: String,
    pub need: Need,
    pub min_security: u32,
    /// One message every this many seconds.
    #[serde(default)]
    pub interval_s: f64,
    /// The battery profile behind `battery_days` (`--battery`).
    #[serde(default)]
    pub battery: String,
    /// The containers ranked (`--container`).
    #[serde(default)]
    pub containers: Vec<String>,
    /// How the reading is serialized (`--serialization`).
    #[serde(default)]
    pub serialization: String,
    /// Whether the link's duty cycle allows the interval, said first.
    #[serde(default)]
    pub duty_cycle: Option<DutyCycleAnswer>,
    /// When no choice fits one frame: that said, and what would, costed.
    #[serde(default)]
    pub frame_fit: Option<crate::frame_fit::FrameFit>,
    /// With `--session-messages`: each handshake's cost and when it stops mattering.
    #[serde(default)]
    pub sessions: Vec<crate::session::SessionAnswer>,
    /// What post-quantum or hybrid key establishment costs over classical here.
    #[serde(default)]
    pub post_quantum: Option<String>,
    /// The first choices, when they tie within `tie::TIE_PERCENT`, and the
    /// tie-breaker that picked the first row.
    #[serde(default)]
    pub tie: Option<crate::tie::TieGroup>,
    /// The commands that build the winner (or the best software row) for the device.
    #[serde(default)]
    pub build: Option<crate::build_commands::BuildCommands>,
    pub rows: Vec<RankedRow>,
    pub excluded: Vec<Excluded>,
    pub explanation: Vec<String>,
    pub study003_verdict: String,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RankedRow {
    pub rank: usize,
    pub scheme: String,
    /// The container the message is sealed in (json, binary, cose, oscore).
    pub container: String,
    /// The oscore container's message compressed with SCHC (`--compression`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compression: Option<crate::message::Compression>,
    pub status: String,
    pub status_reason: Option<String>,
    pub security_bits: u32,
    /// The sealed message's own bytes (the container's, before the link's headers).
    pub sealed_bytes: usize,
    /// Bytes the radio sends for it: every frame's header and MIC included, as `link` counts.
    #[serde(default)]
    pub on_air_bytes: u32,
    #[serde(default)]
    pub frames: u32,
    #[serde(default)]
    pub airtime_ms: f64,
    /// Duty cycle: the earliest next message start, as `link` says.
    #[serde(default)]
    pub min_interval_s: Option<f64>,
    /// Whether the link's limits (duty cycle, uplinks a day) allow one
    /// message every `interval_s`; a choice that does not ranks after every
    /// one that does.
    #[serde(default = "yes")]
    pub duty_cycle_allowed: bool,
    /// The limits it breaks at `interval_s` (`duty_cycle`,
    /// `uplinks_per_day`); empty when allowed.
    #[serde(default)]
    pub limits_broken: Vec<link::limits::Limit>,
    /// The seal's CPU time, µs (the device's own where `device_measured`).
    #[serde(alias = "cpu_us")]
    pub cpu_time_us: f64,
    pub cpu_uj: f64,
    pub radio_uj: f64,
    /// CPU and radio energy of one message (as `energy` names it).
    #[serde(alias = "total_uj")]
    pub message_uj: f64,
    /// `message_uj` with the CPU time at the ends of its uncertainty: this
    /// host's 95 % interval, or ± `cpu_model_error` on a simulated Cortex-M.
    /// Rows whose ranges overlap the first of a rank share it.
    #[serde(alias = "total_uj_range")]
    pub message_uj_range: [f64; 2],
    /// The cycle model's median error on the device's core (0.06 is 6 %),
    /// where `cpu_time_us` is its estimate; null for an exact count, a
    /// host's time, or a core no published board figure has checked yet.
    #[serde(default)]
    pub cpu_model_error: Option<f64>,
    pub code_size_bytes: Option<i64>,
    pub stack_bytes: Option<u32>,
    pub battery_days: Option<f64>,
    /// When the cell, not the device, bounds battery life (shelf life, self-discharge).
    #[serde(default)]
    pub battery_note: Option<String>,
    #[serde(alias = "cpu_source")]
    pub cpu_time_source: String,
    /// The CPU time is the device's own; false: this host's, labelled, ranked last.
    pub device_measured: bool,
    /// Why the device has no time of its own: the scheme does not fit it
    /// (with sizes) or its build failed; none when it was never measured.
    pub device_failure: Option<String>,
    /// Keyed by a handshake (`key_establishment`: edhoc, x-wing, ml-kem-512…)
    /// once per this many messages (none: a pre-shared key);
    /// `handshake_share_uj` is its share of each message, in `message_uj`.
    #[serde(default)]
    pub session_messages: Option<u64>,
    #[serde(default)]
    pub key_establishment: Option<String>,
    #[serde(default)]
    pub handshake_share_uj: Option<f64>,
    /// Whose code `cpu_time_us` is: on a simulated device the fastest allowed
    /// implementation whose whole seal path (serialize, seal, container) was
    /// measured there with passing known answers; on the host RustCrypto's.
    #[serde(default = "rustcrypto")]
    pub implementation: String,
    /// Each allowed implementation's whole seal path on the device; the row
    /// is the fastest. Empty for a host time.
    #[serde(default)]
    pub seal_paths: Vec<SealPath>,
    /// The breakdown: the fastest implementation of each primitive measured
    /// alone on the device, and its speedup over the others (device rows).
    #[serde(default)]
    pub implementation_breakdown: Option<crate::implementation_choice::ImplementationChoice>,
    /// Whether `implementation`'s build is constant-time on the device
    /// (`ciphermeter ct`, data/constant-time/); none for a host time. A build
    /// that leaks is ranked only with `--allow-leaky`, and marked.
    #[serde(default)]
    pub constant_time: Option<crate::device_times::ConstantTime>,
    /// Where `cpu_time_us` comes from: `simulated` (the device's instruction
    /// stream), `measured` (a board's counter, or this host), or `published`
    /// (a hardware engine's figures for its part, `engine`).
    #[serde(default)]
    pub cpu_time_basis: String,
    /// The hardware engine doing part of the seal, with its sources.
    #[serde(default)]
    pub engine: Option<cost_engine::engine_use::EngineUse>,
    /// Messages one key may protect under the scheme's published limits at
    /// `sealed_bytes` a message, the days that makes at `interval_s`, the
    /// source, and whether `--session-messages` passes it (`key_limits`).
    #[serde(default)]
    pub key_limit: Option<cost_engine::key_limits::KeyLifetime>,
}

/// One implementation's whole seal path of a ranked row's scheme.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SealPath {
    pub implementation: String,
    pub cpu_time_us: f64,
}

fn rustcrypto() -> String {
    device_facts::Implementation::RustCrypto.name().to_string()
}

impl RankedRow {
    /// How a sentence names `implementation` ("Mbed TLS 2.28", "ciphermeter").
    pub fn implementation_label(&self) -> &str {
        label(&self.implementation)
    }

    /// "ciphermeter's code: 2.6× less CPU than RustCrypto's here", with what
    /// measured faster alone but has no whole seal path of the scheme.
    /// The text table's timing column: the constant-time verdict on the
    /// device (`ct`, `LEAKS`, `unchecked`), `-` for a host time.
    pub fn timing(&self) -> &'static str {
        if self.engine.is_some() {
            // The software around it was checked; the engine's timing was not.
            return "unchecked";
        }
        match self.constant_time.as_ref().map(|t| t.verdict.as_str()) {
            Some("constant-time") => "ct",
            Some("leaks") => "LEAKS",
            Some(_) => "unchecked",
            None => "-",
        }
    }

    pub fn implementation_sentence(&self) -> String {
        if let Some(e) = &self.engine {
            let ghash = match e.software_ghash_cycles {
                Some(c) => format!("; GCM's GHASH stays in software: {c:.0} cycles of it"),
                None => String::new(),
            };
            return format!(
                "the {} for {:.0} cycles (published figures), {}'s code around it for {:.0} (simulated){ghash}",
                e.engine_title,
                e.engine_cycles,
                label(&e.software_implementation),
                e.software_cycles
            );
        }
        let chosen = self
            .seal_paths
            .iter()
            .find(|p| p.implementation == self.implementation);
        let others: Vec<String> = self
            .seal_paths
            .iter()
            .filter(|p| p.implementation != self.implementation)
            .filter_map(|p| {
                let ratio = p.cpu_time_us / chosen?.cpu_time_us;
                Some(format!("{}'s {ratio:.2}×", label(&p.implementation)))
            })
            .collect();
        let mut out = format!("{}'s code", label(&self.implementation));
        if !others.is_empty() {
            out.push_str(&format!(
                " (CPU of the others' whole seal path here: {})",
                others.join(", ")
            ));
        }
        // A primitive measured faster alone by an implementation with no
        // whole seal path of this scheme: said, not ranked.
        if let Some(b) = &self.implementation_breakdown {
            for part in &b.parts {
                let faster = part.implementation != self.implementation
                    && !self
                        .seal_paths
                        .iter()
                        .any(|p| p.implementation == part.implementation);
                if faster && let Some(x) = part.speedup_over_rustcrypto {
                    let imp = part.implementation.parse::<device_facts::Implementation>();
                    let backend = imp.as_ref().is_ok_and(|i| i.sealing_backend().is_some());
                    // An OSCORE build whose AEAD the backend has, in another form.
                    let core = seal::oscore_build::core_scheme(&self.scheme);
                    let other_form = core.is_some_and(|c| imp.is_ok_and(|i| i.seals(c)));
                    out.push_str(&format!(
                        "; {}'s {} alone measures {x:.1}× RustCrypto's speed, but {}",
                        label(&part.implementation),
                        part.algorithm,
                        match (backend, other_form) {
                            (_, true) =>
                                "only RustCrypto's code seals OSCORE's form of it (its tag)",
                            (true, false) => "it lacks another primitive of this scheme",
                            (false, false) => "it is no backend of the sealing core yet",
                        }
                    ));
                }
            }
        }
        out
    }
}

/// How a sentence names an implementation ("Mbed TLS 2.28").
fn label(name: &str) -> &str {
    name.parse::<device_facts::Implementation>()
        .map(|i| i.label())
        .unwrap_or(name)
}

impl RankingSummary {
    /// The ranking as `recommend` prints it: the first `top` rows, marked
    /// (legacy, broken, insecure, host time), then why the winner won and
    /// study 003's advice judged. Empty rows print only the header.
    pub fn text(&self, top: usize) -> String {
        let mut o = String::new();
        if let Some(d) = &self.duty_cycle {
            let _ = writeln!(o, "{}\n", d.sentence);
        }
        if let Some(f) = &self.frame_fit {
            let _ = writeln!(o, "{}", f.text());
        }
        let _ = writeln!(
            o,
            "Schemes for {} over {} carrying {} (energy: model estimate; msg B: the sealed message, air B: what the radio sends)",
            self.device, self.link, self.sample
        );
        // The defaults behind the figures, so that none is assumed unsaid.
        let _ = writeln!(
            o,
            "  one message every {} s (--interval), battery {} (--battery), serialized as {} (--serialization), in {} (--container)",
            self.interval_s,
            self.battery,
            self.serialization,
            self.containers.join(", ")
        );
        let _ = writeln!(
            o,
            "{:>3}  {:<38} {:>5} {:>7} {:>7} {:>6} {:>10} {:>10} {:>10} {:>7} {:>7} {:>9}  timing",
            "#",
            "scheme",
            "bits",
            "msg B",
            "air B",
            "frames",
            "CPU uJ",
            "radio uJ",
            "total uJ",
            "code B",
            "stack B",
            "battery d"
        );
        let first_on_device = self.rows.first().is_some_and(|r| r.device_measured);
        for row in self.rows.iter().take(top) {
            let mark = match (row.status.as_str(), row.device_measured) {
                ("recommended", false) if first_on_device => " [host time]".into(),
                ("recommended", _) => String::new(),
                (status, _) => format!(" [{}]", status.to_uppercase()),
            };
            // The container is named when several are ranked, or compressed.
            let wrap = |r: &RankedRow| match &r.compression {
                Some(c) => format!("{}+{}", r.container, c.scheme),
                None => r.container.clone(),
            };
            let shown = if self.rows.iter().any(|r| wrap(r) != wrap(row)) {
                format!("{} ({})", row.scheme, wrap(row))
            } else {
                row.scheme.clone()
            };
            let mark = match &row.device_failure {
                Some(_) if !row.device_measured => " [does not fit: host time]".to_string(),
                _ => mark,
            };
            let mark = match (row.session_messages, &row.key_establishment) {
                (Some(n), Some(p)) => format!(" [{p} per {n}]{mark}"),
                _ => mark,
            };
            let mark = match row.duty_cycle_allowed {
                true => mark,
                false => {
                    let broken: Vec<&str> = row.limits_broken.iter().map(|l| l.short()).collect();
                    format!(" [NOT ALLOWED: {}]{mark}", broken.join(", "))
                }
            };
            let mark = match &row.engine {
                Some(e) => format!(" [{}: published]{mark}", e.engine),
                None => mark,
            };
            let mark = match row.key_limit.as_ref().filter(|k| k.session_past_limit) {
                Some(k) => format!(
                    " [SESSION PAST KEY LIMIT {}]{mark}",
                    k.messages_per_key.unwrap_or_default()
                ),
                None => mark,
            };
            let _ = writeln!(
                o,
                "{:>3}  {:<38} {:>5} {:>7} {:>7} {:>6} {:>10.2} {:>10.2} {:>10.2} {:>7} {:>7} {:>9}  {}",
                row.rank,
                format!("{shown}{mark}"),
                row.security_bits,
                row.sealed_bytes,
                row.on_air_bytes,
                row.frames,
                row.cpu_uj,
                row.radio_uj,
                row.message_uj,
                row.code_size_bytes.map_or("-".into(), |s| s.to_string()),
                row.stack_bytes.map_or("-".into(), |s| s.to_string()),
                row.battery_days.map_or("-".into(), |d| format!(
                    "{d:.0}{}",
                    if row.battery_note.is_some() { "*" } else { "" }
                )),
                row.timing()
            );
        }
        if self.rows.len() > top {
            let _ = writeln!(o, "     ... {} more (--top N)", self.rows.len() - top);
        }
        if let Some(note) = self
            .rows
            .iter()
            .take(top)
            .find_map(|r| r.battery_note.as_ref())
        {
            let _ = writeln!(o, "  * battery life: {note}");
        }
        // Whose code each shown row's CPU time is, once per scheme (and
        // once more with an engine).
        let mut named: Vec<String> = Vec::new();
        for row in self.rows.iter().take(top) {
            let shown = match &row.engine {
                Some(e) => e.shown_name(&row.scheme),
                None => row.scheme.clone(),
            };
            if row.seal_paths.is_empty() || named.contains(&shown) {
                continue;
            }
            if named.is_empty() {
                let _ = writeln!(
                    o,
                    "\nWhose code (the fastest whole seal path measured on the device with passing known answers; `--impl` restricts it):"
                );
            }
            let _ = writeln!(o, "  {shown}: {}", row.implementation_sentence());
            named.push(shown);
        }
        // Messages per key under each shown scheme's published limits.
        let mut said: Vec<&str> = Vec::new();
        for row in self.rows.iter().take(top) {
            let Some(k) = row
                .key_limit
                .as_ref()
                .filter(|_| !said.contains(&row.scheme.as_str()))
            else {
                continue;
            };
            if said.is_empty() {
                let _ = writeln!(
                    o,
                    "\nMessages one key may protect (published limits at the row's sealed length; {}):",
                    k.limit_target
                );
            }
            let _ = writeln!(o, "  {}: {} [{}]", row.scheme, k.short(), k.limit_source);
            said.push(&row.scheme);
        }
        // Schemes the device itself cannot seal with (does not build, fit
        // or pass there, or never measured): said, never ranked.
        let unfit: Vec<&Excluded> = self
            .excluded
            .iter()
            .filter(|e| e.why.starts_with(NOT_ON_DEVICE) || e.why.starts_with(NO_SEAL_PATH))
            .collect();
        if !unfit.is_empty() {
            let names: Vec<&str> = unfit.iter().take(6).map(|e| e.scheme.as_str()).collect();
            let _ = writeln!(
                o,
                "\nNot ranked: {} scheme{} without the device's own seal path (does not build or fit there, or not measured): {}{} (--format json: `excluded`, with each reason)",
                unfit.len(),
                if unfit.len() == 1 { "" } else { "s" },
                names.join(", "),
                if unfit.len() > names.len() {
                    ", …"
                } else {
                    ""
                }
            );
        }
        let _ = writeln!(o);
        for session in &self.sessions {
            let _ = writeln!(o, "{}\n", session.sentence);
        }
        if let Some((row, k)) = self
            .rows
            .first()
            .and_then(|r| Some((r, r.key_limit.as_ref()?)))
        {
            let _ = writeln!(o, "{}\n", k.sentence(&row.scheme, self.interval_s));
        }
        if let Some(p) = &self.post_quantum {
            let _ = writeln!(o, "{p}\n");
        }
        for line in &self.explanation {
            let _ = writeln!(o, "{line}");
        }
        if let Some(build) = &self.build {
            let _ = write!(o, "\n{}", build.text());
        }
        let _ = writeln!(o, "\n{}", self.study003_verdict);
        if let Some(first) = self.rows.first() {
            let _ = writeln!(o, "CPU time source: {}", first.cpu_time_source);
        }
        o
    }
}

fn yes() -> bool {
    true
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Excluded {
    pub scheme: String,
    pub why: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_leads_keep_two_significant_digits() {
        assert_eq!(percent_of(146.9, 406_039.0), "0.036 %");
        assert_eq!(percent_of(1.0, 50.0), "2.0 %");
        assert_eq!(percent_of(1.0, 6.0), "17 %");
        assert_eq!(percent_of(0.0, 8.0), "0 %");
    }

    #[test]
    fn overlapping_ranges_share_a_rank_and_separate_ones_do_not() {
        let ranges = [(9.0, 11.0), (10.5, 12.0), (11.5, 13.0), (20.0, 20.0)];
        // The second overlaps the first; the third overlaps only the second,
        // so it starts a new rank; the fourth is far away.
        assert_eq!(shared_ranks(&ranges), vec![1, 1, 3, 4]);
        assert_eq!(shared_ranks(&[(1.0, 1.0), (1.0, 1.0)]), vec![1, 1]);
        assert_eq!(shared_ranks(&[(1.0, 1.0), (1.5, 1.5)]), vec![1, 2]);
    }

    fn request() -> Request {
        Request {
            device: "esp32".into(),
            link: "lorawan-eu868-dr3".into(),
            payload: "chain:1".into(),
            serialization: None,
            min_security: 128,
            need: Need::Integrity,
            allow_legacy: false,
            allow_leaky: false,
            containers: vec![seal::Container::Json.into()],
            compression: None,
            battery: "2xAA".into(),
            interval: "10m".into(),
            data_dir: None,
            session_messages: None,
            implementations: Vec::new(),
            hardware: true,
            cost_table: None,
            protocol: Default::default(),
        }
    }

    /// A sample error, so that these tests do not hang on the shipped validation.
    fn m4_error(median: f64) -> device_facts::cycle_model::validation::CoreError {
        device_facts::cycle_model::validation::CoreError {
            target: device_facts::Target::CortexM4,
            figures: 15,
            median,
            max: 0.2,
        }
    }

    /// Two nRF52840 rows (a real simulated AES-128-CCM row and a copy) whose
    /// energies differ by 3 %, half of it CPU: 100 and 103 µJ, CPU 50 and
    /// 53 µJ. Each carries `error` as its cycle model's.
    fn two_cortex_m4_rows(
        error: Option<device_facts::cycle_model::validation::CoreError>,
    ) -> Vec<SchemeCost> {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("r.sqlite")).unwrap();
        let req = Request {
            device: "nrf52840".into(),
            hardware: false,
            ..request()
        };
        let names = vec!["aead:aes-128-ccm".to_string()];
        let r = rank_names(&req, &store, &names, true, &mut |_, _, _| {}).unwrap();
        let base = r.ranked[0].clone();
        assert!(
            base.cpu_source.is_device(),
            "{}",
            base.cpu_source.describe()
        );
        [(100e-6, 50e-6), (103e-6, 53e-6)]
            .into_iter()
            .map(|(message_j, cpu_j)| {
                let mut row = base.clone();
                let e = row.energy.as_mut().unwrap();
                (e.message_j, e.cpu_j) = (message_j, cpu_j);
                row.cpu_model_error = error.clone();
                row
            })
            .collect()
    }

    /// A simulated Cortex-M time is an estimate: its range is ± the model's
    /// median error on the CPU energy, so rows closer than that share a rank
    /// and the tie says why. Unvalidated, or a smaller error, they do not.
    #[test]
    fn rows_within_the_cycle_models_error_share_a_rank() {
        let mut rows = two_cortex_m4_rows(Some(m4_error(0.06)));
        let (lo, hi) = energy_range_uj(&rows[0]);
        assert!(
            (lo - 97.0).abs() < 1e-9 && (hi - 103.0).abs() < 1e-9,
            "{lo} {hi}"
        );
        let mut ranks = order(&mut rows, 600.0);
        assert_eq!(ranks, vec![1, 1]);
        let tie = tie_at_the_top(&mut rows, &mut ranks, 600.0, None).expect("a tie");
        assert!(
            tie.sentence.contains(
                "within the cycle model's error on their CPU times (median error 6 % against 15 published board figures on the Cortex-M4)"
            ),
            "{}",
            tie.sentence
        );
        let ranking = Ranking {
            ranked: rows,
            ranks,
            excluded: Vec::new(),
            interval_s: 600.0,
            duty_cycle: None,
            frame_fit: None,
            sessions: Vec::new(),
            tie: Some(tie),
        };
        let summary = ranking.summary(&Request {
            device: "nrf52840".into(),
            ..request()
        });
        assert_eq!(summary.rows[1].rank, 1);
        assert_eq!(summary.rows[1].cpu_model_error, Some(0.06));
        assert!(summary.explanation.iter().any(|l| l.contains("Cortex-M4")));

        for error in [None, Some(m4_error(0.01))] {
            let mut rows = two_cortex_m4_rows(error.clone());
            let mut ranks = order(&mut rows, 600.0);
            assert_eq!(ranks, vec![1, 2], "{error:?}");
            assert!(tie_at_the_top(&mut rows, &mut ranks, 600.0, None).is_none());
        }
        let (lo, hi) = energy_range_uj(&two_cortex_m4_rows(None)[0]);
        assert_eq!((lo, hi), (100.0, 100.0), "no error is invented");
    }

    /// Within 1 % the old reason stands, whatever the model's error.
    #[test]
    fn a_tie_within_one_percent_keeps_its_reason() {
        let mut rows = two_cortex_m4_rows(Some(m4_error(0.06)));
        let e = rows[1].energy.as_mut().unwrap();
        e.message_j = 100.5e-6;
        let mut ranks = order(&mut rows, 600.0);
        let tie = tie_at_the_top(&mut rows, &mut ranks, 600.0, None).unwrap();
        assert!(
            tie.sentence.contains("below what the model resolves"),
            "{}",
            tie.sentence
        );
    }

    #[test]
    fn an_unknown_candidate_is_excluded_with_its_reason_not_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("r.sqlite")).unwrap();
        let req = request();
        let names = vec!["aead:no-such-cipher".to_string()];
        let r = rank_names(&req, &store, &names, true, &mut |_, _, _| {}).unwrap();
        assert!(r.ranked.is_empty());
        let err = r.require_ranked().unwrap_err().to_string();
        assert!(
            err.starts_with("no scheme meets the constraints (1 excluded)"),
            "{err}"
        );
        assert_eq!(r.excluded.len(), 1, "{:?}", r.excluded);
        assert_eq!(r.excluded[0].0, "aead:no-such-cipher");
        assert!(
            r.excluded[0].1.contains("cannot be built"),
            "{:?}",
            r.excluded
        );
    }

    #[test]
    fn a_scheme_seal_refuses_is_never_ranked() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("r.sqlite")).unwrap();
        let req = Request {
            need: Need::Confidentiality,
            ..request()
        };
        assert!(candidates(req.need).contains(&"etm:salsa20+hmac-sha256".to_string()));
        let names = vec!["etm:salsa20+hmac-sha256".to_string()];
        let r = rank_names(&req, &store, &names, true, &mut |_, _, _| {}).unwrap();
        assert!(r.ranked.is_empty());
        assert!(r.excluded[0].1.contains("64-bit nonce"), "{:?}", r.excluded);

        // Asked for, it is ranked after every safe scheme, even one that sends
        // 40 bytes more (a 16-byte IV, CBC padding and a 64-byte tag), marked
        // with why.
        let req = Request {
            allow_legacy: true,
            allow_leaky: false,
            ..req
        };
        let names = vec![
            "etm:salsa20+hmac-sha256".to_string(),
            "etm:aes-256-cbc+hmac-sha512".to_string(),
        ];
        let r = rank_names(&req, &store, &names, true, &mut |_, _, _| {}).unwrap();
        let rows = r.summary(&req).rows;
        assert_eq!(rows[0].scheme, "etm:aes-256-cbc+hmac-sha512");
        assert!(rows[0].sealed_bytes > rows[1].sealed_bytes);
        assert_eq!((rows[1].rank, rows[1].status.as_str()), (2, "insecure"));
        assert!(
            rows[1]
                .status_reason
                .as_deref()
                .unwrap()
                .contains("64-bit nonce")
        );
    }
}
