//! ciphermeter-store: every run's results and environment, kept in one SQLite file.
//!
//! - [`location`]: where the database lives by default (XDG data directory).
//! - [`schema`]: the versioned migrations; opening a store brings it to the latest one.
//! - [`records`]: the rows the store keeps (runs, results, artifacts).
//! - [`Store`]: open, append, query.
//!
//! Results are appended one batch per transaction in WAL mode with `synchronous=FULL`,
//! so whatever a run committed survives a crash or a Ctrl-C of the next step.

pub mod compare;
pub mod conventions;
pub mod error;
pub mod location;
pub mod records;
pub mod schema;
mod store;

pub use error::StoreError;
pub use location::default_path;
pub use records::{Artifact, NewRun, ResultKey, ResultRow, RunId, RunStatus, RunSummary};
pub use store::Store;
