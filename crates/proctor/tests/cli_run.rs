//! `proctor run` scenarios over temporary projects with real pytest:
//! reruns, order, shards, the network contract, Ctrl-C, jobs, history.
//! Needs `PROCTOR_TEST_PYTHON` (scripts/test sets it).

mod common;

use common::bare_pytest;
use common::test_python as python;

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use common::{proctor_run as proctor, text, write};

fn report(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn outcome(doc: &serde_json::Value, nodeid: &str) -> serde_json::Value {
    doc["tests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["nodeid"] == nodeid)
        .unwrap_or_else(|| panic!("{nodeid} not in {doc}"))
        .clone()
}

#[test]
fn transient_failures_are_rerun_and_reported_flaky() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "pyproject.toml",
        "[tool.pytest.ini_options]\nmarkers = ['ollama']\n\n[tool.proctor.run]\n[[tool.proctor.run.reruns]]\nmarkers = ['ollama']\nmatch = ['ReadTimeout']\ntimes = 2\n",
    );
    write(
        root,
        "test_flaky.py",
        "import os, pathlib\nimport pytest\n\nclass ReadTimeout(Exception):\n    pass\n\n@pytest.mark.ollama\ndef test_times_out_once():\n    marker = pathlib.Path('attempted')\n    if not marker.exists():\n        marker.write_text('1')\n        raise ReadTimeout('timed out')\n\n@pytest.mark.ollama\ndef test_assertion():\n    assert 1 == 2\n\ndef test_times_out_unmarked():\n    raise ReadTimeout('timed out')\n",
    );
    let json = root.join("report.json");
    let output = proctor(root, &["--json", json.to_str().unwrap()]);
    let doc = report(&json);
    let flaky = outcome(&doc, "test_flaky.py::test_times_out_once");
    assert_eq!(
        (
            flaky["outcome"].as_str(),
            flaky["flaky"].as_bool(),
            flaky["attempts"].as_u64()
        ),
        (Some("passed"), Some(true), Some(2)),
        "{}",
        text(&output)
    );
    let assertion = outcome(&doc, "test_flaky.py::test_assertion");
    assert_eq!(
        (
            assertion["outcome"].as_str(),
            assertion["attempts"].as_u64()
        ),
        (Some("failed"), Some(1))
    );
    let unmarked = outcome(&doc, "test_flaky.py::test_times_out_unmarked");
    assert_eq!(
        (unmarked["outcome"].as_str(), unmarked["attempts"].as_u64()),
        (Some("failed"), Some(1))
    );
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    assert!(
        text(&output).contains("FLAKY test_flaky.py::test_times_out_once"),
        "{}",
        text(&output)
    );
}

/// A module of `count` passing tests named after `module`.
fn module_text(module: &str, count: usize) -> String {
    (0..count).fold(String::new(), |mut text, i| {
        let _ = write!(text, "def test_{module}{i}():\n    pass\n\n");
        text
    })
}

fn order_of(output: &Output) -> Vec<String> {
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter(|l| l.ends_with(" PASSED"))
        .map(|l| l.trim_end_matches(" PASSED").to_owned())
        .collect()
}

#[test]
fn random_order_is_reproducible_from_its_seed() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for module in ["a", "b", "c", "d"] {
        let tests = module_text(module, 5);
        write(root, &format!("test_{module}.py"), &tests);
    }
    let first = proctor(
        root,
        &["--order", "random", "--seed", "1234", "-v", "--no-history"],
    );
    let again = proctor(
        root,
        &["--order", "random", "--seed", "1234", "-v", "--no-history"],
    );
    let other = proctor(
        root,
        &["--order", "random", "--seed", "99", "-v", "--no-history"],
    );
    assert!(
        text(&first).contains("random order (--seed 1234)"),
        "{}",
        text(&first)
    );
    assert_eq!(order_of(&first).len(), 20);
    assert_eq!(order_of(&first), order_of(&again));
    assert_ne!(order_of(&first), order_of(&other));
    // Modules stay together.
    let modules: Vec<String> = order_of(&first)
        .iter()
        .map(|n| n.split("::").next().unwrap().to_owned())
        .collect();
    let changes = modules.windows(2).filter(|w| w[0] != w[1]).count();
    assert_eq!(changes, 3, "{modules:?}");
}

#[test]
fn shards_split_the_tests_without_loss_or_overlap() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for module in ["a", "b", "c"] {
        let tests = module_text(module, 7);
        write(root, &format!("test_{module}.py"), &tests);
    }
    let mut all: Vec<String> = Vec::new();
    for index in 1..=3 {
        let shard = format!("{index}/3");
        let output = proctor(root, &["--shard", &shard, "-v", "--no-history"]);
        let ran = order_of(&output);
        assert!(
            !ran.is_empty() && ran.len() <= 8,
            "shard {shard}: {}",
            text(&output)
        );
        all.extend(ran);
    }
    let unique: BTreeSet<&String> = all.iter().collect();
    assert_eq!((all.len(), unique.len()), (21, 21));
    let bad = proctor(root, &["--shard", "4/3"]);
    assert_eq!(bad.status.code(), Some(4), "{}", text(&bad));
}

