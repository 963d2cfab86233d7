//! `proctor check`: lints the suite against its taxonomy and prints the
//! findings in one of the renderers' formats. `--fix` writes the safe fixes
//! and `--diff` shows them, both only for files that still parse once fixed.
//!
//! Configuration errors and files that cannot be collected are diagnostics
//! too (codes `config-error`, `collect-error`), rendered in the same format
//! as the findings; configuration warnings are the findings of PRC201. The rule
//! selection layers the command line over `[check]` as ruff does; findings
//! in `per-file-ignores` and in a `--baseline` are dropped before anything
//! else sees them; information about dynamic items (PRC900) is counted,
//! not listed, unless a selector names it or the format is for machines.

use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};
use proctor_config::ConfigError;
use proctor_lint::{Baseline, PerFileIgnores, RuleSelection};
use proctor_source::{
    render_styled, Diagnostic, FixedFile, Format, LineColumn, RejectedFix, RenderOptions,
    SarifRule, Severity, Sources, COLLECT_ERROR,
};
use proctor_taxonomy::Taxonomy;

use crate::args::{CheckArgs, SuiteArgs};
use crate::commands::suite::Suite;
use crate::printer::{self, Printer};
use crate::settings::{CheckArgsSettings, CheckSettings, Env};

/// No findings, or only information.
pub(crate) const CLEAN: u8 = 0;
/// Errors or warnings were found.
pub(crate) const FINDINGS: u8 = 1;
/// The check could not run (bad usage or configuration), or some files
/// could not be collected, so the check is incomplete.
pub(crate) const ERROR: u8 = 2;

/// A selector at least this long names information rules explicitly
/// (`PRC9`, `PRC900`), as opposed to `ALL` or `PRC`.
const NAMES_A_RULE_GROUP: usize = 4;

/// The rule group whose information is counted rather than listed: what
/// proctor cannot know statically (PRC900, one per dynamic item), which on
/// a large suite is hundreds of lines no one has to act on.
const COUNTED_GROUP: &str = "PRC9";

/// What drops findings after the rules ran: `per-file-ignores`, then the
/// baseline.
struct Filters {
    per_file: PerFileIgnores,
    baseline: Option<Baseline>,
}

pub(crate) fn run(args: &CheckArgs) -> Result<u8> {
    let mut out = Printer::stdout();
    let CheckArgsSettings {
        format,
        ignore_paths,
    } = CheckArgsSettings::resolve(args)?;
    let suite_args = SuiteArgs {
        threads: args.threads,
        ignore: ignore_paths,
        no_cache: args.no_cache,
        ..SuiteArgs::with(&args.config, args.paths.clone())
    };
    let mut suite = match Suite::load(&suite_args, &Env::process()) {
        Ok(suite) => suite,
        Err(err) => return config_failure(err, format, &mut out),
    };
    if suite.config.proctor_file.is_none() && !args.quiet {
        printer::warn(
            out.err(),
            "no proctor config found (`proctor.toml`, or `[tool.proctor]` in `pyproject.toml`): checking against pytest's markers only\n  hint: `proctor init` writes a first config from the suite",
        )?;
    }
    let settings = CheckSettings::resolve(
        args,
        &suite.config.proctor.check,
        suite.config.proctor_file.as_deref(),
    );
    let CheckSettings {
        rules: selection,
        per_file_ignores,
    } = match settings {
        Ok(settings) => settings,
        Err(err) => return config_failure(err, format, &mut out),
    };
    let filters = Filters {
        per_file: per_file_ignores,
        baseline: match &args.baseline {
            Some(path) => Some(read_baseline(path)?),
            None => None,
        },
    };
    // Rules look at what is written, not at pytest's run: one item per
    // test definition (and per instance with marks of its own) is enough.
    suite.collect.definitions_only = true;
    let taxonomy = Taxonomy::new(&suite.config.proctor.taxonomy).context("invalid taxonomy")?;
    let (mut collection, mut diagnostics, mut sources, mut baselined) =
        lint(&suite, &taxonomy, &selection, &filters);
    if let Some(path) = &args.write_baseline {
        return write_baseline(path, &collection, &diagnostics, args.quiet, &mut out);
    }
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
            (collection, diagnostics, sources, baselined) =
                lint(&suite, &taxonomy, &selection, &filters);
        }
    }
    let machine = matches!(format, Format::Json | Format::Sarif);
    // Information is listed when the format is for machines or a selector
    // names its rule; otherwise it is counted.
    let listed = |d: &Diagnostic| {
        d.severity != Severity::Info
            || !d.code.starts_with(COUNTED_GROUP)
            || machine
            || selection.names(d.code, NAMES_A_RULE_GROUP)
    };
    let hidden_info: Vec<Diagnostic> = diagnostics.iter().filter(|d| !listed(d)).cloned().collect();
    let mut shown: Vec<Diagnostic> = other_diagnostics(&collection, &mut sources);
    shown.extend(diagnostics.iter().filter(|d| listed(d)).cloned());
    shown.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    let human = matches!(format, Format::Full | Format::Concise);
    if args.statistics {
        out.write_all(statistics(&shown, format).as_bytes())?;
    } else {
        let rules: Vec<SarifRule<'_>> = proctor_lint::RULES
            .iter()
            .map(|rule| SarifRule {
                code: rule.code,
                name: rule.name,
                summary: rule.summary,
            })
            .collect();
        let options = RenderOptions {
            color: human && out.colored(),
            rules: &rules,
        };
        out.write_all(render_styled(format, &shown, &sources, &options).as_bytes())?;
    }
    if human && !args.quiet {
        if args.fix {
            writeln!(
                out,
                "Fixed {fixed} finding{}.",
                if fixed == 1 { "" } else { "s" }
            )?;
        }
        if baselined > 0 {
            writeln!(
                out,
                "{baselined} finding{} in the baseline not shown.",
                if baselined == 1 { "" } else { "s" }
            )?;
        }
        if let Some(line) = hidden_summary(&hidden_info) {
            writeln!(out, "{line}")?;
        }
        let findings: Vec<&Diagnostic> = diagnostics.iter().filter(|d| listed(d)).collect();
        writeln!(out, "{}", summary(&findings))?;
    }
    out.flush()?;
    let failing = diagnostics.iter().any(|d| d.severity != Severity::Info);
    let code = exit_code(&collection, failing && !args.exit_zero);
    // The process ends after this: the OS takes the memory back at once,
    // where freeing every item and file one by one takes a while.
    std::mem::forget((collection, diagnostics, sources, shown, hidden_info));
    Ok(code)
}

