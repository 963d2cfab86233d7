//! Differential tests: `proctor collect --json` against real pytest.
//!
//! Every fixture suite under `tests/suites/<name>/` is collected twice, with
//! its directory as the working directory (each suite has its own pytest
//! config, so it is its own rootdir):
//!
//! - by proctor: `proctor collect --json`;
//! - by pytest: `$PROCTOR_TEST_PYTHON -m pytest --collect-only -q
//!   -p dump_items -p no:cacheprovider -m "" -k ""`, where
//!   `tests/harness/dump_items.py` writes the collected items, their markers
//!   and the collection errors as JSON to `$PROCTOR_DUMP`. The empty `-m`
//!   and `-k` cancel any selection in the suite's `addopts`: `proctor
//!   collect` lists every item, selection is `proctor select`'s job.
//!
//! The two must agree on node IDs, their order and their markers:
//!
//! - (a) the node IDs proctor reports as static must appear in pytest's
//!   order;
//! - (b) the sets of node IDs must be equal, except that a *dynamic* proctor
//!   item (parameters only known at run time) stands for every pytest item
//!   of the same function (same node ID once the `[...]` part is stripped);
//! - (c) every item both report statically must carry the same markers in
//!   the same order (name, args, kwargs), with proctor's `source` consistent
//!   with the pytest node the marker came from; a proctor value
//!   `{"expr": ...}` (a non-literal) matches any value;
//! - (d) every file pytest fails to collect must be in proctor's errors.
//!
//! `scripts/test` sets `PROCTOR_TEST_PYTHON` to a virtualenv with the pinned
//! pytest. Without it these tests fail: they never pass vacuously.

#![expect(
    clippy::print_stderr,
    reason = "a differential test reports agreement figures as it goes"
)]

use std::collections::{BTreeMap, HashMap, HashSet};
use std::ffi::OsString;
use std::fmt::Write as _;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::{Map, Value};

/// The fixture suites, one `#[test]` each. `every_suite_has_a_test` checks
/// that this list matches the directories under `tests/suites/`.
macro_rules! suites {
    ($($name:ident),* $(,)?) => {
        const SUITES: &[&str] = &[$(stringify!($name)),*];
        $(
            #[test]
            fn $name() {
                check_suite(stringify!($name));
            }
        )*
    };
}

suites!(
    basics,
    naming,
    unittest_cases,
    inheritance,
    parametrize,
    fixtures,
    markers,
    discovery_defaults,
    discovery_config,
    errors,
    dynamic,
    outcomes,
    module_skips,
    opt_in,
    addopts_plugins,
    evaluated,
    collect_hooks,
    class_scope,
    module_getattr,
    interpreter_facts,
    asyncio_auto,
    fixture_markers,
    class_flags,
    subtests,
    class_factories,
    registry,
);

/// The only suite in which pytest is expected to report collection errors.
const ERROR_SUITES: &[&str] = &["errors"];

/// Whether real pytest may report collection errors for a suite.
#[derive(Clone, Copy, PartialEq, Eq)]
enum PytestErrors {
    /// A fixture suite that must collect cleanly.
    Forbidden,
    /// The suite dedicated to collection errors.
    Required,
    /// A suite we do not own (examples/).
    Allowed,
}

/// How long one collector run may take before the test gives up on it.
const RUN_TIMEOUT: Duration = Duration::from_mins(3);

const SETUP_HINT: &str = "run the tests through `scripts/test`, which creates .venv with the \
pinned pytest (tests/requirements.txt) and sets PROCTOR_TEST_PYTHON; or set \
PROCTOR_TEST_PYTHON to a Python that has that pytest installed";

fn repo_root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest
        .join("../..")
        .canonicalize()
        .expect("the repository root is two levels above crates/proctor")
}

fn suites_dir() -> PathBuf {
    repo_root().join("tests/suites")
}

// ---------------------------------------------------------------------------
// The two collectors' outputs.
// ---------------------------------------------------------------------------

/// `dump_items.py`'s output.
#[derive(Debug, Deserialize)]
struct PytestDump {
    items: Vec<PytestItem>,
    #[serde(default)]
    errors: Vec<PytestError>,
    /// Items deselected despite the empty `-m`/`-k` (`--deselect`, hooks).
    #[serde(default)]
    deselected: Vec<String>,
}

#[derive(Debug, Deserialize)]
struct PytestItem {
    nodeid: String,
    #[serde(default)]
    file: Option<String>,
    #[serde(default)]
    line: Option<u64>,
    #[serde(default)]
    markers: Vec<PytestMarker>,
}

#[derive(Debug, Clone, Deserialize)]
struct PytestMarker {
    name: String,
    #[serde(default)]
    args: Vec<Value>,
    #[serde(default)]
    kwargs: Map<String, Value>,
    /// `Function`, `Class`, `Module` or another node type name.
    node: String,
}

#[derive(Debug, Deserialize)]
struct PytestError {
    #[serde(default)]
    nodeid: String,
    #[serde(default)]
    path: String,
    #[serde(default)]
    summary: String,
}

/// `proctor collect --json` output, schema version 2.
#[derive(Debug, Deserialize)]
struct ProctorOutput {
    version: u64,
    /// Each distinct marker once; items refer to them by index.
    #[serde(default)]
    markers: Vec<ProctorMarker>,
    items: Vec<ProctorItem>,
    #[serde(default)]
    errors: Vec<ProctorError>,
    /// Conftest hooks that may re-mark items at run time.
    #[serde(default)]
    warnings: Vec<ProctorError>,
}

