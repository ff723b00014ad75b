//! Study 004 at device level from a device cost table: the numbers derived
//! from the table, the reasons where it has none, and each claim's verdict
//! flipping with the numbers behind it.

use ciphermeter_studies as studies;
use device_facts::Target;
use device_facts::cost_table::{CostTable, Entry, Fit};
use studies::Verdict;
use studies::lora::Options;
use studies::lora_device::{Report, build, run};

const MHZ_48: f64 = 48e6;

fn opts() -> Options {
    Options {
        quick: true,
        bytes: 100,
    }
}

/// An operation costing `fixed + per_byte × n` cycles, measured at the firmware's sizes.
fn entry(alg: &str, op: &str, fixed: u64, per_byte: u64, stack: u32) -> Entry {
    let points: Vec<(usize, u64)> = [16, 64, 256, 1024]
        .iter()
        .map(|&n| (n, fixed + per_byte * n as u64))
        .collect();
    Entry {
        algorithm: alg.into(),
        implementation: "rustcrypto".into(),
        operation: op.into(),
        fit: Fit::through(&points),
        points,
        cycle_estimates: Vec::new(),
        mixes: Vec::new(),
        estimate_fit: None,
        code_size_bytes: Some(4000),
        stack_bytes: Some(stack),
        ram_bytes: None,
        known_answers: 1,
        error: None,
    }
}

fn failure(alg: &str, why: &str) -> Entry {
    Entry::failure(alg.into(), "rustcrypto".into(), why.into())
}

/// RSA: one exponentiation per 256-byte block.
fn rsa(cycles: u64, stack: u32) -> Entry {
    let mut e = entry("rsa-2048", "encrypt", 0, 0, stack);
    e.points = vec![(256, cycles)];
    e.fit = Fit::through(&e.points);
    e
}

fn table(entries: Vec<Entry>) -> CostTable {
    CostTable {
        format: device_facts::cost_table::FORMAT.into(),
        target: Target::CortexM0plus,
        counter: "cycles".into(),
        clock_hz: 48_000_000,
        firmware_revision: "test".into(),
        cycle_timings_revision: None,
        environment: serde_json::json!({}),
        regenerate: "scripts/device-costs cortex-m0plus".into(),
        measured_on: None,
        entries,
    }
}

/// Every one of the eleven at `per_byte` cycles/B, DES and MD5 at `fast`.
fn all_eleven(per_byte: u64, fast: u64, stack: u32) -> Vec<Entry> {
    let mut v: Vec<Entry> = [
        "present-80-ecb",
        "piccolo-80-ecb",
        "idea-ecb",
        "aes-128-ecb",
        "clefia-128-ecb",
        "salsa20",
        "xchacha20",
    ]
    .iter()
    .map(|a| entry(a, "encrypt", 500, per_byte, stack))
    .collect();
    v.push(entry("des-ecb", "encrypt", 500, fast, stack));
    v.push(entry("des-ecb", "keysetup", 4_800, 0, stack));
    v.push(entry("sha1", "hash", 500, per_byte, stack));
    v.push(entry("md5", "hash", 500, fast, stack));
    v.push(rsa(48_000_000, stack));
    v
}

fn verdict(r: &Report, id: &str) -> Verdict {
    r.findings.iter().find(|f| f.id == id).expect(id).verdict
}

fn ours<'a>(r: &'a Report, id: &str) -> &'a str {
    &r.findings.iter().find(|f| f.id == id).expect(id).ours
}

#[test]
fn times_come_from_the_table_at_the_boards_clock() {
    let t = table(all_eleven(300, 100, 400));
    let r = build(Target::CortexM0plus, Some(&t), &opts()).unwrap();
    assert_eq!(r.rows.len(), 11);
    assert!(r.rows.iter().all(|x| x.reason.is_none()), "{:#?}", r.rows);
    assert_eq!(r.board.clock_hz, 48_000_000);
    assert_eq!(r.board.ram_bytes, 32 * 1024);
    assert_eq!(r.board.flash_bytes, 256 * 1024);
    let des = r.rows.iter().find(|x| x.name == "DES").unwrap();
    let m = des.message.as_ref().unwrap();
    // 500 + 100 × 100 cycles at 48 MHz.
    assert_eq!(m.cycles, 10_500.0);
    assert!((m.us - 10_500.0 / MHZ_48 * 1e6).abs() < 1e-9);
    assert!((m.kb_per_s - 100.0 / m.us * 1e3).abs() < 1e-9);
    assert!((des.keysetup_us.unwrap() - 100.0).abs() < 1e-9);
    // Fig. 4: 16 to 500 bytes; DES-CBC sends 500 B as 504 B + 8 B IV.
    let sizes: Vec<u32> = des.sizes.iter().map(|t| t.bytes).collect();
    assert_eq!(sizes.first(), Some(&16));
    assert_eq!(sizes.last(), Some(&500));
    let at500 = des.sizes.last().unwrap();
    assert_eq!(at500.ram_bytes, 400 + 500 + 512);
    assert!(at500.fits_ram);
    // RSA-2048 OAEP carries at most 256 - 66 = 190 B a block: one exponentiation
    // at 100 B, ceil(500 / 190) = 3 at 500 B, with 3 × 256 B sent.
    let rsa = r.rows.iter().find(|x| x.name == "RSA").unwrap();
    assert_eq!(rsa.message.as_ref().unwrap().cycles, 48e6);
    assert!(rsa.notes.is_empty(), "no private-key row in this table");
    let rsa500 = rsa.sizes.last().unwrap();
    assert_eq!(rsa500.cycles, 3.0 * 48e6);
    assert_eq!(rsa500.ram_bytes, 400 + 500 + 3 * 256);
    // Encryption time / time on air, per SF, of the message as sent.
    let sf12 = des.airtime.iter().find(|a| a.sf == 12).unwrap();
    let (_, toa) = studies::lora::airtime_ms(12, 112).unwrap();
    assert_eq!(des.on_air_bytes, Some(112));
    assert!((sf12.ratio.unwrap() - m.us / 1e3 / toa).abs() < 1e-12);
    assert_eq!(r.sf_verdicts.len(), 6);
}

