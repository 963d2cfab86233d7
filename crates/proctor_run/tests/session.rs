//! The runner against real pytest: decisions applied, outcomes as pytest
//! reports them, and no test lost when the process dies or hangs.
//! Needs `PROCTOR_TEST_PYTHON` (scripts/test sets it to a venv with pytest).

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use proctor_run::{run_phase, CollectedItem, Decisions, Event, LateExit, Outcome, PhaseOptions};

fn python() -> std::path::PathBuf {
    std::env::var_os("PROCTOR_TEST_PYTHON")
        .expect("PROCTOR_TEST_PYTHON names a Python with pytest (scripts/test sets it)")
        .into()
}

fn write(root: &Path, path: &str, text: &str) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn options(root: &Path) -> PhaseOptions {
    PhaseOptions {
        python: python(),
        cwd: root.to_path_buf(),
        args: Vec::new(),
        extra_args: vec!["-p".into(), "no:cacheprovider".into()],
        env: Vec::new(),
        // Long enough that no test here but the hanging one comes near it
        // on a loaded machine.
        timeout: Some(Duration::from_secs(20)),
        phase: None,
        work_dir: root.join(".proctor/run/this-run"),
        plugin_dir: root.join(".proctor/run"),
        only: None,
        interrupt: None,
        module_sync: false,
        ignore: Vec::new(),
        opt_in: None,
        starts: false,
        keep_results: true,
        steal: None,
        known_ids: None,
    }
}

fn outcomes(results: &[proctor_run::TestResult]) -> BTreeMap<String, Outcome> {
    results
        .iter()
        .map(|r| (r.nodeid.clone(), r.outcome))
        .collect()
}

#[test]
fn decisions_apply_and_outcomes_match_pytest() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "pytest.ini",
        "[pytest]\naddopts = -m 'not slow'\nmarkers =\n    slow: slow\n    gpu: gpu\n",
    );
    write(
        root,
        "test_a.py",
        "import pytest\n\ndef test_pass():\n    pass\n\ndef test_fail():\n    assert 1 == 2\n\n@pytest.mark.gpu\ndef test_gpu():\n    pass\n\n@pytest.mark.slow\ndef test_slow():\n    pass\n\n@pytest.mark.xfail(reason='bug 7')\ndef test_xfail():\n    assert False\n\n@pytest.fixture\ndef broken():\n    raise RuntimeError('setup')\n\ndef test_error(broken):\n    pass\n\n@pytest.mark.skip(reason='not today')\ndef test_skip():\n    pass\n",
    );
    let mut seen: Vec<CollectedItem> = Vec::new();
    let mut decide = |items: &[CollectedItem]| {
        seen = items.to_vec();
        let mut decisions = Decisions::default();
        decisions.deselect.push("test_a.py::test_pass".into());
        decisions.skip.insert(
            "test_a.py::test_gpu".into(),
            "no GPU detected (8 GB VRAM required)".into(),
        );
        decisions
    };
    let mut events = Vec::new();
    let outcome = run_phase(&options(root), None, &mut decide, &mut |e: &Event| {
        events.push(e.clone());
    })
    .unwrap();
    // pytest's own -m from addopts is neutralised: proctor selects.
    assert_eq!(seen.len(), 7, "{seen:?}");
    assert!(seen
        .iter()
        .find(|i| &*i.nodeid == "test_a.py::test_gpu")
        .unwrap()
        .markers
        .iter()
        .any(|m| m.name == "gpu"));
    let got = outcomes(&outcome.results);
    let want: BTreeMap<String, Outcome> = [
        ("test_a.py::test_fail", Outcome::Failed),
        ("test_a.py::test_gpu", Outcome::Skipped),
        ("test_a.py::test_slow", Outcome::Passed),
        ("test_a.py::test_xfail", Outcome::Xfailed),
        ("test_a.py::test_error", Outcome::Error),
        ("test_a.py::test_skip", Outcome::Skipped),
    ]
    .into_iter()
    .map(|(n, o)| (n.to_owned(), o))
    .collect();
    assert_eq!(got, want);
    let gpu = outcome
        .results
        .iter()
        .find(|r| r.nodeid == "test_a.py::test_gpu")
        .unwrap();
    assert_eq!(
        gpu.reason.as_deref(),
        Some("no GPU detected (8 GB VRAM required)")
    );
    let fail = outcome
        .results
        .iter()
        .find(|r| r.nodeid == "test_a.py::test_fail")
        .unwrap();
    assert!(fail.message.as_deref().unwrap().contains("assert 1 == 2"));
    assert_eq!(outcome.deselected, ["test_a.py::test_pass"]);
    assert_eq!(outcome.pytest_status, Some(1));
}

