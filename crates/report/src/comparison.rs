//! `compare` as text: both runs' machines in the header, the threshold and
//! where it came from, one line per result, and the gate's list of
//! slowdowns. Across two machines the words are "higher on B", never
//! "regression".

use std::fmt::Write;

use store::compare::{Comparison, Kind, Mode, Ratio, Verdict};

use crate::html::num;

/// The whole comparison; with `only_changed`, only results beyond the noise.
pub fn text(c: &Comparison, only_changed: bool) -> String {
    let mut o = header(c);
    if c.ratios.is_empty() {
        let _ = writeln!(o, "the runs share no results to compare");
        return o;
    }
    let _ = writeln!(o, "{:<58} {:>12} {:>12} {:>24}", "result", "A", "B", "B/A");
    for r in c.ratios.iter().filter(|r| !only_changed || r.significant) {
        let _ = writeln!(o, "{}", line(c.mode, r));
    }
    let count = |v: Verdict| c.ratios.iter().filter(|r| r.verdict == v).count();
    let _ = writeln!(
        o,
        "{} compared: {} higher and {} lower beyond the noise, {} within the threshold, \
         {} with overlapping intervals, {} equal; {} only in A, {} only in B",
        c.ratios.len(),
        count(Verdict::Higher),
        count(Verdict::Lower),
        count(Verdict::WithinThreshold),
        count(Verdict::Overlapping),
        count(Verdict::Equal),
        c.only_a.len(),
        c.only_b.len()
    );
    o
}

/// The regression gate's JSON: its thresholds, both runs, how many results
/// were compared and the ones slower by more than `pct`.
pub fn gate_json(c: &Comparison, pct: f64, slower: &[&Ratio]) -> serde_json::Value {
    serde_json::json!({
        "fail_above_pct": pct, "sampled_threshold": c.sampled_threshold,
        "exact_threshold": c.exact_threshold, "a": c.a, "b": c.b,
        "compared": c.ratios.len(), "slower": slower,
    })
}

/// The regression gate's output: only the results slower by more than `pct`.
pub fn gate_text(c: &Comparison, pct: f64, slower: &[&Ratio]) -> String {
    let mut o = header(c);
    for r in slower {
        let _ = writeln!(o, "{}  ({})", line(c.mode, r), r.reason);
    }
    let _ = writeln!(
        o,
        "{} of {} results slower by more than {pct} % beyond the noise",
        slower.len(),
        c.ratios.len()
    );
    o
}

fn header(c: &Comparison) -> String {
    let mut o = String::new();
    for (name, side) in [("A", &c.a), ("B", &c.b)] {
        let _ = writeln!(
            o,
            "{name} = run {}: {}; {}",
            side.run, side.host, side.machine
        );
    }
    let _ = match c.mode {
        Mode::SameMachine => writeln!(
            o,
            "one machine: a change needs the 95 % intervals apart and a size beyond the threshold"
        ),
        Mode::TwoMachines => writeln!(
            o,
            "two machines: ratios B/A per result; a machine difference is not a regression"
        ),
    };
    for (kind, what) in [
        (Kind::Sampled, "host timings"),
        (Kind::Exact, "exact values"),
    ] {
        let t = c.threshold(kind);
        let _ = writeln!(o, "threshold for {what}: {:.1} % ({})", t.pct, t.source);
    }
    o
}

fn line(mode: Mode, r: &Ratio) -> String {
    let place = if mode == Mode::SameMachine {
        "in"
    } else {
        "on"
    };
    let mark = match r.verdict {
        Verdict::Higher => format!("* higher {place} B"),
        Verdict::Lower => format!("* lower {place} B"),
        _ => String::new(),
    };
    format!(
        "{:<58} {:>12} {:>12} {:>24} {mark}",
        r.key.to_string(),
        format!("{} {}", num(r.a), r.unit),
        format!("{} {}", num(r.b), r.unit),
        format!("{:.3} [{:.3}-{:.3}]", r.ratio, r.ratio_low, r.ratio_high),
    )
}
