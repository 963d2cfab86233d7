//! CLI tests for `proctor coverage` over a temporary project configured
//! like indx (core at least 90 %, adapters at least 80 %): passing and
//! failing areas, a baseline drop, unreadable reports, the output formats,
//! and, where coverage.py is installed, a report it wrote itself.

mod common;

use common::{copy_of, run, write};

const CONFIG: &str = r#"
[coverage]
report = "coverage.json"

[[coverage.areas]]
name = "core"
paths = ["src/indx/core/**"]
line = 90
branch = 80

[[coverage.areas]]
name = "adapters"
paths = ["src/indx/adapters/**"]
line = 80
"#;

/// A coverage.py JSON report with branch data: `(path, covered lines,
/// statements, covered branches, branches)` per file.
fn json_report(files: &[(&str, u64, u64, u64, u64)]) -> String {
    let files: Vec<String> = files
        .iter()
        .map(|(path, lc, lt, bc, bt)| {
            format!(
                r#""{path}": {{"executed_lines": [], "summary": {{"covered_lines": {lc}, "num_statements": {lt}, "percent_covered": 0.0, "missing_lines": 0, "excluded_lines": 0, "num_branches": {bt}, "num_partial_branches": 0, "covered_branches": {bc}, "missing_branches": 0}}}}"#
            )
        })
        .collect();
    format!(
        r#"{{"meta": {{"format": 3, "version": "7.6.1", "timestamp": "2025-01-01T00:00:00", "branch_coverage": true, "show_contexts": false}}, "files": {{{}}}, "totals": {{}}}}"#,
        files.join(", ")
    )
}

/// Core at 95 % lines and 85 % branches (passes); adapters at 70 %
/// (fails); one file in no area.
const CURRENT: &[(&str, u64, u64, u64, u64)] = &[
    ("src/indx/core/model.py", 57, 60, 9, 10),
    ("src/indx/core/context.py", 38, 40, 8, 10),
    ("src/indx/adapters/qdrant.py", 35, 50, 2, 4),
    ("src/indx/adapters/ollama.py", 0, 0, 0, 0),
    ("src/indx/__main__.py", 0, 3, 0, 0),
];

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "pytest.ini", "[pytest]\n");
    write(dir.path(), "proctor.toml", CONFIG);
    write(dir.path(), "coverage.json", &json_report(CURRENT));
    dir
}

#[test]
fn core_passes_and_adapters_fail() {
    let dir = project();
    assert_eq!(
        run(dir.path(), &["coverage"]),
        "exit: 1
--- stdout
report: coverage.json (coverage.py JSON, with branches, 5 files)

area      files  lines  branches    minimum  change  verdict
core          2  95.0%     85.0%  90% / 80%       -  pass
adapters      2  70.0%     50.0%        80%       -  FAIL

error: area adapters: lines 70.0% < 80%

1 file in no area:
  src/indx/__main__.py

1 of 2 areas fail.
--- stderr
"
    );
}

#[test]
fn every_area_passing_exits_zero() {
    let dir = project();
    write(
        dir.path(),
        "good.json",
        &json_report(&[
            ("src/indx/core/a.py", 9, 10, 4, 5),
            ("src/indx/adapters/b.py", 8, 10, 0, 0),
        ]),
    );
    let output = run(dir.path(), &["coverage", "good.json"]);
    assert!(output.starts_with("exit: 0\n"), "{output}");
    assert!(output.contains("2 of 2 areas pass."), "{output}");
}

#[test]
fn a_drop_since_the_baseline_fails_unless_tolerated() {
    let dir = project();
    // The baseline had adapters at 70 % too, but core at 97.0 %.
    let mut baseline = CURRENT.to_vec();
    baseline[0] = ("src/indx/core/model.py", 59, 60, 9, 10);
    write(dir.path(), "old/coverage.json", &json_report(&baseline));
    let output = run(dir.path(), &["coverage", "--baseline", "old/coverage.json"]);
    assert!(output.starts_with("exit: 1\n"), "{output}");
    assert!(output.contains("baseline: old/coverage.json\n"), "{output}");
    assert!(
        output.contains("core          2  95.0%     85.0%  90% / 80%  -2.0 / 0.0  FAIL\n"),
        "{output}"
    );
    assert!(
        output.contains("error: area core: lines dropped 2.0 points (97.0% -> 95.0%)\n"),
        "{output}"
    );

    let output = run(
        dir.path(),
        &[
            "coverage",
            "--baseline",
            "old/coverage.json",
            "--tolerance",
            "2.5",
            "--format",
            "github",
        ],
    );
    assert_eq!(
        output,
        "exit: 1
--- stdout
::error title=coverage::area adapters: lines 70.0%25 < 80%25
::notice title=coverage::1 files in no area: src/indx/__main__.py
--- stderr
"
    );
}

