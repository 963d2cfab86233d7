//! The HTML report: self-contained, everything from tests escaped, the
//! embedded view as expected, and the same page from a saved JSON report.

use std::collections::BTreeMap;

use proctor_history::FlakyTest;
use proctor_outcome::{Outcome, RunSummary};
use proctor_report::{
    html_report, json_report, HistoryExtract, JobTiers, ReportExtras, ReportMeta, SavedReport,
    TierAxis, HTML_DATA_ID,
};

use crate::fixture::{self, result};

fn meta() -> ReportMeta {
    ReportMeta {
        proctor_version: "0.1.0".to_owned(),
        started_at: "2025-01-31T12:00:00Z".to_owned(),
        command: vec![
            "proctor".to_owned(),
            "run".to_owned(),
            "--html".to_owned(),
            "r.html".to_owned(),
        ],
        selection: Some("every item".to_owned()),
        seed: None,
    }
}

/// A tier axis, two jobs and a history with one flaky test.
fn extras() -> ReportExtras {
    let tiers =
        |pairs: &[(&str, usize)]| pairs.iter().map(|(t, n)| ((*t).to_owned(), *n)).collect();
    ReportExtras {
        tier_axis: Some(TierAxis {
            name: "tier".to_owned(),
            markers: vec![
                "unit".to_owned(),
                "integration".to_owned(),
                "e2e".to_owned(),
            ],
        }),
        jobs_by_tier: vec![
            JobTiers {
                name: "unit".to_owned(),
                selected: 2,
                tiers: tiers(&[("unit", 2)]),
            },
            JobTiers {
                name: "nightly".to_owned(),
                selected: 11,
                tiers: tiers(&[("unit", 2), ("integration", 1), ("(none)", 8)]),
            },
        ],
        history: Some(HistoryExtract {
            window: 20,
            runs: 7,
            flaky: vec![FlakyTest {
                nodeid: "tests/unit/test_b.py::test_flaky".to_owned(),
                runs: 7,
                failures: 2,
                passes_after_rerun: 1,
            }],
            durations: BTreeMap::from([(
                "tests/unit/test_a.py::TestX::test_fail[1]".to_owned(),
                0.25,
            )]),
        }),
    }
}

/// The view embedded in a page, parsed.
fn data(page: &str) -> serde_json::Value {
    let open = format!("<script type=\"application/json\" id=\"{HTML_DATA_ID}\">");
    let start = page.find(&open).expect("the page embeds its data") + open.len();
    let end = start
        + page[start..]
            .find("</script>")
            .expect("the data's script element ends");
    serde_json::from_str(&page[start..end]).expect("the embedded data is JSON")
}

#[test]
fn view_of_a_run_with_every_outcome() {
    let results = fixture::results();
    let page = html_report(&results, &fixture::summary(&results), &meta(), &extras());
    let view = serde_json::to_string_pretty(&data(&page)).unwrap();
    insta::assert_snapshot!(view);
}

#[test]
fn page_is_self_contained() {
    let results = fixture::results();
    let page = html_report(&results, &fixture::summary(&results), &meta(), &extras());
    assert!(page.starts_with("<!DOCTYPE html>\n<html lang=\"en\">"));
    assert!(page.ends_with("</html>\n"));
    for external in [
        "http:", "https:", "//cdn", "<link", "src=", "url(", "@import",
    ] {
        assert!(!page.contains(external), "the page refers to `{external}`");
    }
    assert!(
        page.contains("default-src 'none'"),
        "the page forbids loading anything"
    );
    assert_eq!(
        page.matches("<script").count(),
        2,
        "the data and the script, nothing else"
    );
    assert!(
        !page.contains("innerHTML"),
        "the script builds the page with textContent"
    );
}

