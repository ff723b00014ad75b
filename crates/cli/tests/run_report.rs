//! End to end: `ciphermeter run --quick` on a fresh store, the report it writes,
//! and that report opened in headless Chromium as a person would.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use assert_cmd::cargo::CommandCargoExt;

struct QuickRun {
    db: PathBuf,
    html: PathBuf,
    stdout: String,
    stderr: String,
}

/// One quick run shared by the tests of this file (it takes a while). A static is
/// never dropped, so its directory is not a `TempDir` (each run left one in /tmp):
/// it is a fixed one under cargo's temporary directory for integration tests,
/// emptied when the run starts.
fn quick_run() -> &'static QuickRun {
    static RUN: OnceLock<QuickRun> = OnceLock::new();
    RUN.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("run_report");
        if let Err(e) = std::fs::remove_dir_all(&dir) {
            let kind = e.kind();
            assert_eq!(kind, std::io::ErrorKind::NotFound, "{}: {e}", dir.display());
        }
        std::fs::create_dir_all(&dir).unwrap();
        let db = dir.join("fresh/results.sqlite");
        let html = dir.join("out/report.html");
        let out = Command::cargo_bin("ciphermeter")
            .unwrap()
            .args(["run", "--quick", "--db"])
            .arg(&db)
            .arg("--output")
            .arg(&html)
            .env("XDG_DATA_HOME", dir.join("xdg"))
            .current_dir(&dir)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(
            out.status.success(),
            "run --quick failed: {}\n{stdout}\n{stderr}",
            out.status,
        );
        QuickRun {
            db,
            html,
            stdout,
            stderr,
        }
    })
}

/// The answer is said as soon as the run has it, before the reproductions
/// and the report (whose explore page may first build its engine), and it
/// is the answer the run closes with.
#[test]
fn the_answer_comes_before_the_reproductions_and_is_the_closing_one() {
    let run = quick_run();
    let at = |what: &str| {
        run.stderr
            .find(what)
            .unwrap_or_else(|| panic!("no '{what}' in:\n{}", run.stderr))
    };
    assert!(at(campaign::ANSWER_FIRST_LINE) < at("[reproduce]"));
    let said: Vec<&str> = run.stderr[at(campaign::ANSWER_FIRST_LINE)..]
        .lines()
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .collect();
    assert!(!said.is_empty(), "{}", run.stderr);
    for line in &said {
        assert!(
            run.stdout.lines().any(|l| l == *line),
            "said early but not at the end: {line}\n{}",
            run.stdout
        );
    }
}