#[test]
fn unit_tests_may_not_use_the_network() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "pyproject.toml",
        "[tool.pytest.ini_options]\nmarkers = ['unit', 'integration']\n\n[tool.proctor.axes.tier]\nmarkers = ['unit', 'integration']\ndefault = 'unit'\n\n[tool.proctor.run]\nno-network = ['unit']\n",
    );
    write(
        root,
        "test_net.py",
        "import socket\nimport pytest\n\ndef _connect(host):\n    s = socket.socket()\n    s.settimeout(0.2)\n    try:\n        s.connect((host, 9))\n    except (ConnectionError, socket.timeout) as e:\n        return type(e).__name__\n    finally:\n        s.close()\n\ndef test_unit_reaches_out():\n    _connect('192.0.2.1')\n\ndef test_unit_loopback_is_fine():\n    _connect('127.0.0.1')\n\n@pytest.mark.integration\ndef test_integration_may():\n    _connect('192.0.2.1')\n",
    );
    let json = root.join("report.json");
    let output = proctor(root, &["--json", json.to_str().unwrap(), "--no-history"]);
    let doc = report(&json);
    let refused = outcome(&doc, "test_net.py::test_unit_reaches_out");
    assert_eq!(refused["outcome"], "failed", "{}", text(&output));
    assert!(
        refused["message"]
            .as_str()
            .unwrap()
            .contains("may not use the network"),
        "{refused}"
    );
    assert_eq!(
        outcome(&doc, "test_net.py::test_unit_loopback_is_fine")["outcome"],
        "passed"
    );
    assert_eq!(
        outcome(&doc, "test_net.py::test_integration_may")["outcome"],
        "passed"
    );
}

#[test]
fn ctrl_c_stops_pytest_and_writes_the_partial_report() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    // The slow test writes a file once it runs: the moment to interrupt,
    // reached by waiting for it rather than by a sleep.
    write(root, "test_slow.py", "import pathlib, time\n\ndef test_quick():\n    pass\n\ndef test_forever():\n    pathlib.Path('running').write_text('x')\n    time.sleep(120)\n\ndef test_never_reached():\n    pass\n");
    let json = root.join("report.json");
    let mut child = Command::new(env!("CARGO_BIN_EXE_proctor"))
        .arg("run")
        .arg("--python")
        .arg(python())
        .args(["--json", json.to_str().unwrap(), "--no-history", "-v"])
        .current_dir(root)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while !root.join("running").exists() {
        assert!(
            matches!(child.try_wait(), Ok(None)),
            "proctor exited before the slow test ran"
        );
        assert!(
            started.elapsed() < Duration::from_mins(2),
            "the slow test never ran"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let pid = i32::try_from(child.id()).unwrap();
    // SAFETY: signalling our own child.
    unsafe {
        libc::kill(pid, libc::SIGINT);
    }
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    let doc = report(&json);
    assert_eq!(
        outcome(&doc, "test_slow.py::test_quick")["outcome"],
        "passed"
    );
    assert!(doc["tests"]
        .as_array()
        .unwrap()
        .iter()
        .all(|t| t["nodeid"] != "test_slow.py::test_never_reached"));
    // No pytest left running for this project.
    let ps = Command::new("ps").args(["-eo", "args"]).output().unwrap();
    let running = String::from_utf8_lossy(&ps.stdout)
        .lines()
        .filter(|l| {
            l.contains("pytest")
                && l.contains("proctor_bridge")
                && l.contains(root.to_str().unwrap())
        })
        .count();
    assert_eq!(running, 0);
}

#[test]
fn a_job_runs_with_its_environment_and_secrets_stay_out_of_reports() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "pyproject.toml",
        "[tool.pytest.ini_options]\nmarkers = ['qualitative', 'e2e']\n\n[tool.proctor.gates.qualitative]\nskip-if-env = { CICD = '1' }\n\n[tool.proctor.jobs.ci]\nmarkers = 'e2e'\nenv = { CICD = '1' }\n",
    );
    write(
        root,
        "test_job.py",
        "import os\nimport pytest\n\n@pytest.mark.e2e\ndef test_sees_ci():\n    assert os.environ['CICD'] == '1'\n\n@pytest.mark.e2e\n@pytest.mark.qualitative\ndef test_judged():\n    pass\n\ndef test_not_e2e():\n    pass\n\n@pytest.mark.e2e\ndef test_leaks():\n    print(os.environ['PROCTOR_TEST_SECRET'])\n    assert False, os.environ['PROCTOR_TEST_SECRET'][:0] + 'failed on purpose'\n",
    );
    let json = root.join("report.json");
    let xml = root.join("report.xml");
    let output = Command::new(env!("CARGO_BIN_EXE_proctor"))
        .arg("run")
        .arg("--python")
        .arg(python())
        .args([
            "--job",
            "ci",
            "--json",
            json.to_str().unwrap(),
            "--junit-xml",
            xml.to_str().unwrap(),
        ])
        .current_dir(root)
        .env("PROCTOR_TEST_SECRET", "s3cr3t-7f1c")
        .output()
        .unwrap();
    let doc = report(&json);
    assert_eq!(
        outcome(&doc, "test_job.py::test_sees_ci")["outcome"],
        "passed",
        "{}",
        text(&output)
    );
    let judged = outcome(&doc, "test_job.py::test_judged");
    assert_eq!(
        (judged["outcome"].as_str(), judged["reason"].as_str()),
        (
            Some("skipped"),
            Some("`qualitative` tests are skipped when CICD=1")
        )
    );
    assert!(doc["tests"]
        .as_array()
        .unwrap()
        .iter()
        .all(|t| t["nodeid"] != "test_job.py::test_not_e2e"));
    // The history holds no output.
    let history = std::fs::read(root.join(".proctor/history.db")).unwrap();
    assert!(!String::from_utf8_lossy(&history).contains("s3cr3t-7f1c"));
    assert!(root.join(".proctor/history.db").exists());
}

