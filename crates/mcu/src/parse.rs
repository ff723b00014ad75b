//! Parses the firmware's result stream (format documented in firmware/src/lib.rs).

use crate::McuError;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawOp {
    pub operation: String,
    pub size: usize,
    /// Cycles (simavr) or timer ticks (QEMU), marker cost included.
    pub raw: u64,
    pub stack: u32,
    /// The free stack the region started with (the AVR harness's painted
    /// room); a peak that reaches it ran into the static data.
    pub room: Option<u32>,
    /// The firmware said (`O`) the region's stack ran into the static data.
    pub ran_into_data: bool,
}

impl RawOp {
    /// The region used all the stack there was: it did not fit.
    pub fn out_of_stack(&self) -> bool {
        self.ran_into_data || self.room.is_some_and(|room| self.stack >= room)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kat {
    pub algorithm: String,
    pub passed: bool,
    pub why: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Run {
    pub algorithms: Vec<String>,
    pub kats: Vec<Kat>,
    /// The empty region (the marker cost) and the 100-nop region, raw.
    pub calibrate_empty: Option<u64>,
    pub calibrate_nop100: Option<u64>,
    /// Cortex-M only: the hand-countable loop that pins the cycle model.
    pub calibrate_loop: Option<u64>,
    /// Every measured region's name in the order it ran, calibrations
    /// included: region i of a QEMU execution log is `regions[i]`.
    pub regions: Vec<String>,
    pub ops: Vec<RawOp>,
    /// A sealing build's messages sealed under its fixed key and nonce:
    /// (container, bytes), for the host to compare (`S <container> <hex>`).
    pub sealed: Vec<(String, Vec<u8>)>,
    pub finished: bool,
    pub panicked: bool,
}

pub fn parse(stream: &str) -> Result<Run, McuError> {
    let bad = |line: &str| McuError::Failed(format!("unexpected firmware output line: {line:?}"));
    let mut run = Run::default();
    let mut pending: Option<(String, usize)> = None;
    for line in stream.lines() {
        let mut words = line.split_whitespace();
        match words.next() {
            Some("A") => run
                .algorithms
                .push(words.next().ok_or_else(|| bad(line))?.to_string()),
            Some("K") => {
                let algorithm = words.next().ok_or_else(|| bad(line))?.to_string();
                let passed = match words.next() {
                    Some("pass") => true,
                    Some("FAIL") => false,
                    _ => return Err(bad(line)),
                };
                let why: Vec<_> = words.collect();
                let why = (!why.is_empty()).then(|| why.join(" "));
                run.kats.push(Kat {
                    algorithm,
                    passed,
                    why,
                });
            }
            Some("S") => {
                let container = words.next().ok_or_else(|| bad(line))?.to_string();
                let bytes = hex::decode(words.next().unwrap_or("")).map_err(|_| bad(line))?;
                run.sealed.push((container, bytes));
            }
            Some("M") => {
                let op = words.next().ok_or_else(|| bad(line))?.to_string();
                let size = words
                    .next()
                    .and_then(|w| w.parse().ok())
                    .ok_or_else(|| bad(line))?;
                if let Some((prev, _)) = pending.replace((op, size)) {
                    return Err(McuError::Failed(format!(
                        "region '{prev}' was never measured"
                    )));
                }
            }
            Some("C") => {
                let raw: u64 = words
                    .next()
                    .and_then(|w| w.parse().ok())
                    .ok_or_else(|| bad(line))?;
                let stack: u32 = words
                    .next()
                    .and_then(|w| w.parse().ok())
                    .ok_or_else(|| bad(line))?;
                let room = match words.next() {
                    Some(w) => Some(w.parse().map_err(|_| bad(line))?),
                    None => None,
                };
                let (operation, size) = pending.take().ok_or_else(|| bad(line))?;
                run.regions.push(operation.clone());
                match operation.as_str() {
                    "calibrate-empty" => run.calibrate_empty = Some(raw),
                    "calibrate-nop100" => run.calibrate_nop100 = Some(raw),
                    "calibrate-loop" => run.calibrate_loop = Some(raw),
                    _ => run.ops.push(RawOp {
                        operation,
                        size,
                        raw,
                        stack,
                        room,
                        ran_into_data: false,
                    }),
                }
            }
            Some("O") => {
                let op = run.ops.last_mut().ok_or_else(|| bad(line))?;
                op.ran_into_data = true;
            }
            Some("E") => run.finished = true,
            Some("PANIC") => run.panicked = true,
            // simavr prints loader notes ("Loaded 1234 .text ...") on its own.
            _ => {}
        }
    }
    if run.panicked {
        return Err(McuError::Failed(
            "the firmware panicked on the device".into(),
        ));
    }
    if !run.finished {
        return Err(McuError::Failed(
            "the firmware stopped before the end of its run".into(),
        ));
    }
    Ok(run)
}

#[cfg(test)]
mod tests {
    use super::*;

    const STREAM: &str = "M calibrate-empty 0\nC 2 0\nM calibrate-nop100 0\nC 102 0\nA aes-128-ecb\n\
                          K aes-128-ecb pass\nM keysetup 0\nC 20373 254\nM encrypt 16\nC 16214 144 9000\nE\n";

    #[test]
    fn parses_a_run() {
        let run = parse(STREAM).unwrap();
        assert_eq!(
            (run.calibrate_empty, run.calibrate_nop100),
            (Some(2), Some(102))
        );
        assert_eq!(
            run.regions,
            ["calibrate-empty", "calibrate-nop100", "keysetup", "encrypt"]
        );
        assert_eq!(
            run.kats,
            vec![Kat {
                algorithm: "aes-128-ecb".into(),
                passed: true,
                why: None
            }]
        );
        assert_eq!(
            run.ops[1],
            RawOp {
                operation: "encrypt".into(),
                size: 16,
                raw: 16214,
                stack: 144,
                room: Some(9000),
                ran_into_data: false,
            }
        );
    }

    #[test]
    fn failures_are_loud() {
        let failed = parse("A x\nK x FAIL tag\nE\n").unwrap();
        assert_eq!(failed.kats[0].why.as_deref(), Some("tag"));
        assert!(parse("A x\nPANIC\n").is_err());
        assert!(
            parse("M encrypt 16\n").is_err(),
            "a run that never ends is an error"
        );
        assert!(parse("M encrypt 16\nM decrypt 16\nC 1 1\nE\n").is_err());
        assert!(parse("M encrypt 16\nC 1 1 lots\nE\n").is_err());
    }
}
