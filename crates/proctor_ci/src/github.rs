//! The GitHub Actions workflow that `proctor ci github` prints: one GitHub
//! job per proctor job, from the jobs declared in `[jobs.<name>]`.
//!
//! The YAML is written by hand, line by line, so the output is stable and
//! needs no dependency: every string scalar goes through [`quote`], which
//! writes a double-quoted scalar with escapes, and every comment through
//! [`comment`], which keeps it on its line. Nothing here reads files or
//! prints; the binary's `commands/ci.rs` does.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use proctor_config::{JobOptions, PlanOptions, ServiceOptions, TaxonomyOptions, Trigger};

use crate::CiRunner;

/// The Python version of a job that names none.
pub(crate) const DEFAULT_PYTHON: &str = "3.12";

/// The runner label of a job that names none.
pub(crate) const DEFAULT_RUNS_ON: &str = "ubuntu-latest";

/// The name of proctor's distribution on the Python Package Index (the
/// root `pyproject.toml`'s `[project] name`): `proctor` is taken there by
/// an unrelated project.
pub(crate) const DISTRIBUTION: &str = "proctor-cli";

/// The `id` of each job's `actions/setup-python` step, whose `python-path`
/// output is the interpreter a proctor step passes as `--python` when the
/// configuration names a local one.
const SETUP_PYTHON_ID: &str = "python";

/// The command that installs this proctor on a runner: the distribution
/// pinned to the running binary's version, so the workflow runs the
/// proctor that wrote it.
#[must_use]
pub fn proctor_install() -> String {
    format!("pip install {DISTRIBUTION}=={}", env!("CARGO_PKG_VERSION"))
}

/// What the workflow looks like beyond the jobs themselves.
#[derive(Debug, Clone)]
pub struct WorkflowOptions {
    /// The workflow's `name`.
    pub name: String,
    /// The branch whose pushes run the `pr` jobs.
    pub branch: String,
    /// The schedule of the `nightly` jobs, in cron syntax.
    pub cron: String,
    /// The shell command that installs the project and pytest.
    pub install: String,
    /// The shell command that installs proctor itself, run before
    /// `install` in every job whose runner is proctor.
    pub proctor_install: String,
    /// Whether proctor's configuration names an interpreter (`python`): a
    /// path on the machine that generated the workflow, or a name that need
    /// not match the job's matrix. Proctor steps then pass the job's
    /// setup-python interpreter as `--python`.
    pub configured_python: bool,
    /// What runs the tests: `proctor run` or plain pytest.
    pub runner: CiRunner,
    /// The configuration file the jobs come from, for the header comment.
    pub source: String,
    /// The suite's default `-m` (`[select] default`, else pytest's
    /// `addopts -m`), which jobs with `use-default` add by `and` when the
    /// runner is plain pytest.
    pub default_markers: Option<String>,
    /// Whether pytest's `addopts` carries a `-m`: a plain pytest command
    /// must then always pass its own `-m`, as the last one wins.
    pub addopts_markers: bool,
    /// The markers proctor gives items that bare pytest does not see (axis
    /// defaults, path rules, aliases, implications, decorators): a plain
    /// pytest `-m` naming one would select other tests than proctor, so
    /// such a job selects with `proctor select --args-file`.
    pub derived_markers: BTreeSet<String>,
    /// Whether `[[coverage.areas]]` are configured: the coverage-combine
    /// job then checks them with `proctor coverage`.
    pub coverage_areas: bool,
}

/// Whether a job collects coverage: it passes pytest-cov's `--cov`.
pub(crate) fn collects_coverage(job: &JobOptions) -> bool {
    job.flags
        .iter()
        .any(|flag| flag == "--cov" || flag.starts_with("--cov="))
}

/// The file a plain-pytest job's `proctor select` writes its node ids to.
const SELECTION_FILE: &str = "proctor-selection.txt";

/// The markers proctor adds or resolves that are not written where pytest
/// reads them: axis defaults, path-rule markers, aliases (both names),
/// implied markers and the markers decorators stand for.
#[must_use]
pub fn derived_markers(taxonomy: &TaxonomyOptions) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (_, axis) in &taxonomy.axes {
        out.extend(axis.default.iter().cloned());
    }
    for rule in &taxonomy.paths {
        out.extend(rule.markers.iter().map(|m| m.name().to_owned()));
    }
    for (name, marker) in &taxonomy.markers {
        if let Some(target) = &marker.alias_of {
            out.insert(name.clone());
            out.insert(target.clone());
        }
        out.extend(marker.implies.iter().cloned());
    }
    out.extend(taxonomy.decorators.iter().map(|(_, marker)| marker.clone()));
    out
}

/// The workflow for `jobs`, with services looked up in `plan`.
#[must_use]
pub fn workflow(
    jobs: &[(String, JobOptions)],
    plan: &PlanOptions,
    options: &WorkflowOptions,
) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# Generated by proctor ci github from {}; do not edit by hand.",
        comment(&options.source)
    );
    let _ = writeln!(out, "name: {}", quote(&options.name));
    write_on(&mut out, jobs, options);
    out.push_str("jobs:\n");
    let mut taken = BTreeSet::new();
    let ids: Vec<String> = jobs
        .iter()
        .map(|(name, _)| unique_id(name, &mut taken))
        .collect();
    let changes = write_changes_job(&mut out, jobs, &ids, &mut taken);
    let mut covered = Vec::new();
    for (index, ((name, job), id)) in jobs.iter().zip(ids).enumerate() {
        if index > 0 || changes.is_some() {
            out.push('\n');
        }
        write_job(&mut out, &id, name, job, plan, options, changes.as_deref());
        if collects_coverage(job) {
            covered.push(id);
        }
    }
    if !covered.is_empty() {
        let id = unique_id("coverage", &mut taken);
        write_coverage_job(&mut out, &id, &covered, options);
    }
    out
}