#[test]
fn phases_start_their_services_and_a_broken_service_fails_only_its_phase() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let python = python();
    write(root, "fake_server.py", common::FAKE_SERVER);
    let port = common::free_port();
    write(
        root,
        "pyproject.toml",
        &format!(
            "[tool.pytest.ini_options]\nmarkers = ['fake', 'broken', 'e2e']\n\n\
             [tool.proctor.axes.backend]\nmarkers = ['fake', 'broken']\ncardinality = 'any'\n\n\
             [tool.proctor.services.fake]\naddress-env = 'FAKE_HOST'\ndefault-address = '127.0.0.1:{port}'\nhttp-probe = '/'\nstart = '{} fake_server.py'\nready-timeout = 20\n\n\
             [tool.proctor.services.broken]\ndefault-address = '127.0.0.1:9'\nstart = 'echo cannot start the broken service >&2; exit 3'\nready-timeout = 5\n\n\
             [tool.proctor.needs.fake]\nservices = ['fake']\n\n[tool.proctor.needs.broken]\nservices = ['broken']\n\n\
             [tool.proctor.jobs.nightly]\nmarkers = 'e2e'\nphases = {{ by = 'backend', order = ['broken', 'fake'] }}\n",
            python.display()
        ),
    );
    write(
        root,
        "test_backends.py",
        "import os, urllib.request\nimport pytest\n\n@pytest.mark.e2e\n@pytest.mark.fake\ndef test_fake_answers():\n    with urllib.request.urlopen('http://' + os.environ['FAKE_HOST'] + '/') as r:\n        assert r.read() == b'ok'\n\n@pytest.mark.e2e\n@pytest.mark.broken\ndef test_broken_backend():\n    pass\n\n@pytest.mark.e2e\ndef test_no_backend():\n    pass\n",
    );
    let json = root.join("report.json");
    let output = proctor(
        root,
        &[
            "--job",
            "nightly",
            "--json",
            json.to_str().unwrap(),
            "--no-history",
        ],
    );
    let doc = report(&json);
    let fake = outcome(&doc, "test_backends.py::test_fake_answers");
    assert_eq!(
        (fake["outcome"].as_str(), fake["phase"].as_str()),
        (Some("passed"), Some("fake")),
        "{}",
        text(&output)
    );
    let broken = outcome(&doc, "test_backends.py::test_broken_backend");
    assert_eq!(broken["outcome"], "error", "{}", text(&output));
    assert!(
        broken["message"]
            .as_str()
            .unwrap()
            .contains("cannot start the broken service"),
        "{broken}"
    );
    assert_eq!(
        outcome(&doc, "test_backends.py::test_no_backend")["outcome"],
        "passed"
    );
    assert!(
        text(&output).contains("phases broken → fake → (none)"),
        "{}",
        text(&output)
    );
    // The service is stopped: its port is free again.
    assert!(
        std::net::TcpStream::connect(("127.0.0.1", port)).is_err(),
        "the fake service is still running"
    );
}

#[test]
fn the_history_names_flaky_and_slow_tests() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "pyproject.toml", "[tool.pytest.ini_options]\nmarkers = ['slow']\n\n[tool.proctor.run]\nslow-threshold = 0.2\n");
    // The durations pytest reports (which the history records) are set by
    // the conftest, 1 s for test_sleeps and 0 for the others: a fast test
    // must be under a tenth of the threshold to be NOT SLOW, which a
    // loaded machine would miss with measured times.
    write(
        root,
        "conftest.py",
        "import pytest\n\n@pytest.hookimpl(wrapper=True)\ndef pytest_runtest_makereport(item, call):\n    report = yield\n    report.duration = 1.0 if item.name == 'test_sleeps' and call.when == 'call' else 0.0\n    return report\n",
    );
    write(
        root,
        "test_history.py",
        "import pathlib\nimport pytest\n\ndef test_sleeps():\n    pass\n\n@pytest.mark.slow\ndef test_marked_but_fast():\n    pass\n\ndef test_alternates():\n    flag = pathlib.Path('flag')\n    if flag.exists():\n        flag.unlink()\n    else:\n        flag.write_text('x')\n        assert False, 'every other run'\n",
    );
    proctor(root, &[]);
    let second = proctor(root, &[]);
    let out = text(&second);
    assert!(out.contains("SLOW test_history.py::test_sleeps"), "{out}");
    assert!(
        out.contains("NOT SLOW test_history.py::test_marked_but_fast"),
        "{out}"
    );
    assert!(
        out.contains("FLAKY test_history.py::test_alternates — went wrong in 1 of its last 2 runs"),
        "{out}"
    );
}

