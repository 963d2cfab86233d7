//! The cache on disk: `stamps.json` (per file its `stat` data and content
//! hash, with the imports found in it) and one `pack-<context>.bin` per
//! collection context (per test module its key, its probes, what
//! collecting it produced and its items rendered for `collect --json`). Every file is written to a temporary name and
//! renamed, so that a reader sees a whole file or none; a file that does
//! not parse, or was written by another format version, is ignored and
//! rewritten. Nothing here can fail a collection: an unwritable cache is
//! no cache.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use rustc_hash::FxHashMap as HashMap;
use serde::{Deserialize, Serialize};

use super::probe::Probe;
use crate::collector::RawItem;
use crate::fixtures::FixtureScope;
use crate::model::{CollectError, Item};

/// The version of the format, which names the cache's folder: a proctor
/// that writes another format never reads these files. Raised also when
/// what a stamp records changes meaning (v2: a module's imports include
/// the submodules its tables name; v3: binary packs with each module's
/// items rendered for `collect --json`; v4: a module's items rebuilt from
/// its fragment and a binary entry of what the fragment lacks); stamps
/// also name the build that wrote them, and another build's are not read.
pub(crate) const FORMAT: &str = "v4";

/// Packs kept besides the one just written: one per context recently used
/// (`collect` and `check` collect with different settings).
const PACKS_KEPT: usize = 8;

/// Content hash of a file (128-bit `SipHash-1-3`, fixed keys).
pub(crate) type Hash = u128;

/// What a file's `stat` said, and what was derived from its bytes then.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Stamp {
    /// `stat` data, or `None` when the file had changed too recently for
    /// its modification time to be trusted (it is then hashed again).
    pub(crate) stat: Option<StatData>,
    #[serde(with = "hex")]
    pub(crate) hash: Hash,
    /// The package the import lists below were computed for, and the lists:
    /// the quick scan of a test module, the parsed imports of a shared one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) scan: Option<(String, Vec<String>)>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) imports: Option<(String, Vec<String>)>,
}

/// The `stat` fields that change when a file's bytes do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct StatData {
    size: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
    ino: u64,
    dev: u64,
}

/// Files whose modification time is this close to now (or later) are not
/// trusted: a second write in the same clock tick would leave it as is
/// (git's "racily clean" entries). The change time is compared too, so a
/// modification time set back by hand is still a change.
const RACY_SECONDS: i64 = 2;

impl StatData {
    /// The `stat` data of `path` (following symbolic links), when it can be
    /// read and is old enough to be trusted.
    pub(crate) fn of(path: &Path) -> Option<StatData> {
        Self::of_metadata(&std::fs::metadata(path).ok()?)
    }

    /// [`StatData::of`] a file's metadata already read.
    pub(crate) fn of_metadata(meta: &std::fs::Metadata) -> Option<StatData> {
        use std::os::unix::fs::MetadataExt;
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .ok()
            .and_then(|d| i64::try_from(d.as_secs()).ok())?;
        if meta.mtime() >= now - RACY_SECONDS {
            return None;
        }
        Some(StatData {
            size: meta.size(),
            mtime: (meta.mtime(), meta.mtime_nsec()),
            ctime: (meta.ctime(), meta.ctime_nsec()),
            ino: meta.ino(),
            dev: meta.dev(),
        })
    }

    /// The current `stat` data of `path`, trusted or not, for comparing
    /// with a stored one.
    fn now(path: &Path) -> Option<StatData> {
        use std::os::unix::fs::MetadataExt;
        let meta = std::fs::metadata(path).ok()?;
        Some(StatData {
            size: meta.size(),
            mtime: (meta.mtime(), meta.mtime_nsec()),
            ctime: (meta.ctime(), meta.ctime_nsec()),
            ino: meta.ino(),
            dev: meta.dev(),
        })
    }
}

#[derive(Serialize, Deserialize)]
struct StampsFile {
    format: String,
    /// The build that wrote the stamps (`key::build_text`).
    #[serde(default)]
    build: String,
    stamps: HashMap<String, Stamp>,
}

/// The cached result of collecting one test module, besides its
/// fragment: what the fragment does not carry. The fragment has each
/// item's node id, file of definition, line, markers, dynamic reason,
/// decorators and skip (as `collect --json` writes them, in the order
/// `reorder_items` gives the module); the entry adds the items' order
/// when it differs, and per item the file it is collected from when it is
/// not that of its definition, its wider-scoped parameters and its class.
/// An item is rebuilt from both when the module's output is needed.
mod entry {
    use std::sync::Arc;

    use serde::Deserialize;

    use super::{put_bytes, put_u32, scope_code, scope_of, ModuleOutput};
    use crate::cache::fragment::Reader;
    use crate::collector::{ItemFacts, RawItem};
    use crate::model::{CollectError, Decorator, Marker};
    use crate::parametrize::ParamEntry;

    /// What an encoding starts with: a tag that a damaged or foreign
    /// entry is told by before anything is decoded.
    const TAG: &[u8] = b"\0items\0";

    fn put_opt(out: &mut Vec<u8>, text: Option<&str>) {
        match text {
            Some(text) => {
                out.push(1);
                put_bytes(out, text.as_bytes());
            }
            None => out.push(0),
        }
    }

    /// How many bytes [`encode`] appends.
    pub(crate) fn encoded_len(output: &ModuleOutput, order: Option<&[usize]>) -> usize {
        let opt = |text: Option<&str>| 1 + text.map_or(0, |t| 4 + t.len());
        let items: usize = output
            .items
            .iter()
            .map(|item| {
                opt((*item.file != *item.def_file).then_some(&*item.file))
                    + 4
                    + item
                        .high_params
                        .iter()
                        .map(|p| 4 + p.argname.len() + 1 + 4 + p.key.len())
                        .sum::<usize>()
                    + opt(item.class_key.as_deref())
            })
            .sum();
        TAG.len() + 4 + 4 * order.map_or(0, <[usize]>::len) + 4 + items
    }

