use std::path::{Path, PathBuf};

use rusqlite::{Connection, ErrorCode, OptionalExtension, params};
use serde_json::Value;

use crate::StoreError;
use crate::records::{Artifact, NewRun, ResultRow, RunId, RunStatus, RunSummary};
use crate::schema::{APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION};

const NOW: &str = "strftime('%Y-%m-%dT%H:%M:%SZ', 'now')";

pub struct Store {
    conn: Connection,
    path: PathBuf,
}

impl Store {
    /// Opens (creating if needed) the store at `path` and migrates it to the latest schema.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|source| StoreError::Directory {
                path: dir.to_path_buf(),
                source,
            })?;
        }
        let incompatible = |why: String| StoreError::Incompatible {
            path: path.to_path_buf(),
            why,
        };
        let conn = Connection::open(path)?;
        let mut store = Store {
            conn,
            path: path.to_path_buf(),
        };
        store.configure().map_err(|e| match e {
            StoreError::Sqlite(rusqlite::Error::SqliteFailure(f, _))
                if f.code == ErrorCode::NotADatabase =>
            {
                incompatible("not a SQLite database".into())
            }
            other => other,
        })?;
        store.migrate()?;
        Ok(store)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn configure(&mut self) -> Result<(), StoreError> {
        // WAL: a crash mid-write never corrupts committed runs; FULL: a committed
        // batch is on disk before the next measurement starts.
        self.conn
            .query_row("PRAGMA journal_mode = WAL", [], |r| r.get::<_, String>(0))?;
        self.conn.execute_batch(
            "PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000;",
        )?;
        Ok(())
    }

    pub fn schema_version(&self) -> Result<i64, StoreError> {
        Ok(self
            .conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))?)
    }

    fn migrate(&mut self) -> Result<(), StoreError> {
        let incompatible = |why: String| StoreError::Incompatible {
            path: self.path.clone(),
            why,
        };
        let app: i64 = self
            .conn
            .query_row("PRAGMA application_id", [], |r| r.get(0))?;
        let tables: i64 = self.conn.query_row(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table'",
            [],
            |r| r.get(0),
        )?;
        if app != APPLICATION_ID && tables > 0 {
            return Err(incompatible(
                "a SQLite database, but not a ciphermeter results store".into(),
            ));
        }
        let mut version = self.schema_version()?;
        if version > SCHEMA_VERSION {
            return Err(incompatible(format!(
                "schema version {version} comes from a newer ciphermeter (this one knows up to {SCHEMA_VERSION})"
            )));
        }
        while version < SCHEMA_VERSION {
            let tx = self.conn.transaction()?;
            tx.execute_batch(MIGRATIONS[version as usize])?;
            tx.execute_batch(&format!(
                "PRAGMA user_version = {}; PRAGMA application_id = {APPLICATION_ID};",
                version + 1
            ))?;
            tx.commit()?;
            version += 1;
        }
        Ok(())
    }

    /// Records that a run started; its results follow with [`Store::add_results`].
    pub fn begin_run(&self, run: &NewRun, status: RunStatus) -> Result<RunId, StoreError> {
        self.conn.execute(
            &format!(
                "INSERT INTO runs (started_at, command, host, origin, status, environment)
                 VALUES ({NOW}, ?1, ?2, ?3, ?4, ?5)"
            ),
            params![
                run.command,
                run.host,
                run.origin,
                status.as_str(),
                serde_json::to_string(&run.environment)?
            ],
        )?;
        Ok(self.conn.last_insert_rowid())
    }

    pub fn finish_run(&self, run: RunId, status: RunStatus) -> Result<(), StoreError> {
        let n = self.conn.execute(
            &format!("UPDATE runs SET status = ?1, finished_at = {NOW} WHERE id = ?2"),
            params![status.as_str(), run],
        )?;
        if n == 0 {
            return Err(StoreError::UnknownRun(run));
        }
        Ok(())
    }

    /// Appends a batch of results in one transaction: all of it is kept, or none.
    pub fn add_results(&mut self, run: RunId, rows: &[ResultRow]) -> Result<(), StoreError> {
        let tx = self.conn.transaction()?;
        {
            let mut insert = tx.prepare_cached(
                "INSERT INTO results (run_id, section, target, subject, operation, size_bytes,
                    context, metric, unit, value, ci_low, ci_high, samples, data)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
            )?;
            for r in rows {
                insert.execute(params![
                    run,
                    r.section,
                    r.target,
                    r.subject,
                    r.operation,
                    r.size_bytes,
                    r.context,
                    r.metric,
                    r.unit,
                    r.value,
                    r.ci_low,
                    r.ci_high,
                    r.samples,
                    serde_json::to_string(&r.data)?
                ])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    pub fn add_artifact(&self, run: RunId, a: &Artifact) -> Result<(), StoreError> {
        self.conn.execute(
            "INSERT INTO artifacts (run_id, kind, name, title, data) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![
                run,
                a.kind,
                a.name,
                a.title,
                serde_json::to_string(&a.data)?
            ],
        )?;
        Ok(())
    }

    /// Every run, oldest first.
    pub fn runs(&self) -> Result<Vec<RunSummary>, StoreError> {
        let mut stmt = self.conn.prepare(
            "SELECT r.id, r.started_at, r.finished_at, r.command, r.host, r.origin, r.status,
                    r.environment, (SELECT count(*) FROM results WHERE run_id = r.id)
             FROM runs r ORDER BY r.id",
        )?;
        let rows = stmt.query_map([], summary_from_row)?;
        let mut out = Vec::new();
        for row in rows {
            out.push(finish_summary(row?)?);
        }
        Ok(out)
    }

    pub fn run(&self, id: RunId) -> Result<RunSummary, StoreError> {
        let row = self
            .conn
            .query_row(
                "SELECT r.id, r.started_at, r.finished_at, r.command, r.host, r.origin, r.status,
                        r.environment, (SELECT count(*) FROM results WHERE run_id = r.id)
                 FROM runs r WHERE r.id = ?1",
                [id],
                summary_from_row,
            )
            .optional()?
            .ok_or(StoreError::UnknownRun(id))?;
        finish_summary(row)
    }

    /// The newest run, if any.
    pub fn latest_run(&self) -> Result<Option<RunId>, StoreError> {
        Ok(self
            .conn
            .query_row("SELECT max(id) FROM runs", [], |r| r.get(0))?)
    }

    pub fn results(&self, run: RunId) -> Result<Vec<ResultRow>, StoreError> {
        self.run(run)?;
        self.query_results("WHERE run_id = ?1 ORDER BY id", [run])
    }

    /// The newest stored results of one section and target across all runs (e.g. the
    /// last device-level measurement of the ATmega1284P), with the run they came from.
    pub fn latest_section(
        &self,
        section: &str,
        target: &str,
    ) -> Result<Option<(RunId, Vec<ResultRow>)>, StoreError> {
        let run: Option<RunId> = self.conn.query_row(
            "SELECT max(run_id) FROM results WHERE section = ?1 AND target = ?2",
            [section, target],
            |r| r.get(0),
        )?;
        let Some(run) = run else { return Ok(None) };
        let rows = self.query_results(
            "WHERE run_id = ?1 AND section = ?2 AND target = ?3 ORDER BY id",
            params![run, section, target],
        )?;
        Ok(Some((run, rows)))
    }

    fn query_results(
        &self,
        filter: &str,
        args: impl rusqlite::Params,
    ) -> Result<Vec<ResultRow>, StoreError> {
        let mut stmt = self.conn.prepare(&format!(
            "SELECT section, target, subject, operation, size_bytes, context, metric, unit,
                    value, ci_low, ci_high, samples, data FROM results {filter}"
        ))?;
        let rows = stmt.query_map(args, |r| {
            Ok((
                ResultRow {
                    section: r.get(0)?,
                    target: r.get(1)?,
                    subject: r.get(2)?,
                    operation: r.get(3)?,
                    size_bytes: r.get(4)?,
                    context: r.get(5)?,
                    metric: r.get(6)?,
                    unit: r.get(7)?,
                    value: r.get(8)?,
                    ci_low: r.get(9)?,
                    ci_high: r.get(10)?,
                    samples: r.get(11)?,
                    data: Value::Null,
                },
                r.get::<_, String>(12)?,
            ))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (mut row, data) = row?;
            row.data = serde_json::from_str(&data)?;
            out.push(row);
        }
        Ok(out)
    }

    pub fn artifacts(&self, run: RunId) -> Result<Vec<Artifact>, StoreError> {
        let mut stmt = self.conn.prepare(
            "SELECT kind, name, title, data FROM artifacts WHERE run_id = ?1 ORDER BY id",
        )?;
        let rows = stmt.query_map([run], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get::<_, String>(3)?))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (kind, name, title, data) = row?;
            out.push(Artifact {
                kind,
                name,
                title,
                data: serde_json::from_str(&data)?,
            });
        }
        Ok(out)
    }
}

type RawSummary = (
    RunId,
    String,
    Option<String>,
    String,
    String,
    String,
    String,
    String,
    i64,
);

fn summary_from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<RawSummary> {
    Ok((
        r.get(0)?,
        r.get(1)?,
        r.get(2)?,
        r.get(3)?,
        r.get(4)?,
        r.get(5)?,
        r.get(6)?,
        r.get(7)?,
        r.get(8)?,
    ))
}

fn finish_summary(raw: RawSummary) -> Result<RunSummary, StoreError> {
    let (id, started_at, finished_at, command, host, origin, status, env, results) = raw;
    Ok(RunSummary {
        id,
        started_at,
        finished_at,
        command,
        host,
        origin,
        // An unknown status can only come from a newer writer; show it as running.
        status: RunStatus::parse(&status).unwrap_or(RunStatus::Running),
        results,
        environment: serde_json::from_str(&env)?,
    })
}
