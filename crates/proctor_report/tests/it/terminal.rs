//! The terminal summary and progress line, compared whole.

use std::collections::BTreeMap;

use proctor_outcome::{Outcome, RunSummary};
use proctor_report::{progress_line, summary, SummaryOptions};

use crate::fixture::{self, result};

const MIXED: &str = "\
==================================== ERRORS ====================================
__________________________ ERROR at setup of test_db ___________________________
    @pytest.fixture
    def db():
>       raise ConnectionError(\"db down\")
E       ConnectionError: db down
=================================== FAILURES ===================================
______________________________ TestX.test_fail[1] ______________________________
    def test_fail(n):
>       assert n == 2
E       assert 1 == 2

tests/unit/test_a.py:9: AssertionError
------------------------------- Captured output --------------------------------
hello from test_fail
__________________________________ test_segv ___________________________________
the pytest process died with signal 11 (SIGSEGV)
__________________________________ test_slow ___________________________________
timed out after 30.00s; the process was killed
=========================== short test summary info ============================
SKIPPED [2] service ollama not reachable at 127.0.0.1:11434
SKIPPED [1] OPENAI_API_KEY not set
XFAIL tests/unit/test_b.py::test_known_bug - bug #12
XPASS tests/unit/test_b.py::test_fixed - bug #13
ERROR tests/unit/test_b.py::test_db - ConnectionError: db down
CRASHED tests/unit/test_b.py::test_segv - the pytest process died with signal 11 (SIGSEGV)
TIMEOUT tests/unit/test_b.py::test_slow - timed out after 30.00s; the process was killed
FAILED tests/unit/test_a.py::TestX::test_fail[1] - assert 1 == 2
FLAKY tests/unit/test_b.py::test_flaky (passed on attempt 2 of 3)
= 1 failed, 2 passed, 3 skipped, 1 xfailed, 1 xpassed, 1 error, 1 crashed, 1 timed out, 1 flaky, 2 deselected in 1.20s =
";

#[test]
fn mixed_run_reads_like_pytest() {
    let results = fixture::results();
    let options = SummaryOptions {
        max_attempts: Some(3),
        ..SummaryOptions::default()
    };
    assert_eq!(
        summary(&results, &fixture::summary(&results), &options),
        MIXED
    );
}

#[test]
fn passing_run_is_one_centered_rule() {
    let results = [
        result("a.py::t1", Outcome::Passed),
        result("a.py::t2", Outcome::Passed),
        result("a.py::t3", Outcome::Passed),
    ];
    let run = RunSummary::of(&results, 0, 0.05, false);
    assert_eq!(
        summary(&results, &run, &SummaryOptions::default()),
        "============================== 3 passed in 0.05s ===============================\n"
    );
    let narrow = SummaryOptions {
        width: 30,
        ..SummaryOptions::default()
    };
    assert_eq!(
        summary(&results, &run, &narrow),
        "===== 3 passed in 0.05s ======\n"
    );
}

#[test]
fn skips_can_be_hidden_and_flaky_needs_no_maximum() {
    let results = fixture::results();
    let options = SummaryOptions {
        show_skips: false,
        ..SummaryOptions::default()
    };
    let text = summary(&results, &fixture::summary(&results), &options);
    assert!(!text.contains("SKIPPED"));
    assert!(!text.contains("XFAIL "));
    assert!(text.contains("XPASS tests/unit/test_b.py::test_fixed - bug #13\n"));
    assert!(text.contains("FLAKY tests/unit/test_b.py::test_flaky (passed on attempt 2)\n"));
}

#[test]
fn skips_with_equal_counts_are_alphabetical() {
    let skip = |id: &str, reason: Option<&str>| {
        let mut r = result(id, Outcome::Skipped);
        r.reason = reason.map(str::to_owned);
        r
    };
    let results = [
        skip("t.py::a", Some("zeta")),
        skip("t.py::b", Some("Skipped: alpha")),
        skip("t.py::c", None),
        skip("t.py::d", Some("zeta")),
        skip("t.py::e", Some("alpha")),
    ];
    let text = summary(
        &results,
        &RunSummary::of(&results, 0, 0.0, false),
        &SummaryOptions::default(),
    );
    assert_eq!(
        text,
        "=========================== short test summary info ============================\n\
         SKIPPED [2] alpha\n\
         SKIPPED [2] zeta\n\
         SKIPPED [1] no reason given\n\
         ============================== 5 skipped in 0.00s ==============================\n"
    );
}

#[test]
fn passed_output_is_shown_on_request() {
    let mut noisy = result("t.py::test_noisy", Outcome::Passed);
    noisy.output.push_str("captured line\n");
    let results = [noisy, result("t.py::test_quiet", Outcome::Passed)];
    let run = RunSummary::of(&results, 0, 0.1, false);
    assert!(!summary(&results, &run, &SummaryOptions::default()).contains("PASSES"));
    let options = SummaryOptions {
        width: 40,
        show_passed_output: true,
        ..SummaryOptions::default()
    };
    assert_eq!(
        summary(&results, &run, &options),
        "================ PASSES ================\n\
         ______________ test_noisy ______________\n\
         ----------- Captured output ------------\n\
         captured line\n\
         ========== 2 passed in 0.10s ===========\n"
    );
}

#[test]
fn color_only_when_asked() {
    let results = fixture::results();
    let run = fixture::summary(&results);
    let plain = summary(&results, &run, &SummaryOptions::default());
    assert!(!plain.contains('\x1b'));
    let colored = summary(
        &results,
        &run,
        &SummaryOptions {
            color: true,
            ..SummaryOptions::default()
        },
    );
    assert!(colored.contains(
        "\x1b[31mFAILED\x1b[0m tests/unit/test_a.py::\x1b[1mTestX::test_fail[1]\x1b[0m - assert 1 == 2\n"
    ));
    assert!(colored.contains("\x1b[33mSKIPPED\x1b[0m [2] "));
    assert!(colored.ends_with(" =\x1b[0m\n"));
    assert!(colored
        .lines()
        .last()
        .unwrap()
        .starts_with("\x1b[31m\x1b[1m= 1 failed"));

    let passing = [result("a.py::t", Outcome::Passed)];
    let green = summary(
        &passing,
        &RunSummary::of(&passing, 0, 0.0, false),
        &SummaryOptions {
            color: true,
            ..SummaryOptions::default()
        },
    );
    assert!(green.starts_with("\x1b[32m\x1b[1m===="));
    let skipped = [result("a.py::t", Outcome::Skipped)];
    let yellow = summary(
        &skipped,
        &RunSummary::of(&skipped, 0, 0.0, false),
        &SummaryOptions {
            color: true,
            show_skips: false,
            ..SummaryOptions::default()
        },
    );
    assert!(yellow.starts_with("\x1b[33m\x1b[1m===="));
}

#[test]
fn progress_line_pads_to_the_total() {
    let counts = BTreeMap::from([
        (Outcome::Skipped, 1),
        (Outcome::Failed, 1),
        (Outcome::Passed, 40),
        (Outcome::Xfailed, 0),
    ]);
    assert_eq!(
        progress_line(42, 120, &counts),
        "[ 42/120] 40 passed, 1 failed, 1 skipped"
    );
    assert_eq!(progress_line(0, 7, &BTreeMap::new()), "[0/7]");
    let errors = BTreeMap::from([(Outcome::Error, 2), (Outcome::TimedOut, 1)]);
    assert_eq!(
        progress_line(3, 1000, &errors),
        "[   3/1000] 2 errors, 1 timed out"
    );
}
