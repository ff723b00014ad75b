//! The cycle model held to published board measurements (`data/validation/`):
//! each figure beside the model's price of the same code's instruction mix
//! (kept in the shipped device cost table) on that figure's part, and the
//! error per core. `mcu --compare data/validation` prints it;
//! docs/cycle-accuracy.md is its output.

use serde::Serialize;

use super::estimate::{Estimate, price};
use super::timing::{self, Board};
use crate::Target;
use crate::cost_table::{CostTable, shipped};

/// The validation files, compiled in, in name order as `mcu --compare`
/// reads the folder (`context-not-our-code.toml` holds no figure of our
/// code and is not read).
pub const FILES: [(&str, &str); 5] = [
    (
        "mbedtls.toml",
        include_str!("../../../../data/validation/mbedtls.toml"),
    ),
    (
        "monocypher.toml",
        include_str!("../../../../data/validation/monocypher.toml"),
    ),
    (
        "p256-cortex-m4.toml",
        include_str!("../../../../data/validation/p256-cortex-m4.toml"),
    ),
    (
        "rustcrypto-p256.toml",
        include_str!("../../../../data/validation/rustcrypto-p256.toml"),
    ),
    (
        "salty.toml",
        include_str!("../../../../data/validation/salty.toml"),
    ),
];

/// What a board published: a count, a count per byte, or a range (a
/// source whose resolution gives only bounds).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Published {
    Cycles(f64),
    PerByte(f64),
    Range(f64, f64),
}

impl Published {
    /// The figure an estimate is held to: itself, or for a range the end
    /// nearest the estimate (the estimate itself when inside: a range says
    /// only that the board took somewhere between its ends).
    pub fn nearest(self, estimate: f64) -> f64 {
        match self {
            Published::Cycles(c) | Published::PerByte(c) => c,
            Published::Range(lo, hi) => estimate.clamp(lo, hi),
        }
    }

    fn bounds(self) -> (f64, f64) {
        match self {
            Published::Range(lo, hi) => (lo, hi),
            Published::Cycles(c) | Published::PerByte(c) => (c, c),
        }
    }
}

/// One published figure beside the model.
#[derive(Debug, Clone, Serialize)]
pub struct Check {
    pub file: String,
    pub id: String,
    /// The core the figure was measured on, and the table whose mix is priced.
    pub core: String,
    pub table: Target,
    pub board: String,
    /// The part whose memory priced the mix (`parts.toml`), or the table's board.
    pub priced_on: String,
    pub published: Published,
    /// The model's price, per byte where the figure is.
    pub low: f64,
    pub estimate: f64,
    pub high: f64,
    /// estimate ÷ published (a range's nearest end; 1 inside the range).
    pub ratio: f64,
    /// The published figure lies in low..high (a range overlaps it).
    pub inside_band: bool,
    pub code_match: String,
    /// Why the figure does not test the model (other code), if it does not.
    pub not_counted_because: Option<String>,
    pub source: String,
    /// The mix priced (a composite's summed) and the cycles the published
    /// figure stands for on it (a per-byte figure times the length), less
    /// what the part's memory adds in the estimate: what the core's own
    /// cycles per class must explain (`mcu --compare`'s fit).
    #[serde(skip)]
    pub core_fit: (super::Mix, f64),
}

impl Check {
    /// |ratio − 1|.
    pub fn error(&self) -> f64 {
        (self.ratio - 1.0).abs()
    }

    pub fn counted(&self) -> bool {
        self.not_counted_because.is_none()
    }
}

/// The model's validated error on one core: over the published board
/// figures of code the firmware runs, built comparably.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CoreError {
    pub target: Target,
    /// How many published figures the error is over.
    pub figures: usize,
    /// Median |estimate ÷ published − 1|, a fraction (0.06 is 6 %).
    pub median: f64,
    /// The largest |estimate ÷ published − 1|.
    pub max: f64,
}

impl CoreError {
    /// "median error 6 % against 15 published board figures on the Cortex-M4".
    pub fn describe(&self) -> String {
        format!(
            "median error {:.0} % against {} published board figures on the {}",
            self.median * 100.0,
            self.figures,
            timing::for_target(self.target).map_or(self.target.name(), |c| c.core.as_str())
        )
    }
}