/// The job that combines the coverage data of the jobs that collect it
/// (uploaded by each as an artifact) into one report, and checks the
/// configured areas with `proctor coverage`.
fn write_coverage_job(out: &mut String, id: &str, covered: &[String], options: &WorkflowOptions) {
    out.push('\n');
    let _ = writeln!(out, "  {id}:");
    out.push_str("    # Combines the coverage data of the jobs that collect it.\n");
    let needs: Vec<String> = covered.iter().map(|c| quote(c)).collect();
    let _ = writeln!(out, "    needs: [{}]", needs.join(", "));
    // Whenever one of them ran, passed or failed.
    let _ = writeln!(
        out,
        "    if: {}",
        quote("always() && (contains(needs.*.result, 'success') || contains(needs.*.result, 'failure'))")
    );
    let _ = writeln!(out, "    runs-on: {}", quote(DEFAULT_RUNS_ON));
    out.push_str("    steps:\n");
    out.push_str("      - uses: \"actions/checkout@v4\"\n");
    out.push_str("      - uses: \"actions/setup-python@v5\"\n");
    out.push_str("        with:\n");
    let _ = writeln!(out, "          python-version: {}", quote(DEFAULT_PYTHON));
    out.push_str("      - uses: \"actions/download-artifact@v4\"\n");
    out.push_str("        with:\n");
    out.push_str("          pattern: \"coverage-*\"\n");
    out.push_str("          merge-multiple: true\n");
    out.push_str("      - name: \"Install coverage\"\n");
    let mut install = String::from("pip install coverage");
    if options.coverage_areas {
        let _ = write!(install, " && {}", options.proctor_install);
    }
    let _ = writeln!(out, "        run: {}", quote(&install));
    out.push_str("      - name: \"Combine\"\n");
    let mut combine = String::from("coverage combine && coverage report && coverage json");
    if options.coverage_areas {
        combine.push_str(" && proctor coverage coverage.json");
    }
    let _ = writeln!(out, "        run: {}", quote(&combine));
}

/// Whether `job` has an `on-paths` filter that applies: it runs on pull
/// requests and pushes.
fn filtered(job: &JobOptions) -> bool {
    !job.on_paths.is_empty() && (job.trigger == Trigger::Pr || job.also_on.contains(&Trigger::Pr))
}

/// The job that tells, on a pull request or a push, whether the files of
/// each job's `on-paths` changed (`dorny/paths-filter`, one output per
/// job, named by its id); its id, when some job has `on-paths`.
fn write_changes_job(
    out: &mut String,
    jobs: &[(String, JobOptions)],
    ids: &[String],
    taken: &mut BTreeSet<String>,
) -> Option<String> {
    let filters: Vec<(&String, &JobOptions)> = ids
        .iter()
        .zip(jobs)
        .filter(|(_, (_, job))| filtered(job))
        .map(|(id, (_, job))| (id, job))
        .collect();
    if filters.is_empty() {
        return None;
    }
    let id = unique_id("changes", taken);
    let _ = writeln!(out, "  {id}:");
    out.push_str("    # Which jobs' `on-paths` the pull request or push touches.\n");
    let _ = writeln!(
        out,
        "    if: {}",
        quote("github.event_name == 'pull_request' || github.event_name == 'push'")
    );
    let _ = writeln!(out, "    runs-on: {}", quote(DEFAULT_RUNS_ON));
    out.push_str("    outputs:\n");
    for (job_id, _) in &filters {
        let _ = writeln!(
            out,
            "      {job_id}: {}",
            quote(&format!("${{{{ steps.filter.outputs.{job_id} }}}}"))
        );
    }
    out.push_str("    steps:\n");
    out.push_str("      - uses: \"actions/checkout@v4\"\n");
    out.push_str("      - uses: \"dorny/paths-filter@v3\"\n");
    out.push_str("        id: \"filter\"\n");
    out.push_str("        with:\n");
    let mut text = String::new();
    for (job_id, job) in &filters {
        let _ = writeln!(text, "{job_id}:");
        for glob in &job.on_paths {
            let _ = writeln!(text, "  - {}", quote(glob));
        }
    }
    let _ = writeln!(out, "          filters: {}", quote(&text));
    Some(id)
}

/// The `on:` block: only the events some job runs on, and always
/// `workflow_dispatch`, so that any job can be run by hand.
fn write_on(out: &mut String, jobs: &[(String, JobOptions)], options: &WorkflowOptions) {
    out.push_str("on:\n");
    let runs_on = |trigger: Trigger| {
        jobs.iter()
            .any(|(_, job)| job.trigger == trigger || job.also_on.contains(&trigger))
    };
    if runs_on(Trigger::Pr) {
        out.push_str("  pull_request:\n");
        out.push_str("  push:\n");
        let _ = writeln!(out, "    branches: [{}]", quote(&options.branch));
    }
    if runs_on(Trigger::Nightly) {
        out.push_str("  schedule:\n");
        let _ = writeln!(out, "    - cron: {}", quote(&options.cron));
    }
    out.push_str("  workflow_dispatch:\n");
}

/// The GitHub expression that restricts a job to the events of its
/// `trigger` and `also-on`.
pub(crate) fn job_condition(job: &JobOptions) -> String {
    let mut events: Vec<&str> = Vec::new();
    for trigger in std::iter::once(&job.trigger).chain(&job.also_on) {
        for event in trigger_condition(*trigger).split(" || ") {
            if !events.contains(&event) {
                events.push(event);
            }
        }
    }
    events.join(" || ")
}