#[derive(Debug, Deserialize)]
struct ProctorItem {
    nodeid: String,
    #[serde(default)]
    file: Option<String>,
    #[serde(default)]
    line: Option<u64>,
    /// Indices into [`ProctorOutput::markers`].
    #[serde(default, rename = "markers")]
    marker_refs: Vec<usize>,
    /// The markers themselves, filled in from the table after parsing.
    #[serde(skip)]
    markers: Vec<ProctorMarker>,
    #[serde(default)]
    dynamic: Option<String>,
    /// Why the markers may be incomplete (a decorator of the suite that
    /// proctor does not follow).
    #[serde(default)]
    markers_uncertain: Option<String>,
    /// Calls that are not marks: decorators, `pytestmark` helpers and
    /// module-level `pytest.importorskip`.
    #[serde(default)]
    decorators: Vec<ProctorDecorator>,
    /// The markers after proctor's taxonomy (`collect --effective`).
    #[serde(default)]
    effective: Vec<EffectiveMarker>,
    /// Why the test skips itself when it runs (a class flag), read
    /// statically.
    #[serde(default)]
    skip: Option<String>,
}

#[derive(Debug, Deserialize)]
struct EffectiveMarker {
    name: String,
    #[serde(default)]
    args: Vec<Value>,
    #[serde(default)]
    kwargs: Map<String, Value>,
}

#[derive(Debug, Deserialize)]
struct ProctorDecorator {
    path: String,
}

#[derive(Debug, Clone, Deserialize)]
struct ProctorMarker {
    name: String,
    #[serde(default)]
    args: Vec<Value>,
    #[serde(default)]
    kwargs: Map<String, Value>,
    /// `function`, `class`, `module` or `param`.
    source: String,
}

#[derive(Debug, Deserialize)]
struct ProctorError {
    file: String,
    #[serde(default)]
    line: Option<u64>,
    #[serde(default)]
    message: String,
}

// ---------------------------------------------------------------------------
// Running the collectors.
// ---------------------------------------------------------------------------

struct Finished {
    status: Option<i32>,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
}

/// Runs `cmd` to completion, killing it after `RUN_TIMEOUT`.
fn run(mut cmd: Command, what: &str) -> Result<Finished, String> {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd
        .spawn()
        .map_err(|err| format!("failed to start {what}: {err}"))?;
    let mut out = child.stdout.take().expect("stdout is piped");
    let mut err = child.stderr.take().expect("stderr is piped");
    let out_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = out.read_to_end(&mut buf);
        buf
    });
    let err_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = err.read_to_end(&mut buf);
        buf
    });
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() > RUN_TIMEOUT => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "{what} did not finish within {}s",
                    RUN_TIMEOUT.as_secs()
                ));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(err) => return Err(format!("failed to wait for {what}: {err}")),
        }
    };
    Ok(Finished {
        status: status.code(),
        stdout: out_reader.join().unwrap_or_default(),
        stderr: err_reader.join().unwrap_or_default(),
    })
}

fn tail(bytes: &[u8], max_lines: usize) -> String {
    let text = String::from_utf8_lossy(bytes);
    let lines: Vec<&str> = text.lines().collect();
    let start = lines.len().saturating_sub(max_lines);
    lines[start..].join("\n")
}