#[test]
fn a_killed_process_loses_no_test() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "test_b.py",
        "import os, time\n\ndef test_1():\n    pass\n\ndef test_dies():\n    os._exit(3)\n\ndef test_2():\n    pass\n\ndef test_hangs():\n    time.sleep(3600)\n\ndef test_3():\n    assert 0\n",
    );
    let mut decide = |_: &[CollectedItem]| Decisions::default();
    let mut notes = 0;
    let outcome = run_phase(&options(root), None, &mut decide, &mut |e: &Event| {
        if matches!(e, Event::Note { .. }) {
            notes += 1;
        }
    })
    .unwrap();
    let got = outcomes(&outcome.results);
    let want: BTreeMap<String, Outcome> = [
        ("test_b.py::test_1", Outcome::Passed),
        ("test_b.py::test_dies", Outcome::Crashed),
        ("test_b.py::test_2", Outcome::Passed),
        ("test_b.py::test_hangs", Outcome::TimedOut),
        ("test_b.py::test_3", Outcome::Failed),
    ]
    .into_iter()
    .map(|(n, o)| (n.to_owned(), o))
    .collect();
    assert_eq!(got, want);
    assert_eq!(
        notes, 2,
        "one restart after the crash, one after the timeout"
    );
    let died = outcome
        .results
        .iter()
        .find(|r| r.nodeid == "test_b.py::test_dies")
        .unwrap();
    assert!(
        died.message.as_deref().unwrap().contains("exit status 3"),
        "{died:?}"
    );
}

#[test]
fn pytest_that_cannot_start_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "conftest.py",
        "raise SystemExit('conftest is broken')\n",
    );
    write(root, "test_c.py", "def test_x():\n    pass\n");
    let mut decide = |_: &[CollectedItem]| Decisions::default();
    let outcome = run_phase(&options(root), None, &mut decide, &mut |_: &Event| {}).unwrap();
    assert!(outcome.results.is_empty());
    assert!(
        outcome
            .failed_to_start
            .as_deref()
            .unwrap_or_default()
            .contains("conftest is broken"),
        "{outcome:?}"
    );
}

/// Whether process `pid` still runs (a zombie or a gone process does not).
fn running(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit(')')
            .next()
            .is_some_and(|rest| !rest.trim_start().starts_with('Z'))
    })
}

