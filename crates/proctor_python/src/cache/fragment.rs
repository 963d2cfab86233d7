//! `collect --json` assembled from per-module fragments. Every test module
//! cached keeps its items already rendered as the document writes them,
//! in the order pytest's `reorder_items` gives the module on its own, with
//! marker indices local to the module; a warm start after an edit
//! re-collects the edited module and splices the document from the stored
//! fragments: the markers table is merged in first-appearance order and
//! each item's local indices are mapped to the global ones. The item
//! writer here is also the one `collect --json` uses without the cache,
//! so both give the same bytes.

use std::sync::Arc;

use rustc_hash::FxHashMap as HashMap;
use serde::Serialize;

use crate::collector::RawItem;
use crate::model::{CollectError, Decorator, Item, Marker};

/// Writes the start of one item of `collect --json`, up to its marker
/// indices: `{"nodeid":…,"file":…,"line":…,"markers":[`.
pub fn json_item_head(out: &mut Vec<u8>, nodeid: &str, file: &str, line: usize) {
    item_head(out, nodeid, line, |out| json_str(out, file));
}

/// [`json_item_head`], the file written by `file` (a fragment's items copy
/// their module's file, escaped once).
fn item_head(out: &mut Vec<u8>, nodeid: &str, line: usize, file: impl FnOnce(&mut Vec<u8>)) {
    out.extend_from_slice(b"{\"nodeid\":");
    json_str(out, nodeid);
    out.extend_from_slice(b",\"file\":");
    file(out);
    out.extend_from_slice(b",\"line\":");
    push_decimal(out, line);
    out.extend_from_slice(b",\"markers\":[");
}

/// Writes `n` in decimal, as `write!` does, without the formatting
/// machinery (called once per item and per marker index).
fn push_decimal(out: &mut Vec<u8>, mut n: usize) {
    // Most are a marker index or a line number of a few digits: pushed
    // one by one, not through a `memcpy` call.
    if n < 10 {
        out.push(b"0123456789"[n]);
        return;
    }
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b"0123456789"[n % 10];
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.reserve(digits.len() - at);
    for &digit in &digits[at..] {
        out.push(digit);
    }
}

/// Writes the rest of one item of `collect --json`, after its marker
/// indices: `],"dynamic":…` and the optional fields, then `}`.
pub fn json_item_tail<E: Serialize + ?Sized>(
    out: &mut Vec<u8>,
    dynamic: Option<&str>,
    decorators: &[Arc<Decorator>],
    skip: Option<&str>,
    markers_uncertain: Option<&str>,
    effective: Option<&E>,
    recorded: Option<&str>,
) -> serde_json::Result<()> {
    out.extend_from_slice(b"],\"dynamic\":");
    match dynamic {
        Some(reason) => json_str(out, reason),
        None => out.extend_from_slice(b"null"),
    }
    if !decorators.is_empty() {
        out.extend_from_slice(b",\"decorators\":");
        serde_json::to_writer(&mut *out, decorators)?;
    }
    if let Some(skip) = skip {
        out.extend_from_slice(b",\"skip\":");
        json_str(out, skip);
    }
    if let Some(uncertain) = markers_uncertain {
        out.extend_from_slice(b",\"markers_uncertain\":");
        json_str(out, uncertain);
    }
    if let Some(effective) = effective {
        out.extend_from_slice(b",\"effective\":");
        serde_json::to_writer(&mut *out, effective)?;
    }
    if let Some(run) = recorded {
        out.extend_from_slice(b",\"recorded\":");
        json_str(out, &recorded_note(run));
    }
    out.push(b'}');
    Ok(())
}

/// What `collect --json` says of an item a run recorded.
#[must_use]
pub fn recorded_note(run: &str) -> String {
    format!("recorded in the run of {run}")
}

