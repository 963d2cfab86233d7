//! The static collection result: items with markers and provenance, and
//! collection errors. This is the model every later stage reads.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value as Json;

/// Where a marker on an item was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MarkerSource {
    /// A decorator on the test function (or a `pytestmark` it carries).
    Function,
    /// A decorator or `pytestmark` on the class, or on one of its bases.
    Class,
    /// The module's `pytestmark`.
    Module,
    /// `pytest.param(..., marks=...)`, or the empty-parameter-set mark.
    Param,
    /// The opt-in of an example script (its `# pytest:` comment) or a
    /// notebook (its metadata block); the whole file is one test.
    #[serde(rename = "opt-in")]
    OptIn,
}

/// One marker as pytest's `item.iter_markers()` would yield it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Marker {
    /// Marker name (`slow`, `parametrize`, `skipif`, ...).
    pub name: String,
    /// Positional arguments: literal values as JSON, others as
    /// `{"expr": "<source text>"}`.
    pub args: Vec<Json>,
    /// Keyword arguments in source order, encoded like `args`.
    pub kwargs: serde_json::Map<String, Json>,
    /// Where the marker was written.
    pub source: MarkerSource,
    /// The file, line and column where the marker is written, when it is
    /// written (not for the empty-parameter-set mark pytest adds).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<Location>,
}

/// A place in a file: 1-based line and column of the start and the end.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Location {
    /// The file, relative to the rootdir.
    pub file: String,
    /// 1-based line of the start.
    pub line: usize,
    /// 1-based column of the start.
    pub column: usize,
    /// 1-based line of the end.
    pub end_line: usize,
    /// 1-based column just past the end.
    pub end_column: usize,
}

/// One test item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Item {
    /// The node id exactly as pytest prints it. For a dynamic item whose
    /// parameters cannot be known, the id of the function without `[...]`.
    pub nodeid: String,
    /// The file that defines the test, relative to the rootdir, with `/`
    /// separators (a base class's module for an inherited test, as in
    /// pytest's `item.location`).
    pub file: String,
    /// 1-based line where the test is defined (its first decorator), or 0
    /// when the item is a whole file.
    pub line: usize,
    /// Markers in `iter_markers()` order: function, then classes from the
    /// innermost outwards, then the module. Markers written once and shared
    /// by many items (a class's, a parametrize decorator's) are shared here
    /// too.
    pub markers: Vec<Arc<Marker>>,
    /// Why this item cannot be known statically, if it cannot.
    pub dynamic: Option<String>,
    /// Decorators that are not pytest marks (`@slow`, `@require_gpu(8)`),
    /// with the entries of `pytestmark` lists that are not marks and the
    /// module's top-level `pytest.importorskip(...)` calls: the function's,
    /// then its classes' (innermost first), then the module's. A taxonomy
    /// can map them to markers and a plan to requirements.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub decorators: Vec<Arc<Decorator>>,
    /// Why the test skips itself when it runs, read statically: an
    /// inherited test whose body starts with `if not self.<flag>:
    /// self.skipTest(...)` (or `pytest.skip(...)`) on a class whose MRO sets
    /// the flag false; the reason, then the flag and the class that sets it.
    /// pytest still decides: `proctor run` leaves the skip to it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skip: Option<String>,
    /// Why the markers may be incomplete, when they may: the test is
    /// decorated by a function of the suite that may apply marks in a way
    /// proctor does not follow (a decorator whose body applies marks from
    /// a plain list, or returns one applied, is followed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub markers_uncertain: Option<String>,
}

/// A decorator that is not a pytest mark, resolved to the dotted path of
/// what it calls (`transformers.testing_utils.slow`, or the suite's own
/// `tests.predicates.require_gpu`). Two other idioms that state what a test
/// needs are recorded the same way: an entry of a module's or class's
/// `pytestmark` list that is not a mark (`require_gpu(min_vram_gb=20)`),
/// and a `pytest.importorskip("torch", minversion="2.0")` call at the top
/// level of a test module (path `pytest.importorskip`, source `module`;
/// calls in functions or conditional blocks are left out).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Decorator {
    /// The dotted path of the decorator (or of the function it calls).
    pub path: String,
    /// Positional arguments when called, encoded like marker arguments.
    pub args: Vec<Json>,
    /// Keyword arguments when called.
    pub kwargs: serde_json::Map<String, Json>,
    /// `function`, `class` or `module`: where it is written.
    pub source: MarkerSource,
}

/// A file that pytest would fail to collect, or that proctor could not read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CollectError {
    /// The file, relative to the rootdir where possible.
    pub file: String,
    /// 1-based line of the problem (0 when it concerns the whole file).
    pub line: usize,
    /// 1-based column (0 when it concerns the whole file).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub column: usize,
    /// What went wrong, phrased like pytest's report where pytest has one.
    pub message: String,
}

