//! A link's limits on how often it sends, judged in one place for `energy`
//! and `recommend`: LoRaWAN's regional duty cycle and each `[link.limits]`
//! (Sigfox RC1: the ETSI 1 % duty cycle and 140 uplinks a day), all through
//! [`LinkCost::min_interval`] and the limit that sets it. Whether a message
//! may be sent every interval, and, when none of the ranked choices may,
//! what would make one allowed (a longer interval, a faster data rate, a
//! smaller container, another link), each a `recommend` option that runs.
//! An interval no message could keep (shorter than its time on air, or
//! than the legal duty cycle allows even an empty frame) is refused.
//! A choice that breaks a limit is never a silent winner.

use link::limits::Limit;
use link::{Catalogue, LinkCost, LinkSpec};
use seal::host::container::MessageContainer;
use serde::{Deserialize, Serialize};

use crate::Error;
use crate::message::{Ask, Messages};
pub use crate::on_air::allows;
use crate::on_air::message_len;

/// The earliest next message start, seconds (0 on a link without a duty cycle).
fn min_interval_s(cost: &LinkCost) -> f64 {
    cost.min_interval.map_or(0.0, |iv| iv.as_secs())
}

/// The sentence `energy` warns with when `cost` breaks a limit, named.
pub fn breach(cost: &LinkCost, interval_s: f64) -> Option<String> {
    let iv = cost.min_interval.filter(|_| !allows(cost, interval_s))?;
    let broken: Vec<&str> = cost
        .limits_broken(interval_s)
        .iter()
        .map(|l| l.words())
        .collect();
    Some(format!(
        "the {interval_s}-s interval breaks {}, which allow{} one message every {:.1} s",
        broken.join(" and "),
        if broken.len() == 1 { "s" } else { "" },
        iv.as_secs()
    ))
}

/// The link's limits in words ("EU868's 1 % duty cycle", "Sigfox RC1's 1 %
/// duty cycle and 140 uplinks a day"), if it has any.
pub fn rule(spec: &LinkSpec) -> Option<String> {
    if let Some(l) = &spec.limits {
        return Some(l.words());
    }
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
    /// The limit that sets that interval: `duty_cycle` or `uplinks_per_day`.
    #[serde(default)]
    pub limit: Option<Limit>,
    /// With none allowed: the same choice at each faster data rate…
    pub faster_data_rates: Vec<Remedy>,
    /// …and in each container that sends fewer bytes…
    pub smaller_containers: Vec<Remedy>,
    /// …and on another link (the slowest of each other family that allows
    /// it, in the same band or in none).
    #[serde(default)]
    pub other_links: Vec<Remedy>,
    /// What the sentence offers, each an option that runs: the shortest
    /// legal interval first, then the others above that it names.
    #[serde(default)]
    pub remedies: Vec<Remedy>,
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
    pub schc: Option<&'a crate::schc_packet::SchcPacket>,
}

/// Judges the ranked choices; `None` on a link without limits.
pub fn answer(
    catalogue: &Catalogue,
    spec: &LinkSpec,
    interval_s: f64,
    payload: &str,
    choices: &[Choice],
    messages: &dyn Messages,
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
    let (mut faster, mut smaller, mut others) = (Vec::new(), Vec::new(), Vec::new());
    if allowed == 0 {
        faster = faster_data_rates(spec, best, interval_s);
        smaller = smaller_containers(spec, best, payload, interval_s, messages)?;
        others = other_links(catalogue, spec, best, interval_s);
    }
    let remedies = printed(interval_s, shortest, &faster, &smaller, &others);
    // What shortens the wait without allowing the interval alone.
    let partial: Vec<Remedy> = [
        faster
            .iter()
            .all(|r| !r.duty_cycle_allowed)
            .then(|| faster.last()),
        smaller
            .iter()
            .all(|r| !r.duty_cycle_allowed)
            .then(|| smaller.first()),
    ]
    .into_iter()
    .flatten()
    .flatten()
    .cloned()
    .collect();
    let sentence = sentence(
        spec,
        &rule,
        interval_s,
        (allowed, choices.len()),
        best,
        shortest,
        (&remedies, &partial),
    );
    Ok(Some(DutyCycleAnswer {
        rule,
        interval_s,
        allowed_count: allowed,
        ranked_count: choices.len(),
        shortest_scheme: best.scheme.to_string(),
        shortest_container: best.container.as_str().to_string(),
        shortest_legal_interval_s: shortest,
        limit: best.cost.limited_by(),
        faster_data_rates: faster,
        smaller_containers: smaller,
        other_links: others,
        remedies,
        sentence,
    }))
}

