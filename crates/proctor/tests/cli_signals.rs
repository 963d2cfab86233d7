//! Run hardening over temporary projects with real pytest: `SIGINT`,
//! `SIGTERM`, `SIGHUP` and `SIGKILL` sent to proctor during collection,
//! while a test runs and while a service starts; a second signal while
//! proctor cleans up; crashes named by their signal; services that fail
//! at once, that daemonize, and that are stopped by a `stop` command.
//!
//! Every moment is reached by waiting for a file that the suite or the
//! service writes, never by sleeping; every process the suite starts
//! writes its pid, and the tests wait (with a generous bound) for each to
//! be gone. Needs `PROCTOR_TEST_PYTHON` (scripts/test sets it).

mod common;

use common::test_python as python;

use std::fs::File;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use common::{free_port, write};

/// How long a wait may take before the test fails: far above what any
/// step takes on a loaded machine; only a hang reaches it.
const BOUND: Duration = Duration::from_mins(2);

/// Python that writes pids to a file atomically (written, then renamed),
/// so that a test that sees the file reads it whole.
const RECORD: &str = "import os, subprocess, sys\n\n\
def record(name, *pids):\n    with open(name + '.tmp', 'w') as f:\n        f.write(' '.join(str(p) for p in pids))\n    os.rename(name + '.tmp', name)\n\n\
def sleeper():\n    return subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)']).pid\n";

/// A proctor run in `root` whose output goes to files (a pipe nobody
/// reads could block it).
struct Run {
    child: Child,
    root: PathBuf,
}

impl Run {
    fn start(root: &Path, args: &[&str]) -> Run {
        let out = File::create(root.join("proctor.out")).unwrap();
        let err = File::create(root.join("proctor.err")).unwrap();
        let child = Command::new(env!("CARGO_BIN_EXE_proctor"))
            .arg("run")
            .arg("--python")
            .arg(python())
            .args(args)
            .current_dir(root)
            .env_remove("PYTEST_ADDOPTS")
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .spawn()
            .unwrap();
        Run {
            child,
            root: root.to_path_buf(),
        }
    }

    fn output(&self) -> String {
        let read = |name: &str| std::fs::read_to_string(self.root.join(name)).unwrap_or_default();
        format!("{}{}", read("proctor.out"), read("proctor.err"))
    }

    fn signal(&self, signal: i32) {
        let pid = i32::try_from(self.child.id()).unwrap();
        // SAFETY: signalling our own child, which has not been reaped.
        unsafe {
            libc::kill(pid, signal);
        }
    }