#[test]
fn run_quick_fills_a_fresh_store_and_writes_the_report() {
    let run = quick_run();
    assert!(run.stdout.contains("report: "), "{}", run.stdout);
    assert!(run.stdout.contains(&run.html.display().to_string()));

    let store = store::Store::open(&run.db).unwrap();
    let runs = store.runs().unwrap();
    assert_eq!(runs.len(), 1, "a fresh store holds exactly this run");
    assert_eq!(runs[0].status, store::RunStatus::Complete);
    let rows = store.results(runs[0].id).unwrap();
    for section in ["bench", "frame", "energy"] {
        assert!(
            rows.iter().any(|r| r.section == section),
            "no {section} results stored"
        );
    }
    // The noise probes ran at both ends of the sweep: one drift per probe, and a
    // same-run comparison derives its threshold from them.
    let noise: Vec<_> = rows
        .iter()
        .filter(|r| r.section == "noise" && r.metric == "drift_pct")
        .collect();
    assert_eq!(
        noise.len(),
        4 * (campaign::steps::PROBES_INSIDE + 1),
        "one drift row per noise probe, inside the sweep and at its end"
    );
    for r in &noise {
        let (start, end) = (
            r.data["start_ns"].as_f64().unwrap(),
            r.data["end_ns"].as_f64().unwrap(),
        );
        assert!((r.value - 100.0 * (end / start - 1.0)).abs() < 1e-9 && start > 0.0);
    }
    // The reference probe rode along in every group: one row per group, filed
    // under the group's operation and size.
    let groups: Vec<_> = rows
        .iter()
        .filter(|r| r.section == "noise" && r.metric == "group_drift_pct")
        .collect();
    assert!(
        groups.len() >= 8,
        "one row per sweep group: {}",
        groups.len()
    );
    for g in &groups {
        assert_eq!(g.data["reference"], "aes-128-gcm");
        assert!(
            rows.iter().any(|b| b.section == "bench"
                && b.operation == g.operation
                && b.size_bytes == g.size_bytes),
            "a group row names a measured group: {} {:?}",
            g.operation,
            g.size_bytes
        );
    }
    // Some groups were timed again in fresh processes of the binary: each row
    // is the fresh result's difference from the run's own, which is stored.
    let fresh: Vec<_> = rows
        .iter()
        .filter(|r| r.section == "noise" && r.metric == "process_drift_pct")
        .collect();
    assert!(
        fresh.len() >= 8,
        "one row per retimed result: {}",
        fresh.len()
    );
    let sizes: std::collections::BTreeSet<_> = fresh.iter().map(|r| r.size_bytes).collect();
    assert!(sizes.len() >= 4, "spread over sizes: {sizes:?}");
    for r in &fresh {
        let (in_run, again) = (
            r.data["run_ns"].as_f64().unwrap(),
            r.data["fresh_process_ns"].as_f64().unwrap(),
        );
        assert!((r.value - 100.0 * (again / in_run - 1.0)).abs() < 1e-9 && again > 0.0);
        let stored = rows
            .iter()
            .find(|b| {
                b.section == "bench"
                    && (&b.subject, &b.operation, b.size_bytes, &b.context)
                        == (&r.subject, &r.operation, r.size_bytes, &r.context)
            })
            .expect("a retimed result is one of the run's");
        assert!(
            (stored.value / in_run - 1.0).abs() < 1e-12,
            "{} vs {in_run}",
            stored.value
        );
    }
    // The sweep measured AES-128-GCM at 1024 B with a real interval around the median.
    let gcm = rows
        .iter()
        .find(|r| {
            r.section == "bench"
                && r.subject == "aes-128-gcm"
                && r.operation == "encrypt"
                && r.size_bytes == Some(1024)
        })
        .expect("aes-128-gcm encrypt 1024 B");
    assert!(
        gcm.value > 0.0 && gcm.ci_low.unwrap() <= gcm.value && gcm.value <= gcm.ci_high.unwrap()
    );
    assert_eq!(
        gcm.data["algorithm"], "aes-128-gcm",
        "the bench record is kept verbatim"
    );
    assert!(runs[0].environment.get("cpu_model").is_some());
    // Every reproduction stored its typed report: a failure stores only its
    // reason, and fails this test.
    let artifacts = store.artifacts(runs[0].id).unwrap();
    let reproductions: Vec<_> = artifacts
        .iter()
        .filter(|a| a.kind == store::conventions::REPRODUCTION)
        .collect();
    assert_eq!(reproductions.len(), 5, "{reproductions:#?}");
    for a in &reproductions {
        assert!(
            a.data.get("report").is_some(),
            "reproduction {} failed: {}",
            a.name,
            a.data
        );
    }
    assert!(
        artifacts
            .iter()
            .any(|a| a.kind == store::conventions::RECOMMENDATION),
        "no ranking stored"
    );
    // Key establishment for the recommended scheme: classical, hybrid and
    // post-quantum side by side; on the nRF52840 every one runs on the device.
    let keys = artifacts
        .iter()
        .find(|a| a.kind == store::conventions::KEY_ESTABLISHMENT)
        .expect("the key establishment comparison");
    let nrf = keys.data["settings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["device"] == "nrf52840" && s["link"] == "ble-1m-251")
        .expect("the nRF52840 over BLE");
    let classes: Vec<&str> = nrf["answers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            assert!(a["handshake_uj"].as_f64().unwrap() > 0.0, "{a}");
            a["class"].as_str().unwrap()
        })
        .collect();
    assert_eq!(
        classes,
        ["classical", "hybrid", "post-quantum", "post-quantum"]
    );

    let html = std::fs::read_to_string(&run.html).unwrap();
    for (id, _) in report::SECTIONS {
        assert!(
            html.contains(&format!("<section id=\"{id}\">")),
            "section {id} missing"
        );
    }
    assert!(html.matches("<svg").count() >= 5, "expected the SVG plots");
    // The explore page's engine, not the sentence saying why it is missing
    // (crates/cli/tests/explore_browser.rs opens the page itself).
    assert!(
        html.contains("<script id=\"ex-engine\""),
        "the report carries no explorer"
    );
    assert!(
        html.contains("nrf52840 over ble-1m-251: energy per message by session length"),
        "the key establishment chart"
    );
    assert!(html.contains("<polyline"), "the throughput chart has lines");
    assert!(
        html.contains("badge broken"),
        "broken algorithms (md5, rc4) are visibly marked"
    );
    assert!(
        html.contains("badge legacy"),
        "legacy algorithms (des) are visibly marked"
    );
    assert_no_external_resources(&html);
}

