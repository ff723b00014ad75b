//! Study 004 at device level: code size (Fig. 2), time and throughput for a
//! 100-byte message (Fig. 3), time by data size with the RAM each algorithm
//! needs (Fig. 4), and encryption time beside LoRa time on air per spreading
//! factor, from the shipped device cost table of one simulated target at its
//! board's clock and memory sizes (data/studies/004_lora.json, `device`).

use cost::Error;
use device_facts::Target;
use device_facts::cost_table::{CostTable, Entry, interpolate};
use serde::{Deserialize, Serialize};

use crate::finding::Finding;
use crate::lora::{self, Candidate, Variant};
use crate::{StudyReport, paper};

/// A board a target stands for, with its sources.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Board {
    pub target: String,
    pub name: String,
    pub clock_hz: u64,
    pub ram_bytes: u64,
    pub flash_bytes: u64,
    pub source: String,
}

/// The device part of the study's data file.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Setup {
    pub source: String,
    /// The target that stands for the study's MKR1300.
    pub study_target: String,
    /// Fig. 4's data sizes; the last is the paper's 500 bytes.
    pub sizes: Vec<u32>,
    pub spreading_factors: Vec<u8>,
    /// "More or less equal": within this factor either way.
    pub equal_within_factor: f64,
    pub equal_within_factor_source: String,
    /// The operation timed, in preference order (encrypt, hash).
    pub operations: Vec<String>,
    pub boards: Vec<Board>,
}

#[derive(Deserialize)]
struct File {
    device: Setup,
}

pub fn setup() -> Result<Setup, Error> {
    Ok(paper::parse::<File>(paper::LORA, "004")?.device)
}

/// The target standing for the study's board (the MKR1300).
pub fn study_target() -> Result<Target, Error> {
    Ok(setup()?.study_target.parse()?)
}

/// Time for one message size at the board's clock.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Timing {
    pub bytes: u32,
    pub cycles: f64,
    pub us: f64,
    /// Decimal kB per second, as the paper's "500 kB/s".
    pub kb_per_s: f64,
    /// Peak stack + the message and output buffers ([`ram_need`]).
    pub ram_bytes: u64,
    pub fits_ram: bool,
}

/// One SF's time on air for the message under this algorithm, and the ratio.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Airtime {
    pub sf: u8,
    pub toa_ms: Option<f64>,
    /// Encryption time / time on air.
    pub ratio: Option<f64>,
    pub error: Option<String>,
}

/// One of the study's algorithms on the target: numbers, or why there are none.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Row {
    /// The paper's name.
    pub name: String,
    pub label: String,
    /// The device table's algorithm id used, and the operation timed.
    pub device_id: Option<String>,
    pub operation: Option<String>,
    /// The catalogue id whose on-air size the message takes.
    pub variant: String,
    pub per_block: bool,
    pub code_size_bytes: Option<i64>,
    pub fits_flash: Option<bool>,
    /// Peak over every measured operation of the build.
    pub stack_bytes: Option<u32>,
    /// Once per key, not per message.
    pub keysetup_us: Option<f64>,
    /// At the report's message size.
    pub message: Option<Timing>,
    /// At each of Fig. 4's sizes.
    pub sizes: Vec<Timing>,
    /// Bytes on air for the message as sent under `variant`.
    pub on_air_bytes: Option<u32>,
    pub airtime: Vec<Airtime>,
    /// Why the row has no numbers.
    pub reason: Option<String>,
    /// Candidates passed over, with why (a build that does not fit).
    pub notes: Vec<String>,
}

/// Per spreading factor: how many algorithms encrypt in about their time on air.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SfVerdict {
    pub sf: u8,
    pub within: usize,
    pub of: usize,
    pub min_ratio: Option<f64>,
    pub max_ratio: Option<f64>,
    /// "equal" when most are within the factor, else which side they fall on.
    pub verdict: String,
    /// The algorithms within the factor.
    pub equal: Vec<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Report {
    pub ran_on: String,
    pub target: Target,
    pub board: Board,
    /// The shipped table's firmware revision and counter; none when no table ships.
    pub table: Option<String>,
    pub message_bytes: u32,
    pub setup: Setup,
    /// How the RAM need is computed.
    pub ram_rule: String,
    pub rows: Vec<Row>,
    pub sf_verdicts: Vec<SfVerdict>,
    /// Time on air by size and per algorithm (Fig. 6).
    pub airtime: lora::Report,
    pub findings: Vec<Finding>,
}

