//! GitHub Actions workflows (`.github/workflows/*.yml`) read as proctor
//! jobs: each `pytest` invocation in a job's `run:` steps becomes one job
//! with its `-m`, `-k`, paths and flags, the job's environment (secrets as
//! variables that are set, never their values), Python matrix, service
//! containers, runner and the workflow's triggers.

use std::collections::BTreeMap;

use yaml_rust2::{Yaml, YamlLoader};

use crate::draft::{JobDraft, ServiceDraft};
use crate::scripts::ScriptCall;

/// What one workflow file gave: jobs, services, the scripts its steps
/// run, and what was not read.
#[derive(Debug, Default)]
pub struct WorkflowJobs {
    pub jobs: Vec<JobDraft>,
    pub services: Vec<ServiceDraft>,
    /// The shell scripts its jobs' steps run (`./test/scripts/nightly.sh`).
    pub scripts: Vec<ScriptCall>,
    /// Things the file says that did not become config, each a sentence.
    pub unknown: Vec<String>,
}

/// Reads the workflow `file` (its name in messages) with text `text`.
/// `flags` are the options the suite's conftests declare: those a
/// `pytest` invocation passes become the job's `flags` (gates read them).
#[must_use]
pub fn read_workflow(file: &str, text: &str, flags: &[String]) -> WorkflowJobs {
    let mut out = WorkflowJobs::default();
    // GitHub (and PyYAML) accept a flow collection closed at its key's
    // indentation (`name: [` ... `]`), which YAML 1.2 parsers refuse: the
    // closing lines are indented once more and the file read again.
    let docs = match YamlLoader::load_from_str(text)
        .or_else(|err| YamlLoader::load_from_str(&indent_closers(text)).map_err(|_| err))
    {
        Ok(docs) => docs,
        Err(err) => {
            out.unknown
                .push(format!("{file}: not read, it is not valid YAML: {err}"));
            return out;
        }
    };
    let Some(doc) = docs.first() else {
        return out;
    };
    let (trigger, triggers) = triggers(&doc["on"]);
    // Every proctor trigger runs by hand too: `manual` adds nothing then.
    let pr_events = ["pull_request", "pull_request_target", "push", "merge_group"];
    let also_on: Vec<String> = [
        (
            "pr",
            triggers.iter().any(|e| pr_events.contains(&e.as_str())),
        ),
        ("nightly", triggers.iter().any(|e| e == "schedule")),
    ]
    .into_iter()
    .filter(|(name, present)| *present && *name != trigger)
    .map(|(name, _)| name.to_owned())
    .collect();
    let workflow_env = env_of(&doc["env"]);
    // `on.pull_request.paths` and `on.push.paths` become the jobs'
    // `on-paths` (one list for both events, as proctor has).
    let mut on_paths: Vec<String> = Vec::new();
    for event in ["pull_request", "push"] {
        if let Some(paths) = doc["on"][event]["paths"].as_vec() {
            for path in paths.iter().filter_map(scalar) {
                if !on_paths.contains(&path) {
                    on_paths.push(path);
                }
            }
        }
    }
    for event in ["pull_request", "push"] {
        let ignored = &doc["on"][event]["paths-ignore"];
        if let Some(paths) = ignored.as_vec() {
            let paths: Vec<String> = paths.iter().filter_map(scalar).collect();
            out.unknown.push(format!(
                "{file}: does not run on `{event}` when only {} change; `on-paths` has no `paths-ignore`",
                paths.join(", ")
            ));
        }
    }
    let Some(jobs) = doc["jobs"].as_hash() else {
        out.unknown.push(format!("{file}: no `jobs:`"));
        return out;
    };
    for (id, job) in jobs {
        let Some(id) = id.as_str() else { continue };
        let mut env = workflow_env.clone();
        env.extend(env_of(&job["env"]));
        let python = python_versions(job);
        // proctor's `runs-on` is one label: of a list, the most specific
        // (the last), and the rest said.
        let labels: Vec<String> = job["runs-on"]
            .as_vec()
            .map(|labels| labels.iter().filter_map(scalar).collect())
            .unwrap_or_default();
        let runs_on = scalar(&job["runs-on"]).or_else(|| labels.last().cloned());
        if labels.len() > 1 {
            out.unknown.push(format!(
                "{file}: job `{id}` runs on the labels {}; its config names only `{}`",
                labels.join(", "),
                labels.last().map_or("", String::as_str)
            ));
        }
        let mut services = Vec::new();
        if let Some(containers) = job["services"].as_hash() {
            for (name, container) in containers {
                let Some(name) = name.as_str() else { continue };
                services.push(name.to_owned());
                out.services.push(ServiceDraft {
                    name: name.to_owned(),
                    default_address: first_port(container).map(|port| format!("127.0.0.1:{port}")),
                    address_env: None,
                    image: scalar(&container["image"]).filter(|i| !i.contains("${{")),
                    env: env_of(&container["env"])
                        .into_iter()
                        .filter_map(|(k, v)| match v {
                            EnvValue::Literal(v) => Some((k, v)),
                            _ => None,
                        })
                        .collect(),
                    from: format!("{file}: job `{id}`'s service container"),
                });
            }
        }
        let environment =
            scalar(&job["environment"]).or_else(|| scalar(&job["environment"]["name"]));
        let advisory = matches!(job["continue-on-error"], Yaml::Boolean(true));
        let mut invocations = Vec::new();
        let mut calls = Vec::new();
        if let Some(steps) = job["steps"].as_vec() {
            for step in steps {
                let Some(run) = step["run"].as_str() else {
                    continue;
                };
                let mut step_env = env.clone();
                step_env.extend(env_of(&step["env"]));
                let dir = scalar(&step["working-directory"]);
                for line in logical_lines(run) {
                    if let Some(found) = pytest_invocation(&line) {
                        invocations.push((found, step_env.clone(), dir.clone(), line));
                    } else if let Some((script, prefix)) = script_run(&line, dir.as_deref()) {
                        let mut env = step_env.clone();
                        env.extend(prefix);
                        calls.push((script, env, line));
                    }
                }
            }
        }
        let template = |name: String, line: &str| JobDraft {
            name,
            from: format!("{file}: job `{id}`: `{}`", line.trim()),
            trigger: trigger.to_owned(),
            triggers: triggers.clone(),
            also_on: also_on.clone(),
            python: python.clone(),
            services: services.clone(),
            runs_on: runs_on.clone().filter(|r| r != "ubuntu-latest"),
            required: !advisory && environment.is_none() && trigger == "pr",
            environment: environment.clone(),
            on_paths: on_paths.clone(),
            ..JobDraft::default()
        };
        let call_count = calls.len();
        for (index, (script, step_env, line)) in calls.into_iter().enumerate() {
            let name = if call_count == 1 {
                id.to_owned()
            } else {
                format!("{id}-{}", index + 1)
            };
            out.scripts.push(ScriptCall {
                script,
                template: template(name, &line),
                env: step_env,
            });
        }
        if invocations.is_empty() {
            continue;
        }
        let count = invocations.len();
        for (index, (invocation, step_env, dir, line)) in invocations.into_iter().enumerate() {
            let name = if count == 1 {
                id.to_owned()
            } else {
                format!("{id}-{}", index + 1)
            };
            let job = job_from_invocation(
                template(name, &line),
                &invocation,
                &step_env,
                dir.as_deref(),
                flags,
            );
            out.jobs.push(job);
        }
    }
    if out.jobs.is_empty() && out.scripts.is_empty() {
        let runner = ["tox", "nox", "make", "hatch"]
            .into_iter()
            .find(|tool| runs_tool(&doc["jobs"], tool));
        out.unknown.push(match runner {
            Some(tool) => format!(
                "{file}: pytest runs through `{tool}`, whose commands init does not read; declare its jobs by hand"
            ),
            None => format!(
                "{file}: no job runs pytest in a `run:` step (a script or an action that runs it cannot be read)"
            ),
        });
    }
    out
}