/// A JSON string as `serde_json` writes it: `"` and `\` escaped, the
/// control characters as `\b`, `\t`, `\n`, `\f`, `\r` or `\u00XX`,
/// everything else (non-ASCII included) as it is. Runs without escapes
/// are copied whole, found sixteen bytes at a time: at tens of thousands
/// of items, `serde_json`'s per-string machinery was much of the
/// document's cost.
fn json_str(out: &mut Vec<u8>, text: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let bytes = text.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    let mut start = 0;
    while let Some(at) = crate::byte_search::next_json_escape(bytes, start) {
        out.extend_from_slice(&bytes[start..at]);
        start = at + 1;
        let byte = bytes[at];
        match byte {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\x08' => out.extend_from_slice(b"\\b"),
            b'\x0c' => out.extend_from_slice(b"\\f"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            _ => out.extend_from_slice(&[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[usize::from(byte >> 4)],
                HEX[usize::from(byte & 0xf)],
            ]),
        }
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}

/// Writes `indices` as the comma-separated list inside `"markers":[…]`,
/// between [`json_item_head`] and [`json_item_tail`].
pub fn json_item_markers(out: &mut Vec<u8>, indices: impl Iterator<Item = usize>) {
    for (n, index) in indices.enumerate() {
        if n > 0 {
            out.push(b',');
        }
        push_decimal(out, index);
    }
}

/// One item as the document writes it.
struct View<'v> {
    nodeid: &'v str,
    file: &'v str,
    line: usize,
    markers: &'v [Arc<Marker>],
    dynamic: Option<&'v str>,
    decorators: &'v [Arc<Decorator>],
    skip: Option<&'v str>,
    markers_uncertain: Option<&'v str>,
}

impl<'v> View<'v> {
    fn raw(item: &'v RawItem) -> Self {
        View {
            nodeid: &item.nodeid,
            file: &item.def_file,
            line: item.line,
            markers: &item.markers,
            dynamic: item.dynamic(),
            decorators: item.decorators(),
            skip: item.skip(),
            markers_uncertain: item.markers_uncertain(),
        }
    }
}

/// A module's items rendered, in the order `reorder_items` gives them on
/// their own: see [`render_views`]. `recorded` gives the run an item was
/// recorded in.
pub(crate) fn render(
    items: &[RawItem],
    reorder: bool,
    recorded: &dyn Fn(&str) -> Option<String>,
) -> Vec<u8> {
    render_ordered(items, reorder, recorded).0
}

/// [`render`], and the order the items were rendered in (their indices)
/// when it is not theirs.
pub(crate) fn render_ordered(
    items: &[RawItem],
    reorder: bool,
    recorded: &dyn Fn(&str) -> Option<String>,
) -> (Vec<u8>, Option<Vec<usize>>) {
    let order = render_order(items, reorder);
    (render_in(items, order.as_deref(), recorded), order)
}

/// The order [`render_ordered`] renders `items` in (their indices), when
/// it is not theirs.
pub(crate) fn render_order(items: &[RawItem], reorder: bool) -> Option<Vec<usize>> {
    if reorder {
        crate::reorder::reordered(items)
    } else {
        None
    }
}

/// `items` rendered in `order` (their indices), or in their own order.
pub(crate) fn render_in(
    items: &[RawItem],
    order: Option<&[usize]>,
    recorded: &dyn Fn(&str) -> Option<String>,
) -> Vec<u8> {
    // Sized for the items at once: growing a buffer copies it and touches
    // new pages (a cold run renders every module).
    let capacity = items
        .iter()
        .map(|item| item.nodeid.len() + item.def_file.len() + 4 * item.markers.len() + 80)
        .sum::<usize>();
    match order {
        Some(order) => render_views(
            capacity,
            order.len(),
            order.iter().map(|&i| View::raw(&items[i])),
            recorded,
        ),
        None => render_views(capacity, items.len(), items.iter().map(View::raw), recorded),
    }
}

/// Items given whole (what conftest hooks add) rendered as a fragment.
pub(crate) fn render_items(items: &[Item]) -> Vec<u8> {
    let views = items.iter().map(|item| View {
        nodeid: &item.nodeid,
        file: &item.file,
        line: item.line,
        markers: &item.markers,
        dynamic: item.dynamic.as_deref(),
        decorators: &item.decorators,
        skip: item.skip.as_deref(),
        markers_uncertain: item.markers_uncertain.as_deref(),
    });
    render_views(0, items.len(), views, &|_| None)
}

/// Items rendered as a fragment: per item the bytes before and after its
/// marker indices, with the indices into a local table, then the table:
/// their distinct markers' JSON (in first-appearance order, equal markers
/// once). Encoded as where the table starts, then length-prefixed
/// sections (little-endian `u32` lengths and counts); the table comes
/// last so that the items are written where they stay.
fn render_views<'v>(
    capacity: usize,
    count: usize,
    views: impl Iterator<Item = View<'v>>,
    recorded: &dyn Fn(&str) -> Option<String>,
) -> Vec<u8> {
    let mut by_address: HashMap<*const Marker, u32> = HashMap::default();
    let mut by_json: HashMap<Vec<u8>, u32> = HashMap::default();
    let mut table: Vec<Vec<u8>> = Vec::new();
    let mut body: Vec<u8> = Vec::with_capacity(capacity);
    // The file of the item before, and its JSON string.
    let mut file: Option<&str> = None;
    let mut file_json = Vec::new();
    // Where the markers table starts, once it is known.
    put_u32(&mut body, 0);
    put_u32(&mut body, count);
    for item in views {
        if !file.is_some_and(|f| std::ptr::eq(f, item.file)) {
            file_json.clear();
            json_str(&mut file_json, item.file);
            file = Some(item.file);
        }
        framed(&mut body, |out| {
            item_head(out, item.nodeid, item.line, |out| {
                out.extend_from_slice(&file_json);
            });
        });
        put_u32(&mut body, item.markers.len());
        for marker in item.markers {
            let index = *by_address.entry(Arc::as_ptr(marker)).or_insert_with(|| {
                let json = serde_json::to_vec(marker.as_ref()).unwrap_or_default();
                let next = u32::try_from(table.len()).unwrap_or(u32::MAX);
                *by_json.entry(json).or_insert_with_key(|json| {
                    table.push(json.clone());
                    next
                })
            });
            body.extend_from_slice(&index.to_le_bytes());
        }
        let note = recorded(item.nodeid);
        framed(&mut body, |out| {
            let _ = json_item_tail::<()>(
                out,
                item.dynamic,
                item.decorators,
                item.skip,
                item.markers_uncertain,
                None,
                note.as_deref(),
            );
        });
    }
    let table_at = u32::try_from(body.len()).unwrap_or(u32::MAX);
    body[..4].copy_from_slice(&table_at.to_le_bytes());
    put_u32(&mut body, table.len());
    for json in &table {
        put_bytes(&mut body, json);
    }
    body
}

