//! `proctor collect`: the static collection, printed like
//! `pytest --collect-only -q` or as versioned JSON.

use std::fmt::Write as _;
use std::io::Write;
use std::time::Instant;

use anyhow::Result;
use std::path::Path;

use serde::Serialize;

use crate::args::CollectArgs;
use crate::commands::suite::Suite;
use crate::exit;
use crate::printer::Printer;

/// `collect --json`, version 1.
#[derive(Serialize)]
struct JsonDocument<'c> {
    version: u32,
    rootdir: &'c Path,
    inifile: Option<&'c Path>,
    items: &'c [proctor_python::Item],
    errors: &'c [proctor_python::CollectError],
    warnings: &'c [proctor_python::CollectError],
}

pub(crate) fn run(args: &CollectArgs) -> Result<u8> {
    let start = Instant::now();
    let suite = Suite::load(&args.suite)?;
    let collection = suite.collect();
    let mut out = Printer::stdout();
    if args.json {
        // Serialised straight from the collection, without an intermediate
        // document: a large suite has hundreds of thousands of items.
        let doc = JsonDocument {
            version: 1,
            rootdir: &suite.collect.rootdir,
            inifile: suite.config.pytest.inifile.as_deref(),
            items: &collection.items,
            errors: &collection.errors,
            warnings: &collection.warnings,
        };
        serde_json::to_writer(&mut out, &doc)?;
        writeln!(out)?;
    } else {
        for warning in &suite.config.warnings {
            writeln!(out.err(), "warning: {warning}")?;
        }
        for warning in &collection.warnings {
            writeln!(out.err(), "warning: {}: {}", warning.file, warning.message)?;
        }
        for item in &collection.items {
            match &item.dynamic {
                None => writeln!(out, "{}", item.nodeid)?,
                Some(reason) => writeln!(out, "{}  (dynamic: {reason})", item.nodeid)?,
            }
        }
        if !collection.errors.is_empty() {
            writeln!(out)?;
            for error in &collection.errors {
                if error.line > 0 && error.column > 0 {
                    writeln!(out, "ERROR {}:{}:{}: {}", error.file, error.line, error.column, error.message)?;
                } else if error.line > 0 {
                    writeln!(out, "ERROR {}:{}: {}", error.file, error.line, error.message)?;
                } else {
                    writeln!(out, "ERROR {}: {}", error.file, error.message)?;
                }
            }
        }
        let dynamic = collection.items.iter().filter(|i| i.dynamic.is_some()).count();
        let collected = collection.items.len() - dynamic;
        let mut summary = format!("{collected} test{} collected", if collected == 1 { "" } else { "s" });
        if dynamic > 0 {
            let _ = write!(summary, ", {dynamic} dynamic");
        }
        if !collection.errors.is_empty() {
            let n = collection.errors.len();
            let _ = write!(summary, ", {n} error{}", if n == 1 { "" } else { "s" });
        }
        writeln!(out)?;
        writeln!(out, "{summary} in {:.2}s", start.elapsed().as_secs_f64())?;
    }
    out.flush()?;
    let code = if !collection.errors.is_empty() {
        exit::INTERRUPTED
    } else if collection.items.is_empty() {
        exit::NO_TESTS
    } else {
        exit::OK
    };
    // Freeing hundreds of thousands of items just before exiting is wasted
    // work; the process ends right after this.
    std::mem::forget(collection);
    Ok(code)
}
