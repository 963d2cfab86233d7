//! What the history says: median durations per test, tests that are flaky
//! across runs, and one run's stored results.
//!
//! Windows are per test: "the last N runs" of a test are the last N runs
//! that recorded it, so that a test run only in shard 3 of 4, or only in
//! nightly runs, has as much history as any other.

use std::collections::HashMap;

use proctor_outcome::Outcome;
use serde::{Deserialize, Serialize};

use crate::error::HistoryError;
use crate::outcome;
use crate::schema::WENT_WRONG;
use crate::stats::median;
use crate::store::History;

/// A test that both passed and failed within its window, or passed only
/// on a rerun.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlakyTest {
    /// The node id.
    pub nodeid: String,
    /// Runs in the window in which the test ran (skips do not count).
    pub runs: usize,
    /// Runs in which it failed (failed, error, crashed, timed out).
    pub failures: usize,
    /// Runs in which it failed at first and passed on a rerun.
    pub passes_after_rerun: usize,
}

impl FlakyTest {
    /// Runs that went wrong at least once: failures plus passes after a
    /// rerun. The ordering key of [`History::flaky`].
    #[must_use]
    pub fn unstable(&self) -> usize {
        self.failures + self.passes_after_rerun
    }
}

/// One stored result: exactly what the history keeps of a [`proctor_outcome::TestResult`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredResult {
    /// The node id.
    pub nodeid: String,
    /// How it ended.
    pub outcome: Outcome,
    /// Its duration in seconds.
    pub duration: f64,
    /// Attempts made.
    pub attempts: u32,
    /// Whether it passed only on a rerun.
    pub flaky: bool,
    /// The phase it ran in.
    pub phase: Option<String>,
}

/// One test's last durations, newest first: `?1` is its node id, `?2` how
/// many.
const DURATIONS_OF_ONE: &str =
    "SELECT duration FROM results WHERE test_id = (SELECT id FROM tests WHERE nodeid = ?1)
     AND outcome IN ('passed', 'failed') ORDER BY run_id DESC LIMIT ?2";

