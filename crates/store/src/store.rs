#[cfg(feature = "postgres")]
use std::cell::RefCell;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, ErrorCode};

use crate::StoreError;
#[cfg(feature = "postgres")]
use crate::backend::Postgres;
use crate::backend::{Db, Param, Row};
use crate::location::Location;
#[cfg(feature = "postgres")]
use crate::location::connect_postgres;
use crate::records::{Artifact, NewRun, ResultRow, RunId, RunStatus, RunSummary};
use crate::schema::{APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION};
#[cfg(feature = "postgres")]
use crate::schema::{POSTGRES_MARKER, POSTGRES_MIGRATIONS};

pub struct Store {
    db: Db,
    /// The file, or the URL without its password: what listings and errors show.
    shown: PathBuf,
}

const SUMMARY: &str = "SELECT r.id, r.started_at, r.finished_at, r.command, r.host, r.origin,
        r.status, r.environment, (SELECT count(*) FROM results WHERE run_id = r.id)
     FROM runs r";

impl Store {
    /// Opens (creating if needed) the store at `location` and migrates it to the latest
    /// schema: a SQLite file (any path), or a PostgreSQL database (a [`Location`] parsed
    /// from a `postgres://` URL).
    pub fn open(location: impl Into<Location>) -> Result<Store, StoreError> {
        let location = location.into();
        let shown = PathBuf::from(location.to_string());
        let mut store = match &location {
            Location::Sqlite(path) => Store {
                db: Db::Sqlite(open_sqlite(path)?),
                shown,
            },
            #[cfg(feature = "postgres")]
            Location::Postgres(url) => Store {
                db: Db::Postgres(Box::new(RefCell::new(Postgres::new(connect_postgres(
                    url,
                )?)))),
                shown,
            },
            #[cfg(not(feature = "postgres"))]
            Location::Postgres(_) => return Err(StoreError::no_postgres(&location)),
        };
        store.migrate()?;
        Ok(store)
    }

    /// Where the store is, for display: the file, or the URL without its password.
    pub fn path(&self) -> &Path {
        &self.shown
    }

    pub fn schema_version(&self) -> Result<i64, StoreError> {
        self.marker().map(|(_, version)| version)
    }

    /// The application id and schema version, (0, 0) for a new store.
    fn marker(&self) -> Result<(i64, i64), StoreError> {
        let sql = match self.db {
            Db::Sqlite(_) => {
                "SELECT a.application_id, v.user_version
                FROM pragma_application_id a, pragma_user_version v"
            }
            #[cfg(feature = "postgres")]
            Db::Postgres(_) => "SELECT application_id, version FROM ciphermeter_store",
        };
        let mut row = self.db.query_one(sql, &[])?;
        Ok((row.take(0)?, row.take(1)?))
    }

    fn migrate(&mut self) -> Result<(), StoreError> {
        let incompatible = |why: String| StoreError::Incompatible {
            path: self.shown.clone(),
            why,
        };
        self.db.transaction(|| {
            let tables = match self.db {
                Db::Sqlite(_) => "SELECT count(*) FROM sqlite_master WHERE type = 'table'",
                #[cfg(feature = "postgres")]
                Db::Postgres(_) => {
                    // Two first openings at once: the second waits, then sees the first's.
                    self.db
                        .batch(&format!("SELECT pg_advisory_xact_lock({APPLICATION_ID})"))?;
                    "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()
                        AND tablename IN ('runs', 'results', 'ciphermeter_store')"
                }
            };
            let tables: i64 = self.db.query_one(tables, &[])?.take(0)?;
            let new = tables == 0;
            #[cfg(feature = "postgres")]
            if new && let Db::Postgres(_) = self.db {
                self.db.batch(POSTGRES_MARKER)?;
            }
            let (app, mut version) = match self.db {
                #[cfg(feature = "postgres")]
                Db::Postgres(_) if !new && !self.has_postgres_marker()? => (0, 0),
                _ => self.marker()?,
            };
            if app != APPLICATION_ID && !new {
                return Err(incompatible(
                    "a database, but not a ciphermeter results store".into(),
                ));
            }
            if version > SCHEMA_VERSION {
                return Err(incompatible(format!(
                    "schema version {version} comes from a newer ciphermeter (this one knows up to {SCHEMA_VERSION})"
                )));
            }
            while version < SCHEMA_VERSION {
                let (step, mark) = match self.db {
                    Db::Sqlite(_) => (
                        MIGRATIONS[version as usize],
                        format!(
                            "PRAGMA user_version = {}; PRAGMA application_id = {APPLICATION_ID};",
                            version + 1
                        ),
                    ),
                    #[cfg(feature = "postgres")]
                    Db::Postgres(_) => (
                        POSTGRES_MIGRATIONS[version as usize],
                        format!(
                            "UPDATE ciphermeter_store SET version = {}, application_id = {APPLICATION_ID};",
                            version + 1
                        ),
                    ),
                };
                self.db.batch(step)?;
                self.db.batch(&mark)?;
                version += 1;
            }
            Ok(())
        })
    }