#[test]
fn the_history_keeps_the_newest_runs() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "pyproject.toml",
        "[tool.proctor.run]\nhistory-runs = 2\n",
    );
    write(root, "test_a.py", "def test_ok():\n    pass\n");
    for _ in 0..3 {
        let output = proctor(root, &[]);
        assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    }
    let history = proctor_history::History::open(&root.join(".proctor/history.db")).unwrap();
    assert_eq!(history.run_count().unwrap(), 2);
    write(
        root,
        "pyproject.toml",
        "[tool.proctor.run]\nhistory-runs = 0\n",
    );
    let output = proctor(root, &[]);
    assert_eq!(
        output.status.code(),
        Some(4),
        "a usage error, as pytest's: {}",
        text(&output)
    );
    assert!(
        text(&output).contains(
            "pyproject.toml:2:16: invalid value: integer `0`, expected an integer of at least 1"
        ),
        "{}",
        text(&output)
    );
}

#[test]
fn a_service_hook_runs_between_modules() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let server = "import http.server, os, socketserver\nhost, port = os.environ['FAKE_HOST'].split(':')\nclass H(http.server.BaseHTTPRequestHandler):\n    def do_GET(self):\n        self.send_response(200)\n        self.end_headers()\n    def do_POST(self):\n        with open('evictions.log', 'a') as f:\n            f.write(self.path + '\\n')\n        self.send_response(204)\n        self.end_headers()\n    def log_message(self, *a):\n        pass\nsocketserver.TCPServer.allow_reuse_address = True\nsocketserver.TCPServer((host, int(port)), H).serve_forever()\n";
    write(root, "fake_server.py", server);
    let port = common::free_port();
    write(
        root,
        "pyproject.toml",
        &format!(
            "[tool.pytest.ini_options]\nmarkers = ['fake']\n\n\
             [tool.proctor.services.fake]\naddress-env = 'FAKE_HOST'\ndefault-address = '127.0.0.1:{port}'\nhttp-probe = '/'\nstart = '{} fake_server.py'\nhook-between-modules = {{ method = 'POST', path = '/evict' }}\n\n\
             [tool.proctor.needs.fake]\nservices = ['fake']\n",
            python().display()
        ),
    );
    for module in ["a", "b", "c"] {
        write(root, &format!("test_{module}.py"), "import pytest\n\n@pytest.mark.fake\ndef test_one():\n    pass\n\n@pytest.mark.fake\ndef test_two():\n    pass\n");
    }
    let output = proctor(root, &["--no-history"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    let evictions = std::fs::read_to_string(root.join("evictions.log")).unwrap_or_default();
    assert_eq!(
        evictions,
        "/evict\n/evict\n",
        "one hook before each module after the first\n{}",
        text(&output)
    );
}

#[test]
fn a_crash_after_the_session_fails_the_run_as_it_fails_bare_pytest() {
    // proctor waits for pytest's interpreter to shut down before it
    // writes its summary and history: an atexit handler that exits with 3
    // is seen, said, and makes the run fail, as with bare pytest.
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "conftest.py",
        "import atexit, os\n\natexit.register(lambda: os._exit(3))\n",
    );
    write(root, "test_a.py", "def test_ok():\n    pass\n");
    let bare = bare_pytest(root, &[]);
    assert_eq!(bare.status.code(), Some(3), "{}", text(&bare));
    let output = proctor(root, &[]);
    assert_eq!(output.status.code(), Some(3), "{}", text(&output));
    assert!(
        text(&output).contains(
            "pytest's session ended with status 0, but its process then exited with exit status 3"
        ),
        "{}",
        text(&output)
    );
    assert!(text(&output).contains("1 passed"), "{}", text(&output));
    assert!(
        root.join(".proctor/history.db").is_file(),
        "the run was recorded"
    );
}

/// `proctor run` in `root`, killed (and the test failed) if it has not
/// ended once its tests are long over: the cases this guards used to wait
/// forever.
fn proctor_bounded(root: &Path, args: &[&str]) -> Output {
    let child = Command::new(env!("CARGO_BIN_EXE_proctor"))
        .arg("run")
        .arg("--python")
        .arg(python())
        .args(args)
        .current_dir(root)
        .env_remove("PYTEST_ADDOPTS")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let (done, ended) = std::sync::mpsc::channel();
    let watchdog = std::thread::spawn(move || {
        if ended.recv_timeout(Duration::from_mins(2)).is_err() {
            // SAFETY: signalling our own child, which has not been reaped.
            unsafe {
                libc::kill(i32::try_from(pid).unwrap(), libc::SIGKILL);
            }
            return true;
        }
        false
    });
    let output = child.wait_with_output().unwrap();
    let _ = done.send(());
    assert!(
        !watchdog.join().unwrap(),
        "proctor run never ended\n{}",
        text(&output)
    );
    output
}

