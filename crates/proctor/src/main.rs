//! The `proctor` binary: argument parsing, wiring, error reporting and exit
//! codes. Every command lives in its own module under `commands/`.

mod allocator;
mod args;
mod commands;
mod exit;
mod printer;
mod settings;

use std::io::Write;
use std::process::ExitCode;

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::Parser;

fn main() -> ExitCode {
    // Return freed memory to the system after 10 ms, not mimalloc v3's
    // default of a second: collection frees each module's syntax tree as
    // soon as the module is done, and kept for a second those pages raised
    // peak memory by about half. Returned at once (a delay of 0), every
    // page freed and taken again within the same phase is faulted in anew:
    // on packaging a third of a cold collection's CPU time, for 1 to 4 MiB
    // less peak memory than with 10 ms. The `no_thp` feature goes with it:
    // with transparent huge pages, every page returned and taken again is a
    // 2 MiB page the kernel zeroes. Blocks of 128 KiB or more are not
    // mimalloc's and are unmapped when freed (allocator.rs).
    // SAFETY: sets a process-wide allocator option before any thread starts;
    // 15 is `mi_option_purge_delay` in mimalloc v3's `mi_option_t`.
    unsafe { libmimalloc_sys::mi_option_set(15, 10) };
    // Leave the process's memory to the kernel at exit: mimalloc's exit
    // hook otherwise walks every page it holds to free and purge it, work
    // the kernel's unmapping of the whole process does anyway (about a
    // millisecond on a large suite's collection). A value above 1 of
    // `mi_option_destroy_on_exit` (22 in v3's `mi_option_t`) makes the
    // hook return at once; Rust's own exit path (flushing standard
    // output) runs before it either way.
    // SAFETY: as above.
    unsafe { libmimalloc_sys::mi_option_set(22, 2) };
    let cli = match args::Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => return usage_error(err),
    };
    printer::init_color(cli.color);
    let result = match &cli.command {
        args::Command::Collect(collect) => commands::collect::run(collect),
        args::Command::Select(select) => commands::select::run(select),
        args::Command::Explain(explain) => commands::explain::run(explain),
        args::Command::Plan(plan) => commands::plan::run(plan),
        args::Command::Run(run) => commands::run::run(run),
        args::Command::Check(check) => commands::check::run(check),
        args::Command::Rule(rule) => commands::rule::run(rule),
        args::Command::Ci(ci) => commands::ci::run(ci),
        args::Command::Caps(caps) => commands::caps::run(caps),
        args::Command::Coverage(coverage) => commands::coverage::run(coverage),
        args::Command::Report(report) => commands::report::run(report),
        args::Command::Completions(completions) => commands::completions::run(completions),
        args::Command::Init(init) => commands::init::run(init),
        args::Command::Cache(cache) => commands::cache::run(cache),
        args::Command::Config(config) => commands::config::run(config),
    };
    // `check` and `coverage` have their own exit codes, like ruff's.
    let error_code = match cli.command {
        args::Command::Check(_) => commands::check::ERROR,
        args::Command::Coverage(_) => commands::coverage::ERROR,
        _ => exit::USAGE,
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(err) => {
            // A closed pipe (`proctor collect | head`) is not an error.
            if err.chain().any(|c| {
                c.downcast_ref::<std::io::Error>()
                    .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
            }) {
                return ExitCode::from(exit::OK);
            }
            let mut stderr = printer::stderr();
            let _ = printer::error(&mut stderr, &err.to_string());
            for cause in err.chain().skip(1) {
                let _ = writeln!(stderr, "  caused by: {cause}");
            }
            ExitCode::from(error_code)
        }
    }
}

/// A command line clap refused: `--help` and `--version` print and exit
/// 0; anything else is a usage error, with pytest's status 4 (`check` and
/// `coverage`, like ruff, exit 2 when they cannot run), and, for an
/// option `proctor run` does not know, a hint to pass it to pytest.
fn usage_error(mut err: clap::Error) -> ExitCode {
    if !err.use_stderr() {
        let _ = err.print();
        return ExitCode::from(exit::OK);
    }
    let argv: Vec<String> = std::env::args().collect();
    let command = command_name(&argv);
    if command == "run" && err.kind() == ErrorKind::UnknownArgument {
        if let Some(ContextValue::String(unknown)) = err.get(ContextKind::InvalidArg).cloned() {
            let hint = pytest_option_hint(&argv, &unknown);
            err.insert(
                ContextKind::Suggested,
                ContextValue::StyledStrs(vec![hint.into()]),
            );
        }
    }
    let _ = err.print();
    ExitCode::from(match command {
        "check" => commands::check::ERROR,
        "coverage" => commands::coverage::ERROR,
        _ => exit::USAGE,
    })
}

/// The command of `argv`, after the global `--color WHEN` when it comes
/// first.
fn command_name(argv: &[String]) -> &str {
    let mut rest = argv.get(1..).unwrap_or_default();
    loop {
        match rest.first().map(String::as_str) {
            Some("--color") => rest = rest.get(2..).unwrap_or_default(),
            Some(flag) if flag.starts_with("--color=") => rest = &rest[1..],
            Some(command) => return command,
            None => return "",
        }
    }
}

/// `pass pytest options after --: proctor run -- --tb=short`, with the
/// option's value when it is the next argument and not a path.
fn pytest_option_hint(argv: &[String], unknown: &str) -> String {
    if unknown == "--numprocesses" || unknown.starts_with("--numprocesses=") {
        return "pytest-xdist's workers are not supported: `proctor run -n N` runs workers of proctor's own".to_owned();
    }
    // clap names `--tb` of `--tb=short`: the argument as typed is shown.
    let with_value = format!("{unknown}=");
    let at = argv
        .iter()
        .skip(2)
        .position(|a| a == unknown || a.starts_with(&with_value))
        .map(|at| at + 2);
    let mut option = at.map_or_else(|| unknown.to_owned(), |at| argv[at].clone());
    if !option.contains('=') {
        if let Some(value) = at
            .and_then(|at| argv.get(at + 1))
            .filter(|v| !v.starts_with('-') && !std::path::Path::new(v.as_str()).exists())
        {
            option = format!("{option} {value}");
        }
    }
    format!("pass pytest options after --: proctor run -- {option}")
}

/// mimalloc: collection allocates many small nodes from several threads;
/// it is measurably faster than the system allocator here (bench/).
#[global_allocator]
static GLOBAL: allocator::MiMalloc = allocator::MiMalloc;
