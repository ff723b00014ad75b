//! ciphermeter-store: every run's results and environment, kept in one SQLite file, or
//! in a PostgreSQL database that several machines share (`--db postgres://...`).
//!
//! - [`location`]: where the database lives ([`Location`]: a file or a URL), and its
//!   default file (XDG data directory).
//! - [`schema`]: the versioned migrations; opening a store brings it to the latest one.
//! - [`records`]: the rows the store keeps (runs, results, artifacts).
//! - [`Store`]: open, append, query.
//!
//! Results are appended one batch per transaction in WAL mode with `synchronous=FULL`,
//! so whatever a run committed survives a crash or a Ctrl-C of the next step. PostgreSQL
//! commits are durable by the server's own settings.

mod backend;
pub mod compare;
pub mod conventions;
pub mod error;
pub mod location;
pub mod records;
pub mod schema;
mod store;

pub use error::StoreError;
#[cfg(feature = "postgres")]
pub use location::connect_postgres;
pub use location::{Location, default_path};
pub use records::{Artifact, NewRun, ResultKey, ResultRow, RunId, RunStatus, RunSummary};
pub use store::Store;
