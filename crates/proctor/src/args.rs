//! Command-line definitions (clap). Resolved settings live elsewhere; this
//! module only describes what users can type.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// proctor: a pytest suite's test architecture, declared, checked in
/// milliseconds, and run through real pytest.
#[derive(Debug, Parser)]
#[command(name = "proctor", version, about, long_about = None)]
pub(crate) struct Cli {
    /// When to colour the output: `auto` (on a terminal, unless `NO_COLOR`
    /// is set; `FORCE_COLOR` forces it), `always` or `never`.
    #[arg(long, global = true, value_enum, value_name = "WHEN", default_value_t = ColorWhen::Auto)]
    pub(crate) color: ColorWhen,
    #[command(subcommand)]
    pub(crate) command: Command,
}

/// `--color`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ColorWhen {
    /// Colour on a terminal; `NO_COLOR` turns it off, `FORCE_COLOR` on.
    Auto,
    /// Always colour, even into a pipe or a file.
    Always,
    /// Never colour.
    Never,
}

#[derive(Debug, Subcommand)]
#[expect(
    clippy::large_enum_variant,
    reason = "parsed once per process; boxing buys nothing"
)]
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
    /// What each CI job runs, the tests no job runs, and what runs here.
    ///
    /// Exit status: 0 when every test is run by some job (or no job is
    /// configured), 1 when some test is run by no job, 2 when files could
    /// not be collected, 4 on bad usage or configuration.
    Plan(PlanArgs),
    /// Run the suite through real pytest, with proctor's selection, gates
    /// and needs applied to the items pytest collects.
    ///
    /// Arguments after `--` go to pytest unchanged. Exit status is
    /// pytest's: 0 all passed, 1 some failed (or crashed, or timed out), 2
    /// interrupted, 3 internal error, 4 usage error, 5 no tests ran. A run
    /// that passed but whose pytest then exited otherwise (a crash at
    /// interpreter shutdown) exits with that status, as bare pytest would.
    Run(RunArgs),
    /// Lint the suite against its taxonomy.
    ///
    /// Exit status: 0 when nothing (but information) is found, 1 when there
    /// are findings, 2 when the check could not run or a file could not be
    /// collected. Suppress one finding with `# proctor: ignore[CODE]` on its
    /// line.
    Check(CheckArgs),
    /// Print the documentation of a lint rule, or list every rule.
    Rule(RuleArgs),
    /// Generate CI configuration from the jobs in `[jobs.<name>]`.
    ///
    /// `proctor ci github` prints a GitHub Actions workflow with one job per
    /// proctor job. Exit status: 0 on success, 4 on bad usage or
    /// configuration (no jobs, an unknown `--job`).
    Ci(CiArgs),
    /// Show what this machine offers tests: CPUs, RAM, GPUs, the Python
    /// interpreter and its packages, services, environment variables (set
    /// or not, never their values) and programs.
    ///
    /// Nothing Python is imported; `--assume` overrides what is detected.
    /// Exit status: 0, or 4 on a bad `--assume` or configuration.
    Caps(CapsArgs),
    /// Check per-area coverage minimums (`[[coverage.areas]]`) against
    /// coverage.py's JSON report or a Cobertura XML report.
    ///
    /// With `--baseline`, an area also fails when its coverage dropped by
    /// more than `--tolerance` points. Exit status: 0 when every area
    /// passes, 1 when one fails or dropped, 2 when a report cannot be read
    /// or the configuration is wrong (see docs/coverage.md).
    Coverage(CoverageArgs),
    /// Render a saved `proctor run --json` report again, as HTML.
    ///
    /// `proctor report --from result.json --html report.html` writes the
    /// page `proctor run --html` would have written for that run. Exit
    /// status: 0, or 4 when the JSON report cannot be read (missing, not
    /// JSON, another version) or the page cannot be written.
    Report(ReportArgs),
    /// Write a first, commented proctor configuration from what the suite
    /// already has: pytest's markers and `addopts -m`, conftest hooks,
    /// helpers, and the `pytest` runs of `.github/workflows/*.yml`.
    ///
    /// Prints what it inferred and what it could not, then `proctor plan`
    /// under the new configuration. Exit status: 0, or 4 when a
    /// configuration exists (without `--force`) or the suite's config
    /// cannot be read.
    Init(InitArgs),
    /// Print a shell completion script, or the man page.
    ///
    /// `proctor completions bash > ~/.local/share/bash-completion/completions/proctor`;
    /// `proctor completions man > proctor.1`.
    Completions(CompletionsArgs),
    /// Manage the collection cache (`.proctor/cache/` in the rootdir).
    ///
    /// `proctor cache clean` removes it; the next command that collects
    /// builds it again. Exit status: 0, or 4 when it cannot be removed.
    Cache(CacheArgs),
    /// Print what describes proctor's configuration.
    ///
    /// `proctor config schema` prints the JSON schema of `proctor.toml`
    /// (the file `docs/proctor.schema.json`), for editors that check TOML
    /// against a schema. Exit status: 0.
    Config(ConfigCommandArgs),
}

