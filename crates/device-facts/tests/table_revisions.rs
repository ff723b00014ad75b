//! Every shipped device cost table was made from the firmware in this
//! checkout: its recorded revision is the digest of today's sources
//! (`revision::firmware_revision`: code, constants and strings count;
//! comments and formatting do not). A change that can move a count fails
//! here until the tables are regenerated (`scripts/device-costs`, or
//! `scripts/device-costs --verify` to see what moved).

use device_facts::cost_table::shipped;
use device_facts::revision::{cycle_timings_revision, firmware_revision};
use device_facts::{Target, firmware_dir};

#[test]
fn every_table_records_the_revision_of_todays_firmware() {
    let stale: Vec<String> = Target::ALL
        .into_iter()
        .filter_map(|t| {
            let today = firmware_revision(&firmware_dir(), t).unwrap();
            let table = shipped(t).unwrap().expect("a shipped table");
            (table.firmware_revision != today)
                .then(|| format!("{t} (made from {}, today {today})", table.firmware_revision))
        })
        .collect();
    assert!(
        stale.is_empty(),
        "the firmware sources have moved, and these tables were made from another revision: {}; regenerate them with scripts/device-costs",
        stale.join(", ")
    );
}

/// The Cortex-M cycle estimates are today's model's price of the
/// instruction mixes the tables keep: each table records the digest of the
/// timings and arithmetic it was priced with (`revision::cycle_timings_revision`:
/// every figure and formula counts, comments and citations do not), and every
/// estimate equals the price of its mix now. A change to either fails here
/// until `scripts/device-costs --reprice` has priced them again.
#[test]
fn every_cortex_m_estimate_is_todays_price_of_its_kept_mix() {
    let path = firmware_dir().join("../data/cycle-timings/cortex-m.toml");
    let today = cycle_timings_revision(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let mut stale = Vec::new();
    for t in Target::ALL.into_iter().filter(|t| t.has_cycle_estimate()) {
        let table = shipped(t).unwrap().expect("a shipped table");
        let estimated = table
            .entries
            .iter()
            .filter(|e| !e.cycle_estimates.is_empty())
            .count();
        assert!(estimated > 0, "the {t} table has no cycle estimate");
        let made = table.cycle_timings_revision.as_deref();
        if made != Some(today.as_str()) {
            stale.push(format!(
                "{t} (priced with {})",
                made.unwrap_or("unrecorded timings")
            ));
            continue;
        }
        let mut again = table.clone();
        assert_eq!(
            again.reprice().unwrap(),
            estimated,
            "{t}: every estimate has its mix"
        );
        for (kept, now) in table.entries.iter().zip(&again.entries) {
            assert_eq!(
                kept.cycle_estimates, now.cycle_estimates,
                "{t} {} / {} / {}: the estimate is not its mix's price today",
                kept.algorithm, kept.implementation, kept.operation
            );
        }
    }
    assert!(
        stale.is_empty(),
        "data/cycle-timings or the cycle model changed: run scripts/device-costs --reprice \
         (the model is now revision {today}; these tables' cycle estimates were priced with \
         another: {})",
        stale.join(", ")
    );
}

/// The Cortex-M cycle estimates were priced with today's
/// `data/cycle-timings/cortex-m.toml`. The tables keep the counts and the
/// estimates, not the instruction mix each was priced from, so no estimate
/// can be priced again here: each table records the digest of the timings
/// its estimates were made with (`revision::cycle_timings_revision`: every
/// figure counts, comments and citations do not), and a change of figures
/// fails here until `scripts/device-costs` has made them again.
#[test]
fn every_cortex_m_table_records_the_cycle_timings_of_today() {
    let path = firmware_dir().join("../data/cycle-timings/cortex-m.toml");
    let today = cycle_timings_revision(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let stale: Vec<String> = Target::ALL
        .into_iter()
        .filter(|t| t.has_cycle_estimate())
        .filter_map(|t| {
            let table = shipped(t).unwrap().expect("a shipped table");
            let estimated = table.entries.iter().any(|e| !e.cycle_estimates.is_empty());
            assert!(estimated, "the {t} table has no cycle estimate");
            let made = table.cycle_timings_revision.as_deref();
            (made != Some(today.as_str()))
                .then(|| format!("{t} (priced with {})", made.unwrap_or("unrecorded timings")))
        })
        .collect();
    assert!(
        stale.is_empty(),
        "data/cycle-timings changed: run scripts/device-costs cortex-m0plus cortex-m3 cortex-m4 \
         (the timings are now revision {today}; these tables' cycle estimates were priced with \
         others: {})",
        stale.join(", ")
    );
}

/// Every entry measured is backed by passed known answers, and says how
/// many: the runner turns a build whose known answers failed, never
/// printed, or whose run ended in failure into an error (mcu
/// `results::rows`), an error is no count, and `CostTable::from_results`
/// refuses a count with no known answer.
#[test]
fn no_entry_has_counts_without_passed_known_answers() {
    for t in Target::ALL {
        let table = shipped(t).unwrap().expect("a shipped table");
        for e in &table.entries {
            match &e.error {
                Some(_) => assert!(
                    e.points.is_empty(),
                    "{t} {} has counts and an error",
                    e.algorithm
                ),
                None => assert!(
                    !e.points.is_empty() && e.known_answers > 0,
                    "{t} {}@{} {} has no counts or no passed known answer ({} counts, {} known answers)",
                    e.algorithm,
                    e.implementation,
                    e.operation,
                    e.points.len(),
                    e.known_answers
                ),
            }
        }
    }
}