/// Refuses an interval no message could keep: shorter than every ranked
/// message's time on air and receive windows (`costs`, with those the
/// interval left unranked), or than the link's duty cycle allows its
/// smallest frame at its fastest data rate. The error names the cause and
/// the interval that would do.
pub fn refusal(spec: &LinkSpec, interval_s: f64, costs: &[&LinkCost]) -> Option<String> {
    let quickest = costs
        .iter()
        .min_by(|a, b| busy_s(a).total_cmp(&busy_s(b)))?;
    let shortest_legal = costs
        .iter()
        .map(|c| min_interval_s(c))
        .fold(f64::INFINITY, f64::min);
    let legal = match rule(spec) {
        Some(rule) if shortest_legal.is_finite() && shortest_legal > 0.0 => format!(
            "; {rule} allow one message every {shortest_legal:.1} s at the shortest: --interval {}s",
            shortest_legal.ceil()
        ),
        _ => String::new(),
    };
    if interval_s < busy_s(quickest) {
        return Some(format!(
            "--interval {}s is shorter than one message's time on air on {}: the shortest ranked message, {} B in {} frame{}, is {:.1} s on air{}{legal}",
            trim(interval_s),
            spec.name,
            quickest.message_bytes,
            quickest.frames,
            if quickest.frames == 1 { "" } else { "s" },
            quickest.airtime.as_secs(),
            match quickest.rx_time.as_secs() {
                rx if rx > 0.0 => format!(" and {rx:.1} s listening"),
                _ => String::new(),
            },
        ));
    }
    let (floor, frame) = legal_floor(spec)?;
    if interval_s >= floor {
        return None;
    }
    Some(format!(
        "--interval {}s breaks {} for any message on {}: even a 1-byte one ({:.2} s on air{}) may start only every {floor:.1} s{legal}",
        trim(interval_s),
        duty_words(spec)?,
        spec.name,
        frame.airtime.as_secs(),
        match &frame.link {
            l if *l != spec.name => format!(" at {l}"),
            _ => String::new(),
        }
    ))
}

/// The radio's time for one message: on air and listening.
fn busy_s(cost: &LinkCost) -> f64 {
    (cost.airtime + cost.rx_time).as_secs()
}

/// The duty cycle alone in words: "EU868's 1 % duty cycle".
fn duty_words(spec: &LinkSpec) -> Option<String> {
    let (who, dc) = match (&spec.limits, &spec.lorawan) {
        (Some(l), _) => (l.name.clone(), l.duty_cycle()?),
        (None, Some(w)) => (w.region.to_string(), w.region.duty_cycle()?),
        _ => return None,
    };
    let percent = *dc.numer() as f64 * 100.0 / *dc.denom() as f64;
    Some(format!("{who}'s {percent} % duty cycle"))
}

/// The shortest interval the legal duty cycle allows any message on `spec`
/// (a 1-byte one, at the region's fastest data rate on LoRaWAN), and that
/// message's cost. A per-day limit is a subscription's, so it is judged
/// per choice, never refused outright.
fn legal_floor(spec: &LinkSpec) -> Option<(f64, LinkCost)> {
    let mut specs = vec![spec.clone()];
    if let Some(w) = &spec.lorawan {
        for rate in w.region.data_rates().into_iter().filter(|r| r.dr > w.dr) {
            let mut faster = spec.clone();
            if let Some(fw) = faster.lorawan.as_mut() {
                fw.dr = rate.dr;
            }
            faster.name = dr_link(spec, rate.dr);
            specs.push(faster);
        }
    }
    specs
        .iter()
        .filter_map(|s| {
            let dc = match (&s.limits, &s.lorawan) {
                (Some(l), _) => l.duty_cycle()?,
                (None, Some(w)) => w.region.duty_cycle()?,
                _ => return None,
            };
            let cost = s.cost(1, false).ok()?;
            Some((cost.airtime.scale(dc.recip()).as_secs(), cost))
        })
        .min_by(|a, b| a.0.total_cmp(&b.0))
}