/// A suite whose configuration cannot be loaded: each configuration error
/// (the loader reports every problem of proctor's options at once) is a
/// diagnostic in the chosen format (exit 2); any other error goes to the
/// top-level handler.
fn config_failure(err: anyhow::Error, format: Format, out: &mut Printer) -> Result<u8> {
    let Some(error) = err.chain().find_map(|c| c.downcast_ref::<ConfigError>()) else {
        return Err(err);
    };
    let cwd = std::env::current_dir().unwrap_or_default();
    let mut sources = Sources::new(cwd.clone());
    let mut diagnostics = Vec::new();
    for error in error.iter() {
        let file = shown_path(&cwd, &error.path);
        sources.load(&file);
        let mut diagnostic = error.to_diagnostic(file);
        if let Some(source) = sources.get(&diagnostic.file) {
            diagnostic.locate(source);
        }
        diagnostics.push(diagnostic);
    }
    let options = RenderOptions {
        color: matches!(format, Format::Full | Format::Concise) && out.colored(),
        rules: &[],
    };
    out.write_all(render_styled(format, &diagnostics, &sources, &options).as_bytes())?;
    out.flush()?;
    Ok(ERROR)
}

/// `path` relative to `cwd` when it is below it, `/`-separated.
fn shown_path(cwd: &Path, path: &Path) -> String {
    path.strip_prefix(cwd)
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}

/// The collection's errors, as diagnostics. (The configuration's warnings
/// are PRC201 findings, selected and ignored like any rule.)
fn other_diagnostics(
    collection: &proctor_python::Collection,
    sources: &mut Sources,
) -> Vec<Diagnostic> {
    let mut found = Vec::new();
    for error in &collection.errors {
        let at = LineColumn {
            line: error.line,
            column: error.column.max(usize::from(error.line > 0)),
        };
        let mut end = at;
        end.column += usize::from(at.line > 0);
        let mut diagnostic = Diagnostic::new(
            COLLECT_ERROR,
            Severity::Error,
            error.message.clone(),
            error.file.clone(),
            at,
            end,
        );
        if at.line > 0 {
            sources.load(&diagnostic.file);
            if let Some(source) = sources.get(&diagnostic.file) {
                diagnostic.locate(source);
            }
        }
        found.push(diagnostic);
    }
    found
}

