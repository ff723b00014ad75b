//! The results store as commands use it: `--db PATH`, opening, and turning each
//! producer's own result type into stored rows (the record itself rides along in
//! `data`, so nothing is lost).

use std::path::PathBuf;

use clap::Args as ClapArgs;
use measure::{BenchReport, BenchResult};
use store::conventions::{BENCH, FAILURE, MCU, NS_PER_OP};
use store::{NewRun, ResultRow, RunId, RunStatus, Store, StoreError};

use crate::error::CliError;

#[derive(ClapArgs, Clone, Debug, Default)]
pub struct DbArgs {
    /// Results database [default: $XDG_DATA_HOME/ciphermeter/results.sqlite].
    #[arg(long, value_name = "PATH")]
    pub db: Option<PathBuf>,
}

impl DbArgs {
    pub fn open(&self) -> Result<Store, CliError> {
        let path = match &self.db {
            Some(p) => p.clone(),
            None => store::default_path().map_err(store_err)?,
        };
        Store::open(&path).map_err(store_err)
    }
}

pub fn store_err(e: StoreError) -> CliError {
    if e.is_user_error() {
        CliError::usage(e)
    } else {
        CliError::failed(e)
    }
}

/// Progress on standard error, only when it is a terminal (logs stay clean).
#[macro_export]
macro_rules! progress {
    ($($arg:tt)*) => {
        if std::io::IsTerminal::is_terminal(&std::io::stderr()) {
            eprint!($($arg)*);
        }
    };
}
