//! One connection, SQLite or PostgreSQL, behind the few calls the store makes. The SQL
//! is shared: `$1, $2, ...` placeholders (numbered in order of first use, which SQLite
//! reads as well), and values cross as [`Param`] and come back as [`Cell`]s. Only the
//! schema and the few expressions in [`Db::now`] differ.

#[cfg(feature = "postgres")]
use std::cell::RefCell;
#[cfg(feature = "postgres")]
use std::collections::HashMap;

use rusqlite::Connection;
use rusqlite::types::ValueRef;

use crate::StoreError;

pub(crate) enum Db {
    Sqlite(Connection),
    /// With the statements it has prepared: each is parsed once per connection.
    #[cfg(feature = "postgres")]
    Postgres(Box<RefCell<Postgres>>),
}

#[cfg(feature = "postgres")]
pub(crate) struct Postgres {
    pub client: postgres::Client,
    statements: HashMap<String, postgres::Statement>,
}

#[cfg(feature = "postgres")]
impl Postgres {
    pub fn new(client: postgres::Client) -> Postgres {
        Postgres {
            client,
            statements: HashMap::new(),
        }
    }

    fn statement(&mut self, sql: &str) -> Result<postgres::Statement, StoreError> {
        if let Some(s) = self.statements.get(sql) {
            return Ok(s.clone());
        }
        let s = self.client.prepare(sql)?;
        self.statements.insert(sql.to_string(), s.clone());
        Ok(s)
    }
}

/// A value bound to a placeholder. Integers are 64-bit (BIGINT in PostgreSQL).
pub(crate) enum Param<'a> {
    Int(Option<i64>),
    Real(Option<f64>),
    Text(&'a str),
}

impl Param<'_> {
    fn sqlite(&self) -> &dyn rusqlite::ToSql {
        match self {
            Param::Int(v) => v,
            Param::Real(v) => v,
            Param::Text(v) => v,
        }
    }

    #[cfg(feature = "postgres")]
    fn postgres(&self) -> &(dyn postgres::types::ToSql + Sync) {
        match self {
            Param::Int(v) => v,
            Param::Real(v) => v,
            Param::Text(v) => v,
        }
    }
}

/// A value read back.
#[derive(Debug)]
pub(crate) enum Cell {
    Null,
    Int(i64),
    Real(f64),
    Text(String),
}

pub(crate) trait FromCell: Sized {
    fn from_cell(cell: Cell) -> Option<Self>;
}

impl FromCell for i64 {
    fn from_cell(cell: Cell) -> Option<i64> {
        match cell {
            Cell::Int(v) => Some(v),
            _ => None,
        }
    }
}

impl FromCell for f64 {
    fn from_cell(cell: Cell) -> Option<f64> {
        match cell {
            Cell::Real(v) => Some(v),
            Cell::Int(v) => Some(v as f64),
            _ => None,
        }
    }
}

impl FromCell for String {
    fn from_cell(cell: Cell) -> Option<String> {
        match cell {
            Cell::Text(v) => Some(v),
            _ => None,
        }
    }
}

impl<T: FromCell> FromCell for Option<T> {
    fn from_cell(cell: Cell) -> Option<Option<T>> {
        match cell {
            Cell::Null => Some(None),
            other => T::from_cell(other).map(Some),
        }
    }
}

/// One result row; [`Row::take`] moves its cells out by position.
pub(crate) struct Row(Vec<Cell>);

impl Row {
    pub fn take<T: FromCell>(&mut self, i: usize) -> Result<T, StoreError> {
        let cell = std::mem::replace(&mut self.0[i], Cell::Null);
        let shown = format!("{cell:?}");
        T::from_cell(cell).ok_or_else(|| StoreError::Column {
            index: i,
            value: shown,
        })
    }
}