/// A fragment's two sections: its items, then its markers table.
pub(crate) fn sections(fragment: &[u8]) -> Option<(Reader<'_>, Reader<'_>)> {
    let (at, _) = fragment.split_first_chunk::<4>()?;
    let at = u32::from_le_bytes(*at) as usize;
    Some((
        Reader::new(fragment.get(4..at)?),
        Reader::new(fragment.get(at..)?),
    ))
}

fn put_u32(out: &mut Vec<u8>, n: usize) {
    out.extend_from_slice(&u32::try_from(n).unwrap_or(u32::MAX).to_le_bytes());
}

/// Writes what `write` writes, after its length (as [`put_bytes`] would
/// frame it, without writing it elsewhere first).
fn framed(out: &mut Vec<u8>, write: impl FnOnce(&mut Vec<u8>)) {
    let at = out.len();
    put_u32(out, 0);
    write(out);
    let len = u32::try_from(out.len() - at - 4).unwrap_or(u32::MAX);
    out[at..at + 4].copy_from_slice(&len.to_le_bytes());
}

fn put_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    put_u32(out, bytes.len());
    out.extend_from_slice(bytes);
}

/// A cursor over length-prefixed sections; every read checks its bounds.
pub(crate) struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Reader { bytes }
    }

    pub(crate) fn u32(&mut self) -> Option<u32> {
        let (head, rest) = self.bytes.split_first_chunk::<4>()?;
        self.bytes = rest;
        Some(u32::from_le_bytes(*head))
    }

    pub(crate) fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if n > self.bytes.len() {
            return None;
        }
        let (head, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        Some(head)
    }

    pub(crate) fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = self.u32()? as usize;
        self.take(n)
    }

    /// What is left after the sections read.
    pub(crate) fn rest(&self) -> &'a [u8] {
        self.bytes
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }
}

/// A module's fragment in a [`Document`]: borrowed from the pack or the
/// fresh entries, or rendered for the document (conftest hooks' items,
/// doctest files).
pub(crate) enum Piece<'a> {
    Borrowed(&'a [u8]),
    Owned(Vec<u8>),
}

impl Piece<'_> {
    fn bytes(&self) -> &[u8] {
        match self {
            Piece::Borrowed(bytes) => bytes,
            Piece::Owned(bytes) => bytes,
        }
    }
}