/// The Python to run pytest with, checked once: it must import the pinned
/// pytest.
fn python() -> Result<&'static OsString, String> {
    static PYTHON: OnceLock<Result<OsString, String>> = OnceLock::new();
    PYTHON
        .get_or_init(|| {
            let Some(python) = std::env::var_os("PROCTOR_TEST_PYTHON") else {
                return Err(format!("PROCTOR_TEST_PYTHON is not set: {SETUP_HINT}"));
            };
            let mut cmd = Command::new(&python);
            cmd.args(["-c", "import pytest; print(pytest.__version__)"]);
            let finished = run(cmd, "the pytest version check")
                .map_err(|err| format!("{err}\n{SETUP_HINT}"))?;
            if finished.status != Some(0) {
                return Err(format!(
                    "pytest is not importable by PROCTOR_TEST_PYTHON={}:\n{}\n{SETUP_HINT}",
                    python.to_string_lossy(),
                    tail(&finished.stderr, 5)
                ));
            }
            let version = String::from_utf8_lossy(&finished.stdout).trim().to_owned();
            let pinned = pinned_pytest();
            if let Some(pinned) = pinned {
                if version != pinned {
                    return Err(format!(
                        "PROCTOR_TEST_PYTHON has pytest {version}, but tests/requirements.txt \
                         pins {pinned}: {SETUP_HINT}"
                    ));
                }
            }
            Ok(python)
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// Suites whose pytest needs plugins besides pytest
/// (`tests/requirements-plugins.txt`): they run with
/// `PROCTOR_TEST_PLUGINS_PYTHON`, which `scripts/test` points at
/// `.venv-plugins`.
const PLUGIN_SUITES: &[&str] = &["asyncio_auto"];

/// The Python for suite `label`: [`plugins_python`] for the
/// [`PLUGIN_SUITES`], else [`python`].
fn suite_python(label: &str) -> Result<&'static OsString, String> {
    if PLUGIN_SUITES.contains(&label) {
        plugins_python()
    } else {
        python()
    }
}

/// The Python with the plugins of `tests/requirements-plugins.txt`,
/// checked once: it must import the pinned pytest and pytest-asyncio.
fn plugins_python() -> Result<&'static OsString, String> {
    static PYTHON: OnceLock<Result<OsString, String>> = OnceLock::new();
    PYTHON
        .get_or_init(|| {
            let hint = "run the tests through `scripts/test`, which creates .venv-plugins \
                from tests/requirements-plugins.txt and sets PROCTOR_TEST_PLUGINS_PYTHON";
            let Some(python) = std::env::var_os("PROCTOR_TEST_PLUGINS_PYTHON") else {
                return Err(format!("PROCTOR_TEST_PLUGINS_PYTHON is not set: {hint}"));
            };
            let mut cmd = Command::new(&python);
            cmd.args([
                "-c",
                "import pytest, pytest_asyncio; print(pytest.__version__)",
            ]);
            let finished = run(cmd, "the plugins check").map_err(|err| format!("{err}\n{hint}"))?;
            let version = String::from_utf8_lossy(&finished.stdout).trim().to_owned();
            if finished.status != Some(0) || Some(&version) != pinned_pytest().as_ref() {
                return Err(format!(
                    "PROCTOR_TEST_PLUGINS_PYTHON={} lacks the pinned pytest or pytest-asyncio:\n{}\n{hint}",
                    python.to_string_lossy(),
                    tail(&finished.stderr, 5)
                ));
            }
            Ok(python)
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// The pytest version pinned in `tests/requirements.txt`.
fn pinned_pytest() -> Option<String> {
    let text = std::fs::read_to_string(repo_root().join("tests/requirements.txt")).ok()?;
    text.lines()
        .map(str::trim)
        .find_map(|line| line.strip_prefix("pytest=="))
        .map(|version| version.trim().to_owned())
}

fn temp_path(suite: &str) -> PathBuf {
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    std::env::temp_dir().join(format!(
        "proctor-differential-{}-{n}-{}.json",
        std::process::id(),
        suite.replace(['/', '\\'], "_")
    ))
}

fn run_pytest(dir: &Path, label: &str) -> Result<PytestDump, String> {
    let python = suite_python(label)?;
    let dump = temp_path(label);
    let mut cmd = Command::new(python);
    cmd.args([
        "-m",
        "pytest",
        "--collect-only",
        "-q",
        "-p",
        "dump_items",
        "-p",
        "no:cacheprovider",
        // Cancel `-m`/`-k` from addopts (the last one given wins).
        "-m",
        "",
        "-k",
        "",
    ])
    .current_dir(dir)
    .env("PROCTOR_DUMP", &dump)
    .env("PYTHONPATH", repo_root().join("tests/harness"))
    .env("PYTHONDONTWRITEBYTECODE", "1")
    // Only the plugins named here: whatever else is installed in the
    // environment must not change collection.
    .env("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    .env("PY_COLORS", "0")
    .env_remove("PYTEST_ADDOPTS")
    .env_remove("PYTEST_PLUGINS");
    let finished = run(cmd, "pytest")?;
    let text = std::fs::read_to_string(&dump);
    let _ = std::fs::remove_file(&dump);
    // 0: collected; 2: interrupted by collection errors; 5: nothing collected.
    let status_ok = matches!(finished.status, Some(0 | 2 | 5));
    match text {
        Ok(text) if status_ok => serde_json::from_str(&text)
            .map_err(|err| format!("cannot parse dump_items output: {err}")),
        _ => Err(format!(
            "pytest --collect-only failed in {} (exit status {:?}):\n{}\n{}",
            dir.display(),
            finished.status,
            tail(&finished.stdout, 30),
            tail(&finished.stderr, 30)
        )),
    }
}

fn run_proctor(dir: &Path, label: &str) -> Result<ProctorOutput, String> {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_proctor"));
    cmd.args(["collect", "--json", "--effective"])
        .current_dir(dir);
    // proctor reads the interpreter pytest runs in (its version decides
    // `sys.version_info` conditions), found as the active environment's.
    if let Some(venv) = suite_python(label)
        .ok()
        .map(Path::new)
        .and_then(Path::parent)
        .and_then(Path::parent)
        .filter(|venv| venv.join("pyvenv.cfg").is_file())
    {
        cmd.env("VIRTUAL_ENV", venv);
    }
    let finished = run(cmd, "proctor collect --json")?;
    let parsed: Result<ProctorOutput, _> = serde_json::from_slice(&finished.stdout);
    match parsed {
        Ok(mut output) if output.version == 2 => {
            for item in &mut output.items {
                item.markers = item
                    .marker_refs
                    .iter()
                    .map(|&index| output.markers[index].clone())
                    .collect();
            }
            Ok(output)
        }
        Ok(output) => Err(format!(
            "proctor collect --json reported schema version {}, expected 2",
            output.version
        )),
        Err(err) => Err(format!(
            "proctor collect --json (exit status {:?}) did not print valid JSON: {err}\n\
             stdout:\n{}\nstderr:\n{}",
            finished.status,
            tail(&finished.stdout, 20),
            tail(&finished.stderr, 20)
        )),
    }
}

// ---------------------------------------------------------------------------
// Comparing.
// ---------------------------------------------------------------------------

/// The node ID without its `[...]` parameter part.
fn function_nodeid(nodeid: &str) -> &str {
    let start = nodeid.find("::").unwrap_or(0);
    match nodeid[start..].find('[') {
        Some(bracket) => &nodeid[..start + bracket],
        None => nodeid,
    }
}

/// Whether proctor's value `ours` stands for pytest's value `theirs`.
fn value_matches(ours: &Value, theirs: &Value) -> bool {
    if let Value::Object(map) = ours {
        if map.len() == 1 && map.contains_key("expr") {
            // A non-literal: any runtime value will do.
            return true;
        }
    }
    match (ours, theirs) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(a), Value::Bool(b)) => a == b,
        (Value::String(a), Value::String(b)) => a == b,
        (Value::Number(a), Value::Number(b)) => numbers_match(a, b),
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| value_matches(x, y))
        }
        (Value::Object(a), Value::Object(b)) => kwargs_match(a, b),
        _ => false,
    }
}

