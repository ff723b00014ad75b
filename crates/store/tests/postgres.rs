//! The results store in PostgreSQL: the same rows come back as from SQLite, the schema
//! is created once even when two processes open a new database together, and a
//! database holding someone else's tables is refused.

use ciphermeter_store::schema::SCHEMA_VERSION;
use ciphermeter_store::{Artifact, Location, NewRun, ResultRow, RunStatus, Store, StoreError};
use serde_json::json;
use testkit::Postgres;

fn row(subject: &str, size: Option<i64>, value: f64) -> ResultRow {
    ResultRow {
        section: "bench".into(),
        target: "host".into(),
        subject: subject.into(),
        operation: "encrypt".into(),
        size_bytes: size,
        context: String::new(),
        metric: "ns_per_op".into(),
        unit: "ns".into(),
        value,
        ci_low: size.map(|_| value * 0.99),
        ci_high: None,
        samples: Some(30),
        data: json!({"algorithm": subject, "nested": {"x": [1, 2.5, null]}}),
    }
}

fn new_run(command: &str) -> NewRun {
    NewRun {
        command: command.into(),
        host: "fleet-7".into(),
        origin: "local".into(),
        environment: json!({"cpu_model": "test cpu", "cores": 2}),
    }
}

#[test]
fn rows_round_trip_through_a_reopened_postgres_store() {
    let Some(pg) = Postgres::start() else { return };
    let location = Location::Postgres(pg.create_database("results"));
    let rows = vec![
        row("aes-128-gcm", Some(1024), 812.25),
        row("sha256", None, 3.0),
    ];
    {
        let mut store = Store::open(&location).unwrap();
        assert_eq!(store.runs().unwrap(), vec![]);
        assert_eq!(store.latest_run().unwrap(), None);
        let id = store
            .begin_run(&new_run("run --quick"), RunStatus::Running)
            .unwrap();
        assert_eq!(id, 1);
        store.add_results(id, &rows).unwrap();
        let artifact = Artifact {
            kind: "reproduction".into(),
            name: "lora".into(),
            title: "LoRa".into(),
            data: json!({"text": "é ✓"}),
        };
        store.add_artifact(id, &artifact).unwrap();
        store.finish_run(id, RunStatus::Complete).unwrap();
        assert!(matches!(
            store.finish_run(7, RunStatus::Failed),
            Err(StoreError::UnknownRun(7))
        ));
    }
    let store = Store::open(&location).unwrap();
    assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
    assert_eq!(store.results(1).unwrap(), rows);
    assert_eq!(store.artifacts(1).unwrap()[0].data, json!({"text": "é ✓"}));
    let run = store.run(1).unwrap();
    assert_eq!(run.status, RunStatus::Complete);
    assert_eq!(run.results, 2);
    assert_eq!(run.environment["cores"], 2);
    // ISO 8601 UTC, as SQLite writes it.
    assert_eq!(run.started_at.len(), "2026-01-31T12:00:00Z".len());
    assert!(run.started_at.ends_with('Z') && run.started_at.contains('T'));
    assert!(run.finished_at.is_some());
    let (latest, section) = store.latest_section("bench", "host").unwrap().unwrap();
    assert_eq!((latest, section.len()), (1, 2));
    assert!(store.latest_section("mcu", "host").unwrap().is_none());
    assert!(matches!(store.results(2), Err(StoreError::UnknownRun(2))));
}

#[test]
fn two_first_openings_at_once_make_one_schema() {
    let Some(pg) = Postgres::start() else { return };
    let location = Location::Postgres(pg.create_database("results"));
    let openers: Vec<_> = (0..2)
        .map(|_| {
            let location = location.clone();
            std::thread::spawn(move || {
                let store = Store::open(&location).unwrap();
                store
                    .begin_run(&new_run("bench"), RunStatus::Complete)
                    .unwrap()
            })
        })
        .collect();
    let mut ids: Vec<i64> = openers.into_iter().map(|t| t.join().unwrap()).collect();
    ids.sort();
    assert_eq!(ids, vec![1, 2]);
}

#[test]
fn a_database_with_other_tables_named_runs_is_refused() {
    let Some(pg) = Postgres::start() else { return };
    let url = pg.create_database("other");
    let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    client
        .batch_execute("CREATE TABLE runs (id INT PRIMARY KEY, what TEXT)")
        .unwrap();
    let err = Store::open(Location::Postgres(url.clone())).err().unwrap();
    assert!(matches!(err, StoreError::Incompatible { .. }), "{err}");
    assert!(err.is_user_error());
    assert!(
        err.to_string().contains("not a ciphermeter results store"),
        "{err}"
    );
}
