//! The constant-time check (`ciphermeter ct`): one build run on many secrets
//! in simulation, its runs compared. A simulation is deterministic, so a
//! difference is a proof, not a statistic.
//!
//! - ATmega1284P (simavr): exact cycles, every instruction's address, and
//!   the data address of every load and store through a pointer
//!   (the harness's `--trace`). The core has no cache, so a secret address
//!   is a warning, not a leak.
//! - Cortex-M and riscv32imc (QEMU): every instruction's address and every
//!   memory access's address (a QEMU plugin, `firmware/ct-trace`). A secret
//!   address is a leak where the core reads through a cache (the ESP32-C3),
//!   else a warning. Where a variable-latency instruction runs in a region
//!   (UDIV on M3/M4, UMULL on M3, DIV on RISC-V), a second run logs its
//!   operands ([`operands`]) and prices them ([`latency`]): operands of
//!   another size in another run are a leak. The same run logs the flags
//!   before each instruction of an IT block on the M3 and M4
//!   ([`conditional`]): a multi-cycle instruction run in one run and skipped
//!   in another is a leak, on the same instruction addresses.
//!
//! The firmware side is `firmware/src/ct`: [`RUNS`] runs of the scheme's key
//! setup and seal, each on its own key, nonce and plaintext drawn from the
//! seed written into the ELF, or the planted leaks ([`PLANTS`]).

pub mod compare;
pub mod conditional;
pub mod latency;
pub mod operands;
pub mod trace;

use crate::implementation::split_build_id;
use crate::{McuError, Target, compile, elf, emulate, parse};
use compare::{Difference, Observed, Place};
pub use device_facts::constant_time::{Operation, Report, Verdict};

/// The firmware's runs per operation (firmware/src/ct/mod.rs `RUNS`).
pub const RUNS: usize = 16;

/// The build of planted leaks and their constant-time twins.
pub const PLANTS: &str = "plants";

/// The planted leaks (region names) with the function each plants, and the
/// constant-time twin of each (firmware/src/ct/plants.rs).
pub const PLANTED: [(&str, &str); 6] = [
    ("ct-branch-on-key-bit", "ct-select-on-key-bit"),
    ("ct-table-lookup", "ct-table-scan"),
    ("ct-early-exit-compare", "ct-constant-time-compare"),
    ("ct-secret-division", "ct-division-by-multiplication"),
    ("ct-secret-long-multiply", "ct-long-multiply-by-halves"),
    ("ct-secret-condition", "ct-public-condition"),
];

/// The ELF symbol that holds the seed (firmware `CIPHERMETER_CT_SEED`).
const SEED_SYMBOL: &str = "CIPHERMETER_CT_SEED";

/// What a verdict on `target` holds under.
pub fn model(target: Target) -> String {
    if target.is_avr() {
        return format!(
            "simavr's exact cycles, instruction addresses and data addresses of {RUNS} runs on \
             unlike secrets (the ATmega1284P has no cache: a secret data address is a warning)"
        );
    }
    let addresses = if target.has_data_cache() {
        "a secret data address is a leak, as the core reads flash through a cache"
    } else {
        "no data cache: a secret data address is a warning"
    };
    let operands = target.variable_latency_judged();
    let conditional = if target.has_it_blocks() {
        "; conditional execution: whether each instruction of an IT block ran, a skipped one \
         priced as a NOP and a run one by its class (data/cycle-timings/cortex-m.toml)"
    } else {
        ""
    };
    format!(
        "QEMU's executed instruction addresses and data addresses of {RUNS} runs on unlike \
         secrets ({addresses}); variable-latency instructions: {operands}{conditional}"
    )
}

/// Checks a build (a canonical scheme, `@IMPL` for another implementation
/// than RustCrypto's, or [`PLANTS`]) on `target` with secrets from `seed`.
/// A build that does not build or run is `not checked`, with the reason.
pub fn check(target: Target, build: &str, seed: u64) -> Result<Report, McuError> {
    validate(build)?;
    crate::toolchain::require(target)?;
    let mut report = Report {
        target,
        build: build.to_string(),
        verdict: Verdict::NotChecked,
        model: model(target),
        reason: None,
        seed: format!("{seed:016x}"),
        runs: RUNS,
        unit: if target.is_avr() {
            "cycles"
        } else {
            "instructions"
        }
        .to_string(),
        operations: Vec::new(),
    };
    match observe(target, build, seed) {
        Ok((ops, image)) => {
            report.operations = ops
                .into_iter()
                .map(|(name, runs)| judge(target, name, &runs, &image))
                .collect();
            report.verdict = if report
                .operations
                .iter()
                .any(|o| o.verdict == Verdict::Leaks)
            {
                Verdict::Leaks
            } else {
                Verdict::ConstantTime
            };
        }
        Err(reason) => report.reason = Some(reason),
    }
    Ok(report)
}

