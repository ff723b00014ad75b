//! The ranking's order: what a choice is ranked among first (the duty cycle,
//! `seal`'s refusal, a host time), then energy per message with its
//! uncertainty, so that schemes whose energies overlap share a rank, and the
//! tie at the top broken (`tie`).

use crate::cpu_source::CpuSource;
use crate::scheme_cost::SchemeCost;
use crate::tie::{TieGroup, break_tie};

/// The tie among the cheapest of the leading class (`crate::tie`): its
/// members share rank 1, the pick first.
pub fn tie_at_the_top(
    ranked: &mut [SchemeCost],
    ranks: &mut [usize],
    interval_s: f64,
    stack: Option<&link::catalogue::LinkStack>,
) -> Option<TieGroup> {
    let class = |c: &SchemeCost| class(c, interval_s);
    let first = class(ranked.first()?);
    let leaders = ranked.iter().take_while(|c| class(c) == first).count();
    let energies: Vec<f64> = ranked[..leaders].iter().map(message_uj).collect();
    let rank_one: Vec<bool> = ranks[..leaders].iter().map(|r| *r == 1).collect();
    let tie = break_tie(&mut ranked[..leaders], &energies, &rank_one, stack)?;
    let size = tie.schemes.len();
    for (i, r) in ranks.iter_mut().enumerate() {
        if i < size {
            *r = 1;
        } else if *r <= size {
            // It shared a rank with a member by overlap only: it ranks next.
            *r = size + 1;
        }
    }
    Some(tie)
}

/// Sorts `ranked` and gives its ranks. What the duty cycle allows at the
/// interval first: a choice that breaks a legal limit ranks after every one
/// that keeps it. Then safe schemes; what `seal` refuses (legacy, broken, a
/// short random nonce) follows, when asked for, and never shares a rank with
/// a safe one. Within each, a scheme the device has no time for is costed
/// with this host's time, labelled, and ranked after every measured one:
/// host times would not compare (an 8-bit MCU is thousands of times slower).
pub fn order(ranked: &mut [SchemeCost], interval_s: f64) -> Vec<usize> {
    let class = |c: &SchemeCost| class(c, interval_s);
    ranked.sort_by(|a, b| {
        class(a).cmp(&class(b)).then(
            message_uj(a).total_cmp(&message_uj(b)).then(
                a.code_size
                    .unwrap_or(i64::MAX)
                    .cmp(&b.code_size.unwrap_or(i64::MAX)),
            ),
        )
    });
    // Ties are ties within a class; ranks continue across classes.
    let ranges: Vec<(f64, f64)> = ranked.iter().map(energy_range_uj).collect();
    let mut ranks = Vec::with_capacity(ranked.len());
    for group in ranked.chunk_by(|a, b| class(a) == class(b)) {
        let start = ranks.len();
        let group_ranks = shared_ranks(&ranges[start..start + group.len()]);
        ranks.extend(group_ranks.into_iter().map(|r| r + start));
    }
    ranks
}

/// What a choice is ranked among first (`order`): barred by the duty cycle,
/// refused by `seal`, without the device's own seal time (never among the
/// ranked ones today: `choices` lists them apart). Ties stay within one.
pub fn class(c: &SchemeCost, interval_s: f64) -> (bool, bool, bool) {
    (!allowed(c, interval_s), refused(c), unmeasured(c))
}

/// Whether the link's duty cycle allows this message every `interval_s`.
pub fn allowed(c: &SchemeCost, interval_s: f64) -> bool {
    c.link_cost
        .as_ref()
        .is_none_or(|l| crate::on_air::allows(l, interval_s))
}

/// Bytes on air (every frame's header and MIC included) and frames.
pub fn on_air(c: &SchemeCost) -> (u32, u32) {
    c.link_cost
        .as_ref()
        .map_or((0, 0), |l| (l.on_air_bytes, l.frames))
}

/// A scheme `seal` refuses with random nonces unless the user insists.
pub fn refused(c: &SchemeCost) -> bool {
    !c.scheme.insecurity().is_empty()
}

/// A scheme without the device's own seal time (`HostInsteadOfDevice`).
pub fn unmeasured(c: &SchemeCost) -> bool {
    matches!(c.cpu_source, CpuSource::HostInsteadOfDevice { .. })
}

