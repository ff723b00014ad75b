//! The shipped constant-time verdicts (data/constant-time/, scripts/ct-sweep)
//! are of this firmware and this check (its device code and its host-side
//! judge, crates/mcu/src/ct), cover every scheme build of each target's cost
//! table, and say what each verdict rests on.

use device_facts::constant_time::{self, Verdict};
use device_facts::{Target, cost_table, firmware_dir, revision};

#[test]
fn every_target_has_a_verdict_for_every_scheme_build_of_this_firmware() {
    let check = revision::ct_revision(&firmware_dir()).unwrap();
    let judge = revision::judge_revision(&firmware_dir()).unwrap();
    for target in Target::ALL {
        let firmware = revision::firmware_revision(&firmware_dir(), target).unwrap();
        let table = constant_time::shipped(target).unwrap().unwrap_or_else(|| {
            panic!("no data/constant-time/{target}.json: run scripts/ct-sweep {target}")
        });
        assert_eq!(table.target, target);
        assert_eq!(
            (table.firmware_revision.as_str(), table.ct_revision.as_str()),
            (firmware.as_str(), check.as_str()),
            "data/constant-time/{target}.json is stale: run scripts/ct-sweep {target}"
        );
        // The host-side judge decides a verdict as much as the device code
        // does: a change to it (code, not comments) needs a re-sweep too.
        assert_eq!(
            table.judge_revision, judge,
            "data/constant-time/{target}.json was judged by another host-side judge \
             (crates/mcu/src/ct changed): run scripts/ct-sweep --same-seed {target}"
        );
        let builds = cost_table::shipped(target)
            .unwrap()
            .unwrap()
            .scheme_builds()
            .unwrap();
        for build in &builds {
            assert!(
                table.report(build).is_some(),
                "{target}: no verdict for {build}"
            );
        }
        for r in &table.reports {
            let leaks = r.operations.iter().filter(|o| o.leak.is_some()).count();
            match r.verdict {
                Verdict::Leaks => assert!(leaks > 0, "{target} {}: leaks, nowhere", r.build),
                Verdict::ConstantTime => {
                    assert_eq!(leaks, 0, "{target} {}", r.build);
                    assert!(!r.operations.is_empty(), "{target} {}", r.build);
                }
                Verdict::NotChecked => assert!(r.reason.is_some(), "{target} {}", r.build),
            }
        }
    }
}

#[test]
fn a_build_that_leaks_is_refused_unless_allowed() {
    let mut leaking = 0;
    for target in Target::ALL {
        let Some(table) = constant_time::shipped(target).unwrap() else {
            continue;
        };
        for r in &table.reports {
            let refused = constant_time::refuse_leaky(target, &r.build, false);
            assert_eq!(
                refused.is_err(),
                r.verdict == Verdict::Leaks,
                "{target} {}",
                r.build
            );
            if let Err(e) = refused {
                let text = e.to_string();
                assert!(
                    text.contains(&r.build) && text.contains("--allow-leaky"),
                    "{text}"
                );
                leaking += 1;
            }
            assert!(constant_time::refuse_leaky(target, &r.build, true).is_ok());
        }
    }
    assert!(
        leaking > 0,
        "no shipped build leaks: the refusal went untested"
    );
}

#[test]
fn the_c_librarys_leak_list_is_the_tables_leaks() {
    // data/constant-time/leaks.tsv lets the C library's build refuse a leak
    // without parsing JSON (crates/seal-ffi/build/leaky.rs); scripts/ct-sweep
    // writes it from the tables.
    let tsv = include_str!("../../../data/constant-time/leaks.tsv");
    let listed: Vec<(String, String)> = tsv
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let mut c = l.splitn(3, '\t');
            let (t, b) = (c.next().unwrap_or(""), c.next().unwrap_or(""));
            (t.to_string(), b.to_string())
        })
        .collect();
    let mut shipped = Vec::new();
    for target in Target::ALL {
        for r in &constant_time::shipped(target).unwrap().unwrap().reports {
            if r.verdict == Verdict::Leaks {
                shipped.push((target.name().to_string(), r.build.clone()));
            }
        }
    }
    assert_eq!(
        listed, shipped,
        "data/constant-time/leaks.tsv is stale: run scripts/ct-sweep"
    );
}
