//! The history database: opening it (WAL, busy timeout, migrations) and
//! recording a run in one transaction.
//!
//! Several `proctor run --shard i/n` processes on one machine may record
//! into the same file at once: WAL lets readers proceed while one writer
//! writes, and the busy timeout makes a second writer wait for the first
//! instead of failing. Each run is written in a single `IMMEDIATE`
//! transaction, so a crash or an error midway leaves the database as it
//! was: the run is there whole or not at all.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use proctor_outcome::{Outcome, TestResult};
use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};
use serde::{Deserialize, Serialize};

use crate::error::HistoryError;
use crate::redact::{redact_args, redact_text};
use crate::schema::{current_version, MIGRATIONS};
use crate::shard::ShardSpec;

/// Where the database lives, relative to the project's rootdir.
pub const DEFAULT_PATH: &str = ".proctor/history.db";

/// How long a writer waits for another writer before giving up.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// A run's facts, besides its per-test results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    /// When the run started.
    pub started_at: SystemTime,
    /// When it finished.
    pub finished_at: SystemTime,
    /// The command line (secret-looking values are masked before storing).
    pub command: Vec<String>,
    /// The selection, as the user wrote it (`-m "unit and not slow"`), if
    /// any (secret-looking values are masked before storing).
    pub selection: Option<String>,
    /// pytest's exit code for the run.
    pub exit_code: i32,
    /// The shard this run was, with `--shard i/n`.
    pub shard: Option<ShardSpec>,
}

/// An open history database.
#[derive(Debug)]
pub struct History {
    /// The connection.
    pub(crate) conn: Connection,
    /// The file, for error messages.
    pub(crate) path: PathBuf,
    /// A failure to inject while recording, for tests.
    #[cfg(test)]
    pub(crate) fault: Option<Fault>,
}

/// A failure injected after writing the given number of results.
#[cfg(test)]
#[derive(Debug, Clone, Copy)]
pub(crate) enum Fault {
    /// Return an error, as a failed statement would.
    Error(usize),
    /// Abort the process, as a kill or a crash would.
    Abort(usize),
}

impl History {
    /// The database path under `rootdir`: `rootdir/.proctor/history.db`.
    #[must_use]
    pub fn default_path(rootdir: &Path) -> PathBuf {
        rootdir.join(DEFAULT_PATH)
    }