/// The job `template` (name, triggers, runner) running `invocation` with
/// the environment `env` in the directory `dir`: its `-m`, `-k`, paths,
/// environment and the declared `flags` it passes.
pub(crate) fn job_from_invocation(
    mut job: JobDraft,
    invocation: &Invocation,
    env: &BTreeMap<String, EnvValue>,
    dir: Option<&str>,
    flags: &[String],
) -> JobDraft {
    for (key, value) in env.iter().chain(&invocation.env) {
        match value {
            EnvValue::Literal(v) => {
                job.env.insert(key.clone(), v.clone());
            }
            EnvValue::Secret => job.assume.push(format!("env.{key}=set")),
            EnvValue::Expression(e) => job.notes.push(format!(
                "`{key}` is set to `{e}`, which proctor cannot evaluate"
            )),
        }
    }
    job.assume.dedup();
    match proctor_config::parse_pytest_args(&invocation.args) {
        Ok(parsed) => {
            job.markers = parsed.markexpr;
            job.keywords = parsed.keyword;
            job.paths = parsed
                .paths
                .iter()
                .map(|p| match dir {
                    Some(dir) if dir != "." => {
                        format!("{}/{}", dir.trim_end_matches('/'), p)
                    }
                    _ => p.clone(),
                })
                .map(|p| p.trim_end_matches('/').to_owned())
                .collect();
            for token in &parsed.other {
                let name = token.split('=').next().unwrap_or(token);
                // Declared options (gates read them) and pytest-cov's,
                // which `proctor ci github` turns into a coverage-combine
                // job.
                if flags.iter().any(|f| f == name) || name == "--cov" {
                    job.flags.push(token.clone());
                }
            }
        }
        Err(err) => job.notes.push(format!(
            "its pytest arguments could not be read ({err}): set `markers`, `keywords` and `paths` by hand"
        )),
    }
    job
}

