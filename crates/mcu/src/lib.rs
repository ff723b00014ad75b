//! The microcontroller tier: the catalogue's algorithms built as firmware
//! (`/firmware`, one build per algorithm) and measured in simulation.
//!
//! - ATmega1284P: simavr, exact CPU cycles between marker writes
//!   (`firmware/simavr-harness/harness.c`).
//! - Cortex-M0/M3/M4: QEMU `microbit`, `mps2-an385`, `mps2-an386` under
//!   `-icount`, exact *instruction* counts (QEMU has no cycle model), and a
//!   cycle estimate with a range from the executed instruction mix
//!   ([`cycles`]).
//! - riscv32imc (the ESP32-C3's ISA): QEMU `virt` under `-icount shift=0`,
//!   exact instruction counts from `minstret`, and no cycle estimate:
//!   Espressif publishes no per-instruction timing for the core, so time at
//!   its 160 MHz clock is a lower bound (CPI >= 1).
//!
//! [`measure`] is the entry point; [`tiny_security::reproduce`] reruns study
//! 003's device-level comparison. Results are plain serde types
//! ([`McuResult`]) so the store and report can persist them. The facts it
//! writes and reads (targets, the algorithm and implementation registry,
//! cost tables, anchors) are `device_facts`', re-exported here.

pub mod board;
pub mod build_cache;
pub mod compare;
pub mod compile;
pub mod ct;
pub mod cycles;
pub mod elf;
pub mod emulate;
pub mod error;
pub mod fit;
pub mod parse;
pub mod probe;
pub mod results;
pub mod schc_probe;
pub mod seal_check;
pub mod summary;
pub mod tiny_security;
pub mod toolchain;
pub mod uplink;
pub mod verify_probe;

// The facts this runner writes and reads live in `device_facts`, which
// runs nothing; re-exported so `mcu::Target`, `mcu::cost_table` and the
// rest name the same items as before.
pub use device_facts::{
    Board, Implementation, McuResult, Target, algorithms, anchors, cost_table, firmware_dir,
    implementation, measurement, target,
};
pub use error::McuError;

/// What to measure.
#[derive(Debug, Clone)]
pub struct Request {
    pub target: Target,
    /// Firmware algorithm ids; empty means every algorithm the firmware has.
    /// `ID@IMPLEMENTATION` (`sha512@monocypher`) measures another
    /// implementation than RustCrypto's ([`implementation::expand`] makes
    /// these from `--impl`).
    pub algorithms: Vec<String>,
    /// Message sizes in bytes.
    pub sizes: Vec<usize>,
}

impl Request {
    /// The run's command as the store records it: `mcu --target T ALG… --sizes S`.
    pub fn command(&self) -> String {
        let sizes: Vec<String> = self.sizes.iter().map(|s| s.to_string()).collect();
        let mut command = vec!["mcu", "--target", self.target.name()];
        command.extend(self.algorithms.iter().map(String::as_str));
        let sizes = sizes.join(",");
        command.extend(["--sizes", &sizes]);
        command.join(" ")
    }
}

/// Writes the device cost table of `rows`, measured for `req`, to `path`,
/// as `scripts/device-costs` makes it (data/device-costs/TARGET.json). With
/// algorithms named and `path` already a table of this target, only their
/// entries in it are replaced.
pub fn write_cost_table(
    path: &std::path::Path,
    req: &Request,
    rows: &[McuResult],
) -> Result<(), McuError> {
    let target = req.target;
    let mut table = cost_table::CostTable::from_results(
        target,
        rows,
        toolchain::versions(target),
        cost_table::firmware_revision(&firmware_dir(), target)?,
        format!("scripts/device-costs {}", target.name()),
    );
    if !req.algorithms.is_empty() && path.exists() {
        table = cost_table::update_file(path, target, table)?;
    }
    write_table(path, &table)
}

/// Prices the instruction mixes a table keeps again with the cycle model
/// compiled in, and writes it back (`scripts/device-costs --reprice`): what
/// a change to `data/cycle-timings` or to the model's arithmetic needs, with
/// no simulation. Returns how many entries were priced.
pub fn reprice_cost_table(path: &std::path::Path) -> Result<usize, McuError> {
    let mut table = cost_table::read_file(path)?;
    let priced = table.reprice()?;
    write_table(path, &table)?;
    Ok(priced)
}