/// Each study's section holds the paper's values beside ours and every claim's
/// verdict; the report names the machine each ran on and recommends a scheme.
#[test]
fn the_report_shows_each_study_with_paper_values_verdicts_and_a_recommendation() {
    let run = quick_run();
    let html = std::fs::read_to_string(&run.html).unwrap();
    assert!(
        !html.contains("Not reproduced in this run"),
        "a study failed"
    );
    assert!(
        !html.contains("Study 001/002"),
        "study 002 is the file sizes"
    );
    assert!(html.contains("Study 001: serialization"));
    assert!(html.contains("Study 002: eight ciphers"));
    for (study, paper_value) in [
        // Study 000, Table 2: the paper's first ciphertext time, 3.296 ms.
        ("000", "3.30"),
        // Study 001, Table IV: AES-256-CBC over JSON pretty, 1253844 ns.
        ("001", "1253844"),
        // Study 002, Table III: AES-256 ECB on 1 MB, 0.31512 s on the Pi 3.
        ("002", "0.315"),
        // Study 003: the paper's reading sizes, about 66 to 470 bytes.
        ("003", "470"),
        // Study 004: the Pi reaches almost 1.5 MB/s (its III-B).
        ("004", "1.5 MB/s"),
    ] {
        let start = html
            .find(&format!("id=\"study-{study}\""))
            .unwrap_or_else(|| panic!("no section for study {study}"));
        // The section runs to the next study's heading or the end of its <section>.
        let rest = &html[start..];
        let end = start
            + [rest.find("<h3 "), rest.find("</section>")]
                .into_iter()
                .flatten()
                .min()
                .unwrap_or(rest.len());
        let section = &html[start..end];
        assert!(
            section.contains(paper_value),
            "study {study}: the paper's value {paper_value} is missing"
        );
        assert!(
            section.contains("class=\"findings\"") && section.contains("class=\"verdict "),
            "study {study}: no verdicts"
        );
        assert!(section.contains("<table"), "study {study}: no HTML table");
        assert!(
            !section.contains("<pre>"),
            "study {study}: preformatted text"
        );
    }
    // Study 003 ran on this host here, and the title says so.
    let s003 = &html[html.find("id=\"study-003\"").unwrap()..];
    assert!(s003[..600].contains("this host"), "{}", &s003[..600]);
    let rec = &html[html.find("<section id=\"recommendation\">").unwrap()..];
    let rec = &rec[..rec.find("</section>").unwrap()];
    assert!(rec.contains("Winner:"), "no explanation: {rec}");
    assert!(rec.contains("Study 003 recommended AES-256-GCM"));
    assert!(rec.contains("<table"), "no ranking table");
}

/// No URL is loaded by the page: no src/href to another origin, no CSS url() or @import.
fn assert_no_external_resources(html: &str) {
    let lower = html.to_ascii_lowercase();
    for bad in [
        "src=\"http",
        "src='http",
        "href=\"http",
        "href='http",
        "url(",
        "@import",
        "<link",
        "<iframe",
        "<img",
        "src=\"//",
        "href=\"//",
    ] {
        assert!(
            !lower.contains(bad),
            "external resource pattern {bad:?} in the report"
        );
    }
    assert!(!lower.contains("<script src"), "scripts must be inline");
}

fn headless(profile: &Path, size: &str) -> Command {
    testkit::chromium::headless(profile, size)
}

#[test]
fn the_report_renders_in_headless_chromium_without_script_errors() {
    let run = quick_run();
    let dir = tempfile::tempdir().unwrap();
    let url = format!("file://{}", run.html.canonicalize().unwrap().display());

    // The DOM after scripts ran: the page's last script marks the body.
    let dom = headless(&dir.path().join("profile-dom"), "1200,4000")
        .arg("--dump-dom")
        .arg(&url)
        .output()
        .unwrap();
    let dom_text = String::from_utf8_lossy(&dom.stdout);
    let log = String::from_utf8_lossy(&dom.stderr);
    assert!(dom.status.success(), "chromium failed: {log}");
    assert!(
        dom_text.contains("data-rendered=\"yes\""),
        "the inline script did not run to its end; log:\n{log}"
    );
    assert!(
        !log.contains("Uncaught"),
        "script error in the page:\n{log}"
    );
    assert!(
        dom_text.contains("<svg"),
        "the SVG plots are in the rendered DOM"
    );

    // A screenshot that is not blank: many pixels differ from the white background.
    let shot = dir.path().join("report.png");
    let out = headless(&dir.path().join("profile-shot"), "1200,4000")
        .arg(format!("--screenshot={}", shot.display()))
        .arg(&url)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (width, height, ink) = ink_pixels(&shot);
    assert!(width >= 1000 && height >= 1000, "{width}x{height}");
    let share = ink as f64 / (width as f64 * height as f64);
    assert!(
        share > 0.01,
        "the screenshot is nearly blank: {:.4} % non-white pixels",
        share * 100.0
    );
    if let Ok(keep) = std::env::var("CIPHERMETER_KEEP_SCREENSHOT") {
        std::fs::copy(&shot, keep).unwrap();
    }
}