/// The shell script a line of a `run:` step runs (`./scripts/t.sh`,
/// `bash scripts/t.sh`), relative to the rootdir, with the `NAME=value`
/// assignments before it.
fn script_run(line: &str, dir: Option<&str>) -> Option<(String, BTreeMap<String, EnvValue>)> {
    for command in line.split("&&").flat_map(|c| c.split(';')) {
        let tokens = shlex::split(command)?;
        let mut env = BTreeMap::new();
        for token in tokens
            .iter()
            .take_while(|t| t.contains('=') && !t.starts_with('-'))
        {
            if let Some((key, value)) = token.split_once('=') {
                env.insert(key.to_owned(), env_value(value));
            }
        }
        let mut rest = tokens
            .iter()
            .skip_while(|t| t.contains('=') && !t.starts_with('-'));
        let mut first = rest.next()?;
        if matches!(first.as_str(), "bash" | "sh" | "source" | ".") {
            first = rest.next()?;
        }
        let is_script = std::path::Path::new(first)
            .extension()
            .is_some_and(|ext| ext.eq_ignore_ascii_case("sh"));
        if is_script && !first.contains('$') {
            let path = first.trim_start_matches("./");
            let path = match dir {
                Some(dir) if dir != "." && !path.starts_with('/') => {
                    format!("{}/{path}", dir.trim_end_matches('/'))
                }
                _ => path.to_owned(),
            };
            return Some((path, env));
        }
    }
    None
}

/// Whether a `run:` step of `jobs` starts `tool` (`tox run`, `python -m tox`).
fn runs_tool(jobs: &Yaml, tool: &str) -> bool {
    jobs.as_hash().is_some_and(|jobs| {
        jobs.values().any(|job| {
            job["steps"].as_vec().is_some_and(|steps| {
                steps.iter().any(|step| {
                    step["run"].as_str().is_some_and(|run| {
                        run.split(|c: char| c.is_whitespace() || c == ';' || c == '&')
                            .any(|word| word == tool)
                    })
                })
            })
        })
    })
}

