//! `proctor ci github`: loads the configuration, picks the jobs asked for,
//! checks their expressions, and prints (or writes) the workflow that
//! `proctor_ci` generates.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use proctor_ci::{derived_markers, proctor_install, workflow, WorkflowOptions};
use proctor_plan::job_selection;
use proctor_taxonomy::Origin;

use crate::args::{CiArgs, CiCommand, CiGithubArgs, CiRunner, SuiteArgs};
use crate::commands::suite::Suite;
use crate::exit;
use crate::settings::Env;

/// Runs `proctor ci <system>`.
pub(crate) fn run(args: &CiArgs) -> Result<u8> {
    match &args.command {
        CiCommand::Github(github) => run_github(github),
    }
}

fn run_github(args: &CiGithubArgs) -> Result<u8> {
    let suite_args = SuiteArgs::with(&args.config, Vec::new());
    let suite = Suite::load(&suite_args, &Env::process())?;
    let settings = &suite.config;
    let plan = &settings.proctor.plan;
    if plan.jobs.is_empty() {
        bail!(
            "no jobs are configured\n  hint: declare them in `[jobs.<name>]` of proctor.toml (or \
             `[tool.proctor.jobs.<name>]` of pyproject.toml); see docs/ci.md"
        );
    }
    for wanted in &args.jobs {
        if !plan.jobs.iter().any(|(name, _)| name == wanted) {
            let names: Vec<&str> = plan.jobs.iter().map(|(name, _)| name.as_str()).collect();
            bail!("unknown job `{wanted}` (configured: {})", names.join(", "));
        }
    }
    let jobs: Vec<_> = plan
        .jobs
        .iter()
        .filter(|(name, _)| args.jobs.is_empty() || args.jobs.contains(name))
        .cloned()
        .collect();
    let addopts_markers = settings.pytest.addopts_parsed.markexpr.clone();
    let default_markers = settings
        .proctor
        .select
        .default
        .clone()
        .or_else(|| addopts_markers.clone());
    // A job whose `-m` or `-k` does not parse would fail in CI: say so now.
    for (name, job) in &jobs {
        job_selection(
            name,
            job,
            default_markers
                .as_deref()
                .map(|d| (d, Origin::ConfigDefault)),
        )
        .with_context(|| format!("job `{name}`"))?;
    }
    let source = match &settings.proctor_file {
        Some(path) => relative(path, &settings.pytest.rootdir),
        None => "proctor's configuration".to_owned(),
    };
    let options = WorkflowOptions {
        name: args.name.clone(),
        branch: args.branch.clone(),
        cron: args.cron.clone(),
        install: args.install.clone(),
        proctor_install: proctor_install(),
        configured_python: settings
            .proctor
            .python
            .as_deref()
            .is_some_and(|p| !p.is_empty()),
        runner: match args.runner {
            CiRunner::Proctor => proctor_ci::CiRunner::Proctor,
            CiRunner::Pytest => proctor_ci::CiRunner::Pytest,
        },
        source,
        default_markers,
        addopts_markers: addopts_markers.is_some(),
        derived_markers: derived_markers(&settings.proctor.taxonomy),
        coverage_areas: !settings.proctor.coverage.areas.is_empty(),
    };
    let text = workflow(&jobs, plan, &options);
    match &args.output {
        Some(path) => {
            write_file(path, &text)?;
            let mut stderr = std::io::stderr().lock();
            writeln!(stderr, "wrote {} ({} jobs)", path.display(), jobs.len())?;
        }
        None => std::io::stdout().lock().write_all(text.as_bytes())?,
    }
    Ok(exit::OK)
}

/// Writes `text` to `path`, creating its folder (`.github/workflows/`).
fn write_file(path: &Path, text: &str) -> Result<()> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
    }
    std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
}

/// `path` relative to `root` when it is under it, with `/` separators.
fn relative(path: &Path, root: &Path) -> String {
    let shown: PathBuf = path
        .strip_prefix(root)
        .map_or_else(|_| path.to_path_buf(), Path::to_path_buf);
    shown.to_string_lossy().replace('\\', "/")
}
