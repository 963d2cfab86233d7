//! The cache on disk: `stamps.json` (per file its `stat` data and content
//! hash, with the imports found in it) and one `pack-<context>.json` per
//! collection context (per test module its key, its probes and what
//! collecting it produced). Every file is written to a temporary name and
//! renamed, so that a reader sees a whole file or none; a file that does
//! not parse, or was written by another format version, is ignored and
//! rewritten. Nothing here can fail a collection: an unwritable cache is
//! no cache.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use rustc_hash::FxHashMap as HashMap;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::probe::Probe;
use crate::collector::RawItem;
use crate::fixtures::FixtureScope;
use crate::model::{CollectError, Decorator, Item, Marker};
use crate::parametrize::ParamEntry;

/// The version of the format, which names the cache's folder: a proctor
/// that writes another format never reads these files. Raised also when
/// what a stamp records changes meaning (v2: a module's imports include
/// the submodules its tables name), since stamps outlive builds.
pub(crate) const FORMAT: &str = "v2";

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
        use std::os::unix::fs::MetadataExt;
        let meta = std::fs::metadata(path).ok()?;
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
    stamps: HashMap<String, Stamp>,
}

/// One pack: what collection produced in one context.
#[derive(Serialize, Deserialize)]
struct PackFile<'a> {
    format: String,
    #[serde(with = "hex")]
    context: Hash,
    /// What the conftests' hooks add (items, warnings); in every context
    /// the same for the same conftests.
    #[serde(borrow)]
    session: Option<&'a RawValue>,
    /// Per test module (its path) its entry, parsed only when used.
    #[serde(borrow)]
    modules: HashMap<String, &'a RawValue>,
}

/// The cached result of collecting one test module.
#[derive(Serialize, Deserialize)]
pub(crate) struct ModuleEntry {
    #[serde(with = "hex")]
    pub(crate) key: Hash,
    pub(crate) probes: Vec<Probe>,
    /// Markers and decorators once each; items refer to them by index, so
    /// that a marker shared by many items is stored (and loaded) once.
    markers: Vec<Marker>,
    decorators: Vec<Decorator>,
    /// The file most items are collected from and defined in; an item
    /// names its own only when it differs.
    file: String,
    items: Vec<StoredItem>,
    error: Option<CollectError>,
    skipped: Option<CollectError>,
    parsed: bool,
}

#[derive(Serialize, Deserialize)]
struct StoredItem {
    nodeid: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    def_file: Option<String>,
    line: usize,
    markers: Vec<u32>,
    dynamic: Option<String>,
    decorators: Vec<u32>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    high_params: Vec<(String, u8, String)>,
    class_key: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    skip: Option<String>,
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

/// Index of each distinct `Arc` (by address) in a table of their values.
struct Interner<T> {
    index: HashMap<usize, u32>,
    values: Vec<T>,
}

impl<T: Clone> Interner<T> {
    fn new() -> Self {
        Interner {
            index: HashMap::default(),
            values: Vec::new(),
        }
    }

    fn add(&mut self, value: &Arc<T>) -> u32 {
        let address = Arc::as_ptr(value) as usize;
        *self.index.entry(address).or_insert_with(|| {
            self.values.push(T::clone(value));
            u32::try_from(self.values.len() - 1).unwrap_or(u32::MAX)
        })
    }
}

impl ModuleEntry {
    pub(crate) fn new(key: Hash, probes: Vec<Probe>, output: &ModuleOutput) -> ModuleEntry {
        let mut markers = Interner::new();
        let mut decorators = Interner::new();
        let file = output
            .items
            .first()
            .map(|item| item.file.clone())
            .unwrap_or_default();
        let other = |name: &String| (*name != file).then(|| name.clone());
        let items = output
            .items
            .iter()
            .map(|item| StoredItem {
                nodeid: item.nodeid.clone(),
                file: other(&item.file),
                def_file: other(&item.def_file),
                line: item.line,
                markers: item.markers.iter().map(|m| markers.add(m)).collect(),
                dynamic: item.dynamic.clone(),
                decorators: item.decorators.iter().map(|d| decorators.add(d)).collect(),
                high_params: item
                    .high_params
                    .iter()
                    .map(|p| (p.argname.clone(), scope_code(p.scope), p.key.clone()))
                    .collect(),
                class_key: item.class_key.clone(),
                skip: item.skip.clone(),
            })
            .collect();
        ModuleEntry {
            key,
            probes,
            markers: markers.values,
            decorators: decorators.values,
            file,
            items,
            error: output.error.clone(),
            skipped: output.skipped.clone(),
            parsed: output.parsed,
        }
    }

