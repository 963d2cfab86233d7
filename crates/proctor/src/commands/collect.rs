//! `proctor collect`: the static collection, printed like
//! `pytest --collect-only -q` or as versioned JSON.

use std::fmt::Write as _;
use std::io::Write;
use std::time::Instant;

use anyhow::Result;
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use serde::Serialize;

use crate::args::CollectArgs;
use crate::commands::suite::Suite;
use crate::exit;
use crate::printer::Printer;

/// The header of `collect --json`, version 1.
#[derive(Serialize)]
struct JsonHeader<'c> {
    version: u32,
    rootdir: &'c Path,
    inifile: Option<&'c Path>,
}

/// One item of `collect --json`, with its markers already serialised.
#[derive(Serialize)]
struct JsonItem<'c> {
    nodeid: &'c str,
    file: &'c str,
    line: usize,
    markers: Vec<&'c serde_json::value::RawValue>,
    dynamic: Option<&'c str>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    decorators: &'c [Arc<proctor_python::Decorator>],
    #[serde(skip_serializing_if = "Option::is_none")]
    effective: Option<Vec<proctor_taxonomy::EffectiveMarker>>,
}

/// Writes `collect --json` straight from the collection. Markers shared by
/// many items (a parametrize decorator, a class's marks) are serialised once.
fn write_json(out: &mut impl Write, suite: &Suite, collection: &proctor_python::Collection, taxonomy: Option<&proctor_taxonomy::Taxonomy>) -> Result<()> {
    let header = serde_json::to_string(&JsonHeader {
        version: 1,
        rootdir: &suite.collect.rootdir,
        inifile: suite.config.pytest.inifile.as_deref(),
    })?;
    // Reopen the header object to append the item list.
    out.write_all(&header.as_bytes()[..header.len() - 1])?;
    out.write_all(b",\"items\":[")?;
    let mut cache: HashMap<*const proctor_python::Marker, Box<serde_json::value::RawValue>> = HashMap::new();
    for item in &collection.items {
        for marker in &item.markers {
            if let std::collections::hash_map::Entry::Vacant(slot) = cache.entry(Arc::as_ptr(marker)) {
                slot.insert(serde_json::value::to_raw_value(marker.as_ref())?);
            }
        }
    }
    for (i, item) in collection.items.iter().enumerate() {
        if i > 0 {
            out.write_all(b",")?;
        }
        let json_item = JsonItem {
            nodeid: &item.nodeid,
            file: &item.file,
            line: item.line,
            markers: item.markers.iter().map(|m| cache[&Arc::as_ptr(m)].as_ref()).collect(),
            dynamic: item.dynamic.as_deref(),
            decorators: &item.decorators,
            effective: taxonomy.map(|t| t.effective(item).markers),
        };
        serde_json::to_writer(&mut *out, &json_item)?;
    }
    out.write_all(b"],\"errors\":")?;
    serde_json::to_writer(&mut *out, &collection.errors)?;
    out.write_all(b",\"warnings\":")?;
    serde_json::to_writer(&mut *out, &collection.warnings)?;
    out.write_all(b"}")?;
    Ok(())
}

pub(crate) fn run(args: &CollectArgs) -> Result<u8> {
    let start = Instant::now();
    let suite = Suite::load(&args.suite)?;
    let taxonomy = if args.effective { Some(proctor_taxonomy::Taxonomy::new(&suite.config.proctor.taxonomy)?) } else { None };
    let collection = suite.collect();
    let mut out = Printer::stdout();
    if args.json {
        write_json(&mut out, &suite, &collection, taxonomy.as_ref())?;
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