/// The `N passed` count of pytest's or proctor's summary line.
fn passed_count(output: &Output) -> Option<usize> {
    let out = String::from_utf8_lossy(&output.stdout).into_owned();
    let line = out
        .lines()
        .rev()
        .find(|l| l.contains(" in ") && (l.contains("passed") || l.contains("failed")))?
        .to_owned();
    let (counts, _) = line
        .trim_matches(|c: char| c == '=' || c == ' ')
        .rsplit_once(" in ")?;
    counts
        .split(", ")
        .find_map(|part| part.strip_suffix(" passed")?.parse().ok())
}

#[test]
fn a_failure_message_with_a_lone_surrogate_fails_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "test_s.py", "def test_ok():\n    pass\n\ndef test_surrogate():\n    assert False, b'\\xff'.decode('utf-8', 'surrogateescape')\n");
    let bare = bare_pytest(root, &[]);
    assert_eq!(bare.status.code(), Some(1), "{}", text(&bare));
    let json = root.join("report.json");
    let output = proctor_bounded(root, &["--no-history", "--json", json.to_str().unwrap()]);
    assert_eq!(
        output.status.code(),
        bare.status.code(),
        "{}",
        text(&output)
    );
    let doc = report(&json);
    let failed = outcome(&doc, "test_s.py::test_surrogate");
    assert_eq!(failed["outcome"], "failed", "{}", text(&output));
    assert!(
        failed["message"]
            .as_str()
            .unwrap()
            .contains("AssertionError: \\udcff"),
        "{failed}"
    );
    assert_eq!(outcome(&doc, "test_s.py::test_ok")["outcome"], "passed");
}

/// Values JSON has no literal for (NaN, infinities), lone surrogates in a
/// parameter's value or id, and a file name that is not UTF-8: each test
/// runs and is reported, as bare pytest runs it.
#[cfg(target_os = "linux")]
#[test]
fn values_json_cannot_hold_reach_proctor_intact() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "test_values.py",
        "import pytest\n\n@pytest.mark.parametrize('x', [float('nan'), float('inf'), -float('inf'), 1.5])\ndef test_floats(x):\n    pass\n\n\
         @pytest.mark.parametrize('s', [b'\\xff'.decode('utf-8', 'surrogateescape'), '\\ud800'])\ndef test_surrogate_value(s):\n    pass\n\n\
         @pytest.mark.parametrize('s', [1], ids=[b'\\xfe'.decode('utf-8', 'surrogateescape')])\ndef test_surrogate_id(s):\n    pass\n\n\
         @pytest.mark.tagged(b'\\xfd'.decode('utf-8', 'surrogateescape'), weight=float('nan'))\ndef test_surrogate_marker():\n    pass\n",
    );
    write(
        root,
        "pytest.ini",
        "[pytest]\nmarkers =\n    tagged: a marker with odd arguments\n",
    );
    std::fs::write(
        root.join(std::ffi::OsStr::from_bytes(b"test_latin1_\xe9.py")),
        "def test_in_a_latin1_name():\n    pass\n",
    )
    .unwrap();
    let bare = bare_pytest(root, &[]);
    assert_eq!(bare.status.code(), Some(0), "{}", text(&bare));
    let output = proctor_bounded(root, &["--no-history"]);
    assert_eq!(
        output.status.code(),
        bare.status.code(),
        "{}",
        text(&output)
    );
    assert_eq!(
        passed_count(&output),
        passed_count(&bare),
        "{}\n--- bare pytest\n{}",
        text(&output),
        text(&bare)
    );
    assert_eq!(passed_count(&output), Some(9), "{}", text(&output));
}

#[test]
fn collection_errors_fail_the_run_as_in_pytest() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "test_good.py", "def test_ok():\n    pass\n");
    write(
        root,
        "test_broken.py",
        "import no_such_module_here\n\ndef test_lost():\n    pass\n",
    );
    for extra in [&["--continue-on-collection-errors"][..], &[]] {
        let bare = bare_pytest(root, extra);
        let json = root.join("report.json");
        let mut args = vec!["--no-history", "--json", json.to_str().unwrap(), "--"];
        args.extend(extra);
        let output = proctor_bounded(root, &args);
        assert_eq!(
            output.status.code(),
            bare.status.code(),
            "{extra:?}\n{}\n--- bare pytest\n{}",
            text(&output),
            text(&bare)
        );
        let doc = report(&json);
        assert_eq!(
            doc["summary"]["exit_code"].as_i64(),
            bare.status.code().map(i64::from),
            "{extra:?}: the report's exit code"
        );
        let broken = outcome(&doc, "test_broken.py");
        assert_eq!(broken["outcome"], "error", "{extra:?}: {}", text(&output));
        assert!(
            broken["message"]
                .as_str()
                .unwrap()
                .contains("No module named 'no_such_module_here'"),
            "{broken}"
        );
    }
}