/// The GitHub expression that restricts a job to its trigger's events.
pub(crate) fn trigger_condition(trigger: Trigger) -> &'static str {
    match trigger {
        Trigger::Pr => {
            "github.event_name == 'pull_request' || github.event_name == 'push' || github.event_name == 'workflow_dispatch'"
        }
        Trigger::Nightly => "github.event_name == 'schedule' || github.event_name == 'workflow_dispatch'",
        Trigger::Manual => "github.event_name == 'workflow_dispatch'",
    }
}

fn write_job(
    out: &mut String,
    id: &str,
    name: &str,
    job: &JobOptions,
    plan: &PlanOptions,
    options: &WorkflowOptions,
    changes: Option<&str>,
) {
    let _ = writeln!(out, "  {id}:");
    if id != name {
        let _ = writeln!(out, "    name: {}", quote(name));
    }
    if let Some(description) = &job.description {
        for line in description.lines() {
            let _ = writeln!(out, "    # {}", comment(line));
        }
    }
    match changes.filter(|_| filtered(job)) {
        // On a pull request or a push, only when its files changed; the
        // `changes` job is skipped on the other events, which `!cancelled()`
        // lets through.
        Some(changes) => {
            let _ = writeln!(out, "    needs: [{}]", quote(changes));
            let _ = writeln!(
                out,
                "    if: {}",
                quote(&format!(
                    "!cancelled() && ({}) && (github.event_name != 'pull_request' && github.event_name != 'push' || needs.{changes}.outputs.{id} == 'true')",
                    job_condition(job)
                ))
            );
        }
        None => {
            let _ = writeln!(out, "    if: {}", quote(&job_condition(job)));
        }
    }
    let _ = writeln!(
        out,
        "    runs-on: {}",
        quote(job.runs_on.as_deref().unwrap_or(DEFAULT_RUNS_ON))
    );
    if let Some(environment) = &job.environment {
        // Required reviewers of the environment gate the job; its secrets
        // reach only the jobs that name it.
        let _ = writeln!(out, "    environment: {}", quote(environment));
    }
    if !job.required {
        out.push_str("    continue-on-error: true\n");
    }
    // Plain pytest cannot run one shard of a selection: the job then runs
    // whole, and says so.
    let sharded = job.shards.get() > 1 && options.runner == CiRunner::Proctor;
    out.push_str("    strategy:\n      fail-fast: false\n      matrix:\n");
    let pythons: Vec<String> = if job.python.is_empty() {
        vec![quote(DEFAULT_PYTHON)]
    } else {
        job.python.iter().map(|p| quote(p)).collect()
    };
    let _ = writeln!(out, "        python: [{}]", pythons.join(", "));
    if sharded {
        let shards: Vec<String> = (1..=job.shards.get()).map(|n| n.to_string()).collect();
        let _ = writeln!(out, "        shard: [{}]", shards.join(", "));
    }
    let services: Vec<(&str, Option<&ServiceOptions>)> = job
        .services
        .iter()
        .map(|name| (name.as_str(), plan.service(name)))
        .collect();
    let mut env: BTreeMap<&str, &str> = BTreeMap::new();
    for (_, service) in &services {
        if let Some(ServiceOptions {
            address_env: Some(variable),
            default_address,
            ..
        }) = service
        {
            env.insert(variable, default_address);
        }
    }
    // The job's own values win over a service's default address.
    env.extend(job.env.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    // Each matrix cell writes its own data file, for the combine job.
    let cell = if sharded {
        format!("{id}-${{{{ matrix.python }}}}-${{{{ matrix.shard }}}}")
    } else {
        format!("{id}-${{{{ matrix.python }}}}")
    };
    let coverage_file = format!(".coverage.{cell}");
    if collects_coverage(job) {
        env.insert("COVERAGE_FILE", &coverage_file);
    }
    if !env.is_empty() {
        out.push_str("    env:\n");
        for (key, value) in &env {
            let _ = writeln!(out, "      {}: {}", quote(key), quote(value));
        }
    }
    // Services with an `image` run as GitHub service containers; the
    // others are comments: something must start them before the tests.
    let containers: Vec<(&str, &ServiceOptions, &str)> = services
        .iter()
        .filter_map(|(name, service)| {
            let service = (*service)?;
            let image = service.image.as_deref()?;
            Some((*name, service, image))
        })
        .collect();
    if !containers.is_empty() {
        out.push_str("    services:\n");
        for (name, service, image) in &containers {
            let _ = writeln!(out, "      {}:", quote(name));
            let _ = writeln!(out, "        image: {}", quote(image));
            if let Some((_, port)) = service.default_address.rsplit_once(':') {
                let _ = writeln!(out, "        ports: [{}]", quote(&format!("{port}:{port}")));
            }
            if !service.env.is_empty() {
                out.push_str("        env:\n");
                for (key, value) in &service.env {
                    let _ = writeln!(out, "          {}: {}", quote(key), quote(value));
                }
            }
        }
    }
    for (name, service) in &services {
        match service {
            Some(service) if service.image.is_some() => {}
            Some(service) if service.start.is_some() && options.runner == CiRunner::Proctor => {
                let _ = writeln!(
                    out,
                    "    # service {}: `proctor run` starts it (address {})",
                    comment(name),
                    comment(address_in(service, &env))
                );
            }
            Some(service) if service.start.is_some() => {
                let _ = writeln!(
                    out,
                    "    # service {}: started by a step below (address {})",
                    comment(name),
                    comment(address_in(service, &env))
                );
            }
            Some(service) => {
                let _ = writeln!(
                    out,
                    "    # service {}: start it before the tests (address {}), or give it an `image`",
                    comment(name),
                    comment(address_in(service, &env))
                );
            }
            None => {
                let _ = writeln!(
                    out,
                    "    # service {}: not declared in [services]",
                    comment(name)
                );
            }
        }
    }
    out.push_str("    steps:\n");
    out.push_str("      - uses: \"actions/checkout@v4\"\n");
    out.push_str("      - uses: \"actions/setup-python@v5\"\n");
    let _ = writeln!(out, "        id: {}", quote(SETUP_PYTHON_ID));
    out.push_str("        with:\n");
    let _ = writeln!(
        out,
        "          python-version: {}",
        quote("${{ matrix.python }}")
    );
    let (command, uses_proctor) = match options.runner {
        CiRunner::Proctor => (proctor_command(name, job, options.configured_python), true),
        CiRunner::Pytest => match pytest_command(job, options) {
            PytestCommand::Plain(command) => (command, false),
            PytestCommand::Selected(command) => (command, true),
        },
    };
    if uses_proctor {
        out.push_str("      - name: \"Install proctor\"\n");
        let _ = writeln!(out, "        run: {}", quote(&options.proctor_install));
    }
    out.push_str("      - name: \"Install\"\n");
    let _ = writeln!(out, "        run: {}", quote(&options.install));
    for (index, command) in job.setup.iter().enumerate() {
        let _ = writeln!(
            out,
            "      - name: {}",
            quote(&format!("Setup {}", index + 1))
        );
        let _ = writeln!(out, "        run: {}", quote(command));
    }
    for (name, service) in &services {
        let Some(service) = service else { continue };
        // `proctor run` starts the services that have a `start` (and stops
        // them): waiting for one before it would time out. Plain pytest
        // starts nothing, so the job starts it in the background first.
        if service.start.is_some() && options.runner == CiRunner::Proctor {
            continue;
        }
        if let Some(start) = &service.start {
            let _ = writeln!(out, "      - name: {}", quote(&format!("Start {name}")));
            let _ = writeln!(
                out,
                "        run: {}",
                quote(&format!(
                    "nohup sh -c {} > {}.log 2>&1 &",
                    shell_word(start),
                    shell_word(name)
                ))
            );
        }
        // The job's env may move the service (`OLLAMA_HOST`): the step
        // waits where the tests will connect.
        if let Some(command) = wait_command(address_in(service, &env)) {
            let _ = writeln!(out, "      - name: {}", quote(&format!("Wait for {name}")));
            let _ = writeln!(out, "        run: {}", quote(&command));
        }
    }
    if let Some(phases) = &job.phases {
        let mut order: Vec<&str> = phases.order.iter().map(String::as_str).collect();
        order.push("(rest)");
        let _ = write!(
            out,
            "      # phases by {}: {}",
            comment(&phases.by),
            comment(&order.join(" → "))
        );
        if options.runner == CiRunner::Pytest {
            out.push_str(" (plain pytest runs them in one process)");
        }
        out.push('\n');
    }
    if job.shards.get() > 1 && !sharded {
        let _ = writeln!(
            out,
            "      # shards = {}: plain pytest cannot run one shard, so this job runs whole.",
            job.shards
        );
    }
    let _ = writeln!(out, "      - name: {}", quote(&format!("Run {name}")));
    let _ = writeln!(out, "        run: {}", quote(&command));
    if collects_coverage(job) {
        out.push_str("      - uses: \"actions/upload-artifact@v4\"\n");
        out.push_str("        if: \"always()\"\n");
        out.push_str("        with:\n");
        let _ = writeln!(
            out,
            "          name: {}",
            quote(&format!("coverage-{cell}"))
        );
        let _ = writeln!(out, "          path: {}", quote(&coverage_file));
        out.push_str("          include-hidden-files: true\n");
        out.push_str("          if-no-files-found: \"ignore\"\n");
    }
}

/// `proctor run --job NAME`, with the matrix's shard when sharded, and
/// the job's setup-python interpreter as `--python` when the configuration
/// names one of this machine's (`python = ".venv/bin/python"`), which the
/// runner does not have: a local interpreter path never reaches a runner.
pub(crate) fn proctor_command(name: &str, job: &JobOptions, configured_python: bool) -> String {
    let mut command = format!("proctor run --job {}", shell_word(name));
    if configured_python {
        let _ = write!(
            command,
            " --python \"${{{{ steps.{SETUP_PYTHON_ID}.outputs.python-path }}}}\""
        );
    }
    if job.shards.get() > 1 {
        let _ = write!(command, " --shard ${{{{ matrix.shard }}}}/{}", job.shards);
    }
    command
}

/// `(default) and (markers)`, the default relaxed on the markers `markers`
/// names (left out when that frees it entirely); both as written when one
/// does not parse (`proctor check` reports it).
fn relaxed_conjunction(default: &str, markers: &str) -> Option<String> {
    let mut selection = proctor_taxonomy::Selection::default();
    let parsed = selection
        .add_markers(default, proctor_taxonomy::Origin::ConfigDefault)
        .and_then(|()| {
            selection.add_markers(
                markers,
                proctor_taxonomy::Origin::Job {
                    name: String::new(),
                },
            )
        });
    match parsed {
        Ok(()) => selection.markers_text(),
        Err(_) => Some(format!("({default}) and ({markers})")),
    }
}

/// The test step of a job run by plain pytest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PytestCommand {
    /// `pytest -m ... -k ... PATHS FLAGS`: the expressions mean the same
    /// to pytest as to proctor.
    Plain(String),
    /// `proctor select ... --args-file FILE`, then `pytest @FILE FLAGS`:
    /// the `-m` names a marker only proctor gives items.
    Selected(String),
}