fn text<'a>(v: &'a toml::Value, key: &str) -> Option<&'a str> {
    v.get(key)?.as_str()
}

fn number(v: &toml::Value, key: &str) -> Option<f64> {
    let x = v.get(key)?;
    x.as_float().or_else(|| x.as_integer().map(|i| i as f64))
}

fn published(f: &toml::Value) -> Option<Published> {
    if let Some(c) = number(f, "published_cycles") {
        return Some(Published::Cycles(c));
    }
    if let Some(c) = number(f, "published_cycles_per_byte") {
        return Some(Published::PerByte(c));
    }
    let r = f.get("published_cycles_range")?.as_array()?;
    let end = |i: usize| {
        r.get(i)
            .and_then(|x| x.as_integer().map(|i| i as f64).or(x.as_float()))
    };
    Some(Published::Range(end(0)?, end(1)?))
}

/// "repository file lines" or the text the source gives.
fn source(f: &toml::Value) -> String {
    match f.get("source") {
        Some(toml::Value::String(s)) => s.clone(),
        Some(t) => ["repository", "file", "lines", "thread", "url"]
            .iter()
            .filter_map(|k| text(t, k))
            .collect::<Vec<_>>()
            .join(", "),
        None => String::new(),
    }
}

/// What a figure's `ours` names: algorithm, implementation, and each
/// operation with its message length.
struct Ours {
    algorithm: String,
    implementation: String,
    operations: Vec<(String, usize)>,
}

/// The ops an `ours.entry` names (`a / impl / op` or `a / impl / op1 + op2`)
/// with their lengths.
fn operations(ours: &toml::Value) -> Result<Ours, String> {
    let entry = text(ours, "entry").ok_or("no ours.entry")?;
    let parts: Vec<&str> = entry.split(" / ").collect();
    let [algorithm, implementation, ops] = parts[..] else {
        return Err(format!(
            "ours.entry `{entry}` is not `algorithm / implementation / operation`"
        ));
    };
    let ops: Vec<&str> = ops.split(" + ").map(str::trim).collect();
    let lengths: Vec<usize> = match ours.get("lengths").and_then(|l| l.as_array()) {
        Some(l) => l
            .iter()
            .filter_map(|x| x.as_integer())
            .map(|x| x as usize)
            .collect(),
        None => vec![number(ours, "length").ok_or("no ours.length")? as usize; ops.len()],
    };
    if lengths.len() != ops.len() {
        return Err(format!(
            "ours.entry `{entry}`: {} operations, {} lengths",
            ops.len(),
            lengths.len()
        ));
    }
    Ok(Ours {
        algorithm: algorithm.to_string(),
        implementation: implementation.to_string(),
        operations: ops.into_iter().map(str::to_string).zip(lengths).collect(),
    })
}

/// The table's mix of `op` at `length`, and its price on `board`.
fn priced(
    table: &CostTable,
    alg: &str,
    imp: &str,
    op: &str,
    length: usize,
    board: &Board,
) -> Result<(Estimate, super::Mix), String> {
    let core = timing::for_target(table.target).ok_or("no timing table")?;
    let entry = table
        .entries
        .iter()
        .find(|e| e.algorithm == alg && e.implementation == imp && e.operation == op)
        .ok_or_else(|| format!("{} has no entry {alg} / {imp} / {op}", table.target))?;
    let (_, mix) = entry
        .mixes
        .iter()
        .find(|(l, _)| *l == length)
        .ok_or_else(|| {
            format!(
                "{alg} / {imp} / {op}: no instruction mix at {length} bytes in the {} table",
                table.target
            )
        })?;
    Ok((price(mix, core, board), mix.clone()))
}