/// `table` to `path`, as the shipped tables are written.
pub(crate) fn write_table(
    path: &std::path::Path,
    table: &cost_table::CostTable,
) -> Result<(), McuError> {
    let text = serde_json::to_string_pretty(table).map_err(|e| McuError::Failed(e.to_string()))?;
    std::fs::write(path, text + "\n")
        .map_err(|e| McuError::Failed(format!("cannot write {}: {e}", path.display())))
}

/// Message sizes when none are given, as the `--sizes` flag spells them.
pub const DEFAULT_SIZES: &str = "16,64,256,1024";

/// Largest message the firmware buffers can take on the smallest RAM (16 KiB).
pub const MAX_SIZE: usize = 4096;

/// The buffer size of a sealing build: study 003's longest chain reading
/// (470 bytes of JSON) sealed in the json container, with its scratch room.
pub const SEAL_BUFFER: usize = 1536;

/// Checks the request, the toolchain, then builds and runs every algorithm.
/// A firmware that does not build or run yields a row saying why; it never
/// stops the others.
pub fn measure(req: &Request, progress: impl FnMut(&str)) -> Result<Vec<McuResult>, McuError> {
    measure_until(req, progress, || false).map(|m| m.rows)
}

/// The rows measured, and whether a stop request cut the run short.
#[derive(Debug, Clone, Default)]
pub struct Measured {
    pub rows: Vec<McuResult>,
    pub interrupted: bool,
}

/// [`measure`], checking `stop` after each algorithm. When it asks to stop,
/// the finished algorithms are returned; the one running then is dropped,
/// since Ctrl-C also reaches the compiler or simulator it was waiting for.
pub fn measure_until(
    req: &Request,
    mut progress: impl FnMut(&str),
    stop: impl Fn() -> bool,
) -> Result<Measured, McuError> {
    let builds = algorithms::resolve_builds(&req.algorithms)?;
    validate_sizes(&req.sizes)?;
    toolchain::require(req.target)?;
    let harness = match req.target.simavr_mcu() {
        Some(_) => Some(compile::harness()?),
        None => None,
    };
    let mut done = Measured::default();
    // The identity build is the code-size reference (study 003 Fig. 12, FELICS).
    progress("identity (code-size baseline)");
    let baseline = match compile::firmware(req.target, "identity", &req.sizes) {
        Ok(elf) => elf,
        // Ctrl-C from a terminal also stops the compiler: not a build failure.
        Err(_) if stop() => {
            done.interrupted = true;
            return Ok(done);
        }
        Err(e) => {
            return Err(McuError::Failed(format!(
                "the identity baseline firmware does not build: {e}"
            )));
        }
    };
    let baseline_flash = elf::flash_bytes(&baseline)?;
    for (alg, imp) in builds {
        if stop() {
            done.interrupted = true;
            break;
        }
        progress(&imp.build_id(alg.id));
        let mut rows = match imp.unavailable_on(req.target) {
            Some(why) => vec![McuResult::failure(req.target, alg.id, "build", why)],
            None => measure_one(req, alg, imp, harness.as_deref(), baseline_flash),
        };
        for row in &mut rows {
            row.implementation = imp.name().to_string();
        }
        if stop() {
            done.interrupted = true;
            break;
        }
        done.rows.extend(rows);
    }
    Ok(done)
}

