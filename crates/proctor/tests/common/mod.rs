//! Helpers shared by the CLI tests (each test crate uses some of them).
#![allow(dead_code)]

use std::path::Path;
use std::process::Command;

/// What a command printed, stdout then stderr, for assertion messages.
pub(crate) fn text(output: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// Writes `text` to `path` under `dir`, creating directories.
pub(crate) fn write(dir: &Path, path: &str, text: &str) {
    let path = dir.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// Runs proctor in `dir` and renders exit code, stdout and stderr, with the
/// temporary directory replaced by `[ROOT]`.
#[allow(
    dead_code,
    reason = "used by some of the test binaries that include this module"
)]
pub(crate) fn run(dir: &Path, args: &[&str]) -> String {
    run_env(dir, args, &[])
}

/// Like [`run`], with environment variables set (`Some`) or removed
/// (`None`) for the run.
pub(crate) fn run_env(dir: &Path, args: &[&str], env: &[(&str, Option<&str>)]) -> String {
    let mut command = Command::new(env!("CARGO_BIN_EXE_proctor"));
    command
        .args(args)
        .current_dir(dir)
        .env_remove("PYTEST_ADDOPTS");
    for (name, value) in env {
        match value {
            Some(value) => command.env(name, value),
            None => command.env_remove(name),
        };
    }
    let output = command.output().expect("proctor runs");
    let root = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let filter = |text: &[u8]| {
        String::from_utf8_lossy(text)
            .replace(&root.display().to_string(), "[ROOT]")
            .replace(&dir.display().to_string(), "[ROOT]")
    };
    format!(
        "exit: {}\n--- stdout\n{}--- stderr\n{}",
        output.status.code().unwrap_or(-1),
        filter(&output.stdout),
        filter(&output.stderr)
    )
}

/// Replaces durations at the end of summary lines (`... in 0.01s`) with
/// `[TIME]`: they vary from run to run.
#[allow(
    dead_code,
    reason = "used by some of the test binaries that include this module"
)]
pub(crate) fn without_timings(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        match line.rsplit_once(" in ") {
            Some((head, tail))
                if tail.ends_with('s') && tail[..tail.len() - 1].parse::<f64>().is_ok() =>
            {
                out.push_str(head);
                out.push_str(" in [TIME]");
            }
            _ => out.push_str(line),
        }
        out.push('\n');
    }
    out
}

/// A copy of the directory `from` in a new temporary directory, without
/// hidden entries and `__pycache__` (a run's `.proctor/`, caches), so a
/// test can run a committed suite without writing into the repository.
#[allow(
    dead_code,
    reason = "used by some of the test binaries that include this module"
)]
pub(crate) fn copy_of(from: &Path) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut stack = vec![from.to_path_buf()];
    while let Some(current) = stack.pop() {
        for entry in std::fs::read_dir(&current).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if name.starts_with('.') || name == "__pycache__" {
                continue;
            }
            let to = dir.path().join(path.strip_prefix(from).unwrap());
            if path.is_dir() {
                std::fs::create_dir_all(&to).unwrap();
                stack.push(path);
            } else {
                std::fs::copy(&path, &to).unwrap();
            }
        }
    }
    dir
}

/// A `collect --json` document (version 2) with each item's marker
/// indices replaced by the markers of the document's table, as tests read
/// them.
pub(crate) fn inline_markers(mut doc: serde_json::Value) -> serde_json::Value {
    let table = doc["markers"].as_array().cloned().unwrap_or_default();
    if let Some(items) = doc["items"].as_array_mut() {
        for item in items {
            let refs = item["markers"].as_array().cloned().unwrap_or_default();
            item["markers"] = refs
                .iter()
                .map(|index| {
                    table[usize::try_from(index.as_u64().expect("a marker index")).unwrap()].clone()
                })
                .collect();
        }
    }
    doc
}

/// The Python with the pinned pytest that the tests run (scripts/test
/// sets `PROCTOR_TEST_PYTHON`).
pub(crate) fn test_python() -> std::path::PathBuf {
    std::env::var_os("PROCTOR_TEST_PYTHON")
        .expect("PROCTOR_TEST_PYTHON names a Python with pytest (scripts/test sets it)")
        .into()
}

/// Bare pytest over the same project: `-q`, no cache, no
/// `PYTEST_ADDOPTS` from the caller's environment.
#[allow(dead_code)]
pub(crate) fn bare_pytest(root: &Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new(test_python())
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .args(args)
        .current_dir(root)
        .env_remove("PYTEST_ADDOPTS")
        .output()
        .unwrap()
}

/// The repository's root directory.
pub(crate) fn repo() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// A test's outcome in a `proctor run --json` report, as
/// `tests/harness/dump_outcomes.py` writes pytest's: `+error` after it for
/// a failed teardown, which pytest counts besides the outcome.
pub(crate) fn outcome_word(test: &serde_json::Value) -> String {
    let teardown = if test["teardown_error"].is_string() {
        "+error"
    } else {
        ""
    };
    format!("{}{teardown}", test["outcome"].as_str().unwrap_or_default())
}

/// A number from the environment variable `name`, else `default`.
pub(crate) fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// xorshift64*: small, seeded, and the same on every machine.
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        // Mixed so that neighbouring seeds start far apart; never zero.
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub(crate) fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next() % n as u64).unwrap()
    }

    pub(crate) fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// `proctor run --python <the test Python> ARGS` in `dir`.
pub(crate) fn proctor_run(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_proctor"))
        .arg("run")
        .arg("--python")
        .arg(test_python())
        .args(args)
        .current_dir(dir)
        .env_remove("PYTEST_ADDOPTS")
        .output()
        .unwrap()
}

/// A loopback port that nothing listens on (bound, then released).
pub(crate) fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A fake HTTP service for `[services]` tests: it answers `GET` with `ok`
/// at the `host:port` of `FAKE_HOST`.
pub(crate) const FAKE_SERVER: &str = "import http.server, os, socketserver\nhost, port = os.environ['FAKE_HOST'].split(':')\nclass H(http.server.BaseHTTPRequestHandler):\n    def do_GET(self):\n        self.send_response(200)\n        self.end_headers()\n        self.wfile.write(b'ok')\n    def log_message(self, *a):\n        pass\nsocketserver.TCPServer.allow_reuse_address = True\nsocketserver.TCPServer((host, int(port)), H).serve_forever()\n";

/// The fenced blocks of a Markdown text: (info string, body).
pub(crate) fn fenced_blocks(text: &str) -> Vec<(String, String)> {
    let mut blocks = Vec::new();
    let mut current: Option<(String, String)> = None;
    for line in text.lines() {
        match (&mut current, line.strip_prefix("```")) {
            (None, Some(info)) => current = Some((info.trim().to_owned(), String::new())),
            (Some(_), Some("")) => blocks.push(current.take().unwrap()),
            (Some((_, body)), _) => {
                body.push_str(line);
                body.push('\n');
            }
            (None, None) => {}
        }
    }
    blocks
}
