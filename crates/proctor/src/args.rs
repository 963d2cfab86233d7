//! Command-line definitions (clap). Resolved settings live elsewhere; this
//! module only describes what users can type.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// proctor: a pytest suite's test architecture, declared, checked in
/// milliseconds, and run through real pytest.
#[derive(Debug, Parser)]
#[command(name = "proctor", version, about, long_about = None)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// List the tests pytest would collect, without importing anything.
    ///
    /// Prints node ids like `pytest --collect-only -q`. Items that cannot be
    /// known statically (ids from a callable, `pytest_generate_tests`, ...)
    /// are listed as dynamic with the reason.
    Collect(CollectArgs),
    /// Print the node ids a selection picks (`-m`, `-k`, paths, profiles).
    ///
    /// The default selection (`[select] default`, else the `-m` of pytest's
    /// `addopts`), a profile's expressions and the command line's are combined by `and`:
    /// an explicit `-m` never silently replaces the default. The effective
    /// expressions are printed on stderr.
    Select(SelectArgs),
    /// Show why an item has its markers, and which selections pick it.
    Explain(ExplainArgs),
    /// Lint the suite against its taxonomy.
    ///
    /// Exit status: 0 when nothing (but information) is found, 1 when there
    /// are findings, 2 when the check could not run or a file could not be
    /// collected. Suppress one finding with `# proctor: ignore[CODE]` on its
    /// line.
    Check(CheckArgs),
    /// Print the documentation of a lint rule, or list every rule.
    Rule(RuleArgs),
}

/// How `proctor check` prints its findings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum OutputFormat {
    /// Each finding with a code frame and help.
    Full,
    /// One line per finding.
    Concise,
    /// A JSON array.
    Json,
    /// GitHub Actions annotations.
    Github,
}

#[derive(Debug, Args)]
pub(crate) struct CheckArgs {
    /// Files, directories or node ids to check, as for pytest.
    pub(crate) paths: Vec<String>,
    /// Use this rootdir, like pytest's `--rootdir`.
    #[arg(long, value_name = "DIR")]
    pub(crate) rootdir: Option<PathBuf>,
    /// Use this pytest config file, like pytest's `-c`.
    #[arg(short = 'c', long = "config-file", value_name = "FILE")]
    pub(crate) config_file: Option<PathBuf>,
    /// How to print findings.
    #[arg(long, value_enum, default_value_t = OutputFormat::Full)]
    pub(crate) format: OutputFormat,
    /// Only these rules: codes or code prefixes, comma-separated (`PRC00`,
    /// `PRC004`, `ALL`).
    #[arg(long, value_delimiter = ',', value_name = "CODES")]
    pub(crate) select: Vec<String>,
    /// Not these rules: codes or code prefixes, comma-separated.
    #[arg(long, value_delimiter = ',', value_name = "CODES")]
    pub(crate) ignore: Vec<String>,
    /// Apply the safe fixes (marked `[*]`), then report what is left.
    #[arg(long)]
    pub(crate) fix: bool,
    /// Print what `--fix` would change as a unified diff, and write
    /// nothing; exits 1 when there is something to fix.
    #[arg(long)]
    pub(crate) diff: bool,
    /// Parser threads (default: one per core).
    #[arg(long, value_name = "N")]
    pub(crate) threads: Option<usize>,
}

#[derive(Debug, Args)]
pub(crate) struct RuleArgs {
    /// The rule's code (`PRC004`).
    #[arg(required_unless_present = "all", conflicts_with = "all")]
    pub(crate) code: Option<String>,
    /// List every rule: code, name, summary.
    #[arg(long)]
    pub(crate) all: bool,
}

/// `-m`, `-k` and profile options, shared by the commands that select.
#[derive(Debug, Args)]
pub(crate) struct SelectionArgs {
    /// Only items whose markers match this expression (pytest's `-m`).
    #[arg(short = 'm', value_name = "MARKEXPR")]
    pub(crate) markers: Option<String>,
    /// Only items whose names match this expression (pytest's `-k`).
    #[arg(short = 'k', value_name = "EXPRESSION")]
    pub(crate) keywords: Option<String>,
    /// Apply a profile from `[profiles.<NAME>]`.
    #[arg(long, value_name = "NAME")]
    pub(crate) profile: Option<String>,
    /// Do not apply the default selection.
    #[arg(long)]
    pub(crate) no_default_select: bool,
}

#[derive(Debug, Args)]
pub(crate) struct SelectArgs {
    #[command(flatten)]
    pub(crate) suite: SuiteArgs,
    #[command(flatten)]
    pub(crate) selection: SelectionArgs,
    /// Print versioned JSON: the expressions, selected and deselected items.
    #[arg(long)]
    pub(crate) json: bool,
    /// Also write the selected node ids to FILE, one per line, for
    /// `pytest @FILE`.
    #[arg(long, value_name = "FILE")]
    pub(crate) args_file: Option<std::path::PathBuf>,
}

#[derive(Debug, Args)]
pub(crate) struct ExplainArgs {
    /// Node ids to explain; a function's id without `[...]` explains all of
    /// its parametrized items.
    #[arg(required = true)]
    pub(crate) nodeids: Vec<String>,
    /// Use this rootdir, like pytest's `--rootdir`.
    #[arg(long, value_name = "DIR")]
    pub(crate) rootdir: Option<PathBuf>,
    /// Use this pytest config file, like pytest's `-c`.
    #[arg(short = 'c', long = "config-file", value_name = "FILE")]
    pub(crate) config_file: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) selection: SelectionArgs,
}

/// Options shared by every command that reads the suite.
#[derive(Debug, Args)]
pub(crate) struct SuiteArgs {
    /// Files, directories or node ids (`path::Class::test`), as for pytest.
    pub(crate) paths: Vec<String>,
    /// Use this rootdir, like pytest's `--rootdir`.
    #[arg(long, value_name = "DIR")]
    pub(crate) rootdir: Option<PathBuf>,
    /// Use this pytest config file, like pytest's `-c`.
    #[arg(short = 'c', long = "config-file", value_name = "FILE")]
    pub(crate) config_file: Option<PathBuf>,
    /// Ignore this path during collection (repeatable), like pytest.
    #[arg(long, value_name = "PATH")]
    pub(crate) ignore: Vec<String>,
    /// Ignore paths matching this glob (repeatable), like pytest.
    #[arg(long = "ignore-glob", value_name = "GLOB")]
    pub(crate) ignore_glob: Vec<String>,
    /// Parser threads (default: one per core).
    #[arg(long, value_name = "N")]
    pub(crate) threads: Option<usize>,
}

#[derive(Debug, Args)]
pub(crate) struct CollectArgs {
    #[command(flatten)]
    pub(crate) suite: SuiteArgs,
    /// Print versioned JSON instead of node ids.
    #[arg(long)]
    pub(crate) json: bool,
}
