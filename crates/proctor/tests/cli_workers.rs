//! `proctor run -n N` over temporary projects with real pytest: each
//! worker imports only its share of the files, every test runs once, and
//! a crash in one worker loses no test of its share. (Outcomes against
//! serial bare pytest on every fixture suite: `run_differential.rs`;
//! Ctrl-C stopping every worker: `cli_signals.rs`.) Needs
//! `PROCTOR_TEST_PYTHON` (scripts/test sets it).

mod common;

use common::test_python as python;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use common::{proctor_run as proctor, text, write};

/// Each test's outcome in a JSON report.
fn outcomes(path: &Path) -> BTreeMap<String, String> {
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    doc["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["nodeid"].as_str().unwrap().to_owned(),
                t["outcome"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// Node ids with their outcomes, as [`outcomes`] reads them.
fn owned(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(n, o)| ((*n).to_owned(), (*o).to_owned()))
        .collect()
}

/// A module that writes `<its name> <pid>` to `imports.log` when pytest
/// imports it, with a passing and a failing test.
fn module(name: &str) -> String {
    format!(
        "import os\n\nwith open('imports.log', 'a') as f:\n    f.write('{name} %d\\n' % os.getpid())\n\n\
         def test_passes():\n    pass\n\ndef test_fails():\n    assert False\n"
    )
}

#[test]
fn each_worker_imports_only_its_share_and_every_test_runs_once() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let names = ["test_a", "test_b", "test_c", "test_d"];
    for name in names {
        write(root, &format!("{name}.py"), &module(name));
    }
    let output = proctor(root, &["-n", "2", "--json", "report.json"]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    let log = std::fs::read_to_string(root.join("imports.log")).unwrap();
    let imports: Vec<(&str, &str)> = log
        .lines()
        .map(|line| line.split_once(' ').unwrap())
        .collect();
    let modules: BTreeSet<&str> = imports.iter().map(|(m, _)| *m).collect();
    let pids: BTreeSet<&str> = imports.iter().map(|(_, p)| *p).collect();
    assert_eq!(imports.len(), 4, "each module imported once:\n{log}");
    assert_eq!(modules.len(), 4, "{log}");
    assert_eq!(pids.len(), 2, "two workers:\n{log}");
    let got = outcomes(&root.join("report.json"));
    let mut want = BTreeMap::new();
    for name in names {
        want.insert(format!("{name}.py::test_passes"), "passed".to_owned());
        want.insert(format!("{name}.py::test_fails"), "failed".to_owned());
    }
    assert_eq!(got, want, "{}", text(&output));
    assert!(
        text(&output).contains("4 failed, 4 passed"),
        "one summary of both workers:\n{}",
        text(&output)
    );
    // Again, shared out by the durations the first run recorded.
    std::fs::remove_file(root.join("imports.log")).unwrap();
    let again = proctor(root, &["-n", "2", "--json", "report.json"]);
    assert_eq!(again.status.code(), Some(1), "{}", text(&again));
    let log = std::fs::read_to_string(root.join("imports.log")).unwrap();
    assert_eq!(log.lines().count(), 4, "{log}");
    assert_eq!(outcomes(&root.join("report.json")), want);
}

#[test]
fn a_crash_in_one_worker_loses_no_test() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "test_crash.py",
        "import os, signal\n\ndef test_before():\n    pass\n\ndef test_killed():\n    os.kill(os.getpid(), signal.SIGKILL)\n\ndef test_after():\n    pass\n",
    );
    write(
        root,
        "test_other.py",
        "def test_one():\n    pass\n\ndef test_two():\n    pass\n",
    );
    let output = proctor(root, &["-n", "2", "--json", "report.json", "--no-history"]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    let got = outcomes(&root.join("report.json"));
    let want = owned(&[
        ("test_crash.py::test_before", "passed"),
        ("test_crash.py::test_killed", "crashed"),
        ("test_crash.py::test_after", "passed"),
        ("test_other.py::test_one", "passed"),
        ("test_other.py::test_two", "passed"),
    ]);
    assert_eq!(got, want, "{}", text(&output));
}

#[test]
fn a_bad_worker_count_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "test_a.py", "def test_a():\n    pass\n");
    let output = proctor(dir.path(), &["-n", "many"]);
    assert_eq!(output.status.code(), Some(4), "{}", text(&output));
    assert!(
        text(&output).contains("-n: expected a number of workers or `auto`, got `many`"),
        "{}",
        text(&output)
    );
    let output = proctor(dir.path(), &["-n", "auto"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
}

/// Phases stay one at a time with their services: each phase's files are
/// shared out among its own workers, with the phase's service up while
/// they run and stopped after.
#[test]
fn each_phase_runs_its_own_workers_while_its_service_is_up() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let port = common::free_port();
    write(root, "fake_server.py", common::FAKE_SERVER);
    write(
        root,
        "pyproject.toml",
        &format!(
            "[tool.pytest.ini_options]\nmarkers = ['fake', 'local']\n\n\
             [tool.proctor.axes.backend]\nmarkers = ['fake', 'local']\ncardinality = 'any'\n\n\
             [tool.proctor.services.fake]\naddress-env = 'FAKE_HOST'\ndefault-address = '127.0.0.1:{port}'\nhttp-probe = '/'\nstart = '{} fake_server.py'\nready-timeout = 20\n\n\
             [tool.proctor.needs.fake]\nservices = ['fake']\n\n\
             [tool.proctor.jobs.nightly]\nphases = {{ by = 'backend', order = ['local', 'fake'] }}\n",
            python().display()
        ),
    );
    let fake = "import os, urllib.request\nimport pytest\n\nwith open('imports.log', 'a') as f:\n    f.write('fake %d\\n' % os.getpid())\n\n@pytest.mark.fake\ndef test_answers():\n    with urllib.request.urlopen('http://' + os.environ['FAKE_HOST'] + '/') as r:\n        assert r.read() == b'ok'\n";
    let local = "import os\nimport pytest\n\nwith open('imports.log', 'a') as f:\n    f.write('local %d\\n' % os.getpid())\n\n@pytest.mark.local\ndef test_runs():\n    pass\n";
    for name in ["test_fake_a", "test_fake_b"] {
        write(root, &format!("{name}.py"), fake);
    }
    for name in ["test_local_a", "test_local_b"] {
        write(root, &format!("{name}.py"), local);
    }
    let output = proctor(
        root,
        &[
            "--job",
            "nightly",
            "-n",
            "2",
            "--json",
            "report.json",
            "--no-history",
        ],
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    let got = outcomes(&root.join("report.json"));
    assert_eq!(got.len(), 4, "{got:?}");
    assert!(got.values().all(|o| o == "passed"), "{}", text(&output));
    let log = std::fs::read_to_string(root.join("imports.log")).unwrap();
    let lines: Vec<&str> = log.lines().collect();
    assert_eq!(lines.len(), 4, "each module imported once:\n{log}");
    // Phase by phase: both local imports come before both fake ones, each
    // phase's two in two processes.
    let phases: Vec<&str> = lines.iter().map(|l| l.split(' ').next().unwrap()).collect();
    assert_eq!(phases, ["local", "local", "fake", "fake"], "{log}");
    let pids: BTreeSet<&str> = lines.iter().map(|l| l.split(' ').nth(1).unwrap()).collect();
    assert_eq!(pids.len(), 4, "two workers per phase:\n{log}");
    assert!(
        std::net::TcpStream::connect(("127.0.0.1", port)).is_err(),
        "the fake service is still running"
    );
}

/// The pid each module was imported in, from `imports.log` (see
/// [`module`]-like modules that write `<name> <pid>`).
fn import_pids(root: &Path) -> BTreeMap<String, String> {
    let log = std::fs::read_to_string(root.join("imports.log")).unwrap();
    let mut pids = BTreeMap::new();
    for line in log.lines() {
        let (name, pid) = line.split_once(' ').unwrap();
        assert!(
            pids.insert(name.to_owned(), pid.to_owned()).is_none(),
            "{name} imported twice:\n{log}"
        );
    }
    pids
}

/// Records `<name> <pid>` in `imports.log` when imported.
fn recorded(name: &str, body: &str) -> String {
    format!(
        "import os, time\n\nwith open('imports.log', 'a') as f:\n    f.write('{name} %d\\n' % os.getpid())\n\n{body}"
    )
}

/// A test that waits (up to two minutes, polling) for a file another
/// test writes, and fails if it never comes.
fn waits_for(file: &str) -> String {
    format!(
        "def test_waits():\n    for _ in range(12000):\n        if os.path.exists('{file}'):\n            return\n        time.sleep(0.01)\n    assert False, '{file} never came'\n\ndef test_after():\n    pass\n"
    )
}

/// Work stealing: `test_c.py`, the lightest file, is queued; the worker
/// that holds `test_b.py` takes it before its last test and runs it in
/// the same pytest process, while the other worker still waits in
/// `test_a.py` for what `test_c.py` writes. Shared out once and for all
/// (as before work stealing), `test_c.py` would have gone to the worker
/// of `test_a.py` (the lighter share), behind the test that waits for it.
#[test]
fn a_worker_that_finishes_its_share_takes_the_next_module() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let pad = |n: usize| format!("# {}\n", "x".repeat(n));
    write(
        root,
        "test_a.py",
        &(recorded("a", &waits_for("c.done")) + &pad(2000)),
    );
    write(
        root,
        "test_b.py",
        &(recorded("b", "def test_b():\n    pass\n") + &pad(3000)),
    );
    write(
        root,
        "test_c.py",
        &recorded("c", "def test_c():\n    open('c.done', 'w').close()\n"),
    );
    let output = proctor(root, &["-n", "2", "--json", "report.json", "--no-history"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    let got = outcomes(&root.join("report.json"));
    assert_eq!(got.len(), 4, "{got:?}");
    assert!(got.values().all(|o| o == "passed"), "{}", text(&output));
    let pids = import_pids(root);
    assert_eq!(
        pids["c"], pids["b"],
        "taken into b's pytest session: {pids:?}"
    );
    assert_ne!(pids["a"], pids["b"], "{pids:?}");
    assert!(text(&output).contains("4 passed"), "{}", text(&output));
}

/// A test over `--timeout` in one worker: that worker starts a new pytest
/// process for the rest of its share; the other worker's process goes on.
#[test]
fn a_timeout_in_one_worker_restarts_only_that_worker() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "test_hang.py",
        &recorded(
            "hang",
            "def test_first():\n    pass\n\ndef test_hangs():\n    time.sleep(600)\n\ndef test_last():\n    with open('last.pid', 'w') as f:\n        f.write(str(os.getpid()))\n",
        ),
    );
    write(
        root,
        "test_other.py",
        &recorded(
            "other",
            "def test_one():\n    pass\n\ndef test_two():\n    with open('two.pid', 'w') as f:\n        f.write(str(os.getpid()))\n",
        ),
    );
    let output = proctor(
        root,
        &[
            "-n",
            "2",
            "--timeout",
            "5",
            "--json",
            "report.json",
            "--no-history",
        ],
    );
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    let got = outcomes(&root.join("report.json"));
    let want = owned(&[
        ("test_hang.py::test_first", "passed"),
        ("test_hang.py::test_hangs", "timed-out"),
        ("test_hang.py::test_last", "passed"),
        ("test_other.py::test_one", "passed"),
        ("test_other.py::test_two", "passed"),
    ]);
    assert_eq!(got, want, "{}", text(&output));
    // test_hang.py imported twice (the restart), test_other.py once.
    let log = std::fs::read_to_string(root.join("imports.log")).unwrap();
    let hang: Vec<&str> = log
        .lines()
        .filter_map(|l| l.strip_prefix("hang "))
        .collect();
    let other: Vec<&str> = log
        .lines()
        .filter_map(|l| l.strip_prefix("other "))
        .collect();
    assert_eq!((hang.len(), other.len()), (2, 1), "{log}");
    let last = std::fs::read_to_string(root.join("last.pid")).unwrap();
    let two = std::fs::read_to_string(root.join("two.pid")).unwrap();
    assert_eq!(last, hang[1], "test_last runs in the new process:\n{log}");
    assert_eq!(two, other[0], "the other worker was not restarted:\n{log}");
}

