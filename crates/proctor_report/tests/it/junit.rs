//! `JUnit` XML: parsed back to prove it well-formed, counted, named and
//! escaped as pytest writes it.

use proctor_outcome::{Outcome, RunSummary, TestResult};
use proctor_report::{junit_names, junit_xml};
use roxmltree::{Document, Node};

use crate::fixture::{self, result, OLLAMA};

fn element<'a, 'i>(node: Node<'a, 'i>, tag: &str) -> Option<Node<'a, 'i>> {
    node.children().find(|child| child.has_tag_name(tag))
}

fn testcases<'a, 'i>(doc: &'a Document<'i>) -> Vec<Node<'a, 'i>> {
    doc.descendants()
        .filter(|node| node.has_tag_name("testcase"))
        .collect()
}

fn xml_of(results: &[TestResult]) -> String {
    junit_xml(
        results,
        &RunSummary::of(results, 0, 0.25, false),
        "pytest",
        "2025-01-31T12:00:00+00:00",
        "ci-host",
    )
}

#[test]
fn suite_counts_equal_the_summary() {
    let results = fixture::results();
    let summary = fixture::summary(&results);
    let xml = junit_xml(
        &results,
        &summary,
        "pytest",
        "2025-01-31T12:00:00+00:00",
        "ci-host",
    );
    let doc = Document::parse(&xml).unwrap();
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    assert_eq!(root.attribute("name"), Some("pytest tests"));
    let suite = element(root, "testsuite").unwrap();
    let count = |outcome: Outcome| summary.counts.get(&outcome).copied().unwrap_or(0);
    let attr = |name: &str| suite.attribute(name).unwrap().parse::<usize>().unwrap();
    assert_eq!(attr("failures"), count(Outcome::Failed));
    assert_eq!(
        attr("errors"),
        count(Outcome::Error) + count(Outcome::Crashed) + count(Outcome::TimedOut)
    );
    assert_eq!(
        attr("skipped"),
        count(Outcome::Skipped) + count(Outcome::Xfailed)
    );
    assert_eq!(attr("tests"), results.len());
    assert_eq!(
        (
            attr("failures"),
            attr("errors"),
            attr("skipped"),
            attr("tests")
        ),
        (1, 3, 4, 11)
    );
    assert_eq!(suite.attribute("name"), Some("pytest"));
    assert_eq!(suite.attribute("time"), Some("1.200"));
    assert_eq!(
        suite.attribute("timestamp"),
        Some("2025-01-31T12:00:00+00:00")
    );
    assert_eq!(suite.attribute("hostname"), Some("ci-host"));

    let cases = testcases(&doc);
    assert_eq!(cases.len(), results.len());
    assert_eq!(
        cases
            .iter()
            .filter(|c| element(**c, "failure").is_some())
            .count(),
        1
    );
    assert_eq!(
        cases
            .iter()
            .filter(|c| element(**c, "error").is_some())
            .count(),
        3
    );
    assert_eq!(
        cases
            .iter()
            .filter(|c| element(**c, "skipped").is_some())
            .count(),
        4
    );
}

#[test]
fn testcases_carry_outcome_properties_and_output() {
    let results = fixture::results();
    let xml = junit_xml(&results, &fixture::summary(&results), "pytest", "t", "h");
    let doc = Document::parse(&xml).unwrap();
    let cases = testcases(&doc);

    let ok = cases[0];
    assert_eq!(ok.attribute("classname"), Some("tests.unit.test_a"));
    assert_eq!(ok.attribute("name"), Some("test_ok"));
    assert_eq!(ok.attribute("time"), Some("0.012"));
    assert!(
        ok.attribute("file").is_none(),
        "xunit2 has no file attribute"
    );

    let failed = cases[1];
    let failure = element(failed, "failure").unwrap();
    assert_eq!(failure.attribute("message"), Some("assert 1 == 2"));
    assert!(failure
        .text()
        .unwrap()
        .contains("E       assert 1 == 2\n\ntests/unit/test_a.py:9: AssertionError"));
    assert_eq!(
        element(failed, "system-out").unwrap().text(),
        Some("hello from test_fail\n")
    );
    let properties: Vec<(&str, &str)> = element(failed, "properties")
        .unwrap()
        .children()
        .filter(Node::is_element)
        .map(|p| (p.attribute("name").unwrap(), p.attribute("value").unwrap()))
        .collect();
    assert_eq!(properties, [("marker", "unit")]);

    let skipped = element(cases[2], "skipped").unwrap();
    assert_eq!(skipped.attribute("type"), Some("pytest.skip"));
    assert_eq!(skipped.attribute("message"), Some(OLLAMA));

    let flaky: Vec<(&str, &str)> = element(cases[5], "properties")
        .unwrap()
        .children()
        .filter(Node::is_element)
        .map(|p| (p.attribute("name").unwrap(), p.attribute("value").unwrap()))
        .collect();
    assert_eq!(
        flaky,
        [("phase", "unit"), ("attempts", "2"), ("flaky", "true")]
    );

    let crashed = element(cases[6], "error").unwrap();
    assert_eq!(
        crashed.attribute("message"),
        Some("crashed: the pytest process died with signal 11 (SIGSEGV)")
    );
    let timed_out = element(cases[7], "error").unwrap();
    assert_eq!(
        timed_out.attribute("message"),
        Some("timed out: timed out after 30.00s; the process was killed")
    );
    let error = element(cases[8], "error").unwrap();
    assert_eq!(
        error.attribute("message"),
        Some("failed on setup with \"ConnectionError: db down\"")
    );

    let xfailed = element(cases[9], "skipped").unwrap();
    assert_eq!(xfailed.attribute("type"), Some("pytest.xfail"));
    assert_eq!(xfailed.attribute("message"), Some("bug #12"));
    assert_eq!(
        cases[10].children().filter(Node::is_element).count(),
        0,
        "xpassed is a pass"
    );
}