/// `reproduce lora`: time on air only, or with `target` the device-level study.
pub fn reproduce(quick: bool, bytes: u32, target: Option<&str>) -> Result<StudyReport, Error> {
    let opts = lora::Options { quick, bytes };
    Ok(match target {
        None => StudyReport::Lora(lora::run(&opts)?),
        Some(t) => StudyReport::LoraDevice(Box::new(run(t.parse()?, &opts)?)),
    })
}

/// The study on `target` from the table shipped in this build.
pub fn run(target: Target, opts: &lora::Options) -> Result<Report, Error> {
    let table = device_facts::cost_table::shipped(target)?;
    build(target, table.as_ref(), opts)
}

pub const RAM_RULE: &str = "RAM need = the build's peak stack (the most any measured operation used, key setup included) + the message buffer + the output buffer (ciphertext with IV, digest, or RSA blocks); static data, the Arduino core and the radio stack are not counted, so a build that does not fit here fails on the board too";

/// The study from `table` (none: no table ships for the target).
pub fn build(
    target: Target,
    table: Option<&CostTable>,
    opts: &lora::Options,
) -> Result<Report, Error> {
    let n = opts.bytes;
    if n == 0 {
        return Err(Error::invalid(
            "--bytes must be at least 1 with --target: time per byte needs a message",
        ));
    }
    let setup = setup()?;
    let board = setup
        .boards
        .iter()
        .find(|b| b.target == target.name())
        .cloned()
        .ok_or_else(|| {
            Error::failed(format!(
                "data/studies/004_lora.json names no board for {target}"
            ))
        })?;
    let airtime = lora::run(opts)?;
    let ctx = Context {
        target,
        table,
        board: &board,
        setup: &setup,
    };
    let rows: Vec<Row> = lora::variants()?.iter().map(|v| ctx.row(v, n)).collect();
    let sf_verdicts = setup
        .spreading_factors
        .iter()
        .map(|&sf| sf_verdict(sf, &rows, setup.equal_within_factor))
        .collect();
    let table_text = table.map(|t| {
        let cycles = if t.entries.iter().any(|e| !e.cycle_estimates.is_empty()) {
            "cycles estimated from QEMU's exact instruction mix"
        } else if t.counter == "cycles" {
            "exact cycles from simavr"
        } else {
            "instruction counts (no cycle estimate in this table)"
        };
        format!(
            "data/device-costs/{target}.json, firmware {}, {cycles}",
            t.firmware_revision
        )
    });
    let mut report = Report {
        ran_on: format!(
            "the {} at {} MHz ({target}: {}), and the LoRa time-on-air formula",
            board.name,
            board.clock_hz as f64 / 1e6,
            table_text
                .as_deref()
                .unwrap_or("no device cost table ships for it")
        ),
        target,
        board,
        table: table_text,
        message_bytes: n,
        ram_rule: RAM_RULE.into(),
        rows,
        sf_verdicts,
        findings: Vec::new(),
        airtime,
        setup,
    };
    report.findings = crate::lora_device_claims::check(&report)?;
    Ok(report)
}

struct Context<'a> {
    target: Target,
    table: Option<&'a CostTable>,
    board: &'a Board,
    setup: &'a Setup,
}

