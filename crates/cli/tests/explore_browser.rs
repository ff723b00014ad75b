//! `ciphermeter explore -o page.html` in headless Chromium (issue 65): the page
//! written by the command, opened from disk, answers 50 seeded random
//! requests (devices with a simulated target, links, samples, serializations,
//! containers, intervals) in one load (`#batch=`: one browser launch instead
//! of 50), and each table row it draws equals `recommend --format json`'s for
//! the same request: scheme, container, implementation, sealed and on-air
//! bytes, frames, µJ at the two decimals recommend prints. One request by its
//! link (`#{…}`) is drawn and kept as a screenshot under target/tmp/explore/.
//! The page's size and its time to answer are printed, never asserted
//! (`data-ms`: the page's clock, which runs on Chromium's virtual time here).
//! The page opens in a frame of testkit's harness, which holds Chromium until
//! it has answered.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use assert_cmd::cargo::CommandCargoExt;
use serde_json::{Value, json};
use testkit::chromium;

/// The page has answered when its answer carries the time it took.
const ANSWERED: &str = "#ex-answer[data-ms]";
/// Real time a page may take to answer, on a loaded CI machine.
const LIMIT: Duration = Duration::from_secs(300);

/// The window the page is drawn in.
const SIZE: &str = "1200,2400";

/// The page's DOM once it has answered the request in its fragment
/// (testkit's harness holds Chromium until the page answers).
fn dump(page: &Path, profile: &Path, hash: &str) -> String {
    let answered = chromium::answered(page, hash, ANSWERED, SIZE, profile, None, LIMIT)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        !answered.log.contains("Uncaught"),
        "script error in the page:\n{}",
        answered.log
    );
    answered.dom
}

fn unescape(html: &str) -> String {
    html.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&nbsp;", "\u{a0}")
        .replace("&amp;", "&")
}

/// The page's answers (`#ex-answer`) and the time it took, ms.
fn answers(dom: &str) -> (Vec<Value>, f64) {
    let start = dom
        .find("<pre id=\"ex-answer\"")
        .expect("no #ex-answer in the page");
    let open = start + dom[start..].find('>').unwrap() + 1;
    let tag = &dom[start..open];
    let ms = tag
        .split("data-ms=\"")
        .nth(1)
        .and_then(|t| t.split('"').next())
        .and_then(|t| t.parse().ok())
        .expect("the page did not answer (no data-ms)");
    let close = open + dom[open..].find("</pre>").unwrap();
    (
        serde_json::from_str(&unescape(&dom[open..close])).unwrap(),
        ms,
    )
}

/// The cells of each row of the page's table `i`, as drawn.
fn table(dom: &str, i: usize) -> Vec<Vec<String>> {
    let start = dom
        .find(&format!("<table class=\"ranking\" data-i=\"{i}\">"))
        .unwrap_or_else(|| panic!("no table {i}"));
    let body = &dom[start..start + dom[start..].find("</table>").unwrap()];
    body.split("<tr class=\"row\">")
        .skip(1)
        .map(|row| {
            row.split("<td>")
                .skip(1)
                .map(|cell| unescape(&cell[..cell.find("</td>").unwrap()]))
                .collect()
        })
        .collect()
}

/// A seeded xorshift: the same 50 requests every run.
struct Draw(u64);

impl Draw {
    fn pick<'a, T>(&mut self, from: &'a [T]) -> &'a T {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        &from[(self.0 % from.len() as u64) as usize]
    }
}

fn requests(n: usize) -> Vec<Value> {
    let profiles = energy::Profiles::builtin().unwrap();
    let devices: Vec<String> = profiles
        .devices
        .iter()
        .filter(|d| d.simulated_target.is_some())
        .map(|d| d.name.clone())
        .collect();
    let links: Vec<String> = link::Catalogue::builtin()
        .unwrap()
        .links()
        .iter()
        .map(|l| l.name.clone())
        .collect();
    let samples = [
        "chain:1",
        "chain:3",
        "chain:10",
        "chain:25",
        "record:1.5",
        "random:8",
        "random:48",
    ];
    let serializations = ["", "", "cbor", "msgpack", "yaml-min", "json-pretty"];
    let containers = ["json", "binary", "cose", "oscore", "all"];
    let intervals = ["10m", "1h", "30s"];
    let mut draw = Draw(0x65_2026);
    (0..n)
        .map(|_| {
            let sample = *draw.pick(&samples);
            let mut r = json!({
                "device": draw.pick(&devices),
                "link": draw.pick(&links),
                "sample": sample,
                "container": draw.pick(&containers),
                "interval": draw.pick(&intervals),
            });
            let s = *draw.pick(&serializations);
            if !s.is_empty() && !sample.starts_with("random") {
                r["serialization"] = json!(s);
            }
            r
        })
        .collect()
}

/// `recommend --format json` for the page's request, or its exit code and message.
fn recommend(r: &Value, db: &Path) -> Result<Value, (i32, String)> {
    let mut cmd = Command::cargo_bin("ciphermeter").unwrap();
    cmd.env_remove("CIPHERMETER_DATA_DIR")
        .arg("recommend")
        .args(["--format", "json", "--db"])
        .arg(db);
    for (key, value) in r.as_object().unwrap() {
        cmd.arg(format!("--{key}")).arg(value.as_str().unwrap());
    }
    let out = cmd.output().unwrap();
    match out.status.code() {
        Some(0) => Ok(serde_json::from_slice(&out.stdout).unwrap()),
        code => Err((
            code.unwrap_or(-1),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )),
    }
}