#[derive(Debug, Args)]
pub(crate) struct ConfigCommandArgs {
    #[command(subcommand)]
    pub(crate) command: ConfigCommand,
}

/// What `proctor config` prints.
#[derive(Debug, Subcommand)]
pub(crate) enum ConfigCommand {
    /// The JSON schema of proctor's options (draft 7).
    Schema,
}

#[derive(Debug, Args)]
pub(crate) struct InitArgs {
    #[command(flatten)]
    pub(crate) config: ConfigArgs,
    /// Print the configuration (stdout) and the notes (stderr); write
    /// nothing.
    #[arg(long)]
    pub(crate) dry_run: bool,
    /// Replace an existing proctor configuration.
    #[arg(long)]
    pub(crate) force: bool,
}

#[derive(Debug, Args)]
pub(crate) struct CompletionsArgs {
    /// The shell to complete in, or `man` for the man page (roff).
    #[arg(value_enum)]
    pub(crate) shell: CompletionTarget,
}

/// What `proctor completions` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum CompletionTarget {
    /// Bash.
    Bash,
    /// Zsh.
    Zsh,
    /// Fish.
    Fish,
    /// Elvish.
    Elvish,
    /// `PowerShell`.
    Powershell,
    /// The man page, `proctor(1)`, in roff.
    Man,
}

#[derive(Debug, Args)]
pub(crate) struct CacheArgs {
    #[command(subcommand)]
    pub(crate) command: CacheCommand,
    #[command(flatten)]
    pub(crate) config: ConfigArgs,
}

/// What `proctor cache` does.
#[derive(Debug, Subcommand)]
pub(crate) enum CacheCommand {
    /// Remove the collection cache.
    Clean,
}

#[derive(Debug, Args)]
pub(crate) struct ReportArgs {
    /// The JSON report of a run (`proctor run --json PATH`).
    #[arg(long = "from", value_name = "PATH")]
    pub(crate) from: PathBuf,
    /// Write the self-contained HTML report here.
    #[arg(long, value_name = "PATH")]
    pub(crate) html: PathBuf,
}

#[derive(Debug, Args)]
pub(crate) struct CiArgs {
    #[command(subcommand)]
    pub(crate) command: CiCommand,
}

/// The CI systems `proctor ci` writes configuration for.
#[derive(Debug, Subcommand)]
pub(crate) enum CiCommand {
    /// Print a GitHub Actions workflow: one job per proctor job, with its
    /// trigger, Python matrix, shards, environment and services.
    Github(CiGithubArgs),
}

/// What runs the tests in a generated CI job.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum CiRunner {
    /// `proctor run --job NAME`: gates, phases and shards as configured.
    Proctor,
    /// A plain `pytest -m ... -k ... PATHS FLAGS` command.
    Pytest,
}

