//! What recording a run costs as the history grows: `record_run` of 4,000
//! results into a history of 0 to 40 earlier runs, and the reads
//! `proctor run` does after it (flaky tests, durations of the run's
//! tests), then dropping the oldest run to keep the history's size. A
//! benchmark, not a test: it prints milliseconds.
//!
//!     cargo bench -p proctor_history --bench record
//!
//! `bench/run/run.sh` measures the same end to end, as a ratio to bare
//! pytest.
#![expect(clippy::print_stdout, reason = "a benchmark prints its figures")]

use std::time::{Duration, Instant, UNIX_EPOCH};

use proctor_history::{History, RunRecord};
use proctor_outcome::{Outcome, TestResult};

const MODULES: usize = 200;
const TESTS: usize = 20;
const ROUNDS: usize = 5;

fn main() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("history.db");
    let mut history = History::open(&path).expect("the history opens");
    let results = results();
    let record = RunRecord {
        started_at: UNIX_EPOCH + Duration::from_secs(1_700_000_000),
        finished_at: UNIX_EPOCH + Duration::from_secs(1_700_000_003),
        command: vec!["proctor".into(), "run".into()],
        selection: None,
        exit_code: 1,
        shard: None,
    };
    println!(
        "{:>12} {:>12} {:>12} {:>12} {:>12}",
        "earlier runs", "record ms", "flaky ms", "durations ms", "prune ms"
    );
    let mut earlier = 0;
    for checkpoint in [0, 10, 20, 40] {
        while earlier < checkpoint {
            history.record_run(&record, &results).expect("recorded");
            earlier += 1;
        }
        let mut record_ms = Vec::new();
        let mut flaky_ms = Vec::new();
        let mut durations_ms = Vec::new();
        let mut prune_ms = Vec::new();
        for _ in 0..ROUNDS {
            // Each round records one more run and then drops the oldest,
            // so that every round writes into a history of the same size.
            let took = Instant::now();
            history.record_run(&record, &results).expect("recorded");
            record_ms.push(took.elapsed());
            let took = Instant::now();
            std::hint::black_box(history.flaky(20).expect("flaky"));
            flaky_ms.push(took.elapsed());
            let took = Instant::now();
            std::hint::black_box(
                history
                    .durations_of(results.iter().map(|r| r.nodeid.as_str()), 20)
                    .expect("durations"),
            );
            durations_ms.push(took.elapsed());
            let took = Instant::now();
            history.prune(checkpoint).expect("pruned");
            prune_ms.push(took.elapsed());
        }
        println!(
            "{checkpoint:>12} {:>12.1} {:>12.1} {:>12.1} {:>12.1}",
            median_ms(record_ms),
            median_ms(flaky_ms),
            median_ms(durations_ms),
            median_ms(prune_ms)
        );
    }
}

/// One run's results: 200 modules of 20 tests, one in 50 failing.
fn results() -> Vec<TestResult> {
    (0..MODULES * TESTS)
        .map(|i| {
            let (module, test) = (i / TESTS, i % TESTS);
            let outcome = if i % 50 == 7 {
                Outcome::Failed
            } else {
                Outcome::Passed
            };
            TestResult {
                duration: 0.001 * u32::try_from(i % 13).map_or(0.0, f64::from),
                ..TestResult::new(
                    format!("tests/test_m{module:03}.py::test_{module}_{test}"),
                    outcome,
                )
            }
        })
        .collect()
}

/// The median, in milliseconds.
fn median_ms(mut samples: Vec<Duration>) -> f64 {
    samples.sort();
    samples[samples.len() / 2].as_secs_f64() * 1000.0
}