/// The catalogue status, or "insecure" with `seal`'s reasons for a scheme
/// of recommended algorithms that `seal` still refuses (a short nonce).
pub fn status_of(c: &SchemeCost) -> (String, Option<String>) {
    if c.status == catalogue::Status::Recommended && refused(c) {
        return ("insecure".into(), Some(c.scheme.insecurity().join("; ")));
    }
    // Only with --allow-leaky: the build that would run leaks on this device.
    if let Some(leak) = c.constant_time.as_ref().and_then(|t| t.leak.as_ref()) {
        return (
            "leaky".into(),
            Some(format!("{}: {leak}", crate::cpu_source::LEAKS)),
        );
    }
    (c.status.as_str().to_string(), c.status_reason.clone())
}

/// `simulated`, `measured` or `published`: what a row's CPU time rests on.
pub fn cpu_time_basis(c: &SchemeCost) -> &'static str {
    match &c.cpu_source {
        _ if c.engine.is_some() => "published",
        CpuSource::Device(what) if what.contains(device_facts::cost_table::MEASURED_ON_BOARD) => {
            "measured"
        }
        CpuSource::Device(_) => "simulated",
        _ => "measured",
    }
}

pub fn message_uj(c: &SchemeCost) -> f64 {
    c.energy.as_ref().map_or(f64::MAX, |e| e.message_j * 1e6)
}

/// The energy per message with the CPU time at the ends of its uncertainty:
/// on this host, the wider of its 95 % interval and ±5 %, the run-to-run
/// repeatability `scripts/bench-ratios` measures (one run's interval misses
/// that). A Cortex-M simulation's time is the cycle model's estimate: ± the
/// model's median error on the core against published boards. An exact count
/// (AVR's cycles, a board's) is one point, as is an estimate no published
/// figure checks: an error nobody measured is not invented.
pub fn energy_range_uj(c: &SchemeCost) -> (f64, f64) {
    let Some(e) = &c.energy else {
        return (f64::MAX, f64::MAX);
    };
    let total = e.message_j * 1e6;
    if c.cpu_source.is_device() {
        let spread = c
            .cpu_model_error
            .as_ref()
            .map_or(0.0, |err| modelled_cpu_uj(c) * err.median);
        return (total - spread, total + spread);
    }
    let (median, lo, hi, _) = c.host_us;
    if median <= 0.0 {
        return (total, total);
    }
    let cpu_uj = e.cpu_j * 1e6;
    let (lo, hi) = (lo.min(median * 0.95), hi.max(median * 1.05));
    (
        total - cpu_uj * (1.0 - lo / median),
        total + cpu_uj * (hi / median - 1.0),
    )
}

/// The part of a row's CPU energy the cycle model estimated, µJ: all of it
/// but a hardware engine's share, which rests on published figures.
pub fn modelled_cpu_uj(c: &SchemeCost) -> f64 {
    let cpu_uj = c.energy.as_ref().map_or(0.0, |e| e.cpu_j * 1e6);
    match &c.engine {
        Some(e) if e.software_cycles + e.engine_cycles > 0.0 => {
            cpu_uj * e.software_cycles / (e.software_cycles + e.engine_cycles)
        }
        _ => cpu_uj,
    }
}

/// Ranks for ranges sorted by their centre: a range that overlaps the first
/// range of the current group joins that group's rank.
pub fn shared_ranks(ranges: &[(f64, f64)]) -> Vec<usize> {
    let mut ranks = Vec::with_capacity(ranges.len());
    let mut leader: Option<(usize, f64)> = None;
    for (i, &(lo, _)) in ranges.iter().enumerate() {
        match leader {
            Some((rank, leader_hi)) if lo <= leader_hi => ranks.push(rank),
            _ => {
                leader = Some((i + 1, ranges[i].1));
                ranks.push(i + 1);
            }
        }
    }
    ranks
}

/// `part` as a percentage of `whole`, to two significant digits ("0.036 %",
/// "2.0 %", "18 %"): a winner's lead of a few µJ in a joule is not "0.0 %".
pub fn percent_of(part: f64, whole: f64) -> String {
    let p = part / whole * 100.0;
    let digits = if p.abs() >= 10.0 || p == 0.0 || !p.is_finite() {
        0
    } else {
        (1.0 - p.abs().log10().floor()) as usize
    };
    format!("{p:.digits$} %")
}