fn kwargs_match(ours: &Map<String, Value>, theirs: &Map<String, Value>) -> bool {
    ours.len() == theirs.len()
        && ours
            .iter()
            .all(|(key, value)| theirs.get(key).is_some_and(|t| value_matches(value, t)))
}

/// Integers must be equal integers, floats equal floats (to the last bit or
/// so: Python and serde may round a decimal literal differently). Integers
/// too large for 64 bits are parsed as floats on both sides.
fn numbers_match(a: &serde_json::Number, b: &serde_json::Number) -> bool {
    let int = |n: &serde_json::Number| {
        n.as_i64()
            .map(i128::from)
            .or_else(|| n.as_u64().map(i128::from))
    };
    match (int(a), int(b)) {
        (Some(x), Some(y)) => x == y,
        (None, None) => match (a.as_f64(), b.as_f64()) {
            (Some(x), Some(y)) => (x - y).abs() <= 4.0 * f64::EPSILON * x.abs().max(y.abs()),
            _ => false,
        },
        _ => false,
    }
}

fn source_matches(source: &str, node: &str) -> bool {
    matches!(
        (source, node),
        ("function" | "param", "Function") | ("class", "Class") | ("module", "Module")
    )
}

fn markers_match(ours: &[ProctorMarker], theirs: &[PytestMarker]) -> bool {
    ours.len() == theirs.len()
        && ours.iter().zip(theirs).all(|(o, t)| {
            o.name == t.name
                && o.args.len() == t.args.len()
                && o.args.iter().zip(&t.args).all(|(a, b)| value_matches(a, b))
                && kwargs_match(&o.kwargs, &t.kwargs)
                && source_matches(&o.source, &t.node)
        })
}

/// Whether the markers agree once what pytest adds at run time is
/// accounted for — allowed only where something proctor reports can add
/// markers then: a helper call on the item (other than
/// `pytest.importorskip`), which may return a `skip`/`skipif` mark; or a
/// conftest hook (`hooks`), which may re-mark items — there proctor's
/// effective markers (its taxonomy states the hook's rules: defaults, path
/// rules, implications) must be the markers pytest ends with, in any
/// order, up to `skip`/`skipif` marks the hook adds.
fn run_time_marks_aside(ours: &ProctorItem, theirs: &[PytestMarker], hooks: bool) -> bool {
    let helpers = ours
        .decorators
        .iter()
        .any(|d| d.path != "pytest.importorskip");
    if !helpers && !hooks {
        return false;
    }
    let written = |name: &str| {
        ours.markers.iter().any(|o| o.name == name)
            || (hooks && ours.effective.iter().any(|e| e.name == name))
    };
    let kept: Vec<PytestMarker> = theirs
        .iter()
        .filter(|t| !matches!(t.name.as_str(), "skip" | "skipif") || written(&t.name))
        .cloned()
        .collect();
    if markers_match(&ours.markers, &kept) {
        return kept.len() < theirs.len();
    }
    hooks && same_markers_any_order(&ours.effective, &kept)
}

/// Equal multisets of markers (name, args, kwargs).
fn same_markers_any_order(ours: &[EffectiveMarker], theirs: &[PytestMarker]) -> bool {
    if ours.len() != theirs.len() {
        return false;
    }
    let mut used = vec![false; ours.len()];
    theirs.iter().all(|t| {
        let found = ours.iter().enumerate().position(|(i, o)| {
            !used[i]
                && o.name == t.name
                && o.args.len() == t.args.len()
                && o.args.iter().zip(&t.args).all(|(a, b)| value_matches(a, b))
                && kwargs_match(&o.kwargs, &t.kwargs)
        });
        found.is_some_and(|i| {
            used[i] = true;
            true
        })
    })
}

fn render_marker(name: &str, args: &[Value], kwargs: &Map<String, Value>, origin: &str) -> String {
    let mut parts: Vec<String> = args.iter().map(Value::to_string).collect();
    parts.extend(kwargs.iter().map(|(k, v)| format!("{k}={v}")));
    format!("{name}({}) @{origin}", parts.join(", "))
}

fn normalize_path(path: &str, dir: &Path) -> String {
    let path = path.replace('\\', "/");
    let dir = dir.to_string_lossy().replace('\\', "/");
    let relative = path
        .strip_prefix(&format!("{dir}/"))
        .unwrap_or(&path)
        .trim_start_matches("./");
    relative.to_owned()
}

/// The comparison of one suite.
#[derive(Default)]
struct Comparison {
    /// pytest items.
    pytest_items: usize,
    /// pytest items proctor reports with the same node ID (statically).
    exact: usize,
    /// pytest items covered by a dynamic proctor item of the same function.
    dynamic_covered: usize,
    /// pytest items proctor does not report.
    missing: Vec<String>,
    /// proctor items pytest does not report.
    extra: Vec<String>,
    /// Node IDs proctor reports more than once.
    duplicates: Vec<String>,
    /// Common items whose markers agree.
    markers_equal: usize,
    /// Common items whose markers agree once what pytest adds at run time
    /// is accounted for: `skip`/`skipif` marks returned by helper calls
    /// that proctor records as needs (`require_gpu(...)`), and, where a
    /// conftest hook re-marks items (reported as a warning), proctor's
    /// effective markers against pytest's final ones.
    markers_runtime: usize,
    /// Common items whose markers differ where proctor says they may
    /// (`markers_uncertain`, with the decorator it does not follow).
    markers_uncertain: usize,
    /// proctor items of modules that call `pytest.importorskip` at module
    /// level and that pytest skipped (the package is not installed there).
    importorskip_covered: usize,
    /// Common items whose markers differ, with a rendering of both lists.
    marker_diffs: Vec<String>,
    /// First divergence between the two orders, if any.
    order_diff: Option<String>,
    /// Files pytest fails to collect that proctor does not report.
    missing_errors: Vec<String>,
    /// Files proctor reports as errors that pytest collects (informational).
    extra_errors: Vec<String>,
    /// Items whose file or line differ (informational).
    location_diffs: Vec<String>,
    /// Items pytest deselected although no -m/-k applies (informational).
    deselected: Vec<String>,
}