impl History {
    /// The median duration of each test over its last `last_runs` passed
    /// or failed results (skips, errors, crashes and timeouts say nothing
    /// about how long the test takes). Tests with no such result are
    /// absent.
    pub fn durations(&self, last_runs: usize) -> Result<HashMap<String, f64>, HistoryError> {
        let read_err = |source| HistoryError::Read {
            path: self.path.clone(),
            source,
        };
        let mut statement = self
            .conn
            .prepare(
                "SELECT tests.nodeid, duration FROM (
                    SELECT test_id, duration,
                           ROW_NUMBER() OVER (PARTITION BY test_id ORDER BY run_id DESC) AS n
                    FROM results WHERE outcome IN ('passed', 'failed')
                 ) JOIN tests ON tests.id = test_id WHERE n <= ?1",
            )
            .map_err(read_err)?;
        let mut samples: HashMap<String, Vec<f64>> = HashMap::new();
        let rows = statement
            .query_map([window(last_runs)], |row| {
                Ok((row.get::<_, String>(0)?, row.get::<_, f64>(1)?))
            })
            .map_err(read_err)?;
        for row in rows {
            let (nodeid, duration) = row.map_err(read_err)?;
            samples.entry(nodeid).or_default().push(duration);
        }
        Ok(samples
            .into_iter()
            .filter_map(|(nodeid, mut values)| median(&mut values).map(|m| (nodeid, m)))
            .collect())
    }

    /// [`History::durations`] of the given tests only, each read through
    /// its index: the cost follows the number of tests asked for, not the
    /// size of the history (which `durations` reads whole).
    pub fn durations_of<'a>(
        &self,
        nodeids: impl IntoIterator<Item = &'a str>,
        last_runs: usize,
    ) -> Result<HashMap<String, f64>, HistoryError> {
        let read_err = |source| HistoryError::Read {
            path: self.path.clone(),
            source,
        };
        let mut statement = self.conn.prepare(DURATIONS_OF_ONE).map_err(read_err)?;
        let mut found = HashMap::new();
        for nodeid in nodeids {
            let mut values: Vec<f64> = statement
                .query_map(rusqlite::params![nodeid, window(last_runs)], |row| {
                    row.get::<_, f64>(0)
                })
                .map_err(read_err)?
                .collect::<Result<_, _>>()
                .map_err(read_err)?;
            if let Some(m) = median(&mut values) {
                found.insert(nodeid.to_owned(), m);
            }
        }
        Ok(found)
    }

    /// The tests that, within their last `last_runs` runs (skips not
    /// counted), both passed and failed, or passed only on a rerun; most
    /// unstable first (see [`FlakyTest::unstable`]), then fewest runs, then
    /// by node id.
    pub fn flaky(&self, last_runs: usize) -> Result<Vec<FlakyTest>, HistoryError> {
        let read_err = |source| HistoryError::Read {
            path: self.path.clone(),
            source,
        };
        let failures = outcome::failure_set();
        let mut statement = self
            .conn
            .prepare(&format!(
                "SELECT tests.nodeid, COUNT(*), SUM(outcome IN {failures}), SUM(outcome = 'passed'), SUM(flaky != 0)
                 FROM (
                    SELECT test_id, outcome, flaky,
                           ROW_NUMBER() OVER (PARTITION BY test_id ORDER BY run_id DESC) AS n
                    FROM results WHERE outcome != 'skipped'
                        AND test_id IN (SELECT test_id FROM results WHERE {WENT_WRONG})
                 ) JOIN tests ON tests.id = test_id WHERE n <= ?1
                 GROUP BY test_id"
            ))
            .map_err(read_err)?;
        let rows = statement
            .query_map([window(last_runs)], |row| {
                Ok((
                    row.get::<_, String>(0)?,
                    count_at(row, 1)?,
                    count_at(row, 2)?,
                    count_at(row, 3)?,
                    count_at(row, 4)?,
                ))
            })
            .map_err(read_err)?;
        let mut flaky = Vec::new();
        for row in rows {
            let (nodeid, runs, failures, passes, passes_after_rerun) = row.map_err(read_err)?;
            if (failures > 0 && passes > 0) || passes_after_rerun > 0 {
                flaky.push(FlakyTest {
                    nodeid,
                    runs,
                    failures,
                    passes_after_rerun,
                });
            }
        }
        flaky.sort_by(|a, b| {
            b.unstable()
                .cmp(&a.unstable())
                .then(a.runs.cmp(&b.runs))
                .then_with(|| a.nodeid.cmp(&b.nodeid))
        });
        Ok(flaky)
    }

    /// The tests whose most recent recorded result is a failure (failed,
    /// error, crashed, timed out), as pytest's `lastfailed` cache holds
    /// them: a test leaves it when it next passes or is skipped, and stays
    /// in it through the runs that do not run it. Node ids of modules that
    /// failed to collect are included.
    pub fn last_failed(&self) -> Result<Vec<String>, HistoryError> {
        let read_err = |source| HistoryError::Read {
            path: self.path.clone(),
            source,
        };
        let failures = outcome::failure_set();
        // Only tests that ever went wrong are looked at (an index holds
        // them): the cost follows the failures, not the history's size.
        let mut statement = self
            .conn
            .prepare(&format!(
                "SELECT tests.nodeid FROM (
                    SELECT test_id, outcome,
                           ROW_NUMBER() OVER (PARTITION BY test_id ORDER BY run_id DESC) AS n
                    FROM results WHERE test_id IN (SELECT test_id FROM results WHERE {WENT_WRONG})
                 ) JOIN tests ON tests.id = test_id WHERE n = 1 AND outcome IN {failures}
                 ORDER BY tests.nodeid"
            ))
            .map_err(read_err)?;
        let rows = statement
            .query_map([], |row| row.get::<_, String>(0))
            .map_err(read_err)?;
        rows.collect::<Result<_, _>>().map_err(read_err)
    }

    /// How many runs are recorded.
    pub fn run_count(&self) -> Result<usize, HistoryError> {
        self.conn
            .query_row("SELECT COUNT(*) FROM runs", [], |row| count_at(row, 0))
            .map_err(|source| HistoryError::Read {
                path: self.path.clone(),
                source,
            })
    }

    /// The results stored for run `run_id`, in the order they were given
    /// (empty when there is no such run).
    pub fn results_of(&self, run_id: i64) -> Result<Vec<StoredResult>, HistoryError> {
        let read_err = |source| HistoryError::Read {
            path: self.path.clone(),
            source,
        };
        let mut statement = self
            .conn
            .prepare(
                "SELECT tests.nodeid, outcome, duration, attempts, flaky, phase
                 FROM results JOIN tests ON tests.id = results.test_id
                 WHERE run_id = ?1 ORDER BY results.rowid",
            )
            .map_err(read_err)?;
        let rows = statement
            .query_map([run_id], |row| {
                Ok((
                    row.get::<_, String>(0)?,
                    row.get::<_, String>(1)?,
                    row.get::<_, f64>(2)?,
                    row.get::<_, u32>(3)?,
                    row.get::<_, bool>(4)?,
                    row.get::<_, Option<String>>(5)?,
                ))
            })
            .map_err(read_err)?;
        let mut results = Vec::new();
        for row in rows {
            let (nodeid, code, duration, attempts, flaky, phase) = row.map_err(read_err)?;
            let outcome =
                Outcome::from_code(&code).ok_or_else(|| HistoryError::UnknownOutcome {
                    path: self.path.clone(),
                    outcome: code,
                })?;
            results.push(StoredResult {
                nodeid,
                outcome,
                duration,
                attempts,
                flaky,
                phase,
            });
        }
        Ok(results)
    }
}

