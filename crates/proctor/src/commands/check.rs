//! `proctor check`: lints the suite against its taxonomy and prints the
//! findings in one of the renderers' formats.

use std::io::Write;

use anyhow::{Context, Result};
use proctor_lint::RuleSelection;
use proctor_source::{render, Format, Severity, Sources};
use proctor_taxonomy::Taxonomy;

use crate::args::{CheckArgs, OutputFormat, SuiteArgs};
use crate::commands::suite::Suite;
use crate::printer::Printer;

/// No findings, or only information.
pub(crate) const CLEAN: u8 = 0;
/// Errors or warnings were found.
pub(crate) const FINDINGS: u8 = 1;
/// The check could not run (bad usage or configuration), or some files
/// could not be collected, so the check is incomplete.
pub(crate) const ERROR: u8 = 2;

pub(crate) fn run(args: &CheckArgs) -> Result<u8> {
    let selection = RuleSelection::new(&args.select, &args.ignore)?;
    let suite_args = SuiteArgs {
        paths: args.paths.clone(),
        rootdir: args.rootdir.clone(),
        config_file: args.config_file.clone(),
        ignore: Vec::new(),
        ignore_glob: Vec::new(),
        threads: args.threads,
    };
    let suite = Suite::load(&suite_args)?;
    let taxonomy = Taxonomy::new(&suite.config.proctor.taxonomy).context("invalid taxonomy")?;
    let (mut collection, mut diagnostics, mut sources) = lint(&suite, &taxonomy, &selection);
    let mut fixed = 0;
    if args.fix {
        for file in proctor_source::apply_fixes(&diagnostics, &sources) {
            let path = suite.collect.rootdir.join(&file.file);
            std::fs::write(&path, &file.text).with_context(|| format!("cannot write the fixes to {}", path.display()))?;
            fixed += file.fixed;
        }
        if fixed > 0 {
            (collection, diagnostics, sources) = lint(&suite, &taxonomy, &selection);
        }
    }
    let format = match args.format {
        OutputFormat::Full => Format::Full,
        OutputFormat::Concise => Format::Concise,
        OutputFormat::Json => Format::Json,
        OutputFormat::Github => Format::Github,
    };
    let mut out = Printer::stdout();
    for warning in &suite.config.warnings {
        writeln!(out.err(), "warning: {warning}")?;
    }
    for error in &collection.errors {
        match (error.line, error.column) {
            (0, _) => writeln!(out.err(), "error: {}: {}", error.file, error.message)?,
            (line, 0) => writeln!(out.err(), "error: {}:{line}: {}", error.file, error.message)?,
            (line, column) => writeln!(out.err(), "error: {}:{line}:{column}: {}", error.file, error.message)?,
        }
    }
    out.write_all(render(format, &diagnostics, &sources).as_bytes())?;
    if matches!(format, Format::Full | Format::Concise) {
        if args.fix {
            writeln!(out, "Fixed {fixed} finding{}.", if fixed == 1 { "" } else { "s" })?;
        }
        writeln!(out, "{}", summary(&diagnostics))?;
    }
    out.flush()?;
    let failing = diagnostics.iter().any(|d| d.severity != Severity::Info);
    Ok(if !collection.errors.is_empty() {
        ERROR
    } else if failing {
        FINDINGS
    } else {
        CLEAN
    })
}

/// Collects the suite and checks it, reading the files findings are in.
fn lint(suite: &Suite, taxonomy: &Taxonomy, selection: &RuleSelection) -> (proctor_python::Collection, Vec<proctor_source::Diagnostic>, Sources) {
    let collection = suite.collect();
    let mut sources = Sources::new(suite.collect.rootdir.clone());
    let diagnostics = proctor_lint::check(&collection.items, taxonomy, selection, &mut sources);
    (collection, diagnostics, sources)
}

/// `Found 3 findings (2 errors, 1 warning).` or `All checks passed.`
fn summary(diagnostics: &[proctor_source::Diagnostic]) -> String {
    if diagnostics.is_empty() {
        return "All checks passed.".to_owned();
    }
    let count = |severity| diagnostics.iter().filter(|d| d.severity == severity).count();
    let parts: Vec<String> = [(Severity::Error, "error", "errors"), (Severity::Warning, "warning", "warnings"), (Severity::Info, "info", "info")]
        .into_iter()
        .filter_map(|(severity, one, many)| match count(severity) {
            0 => None,
            1 => Some(format!("1 {one}")),
            n => Some(format!("{n} {many}")),
        })
        .collect();
    let n = diagnostics.len();
    format!("Found {n} finding{} ({}).", if n == 1 { "" } else { "s" }, parts.join(", "))
}