fn check(
    file: &str,
    f: &toml::Value,
    tables: &mut dyn FnMut(Target) -> Option<CostTable>,
) -> Result<Check, String> {
    let id = text(f, "id").ok_or("a figure without id")?.to_string();
    let why = |e: String| format!("{file} {id}: {e}");
    let core = text(f, "core")
        .ok_or_else(|| why("no core".into()))?
        .to_string();
    let ours = f.get("ours").ok_or_else(|| why("no ours".into()))?;
    let table_name = text(ours, "table").unwrap_or(&core);
    let target: Target = table_name
        .parse()
        .map_err(|_| why(format!("no table for core {table_name}")))?;
    let table = tables(target).ok_or_else(|| why(format!("no shipped {target} table")))?;
    let core_timing =
        timing::for_target(target).ok_or_else(|| why(format!("{target} has no cycle model")))?;
    let (board, priced_on) = match text(f, "part") {
        Some(name) => {
            let (b, _) = timing::part(name)
                .ok_or_else(|| why(format!("part {name} is not in parts.toml")))?;
            (b, name.to_string())
        }
        None => {
            let board = &core_timing.board;
            let name = board.name.clone().unwrap_or_else(|| board.part.clone());
            (board, format!("{name}, the table's board"))
        }
    };
    let published = published(f).ok_or_else(|| why("no published cycles".into()))?;
    let ours = operations(ours).map_err(why)?;
    let (mut low, mut estimate, mut high) = (0.0, 0.0, 0.0);
    let (mut mix, mut scale) = (super::Mix::default(), 1.0);
    for (op, length) in &ours.operations {
        let (e, m) = priced(
            &table,
            &ours.algorithm,
            &ours.implementation,
            op,
            *length,
            board,
        )
        .map_err(why)?;
        let per = match published {
            Published::PerByte(_) => *length as f64,
            _ => 1.0,
        };
        low += e.low as f64 / per;
        estimate += e.estimate as f64 / per;
        high += e.high as f64 / per;
        mix = mix.plus(&m);
        scale = per;
    }
    let (lo, hi) = published.bounds();
    let not_counted_because = match f.get("counts").and_then(|c| c.as_bool()) {
        Some(false) => Some(
            text(f, "not_counted_because")
                .ok_or_else(|| why("counts = false needs not_counted_because".into()))?
                .to_string(),
        ),
        _ => None,
    };
    Ok(Check {
        file: file.to_string(),
        id,
        core,
        table: target,
        board: text(f, "board").unwrap_or_default().to_string(),
        priced_on,
        published,
        low,
        estimate,
        high,
        ratio: estimate / published.nearest(estimate),
        inside_band: low <= hi && lo <= high,
        code_match: text(f, "code_match").unwrap_or_default().to_string(),
        not_counted_because,
        source: source(f),
        core_fit: (
            mix,
            (published.nearest(estimate) - (estimate - low)) * scale,
        ),
    })
}

/// Every `[[figure]]` of `files`, priced from `tables`.
pub fn checks_with(
    files: &[(&str, &str)],
    tables: &mut dyn FnMut(Target) -> Option<CostTable>,
) -> Result<Vec<Check>, String> {
    let mut out = Vec::new();
    for (name, text) in files {
        let doc: toml::Value =
            toml::from_str(text).map_err(|e| format!("data/validation/{name}: {e}"))?;
        for f in doc
            .get("figure")
            .and_then(|f| f.as_array())
            .into_iter()
            .flatten()
        {
            out.push(check(name, f, tables)?);
        }
    }
    Ok(out)
}

/// Every figure of the shipped validation set against the shipped tables.
pub fn checks() -> Result<Vec<Check>, String> {
    let mut cache: Vec<(Target, Option<CostTable>)> = Vec::new();
    let mut tables = |t: Target| {
        if let Some((_, table)) = cache.iter().find(|(c, _)| *c == t) {
            return table.clone();
        }
        let table = shipped(t).ok().flatten();
        cache.push((t, table.clone()));
        table
    };
    checks_with(&FILES, &mut tables)
}

/// The median and largest error of the counted figures measured on `target`'s core.
pub fn summarize(checks: &[Check], target: Target) -> Option<CoreError> {
    let mut errors: Vec<f64> = checks
        .iter()
        .filter(|c| c.counted() && c.core == target.name())
        .map(Check::error)
        .collect();
    if errors.is_empty() {
        return None;
    }
    errors.sort_by(f64::total_cmp);
    let n = errors.len();
    let median = if n % 2 == 1 {
        errors[n / 2]
    } else {
        (errors[n / 2 - 1] + errors[n / 2]) / 2.0
    };
    Some(CoreError {
        target,
        figures: n,
        median,
        max: errors[n - 1],
    })
}