    /// Opens the database at `path`, creating it and its parent
    /// directories when missing, and migrating its schema to this build's
    /// version.
    pub fn open(path: &Path) -> Result<History, HistoryError> {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|source| HistoryError::CreateDir {
                path: parent.to_owned(),
                source,
            })?;
        }
        let open_err = |source| HistoryError::Open {
            path: path.to_owned(),
            source,
        };
        let conn = Connection::open(path).map_err(open_err)?;
        conn.busy_timeout(BUSY_TIMEOUT).map_err(open_err)?;
        // Switching a new database to WAL takes a lock that SQLite does not
        // wait for (the busy handler is not called): a second process
        // opening it at that moment gets `database is locked` at once, so
        // it is tried again within the busy timeout.
        let started = std::time::Instant::now();
        let mode: String = loop {
            match conn.query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0)) {
                Err(rusqlite::Error::SqliteFailure(error, _))
                    if error.code == rusqlite::ErrorCode::DatabaseBusy
                        && started.elapsed() < BUSY_TIMEOUT =>
                {
                    std::thread::sleep(Duration::from_millis(5));
                }
                result => break result.map_err(open_err)?,
            }
        };
        debug_assert!(
            mode.eq_ignore_ascii_case("wal") || path.as_os_str() == ":memory:",
            "journal mode {mode}"
        );
        // In WAL mode, NORMAL cannot corrupt the database; a power loss may
        // only lose the last runs.
        conn.pragma_update(None, "synchronous", "NORMAL")
            .map_err(open_err)?;
        conn.pragma_update(None, "foreign_keys", true)
            .map_err(open_err)?;
        let mut history = History {
            conn,
            path: path.to_owned(),
            #[cfg(test)]
            fault: None,
        };
        history.migrate()?;
        Ok(history)
    }

    /// The database file.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Brings the schema to [`current_version`]. Runs under a write lock
    /// and re-reads the version inside it, so that processes opening a new
    /// database at the same time migrate it once.
    fn migrate(&mut self) -> Result<(), HistoryError> {
        let supported = current_version();
        let found = self.user_version()?;
        if found == supported {
            return Ok(());
        }
        let migrate_err = |source| HistoryError::Migrate {
            path: self.path.clone(),
            version: supported,
            source,
        };
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(migrate_err)?;
        let found: u32 = tx
            .query_row("PRAGMA user_version", [], |row| row.get(0))
            .map_err(migrate_err)?;
        if found > supported {
            return Err(HistoryError::TooNew {
                path: self.path.clone(),
                found,
                supported,
            });
        }
        for sql in &MIGRATIONS[found as usize..] {
            tx.execute_batch(sql).map_err(migrate_err)?;
        }
        tx.pragma_update(None, "user_version", supported)
            .map_err(migrate_err)?;
        tx.commit().map_err(migrate_err)
    }

    /// The schema version stored in the file.
    fn user_version(&self) -> Result<u32, HistoryError> {
        let found: u32 = self
            .conn
            .query_row("PRAGMA user_version", [], |row| row.get(0))
            .map_err(|source| HistoryError::Open {
                path: self.path.clone(),
                source,
            })?;
        if found > current_version() {
            return Err(HistoryError::TooNew {
                path: self.path.clone(),
                found,
                supported: current_version(),
            });
        }
        Ok(found)
    }

    /// Records `run` and its `results` in one transaction, and returns the
    /// run's id. Of each result only the node id, outcome, duration,
    /// attempts, flaky flag and phase are stored: never the output, the
    /// message or the reason. A non-finite or negative duration is stored
    /// as 0.
    pub fn record_run(
        &mut self,
        run: &RunRecord,
        results: &[TestResult],
    ) -> Result<i64, HistoryError> {
        #[cfg(test)]
        let fault = self.fault;
        let write_err = |source| HistoryError::Write {
            path: self.path.clone(),
            source,
        };
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(write_err)?;
        tx.execute(
            "INSERT INTO runs (started_at, finished_at, command, selection, exit_code, shard)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![
                unix_millis(run.started_at),
                unix_millis(run.finished_at),
                redact_args(&run.command).join(" "),
                run.selection.as_deref().map(redact_text),
                run.exit_code,
                run.shard.map(|spec| spec.to_string()),
            ],
        )
        .map_err(write_err)?;
        let run_id = tx.last_insert_rowid();
        {
            let mut find_test = tx
                .prepare("SELECT id FROM tests WHERE nodeid = ?1")
                .map_err(write_err)?;
            let mut add_test = tx
                .prepare("INSERT INTO tests (nodeid) VALUES (?1)")
                .map_err(write_err)?;
            let mut insert = tx
                .prepare(
                    "INSERT INTO results (run_id, test_id, outcome, duration, attempts, flaky, phase)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                )
                .map_err(write_err)?;
            for (written, result) in results.iter().enumerate() {
                #[cfg(test)]
                match fault {
                    Some(Fault::Error(at)) if at == written => {
                        return Err(write_err(rusqlite::Error::InvalidQuery));
                    }
                    Some(Fault::Abort(at)) if at == written => std::process::abort(),
                    _ => {}
                }
                let duration = if result.duration.is_finite() {
                    result.duration.max(0.0)
                } else {
                    0.0
                };
                let test_id = match find_test
                    .query_row([&result.nodeid], |row| row.get::<_, i64>(0))
                    .optional()
                    .map_err(write_err)?
                {
                    Some(id) => id,
                    None => add_test.insert([&result.nodeid]).map_err(write_err)?,
                };
                // A failed teardown makes a test that otherwise passed (or
                // skipped) one `--lf` reruns, as pytest's lastfailed holds it.
                let outcome = if result.teardown_error.is_some() && !result.outcome.is_failure() {
                    Outcome::Error
                } else {
                    result.outcome
                };
                insert
                    .execute(params![
                        run_id,
                        test_id,
                        outcome.code(),
                        duration,
                        result.attempts,
                        result.flaky,
                        result.phase,
                    ])
                    .map_err(write_err)?;
                #[cfg(not(test))]
                let _ = written;
            }
        }
        tx.commit().map_err(write_err)?;
        Ok(run_id)
    }

    /// Deletes all but the newest `keep` runs and their results, and the
    /// tests no remaining run recorded; returns how many runs were deleted.
    pub fn prune(&mut self, keep: usize) -> Result<usize, HistoryError> {
        let write_err = |source| HistoryError::Write {
            path: self.path.clone(),
            source,
        };
        let keep = i64::try_from(keep).unwrap_or(i64::MAX);
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(write_err)?;
        let cutoff = "SELECT id FROM runs ORDER BY id DESC LIMIT -1 OFFSET ?1";
        tx.execute(
            &format!("DELETE FROM results WHERE run_id IN ({cutoff})"),
            [keep],
        )
        .map_err(write_err)?;
        let deleted = tx
            .execute(&format!("DELETE FROM runs WHERE id IN ({cutoff})"), [keep])
            .map_err(write_err)?;
        if deleted > 0 {
            tx.execute("DELETE FROM tests WHERE NOT EXISTS (SELECT 1 FROM results WHERE test_id = tests.id)", [])
                .map_err(write_err)?;
        }
        tx.commit().map_err(write_err)?;
        Ok(deleted)
    }
}

