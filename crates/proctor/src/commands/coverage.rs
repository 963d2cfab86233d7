//! `proctor coverage`: per-area coverage minimums over coverage.py's
//! report, optionally compared with a baseline report.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Result};
use proctor_config::Settings;
use proctor_coverage::{Area, JsonOutput, Report, JSON_VERSION};

use crate::args::{CoverageArgs, CoverageFormat};
use crate::commands::suite::load_config;
use crate::exit;
use crate::printer::Printer;
use crate::settings::Env;

/// Some area is below its minimum, matches no file, or dropped.
pub(crate) const FAILED: u8 = 1;
/// A report cannot be read or the configuration is wrong.
pub(crate) const ERROR: u8 = 2;

/// The report read when neither the command line nor `[coverage] report`
/// names one, relative to the rootdir.
const DEFAULT_REPORT: &str = "coverage.json";

pub(crate) fn run(args: &CoverageArgs) -> Result<u8> {
    let (cwd, config) = load_config(&args.config, &[], &Env::process())?;
    let areas = areas(&config)?;
    if !args.tolerance.is_finite() || args.tolerance < 0.0 {
        bail!(
            "`--tolerance {}` must be a number of points, 0 or more",
            args.tolerance
        );
    }
    let report_path = report_path(args, &config, &cwd);
    let root = config.pytest.rootdir.display().to_string();
    let read = |path: &Path| -> Result<Report> {
        let mut report = proctor_coverage::read_report(path)?;
        report.relative_to(&root);
        Ok(report)
    };
    let report = read(&report_path)?;
    let baseline = args
        .baseline
        .as_ref()
        .map(|path| read(&cwd.join(path)))
        .transpose()?;
    let evaluation =
        proctor_coverage::evaluate(&report, &areas, baseline.as_ref(), args.tolerance)?;
    let shown = |path: &Path| {
        path.strip_prefix(&cwd)
            .unwrap_or(path)
            .display()
            .to_string()
    };
    let baseline_shown = args.baseline.as_ref().map(|path| shown(&cwd.join(path)));
    let mut out = Printer::stdout();
    let format = if args.json {
        CoverageFormat::Json
    } else {
        args.format
    };
    match format {
        CoverageFormat::Human => {
            let text = proctor_coverage::render_human(
                &evaluation,
                &shown(&report_path),
                &report,
                baseline_shown.as_deref(),
            );
            write!(out, "{text}")?;
        }
        CoverageFormat::Github => write!(out, "{}", proctor_coverage::render_github(&evaluation))?,
        CoverageFormat::Json => {
            let json = JsonOutput {
                version: JSON_VERSION,
                report: shown(&report_path),
                format: report.format,
                branch_coverage: report.branch,
                baseline: baseline_shown,
                tolerance: args.tolerance,
                passed: evaluation.passed(),
                evaluation: &evaluation,
            };
            serde_json::to_writer_pretty(&mut out, &json)?;
            writeln!(out)?;
        }
    }
    out.flush()?;
    Ok(if evaluation.passed() {
        exit::OK
    } else {
        FAILED
    })
}

/// The configured areas; none is an error.
fn areas(config: &Settings) -> Result<Vec<Area>> {
    let areas: Vec<Area> = config
        .proctor
        .coverage
        .areas
        .iter()
        .map(|area| Area {
            name: area.name.clone(),
            paths: area.paths.clone(),
            line: area.line,
            branch: area.branch,
        })
        .collect();
    if areas.is_empty() {
        let file = config.proctor_file.as_ref().map_or_else(
            || "proctor.toml".to_owned(),
            |path| format!("`{}`", path.display()),
        );
        bail!("no coverage areas configured: add `[[coverage.areas]]` with `name`, `paths` and `line` to {file}");
    }
    Ok(areas)
}

/// The command line's report (relative to the working directory), else
/// `[coverage] report` (relative to the options file), else
/// `coverage.json` in the rootdir.
fn report_path(args: &CoverageArgs, config: &Settings, cwd: &Path) -> PathBuf {
    if let Some(path) = &args.report {
        return cwd.join(path);
    }
    match (&config.proctor.coverage.report, &config.proctor_file) {
        (Some(report), Some(file)) => file.parent().unwrap_or(cwd).join(report),
        (Some(report), None) => config.pytest.rootdir.join(report),
        (None, _) => config.pytest.rootdir.join(DEFAULT_REPORT),
    }
}
