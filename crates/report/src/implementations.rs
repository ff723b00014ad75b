//! The microcontroller section's comparison of implementations: per target,
//! cycles per byte of each algorithm by each implementation measured there
//! (RustCrypto, ciphermeter, Mbed TLS, Monocypher), from the shipped device
//! cost tables, with the published portable figures for the core drawn as
//! faded reference bars (data/anchors/).

use device_facts::cost_table::{CostTable, Entry};
use device_facts::{Implementation, Target};

use crate::html::esc;
use crate::svg::{Bar, BarChart, BarGroup, BarSeries, colour, grouped_bars};

/// The cores an embedded team would pick between: 8-bit AVR, the smallest
/// and a DSP-capable Cortex-M.
const TARGETS: [Target; 3] = [Target::Atmega1284p, Target::CortexM0plus, Target::CortexM4];
/// The length the bars are read at: the and the anchors' 1 KiB.
const AT_BYTES: usize = 1024;

pub fn render() -> String {
    let mut out = String::from(
        "<h3>Whose code: implementations side by side</h3><p>Cycles per byte at 1 KiB of each algorithm by each implementation that builds and passes its known answers on the core (the sealing core runs RustCrypto's; <code>recommend</code> names the fastest per scheme). Mbed TLS and Monocypher are compiled from their sources for the core; on AVR the published figures of rweather's portable library are drawn faded beside them.</p>",
    );
    for target in TARGETS {
        match device_facts::cost_table::shipped(target) {
            Ok(Some(table)) => out.push_str(&chart(&table)),
            Ok(None) => {}
            Err(e) => out.push_str(&format!("<p>{}</p>", esc(&e.to_string()))),
        }
    }
    out
}

fn chart(table: &CostTable) -> String {
    let anchors = device_facts::anchors::for_target(table.target)
        .ok()
        .flatten();
    let mut series: Vec<BarSeries> = Implementation::ALL
        .iter()
        .enumerate()
        .map(|(i, imp)| BarSeries {
            name: imp.label().to_string(),
            colour: colour(i),
            faded: false,
        })
        .collect();
    if let Some(a) = &anchors {
        series.push(BarSeries {
            name: format!(
                "published ({})",
                a.source.split(',').next().unwrap_or("anchor")
            ),
            colour: colour(0),
            faded: true,
        });
    }
    let mut groups = Vec::new();
    let mut algorithms: Vec<(&str, &str)> = table
        .entries
        .iter()
        .filter(|e| e.error.is_none() && ["encrypt", "hash", "mac"].contains(&e.operation.as_str()))
        .map(|e| (e.algorithm.as_str(), e.operation.as_str()))
        .collect();
    algorithms.dedup();
    for (alg, op) in algorithms {
        let mut bars: Vec<Bar> = Implementation::ALL
            .iter()
            .enumerate()
            .filter_map(|(i, imp)| {
                let cpb = per_byte(table.entry_of(alg, *imp, op)?)?;
                Some(Bar {
                    series: i,
                    value: cpb,
                    range: None,
                    note: None,
                })
            })
            .collect();
        // Only algorithms with a choice to make.
        if bars.len() < 2 {
            continue;
        }
        if let Some(a) = anchors.as_ref().and_then(|a| {
            a.entries
                .iter()
                .find(|e| e.algorithm == alg && e.operation == op)
        }) {
            bars.push(Bar {
                series: series.len() - 1,
                value: a.cycles_per_byte,
                range: None,
                note: None,
            });
        }
        groups.push(BarGroup {
            label: alg.to_string(),
            bars,
        });
    }
    if groups.is_empty() {
        return String::new();
    }
    let counted = if table.counter == "cycles" {
        "cycles (exact)"
    } else {
        "cycles (estimated from the instruction mix)"
    };
    grouped_bars(&BarChart {
        title: format!(
            "{}: cycles per byte at 1 KiB by implementation",
            table.target
        ),
        x_label: String::new(),
        y_label: format!("{counted} per byte"),
        series,
        groups,
        marks: Vec::new(),
    })
}

/// Per byte at 1 KiB: the cycle estimate where there is one (Cortex-M).
fn per_byte(e: &Entry) -> Option<f64> {
    Some(e.cycles_at(AT_BYTES)? / AT_BYTES as f64)
}

#[cfg(test)]
mod tests {
    #[test]
    fn each_target_draws_its_implementations() {
        let html = super::render();
        for target in ["atmega1284p", "cortex-m0plus", "cortex-m4"] {
            assert!(
                html.contains(&format!("{target}: cycles per byte")),
                "{target}"
            );
        }
        assert!(html.contains("Mbed TLS 2.28") && html.contains("Monocypher 4"));
        assert!(html.contains("published (rweather"));
    }
}