/// `--dist loadgroup`: the modules whose tests share an `xdist_group`
/// run in one worker; without it they are shared out.
#[test]
fn loadgroup_keeps_a_group_on_one_worker() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let grouped = |name: &str| {
        recorded(
            name,
            "import pytest\n\n@pytest.mark.xdist_group('db')\ndef test_uses_the_db():\n    pass\n",
        )
    };
    write(root, "pytest.ini", "[pytest]\nmarkers =\n    xdist_group\n");
    write(root, "test_db_a.py", &grouped("db_a"));
    write(root, "test_db_b.py", &grouped("db_b"));
    write(
        root,
        "test_plain.py",
        &recorded("plain", "def test_plain():\n    pass\n"),
    );
    let output = proctor(
        root,
        &[
            "-n",
            "2",
            "--dist",
            "loadgroup",
            "--no-history",
            "--json",
            "report.json",
        ],
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    assert_eq!(outcomes(&root.join("report.json")).len(), 3);
    let pids = import_pids(root);
    assert_eq!(pids["db_a"], pids["db_b"], "{pids:?}");
    assert_ne!(pids["db_a"], pids["plain"], "{pids:?}");
    // `load` shares the two out by their sizes: the db files, heavier
    // than the plain one, start one worker each.
    std::fs::remove_file(root.join("imports.log")).unwrap();
    let output = proctor(root, &["-n", "2", "--dist", "load", "--no-history"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    let pids = import_pids(root);
    assert_ne!(pids["db_a"], pids["db_b"], "{pids:?}");
}

#[test]
fn dist_needs_workers_and_a_known_mode() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "test_a.py", "def test_a():\n    pass\n");
    let output = proctor(dir.path(), &["--dist", "loadgroup"]);
    assert_eq!(output.status.code(), Some(4), "{}", text(&output));
    let output = proctor(dir.path(), &["-n", "2", "--dist", "each"]);
    assert_eq!(output.status.code(), Some(4), "{}", text(&output));
    assert!(text(&output).contains("loadgroup"), "{}", text(&output));
}