    /// Waits for `name` (under the root) to exist; fails when proctor
    /// exits first or the bound passes.
    fn wait_for_file(&mut self, name: &str) -> String {
        let path = self.root.join(name);
        let started = Instant::now();
        loop {
            if let Ok(text) = std::fs::read_to_string(&path) {
                return text;
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!(
                    "proctor exited ({status}) before {name} was written:\n{}",
                    self.output()
                );
            }
            assert!(
                started.elapsed() < BOUND,
                "{name} was never written:\n{}",
                self.output()
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Waits for proctor to exit; kills it and fails when the bound
    /// passes.
    fn wait(&mut self) -> ExitStatus {
        let started = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            if started.elapsed() > BOUND {
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!("proctor did not exit:\n{}", self.output());
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Run {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Whether the process runs: it exists and is not a zombie.
fn alive(pid: i32) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    let state = stat
        .rsplit_once(')')
        .map_or("", |(_, rest)| rest)
        .split_whitespace()
        .next()
        .unwrap_or_default();
    !matches!(state, "Z" | "X")
}

/// Waits for every pid to be gone; names the survivors when the bound
/// passes, and kills them so that the test leaves nothing behind.
fn assert_gone(pids: &[i32], what: &str) {
    let started = Instant::now();
    while pids.iter().any(|&pid| alive(pid)) && started.elapsed() < BOUND {
        std::thread::sleep(Duration::from_millis(20));
    }
    let survivors: Vec<i32> = pids.iter().copied().filter(|&pid| alive(pid)).collect();
    for &pid in &survivors {
        // SAFETY: a process this test's suite started.
        unsafe {
            libc::kill(pid, libc::SIGKILL);
        }
    }
    assert!(
        survivors.is_empty(),
        "{what}: processes outlived the run: {survivors:?}"
    );
}

fn pids(text: &str) -> Vec<i32> {
    text.split_whitespace()
        .map(|p| p.parse().unwrap())
        .collect()
}

/// `PRAGMA integrity_check` of the history, through Python's sqlite3.
fn assert_history_intact(root: &Path) {
    let db = root.join(".proctor/history.db");
    if !db.exists() {
        return;
    }
    let output = Command::new(python())
        .args(["-c", "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); print(c.execute('PRAGMA integrity_check').fetchone()[0]); print(c.execute('select count(*) from runs').fetchone()[0])"])
        .arg(&db)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.starts_with("ok\n"),
        "the history is damaged: {text}{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The catchable signals and what proctor then exits with.
const CATCHABLE: [(i32, &str, i32); 3] = [
    (libc::SIGINT, "SIGINT", 2),
    (libc::SIGTERM, "SIGTERM", 143),
    (libc::SIGHUP, "SIGHUP", 129),
];

/// Sends each signal at the moment `marker` is written, in a fresh copy
/// of the project `setup` writes, and checks what the run leaves behind.
/// `direct` names the pid files of the processes proctor starts itself;
/// `descendants` those of the processes they start.
fn signal_at(
    setup: &dyn Fn(&Path),
    marker: &str,
    direct: &[&str],
    descendants: &[&str],
    finished: &[&str],
) {
    signal_at_with(setup, marker, direct, descendants, finished, &[]);
}

/// [`signal_at`], with more arguments for `proctor run`.
fn signal_at_with(
    setup: &dyn Fn(&Path),
    marker: &str,
    direct: &[&str],
    descendants: &[&str],
    finished: &[&str],
    more: &[&str],
) {
    let signals = CATCHABLE
        .iter()
        .copied()
        .chain([(libc::SIGKILL, "SIGKILL", 0)]);
    for (signal, name, code) in signals {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(root, "record.py", RECORD);
        setup(root);
        let mut run = Run::start(
            root,
            &[
                "--json",
                "report.json",
                "--junit-xml",
                "report.xml",
                "--html",
                "report.html",
                "-v",
            ]
            .into_iter()
            .chain(more.iter().copied())
            .collect::<Vec<_>>(),
        );
        run.wait_for_file(marker);
        let mut tracked = Vec::new();
        for file in direct.iter().chain(descendants) {
            tracked.extend(pids(&run.wait_for_file(file)));
        }
        run.signal(signal);
        let status = run.wait();
        let output = run.output();
        let what = format!("{name} at {marker}");
        assert_gone(&tracked, &what);
        assert_history_intact(root);
        if signal == libc::SIGKILL {
            assert_eq!(
                status.signal(),
                Some(libc::SIGKILL),
                "{what}: {status}\n{output}"
            );
            continue;
        }
        assert_eq!(status.code(), Some(code), "{what}: {status}\n{output}");
        assert!(
            output.contains(&format!(
                "interrupted by {name}: the report holds the {} test(s) that finished",
                finished.len()
            )),
            "{what}:\n{output}"
        );
        for report in ["report.json", "report.xml", "report.html"] {
            assert!(root.join(report).is_file(), "{what}: no {report}\n{output}");
        }
        let doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(root.join("report.json")).unwrap())
                .unwrap();
        let mut reported: Vec<&str> = doc["tests"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["nodeid"].as_str().unwrap())
            .collect();
        if !more.is_empty() {
            // Workers' results come in the order they finish.
            reported.sort_unstable();
        }
        assert_eq!(reported, finished, "{what}:\n{output}");
        if !finished.is_empty() {
            assert!(
                root.join(".proctor/history.db").is_file(),
                "{what}: the run was not recorded\n{output}"
            );
        }
    }
}

#[test]
fn a_signal_during_collection_stops_pytest_and_what_it_started() {
    let setup = |root: &Path| {
        write(root, "test_a.py", "def test_quick():\n    pass\n");
        write(
            root,
            "test_b.py",
            "import os, time\nfrom record import record, sleeper\n\nrecord('pytest.pid', os.getpid())\nrecord('child.pid', sleeper())\nrecord('collecting', 0)\ntime.sleep(600)\n\ndef test_never():\n    pass\n",
        );
    };
    signal_at(&setup, "collecting", &["pytest.pid"], &["child.pid"], &[]);
}

#[test]
fn a_signal_while_a_test_runs_keeps_the_tests_that_finished() {
    let setup = |root: &Path| {
        write(
            root,
            "test_a.py",
            "import os, time\nfrom record import record, sleeper\n\ndef test_quick():\n    pass\n\ndef test_forever():\n    record('pytest.pid', os.getpid())\n    record('child.pid', sleeper())\n    record('running', 0)\n    time.sleep(600)\n\ndef test_never():\n    pass\n",
        );
    };
    signal_at(
        &setup,
        "running",
        &["pytest.pid"],
        &["child.pid"],
        &["test_a.py::test_quick"],
    );
}

/// `-n 2`: a signal while each worker runs a test stops both workers and
/// what their tests started; the tests that finished in either are kept.
#[test]
fn a_signal_stops_every_worker() {
    let module = |name: &str| {
        format!("import os, time\nfrom record import record, sleeper\n\ndef test_quick():\n    pass\n\ndef test_forever():\n    record('{name}.pid', os.getpid())\n    record('{name}-child.pid', sleeper())\n    time.sleep(600)\n")
    };
    let setup = |root: &Path| {
        write(root, "test_a.py", &module("a"));
        write(root, "test_b.py", &module("b"));
    };
    signal_at_with(
        &setup,
        "b.pid",
        &["a.pid", "b.pid"],
        &["a-child.pid", "b-child.pid"],
        &["test_a.py::test_quick", "test_b.py::test_quick"],
        &["-n", "2"],
    );
}

#[test]
fn a_signal_while_a_service_starts_is_an_interruption() {
    let setup = |root: &Path| {
        write(
            root,
            "slow_service.py",
            "import os, time\nfrom record import record, sleeper\n\nrecord('service.pid', os.getpid())\nrecord('service-child.pid', sleeper())\nrecord('starting', 0)\ntime.sleep(600)\n",
        );
        write(
            root,
            "pyproject.toml",
            &format!(
                "[tool.pytest.ini_options]\nmarkers = ['slowsvc']\n\n\
                 [tool.proctor.services.slowsvc]\ndefault-address = '127.0.0.1:{}'\nstart = 'exec {} slow_service.py'\nready-timeout = 3600\n\n\
                 [tool.proctor.needs.slowsvc]\nservices = ['slowsvc']\n",
                free_port(),
                python().display()
            ),
        );
        write(
            root,
            "test_a.py",
            "import pytest\n\n@pytest.mark.slowsvc\ndef test_needs_it():\n    pass\n\ndef test_plain():\n    pass\n",
        );
    };
    signal_at(
        &setup,
        "starting",
        &["service.pid"],
        &["service-child.pid"],
        &[],
    );
}

#[test]
fn a_second_signal_while_a_service_stops_ends_the_run_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "record.py", RECORD);
    // A service that ignores SIGTERM: without a second signal proctor
    // would wait its whole `stop-timeout` of an hour.
    write(
        root,
        "stubborn.py",
        "import os, signal, socket\nfrom record import record\n\n\
         signal.signal(signal.SIGTERM, lambda *a: record('got-term', 0))\n\
         host, port = os.environ['STUBBORN'].split(':')\n\
         s = socket.socket()\ns.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)\ns.bind((host, int(port)))\ns.listen()\n\
         record('service.pid', os.getpid())\nwhile True:\n    s.accept()[0].close()\n",
    );
    write(
        root,
        "pyproject.toml",
        &format!(
            "[tool.pytest.ini_options]\nmarkers = ['stubborn']\n\n\
             [tool.proctor.services.stubborn]\naddress-env = 'STUBBORN'\ndefault-address = '127.0.0.1:{}'\nstart = 'exec {} stubborn.py'\nstop-timeout = 3600\n\n\
             [tool.proctor.needs.stubborn]\nservices = ['stubborn']\n",
            free_port(),
            python().display()
        ),
    );
    write(
        root,
        "test_a.py",
        "import time\nimport pytest\nfrom record import record\n\n@pytest.mark.stubborn\ndef test_uses_it():\n    record('running', 0)\n    time.sleep(600)\n",
    );
    let mut run = Run::start(root, &["--no-history"]);
    let service = pids(&run.wait_for_file("service.pid"));
    run.wait_for_file("running");
    run.signal(libc::SIGTERM);
    run.wait_for_file("got-term");
    run.signal(libc::SIGTERM);
    let status = run.wait();
    assert_eq!(status.code(), Some(143), "{status}\n{}", run.output());
    assert!(
        run.output()
            .contains("proctor: a second signal: stopping at once"),
        "{}",
        run.output()
    );
    assert_gone(&service, "a second SIGTERM");
}

/// The JSON report's message of a test.
fn message_of(root: &Path, nodeid: &str) -> (String, String) {
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("report.json")).unwrap()).unwrap();
    let test = doc["tests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["nodeid"] == nodeid)
        .unwrap_or_else(|| panic!("{nodeid} not in {doc}"));
    (
        test["outcome"].as_str().unwrap_or_default().to_owned(),
        test["message"].as_str().unwrap_or_default().to_owned(),
    )
}

#[test]
fn crash_messages_name_the_signal() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "test_crash.py",
        "import os, signal\n\ndef test_segfaults():\n    os.kill(os.getpid(), signal.SIGSEGV)\n\ndef test_oom_killed():\n    os.kill(os.getpid(), signal.SIGKILL)\n\ndef test_after():\n    pass\n",
    );
    let mut run = Run::start(root, &["--json", "report.json", "--no-history"]);
    let status = run.wait();
    assert_eq!(status.code(), Some(1), "{}", run.output());
    let (outcome, message) = message_of(root, "test_crash.py::test_segfaults");
    assert_eq!(outcome, "crashed");
    assert!(
        message.starts_with(
            "the pytest process died while this test ran (killed by signal 11 (SIGSEGV))"
        ),
        "{message}"
    );
    let (_, message) = message_of(root, "test_crash.py::test_oom_killed");
    assert!(message.starts_with("the pytest process died while this test ran (killed by signal 9 (SIGKILL, out of memory?))"), "{message}");
    assert_eq!(message_of(root, "test_crash.py::test_after").0, "passed");
}

/// A project whose service `broken` exits at once, with a test that needs
/// it, one that does not, and one that needs it but is gated off (CICD=1).
fn broken_service_project(root: &Path, phases: bool) {
    let job = if phases {
        "\n[tool.proctor.jobs.nightly]\nphases = { by = 'backend', order = ['broken'] }\n"
    } else {
        ""
    };
    write(
        root,
        "pyproject.toml",
        &format!(
            "[tool.pytest.ini_options]\nmarkers = ['broken', 'qualitative']\n\n\
             [tool.proctor.axes.backend]\nmarkers = ['broken']\ncardinality = 'any'\n\n\
             [tool.proctor.services.broken]\ndefault-address = '127.0.0.1:{}'\nstart = 'echo cannot start the broken service >&2; exit 3'\n\n\
             [tool.proctor.needs.broken]\nservices = ['broken']\n\n\
             [tool.proctor.gates.qualitative]\nskip-if-env = {{ CICD = '1' }}\n{job}",
            free_port()
        ),
    );
    write(
        root,
        "test_a.py",
        "import pytest\n\n@pytest.mark.broken\ndef test_needs_it():\n    pass\n\n@pytest.mark.broken\n@pytest.mark.qualitative\ndef test_gated():\n    pass\n\ndef test_plain():\n    pass\n",
    );
}

#[test]
fn a_service_that_fails_at_once_errors_only_the_tests_that_need_it() {
    for phases in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        broken_service_project(root, phases);
        let mut args = vec!["--json", "report.json", "--no-history"];
        if phases {
            args.extend(["--job", "nightly"]);
        }
        let output = Command::new(env!("CARGO_BIN_EXE_proctor"))
            .arg("run")
            .arg("--python")
            .arg(python())
            .args(&args)
            .current_dir(root)
            .env("CICD", "1")
            .env_remove("PYTEST_ADDOPTS")
            .output()
            .unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        assert_eq!(output.status.code(), Some(1), "phases: {phases}\n{text}");
        let (outcome, message) = message_of(root, "test_a.py::test_needs_it");
        assert_eq!(outcome, "error", "phases: {phases}\n{text}");
        assert!(
            message.contains("cannot start the broken service"),
            "{message}"
        );
        assert_eq!(
            message_of(root, "test_a.py::test_gated").0,
            "skipped",
            "phases: {phases}\n{text}"
        );
        assert_eq!(
            message_of(root, "test_a.py::test_plain").0,
            "passed",
            "phases: {phases}\n{text}"
        );
    }
}