fn dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("explore");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The page as `explore -o` writes it; each test its own file (they run at once).
fn write_page(dir: &Path, name: &str) -> PathBuf {
    let page = dir.join(format!("{name}.html"));
    let out = Command::cargo_bin("ciphermeter")
        .unwrap()
        .args(["explore", "-o"])
        .arg(&page)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "explore failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        !html.contains("src=\"http") && !html.contains("<link"),
        "the page fetches"
    );
    println!("page: {} bytes", html.len());
    page
}

#[test]
fn fifty_random_requests_in_chromium_equal_recommend() {
    let dir = dir();
    let page = write_page(&dir, "fifty");
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("results.sqlite");
    let asked = requests(50);
    let started = Instant::now();
    let dom = dump(
        &page,
        &tmp.path().join("profile"),
        &format!("batch={}", Value::from(asked.clone())),
    );
    let wall = started.elapsed();
    let (page_answers, ms) = answers(&dom);
    println!(
        "50 answers in one load: {ms:.0} ms in the page, {:.1} s with the browser's start",
        wall.as_secs_f64()
    );
    assert_eq!(page_answers.len(), asked.len());
    let mut ranked = 0;
    for (i, (r, ours)) in asked.iter().zip(&page_answers).enumerate() {
        let theirs = recommend(r, &db);
        let (theirs, ours) = match (theirs, ours.get("ranking")) {
            (Ok(t), Some(o)) => (t, o),
            (Err((2, why)), None) => {
                assert!(ours["error"].is_string(), "{r}: {ours}");
                println!("{i}: refused by both: {}", ours["error"]);
                let _ = why;
                continue;
            }
            (t, _) => panic!("{r}: recommend {t:?}, page {ours}"),
        };
        let drawn = table(&dom, i);
        let rows = theirs["rows"].as_array().unwrap();
        assert_eq!(drawn.len(), rows.len(), "{r}: rows");
        assert_eq!(ours["rows"].as_array().unwrap().len(), rows.len(), "{r}");
        for (cells, row) in drawn.iter().zip(rows) {
            let container = match row["compression"]["scheme"].as_str() {
                Some(c) => format!("{}+{c}", row["container"].as_str().unwrap()),
                None => row["container"].as_str().unwrap().to_string(),
            };
            let expect = [
                row["rank"].to_string(),
                row["scheme"].as_str().unwrap().to_string(),
                container,
                row["implementation"].as_str().unwrap().to_string(),
                row["security_bits"].to_string(),
                row["sealed_bytes"].to_string(),
                row["on_air_bytes"].to_string(),
                row["frames"].to_string(),
                format!("{:.2}", row["cpu_uj"].as_f64().unwrap()),
                format!("{:.2}", row["radio_uj"].as_f64().unwrap()),
                format!("{:.2}", row["message_uj"].as_f64().unwrap()),
            ];
            assert_eq!(&cells[..expect.len()], &expect[..], "{r}: row {row}");
        }
        assert_eq!(ours["excluded"], theirs["excluded"], "{r}: not ranked");
        assert_eq!(ours["tie"].is_null(), theirs["tie"].is_null(), "{r}: tie");
        ranked += 1;
    }
    println!("{ranked} of 50 requests ranked, every row equal");
    assert!(ranked >= 40, "only {ranked} of 50 requests ranked");
}

#[test]
fn one_request_by_its_link_is_drawn_and_screenshot() {
    let dir = dir();
    let page = write_page(&dir, "one");
    let tmp = tempfile::tempdir().unwrap();
    let request =
        json!({"device": "nrf52840", "link": "ble-1m-251", "container": "all"}).to_string();
    let started = Instant::now();
    let dom = dump(&page, &tmp.path().join("profile-dom"), &request);
    let (answer, ms) = answers(&dom);
    println!(
        "one answer: {ms:.0} ms after the page began loading, {:.1} s with the browser's start",
        started.elapsed().as_secs_f64()
    );
    assert!(
        answer[0]["ranking"]["rows"].as_array().unwrap().len() >= 10,
        "{}",
        answer[0]
    );
    assert!(dom.contains("<svg class=\"plot\""), "no energy plot");
    let shot = dir.join("explore.png");
    chromium::answered(
        &page,
        &request,
        ANSWERED,
        SIZE,
        &tmp.path().join("profile-shot"),
        Some(&shot),
        LIMIT,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        std::fs::metadata(&shot).unwrap().len() > 10_000,
        "blank screenshot"
    );
    println!("screenshot: {}", shot.display());
}

#[test]
fn a_bad_request_is_said_not_guessed() {
    let dir = dir();
    let page = write_page(&dir, "bad");
    let tmp = tempfile::tempdir().unwrap();
    let request = json!({"device": "nrf52840", "link": "no-such-link"}).to_string();
    let dom = dump(&page, &tmp.path().join("profile"), &request);
    let (answer, _) = answers(&dom);
    let error = answer[0]["error"]
        .as_str()
        .unwrap_or_else(|| panic!("{}", answer[0]));
    assert!(error.contains("no-such-link"), "{error}");
    assert!(dom.contains("class=\"warn\""), "the error is not shown");
}
