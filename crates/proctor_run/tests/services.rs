//! Service lifecycles over real processes: a fake service (a Python script
//! run by `python3`, or by `PROCTOR_TEST_PYTHON` when set) that listens on
//! the address proctor gives it, answers `/health`, and spawns a child so
//! that the tests can see the whole process group go. Only loopback is
//! used.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use proctor_config::{HookOptions, ServiceOptions};
use proctor_run::{RunningService, ServiceError};

/// The fake service. `serve` listens on `$FAKE_ADDR`; `sleep` never
/// listens. Both write `<pid> <child pid> <$FAKE_ADDR>` to `pids` first.
const FAKE_SERVICE: &str = r#"
import http.server, os, subprocess, sys, time

mode = sys.argv[1]
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
with open("pids.tmp", "w") as f:
    f.write(f"{os.getpid()} {child.pid} {os.environ['FAKE_ADDR']}")
os.rename("pids.tmp", "pids")
print(f"fake service starting, extra={os.environ.get('FAKE_EXTRA')}", flush=True)

if mode == "sleep":
    print("warming up forever", flush=True)
    time.sleep(600)

class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200 if self.path == "/health" else 404)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        print(f"hook {self.path} {body.decode()} {self.headers.get('Content-Type')}", flush=True)
        self.send_response(200 if self.path == "/api/evict" else 404)
        self.send_header("Content-Length", "0")
        self.end_headers()

host, port = os.environ["FAKE_ADDR"].rsplit(":", 1)
http.server.HTTPServer((host, int(port)), Handler).serve_forever()
"#;

fn python() -> String {
    std::env::var("PROCTOR_TEST_PYTHON").unwrap_or_else(|_| "python3".to_owned())
}

/// A loopback port that nothing listens on (bound, then released).
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A rootdir holding the fake service, and a log folder.
struct Project {
    root: tempfile::TempDir,
    logs: PathBuf,
}

impl Project {
    fn new() -> Project {
        let root = tempfile::tempdir().unwrap();
        std::fs::write(root.path().join("fake.py"), FAKE_SERVICE).unwrap();
        let logs = root.path().join("logs");
        std::fs::create_dir(&logs).unwrap();
        Project { root, logs }
    }

    /// The options of a fake service run in `mode` on a free port.
    fn options(mode: &str) -> ServiceOptions {
        ServiceOptions {
            address_env: Some("FAKE_ADDR".to_owned()),
            default_address: format!("127.0.0.1:{}", free_port()),
            http_probe: Some("/health".to_owned()),
            // Relative to the rootdir: the command runs there.
            start: Some(format!("'{}' fake.py {mode}", python())),
            stop: None,
            env: [("FAKE_EXTRA".to_owned(), "42".to_owned())].into(),
            ready_timeout: Duration::from_secs(20),
            stop_timeout: Duration::from_secs(5),
            hook_between_modules: None,
            image: None,
        }
    }

    fn start(&self, name: &str, options: &ServiceOptions) -> Result<RunningService, ServiceError> {
        RunningService::start(name, options, self.root.path(), &self.logs, |_| None)
    }

    /// The service's pid, its child's, and the address it was given,
    /// waiting for the script to write them.
    fn pids(&self) -> (u32, u32, String) {
        let path = self.root.path().join("pids");
        let deadline = Instant::now() + Duration::from_secs(20);
        while !path.exists() {
            assert!(
                Instant::now() < deadline,
                "the fake service never wrote its pids"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        let text = std::fs::read_to_string(path).unwrap();
        let mut words = text.split_whitespace();
        let mut number = || words.next().unwrap().parse().unwrap();
        let (pid, child) = (number(), number());
        (pid, child, words.next().unwrap().to_owned())
    }
}

/// Whether `pid` is a live process (a zombie is not).
fn alive(pid: u32) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    // `pid (comm) S ...`: the state follows the last `)`.
    let state = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest.trim_start().chars().next());
    !matches!(state, Some(Some('Z' | 'X')))
}