impl Comparison {
    fn failed(&self) -> bool {
        !self.missing.is_empty()
            || !self.extra.is_empty()
            || !self.duplicates.is_empty()
            || !self.marker_diffs.is_empty()
            || self.order_diff.is_some()
            || !self.missing_errors.is_empty()
    }

    /// Items both agree on (node ID, and markers where both are static)
    /// over all items either reports.
    fn agreement(&self) -> (usize, usize) {
        let agreeing = self.markers_equal
            + self.markers_runtime
            + self.markers_uncertain
            + self.dynamic_covered
            + self.importorskip_covered;
        let total = self.pytest_items + self.extra.len() + self.importorskip_covered;
        (agreeing, total)
    }
}

fn percent((part, total): (usize, usize)) -> String {
    if total == 0 {
        return "n/a".to_owned();
    }
    #[expect(clippy::cast_precision_loss, reason = "item counts are small")]
    let value = 100.0 * part as f64 / total as f64;
    format!("{value:.1}%")
}

fn compare(pytest: &PytestDump, proctor: &ProctorOutput, dir: &Path) -> Comparison {
    let mut cmp = Comparison {
        pytest_items: pytest.items.len(),
        deselected: pytest.deselected.clone(),
        ..Comparison::default()
    };

    let pytest_by_id: HashMap<&str, &PytestItem> = pytest
        .items
        .iter()
        .map(|item| (item.nodeid.as_str(), item))
        .collect();
    let pytest_functions: HashSet<&str> = pytest
        .items
        .iter()
        .map(|item| function_nodeid(&item.nodeid))
        .collect();

    let mut proctor_static: HashMap<&str, &ProctorItem> = HashMap::new();
    let mut dynamic_functions: HashSet<&str> = HashSet::new();
    let mut seen: HashSet<&str> = HashSet::new();
    for item in &proctor.items {
        if !seen.insert(item.nodeid.as_str()) {
            cmp.duplicates.push(item.nodeid.clone());
        }
        if item.dynamic.is_some() {
            let function = function_nodeid(&item.nodeid);
            dynamic_functions.insert(function);
            if !pytest_functions.contains(function) {
                cmp.extra.push(format!(
                    "{} (dynamic: {})",
                    item.nodeid,
                    item.dynamic.as_deref().unwrap_or_default()
                ));
            }
        } else {
            proctor_static.insert(item.nodeid.as_str(), item);
            if !pytest_by_id.contains_key(item.nodeid.as_str()) {
                let file = item.nodeid.split("::").next().unwrap_or_default();
                let skipped_module = item
                    .decorators
                    .iter()
                    .any(|d| d.path == "pytest.importorskip")
                    && !pytest
                        .items
                        .iter()
                        .any(|p| p.nodeid.split("::").next() == Some(file));
                if skipped_module {
                    cmp.importorskip_covered += 1;
                } else {
                    cmp.extra.push(item.nodeid.clone());
                }
            }
        }
    }

    // (b) node IDs, and (c) markers of the common items.
    for item in &pytest.items {
        if let Some(ours) = proctor_static.get(item.nodeid.as_str()) {
            cmp.exact += 1;
            if markers_match(&ours.markers, &item.markers) {
                cmp.markers_equal += 1;
            } else if run_time_marks_aside(ours, &item.markers, !proctor.warnings.is_empty()) {
                cmp.markers_runtime += 1;
            } else if ours.markers_uncertain.is_some() {
                cmp.markers_uncertain += 1;
            } else {
                let mut diff = format!("  {}\n", item.nodeid);
                let _ = writeln!(diff, "    pytest:");
                for m in &item.markers {
                    let _ = writeln!(
                        diff,
                        "      {}",
                        render_marker(&m.name, &m.args, &m.kwargs, &m.node)
                    );
                }
                let _ = writeln!(diff, "    proctor:");
                for m in &ours.markers {
                    let _ = writeln!(
                        diff,
                        "      {}",
                        render_marker(&m.name, &m.args, &m.kwargs, &m.source)
                    );
                }
                cmp.marker_diffs.push(diff);
            }
            let file_differs = matches!((&ours.file, &item.file), (Some(a), Some(b)) if normalize_path(a, dir) != *b);
            let line_differs = matches!((ours.line, item.line), (Some(a), Some(b)) if a != b);
            if file_differs || line_differs {
                cmp.location_diffs.push(format!(
                    "  {}: pytest {}:{}, proctor {}:{}",
                    item.nodeid,
                    item.file.as_deref().unwrap_or("?"),
                    item.line.map_or("?".to_owned(), |l| l.to_string()),
                    ours.file.as_deref().unwrap_or("?"),
                    ours.line.map_or("?".to_owned(), |l| l.to_string()),
                ));
            }
        } else if dynamic_functions.contains(function_nodeid(&item.nodeid)) {
            cmp.dynamic_covered += 1;
        } else {
            cmp.missing.push(item.nodeid.clone());
        }
    }

    // (a) order of the node IDs both report statically.
    let ours: Vec<&str> = proctor
        .items
        .iter()
        .filter(|item| item.dynamic.is_none() && pytest_by_id.contains_key(item.nodeid.as_str()))
        .map(|item| item.nodeid.as_str())
        .collect();
    let theirs: Vec<&str> = pytest
        .items
        .iter()
        .filter(|item| proctor_static.contains_key(item.nodeid.as_str()))
        .map(|item| item.nodeid.as_str())
        .collect();
    if ours != theirs {
        let at = ours
            .iter()
            .zip(&theirs)
            .position(|(a, b)| a != b)
            .unwrap_or(ours.len().min(theirs.len()));
        let window = |list: &[&str]| {
            let start = at.saturating_sub(2);
            let end = (at + 4).min(list.len());
            list[start..end]
                .iter()
                .enumerate()
                .map(|(i, id)| {
                    let marker = if start + i == at { ">" } else { " " };
                    format!("    {marker} {id}")
                })
                .collect::<Vec<_>>()
                .join("\n")
        };
        cmp.order_diff = Some(format!(
            "  first difference at common item #{at}\n  pytest:\n{}\n  proctor:\n{}",
            window(&theirs),
            window(&ours)
        ));
    }

    // (d) collection errors, by file.
    let proctor_error_files: HashSet<String> = proctor
        .errors
        .iter()
        .map(|error| normalize_path(&error.file, dir))
        .collect();
    // pytest reports a conftest that fails to import as an error of its
    // directory; proctor names the conftest itself.
    let error_file = |error: &PytestError| {
        let path = if error.path.is_empty() {
            &error.nodeid
        } else {
            &error.path
        };
        let path = normalize_path(path, dir);
        if dir.join(&path).is_dir() {
            format!("{path}/conftest.py")
        } else {
            path
        }
    };
    let pytest_error_files: HashSet<String> = pytest.errors.iter().map(error_file).collect();
    for error in &pytest.errors {
        let path = error_file(error);
        if !proctor_error_files.contains(&path) {
            cmp.missing_errors
                .push(format!("{path}: {}", error.summary));
        }
    }
    for error in &proctor.errors {
        let path = normalize_path(&error.file, dir);
        if !pytest_error_files.contains(&path) {
            cmp.extra_errors.push(format!(
                "{path}:{}: {}",
                error.line.unwrap_or(0),
                error.message
            ));
        }
    }
    cmp.missing_errors.sort();
    cmp.extra_errors.sort();
    cmp
}