/// A conftest hook that raises is pytest's internal error (exit 3): the
/// run's exit status, and the one its JSON report records (python-dateutil's
/// suite, where a warning filter turns an unknown mark into an error).
#[test]
fn an_internal_error_is_the_exit_status_of_the_run_and_of_its_report() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "conftest.py",
        "def pytest_collection_modifyitems(items):\n    raise RuntimeError('a hook that breaks')\n",
    );
    write(root, "test_a.py", "def test_ok():\n    pass\n");
    let bare = bare_pytest(root, &[]);
    assert_eq!(bare.status.code(), Some(3), "{}", text(&bare));
    let json = root.join("report.json");
    let output = proctor_bounded(root, &["--no-history", "--json", json.to_str().unwrap()]);
    assert_eq!(
        output.status.code(),
        bare.status.code(),
        "{}",
        text(&output)
    );
    assert!(
        text(&output).contains("RuntimeError: a hook that breaks"),
        "{}",
        text(&output)
    );
    assert_eq!(
        report(&json)["summary"]["exit_code"],
        3,
        "{}",
        text(&output)
    );
}

/// `pytest.importorskip` names a module, which the distribution that
/// installs it may name otherwise (`yaml` is `PyYAML`'s): a module that is
/// importable (here from `PYTHONPATH`, which pytest inherits) runs its
/// tests, as under bare pytest, in collection and in the plan alike.
#[test]
fn an_importorskip_of_a_module_whose_distribution_has_another_name_runs() {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    write(&site, "fake_yaml_mod/__init__.py", "VALUE = 1\n");
    write(
        &site,
        "Fake_YAML_Dist-1.0.dist-info/METADATA",
        "Metadata-Version: 2.1\nName: Fake-YAML-Dist\nVersion: 1.0\n",
    );
    write(
        &site,
        "Fake_YAML_Dist-1.0.dist-info/top_level.txt",
        "fake_yaml_mod\n",
    );
    let root = dir.path().join("project");
    write(&root, "pytest.ini", "[pytest]\n");
    write(&root, "test_y.py", "import pytest\n\nyaml = pytest.importorskip('fake_yaml_mod')\n\n\ndef test_uses_the_module():\n    assert yaml.VALUE == 1\n");
    write(&root, "test_missing.py", "import pytest\n\npytest.importorskip('fake_missing_mod')\n\n\ndef test_never_runs():\n    pass\n");
    let prefix = python()
        .parent()
        .and_then(Path::parent)
        .unwrap()
        .to_path_buf();
    let bare = Command::new(python())
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .current_dir(&root)
        .env("PYTHONPATH", &site)
        .env_remove("PYTEST_ADDOPTS")
        .output()
        .unwrap();
    assert_eq!(bare.status.code(), Some(0), "{}", text(&bare));
    let json = root.join("report.json");
    let output = Command::new(env!("CARGO_BIN_EXE_proctor"))
        .args(["run", "--python"])
        .arg(python())
        .args(["--no-history", "--json"])
        .arg(&json)
        .args(["--", "-p", "no:cacheprovider"])
        .current_dir(&root)
        .env("PYTHONPATH", &site)
        .env("VIRTUAL_ENV", &prefix)
        .env_remove("PYTEST_ADDOPTS")
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        bare.status.code(),
        "{}\n--- bare pytest\n{}",
        text(&output),
        text(&bare)
    );
    assert!(!text(&output).contains("DRIFT"), "{}", text(&output));
    let doc = report(&json);
    assert_eq!(
        outcome(&doc, "test_y.py::test_uses_the_module")["outcome"],
        "passed",
        "{}",
        text(&output)
    );
    let missing = outcome(&doc, "test_missing.py");
    assert_eq!(missing["outcome"], "skipped", "{}", text(&output));
    assert_eq!(
        missing["reason"],
        "could not import 'fake_missing_mod': No module named 'fake_missing_mod'"
    );
}

#[test]
fn pytest_exit_is_reported_and_the_tests_it_stopped_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "test_exit.py", "import pytest\n\ndef test_a():\n    pass\n\ndef test_b():\n    pytest.exit('stop here', returncode=0)\n\ndef test_c():\n    pass\n\ndef test_d():\n    pass\n");
    let bare = bare_pytest(root, &[]);
    let output = proctor_bounded(root, &["--no-history"]);
    assert_eq!(
        output.status.code(),
        bare.status.code(),
        "{}\n--- bare pytest\n{}",
        text(&output),
        text(&bare)
    );
    let out = text(&output);
    assert!(out.contains("Exit: stop here"), "{out}");
    for nodeid in [
        "test_exit.py::test_b",
        "test_exit.py::test_c",
        "test_exit.py::test_d",
    ] {
        assert!(
            out.contains(&format!("NOT RUN {nodeid}")),
            "{nodeid} is not named\n{out}"
        );
    }
}