#[test]
fn everything_from_tests_is_escaped() {
    let script = "tests/test_x.py::test_p[</script><script>alert(1)</script>]";
    let img = "tests/test_x.py::test_p[<img src=x onerror=alert(2)>]";
    let mut failed = result(script, Outcome::Failed);
    failed.message =
        Some("E   assert '</pre><script>alert(3)</script>' == '&amp;'\u{2028}\u{2029}".to_owned());
    failed.output = "<!-- <b>bold</b> -->\n".to_owned();
    failed.markers = vec!["<unit>".to_owned()].into();
    failed.duration = 0.5;
    let mut skipped = result(img, Outcome::Skipped);
    skipped.reason = Some("needs <gpu> & \"cuda\"".to_owned());
    let results = vec![failed, skipped];
    let summary = RunSummary::of(&results, 0, 1.0, false);
    let mut meta = meta();
    meta.started_at = "</title><script>alert(4)</script>".to_owned();
    let page = html_report(&results, &summary, &meta, &extras());
    for raw in [
        "<script>alert",
        "<img",
        "</pre>",
        "<b>",
        "<unit>",
        "<gpu>",
        "<!--",
        "\u{2028}",
        "\u{2029}",
        "&amp;'",
    ] {
        assert!(!page.contains(raw), "`{raw}` reached the page unescaped");
    }
    assert_eq!(page.matches("<script").count(), 2);
    assert_eq!(page.matches("</script>").count(), 2);
    assert!(page.contains("<title>proctor report: 1 failed, 1 skipped in 1.00s (&lt;/title&gt;&lt;script&gt;alert(4)&lt;/script&gt;)</title>"));
    assert!(
        page.contains(r"test_p[\u003c/script\u003e\u003cscript\u003ealert(1)\u003c/script\u003e]")
    );
    // The escapes read back as the original text.
    let view = data(&page);
    assert_eq!(view["tests"][0]["nodeid"], script);
    assert_eq!(view["tests"][1]["nodeid"], img);
    assert_eq!(
        view["failures"][0]["message"],
        results[0].message.as_deref().unwrap()
    );
    assert_eq!(view["failures"][0]["output"], results[0].output);
    assert_eq!(view["skips"][0]["reason"], "needs <gpu> & \"cuda\"");
    assert_eq!(view["tests"][0]["markers"][0], "<unit>");
    assert_eq!(view["meta"]["started_at"], meta.started_at);
}

#[test]
fn saved_json_report_renders_the_same_page() {
    let mut results = fixture::results();
    // Durations whose shortest form needs 17 digits read back exactly.
    results[0].duration = 0.200_553_659_000_433_98;
    results[1].duration = 0.000_116_782_997_793_052_35;
    let summary = fixture::summary(&results);
    let extras = extras();
    let json =
        serde_json::to_string_pretty(&json_report(&results, &summary, &meta(), &extras)).unwrap();
    let keys: Vec<String> = serde_json::from_str::<serde_json::Value>(&json)
        .unwrap()
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert_eq!(
        keys,
        [
            "version",
            "meta",
            "summary",
            "tests",
            "skips",
            "tier_axis",
            "jobs_by_tier",
            "history"
        ]
    );
    let saved: SavedReport = serde_json::from_str(&json).unwrap();
    assert_eq!(
        (
            saved.version,
            &saved.meta,
            &saved.summary,
            &saved.tests,
            &saved.extras
        ),
        (1, &meta(), &summary, &results, &extras)
    );
    assert_eq!(
        html_report(&saved.tests, &saved.summary, &saved.meta, &saved.extras),
        html_report(&results, &summary, &meta(), &extras)
    );
}

#[test]
fn a_report_without_extras_reads_back_without_them() {
    let results = fixture::results();
    let summary = fixture::summary(&results);
    let json = json_report(&results, &summary, &meta(), &ReportExtras::default());
    let saved: SavedReport = serde_json::from_value(json).unwrap();
    assert_eq!(saved.extras, ReportExtras::default());
    let view = data(&html_report(
        &saved.tests,
        &saved.summary,
        &saved.meta,
        &saved.extras,
    ));
    assert_eq!(
        (
            view["tier_axis"].is_null(),
            view["jobs"].is_null(),
            view["history"].is_null()
        ),
        (true, true, true)
    );
    assert_eq!(view["tiers"], serde_json::json!([]));
}

/// The command line and selection are masked as in the history.
#[test]
fn secrets_in_the_command_are_masked() {
    let results = fixture::results();
    let summary = fixture::summary(&results);
    let meta = ReportMeta {
        command: [
            "proctor",
            "run",
            "API_TOKEN=s3cr3t",
            "--password",
            "hunter2",
            "--index-url=https://user:pa55@example.org/simple",
        ]
        .map(str::to_owned)
        .to_vec(),
        selection: Some("-k API_KEY=k3y".to_owned()),
        ..meta()
    };
    let page = html_report(&results, &summary, &meta, &ReportExtras::default());
    let json = serde_json::to_string(&json_report(
        &results,
        &summary,
        &meta,
        &ReportExtras::default(),
    ))
    .unwrap();
    for (format, text) in [("html", &page), ("json", &json)] {
        for secret in ["s3cr3t", "hunter2", "pa55", "k3y"] {
            assert!(!text.contains(secret), "{format} shows {secret}");
        }
        for masked in [
            "API_TOKEN=***",
            "https://user:***@example.org/simple",
            "API_KEY=***",
        ] {
            assert!(text.contains(masked), "{format} lacks {masked}");
        }
    }
    assert_eq!(data(&page)["meta"]["command"][4], "***");
}