/// A scheme the sealing core knows, with a backend that has its primitives,
/// or the planted leaks; anything else is the user's mistake (exit 2).
fn validate(build: &str) -> Result<(), McuError> {
    if build == PLANTS {
        return Ok(());
    }
    let (scheme, _) = split_build_id(build);
    if seal::oscore_build::spec(scheme).is_none() {
        return Err(McuError::Usage(format!(
            "'{scheme}' is not a sealing scheme: ct checks what a device seals with \
             (aead:aes-128-ccm, etm:aes-128-cbc+hmac-sha256, oscore:aes-ccm-16-64-128, ...) or '{PLANTS}'"
        )));
    }
    if let Some((_, imp)) = build.rsplit_once('@') {
        imp.parse::<crate::Implementation>()
            .map_err(|e| McuError::Usage(e.to_string()))?;
    }
    compile::sealing_backend(build).map_err(McuError::Usage)?;
    Ok(())
}

type Ops = Vec<(String, Vec<Observed>)>;

/// The firmware that ran: its code, and its functions by address.
struct Image {
    bytes: Vec<u8>,
    functions: Vec<elf::Function>,
}

/// Builds, seeds, runs and reads one build: each operation's runs in order.
fn observe(target: Target, build: &str, seed: u64) -> Result<(Ops, Image), String> {
    let elf = compile::ct(target, build)
        .map_err(|reason| crate::fit::link_overflow(target, &reason).unwrap_or(reason))?;
    // Its own file per check: checks run in parallel (tests) share the build.
    static CHECKS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = CHECKS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let seeded = elf.with_extension(format!("seed-{seed:016x}.{}-{n}.elf", std::process::id()));
    let result = seed_copy(&elf, &seeded, seed).and_then(|()| run(target, &seeded));
    let image = elf::functions(&seeded)
        .map_err(|e| e.to_string())
        .and_then(|functions| {
            let bytes = std::fs::read(&seeded).map_err(|e| e.to_string())?;
            Ok(Image { bytes, functions })
        });
    let result = match (result, &image) {
        (Ok((run, mut observed)), Ok(image)) => {
            price_operands(target, &seeded, &mut observed, image).map(|()| (run, observed))
        }
        (result, _) => result,
    };
    std::fs::remove_file(&seeded).ok();
    let (run, observed) = result?;
    if let Some(failed) = run.kats.iter().find(|k| !k.passed) {
        return Err(format!(
            "the firmware failed: {}",
            failed.why.as_deref().unwrap_or("no reason given")
        ));
    }
    let named: Vec<&String> = run
        .regions
        .iter()
        .filter(|r| !r.starts_with("calibrate-"))
        .collect();
    let measured: Vec<Observed> = run
        .regions
        .iter()
        .zip(observed)
        .filter(|(r, _)| !r.starts_with("calibrate-"))
        .map(|(_, o)| o)
        .collect();
    if named.len() != measured.len() || named.len() != run.ops.len() {
        return Err(format!(
            "the firmware reported {} regions and the trace has {}",
            run.ops.len(),
            measured.len()
        ));
    }
    let mut ops: Ops = Vec::new();
    for ((name, mut o), op) in named.into_iter().zip(measured).zip(&run.ops) {
        // AVR: the harness's exact cycles. QEMU: the instructions traced
        // (a timer read under -icount can land a tick either way).
        o.count = if target.is_avr() {
            op.raw
        } else {
            o.path.len() as u64
        };
        match ops.iter_mut().find(|(n, _)| n == name) {
            Some((_, runs)) => runs.push(o),
            None => ops.push((name.clone(), vec![o])),
        }
    }
    if let Some((name, runs)) = ops.iter().find(|(_, runs)| runs.len() != RUNS) {
        return Err(format!("{name} ran {} times, not {RUNS}", runs.len()));
    }
    Ok((ops, image?))
}