#[test]
fn github_format_annotates_each_finding() {
    let dir = project();
    write(
        dir.path(),
        "low.json",
        &json_report(&[
            ("src/indx/core/a.py", 85, 100, 1, 2),
            ("src/indx/adapters/b.py", 8, 10, 0, 0),
        ]),
    );
    assert_eq!(
        run(dir.path(), &["coverage", "low.json", "--format", "github"]),
        "exit: 1
--- stdout
::error title=coverage::area core: lines 85.0%25 < 90%25
::error title=coverage::area core: branches 50.0%25 < 80%25
--- stderr
"
    );
}

#[test]
fn json_format_is_versioned() {
    let dir = project();
    let output = run(dir.path(), &["coverage", "--format", "json"]);
    // One way to ask for JSON: `--json`, and `--output-format json` as for check.
    assert_eq!(run(dir.path(), &["coverage", "--json"]), output);
    assert_eq!(
        run(dir.path(), &["coverage", "--output-format", "json"]),
        output
    );
    let (head, rest) = output.split_once("--- stdout\n").unwrap();
    assert_eq!(head, "exit: 1\n");
    let json: serde_json::Value =
        serde_json::from_str(rest.split("--- stderr").next().unwrap()).unwrap();
    assert_eq!(json["version"], 1);
    assert_eq!(json["format"], "coverage-py-json");
    assert_eq!(json["passed"], false);
    assert_eq!(json["areas"][0]["name"], "core");
    assert_eq!(json["areas"][0]["verdict"], "pass");
    assert_eq!(json["areas"][0]["lines"]["covered"], 95);
    assert_eq!(json["areas"][1]["verdict"], "fail");
    assert_eq!(json["findings"][0]["kind"], "below-minimum");
    assert_eq!(json["findings"][0]["metric"], "lines");
    assert_eq!(json["unmatched"][0], "src/indx/__main__.py");
}

#[test]
fn cobertura_xml_is_read_from_the_configured_path() {
    let dir = project();
    write(
        dir.path(),
        "proctor.toml",
        &CONFIG.replace("coverage.json", "reports/coverage.xml"),
    );
    write(
        dir.path(),
        "reports/coverage.xml",
        r#"<?xml version="1.0" ?>
<coverage version="7.6.1" branches-covered="1" branches-valid="2" branch-rate="0.5" line-rate="0.75">
  <packages><package name="indx"><classes>
    <class name="a.py" filename="src/indx/core/a.py"><methods/><lines>
      <line number="1" hits="1"/><line number="2" hits="1" branch="true" condition-coverage="100% (2/2)"/>
      <line number="3" hits="1"/><line number="4" hits="1"/>
    </lines></class>
    <class name="b.py" filename="src/indx/adapters/b.py"><methods/><lines>
      <line number="1" hits="1"/><line number="2" hits="0"/>
    </lines></class>
  </classes></package></packages>
</coverage>
"#,
    );
    let output = run(dir.path(), &["coverage"]);
    assert!(output.starts_with("exit: 1\n"), "{output}");
    assert!(
        output.contains("(Cobertura XML, with branches, 2 files)"),
        "{output}"
    );
    assert!(
        output.contains("core          1  100.0%    100.0%  90% / 80%       -  pass\n"),
        "{output}"
    );
    assert!(
        output.contains("error: area adapters: lines 50.0% < 80%\n"),
        "{output}"
    );
}

#[test]
fn unreadable_reports_exit_two_and_name_the_path() {
    let dir = project();
    write(
        dir.path(),
        "broken.json",
        "{\"files\": {\n  \"a.py\": [1,,]\n}}",
    );
    assert_eq!(
        run(dir.path(), &["coverage", "broken.json"]),
        "exit: 2
--- stdout
--- stderr
proctor: error: malformed JSON in coverage report `[ROOT]/broken.json:2:14`: expected value
"
    );
    write(dir.path(), "shape.json", "{\"meta\": {}}");
    let output = run(dir.path(), &["coverage", "shape.json"]);
    assert!(output.starts_with("exit: 2\n"), "{output}");
    assert!(output.contains("coverage report `[ROOT]/shape.json` is not a coverage.py JSON report: it has no `files` object"), "{output}");
    let output = run(dir.path(), &["coverage", "--baseline", "absent.json"]);
    assert!(output.starts_with("exit: 2\n"), "{output}");
    assert!(
        output.contains("coverage report `[ROOT]/absent.json` does not exist"),
        "{output}"
    );
}

#[test]
fn configuration_errors_exit_two() {
    let dir = project();
    write(
        dir.path(),
        "proctor.toml",
        "[coverage]\nreport = 'coverage.json'\n",
    );
    let output = run(dir.path(), &["coverage"]);
    assert!(output.starts_with("exit: 2\n"), "{output}");
    assert!(
        output.contains("no coverage areas configured: add `[[coverage.areas]]`"),
        "{output}"
    );

    write(
        dir.path(),
        "proctor.toml",
        &CONFIG.replace("line = 90", "line = 120"),
    );
    let output = run(dir.path(), &["coverage"]);
    assert!(output.starts_with("exit: 2\n"), "{output}");
    assert!(
        output.contains("proctor.toml:8:8: a percentage"),
        "{output}"
    );
    assert!(output.contains("between 0 and 100"), "{output}");
}