/// Milliseconds since the Unix epoch (negative before it).
fn unix_millis(time: SystemTime) -> i64 {
    match time.duration_since(UNIX_EPOCH) {
        Ok(after) => i64::try_from(after.as_millis()).unwrap_or(i64::MAX),
        Err(before) => -i64::try_from(before.duration().as_millis()).unwrap_or(i64::MAX),
    }
}

#[cfg(test)]
#[expect(clippy::float_cmp, reason = "the expected values are exact")]
pub(crate) mod tests {
    use std::process::Command;

    use super::*;

    /// A result with the given facts and secret-looking output and message.
    pub(crate) fn result(nodeid: &str, outcome: Outcome, duration: f64) -> TestResult {
        TestResult {
            nodeid: nodeid.into(),
            outcome,
            duration,
            phase: None,
            reason: Some("reason SECRET=r".into()),
            message: Some("AssertionError: token=hunter2".into()),
            teardown_error: None,
            output: "password=hunter2\n".into(),
            attempts: 1,
            flaky: false,
            markers: vec!["unit".to_owned()].into(),
            subtests: Vec::new(),
            location: None,
        }
    }

    /// A run record with a fixed time.
    pub(crate) fn run() -> RunRecord {
        RunRecord {
            started_at: UNIX_EPOCH + Duration::from_secs(1_700_000_000),
            finished_at: UNIX_EPOCH + Duration::from_secs(1_700_000_060),
            command: vec![
                "proctor".into(),
                "run".into(),
                "--token".into(),
                "abc".into(),
            ],
            selection: Some("unit and not slow".into()),
            exit_code: 0,
            shard: Some(ShardSpec { index: 2, count: 4 }),
        }
    }

    fn count(history: &History, table: &str) -> i64 {
        history
            .conn
            .query_row(&format!("SELECT COUNT(*) FROM {table}"), [], |row| {
                row.get(0)
            })
            .unwrap()
    }

    #[test]
    fn open_creates_parents_in_wal_mode_at_current_version() {
        let dir = tempfile::tempdir().unwrap();
        let path = History::default_path(dir.path());
        let history = History::open(&path).unwrap();
        assert!(path.is_file());
        assert_eq!(history.path(), path);
        let mode: String = history
            .conn
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
        assert_eq!(history.user_version().unwrap(), current_version());
        drop(history);
        // Reopening an up-to-date database changes nothing.
        let history = History::open(&path).unwrap();
        assert_eq!(count(&history, "runs"), 0);
    }