/// A pytest process started early and then not needed (nothing to run,
/// an error in the static pass) is killed with what it started: no orphan.
#[cfg(target_os = "linux")]
#[test]
fn an_early_process_never_served_is_killed() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    // An "interpreter" that starts a child of its own and waits.
    let fake = root.join("fake-python");
    std::fs::write(
        &fake,
        "#!/bin/sh\nsleep 60 &\necho $$ $! > \"$(dirname \"$0\")/pids\"\nwait\n",
    )
    .unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let started = proctor_run::start(&PhaseOptions {
        python: fake,
        ..options(root)
    })
    .unwrap();
    let pids_file = root.join("pids");
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while std::fs::read_to_string(&pids_file).map_or(true, |t| !t.ends_with('\n')) {
        assert!(
            std::time::Instant::now() < deadline,
            "the fake interpreter never started"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let pids: Vec<i32> = std::fs::read_to_string(&pids_file)
        .unwrap()
        .split_whitespace()
        .map(|p| p.parse().unwrap())
        .collect();
    assert!(
        pids.iter().all(|&pid| running(pid)),
        "{pids:?} run before the drop"
    );
    drop(started);
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while pids.iter().any(|&pid| running(pid)) {
        assert!(
            std::time::Instant::now() < deadline,
            "{pids:?} still run after the drop"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// A session that ended is handed back while its interpreter shuts down:
/// the results are in before the process exits, waiting for it waits for
/// its `atexit` handlers, and an exit status other than the session's is
/// reported.
#[test]
fn a_process_shutting_down_is_handed_back_and_waited_for() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "conftest.py",
        "import atexit, os, pathlib, time\n\ndef _late():\n    deadline = time.time() + 20\n    while not pathlib.Path('go').exists() and time.time() < deadline:\n        time.sleep(0.01)\n    pathlib.Path('shut-down').write_text('x')\n    os._exit(3)\n\natexit.register(_late)\n",
    );
    write(root, "test_a.py", "def test_ok():\n    pass\n");
    let mut decide = |_: &[CollectedItem]| Decisions::default();
    let outcome = run_phase(&options(root), None, &mut decide, &mut |_: &Event| {}).unwrap();
    assert_eq!(
        outcomes(&outcome.results),
        BTreeMap::from([("test_a.py::test_ok".to_owned(), Outcome::Passed)])
    );
    assert_eq!(outcome.pytest_status, Some(0));
    // The atexit handler waits for `go`: the process is still shutting down.
    assert!(!root.join("shut-down").exists());
    let exiting = outcome
        .exiting
        .expect("the process is handed back while it shuts down");
    std::fs::write(root.join("go"), "").unwrap();
    let late = exiting.wait();
    assert!(
        root.join("shut-down").exists(),
        "waiting waits for the atexit handler"
    );
    assert_eq!(
        late,
        Some(LateExit {
            session_status: 0,
            process_status: Some(3),
            signal: None
        })
    );
    assert_eq!(
        late.unwrap().to_string(),
        "pytest's session ended with status 0, but its process then exited with exit status 3"
    );
}

/// `run_phase` with no decisions, failing the test if it has not returned
/// once its tests are long over: the cases this guards used to wait
/// forever.
fn run_bounded(options: PhaseOptions) -> proctor_run::PhaseOutcome {
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut decide = |_: &[CollectedItem]| Decisions::default();
        let outcome = run_phase(&options, None, &mut decide, &mut |_: &Event| {}).unwrap();
        let _ = sender.send(outcome);
    });
    receiver
        .recv_timeout(Duration::from_mins(2))
        .expect("run_phase never returned")
}

/// A line from the bridge that proctor cannot read is an error of the
/// test it concerns, never a silent pass.
#[test]
fn a_line_proctor_cannot_read_is_an_error_not_a_pass() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    // A bridge whose message about one test is not JSON proctor can read
    // (a lone surrogate in an escape).
    write(
        root,
        "conftest.py",
        "import proctor_bridge\n\n_real = proctor_bridge._send_test\n\ndef _garbled(nodeid, reports):\n    if 'garbled' in nodeid:\n        proctor_bridge._connection.sendall(b'{\"event\":\"passed\",\"nodeid\":\"t\\\\udcff\",\"nanos\":1}\\n')\n    else:\n        _real(nodeid, reports)\n\nproctor_bridge._send_test = _garbled\n",
    );
    write(root, "test_a.py", "def test_before():\n    pass\n\ndef test_garbled():\n    pass\n\ndef test_after():\n    pass\n");
    let outcome = run_bounded(options(root));
    let got = outcomes(&outcome.results);
    let want: BTreeMap<String, Outcome> = [
        ("test_a.py::test_before", Outcome::Passed),
        ("test_a.py::test_garbled", Outcome::Error),
        ("test_a.py::test_after", Outcome::Passed),
    ]
    .into_iter()
    .map(|(n, o)| (n.to_owned(), o))
    .collect();
    assert_eq!(got, want, "{outcome:?}");
    let garbled = outcome
        .results
        .iter()
        .find(|r| r.nodeid == "test_a.py::test_garbled")
        .unwrap();
    assert!(
        garbled
            .message
            .as_deref()
            .unwrap_or_default()
            .contains("cannot read"),
        "{garbled:?}"
    );
}

