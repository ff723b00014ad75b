//! Boards on the desk (`ciphermeter mcu --board B`): the measuring firmware
//! built for a board (`firmware/examples/board`), and its results read from
//! the board's serial port, checked (known answers, a sealing build's bytes
//! against the host's) and turned into rows labelled with the board and the
//! serial number its user gives. The boards' facts are device-facts' `Board`.
//!
//! Without hardware, [`simulate`] runs a board's build in the simulator that
//! has its core and peripherals, its UART bridged to a pseudo-terminal, so
//! the same reading path runs in the tests.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

pub use device_facts::Board;
pub use device_facts::board::Counts;
use device_facts::cost_table::{CostTable, MeasuredOn};

use crate::results::{Counting, rows_counted};
use crate::{McuError, McuResult, algorithms, compile, elf, parse, seal_check, toolchain};

/// What to do with a board ([`Request::new`] checks it).
#[derive(Debug, Clone)]
pub struct Request {
    pub board: Board,
    /// The build: an algorithm or sealing scheme, `@IMPL` for another
    /// implementation than RustCrypto's.
    pub build: String,
    /// Message sizes for a primitive (`mcu --sizes`).
    pub sizes: Vec<usize>,
    /// The board's serial port: without one, the firmware is only built.
    pub serial: Option<PathBuf>,
    /// The board's own serial number, for the rows' label.
    pub serial_number: Option<String>,
}

impl Request {
    /// A request as `mcu --board` takes it: one build (a board runs one
    /// firmware at a time), and with a serial port the board's serial number.
    pub fn new(
        board: Board,
        builds: Vec<String>,
        sizes: Vec<usize>,
        serial: Option<PathBuf>,
        serial_number: Option<String>,
    ) -> Result<Request, McuError> {
        let [build] = <[String; 1]>::try_from(builds).map_err(|b| {
            McuError::Usage(format!(
                "--board runs one build at a time: name one algorithm or scheme ({} given)",
                b.len()
            ))
        })?;
        if serial.is_some() && serial_number.as_deref().is_none_or(str::is_empty) {
            return Err(McuError::Usage(
                "--board-serial: give the board's serial number, which its rows are labelled with"
                    .into(),
            ));
        }
        if let Some(port) = serial.as_deref().filter(|p| !p.exists()) {
            return Err(McuError::Usage(format!(
                "--serial: {}: no such port (is the board plugged in?)",
                port.display()
            )));
        }
        crate::validate_sizes(&sizes)?;
        Ok(Request {
            board,
            build,
            sizes,
            serial,
            serial_number,
        })
    }
}

/// What [`run`] did.
#[derive(Debug)]
pub enum Outcome {
    /// The firmware to flash, and how: the ELF's path and the command, a
    /// line each.
    Built(String),
    /// The board's rows.
    Measured(Vec<McuResult>),
}

/// A board that sends nothing for this long has stopped (or was never
/// reset): the reading ends with what arrived.
pub const SILENCE: Duration = Duration::from_secs(300);