#[derive(Debug, Args)]
pub(crate) struct CiGithubArgs {
    #[command(flatten)]
    pub(crate) config: ConfigArgs,
    /// Only this job (repeatable; default: every job).
    #[arg(long = "job", value_name = "NAME")]
    pub(crate) jobs: Vec<String>,
    /// Write the workflow to this file instead of stdout.
    #[arg(long, short = 'o', value_name = "PATH")]
    pub(crate) output: Option<PathBuf>,
    /// The workflow's name.
    #[arg(long, value_name = "NAME", default_value = "proctor")]
    pub(crate) name: String,
    /// The branch whose pushes run the `pr` jobs.
    #[arg(long, value_name = "BRANCH", default_value = "main")]
    pub(crate) branch: String,
    /// When the `nightly` jobs run, in cron syntax (UTC).
    #[arg(long, value_name = "CRON", default_value = "0 3 * * *")]
    pub(crate) cron: String,
    /// The shell command that installs the project and pytest.
    #[arg(long, value_name = "CMD", default_value = "pip install -e . pytest")]
    pub(crate) install: String,
    /// What runs the tests: `proctor run --job NAME`, or plain pytest with
    /// the job's `-m`, `-k`, paths and flags.
    #[arg(long, value_enum, default_value_t = CiRunner::Proctor)]
    pub(crate) runner: CiRunner,
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
    /// A SARIF 2.1.0 log, for code scanning.
    Sarif,
}

#[derive(Debug, Args)]
#[expect(
    clippy::struct_excessive_bools,
    reason = "each is a flag users type, as ruff's are"
)]
pub(crate) struct CheckArgs {
    /// Files, directories or node ids to check, as for pytest.
    pub(crate) paths: Vec<String>,
    #[command(flatten)]
    pub(crate) config: ConfigArgs,
    /// How to print findings (`--format` is an alias).
    #[arg(
        long = "output-format",
        alias = "format",
        value_enum,
        value_name = "FORMAT",
        default_value_t = OutputFormat::Full
    )]
    pub(crate) format: OutputFormat,
    /// The same as `--output-format json`: `--json` asks every command
    /// that prints data for JSON.
    #[arg(long, conflicts_with = "format")]
    pub(crate) json: bool,
    /// Only these rules: codes or code prefixes, comma-separated (`PRC00`,
    /// `PRC004`, `ALL`); replaces `[check] select`.
    #[arg(long, value_delimiter = ',', value_name = "CODES")]
    pub(crate) select: Vec<String>,
    /// These rules too, on top of the selection (`[check] extend-select`).
    #[arg(long, value_delimiter = ',', value_name = "CODES")]
    pub(crate) extend_select: Vec<String>,
    /// Not these rules: codes or code prefixes, comma-separated, added to
    /// `[check] ignore`.
    #[arg(long, value_delimiter = ',', value_name = "CODES")]
    pub(crate) extend_ignore: Vec<String>,
    /// Ignore this path during collection (repeatable), like pytest. Rule
    /// codes go to `--extend-ignore` (a code here is an error).
    #[arg(long, value_name = "PATH")]
    pub(crate) ignore: Vec<String>,
    /// Apply the safe fixes (marked `[*]`), then report what is left.
    #[arg(long)]
    pub(crate) fix: bool,
    /// Print what `--fix` would change as a unified diff, and write
    /// nothing; exits 1 when there is something to fix.
    #[arg(long)]
    pub(crate) diff: bool,
    /// Print a count of findings per rule instead of the findings.
    #[arg(long)]
    pub(crate) statistics: bool,
    /// Exit 0 even when there are findings (2 still means the check could
    /// not run or was incomplete).
    #[arg(long)]
    pub(crate) exit_zero: bool,
    /// Print the findings and nothing else: no summary, no count of the
    /// information left out, no warnings.
    #[arg(short, long)]
    pub(crate) quiet: bool,
    /// Do not report the findings recorded in this baseline file
    /// (`--write-baseline`); new findings are reported as usual.
    #[arg(long, value_name = "FILE")]
    pub(crate) baseline: Option<PathBuf>,
    /// Record every current finding in this baseline file, report nothing
    /// and exit 0.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["baseline", "fix", "diff"])]
    pub(crate) write_baseline: Option<PathBuf>,
    /// Parser threads (default and most: one per core).
    #[arg(long, value_name = "N")]
    pub(crate) threads: Option<usize>,
    /// Collect every file anew, neither reading nor writing the collection
    /// cache (`.proctor/cache/`).
    #[arg(long)]
    pub(crate) no_cache: bool,
}