/// A self-daemonizing service (as `pg_ctl start`): the start command
/// forks a daemon in a session of its own and exits 0; the daemon
/// listens only once the start command has exited.
const DAEMON: &str = "import os, socket, sys, time\nfrom record import record\n\n\
parent = os.getpid()\nif os.fork():\n    sys.exit(0)\n\
os.setsid()\nrecord('daemon.pid', os.getpid())\n\
while os.getppid() == parent:\n    time.sleep(0.01)\n\
host, port = os.environ['DAEMON_ADDR'].split(':')\n\
s = socket.socket()\ns.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)\ns.bind((host, int(port)))\ns.listen()\n\
while True:\n    s.accept()[0].close()\n";

fn daemon_project(root: &Path, stop: &str) {
    write(root, "record.py", RECORD);
    write(root, "daemon.py", DAEMON);
    write(
        root,
        "pyproject.toml",
        &format!(
            "[tool.pytest.ini_options]\nmarkers = ['daemon']\n\n\
             [tool.proctor.services.daemon]\naddress-env = 'DAEMON_ADDR'\ndefault-address = '127.0.0.1:{}'\nstart = '{} daemon.py'\n{stop}\n\
             [tool.proctor.needs.daemon]\nservices = ['daemon']\n",
            free_port(),
            python().display()
        ),
    );
    write(
        root,
        "test_a.py",
        "import os, socket\nimport pytest\n\n@pytest.mark.daemon\ndef test_talks_to_it():\n    host, port = os.environ['DAEMON_ADDR'].split(':')\n    socket.create_connection((host, int(port))).close()\n",
    );
}