#[expect(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde's skip_serializing_if signature"
)]
fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Everything static collection found.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Collection {
    /// Items in pytest's collection order.
    pub items: Vec<Item>,
    /// Collection errors, in the order of the files that caused them.
    pub errors: Vec<CollectError>,
    /// Test modules pytest skips while importing them (a top-level
    /// `pytest.importorskip` of a missing module, a module-level
    /// `pytest.skip`): no items, one skip each, with pytest's reason.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<CollectError>,
    /// Things in the suite that may change what pytest collects at run time
    /// (conftest hooks that reorder, deselect or re-mark items).
    pub warnings: Vec<CollectError>,
    /// The `conftest.py` files pytest would load for this collection
    /// (absolute paths, rootdir's first), for callers that read them
    /// again (marker registrations).
    #[serde(skip)]
    pub conftests: Vec<std::path::PathBuf>,
    /// The files of the configured example and notebook folders, in
    /// collection order: what each opts in with, and what is wrong with it
    /// (examples without the comment included, for `proctor check`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub opt_in: Vec<crate::opt_in::OptInFile>,
    /// The example and notebook folders (relative to the rootdir) that a
    /// whole-suite collection added beyond pytest's own walk: a run
    /// without paths does not reach their items.
    #[serde(skip)]
    pub beyond_walk: Vec<String>,
    /// How the collection cache served this collection, when it was used.
    #[serde(skip)]
    pub cache: Option<CacheStats>,
    /// Functions static collection calls dynamic whose items came from a
    /// `proctor run` that saw pytest's real ones (recorded expansions): the
    /// function's node id and when that run started (ISO-8601, UTC).
    #[serde(skip)]
    pub recorded: std::collections::BTreeMap<String, String>,
    /// Per test module (its path relative to the rootdir) the key a
    /// recorded expansion of its dynamic functions is stored under: what
    /// its static result depends on, and that result's dynamic items. Only
    /// with the cache on.
    #[serde(skip)]
    pub record_keys: std::collections::HashMap<String, u128>,
    /// With [`crate::collect_memoized`]: the caller's stored rendering of
    /// this very collection (then nothing else is filled in), or what
    /// storing one takes.
    #[serde(skip)]
    pub memo: Option<Memo>,
}

/// The memo of a whole collection's rendering ([`crate::collect_memoized`]).
#[derive(Debug, Clone)]
pub enum Memo {
    /// What the caller stored for a collection with the same inputs.
    Hit(MemoDocument),
    /// No memo held: store the rendering with [`crate::store_memo`].
    Miss(MemoSlot),
    /// No memo held, and the collection rendered from the cache's
    /// per-module fragments (the caller's header given): the document, to
    /// write and to store with its slot, if it has one.
    Rendered(Rendered),
}

/// `collect --json` as spliced from the cache ([`Memo::Rendered`]).
#[derive(Debug, Clone)]
pub struct Rendered {
    /// The whole document, ending with a newline, when it could not be
    /// stored as the memo (`stored`); else empty.
    pub document: Vec<u8>,
    /// The document as stored in the memo, written there as it was
    /// spliced (not held in memory): to copy out, unless it was `sent`.
    pub stored: Option<MemoDocument>,
    /// How writing the document to [`JsonHead::sink`] went, when there
    /// was one: then it is neither to copy out nor held in `document`.
    pub sent: Option<Result<(), std::sync::Arc<std::io::Error>>>,
    /// How many items and collection errors it lists (for the exit
    /// status).
    pub items: usize,
    pub errors: usize,
}

/// The start of `collect --json`'s document and its exit status, for a
/// collection spliced from the cache's fragments
/// ([`crate::collect_memoized`]).
#[derive(Debug, Clone, Copy)]
pub struct JsonHead<'a> {
    /// The document's start: a JSON object, whose closing brace the rest
    /// replaces.
    pub json: &'a [u8],
    /// The exit status of a document with so many collection errors and
    /// items: stored first in the memo.
    pub status: fn(errors: usize, items: usize) -> u8,
    /// Where the caller wants a spliced document (standard output): it
    /// is written there while the same bytes go to the memo, side by side,
    /// instead of being copied out of the memo after.
    pub sink: Option<&'a std::fs::File>,
}

/// A stored rendering: the byte the caller stored first (`collect
/// --json`'s exit status) and the open memo file, positioned at the rest,
/// so that the caller copies it out without reading it into memory.
#[derive(Debug, Clone)]
pub struct MemoDocument {
    pub first: u8,
    pub file: std::sync::Arc<std::fs::File>,
}

/// What storing a memo takes: the collection's digest, the file-system
/// answers its modules got, and what lets a later run check it from
/// `stat` data alone ([`crate::cache::store::Watch`]).
#[derive(Debug, Clone)]
pub struct MemoSlot {
    pub(crate) digest: u128,
    pub(crate) probes: Vec<crate::cache::probe::Probe>,
    pub(crate) watch: Option<crate::cache::store::Watch>,
}

impl Collection {
    /// The run an item's node id was recorded in, if it came from a
    /// recorded expansion.
    #[must_use]
    pub fn recorded_in(&self, nodeid: &str) -> Option<&str> {
        if self.recorded.is_empty() {
            return None;
        }
        self.recorded
            .get(crate::function_nodeid(nodeid))
            .map(String::as_str)
    }
}

/// How many test modules came from the collection cache and how many were
/// collected anew.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Test modules whose cached result still held.
    pub cached: usize,
    /// Test modules collected anew (and stored).
    pub collected: usize,
    /// Whether a memo was found from its watch list's `stat` data alone,
    /// without discovery.
    pub by_stat: bool,
}