/// Column `index` of `row`, a count (`SQLite` integers are signed).
fn count_at(row: &rusqlite::Row<'_>, index: usize) -> rusqlite::Result<usize> {
    let count: i64 = row.get(index)?;
    Ok(usize::try_from(count).unwrap_or(0))
}

/// `last_runs` as an SQL integer.
fn window(last_runs: usize) -> i64 {
    i64::try_from(last_runs).unwrap_or(i64::MAX)
}

#[cfg(test)]
#[expect(clippy::float_cmp, reason = "the expected values are exact")]
mod tests {
    use proctor_outcome::{Outcome, TestResult};

    use super::*;
    use crate::store::tests::{result, run};

    fn history_with(runs: &[Vec<TestResult>]) -> (tempfile::TempDir, History) {
        let dir = tempfile::tempdir().unwrap();
        let mut history = History::open(&dir.path().join("h.db")).unwrap();
        for results in runs {
            history.record_run(&run(), results).unwrap();
        }
        (dir, history)
    }

    #[test]
    fn last_failed_holds_the_tests_whose_latest_result_failed() {
        let (_dir, history) = history_with(&[
            vec![
                result("a", Outcome::Failed, 1.0),
                result("b", Outcome::Failed, 1.0),
                result("c", Outcome::Error, 1.0),
            ],
            vec![
                result("a", Outcome::Passed, 1.0),
                result("c", Outcome::Skipped, 0.0),
                result("d", Outcome::Crashed, 1.0),
            ],
            vec![result("e", Outcome::Passed, 1.0)],
        ]);
        // `b` did not run since it failed: it stays, as in pytest's cache.
        assert_eq!(history.last_failed().unwrap(), ["b", "d"]);
    }

    /// Four runs of tests `a`, `b` and `c` with durations of every kind of
    /// result.
    fn timed_runs() -> Vec<Vec<TestResult>> {
        vec![
            vec![
                result("a", Outcome::Passed, 100.0),
                result("b", Outcome::Passed, 2.0),
            ],
            vec![
                result("a", Outcome::Passed, 1.0),
                result("b", Outcome::Skipped, 0.0),
            ],
            vec![
                result("a", Outcome::Failed, 3.0),
                result("b", Outcome::Crashed, 50.0),
            ],
            vec![
                result("a", Outcome::Passed, 2.0),
                result("c", Outcome::Skipped, 0.0),
            ],
        ]
    }

    #[test]
    fn durations_are_medians_over_each_tests_window() {
        let (_dir, history) = history_with(&timed_runs());
        let all = history.durations(10).unwrap();
        assert_eq!(all.len(), 2, "c never passed or failed: {all:?}");
        assert_eq!(all["a"], 2.5);
        assert_eq!(all["b"], 2.0);
        let last3 = history.durations(3).unwrap();
        assert_eq!(last3["a"], 2.0);
        assert_eq!(last3["b"], 2.0, "b's window is its own last results");
        assert!(history.durations(0).unwrap().is_empty());
        assert_eq!(history.run_count().unwrap(), 4);
    }

    #[test]
    fn durations_of_some_tests_are_their_durations() {
        let (_dir, history) = history_with(&timed_runs());
        for window in [0, 1, 3, 10] {
            let all = history.durations(window).unwrap();
            let some = history.durations_of(["a", "c", "unknown"], window).unwrap();
            let expected: HashMap<String, f64> =
                all.into_iter().filter(|(n, _)| n == "a").collect();
            assert_eq!(some, expected, "window {window}");
        }
    }