/// The job's test step under plain pytest: its `-m`, `-k`, paths and
/// flags; when the `-m` (with the default) names a marker proctor derives,
/// the node ids `proctor select` picks, given to pytest as `@FILE`.
pub(crate) fn pytest_command(job: &JobOptions, options: &WorkflowOptions) -> PytestCommand {
    let plain = plain_pytest_command(job, options);
    let default = options
        .default_markers
        .as_deref()
        .filter(|_| job.use_default);
    let named: Vec<String> = [default, job.markers.as_deref()]
        .into_iter()
        .flatten()
        .filter_map(|text| proctor_expr::Expression::parse(text).ok())
        .flat_map(|e| {
            e.identifiers()
                .into_iter()
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .filter(|name| options.derived_markers.contains(name))
        .collect();
    if named.is_empty() {
        return PytestCommand::Plain(plain);
    }
    let mut select = String::from("proctor select");
    if !job.use_default {
        select.push_str(" --no-default-select");
    }
    if let Some(markers) = job.markers.as_deref().filter(|m| !m.trim().is_empty()) {
        let _ = write!(select, " -m {}", shell_word(markers));
    }
    if let Some(keywords) = job.keywords.as_deref().filter(|k| !k.trim().is_empty()) {
        let _ = write!(select, " -k {}", shell_word(keywords));
    }
    for path in &job.paths {
        select.push(' ');
        select.push_str(&shell_word(path));
    }
    let _ = write!(select, " --args-file {SELECTION_FILE}");
    // An empty file would make pytest run its whole walk: nothing
    // selected is pytest's "no tests ran" (5) instead.
    let mut pytest = format!(
        "test -s {SELECTION_FILE} || {{ echo 'proctor select picked no test'; exit 5; }}\npytest @{SELECTION_FILE}"
    );
    // The node ids are the selection: addopts' `-m` must not filter them.
    if options.addopts_markers {
        pytest.push_str(" -m ''");
    }
    for flag in &job.flags {
        pytest.push(' ');
        pytest.push_str(&shell_word(flag));
    }
    let mut derived = named;
    derived.sort();
    derived.dedup();
    PytestCommand::Selected(format!(
        "# proctor gives tests {}; bare pytest's -m would not see {}.\n{select}\n{pytest}",
        derived.join(", "),
        if derived.len() == 1 { "it" } else { "them" }
    ))
}

/// A plain pytest command with the job's selection, paths and flags.
fn plain_pytest_command(job: &JobOptions, options: &WorkflowOptions) -> String {
    let mut command = String::from("pytest");
    let default = options
        .default_markers
        .as_deref()
        .filter(|_| job.use_default)
        .filter(|d| !d.trim().is_empty());
    let job_markers = job.markers.as_deref().filter(|m| !m.trim().is_empty());
    let markers = match (default, job_markers) {
        // The default relaxed on the markers the job names, as `proctor
        // run --job` applies it.
        (Some(default), Some(markers)) => relaxed_conjunction(default, markers),
        (Some(only), None) | (None, Some(only)) => Some(only.to_owned()),
        (None, None) => None,
    };
    match markers {
        Some(markers) => {
            let _ = write!(command, " -m {}", shell_word(&markers));
        }
        // An explicit empty `-m` replaces the one in addopts.
        None if options.addopts_markers => command.push_str(" -m ''"),
        None => {}
    }
    if let Some(keywords) = job.keywords.as_deref().filter(|k| !k.trim().is_empty()) {
        let _ = write!(command, " -k {}", shell_word(keywords));
    }
    for word in job.paths.iter().chain(&job.flags) {
        command.push(' ');
        command.push_str(&shell_word(word));
    }
    command
}

/// The service's address in a job with this environment: its
/// `address-env` variable's value when the job sets it, else its default.
fn address_in<'a>(service: &'a ServiceOptions, env: &BTreeMap<&str, &'a str>) -> &'a str {
    service
        .address_env
        .as_deref()
        .and_then(|variable| env.get(variable).copied())
        .unwrap_or(&service.default_address)
}

/// A shell command that waits up to 60 s for `host:port` to accept
/// connections; `None` when the address is not a plain `host:port`.
pub(crate) fn wait_command(address: &str) -> Option<String> {
    let (host, port) = address.rsplit_once(':')?;
    let host = host
        .strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host);
    let port: u16 = port.parse().ok()?;
    let plain = !host.is_empty()
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':'));
    plain.then(|| {
        format!("timeout 60 bash -c 'until (echo > /dev/tcp/{host}/{port}) 2>/dev/null; do sleep 1; done'")
    })
}