    #[cfg(feature = "postgres")]
    fn has_postgres_marker(&self) -> Result<bool, StoreError> {
        let n: i64 = self
            .db
            .query_one(
                "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()
                    AND tablename = 'ciphermeter_store'",
                &[],
            )?
            .take(0)?;
        Ok(n > 0)
    }

    /// Records that a run started; its results follow with [`Store::add_results`].
    pub fn begin_run(&self, run: &NewRun, status: RunStatus) -> Result<RunId, StoreError> {
        let environment = serde_json::to_string(&run.environment)?;
        self.db.insert(
            &format!(
                "INSERT INTO runs (started_at, command, host, origin, status, environment)
                 VALUES ({}, $1, $2, $3, $4, $5)",
                self.db.now()
            ),
            &[
                Param::Text(&run.command),
                Param::Text(&run.host),
                Param::Text(&run.origin),
                Param::Text(status.as_str()),
                Param::Text(&environment),
            ],
        )
    }

    pub fn finish_run(&self, run: RunId, status: RunStatus) -> Result<(), StoreError> {
        let n = self.db.execute(
            &format!(
                "UPDATE runs SET status = $1, finished_at = {} WHERE id = $2",
                self.db.now()
            ),
            &[Param::Text(status.as_str()), Param::Int(Some(run))],
        )?;
        if n == 0 {
            return Err(StoreError::UnknownRun(run));
        }
        Ok(())
    }

    /// Appends a batch of results in one transaction: all of it is kept, or none.
    pub fn add_results(&mut self, run: RunId, rows: &[ResultRow]) -> Result<(), StoreError> {
        self.db.transaction(|| {
            for r in rows {
                let data = serde_json::to_string(&r.data)?;
                self.db.execute(
                    "INSERT INTO results (run_id, section, target, subject, operation, size_bytes,
                        context, metric, unit, value, ci_low, ci_high, samples, data)
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)",
                    &[
                        Param::Int(Some(run)),
                        Param::Text(&r.section),
                        Param::Text(&r.target),
                        Param::Text(&r.subject),
                        Param::Text(&r.operation),
                        Param::Int(r.size_bytes),
                        Param::Text(&r.context),
                        Param::Text(&r.metric),
                        Param::Text(&r.unit),
                        Param::Real(Some(r.value)),
                        Param::Real(r.ci_low),
                        Param::Real(r.ci_high),
                        Param::Int(r.samples),
                        Param::Text(&data),
                    ],
                )?;
            }
            Ok(())
        })
    }

    pub fn add_artifact(&self, run: RunId, a: &Artifact) -> Result<(), StoreError> {
        let data = serde_json::to_string(&a.data)?;
        self.db.execute(
            "INSERT INTO artifacts (run_id, kind, name, title, data) VALUES ($1, $2, $3, $4, $5)",
            &[
                Param::Int(Some(run)),
                Param::Text(&a.kind),
                Param::Text(&a.name),
                Param::Text(&a.title),
                Param::Text(&data),
            ],
        )?;
        Ok(())
    }

    /// Every run, oldest first.
    pub fn runs(&self) -> Result<Vec<RunSummary>, StoreError> {
        self.db
            .query(&format!("{SUMMARY} ORDER BY r.id"), &[])?
            .into_iter()
            .map(summary)
            .collect()
    }

    pub fn run(&self, id: RunId) -> Result<RunSummary, StoreError> {
        let row = self
            .db
            .query(
                &format!("{SUMMARY} WHERE r.id = $1"),
                &[Param::Int(Some(id))],
            )?
            .pop()
            .ok_or(StoreError::UnknownRun(id))?;
        summary(row)
    }

    /// The newest run, if any.
    pub fn latest_run(&self) -> Result<Option<RunId>, StoreError> {
        self.db.query_one("SELECT max(id) FROM runs", &[])?.take(0)
    }

    pub fn results(&self, run: RunId) -> Result<Vec<ResultRow>, StoreError> {
        self.run(run)?;
        self.query_results("WHERE run_id = $1 ORDER BY id", &[Param::Int(Some(run))])
    }

    /// The newest stored results of one section and target across all runs (e.g. the
    /// last device-level measurement of the ATmega1284P), with the run they came from.
    pub fn latest_section(
        &self,
        section: &str,
        target: &str,
    ) -> Result<Option<(RunId, Vec<ResultRow>)>, StoreError> {
        let run: Option<RunId> = self
            .db
            .query_one(
                "SELECT max(run_id) FROM results WHERE section = $1 AND target = $2",
                &[Param::Text(section), Param::Text(target)],
            )?
            .take(0)?;
        let Some(run) = run else { return Ok(None) };
        let rows = self.query_results(
            "WHERE run_id = $1 AND section = $2 AND target = $3 ORDER BY id",
            &[
                Param::Int(Some(run)),
                Param::Text(section),
                Param::Text(target),
            ],
        )?;
        Ok(Some((run, rows)))
    }

    fn query_results(&self, filter: &str, args: &[Param]) -> Result<Vec<ResultRow>, StoreError> {
        let rows = self.db.query(
            &format!(
                "SELECT section, target, subject, operation, size_bytes, context, metric, unit,
                        value, ci_low, ci_high, samples, data FROM results {filter}"
            ),
            args,
        )?;
        rows.into_iter()
            .map(|mut r| {
                Ok(ResultRow {
                    section: r.take(0)?,
                    target: r.take(1)?,
                    subject: r.take(2)?,
                    operation: r.take(3)?,
                    size_bytes: r.take(4)?,
                    context: r.take(5)?,
                    metric: r.take(6)?,
                    unit: r.take(7)?,
                    value: r.take(8)?,
                    ci_low: r.take(9)?,
                    ci_high: r.take(10)?,
                    samples: r.take(11)?,
                    data: serde_json::from_str(&r.take::<String>(12)?)?,
                })
            })
            .collect()
    }

    pub fn artifacts(&self, run: RunId) -> Result<Vec<Artifact>, StoreError> {
        self.db
            .query(
                "SELECT kind, name, title, data FROM artifacts WHERE run_id = $1 ORDER BY id",
                &[Param::Int(Some(run))],
            )?
            .into_iter()
            .map(|mut r| {
                Ok(Artifact {
                    kind: r.take(0)?,
                    name: r.take(1)?,
                    title: r.take(2)?,
                    data: serde_json::from_str(&r.take::<String>(3)?)?,
                })
            })
            .collect()
    }
}