fn read_baseline(path: &Path) -> Result<Baseline> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the baseline {}", path.display()))?;
    Baseline::parse(&text).with_context(|| format!("cannot use the baseline {}", path.display()))
}

/// `--write-baseline`: records the findings (not the information) and
/// exits 0, or 2 when files could not be collected (the baseline would be
/// incomplete, but is written).
fn write_baseline(
    path: &Path,
    collection: &proctor_python::Collection,
    diagnostics: &[Diagnostic],
    quiet: bool,
    out: &mut Printer,
) -> Result<u8> {
    let findings: Vec<Diagnostic> = diagnostics
        .iter()
        .filter(|d| d.severity != Severity::Info)
        .cloned()
        .collect();
    std::fs::write(path, Baseline::of(&findings).to_json())
        .with_context(|| format!("cannot write the baseline {}", path.display()))?;
    report_collect_errors(collection, out)?;
    if !quiet {
        let n = findings.len();
        writeln!(
            out.err(),
            "Wrote {n} finding{} to the baseline {}.",
            if n == 1 { "" } else { "s" },
            path.display()
        )?;
    }
    Ok(exit_code(collection, false))
}

/// `--statistics`: one line per code, most frequent first, as ruff's
/// (`count  code  [*]  name`); a JSON array for `--output-format json`.
fn statistics(diagnostics: &[Diagnostic], format: Format) -> String {
    let mut counts: Vec<(&str, usize, bool)> = Vec::new();
    for d in diagnostics {
        match counts.iter_mut().find(|(code, ..)| *code == d.code) {
            Some(entry) => {
                entry.1 += 1;
                entry.2 |= d.fix.is_some();
            }
            None => counts.push((d.code, 1, d.fix.is_some())),
        }
    }
    counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let name = |code: &str| proctor_lint::rule(code).map_or("", |rule| rule.name);
    if format == Format::Json {
        let rows: Vec<serde_json::Value> = counts
            .iter()
            .map(|&(code, count, fixable)| {
                serde_json::json!({ "code": code, "name": name(code), "count": count, "fixable": fixable })
            })
            .collect();
        let mut text = serde_json::to_string_pretty(&rows).unwrap_or_default();
        text.push('\n');
        return text;
    }
    let width = counts.first().map_or(1, |c| c.1.to_string().len());
    let code_width = counts.iter().map(|c| c.0.len()).max().unwrap_or(0);
    let mut out = String::new();
    for (code, count, fixable) in counts {
        let mark = if fixable { "[*]" } else { "   " };
        out.push_str(
            format!(
                "{count:>width$}\t{code:<code_width$}\t{mark}\t{}",
                name(code)
            )
            .trim_end(),
        );
        out.push('\n');
    }
    out
}

/// `12 information findings not shown (PRC900); list them with
/// --extend-select PRC900.`
fn hidden_summary(hidden: &[Diagnostic]) -> Option<String> {
    if hidden.is_empty() {
        return None;
    }
    let mut codes: Vec<&str> = hidden.iter().map(|d| d.code).collect();
    codes.sort_unstable();
    codes.dedup();
    let n = hidden.len();
    Some(format!(
        "{n} information finding{} not shown ({}); list {} with `--extend-select {}`.",
        if n == 1 { "" } else { "s" },
        codes.join(", "),
        if n == 1 { "it" } else { "them" },
        codes.join(",")
    ))
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

/// Collects the suite and checks it, reading the files findings are in;
/// drops what `filters` drop and says how many the baseline dropped.
fn lint(
    suite: &Suite,
    taxonomy: &Taxonomy,
    selection: &RuleSelection,
    filters: &Filters,
) -> (
    proctor_python::Collection,
    Vec<proctor_source::Diagnostic>,
    Sources,
    usize,
) {
    let collection = suite.collect_whole();
    let mut sources = Sources::new(suite.collect.rootdir.clone());
    let plugins = suite.plugin_files();
    let mut diagnostics = proctor_lint::check_suite(
        &collection,
        &plugins,
        &suite.config,
        taxonomy,
        selection,
        &mut sources,
    );
    diagnostics.retain(|d| !filters.per_file.ignores(d));
    let baselined = filters
        .baseline
        .as_ref()
        .map_or(0, |baseline| baseline.filter(&mut diagnostics));
    (collection, diagnostics, sources, baselined)
}

/// `Found 3 findings (2 errors, 1 warning).` or `All checks passed.`
fn summary(diagnostics: &[&Diagnostic]) -> String {
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