impl Db {
    /// The current UTC time as ISO 8601 text (`2026-01-31T12:00:00Z`), in SQL.
    pub fn now(&self) -> &'static str {
        match self {
            Db::Sqlite(_) => "strftime('%Y-%m-%dT%H:%M:%SZ', 'now')",
            #[cfg(feature = "postgres")]
            Db::Postgres(_) => {
                "to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')"
            }
        }
    }

    /// Runs a statement; returns the rows it changed.
    pub fn execute(&self, sql: &str, params: &[Param]) -> Result<u64, StoreError> {
        match self {
            Db::Sqlite(conn) => {
                let mut stmt = conn.prepare_cached(sql)?;
                let n =
                    stmt.execute(rusqlite::params_from_iter(params.iter().map(Param::sqlite)))?;
                Ok(n as u64)
            }
            #[cfg(feature = "postgres")]
            Db::Postgres(pg) => {
                let mut pg = pg.borrow_mut();
                let stmt = pg.statement(sql)?;
                let args: Vec<_> = params.iter().map(Param::postgres).collect();
                Ok(pg.client.execute(&stmt, &args)?)
            }
        }
    }

    /// Runs an INSERT and returns the `id` of its row.
    pub fn insert(&self, sql: &str, params: &[Param]) -> Result<i64, StoreError> {
        match self {
            Db::Sqlite(conn) => {
                self.execute(sql, params)?;
                Ok(conn.last_insert_rowid())
            }
            #[cfg(feature = "postgres")]
            Db::Postgres(_) => {
                let mut rows = self.query(&format!("{sql} RETURNING id"), params)?;
                rows.pop().expect("an INSERT returns its row").take(0)
            }
        }
    }

    pub fn query(&self, sql: &str, params: &[Param]) -> Result<Vec<Row>, StoreError> {
        match self {
            Db::Sqlite(conn) => {
                let mut stmt = conn.prepare_cached(sql)?;
                let width = stmt.column_count();
                let mut rows =
                    stmt.query(rusqlite::params_from_iter(params.iter().map(Param::sqlite)))?;
                let mut out = Vec::new();
                while let Some(r) = rows.next()? {
                    let cells = (0..width)
                        .map(|i| {
                            Ok(match r.get_ref(i)? {
                                ValueRef::Null => Cell::Null,
                                ValueRef::Integer(v) => Cell::Int(v),
                                ValueRef::Real(v) => Cell::Real(v),
                                ValueRef::Text(t) | ValueRef::Blob(t) => {
                                    Cell::Text(String::from_utf8_lossy(t).into_owned())
                                }
                            })
                        })
                        .collect::<Result<_, StoreError>>()?;
                    out.push(Row(cells));
                }
                Ok(out)
            }
            #[cfg(feature = "postgres")]
            Db::Postgres(pg) => {
                let mut pg = pg.borrow_mut();
                let stmt = pg.statement(sql)?;
                let args: Vec<_> = params.iter().map(Param::postgres).collect();
                pg.client
                    .query(&stmt, &args)?
                    .iter()
                    .map(postgres_row)
                    .collect()
            }
        }
    }

    /// The one row of a query that always returns one (an aggregate).
    pub fn query_one(&self, sql: &str, params: &[Param]) -> Result<Row, StoreError> {
        self.query(sql, params)?
            .pop()
            .ok_or_else(|| StoreError::Column {
                index: 0,
                value: "no row".into(),
            })
    }

    /// Statements without parameters, as one script.
    pub fn batch(&self, sql: &str) -> Result<(), StoreError> {
        match self {
            Db::Sqlite(conn) => conn.execute_batch(sql)?,
            #[cfg(feature = "postgres")]
            Db::Postgres(pg) => pg.borrow_mut().client.batch_execute(sql)?,
        }
        Ok(())
    }

    /// Runs `work` in one transaction: all of it is kept, or none.
    pub fn transaction<T>(
        &self,
        work: impl FnOnce() -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        self.batch("BEGIN")?;
        match work().and_then(|v| self.batch("COMMIT").map(|()| v)) {
            Ok(v) => Ok(v),
            Err(e) => {
                // The error that matters is `e`; a failed rollback leaves nothing behind.
                let _ = self.batch("ROLLBACK");
                Err(e)
            }
        }
    }
}

#[cfg(feature = "postgres")]
fn postgres_row(row: &postgres::Row) -> Result<Row, StoreError> {
    use postgres::types::Type;
    let cells = row
        .columns()
        .iter()
        .enumerate()
        .map(|(i, col)| {
            let cell = match *col.type_() {
                Type::INT8 => row.try_get::<_, Option<i64>>(i)?.map(Cell::Int),
                Type::INT4 => row
                    .try_get::<_, Option<i32>>(i)?
                    .map(|v| Cell::Int(v.into())),
                Type::FLOAT8 => row.try_get::<_, Option<f64>>(i)?.map(Cell::Real),
                Type::BOOL => row
                    .try_get::<_, Option<bool>>(i)?
                    .map(|v| Cell::Int(v.into())),
                _ => row.try_get::<_, Option<String>>(i)?.map(Cell::Text),
            };
            Ok(cell.unwrap_or(Cell::Null))
        })
        .collect::<Result<_, StoreError>>()?;
    Ok(Row(cells))
}
