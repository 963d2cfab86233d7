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
    // Version 3: node ids stored once, in `tests`; results refer to them by
    // an integer. Recording a run inserts into every index of `results`,
    // and an index of integers is a fraction of the size of one of node
    // ids: with 4,000 tests and 20 earlier runs, recording a run went from
    // 40-45 ms to 15-25 ms (`cargo bench -p proctor_history --bench
    // record`). Rows keep their order (`rowid`).
    "CREATE TABLE tests (
        id INTEGER PRIMARY KEY,
        nodeid TEXT NOT NULL UNIQUE
    );
    INSERT INTO tests (nodeid) SELECT nodeid FROM results GROUP BY nodeid ORDER BY MIN(rowid);
    CREATE TABLE results_by_test (
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        test_id INTEGER NOT NULL REFERENCES tests(id),
        outcome TEXT NOT NULL,
        duration REAL NOT NULL,
        attempts INTEGER NOT NULL,
        flaky INTEGER NOT NULL,
        phase TEXT
    );
    INSERT INTO results_by_test (rowid, run_id, test_id, outcome, duration, attempts, flaky, phase)
        SELECT results.rowid, run_id, tests.id, outcome, duration, attempts, flaky, phase
        FROM results JOIN tests ON tests.nodeid = results.nodeid ORDER BY results.rowid;
    DROP TABLE results;
    ALTER TABLE results_by_test RENAME TO results;
    CREATE INDEX results_test ON results(test_id, run_id);
    CREATE INDEX results_run ON results(run_id);
    CREATE INDEX results_wrong ON results(test_id) WHERE outcome IN ('failed', 'error', 'crashed', 'timed-out') OR flaky != 0;",
];

/// The condition of the `results_wrong` index, for the queries that use it.
pub(crate) const WENT_WRONG: &str =
    "outcome IN ('failed', 'error', 'crashed', 'timed-out') OR flaky != 0";

/// The schema version this build writes.
pub(crate) fn current_version() -> u32 {
    u32::try_from(MIGRATIONS.len()).expect("fewer than 2^32 migrations")
}
