//! A ranking as data (what `recommend --format json` prints, the report
//! stores and the page shows) and in sentences: each row's figures and
//! marks, why the winner won, and whether study 003's AES-256-GCM advice
//! holds. Printing it as a table is `render`'s.

use seal::Pattern;
use serde::{Deserialize, Serialize};

use crate::Error;
use crate::choices::Need;
use crate::cpu_source::ConstantTime;
use crate::duty_cycle::DutyCycleAnswer;
use crate::frame_fit::FrameFit;
use crate::implementation_choice::ImplementationChoice;
use crate::on_air::ms;
use crate::rank::Ranking;
use crate::ranking::{
    allowed, cpu_time_basis, energy_range_uj, message_uj, on_air, percent_of, status_of,
};
use crate::request::Request;
use crate::schc_packet::Compression;
use crate::scheme_cost::SchemeCost;
use crate::session_share::NoSession;
use crate::tag_or_session::{self, TagOrSession};
use crate::tie::TieGroup;

impl<S: Clone> Ranking<S> {
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
    fn without_engine(&self, w: &SchemeCost, engine: &crate::engine_use::EngineUse) -> String {
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
    pub fn summary(&self, req: &Request) -> RankingSummary<S> {
        let mut summary = RankingSummary {
            device: req.device.clone(),
            link: req.link.clone(),
            sample: req.payload.clone(),
            need: req.need,
            min_security: req.min_security,
            interval_s: self.interval_s,
            battery: req.battery.clone(),
            radio: self.radio.clone(),
            radio_basis: self.radio_basis.clone(),
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
            build: self.build.clone(),
            post_quantum: self.post_quantum.clone(),
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
                        key_limit: Some(crate::key_limits::key_lifetime(
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
            tag_or_session: Vec::new(),
        };
        let weighed: Vec<tag_or_session::Row> = summary
            .rows
            .iter()
            .map(|r| tag_or_session::Row {
                scheme: &r.scheme,
                container: &r.container,
                compression: r.compression.as_ref().map(|c| c.scheme.as_str()),
                session: r.session_messages.zip(r.handshake_share_uj).map(
                    |(messages, handshake_share_uj)| tag_or_session::Session {
                        messages,
                        handshake_share_uj,
                    },
                ),
                message_uj: r.message_uj,
                sealed_bytes: r.sealed_bytes,
                messages_per_key: r.key_limit.as_ref().and_then(|k| k.messages_per_key),
            })
            .collect();
        let weighed = tag_or_session::compare(&weighed, req.session_messages);
        summary.tag_or_session = weighed;
        summary
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
#[serde(bound(serialize = "S: Serialize", deserialize = "S: Deserialize<'de>"))]
pub struct RankingSummary<S = NoSession> {
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
    /// The radio profile whose figures the energies rest on.
    #[serde(default)]
    pub radio: String,
    /// Why that radio: the device's own, or the link's (and why not the device's).
    #[serde(default)]
    pub radio_basis: String,
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
    pub frame_fit: Option<FrameFit>,
    /// With `--session-messages`: each handshake's cost and when it stops mattering.
    #[serde(default)]
    pub sessions: Vec<S>,
    /// What post-quantum or hybrid key establishment costs over classical here.
    #[serde(default)]
    pub post_quantum: Option<String>,
    /// The first choices, when they tie within `tie::TIE_PERCENT`, and the
    /// tie-breaker that picked the first row.
    #[serde(default)]
    pub tie: Option<TieGroup>,
    /// The commands that build the winner (or the best software row) for the device.
    #[serde(default)]
    pub build: Option<crate::build_commands::BuildCommands>,
    pub rows: Vec<RankedRow>,
    pub excluded: Vec<Excluded>,
    pub explanation: Vec<String>,
    pub study003_verdict: String,
    /// Each short-tag row against its full-tag row, the handshake spread over
    /// each one's session (`tag_or_session`).
    #[serde(default)]
    pub tag_or_session: Vec<TagOrSession>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RankedRow {
    pub rank: usize,
    pub scheme: String,
    /// The container the message is sealed in (json, binary, cose, oscore).
    pub container: String,
    /// The oscore container's message compressed with SCHC (`--compression`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compression: Option<Compression>,
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
    pub implementation_breakdown: Option<ImplementationChoice>,
    /// Whether `implementation`'s build is constant-time on the device
    /// (`ciphermeter ct`, data/constant-time/); none for a host time. A build
    /// that leaks is ranked only with `--allow-leaky`, and marked.
    #[serde(default)]
    pub constant_time: Option<ConstantTime>,
    /// Where `cpu_time_us` comes from: `simulated` (the device's instruction
    /// stream), `measured` (a board's counter, or this host), or `published`
    /// (a hardware engine's figures for its part, `engine`).
    #[serde(default)]
    pub cpu_time_basis: String,
    /// The hardware engine doing part of the seal, with its sources.
    #[serde(default)]
    pub engine: Option<crate::engine_use::EngineUse>,
    /// Messages one key may protect under the scheme's published limits at
    /// `sealed_bytes` a message, the days that makes at `interval_s`, the
    /// source, and whether `--session-messages` passes it (`key_limits`).
    #[serde(default)]
    pub key_limit: Option<crate::key_limits::KeyLifetime>,
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
pub fn label(name: &str) -> &str {
    name.parse::<device_facts::Implementation>()
        .map(|i| i.label())
        .unwrap_or(name)
}

fn yes() -> bool {
    true
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Excluded {
    pub scheme: String,
    pub why: String,
}
