//! Every console example in `README.md` and `docs/*.md` is run, and its
//! output compared with what the page shows: a page that no longer says
//! what proctor does fails here.
//!
//! A ` ```console ` block is preceded by a comment naming the suite it runs
//! in, relative to the repository root:
//!
//! ```text
//! <!-- example: tests/docs/check -->
//! ```
//!
//! (`<!-- example: run by crates/proctor/tests/cli_init.rs -->` names a
//! test that runs the example itself, after writing the files the page
//! shows; it must read the page.)
//!
//! The suite is copied to a temporary directory (its hidden entries left
//! out; `<!-- example: examples/demo at examples/demo -->` puts the copy at
//! that path under the directory the commands start in) and each `$ ` line runs there with `bash` (`proctor` on `PATH`, the
//! test virtualenv as `$VIRTUAL_ENV`, colour off), stdout and stderr
//! together; a `$ cd DIR` line changes the directory of the commands after
//! it. The lines after a command are its output, compared line by line:
//! a line `...` stands for any number of lines, `[..]` in a line for any
//! text, and a duration at the end of a summary line (`in 0.01s`) for any
//! duration. Usage synopses and install commands are not console blocks
//! (`text`, `sh`).
//!
//! `PROCTOR_BLESS_DOCS=1` writes what each differing command printed into
//! the page in place of what it showed (then put back the `...` and `[..]`
//! that keep the example short).

mod common;

use common::repo;

use std::path::{Path, PathBuf};
use std::process::Command;

/// One console block: where it is written, the suite it runs in, its
/// commands with the output each is expected to print.
struct Example {
    page: String,
    line: usize,
    suite: String,
    /// Where the copy goes under the directory the commands start in.
    at: Option<String>,
    commands: Vec<Step>,
}

/// One `$ ` line of an example and the output the page shows after it.
struct Step {
    text: String,
    output: Vec<String>,
    /// The page's line index (0-based) of the first output line.
    first: usize,
}

