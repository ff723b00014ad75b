//! Versioned schema. `PRAGMA user_version` holds the version; each migration moves
//! the file up by one inside a transaction, so a failed migration leaves the old
//! version intact. Never edit a released migration: add the next one.

/// Marks the file as a ciphermeter store ("CPM1").
pub const APPLICATION_ID: i64 = 0x4350_4d31;

/// `MIGRATIONS[i]` takes version `i` to `i + 1`.
pub const MIGRATIONS: &[&str] = &[
    // v1: runs and their results.
    "CREATE TABLE runs (
        id INTEGER PRIMARY KEY,
        started_at TEXT NOT NULL,
        finished_at TEXT,
        command TEXT NOT NULL,
        host TEXT NOT NULL,
        status TEXT NOT NULL,
        environment TEXT NOT NULL
    );
    CREATE TABLE results (
        id INTEGER PRIMARY KEY,
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        section TEXT NOT NULL,
        target TEXT NOT NULL,
        subject TEXT NOT NULL,
        operation TEXT NOT NULL,
        size_bytes INTEGER,
        metric TEXT NOT NULL,
        unit TEXT NOT NULL,
        value REAL NOT NULL,
        ci_low REAL,
        ci_high REAL,
        samples INTEGER,
        data TEXT NOT NULL
    );
    CREATE INDEX results_by_run ON results(run_id);",
    // v2: imported runs say where they came from; energy and link figures need a
    // context (device/link); reproductions keep their whole tables.
    "ALTER TABLE runs ADD COLUMN origin TEXT NOT NULL DEFAULT 'local';
    ALTER TABLE results ADD COLUMN context TEXT NOT NULL DEFAULT '';
    CREATE TABLE artifacts (
        id INTEGER PRIMARY KEY,
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        kind TEXT NOT NULL,
        name TEXT NOT NULL,
        title TEXT NOT NULL,
        data TEXT NOT NULL
    );
    CREATE INDEX artifacts_by_run ON artifacts(run_id);",
];

pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;