fn measure_one(
    req: &Request,
    alg: &algorithms::Algorithm,
    imp: Implementation,
    harness: Option<&std::path::Path>,
    baseline_flash: u64,
) -> Vec<McuResult> {
    let sizes = build_sizes(alg, &req.sizes);
    let elf = match compile::firmware(req.target, &imp.build_id(alg.id), &sizes) {
        Ok(elf) => elf,
        Err(reason) => {
            let why = fit::link_overflow(req.target, &reason).unwrap_or(reason);
            return vec![McuResult::failure(req.target, alg.id, "build", why)];
        }
    };
    let flash = match elf::flash_bytes(&elf) {
        Ok(f) => f,
        Err(e) => {
            return vec![McuResult::failure(
                req.target,
                alg.id,
                "build",
                e.to_string(),
            )];
        }
    };
    // Cortex-M runs log their execution for the cycle estimate (streamed,
    // nothing on disk); CIPHERMETER_MCU_CYCLE_MODEL=off runs them bare.
    // AVR counts cycles exactly; riscv32imc has no cycle model.
    let traced = req.target.has_cycle_estimate() && cycles::enabled();
    let ran = if traced {
        emulate::run_traced(req.target, &elf).map(|(out, mixes)| (out, Some(mixes)))
    } else {
        emulate::run(req.target, &elf, harness).map(|out| (out, None))
    };
    let (output, mixes) = match ran {
        Ok(ran) => ran,
        Err(e) => return vec![McuResult::failure(req.target, alg.id, "run", e.to_string())],
    };
    match parse::parse(&output.stdout) {
        Ok(run) => {
            // A stack that ran into the data leaves counts that mean nothing.
            let static_ram = elf::static_ram_bytes(&elf).unwrap_or(0);
            if let Some(why) = fit::stack_overflow(req.target, &run, static_ram) {
                let mut row = McuResult::failure(req.target, alg.id, "run", why);
                row.flash_bytes = Some(flash);
                row.code_size_bytes = Some(flash as i64 - baseline_flash as i64);
                return vec![row];
            }
            let mut rows = results::rows(
                req.target,
                alg.id,
                &run,
                flash,
                baseline_flash,
                output.exit_ok,
            );
            if alg.family == algorithms::Family::Seal
                && let Err(why) = seal_check::check(alg.id, &run.sealed)
            {
                for row in &mut rows {
                    row.kat_passed = false;
                    row.error = Some(format!("known-answer test FAILED: {why}"));
                }
            }
            if let Some(mixes) = mixes
                && let Err(why) =
                    mixes.and_then(|m| results::add_estimates(req.target, &run, &m, &mut rows))
            {
                // The exact counts stand; only the estimate is missing.
                eprintln!(
                    "warning: no cycle estimate for {} on {}: {why}",
                    alg.id, req.target
                );
            }
            rows.extend(skipped_sizes(req, alg));
            rows
        }
        Err(e) => {
            let static_ram = elf::static_ram_bytes(&elf).unwrap_or(0);
            let why = fit::frame_too_big(req.target, &output.stdout, static_ram)
                .or_else(|| fit::ran_out_of_ram(req.target, &output.stderr, static_ram))
                .unwrap_or_else(|| format!("{e}; simulator said: {}", output.stderr.trim()));
            let mut row = McuResult::failure(req.target, alg.id, "run", why);
            row.flash_bytes = Some(flash);
            row.code_size_bytes = Some(flash as i64 - baseline_flash as i64);
            vec![row]
        }
    }
}

/// The message sizes a build of `alg` is made for: `asked` for a primitive;
/// a sealing build measures the chain readings whatever the sizes asked,
/// its buffers holding the longest (25 thermometers) in every container;
/// a public-key build's messages are its own, and the smallest buffers
/// leave it the most RAM.
pub fn build_sizes(alg: &algorithms::Algorithm, asked: &[usize]) -> Vec<usize> {
    match alg.family {
        algorithms::Family::Seal => vec![SEAL_BUFFER],
        algorithms::Family::Handshake
        | algorithms::Family::Kem
        | algorithms::Family::Signature
        | algorithms::Family::KeyAgreement => vec![16],
        _ => asked.to_vec(),
    }
}

/// ECB and CBC take whole blocks only; the firmware skips other sizes and
/// this says so in the results rather than leaving a silent gap.
fn skipped_sizes(req: &Request, alg: &algorithms::Algorithm) -> Vec<McuResult> {
    let algorithms::Family::BlockMode(block) = alg.family else {
        return Vec::new();
    };
    req.sizes
        .iter()
        .filter(|&&n| n % block != 0)
        .map(|&n| {
            let mut row = McuResult::failure(
                req.target,
                alg.id,
                "encrypt",
                format!(
                    "{n} bytes is not a whole number of {block}-byte blocks (ECB/CBC); size skipped"
                ),
            );
            row.size_bytes = n;
            row
        })
        .collect()
}

pub(crate) fn validate_sizes(sizes: &[usize]) -> Result<(), McuError> {
    if sizes.is_empty() {
        return Err(McuError::Usage("--sizes needs at least one size".into()));
    }
    if let Some(bad) = sizes.iter().find(|&&s| s == 0 || s > MAX_SIZE) {
        return Err(McuError::Usage(format!(
            "message size {bad} is out of range: sizes must be 1..={MAX_SIZE} bytes (device RAM)"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod request_tests {
    use super::*;

    #[test]
    fn the_stored_command_names_target_algorithms_and_sizes() {
        let req = Request {
            target: Target::CortexM4,
            algorithms: vec!["aes-128-gcm".into(), "sha512@monocypher".into()],
            sizes: vec![16, 64],
        };
        assert_eq!(
            req.command(),
            "mcu --target cortex-m4 aes-128-gcm sha512@monocypher --sizes 16,64"
        );
    }
}
