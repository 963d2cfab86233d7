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