    #[test]
    fn finding_flaky_tests_reads_only_what_went_wrong() {
        // The partial index's condition is the failing outcomes' set: a
        // new failing outcome must be added to both.
        assert_eq!(
            WENT_WRONG,
            format!("outcome IN {} OR flaky != 0", outcome::failure_set())
        );
        let (_dir, history) = history_with(&[vec![result("a", Outcome::Passed, 1.0)]]);
        let plan = plan_of(
            &history,
            &format!("SELECT test_id FROM results WHERE {WENT_WRONG}"),
        );
        assert!(
            plan.iter().any(|step| step.contains("results_wrong")),
            "{plan:?}"
        );
    }

    #[test]
    fn durations_of_a_test_read_its_index_entries() {
        let (_dir, history) = history_with(&[vec![result("a", Outcome::Passed, 1.0)]]);
        let plan = plan_of(&history, DURATIONS_OF_ONE);
        assert!(
            plan.iter()
                .any(|step| step.contains("USING INDEX results_test (test_id=?)")),
            "{plan:?}"
        );
        assert!(
            plan.iter()
                .any(|step| step.contains("tests USING COVERING INDEX")),
            "{plan:?}"
        );
        assert!(
            !plan.iter().any(|step| step.starts_with("SCAN")),
            "{plan:?}"
        );
    }

    /// The steps of `SQLite`'s plan for `sql`, its parameters unbound.
    fn plan_of(history: &History, sql: &str) -> Vec<String> {
        let mut statement = history
            .conn
            .prepare(&format!("EXPLAIN QUERY PLAN {sql}"))
            .unwrap();
        let unbound = std::iter::repeat_n(rusqlite::types::Null, statement.parameter_count());
        statement
            .query_map(rusqlite::params_from_iter(unbound), |row| {
                row.get::<_, String>(3)
            })
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    }

    #[test]
    fn flaky_tests_passed_and_failed_or_needed_a_rerun() {
        let mut rerun = result("c", Outcome::Passed, 1.0);
        rerun.flaky = true;
        rerun.attempts = 2;
        let (_dir, history) = history_with(&[
            vec![
                result("a", Outcome::Failed, 1.0),
                result("b", Outcome::Passed, 1.0),
                result("d", Outcome::Failed, 1.0),
            ],
            vec![
                result("a", Outcome::Passed, 1.0),
                result("b", Outcome::TimedOut, 1.0),
                result("d", Outcome::Failed, 1.0),
            ],
            vec![
                result("a", Outcome::Error, 1.0),
                result("b", Outcome::Skipped, 1.0),
                rerun,
                result("e", Outcome::Passed, 1.0),
            ],
            vec![
                result("a", Outcome::Passed, 1.0),
                result("b", Outcome::Passed, 1.0),
                result("e", Outcome::Passed, 1.0),
            ],
        ]);
        let flaky = history.flaky(10).unwrap();
        let expected = vec![
            FlakyTest {
                nodeid: "a".into(),
                runs: 4,
                failures: 2,
                passes_after_rerun: 0,
            },
            FlakyTest {
                nodeid: "c".into(),
                runs: 1,
                failures: 0,
                passes_after_rerun: 1,
            },
            FlakyTest {
                nodeid: "b".into(),
                runs: 3,
                failures: 1,
                passes_after_rerun: 0,
            },
        ];
        assert_eq!(
            flaky, expected,
            "d always fails and e always passes: neither is flaky"
        );
        // In the last 1 run of each test, only c's rerun remains.
        let recent: Vec<_> = history
            .flaky(1)
            .unwrap()
            .into_iter()
            .map(|f| f.nodeid)
            .collect();
        assert_eq!(recent, ["c"]);
    }

    #[test]
    fn results_of_reports_unknown_outcomes() {
        let (_dir, history) = history_with(&[vec![result("a", Outcome::Passed, 1.0)]]);
        history
            .conn
            .execute("UPDATE results SET outcome = 'vanished'", [])
            .unwrap();
        let err = history.results_of(1).unwrap_err();
        assert!(
            err.to_string().contains("unknown outcome `vanished`"),
            "{err}"
        );
        assert!(history.results_of(99).unwrap().is_empty());
    }
}
