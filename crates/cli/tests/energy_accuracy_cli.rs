//! The energy model held to published measurements (docs/energy-accuracy.md): every
//! figure in data/energy-accuracy/figures/ is costed again by `energy`, run as a user
//! runs it with `--data-dir data/energy-accuracy`, and its error compared with the one
//! the figure's file and the doc's table record. A model change that moves an error
//! fails here until both are brought up to date.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use link::figure::Figure;
use serde::Deserialize;
use serde_json::Value;

mod support;
use support::run::{cm, json_ok};

/// Every link family the doc must cover with at least one published figure.
const FAMILIES: [&str; 6] = [
    "LoRaWAN",
    "Sigfox",
    "BLE",
    "IEEE 802.15.4 / Thread",
    "NB-IoT / LTE-M",
    "Serial packet radio",
];

/// How far a recomputed model value may move from the recorded one (relative), and the
/// error from the recorded error (percentage points), before the doc is stale.
const MODEL_TOLERANCE: f64 = 0.005;
const ERROR_TOLERANCE_PP: f64 = 0.5;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FigureFile {
    figure: Vec<Published>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)] // title, kind, conditions, leaves_out: for the reader of the file
struct Published {
    id: String,
    family: String,
    title: String,
    quantity: String,
    value: Figure<f64>,
    kind: String,
    conditions: String,
    leaves_out: String,
    run: Run,
    expected: Expected,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Run {
    device: String,
    link: String,
    bytes: u32,
    interval: String,
    #[serde(default)]
    battery: Option<String>,
    /// Further `energy` flags (a protocol's settings), as typed.
    #[serde(default)]
    args: Vec<String>,
    /// For `activity_charge_uc`: the start of the protocol activity's name in the
    /// JSON's `link_protocol.activities` ("data polls").
    #[serde(default)]
    activity: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Expected {
    model: f64,
    error_percent: f64,
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn data_dir() -> PathBuf {
    root().join("data/energy-accuracy")
}

fn energy_json(args: &[String]) -> Value {
    let mut c = cm();
    c.arg("energy").arg("--data-dir").arg(data_dir());
    json_ok(c.args(args).args(["--format", "json"]))
}

fn figures() -> Vec<Published> {
    let mut paths: Vec<_> = std::fs::read_dir(data_dir().join("figures"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    paths.sort();
    paths
        .iter()
        .flat_map(|p| {
            let text = std::fs::read_to_string(p).unwrap();
            let file: FigureFile =
                link::figure::parse_toml(&p.display().to_string(), &text).unwrap();
            file.figure
        })
        .collect()
}

/// Supply voltage of each device and radio profile, by name.
fn voltages() -> BTreeMap<String, f64> {
    let list = energy_json(&["--list".into()]);
    ["devices", "radios"]
        .iter()
        .flat_map(|kind| list[*kind].as_array().unwrap().clone())
        .map(|p| {
            let name = p["name"].as_str().unwrap().to_string();
            (name, p["voltage_v"]["value"].as_f64().unwrap())
        })
        .collect()
}

/// The model's answer for one figure, in the figure's unit.
fn model_value(f: &Published, volts: &BTreeMap<String, f64>) -> f64 {
    let r = &f.run;
    let mut args: Vec<String> = [
        "--device",
        &r.device,
        "--link",
        &r.link,
        "--bytes",
        &r.bytes.to_string(),
        "--interval",
        &r.interval,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    if let Some(b) = &r.battery {
        args.extend(["--battery".into(), b.clone()]);
    }
    args.extend(r.args.iter().cloned());
    let v = energy_json(&args);
    let row = v["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["message"] == "plaintext")
        .unwrap_or_else(|| panic!("{}: no plaintext row", f.id));
    let num = |key: &str| {
        row[key]
            .as_f64()
            .unwrap_or_else(|| panic!("{}: no {key} in {row}", f.id))
    };
    let radio_v = volts[v["radio"].as_str().unwrap()];
    let device_v = volts[&r.device];
    let interval_s = v["interval_s"].as_f64().unwrap();
    // A mean current over the interval mixes the device's and the radio's draw: both
    // must be given at the same supply for energy to turn into charge.
    let one_supply = || {
        assert!(
            (radio_v - device_v).abs() < 1e-9,
            "{}: device {device_v} V and radio {radio_v} V differ",
            f.id
        );
        device_v
    };
    // A message with the protocol's work around it (a cellular connection and its
    // RRC inactivity time), without what the protocol spends between messages.
    let around_uj = || {
        let between = v["link_protocol"]["between_messages_uj"]
            .as_f64()
            .unwrap_or_else(|| panic!("{}: no link_protocol.between_messages_uj", f.id));
        num("message_uj") - between
    };
    let activity_uj = || {
        let name = r
            .activity
            .as_deref()
            .expect("activity_charge_uc names an activity");
        let activities = v["link_protocol"]["activities"].as_array().unwrap();
        let found = activities
            .iter()
            .find(|a| a["activity"].as_str().is_some_and(|t| t.starts_with(name)))
            .unwrap_or_else(|| panic!("{}: no activity '{name}' in {activities:?}", f.id));
        found["each_uj"].as_f64().unwrap()
    };
    match f.quantity.as_str() {
        "battery_life_years" => num("battery_days") / 365.25,
        "charge_per_message_uc" => num("message_uj") / radio_v,
        "charge_per_message_mc" => num("message_uj") / radio_v / 1000.0,
        "charge_around_message_mc" => around_uj() / radio_v / 1000.0,
        "energy_around_message_uwh" => around_uj() / 3600.0,
        "activity_charge_uc" => activity_uj() / radio_v,
        "average_current_ua" => num("interval_uj") / interval_s / one_supply(),
        "charge_per_minute_uc" => num("interval_uj") / interval_s * 60.0 / one_supply(),
        other => panic!("{}: unknown quantity {other}", f.id),
    }
}

/// The first number in a table cell ("+184.4 %", "2.844 years", "1,263 uC").
fn number(cell: &str) -> f64 {
    let t: String = cell
        .trim()
        .chars()
        .skip_while(|c| !(c.is_ascii_digit() || *c == '-' || *c == '+' || *c == '−'))
        .take_while(|c| c.is_ascii_digit() || matches!(c, '.' | ',' | '-' | '+' | '−'))
        .filter(|c| *c != ',' && *c != '+')
        .map(|c| if c == '−' { '-' } else { c })
        .collect();
    t.parse()
        .unwrap_or_else(|_| panic!("no number in table cell '{cell}'"))
}

/// The doc's table rows by figure id: | `id` | published | conditions | model | error | leaves out |
fn doc_rows() -> BTreeMap<String, Vec<String>> {
    let doc = std::fs::read_to_string(root().join("docs/energy-accuracy.md")).unwrap();
    doc.lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            let cells: Vec<String> = l.split('|').map(|c| c.trim().to_string()).collect();
            (cells[1].trim_matches('`').to_string(), cells)
        })
        .collect()
}

#[test]
fn every_published_figure_is_recomputed_and_its_error_is_the_docs() {
    let figures = figures();
    let volts = voltages();
    let rows = doc_rows();
    let mut failures = Vec::new();
    for f in &figures {
        assert!(
            f.value
                .source
                .as_deref()
                .is_some_and(|s| !s.trim().is_empty()),
            "{}: a published figure needs its source",
            f.id
        );
        let model = model_value(f, &volts);
        let error = (model / f.value.value - 1.0) * 100.0;
        if (model / f.expected.model - 1.0).abs() > MODEL_TOLERANCE
            || (error - f.expected.error_percent).abs() > ERROR_TOLERANCE_PP
        {
            failures.push(format!(
                "{}: the model now gives {model:.4} ({error:+.1} %); the figure's file records {} ({:+.1} %)",
                f.id, f.expected.model, f.expected.error_percent
            ));
        }
        let Some(cells) = rows.get(&f.id) else {
            failures.push(format!("{}: no row in docs/energy-accuracy.md", f.id));
            continue;
        };
        let (published, doc_model, doc_error) =
            (number(&cells[2]), number(&cells[4]), number(&cells[5]));
        if (published / f.value.value - 1.0).abs() > 1e-9
            || (doc_model / f.expected.model - 1.0).abs() > MODEL_TOLERANCE
            || (doc_error - f.expected.error_percent).abs() > ERROR_TOLERANCE_PP
        {
            failures.push(format!(
                "{}: the doc lists {published} / {doc_model} / {doc_error:+.1} %; the figure's file {} / {} / {:+.1} %",
                f.id, f.value.value, f.expected.model, f.expected.error_percent
            ));
        }
    }
    for id in rows.keys() {
        if !figures.iter().any(|f| &f.id == id) {
            failures.push(format!(
                "docs/energy-accuracy.md lists {id}, which no figure file holds"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_link_family_has_a_published_figure() {
    let figures = figures();
    for family in FAMILIES {
        assert!(
            figures.iter().any(|f| f.family == family),
            "no published figure for {family}"
        );
    }
    for f in &figures {
        assert!(
            FAMILIES.contains(&f.family.as_str()),
            "{}: family '{}' is not one of {FAMILIES:?}",
            f.id,
            f.family
        );
    }
}
