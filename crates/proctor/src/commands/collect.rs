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

/// Writes one item of `collect --json` (its markers are indices into the
/// document's `markers` table) by hand: the bytes `serde_json` writes for the
/// same object, field for field (`nodeid`, `file`, `line`, `markers`,
/// `dynamic`, then `decorators`, `skip`, `markers_uncertain`, `effective`
/// and `recorded` when present), without its per-field machinery, which at
/// tens of thousands of items was most of the document's cost.
fn write_item(
    out: &mut impl Write,
    item: &proctor_python::Item,
    markers: &[usize],
    effective: Option<&[proctor_taxonomy::EffectiveMarker]>,
    recorded: Option<&str>,
) -> Result<()> {
    let mut numbers = itoa::Buffer::new();
    out.write_all(b"{\"nodeid\":")?;
    write_str(out, &item.nodeid)?;
    out.write_all(b",\"file\":")?;
    write_str(out, &item.file)?;
    out.write_all(b",\"line\":")?;
    out.write_all(numbers.format(item.line).as_bytes())?;
    out.write_all(b",\"markers\":[")?;
    for (i, index) in markers.iter().enumerate() {
        if i > 0 {
            out.write_all(b",")?;
        }
        out.write_all(numbers.format(*index).as_bytes())?;
    }
    out.write_all(b"],\"dynamic\":")?;
    match &item.dynamic {
        Some(reason) => write_str(out, reason)?,
        None => out.write_all(b"null")?,
    }
    if !item.decorators.is_empty() {
        out.write_all(b",\"decorators\":")?;
        serde_json::to_writer(&mut *out, &item.decorators)?;
    }
    if let Some(skip) = &item.skip {
        out.write_all(b",\"skip\":")?;
        write_str(out, skip)?;
    }
    if let Some(uncertain) = &item.markers_uncertain {
        out.write_all(b",\"markers_uncertain\":")?;
        write_str(out, uncertain)?;
    }
    if let Some(effective) = effective {
        out.write_all(b",\"effective\":")?;
        serde_json::to_writer(&mut *out, effective)?;
    }
    if let Some(recorded) = recorded {
        out.write_all(b",\"recorded\":")?;
        write_str(out, recorded)?;
    }
    out.write_all(b"}")?;
    Ok(())
}

/// A JSON string as `serde_json` writes it: `"` and `\` escaped, the
/// control characters as `\b`, `\t`, `\n`, `\f`, `\r` or `\u00XX`,
/// everything else (non-ASCII included) as it is. Runs without escapes
/// are copied whole.
fn write_str(out: &mut impl Write, text: &str) -> std::io::Result<()> {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let bytes = text.as_bytes();
    out.write_all(b"\"")?;
    let mut start = 0;
    for (i, &byte) in bytes.iter().enumerate() {
        if byte >= 0x20 && byte != b'"' && byte != b'\\' {
            continue;
        }
        if start < i {
            out.write_all(&bytes[start..i])?;
        }
        start = i + 1;
        match byte {
            b'"' => out.write_all(b"\\\"")?,
            b'\\' => out.write_all(b"\\\\")?,
            b'\x08' => out.write_all(b"\\b")?,
            b'\x0c' => out.write_all(b"\\f")?,
            b'\n' => out.write_all(b"\\n")?,
            b'\r' => out.write_all(b"\\r")?,
            b'\t' => out.write_all(b"\\t")?,
            _ => out.write_all(&[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[usize::from(byte >> 4)],
                HEX[usize::from(byte & 0xf)],
            ])?,
        }
    }
    out.write_all(&bytes[start..])?;
    out.write_all(b"\"")
}

/// Writes `collect --json` straight from the collection. Each distinct
/// marker (a parametrize decorator shared by all its items, a class's
/// marks) is serialised once into the `markers` table, so the document
/// grows with the suite, not with items × argument list.
fn write_json(
    out: &mut impl Write,
    suite: &Suite,
    collection: &proctor_python::Collection,
    taxonomy: Option<&proctor_taxonomy::Taxonomy>,
) -> Result<()> {
    let header = serde_json::to_string(&JsonHeader {
        version: JSON_VERSION,
        rootdir: &suite.collect.rootdir,
        inifile: suite.config.pytest.inifile.as_deref(),
    })?;
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
    let mut indices: Vec<usize> = Vec::new();
    for (i, item) in collection.items.iter().enumerate() {
        if i > 0 {
            out.write_all(b",")?;
        }
        indices.clear();
        indices.extend(item.markers.iter().map(|m| by_address[&Arc::as_ptr(m)]));
        let effective = taxonomy.map(|t| t.effective(item).markers);
        let recorded = collection
            .recorded_in(&item.nodeid)
            .map(|run| format!("recorded in the run of {run}"));
        write_item(
            &mut *out,
            item,
            &indices,
            effective.as_deref(),
            recorded.as_deref(),
        )?;
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

/// pytest's exit status for a collection.
fn exit_code(collection: &proctor_python::Collection) -> u8 {
    if !collection.errors.is_empty() {
        exit::INTERRUPTED
    } else if collection.items.is_empty() {
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
    let collection = suite.collect_memoized(u128::from(hasher.finish()));
    if let Some(proctor_python::Memo::Hit(document)) = &collection.memo {
        // Copied from the memo file as it is (by the kernel where it can).
        out.copy_from(&mut &*document.file)?;
        return Ok(document.first);
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
        document.push(code);
        write_json(&mut document, suite, &collection, None)?;
        document.push(b'\n');
        out.write_all(&document[1..])?;
        out.flush()?;
        proctor_python::store_memo(&suite.collect, slot, &document);
    } else {
        // Nothing to store: written straight to standard output.
        let mut buffered = std::io::BufWriter::with_capacity(1 << 16, &mut *out);
        write_json(&mut buffered, suite, &collection, None)?;
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

#[cfg(test)]
mod tests {
    use super::write_str;

    /// The hand-written string writer gives `serde_json`'s bytes for every
    /// kind of character: plain, quote, backslash, each control character,
    /// DEL, and non-ASCII.
    #[test]
    fn strings_are_written_as_serde_json_writes_them() {
        let mut texts: Vec<String> = vec![
            String::new(),
            "tests/test_a.py::test_x[1-2]".into(),
            "quote \" and backslash \\ and \\\" both".into(),
            "\u{7f} DEL, é, 日本, \u{1F600}, \u{2028}".into(),
        ];
        for byte in 0u8..0x20 {
            texts.push(format!("a{}b", char::from(byte)));
            texts.push(char::from(byte).to_string());
        }
        for text in &texts {
            let mut ours = Vec::new();
            write_str(&mut ours, text).unwrap();
            let theirs = serde_json::to_vec(text).unwrap();
            assert_eq!(
                String::from_utf8_lossy(&ours),
                String::from_utf8_lossy(&theirs),
                "{text:?}"
            );
        }
    }
}