/// A worker's session outlives what it takes: a session-scoped fixture is
/// set up once per worker, also in the worker that took the third module
/// into its session, and torn down once, after that worker's last test.
#[test]
fn a_taken_module_shares_its_workers_session_fixtures() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "conftest.py",
        "import os\nimport pytest\n\n@pytest.fixture(scope='session')\ndef resource():\n    with open('session.log', 'a') as f:\n        f.write('up %d\\n' % os.getpid())\n    yield\n    with open('session.log', 'a') as f:\n        f.write('down %d\\n' % os.getpid())\n",
    );
    for name in ["a", "b", "c"] {
        write(
            root,
            &format!("test_{name}.py"),
            &recorded(name, "def test_uses(resource):\n    pass\n"),
        );
    }
    let output = proctor(root, &["-n", "2", "--no-history"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    let pids = import_pids(root);
    let workers: BTreeSet<&String> = pids.values().collect();
    assert_eq!(workers.len(), 2, "one worker took a module: {pids:?}");
    let log = std::fs::read_to_string(root.join("session.log")).unwrap();
    let mut want: Vec<String> = workers
        .iter()
        .flat_map(|pid| [format!("up {pid}"), format!("down {pid}")])
        .collect();
    let mut got: Vec<String> = log.lines().map(str::to_owned).collect();
    want.sort();
    got.sort();
    assert_eq!(got, want, "{log}");
}
