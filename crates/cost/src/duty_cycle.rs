//! The region's duty cycle, judged in one place for `energy` and `recommend`:
//! whether a message may be sent every interval, and, when none of the
//! ranked choices may, what would make one allowed (a longer interval, a
//! faster data rate, a smaller container). EU868's 1 % is a legal limit, so
//! a choice that breaks it is never a silent winner.

use link::{LinkCost, LinkSpec};
use seal::host::container::MessageContainer;
use serde::{Deserialize, Serialize};

use crate::Error;
use crate::message::{Message, MessageSpec, message_len};

/// Whether a message with this cost may start every `interval_s` seconds.
/// A link with no duty-cycle rule allows any interval.
pub fn allows(cost: &LinkCost, interval_s: f64) -> bool {
    cost.min_interval
        .is_none_or(|iv| iv.as_secs() <= interval_s)
}

/// The earliest next message start, seconds (0 on a link without a duty cycle).
fn min_interval_s(cost: &LinkCost) -> f64 {
    cost.min_interval.map_or(0.0, |iv| iv.as_secs())
}

/// The sentence `energy` warns with when `cost` breaks the duty cycle.
pub fn breach(cost: &LinkCost, interval_s: f64) -> Option<String> {
    let iv = cost.min_interval.filter(|_| !allows(cost, interval_s))?;
    Some(format!(
        "the {interval_s}-s interval breaks the duty cycle, which allows one message every {:.1} s",
        iv.as_secs()
    ))
}

/// The link's duty-cycle rule in words ("EU868's 1 % duty cycle"), if it has one.
pub fn rule(spec: &LinkSpec) -> Option<String> {
    let region = spec.lorawan.as_ref()?.region;
    let dc = region.duty_cycle()?;
    let percent = *dc.numer() as f64 * 100.0 / *dc.denom() as f64;
    Some(format!("{region}'s {percent} % duty cycle"))
}

/// One way to send a message more often: its shortest legal interval there.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Remedy {
    /// "at DR2 (SF10/125 kHz, at most 51 B a frame)", "in the binary container".
    pub what: String,
    pub min_interval_s: f64,
    /// Whether the asked interval is legal this way.
    pub duty_cycle_allowed: bool,
    /// The `recommend` option that takes it: `--link lorawan-eu868-dr2`,
    /// `--container binary`.
    #[serde(default)]
    pub option: String,
}

/// The duty-cycle answer to one ranking.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct DutyCycleAnswer {
    pub rule: String,
    pub interval_s: f64,
    /// Ranked choices (scheme × container) that may be sent every `interval_s`, of all ranked.
    pub allowed_count: usize,
    pub ranked_count: usize,
    /// The ranked choice with the shortest legal interval, and that interval.
    pub shortest_scheme: String,
    pub shortest_container: String,
    pub shortest_legal_interval_s: f64,
    /// With none allowed: the same choice at each faster data rate…
    pub faster_data_rates: Vec<Remedy>,
    /// …and in each container that sends fewer bytes.
    pub smaller_containers: Vec<Remedy>,
    /// What `recommend` says first.
    pub sentence: String,
}

/// A ranked choice, as the answer needs it.
pub struct Choice<'a> {
    pub scheme: &'a str,
    pub container: MessageContainer,
    pub cost: &'a LinkCost,
    /// The message compressed with SCHC, which another data rate sends as
    /// RFC 9011 does there (whole, or in other fragments).
    pub schc: Option<&'a crate::message::SchcPacket>,
}

/// Judges the ranked choices; `None` on a link without a duty-cycle rule.
pub fn answer(
    spec: &LinkSpec,
    interval_s: f64,
    payload: &str,
    choices: &[Choice],
) -> Result<Option<DutyCycleAnswer>, Error> {
    let Some(rule) = rule(spec) else {
        return Ok(None);
    };
    let Some(best) = choices
        .iter()
        .min_by(|a, b| min_interval_s(a.cost).total_cmp(&min_interval_s(b.cost)))
    else {
        return Ok(None);
    };
    let allowed = choices
        .iter()
        .filter(|c| allows(c.cost, interval_s))
        .count();
    let shortest = min_interval_s(best.cost);
    let (mut faster, mut smaller) = (Vec::new(), Vec::new());
    if allowed == 0 {
        faster = faster_data_rates(spec, best, interval_s);
        smaller = smaller_containers(spec, best, payload, interval_s)?;
    }
    let sentence = sentence(
        spec,
        &rule,
        interval_s,
        (allowed, choices.len()),
        best,
        shortest,
        &faster,
        &smaller,
    );
    Ok(Some(DutyCycleAnswer {
        rule,
        interval_s,
        allowed_count: allowed,
        ranked_count: choices.len(),
        shortest_scheme: best.scheme.to_string(),
        shortest_container: best.container.as_str().to_string(),
        shortest_legal_interval_s: shortest,
        faster_data_rates: faster,
        smaller_containers: smaller,
        sentence,
    }))
}