#[test]
fn a_self_daemonizing_service_is_ready_when_it_answers_and_stop_stops_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    daemon_project(root, "stop = 'kill $(cat daemon.pid)'\n");
    let mut run = Run::start(root, &["--json", "report.json", "--no-history"]);
    let status = run.wait();
    let daemon = pids(&std::fs::read_to_string(root.join("daemon.pid")).unwrap());
    assert_gone(&daemon, "the daemon with `stop`");
    assert_eq!(status.code(), Some(0), "{}", run.output());
    assert_eq!(
        message_of(root, "test_a.py::test_talks_to_it").0,
        "passed",
        "{}",
        run.output()
    );
}

#[test]
fn a_daemon_proctor_cannot_stop_is_named_in_the_output() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    daemon_project(root, "");
    let mut run = Run::start(root, &["--json", "report.json", "--no-history"]);
    let status = run.wait();
    let daemon = pids(&std::fs::read_to_string(root.join("daemon.pid")).unwrap());
    let output = run.output();
    // Left running, as said: this test stops it.
    for &pid in &daemon {
        // SAFETY: the daemon this test's service started.
        unsafe {
            libc::kill(pid, libc::SIGKILL);
        }
    }
    assert_eq!(status.code(), Some(0), "{output}");
    assert_eq!(
        message_of(root, "test_a.py::test_talks_to_it").0,
        "passed",
        "{output}"
    );
    assert!(output.contains("service daemon: its start command exited and left a daemon that proctor cannot stop (add `stop = \"<command>\"` to [services.daemon])"), "{output}");
    assert!(
        output.contains("service `daemon` still answers at 127.0.0.1:"),
        "{output}"
    );
}