    /// Appends to `out` what `output`'s fragment lacks: `order` is the
    /// fragment's order of the items (their indices), when it is not
    /// theirs.
    pub(crate) fn encode(out: &mut Vec<u8>, output: &ModuleOutput, order: Option<&[usize]>) {
        out.extend_from_slice(TAG);
        let order = order.unwrap_or_default();
        put_u32(out, order.len());
        for &index in order {
            put_u32(out, index);
        }
        put_u32(out, output.items.len());
        for item in &output.items {
            put_opt(out, (*item.file != *item.def_file).then_some(&*item.file));
            put_u32(out, item.high_params.len());
            for param in &item.high_params {
                put_bytes(out, param.argname.as_bytes());
                out.push(scope_code(param.scope));
                put_bytes(out, param.key.as_bytes());
            }
            put_opt(out, item.class_key.as_deref());
        }
    }

    fn text(reader: &mut Reader<'_>) -> Option<String> {
        Some(std::str::from_utf8(reader.bytes()?).ok()?.to_owned())
    }

    #[expect(clippy::option_option, reason = "damaged, or absent")]
    fn opt(reader: &mut Reader<'_>) -> Option<Option<String>> {
        match reader.take(1)?[0] {
            0 => Some(None),
            1 => Some(Some(text(reader)?)),
            _ => None,
        }
    }

    /// The start of an item in a fragment, up to its markers.
    #[derive(Deserialize)]
    struct Head {
        nodeid: String,
        file: String,
        line: usize,
    }

    /// The rest of an item in a fragment, after its markers.
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Tail {
        dynamic: Option<String>,
        #[serde(default)]
        decorators: Vec<Decorator>,
        #[serde(default)]
        skip: Option<String>,
        #[serde(default)]
        markers_uncertain: Option<String>,
    }

    /// The items of a fragment, in its order, without what only the entry
    /// has.
    fn fragment_items(fragment: &[u8]) -> Option<Vec<RawItem>> {
        let (mut reader, mut markers_reader) = crate::cache::fragment::sections(fragment)?;
        let markers = markers_reader.u32()? as usize;
        let table: Vec<Arc<Marker>> = (0..markers)
            .map(|_| {
                Some(Arc::new(
                    serde_json::from_slice(markers_reader.bytes()?).ok()?,
                ))
            })
            .collect::<Option<_>>()?;
        if !markers_reader.is_empty() {
            return None;
        }
        let count = reader.u32()? as usize;
        // Each item takes at least 12 bytes: a damaged count is not
        // allocated for.
        let mut items = Vec::with_capacity(count.min(fragment.len() / 12));
        let mut json = Vec::new();
        let mut file: Arc<str> = "".into();
        for _ in 0..count {
            json.clear();
            json.extend_from_slice(reader.bytes()?);
            json.extend_from_slice(b"]}");
            let head: Head = serde_json::from_slice(&json).ok()?;
            let n = reader.u32()? as usize;
            let indices = reader.take(n.checked_mul(4)?)?;
            let markers = indices
                .chunks_exact(4)
                .map(|chunk| {
                    let index = u32::from_le_bytes(chunk.try_into().ok()?) as usize;
                    table.get(index).cloned()
                })
                .collect::<Option<Vec<_>>>()?;
            json.clear();
            json.push(b'{');
            json.extend_from_slice(reader.bytes()?.strip_prefix(b"],")?);
            let tail: Tail = serde_json::from_slice(&json).ok()?;
            if *file != *head.file {
                file = head.file.as_str().into();
            }
            items.push(RawItem {
                nodeid: head.nodeid,
                file: file.clone(),
                def_file: file.clone(),
                line: head.line,
                markers,
                high_params: Vec::new(),
                class_key: None,
                facts: ItemFacts {
                    dynamic: tail.dynamic,
                    decorators: tail.decorators.into_iter().map(Arc::new).collect(),
                    skip: tail.skip,
                    markers_uncertain: tail.markers_uncertain,
                }
                .shared(),
            });
        }
        reader.is_empty().then_some(items)
    }

    /// The module's output from its entry and its fragment, or `None`
    /// when the bytes are not theirs (a damaged entry).
    pub(crate) fn decode(
        bytes: &[u8],
        fragment: &[u8],
        error: Option<CollectError>,
        skipped: Option<CollectError>,
        parsed: bool,
    ) -> Option<ModuleOutput> {
        let mut reader = Reader::new(bytes);
        if reader.take(TAG.len())? != TAG {
            return None;
        }
        let rendered = fragment_items(fragment)?;
        let count = rendered.len();
        let order_len = reader.u32()? as usize;
        let mut slots: Vec<Option<RawItem>> = if order_len == 0 {
            rendered.into_iter().map(Some).collect()
        } else {
            if order_len != count {
                return None;
            }
            let mut slots: Vec<Option<RawItem>> = (0..count).map(|_| None).collect();
            for item in rendered {
                let index = reader.u32()? as usize;
                let slot = slots.get_mut(index)?;
                if slot.is_some() {
                    return None;
                }
                *slot = Some(item);
            }
            slots
        };
        if reader.u32()? as usize != count {
            return None;
        }
        for slot in &mut slots {
            let item = slot.as_mut()?;
            if let Some(file) = opt(&mut reader)? {
                item.file = file.into();
            }
            let params = reader.u32()? as usize;
            let mut high_params = Vec::with_capacity(params.min(16));
            for _ in 0..params {
                let argname = text(&mut reader)?;
                let scope = scope_of(reader.take(1)?[0])?;
                let key = text(&mut reader)?;
                high_params.push(ParamEntry {
                    argname,
                    scope,
                    key,
                });
            }
            item.high_params = high_params;
            item.class_key = opt(&mut reader)?.map(Into::into);
        }
        let items = slots.into_iter().collect::<Option<Vec<_>>>()?;
        reader.is_empty().then_some(ModuleOutput {
            items,
            error,
            skipped,
            parsed,
        })
    }
}

/// What collecting a module gives, in the form the session assembles.
pub(crate) struct ModuleOutput {
    pub(crate) items: Vec<RawItem>,
    pub(crate) error: Option<CollectError>,
    pub(crate) skipped: Option<CollectError>,
    pub(crate) parsed: bool,
}

/// What the conftests' hooks add to a collection.
#[derive(Clone, Default, Serialize, Deserialize)]
pub(crate) struct SessionEntry {
    pub(crate) items: Vec<Item>,
    pub(crate) warnings: Vec<CollectError>,
}

fn scope_code(scope: FixtureScope) -> u8 {
    match scope {
        FixtureScope::Function => 0,
        FixtureScope::Class => 1,
        FixtureScope::Module => 2,
        FixtureScope::Package => 3,
        FixtureScope::Session => 4,
    }
}

