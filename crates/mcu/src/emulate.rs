//! Runs a firmware ELF in simavr (through the harness) or QEMU: Cortex-M on
//! `qemu-system-arm`, riscv32imc on `qemu-system-riscv32 -M virt`.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::{McuError, Target, cycles};

pub struct Output {
    pub stdout: String,
    pub stderr: String,
    /// The firmware exited with status 0 (every known answer passed).
    pub exit_ok: bool,
}

/// Wall-clock bound for one firmware run; a hung simulation is an error.
const TIME_LIMIT: Duration = Duration::from_secs(300);

pub fn command(target: Target, elf: &Path, harness: Option<&Path>) -> Result<Command, McuError> {
    simulator(target, elf, harness, true)
}

/// [`command`], with QEMU's instruction counting clock or without it (a run
/// that reads registers, not time, and must not see a block started twice).
fn simulator(
    target: Target,
    elf: &Path,
    harness: Option<&Path>,
    icount: bool,
) -> Result<Command, McuError> {
    Ok(match target.qemu_machine() {
        None => {
            let harness = harness.ok_or_else(|| McuError::Failed("no simavr harness".into()))?;
            let mut cmd = harness_command(target, harness);
            cmd.arg(elf);
            cmd
        }
        Some(machine) => {
            let mut cmd = qemu(target, machine, icount);
            cmd.args(["-serial", "none"])
                .args(["-chardev", "stdio,id=semihosting"])
                .args([
                    "-semihosting-config",
                    "enable=on,target=native,chardev=semihosting",
                ]);
            cmd.arg("-kernel").arg(elf);
            cmd
        }
    })
}

/// QEMU's `machine` for `target`, sized and booted as the target's file
/// says (its `options`: riscv32imc's `-bios none -m 16M`), without display
/// or monitor, and with QEMU's instruction-counting clock when `icount`;
/// the caller adds where the output goes and the ELF. Also how a board's
/// build runs (`board::simulate`).
pub fn qemu(target: Target, machine: &str, icount: bool) -> Command {
    let mut cmd = Command::new(target.qemu_binary().unwrap_or("qemu-system-arm"));
    cmd.args(["-M", machine]).args(target.qemu_board_options());
    cmd.args(["-display", "none", "-monitor", "none"]);
    if icount {
        cmd.args(["-icount", &format!("shift={}", target.icount_shift())]);
    }
    cmd
}

/// The simavr harness for `target`, before the ELF argument.
pub(crate) fn harness_command(target: Target, harness: &Path) -> Command {
    let mut cmd = Command::new(harness);
    cmd.args(["--mcu", target.simavr_mcu().unwrap_or_default()])
        .args(["--freq", &target.clock_hz().to_string()]);
    cmd
}

pub fn run(target: Target, elf: &Path, harness: Option<&Path>) -> Result<Output, McuError> {
    output_of(command(target, elf, harness)?)
}

/// The harness run with `--trace FILE` (the constant-time check, crates/mcu
/// `ct::trace` reads the file).
pub fn run_avr_trace(
    target: Target,
    elf: &Path,
    harness: &Path,
    trace: &Path,
) -> Result<Output, McuError> {
    let mut cmd = harness_command(target, harness);
    cmd.arg("--trace").arg(trace).arg(elf);
    output_of(cmd)
}

fn output_of(cmd: Command) -> Result<Output, McuError> {
    run_with(cmd, |err| {
        let mut s = String::new();
        std::io::Read::read_to_string(err, &mut s).map(|_| s)
    })
    .map(|(out, stderr)| Output {
        stderr: stderr.unwrap_or_default(),
        ..out
    })
}

/// What a traced run gives besides its output: the instruction mix of each
/// measured region in the order they ran, or why there is none.
pub type Mixes = Result<Vec<cycles::Mix>, String>;

/// Runs a Cortex-M firmware with QEMU's execution log on its stderr and
/// counts each measured region's instructions by class as the log streams
/// in. Nothing is written to disk; the log (millions of lines for a large
/// run) is never held in memory. Only for targets with a cycle model
/// ([`Target::has_cycle_estimate`]): the classes are ARM's.
pub fn run_traced(target: Target, elf: &Path) -> Result<(Output, Mixes), McuError> {
    if !target.has_cycle_estimate() {
        return Err(McuError::Failed(format!(
            "{target} has no cycle model: run it with emulate::run"
        )));
    }
    let marks = crate::elf::marks(elf)?;
    let plugin = crate::compile::flash_loads_plugin()?;
    let hex: Vec<String> = marks.iter().map(|m| format!("{m:x}")).collect();
    // Footprints count flash lines from where the target's FLASH starts.
    let flash_start = target.facts().memory.flash_origin.ok_or_else(|| {
        McuError::Failed(format!("data/targets/{target}.toml names no flash_origin"))
    })?;
    let mut cmd = command(target, elf, None)?;
    // `plugin` puts the flash-loads plugin's counts into the same log.
    cmd.args(["-d", "in_asm,exec,nochain,plugin"])
        .arg("-plugin")
        .arg(format!(
            "{},marks={},flash_start={:x},flash_end={:x}",
            plugin.display(),
            hex.join(":"),
            flash_start,
            cycles::trace::FLASH_END
        ));
    let (out, mixes) = run_with(cmd, move |err| {
        let mut tracer = cycles::RegionTracer::new(marks);
        for line in std::io::BufRead::lines(std::io::BufReader::new(err)) {
            tracer.feed(&line?);
        }
        let stderr = tracer.other_lines.join("\n");
        let counted = tracer.flash_loads_counted();
        let mixes = tracer.finish().and_then(|m| match m.is_empty() || counted {
            true => Ok(m),
            false => Err("the flash-loads plugin printed no count into QEMU's log".into()),
        });
        Ok((mixes, stderr))
    })?;
    let (mixes, stderr) = mixes.unwrap_or_else(|e| (Err(e.to_string()), String::new()));
    Ok((Output { stderr, ..out }, mixes))
}

