//! pytest's own flags on `proctor run`: the ones pytest gets (`-x`,
//! `--maxfail`, `-p`, `-o`, the verbosity of `-vv`), the short summary's
//! `-r` characters as pytest resolves them, `--lf` / `--ff` from proctor's
//! history, and pytest-xdist's `-n`, which proctor does not run in
//! parallel.

use std::collections::HashSet;
use std::path::Path;

use anyhow::{bail, Result};
use proctor_python::{collected_file, function_nodeid};

use crate::args::RunArgs;

/// pytest's default `-r` (`_REPORTCHARS_DEFAULT`).
const DEFAULT_REPORT_CHARS: &str = "fE";

/// What pytest gets before the arguments after `--`: the flags of
/// `proctor run` that are pytest's too, and `-n 0` when `addopts` ask
/// pytest-xdist for workers.
pub(crate) fn pytest_args(args: &RunArgs, xdist: Option<&Xdist>) -> Vec<String> {
    let mut out = Vec::new();
    if args.exitfirst {
        out.push("-x".to_owned());
    }
    if let Some(n) = args.maxfail {
        out.push(format!("--maxfail={n}"));
    }
    for plugin in &args.plugins {
        out.extend(["-p".to_owned(), plugin.clone()]);
    }
    for value in &args.override_ini {
        out.extend(["-o".to_owned(), value.clone()]);
    }
    // The pytest child runs with `-q`: `-vvv` makes its verbosity 2, that
    // of `pytest -vv` (full assertion diffs in the failures).
    if args.verbose >= 2 {
        out.push("-vvv".to_owned());
    }
    if xdist.is_some() {
        out.extend(["-n".to_owned(), "0".to_owned()]);
    }
    out.extend(args.pytest_args.iter().cloned());
    out
}

/// The short summary's kinds, as pytest's `getreportopt` resolves the last
/// `-r` of `addopts`, `proctor run -r` and the arguments after `--` (in
/// that order; `a`, `A` and `N` expanded, duplicates and `w` dropped:
/// proctor does not collect warnings).
pub(crate) fn report_chars(addopts: &[String], args: &RunArgs) -> String {
    let mut given = last_report_chars(addopts);
    if let Some(chars) = &args.report_chars {
        given = Some(chars.clone());
    }
    if let Some(chars) = last_report_chars(&args.pytest_args) {
        given = Some(chars);
    }
    resolve_report_chars(given.as_deref().unwrap_or(DEFAULT_REPORT_CHARS))
}

/// pytest's `getreportopt`, without warnings.
fn resolve_report_chars(given: &str) -> String {
    let mut chars = String::new();
    for char in given.chars() {
        // Old aliases of `f` and `s`.
        let char = match char {
            'F' => 'f',
            'S' => 's',
            other => other,
        };
        match char {
            'a' => "sxXEf".clone_into(&mut chars),
            'A' => "PpsxXEf".clone_into(&mut chars),
            'N' => chars.clear(),
            'w' => {}
            other if !chars.contains(other) => chars.push(other),
            _ => {}
        }
    }
    chars
}

/// The value of the last `-r CHARS` / `-rCHARS` among `tokens`.
fn last_report_chars(tokens: &[String]) -> Option<String> {
    let mut found = None;
    let mut iter = tokens.iter();
    while let Some(token) = iter.next() {
        if token == "--" {
            break;
        }
        if token == "-r" {
            found = iter.next().cloned();
        } else if let Some(chars) = token
            .strip_prefix("-r")
            .filter(|_| !token.starts_with("--"))
        {
            found = Some(chars.to_owned());
        }
    }
    found
}

/// pytest-xdist workers that `addopts` ask for and proctor does not start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Xdist {
    /// The option as written (`-n auto`).
    pub(crate) asked: String,
}

impl Xdist {
    /// The line `proctor run` prints once about it.
    pub(crate) fn note(&self) -> String {
        format!(
            "addopts ask pytest-xdist for `{}`: proctor runs the tests in one pytest process (`-n 0` is added), with a result per test as it ends",
            self.asked
        )
    }
}

/// Refuses pytest-xdist workers asked for after `--` (proctor reads each
/// test's result from the pytest processes it starts; `proctor run -n`
/// runs workers of its own), and finds those that `addopts` ask for, which `-n 0` turns
/// off so that such suites still run.
pub(crate) fn xdist(addopts: &[String], pytest_args: &[String]) -> Result<Option<Xdist>> {
    // `--tx` starts workers whatever `-n` says (and `-n 0` cannot undo it).
    for (tokens, place) in [(pytest_args, "proctor run --"), (addopts, "addopts:")] {
        if let Some(tx) = tokens
            .iter()
            .take_while(|t| *t != "--")
            .find(|t| *t == "--tx" || t.starts_with("--tx="))
        {
            bail!("`{place} {tx}`: pytest-xdist's workers are not supported; proctor reads each result from the pytest processes it starts (`proctor run -n N` runs workers of its own)");
        }
    }
    if let Some((asked, value)) = last_numprocesses(pytest_args) {
        if value != "0" {
            bail!(
                "`proctor run -- {asked}`: pytest-xdist's workers are not supported; proctor reads each result from the pytest processes it starts; use `proctor run -n N` (before `--`) for workers of its own, or pass `-n 0`"
            );
        }
        return Ok(None);
    }
    Ok(last_numprocesses(addopts)
        .filter(|(_, value)| value != "0")
        .map(|(asked, _)| Xdist { asked }))
}

