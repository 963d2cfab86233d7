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
use crate::settings::Env;

/// The version of `collect --json`: 2 lists each distinct marker once, in
/// `markers`, and items refer to them by index.
const JSON_VERSION: u32 = 2;

/// The header of `collect --json`.
#[derive(Serialize)]
struct JsonHeader<'c> {
    version: u32,
    rootdir: &'c Path,
    inifile: Option<&'c Path>,
}

/// The header object of `collect --json`.
fn json_header(suite: &Suite) -> Result<String> {
    Ok(serde_json::to_string(&JsonHeader {
        version: JSON_VERSION,
        rootdir: &suite.collect.rootdir,
        inifile: suite.config.pytest.inifile.as_deref(),
    })?)
}

/// Writes `collect --json` straight from the collection. Each distinct
/// marker (a parametrize decorator shared by all its items, a class's
/// marks) is serialised once into the `markers` table, so the document
/// grows with the suite, not with items × argument list.
fn write_json(
    out: &mut impl Write,
    header: &str,
    collection: &proctor_python::Collection,
    taxonomy: Option<&proctor_taxonomy::Taxonomy>,
) -> Result<()> {
    // The table: by the marker's address first (cheap), then by its JSON,
    // so that equal markers written in different places share an entry.
    let mut by_address: HashMap<*const proctor_python::Marker, usize> = HashMap::new();
    let mut by_json: HashMap<Box<str>, usize> = HashMap::new();
    let mut table: Vec<Box<serde_json::value::RawValue>> = Vec::new();
    for item in &collection.items {
        for marker in &item.markers {
            if let std::collections::hash_map::Entry::Vacant(slot) =
                by_address.entry(Arc::as_ptr(marker))
            {
                let raw = serde_json::value::to_raw_value(marker.as_ref())?;
                let index = *by_json.entry(raw.get().into()).or_insert_with(|| {
                    table.push(raw);
                    table.len() - 1
                });
                slot.insert(index);
            }
        }
    }
    drop(by_json);
    // Reopen the header object to append the tables.
    out.write_all(&header.as_bytes()[..header.len() - 1])?;
    out.write_all(b",\"markers\":")?;
    serde_json::to_writer(&mut *out, &table)?;
    drop(table);
    out.write_all(b",\"items\":[")?;
    // Each item written by the writer the cache's fragments use, so that
    // a document spliced from them has the same bytes.
    let mut buffer = Vec::new();
    for (i, item) in collection.items.iter().enumerate() {
        buffer.clear();
        if i > 0 {
            buffer.push(b',');
        }
        proctor_python::json_item_head(&mut buffer, &item.nodeid, &item.file, item.line);
        proctor_python::json_item_markers(
            &mut buffer,
            item.markers.iter().map(|m| by_address[&Arc::as_ptr(m)]),
        );
        let effective = taxonomy.map(|t| t.effective(item).markers);
        proctor_python::json_item_tail(
            &mut buffer,
            item.dynamic.as_deref(),
            &item.decorators,
            item.skip.as_deref(),
            item.markers_uncertain.as_deref(),
            effective.as_ref(),
            collection.recorded_in(&item.nodeid),
        )?;
        out.write_all(&buffer)?;
    }
    out.write_all(b"],\"errors\":")?;
    serde_json::to_writer(&mut *out, &collection.errors)?;
    if !collection.skipped.is_empty() {
        out.write_all(b",\"skipped\":")?;
        serde_json::to_writer(&mut *out, &collection.skipped)?;
    }
    out.write_all(b",\"warnings\":")?;
    serde_json::to_writer(&mut *out, &collection.warnings)?;
    out.write_all(b"}")?;
    Ok(())
}