fn scope_of(code: u8) -> Option<FixtureScope> {
    Some(match code {
        0 => FixtureScope::Function,
        1 => FixtureScope::Class,
        2 => FixtureScope::Module,
        3 => FixtureScope::Package,
        4 => FixtureScope::Session,
        _ => return None,
    })
}

/// Serde adapter: a hash as 32 hexadecimal digits.
mod hex {
    use serde::{Deserialize, Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(value: &u128, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("{value:032x}"))
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u128, D::Error> {
        let text = <&str>::deserialize(d)?;
        u128::from_str_radix(text, 16).map_err(serde::de::Error::custom)
    }
}

/// An open cache folder: the stamps read at the start, and the pack of
/// one context once it is known.
pub(crate) struct Store {
    dir: PathBuf,
    stamps: HashMap<String, Stamp>,
}

/// A pack as read: its bytes, parsed lazily per module.
pub(crate) struct Pack {
    bytes: Vec<u8>,
    context: Hash,
}

/// What a pack file starts with, before the format's version.
const PACK_MAGIC: &[u8] = b"proctor-pack";

/// The flags of a pack entry.
pub(crate) mod flags {
    /// The module parsed (pytest would import it).
    pub(crate) const PARSED: u8 = 1;
    /// Some item is dynamic (a run may have recorded its expansion).
    pub(crate) const DYNAMIC: u8 = 2;
    /// Some item has a package- or session-scoped parameter, whose
    /// `reorder_items` key spans modules.
    pub(crate) const SPANS: u8 = 4;
}

/// One test module's entry in a pack, as stored.
#[derive(Clone, Copy)]
pub(crate) struct EntryRef<'a> {
    pub(crate) key: Hash,
    pub(crate) flags: u8,
    probes: &'a [u8],
    entry: &'a [u8],
    /// Its items rendered ([`super::fragment`]).
    pub(crate) fragment: &'a [u8],
    /// The JSON of its collection error and its skip, when it has one.
    pub(crate) error: Option<&'a [u8]>,
    pub(crate) skipped: Option<&'a [u8]>,
    blob: &'a [u8],
    check: u64,
}

/// A module entry collected in this run, encoded for the pack: its blob
/// in three parts, written one after the other (the fragment, which the
/// document is also spliced from, is not copied into a blob).
pub(crate) struct FreshEntry {
    pub(crate) path: String,
    pub(crate) key: Hash,
    pub(crate) probes: Vec<Probe>,
    /// The flags, the probes, the items' encoding and the fragment's
    /// length.
    head: Vec<u8>,
    fragment: Vec<u8>,
    /// The error and the skip.
    tail: Vec<u8>,
    /// The blob's length and [`checksum`], computed where the entry is
    /// made (on the thread that collected the module), not when the pack
    /// is written.
    len: usize,
    check: u64,
}

/// A cheap checksum of an entry's bytes (`FxHash`'s step over 8-byte
/// words), so that a damaged entry is ignored rather than spliced.
fn checksum(bytes: &[u8]) -> u64 {
    checksum_parts(&[bytes])
}

/// [`checksum`] of the concatenation of `parts`, without concatenating.
fn checksum_parts(parts: &[&[u8]]) -> u64 {
    const K: u64 = 0xf135_7aea_2e62_a9c5;
    let step = |hash: u64, word: [u8; 8]| {
        (hash.rotate_left(26) ^ u64::from_le_bytes(word)).wrapping_mul(K)
    };
    let mut hash = parts.iter().map(|p| p.len() as u64).sum::<u64>();
    // A word begun at the end of one part and ended in the next.
    let mut carry = [0u8; 8];
    let mut carried = 0;
    for part in parts {
        let mut part: &[u8] = part;
        if carried > 0 {
            let n = (8 - carried).min(part.len());
            carry[carried..carried + n].copy_from_slice(&part[..n]);
            carried += n;
            part = &part[n..];
            if carried < 8 {
                continue;
            }
            hash = step(hash, carry);
        }
        let mut chunks = part.chunks_exact(8);
        for chunk in &mut chunks {
            hash = step(hash, chunk.try_into().unwrap_or([0; 8]));
        }
        let rest = chunks.remainder();
        carry[..rest.len()].copy_from_slice(rest);
        carried = rest.len();
    }
    let mut last = [0u8; 8];
    last[..carried].copy_from_slice(&carry[..carried]);
    step(hash, last)
}

fn put_u32(out: &mut Vec<u8>, n: usize) {
    out.extend_from_slice(&u32::try_from(n).unwrap_or(u32::MAX).to_le_bytes());
}

fn put_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    put_u32(out, bytes.len());
    out.extend_from_slice(bytes);
}

/// [`put_bytes`] of what `write` appends, written in place (its length
/// filled in after).
fn put_framed<E>(
    out: &mut Vec<u8>,
    write: impl FnOnce(&mut Vec<u8>) -> Result<(), E>,
) -> Result<(), E> {
    let at = out.len();
    out.extend_from_slice(&[0; 4]);
    write(out)?;
    let len = u32::try_from(out.len() - at - 4).unwrap_or(u32::MAX);
    out[at..at + 4].copy_from_slice(&len.to_le_bytes());
    Ok(())
}

/// From how many items a fresh entry's fragment is rendered on one thread
/// while the rest of the entry is encoded on another: below it, handing the
/// encoding to another thread costs more than it saves.
const PARALLEL_ENTRY_ITEMS: usize = 2048;

impl FreshEntry {
    /// The entry of a module collected now: `render` gives its items
    /// rendered, in `order` (their indices) when it is not theirs; `spans`
    /// whether a parameter's key spans modules
    /// ([`crate::reorder::spans_modules`] of its items). The fragment is
    /// given back when the entry cannot be made.
    pub(crate) fn new(
        path: String,
        key: Hash,
        probes: Vec<Probe>,
        output: &ModuleOutput,
        render: impl FnOnce() -> Vec<u8> + Send,
        order: Option<&[usize]>,
        spans: bool,
    ) -> Result<FreshEntry, Vec<u8>> {
        // A module of many items (packaging's `test_version.py`: 18,060) is
        // the last one a cold run collects: its fragment is rendered while
        // the rest of its entry is encoded, on another thread.
        let (fragment, head) = if output.items.len() >= PARALLEL_ENTRY_ITEMS {
            rayon::join(render, || Self::head(&probes, output, order, spans))
        } else {
            (render(), Self::head(&probes, output, order, spans))
        };
        let Some(mut head) = head else {
            return Err(fragment);
        };
        put_u32(&mut head, fragment.len());
        let mut tail = Vec::new();
        for part in [&output.error, &output.skipped] {
            match part {
                Some(error) => match serde_json::to_vec(error) {
                    Ok(json) => put_bytes(&mut tail, &json),
                    Err(_) => return Err(fragment),
                },
                None => put_u32(&mut tail, 0),
            }
        }
        let parts = [head.as_slice(), &fragment, &tail];
        let len = parts.iter().map(|p| p.len()).sum();
        let check = checksum_parts(&parts);
        Ok(FreshEntry {
            path,
            key,
            probes,
            head,
            fragment,
            tail,
            len,
            check,
        })
    }