#[test]
fn a_closed_terminal_still_gets_its_report_history_and_status() {
    // `SIGHUP` comes when the terminal closes, and writes to it then
    // fail: here stdout is a pipe whose reader is gone. The summary (with
    // a long failure, more than any output buffer holds) cannot be
    // printed; the report, the history and the exit status still are.
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "test_a.py",
        "import pathlib, time\n\ndef test_quick():\n    pass\n\ndef test_fails():\n    assert False, 'x' * 100000\n\ndef test_forever():\n    pathlib.Path('running').write_text('x')\n    time.sleep(600)\n",
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_proctor"))
        .arg("run")
        .arg("--python")
        .arg(python())
        .args(["--json", "report.json"])
        .current_dir(root)
        .env_remove("PYTEST_ADDOPTS")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(File::create(root.join("proctor.err")).unwrap())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while !root.join("running").exists() {
        assert!(
            matches!(child.try_wait(), Ok(None)),
            "proctor exited before the slow test ran"
        );
        assert!(started.elapsed() < BOUND, "the slow test never ran");
        std::thread::sleep(Duration::from_millis(10));
    }
    drop(child.stdout.take());
    let mut run = Run {
        child,
        root: root.to_path_buf(),
    };
    run.signal(libc::SIGHUP);
    let status = run.wait();
    assert_eq!(status.code(), Some(129), "{status}\n{}", run.output());
    assert_eq!(
        message_of(root, "test_a.py::test_quick").0,
        "passed",
        "{}",
        run.output()
    );
    assert_eq!(
        message_of(root, "test_a.py::test_fails").0,
        "failed",
        "{}",
        run.output()
    );
    assert!(
        root.join(".proctor/history.db").is_file(),
        "the run was not recorded\n{}",
        run.output()
    );
    assert_history_intact(root);
}
