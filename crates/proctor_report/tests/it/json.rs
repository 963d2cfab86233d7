//! The JSON report's shape.

use proctor_report::{json_report, ReportExtras, ReportMeta, JSON_REPORT_VERSION};
use serde_json::json;

use crate::fixture::{self, OLLAMA};

fn meta(seed: Option<u64>) -> ReportMeta {
    ReportMeta {
        proctor_version: "0.1.0".to_owned(),
        started_at: "2025-01-31T12:00:00Z".to_owned(),
        command: vec![
            "proctor".to_owned(),
            "run".to_owned(),
            "-m".to_owned(),
            "unit".to_owned(),
        ],
        selection: Some("-m unit".to_owned()),
        seed,
    }
}

#[test]
fn report_has_version_meta_summary_tests_and_skips() {
    let results = fixture::results();
    let summary = fixture::summary(&results);
    let report = json_report(
        &results,
        &summary,
        &meta(Some(42)),
        &ReportExtras::default(),
    );
    assert_eq!(report["version"], json!(JSON_REPORT_VERSION));
    assert_eq!(report["version"], json!(1));
    assert_eq!(
        report["meta"],
        json!({
            "proctor_version": "0.1.0",
            "started_at": "2025-01-31T12:00:00Z",
            "command": ["proctor", "run", "-m", "unit"],
            "selection": "-m unit",
            "seed": 42,
        })
    );
    assert_eq!(
        report["summary"],
        json!({
            "counts": {"passed": 2, "failed": 1, "error": 1, "skipped": 3, "xfailed": 1, "xpassed": 1, "crashed": 1, "timed-out": 1},
            "deselected": 2,
            "flaky": 1,
            "duration": 1.2,
            "exit_code": 1,
            "line": summary.line(),
        })
    );
    let tests = report["tests"].as_array().unwrap();
    assert_eq!(tests.len(), results.len());
    assert_eq!(
        tests[1]["nodeid"],
        "tests/unit/test_a.py::TestX::test_fail[1]"
    );
    assert_eq!(tests[1]["outcome"], "failed");
    assert_eq!(tests[1]["output"], "hello from test_fail\n");
    assert_eq!(tests[7]["outcome"], "timed-out");
    assert_eq!(tests[5]["flaky"], true);
    assert_eq!(tests[5]["attempts"], 2);
    assert_eq!(tests[5]["phase"], "unit");
    // Each test is the runner's own serialization, so it reads back as is.
    let back: proctor_outcome::TestResult = serde_json::from_value(tests[1].clone()).unwrap();
    assert_eq!(back, results[1]);
    assert_eq!(
        report["skips"],
        json!([
            {"reason": OLLAMA, "count": 2, "tests": [
                "tests/integration/test_ollama.py::test_generate[llama3]",
                "tests/integration/test_ollama.py::test_generate[qwen2.5]",
            ]},
            {"reason": "OPENAI_API_KEY not set", "count": 1, "tests": ["tests/e2e/test_openai.py::test_chat"]},
        ])
    );
    let keys: Vec<&str> = report
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["version", "meta", "summary", "tests", "skips"]);
}

#[test]
fn optional_meta_fields_are_left_out() {
    let mut meta = meta(None);
    meta.selection = None;
    let report = json_report(
        &[],
        &proctor_outcome::RunSummary::of(&[], 0, 0.0, false),
        &meta,
        &ReportExtras::default(),
    );
    let fields = report["meta"].as_object().unwrap();
    assert!(!fields.contains_key("seed"));
    assert!(!fields.contains_key("selection"));
    assert_eq!(report["tests"], json!([]));
    assert_eq!(report["skips"], json!([]));
    assert_eq!(report["summary"]["line"], "no tests ran in 0.00s");
}