    /// The entry's blob up to its fragment's length: the flags, the probes
    /// and the items' encoding. `None` when the probes cannot be written.
    fn head(
        probes: &[Probe],
        output: &ModuleOutput,
        order: Option<&[usize]>,
        spans: bool,
    ) -> Option<Vec<u8>> {
        let mut flags = 0;
        if output.parsed {
            flags |= flags::PARSED;
        }
        if output.items.iter().any(|item| item.dynamic().is_some()) {
            flags |= flags::DYNAMIC;
        }
        if spans {
            flags |= flags::SPANS;
        }
        // Sized for the items' encoding at once (packaging's 18,060 items
        // take 0.9 MB, copied at every doubling otherwise).
        let mut head =
            Vec::with_capacity(512 + entry::encoded_len(output, order) + probes.len() * 64);
        head.push(flags);
        put_framed(&mut head, |out| serde_json::to_writer(out, probes)).ok()?;
        let Ok(()) = put_framed(&mut head, |out| {
            entry::encode(out, output, order);
            Ok::<(), std::convert::Infallible>(())
        });
        Some(head)
    }

    /// The module's items rendered, as stored in the entry.
    pub(crate) fn fragment(&self) -> &[u8] {
        &self.fragment
    }

    /// The entry's blob, in parts.
    fn parts(&self) -> [&[u8]; 3] {
        [&self.head, &self.fragment, &self.tail]
    }
}

impl<'a> EntryRef<'a> {
    fn parse(key: Hash, blob: &'a [u8], check: u64) -> Option<EntryRef<'a>> {
        let (&flags, rest) = blob.split_first()?;
        let mut reader = super::fragment::Reader::new(rest);
        let probes = reader.bytes()?;
        let entry = reader.bytes()?;
        let fragment = reader.bytes()?;
        let error = reader.bytes()?;
        let skipped = reader.bytes()?;
        reader.is_empty().then_some(EntryRef {
            key,
            flags,
            probes,
            entry,
            fragment,
            error: (!error.is_empty()).then_some(error),
            skipped: (!skipped.is_empty()).then_some(skipped),
            blob,
            check,
        })
    }

    /// Whether the entry's bytes are those written.
    pub(crate) fn intact(&self) -> bool {
        checksum(self.blob) == self.check
    }

    /// The file-system answers the module's collection got; `None` when
    /// they do not parse.
    pub(crate) fn probes(&self) -> Option<Vec<Probe>> {
        serde_json::from_slice(self.probes).ok()
    }

    /// The module's output; `None` when the entry is damaged.
    pub(crate) fn output(&self) -> Option<ModuleOutput> {
        // An error or skip that is stored and does not parse: damaged.
        let parse = |json: Option<&[u8]>| match json {
            Some(json) => serde_json::from_slice(json).ok().map(Some),
            None => Some(None),
        };
        entry::decode(
            self.entry,
            self.fragment,
            parse(self.error)?,
            parse(self.skipped)?,
            self.has(flags::PARSED),
        )
    }

    pub(crate) fn has(&self, flag: u8) -> bool {
        self.flags & flag != 0
    }
}

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

impl Store {
    /// Opens the cache under `root` (`.proctor/cache`), reading its stamps;
    /// a missing or unreadable cache is an empty one.
    pub(crate) fn open(root: &Path) -> Store {
        let dir = root.join(FORMAT);
        let stamps = std::fs::read(dir.join("stamps.json"))
            .ok()
            .and_then(|bytes| serde_json::from_slice::<StampsFile>(&bytes).ok())
            .filter(|file| file.format == FORMAT && file.build == super::key::build_text())
            .map(|file| file.stamps)
            .unwrap_or_default();
        Store { dir, stamps }
    }

    /// The cache under `root` without reading its stamps, for writing
    /// what is not a stamp.
    pub(crate) fn open_bare(root: &Path) -> Store {
        Store {
            dir: root.join(FORMAT),
            stamps: HashMap::default(),
        }
    }

    /// The stored stamp of `path` when its `stat` data is unchanged.
    pub(crate) fn fresh_stamp(&self, path: &Path) -> Option<&Stamp> {
        let stamp = self.stamps.get(path.to_str()?)?;
        let stat = stamp.stat?;
        (StatData::now(path)? == stat).then_some(stamp)
    }

    /// Stores the stamps seen this run (`updates`) over the ones read.
    pub(crate) fn write_stamps(&mut self, updates: Vec<(PathBuf, Stamp)>) {
        let mut changed = false;
        // The files just stamped were just read; only the others are
        // checked for still existing.
        let mut just_stamped: rustc_hash::FxHashSet<String> = rustc_hash::FxHashSet::default();
        for (path, mut stamp) in updates {
            let Some(key) = path.to_str() else { continue };
            just_stamped.insert(key.to_string());
            // A test module that another one imports has both lists, each
            // found by another step: the one this update lacks is kept.
            if let Some(old) = self.stamps.get(key).filter(|old| old.hash == stamp.hash) {
                if stamp.scan.is_none() {
                    stamp.scan.clone_from(&old.scan);
                }
                if stamp.imports.is_none() {
                    stamp.imports.clone_from(&old.imports);
                }
            }
            let same = self.stamps.get(key).is_some_and(|old| {
                old.stat == stamp.stat
                    && old.hash == stamp.hash
                    && old.scan == stamp.scan
                    && old.imports == stamp.imports
            });
            if !same {
                self.stamps.insert(key.to_string(), stamp);
                changed = true;
            }
        }
        // Files that are gone are dropped with the next change.
        if changed {
            self.stamps
                .retain(|path, _| just_stamped.contains(path) || Path::new(path).exists());
            let file = StampsFile {
                format: FORMAT.to_string(),
                build: super::key::build_text().to_owned(),
                stamps: std::mem::take(&mut self.stamps),
            };
            if let Ok(bytes) = serde_json::to_vec(&file) {
                self.write("stamps.json", &bytes);
            }
            self.stamps = file.stamps;
        }
    }