/// The catalogue's name of LoRaWAN link `spec` at data rate `dr`
/// (data/links/lorawan.toml names them REGION-drN).
fn dr_link(spec: &LinkSpec, dr: u8) -> String {
    format!(
        "{}-dr{dr}",
        spec.name
            .rsplit_once("-dr")
            .map_or(spec.name.as_str(), |(stem, _)| stem)
    )
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
            option: format!("--link {}", dr_link(spec, rate.dr)),
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
    messages: &dyn Messages,
) -> Result<Vec<Remedy>, Error> {
    let mut out = Vec::new();
    // An OSCORE build seals in the oscore container only: the core's
    // containers are the other schemes' remedies.
    let others = MessageContainer::ALL
        .into_iter()
        .filter(|c| *c != best.container && c.is_oscore() == best.container.is_oscore());
    for container in others {
        let sealed = messages.seal(&Ask {
            scheme: best.scheme,
            sample: payload,
            serialization: None,
            container,
            compression: None,
        })?;
        let cost = spec
            .cost(message_len(sealed.bytes)?, false)
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

/// The same message on another network, allowed at the interval.
fn other_links(
    catalogue: &Catalogue,
    spec: &LinkSpec,
    best: &Choice,
    interval_s: f64,
) -> Vec<Remedy> {
    // A compressed message is LoRaWAN's SCHC profile, not another link's.
    if best.schc.is_some() {
        return Vec::new();
    }
    other_networks(catalogue, spec, best.cost.message_bytes, |c| {
        allows(c, interval_s)
    })
    .into_iter()
    .map(|(other, cost)| Remedy {
        what: format!(
            "on {} ({} B on air in {} frame{})",
            other.name,
            cost.on_air_bytes,
            cost.frames,
            if cost.frames == 1 { "" } else { "s" }
        ),
        min_interval_s: min_interval_s(&cost),
        duty_cycle_allowed: true,
        option: format!("--link {}", other.name),
    })
    .collect()
}

/// `bytes` on other networks where `fits` holds: of each other family (the
/// LoRaWAN links of one region, BLE, 802.15.4, NB-IoT…), the slowest link,
/// in the link's band or in none; the three slowest. Networks only: a bare
/// LoRa PHY or a serial radio pair needs a receiver of one's own.
pub(crate) fn other_networks<'a>(
    catalogue: &'a Catalogue,
    spec: &LinkSpec,
    bytes: u32,
    fits: impl Fn(&LinkCost) -> bool,
) -> Vec<(&'a LinkSpec, LinkCost)> {
    let mut picks: Vec<(&str, &LinkSpec, LinkCost)> = Vec::new();
    let networks = catalogue
        .links()
        .iter()
        .filter(|l| l.lora.is_none() && l.serial.is_none());
    for other in networks {
        let fam = family(&other.name);
        if fam == family(&spec.name) {
            continue;
        }
        if let (Some(a), Some(b)) = (band(spec), band(other))
            && a != b
        {
            continue;
        }
        let Ok(cost) = other.cost(bytes, false) else {
            continue;
        };
        if !fits(&cost) {
            continue;
        }
        match picks.iter_mut().find(|p| p.0 == fam) {
            Some(p) if p.2.airtime < cost.airtime => *p = (fam, other, cost),
            Some(_) => {}
            None => picks.push((fam, other, cost)),
        }
    }
    picks.sort_by_key(|p| std::cmp::Reverse(p.2.airtime));
    picks.into_iter().take(3).map(|p| (p.1, p.2)).collect()
}

/// A link's family: a LoRaWAN region's links (`lorawan-eu868`), else the
/// name's first word (`ble`, `sigfox`, `nbiot`).
fn family(name: &str) -> &str {
    match name.rsplit_once("-dr") {
        Some((stem, n)) if n.parse::<u8>().is_ok() => stem,
        _ => name.split('-').next().unwrap_or(name),
    }
}

/// The regional band a link sends in (`EU868`), where it has one.
fn band(spec: &LinkSpec) -> Option<String> {
    match (&spec.limits, &spec.lorawan) {
        (Some(l), _) => l.band.clone(),
        (None, Some(w)) => Some(w.region.to_string()),
        _ => None,
    }
}

/// The remedies the sentence names, in its order, each one that allows
/// the message: the shortest legal interval, the slowest faster data rate
/// and the smallest container that allow the asked interval, other links.
fn printed(
    interval_s: f64,
    shortest: f64,
    faster: &[Remedy],
    smaller: &[Remedy],
    others: &[Remedy],
) -> Vec<Remedy> {
    if shortest <= interval_s {
        return Vec::new();
    }
    let longer = Remedy {
        what: format!("every {} s", shortest.ceil()),
        min_interval_s: shortest,
        duty_cycle_allowed: true,
        option: format!("--interval {}s", shortest.ceil()),
    };
    std::iter::once(longer)
        .chain(faster.iter().find(|r| r.duty_cycle_allowed).cloned())
        .chain(smaller.iter().find(|r| r.duty_cycle_allowed).cloned())
        .chain(others.iter().cloned())
        .collect()
}

fn sentence(
    spec: &LinkSpec,
    rule: &str,
    interval_s: f64,
    (allowed, ranked): (usize, usize),
    best: &Choice,
    shortest: f64,
    (remedies, partial): (&[Remedy], &[Remedy]),
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
    let broken = best.cost.limits_broken(interval_s);
    let per_day = match broken.contains(&Limit::UplinksPerDay) {
        true => format!(
            ", {} uplinks a day at this interval",
            trim((f64::from(best.cost.frames) * 864_000.0 / interval_s).round() / 10.0)
        ),
        false => String::new(),
    };
    let names: Vec<&str> = broken.iter().map(|l| l.words()).collect();
    let mut s = format!(
        "No scheme may be sent {every}: it breaks {} (under {rule}, one message may start every {shortest:.1} s at the shortest: {} in the {} container, {} B on air in {} frame{}{per_day}). Send every {} s or more (--interval {}s)",
        names.join(" and "),
        best.scheme,
        best.container.as_str(),
        best.cost.on_air_bytes,
        best.cost.frames,
        if best.cost.frames == 1 { "" } else { "s" },
        shortest.ceil(),
        shortest.ceil()
    );
    let said = |r: &Remedy| {
        format!(
            "{} {} ({})",
            r.what,
            match r.min_interval_s {
                0.0 => "with no limit on how often".to_string(),
                iv => format!("one message every {iv:.1} s"),
            },
            r.option
        )
    };
    let others: Vec<String> = remedies.iter().skip(1).map(said).collect();
    if !others.is_empty() {
        s.push_str("; or, each allowed at this interval: ");
        s.push_str(&others.join("; "));
    }
    let partial: Vec<String> = partial.iter().map(said).collect();
    if !partial.is_empty() {
        s.push_str("; shorter, but not enough alone: ");
        s.push_str(&partial.join("; "));
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

#[cfg(test)]
mod tests {
    use super::*;

    fn link(name: &str) -> LinkSpec {
        Catalogue::builtin().unwrap().get(name).unwrap().clone()
    }

    #[test]
    fn families_group_a_regions_data_rates_and_a_technology() {
        assert_eq!(family("lorawan-eu868-dr0"), "lorawan-eu868");
        assert_eq!(family("lorawan-us915-dr3"), "lorawan-us915");
        assert_eq!(family("ble-1m-251"), "ble");
        assert_eq!(family("sigfox-rc1"), "sigfox");
        assert_eq!(band(&link("sigfox-rc1")).as_deref(), Some("EU868"));
        assert_eq!(band(&link("ble-1m-27")), None);
    }

    #[test]
    fn the_legal_floor_is_the_smallest_frame_at_the_fastest_rate() {
        // Sigfox RC1: one byte and its 14 B of overhead three times at
        // 100 b/s is 3.6 s on air; 1 % makes it 360 s.
        let (floor, frame) = legal_floor(&link("sigfox-rc1")).unwrap();
        assert!((floor - 360.0).abs() < 1e-9, "{floor}");
        assert_eq!(frame.on_air_bytes, 45);
        // EU868 DR0's floor is DR6's (SF7/250 kHz), far below DR0's own.
        let (floor, frame) = legal_floor(&link("lorawan-eu868-dr0")).unwrap();
        assert_eq!(frame.link, "lorawan-eu868-dr6");
        assert!(floor < 5.0, "{floor}");
        // US915 has no duty cycle, BLE no limit: nothing to refuse.
        assert!(legal_floor(&link("lorawan-us915-dr0")).is_none());
        assert!(legal_floor(&link("ble-1m-27")).is_none());
    }
}