/// The same message at each faster data rate of the link's region.
fn faster_data_rates(spec: &LinkSpec, best: &Choice, interval_s: f64) -> Vec<Remedy> {
    let Some(w) = &spec.lorawan else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for rate in w.region.data_rates().into_iter().filter(|r| r.dr > w.dr) {
        let mut faster = spec.clone();
        if let Some(fw) = faster.lorawan.as_mut() {
            fw.dr = rate.dr;
        }
        let cost = match best.schc {
            Some(p) => crate::on_air::packet_cost(&faster, p, &Default::default()).ok(),
            None => faster.cost(best.cost.message_bytes, false).ok(),
        };
        let Some(cost) = cost else {
            continue;
        };
        out.push(Remedy {
            what: format!(
                "at DR{} (SF{}/{}, at most {} B a frame)",
                rate.dr, rate.sf, rate.bandwidth, rate.max_payload
            ),
            min_interval_s: min_interval_s(&cost),
            duty_cycle_allowed: allows(&cost, interval_s),
            // The catalogue names a LoRaWAN link REGION-drN (data/links/lorawan.toml).
            option: format!(
                "--link {}-dr{}",
                spec.name
                    .rsplit_once("-dr")
                    .map_or(spec.name.as_str(), |(stem, _)| stem),
                rate.dr
            ),
        });
    }
    out
}

/// The same scheme sealed in each container that sends fewer bytes.
fn smaller_containers(
    spec: &LinkSpec,
    best: &Choice,
    payload: &str,
    interval_s: f64,
) -> Result<Vec<Remedy>, Error> {
    let mut out = Vec::new();
    // An OSCORE build seals in the oscore container only: the core's
    // containers are the other schemes' remedies.
    let others = MessageContainer::ALL
        .into_iter()
        .filter(|c| *c != best.container && c.is_oscore() == best.container.is_oscore());
    for container in others {
        let message = Message::build(&MessageSpec {
            scheme: Some(best.scheme.to_string()),
            sample: Some(payload.to_string()),
            container: Some(container.as_str().to_string()),
            seed: 1,
            allow_insecure: true,
            ..MessageSpec::default()
        })?;
        let Some(sealed) = &message.sealed else {
            continue;
        };
        let cost = spec
            .cost(message_len(sealed.bytes.len())?, false)
            .map_err(Error::invalid)?;
        if cost.on_air_bytes >= best.cost.on_air_bytes {
            continue;
        }
        out.push(Remedy {
            what: format!("in the {} container", container.as_str()),
            min_interval_s: min_interval_s(&cost),
            duty_cycle_allowed: allows(&cost, interval_s),
            option: format!("--container {}", container.as_str()),
        });
    }
    out.sort_by(|a, b| a.min_interval_s.total_cmp(&b.min_interval_s));
    Ok(out)
}

#[allow(clippy::too_many_arguments)]
fn sentence(
    spec: &LinkSpec,
    rule: &str,
    interval_s: f64,
    (allowed, ranked): (usize, usize),
    best: &Choice,
    shortest: f64,
    faster: &[Remedy],
    smaller: &[Remedy],
) -> String {
    let every = format!("every {} s on {}", trim(interval_s), spec.name);
    if allowed == ranked {
        return format!("Every ranked scheme may be sent {every} under {rule}.");
    }
    if allowed > 0 {
        return format!(
            "{allowed} of {ranked} ranked choices may be sent {every} under {rule}; the other {} break it, are marked not allowed and rank after every allowed one.",
            ranked - allowed
        );
    }
    let mut s = format!(
        "No scheme may be sent {every}: {rule} allows one message every {shortest:.1} s at the shortest ({} in the {} container, {} B on air in {} frame{}). Send every {} s or more (--interval {}s)",
        best.scheme,
        best.container.as_str(),
        best.cost.on_air_bytes,
        best.cost.frames,
        if best.cost.frames == 1 { "" } else { "s" },
        shortest.ceil(),
        shortest.ceil()
    );
    let remedies: Vec<String> = faster
        .iter()
        .find(|r| r.duty_cycle_allowed)
        .or(faster.last())
        .into_iter()
        .chain(smaller.first())
        .map(|r| {
            format!(
                "{} one message every {:.1} s ({}{})",
                r.what,
                r.min_interval_s,
                if r.duty_cycle_allowed {
                    "allowed; "
                } else {
                    ""
                },
                r.option
            )
        })
        .collect();
    if !remedies.is_empty() {
        s.push_str("; shorter: ");
        s.push_str(&remedies.join("; "));
    }
    s.push('.');
    s
}

/// 600 for 600.0, 1.5 for 1.5.
fn trim(x: f64) -> String {
    if x.fract() == 0.0 {
        format!("{x:.0}")
    } else {
        format!("{x}")
    }
}