    /// The pack of `context`, if one was written (checked when read).
    pub(crate) fn pack(&self, context: Hash) -> Option<Pack> {
        let bytes = std::fs::read(self.dir.join(pack_name(context))).ok()?;
        Some(Pack { bytes, context })
    }

    /// Writes the pack of `context`: `session`, the `fresh` entries, and
    /// the entries of `old` for the other modules whose file is one of
    /// `current` (found by discovery now) or still exists.
    pub(crate) fn write_pack(
        &self,
        context: Hash,
        old: Option<&Pack>,
        session: &SessionEntry,
        fresh: &[FreshEntry],
        current: &rustc_hash::FxHashSet<&str>,
    ) {
        let Ok(session) = serde_json::to_vec(session) else {
            return;
        };
        let old_entries = old.and_then(Pack::entries).map(|(e, _)| e);
        let replaced: rustc_hash::FxHashSet<&str> = fresh.iter().map(|f| f.path.as_str()).collect();
        // (path, key, blob in parts, its length, checksum): the fresh
        // entries' sums were computed when they were made, the old ones'
        // are kept.
        let mut entries: Vec<PackEntry<'_>> = fresh
            .iter()
            .map(|f| (f.path.as_str(), f.key, f.parts(), f.len, f.check))
            .collect();
        if let Some(old_entries) = &old_entries {
            for (path, entry) in old_entries {
                if !replaced.contains(path) && (current.contains(path) || Path::new(path).exists())
                {
                    let parts: [&[u8]; 3] = [entry.blob, &[], &[]];
                    entries.push((path, entry.key, parts, entry.blob.len(), entry.check));
                }
            }
        }
        let index_len: usize = entries.iter().map(|e| 4 + e.0.len() + 16 + 24).sum();
        let blobs_len: usize = entries.iter().map(|e| e.3).sum();
        // The header and index, then the entries as they are (not copied).
        let mut head = Vec::with_capacity(PACK_MAGIC.len() + 64 + session.len() + index_len);
        head.extend_from_slice(PACK_MAGIC);
        put_bytes(&mut head, FORMAT.as_bytes());
        head.extend_from_slice(&context.to_le_bytes());
        let total_at = head.len();
        head.extend_from_slice(&0u64.to_le_bytes());
        put_bytes(&mut head, &session);
        put_u32(&mut head, entries.len());
        let mut offset = 0u64;
        for (path, key, _, len, check) in &entries {
            put_bytes(&mut head, path.as_bytes());
            head.extend_from_slice(&key.to_le_bytes());
            head.extend_from_slice(&offset.to_le_bytes());
            head.extend_from_slice(&(*len as u64).to_le_bytes());
            head.extend_from_slice(&check.to_le_bytes());
            offset += *len as u64;
        }
        let total = (head.len() + blobs_len) as u64;
        head[total_at..total_at + 8].copy_from_slice(&total.to_le_bytes());
        let mut parts: Vec<&[u8]> = Vec::with_capacity(3 * entries.len() + 1);
        parts.push(&head);
        parts.extend(entries.iter().flat_map(|e| e.2).filter(|p| !p.is_empty()));
        self.write_parts(&pack_name(context), &parts);
        self.prune_packs(context);
    }

    /// Deletes all but the most recently written packs.
    fn prune_packs(&self, keep: Hash) {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return;
        };
        let keep = pack_name(keep);
        let mut packs: Vec<(std::time::SystemTime, PathBuf)> = entries
            .filter_map(Result::ok)
            .filter(|e| {
                let name = e.file_name();
                let name = name.to_string_lossy();
                name.starts_with("pack-") && name.ends_with(".bin") && *name != *keep
            })
            .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
            .collect();
        packs.sort();
        let excess = packs.len().saturating_sub(PACKS_KEPT - 1);
        for (_, path) in packs.into_iter().take(excess) {
            let _ = std::fs::remove_file(path);
        }
    }

    /// Writes `name` atomically: a temporary file in the same folder,
    /// renamed over the old one. Creates the folder (and `.proctor/`'s
    /// `.gitignore`) on first use.
    fn write(&self, name: &str, bytes: &[u8]) {
        self.write_parts(name, &[bytes]);
    }

    /// [`Store::write`] of the concatenation of `parts`.
    fn write_parts(&self, name: &str, parts: &[&[u8]]) {
        use std::io::Write as _;
        self.write_with(name, |out| {
            parts.iter().try_for_each(|part| out.write_all(part))
        });
    }