/// coverage.py's own JSON, from a tiny package measured for real. Needs
/// `coverage` importable by `$PROCTOR_TEST_PYTHON` (scripts/test installs
/// it from tests/requirements.txt); it never passes without checking.
#[test]
fn a_report_written_by_coverage_py() {
    let python = std::env::var_os("PROCTOR_TEST_PYTHON").expect(
        "PROCTOR_TEST_PYTHON names a Python with pytest and coverage (scripts/test sets it)",
    );
    let has_coverage = std::process::Command::new(&python)
        .args(["-c", "import coverage"])
        .output()
        .is_ok_and(|output| output.status.success());
    assert!(has_coverage, "`coverage` is not importable by {}: run scripts/test, which installs tests/requirements.txt", python.to_string_lossy());
    let dir = project();
    let root = dir.path();
    write(root, "src/indx/__init__.py", "");
    write(root, "src/indx/core/__init__.py", "");
    write(
        root,
        "src/indx/core/model.py",
        "def double(x):\n    if x > 0:\n        return 2 * x\n    return 0\n",
    );
    write(root, "src/indx/adapters/__init__.py", "");
    write(root, "src/indx/adapters/store.py", "def save(x):\n    if x:\n        return 1\n    return 2\n\n\ndef unused():\n    return 3\n");
    write(root, "main.py", "import sys\nsys.path.insert(0, 'src')\nfrom indx.core.model import double\nfrom indx.adapters.store import save\ndouble(1)\ndouble(-1)\nsave(1)\n");
    for args in [
        &["run", "--branch", "--source=src", "main.py"][..],
        &["json", "-o", "coverage.json"][..],
    ] {
        let status = std::process::Command::new(&python)
            .arg("-m")
            .arg("coverage")
            .args(args)
            .current_dir(root)
            .status()
            .unwrap();
        assert!(status.success(), "coverage {args:?}");
    }
    let output = run(root, &["coverage"]);
    // core: every line and branch; adapters: 4 of 6 statements.
    assert!(output.starts_with("exit: 1\n"), "{output}");
    assert!(
        output.contains("core          2  100.0%    100.0%  90% / 80%       -  pass\n"),
        "{output}"
    );
    assert!(
        output.contains("error: area adapters: lines 66.6% < 80%\n"),
        "{output}"
    );
}

/// The indx example (seed 001) measured for real: its offline unit suite
/// under coverage.py (`[tool.coverage.run]` in its pyproject), then its
/// "Coverage targets": core and the stages at 90 % pass, the adapters miss
/// 80 % (the jsonl store's `compact` has no test: planted). Then "a drop
/// fails the check": with that run as the baseline, a run whose tests
/// cover less fails on the drop even where the minimum still holds.
#[test]
fn the_indx_example_enforces_its_coverage_targets() {
    let python = std::env::var_os("PROCTOR_TEST_PYTHON").expect(
        "PROCTOR_TEST_PYTHON names a Python with pytest and coverage (scripts/test sets it)",
    );
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/indx");
    let dir = copy_of(&repo);
    let root = dir.path();
    let measure = |report: &str| {
        for args in [
            &[
                "run",
                "-m",
                "pytest",
                "tests/unit",
                "-q",
                "-p",
                "no:cacheprovider",
            ][..],
            &["json", "-q", "-o", report][..],
        ] {
            let output = std::process::Command::new(&python)
                .arg("-m")
                .arg("coverage")
                .args(args)
                .current_dir(root)
                .env_remove("PYTEST_ADDOPTS")
                .output()
                .unwrap();
            assert!(
                output.status.success(),
                "coverage {args:?}: {}{}",
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            );
        }
    };
    measure("coverage.json");
    let output = run(root, &["coverage"]);
    assert!(output.starts_with("exit: 1\n"), "{output}");
    assert!(
        output.contains("core          4  100.0%    100.0%      90%       -  pass\n"),
        "{output}"
    );
    assert!(
        output.contains("error: area adapters: lines 78.3% < 80%\n"),
        "{output}"
    );
    assert!(output.contains("1 of 2 areas fail."), "{output}");

    // The store's search loses its test: adapters drop further.
    std::fs::rename(root.join("coverage.json"), root.join("baseline.json")).unwrap();
    let store_test = root.join("tests/unit/store/test_jsonl.py");
    let text = std::fs::read_to_string(&store_test)
        .unwrap()
        .replace("    assert store.search(\"a\") == sample_chunks\n", "");
    std::fs::write(&store_test, text).unwrap();
    measure("coverage.json");
    let output = run(root, &["coverage", "--baseline", "baseline.json"]);
    assert!(output.starts_with("exit: 1\n"), "{output}");
    assert!(
        output.contains("error: area adapters: lines dropped"),
        "{output}"
    );
    assert!(!output.contains("error: area core"), "{output}");
}