/// `text` with each line that starts with `]` or `}` indented by two
/// more spaces.
fn indent_closers(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 64);
    for line in text.split_inclusive('\n') {
        if line.trim_start().starts_with([']', '}']) {
            out.push_str("  ");
        }
        out.push_str(line);
    }
    out
}

/// The proctor trigger of a workflow's `on:` (`pr` before `nightly`
/// before `manual`), and every event it names.
fn triggers(on: &Yaml) -> (&'static str, Vec<String>) {
    let events: Vec<String> = match on {
        Yaml::String(s) => vec![s.clone()],
        Yaml::Array(list) => list.iter().filter_map(scalar).collect(),
        Yaml::Hash(hash) => hash.keys().filter_map(scalar).collect(),
        _ => Vec::new(),
    };
    let has = |names: &[&str]| events.iter().any(|e| names.contains(&e.as_str()));
    let trigger = if has(&["pull_request", "pull_request_target", "push", "merge_group"]) {
        "pr"
    } else if has(&["schedule"]) {
        "nightly"
    } else {
        "manual"
    };
    (trigger, events)
}

/// A value in a workflow's `env:`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum EnvValue {
    Literal(String),
    /// `${{ secrets.NAME }}`: set, value unknown (and never printed).
    Secret,
    /// Another `${{ ... }}` expression.
    Expression(String),
}

pub(crate) fn env_value(text: &str) -> EnvValue {
    let trimmed = text.trim();
    if let Some(inner) = trimmed
        .strip_prefix("${{")
        .and_then(|rest| rest.strip_suffix("}}"))
    {
        let inner = inner.trim();
        if inner.starts_with("secrets.") || inner.starts_with("vars.") {
            return EnvValue::Secret;
        }
        return EnvValue::Expression(trimmed.to_owned());
    }
    EnvValue::Literal(text.to_owned())
}

fn env_of(env: &Yaml) -> BTreeMap<String, EnvValue> {
    let mut out = BTreeMap::new();
    if let Some(hash) = env.as_hash() {
        for (key, value) in hash {
            if let (Some(key), Some(value)) = (key.as_str(), scalar(value)) {
                out.insert(key.to_owned(), env_value(&value));
            }
        }
    }
    out
}

/// A scalar as text, as written (`3.10` stays `3.10`).
fn scalar(value: &Yaml) -> Option<String> {
    match value {
        Yaml::String(s) | Yaml::Real(s) => Some(s.clone()),
        Yaml::Integer(i) => Some(i.to_string()),
        Yaml::Boolean(b) => Some(b.to_string()),
        _ => None,
    }
}

/// The job's Python versions: its matrix's `python-version` (or
/// `python`), else the `python-version` of a `setup-python` step.
fn python_versions(job: &Yaml) -> Vec<String> {
    let matrix = &job["strategy"]["matrix"];
    for key in ["python-version", "python", "python_version", "py"] {
        if let Some(list) = matrix[key].as_vec() {
            return list.iter().filter_map(scalar).collect();
        }
    }
    if let Some(steps) = job["steps"].as_vec() {
        for step in steps {
            let uses = step["uses"].as_str().unwrap_or_default();
            let with = &step["with"]["python-version"];
            if uses.contains("setup-python") || uses.contains("setup-uv") {
                if let Some(version) = scalar(with).filter(|v| !v.contains("${{")) {
                    return vec![version];
                }
            }
        }
    }
    Vec::new()
}

/// The host port of a service container's first `ports:` entry.
fn first_port(container: &Yaml) -> Option<String> {
    let ports = container["ports"].as_vec()?;
    let first = scalar(ports.first()?)?;
    let host = first.split(':').next()?;
    host.chars()
        .all(|c| c.is_ascii_digit())
        .then(|| host.to_owned())
}