    /// [`Store::write`] of what `body` writes (buffered); the file written,
    /// open for reading too, when it was.
    fn write_with(
        &self,
        name: &str,
        body: impl FnOnce(&mut std::io::BufWriter<std::fs::File>) -> std::io::Result<()>,
    ) -> Option<std::fs::File> {
        if std::fs::create_dir_all(&self.dir).is_err() {
            return None;
        }
        ensure_gitignore(&self.dir);
        let temp = self.dir.join(format!(
            ".{name}.{}.{}.tmp",
            std::process::id(),
            TEMP_COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        let written = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&temp)
            .and_then(|file| {
                let mut out = std::io::BufWriter::with_capacity(1 << 16, file);
                body(&mut out)?;
                out.into_inner()
                    .map_err(std::io::IntoInnerError::into_error)
            });
        if let Ok(file) = written {
            if std::fs::rename(&temp, self.dir.join(name)).is_ok() {
                return Some(file);
            }
        }
        let _ = std::fs::remove_file(&temp);
        None
    }
}

/// Writes a `.gitignore` of `*` into the `.proctor` folder above the cache
/// (or into the cache's parent when it is configured elsewhere), unless
/// one is there.
fn ensure_gitignore(dir: &Path) {
    let Some(top) = dir
        .ancestors()
        .find(|d| d.file_name().is_some_and(|n| n == ".proctor"))
        .or_else(|| dir.parent())
    else {
        return;
    };
    let path = top.join(".gitignore");
    if !path.exists() {
        let _ = std::fs::write(
            path,
            "# Written by proctor: its cache, never committed.\n*\n",
        );
    }
}

/// A pack entry being written: its path, key, blob in parts, the blob's
/// length and checksum.
type PackEntry<'a> = (&'a str, Hash, [&'a [u8]; 3], usize, u64);

fn pack_name(context: Hash) -> String {
    format!("pack-{context:032x}.bin")
}

impl Pack {
    /// The entries by module path, and the session entry, when the pack
    /// is whole and of this format and context. An entry's own bytes are
    /// checked when it is used ([`EntryRef::intact`]).
    pub(crate) fn entries(&self) -> Option<(HashMap<&str, EntryRef<'_>>, Option<SessionEntry>)> {
        let bytes = self.bytes.strip_prefix(PACK_MAGIC)?;
        let mut reader = super::fragment::Reader::new(bytes);
        if reader.bytes()? != FORMAT.as_bytes() {
            return None;
        }
        let context = u128::from_le_bytes(reader.take(16)?.try_into().ok()?);
        let total = u64::from_le_bytes(reader.take(8)?.try_into().ok()?);
        if context != self.context || total != self.bytes.len() as u64 {
            return None;
        }
        let session = serde_json::from_slice(reader.bytes()?).ok();
        let count = reader.u32()? as usize;
        let mut index = Vec::with_capacity(count);
        for _ in 0..count {
            let path = std::str::from_utf8(reader.bytes()?).ok()?;
            let key = u128::from_le_bytes(reader.take(16)?.try_into().ok()?);
            let offset =
                usize::try_from(u64::from_le_bytes(reader.take(8)?.try_into().ok()?)).ok()?;
            let len = usize::try_from(u64::from_le_bytes(reader.take(8)?.try_into().ok()?)).ok()?;
            let check = u64::from_le_bytes(reader.take(8)?.try_into().ok()?);
            index.push((path, key, offset, len, check));
        }
        let blobs = reader.rest();
        let mut entries = HashMap::default();
        entries.reserve(count);
        for (path, key, offset, len, check) in index {
            let blob = blobs.get(offset..offset.checked_add(len)?)?;
            entries.insert(path, EntryRef::parse(key, blob, check)?);
        }
        Some((entries, session))
    }
}

/// Removes the cache folder `root`; whether there was one.
pub fn clean(root: &Path) -> std::io::Result<bool> {
    match std::fs::remove_dir_all(root) {
        Ok(()) => Ok(true),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(err) => Err(err),
    }
}

/// `recorded.json`: per test module (its path relative to the rootdir) the
/// items a `proctor run` saw pytest collect for the functions static
/// collection calls dynamic, valid while the module's record key holds.
#[derive(Default, Serialize, Deserialize)]
pub(crate) struct RecordedFile {
    format: String,
    pub(crate) modules: std::collections::BTreeMap<String, RecordedModule>,
}

/// The recorded expansions of one test module.
#[derive(Clone, Serialize, Deserialize)]
pub(crate) struct RecordedModule {
    #[serde(with = "hex")]
    pub(crate) key: Hash,
    /// When the run that recorded them started (ISO-8601, UTC).
    pub(crate) run: String,
    /// Per dynamic function (its node id) pytest's node ids, in pytest's
    /// order.
    pub(crate) functions: std::collections::BTreeMap<String, Vec<String>>,
}

const RECORDED: &str = "recorded.json";

impl Store {
    /// The recorded expansions, and a hash of the file they were read from
    /// (0 when there is none).
    pub(crate) fn recorded(&self) -> (RecordedFile, Hash) {
        let Ok(bytes) = std::fs::read(self.dir.join(RECORDED)) else {
            return (RecordedFile::default(), 0);
        };
        match serde_json::from_slice::<RecordedFile>(&bytes) {
            Ok(file) if file.format == FORMAT => {
                let mut hasher = super::key::Hasher::new();
                hasher.bytes(&bytes);
                (file, hasher.finish())
            }
            _ => (RecordedFile::default(), 0),
        }
    }

    /// Stores `modules` over the recorded expansions read now; modules
    /// whose file is gone (relative to `rootdir`) are dropped.
    pub(crate) fn write_recorded(&self, rootdir: &Path, modules: Vec<(String, RecordedModule)>) {
        let (mut file, _) = self.recorded();
        file.format = FORMAT.to_string();
        for (path, module) in modules {
            file.modules.insert(path, module);
        }
        file.modules.retain(|path, _| rootdir.join(path).exists());
        if let Ok(bytes) = serde_json::to_vec(&file) {
            self.write(RECORDED, &bytes);
        }
    }
}

/// `memo.bin`: what a caller rendered from the last whole collection
/// (`collect --json`'s document), valid while its digest (every input of
/// the collection and of the rendering) is the same and the file-system
/// answers its modules got still hold. A memo also holds its watch list
/// ([`Watch`]): the `stat` data of every file and directory the collection
/// read, so that a later run with the same quick digest (settings,
/// arguments, rendering) checks those instead of walking, reading stamps
/// and hashing. Layout: the digest and the quick digest (16 bytes each,
/// little-endian; a quick digest of 0 is no watch list), the lengths of
/// the watch list's and the probes' JSON (8 bytes each), the two, then
/// the caller's bytes.
const MEMO: &str = "memo.bin";

const MEMO_HEADER: usize = 48;

/// What a memo's watch list is made of: the quick digest of the inputs
/// known before discovery, the paths whose `stat` data stand for the
/// rest, and when the collection started (seconds since the epoch): a
/// path changed since then (or within [`RACY_SECONDS`] before) is not
/// trusted, and the memo then gets no watch list.
#[derive(Debug, Clone)]
pub(crate) struct Watch {
    pub(crate) quick: Hash,
    /// How many test modules the collection had (for the cache's counts).
    pub(crate) files: usize,
    pub(crate) paths: Vec<PathBuf>,
    pub(crate) started: i64,
}

/// The seconds since the epoch now (0 when the clock is before it).
pub(crate) fn now_seconds() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .ok()
        .and_then(|d| i64::try_from(d.as_secs()).ok())
        .unwrap_or(0)
}

impl Watch {
    /// The `stat` data of every path (`None`: it does not exist), or
    /// `None` when one changed too recently to be trusted.
    fn stats(&self) -> Option<WatchList> {
        use rayon::prelude::*;
        let mut paths: Vec<&PathBuf> = self.paths.iter().collect();
        paths.sort();
        paths.dedup();
        let stats = paths
            .par_iter()
            .map(|path| {
                let stat = StatData::now(path);
                if let Some(stat) = stat {
                    // As with stamps, the modification time decides: a
                    // file written since the collection started may have
                    // been read before the write.
                    if stat.mtime.0 >= self.started - RACY_SECONDS {
                        return None;
                    }
                }
                Some((path.to_str()?.to_string(), stat))
            })
            .collect::<Option<Vec<_>>>()?;
        Some((self.files, stats))
    }
}

/// A watch list as stored: the number of test modules, and each path with
/// its `stat` data.
type WatchList = (usize, Vec<(String, Option<StatData>)>);

/// The parts of a memo file, as read.
struct MemoParts {
    file: std::fs::File,
    digest: Hash,
    quick: Hash,
    watch: Vec<u8>,
    probes: Vec<u8>,
    document: u64,
}

fn memo_parts(path: &Path) -> Option<MemoParts> {
    use std::os::unix::fs::FileExt;
    let file = std::fs::File::open(path).ok()?;
    let mut header = [0u8; MEMO_HEADER];
    file.read_exact_at(&mut header, 0).ok()?;
    let digest = u128::from_le_bytes(header[..16].try_into().ok()?);
    let quick = u128::from_le_bytes(header[16..32].try_into().ok()?);
    let watch_len = usize::try_from(u64::from_le_bytes(header[32..40].try_into().ok()?)).ok()?;
    let probes_len = usize::try_from(u64::from_le_bytes(header[40..48].try_into().ok()?)).ok()?;
    let size = usize::try_from(file.metadata().ok()?.len()).ok()?;
    let document = MEMO_HEADER
        .checked_add(watch_len)?
        .checked_add(probes_len)?;
    // A memo without a document is a damaged one.
    if document >= size {
        return None;
    }
    let mut watch = vec![0u8; watch_len];
    file.read_exact_at(&mut watch, MEMO_HEADER as u64).ok()?;
    let mut probes = vec![0u8; probes_len];
    file.read_exact_at(&mut probes, (MEMO_HEADER + watch_len) as u64)
        .ok()?;
    Some(MemoParts {
        file,
        digest,
        quick,
        watch,
        probes,
        document: document as u64,
    })
}

/// A memo file's start, before its document: its header, the watch list
/// of `watch` when it can be trusted now, and `probes`.
fn memo_head(digest: Hash, watch: Option<&Watch>, probes: &[u8]) -> Vec<u8> {
    let watched = watch.and_then(|w| Some((w.quick, serde_json::to_vec(&w.stats()?).ok()?)));
    let (quick, watch) = watched.unwrap_or_default();
    let mut head = Vec::with_capacity(MEMO_HEADER + watch.len() + probes.len());
    head.extend_from_slice(&digest.to_le_bytes());
    head.extend_from_slice(&quick.to_le_bytes());
    head.extend_from_slice(&(watch.len() as u64).to_le_bytes());
    head.extend_from_slice(&(probes.len() as u64).to_le_bytes());
    head.extend_from_slice(&watch);
    head.extend_from_slice(probes);
    head
}

impl MemoParts {
    fn probes_hold(&self) -> bool {
        use rayon::prelude::*;
        serde_json::from_slice::<Vec<Probe>>(&self.probes)
            .is_ok_and(|probes| probes.par_iter().all(Probe::holds))
    }

