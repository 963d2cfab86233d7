//! A run with every outcome, flaky and grouped skips, shared by the tests.

use proctor_outcome::{Outcome, RunSummary, TestResult};

/// A result with no reason, message, output or marker.
pub(crate) fn result(nodeid: &str, outcome: Outcome) -> TestResult {
    TestResult::new(nodeid, outcome)
}

fn with_reason(mut result: TestResult, reason: &str) -> TestResult {
    result.reason = Some(reason.to_owned());
    result
}

fn with_message(mut result: TestResult, message: &str) -> TestResult {
    result.message = Some(message.to_owned());
    result
}

pub(crate) const OLLAMA: &str = "service ollama not reachable at 127.0.0.1:11434";

/// Eleven results: passed, failed with output, three skips under two
/// reasons, flaky, crashed, timed out, error, xfailed, xpassed.
pub(crate) fn results() -> Vec<TestResult> {
    let mut ok = result("tests/unit/test_a.py::test_ok", Outcome::Passed);
    ok.duration = 0.012;
    ok.markers = vec!["unit".to_owned()].into();
    let mut failed = with_message(
        result("tests/unit/test_a.py::TestX::test_fail[1]", Outcome::Failed),
        "    def test_fail(n):\n>       assert n == 2\nE       assert 1 == 2\n\ntests/unit/test_a.py:9: AssertionError\n",
    );
    failed.output.push_str("hello from test_fail\n");
    failed.duration = 0.5;
    failed.markers = vec!["unit".to_owned()].into();
    let mut llama = with_reason(
        result(
            "tests/integration/test_ollama.py::test_generate[llama3]",
            Outcome::Skipped,
        ),
        OLLAMA,
    );
    llama.markers = vec!["integration".to_owned(), "ollama".to_owned()].into();
    let qwen = with_reason(
        result(
            "tests/integration/test_ollama.py::test_generate[qwen2.5]",
            Outcome::Skipped,
        ),
        OLLAMA,
    );
    let openai = with_reason(
        result("tests/e2e/test_openai.py::test_chat", Outcome::Skipped),
        "OPENAI_API_KEY not set",
    );
    let mut flaky = result("tests/unit/test_b.py::test_flaky", Outcome::Passed);
    flaky.flaky = true;
    flaky.attempts = 2;
    flaky.phase = Some("unit".to_owned());
    let crashed = with_message(
        result("tests/unit/test_b.py::test_segv", Outcome::Crashed),
        "the pytest process died with signal 11 (SIGSEGV)",
    );
    let timed_out = with_message(
        result("tests/unit/test_b.py::test_slow", Outcome::TimedOut),
        "timed out after 30.00s; the process was killed",
    );
    let error = with_message(
        result("tests/unit/test_b.py::test_db", Outcome::Error),
        "    @pytest.fixture\n    def db():\n>       raise ConnectionError(\"db down\")\nE       ConnectionError: db down\n",
    );
    let xfailed = with_reason(
        result("tests/unit/test_b.py::test_known_bug", Outcome::Xfailed),
        "bug #12",
    );
    let xpassed = with_reason(
        result("tests/unit/test_b.py::test_fixed", Outcome::Xpassed),
        "bug #13",
    );
    vec![
        ok, failed, llama, qwen, openai, flaky, crashed, timed_out, error, xfailed, xpassed,
    ]
}

/// The summary of [`results`]: two deselected, 1.2 seconds.
pub(crate) fn summary(results: &[TestResult]) -> RunSummary {
    RunSummary::of(results, 2, 1.2, false)
}