/// A QEMU run with the constant-time check's plugin writing `trace`
/// (crates/mcu `ct::trace` reads it): every instruction and memory access
/// inside the regions the ELF's marks bound.
pub fn run_qemu_trace(
    target: Target,
    elf: &Path,
    plugin: &Path,
    trace: &Path,
) -> Result<Output, McuError> {
    let marks: Vec<String> = crate::elf::marks(elf)?
        .iter()
        .map(|m| format!("{m:x}"))
        .collect();
    let mut cmd = command(target, elf, None)?;
    cmd.arg("-plugin").arg(format!(
        "{},trace={},marks={}",
        plugin.display(),
        trace.display(),
        marks.join(":")
    ));
    output_of(cmd)
}

/// The registers before each execution of the `watched` instructions, from
/// QEMU's CPU log (one instruction per block, unchained, so each execution
/// logs once) filtered to `ranges` (first and last address, which cover the
/// watched instructions and no other), with QEMU's disassembly of each, and
/// the plugin writing `index`: which of those executions fell in which
/// region (crates/mcu `ct::operands` pairs them). No instruction counting: a
/// block started again after an icount stop would log twice.
pub fn run_qemu_operands(
    target: Target,
    elf: &Path,
    plugin: &Path,
    index: &Path,
    watched: &[u32],
    ranges: &[(u32, u32)],
) -> Result<(Output, crate::ct::operands::Log), McuError> {
    let hex = |list: &[u32]| -> Vec<String> { list.iter().map(|a| format!("{a:x}")).collect() };
    let marks = crate::elf::marks(elf)?;
    let mut cmd = simulator(target, elf, None, false)?;
    let ranges: Vec<String> = ranges
        .iter()
        .map(|(first, last)| format!("{first:#x}..{last:#x}"))
        .collect();
    let qemu = target.qemu_binary().unwrap_or("qemu-system-arm");
    cmd.args(one_instruction_per_block(qemu))
        .args(["-d", "nochain,cpu,in_asm", "-dfilter", &ranges.join(",")])
        .arg("-plugin")
        .arg(format!(
            "{},index={},marks={},watch={}",
            plugin.display(),
            index.display(),
            hex(&marks).join(":"),
            hex(watched).join(":")
        ));
    let (out, logged) = run_with(cmd, |err| {
        let mut reader = crate::ct::operands::LogReader::default();
        for line in std::io::BufRead::lines(std::io::BufReader::new(err)) {
            reader.feed(&line?);
        }
        Ok(reader.finish())
    })?;
    let mut log = logged?;
    let stderr = std::mem::take(&mut log.other);
    Ok((Output { stderr, ..out }, log))
}

/// QEMU's switch for one instruction per translation block: `-singlestep`
/// up to 8.0 (Debian 12 ships 7.2), `-accel tcg,one-insn-per-tb=on` from 8.1,
/// which later drops the old spelling.
fn one_instruction_per_block(qemu: &str) -> &'static [&'static str] {
    let version = Command::new(qemu)
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    let number = version
        .split_whitespace()
        .skip_while(|w| *w != "version")
        .nth(1)
        .unwrap_or("0");
    let mut parts = number.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
    let (major, minor) = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    if (major, minor) >= (8, 1) {
        &["-accel", "tcg,one-insn-per-tb=on"]
    } else {
        &["-singlestep"]
    }
}

/// Runs `cmd` to its end (or the time limit), reading stdout whole and
/// handing stderr to `on_stderr` on its own thread.
fn run_with<T: Send + 'static>(
    mut cmd: Command,
    on_stderr: impl FnOnce(&mut std::process::ChildStderr) -> std::io::Result<T> + Send + 'static,
) -> Result<(Output, std::io::Result<T>), McuError> {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| McuError::Failed(format!("cannot start the simulator: {e}")))?;
    // Drain both pipes on threads so a chatty simulator cannot block.
    let mut out = child.stdout.take().expect("piped");
    let mut err = child.stderr.take().expect("piped");
    let out_thread = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut out, &mut s).map(|_| s)
    });
    let err_thread = std::thread::spawn(move || on_stderr(&mut err));
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if started.elapsed() > TIME_LIMIT {
            child.kill().ok();
            child.wait().ok();
            return Err(McuError::Failed(format!(
                "the simulation ran longer than {TIME_LIMIT:?}"
            )));
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let stdout = out_thread.join().expect("reader").unwrap_or_default();
    let stderr = err_thread.join().expect("reader");
    Ok((
        Output {
            stdout,
            stderr: String::new(),
            exit_ok: status.success(),
        },
        stderr,
    ))
}
