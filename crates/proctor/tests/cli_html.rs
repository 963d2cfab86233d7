//! `proctor run --html` and `proctor report --html` over a temporary
//! project with real pytest, and the page checked in headless Chromium by
//! `tests/browser/check_report.mjs` (playwright-core, Debian's chromium).
//!
//! Needs `PROCTOR_TEST_PYTHON` (scripts/test sets it). Without node, the
//! npm packages (`npm ci` in tests/browser) or chromium, the browser check
//! is skipped with a notice, unless `PROCTOR_REQUIRE_BROWSER=1` (CI) makes
//! that a failure; scripts/install-browser-deps installs all three.

mod common;

use common::test_python as python;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{text, write};

fn proctor(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_proctor"))
        .args(args)
        .current_dir(dir)
        .env_remove("PYTEST_ADDOPTS")
        .output()
        .unwrap()
}

const HOSTILE_SCRIPT: &str = "</script><script>alert(1)</script>";
const HOSTILE_IMG: &str = "<img src=x onerror=alert(2)>";

/// A suite with a tier axis, two jobs, every common outcome, a test that
/// fails once then passes (flaky in the history), and node ids with markup.
fn suite(root: &Path) {
    write(
        root,
        "pyproject.toml",
        "[tool.pytest.ini_options]\nmarkers = ['unit', 'integration', 'e2e']\n\n\
         [tool.proctor.axes.tier]\nmarkers = ['unit', 'integration', 'e2e']\ncardinality = 'exactly-one'\ndefault = 'unit'\n\n\
         [tool.proctor.jobs.unit]\nmarkers = 'unit'\n\n\
         [tool.proctor.jobs.nightly]\nmarkers = 'unit or integration or e2e'\n",
    );
    write(
        root,
        "tests/test_alpha.py",
        "import pathlib\nimport pytest\n\n\
         def test_ok():\n    pass\n\n\
         def test_fails():\n    print('some output <b>here</b>')\n    assert 1 + 1 == 3, 'math & <markup>'\n\n\
         @pytest.mark.skip(reason='not today <b>ever</b>')\ndef test_skipped():\n    pass\n\n\
         def test_flips():\n    marker = pathlib.Path('flipped')\n    if not marker.exists():\n        marker.write_text('1')\n        assert False, 'first run fails'\n",
    );
    write(
        root,
        "tests/test_beta.py",
        &format!(
            "import time\nimport pytest\n\n\
             @pytest.mark.integration\ndef test_slowish():\n    time.sleep(0.2)\n\n\
             @pytest.mark.integration\n@pytest.mark.parametrize('name', [{HOSTILE_SCRIPT:?}, {HOSTILE_IMG:?}])\ndef test_hostile(name):\n    assert name\n\n\
             @pytest.mark.e2e\n@pytest.mark.skipif(True, reason='needs a GPU & a driver')\ndef test_gpu():\n    pass\n"
        ),
    );
}

#[test]
fn html_report_opens_in_a_browser_and_renders_again_from_json() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    suite(root);
    let python = python();
    let python = python.to_str().unwrap();
    // The first run records test_flips failing; the second, passing.
    let first = proctor(root, &["run", "--python", python]);
    assert_eq!(first.status.code(), Some(1), "{}", text(&first));
    let run = proctor(
        root,
        &[
            "run", "--python", python, "--json", "r.json", "--html", "r.html",
        ],
    );
    assert_eq!(run.status.code(), Some(1), "{}", text(&run));

    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("r.json")).unwrap()).unwrap();
    let nodeids: Vec<&str> = json["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["nodeid"].as_str().unwrap())
        .collect();
    let hostile = format!("tests/test_beta.py::test_hostile[{HOSTILE_SCRIPT}]");
    assert!(
        nodeids.contains(&hostile.as_str()),
        "{nodeids:?}\n{}",
        text(&run)
    );
    assert_eq!(json["version"], 1);
    assert_eq!(json["tier_axis"]["name"], "tier");
    assert_eq!(
        json["jobs_by_tier"][0],
        serde_json::json!({"name": "unit", "selected": 4, "tiers": [["unit", 4]]}),
        "{json:#}"
    );
    assert_eq!(json["jobs_by_tier"][1]["selected"], 8, "{json:#}");
    assert_eq!(
        json["history"]["flaky"][0]["nodeid"], "tests/test_alpha.py::test_flips",
        "{json:#}"
    );

    let html = std::fs::read_to_string(root.join("r.html")).unwrap();
    for raw in [HOSTILE_SCRIPT, HOSTILE_IMG, "<b>here</b>", "<markup>"] {
        assert!(!html.contains(raw), "`{raw}` is in the page unescaped");
    }

    // The saved JSON renders the same page.
    let again = proctor(root, &["report", "--from", "r.json", "--html", "r2.html"]);
    assert_eq!(again.status.code(), Some(0), "{}", text(&again));
    assert!(
        std::fs::read_to_string(root.join("r2.html")).unwrap() == html,
        "proctor report --from r.json renders another page than proctor run --html"
    );

    browser_check(root);
}