#[derive(Debug, Args)]
pub(crate) struct CapsArgs {
    #[command(flatten)]
    pub(crate) config: ConfigArgs,
    /// Print versioned JSON instead of text.
    #[arg(long)]
    pub(crate) json: bool,
    #[command(flatten)]
    pub(crate) probe: ProbeArgs,
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

#[derive(Debug, Args)]
#[expect(
    clippy::struct_excessive_bools,
    reason = "each is a flag users type, as pytest's are"
)]
pub(crate) struct RunArgs {
    #[command(flatten)]
    pub(crate) suite: SuiteArgs,
    #[command(flatten)]
    pub(crate) selection: SelectionArgs,
    #[command(flatten)]
    pub(crate) machine: MachineArgs,
    /// Run what this CI job runs: its selection, environment and flags.
    #[arg(long, value_name = "NAME")]
    pub(crate) job: Option<String>,
    /// Kill a test (and its pytest process) after this many seconds; the
    /// rest run in a new process (above 0, at most a day).
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true)]
    pub(crate) timeout: Option<f64>,
    /// Write the versioned JSON report here.
    #[arg(long, value_name = "PATH")]
    pub(crate) json: Option<PathBuf>,
    /// Write a `JUnit` XML report here (markers as properties).
    #[arg(long = "junit-xml", value_name = "PATH")]
    pub(crate) junit_xml: Option<PathBuf>,
    /// Write a self-contained HTML report here (one file, opens offline).
    #[arg(long, value_name = "PATH")]
    pub(crate) html: Option<PathBuf>,
    /// More output: `-v` prints every test's outcome as it ends, not only
    /// a progress line; `-vv` adds each test's duration and reason, and
    /// gives pytest the verbosity of `pytest -vv` (full assertion diffs).
    #[arg(short, long, action = clap::ArgAction::Count)]
    pub(crate) verbose: u8,
    /// Less output: `-q` leaves out the header line and prints the
    /// closing line without its `=` rules, as `pytest -q`; `-qq` leaves
    /// out the progress characters too.
    #[arg(short, long, action = clap::ArgAction::Count)]
    pub(crate) quiet: u8,
    /// Stop after the first failure or error (pytest's `-x`, passed to
    /// pytest).
    #[arg(short = 'x', long = "exitfirst")]
    pub(crate) exitfirst: bool,
    /// Stop after N failures or errors (pytest's `--maxfail`, passed to
    /// pytest).
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub(crate) maxfail: Option<i64>,
    /// Run only the tests whose last recorded result in proctor's history
    /// was a failure or an error (like pytest's `--lf`, without its
    /// cache); with none recorded, run every selected test, and say so.
    #[arg(
        long = "lf",
        visible_alias = "last-failed",
        conflicts_with = "no_history"
    )]
    pub(crate) last_failed: bool,
    /// Run the tests whose last recorded result was a failure first, then
    /// the rest (like pytest's `--ff`, from proctor's history).
    #[arg(
        long = "ff",
        visible_alias = "failed-first",
        conflicts_with = "no_history"
    )]
    pub(crate) failed_first: bool,
    /// Which outcomes the short summary lists, as pytest's `-r`: `f`
    /// failed, `E` error, `s` skipped, `x` xfailed, `X` xpassed, `p`
    /// passed, `P` passed with output, `a` all but passes, `A` all, `N`
    /// none (default: the last `-r` of `addopts`, else `fE`).
    #[arg(short = 'r', value_name = "CHARS")]
    pub(crate) report_chars: Option<String>,
    /// Print the node ids the selection runs, from static collection
    /// (nothing is imported, nothing runs); `proctor run -- --co` asks
    /// real pytest instead.
    #[arg(long = "co", visible_alias = "collect-only")]
    pub(crate) collect_only: bool,
    /// Load this pytest plugin, or `no:NAME` to disable one (pytest's
    /// `-p`, passed to pytest; repeatable).
    #[arg(short = 'p', value_name = "NAME")]
    pub(crate) plugins: Vec<String>,
    /// Override an ini option (pytest's `-o`, passed to pytest; proctor's
    /// static pass reads it too; repeatable).
    #[arg(short = 'o', long = "override-ini", value_name = "KEY=VALUE")]
    pub(crate) override_ini: Vec<String>,
    /// The order tests run in: `pytest` (default), `random` (modules, then
    /// classes, then tests, shuffled; the seed is printed), or `by-group`
    /// (grouped by the markers of `--group-by`'s axis, in its order).
    /// Without it, the job's `order`, else `[run] order`, else `pytest`.
    #[arg(long, value_name = "ORDER", value_parser = ["pytest", "random", "by-group"])]
    pub(crate) order: Option<String>,
    /// The seed of `--order random`, to reproduce an order.
    #[arg(long, value_name = "N")]
    pub(crate) seed: Option<u64>,
    /// The axis `--order by-group` groups by.
    #[arg(long, value_name = "AXIS")]
    pub(crate) group_by: Option<String>,
    /// Run one shard of the selected tests, `I/N` (1-based), balanced by
    /// the durations in the run history.
    #[arg(long, value_name = "I/N")]
    pub(crate) shard: Option<String>,
    /// Run each phase in N pytest processes at once (`auto`: one per CPU),
    /// each importing only its share of the files, shared out by the
    /// durations in the run history (file sizes without one).
    #[arg(short = 'n', long = "workers", value_name = "N|auto")]
    pub(crate) workers: Option<String>,
    /// How `-n` shares the tests out, as pytest-xdist's `--dist`: `load`
    /// (the default), `loadfile` and `loadscope` keep each module on one
    /// worker; `loadgroup` also keeps the modules whose tests share an
    /// `xdist_group` name on one.
    #[arg(long, value_enum, value_name = "MODE", requires = "workers")]
    pub(crate) dist: Option<DistArg>,
    /// Do not read or write the run history (`.proctor/history.db`).
    #[arg(long)]
    pub(crate) no_history: bool,
    /// Arguments for pytest, after `--`.
    #[arg(last = true, value_name = "PYTEST_ARGS")]
    pub(crate) pytest_args: Vec<String>,
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