#[test]
fn an_algorithm_the_table_lacks_says_so_and_is_never_a_zero() {
    let mut entries = all_eleven(300, 100, 400);
    entries.retain(|e| e.algorithm != "idea-ecb" && e.algorithm != "md5");
    let r = build(Target::CortexM0plus, Some(&table(entries)), &opts()).unwrap();
    for name in ["IDEA", "MD5"] {
        let x = r.rows.iter().find(|x| x.name == name).unwrap();
        assert!(x.message.is_none() && x.sizes.is_empty() && x.airtime.is_empty());
        assert_eq!(
            x.reason.as_deref(),
            Some(
                "not in the device table for cortex-m0plus (regenerate with scripts/device-costs cortex-m0plus)"
            )
        );
    }
    // Without MD5 the Arduino ranking cannot be judged, and says why.
    assert_eq!(verdict(&r, "arduino_des_md5_best"), Verdict::NotJudged);
    assert!(ours(&r, "arduino_des_md5_best").contains("MD5: not in the device table"));
    let text = r.text();
    let line = text.lines().find(|l| l.starts_with("MD5 ")).unwrap();
    assert!(line.ends_with("not in the device table for cortex-m0plus (regenerate with scripts/device-costs cortex-m0plus)"), "{line}");
    // No table at all: every row has the reason.
    let none = build(Target::CortexM0plus, None, &opts()).unwrap();
    assert!(
        none.rows
            .iter()
            .all(|x| x.reason.as_deref().unwrap().starts_with("no device table"))
    );
}

#[test]
fn a_build_that_does_not_fit_falls_back_and_is_named() {
    let mut entries = all_eleven(300, 100, 400);
    entries.retain(|e| e.algorithm != "rsa-2048");
    entries.push(failure(
        "rsa-2048",
        "does not fit: needs 40000 B of RAM, 32768 B available",
    ));
    let mut small = rsa(12_000_000, 400);
    small.algorithm = "rsa-1024".into();
    small.points = vec![(128, 12_000_000)];
    let mut private = small.clone();
    private.operation = "decrypt".into();
    private.points = vec![(128, 480_000)];
    entries.push(small);
    entries.push(private);
    let r = build(Target::CortexM0plus, Some(&table(entries.clone())), &opts()).unwrap();
    let x = r.rows.iter().find(|x| x.name == "RSA").unwrap();
    assert_eq!(x.device_id.as_deref(), Some("rsa-1024"));
    assert!(x.notes[0].starts_with("rsa-2048: does not fit"));
    assert_eq!(x.notes[1], "rsa-1024 used instead");
    // The private-key operation is named beside the public one: 480,000 cycles at 48 MHz.
    assert_eq!(
        x.notes[2],
        "decrypt (private key): 10000.0 us per 128-byte block"
    );
    // RSA-1024 OAEP: at most 128 - 66 = 62 B a block, so 9 exponentiations for 500 B.
    assert_eq!(x.sizes.last().unwrap().cycles, 9.0 * 12e6);
    assert!(ours(&r, "mkr_fails_500_bytes").contains("builds that do not fit: rsa-2048"));
    // Neither fits: the row says why, no numbers.
    entries.retain(|e| e.algorithm != "rsa-1024");
    entries.push(failure("rsa-1024", "does not fit: stack"));
    let r = build(Target::CortexM0plus, Some(&table(entries)), &opts()).unwrap();
    let x = r.rows.iter().find(|x| x.name == "RSA").unwrap();
    assert!(x.message.is_none());
    assert!(
        x.reason
            .as_deref()
            .unwrap()
            .starts_with("no build runs on cortex-m0plus: rsa-2048: does not fit")
    );
}