/// Builds the board's firmware for the request; with a serial port, reads
/// the board's run from it (from its banner `B <board>` to `E`) and returns
/// its rows, labelled `measured on board B, serial S`, and writes them to
/// `table` as a cost table ([`write_cost_table`]) when given.
pub fn run(
    req: &Request,
    table: Option<&Path>,
    mut progress: impl FnMut(&str),
) -> Result<Outcome, McuError> {
    let [(alg, imp)] = algorithms::resolve_builds(std::slice::from_ref(&req.build))?[..] else {
        unreachable!("one build id resolves to one build");
    };
    let target = req.board.target();
    if table.is_some() && req.serial.is_none() {
        return Err(McuError::Usage(
            "--cost-table with --board writes the board's rows: give --serial PORT".into(),
        ));
    }
    if let Some(why) = imp.unavailable_on(target) {
        return Err(McuError::Usage(format!("{}: {why}", req.build)));
    }
    toolchain::require(target)?;
    let sizes = crate::build_sizes(alg, &req.sizes);
    progress(&format!("building {} for {}", req.build, req.board));
    let elf = compile::board(req.board, &imp.build_id(alg.id), &sizes).map_err(McuError::Failed)?;
    let flash = elf::flash_bytes(&elf)?;
    if flash > req.board.flash_bytes() {
        return Err(McuError::Failed(format!(
            "{} does not fit {}'s flash: {flash} B of {} B",
            req.build,
            req.board,
            req.board.flash_bytes()
        )));
    }
    let Some(port) = &req.serial else {
        let elf = elf.display().to_string();
        let how = req.board.flash_command().replace("ELF", &elf);
        return Ok(Outcome::Built(format!("{elf}\nflash it: {how}\n")));
    };
    let baseline = compile::board(req.board, "identity", &sizes).map_err(McuError::Failed)?;
    let baseline = elf::flash_bytes(&baseline)?;
    progress(&format!(
        "reading {} (reset the board if nothing comes)",
        port.display()
    ));
    let text = read_run(port, req.board)?;
    let run = parse::parse(&text)?;
    if !run.algorithms.iter().any(|a| a == alg.id) {
        return Err(McuError::Failed(format!(
            "the board ran {}, not {}: flash the build `mcu --board {} {}` makes",
            run.algorithms.join(", "),
            alg.id,
            req.board,
            req.build
        )));
    }
    let mut rows = rows_counted(
        Counting::Board(req.board),
        alg.id,
        &run,
        (flash, baseline),
        true,
    );
    if alg.family == algorithms::Family::Seal
        && let Err(why) = seal_check::check(alg.id, &run.sealed)
    {
        for row in &mut rows {
            row.kat_passed = false;
            row.error = Some(format!("known-answer test FAILED: {why}"));
        }
    }
    let label = measured_on(req).to_string();
    for row in &mut rows {
        row.implementation = imp.name().to_string();
        row.measured_on = Some(label.clone());
    }
    if let Some(path) = table {
        write_cost_table(path, req, &rows)?;
    }
    Ok(Outcome::Measured(rows))
}

fn measured_on(req: &Request) -> MeasuredOn {
    MeasuredOn {
        board: req.board,
        serial_number: req.serial_number.clone().unwrap_or_default(),
    }
}

/// The table of a board's rows (`mcu --board … --cost-table FILE`), in the
/// shipped tables' format, with the board's counter and clock and its
/// label; `recommend --cost-table FILE` prefers its rows.
pub fn cost_table(req: &Request, rows: &[McuResult]) -> Result<CostTable, McuError> {
    let target = req.board.target();
    let mut table = CostTable::from_results(
        target,
        rows,
        toolchain::versions(target),
        crate::cost_table::firmware_revision(&crate::firmware_dir(), target)?,
        format!(
            "ciphermeter mcu --board {} {} --serial PORT --board-serial {}",
            req.board,
            req.build,
            req.serial_number.as_deref().unwrap_or("SN")
        ),
    );
    table.counter = req.board.counter().into();
    table.clock_hz = req.board.clock_hz();
    table.measured_on = Some(measured_on(req));
    Ok(table)
}

/// Writes [`cost_table`] to `path`; a table there from the same board
/// keeps its other builds' entries, and one from elsewhere is refused
/// (`cost_table::update_file`).
pub fn write_cost_table(path: &Path, req: &Request, rows: &[McuResult]) -> Result<(), McuError> {
    let mut table = cost_table(req, rows)?;
    if path.exists() {
        table = crate::cost_table::update_file(path, req.board.target(), table)?;
    }
    crate::write_table(path, &table)
}