    /// The module's output, or `None` when the entry refers to markers or
    /// scopes it does not hold (a damaged file).
    pub(crate) fn output(self) -> Option<ModuleOutput> {
        let markers: Vec<Arc<Marker>> = self.markers.into_iter().map(Arc::new).collect();
        let decorators: Vec<Arc<Decorator>> = self.decorators.into_iter().map(Arc::new).collect();
        let mut items = Vec::with_capacity(self.items.len());
        for item in self.items {
            let high_params = item
                .high_params
                .into_iter()
                .map(|(argname, scope, key)| {
                    Some(ParamEntry {
                        argname,
                        scope: scope_of(scope)?,
                        key,
                    })
                })
                .collect::<Option<Vec<_>>>()?;
            items.push(RawItem {
                nodeid: item.nodeid,
                file: item.file.unwrap_or_else(|| self.file.clone()),
                def_file: item.def_file.unwrap_or_else(|| self.file.clone()),
                line: item.line,
                markers: pick(&markers, &item.markers)?,
                dynamic: item.dynamic,
                decorators: pick(&decorators, &item.decorators)?,
                high_params,
                class_key: item.class_key,
                skip: item.skip,
            });
        }
        Some(ModuleOutput {
            items,
            error: self.error,
            skipped: self.skipped,
            parsed: self.parsed,
        })
    }
}

/// The entries of `table` at `indices`; `None` when one is out of range.
fn pick<T>(table: &[Arc<T>], indices: &[u32]) -> Option<Vec<Arc<T>>> {
    indices
        .iter()
        .map(|&i| table.get(i as usize).cloned())
        .collect()
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

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

impl Store {
    /// Opens the cache under `root` (`.proctor/cache`), reading its stamps;
    /// a missing or unreadable cache is an empty one.
    pub(crate) fn open(root: &Path) -> Store {
        let dir = root.join(FORMAT);
        let stamps = std::fs::read(dir.join("stamps.json"))
            .ok()
            .and_then(|bytes| serde_json::from_slice::<StampsFile>(&bytes).ok())
            .filter(|file| file.format == FORMAT)
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
        for (path, mut stamp) in updates {
            let Some(key) = path.to_str() else { continue };
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
            self.stamps.retain(|path, _| Path::new(path).exists());
            let file = StampsFile {
                format: FORMAT.to_string(),
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
    /// the entries of `old` for the modules not collected again.
    pub(crate) fn write_pack(
        &self,
        context: Hash,
        old: Option<&Pack>,
        session: &SessionEntry,
        fresh: Vec<(String, ModuleEntry)>,
    ) {
        let Ok(session) = serde_json::value::to_raw_value(session) else {
            return;
        };
        let mut fresh_raw: Vec<(String, Box<RawValue>)> = Vec::with_capacity(fresh.len());
        for (path, entry) in fresh {
            if let Ok(raw) = serde_json::value::to_raw_value(&entry) {
                fresh_raw.push((path, raw));
            }
        }
        let old_file = old.and_then(Pack::parsed);
        let mut modules: HashMap<String, &RawValue> = old_file
            .map(|f| f.modules)
            .unwrap_or_default()
            .into_iter()
            .collect();
        for (path, raw) in &fresh_raw {
            modules.insert(path.clone(), raw);
        }
        modules.retain(|path, _| Path::new(path).exists());
        let file = PackFile {
            format: FORMAT.to_string(),
            context,
            session: Some(&session),
            modules,
        };
        if let Ok(bytes) = serde_json::to_vec(&file) {
            self.write(&pack_name(context), &bytes);
            self.prune_packs(context);
        }
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
                name.starts_with("pack-") && name.ends_with(".json") && *name != *keep
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
        if std::fs::create_dir_all(&self.dir).is_err() {
            return;
        }
        ensure_gitignore(&self.dir);
        let temp = self.dir.join(format!(
            ".{name}.{}.{}.tmp",
            std::process::id(),
            TEMP_COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        if std::fs::write(&temp, bytes).is_ok()
            && std::fs::rename(&temp, self.dir.join(name)).is_ok()
        {
            return;
        }
        let _ = std::fs::remove_file(&temp);
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

fn pack_name(context: Hash) -> String {
    format!("pack-{context:032x}.json")
}

impl Pack {
    /// The pack's contents, when it parses and is of this format and
    /// context.
    fn parsed(&self) -> Option<PackFile<'_>> {
        serde_json::from_slice::<PackFile<'_>>(&self.bytes)
            .ok()
            .filter(|file| file.format == FORMAT && file.context == self.context)
    }

    /// The raw entries by module path, and the session entry.
    pub(crate) fn entries(&self) -> Option<(HashMap<String, &RawValue>, Option<SessionEntry>)> {
        let file = self.parsed()?;
        let session = file
            .session
            .and_then(|raw| serde_json::from_str(raw.get()).ok());
        Some((file.modules, session))
    }
}

/// Parses one module entry; `None` when it is damaged.
pub(crate) fn module_entry(raw: &RawValue) -> Option<ModuleEntry> {
    serde_json::from_str(raw.get()).ok()
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
/// answers its modules got still hold. Layout: the digest (16 bytes,
/// little-endian), the probes' JSON length (8 bytes), the probes as JSON,
/// then the caller's bytes.
const MEMO: &str = "memo.bin";

impl Store {
    /// The memo's bytes, when it was stored with `digest` and its probes
    /// still hold.
    pub(crate) fn memo(&self, digest: Hash) -> Option<Vec<u8>> {
        let mut bytes = std::fs::read(self.dir.join(MEMO)).ok()?;
        let stored = u128::from_le_bytes(bytes.get(..16)?.try_into().ok()?);
        if stored != digest {
            return None;
        }
        let length = u64::from_le_bytes(bytes.get(16..24)?.try_into().ok()?);
        let end = 24usize.checked_add(usize::try_from(length).ok()?)?;
        let probes: Vec<Probe> = serde_json::from_slice(bytes.get(24..end)?).ok()?;
        {
            use rayon::prelude::*;
            if !probes.par_iter().all(Probe::holds) {
                return None;
            }
        }
        bytes.drain(..end);
        // A memo without a document is a damaged one.
        (!bytes.is_empty()).then_some(bytes)
    }

    /// Stores `rendered` as the memo of `digest`.
    pub(crate) fn write_memo(&self, digest: Hash, probes: &[Probe], rendered: &[u8]) {
        let Ok(probes) = serde_json::to_vec(probes) else {
            return;
        };
        let mut bytes = Vec::with_capacity(24 + probes.len() + rendered.len());
        bytes.extend_from_slice(&digest.to_le_bytes());
        bytes.extend_from_slice(&(probes.len() as u64).to_le_bytes());
        bytes.extend_from_slice(&probes);
        bytes.extend_from_slice(rendered);
        self.write(MEMO, &bytes);
    }
}