/// Width, height and the number of pixels that are not near-white.
fn ink_pixels(path: &Path) -> (u32, u32, u64) {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let channels = info.color_type.samples();
    let ink = buf[..info.buffer_size()]
        .chunks(channels)
        .filter(|px| px.iter().take(3).any(|&c| c < 200))
        .count() as u64;
    (info.width, info.height, ink)
}

/// The report answers first: what a person sees at 1280x900 before scrolling
/// names the device, the link, the recommended scheme (one that encrypts), its
/// energy and battery life, and the CPU-share finding; `run` says the same.
#[test]
fn the_first_screen_of_the_report_is_the_answer() {
    let run = quick_run();
    // The stored ranking's winner: what the first screen must name.
    let store = store::Store::open(&run.db).unwrap();
    let id = store.runs().unwrap()[0].id;
    let ranking = store
        .artifacts(id)
        .unwrap()
        .into_iter()
        .find(|a| a.kind == "recommendation")
        .expect("a stored ranking");
    let winner = ranking.data["ranking"]["rows"][0]["scheme"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        !winner.starts_with("hmac:"),
        "a scheme that encrypts: {winner}"
    );
    assert_eq!(ranking.data["ranking"]["need"], "confidentiality");

    // The page with a probe that lists the text laid out in the first 900 px.
    let dir = tempfile::tempdir().unwrap();
    let probe = "<script>(function(){const w=document.createTreeWalker(document.body,NodeFilter.SHOW_TEXT);\
        const seen=[];let n;while((n=w.nextNode())){const r=document.createRange();r.selectNodeContents(n);\
        const b=r.getBoundingClientRect();if(b.height>0&&b.top<900&&b.bottom>0){seen.push(n.textContent)}}\
        const p=document.createElement('pre');p.id='first-screen';p.textContent=seen.join(' ');\
        document.body.appendChild(p);})();</script></body>";
    let page = std::fs::read_to_string(&run.html)
        .unwrap()
        .replace("</body>", probe);
    let copy = dir.path().join("report.html");
    std::fs::write(&copy, page).unwrap();
    let mut cmd = headless(&dir.path().join("profile"), "1280,900");
    let out = cmd
        .arg("--dump-dom")
        .arg(format!("file://{}", copy.display()))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dom = String::from_utf8_lossy(&out.stdout);
    let first = dom
        .split("<pre id=\"first-screen\">")
        .nth(1)
        .and_then(|rest| rest.split("</pre>").next())
        .expect("the probe ran");
    let first = first.split_whitespace().collect::<Vec<_>>().join(" ");
    for want in [
        "sodaq-mbili",
        "lorawan-eu868-dr3",
        winner.as_str(),
        "µJ per message",
        "battery life",
        "of a message's energy",
    ] {
        assert!(
            first.contains(want),
            "the first screen lacks '{want}': {first}"
        );
    }
    // The environment no longer opens the page.
    assert!(!first.contains("crate versions"), "{first}");

    // `run` names the same scheme, not an integrity-only one.
    let line = run
        .stdout
        .lines()
        .find(|l| l.contains("seal with"))
        .expect("run names its recommendation");
    assert!(line.contains(&winner), "{line}");
    // On LoRaWAN the first choices tie: the answer says so in the ranking's
    // own words (the tie group and what picked), not as a pair of equals.
    assert!(line.contains(" tie within "), "{line}");
    assert!(!line.contains("It ties with"), "{line}");
    assert!(
        run.stdout.contains("sends the reading in clear"),
        "{}",
        run.stdout
    );
    // On LoRaWAN, what SCHC saves there: a reading and a session, in bytes on air
    // and energy (cost::schc_savings), in the terminal and on the page alike.
    let schc = run
        .stdout
        .lines()
        .find(|l| l.contains("SCHC on lorawan-eu868-dr3"))
        .expect("run says what SCHC saves on its LoRaWAN link");
    assert!(
        schc.contains("B on air instead of") && schc.contains("EDHOC session"),
        "{schc}"
    );
    // Compressed inside OSCORE too (RFC 8824 §7.2), the reading costs fewer
    // bytes on air than uncompressed (issue 61).
    assert!(schc.contains("B fewer)"), "{schc}");
    // The identity is the measurement's floor: badged a baseline, never "broken".
    let html = std::fs::read_to_string(&run.html).unwrap();
    assert!(
        html.contains(schc.trim()),
        "the report opens with the same SCHC sentence"
    );
    assert!(html.contains("identity") && html.contains("badge baseline"));
    for (i, _) in html.match_indices(">identity") {
        let near = &html[i..(i + 200).min(html.len())];
        assert!(!near.contains("badge broken"), "{near}");
    }
}