/// A copy of `elf` with the seed written into it.
fn seed_copy(elf: &std::path::Path, to: &std::path::Path, seed: u64) -> Result<(), String> {
    let mut bytes =
        std::fs::read(elf).map_err(|e| format!("cannot read {}: {e}", elf.display()))?;
    let range = elf::symbol_file_range(&bytes, SEED_SYMBOL)
        .filter(|r| r.len() == 8)
        .ok_or_else(|| format!("{} has no 8-byte {SEED_SYMBOL}", elf.display()))?;
    bytes[range].copy_from_slice(&seed.to_le_bytes());
    std::fs::write(to, bytes).map_err(|e| format!("cannot write {}: {e}", to.display()))
}

/// The most instructions the plugin watches (firmware/ct-trace `MAX_WATCHED`).
const MAX_WATCHED: usize = 4096;

/// Prices the operands of every variable-latency instruction the regions
/// ran, and judges every instruction of an IT block they ran run or
/// skipped, from a second run that logs the registers before each (QEMU
/// targets only; the AVR's cycles already include them).
fn price_operands(
    target: Target,
    elf: &std::path::Path,
    observed: &mut [Observed],
    image: &Image,
) -> Result<(), String> {
    if target.is_avr() {
        return Ok(());
    }
    let code = |a: u32, n: usize| elf::bytes_at(&image.bytes, a, n);
    let ran: std::collections::BTreeSet<u32> = observed
        .iter()
        .flat_map(|o| o.path.iter().copied())
        .collect();
    let variable = ran
        .into_iter()
        .filter(|&pc| code(pc, 4).is_some_and(|i| latency::variable(target, i).is_some()));
    // Each IT block whole (the IT and the instructions it makes conditional):
    // the log's filter takes ranges, and the plugin numbers each instruction in them.
    let mut blocks = std::collections::BTreeMap::new();
    if target.has_it_blocks() {
        for o in observed.iter() {
            for block in conditional::it_blocks(&o.path, code) {
                blocks.entry(block[0]).or_insert(block);
            }
        }
    }
    let mut watched: std::collections::BTreeSet<u32> =
        blocks.values().flat_map(|b| b.iter()).copied().collect();
    let mut ranges: Vec<(u32, u32)> = blocks.values().map(|b| (b[0], b[b.len() - 1])).collect();
    for pc in variable {
        if watched.insert(pc) {
            ranges.push((pc, pc));
        }
    }
    if watched.is_empty() {
        return Ok(());
    }
    if watched.len() > MAX_WATCHED {
        return Err(format!(
            "{} variable-latency and conditional instructions ran, more than the \
             {MAX_WATCHED} the operand run can watch",
            watched.len()
        ));
    }
    let watched: Vec<u32> = watched.into_iter().collect();
    let plugin = compile::qemu_plugin().map_err(|e| e.to_string())?;
    // QEMU may log a block it then stops before running; a second run, which
    // stops elsewhere, settles it, and a second mismatch is the verdict's reason.
    let read = || {
        read_operands(
            target,
            elf,
            &plugin,
            &watched,
            &ranges,
            image,
            observed.len(),
        )
    };
    let priced = read().or_else(|_| read())?;
    for (o, watched) in observed.iter_mut().zip(priced) {
        o.latencies = watched.latencies;
        o.conditions = watched.conditions;
    }
    Ok(())
}

/// One logged run: each region's variable-latency executions, priced.
fn read_operands(
    target: Target,
    elf: &std::path::Path,
    plugin: &std::path::Path,
    watched: &[u32],
    ranges: &[(u32, u32)],
    image: &Image,
    regions: usize,
) -> Result<Vec<operands::Watched>, String> {
    let index = elf.with_extension("operands");
    let output = emulate::run_qemu_operands(target, elf, plugin, &index, watched, ranges);
    let bytes = std::fs::read(&index);
    std::fs::remove_file(&index).ok();
    let (output, log) = output.map_err(|e| e.to_string())?;
    if !output.exit_ok {
        return Err(format!(
            "the run that reads operands did not finish: {}",
            output.stderr.trim()
        ));
    }
    let bytes = bytes.map_err(|e| format!("the operand run wrote no index: {e}"))?;
    let (index, total) = operands::read_index(&bytes)?;
    if index.len() != regions {
        return Err(format!(
            "the operand run saw {} regions and the trace {regions}",
            index.len()
        ));
    }
    operands::price(target, &index, total, &log, |a, n| {
        elf::bytes_at(&image.bytes, a, n)
    })
}