/// The last `-n N` / `-nN` / `--numprocesses N` / `--numprocesses=N`, as
/// written and its value.
fn last_numprocesses(tokens: &[String]) -> Option<(String, String)> {
    let mut found = None;
    let mut iter = tokens.iter();
    while let Some(token) = iter.next() {
        if token == "--" {
            break;
        }
        if token == "-n" || token == "--numprocesses" {
            if let Some(value) = iter.next() {
                found = Some((format!("{token} {value}"), value.clone()));
            }
        } else if let Some(value) = token.strip_prefix("--numprocesses=") {
            found = Some((token.clone(), value.to_owned()));
        } else if let Some(value) = token
            .strip_prefix("-n")
            .filter(|v| !v.is_empty() && !token.starts_with("--"))
        {
            found = Some((token.clone(), value.trim_start_matches('=').to_owned()));
        }
    }
    found
}

/// The tests `--lf` and `--ff` put first: those whose last recorded result
/// in the history failed. Node ids of modules that failed to collect
/// stand for every test of the module.
#[derive(Debug, Default)]
pub(crate) struct LastFailed {
    tests: HashSet<String>,
    modules: HashSet<String>,
    functions: HashSet<String>,
    /// `--lf`: only these run (when some of them are selected).
    pub(crate) only: bool,
}

impl LastFailed {
    /// The failures recorded in the history at `path` (none without one).
    pub(crate) fn read(path: &Path, only: bool) -> Result<LastFailed> {
        let nodeids = if path.is_file() {
            proctor_history::History::open(path).and_then(|h| h.last_failed())?
        } else {
            Vec::new()
        };
        Ok(LastFailed::of(nodeids, only))
    }

    fn of(nodeids: Vec<String>, only: bool) -> LastFailed {
        let mut failed = LastFailed {
            only,
            ..LastFailed::default()
        };
        for nodeid in nodeids {
            if nodeid.contains("::") {
                failed.functions.insert(function_nodeid(&nodeid).to_owned());
                failed.tests.insert(nodeid);
            } else {
                failed.modules.insert(nodeid);
            }
        }
        failed
    }

    /// How many failures are recorded.
    pub(crate) fn len(&self) -> usize {
        self.tests.len() + self.modules.len()
    }

    /// Whether the test failed when it last ran (or its module failed to
    /// collect).
    pub(crate) fn contains(&self, nodeid: &str) -> bool {
        self.tests.contains(nodeid) || self.modules.contains(collected_file(nodeid))
    }

    /// Whether a dynamic static item (which stands for every test of its
    /// function) may be one of them.
    pub(crate) fn may_contain_function(&self, nodeid: &str) -> bool {
        self.functions.contains(function_nodeid(nodeid))
            || self.modules.contains(collected_file(nodeid))
    }

    /// `nodeids` with the failures first, each part in its order.
    pub(crate) fn failed_first(&self, nodeids: Vec<String>) -> Vec<String> {
        let (mut first, rest): (Vec<String>, Vec<String>) =
            nodeids.into_iter().partition(|n| self.contains(n));
        first.extend(rest);
        first
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(tokens: &[&str]) -> Vec<String> {
        tokens.iter().map(|&t| t.to_owned()).collect()
    }

    #[test]
    fn report_chars_resolve_as_pytest_does() {
        assert_eq!(resolve_report_chars("fE"), "fE");
        assert_eq!(resolve_report_chars("a"), "sxXEf");
        assert_eq!(resolve_report_chars("A"), "PpsxXEf");
        assert_eq!(resolve_report_chars("sN"), "");
        assert_eq!(resolve_report_chars("Fsfw"), "fs");
        assert_eq!(
            last_report_chars(&strings(&["-v", "-rs", "--rootdir", "x", "-r", "xX"])).as_deref(),
            Some("xX")
        );
        assert_eq!(last_report_chars(&strings(&["--runxfail"])), None);
    }

    #[test]
    fn numprocesses_are_read_in_every_spelling() {
        for (tokens, expected) in [
            (&["-n", "auto"][..], Some(("-n auto", "auto"))),
            (&["-n4"], Some(("-n4", "4"))),
            (&["--numprocesses=2"], Some(("--numprocesses=2", "2"))),
            (&["--numprocesses", "0"], Some(("--numprocesses 0", "0"))),
            (&["-n", "3", "-n", "0"], Some(("-n 0", "0"))),
            (&["--no-header", "-v"], None),
        ] {
            let found = last_numprocesses(&strings(tokens));
            assert_eq!(
                found.as_ref().map(|(a, v)| (a.as_str(), v.as_str())),
                expected,
                "{tokens:?}"
            );
        }
        assert!(xdist(&[], &strings(&["-n", "2"])).is_err());
        assert!(xdist(&[], &strings(&["--tx", "2*popen"])).is_err());
        assert!(xdist(&strings(&["--tx=popen"]), &[]).is_err());
        assert_eq!(
            xdist(&strings(&["-n", "auto"]), &strings(&["-n", "0"])).unwrap(),
            None
        );
        assert_eq!(
            xdist(&strings(&["-n", "auto"]), &[]).unwrap(),
            Some(Xdist {
                asked: "-n auto".to_owned()
            })
        );
    }

    #[test]
    fn last_failed_puts_failures_first_and_modules_stand_for_their_tests() {
        let failed = LastFailed::of(strings(&["a.py::test_x[1]", "b.py"]), false);
        assert!(failed.contains("b.py::test_anything"));
        assert!(failed.may_contain_function("a.py::test_x"));
        assert_eq!(
            failed.failed_first(strings(&["a.py::test_y", "b.py::t", "a.py::test_x[1]"])),
            strings(&["b.py::t", "a.py::test_x[1]", "a.py::test_y"])
        );
    }
}