/// The document being spliced: the global markers table, and each
/// module's fragment with where its marker indices map to in the table.
/// The items are not copied: [`Spliced::write_to`] writes them out of the
/// fragments (a 5 MB document was 5 MB more peak memory and a tenth of
/// packaging's cold run).
pub(crate) struct Document<'a> {
    index: HashMap<std::borrow::Cow<'a, [u8]>, usize>,
    table: Vec<std::borrow::Cow<'a, [u8]>>,
    /// Each module's fragment, and the start of its marker map in `map`.
    modules: Vec<(Piece<'a>, usize)>,
    /// The modules' marker maps (a module's local index to the table's),
    /// one after the other.
    map: Vec<usize>,
    count: usize,
    errors: Vec<u8>,
    error_count: usize,
    skipped: Vec<u8>,
}

impl<'a> Document<'a> {
    pub(crate) fn new() -> Self {
        Document {
            index: HashMap::default(),
            table: Vec::new(),
            modules: Vec::new(),
            map: Vec::new(),
            count: 0,
            errors: Vec::new(),
            error_count: 0,
            skipped: Vec::new(),
        }
    }

    /// Appends a module's fragment; `None` when it is damaged (nothing is
    /// then appended that the caller could not discard with the document).
    /// Every item is checked here, so that writing the document cannot
    /// fail on the fragment.
    pub(crate) fn module(&mut self, fragment: Piece<'a>) -> Option<()> {
        let start = self.map.len();
        let items = match &fragment {
            Piece::Borrowed(bytes) => self.check(bytes, std::borrow::Cow::Borrowed),
            Piece::Owned(bytes) => self.check(bytes, |json| std::borrow::Cow::Owned(json.to_vec())),
        };
        let Some(items) = items else {
            self.map.truncate(start);
            return None;
        };
        self.count += items;
        self.modules.push((fragment, start));
        Some(())
    }

    /// Adds the markers of `fragment` to the table (each new one as `key`
    /// makes it) and to the marker map, and checks every item: how many
    /// it has; `None` when it is damaged.
    fn check<'b>(
        &mut self,
        fragment: &'b [u8],
        key: impl Fn(&'b [u8]) -> std::borrow::Cow<'a, [u8]>,
    ) -> Option<usize> {
        let (mut reader, mut markers_reader) = sections(fragment)?;
        let markers = markers_reader.u32()? as usize;
        for _ in 0..markers {
            let json = markers_reader.bytes()?;
            let index = if let Some(&index) = self.index.get(json) {
                index
            } else {
                let next = self.table.len();
                self.index.insert(key(json), next);
                self.table.push(key(json));
                next
            };
            self.map.push(index);
        }
        if !markers_reader.is_empty() {
            return None;
        }
        let items = reader.u32()? as usize;
        for _ in 0..items {
            reader.bytes()?;
            let n = reader.u32()? as usize;
            let indices = reader.take(n.checked_mul(4)?)?;
            for chunk in indices.chunks_exact(4) {
                if u32::from_le_bytes(chunk.try_into().ok()?) as usize >= markers {
                    return None;
                }
            }
            reader.bytes()?;
        }
        reader.is_empty().then_some(items)
    }

    /// Writes the items, with global marker indices, as
    /// [`Document::module`] checked them.
    fn write_items(&self, out: &mut impl std::io::Write) -> std::io::Result<()> {
        let mut first = true;
        let mut number = Vec::with_capacity(24);
        for (fragment, start) in &self.modules {
            let Some((mut reader, _)) = sections(fragment.bytes()) else {
                continue;
            };
            let map = &self.map[*start..];
            let items = reader.u32().unwrap_or(0);
            for _ in 0..items {
                if !first {
                    out.write_all(b",")?;
                }
                first = false;
                out.write_all(reader.bytes().unwrap_or_default())?;
                let n = reader.u32().unwrap_or(0) as usize;
                let indices = reader.take(n * 4).unwrap_or_default();
                number.clear();
                for (m, chunk) in indices.chunks_exact(4).enumerate() {
                    let local = chunk.try_into().map_or(0, u32::from_le_bytes) as usize;
                    if m > 0 {
                        number.push(b',');
                    }
                    push_decimal(&mut number, map.get(local).copied().unwrap_or(0));
                }
                out.write_all(&number)?;
                out.write_all(reader.bytes().unwrap_or_default())?;
            }
        }
        Ok(())
    }