fn render_list(out: &mut String, title: &str, list: &[String], limit: usize) {
    if list.is_empty() {
        return;
    }
    let _ = writeln!(out, "{title} ({}):", list.len());
    for entry in list.iter().take(limit) {
        if entry.starts_with("  ") {
            let _ = write!(out, "{entry}");
            if !entry.ends_with('\n') {
                out.push('\n');
            }
        } else {
            let _ = writeln!(out, "  {entry}");
        }
    }
    if list.len() > limit {
        let _ = writeln!(out, "  ... and {} more", list.len() - limit);
    }
}

fn render(label: &str, cmp: &Comparison) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "suite {label}: agreement {} ({}/{} items); node IDs: {} exact, {} covered by dynamic \
         items, {} of modules pytest skipped (importorskip), {} missing, {} extra; markers: {}/{} equal \
         ({} more with run-time marks: helpers' skips, conftest hooks against effective markers; \
         {} differ where proctor says they are uncertain); order: {}",
        percent(cmp.agreement()),
        cmp.agreement().0,
        cmp.agreement().1,
        cmp.exact,
        cmp.dynamic_covered,
        cmp.importorskip_covered,
        cmp.missing.len(),
        cmp.extra.len(),
        cmp.markers_equal,
        cmp.exact,
        cmp.markers_runtime,
        cmp.markers_uncertain,
        if cmp.order_diff.is_some() {
            "DIFFERS"
        } else {
            "same"
        },
    );
    render_list(
        &mut out,
        "missing (pytest collects, proctor does not)",
        &cmp.missing,
        40,
    );
    render_list(
        &mut out,
        "extra (proctor reports, pytest does not collect)",
        &cmp.extra,
        40,
    );
    render_list(
        &mut out,
        "duplicate node IDs in proctor's output",
        &cmp.duplicates,
        20,
    );
    if let Some(order) = &cmp.order_diff {
        let _ = writeln!(out, "order differs:\n{order}");
    }
    render_list(&mut out, "marker differences", &cmp.marker_diffs, 15);
    render_list(
        &mut out,
        "collection errors pytest reports and proctor does not",
        &cmp.missing_errors,
        20,
    );
    render_list(
        &mut out,
        "note: errors proctor reports and pytest does not",
        &cmp.extra_errors,
        20,
    );
    render_list(
        &mut out,
        "note: items pytest deselected (--deselect or a hook; not compared)",
        &cmp.deselected,
        10,
    );
    render_list(
        &mut out,
        "note: locations that differ (not a failure)",
        &cmp.location_diffs,
        5,
    );
    out
}

// ---------------------------------------------------------------------------
// Suites.
// ---------------------------------------------------------------------------

struct SuiteResult {
    report: String,
    /// Some(..) when both collectors ran and were compared.
    comparison: Option<Comparison>,
    failed: bool,
}