/// What is detected about this machine, with overrides: what `proctor
/// caps` shows and every plan is made for.
#[derive(Debug, Clone, Default, Args)]
pub(crate) struct ProbeArgs {
    /// Override what is detected, to plan for another machine:
    /// `gpu.vram_gb=80`, `service.ollama=up`, `env.OPENAI_API_KEY=set`, ...
    /// (repeatable; see docs/caps.md).
    #[arg(long, value_name = "KEY=VALUE")]
    pub(crate) assume: Vec<String>,
    /// Treat GPU and RAM needs as met (also
    /// `PROCTOR_SKIP_RESOURCE_CHECKS=1`).
    #[arg(long)]
    pub(crate) skip_resource_checks: bool,
    /// The interpreter to ask and that runs pytest (default: config
    /// `python`, `$VIRTUAL_ENV`, `.venv`, then `python3` on `PATH`).
    #[arg(long, value_name = "PATH")]
    pub(crate) python: Option<PathBuf>,
}

/// The machine a plan is for: this one, with overrides, and the flags the
/// run gets.
#[derive(Debug, Default, Args)]
pub(crate) struct MachineArgs {
    #[command(flatten)]
    pub(crate) probe: ProbeArgs,
    /// A flag the run gets, for gates with `run-if-flag` (repeatable):
    /// `--flag=--live`.
    #[arg(long = "flag", value_name = "FLAG", allow_hyphen_values = true)]
    pub(crate) flags: Vec<String>,
}

#[derive(Debug, Args)]
pub(crate) struct PlanArgs {
    #[command(flatten)]
    pub(crate) suite: SuiteArgs,
    #[command(flatten)]
    pub(crate) selection: SelectionArgs,
    #[command(flatten)]
    pub(crate) machine: MachineArgs,
    /// Only this job (its skip reasons are listed too).
    #[arg(long, value_name = "NAME")]
    pub(crate) job: Option<String>,
    /// Print versioned JSON: jobs, unrun tests, this machine, every item.
    #[arg(long)]
    pub(crate) json: bool,
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
    #[command(flatten)]
    pub(crate) config: ConfigArgs,
    #[command(flatten)]
    pub(crate) selection: SelectionArgs,
    /// Collect every file anew, neither reading nor writing the collection
    /// cache (`.proctor/cache/`).
    #[arg(long)]
    pub(crate) no_cache: bool,
}

