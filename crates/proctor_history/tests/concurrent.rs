//! Parallel shards on one machine record into the same database at once:
//! every run and every result must arrive, whether the writers are
//! threads with their own connections or separate processes.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, UNIX_EPOCH};

use proctor_history::{History, RunRecord, ShardSpec};
use proctor_outcome::{Outcome, TestResult};

const WRITERS: usize = 4;
const RUNS_PER_WRITER: usize = 50;
const RESULTS_PER_RUN: usize = 25;

/// Records `RUNS_PER_WRITER` runs as shard `writer` of `WRITERS`.
fn write_runs(path: &Path, writer: usize) {
    let mut history = History::open(path).unwrap();
    for run in 0..RUNS_PER_WRITER {
        let results: Vec<TestResult> = (0..RESULTS_PER_RUN)
            .map(|i| TestResult {
                duration: 0.1,
                ..TestResult::new(
                    format!("tests/test_w{writer}.py::test_{i}"),
                    if (run + i) % 7 == 0 {
                        Outcome::Failed
                    } else {
                        Outcome::Passed
                    },
                )
            })
            .collect();
        let record = RunRecord {
            started_at: UNIX_EPOCH + Duration::from_secs(1_700_000_000),
            finished_at: UNIX_EPOCH + Duration::from_secs(1_700_000_001),
            command: vec!["proctor".into(), "run".into()],
            selection: None,
            exit_code: 0,
            shard: Some(ShardSpec::new(writer, WRITERS).unwrap()),
        };
        history.record_run(&record, &results).unwrap();
    }
}

/// Checks that all `WRITERS × RUNS_PER_WRITER` runs arrived whole.
fn assert_nothing_lost(path: &Path) {
    let history = History::open(path).unwrap();
    assert_eq!(history.run_count().unwrap(), WRITERS * RUNS_PER_WRITER);
    for run_id in 1..=i64::try_from(WRITERS * RUNS_PER_WRITER).unwrap() {
        assert_eq!(
            history.results_of(run_id).unwrap().len(),
            RESULTS_PER_RUN,
            "run {run_id}"
        );
    }
    let durations = history.durations(1000).unwrap();
    assert_eq!(durations.len(), WRITERS * RESULTS_PER_RUN);
}

#[test]
fn concurrent_threads_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(".proctor/history.db");
    std::thread::scope(|scope| {
        for writer in 1..=WRITERS {
            let path = &path;
            scope.spawn(move || write_runs(path, writer));
        }
    });
    assert_nothing_lost(&path);
}

/// The child side of [`concurrent_processes_lose_nothing`]: does nothing
/// unless the parent set the variables.
#[test]
fn writer_child() {
    let (Some(path), Some(writer)) = (
        std::env::var_os("PROCTOR_HISTORY_TEST_DB"),
        std::env::var("PROCTOR_HISTORY_TEST_WRITER").ok(),
    ) else {
        return;
    };
    write_runs(Path::new(&path), writer.parse().unwrap());
}

#[test]
fn concurrent_processes_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    // No database yet: the processes also race to create and migrate it.
    let path = dir.path().join(".proctor/history.db");
    let children: Vec<_> = (1..=WRITERS)
        .map(|writer| {
            Command::new(std::env::current_exe().unwrap())
                .args(["--exact", "writer_child", "--test-threads=1", "--quiet"])
                .env("PROCTOR_HISTORY_TEST_DB", &path)
                .env("PROCTOR_HISTORY_TEST_WRITER", writer.to_string())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let output = child.wait_with_output().unwrap();
        assert!(
            output.status.success(),
            "writer failed: {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    assert_nothing_lost(&path);
}
