//! `runs` as text: the runs in the store, oldest first, and where the store is.

use std::fmt::Write;
use std::path::Path;

use store::RunSummary;

/// One line per run (an imported run with its origin), then the store's path;
/// a store without runs says how to start one.
pub fn text(runs: &[RunSummary], store: &Path) -> String {
    let mut o = String::new();
    if runs.is_empty() {
        let _ = writeln!(
            o,
            "no runs yet in {} (start one with `ciphermeter run --quick`)",
            store.display()
        );
        return o;
    }
    let _ = writeln!(
        o,
        "{:>4}  {:<20}  {:<11}  {:>7}  {:<18}  command",
        "id", "started (UTC)", "status", "results", "host"
    );
    for r in runs {
        let origin = match r.origin.as_str() {
            "local" => String::new(),
            other => format!("  [{other}]"),
        };
        let _ = writeln!(
            o,
            "{:>4}  {:<20}  {:<11}  {:>7}  {:<18}  {}{origin}",
            r.id,
            r.started_at,
            r.status.as_str(),
            r.results,
            truncate(&r.host, 18),
            r.command
        );
    }
    let _ = writeln!(o, "store: {}", store.display());
    o
}

fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        s.chars().take(n - 1).collect::<String>() + "…"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(id: i64, host: &str, origin: &str) -> RunSummary {
        RunSummary {
            id,
            started_at: "2026-11-27 00:00:00".into(),
            finished_at: None,
            command: "bench".into(),
            host: host.into(),
            origin: origin.into(),
            status: store::RunStatus::Complete,
            results: 3,
            environment: serde_json::Value::Null,
        }
    }

    #[test]
    fn runs_are_listed_with_origin_and_long_hosts_cut() {
        let runs = [
            run(1, "short", "local"),
            run(2, "a-very-long-host-name.example", "import:pi.json"),
        ];
        let t = text(&runs, Path::new("/tmp/results.sqlite"));
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines.len(), 4, "{t}");
        assert!(lines[0].ends_with("command"));
        assert!(lines[1].ends_with("bench"), "{t}");
        assert!(lines[2].contains("a-very-long-host-…"), "{t}");
        assert!(lines[2].ends_with("bench  [import:pi.json]"), "{t}");
        assert_eq!(lines[3], "store: /tmp/results.sqlite");
        let empty = text(&[], Path::new("x"));
        assert!(empty.starts_with("no runs yet in x"));
    }
}
