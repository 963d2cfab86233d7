//! Differential test: for each layout, real pytest (`python -m pytest --co`)
//! and [`proctor_config::load`] must agree on the rootdir, the config file and
//! the ignored config files of pytest's header, or must both fail.
//!
//! The interpreter comes from `PROCTOR_TEST_PYTHON`; without it the test fails
//! rather than passing silently.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::Tree;
use proctor_config::load;

struct Case {
    name: &'static str,
    files: &'static [(&'static str, &'static str)],
    dirs: &'static [&'static str],
    /// Symbolic links: (link, target relative to the tree root).
    links: &'static [(&'static str, &'static str)],
    cwd: &'static str,
    args: &'static [&'static str],
    inifile: Option<&'static str>,
    rootdir: Option<&'static str>,
    env_addopts: Option<&'static str>,
}

const BASE: Case = Case {
    name: "",
    files: &[],
    dirs: &[],
    links: &[],
    cwd: "",
    args: &[],
    inifile: None,
    rootdir: None,
    env_addopts: None,
};

const CASES: &[Case] = &[
    Case {
        name: "pytest.ini in a parent of the working directory",
        files: &[("pytest.ini", "[pytest]\n")],
        dirs: &["a/b"],
        cwd: "a/b",
        ..BASE
    },
    Case {
        name: "pytest.ini shadows pyproject.toml and setup.cfg (nl2sql)",
        files: &[
            ("pytest.ini", "[pytest]\nmarkers = a\n"),
            (
                "pyproject.toml",
                "[tool.pytest.ini_options]\nmarkers = ['b']\n",
            ),
            ("tox.ini", "[tox]\nenvlist = py3\n"),
            ("setup.cfg", "[tool:pytest]\n"),
        ],
        ..BASE
    },
    Case {
        name: "pytest.toml wins over pytest.ini",
        files: &[("pytest.toml", "[pytest]\n"), ("pytest.ini", "")],
        ..BASE
    },
    Case {
        name: "native [tool.pytest] with an empty ini_options table",
        files: &[(
            "pyproject.toml",
            "[tool.pytest]\ntestpaths = ['t']\n[tool.pytest.ini_options]\n",
        )],
        ..BASE
    },
    Case {
        name: "both pyproject tables",
        files: &[(
            "pyproject.toml",
            "[tool.pytest]\ntestpaths = ['t']\n[tool.pytest.ini_options]\nx = '1'\n",
        )],
        ..BASE
    },
    Case {
        name: "empty [tool.pytest] is only a rootdir fallback, beating setup.py above",
        files: &[("setup.py", ""), ("sub/pyproject.toml", "[tool.pytest]\n")],
        dirs: &["sub/tests"],
        cwd: "sub/tests",
        ..BASE
    },
    Case {
        name: "setup.py without any config",
        files: &[("setup.py", "")],
        dirs: &["a/b"],
        cwd: "a/b",
        ..BASE
    },
    Case {
        name: "nothing at all: common ancestor of cwd and args",
        files: &[("a/b/test_q.py", "")],
        dirs: &["x"],
        cwd: "x",
        args: &["../a/b/test_q.py"],
        ..BASE
    },
    Case {
        name: "sibling args each with a config",
        files: &[("a/pytest.ini", ""), ("b/pytest.ini", "")],
        dirs: &["c"],
        cwd: "c",
        args: &["../b", "../a"],
        ..BASE
    },
    Case {
        name: "node ID argument and a missing path",
        files: &[
            ("pytest.ini", ""),
            ("p/tox.ini", "[pytest]\n"),
            ("p/tests/test_a.py", ""),
        ],
        dirs: &["elsewhere"],
        cwd: "elsewhere",
        args: &["../p/tests/test_a.py::test_x[1]", "../nope"],
        ..BASE
    },
    Case {
        name: "tox.ini beats setup.cfg; args below the config directory",
        files: &[
            ("tox.ini", "[pytest]\n"),
            ("setup.cfg", "[tool:pytest]\n"),
            ("a/test_a.py", ""),
        ],
        dirs: &["b"],
        args: &["b", "a/test_a.py"],
        ..BASE
    },
    Case {
        name: "tox.ini without [pytest] is skipped for setup.cfg",
        files: &[
            ("tox.ini", "[tox]\n"),
            ("setup.cfg", "[metadata]\n[tool:pytest]\n"),
        ],
        ..BASE
    },
    Case {
        name: "-c with a custom ini file",
        files: &[("pytest.ini", ""), ("ci/custom.ini", "[pytest]\n")],
        dirs: &["sub"],
        cwd: "sub",
        inifile: Some("../ci/custom.ini"),
        ..BASE
    },
    Case {
        name: "-c /dev/null",
        files: &[("pytest.ini", "")],
        dirs: &["sub"],
        cwd: "sub",
        inifile: Some("/dev/null"),
        ..BASE
    },
    Case {
        name: "-c pyproject.toml without pytest tables",
        files: &[
            ("pytest.ini", ""),
            ("other/pyproject.toml", "[project]\nname = 'x'\n"),
        ],
        inifile: Some("other/pyproject.toml"),
        ..BASE
    },
    Case {
        name: "-c with an unsupported extension",
        files: &[("conf.yaml", "")],
        inifile: Some("conf.yaml"),
        ..BASE
    },
    Case {
        name: "--rootdir keeps the config file",
        files: &[("pytest.ini", "")],
        dirs: &["other"],
        rootdir: Some("other"),
        ..BASE
    },
    Case {
        name: "PYTEST_ADDOPTS with --rootdir and -c",
        files: &[("pytest.ini", ""), ("p/tox.ini", "[pytest]\n")],
        dirs: &["r"],
        env_addopts: Some("--rootdir=r -c p/tox.ini"),
        ..BASE
    },
    Case {
        name: "PYTEST_ADDOPTS with a path",
        files: &[("pytest.ini", ""), ("p/tox.ini", "[pytest]\n")],
        env_addopts: Some("-v p"),
        ..BASE
    },
    Case {
        name: "--rootdir in ini addopts is too late",
        files: &[("pytest.ini", "[pytest]\naddopts = --rootdir=r\n")],
        dirs: &["r"],
        ..BASE
    },
    Case {
        name: "setup.cfg with a [pytest] section",
        files: &[("setup.cfg", "[pytest]\naddopts = -v\n")],
        ..BASE
    },
    Case {
        name: "a malformed setup.cfg next to pytest.ini",
        files: &[
            ("pytest.ini", "[pytest]\n"),
            ("setup.cfg", "[tool:pytest]\n  stray\n"),
        ],
        ..BASE
    },
    Case {
        name: "a malformed tox.ini above the config file is never read",
        files: &[("tox.ini", "garbage\n"), ("sub/pytest.ini", "[pytest]\n")],
        cwd: "sub",
        ..BASE
    },
    Case {
        name: "a malformed pyproject.toml on the way up",
        files: &[("pytest.ini", ""), ("sub/pyproject.toml", "[tool.pytest\n")],
        cwd: "sub",
        ..BASE
    },
    Case {
        name: "arguments through a symbolic link are not resolved",
        files: &[("real/pytest.ini", ""), ("tox.ini", "[pytest]\n")],
        dirs: &["real/pkg"],
        links: &[("link", "real/pkg")],
        args: &["link"],
        ..BASE
    },
    Case {
        name: "CRLF line endings and continuation lines",
        files: &[(
            "setup.cfg",
            "[metadata]\r\nname = x\r\n\r\n[tool:pytest]\r\nmarkers =\r\n  a\r\n",
        )],
        ..BASE
    },
    Case {
        name: "-c tox.ini without a [pytest] section",
        files: &[("pytest.ini", ""), ("ci/tox.ini", "[tox]\n")],
        inifile: Some("ci/tox.ini"),
        ..BASE
    },
    Case {
        name: "pytest.toml with top-level options",
        files: &[("pytest.toml", "testpaths = ['t']\n")],
        ..BASE
    },
];