fn evaluate(dir: &Path, label: &str, errors: PytestErrors) -> SuiteResult {
    let failure = |report: String| SuiteResult {
        report: format!("suite {label}: {report}"),
        comparison: None,
        failed: true,
    };
    let pytest = match run_pytest(dir, label) {
        Ok(dump) => dump,
        Err(err) => return failure(err),
    };
    if pytest.items.is_empty() {
        return failure(format!(
            "real pytest collected no items in {}: the fixture suite is broken",
            dir.display()
        ));
    }
    if errors == PytestErrors::Forbidden && !pytest.errors.is_empty() {
        let errors: Vec<String> = pytest
            .errors
            .iter()
            .map(|e| format!("  {}: {}", e.nodeid, e.summary))
            .collect();
        return failure(format!(
            "real pytest reports collection errors in a suite that must collect cleanly \
             (the fixture suite is broken):\n{}",
            errors.join("\n")
        ));
    }
    if errors == PytestErrors::Required && pytest.errors.is_empty() {
        return failure("real pytest reports no collection errors in the errors suite".to_owned());
    }
    let proctor = match run_proctor(dir, label) {
        Ok(output) => output,
        Err(err) => return failure(err),
    };
    let cmp = compare(&pytest, &proctor, dir);
    SuiteResult {
        report: render(label, &cmp),
        failed: cmp.failed(),
        comparison: Some(cmp),
    }
}