/// Runs the seeded firmware, tracing every region: the simavr harness's
/// `--trace` on AVR, the QEMU plugin elsewhere.
fn run(target: Target, elf: &std::path::Path) -> Result<(parse::Run, Vec<Observed>), String> {
    let trace = elf.with_extension("trace");
    let (output, encoding) = if target.is_avr() {
        let harness = compile::harness().map_err(|e| e.to_string())?;
        let output = emulate::run_avr_trace(target, elf, &harness, &trace);
        (output, trace::Encoding::Tagged)
    } else {
        let plugin = compile::qemu_plugin().map_err(|e| e.to_string())?;
        let output = emulate::run_qemu_trace(target, elf, &plugin, &trace);
        (output, trace::Encoding::Escaped)
    };
    let bytes = std::fs::read(&trace);
    std::fs::remove_file(&trace).ok();
    let output = output.map_err(|e| e.to_string())?;
    let bytes =
        bytes.map_err(|e| format!("no trace was written: {e}; {}", output.stderr.trim()))?;
    let observed = trace::read(&bytes, encoding)?;
    // Short of RAM is said as the cost tables say it, with the sizes.
    let short_of_ram = || {
        let static_ram = elf::static_ram_bytes(elf).unwrap_or(0);
        crate::fit::ran_out_of_ram(target, &output.stderr, static_ram)
    };
    let run = parse::parse(&output.stdout).map_err(|e| {
        short_of_ram().unwrap_or_else(|| format!("{e}; simulator said: {}", output.stderr.trim()))
    })?;
    if !output.exit_ok {
        return Err(short_of_ram()
            .unwrap_or_else(|| format!("the firmware did not finish: {}", output.stderr.trim())));
    }
    if observed.len() != run.regions.len() {
        return Err(format!(
            "the firmware reported {} regions and the trace has {}",
            run.regions.len(),
            observed.len()
        ));
    }
    Ok((run, observed))
}

/// The verdict on one operation's runs.
///
/// AVR: the cycles decide, as simavr counts them exactly; a branch or a data
/// address that follows the secret without changing them is a warning.
/// QEMU: the instructions decide; the count is their number.
fn judge(target: Target, name: String, runs: &[Observed], image: &Image) -> Operation {
    let functions = &image.functions;
    let counts: Vec<u64> = runs.iter().map(|r| r.count).collect();
    let spread = [
        counts.iter().copied().min().unwrap_or(0),
        counts.iter().copied().max().unwrap_or(0),
    ];
    let found = compare::compare(runs, functions);
    let (leak, mut warnings) = match (found.count, found.path) {
        // Other cycles: the branch that parted the runs is where, if one did.
        (Some(runs), path) => (
            Some(path.unwrap_or(Place {
                what: Difference::Cycles,
                address: 0,
                function: None,
                called_from: Vec::new(),
                runs,
                instruction: None,
                latency: None,
            })),
            Vec::new(),
        ),
        (None, Some(path)) if target.is_avr() => (None, vec![path]),
        (None, path) => (path, Vec::new()),
    };
    // A secret address costs time only through a cache.
    let (leak, data_warning) = match (leak, found.data) {
        (None, Some(data)) if target.has_data_cache() => (Some(data), None),
        (leak, data) => (leak, data),
    };
    warnings.extend(data_warning);
    // On one path, a multi-cycle instruction run in one run and skipped in
    // another, or operands of another size, take another time.
    let leak = leak.or(found.conditional).or(found.latency);
    let cycles = |r: &Observed| -> Option<u64> {
        r.latencies
            .iter()
            .map(|l| l.cycles.map(u64::from))
            .sum::<Option<u64>>()
            .filter(|_| !r.latencies.is_empty())
    };
    let variable: Option<Vec<u64>> = runs.iter().map(cycles).collect();
    let variable_cycles = variable.map(|c| {
        [
            c.iter().copied().min().unwrap_or(0),
            c.iter().copied().max().unwrap_or(0),
        ]
    });
    Operation {
        name,
        verdict: if leak.is_some() {
            Verdict::Leaks
        } else {
            Verdict::ConstantTime
        },
        spread,
        variable_cycles,
        counts,
        leak,
        warnings,
    }
}