fn open_sqlite(path: &Path) -> Result<Connection, StoreError> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|source| StoreError::Directory {
            path: dir.to_path_buf(),
            source,
        })?;
    }
    let conn = Connection::open(path)?;
    // WAL: a crash mid-write never corrupts committed runs; FULL: a committed
    // batch is on disk before the next measurement starts.
    let configured = conn
        .query_row("PRAGMA journal_mode = WAL", [], |r| r.get::<_, String>(0))
        .and_then(|_| {
            conn.execute_batch(
                "PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000;",
            )
        });
    match configured {
        Err(rusqlite::Error::SqliteFailure(f, _)) if f.code == ErrorCode::NotADatabase => {
            Err(StoreError::Incompatible {
                path: path.to_path_buf(),
                why: "not a SQLite database".into(),
            })
        }
        other => Ok(other.map(|()| conn)?),
    }
}

fn summary(mut r: Row) -> Result<RunSummary, StoreError> {
    let status: String = r.take(6)?;
    Ok(RunSummary {
        id: r.take(0)?,
        started_at: r.take(1)?,
        finished_at: r.take(2)?,
        command: r.take(3)?,
        host: r.take(4)?,
        origin: r.take(5)?,
        // An unknown status can only come from a newer writer; show it as running.
        status: RunStatus::parse(&status).unwrap_or(RunStatus::Running),
        environment: serde_json::from_str(&r.take::<String>(7)?)?,
        results: r.take(8)?,
    })
}

#[cfg(all(test, not(feature = "postgres")))]
mod without_postgres {
    use super::*;

    /// The board binaries' build: a fleet URL is refused as the user's to fix
    /// (exit 2 in the CLI), saying why, and no connection is tried.
    #[test]
    fn a_postgres_url_is_refused_with_the_reason() {
        let Err(e) = Store::open("postgres://me:secret@127.0.0.1:1/results") else {
            panic!("opened a PostgreSQL store without PostgreSQL");
        };
        assert!(e.is_user_error(), "{e}");
        let shown = e.to_string();
        assert!(shown.contains("no PostgreSQL support"), "{shown}");
        assert!(!shown.contains("secret"), "{shown}");
    }
}