/// Where the suite's configuration is, as pytest's `--rootdir` and `-c`
/// say; shared by every command that reads it.
#[derive(Debug, Clone, Default, Args)]
pub(crate) struct ConfigArgs {
    /// Use this rootdir, like pytest's `--rootdir`.
    #[arg(long, value_name = "DIR")]
    pub(crate) rootdir: Option<PathBuf>,
    /// Use this pytest config file, like pytest's `-c`.
    #[arg(short = 'c', long = "config-file", value_name = "FILE")]
    pub(crate) config_file: Option<PathBuf>,
}

/// Options shared by every command that reads the suite.
#[derive(Debug, Args)]
pub(crate) struct SuiteArgs {
    /// Files, directories or node ids (`path::Class::test`), as for pytest.
    pub(crate) paths: Vec<String>,
    #[command(flatten)]
    pub(crate) config: ConfigArgs,
    /// Ignore this path during collection (repeatable), like pytest.
    #[arg(long, value_name = "PATH")]
    pub(crate) ignore: Vec<String>,
    /// Ignore paths matching this glob (repeatable), like pytest.
    #[arg(long = "ignore-glob", value_name = "GLOB")]
    pub(crate) ignore_glob: Vec<String>,
    /// Parser threads (default and most: one per core).
    #[arg(long, value_name = "N")]
    pub(crate) threads: Option<usize>,
    /// Collect every file anew, neither reading nor writing the collection
    /// cache (`.proctor/cache/`).
    #[arg(long)]
    pub(crate) no_cache: bool,
}

#[derive(Debug, Args)]
pub(crate) struct CollectArgs {
    #[command(flatten)]
    pub(crate) suite: SuiteArgs,
    /// Print versioned JSON instead of node ids.
    #[arg(long)]
    pub(crate) json: bool,
    /// With `--json`: add each item's effective markers (after the
    /// taxonomy: aliases, decorators, path rules, implications, defaults)
    /// with their provenance, as `effective`.
    #[arg(long, requires = "json")]
    pub(crate) effective: bool,
}

#[derive(Debug, Args)]
pub(crate) struct CoverageArgs {
    /// The report: coverage.py JSON, or Cobertura XML when it ends in
    /// `.xml` (default: `[coverage] report`, else `coverage.json` in the
    /// rootdir).
    #[arg(value_name = "REPORT")]
    pub(crate) report: Option<PathBuf>,
    /// An earlier report to compare with: an area that dropped fails.
    #[arg(long, value_name = "PATH")]
    pub(crate) baseline: Option<PathBuf>,
    /// Points an area may drop below the baseline before it fails.
    #[arg(long, value_name = "PTS", default_value_t = 0.0, requires = "baseline")]
    pub(crate) tolerance: f64,
    /// How to print the result (`--format` is an alias).
    #[arg(
        long = "output-format",
        alias = "format",
        value_enum,
        value_name = "FORMAT",
        default_value_t = CoverageFormat::Human
    )]
    pub(crate) format: CoverageFormat,
    /// The same as `--output-format json`.
    #[arg(long, conflicts_with = "format")]
    pub(crate) json: bool,
    #[command(flatten)]
    pub(crate) config: ConfigArgs,
}

/// The outputs of `proctor coverage`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum CoverageFormat {
    /// A table of areas, then the findings.
    Human,
    /// Versioned JSON.
    Json,
    /// GitHub workflow annotations (`::error title=coverage::...`).
    Github,
}

/// `--dist`'s values, as pytest-xdist names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum DistArg {
    /// Whole modules, longest first, taken as workers finish (proctor
    /// never imports a module in two workers to split it).
    Load,
    /// Whole modules, as `load`.
    #[value(name = "loadfile")]
    LoadFile,
    /// Whole modules, as `load`: every module and class on one worker.
    #[value(name = "loadscope")]
    LoadScope,
    /// Whole modules, and those whose tests share an `xdist_group` on
    /// one worker.
    #[value(name = "loadgroup")]
    LoadGroup,
}