    /// How many test modules the watch list's collection had, when every
    /// `stat` on it holds.
    fn watch_holds(&self) -> Option<usize> {
        use rayon::prelude::*;
        let (files, watch) = serde_json::from_slice::<WatchList>(&self.watch).ok()?;
        (!watch.is_empty()
            && watch
                .par_iter()
                .all(|(path, stat)| StatData::now(Path::new(path)) == *stat))
        .then_some(files)
    }

    /// The document, with the file positioned after its first byte.
    fn document(self) -> Option<crate::model::MemoDocument> {
        use std::io::{Read, Seek, SeekFrom};
        let mut file = self.file;
        file.seek(SeekFrom::Start(self.document)).ok()?;
        let mut first = [0u8; 1];
        file.read_exact(&mut first).ok()?;
        Some(crate::model::MemoDocument {
            first: first[0],
            file: Arc::new(file),
        })
    }
}

impl Store {
    /// The memo's document, when it was stored with `digest` and its
    /// probes still hold; and whether it has a watch list for `quick` that
    /// still holds.
    pub(crate) fn memo(
        &self,
        digest: Hash,
        quick: Hash,
    ) -> Option<(crate::model::MemoDocument, bool)> {
        let parts = memo_parts(&self.dir.join(MEMO))?;
        if parts.digest != digest || !parts.probes_hold() {
            return None;
        }
        let watched = quick != 0 && parts.quick == quick && parts.watch_holds().is_some();
        Some((parts.document()?, watched))
    }

    /// The memo's document, when it has a watch list for `quick` and every
    /// `stat` on it and every probe still hold: nothing the collection
    /// read has changed.
    pub(crate) fn quick_memo(&self, quick: Hash) -> Option<(crate::model::MemoDocument, usize)> {
        let parts = memo_parts(&self.dir.join(MEMO))?;
        if quick == 0 || parts.quick != quick {
            return None;
        }
        let files = parts.watch_holds()?;
        if !parts.probes_hold() {
            return None;
        }
        Some((parts.document()?, files))
    }

    /// Where the recorded expansions are stored (a memo watches it).
    pub(crate) fn recorded_path(&self) -> PathBuf {
        self.dir.join(RECORDED)
    }

    /// Stores `rendered`, after its first byte `code`, as the memo of
    /// `slot`, with its watch list when every path on it is old enough to
    /// be trusted.
    pub(crate) fn write_memo(&self, slot: &crate::model::MemoSlot, code: u8, rendered: &[&[u8]]) {
        use std::io::Write as _;
        self.write_memo_with(slot, code, |out| {
            rendered.iter().try_for_each(|part| out.write_all(part))
        });
    }