    /// Appends collection errors (in order).
    pub(crate) fn errors(&mut self, errors: &[CollectError]) {
        for error in errors {
            self.error_json(&serde_json::to_vec(error).unwrap_or_default());
        }
    }

    pub(crate) fn error_json(&mut self, json: &[u8]) {
        if self.error_count > 0 {
            self.errors.push(b',');
        }
        self.error_count += 1;
        self.errors.extend_from_slice(json);
    }

    pub(crate) fn skipped_json(&mut self, json: &[u8]) {
        if !self.skipped.is_empty() {
            self.skipped.push(b',');
        }
        self.skipped.extend_from_slice(json);
    }

    /// The whole document: `header` (the caller's JSON object, whose
    /// closing brace is replaced) and the markers table, the items, then
    /// the errors, the skips and `warnings`.
    pub(crate) fn finish(self, header: &[u8], warnings: &[CollectError]) -> Spliced<'a> {
        let markers_len: usize = self.table.iter().map(|m| m.len() + 1).sum::<usize>();
        let mut head = Vec::with_capacity(header.len() + markers_len + 32);
        head.extend_from_slice(header.strip_suffix(b"}").unwrap_or(header));
        head.extend_from_slice(b",\"markers\":[");
        for (n, json) in self.table.iter().enumerate() {
            if n > 0 {
                head.push(b',');
            }
            head.extend_from_slice(json);
        }
        head.extend_from_slice(b"],\"items\":[");
        let mut tail = Vec::with_capacity(self.errors.len() + self.skipped.len() + 256);
        tail.extend_from_slice(b"],\"errors\":[");
        tail.extend_from_slice(&self.errors);
        tail.push(b']');
        if !self.skipped.is_empty() {
            tail.extend_from_slice(b",\"skipped\":[");
            tail.extend_from_slice(&self.skipped);
            tail.push(b']');
        }
        tail.extend_from_slice(b",\"warnings\":");
        let _ = serde_json::to_writer(&mut tail, warnings);
        tail.extend_from_slice(b"}\n");
        Spliced {
            items: self.count,
            errors: self.error_count,
            head,
            document: self,
            tail,
        }
    }
}

/// A spliced `collect --json` document, written out of its fragments.
pub(crate) struct Spliced<'a> {
    /// How many items and collection errors it lists.
    pub(crate) items: usize,
    pub(crate) errors: usize,
    head: Vec<u8>,
    document: Document<'a>,
    tail: Vec<u8>,
}

impl Spliced<'_> {
    /// Writes the whole document, ending with a newline.
    pub(crate) fn write_to(&self, out: &mut impl std::io::Write) -> std::io::Result<()> {
        out.write_all(&self.head)?;
        self.document.write_items(out)?;
        out.write_all(&self.tail)
    }

    /// The whole document in memory.
    pub(crate) fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        let _ = self.write_to(&mut out);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::{json_str, push_decimal};

    /// The hand-written number writer gives `write!`'s digits.
    #[test]
    fn numbers_are_written_as_write_writes_them() {
        for n in [0, 1, 9, 10, 99, 100, 12_345, 4_294_967_295, usize::MAX] {
            let mut ours = Vec::new();
            push_decimal(&mut ours, n);
            assert_eq!(String::from_utf8_lossy(&ours), n.to_string());
        }
    }

    /// The sixteen-bytes-at-a-time scan finds every byte that needs
    /// escaping, at every place in a string longer than two chunks, among
    /// plain ASCII and non-ASCII neighbours.
    #[test]
    fn strings_are_escaped_wherever_the_special_byte_sits() {
        let specials: Vec<char> = (0u8..0x20)
            .map(char::from)
            .chain(['"', '\\', '\u{7f}', 'é', '日'])
            .collect();
        for fill in ['a', '~', 'é'] {
            for len in 1..=40 {
                for at in 0..len {
                    for &special in &specials {
                        let text: String = (0..len)
                            .map(|k| if k == at { special } else { fill })
                            .collect();
                        let mut ours = Vec::new();
                        json_str(&mut ours, &text);
                        let theirs = serde_json::to_vec(&text).unwrap();
                        assert_eq!(ours, theirs, "{text:?}");
                    }
                }
            }
        }
    }

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
            json_str(&mut ours, text);
            let theirs = serde_json::to_vec(text).unwrap();
            assert_eq!(
                String::from_utf8_lossy(&ours),
                String::from_utf8_lossy(&theirs),
                "{text:?}"
            );
        }
    }
}