/// Every scheme build the shipped cost table of `target` holds.
pub fn table_builds(target: Target) -> Result<Vec<String>, McuError> {
    let table = crate::cost_table::shipped(target)?.ok_or_else(|| {
        McuError::Failed(format!(
            "no device cost table for {target} (scripts/device-costs)"
        ))
    })?;
    Ok(table.scheme_builds()?)
}

/// Writes `reports` as `target`'s verdict table (data/constant-time/TARGET.json).
pub fn write_table(
    path: &std::path::Path,
    target: Target,
    reports: &[Report],
) -> Result<(), McuError> {
    let firmware = crate::firmware_dir();
    let table = device_facts::constant_time::VerdictTable {
        target,
        firmware_revision: crate::cost_table::firmware_revision(&firmware, target)?,
        ct_revision: device_facts::revision::ct_revision(&firmware)?,
        judge_revision: device_facts::revision::judge_revision(&firmware)?,
        regenerate: format!("scripts/ct-sweep {}", target.name()),
        reports: reports.to_vec(),
    };
    let text = serde_json::to_string_pretty(&table).map_err(|e| McuError::Failed(e.to_string()))?;
    let temp = path.with_extension("json.tmp");
    std::fs::write(&temp, text + "\n")
        .and_then(|()| std::fs::rename(&temp, path))
        .map_err(|e| McuError::Failed(format!("cannot write {}: {e}", path.display())))
}

/// What [`check_all`] checked, and whether a stop request cut it short.
#[derive(Debug, Clone, Default)]
pub struct Checked {
    pub reports: Vec<Report>,
    pub interrupted: bool,
}

impl Checked {
    /// "interrupted: 3 of `n` builds checked".
    pub fn interruption(&self, n: usize) -> String {
        format!("interrupted: {} of {n} builds checked", self.reports.len())
    }

    /// "2 of 5 builds leak on T", when any does.
    pub fn leaks(&self, target: Target) -> Option<String> {
        let n = self
            .reports
            .iter()
            .filter(|r| r.verdict == Verdict::Leaks)
            .count();
        (n > 0).then(|| format!("{n} of {} builds leak on {target}", self.reports.len()))
    }
}

/// [`check`] on each build in turn, handing each report to `each` and, with
/// `table`, rewriting that verdict table after each (an interrupted sweep
/// keeps what it finished). `stop` is asked after each build: Ctrl-C also
/// reaches the compiler or simulator, so the build it cut is dropped.
///
/// A leak is a proof, and stays one: where `table` already holds a leak for a
/// build under another seed, a build the new seed finds constant-time is
/// checked again under that seed (16 random runs can miss a branch that one
/// secret in a few takes, as the Cortex-M0+'s `__aeabi_lmul` showed).
pub fn check_all(
    target: Target,
    builds: &[String],
    seed: u64,
    table: Option<&std::path::Path>,
    mut each: impl FnMut(usize, &str, Option<&Report>),
    stop: impl Fn() -> bool,
) -> Result<Checked, McuError> {
    let proven = table.map(previous_leaks).unwrap_or_default();
    let mut done = Checked::default();
    for (i, build) in builds.iter().enumerate() {
        each(i, build, None);
        let mut report = check(target, build, seed)?;
        if let Some(&earlier) = proven.get(build.as_str())
            && report.verdict == Verdict::ConstantTime
            && earlier != seed
        {
            let again = check(target, build, earlier)?;
            if again.verdict == Verdict::Leaks {
                report = again;
            }
        }
        if stop() {
            done.interrupted = true;
            break;
        }
        each(i, build, Some(&report));
        done.reports.push(report);
        if let Some(path) = table {
            write_table(path, target, &done.reports)?;
        }
    }
    Ok(done)
}