#[test]
fn names_are_derived_like_pytest() {
    let cases = [
        (
            "tests/unit/test_a.py::TestX::test_y[1]",
            "tests.unit.test_a.TestX",
            "test_y[1]",
        ),
        ("tests/test_m.py::test_plain", "tests.test_m", "test_plain"),
        ("test_top.py::test_f", "test_top", "test_f"),
        (
            "tests/test_n.py::TestOuter::TestInner::test_z",
            "tests.test_n.TestOuter.TestInner",
            "test_z",
        ),
        (
            "tests/test_p.py::test_x[a/b::c]",
            "tests.test_p",
            "test_x[a/b::c]",
        ),
        (
            "tests/test_p.py::TestK::test_x[x::y-1.5]",
            "tests.test_p.TestK",
            "test_x[x::y-1.5]",
        ),
        ("tests/test[1].py::test_q[p]", "tests.test[1]", "test_q[p]"),
        ("tests/data/doc.txt", "", "tests.data.doc.txt"),
    ];
    for (nodeid, classname, name) in cases {
        assert_eq!(
            junit_names(nodeid),
            (classname.to_owned(), name.to_owned()),
            "{nodeid}"
        );
    }
}

#[test]
fn hostile_text_stays_well_formed() {
    let nodeid = "tests/test_x.py::test_x[<script>alert(\"x\")</script>-]]>-&-'-\x1b[31m]";
    let mut hostile = result(nodeid, Outcome::Failed);
    hostile.message = Some(
        "E   AssertionError: <b>&amp;</b> ]]> \"quoted\" 'single' \x1b[0m\x00\x07\r\n".to_owned(),
    );
    hostile.output.push_str("<![CDATA[ boom ]]>\x1b[2K & done");
    hostile.markers = vec!["e2e".to_owned(), "x\"<&>".to_owned()].into();
    let mut skipped = result("tests/test_x.py::test_s", Outcome::Skipped);
    skipped.reason = Some("needs <gpu> & \"cuda\"".to_owned());
    let xml = xml_of(&[hostile, skipped]);
    assert!(!xml.contains('\x1b') && !xml.contains('\x00') && !xml.contains('\x07'));
    assert!(!xml.contains("<script>"));

    let doc = Document::parse(&xml).unwrap();
    let cases = testcases(&doc);
    assert_eq!(cases[0].attribute("classname"), Some("tests.test_x"));
    assert_eq!(
        cases[0].attribute("name"),
        Some("test_x[<script>alert(\"x\")</script>-]]>-&-'-#x1B[31m]")
    );
    let failure = element(cases[0], "failure").unwrap();
    assert_eq!(
        failure.attribute("message"),
        Some("AssertionError: <b>&amp;</b> ]]> \"quoted\" 'single' #x1B[0m#x00#x07")
    );
    assert_eq!(
        failure.text(),
        Some("E   AssertionError: <b>&amp;</b> ]]> \"quoted\" 'single' #x1B[0m#x00#x07\r\n")
    );
    assert_eq!(
        element(cases[0], "system-out").unwrap().text(),
        Some("<![CDATA[ boom ]]>#x1B[2K & done")
    );
    let markers: Vec<&str> = element(cases[0], "properties")
        .unwrap()
        .children()
        .filter_map(|p| p.attribute("value"))
        .collect();
    assert_eq!(markers, ["e2e", "x\"<&>"]);
    assert_eq!(
        element(cases[1], "skipped").unwrap().attribute("message"),
        Some("needs <gpu> & \"cuda\"")
    );
    let suite = element(doc.root_element(), "testsuite").unwrap();
    assert_eq!(suite.attribute("name"), Some("pytest"));
}

#[test]
fn passing_testcase_is_an_empty_element() {
    let xml = xml_of(&[result("tests/test_ok.py::test_ok", Outcome::Passed)]);
    assert_eq!(
        xml,
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n\
         <testsuites name=\"pytest tests\">\n  \
         <testsuite name=\"pytest\" errors=\"0\" failures=\"0\" skipped=\"0\" tests=\"1\" time=\"0.250\" timestamp=\"2025-01-31T12:00:00+00:00\" hostname=\"ci-host\">\n    \
         <testcase classname=\"tests.test_ok\" name=\"test_ok\" time=\"0.000\"/>\n  \
         </testsuite>\n\
         </testsuites>\n"
    );
}
