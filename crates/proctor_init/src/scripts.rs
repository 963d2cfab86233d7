//! Shell scripts (`*.sh`) read as proctor jobs: each `pytest` invocation a
//! script makes becomes a job, as in a workflow's `run:` step, with what
//! the script itself says around it — `export NAME=value`, its literal
//! variables (`ARGS=(-v --durations=0)` expanded where `"${ARGS[@]}"` is
//! passed), `uv run --with NAME==VERSION` packages, `#BSUB -gpu`
//! directives of an LSF job script, and its `if` blocks on environment
//! variables: the branches the script takes with nothing set are its
//! jobs, an `if` without `else` that is off by default (`if [[
//! "${WITH_EXAMPLES:-0}" == "1" ]]`) is an opt-in pass and a job of its
//! own with that variable set, and the other side of an `if`/`else` is an
//! alternative to the default, reported, not written. When the script
//! runs is not in it: unless a workflow calls it, its jobs are `manual`
//! and that is said.

use std::collections::BTreeMap;

use crate::draft::JobDraft;
use crate::workflows::{
    env_value, job_from_invocation, logical_lines, pytest_invocation, EnvValue, WorkflowJobs,
};

/// A workflow step that runs a script: the script (relative to the
/// rootdir) and the job it runs in, which its jobs inherit.
#[derive(Debug, Clone)]
pub struct ScriptCall {
    pub script: String,
    /// The workflow job: name, triggers, Python, runner, environment.
    pub template: JobDraft,
    /// The step's environment.
    pub(crate) env: BTreeMap<String, EnvValue>,
}

/// A test on an environment variable, as `[[ "${NAME:-D}" == "V" ]]`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct EnvTest {
    name: String,
    /// The value the script uses when the variable is unset.
    default: String,
    /// `Some(value)` for `==` and `!=`; `None` for `-n` (non-empty).
    value: Option<String>,
    /// `!=` or `-z`.
    negated: bool,
}

impl EnvTest {
    fn holds_for(&self, value: &str) -> bool {
        let holds = match &self.value {
            Some(v) => value == v,
            None => !value.is_empty(),
        };
        holds != self.negated
    }

    /// The assignment that makes the test hold, when there is one.
    fn enabling(&self) -> Option<String> {
        match (&self.value, self.negated) {
            (Some(v), false) => Some(v.clone()),
            (None, false) => Some("1".to_owned()),
            _ => None,
        }
    }
}

/// One branch of an `if` block the current line is in.
#[derive(Debug, Clone)]
struct Branch {
    /// The branch's own test (`None`: `else`, or a test init cannot read).
    test: Option<EnvTest>,
    /// The text of the condition, for messages.
    text: String,
    /// Whether the script takes this branch with nothing set (`None`:
    /// unknown).
    taken: Option<bool>,
    /// The block has an `elif` or `else`.
    has_alternative: bool,
    /// This is the block's first (`if`) branch.
    first: bool,
}