/// Standard output as a `File` of its own: a duplicate of its descriptor,
/// writing where it writes (`None` where it cannot be duplicated).
fn stdout_file() -> Option<std::fs::File> {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        std::io::stdout()
            .as_fd()
            .try_clone_to_owned()
            .ok()
            .map(std::fs::File::from)
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// pytest's exit status for a collection.
fn exit_code(collection: &proctor_python::Collection) -> u8 {
    exit_status(collection.errors.len(), collection.items.len())
}

/// pytest's exit status for a collection of `items` with `errors`.
fn exit_status(errors: usize, items: usize) -> u8 {
    if errors > 0 {
        exit::INTERRUPTED
    } else if items == 0 {
        exit::NO_TESTS
    } else {
        exit::OK
    }
}

/// `collect --json` through the cache's memo: with nothing changed since
/// the document was last written, the stored document (its exit status
/// first, then its bytes) is written again without collecting; otherwise
/// the document is rendered and stored.
fn json_memoized(out: &mut Printer, suite: &Suite) -> Result<u8> {
    use std::hash::{Hash as _, Hasher as _};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    JSON_VERSION.hash(&mut hasher);
    suite.collect.rootdir.hash(&mut hasher);
    suite.config.pytest.inifile.hash(&mut hasher);
    let header = json_header(suite)?;
    // Standard output as a file of its own (a duplicate of its
    // descriptor), for a spliced document to be written to on a worker
    // while the memo is written on another.
    out.flush()?;
    let stdout = stdout_file();
    let head = proctor_python::JsonHead {
        json: header.as_bytes(),
        status: exit_status,
        sink: stdout.as_ref(),
    };
    let collection = suite.collect_memoized(u128::from(hasher.finish()), Some(head));
    match &collection.memo {
        Some(proctor_python::Memo::Hit(document)) => {
            // Copied from the memo file as it is (by the kernel where it can).
            out.copy_from(&mut &*document.file)?;
            return Ok(document.first);
        }
        Some(proctor_python::Memo::Rendered(rendered)) => {
            // Spliced from the cache's fragments: the same bytes.
            let code = exit_status(rendered.errors, rendered.items);
            if let Some(sent) = &rendered.sent {
                // Written to standard output as it was spliced.
                sent.as_ref()
                    .map_err(|err| std::io::Error::new(err.kind(), err.to_string()))?;
                return Ok(code);
            }
            if let Some(stored) = &rendered.stored {
                // Written into the memo as it was spliced.
                out.copy_from(&mut &*stored.file)?;
                return Ok(code);
            }
            // Held in memory: it could not be stored.
            out.write_all(&rendered.document)?;
            out.flush()?;
            std::mem::forget(collection);
            return Ok(code);
        }
        _ => {}
    }
    let code = exit_code(&collection);
    if let Some(proctor_python::Memo::Miss(slot)) = &collection.memo {
        // Rendered whole, to be stored; sized for the items at once, as
        // growing a buffer of megabytes copies it and touches new pages.
        let estimate = collection
            .items
            .iter()
            .map(|item| item.nodeid.len() + item.file.len() + 64)
            .sum::<usize>();
        let mut document = Vec::with_capacity(estimate + 4096);
        write_json(&mut document, &header, &collection, None)?;
        document.push(b'\n');
        out.write_all(&document)?;
        out.flush()?;
        proctor_python::store_memo(&suite.collect, slot, code, &[&document]);
    } else {
        // Nothing to store: written straight to standard output.
        let mut buffered = std::io::BufWriter::with_capacity(1 << 16, &mut *out);
        write_json(&mut buffered, &header, &collection, None)?;
        buffered.write_all(b"\n")?;
        buffered.flush()?;
        drop(buffered);
        out.flush()?;
    }
    std::mem::forget(collection);
    Ok(code)
}

pub(crate) fn run(args: &CollectArgs) -> Result<u8> {
    let start = Instant::now();
    let suite = Suite::load(&args.suite, &Env::process())?;
    let taxonomy = if args.effective {
        Some(proctor_taxonomy::Taxonomy::new(
            &suite.config.proctor.taxonomy,
        )?)
    } else {
        None
    };
    let mut out = Printer::stdout();
    if args.json && taxonomy.is_none() {
        return json_memoized(&mut out, &suite);
    }
    let collection = suite.collect();
    if args.json {
        write_json(
            &mut out,
            &json_header(&suite)?,
            &collection,
            taxonomy.as_ref(),
        )?;
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
                    writeln!(
                        out,
                        "ERROR {}:{}:{}: {}",
                        error.file, error.line, error.column, error.message
                    )?;
                } else if error.line > 0 {
                    writeln!(
                        out,
                        "ERROR {}:{}: {}",
                        error.file, error.line, error.message
                    )?;
                } else {
                    writeln!(out, "ERROR {}: {}", error.file, error.message)?;
                }
            }
        }
        let dynamic = collection
            .items
            .iter()
            .filter(|i| i.dynamic.is_some())
            .count();
        let collected = collection.items.len() - dynamic;
        let mut summary = format!(
            "{collected} test{} collected",
            if collected == 1 { "" } else { "s" }
        );
        if dynamic > 0 {
            let _ = write!(summary, ", {dynamic} dynamic");
        }
        let recorded = collection
            .items
            .iter()
            .filter(|i| collection.recorded_in(&i.nodeid).is_some())
            .count();
        if recorded > 0 {
            let _ = write!(summary, " ({recorded} recorded in a run)");
        }
        if !collection.errors.is_empty() {
            let n = collection.errors.len();
            let _ = write!(summary, ", {n} error{}", if n == 1 { "" } else { "s" });
        }
        writeln!(out)?;
        writeln!(out, "{summary} in {:.2}s", start.elapsed().as_secs_f64())?;
    }
    out.flush()?;
    let code = exit_code(&collection);
    // Freeing hundreds of thousands of items just before exiting is wasted
    // work; the process ends right after this.
    std::mem::forget(collection);
    Ok(code)
}
