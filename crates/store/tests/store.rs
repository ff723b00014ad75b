use ciphermeter_store::schema::{APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION};
use ciphermeter_store::{Artifact, NewRun, ResultRow, RunStatus, Store, StoreError};
use serde_json::json;

fn run_info(command: &str) -> NewRun {
    NewRun {
        command: command.into(),
        host: "testhost".into(),
        origin: "local".into(),
        environment: json!({"cpu": "test cpu", "cores": 2}),
    }
}

fn row(subject: &str, size: i64, value: f64) -> ResultRow {
    ResultRow {
        section: "bench".into(),
        target: "host".into(),
        subject: subject.into(),
        operation: "encrypt".into(),
        size_bytes: Some(size),
        context: String::new(),
        metric: "throughput".into(),
        unit: "MB/s".into(),
        value,
        ci_low: Some(value * 0.99),
        ci_high: Some(value * 1.01),
        samples: Some(30),
        data: json!({"algorithm": subject, "size": size, "mb_per_s": value}),
    }
}

#[test]
fn results_and_artifacts_round_trip_through_a_reopened_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nested/dir/results.sqlite");
    let id = {
        let mut store = Store::open(&path).unwrap();
        let id = store
            .begin_run(&run_info("run --quick"), RunStatus::Running)
            .unwrap();
        store
            .add_results(
                id,
                &[
                    row("aes-128-gcm", 16, 120.5),
                    row("aes-128-gcm", 1024, 2100.0),
                ],
            )
            .unwrap();
        store
            .add_artifact(
                id,
                &Artifact {
                    kind: "reproduction".into(),
                    name: "lora".into(),
                    title: "Study 004".into(),
                    data: json!({"text": "SF7 41.2 ms"}),
                },
            )
            .unwrap();
        store.finish_run(id, RunStatus::Complete).unwrap();
        id
    };
    let store = Store::open(&path).unwrap();
    let runs = store.runs().unwrap();
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].id, id);
    assert_eq!(runs[0].status, RunStatus::Complete);
    assert_eq!(runs[0].results, 2);
    assert!(runs[0].finished_at.is_some());
    assert_eq!(runs[0].environment["cores"], 2);
    let rows = store.results(id).unwrap();
    assert_eq!(
        rows,
        vec![
            row("aes-128-gcm", 16, 120.5),
            row("aes-128-gcm", 1024, 2100.0)
        ]
    );
    let arts = store.artifacts(id).unwrap();
    assert_eq!(arts[0].data["text"], "SF7 41.2 ms");
    assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
}

#[test]
fn a_run_that_never_finished_keeps_its_committed_batches() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.sqlite");
    {
        let mut store = Store::open(&path).unwrap();
        let id = store
            .begin_run(&run_info("run"), RunStatus::Running)
            .unwrap();
        store
            .add_results(id, &[row("chacha20-poly1305", 64, 300.0)])
            .unwrap();
        // Dropped without finish_run: as if the process had been killed.
    }
    let store = Store::open(&path).unwrap();
    let run = store.run(1).unwrap();
    assert_eq!(run.status, RunStatus::Running);
    assert!(run.finished_at.is_none());
    assert_eq!(store.results(1).unwrap().len(), 1);
}

#[test]
fn a_version_1_store_is_migrated_and_keeps_its_rows() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.sqlite");
    {
        // Build the file exactly as the first released schema left it.
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch(MIGRATIONS[0]).unwrap();
        conn.execute_batch(&format!(
            "PRAGMA user_version = 1; PRAGMA application_id = {APPLICATION_ID};"
        ))
        .unwrap();
        conn.execute_batch(
            "INSERT INTO runs (started_at, command, host, status, environment)
               VALUES ('2024-01-01T00:00:00Z', 'bench', 'oldbox', 'complete', '{\"cpu\":\"old\"}');
             INSERT INTO results (run_id, section, target, subject, operation, size_bytes, metric,
               unit, value, ci_low, ci_high, samples, data)
               VALUES (1, 'bench', 'host', 'aes-128-ctr', 'encrypt', 64, 'throughput', 'MB/s',
               500.0, 490.0, 510.0, 20, '{}');",
        )
        .unwrap();
    }
    let store = Store::open(&path).unwrap();
    assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
    let run = store.run(1).unwrap();
    assert_eq!(run.origin, "local", "v2 default for old runs");
    assert_eq!(run.host, "oldbox");
    let rows = store.results(1).unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].context, "");
    assert_eq!(rows[0].value, 500.0);
    // The v2 table exists and works.
    store
        .add_artifact(
            1,
            &Artifact {
                kind: "k".into(),
                name: "n".into(),
                title: "t".into(),
                data: json!(null),
            },
        )
        .unwrap();
    assert_eq!(store.artifacts(1).unwrap().len(), 1);
}

#[test]
fn unknown_runs_and_foreign_files_are_user_errors() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.sqlite");
    let store = Store::open(&path).unwrap();
    let err = store.results(42).unwrap_err();
    assert!(matches!(err, StoreError::UnknownRun(42)), "{err}");
    assert!(err.is_user_error());
    assert!(store.finish_run(7, RunStatus::Complete).is_err());

    let text = dir.path().join("notes.txt");
    std::fs::write(
        &text,
        "this is not a database, just some text that is long enough",
    )
    .unwrap();
    let err = Store::open(&text)
        .err()
        .expect("a text file is not a store");
    assert!(err.is_user_error(), "{err}");

    let other = dir.path().join("other.sqlite");
    rusqlite::Connection::open(&other)
        .unwrap()
        .execute_batch("CREATE TABLE t (x INTEGER);")
        .unwrap();
    let err = Store::open(&other).err().expect("someone else's database");
    assert!(err.to_string().contains("not a ciphermeter"), "{err}");

    let newer = dir.path().join("newer.sqlite");
    drop(Store::open(&newer).unwrap());
    rusqlite::Connection::open(&newer)
        .unwrap()
        .execute_batch("PRAGMA user_version = 99;")
        .unwrap();
    let err = Store::open(&newer).err().expect("a newer schema");
    assert!(err.to_string().contains("newer ciphermeter"), "{err}");
}

#[test]
fn latest_section_finds_the_newest_device_results() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
    let mut dev = row("aes-256-gcm", 64, 1.0);
    dev.section = "mcu".into();
    dev.target = "atmega1284p".into();
    let a = store
        .begin_run(&run_info("mcu"), RunStatus::Running)
        .unwrap();
    store.add_results(a, std::slice::from_ref(&dev)).unwrap();
    let b = store
        .begin_run(&run_info("bench"), RunStatus::Running)
        .unwrap();
    store.add_results(b, &[row("x", 1, 1.0)]).unwrap();
    dev.value = 2.0;
    let c = store
        .begin_run(&run_info("mcu"), RunStatus::Running)
        .unwrap();
    store.add_results(c, std::slice::from_ref(&dev)).unwrap();
    let (run, rows) = store.latest_section("mcu", "atmega1284p").unwrap().unwrap();
    assert_eq!(run, c);
    assert_eq!(rows[0].value, 2.0);
    assert!(store.latest_section("mcu", "cortex-m4").unwrap().is_none());
}