/// What pytest's header says, or `None` when pytest failed before printing it.
#[derive(Debug, PartialEq)]
struct Header {
    rootdir: PathBuf,
    inifile: Option<PathBuf>,
    ignored: Vec<String>,
}

fn run_pytest(python: &Path, tree: &Tree, case: &Case) -> (Option<Header>, String) {
    let mut command = Command::new(python);
    command
        .args(["-m", "pytest", "--co", "-p", "no:cacheprovider"])
        .current_dir(tree.path(case.cwd))
        .env_remove("PYTEST_ADDOPTS")
        .env("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
        .env("PYTHONDONTWRITEBYTECODE", "1");
    if let Some(inifile) = case.inifile {
        command.args(["-c", inifile]);
    }
    if let Some(rootdir) = case.rootdir {
        command.args(["--rootdir", rootdir]);
    }
    if let Some(env) = case.env_addopts {
        command.env("PYTEST_ADDOPTS", env);
    }
    command.args(case.args);
    let output = command.output().unwrap_or_else(|err| {
        panic!("cannot run {}: {err}", python.display());
    });
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let transcript = format!("stdout:\n{stdout}\nstderr:\n{stderr}");
    let Some(rootdir) = stdout.lines().find_map(|l| l.strip_prefix("rootdir: ")) else {
        return (None, transcript);
    };
    let rootdir = PathBuf::from(rootdir);
    let mut inifile = None;
    let mut ignored = Vec::new();
    if let Some(line) = stdout.lines().find_map(|l| l.strip_prefix("configfile: ")) {
        let (rel, warning) = match line.split_once(" (WARNING: ignoring pytest config in ") {
            Some((rel, rest)) => (rel, Some(rest.trim_end_matches("!)"))),
            None => (line, None),
        };
        inifile = Some(normalize(&rootdir.join(rel)));
        if let Some(names) = warning {
            ignored = names.split(", ").map(str::to_owned).collect();
        }
    }
    (
        Some(Header {
            rootdir,
            inifile,
            ignored,
        }),
        transcript,
    )
}

/// Lexical normalisation of `..` in pytest's relative `configfile:`.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

fn check(python: &Path, case: &Case) -> Result<(), String> {
    let tree = Tree::new();
    for (path, text) in case.files {
        tree.file(path, text);
    }
    for dir in case.dirs {
        tree.dir(dir);
    }
    for (link, target) in case.links {
        std::os::unix::fs::symlink(tree.path(target), tree.path(link)).unwrap();
    }
    let mut opts = tree.opts(case.cwd, case.args);
    opts.inifile = case.inifile.map(PathBuf::from);
    opts.rootdir = case.rootdir.map(PathBuf::from);
    opts.env_addopts = case.env_addopts.map(str::to_owned);
    let ours = load(&opts).map(|settings| Header {
        rootdir: settings.pytest.rootdir,
        inifile: settings.pytest.inifile,
        ignored: settings
            .pytest
            .ignored_config_files
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect(),
    });
    let (theirs, transcript) = run_pytest(python, &tree, case);
    match (ours, theirs) {
        (Ok(ours), Some(theirs)) if ours == theirs => Ok(()),
        (Err(_), None) => Ok(()),
        (ours, theirs) => Err(format!(
            "case {:?}:\n  proctor: {ours:?}\n  pytest:  {theirs:?}\n{transcript}",
            case.name
        )),
    }
}

#[test]
fn discovery_agrees_with_real_pytest() {
    let Some(python) = std::env::var_os("PROCTOR_TEST_PYTHON") else {
        panic!(
            "PROCTOR_TEST_PYTHON is not set: the differential test needs a Python with pytest \
             (export PROCTOR_TEST_PYTHON=/work/main/.venv/bin/python)"
        );
    };
    let python = PathBuf::from(python);
    let version = Command::new(&python)
        .args(["-m", "pytest", "--version"])
        .output()
        .unwrap_or_else(|err| panic!("cannot run {}: {err}", python.display()));
    assert!(
        version.status.success(),
        "{} cannot run pytest: {}",
        python.display(),
        String::from_utf8_lossy(&version.stderr)
    );

    let failures: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = CASES
            .iter()
            .map(|case| scope.spawn(|| check(&python, case)))
            .collect();
        handles
            .into_iter()
            .filter_map(|handle| handle.join().expect("a case panicked").err())
            .collect()
    });
    assert!(
        failures.is_empty(),
        "{} of {} layouts disagree with pytest:\n\n{}",
        failures.len(),
        CASES.len(),
        failures.join("\n\n")
    );
}