/// The validated error of the model on `target`'s core; None where no
/// published figure checks it (then the estimate is unvalidated).
pub fn core_error(target: Target) -> Option<CoreError> {
    static ERRORS: std::sync::OnceLock<Vec<CoreError>> = std::sync::OnceLock::new();
    ERRORS
        .get_or_init(|| {
            let checks = checks().unwrap_or_default();
            Target::ALL
                .iter()
                .filter_map(|t| summarize(&checks, *t))
                .collect()
        })
        .iter()
        .find(|e| e.target == target)
        .cloned()
}

/// Figures at most six significant digits, grouped: 1,680,000 or 52.93.
fn shown(x: f64) -> String {
    if x >= 10_000.0 {
        let s = format!("{:.0}", x);
        let mut out = String::new();
        for (i, c) in s.chars().enumerate() {
            if i > 0 && (s.len() - i) % 3 == 0 {
                out.push(',');
            }
            out.push(c);
        }
        out
    } else {
        format!("{x:.2}")
    }
}

fn published_text(p: Published) -> String {
    match p {
        Published::Cycles(c) => shown(c),
        Published::PerByte(c) => format!("{} c/B", shown(c)),
        Published::Range(lo, hi) => format!("{}–{}", shown(lo), shown(hi)),
    }
}

/// The validation table of docs/cycle-accuracy.md (between its markers),
/// and the error per core below it.
pub fn markdown(checks: &[Check]) -> String {
    let mut out = String::from(
        "| core | figure | board (priced as) | published | low | estimate | high | ratio | in band | counted |\n\
         |---|---|---|---|---|---|---|---|---|---|\n",
    );
    for c in checks {
        out.push_str(&format!(
            "| {} | `{}` | {} ({}) | {} | {} | {} | {} | {:.3} | {} | {} |\n",
            c.core,
            c.id,
            c.board,
            c.priced_on,
            published_text(c.published),
            shown(c.low),
            shown(c.estimate),
            shown(c.high),
            c.ratio,
            if c.inside_band { "yes" } else { "**no**" },
            c.not_counted_because.as_deref().unwrap_or("yes"),
        ));
    }
    out.push('\n');
    for t in Target::ALL {
        if let Some(e) = summarize(checks, t) {
            out.push_str(&format!(
                "- {}: median error {:.1} %, largest {:.1} % ({} figures).\n",
                timing::for_target(t).map_or(t.name(), |c| c.core.as_str()),
                e.median * 100.0,
                e.max * 100.0,
                e.figures
            ));
        }
    }
    out
}

/// The figures of a validation file, or of every `.toml` in a folder of
/// them (`data/validation`), against the shipped tables: what
/// `mcu --compare PATH` prints.
#[cfg(feature = "files")]
pub fn checks_at(path: &std::path::Path) -> Result<Vec<Check>, String> {
    let read = |p: &std::path::Path| {
        std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))
    };
    let mut files: Vec<(String, String)> = Vec::new();
    if path.is_dir() {
        let mut names: Vec<std::path::PathBuf> = std::fs::read_dir(path)
            .map_err(|e| format!("{}: {e}", path.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "toml"))
            .collect();
        names.sort();
        for p in names {
            files.push((
                p.file_name().unwrap_or_default().to_string_lossy().into(),
                read(&p)?,
            ));
        }
    } else {
        let name = path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into();
        files.push((name, read(path)?));
    }
    let borrowed: Vec<(&str, &str)> = files
        .iter()
        .map(|(n, t)| (n.as_str(), t.as_str()))
        .collect();
    let mut tables = |t: Target| shipped(t).ok().flatten();
    let checks = checks_with(&borrowed, &mut tables)?;
    if checks.is_empty() {
        return Err(format!("{}: no [[figure]] to compare", path.display()));
    }
    Ok(checks)
}
