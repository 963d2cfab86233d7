//! The history store's errors: each names the database file it concerns.

use std::path::PathBuf;

/// Why the history database could not be opened, written or read.
#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    /// The directory that holds the database could not be created.
    #[error("cannot create directory `{path}`")]
    CreateDir {
        /// The directory.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The database could not be opened or configured (WAL, timeouts).
    #[error("cannot open history database `{path}`")]
    Open {
        /// The database file.
        path: PathBuf,
        /// The underlying error.
        source: rusqlite::Error,
    },
    /// The schema could not be created or migrated.
    #[error("cannot migrate history database `{path}` to schema version {version}")]
    Migrate {
        /// The database file.
        path: PathBuf,
        /// The schema version it was being migrated to.
        version: u32,
        /// The underlying error.
        source: rusqlite::Error,
    },
    /// The database was written by a newer proctor.
    #[error(
        "history database `{path}` has schema version {found}, newer than the {supported} this proctor knows; \
         upgrade proctor or delete the file"
    )]
    TooNew {
        /// The database file.
        path: PathBuf,
        /// The version found in the file.
        found: u32,
        /// The newest version this build knows.
        supported: u32,
    },
    /// A run could not be recorded (nothing of it was written).
    #[error("cannot record a run in `{path}`")]
    Write {
        /// The database file.
        path: PathBuf,
        /// The underlying error.
        source: rusqlite::Error,
    },
    /// The history could not be read.
    #[error("cannot read history from `{path}`")]
    Read {
        /// The database file.
        path: PathBuf,
        /// The underlying error.
        source: rusqlite::Error,
    },
    /// A stored outcome is not one this build knows (a newer proctor wrote it
    /// without a schema change, or the file was edited by hand).
    #[error("history database `{path}` holds an unknown outcome `{outcome}`")]
    UnknownOutcome {
        /// The database file.
        path: PathBuf,
        /// The stored text.
        outcome: String,
    },
}