/// A collection message proctor cannot read stops that pytest with the
/// reason: neither side waits for the other forever.
#[test]
fn a_collection_message_proctor_cannot_read_stops_pytest() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "conftest.py",
        "import proctor_bridge\n\ndef _garbled(items, ids):\n    return {'event': 'collected', 'ids': [float('nan')]}\n\nproctor_bridge._collected = _garbled\n",
    );
    write(root, "test_a.py", "def test_x():\n    pass\n");
    let outcome = run_bounded(PhaseOptions {
        timeout: None,
        ..options(root)
    });
    assert!(outcome.results.is_empty(), "{outcome:?}");
    assert!(
        outcome
            .failed_to_start
            .as_deref()
            .unwrap_or_default()
            .contains("cannot read"),
        "{outcome:?}"
    );
}

/// A conftest that reorders the items after the bridge applied proctor's
/// decisions: a crash is blamed on the test pytest really ran.
#[test]
fn a_crash_is_blamed_on_the_test_that_ran_after_a_late_reorder() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "conftest.py", "import pytest\n\n@pytest.hookimpl(trylast=True)\ndef pytest_collection_modifyitems(items):\n    items.reverse()\n");
    write(root, "test_r.py", "import os\n\ndef test_a():\n    pass\n\ndef test_b():\n    pass\n\ndef test_c():\n    os._exit(3)\n");
    let outcome = run_bounded(options(root));
    let got = outcomes(&outcome.results);
    let want: BTreeMap<String, Outcome> = [
        ("test_r.py::test_a", Outcome::Passed),
        ("test_r.py::test_b", Outcome::Passed),
        ("test_r.py::test_c", Outcome::Crashed),
    ]
    .into_iter()
    .map(|(n, o)| (n.to_owned(), o))
    .collect();
    assert_eq!(got, want, "{outcome:?}");
}

/// The tests still to run after a crash reach the new pytest whatever
/// characters their node ids hold (here a newline in a file name).
#[test]
fn node_ids_with_any_character_survive_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "test_new\nline.py", "import os\n\ndef test_1():\n    pass\n\ndef test_dies():\n    os._exit(3)\n\ndef test_2():\n    pass\n\n@__import__('pytest').mark.parametrize('p', ['a b', 'c\\nd'])\ndef test_3(p):\n    pass\n");
    let outcome = run_bounded(options(root));
    let got = outcomes(&outcome.results);
    let want: BTreeMap<String, Outcome> = [
        ("test_new\nline.py::test_1", Outcome::Passed),
        ("test_new\nline.py::test_dies", Outcome::Crashed),
        ("test_new\nline.py::test_2", Outcome::Passed),
        ("test_new\nline.py::test_3[a b]", Outcome::Passed),
        ("test_new\nline.py::test_3[c\\nd]", Outcome::Passed),
    ]
    .into_iter()
    .map(|(n, o)| (n.to_owned(), o))
    .collect();
    assert_eq!(got, want, "{outcome:?}");
}

