//! Study 004's statements checked against the device-level numbers: the
//! Arduino findings on the target's table, the time-on-air findings by the
//! formula, the Raspberry Pi finding left to a Pi.

use cost::Error;

use crate::finding::{Finding, Verdict, judge_claims};
use crate::lora;
use crate::lora_device::{Report, Row, three_figures};

pub fn check(r: &Report) -> Result<Vec<Finding>, Error> {
    let paper = lora::paper()?;
    let airtime_only = lora::judge(&paper);
    Ok(judge_claims(&paper.claims, |id| match id {
        "arduino_des_md5_best" => fastest(r, paper.arduino_best_kb_per_s),
        "mkr_fails_500_bytes" => fits(r),
        "encryption_time_equals_toa" => equal_to_airtime(r),
        other => airtime_only
            .iter()
            .find(|f| f.id == other)
            .map(|f| (f.verdict, f.ours.clone()))
            .unwrap_or((Verdict::NotJudged, format!("no check for claim {other}"))),
    }))
}

/// "on the Arduino MKR WAN 1300 (...)", and a warning when the target is
/// not the one standing for the study's board.
fn on(r: &Report) -> String {
    let study = r.setup.study_target == r.target.name();
    format!(
        "on the {}{}",
        r.board.name,
        if study {
            String::new()
        } else {
            format!(" ({}, not the study's board)", r.target)
        }
    )
}

fn lacking(r: &Report) -> String {
    let names: Vec<&str> = r
        .without_numbers()
        .into_iter()
        .map(|x| x.name.as_str())
        .collect();
    if names.is_empty() {
        String::new()
    } else {
        format!("; without numbers: {}", names.join(", "))
    }
}

fn fastest(r: &Report, paper_kb_s: f64) -> (Verdict, String) {
    let kb = |x: &Row| x.message.as_ref().map_or(0.0, |m| m.kb_per_s);
    let mut ranked = r.with_numbers();
    ranked.sort_by(|a, b| kb(b).total_cmp(&kb(a)));
    let want = ["DES", "MD5"];
    let missing: Vec<&str> = want
        .iter()
        .copied()
        .filter(|w| !ranked.iter().any(|x| x.name == *w))
        .collect();
    if !missing.is_empty() {
        let why: Vec<String> = r
            .rows
            .iter()
            .filter(|x| missing.contains(&x.name.as_str()))
            .map(|x| {
                format!(
                    "{}: {}",
                    x.name,
                    x.reason.as_deref().unwrap_or("no numbers")
                )
            })
            .collect();
        return (
            Verdict::NotJudged,
            format!(
                "needs DES and MD5 {}: {} (paper: {paper_kb_s} kB/s)",
                on(r),
                why.join("; ")
            ),
        );
    }
    let n = r.message_bytes;
    let list: Vec<String> = ranked
        .iter()
        .take(4)
        .map(|x| format!("{} {} kB/s", x.name, three_figures(kb(x))))
        .collect();
    let rank = |w: &str| ranked.iter().position(|x| x.name == w).unwrap_or(0) + 1;
    // Both are among the ranked: checked above.
    let speed = |w: &str| ranked.iter().find(|x| x.name == w).map_or(0.0, |x| kb(x));
    let best_two = ranked.len() >= 2 && ranked[..2].iter().all(|x| want.contains(&x.name.as_str()));
    (
        Verdict::from_ok(best_two),
        format!(
            "{n} B {}: fastest {}; DES ranks {} of {} ({} kB/s), MD5 {} ({} kB/s), against the paper's {} kB/s for both{}",
            on(r),
            list.join(", "),
            rank("DES"),
            ranked.len(),
            three_figures(speed("DES")),
            rank("MD5"),
            three_figures(speed("MD5")),
            paper_kb_s,
            lacking(r)
        ),
    )
}

fn fits(r: &Report) -> (Verdict, String) {
    let Some(&last) = r.setup.sizes.last() else {
        return (Verdict::NotJudged, "no data sizes in the data file".into());
    };
    let at: Vec<(&Row, u64, bool)> = r
        .rows
        .iter()
        .filter_map(|x| {
            let t = x.sizes.iter().find(|t| t.bytes == last)?;
            Some((x, t.ram_bytes, t.fits_ram))
        })
        .collect();
    if at.is_empty() {
        return (
            Verdict::NotJudged,
            format!("no algorithm has numbers {}{}", on(r), lacking(r)),
        );
    }
    let failing: Vec<&str> = at
        .iter()
        .filter(|a| !a.2)
        .map(|a| a.0.name.as_str())
        .collect();
    let largest = at.iter().max_by_key(|a| a.1).map(|a| a.0);
    let largest_need = at.iter().map(|a| a.1).max().unwrap_or(0);
    // Builds passed over for not fitting are failures at this board, too.
    let no_fit: Vec<&str> = r
        .rows
        .iter()
        .flat_map(|x| x.notes.iter())
        .filter(|n| n.contains("does not fit"))
        .map(String::as_str)
        .collect();
    (
        Verdict::from_ok(failing.len() * 2 > at.len()),
        format!(
            "{} of {} algorithms with numbers fit at {last} B in {} B of RAM {} (largest need {largest_need} B, {}){}{}{}; need = peak stack + message + output buffer",
            at.len() - failing.len(),
            at.len(),
            r.board.ram_bytes,
            on(r),
            largest.map_or("-", |x| x.name.as_str()),
            if failing.is_empty() {
                String::new()
            } else {
                format!("; too large: {}", failing.join(", "))
            },
            if no_fit.is_empty() {
                String::new()
            } else {
                format!("; builds that do not fit: {}", no_fit.join("; "))
            },
            lacking(r)
        ),
    )
}

fn equal_to_airtime(r: &Report) -> (Verdict, String) {
    let judged: Vec<_> = r.sf_verdicts.iter().filter(|v| v.of > 0).collect();
    if judged.is_empty() {
        return (
            Verdict::NotJudged,
            format!("no algorithm has numbers {}{}", on(r), lacking(r)),
        );
    }
    let f = r.setup.equal_within_factor;
    let per_sf: Vec<String> = judged
        .iter()
        .map(|v| {
            format!(
                "SF{} {}/{} within{} ({} to {})",
                v.sf,
                v.within,
                v.of,
                if v.equal.is_empty() {
                    String::new()
                } else {
                    format!(" [{}]", v.equal.join(", "))
                },
                v.min_ratio.map_or("-".into(), three_figures),
                v.max_ratio.map_or("-".into(), three_figures)
            )
        })
        .collect();
    let all = judged.iter().all(|v| v.within * 2 > v.of);
    (
        Verdict::from_ok(all),
        format!(
            "encryption time / time on air for a {} B message {}, 'equal' = within a factor of {f}: {}{}",
            r.message_bytes,
            on(r),
            per_sf.join(", "),
            lacking(r)
        ),
    )
}
