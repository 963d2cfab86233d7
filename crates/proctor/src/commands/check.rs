//! `proctor check`: lints the suite against its taxonomy and prints the
//! findings in one of the renderers' formats. `--fix` writes the safe fixes
//! and `--diff` shows them, both only for files that still parse once fixed.

use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};
use proctor_lint::RuleSelection;
use proctor_source::{render, Diagnostic, FixedFile, Format, RejectedFix, Severity, Sources};
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
        threads: args.threads,
        no_cache: args.no_cache,
        ..SuiteArgs::with(&args.config, args.paths.clone())
    };
    let mut suite = Suite::load(&suite_args)?;
    // Rules look at what is written, not at pytest's run: one item per
    // test definition (and per instance with marks of its own) is enough.
    suite.collect.definitions_only = true;
    let taxonomy = Taxonomy::new(&suite.config.proctor.taxonomy).context("invalid taxonomy")?;
    let (mut collection, mut diagnostics, mut sources) = lint(&suite, &taxonomy, &selection);
    let mut out = Printer::stdout();
    if args.diff {
        return diff(&suite, &collection, &diagnostics, &sources, &mut out);
    }
    let mut fixed = 0;
    if args.fix {
        let (files, rejected) = proctor_source::verify_fixes(
            proctor_source::apply_fixes(&diagnostics, &sources),
            proctor_python::parses_as,
        );
        report_rejected(&rejected, &mut out)?;
        fixed = write_fixes(&suite.collect.rootdir, &files)?;
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
    for warning in &suite.config.warnings {
        writeln!(out.err(), "warning: {warning}")?;
    }
    report_collect_errors(&collection, &mut out)?;
    out.write_all(render(format, &diagnostics, &sources).as_bytes())?;
    if matches!(format, Format::Full | Format::Concise) {
        if args.fix {
            writeln!(
                out,
                "Fixed {fixed} finding{}.",
                if fixed == 1 { "" } else { "s" }
            )?;
        }
        writeln!(out, "{}", summary(&diagnostics))?;
    }
    out.flush()?;
    let failing = diagnostics.iter().any(|d| d.severity != Severity::Info);
    let code = exit_code(&collection, failing);
    // The process ends after this: the OS takes the memory back at once,
    // where freeing every item and file one by one takes a while.
    std::mem::forget((collection, diagnostics, sources));
    Ok(code)
}

fn exit_code(collection: &proctor_python::Collection, failing: bool) -> u8 {
    if !collection.errors.is_empty() {
        ERROR
    } else if failing {
        FINDINGS
    } else {
        CLEAN
    }
}

/// `--diff`: prints the unified diff of every file `--fix` would change
/// (stdout, so that it can be piped to `git apply`) and a count (stderr);
/// writes nothing. One pass of fixes: overlapping fixes that `--fix` would
/// apply on its second lint are not shown.
fn diff(
    suite: &Suite,
    collection: &proctor_python::Collection,
    diagnostics: &[Diagnostic],
    sources: &Sources,
    out: &mut Printer,
) -> Result<u8> {
    for warning in &suite.config.warnings {
        writeln!(out.err(), "warning: {warning}")?;
    }
    report_collect_errors(collection, out)?;
    let (files, rejected) = proctor_source::verify_fixes(
        proctor_source::apply_fixes(diagnostics, sources),
        proctor_python::parses_as,
    );
    report_rejected(&rejected, out)?;
    let mut fixable = 0;
    for file in &files {
        let Some(source) = sources.get(&file.file) else {
            continue;
        };
        out.write_all(
            proctor_source::unified_diff(&file.file, &source.text, &file.text).as_bytes(),
        )?;
        fixable += file.fixed;
    }
    out.flush()?;
    if fixable > 0 {
        writeln!(
            out.err(),
            "Would fix {fixable} finding{}.",
            if fixable == 1 { "" } else { "s" }
        )?;
    } else if rejected.is_empty() {
        writeln!(out.err(), "No fixes available.")?;
    }
    Ok(exit_code(collection, fixable > 0 || !rejected.is_empty()))
}

/// Writes the fixed files; returns how many findings they fix.
fn write_fixes(rootdir: &Path, files: &[FixedFile]) -> Result<usize> {
    let mut fixed = 0;
    for file in files {
        let path = rootdir.join(&file.file);
        std::fs::write(&path, &file.text)
            .with_context(|| format!("cannot write the fixes to {}", path.display()))?;
        fixed += file.fixed;
    }
    Ok(fixed)
}

/// Reports the files whose fixes were refused because the fixed text would
/// not parse: a bug in a rule's fix, so the file is left as it is.
fn report_rejected(rejected: &[RejectedFix], out: &mut Printer) -> Result<()> {
    for file in rejected {
        let n = file.fixed;
        writeln!(
            out.err(),
            "error: {}: {n} fix{} would break the file ({}); it is left unchanged. Please report this as a proctor bug.",
            file.file,
            if n == 1 { "" } else { "es" },
            file.error
        )?;
    }
    Ok(())
}

fn report_collect_errors(collection: &proctor_python::Collection, out: &mut Printer) -> Result<()> {
    for error in &collection.errors {
        match (error.line, error.column) {
            (0, _) => writeln!(out.err(), "error: {}: {}", error.file, error.message)?,
            (line, 0) => writeln!(out.err(), "error: {}:{line}: {}", error.file, error.message)?,
            (line, column) => writeln!(
                out.err(),
                "error: {}:{line}:{column}: {}",
                error.file,
                error.message
            )?,
        }
    }
    Ok(())
}

/// Collects the suite and checks it, reading the files findings are in.
fn lint(
    suite: &Suite,
    taxonomy: &Taxonomy,
    selection: &RuleSelection,
) -> (
    proctor_python::Collection,
    Vec<proctor_source::Diagnostic>,
    Sources,
) {
    let collection = suite.collect_whole();
    let mut sources = Sources::new(suite.collect.rootdir.clone());
    let plugins = suite.plugin_files();
    let diagnostics = proctor_lint::check_suite(
        &collection,
        &plugins,
        &suite.config,
        taxonomy,
        selection,
        &mut sources,
    );
    (collection, diagnostics, sources)
}

/// `Found 3 findings (2 errors, 1 warning).` or `All checks passed.`
fn summary(diagnostics: &[proctor_source::Diagnostic]) -> String {
    if diagnostics.is_empty() {
        return "All checks passed.".to_owned();
    }
    let count = |severity| {
        diagnostics
            .iter()
            .filter(|d| d.severity == severity)
            .count()
    };
    let parts: Vec<String> = [
        (Severity::Error, "error", "errors"),
        (Severity::Warning, "warning", "warnings"),
        (Severity::Info, "info", "info"),
    ]
    .into_iter()
    .filter_map(|(severity, one, many)| match count(severity) {
        0 => None,
        1 => Some(format!("1 {one}")),
        n => Some(format!("{n} {many}")),
    })
    .collect();
    let n = diagnostics.len();
    format!(
        "Found {n} finding{} ({}).",
        if n == 1 { "" } else { "s" },
        parts.join(", ")
    )
}