/// The seed of each leak a verdict table at `path` records (none if there
/// is no such table yet, or it is of another check's format).
fn previous_leaks(path: &std::path::Path) -> std::collections::HashMap<String, u64> {
    let table: Option<device_facts::constant_time::VerdictTable> = std::fs::read_to_string(path)
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok());
    table
        .map(|t| t.reports)
        .unwrap_or_default()
        .into_iter()
        .filter(|r| r.verdict == Verdict::Leaks)
        .filter_map(|r| Some((r.build, parse_seed(&r.seed).ok()?)))
        .collect()
}

/// `--seed`: 16 hex digits; none draws one.
pub fn seed(hex: Option<&str>) -> Result<u64, McuError> {
    hex.map_or_else(random_seed, parse_seed)
}

/// `--seed`: 16 hex digits.
pub fn parse_seed(hex: &str) -> Result<u64, McuError> {
    match u64::from_str_radix(hex, 16) {
        Ok(seed) if hex.len() == 16 => Ok(seed),
        _ => Err(McuError::Usage(format!(
            "--seed takes 16 hex digits (a report's seed), not '{hex}'"
        ))),
    }
}

/// A fresh seed from the operating system.
pub fn random_seed() -> Result<u64, McuError> {
    let mut bytes = [0u8; 8];
    std::io::Read::read_exact(&mut std::fs::File::open("/dev/urandom")?, &mut bytes)?;
    Ok(u64::from_le_bytes(bytes))
}

/// The report as the table `ct` prints.
pub fn table(report: &Report) -> String {
    let mut out = format!(
        "{} on {}: {}\n  model: {}\n  seed {} ({} runs; --seed {} reproduces them)\n",
        report.build,
        report.target,
        report.verdict.as_str(),
        report.model,
        report.seed,
        report.runs,
        report.seed
    );
    if let Some(why) = &report.reason {
        out.push_str(&format!("  not checked: {why}\n"));
    }
    for op in &report.operations {
        let spread = if op.spread[0] == op.spread[1] {
            format!("{} {} every run", op.spread[0], report.unit)
        } else {
            format!("{}..{} {}", op.spread[0], op.spread[1], report.unit)
        };
        let variable = match op.variable_cycles {
            Some([a, b]) if a == b => format!("; UDIV/UMULL-class {a} cycles every run"),
            Some([a, b]) => format!("; UDIV/UMULL-class {a}..{b} cycles"),
            None => String::new(),
        };
        out.push_str(&format!(
            "  {:<32} {:<14} {spread}{variable}\n",
            op.name,
            op.verdict.as_str()
        ));
        if let Some(leak) = &op.leak {
            out.push_str(&format!(
                "      leak: {} (runs {} and {})\n",
                leak.describe(),
                leak.runs[0],
                leak.runs[1]
            ));
        }
        for w in &op.warnings {
            let note = match w.what {
                Difference::Branch => {
                    format!(
                        ", in the same cycles (runs {} and {})",
                        w.runs[0], w.runs[1]
                    )
                }
                _ => format!(" (runs {} and {})", w.runs[0], w.runs[1]),
            };
            out.push_str(&format!("      warning: {}{note}\n", w.describe()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_leak_a_table_records_is_checked_again_under_its_seed() {
        let report = |build: &str, verdict, seed: &str| Report {
            target: Target::CortexM0plus,
            build: build.into(),
            verdict,
            model: String::new(),
            reason: None,
            seed: seed.into(),
            runs: RUNS,
            unit: "instructions".into(),
            operations: Vec::new(),
        };
        let table = device_facts::constant_time::VerdictTable {
            target: Target::CortexM0plus,
            firmware_revision: String::new(),
            ct_revision: String::new(),
            judge_revision: String::new(),
            regenerate: String::new(),
            reports: vec![
                report(
                    "aead:chacha20-poly1305@mbedtls",
                    Verdict::Leaks,
                    "00000000000000ff",
                ),
                report(
                    "aead:aes-128-ccm",
                    Verdict::ConstantTime,
                    "0000000000000001",
                ),
            ],
        };
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.json");
        std::fs::write(&path, serde_json::to_string(&table).unwrap()).unwrap();
        let proven = previous_leaks(&path);
        assert_eq!(proven.len(), 1);
        assert_eq!(proven["aead:chacha20-poly1305@mbedtls"], 0xff);
        assert!(previous_leaks(&dir.path().join("none.json")).is_empty());
    }
}