    /// [`Store::write_memo`] of the document `body` writes, not held in
    /// memory: the memo's document (as [`Store::memo`] answers it) when
    /// it was written.
    pub(crate) fn write_memo_with(
        &self,
        slot: &crate::model::MemoSlot,
        code: u8,
        body: impl FnOnce(&mut std::io::BufWriter<std::fs::File>) -> std::io::Result<()>,
    ) -> Option<crate::model::MemoDocument> {
        use std::io::{Seek, SeekFrom, Write as _};
        let probes = serde_json::to_vec(&slot.probes).ok()?;
        let head = memo_head(slot.digest, slot.watch.as_ref(), &probes);
        let mut file = self.write_with(MEMO, |out| {
            out.write_all(&head)?;
            out.write_all(&[code])?;
            body(out)
        })?;
        file.seek(SeekFrom::Start(head.len() as u64 + 1)).ok()?;
        Some(crate::model::MemoDocument {
            first: code,
            file: Arc::new(file),
        })
    }

    /// A memo of `digest` whose `document` (its first byte included) is
    /// written as it is.
    fn write_memo_document(
        &self,
        digest: Hash,
        watch: Option<&Watch>,
        probes: &[u8],
        document: &[u8],
    ) {
        let head = memo_head(digest, watch, probes);
        self.write_parts(MEMO, &[&head, document]);
    }

    /// Writes the memo of `digest` again, its probes and document as they
    /// are, with `watch` when it can be trusted now (a memo hit found
    /// without a watch list).
    pub(crate) fn rewatch_memo(&self, digest: Hash, watch: Option<&Watch>) {
        use std::os::unix::fs::FileExt;
        if watch.and_then(Watch::stats).is_none() {
            return;
        }
        let Some(parts) = memo_parts(&self.dir.join(MEMO)) else {
            return;
        };
        let Ok(size) = parts.file.metadata().map(|m| m.len()) else {
            return;
        };
        let Ok(length) = usize::try_from(size - parts.document) else {
            return;
        };
        let mut rendered = vec![0u8; length];
        if parts.digest == digest
            && parts
                .file
                .read_exact_at(&mut rendered, parts.document)
                .is_ok()
        {
            self.write_memo_document(digest, watch, &parts.probes, &rendered);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::{checksum, checksum_parts, entry, ModuleOutput};
    use crate::collector::{ItemFacts, RawItem};
    use crate::fixtures::FixtureScope;
    use crate::model::{CollectError, Decorator, Marker, MarkerSource};
    use crate::parametrize::ParamEntry;

    /// A blob's checksum is the same computed over its bytes whole or
    /// over any split of them into parts (empty parts included).
    #[test]
    fn checksum_of_parts_is_that_of_their_concatenation() {
        let bytes: Vec<u8> = (0..61u8).map(|b| b.wrapping_mul(37)).collect();
        for len in 0..bytes.len() {
            let bytes = &bytes[..len];
            for a in 0..=len {
                for b in a..=len {
                    let parts = [&bytes[..a], &[][..], &bytes[a..b], &bytes[b..]];
                    assert_eq!(checksum_parts(&parts), checksum(bytes), "{len} {a} {b}");
                }
            }
        }
        assert_ne!(checksum(b"abcdefgh1"), checksum(b"abcdefgh2"));
    }

    fn item(nodeid: &str, file: &Arc<str>) -> RawItem {
        RawItem {
            line: 3,
            ..RawItem::of_file(nodeid.to_owned(), file.clone())
        }
    }

    /// Every field of every item comes back from the entry and the
    /// fragment as it was (in the module's order, the fragment in it or
    /// not), a shared marker once; a damaged or cut entry or fragment is
    /// none.
    #[test]
    fn module_items_round_trip_through_their_encoding() {
        let file: Arc<str> = "tests/test_a.py".into();
        let marker = Arc::new(Marker {
            name: "slow".into(),
            args: vec![serde_json::json!(1.5), serde_json::json!({"expr": "x"})],
            kwargs: serde_json::Map::new(),
            source: MarkerSource::Function,
            location: None,
        });
        let decorator = Arc::new(Decorator {
            path: "functools.wraps".into(),
            args: Vec::new(),
            kwargs: serde_json::Map::new(),
            source: MarkerSource::Module,
        });
        let plain = item("tests/test_a.py::test_plain", &file);
        let mut full = item("tests/test_a.py::TestK::test_é[\"\\n\"]", &file);
        full.file = "tests/other.py".into();
        full.def_file = "tests/base.py".into();
        full.line = 1 << 40;
        full.markers = vec![marker.clone(), marker.clone()];
        full.high_params = vec![ParamEntry {
            argname: "db".into(),
            scope: FixtureScope::Session,
            key: "0".into(),
        }];
        full.class_key = Some("tests/test_a.py::TestK".into());
        full.facts = ItemFacts {
            dynamic: Some("the ids are computed".into()),
            decorators: vec![decorator],
            skip: Some(String::new()),
            markers_uncertain: Some("a decorator".into()),
        }
        .shared();
        let error = CollectError {
            file: "tests/test_a.py".into(),
            line: 1,
            column: 0,
            message: "boom".into(),
        };
        let output = ModuleOutput {
            items: vec![plain, full],
            error: None,
            skipped: None,
            parsed: true,
        };
        for order in [None, Some(vec![1, 0])] {
            let fragment = match &order {
                None => crate::cache::fragment::render(&output.items, false, &|_| None),
                Some(order) => {
                    let swapped = vec![output.items[1].clone(), output.items[0].clone()];
                    assert_eq!(order, &[1, 0]);
                    crate::cache::fragment::render(&swapped, false, &|_| None)
                }
            };
            let mut bytes = Vec::new();
            entry::encode(&mut bytes, &output, order.as_deref());
            assert_eq!(bytes.len(), entry::encoded_len(&output, order.as_deref()));
            let back = entry::decode(&bytes, &fragment, Some(error.clone()), None, false).unwrap();
            assert_eq!(format!("{:?}", back.items), format!("{:?}", output.items));
            assert_eq!(back.error, Some(error.clone()));
            assert!(!back.parsed);
            assert!(Arc::ptr_eq(
                &back.items[1].markers[0],
                &back.items[1].markers[1]
            ));
            for cut in 0..bytes.len() {
                let cut = &bytes[..cut];
                assert!(entry::decode(cut, &fragment, None, None, true).is_none());
            }
            for cut in 0..fragment.len() {
                let cut = &fragment[..cut];
                assert!(entry::decode(&bytes, cut, None, None, true).is_none());
            }
            let mut longer = bytes.clone();
            longer.push(0);
            assert!(entry::decode(&longer, &fragment, None, None, true).is_none());
        }
    }
}