/// Four runs at once in one directory, each over its own module with a
/// test that crashes its pytest once all four are there: each run keeps
/// its own files and reports each of its own tests.
#[test]
fn concurrent_runs_in_one_directory_keep_their_own_files() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for group in 0..4 {
        let mut tests = String::from("import os, pathlib, time\n\n");
        for i in 0..8 {
            if i == 2 {
                // A barrier on files: crash only once every run got here.
                let _ = write!(
                    tests,
                    "def test_g{group}_{i}():\n    pathlib.Path('arrived-{group}').write_text('x')\n    deadline = time.time() + 60\n    while len(list(pathlib.Path('.').glob('arrived-*'))) < 4 and time.time() < deadline:\n        time.sleep(0.01)\n    os._exit(3)\n\n"
                );
            } else {
                let _ = write!(tests, "def test_g{group}_{i}():\n    pass\n\n");
            }
        }
        write(root, &format!("test_g{group}.py"), &tests);
    }
    let runs: Vec<_> = (0..4)
        .map(|group| {
            let root = root.to_path_buf();
            std::thread::spawn(move || {
                let json = root.join(format!("report-{group}.json"));
                let output = proctor_bounded(
                    &root,
                    &[
                        &format!("test_g{group}.py"),
                        "--json",
                        json.to_str().unwrap(),
                    ],
                );
                (group, output, report(&json))
            })
        })
        .collect();
    for run in runs {
        let (group, output, doc) = run.join().unwrap();
        let got: BTreeSet<(String, String)> = doc["tests"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                (
                    t["nodeid"].as_str().unwrap().to_owned(),
                    t["outcome"].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        let want: BTreeSet<(String, String)> = (0..8)
            .map(|i| {
                (
                    format!("test_g{group}.py::test_g{group}_{i}"),
                    if i == 2 { "crashed" } else { "passed" }.to_owned(),
                )
            })
            .collect();
        assert_eq!(got, want, "run {group}\n{}", text(&output));
    }
    let history = proctor_history::History::open(&root.join(".proctor/history.db")).unwrap();
    assert_eq!(history.run_count().unwrap(), 4);
    // Each run's own files are gone with it; the plugin stays.
    let left: Vec<String> = std::fs::read_dir(root.join(".proctor/run"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "proctor_bridge.py" && n != "__pycache__")
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn times_out_of_range_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "test_a.py", "def test_ok():\n    pass\n");
    for bad in ["-1", "0", "nan", "inf", "1e300", "86401"] {
        let output = proctor(root, &["--timeout", bad]);
        assert_eq!(
            output.status.code(),
            Some(4),
            "--timeout {bad}: {}",
            text(&output)
        );
        assert!(
            text(&output)
                .contains("--timeout must be a number of seconds above 0 and at most 86400"),
            "{}",
            text(&output)
        );
    }
    let cases = [
        (
            "[run]\ntimeout = 1e300\n",
            "proctor.toml:2:11: must be a number of seconds above 0 and at most 86400",
        ),
        (
            "[[run.reruns]]\ntimes = 1\ndelay = 1e300\n",
            "proctor.toml:3:9: must be a number of seconds from 0 to 86400",
        ),
        (
            "[[run.reruns]]\ntimes = 1\ndelay = inf\n",
            "proctor.toml:3:9: must be a number of seconds from 0 to 86400",
        ),
    ];
    for (config, error) in cases {
        write(root, "proctor.toml", config);
        let output = proctor(root, &[]);
        assert_eq!(output.status.code(), Some(4), "{config}: {}", text(&output));
        assert!(text(&output).contains(error), "{config}: {}", text(&output));
    }
}

#[test]
fn the_network_guard_covers_udp_and_names_that_only_look_like_loopback() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "pyproject.toml",
        "[tool.proctor.axes.tier]\nmarkers = ['unit']\ndefault = 'unit'\n\n[tool.proctor.run]\nno-network = ['unit']\n",
    );
    write(
        root,
        "test_net.py",
        "import socket\n\ndef _udp():\n    return socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n\ndef test_dns_by_hand():\n    with _udp() as s:\n        s.sendto(b'\\0' * 12, ('192.0.2.1', 53))\n\ndef test_sendto_with_flags():\n    with _udp() as s:\n        s.sendto(b'x', 0, ('192.0.2.1', 53))\n\ndef test_a_name_starting_with_127():\n    with socket.socket() as s:\n        s.settimeout(0.2)\n        s.connect(('127.attacker.example', 9))\n\ndef test_udp_to_loopback_is_fine():\n    with _udp() as s:\n        s.sendto(b'x', ('127.0.0.2', 9))\n",
    );
    let json = root.join("report.json");
    let output = proctor(root, &["--json", json.to_str().unwrap(), "--no-history"]);
    let doc = report(&json);
    for nodeid in [
        "test_net.py::test_dns_by_hand",
        "test_net.py::test_sendto_with_flags",
        "test_net.py::test_a_name_starting_with_127",
    ] {
        let refused = outcome(&doc, nodeid);
        assert_eq!(refused["outcome"], "failed", "{nodeid}: {}", text(&output));
        assert!(
            refused["message"]
                .as_str()
                .unwrap()
                .contains("may not use the network"),
            "{refused}"
        );
    }
    assert_eq!(
        outcome(&doc, "test_net.py::test_udp_to_loopback_is_fine")["outcome"],
        "passed",
        "{}",
        text(&output)
    );
}

