//! The database schema, as an ordered list of migrations. The schema
//! version is `SQLite`'s `user_version`: migration `i` (0-based) takes a
//! database from version `i` to `i + 1`. Migrations are only ever appended.

/// The migrations, oldest first.
pub(crate) const MIGRATIONS: &[&str] = &[
    // Version 1: runs and their per-test results.
    "CREATE TABLE runs (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        started_at INTEGER NOT NULL,
        finished_at INTEGER NOT NULL,
        command TEXT NOT NULL,
        selection TEXT,
        exit_code INTEGER NOT NULL,
        shard TEXT
    );
    CREATE TABLE results (
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        nodeid TEXT NOT NULL,
        outcome TEXT NOT NULL,
        duration REAL NOT NULL,
        attempts INTEGER NOT NULL,
        flaky INTEGER NOT NULL,
        phase TEXT
    );
    CREATE INDEX results_nodeid ON results(nodeid, run_id);
    CREATE INDEX results_run ON results(run_id);",
    // Version 2: the results that went wrong (failing outcomes, passes on
    // a rerun), few among many, so that finding the flaky tests after each
    // run reads them and not the whole history. The condition must stay
    // `WENT_WRONG` word for word: SQLite uses a partial index only for a
    // query that repeats its condition.
    "CREATE INDEX results_wrong ON results(nodeid) WHERE outcome IN ('failed', 'error', 'crashed', 'timed-out') OR flaky != 0;",
];

/// The condition of the `results_wrong` index, for the queries that use it.
pub(crate) const WENT_WRONG: &str = "outcome IN ('failed', 'error', 'crashed', 'timed-out') OR flaky != 0";

/// The schema version this build writes.
pub(crate) fn current_version() -> u32 {
    u32::try_from(MIGRATIONS.len()).expect("fewer than 2^32 migrations")
}