/// Reads a board's run from `port`: everything from its last banner (a
/// reset starts the run again) to the `E` line, or to `PANIC`.
fn read_run(port: &Path, board: Board) -> Result<String, McuError> {
    let mut file = serial::open_serial(port, board.baud()).map_err(|e| match e {
        serial::SerialError::Usage(m) => McuError::Usage(m),
        serial::SerialError::Io(m) => McuError::Usage(format!("--serial: {m}")),
    })?;
    let banner = format!("B {board}\n");
    let mut text = String::new();
    let mut heard = Instant::now();
    let mut buf = [0u8; 4096];
    loop {
        let readable = serial::wait_readable(&file, Duration::from_millis(200))
            .map_err(|e| McuError::Failed(e.to_string()))?;
        if !readable {
            if heard.elapsed() > SILENCE {
                return Err(McuError::Failed(format!(
                    "{} sent nothing for {} s{}",
                    port.display(),
                    SILENCE.as_secs(),
                    if text.contains(&banner) {
                        " before its run ended"
                    } else {
                        ": is the board flashed with this build and reset?"
                    }
                )));
            }
            continue;
        }
        let n = file.read(&mut buf)?;
        if n == 0 {
            return Err(McuError::Failed(format!("{} closed", port.display())));
        }
        heard = Instant::now();
        // A line noise byte is not a result: it fails the parse, not here.
        text.push_str(&String::from_utf8_lossy(&buf[..n]));
        if let Some(at) = text.rfind(&banner) {
            let run = &text[at..];
            if run.contains("\nE\n") || run.contains("PANIC") {
                return Ok(run.to_string());
            }
        }
    }
}

/// A board's build running in the simulator that has its core and
/// peripherals (QEMU's machine, or simavr for the ATmega1284P), its UART
/// on the pseudo-terminal at [`Simulated::path`]. Dropping it stops the
/// simulator.
pub struct Simulated {
    child: Child,
    /// Held for the run: what the simulator wrote stays readable after it ends.
    _pty: serial::Pty,
    stop: Arc<AtomicBool>,
    bridge: Option<std::thread::JoinHandle<()>>,
    pub path: PathBuf,
}

/// Starts `elf` (a build for `board`) in its simulator.
pub fn simulate(board: Board, elf: &Path) -> Result<Simulated, McuError> {
    let target = board.target();
    let mut cmd = match board.qemu_machine() {
        Some(machine) => {
            let mut cmd = crate::emulate::qemu(target, machine, true);
            cmd.args(["-serial", "stdio", "-kernel"]).arg(elf);
            cmd
        }
        None if board == Board::SodaqMbili => {
            let mut cmd = crate::emulate::harness_command(target, &compile::harness()?);
            cmd.arg("--uart").arg(elf);
            cmd
        }
        None => {
            return Err(McuError::Usage(format!(
                "no simulator runs {board}'s peripherals: run it on the board"
            )));
        }
    };
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| McuError::Failed(format!("cannot start the simulator: {e}")))?;
    let pty = serial::Pty::open().map_err(|e| McuError::Failed(e.to_string()))?;
    let path = pty.path.clone();
    let stop = Arc::new(AtomicBool::new(false));
    let out = child.stdout.take().expect("piped");
    let master = pty.master.try_clone()?;
    let bridge = {
        let stop = stop.clone();
        std::thread::spawn(move || bridge(out, master, &stop))
    };
    Ok(Simulated {
        child,
        _pty: pty,
        stop,
        bridge: Some(bridge),
        path,
    })
}

/// Copies the simulator's UART into the pty's master until the simulator
/// ends or [`Simulated`] is dropped. A write waits for the reader (the pty
/// holds a few KiB), so nothing is lost before `mcu` opens the port.
fn bridge(mut out: impl Read, mut master: std::fs::File, stop: &AtomicBool) {
    use std::io::Write;
    let mut buf = [0u8; 1024];
    while let Ok(n @ 1..) = out.read(&mut buf) {
        let mut left = &buf[..n];
        while !left.is_empty() {
            if stop.load(Ordering::Relaxed) {
                return;
            }
            match serial::wait_writable(&master, Duration::from_millis(100)) {
                Ok(true) => match master.write(left) {
                    Ok(w) => left = &left[w..],
                    Err(_) => return,
                },
                Ok(false) => {}
                Err(_) => return,
            }
        }
    }
}

impl Drop for Simulated {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        self.child.kill().ok();
        self.child.wait().ok();
        if let Some(bridge) = self.bridge.take() {
            bridge.join().ok();
        }
    }
}