/// A GitHub job id for `name`: characters outside `[A-Za-z0-9_-]` become
/// `_`, an id must start with a letter or `_`, and a taken id gets a
/// number.
fn unique_id(name: &str, taken: &mut BTreeSet<String>) -> String {
    let base = job_id(name);
    let mut id = base.clone();
    let mut n = 2;
    while taken.contains(&id) {
        id = format!("{base}_{n}");
        n += 1;
    }
    taken.insert(id.clone());
    id
}

/// `name` with every character outside `[A-Za-z0-9_-]` replaced by `_`,
/// and a leading `_` when it would not start with a letter or `_`.
pub(crate) fn job_id(name: &str) -> String {
    let mut id: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if !id.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        id.insert(0, '_');
    }
    id
}

/// `text` as a YAML double-quoted scalar: backslashes, quotes, control
/// and line-breaking characters escaped, everything else as it is (GitHub
/// expressions such as `${{ secrets.KEY }}` pass through unchanged).
pub(crate) fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\0' => out.push_str("\\0"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            '\u{85}' => out.push_str("\\N"),
            '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{80}'..='\u{9f}' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `text` for the rest of a comment line: line breaks become spaces.
fn comment(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_control() || matches!(c, '\u{2028}' | '\u{2029}') {
                ' '
            } else {
                c
            }
        })
        .collect()
}