impl Context<'_> {
    fn regenerate(&self) -> String {
        format!(
            "regenerate with scripts/device-costs {}",
            self.target.name()
        )
    }

    /// The first candidate with numbers; passed-over candidates become notes.
    fn row(&self, v: &Variant, n: u32) -> Row {
        let mut notes = Vec::new();
        let Some(table) = self.table else {
            let reason = format!(
                "no device table ships for {} ({})",
                self.target,
                self.regenerate()
            );
            return empty_row(v, &v.candidates[0], reason, notes);
        };
        for c in &v.candidates {
            if let Some(why) = table.failure(&c.device) {
                notes.push(format!("{}: {why}", c.device));
                continue;
            }
            if let Some(row) = self.measured(table, v, c, n, &notes) {
                return row;
            }
            notes.push(format!(
                "{}: not in the device table for {}",
                c.device, self.target
            ));
        }
        let first = &v.candidates[0];
        let reason = if notes.iter().all(|s| s.contains("not in the device table")) {
            // The reason says it all; a note per candidate would repeat it.
            notes.clear();
            format!(
                "not in the device table for {} ({})",
                self.target,
                self.regenerate()
            )
        } else {
            format!("no build runs on {}: {}", self.target, notes.join("; "))
        };
        empty_row(v, first, reason, notes)
    }

    /// The timed operation of `c.device`, or none when the table lacks it.
    fn operation<'t>(&self, table: &'t CostTable, c: &Candidate) -> Option<&'t Entry> {
        let ops: Vec<&Entry> = table
            .entries
            .iter()
            .filter(|e| e.algorithm == c.device && e.error.is_none() && !e.points.is_empty())
            .collect();
        self.setup
            .operations
            .iter()
            .find_map(|op| ops.iter().copied().find(|e| &e.operation == op))
            .or_else(|| ops.into_iter().find(|e| e.operation != "keysetup"))
    }

    fn measured(
        &self,
        table: &CostTable,
        v: &Variant,
        c: &Candidate,
        n: u32,
        notes: &[String],
    ) -> Option<Row> {
        let entry = self.operation(table, c)?;
        let all: Vec<&Entry> = table
            .entries
            .iter()
            .filter(|e| e.algorithm == c.device && e.error.is_none())
            .collect();
        let stack = all.iter().filter_map(|e| e.stack_bytes).max();
        let code = all.iter().find_map(|e| e.code_size_bytes);
        let clock = self.board.clock_hz as f64;
        let keysetup = all
            .iter()
            .find(|e| e.operation == "keysetup")
            .and_then(|e| interpolate(&e.cycle_points(), 0))
            .map(|cy| cy / clock * 1e6);
        let timing = |bytes: u32| -> Option<Timing> {
            let cycles = cycles_at(entry, c.per_block, &c.variant, bytes as usize)?;
            let us = cycles / clock * 1e6;
            let ram = ram_need(stack.unwrap_or(0), &c.variant, bytes)?;
            Some(Timing {
                bytes,
                cycles,
                us,
                kb_per_s: if us > 0.0 {
                    bytes as f64 / us * 1e3
                } else {
                    0.0
                },
                ram_bytes: ram,
                fits_ram: ram <= self.board.ram_bytes,
            })
        };
        let message = timing(n)?;
        let on_air = lora::expansion(&c.variant, n as usize).map(|(b, _)| b);
        let airtime = self
            .setup
            .spreading_factors
            .iter()
            .map(|&sf| airtime(sf, on_air, message.us))
            .collect();
        Some(Row {
            name: v.name.clone(),
            label: v.label.clone(),
            device_id: Some(c.device.clone()),
            operation: Some(entry.operation.clone()),
            variant: c.variant.clone(),
            per_block: c.per_block,
            fits_flash: code.map(|b| b >= 0 && b as u64 <= self.board.flash_bytes),
            code_size_bytes: code,
            stack_bytes: stack,
            keysetup_us: keysetup,
            sizes: self.setup.sizes.iter().filter_map(|&b| timing(b)).collect(),
            message: Some(message),
            on_air_bytes: on_air,
            airtime,
            reason: None,
            notes: {
                let mut out = notes.to_vec();
                if !notes.is_empty() {
                    out.push(format!("{} used instead", c.device));
                }
                if c.per_block {
                    out.extend(private_key_note(&all, clock));
                }
                out
            },
        })
    }
}

/// A public-key build's private-key operation ("decrypt"): the paper names
/// RSA without saying which operation it timed, so both are shown.
fn private_key_note(all: &[&Entry], clock: f64) -> Option<String> {
    let private = all.iter().find(|e| e.operation == "decrypt")?;
    let &(block, cycles) = private.cycle_points().iter().find(|p| p.0 > 0)?;
    Some(format!(
        "decrypt (private key): {:.1} us per {block}-byte block",
        cycles as f64 / clock * 1e6
    ))
}

fn empty_row(v: &Variant, c: &Candidate, reason: String, notes: Vec<String>) -> Row {
    Row {
        name: v.name.clone(),
        label: v.label.clone(),
        device_id: None,
        operation: None,
        variant: c.variant.clone(),
        per_block: c.per_block,
        code_size_bytes: None,
        fits_flash: None,
        stack_bytes: None,
        keysetup_us: None,
        message: None,
        sizes: Vec::new(),
        on_air_bytes: None,
        airtime: Vec::new(),
        reason: Some(reason),
        notes,
    }
}