/// Waits for `pid` to go: an orphan may take a moment to die (a minute is
/// a guard against a hang, not a measure: a loaded machine only waits longer).
fn gone(pid: u32) -> bool {
    let deadline = Instant::now() + Duration::from_mins(1);
    while alive(pid) {
        if Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    true
}

fn not_ready(error: ServiceError) -> (String, String, String) {
    match error {
        ServiceError::NotReady {
            address,
            reason,
            log_tail,
            ..
        } => (address, reason, log_tail),
        other => panic!("expected NotReady, got {other:?}"),
    }
}

#[test]
fn a_started_service_answers_gets_its_address_and_stops_with_its_children() {
    let project = Project::new();
    let mut options = Project::options("serve");
    // A polite service goes on SIGTERM: stop never waits out this timeout
    // (so long that a loaded machine cannot reach it either).
    options.stop_timeout = Duration::from_mins(10);
    let service = project.start("fake", &options).unwrap();
    let (pid, child, seen_address) = project.pids();
    assert!(alive(pid) && alive(child));
    let address = options.default_address.clone();
    assert_eq!(
        (service.name(), service.address()),
        ("fake", address.as_str())
    );
    assert_eq!(
        seen_address, address,
        "the service is told its address through address-env"
    );
    assert_eq!(
        service.env(),
        vec![("FAKE_ADDR".to_owned(), address.clone())]
    );
    let log_path = service.log_path().unwrap().to_owned();
    assert_eq!(log_path, project.logs.join("fake.log"));
    let started = Instant::now();
    service.stop().unwrap();
    assert!(
        started.elapsed() < options.stop_timeout,
        "a polite service took {:?} to stop: its stop timeout ran out",
        started.elapsed()
    );
    assert!(gone(pid), "the service survived stop");
    assert!(gone(child), "the service's child survived stop");
    let log = std::fs::read_to_string(log_path).unwrap();
    assert!(log.contains("fake service starting, extra=42"), "{log}");
}

#[test]
fn the_address_variable_wins_and_loses_its_credentials() {
    let project = Project::new();
    let options = Project::options("serve");
    let port = free_port();
    let lookup = |name: &str| {
        (name == "FAKE_ADDR").then(|| format!("http://admin:s3cret@127.0.0.1:{port}/v1"))
    };
    let service =
        RunningService::start("fake", &options, project.root.path(), &project.logs, lookup)
            .unwrap();
    let expected = format!("127.0.0.1:{port}");
    assert_eq!(service.address(), expected);
    assert_eq!(project.pids().2, expected);
    assert_eq!(service.env(), vec![("FAKE_ADDR".to_owned(), expected)]);
    service.stop().unwrap();
}

#[test]
fn the_hook_between_modules_is_called() {
    let project = Project::new();
    let mut options = Project::options("serve");
    options.hook_between_modules = Some(HookOptions {
        method: "POST".to_owned(),
        path: "/api/evict".to_owned(),
        body: Some(r#"{"all":true}"#.to_owned()),
    });
    let service = project.start("fake", &options).unwrap();
    assert_eq!(service.hook().unwrap(), Some(200));
    let log = std::fs::read_to_string(service.log_path().unwrap()).unwrap();
    assert!(
        log.contains(r#"hook /api/evict {"all":true} application/json"#),
        "{log}"
    );
    service.stop().unwrap();

    let mut options = Project::options("serve");
    options.hook_between_modules = Some(HookOptions {
        method: "POST".to_owned(),
        path: "/nope".to_owned(),
        body: None,
    });
    std::fs::remove_file(project.root.path().join("pids")).unwrap();
    let service = project.start("fake", &options).unwrap();
    let error = service.hook().unwrap_err().to_string();
    assert!(
        error.contains("`POST /nope`") && error.contains("answered 404"),
        "{error}"
    );
    service.stop().unwrap();
}

#[test]
fn a_service_that_never_answers_is_not_ready_within_its_timeout() {
    let project = Project::new();
    let mut options = Project::options("sleep");
    options.ready_timeout = Duration::from_millis(1500);
    let started = Instant::now();
    let error = project.start("slow", &options).unwrap_err();
    let elapsed = started.elapsed();
    assert!(
        // Not before its timeout; the upper bound only guards against a hang.
        elapsed >= Duration::from_millis(1500) && elapsed < Duration::from_mins(2),
        "{elapsed:?}"
    );
    let message = error.to_string();
    assert!(
        message.starts_with("service `slow` is not ready at 127.0.0.1:"),
        "{message}"
    );
    assert!(message.contains("no answer within 1.5 s"), "{message}");
    let (_, _, log_tail) = not_ready(error);
    // The error shows what the service had written when it was stopped:
    // on a loaded machine its interpreter may not have reached its line
    // (or even its pids) within the timeout, so the log decides, not a
    // deadline.
    let log = std::fs::read_to_string(project.logs.join("slow.log")).unwrap_or_default();
    for line in log_tail.lines() {
        assert!(log.contains(line), "{line:?} is not in the log: {log}");
    }
    if log.contains("warming up forever") {
        assert!(log_tail.contains("warming up forever"), "{log_tail}");
    }
    if project.root.path().join("pids").exists() {
        let (pid, child, _) = project.pids();
        assert!(
            gone(pid) && gone(child),
            "a service that was not ready was left running"
        );
    }
}

#[test]
fn a_service_answering_only_errors_is_not_ready() {
    let project = Project::new();
    let mut options = Project::options("serve");
    options.http_probe = Some("/missing".to_owned());
    options.ready_timeout = Duration::from_secs(2);
    let (_, reason, _) = not_ready(project.start("fake", &options).unwrap_err());
    assert!(reason.contains("`GET /missing` answered 404"), "{reason}");
    let (pid, child, _) = project.pids();
    assert!(gone(pid) && gone(child));
}

#[test]
fn a_command_that_exits_at_once_is_not_ready_quickly_with_its_message() {
    let project = Project::new();
    let mut options = Project::options("serve");
    options.start = Some("echo 'fatal: model llama9 not found' >&2; exit 3".to_owned());
    // Quickly: far under the ready timeout it would wait out otherwise (a
    // bound no loaded machine comes near, unlike a few seconds).
    options.ready_timeout = Duration::from_mins(10);
    let started = Instant::now();
    let error = project.start("broken", &options).unwrap_err();
    assert!(
        started.elapsed() < Duration::from_mins(1),
        "{:?}",
        started.elapsed()
    );
    let (_, reason, log_tail) = not_ready(error);
    assert!(
        reason.contains("exited") && reason.contains('3'),
        "{reason}"
    );
    assert!(
        log_tail.contains("fatal: model llama9 not found"),
        "{log_tail}"
    );
}

#[test]
fn dropping_a_service_kills_its_group() {
    let project = Project::new();
    let service = project.start("fake", &Project::options("serve")).unwrap();
    let (pid, child, _) = project.pids();
    assert!(alive(pid) && alive(child));
    drop(service);
    assert!(gone(pid), "the service survived drop");
    assert!(gone(child), "the service's child survived drop");
}

#[test]
fn a_stubborn_service_is_killed_after_the_stop_timeout() {
    let project = Project::new();
    let mut options = Project::options("serve");
    options.start = Some(format!(
        "trap '' TERM; '{}' fake.py serve & wait; sleep 600",
        python()
    ));
    options.stop_timeout = Duration::from_millis(500);
    let service = project.start("stubborn", &options).unwrap();
    let (pid, child, _) = project.pids();
    let shell = service.pid().unwrap();
    let started = Instant::now();
    service.stop().unwrap();
    // Killed after the stop timeout, not after its 600 s sleep: a bound
    // far above the timeout, which a loaded machine does not reach.
    assert!(
        started.elapsed() < Duration::from_mins(1),
        "{:?}",
        started.elapsed()
    );
    assert!(gone(shell) && gone(pid) && gone(child));
}

#[test]
fn an_external_service_is_probed_once() {
    let project = Project::new();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap().to_string();
    let options = ServiceOptions {
        default_address: address.clone(),
        ..ServiceOptions::default()
    };
    let service = project.start("db", &options).unwrap();
    assert_eq!(
        (service.address(), service.log_path(), service.pid()),
        (address.as_str(), None, None)
    );
    assert_eq!(service.env(), Vec::new());
    service.stop().unwrap();
    drop(listener);

    let options = ServiceOptions {
        default_address: format!("127.0.0.1:{}", free_port()),
        // Probed once: the ready timeout is not waited out.
        ready_timeout: Duration::from_mins(10),
        ..ServiceOptions::default()
    };
    let started = Instant::now();
    let (_, reason, log_tail) = not_ready(project.start("db", &options).unwrap_err());
    assert!(started.elapsed() < Duration::from_mins(1));
    assert!(
        reason.contains("external service does not answer"),
        "{reason}"
    );
    assert_eq!(log_tail, "");
    assert!(
        std::fs::read_dir(&project.logs).unwrap().next().is_none(),
        "an external service has no log"
    );
}

#[test]
fn credentials_in_an_address_never_reach_errors() {
    let project = Project::new();
    let port = free_port();
    let options = ServiceOptions {
        address_env: Some("DB_URL".to_owned()),
        default_address: "127.0.0.1:5432".to_owned(),
        ..ServiceOptions::default()
    };
    let lookup = |_: &str| Some(format!("postgres://admin:s3cret@127.0.0.1:{port}/app"));
    let error = RunningService::start("db", &options, project.root.path(), &project.logs, lookup)
        .unwrap_err();
    for text in [error.to_string(), format!("{error:?}")] {
        assert!(
            !text.contains("s3cret") && !text.contains("admin"),
            "{text}"
        );
        assert!(text.contains(&format!("127.0.0.1:{port}")), "{text}");
    }
    let lookup = |_: &str| Some("postgres://admin:s3cret@/app".to_owned());
    let error = RunningService::start("db", &options, project.root.path(), &project.logs, lookup)
        .unwrap_err();
    for text in [error.to_string(), format!("{error:?}")] {
        assert!(
            !text.contains("s3cret") && text.contains("DB_URL"),
            "{text}"
        );
    }
}

#[test]
fn a_service_already_answering_is_used_not_started_again() {
    let project = Project::new();
    let first = project.start("fake", &Project::options("serve")).unwrap();
    let mut options = Project::options("serve");
    options.default_address = first.address().to_owned();
    options.start = Some("echo started twice; exit 1".to_owned());
    let second = project.start("again", &options).unwrap();
    assert_eq!((second.pid(), second.log_path()), (None, None));
    second.stop().unwrap();
    assert!(first.hook().unwrap().is_none());
    first.stop().unwrap();
}

#[test]
fn a_missing_log_folder_is_an_error() {
    let project = Project::new();
    let options = Project::options("serve");
    let missing: &Path = &project.root.path().join("no/such/dir");
    let error = RunningService::start("fake", &options, project.root.path(), missing, |_| None)
        .unwrap_err();
    assert!(matches!(error, ServiceError::Log { .. }), "{error:?}");
    assert!(
        error.to_string().starts_with("failed to create the log"),
        "{error}"
    );
}