/// `text` as one word for the shell of a runner's `run:` step, quoted by
/// `shlex` only where the shell would otherwise split or expand it (`unit`
/// as is, `not slow` as `'not slow'`, `it's` as `"it's"`).
pub(crate) fn shell_word(text: &str) -> String {
    // `allow_nul` leaves `quote` no error to return (a shell drops the
    // NUL itself).
    shlex::Quoter::new()
        .allow_nul(true)
        .quote(text)
        .map_or_else(|_| String::new(), std::borrow::Cow::into_owned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proctor_config::JobPhaseOptions;
    use serde_yaml::Value;

    fn options() -> WorkflowOptions {
        WorkflowOptions {
            name: "proctor".to_owned(),
            branch: "main".to_owned(),
            cron: "0 3 * * *".to_owned(),
            install: "pip install -e . pytest".to_owned(),
            proctor_install: proctor_install(),
            configured_python: false,
            runner: CiRunner::Proctor,
            source: "proctor.toml".to_owned(),
            default_markers: None,
            addopts_markers: false,
            derived_markers: BTreeSet::new(),
            coverage_areas: false,
        }
    }

    fn job(edit: impl FnOnce(&mut JobOptions)) -> JobOptions {
        let mut job = JobOptions::default();
        edit(&mut job);
        job
    }

    fn plan() -> PlanOptions {
        PlanOptions {
            services: vec![(
                "ollama".to_owned(),
                ServiceOptions {
                    address_env: Some("OLLAMA_HOST".to_owned()),
                    default_address: "127.0.0.1:11434".to_owned(),
                    http_probe: None,
                    ..ServiceOptions::default()
                },
            )],
            ..PlanOptions::default()
        }
    }

    /// The workflow, parsed back.
    fn parsed(jobs: &[(String, JobOptions)], options: &WorkflowOptions) -> (String, Value) {
        let text = workflow(jobs, &plan(), options);
        let value = serde_yaml::from_str(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        (text, value)
    }

    fn named(name: &str, job: JobOptions) -> (String, JobOptions) {
        (name.to_owned(), job)
    }

    #[test]
    fn quoted_strings_read_back_unchanged() {
        let cases = [
            "plain",
            "key: value",
            "# not a comment",
            "it's \"quoted\"",
            "two\nlines\r\n",
            "${{ secrets.OPENAI_API_KEY }}",
            "back\\slash\ttab\0nul\u{7f}\u{1b}",
            "\u{85}\u{2028}\u{2029}\u{feff}é → ✓",
            "",
            "- [a, b]: {c}",
            "true",
            "null",
            "3.10",
            " leading and trailing ",
            "*anchor &ref !tag %directive @at `tick`",
        ];
        for case in cases {
            let yaml = format!("value: {}\n", quote(case));
            let value: Value =
                serde_yaml::from_str(&yaml).unwrap_or_else(|e| panic!("{e}: {yaml}"));
            assert_eq!(value["value"].as_str(), Some(case), "{yaml}");
            assert!(!quote(case).contains('\n'));
        }
    }

    #[test]
    fn github_expressions_pass_through() {
        assert_eq!(
            quote("${{ secrets.OPENAI_API_KEY }}"),
            "\"${{ secrets.OPENAI_API_KEY }}\""
        );
    }

    #[test]
    fn comments_stay_on_their_line() {
        let jobs = [named(
            "unit",
            job(|j| j.description = Some("first\nsecond: # x\r".to_owned())),
        )];
        let (text, value) = parsed(&jobs, &options());
        assert!(text.contains("    # first\n    # second: # x \n"), "{text}");
        assert!(value["jobs"]["unit"].is_mapping());
    }

    #[test]
    fn triggers_pick_events_and_conditions() {
        let jobs = [named("manual", job(|j| j.trigger = Trigger::Manual))];
        let (_, value) = parsed(&jobs, &options());
        let on = value["on"].as_mapping().unwrap();
        let keys: Vec<&str> = on.keys().map(|k| k.as_str().unwrap()).collect();
        assert_eq!(keys, ["workflow_dispatch"]);
        assert_eq!(
            value["jobs"]["manual"]["if"].as_str(),
            Some("github.event_name == 'workflow_dispatch'")
        );

        let mut options = options();
        options.branch = "develop".to_owned();
        options.cron = "30 1 * * 1-5".to_owned();
        let jobs = [
            named("unit", JobOptions::default()),
            named("slow", job(|j| j.trigger = Trigger::Nightly)),
        ];
        let (_, value) = parsed(&jobs, &options);
        let on = value["on"].as_mapping().unwrap();
        let keys: Vec<&str> = on.keys().map(|k| k.as_str().unwrap()).collect();
        assert_eq!(
            keys,
            ["pull_request", "push", "schedule", "workflow_dispatch"]
        );
        assert_eq!(value["on"]["push"]["branches"][0].as_str(), Some("develop"));
        assert_eq!(
            value["on"]["schedule"][0]["cron"].as_str(),
            Some("30 1 * * 1-5")
        );
        assert_eq!(
            value["jobs"]["slow"]["if"].as_str(),
            Some("github.event_name == 'schedule' || github.event_name == 'workflow_dispatch'")
        );
        assert_eq!(
            value["jobs"]["unit"]["if"].as_str(),
            Some(trigger_condition(Trigger::Pr))
        );
    }

    #[test]
    fn matrix_has_pythons_and_shards() {
        let jobs = [
            named(
                "unit",
                job(|j| j.python = vec!["3.10".to_owned(), "3.12".to_owned()]),
            ),
            named(
                "slow",
                job(|j| j.shards = std::num::NonZeroUsize::new(3).unwrap()),
            ),
        ];
        let (_, value) = parsed(&jobs, &options());
        let unit = &value["jobs"]["unit"];
        assert_eq!(unit["strategy"]["fail-fast"].as_bool(), Some(false));
        let pythons: Vec<&str> = unit["strategy"]["matrix"]["python"]
            .as_sequence()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert_eq!(pythons, ["3.10", "3.12"]);
        assert!(unit["strategy"]["matrix"].get("shard").is_none());
        assert_eq!(
            unit["steps"][4]["run"].as_str(),
            Some("proctor run --job unit")
        );
        let slow = &value["jobs"]["slow"];
        assert_eq!(
            slow["strategy"]["matrix"]["python"][0].as_str(),
            Some(DEFAULT_PYTHON)
        );
        let shards: Vec<u64> = slow["strategy"]["matrix"]["shard"]
            .as_sequence()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        assert_eq!(shards, [1, 2, 3]);
        assert_eq!(
            slow["steps"][4]["run"].as_str(),
            Some("proctor run --job slow --shard ${{ matrix.shard }}/3")
        );
        assert_eq!(
            slow["steps"][1]["with"]["python-version"].as_str(),
            Some("${{ matrix.python }}")
        );
    }

    #[test]
    fn advisory_jobs_continue_on_error() {
        let jobs = [
            named("unit", JobOptions::default()),
            named("canary", job(|j| j.required = false)),
        ];
        let (_, value) = parsed(&jobs, &options());
        assert!(value["jobs"]["unit"].get("continue-on-error").is_none());
        assert_eq!(
            value["jobs"]["canary"]["continue-on-error"].as_bool(),
            Some(true)
        );
    }

    #[test]
    fn env_and_services() {
        let jobs = [named(
            "integration",
            job(|j| {
                j.services = vec!["ollama".to_owned()];
                j.env.insert(
                    "OPENAI_API_KEY".to_owned(),
                    "${{ secrets.OPENAI_API_KEY }}".to_owned(),
                );
                j.env.insert("CICD".to_owned(), "1".to_owned());
                j.runs_on = Some("self-hosted".to_owned());
            }),
        )];
        let (text, value) = parsed(&jobs, &options());
        let job = &value["jobs"]["integration"];
        assert_eq!(job["runs-on"].as_str(), Some("self-hosted"));
        assert_eq!(
            job["env"]["OPENAI_API_KEY"].as_str(),
            Some("${{ secrets.OPENAI_API_KEY }}")
        );
        assert_eq!(job["env"]["OLLAMA_HOST"].as_str(), Some("127.0.0.1:11434"));
        assert_eq!(job["env"]["CICD"].as_str(), Some("1"));
        assert!(
            text.contains("# service ollama: start it before the tests (address 127.0.0.1:11434)"),
            "{text}"
        );
        assert_eq!(
            job["steps"][4]["run"].as_str(),
            Some("timeout 60 bash -c 'until (echo > /dev/tcp/127.0.0.1/11434) 2>/dev/null; do sleep 1; done'")
        );
        assert!(job.get("services").is_none());
    }

    #[test]
    fn the_job_env_wins_over_a_service_default() {
        let jobs = [named(
            "integration",
            job(|j| {
                j.services = vec!["ollama".to_owned()];
                j.env
                    .insert("OLLAMA_HOST".to_owned(), "ollama:11434".to_owned());
            }),
        )];
        let (_, value) = parsed(&jobs, &options());
        assert_eq!(
            value["jobs"]["integration"]["env"]["OLLAMA_HOST"].as_str(),
            Some("ollama:11434")
        );
    }

    #[test]
    fn phases_are_noted() {
        let phases = JobPhaseOptions {
            by: "backend".to_owned(),
            order: vec!["ollama".to_owned(), "openai".to_owned()],
        };
        let jobs = [named("e2e", job(|j| j.phases = Some(phases)))];
        let (text, _) = parsed(&jobs, &options());
        assert!(
            text.contains("      # phases by backend: ollama → openai → (rest)\n"),
            "{text}"
        );
    }

    #[test]
    fn job_ids_are_sanitized_and_unique() {
        assert_eq!(job_id("unit"), "unit");
        assert_eq!(job_id("e2e.slow tests"), "e2e_slow_tests");
        assert_eq!(job_id("3.12"), "_3_12");
        assert_eq!(job_id("-x"), "_-x");
        let jobs = [
            named("a.b", JobOptions::default()),
            named("a_b", JobOptions::default()),
        ];
        let (_, value) = parsed(&jobs, &options());
        assert_eq!(value["jobs"]["a_b"]["name"].as_str(), Some("a.b"));
        assert!(value["jobs"]["a_b_2"].is_mapping());
        assert_eq!(value["jobs"]["a_b_2"]["name"].as_str(), Some("a_b"));
        assert_eq!(
            value["jobs"]["a_b"]["steps"][4]["run"].as_str(),
            Some("proctor run --job a.b")
        );
    }

    #[test]
    fn pytest_runner_commands() {
        let mut options = options();
        options.runner = CiRunner::Pytest;
        let unit = job(|j| j.markers = Some("not integration and not realdb".to_owned()));
        assert_eq!(
            plain_pytest_command(&unit, &options),
            "pytest -m 'not integration and not realdb'"
        );
        let full = job(|j| {
            j.markers = Some("integration".to_owned());
            j.keywords = Some("not test_it's".to_owned());
            j.paths = vec![
                "tests/integration".to_owned(),
                "tests/a b.py::test_x[1]".to_owned(),
            ];
            j.flags = vec!["--live".to_owned()];
        });
        assert_eq!(
            plain_pytest_command(&full, &options),
            "pytest -m integration -k \"not test_it's\" tests/integration 'tests/a b.py::test_x[1]' --live"
        );
        // The default selection joins by `and`, unless the job opts out.
        options.default_markers = Some("not slow".to_owned());
        assert_eq!(
            plain_pytest_command(&unit, &options),
            "pytest -m '(not slow) and (not integration and not realdb)'"
        );
        assert_eq!(
            plain_pytest_command(&JobOptions::default(), &options),
            "pytest -m 'not slow'"
        );
        let nightly = job(|j| j.use_default = false);
        assert_eq!(plain_pytest_command(&nightly, &options), "pytest");
        // addopts' `-m` would apply to a bare pytest: an empty one replaces it.
        options.addopts_markers = true;
        assert_eq!(plain_pytest_command(&nightly, &options), "pytest -m ''");
    }

    /// Each word `shell_word` writes is read back whole by a real shell.
    #[test]
    fn shell_words_read_back_whole_in_a_shell() {
        let words = [
            "unit",
            "not slow",
            "not test_it's",
            "a\"b$c`d\\e'f",
            "^x",
            "t\u{e9}st [1]",
            "",
            "-m",
            "${{ matrix.shard }}",
        ];
        for word in words {
            let quoted = shell_word(word);
            let out = std::process::Command::new("sh")
                .arg("-c")
                .arg(format!("printf '%s' {quoted}"))
                .output()
                .unwrap();
            assert_eq!(String::from_utf8_lossy(&out.stdout), word, "{quoted}");
        }
        assert_eq!(shell_word("unit"), "unit");
        assert_eq!(shell_word("not slow"), "'not slow'");
    }

    #[test]
    fn pytest_runner_does_not_shard() {
        let mut options = options();
        options.runner = CiRunner::Pytest;
        let jobs = [named(
            "slow",
            job(|j| j.shards = std::num::NonZeroUsize::new(4).unwrap()),
        )];
        let (text, value) = parsed(&jobs, &options);
        assert!(value["jobs"]["slow"]["strategy"]["matrix"]
            .get("shard")
            .is_none());
        assert!(
            text.contains("# shards = 4: plain pytest cannot run one shard"),
            "{text}"
        );
        assert_eq!(
            value["jobs"]["slow"]["steps"][3]["run"].as_str(),
            Some("pytest")
        );
    }

    #[test]
    fn every_proctor_job_installs_this_proctor() {
        let jobs = [
            named("unit", JobOptions::default()),
            named(
                "slow",
                job(|j| j.shards = std::num::NonZeroUsize::new(2).unwrap()),
            ),
        ];
        let (_, value) = parsed(&jobs, &options());
        let install = format!("pip install proctor-cli=={}", env!("CARGO_PKG_VERSION"));
        for id in ["unit", "slow"] {
            let steps = value["jobs"][id]["steps"].as_sequence().unwrap();
            assert_eq!(steps[1]["id"].as_str(), Some("python"));
            assert_eq!(steps[2]["name"].as_str(), Some("Install proctor"));
            assert_eq!(steps[2]["run"].as_str(), Some(install.as_str()));
            assert_eq!(steps[3]["run"].as_str(), Some("pip install -e . pytest"));
        }
        // Plain pytest needs no proctor on the runner.
        let mut options = options();
        options.runner = CiRunner::Pytest;
        let (text, _) = parsed(&jobs, &options);
        assert!(!text.contains("proctor-cli"), "{text}");
    }

    #[test]
    fn a_configured_interpreter_becomes_the_jobs_own() {
        let mut options = options();
        options.configured_python = true;
        let jobs = [
            named("unit", JobOptions::default()),
            named(
                "slow",
                job(|j| j.shards = std::num::NonZeroUsize::new(2).unwrap()),
            ),
        ];
        let (_, value) = parsed(&jobs, &options);
        assert_eq!(
            value["jobs"]["unit"]["steps"][4]["run"].as_str(),
            Some("proctor run --job unit --python \"${{ steps.python.outputs.python-path }}\"")
        );
        assert_eq!(
            value["jobs"]["slow"]["steps"][4]["run"].as_str(),
            Some("proctor run --job slow --python \"${{ steps.python.outputs.python-path }}\" --shard ${{ matrix.shard }}/2")
        );
    }

    #[test]
    fn wait_commands_only_for_plain_addresses() {
        assert_eq!(
            wait_command("localhost:5432").as_deref(),
            Some("timeout 60 bash -c 'until (echo > /dev/tcp/localhost/5432) 2>/dev/null; do sleep 1; done'")
        );
        assert!(wait_command("[::1]:80")
            .unwrap()
            .contains("/dev/tcp/::1/80"));
        assert_eq!(wait_command("no-port"), None);
        assert_eq!(wait_command("a'b:80"), None);
        assert_eq!(wait_command("host:99999"), None);
    }

    #[test]
    fn output_is_deterministic() {
        let jobs = [named(
            "unit",
            job(|j| {
                j.env.insert("B".to_owned(), "2".to_owned());
                j.env.insert("A".to_owned(), "1".to_owned());
            }),
        )];
        let first = workflow(&jobs, &plan(), &options());
        assert_eq!(first, workflow(&jobs, &plan(), &options()));
        assert!(first.find("\"A\": \"1\"").unwrap() < first.find("\"B\": \"2\"").unwrap());
        assert!(first.starts_with(
            "# Generated by proctor ci github from proctor.toml; do not edit by hand.\n"
        ));
    }
}