#[test]
fn a_file_name_that_is_not_utf8_has_the_node_id_pytest_reports() {
    use std::os::unix::ffi::OsStrExt;
    // Python reads the name with surrogateescape; the static node id spells
    // the byte as the bridge does, so the run sees no drift.
    let dir = tempfile::tempdir().unwrap();
    let name = std::ffi::OsStr::from_bytes(b"test_caf\xff.py");
    std::fs::write(
        dir.path().join(name),
        "def test_a():\n    pass\n\ndef test_b():\n    assert False\n",
    )
    .unwrap();
    let json = dir.path().join("report.json");
    let output = proctor(
        dir.path(),
        &["--no-history", "--json", json.to_str().unwrap()],
    );
    let log = text(&output);
    assert_eq!(output.status.code(), Some(1), "{log}");
    assert!(!log.contains("DRIFT"), "{log}");
    let doc = report(&json);
    assert_eq!(
        outcome(&doc, "test_caf\\udcff.py::test_a")["outcome"],
        "passed",
        "{log}"
    );
    assert_eq!(
        outcome(&doc, "test_caf\\udcff.py::test_b")["outcome"],
        "failed",
        "{log}"
    );
    let listed = Command::new(env!("CARGO_BIN_EXE_proctor"))
        .args(["collect"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&listed.stdout).starts_with("test_caf\\udcff.py::test_a\n"),
        "{}",
        text(&listed)
    );
}

/// The lines of pytest's "short test summary info", escapes kept.
fn short_summary(stdout: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(stdout)
        .lines()
        .skip_while(|line| !line.contains("short test summary info"))
        .skip(1)
        .take_while(|line| !line.contains("===="))
        // Not `pytest -q`'s closing line, which has no rule.
        .filter(|line| {
            ["FAILED", "SKIPPED", "ERROR", "XFAIL", "XPASS"]
                .iter()
                .any(|word| line.contains(&format!("{word}\u{1b}[0m ")))
        })
        .map(str::to_owned)
        .collect()
}

/// `--color always` colours the run report as pytest's `--color=yes`
/// colours its own (red FAILED, yellow SKIPPED, the outcome's rule), and
/// only then: into a pipe the report is plain, with no status line, and
/// `NO_COLOR` and `--color never` win over `FORCE_COLOR`.
#[test]
fn the_run_report_takes_pytests_colours_with_color_always_and_none_in_a_pipe() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "pytest.ini", "[pytest]\n");
    write(
        root,
        "test_colours.py",
        "import pytest\n\ndef test_ok():\n    pass\n\ndef test_bad():\n    assert 1 == 2\n\n@pytest.mark.skip(reason='later')\ndef test_later():\n    pass\n",
    );
    let run = |args: &[&str], env: &[(&str, &str)]| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_proctor"));
        command
            .args(args)
            .args(["run", "--python"])
            .arg(python())
            .args(["-p", "no:cacheprovider", "-rfEs"])
            .current_dir(root)
            .env_remove("PYTEST_ADDOPTS")
            .env_remove("NO_COLOR")
            .env_remove("FORCE_COLOR");
        for (key, value) in env {
            command.env(key, value);
        }
        command.output().unwrap()
    };
    let colored = run(&["--color", "always"], &[]);
    assert_eq!(colored.status.code(), Some(1), "{}", text(&colored));
    let pytest = bare_pytest(root, &["--color=yes", "-rfEs"]);
    assert_eq!(
        short_summary(&colored.stdout).len(),
        2,
        "{}",
        text(&colored)
    );
    assert_eq!(
        short_summary(&colored.stdout),
        short_summary(&pytest.stdout),
        "proctor:\n{}\npytest:\n{}",
        text(&colored),
        text(&pytest)
    );
    let shown = String::from_utf8_lossy(&colored.stdout).replace('\u{1b}', "\\e");
    assert!(
        shown.contains("\\e[31mFAILED\\e[0m test_colours.py::\\e[1mtest_bad\\e[0m"),
        "{shown}"
    );
    assert!(
        shown.contains("\\e[33mSKIPPED\\e[0m [1] test_colours.py:9: later"),
        "{shown}"
    );
    let last = shown.lines().last().unwrap();
    assert!(
        last.starts_with("\\e[31m\\e[1m="),
        "the red closing rule: {last}"
    );
    // Into a pipe: plain, and no status line (no carriage return).
    for (args, env) in [
        (&[][..], &[][..]),
        (&[][..], &[("NO_COLOR", "1"), ("FORCE_COLOR", "1")][..]),
        (&["--color", "never"][..], &[("FORCE_COLOR", "1")][..]),
    ] {
        let plain = run(args, env);
        let out = String::from_utf8_lossy(&plain.stdout);
        assert!(
            !out.contains('\u{1b}') && !out.contains('\r'),
            "{args:?} {env:?}: {out}"
        );
    }
    let forced = run(&[], &[("FORCE_COLOR", "1")]);
    assert!(String::from_utf8_lossy(&forced.stdout).contains("\u{1b}[31mFAILED"));
}