#[test]
fn the_arduino_ranking_follows_the_numbers() {
    let fast = build(
        Target::CortexM0plus,
        Some(&table(all_eleven(300, 100, 400))),
        &opts(),
    )
    .unwrap();
    assert_eq!(verdict(&fast, "arduino_des_md5_best"), Verdict::Agrees);
    let slow = build(
        Target::CortexM0plus,
        Some(&table(all_eleven(300, 900, 400))),
        &opts(),
    )
    .unwrap();
    assert_eq!(verdict(&slow, "arduino_des_md5_best"), Verdict::Differs);
    assert!(ours(&slow, "arduino_des_md5_best").contains("against the paper's 500 kB/s for both"));
}

#[test]
fn ram_at_500_bytes_decides_the_mkr_claim() {
    let fits = build(
        Target::CortexM0plus,
        Some(&table(all_eleven(300, 100, 400))),
        &opts(),
    )
    .unwrap();
    assert_eq!(verdict(&fits, "mkr_fails_500_bytes"), Verdict::Differs);
    assert!(ours(&fits, "mkr_fails_500_bytes").starts_with("11 of 11 algorithms"));
    // 32 KB of stack: nothing fits with a 500-byte message beside it.
    let full = build(
        Target::CortexM0plus,
        Some(&table(all_eleven(300, 100, 32 * 1024))),
        &opts(),
    )
    .unwrap();
    assert_eq!(verdict(&full, "mkr_fails_500_bytes"), Verdict::Agrees);
    assert!(ours(&full, "mkr_fails_500_bytes").starts_with("0 of 11"));
}

#[test]
fn encryption_time_is_judged_against_time_on_air_per_sf() {
    // 300 cycles/B at 48 MHz: well under a millisecond against 100+ ms on air.
    let quick = build(
        Target::CortexM0plus,
        Some(&table(all_eleven(300, 100, 400))),
        &opts(),
    )
    .unwrap();
    assert_eq!(
        verdict(&quick, "encryption_time_equals_toa"),
        Verdict::Differs
    );
    assert!(
        quick
            .sf_verdicts
            .iter()
            .all(|v| v.of == 11 && v.verdict.contains("much shorter"))
    );
    // Cycles that take as long as SF7's time on air: equal at SF7 only.
    let (_, toa7) = studies::lora::airtime_ms(7, 112).unwrap();
    let per_byte = (toa7 / 1e3 * MHZ_48 / 100.0) as u64;
    let mut slow = all_eleven(per_byte, per_byte, 400);
    slow.retain(|e| e.algorithm != "rsa-2048");
    // RSA-2048 sends 256 B: as long as that takes at SF7.
    let (_, rsa7) = studies::lora::airtime_ms(7, 256).unwrap();
    slow.push(rsa((rsa7 / 1e3 * MHZ_48) as u64, 400));
    let r = build(Target::CortexM0plus, Some(&table(slow)), &opts()).unwrap();
    let sf7 = r.sf_verdicts.iter().find(|v| v.sf == 7).unwrap();
    assert!(sf7.verdict.starts_with("equal"), "{sf7:?}");
    assert_eq!(sf7.within, sf7.of);
    assert_eq!(sf7.equal.len(), 11);
    assert!(sf7.equal.contains(&"MD5".to_string()));
    let sf12 = r.sf_verdicts.iter().find(|v| v.sf == 12).unwrap();
    assert!(sf12.verdict.contains("much shorter"), "{sf12:?}");
    assert_eq!(verdict(&r, "encryption_time_equals_toa"), Verdict::Differs);
    assert!(ours(&r, "encryption_time_equals_toa").contains("SF7 11/11 within [DES, PRESENT,"));
}

/// The shipped table: each of the eleven has numbers from it or the reason.
#[test]
fn the_shipped_table_gives_numbers_or_reasons_for_all_eleven() {
    let r = run(Target::CortexM0plus, &opts()).unwrap();
    let t = device_facts::cost_table::shipped(Target::CortexM0plus)
        .unwrap()
        .unwrap();
    assert_eq!(r.rows.len(), 11);
    for x in &r.rows {
        match (&x.message, &x.reason) {
            (Some(m), None) => {
                let id = x.device_id.as_deref().unwrap();
                let op = x.operation.as_deref().unwrap();
                let e = t.entry(id, op).unwrap();
                let cycles =
                    studies::lora_device::cycles_at(e, x.per_block, &x.variant, 100).unwrap();
                assert!(cycles > 0.0, "{id}");
                assert!((m.us - cycles / MHZ_48 * 1e6).abs() < 1e-9, "{id}");
            }
            (None, Some(why)) => assert!(why.contains("cortex-m0plus"), "{why}"),
            other => panic!("{}: {other:?}", x.name),
        }
    }
    assert_eq!(r.findings.len(), 5);
}