    #[test]
    fn open_refuses_a_newer_schema() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.db");
        let history = History::open(&path).unwrap();
        history
            .conn
            .pragma_update(None, "user_version", current_version() + 1)
            .unwrap();
        drop(history);
        let err = History::open(&path).unwrap_err();
        assert!(
            matches!(err, HistoryError::TooNew { found, .. } if found == current_version() + 1),
            "{err}"
        );
        assert!(err.to_string().contains("h.db"));
    }

    #[test]
    fn open_reports_the_directory_it_cannot_create() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("file");
        std::fs::write(&file, "").unwrap();
        let err = History::open(&file.join("sub/h.db")).unwrap_err();
        assert!(matches!(err, HistoryError::CreateDir { .. }));
        assert!(
            err.to_string().starts_with("cannot create directory"),
            "{err}"
        );
    }

    #[test]
    fn record_run_stores_only_the_allowed_fields() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.db");
        let mut history = History::open(&path).unwrap();
        let mut flaky = result("t.py::b", Outcome::Passed, f64::NAN);
        flaky.flaky = true;
        flaky.attempts = 2;
        flaky.phase = Some("db".into());
        let id = history
            .record_run(&run(), &[result("t.py::a", Outcome::Failed, 1.5), flaky])
            .unwrap();
        let (command, selection, shard, started): (String, String, String, i64) = history
            .conn
            .query_row(
                "SELECT command, selection, shard, started_at FROM runs WHERE id = ?1",
                [id],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
            )
            .unwrap();
        assert_eq!(command, "proctor run --token ***");
        assert_eq!(selection, "unit and not slow");
        assert_eq!(shard, "2/4");
        assert_eq!(started, 1_700_000_000_000);
        let stored = history.results_of(id).unwrap();
        assert_eq!(stored.len(), 2);
        assert_eq!(stored[1].duration, 0.0);
        assert!(stored[1].flaky);
        assert_eq!(stored[1].attempts, 2);
        assert_eq!(stored[1].phase.as_deref(), Some("db"));
        drop(history);
        let bytes = std::fs::read(&path).unwrap();
        let wal = std::fs::read(dir.path().join("h.db-wal")).unwrap_or_default();
        for needle in [&b"hunter2"[..], b"SECRET", b"abc"] {
            assert!(!bytes.windows(needle.len()).any(|w| w == needle));
            assert!(!wal.windows(needle.len()).any(|w| w == needle));
        }
    }

    #[test]
    fn an_error_midway_leaves_no_partial_run() {
        let dir = tempfile::tempdir().unwrap();
        let mut history = History::open(&dir.path().join("h.db")).unwrap();
        let results: Vec<_> = (0..20)
            .map(|i| result(&format!("t.py::t{i}"), Outcome::Passed, 1.0))
            .collect();
        history.record_run(&run(), &results).unwrap();
        history.fault = Some(Fault::Error(10));
        assert!(matches!(
            history.record_run(&run(), &results),
            Err(HistoryError::Write { .. })
        ));
        assert_eq!(count(&history, "runs"), 1);
        assert_eq!(count(&history, "results"), 20);
        // The connection is usable again and the next run gets recorded.
        history.fault = None;
        history.record_run(&run(), &results).unwrap();
        assert_eq!(count(&history, "runs"), 2);
        assert_eq!(count(&history, "results"), 40);
    }

    /// The child side of [`a_crash_midway_leaves_no_partial_run`]: does
    /// nothing unless the parent set the variable.
    #[test]
    fn crash_child() {
        let Some(path) = std::env::var_os("PROCTOR_HISTORY_CRASH_DB") else {
            return;
        };
        let mut history = History::open(Path::new(&path)).unwrap();
        // A tiny page cache makes SQLite spill uncommitted pages into the
        // WAL long before the commit, so the crash leaves them behind.
        history.conn.pragma_update(None, "cache_size", 2).unwrap();
        history.fault = Some(Fault::Abort(5_000));
        let results: Vec<_> = (0..6_000)
            .map(|i| result(&format!("t.py::t{i}"), Outcome::Passed, 1.0))
            .collect();
        let _ = history.record_run(&run(), &results);
        unreachable!("the fault aborts the process");
    }

    #[test]
    fn a_crash_midway_leaves_no_partial_run() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.db");
        let mut history = History::open(&path).unwrap();
        history
            .record_run(&run(), &[result("t.py::a", Outcome::Passed, 1.0)])
            .unwrap();
        let status = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "store::tests::crash_child",
                "--test-threads=1",
                "--quiet",
            ])
            .env("PROCTOR_HISTORY_CRASH_DB", &path)
            .output()
            .unwrap()
            .status;
        assert!(!status.success(), "the child must have crashed");
        let wal_len = std::fs::metadata(dir.path().join("h.db-wal")).map_or(0, |m| m.len());
        assert!(
            wal_len > 100_000,
            "uncommitted pages were spilled to the WAL ({wal_len} bytes)"
        );
        let mut history = History::open(&path).unwrap();
        let check: String = history
            .conn
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))
            .unwrap();
        assert_eq!(check, "ok");
        assert_eq!(count(&history, "runs"), 1);
        assert_eq!(count(&history, "results"), 1);
        history
            .record_run(&run(), &[result("t.py::b", Outcome::Passed, 1.0)])
            .unwrap();
        assert_eq!(count(&history, "runs"), 2);
    }

    #[test]
    fn prune_keeps_the_newest_runs() {
        let dir = tempfile::tempdir().unwrap();
        let mut history = History::open(&dir.path().join("h.db")).unwrap();
        let ids: Vec<i64> = (0..5)
            .map(|_| {
                history
                    .record_run(&run(), &[result("t.py::a", Outcome::Passed, 1.0)])
                    .unwrap()
            })
            .collect();
        assert_eq!(history.prune(2).unwrap(), 3);
        assert_eq!(count(&history, "runs"), 2);
        assert_eq!(count(&history, "results"), 2);
        assert!(
            history.results_of(ids[4]).unwrap().len() == 1
                && history.results_of(ids[0]).unwrap().is_empty()
        );
        assert_eq!(history.prune(10).unwrap(), 0);
        // A test only the pruned runs recorded goes with them.
        history
            .record_run(&run(), &[result("t.py::gone", Outcome::Passed, 1.0)])
            .unwrap();
        assert_eq!(count(&history, "tests"), 2);
        history.prune(1).unwrap();
        assert_eq!(count(&history, "tests"), 1);
        assert_eq!(
            history.results_of(ids[4] + 1).unwrap()[0].nodeid,
            "t.py::gone"
        );
    }

    #[test]
    fn a_node_id_is_stored_once() {
        let dir = tempfile::tempdir().unwrap();
        let mut history = History::open(&dir.path().join("h.db")).unwrap();
        let twice = [
            result("t.py::a", Outcome::Passed, 1.0),
            result("t.py::a", Outcome::Failed, 2.0),
        ];
        let first = history.record_run(&run(), &twice).unwrap();
        let second = history
            .record_run(
                &run(),
                &[result("t.py::b", Outcome::Passed, 1.0), twice[0].clone()],
            )
            .unwrap();
        assert_eq!(count(&history, "tests"), 2);
        assert_eq!(count(&history, "results"), 4);
        let nodeids = |id| {
            history
                .results_of(id)
                .unwrap()
                .into_iter()
                .map(|r| r.nodeid)
                .collect::<Vec<_>>()
        };
        assert_eq!(nodeids(first), ["t.py::a", "t.py::a"]);
        assert_eq!(nodeids(second), ["t.py::b", "t.py::a"]);
    }

    #[test]
    fn a_version_2_history_keeps_its_runs_when_migrated() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.db");
        {
            let conn = Connection::open(&path).unwrap();
            for sql in &MIGRATIONS[..2] {
                conn.execute_batch(sql).unwrap();
            }
            conn.pragma_update(None, "user_version", 2).unwrap();
            conn.execute_batch(
                "INSERT INTO runs (started_at, finished_at, command, exit_code) VALUES (1, 2, 'proctor run', 1), (3, 4, 'proctor run', 0);
                 INSERT INTO results (run_id, nodeid, outcome, duration, attempts, flaky, phase) VALUES
                    (1, 't.py::b', 'failed', 2.0, 1, 0, NULL),
                    (1, 't.py::a', 'passed', 1.0, 1, 0, 'db'),
                    (2, 't.py::a', 'passed', 3.0, 2, 1, NULL),
                    (2, 't.py::b', 'passed', 4.0, 1, 0, NULL);",
            )
            .unwrap();
        }
        let history = History::open(&path).unwrap();
        assert_eq!(history.user_version().unwrap(), current_version());
        assert_eq!(count(&history, "tests"), 2);
        let first = history.results_of(1).unwrap();
        assert_eq!(
            first.iter().map(|r| r.nodeid.as_str()).collect::<Vec<_>>(),
            ["t.py::b", "t.py::a"],
            "rows keep their order"
        );
        assert_eq!(
            (first[0].outcome, first[1].phase.as_deref()),
            (Outcome::Failed, Some("db"))
        );
        let second = history.results_of(2).unwrap();
        assert_eq!(
            (
                second[0].nodeid.as_str(),
                second[0].attempts,
                second[0].flaky
            ),
            ("t.py::a", 2, true)
        );
        assert_eq!(history.durations(10).unwrap()["t.py::a"], 2.0);
        let flaky: Vec<_> = history
            .flaky(10)
            .unwrap()
            .into_iter()
            .map(|t| t.nodeid)
            .collect();
        assert_eq!(flaky, ["t.py::a", "t.py::b"]);
    }

    #[test]
    fn unix_millis_handles_both_sides_of_the_epoch() {
        assert_eq!(unix_millis(UNIX_EPOCH + Duration::from_millis(1500)), 1500);
        assert_eq!(unix_millis(UNIX_EPOCH - Duration::from_millis(20)), -20);
    }
}