/// Runs `tests/browser/check_report.mjs` on the page, or says why it cannot.
#[expect(
    clippy::print_stderr,
    reason = "the skip notice and the screenshot's path are for the person running the tests"
)]
fn browser_check(root: &Path) {
    let browser_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/browser");
    let chromium = std::env::var_os("PROCTOR_CHROMIUM")
        .map_or_else(|| PathBuf::from("/usr/bin/chromium"), PathBuf::from);
    let node_ok = Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    let missing: Vec<String> = [
        (!node_ok).then(|| "node is not on PATH".to_owned()),
        (!browser_dir.join("node_modules/playwright-core").is_dir()).then(|| {
            format!(
                "{} has no node_modules/playwright-core (run `npm ci` there)",
                browser_dir.display()
            )
        }),
        (!chromium.is_file()).then(|| {
            format!(
                "{} is missing (apt-get install chromium)",
                chromium.display()
            )
        }),
    ]
    .into_iter()
    .flatten()
    .collect();
    if !missing.is_empty() {
        let why = missing.join("; ");
        assert!(
            std::env::var("PROCTOR_REQUIRE_BROWSER").as_deref() != Ok("1"),
            "PROCTOR_REQUIRE_BROWSER=1 but the browser check cannot run: {why} (scripts/install-browser-deps installs what it needs)"
        );
        eprintln!("SKIPPED the browser check of the HTML report: {why}; scripts/install-browser-deps installs what it needs");
        return;
    }
    let screenshot = root.join("report.png");
    let output = Command::new("node")
        .arg(browser_dir.join("check_report.mjs"))
        .args([
            "--html",
            "r.html",
            "--json",
            "r.json",
            "--search",
            "test_beta",
            "--screenshot",
        ])
        .arg(&screenshot)
        .current_dir(root)
        .env("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
        .env("PROCTOR_CHROMIUM", &chromium)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "the browser check failed:\n{}",
        text(&output)
    );
    assert!(screenshot.is_file());
    // Kept where PROCTOR_SCREENSHOT_DIR says, for a person to look at.
    if let Some(keep) = std::env::var_os("PROCTOR_SCREENSHOT_DIR") {
        let kept = Path::new(&keep).join("proctor-report.png");
        std::fs::copy(&screenshot, &kept).unwrap();
        eprintln!("screenshot: {}", kept.display());
    }
    eprintln!(
        "browser check: {}screenshot: {}",
        String::from_utf8_lossy(&output.stdout),
        screenshot.display()
    );
}

#[test]
fn report_explains_a_missing_malformed_or_foreign_json() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let cases = [
        ("nope.json", None, "cannot read the JSON report nope.json"),
        (
            "bad.json",
            Some("{\"version\": 1, \"tests\": ["),
            "bad.json is not JSON",
        ),
        (
            "v2.json",
            Some("{\"version\": 2}"),
            "v2.json is a version 2 report; this proctor reads version 1",
        ),
        (
            "other.json",
            Some("{\"version\": 1, \"tests\": 3}"),
            "other.json is not a proctor JSON report of version 1",
        ),
    ];
    for (file, content, expected) in cases {
        if let Some(content) = content {
            write(root, file, content);
        }
        let output = proctor(root, &["report", "--from", file, "--html", "out.html"]);
        assert_eq!(output.status.code(), Some(4), "{file}: {}", text(&output));
        assert!(
            text(&output).contains(expected),
            "{file}: {}",
            text(&output)
        );
    }
    assert!(!root.join("out.html").exists());
}