/// The lines of a `run:` script, with `\` continuations joined.
pub(crate) fn logical_lines(run: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    for line in run.lines() {
        let trimmed = line.trim_end();
        if let Some(head) = trimmed.strip_suffix('\\') {
            current.push_str(head);
            current.push(' ');
        } else {
            current.push_str(trimmed);
            out.push(std::mem::take(&mut current));
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// One `pytest` command found in a line of shell.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Invocation {
    /// The arguments after `pytest`.
    pub(crate) args: Vec<String>,
    /// `NAME=value` assignments before the command.
    pub(crate) env: BTreeMap<String, EnvValue>,
    /// Packages its launcher adds, pinned (`uv run --with NAME==VERSION`).
    pub(crate) with: Vec<(String, String)>,
}

/// The `pytest` command of `line`: `pytest ...`, `python -m pytest ...`,
/// `uv run pytest ...`, `uv run -m pytest ...`, `coverage run -m pytest
/// ...`, after `&&` or `;`, with `VAR=value` prefixes.
pub(crate) fn pytest_invocation(line: &str) -> Option<Invocation> {
    for command in line.split("&&").flat_map(|c| c.split(';')) {
        let Some(tokens) = shlex::split(command) else {
            continue;
        };
        let mut env = BTreeMap::new();
        let mut at = 0;
        while let Some((key, value)) = tokens.get(at).and_then(|t| t.split_once('=')) {
            if key.is_empty() || !key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                break;
            }
            env.insert(key.to_owned(), env_value(value));
            at += 1;
        }
        let rest = &tokens[at..];
        let Some(start) = rest.iter().position(|t| {
            let base = t.rsplit('/').next().unwrap_or(t);
            base == "pytest" || base == "py.test"
        }) else {
            continue;
        };
        // `-m pytest` counts; a bare word `pytest` after another program
        // counts only for the launchers that run it.
        let before: Vec<&str> = rest[..start].iter().map(String::as_str).collect();
        let launched = before.is_empty()
            || before.last() == Some(&"-m")
            || before.iter().any(|t| {
                matches!(
                    *t,
                    "run" | "exec" | "uvx" | "pipx" | "hatch" | "tox" | "nox"
                )
            });
        if !launched {
            continue;
        }
        let mut args: Vec<String> = rest[start + 1..].to_vec();
        // A pipe or redirect ends the command.
        if let Some(end) = args
            .iter()
            .position(|t| t == "|" || t == ">" || t == "2>&1" || t == "||")
        {
            args.truncate(end);
        }
        let mut with = Vec::new();
        for (at, token) in before.iter().enumerate() {
            let spec = match token.strip_prefix("--with=") {
                Some(spec) => Some(spec),
                None if *token == "--with" => before.get(at + 1).copied(),
                None => None,
            };
            if let Some((name, version)) = spec.and_then(|s| s.split_once("==")) {
                with.push((name.trim().to_owned(), version.trim().to_owned()));
            }
        }
        return Some(Invocation { args, env, with });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pytest_is_found_behind_every_launcher() {
        for line in [
            "pytest -m 'not slow' tests",
            "python -m pytest -m 'not slow' tests",
            "uv run pytest -m 'not slow' tests",
            "uv run -m pytest -m 'not slow' tests",
            "cd x && coverage run -m pytest -m 'not slow' tests | tee log",
        ] {
            let found = pytest_invocation(line).unwrap_or_else(|| panic!("{line}"));
            assert_eq!(found.args, ["-m", "not slow", "tests"], "{line}");
        }
        assert_eq!(pytest_invocation("pip install pytest"), None);
        assert_eq!(pytest_invocation("echo pytest"), None);
        let found = pytest_invocation("RUN_SLOW=1 pytest -k Integration").unwrap();
        assert_eq!(
            found.env.get("RUN_SLOW"),
            Some(&EnvValue::Literal("1".into()))
        );
    }

    #[test]
    fn a_workflow_becomes_jobs_with_matrix_env_secrets_services_and_triggers() {
        let text = r#"
name: test
on:
  schedule:
    - cron: "0 3 * * *"
  workflow_dispatch:
env:
  CICD: 1
jobs:
  realdb:
    runs-on: ubuntu-latest
    environment: maintainers
    strategy:
      matrix:
        python-version: ["3.10", "3.12"]
    services:
      postgres:
        image: postgres:16
        ports: ["5433:5432"]
    env:
      OPENAI_API_KEY: ${{ secrets.OPENAI_API_KEY }}
    steps:
      - uses: actions/checkout@v4
      - run: |
          pip install -e .
          pytest -m realdb --live \
            tests/realdb -v
"#;
        let got = read_workflow(".github/workflows/realdb.yml", text, &["--live".into()]);
        assert!(got.unknown.is_empty(), "{:?}", got.unknown);
        let job = &got.jobs[0];
        assert_eq!(job.name, "realdb");
        assert_eq!(job.trigger, "nightly");
        assert_eq!(job.triggers, ["schedule", "workflow_dispatch"]);
        assert_eq!(job.python, ["3.10", "3.12"]);
        assert_eq!(job.markers.as_deref(), Some("realdb"));
        assert_eq!(job.paths, ["tests/realdb"]);
        assert_eq!(job.flags, ["--live"]);
        assert_eq!(job.env.get("CICD").map(String::as_str), Some("1"));
        assert_eq!(job.assume, ["env.OPENAI_API_KEY=set"]);
        assert_eq!(job.services, ["postgres"]);
        assert_eq!(job.environment.as_deref(), Some("maintainers"));
        assert!(!job.required);
        assert_eq!(
            got.services[0].default_address.as_deref(),
            Some("127.0.0.1:5433")
        );
        assert_eq!(got.services[0].image.as_deref(), Some("postgres:16"));
    }

    #[test]
    fn a_flow_list_closed_at_its_keys_indentation_is_read_as_github_reads_it() {
        let text = "on: push\njobs:\n  t:\n    strategy:\n      matrix:\n        python-version: [\n          \"3.11\",\n        ]\n    steps:\n      - run: pytest tests\n";
        let got = read_workflow("w.yml", text, &[]);
        assert!(got.unknown.is_empty(), "{:?}", got.unknown);
        assert_eq!(got.jobs[0].python, ["3.11"]);
    }

    #[test]
    fn a_step_that_runs_a_script_is_a_call_with_the_jobs_triggers_and_paths_filter() {
        let text = "on:\n  pull_request:\n    paths: [\"src/db/**\"]\n  schedule:\n    - cron: '0 2 * * *'\njobs:\n  nightly:\n    runs-on: gpu\n    steps:\n      - run: CICD=1 bash ./test/scripts/nightly.sh --fast\n        working-directory: pkg\n";
        let got = read_workflow("w.yml", text, &[]);
        assert!(got.jobs.is_empty());
        assert!(got.unknown.is_empty(), "{:?}", got.unknown);
        let call = &got.scripts[0];
        assert_eq!(call.script, "pkg/test/scripts/nightly.sh");
        assert_eq!(call.template.name, "nightly");
        assert_eq!(call.template.trigger, "pr");
        assert_eq!(call.template.also_on, ["nightly"]);
        assert_eq!(call.template.on_paths, ["src/db/**"]);
        assert_eq!(call.template.runs_on.as_deref(), Some("gpu"));
        assert_eq!(call.env.get("CICD"), Some(&EnvValue::Literal("1".into())));
    }

    #[test]
    fn broken_yaml_and_jobs_without_pytest_are_reported() {
        let got = read_workflow("a.yml", "jobs: [", &[]);
        assert!(got.jobs.is_empty());
        assert!(
            got.unknown[0].contains("not valid YAML"),
            "{:?}",
            got.unknown
        );
        let got = read_workflow(
            "b.yml",
            "on: push\njobs:\n  lint:\n    steps:\n      - run: ruff check\n",
            &[],
        );
        assert!(
            got.unknown[0].contains("no job runs pytest"),
            "{:?}",
            got.unknown
        );
    }
}