/// Reads the script `file` with text `source`. `call` is the workflow step
/// that runs it, if one does; `flags` are the options the suite's conftests
/// declare.
#[must_use]
pub fn read_script(
    file: &str,
    source: &str,
    call: Option<&ScriptCall>,
    flags: &[String],
) -> WorkflowJobs {
    let mut out = WorkflowJobs::default();
    let lines: Vec<String> = logical_lines(source)
        .into_iter()
        .map(|line| line.trim().to_owned())
        .collect();
    let alternatives = blocks_with_alternatives(&lines);
    let mut assume = Vec::new();
    let mut lsf = false;
    for line in &lines {
        if let Some(directive) = line.strip_prefix("#BSUB") {
            lsf = true;
            assume.extend(lsf_gpu(directive));
        }
    }
    let stem = file
        .rsplit('/')
        .next()
        .unwrap_or(file)
        .trim_end_matches(".sh")
        .replace('_', "-");
    let base = call.map_or(stem, |c| c.template.name.clone());
    let mut vars: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut exported: BTreeMap<String, EnvValue> = call.map(|c| c.env.clone()).unwrap_or_default();
    let mut stack: Vec<Branch> = Vec::new();
    let mut jobs: Vec<(JobDraft, Option<(EnvTest, String)>)> = Vec::new();
    let mut unresolved: Vec<String> = Vec::new();
    for (at, line) in lines.iter().enumerate() {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let first = line.split_whitespace().next().unwrap_or("");
        match first {
            "if" if !line.ends_with("fi") => {
                let (test, shown) = condition(line, "if");
                let taken = test.as_ref().map(|t| t.holds_for(&t.default));
                stack.push(Branch {
                    test,
                    text: shown,
                    taken,
                    has_alternative: alternatives.contains(&at),
                    first: true,
                });
                continue;
            }
            "elif" | "else" => {
                if let Some(top) = stack.last_mut() {
                    // Taken when no earlier branch was and its own test
                    // holds.
                    let earlier = top.taken.map(|t| !t);
                    let (test, shown) = if first == "elif" {
                        condition(line, "elif")
                    } else {
                        (None, format!("not ({})", top.text))
                    };
                    let own = if first == "elif" {
                        test.as_ref().map(|t| t.holds_for(&t.default))
                    } else {
                        Some(true)
                    };
                    top.taken = match (earlier, own) {
                        (Some(false), _) | (_, Some(false)) => Some(false),
                        (Some(true), Some(true)) => Some(true),
                        _ => None,
                    };
                    top.test = test;
                    top.text = shown;
                    top.first = false;
                }
                continue;
            }
            "fi" => {
                stack.pop();
                continue;
            }
            _ => {}
        }
        if stack.is_empty() {
            if let Some((name, value)) = assignment(line) {
                match value {
                    Assigned::List(tokens) => {
                        vars.insert(name, tokens);
                    }
                    Assigned::Export(value) => {
                        if !value.contains('$') {
                            vars.insert(name.clone(), vec![value.clone()]);
                            exported.insert(name, env_value(&value));
                        }
                    }
                    Assigned::Plain(value) => {
                        if !value.contains('$') {
                            vars.insert(name, vec![value]);
                        }
                    }
                }
                continue;
            }
        }
        let Some(mut invocation) = pytest_invocation(line) else {
            continue;
        };
        // Where the invocation stands: every enclosing branch taken by
        // default, an opt-in pass, or an alternative (not a job).
        let mut opt_in: Option<(EnvTest, String)> = None;
        let mut skip: Option<String> = None;
        let mut unknown: Option<String> = None;
        for branch in &stack {
            match branch.taken {
                Some(true) => {}
                Some(false) => match (&branch.test, branch.first, branch.has_alternative) {
                    (Some(test), true, false) if test.enabling().is_some() && opt_in.is_none() => {
                        opt_in = Some((test.clone(), branch.text.clone()));
                    }
                    _ => {
                        skip.get_or_insert_with(|| branch.text.clone());
                    }
                },
                None => {
                    unknown.get_or_insert_with(|| branch.text.clone());
                }
            }
        }
        let mut ignored = Vec::new();
        invocation.args = expand(
            &invocation.args,
            &vars,
            if skip.is_some() {
                &mut ignored
            } else {
                &mut unresolved
            },
        );
        let command = format!(
            "pytest {}",
            shlex::try_join(invocation.args.iter().map(String::as_str)).unwrap_or_default()
        );
        if let Some(shown) = skip {
            out.unknown.push(format!(
                "{file}:{}: `{command}` runs only when `{shown}`, instead of what the script runs by default: not written as a job",
                at + 1
            ));
            continue;
        }
        let template = match call {
            Some(call) => JobDraft {
                from: format!("{file}:{}, called by {}", at + 1, call.template.from),
                ..call.template.clone()
            },
            None => JobDraft {
                from: format!("{file}:{}: `{command}`", at + 1),
                trigger: "manual".to_owned(),
                required: false,
                ..JobDraft::default()
            },
        };
        let mut job = job_from_invocation(template, &invocation, &exported, None, flags);
        for (package, version) in &invocation.with {
            job.assume.push(format!("package.{package}={version}"));
        }
        job.assume.extend(assume.iter().cloned());
        if let Some(shown) = unknown {
            job.notes.push(format!(
                "it runs only when `{shown}`, which init cannot evaluate"
            ));
        }
        if let Some((test, _)) = &opt_in {
            if let Some(value) = test.enabling() {
                job.env.insert(test.name.clone(), value);
            }
            job.required = false;
        }
        jobs.push((job, opt_in));
    }
    let main_count = jobs.iter().filter(|(_, o)| o.is_none()).count();
    let mut index = 0;
    for (mut job, opt_in) in jobs {
        job.name = match &opt_in {
            None if main_count == 1 => base.clone(),
            None => {
                index += 1;
                format!("{base}-{index}")
            }
            Some((test, _)) => format!("{base}-{}", test.name.to_lowercase().replace('_', "-")),
        };
        if let Some((test, text)) = &opt_in {
            job.from = format!(
                "{} (an opt-in pass: `{text}`, so {}={})",
                job.from,
                test.name,
                test.enabling().unwrap_or_default()
            );
        }
        out.jobs.push(job);
    }
    if out.jobs.is_empty() {
        return out;
    }
    if call.is_none() {
        out.unknown.push(format!(
            "{file}: when it runs is not in the script and no workflow calls it: its jobs are written with `trigger = \"manual\"`; set `trigger` (and `python`) to what runs it"
        ));
    }
    if lsf {
        out.unknown.push(format!(
            "{file}: an LSF job script (`#BSUB`): its jobs run on the cluster, not on GitHub; `runs-on` is left to you"
        ));
    }
    if !unresolved.is_empty() {
        unresolved.sort();
        unresolved.dedup();
        out.unknown.push(format!(
            "{file}: the pytest arguments {} are shell values init does not know: left out",
            unresolved
                .iter()
                .map(|t| format!("`{t}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    out
}

/// The indices of the `if` lines whose block has an `elif` or `else`.
fn blocks_with_alternatives(lines: &[String]) -> Vec<usize> {
    let mut out = Vec::new();
    let mut open: Vec<usize> = Vec::new();
    for (at, line) in lines.iter().enumerate() {
        if line.starts_with('#') {
            continue;
        }
        match line.split_whitespace().next().unwrap_or("") {
            "if" if !line.ends_with("fi") => open.push(at),
            "elif" | "else" => {
                if let Some(&start) = open.last() {
                    out.push(start);
                }
            }
            "fi" => {
                open.pop();
            }
            _ => {}
        }
    }
    out
}

/// The test of an `if`/`elif` line, when it is one on an environment
/// variable, and its text.
fn condition(line: &str, keyword: &str) -> (Option<EnvTest>, String) {
    let body = line
        .strip_prefix(keyword)
        .unwrap_or(line)
        .trim()
        .trim_end_matches("then")
        .trim()
        .trim_end_matches(';')
        .trim();
    let shown = body.to_owned();
    let Some(tokens) = shlex::split(body) else {
        return (None, shown);
    };
    let inner: Vec<&str> = match tokens.as_slice() {
        [open, inner @ .., close]
            if (open == "[[" && close == "]]") || (open == "[" && close == "]") =>
        {
            inner.iter().map(String::as_str).collect()
        }
        _ => return (None, shown),
    };
    let test = match inner.as_slice() {
        [var, op, value] if matches!(*op, "==" | "=" | "!=") => {
            variable(var).map(|(name, default)| EnvTest {
                name,
                default,
                value: Some((*value).to_owned()),
                negated: *op == "!=",
            })
        }
        [op, var] if matches!(*op, "-n" | "-z") => variable(var).map(|(name, default)| EnvTest {
            name,
            default,
            value: None,
            negated: *op == "-z",
        }),
        _ => None,
    };
    (test, shown)
}

/// `$NAME`, `${NAME}`, `${NAME:-D}` or `${NAME-D}`: the name and the
/// value used when it is unset.
fn variable(token: &str) -> Option<(String, String)> {
    let inner = token
        .strip_prefix("${")
        .and_then(|t| t.strip_suffix('}'))
        .or_else(|| token.strip_prefix('$'))?;
    let (name, default) = match inner.split_once(":-").or_else(|| inner.split_once('-')) {
        Some((name, default)) => (name, default),
        None => (inner, ""),
    };
    let valid = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    valid.then(|| (name.to_owned(), default.to_owned()))
}

/// What a top-level assignment line assigns.
enum Assigned {
    /// `NAME=(a b c)`.
    List(Vec<String>),
    /// `export NAME=value`.
    Export(String),
    /// `NAME=value`.
    Plain(String),
}

fn assignment(line: &str) -> Option<(String, Assigned)> {
    let (exported, rest) = match line.strip_prefix("export ") {
        Some(rest) => (true, rest.trim()),
        None => (false, line),
    };
    let (name, value) = rest.split_once('=')?;
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return None;
    }
    if let Some(list) = value.strip_prefix('(') {
        let list = list.strip_suffix(')')?;
        return Some((name.to_owned(), Assigned::List(shlex::split(list)?)));
    }
    let tokens = shlex::split(value)?;
    // `NAME=value command` is a command with an environment, not an
    // assignment.
    if tokens.len() > 1 {
        return None;
    }
    let value = tokens.into_iter().next().unwrap_or_default();
    Some((
        name.to_owned(),
        if exported {
            Assigned::Export(value)
        } else {
            Assigned::Plain(value)
        },
    ))
}

/// The arguments with the script's literal variables expanded; what
/// cannot be expanded is left out, and named in `unresolved` unless it is
/// the value of an option that does not change the selection
/// (`--json-report-file=$LOGDIR/x.json`).
fn expand(
    args: &[String],
    vars: &BTreeMap<String, Vec<String>>,
    unresolved: &mut Vec<String>,
) -> Vec<String> {
    const SELECTING: &[&str] = &[
        "-m",
        "-k",
        "--ignore",
        "--ignore-glob",
        "--deselect",
        "-p",
        "-c",
        "--rootdir",
        "--confcutdir",
    ];
    let mut out = Vec::new();
    for arg in args {
        if !arg.contains('$') {
            out.push(arg.clone());
            continue;
        }
        let whole = arg
            .strip_suffix("[@]}")
            .or_else(|| arg.strip_suffix("[*]}"))
            .map_or_else(|| arg.clone(), |head| format!("{head}}}"));
        if let Some(tokens) = variable(&whole)
            .filter(|(_, default)| default.is_empty())
            .and_then(|(name, _)| vars.get(&name))
        {
            out.extend(tokens.iter().cloned());
            continue;
        }
        let option = arg.split('=').next().unwrap_or(arg);
        let quiet = arg.starts_with("--") && arg.contains('=') && !SELECTING.contains(&option);
        if !quiet {
            unresolved.push(arg.clone());
        }
        // The value of an option is left out with it.
        if out
            .last()
            .is_some_and(|prev: &String| SELECTING.contains(&prev.as_str()))
        {
            out.pop();
        }
    }
    out
}

/// The capabilities an LSF `-gpu "num=N:gmem=MG"` directive reserves:
/// `gpu.count` and `gpu.vram_gb` (LSF's `gmem`, per GPU).
fn lsf_gpu(directive: &str) -> Vec<String> {
    let Some(tokens) = shlex::split(directive) else {
        return Vec::new();
    };
    let Some(at) = tokens.iter().position(|t| t == "-gpu") else {
        return Vec::new();
    };
    let Some(spec) = tokens.get(at + 1) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for part in spec.split(['/', ':']) {
        if let Some(count) = part.strip_prefix("num=") {
            if count.chars().all(|c| c.is_ascii_digit()) {
                out.push(format!("gpu.count={count}"));
            }
        } else if let Some(memory) = part.strip_prefix("gmem=") {
            let digits: String = memory.chars().take_while(char::is_ascii_digit).collect();
            let unit = memory[digits.len()..].to_ascii_uppercase();
            let gb = match unit.as_str() {
                "G" | "GB" => digits.parse::<u64>().ok(),
                // LSF's default unit is MB.
                "" | "M" | "MB" => digits.parse::<u64>().ok().map(|mb| mb / 1024),
                _ => None,
            };
            if let Some(gb) = gb.filter(|gb| *gb > 0) {
                out.push(format!("gpu.vram_gb={gb}"));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCRIPT: &str = r#"#!/bin/bash
#BSUB -q gpu
#BSUB -gpu "num=1:mode=shared:gmem=80G"
set -euo pipefail
ARGS=(--durations=0 -v)
export MODE=nightly
if [[ -z "${WITH_VLLM:-}" ]]; then
    WITH_VLLM=0
fi
if [[ "${SERIAL:-1}" == "1" ]]; then
    uv run pytest test/ -m "a and not slow" "${ARGS[@]}" \
        --report="$LOGDIR/a.json" 2>&1 | tee a.log
    uv run pytest test/ -m "not a and not slow" "$@"
else
    uv run pytest test/ --group "${ARGS[@]}"
fi
if [[ "${WITH_EXAMPLES:-0}" == "1" ]]; then
    uv run --with docling==2.0 pytest --nbmake docs/nb -m e2e
fi
"#;

    #[test]
    fn default_branches_are_jobs_an_opt_in_pass_is_one_and_the_alternative_is_said() {
        let got = read_script("test/scripts/run_all.sh", SCRIPT, None, &[]);
        let names: Vec<&str> = got.jobs.iter().map(|j| j.name.as_str()).collect();
        assert_eq!(names, ["run-all-1", "run-all-2", "run-all-with-examples"]);
        let first = &got.jobs[0];
        assert_eq!(first.markers.as_deref(), Some("a and not slow"));
        assert_eq!(first.paths, ["test"]);
        assert_eq!(first.trigger, "manual");
        assert_eq!(first.env.get("MODE").map(String::as_str), Some("nightly"));
        assert_eq!(first.assume, ["gpu.count=1", "gpu.vram_gb=80"]);
        let pass = &got.jobs[2];
        assert_eq!(pass.markers.as_deref(), Some("e2e"));
        assert_eq!(pass.paths, ["docs/nb"]);
        assert_eq!(pass.env.get("WITH_EXAMPLES").map(String::as_str), Some("1"));
        assert_eq!(
            pass.assume,
            ["package.docling=2.0", "gpu.count=1", "gpu.vram_gb=80"]
        );
        let unknown = got.unknown.join("\n");
        assert!(
            unknown.contains("runs only when `not ([[ \"${SERIAL:-1}\" == \"1\" ]])`"),
            "{unknown}"
        );
        assert!(unknown.contains("`trigger = \"manual\"`"), "{unknown}");
        assert!(unknown.contains("`$@`"), "{unknown}");
        assert!(
            !unknown.contains("LOGDIR"),
            "an output option is left out quietly: {unknown}"
        );
    }

    #[test]
    fn a_called_script_takes_the_workflow_jobs_triggers() {
        let call = ScriptCall {
            script: "run.sh".into(),
            template: JobDraft {
                name: "nightly".into(),
                trigger: "nightly".into(),
                from: "w.yml: job `nightly`".into(),
                ..JobDraft::default()
            },
            env: BTreeMap::new(),
        };
        let got = read_script("run.sh", "pytest tests -m slow\n", Some(&call), &[]);
        assert_eq!(got.jobs[0].name, "nightly");
        assert_eq!(got.jobs[0].trigger, "nightly");
        assert!(got.unknown.is_empty(), "{:?}", got.unknown);
    }
}