/// Results per suite, each computed once however many tests ask for it.
fn suite_result(name: &'static str) -> &'static SuiteResult {
    static CACHE: OnceLock<BTreeMap<&'static str, OnceLock<SuiteResult>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| SUITES.iter().map(|&s| (s, OnceLock::new())).collect());
    cache
        .get(name)
        .expect("every suite is in SUITES")
        .get_or_init(|| {
            let dir = suites_dir().join(name);
            let errors = if ERROR_SUITES.contains(&name) {
                PytestErrors::Required
            } else {
                PytestErrors::Forbidden
            };
            evaluate(&dir, name, errors)
        })
}

fn check_suite(name: &'static str) {
    if let Err(err) = suite_python(name) {
        panic!("{err}");
    }
    let result = suite_result(name);
    eprintln!("{}", result.report);
    assert!(
        !result.failed,
        "proctor and pytest disagree:\n{}",
        result.report
    );
    // Fixture suites are exact: only the suite of run-time constructs may
    // stand for pytest's items with dynamic ones.
    if !DYNAMIC_SUITES.contains(&name) {
        let covered = result.comparison.as_ref().map_or(0, |c| c.dynamic_covered);
        assert_eq!(
            covered, 0,
            "{covered} pytest items of suite {name} are only covered by dynamic items:\n{}",
            result.report
        );
    }
}

/// The suites with constructs known only at run time: `dynamic`, and
/// `module_getattr`'s names a module computes in `__getattr__`.
const DYNAMIC_SUITES: &[&str] = &["dynamic", "module_getattr"];

/// The skips proctor reads from class flags (`skip` in `collect --json`)
/// are the ones pytest takes when the suite runs: the same tests, each
/// reason starting with pytest's (`-v` prints it after `SKIPPED`). Tests
/// pytest skips for other reasons would show up as missing here too: the
/// suite has none.
#[test]
fn class_flags_skips_are_the_ones_pytest_takes() {
    let python = python().unwrap_or_else(|err| panic!("{err}"));
    let dir = suites_dir().join("class_flags");
    let mut cmd = Command::new(python);
    cmd.args(["-m", "pytest", "-v", "-p", "no:cacheprovider"])
        .current_dir(&dir)
        .env("COLUMNS", "1000")
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
        .env("PY_COLORS", "0")
        .env_remove("PYTEST_ADDOPTS");
    let finished = run(cmd, "pytest -v").unwrap_or_else(|err| panic!("{err}"));
    let stdout = String::from_utf8_lossy(&finished.stdout);
    let pytest: BTreeMap<String, String> = stdout
        .lines()
        .filter_map(|line| {
            let (nodeid, rest) = line.split_once(" SKIPPED (")?;
            let reason = rest.rsplit_once(')')?.0;
            Some((nodeid.to_owned(), reason.to_owned()))
        })
        .collect();
    assert!(!pytest.is_empty(), "pytest skipped nothing:\n{stdout}");
    let proctor = run_proctor(&dir, "class_flags").unwrap_or_else(|err| panic!("{err}"));
    let statically: BTreeMap<String, String> = proctor
        .items
        .iter()
        .filter_map(|item| Some((item.nodeid.clone(), item.skip.clone()?)))
        .collect();
    assert_eq!(
        statically.keys().collect::<Vec<_>>(),
        pytest.keys().collect::<Vec<_>>(),
        "proctor's static skips: {statically:#?}\npytest's: {pytest:#?}"
    );
    for (nodeid, reason) in &pytest {
        assert!(
            statically[nodeid].starts_with(reason.as_str()),
            "{nodeid}: proctor says {:?}, pytest {reason:?}",
            statically[nodeid]
        );
    }
    // `plan` counts them as skipped on this machine, each with its reason.
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_proctor"));
    cmd.args(["plan", "--color", "never"]).current_dir(&dir);
    let finished = run(cmd, "proctor plan").unwrap_or_else(|err| panic!("{err}"));
    let plan = String::from_utf8_lossy(&finished.stdout);
    let counts = format!(
        "{} run, {} skipped, 0 deselected",
        proctor.items.len() - pytest.len(),
        pytest.len()
    );
    assert!(plan.contains(&counts), "expected {counts:?} in:\n{plan}");
    for reason in statically.values() {
        let count = statically.values().filter(|r| *r == reason).count();
        assert!(
            plan.contains(&format!("SKIPPED [{count}] {reason}\n")),
            "{reason:?} is not in the plan {count} times:\n{plan}"
        );
    }
}

/// The items proctor says have uncertain markers (decorated by a function
/// of the suite it does not follow) in `dynamic/test_mark_decorators.py`
/// are exactly those whose markers pytest reports otherwise, and a
/// decorator that names no mark leaves the markers certain and right.
#[test]
fn unfollowed_mark_decorators_make_markers_uncertain() {
    let dir = suites_dir().join("dynamic");
    let pytest = run_pytest(&dir, "dynamic").unwrap_or_else(|err| panic!("{err}"));
    let proctor = run_proctor(&dir, "dynamic").unwrap_or_else(|err| panic!("{err}"));
    let file = "test_mark_decorators.py::";
    let mut differ = Vec::new();
    let mut uncertain = Vec::new();
    for item in proctor.items.iter().filter(|i| i.nodeid.starts_with(file)) {
        let theirs = pytest
            .items
            .iter()
            .find(|p| p.nodeid == item.nodeid)
            .unwrap_or_else(|| panic!("pytest has no {}", item.nodeid));
        if !markers_match(&item.markers, &theirs.markers) {
            differ.push(item.nodeid.clone());
        }
        if let Some(reason) = &item.markers_uncertain {
            let name = item.nodeid[file.len()..].trim_start_matches("test_");
            assert!(
                reason.contains(&format!("`{name}`")),
                "{}: {reason}",
                item.nodeid
            );
            uncertain.push(item.nodeid.clone());
        }
    }
    assert!(!differ.is_empty(), "no item's markers differ from pytest's");
    assert_eq!(uncertain, differ);
    assert!(
        proctor
            .items
            .iter()
            .any(|i| i.nodeid == format!("{file}test_plain_decorator")
                && i.markers_uncertain.is_none()),
        "the inert decorator made markers uncertain"
    );
}

#[test]
fn every_suite_has_a_test() {
    let mut on_disk: Vec<String> = std::fs::read_dir(suites_dir())
        .expect("tests/suites exists")
        .filter_map(Result::ok)
        .filter(|entry| entry.path().is_dir())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    on_disk.sort();
    let mut listed: Vec<String> = SUITES.iter().map(|&s| s.to_owned()).collect();
    listed.sort();
    assert_eq!(
        on_disk, listed,
        "the suites! list in differential.rs must name every directory under tests/suites/"
    );
}

/// Agreement over all suites. Fails, with the table, whenever any suite
/// disagrees, so the overall figure shows up in a normal test run.
#[test]
fn agreement_summary() {
    if let Err(err) = python() {
        panic!("{err}");
    }
    let mut table = String::new();
    let (mut agreeing, mut total) = (0, 0);
    let mut failed = Vec::new();
    for &name in SUITES {
        let result = suite_result(name);
        if result.failed {
            failed.push(name);
        }
        match &result.comparison {
            Some(cmp) => {
                let (a, t) = cmp.agreement();
                agreeing += a;
                total += t;
                let _ = writeln!(table, "  {name:<20} {:>7}  ({a}/{t})", percent((a, t)));
            }
            None => {
                let _ = writeln!(
                    table,
                    "  {name:<20} {:>7}  (not compared: see its test)",
                    "-"
                );
            }
        }
    }
    let summary = format!(
        "differential agreement over all suites: {} ({agreeing}/{total} items)\n{table}",
        percent((agreeing, total))
    );
    eprintln!("{summary}");
    assert!(
        failed.is_empty(),
        "suites that disagree: {failed:?}\n{summary}"
    );
}

/// Files that make a directory a pytest rootdir.
const CONFIGS: &[&str] = &[
    "pytest.toml",
    ".pytest.toml",
    "pytest.ini",
    ".pytest.ini",
    "pyproject.toml",
    "tox.ini",
    "setup.cfg",
];

/// The repository's `examples/` directory: one suite if it holds a pytest
/// config file itself, otherwise every subdirectory that holds one.
#[test]
fn examples_suite() {
    let examples = repo_root().join("examples");
    if !examples.is_dir() {
        eprintln!(
            "note: {} does not exist yet; nothing to compare",
            examples.display()
        );
        return;
    }
    if let Err(err) = python() {
        panic!("{err}");
    }
    let has_config = |dir: &Path| CONFIGS.iter().any(|c| dir.join(c).is_file());
    let mut dirs = Vec::new();
    if has_config(&examples) {
        dirs.push(examples.clone());
    } else {
        let mut subdirs: Vec<PathBuf> = std::fs::read_dir(&examples)
            .expect("examples/ is readable")
            .filter_map(Result::ok)
            .map(|entry| entry.path())
            .filter(|path| path.is_dir() && has_config(path))
            .collect();
        subdirs.sort();
        if subdirs.is_empty() {
            dirs.push(examples.clone());
        }
        dirs.extend(subdirs);
    }
    let mut reports = Vec::new();
    let mut failed = false;
    for dir in &dirs {
        let label = format!(
            "examples/{}",
            dir.strip_prefix(&examples).unwrap_or(dir).display()
        );
        // Collection errors are allowed here, but proctor must report them too.
        let result = evaluate(dir, label.trim_end_matches('/'), PytestErrors::Allowed);
        failed |= result.failed;
        eprintln!("{}", result.report);
        reports.push(result.report.clone());
    }
    assert!(
        !failed,
        "proctor and pytest disagree on examples/:\n{}",
        reports.join("\n")
    );
}