/// Cycles for `bytes`: the table's count interpolated between measured sizes
/// (cycle estimates on Cortex-M), or per block (RSA): one operation, costed
/// at its measured (modulus) size, per block `variant` sends for the message.
pub fn cycles_at(entry: &Entry, per_block: bool, variant: &str, bytes: usize) -> Option<f64> {
    let points = entry.cycle_points();
    if per_block {
        let &(block, count) = points.iter().find(|p| p.0 > 0)?;
        let sent = lora::expansion(variant, bytes).map_or(bytes, |(b, _)| b as usize);
        return Some(sent.div_ceil(block).max(1) as f64 * count as f64);
    }
    interpolate(&points, bytes)
}

/// [`RAM_RULE`]: peak stack + message + output buffer, where the output is
/// what the variant produces from the message (a hash: its digest).
pub fn ram_need(stack: u32, variant: &str, bytes: u32) -> Option<u64> {
    let entry = catalogue::catalogue().get(variant)?;
    let output = match entry.kind {
        catalogue::Kind::Hash => entry.output_size.unwrap_or(0) as u64,
        _ => u64::from(lora::expansion(variant, bytes as usize)?.0),
    };
    Some(u64::from(stack) + u64::from(bytes) + output)
}

fn airtime(sf: u8, on_air: Option<u32>, us: f64) -> Airtime {
    let Some(bytes) = on_air else {
        return Airtime {
            sf,
            toa_ms: None,
            ratio: None,
            error: Some("the catalogue lacks the variant: no on-air size".into()),
        };
    };
    match lora::airtime_ms(sf, bytes) {
        Ok((_, ms)) => Airtime {
            sf,
            toa_ms: Some(ms),
            ratio: Some(us / 1e3 / ms),
            error: None,
        },
        Err(e) => Airtime {
            sf,
            toa_ms: None,
            ratio: None,
            error: Some(e),
        },
    }
}

fn sf_verdict(sf: u8, rows: &[Row], factor: f64) -> SfVerdict {
    let labelled: Vec<(&str, f64)> = rows
        .iter()
        .flat_map(|r| r.airtime.iter().map(move |a| (r.label.as_str(), a)))
        .filter(|(_, a)| a.sf == sf)
        .filter_map(|(label, a)| Some((label, a.ratio?)))
        .collect();
    let ratios: Vec<f64> = labelled.iter().map(|x| x.1).collect();
    let equal: Vec<String> = labelled
        .iter()
        .filter(|x| x.1 >= 1.0 / factor && x.1 <= factor)
        .map(|x| x.0.to_string())
        .collect();
    let within = equal.len();
    let below = ratios.iter().filter(|&&r| r < 1.0 / factor).count();
    let of = ratios.len();
    let verdict = if of == 0 {
        "no algorithm has numbers".to_string()
    } else if within * 2 > of {
        format!("equal: most within a factor of {factor}")
    } else if below * 2 > of {
        "encryption much shorter than time on air".to_string()
    } else if (of - within - below) * 2 > of {
        "encryption much longer than time on air".to_string()
    } else {
        "mixed".to_string()
    };
    SfVerdict {
        sf,
        within,
        of,
        min_ratio: ratios.iter().copied().reduce(f64::min),
        max_ratio: ratios.iter().copied().reduce(f64::max),
        verdict,
        equal,
    }
}

/// Three significant figures however small (0.0123, 2.45, 1234): ratios and
/// throughputs span many decades, and a small one must not print as zero.
pub fn three_figures(r: f64) -> String {
    if !(r > 0.0 && r.is_finite()) {
        format!("{r}")
    } else if r >= 100.0 {
        format!("{r:.0}")
    } else if r >= 10.0 {
        format!("{r:.1}")
    } else {
        // Two digits after the leading one: 2.45, 0.0123, 0.0000208.
        let digits = 2 - r.log10().floor() as i32;
        format!("{r:.*}", digits.clamp(2, 9) as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::three_figures;

    #[test]
    fn small_figures_keep_three_digits_and_never_print_as_zero() {
        assert_eq!(three_figures(1044.3), "1044");
        assert_eq!(three_figures(21.14), "21.1");
        assert_eq!(three_figures(2.456), "2.46");
        assert_eq!(three_figures(0.399), "0.399");
        assert_eq!(three_figures(0.00980), "0.00980");
        assert_eq!(three_figures(0.0000208), "0.0000208");
        assert_eq!(three_figures(0.0), "0");
    }
}