fn pages() -> Vec<PathBuf> {
    let repo = repo();
    let mut pages = vec![repo.join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(repo.join("docs"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    pages.extend(docs);
    pages
}

/// The console blocks of one page; a block without its `example:` comment
/// is a problem, not skipped.
fn examples(
    page: &str,
    text: &str,
    problems: &mut Vec<String>,
    blocks: &mut usize,
) -> Vec<Example> {
    let lines: Vec<&str> = text.lines().collect();
    let mut found = Vec::new();
    let mut index = 0;
    while index < lines.len() {
        if lines[index].trim_end() != "```console" {
            index += 1;
            continue;
        }
        let start = index;
        *blocks += 1;
        let previous = lines[..start]
            .iter()
            .rev()
            .find(|line| !line.trim().is_empty());
        let suite = previous
            .and_then(|line| line.trim().strip_prefix("<!-- example:"))
            .and_then(|rest| rest.strip_suffix("-->"))
            .map(|suite| suite.trim().to_owned());
        index += 1;
        let mut body = Vec::new();
        while index < lines.len() && !lines[index].starts_with("```") {
            body.push(lines[index]);
            index += 1;
        }
        index += 1;
        let Some(annotation) = suite else {
            problems.push(format!(
                "{page}:{}: a console example without `<!-- example: SUITE -->` before it",
                start + 1
            ));
            continue;
        };
        // An example another test runs (one that writes the page's own
        // files first): that test must exist and read this page.
        if let Some(test) = annotation.strip_prefix("run by ") {
            let runs_it = std::fs::read_to_string(repo().join(test))
                .is_ok_and(|source| source.contains(page));
            if !runs_it {
                problems.push(format!(
                    "{page}:{}: `{test}` does not exist or does not read {page}",
                    start + 1
                ));
            }
            continue;
        }
        let (suite, at) = match annotation.split_once(" at ") {
            Some((suite, at)) => (suite.trim().to_owned(), Some(at.trim().to_owned())),
            None => (annotation, None),
        };
        found.push(Example {
            page: page.to_owned(),
            line: start + 1,
            suite,
            at,
            commands: commands(&body, start + 1),
        });
    }
    found
}

/// The `$ ` lines of a block (a line ending in `\` goes on) with the lines
/// after each; `first` is the page's line index of the block's first line.
fn commands(body: &[&str], first: usize) -> Vec<Step> {
    let mut commands: Vec<Step> = Vec::new();
    let mut continued = false;
    for (index, line) in body.iter().enumerate() {
        if continued {
            let command = commands.last_mut().unwrap();
            command.text.push('\n');
            command.text.push_str(line);
            command.first = first + index + 1;
            continued = line.ends_with('\\');
        } else if let Some(text) = line.strip_prefix("$ ") {
            commands.push(Step {
                text: text.to_owned(),
                output: Vec::new(),
                first: first + index + 1,
            });
            continued = text.ends_with('\\');
        } else if let Some(command) = commands.last_mut() {
            command.output.push((*line).to_owned());
        }
    }
    for command in &mut commands {
        while command
            .output
            .last()
            .is_some_and(|line| line.trim().is_empty())
        {
            command.output.pop();
        }
    }
    commands
}

/// Whether `actual` is what `expected` shows, with its wildcards.
fn matches(expected: &[String], actual: &[String]) -> bool {
    // can[i][j]: expected[i..] matches actual[j..].
    let (n, m) = (expected.len(), actual.len());
    let mut can = vec![vec![false; m + 1]; n + 1];
    can[n][m] = true;
    for i in (0..n).rev() {
        for j in (0..=m).rev() {
            can[i][j] = if expected[i] == "..." {
                can[i + 1][j] || (j < m && can[i][j + 1])
            } else {
                j < m && line_matches(&expected[i], &actual[j]) && can[i + 1][j + 1]
            };
        }
    }
    can[0][0]
}

/// A line as compared: a duration (` in 0.12s`) stands for any, and a
/// line in pytest's `=` rules loses them (their width follows the text's).
fn normalized(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line.trim_end();
    while let Some(at) = rest.find(" in ") {
        out.push_str(&rest[..at + 4]);
        rest = &rest[at + 4..];
        let digits = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        if digits > 0 && rest[digits..].starts_with('s') && rest[..digits].parse::<f64>().is_ok() {
            out.push_str("[TIME]");
            rest = &rest[digits + 1..];
        }
    }
    out.push_str(rest);
    if out.starts_with('=') && out.ends_with('=') {
        out = out.trim_matches(|c| c == '=' || c == ' ').to_owned();
    }
    out
}

fn line_matches(expected: &str, actual: &str) -> bool {
    let (expected, actual) = (normalized(expected), normalized(actual));
    let mut parts = expected.split("[..]");
    let first = parts.next().unwrap_or_default();
    let Some(mut rest) = actual.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else {
        return rest.is_empty();
    };
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.ends_with(last)
}

/// Runs one example; `Err` says where and what differs. What a differing
/// command printed goes to `blessed` (its page line range and the lines).
fn run(
    example: &Example,
    python: &Path,
    blessed: &mut Vec<(usize, usize, Vec<String>)>,
) -> Result<(), String> {
    let suite = repo().join(&example.suite);
    if !suite.is_dir() {
        return Err(format!(
            "{}:{}: the example's suite `{}` is not a directory",
            example.page, example.line, example.suite
        ));
    }
    let copy = match &example.at {
        None => common::copy_of(&suite),
        Some(at) => {
            let outer = tempfile::tempdir().unwrap();
            let place = outer.path().join(at);
            std::fs::create_dir_all(place.parent().unwrap()).unwrap();
            std::fs::rename(common::copy_of(&suite).keep(), &place).unwrap();
            outer
        }
    };
    let mut cwd = copy.path().to_path_buf();
    let binary = PathBuf::from(env!("CARGO_BIN_EXE_proctor"));
    let path = format!(
        "{}:{}",
        binary.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let venv = python.parent().and_then(Path::parent).unwrap();
    let mut differs = Vec::new();
    for Step {
        text: command,
        output: expected,
        first,
    } in &example.commands
    {
        if let Some(dir) = command.strip_prefix("cd ") {
            cwd = cwd.join(dir.trim());
            continue;
        }
        let output = Command::new("bash")
            .arg("-c")
            .arg(format!("exec 2>&1\n{command}"))
            .current_dir(&cwd)
            .env("PATH", &path)
            .env("VIRTUAL_ENV", venv)
            .env("NO_COLOR", "1")
            .env("COLUMNS", "80")
            .env_remove("FORCE_COLOR")
            .env_remove("PYTEST_ADDOPTS")
            .env_remove("CI")
            .env_remove("OPENAI_API_KEY")
            .env_remove("GITHUB_ACTIONS")
            .output()
            .map_err(|err| format!("bash: {err}"))?;
        let printed = String::from_utf8_lossy(&output.stdout)
            .replace(&copy.path().display().to_string(), "[ROOT]");
        let mut actual: Vec<String> = printed.lines().map(str::to_owned).collect();
        while actual.last().is_some_and(|line| line.trim().is_empty()) {
            actual.pop();
        }
        if !matches(expected, &actual) {
            differs.push(format!(
                "{}:{}: `$ {command}` printed\n{}\n--- where the page shows\n{}",
                example.page,
                example.line,
                actual.join("\n"),
                expected.join("\n")
            ));
            blessed.push((*first, first + expected.len(), actual));
        }
    }
    if differs.is_empty() {
        Ok(())
    } else {
        Err(differs.join("\n\n"))
    }
}

/// Writes the blessed outputs into the page, last first.
fn bless(page: &Path, text: &str, mut blessed: Vec<(usize, usize, Vec<String>)>) {
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    blessed.sort_by_key(|(first, ..)| std::cmp::Reverse(*first));
    for (first, end, actual) in blessed {
        lines.splice(first..end, actual);
    }
    std::fs::write(page, lines.join("\n") + "\n").unwrap();
}

#[test]
fn every_console_example_in_the_docs_prints_what_the_page_shows() {
    let python = common::test_python();
    let mut problems = Vec::new();
    let mut count = 0;
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        let name = page
            .strip_prefix(repo())
            .unwrap_or(&page)
            .display()
            .to_string();
        let mut blessed = Vec::new();
        for example in examples(&name, &text, &mut problems, &mut count) {
            if let Err(problem) = run(&example, &python, &mut blessed) {
                problems.push(problem);
            }
        }
        if !blessed.is_empty() && std::env::var_os("PROCTOR_BLESS_DOCS").is_some() {
            bless(&page, &text, blessed);
        }
    }
    assert!(count > 0, "no console examples found");
    assert!(
        problems.is_empty(),
        "{} of {count} examples differ:\n\n{}",
        problems.len(),
        problems.join("\n\n")
    );
}

#[test]
fn the_matcher_takes_wildcards_and_nothing_else() {
    let lines = |text: &str| -> Vec<String> { text.lines().map(str::to_owned).collect() };
    assert!(matches(&lines("a\n...\nd"), &lines("a\nb\nc\nd")));
    assert!(matches(&lines("a\n...\nb"), &lines("a\nb")));
    assert!(!matches(&lines("a\nb"), &lines("a\nb\nc")));
    assert!(!matches(&lines("a\n...\nd"), &lines("a\nb\nc")));
    assert!(matches(
        &lines("python [..] 3.11"),
        &lines("python /x/y 3.11")
    ));
    assert!(!matches(
        &lines("python [..] 3.11"),
        &lines("python /x/y 3.12")
    ));
    assert!(matches(
        &lines("10 tests collected in 0.00s"),
        &lines("10 tests collected in 0.13s")
    ));
    assert!(!matches(&lines("10 tests"), &lines("11 tests")));
    assert!(matches(
        &lines("======= 1 failed in 4.07s ========"),
        &lines("====== 1 failed in 14.07s ======")
    ));
    assert!(!matches(
        &lines("======= 1 failed in 4.07s ========"),
        &lines("======= 2 failed in 4.07s ========")
    ));
}