/// A test that forks, then its pytest dies: the child still holds the
/// bridge's socket, and proctor watches pytest itself, not only the
/// socket. The child, in pytest's process group, is killed with it.
#[cfg(target_os = "linux")]
#[test]
fn a_forked_child_holding_the_socket_does_not_keep_proctor_waiting() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "test_fork.py",
        "import os, pathlib, time\n\ndef test_forks_then_dies():\n    child = os.fork()\n    if child == 0:\n        pathlib.Path('child.pid').write_text(str(os.getpid()) + '\\n')\n        while True:\n            time.sleep(1)\n    while not pathlib.Path('child.pid').exists() or not pathlib.Path('child.pid').read_text().endswith('\\n'):\n        time.sleep(0.01)\n    os._exit(3)\n\ndef test_after():\n    pass\n",
    );
    let outcome = run_bounded(PhaseOptions {
        timeout: None,
        ..options(root)
    });
    let got = outcomes(&outcome.results);
    let want: BTreeMap<String, Outcome> = [
        ("test_fork.py::test_forks_then_dies", Outcome::Crashed),
        ("test_fork.py::test_after", Outcome::Passed),
    ]
    .into_iter()
    .map(|(n, o)| (n.to_owned(), o))
    .collect();
    assert_eq!(got, want, "{outcome:?}");
    let pid: i32 = std::fs::read_to_string(root.join("child.pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(!running(pid), "the forked child {pid} outlived its pytest");
}

/// A module that never finishes importing: `--timeout` bounds each step
/// of collection too, and the report names the module.
#[test]
fn a_module_that_hangs_at_import_is_stopped_by_the_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "test_a_fine.py", "def test_ok():\n    pass\n");
    write(
        root,
        "test_hangs.py",
        "import threading\n\nthreading.Event().wait()\n\ndef test_never():\n    pass\n",
    );
    let outcome = run_bounded(options(root));
    let reason = outcome.failed_to_start.as_deref().unwrap_or_default();
    assert!(
        reason.contains("timeout") && reason.contains("test_hangs.py"),
        "{outcome:?}"
    );
}

/// The bridge's messages do not grow with a parameter's value: a 10 MB
/// value in every parameter set, and as a mark's argument, costs the
/// collection message a short repr at most, and each test's message its
/// id. A conftest counts the bytes of every line the bridge sends.
#[test]
fn the_bridge_sends_ids_and_markers_not_parameter_values() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "pytest.ini",
        "[pytest]\nmarkers =\n    data: data\n    heavy: heavy\n",
    );
    write(
        root,
        "conftest.py",
        "import os\nimport pytest\nimport proctor_bridge\n\n\
         class Counting:\n    def __init__(self, real):\n        self.real = real\n        self.log = open(os.environ['SIZES'], 'w')\n\n    \
         def sendall(self, data):\n        self.log.write('%d %s\\n' % (len(data), data[:40].decode('utf-8', 'replace').split(',')[0]))\n        self.log.flush()\n        return self.real.sendall(data)\n\n\
         @pytest.hookimpl(trylast=True)\ndef pytest_configure(config):\n    if proctor_bridge._connection is not None:\n        proctor_bridge._connection = Counting(proctor_bridge._connection)\n",
    );
    write(
        root,
        "test_big.py",
        "import pytest\n\nBIG = {'text': 'x' * 10_000_000, 'blob': bytes(10_000_000), 'rows': [list(range(100))] * 2000}\n\n\
         @pytest.mark.data(BIG, bytearray(10_000_000), [0] * 100_000)\n\
         @pytest.mark.parametrize('v', [BIG] * 20 + [pytest.param(BIG, marks=pytest.mark.heavy(BIG))] * 5)\n\
         def test_big(v):\n    assert v is BIG\n",
    );
    let sizes = root.join("sizes.txt");
    let mut seen: Vec<CollectedItem> = Vec::new();
    let mut decide = |items: &[CollectedItem]| {
        seen = items.to_vec();
        Decisions::default()
    };
    let mut phase = options(root);
    phase.timeout = None;
    phase
        .env
        .push(("SIZES".into(), sizes.to_str().unwrap().to_owned()));
    let outcome = run_phase(&phase, None, &mut decide, &mut |_: &Event| {}).unwrap();
    assert_eq!(outcome.results.len(), 25, "{:?}", outcome.results);
    assert!(
        outcome.results.iter().all(|r| r.outcome == Outcome::Passed),
        "{:?}",
        outcome.results
    );
    // The same markers, shared: one list for the 20 plain calls.
    assert_eq!(seen.len(), 25);
    assert!(seen[1..20]
        .iter()
        .all(|item| std::sync::Arc::ptr_eq(&item.markers, &seen[0].markers)));
    let parametrize = seen[0]
        .markers
        .iter()
        .find(|m| m.name == "parametrize")
        .unwrap();
    assert_eq!(
        parametrize.args,
        [serde_json::json!("v"), serde_json::json!({"argvalues": 25})]
    );
    let data = seen[0].markers.iter().find(|m| m.name == "data").unwrap();
    assert_eq!(data.args.len(), 3);
    for arg in &data.args {
        // Short reprs (the dict's members, the bytearray, the long list).
        let text = arg.to_string();
        assert!(
            text.len() < 2000 && text.contains("\"repr\""),
            "{} bytes: {:.300}",
            text.len(),
            text
        );
    }
    let log = std::fs::read_to_string(&sizes).unwrap();
    let mut lines = 0;
    for line in log.lines() {
        let (size, what) = line.split_once(' ').unwrap();
        let size: usize = size.parse().unwrap();
        let limit = if what.contains("collected") {
            16 * 1024
        } else {
            1024
        };
        assert!(size < limit, "a {size}-byte message: {what}\n{log}");
        lines += 1;
    }
    assert!(lines > 25 && log.contains("collected"), "{log}");
}

/// A conftest that never finishes importing: the plugin has connected by
/// then (pytest imports it before conftests), so the timeout bounds this
/// step like any other, and the interpreter's own start-up is not held to
/// it (a loaded machine may take longer than the timeout to start Python).
#[test]
fn a_conftest_that_hangs_at_import_is_stopped_by_the_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "conftest.py",
        "import threading\n\nthreading.Event().wait()\n",
    );
    write(root, "test_a.py", "def test_ok():\n    pass\n");
    let outcome = run_bounded(options(root));
    let reason = outcome.failed_to_start.as_deref().unwrap_or_default();
    assert!(
        reason.contains("20.0s timeout before collecting") && reason.contains("conftest"),
        "{outcome:?}"
    );
}

/// An installed plugin that takes longer to import than the timeout (a
/// Jupyter stack on a loaded machine): start-up, before the plugin says
/// hello, is not held to the timeout, which bounds the suite's own steps.
#[test]
fn a_plugin_slower_to_import_than_the_timeout_is_start_up_not_a_hang() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "slow_plugin.py", "import time\n\ntime.sleep(2)\n");
    write(root, "test_a.py", "def test_ok():\n    pass\n");
    let mut options = options(root);
    options.timeout = Some(Duration::from_secs(1));
    options
        .extra_args
        .extend(["-p".into(), "slow_plugin".into()]);
    let outcome = run_bounded(options);
    assert_eq!(
        outcomes(&outcome.results),
        BTreeMap::from([("test_a.py::test_ok".to_owned(), Outcome::Passed)]),
        "{outcome:?}"
    );
}

/// With `starts`, each test is reported as it starts, before it ends (the
/// running test of the progress line); without, never.
#[test]
fn starts_are_reported_before_each_test_ends_only_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "pytest.ini", "[pytest]\n");
    write(
        root,
        "test_s.py",
        "def test_one():\n    pass\n\ndef test_two():\n    assert False\n",
    );
    let sequence = |starts: bool| {
        let mut events = Vec::new();
        run_phase(
            &PhaseOptions {
                starts,
                ..options(root)
            },
            None,
            &mut |_: &[CollectedItem]| Decisions::default(),
            &mut |e: &Event| match e {
                Event::TestStarted { nodeid } => events.push(format!("start {nodeid}")),
                Event::TestFinished(result) => events.push(format!("end {}", result.nodeid)),
                _ => {}
            },
        )
        .unwrap();
        events
    };
    assert_eq!(
        sequence(true),
        [
            "start test_s.py::test_one",
            "end test_s.py::test_one",
            "start test_s.py::test_two",
            "end test_s.py::test_two"
        ]
    );
    assert_eq!(
        sequence(false),
        ["end test_s.py::test_one", "end test_s.py::test_two"]
    );
}
