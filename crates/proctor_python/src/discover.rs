//! Finding the files pytest would collect: the initial paths, the directory
//! walk in pytest's order, and pytest's ignore rules (`norecursedirs`,
//! `--ignore`, `--ignore-glob`, virtualenvs, `collect_ignore` lists in
//! conftest.py files).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, PoisonError};

use ruff_python_ast::{Expr, Stmt};
use rustc_hash::FxHashSet;

use crate::fnmatch::{fnmatch, fnmatch_ex, fnmatch_ex_named};
use crate::model::CollectError;
use crate::opt_in::{self, OptInFile, OptInKind};
use crate::settings::CollectSettings;
use crate::source::ParsedFile;

/// What a directory entry is, following symlinks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Dir,
    /// A symlink to a directory: resolved, so loops are caught.
    LinkedDir,
    File,
    Other,
}

/// Whether pytest's own plugins collect a file a conftest hook is handed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Also {
    No,
    Yes,
    /// A doctest file: when its text holds examples.
    IfExamples,
}

/// The result of discovery.
#[derive(Debug, Default)]
pub(crate) struct Discovery {
    /// Test files in collection order (a file given twice is listed once).
    pub(crate) test_files: Vec<PathBuf>,
    /// Text files collected by pytest's doctest plugin (`doctest_glob`,
    /// default `test*.txt`), with the index in `test_files` they follow.
    pub(crate) doctest_files: Vec<(usize, PathBuf)>,
    /// The doctest files (and the text files a conftest hook is handed)
    /// whose text holds doctest examples: each read once, in parallel,
    /// after the walk.
    pub(crate) with_examples: FxHashSet<PathBuf>,
    /// Every conftest.py met on the way, by directory.
    pub(crate) conftests: BTreeMap<PathBuf, PathBuf>,
    /// The same conftests read and parsed (for their `collect_ignore`), in
    /// the order met, so that collection does not parse them again.
    pub(crate) conftest_sources: Vec<ParsedFile>,
    /// Files a conftest.py ignores only under a condition, with the reason
    /// their items are reported as dynamic.
    pub(crate) conditional: std::collections::HashMap<PathBuf, String>,
    /// Problems met while walking (missing paths, symlink loops, unreadable
    /// directories).
    pub(crate) errors: Vec<CollectError>,
    /// Files of the configured example and notebook folders, with the
    /// index in `test_files` they follow (examples without the opt-in
    /// comment included, without a node id).
    pub(crate) opt_in: Vec<(usize, OptInFile)>,
    /// Files under a conftest that defines `pytest_collect_file` (every
    /// file pytest hands the hook, whatever its name).
    pub(crate) hook_files: Vec<crate::eval::HookFile>,
    /// Every directory the walk listed or looked for a conftest.py in: a
    /// file added, removed or renamed in one changes its `stat` data,
    /// which the cache's memo checks instead of walking again.
    pub(crate) walked: Vec<PathBuf>,
}

/// `collect_ignore` / `collect_ignore_glob` of one conftest.py, as absolute
/// paths and patterns.
#[derive(Debug, Default, Clone)]
struct ConftestIgnores {
    /// The conftest, relative to the rootdir, for messages.
    conftest: String,
    paths: Vec<PathBuf>,
    globs: Vec<String>,
    /// Entries added under a condition (`if`, `try`).
    cond_paths: Vec<PathBuf>,
    cond_globs: Vec<String>,
}

impl ConftestIgnores {
    fn is_empty(&self) -> bool {
        self.paths.is_empty()
            && self.globs.is_empty()
            && self.cond_paths.is_empty()
            && self.cond_globs.is_empty()
    }
}

/// `path.starts_with(dir)`, answered from their bytes when both are plain
/// (no `.` or `..` component, no doubled or trailing slash), as the paths
/// the walk joins from the same roots are: then the one is under the other
/// exactly when it starts with its bytes and a slash. Anything else takes
/// the component walk.
pub(crate) fn starts_with_dir(path: &Path, dir: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let plain = |bytes: &[u8]| {
        bytes
            .strip_prefix(b"/")
            .is_some_and(crate::settings::plain_components)
    };
    let (bytes, prefix) = (path.as_os_str().as_bytes(), dir.as_os_str().as_bytes());
    if plain(bytes) && plain(prefix) {
        return bytes
            .strip_prefix(prefix)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(b"/"));
    }
    path.starts_with(dir)
}

pub(crate) struct Walker<'s> {
    settings: &'s CollectSettings,
    out: Discovery,
    ignores: BTreeMap<PathBuf, ConftestIgnores>,
    /// By their bytes, which hash faster than a `Path`'s components.
    seen_files: FxHashSet<std::ffi::OsString>,
    /// Directories whose conftest.py cannot be read or parsed: pytest
    /// fails to import it and collects nothing below it.
    broken: FxHashSet<PathBuf>,
    /// Directories whose conftest.py mentions `pytest_collect_file`.
    hook_dirs: Vec<PathBuf>,
    /// Hook files (indices in `hook_files`) that pytest's doctest plugin
    /// collects too when their text holds examples: decided after the walk.
    unread_hooks: Vec<usize>,
    /// Listings of directories the walk will enter, made ahead on workers.
    ahead: rustc_hash::FxHashMap<PathBuf, Arc<Ahead>>,
}

/// A directory's entries: name, path and kind.
type Listing = Vec<(String, PathBuf, Kind)>;

/// A directory listing made ahead of the walk: the walk enters the
/// directories of one directory in order, depth first, while workers list
/// the ones it comes to next (a listing is a few system calls, and a suite
/// can have thousands of directories). Whoever starts it first lists it.
#[derive(Default)]
struct Ahead {
    slot: Mutex<AheadSlot>,
    done: Condvar,
}

#[derive(Default)]
enum AheadSlot {
    #[default]
    Queued,
    Listing,
    Done(std::io::Result<Listing>),
    Taken,
}

impl Ahead {
    /// On a worker: lists `dir` unless the walk got to it first.
    fn list(&self, dir: &Path) {
        {
            let mut slot = self.slot.lock().unwrap_or_else(PoisonError::into_inner);
            if !matches!(*slot, AheadSlot::Queued) {
                return;
            }
            *slot = AheadSlot::Listing;
        }
        let listing = list_dir(dir);
        *self.slot.lock().unwrap_or_else(PoisonError::into_inner) = AheadSlot::Done(listing);
        self.done.notify_one();
    }

    /// On the walk: the listing, waited for when a worker is making it,
    /// made now when none has begun.
    fn take(&self, dir: &Path) -> std::io::Result<Listing> {
        let mut slot = self.slot.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            match std::mem::replace(&mut *slot, AheadSlot::Taken) {
                AheadSlot::Done(listing) => return listing,
                AheadSlot::Listing => {
                    *slot = AheadSlot::Listing;
                    slot = self.done.wait(slot).unwrap_or_else(PoisonError::into_inner);
                }
                AheadSlot::Queued | AheadSlot::Taken => {
                    drop(slot);
                    return list_dir(dir);
                }
            }
        }
    }
}

impl<'s> Walker<'s> {
    pub(crate) fn new(settings: &'s CollectSettings) -> Self {
        Walker {
            settings,
            out: Discovery::default(),
            ignores: BTreeMap::new(),
            seen_files: FxHashSet::default(),
            broken: FxHashSet::default(),
            hook_dirs: Vec::new(),
            unread_hooks: Vec::new(),
            ahead: rustc_hash::FxHashMap::default(),
        }
    }

    /// Walks every initial path in order.
    pub(crate) fn run(mut self, initial: &[PathBuf]) -> Discovery {
        for path in initial {
            self.visit_conftests_above(path);
            if self.under_broken_conftest(path) {
                // Its conftest's error stands for it, as in pytest.
            } else if path.is_dir() {
                let mut stack = Vec::new();
                self.walk_dir(path, None, &mut stack, false);
            } else if path.is_file() && self.opt_in_file(path) {
                // An example or a notebook.
            } else if path.is_file() {
                // A file given explicitly is collected whatever its name,
                // as long as it is a Python file (or a .txt/.rst doctest),
                // and a conftest's `pytest_collect_file` sees it too.
                self.note_initial_hook_file(path);
                if path.extension().is_some_and(|e| e == "py") {
                    self.add_file(path);
                } else if path.extension().is_some_and(|e| e == "txt" || e == "rst")
                    || self.is_doctest(path)
                {
                    self.add_doctest(path);
                }
            } else {
                self.out.errors.push(CollectError {
                    file: self.settings.relative(path),
                    line: 0,
                    column: 0,
                    message: format!(
                        "ERROR: file or directory not found: {}",
                        self.settings.relative(path)
                    ),
                });
            }
        }
        self.read_examples();
        self.out
    }

    /// Reads, once each and in parallel, the text files whose doctest
    /// examples decide something: whether a doctest file gives an item, and
    /// whether pytest's doctest plugin collects a file a conftest hook is
    /// handed too.
    fn read_examples(&mut self) {
        use rayon::prelude::*;
        let mut unread: Vec<&Path> = self
            .out
            .doctest_files
            .iter()
            .map(|(_, path)| path.as_path())
            .chain(
                self.unread_hooks
                    .iter()
                    .map(|&i| self.out.hook_files[i].path.as_path()),
            )
            .collect();
        // By their bytes (a `Path`'s order compares components, many times
        // slower): only duplicates matter here.
        unread.sort_unstable_by(|a, b| a.as_os_str().cmp(b.as_os_str()));
        unread.dedup();
        let with_examples: FxHashSet<PathBuf> = unread
            .into_par_iter()
            .filter(|path| std::fs::read(path).is_ok_and(|text| has_doctest_examples(&text)))
            .map(Path::to_path_buf)
            .collect();
        for &i in &self.unread_hooks {
            let file = &mut self.out.hook_files[i];
            file.also_collected = with_examples.contains(&file.path);
        }
        self.out.with_examples = with_examples;
    }

    fn is_doctest(&self, path: &Path) -> bool {
        self.is_doctest_named(path, &file_name(path))
    }

    /// [`Self::is_doctest`] of a path whose file name is `name`.
    fn is_doctest_named(&self, path: &Path, name: &str) -> bool {
        self.settings
            .doctest_glob
            .iter()
            .any(|g| fnmatch_ex_named(g, path, name))
    }

    fn add_doctest(&mut self, path: &Path) {
        if self.seen_files.insert(path.as_os_str().to_owned()) {
            self.out
                .doctest_files
                .push((self.out.test_files.len(), path.to_path_buf()));
        }
    }

    fn add_file(&mut self, path: &Path) {
        if self.seen_files.insert(path.as_os_str().to_owned()) {
            self.out.test_files.push(path.to_path_buf());
        }
    }

    /// Handles a file of a configured example or notebook folder: true
    /// when it is taken care of (an opted-in example, a notebook, or an
    /// ignored one), false when it is left to the usual rules (an example
    /// without the opt-in comment, recorded for `proctor check`).
    fn opt_in_file(&mut self, path: &Path) -> bool {
        let Some(kind) = self.settings.opt_in.kind_of(path) else {
            return false;
        };
        if self.seen_files.contains(path.as_os_str()) || self.ignored(path, &file_name(path)) {
            return true;
        }
        let at = self.out.test_files.len();
        let file = match kind {
            OptInKind::Notebook => opt_in::read_notebook(self.settings, path),
            OptInKind::Example => {
                let Some(file) = opt_in::read_example(self.settings, path) else {
                    // A test module in an example folder is a test anyway.
                    let test_module = self
                        .settings
                        .python_files
                        .iter()
                        .any(|p| fnmatch_ex(p, path));
                    let rel = self.settings.relative(path);
                    if !test_module && !self.out.opt_in.iter().any(|(_, f)| f.file == rel) {
                        self.out.opt_in.push((at, OptInFile::unopted(rel)));
                    }
                    return false;
                };
                file
            }
        };
        self.seen_files.insert(path.as_os_str().to_owned());
        self.out.opt_in.push((at, file));
        true
    }

    /// Registers conftest.py files from the rootdir down to `path`'s parent.
    fn visit_conftests_above(&mut self, path: &Path) {
        let root = &self.settings.rootdir;
        let start = if path.is_dir() {
            path
        } else {
            path.parent().unwrap_or(path)
        };
        let mut dirs: Vec<&Path> = start
            .ancestors()
            .take_while(|d| d.starts_with(root))
            .collect();
        dirs.reverse();
        for dir in dirs {
            self.visit_conftest(dir, None);
        }
    }

    /// Whether a conftest.py that failed to load sits in `path`'s
    /// directory or above it.
    fn under_broken_conftest(&self, path: &Path) -> bool {
        !self.broken.is_empty() && path.ancestors().any(|dir| self.broken.contains(dir))
    }

    /// Reads `dir`'s conftest.py, if it has one (`exists` when its listing
    /// already said).
    fn visit_conftest(&mut self, dir: &Path, exists: Option<bool>) {
        if self.out.conftests.contains_key(dir) {
            return;
        }
        self.out.walked.push(dir.to_path_buf());
        let conftest = dir.join("conftest.py");
        if exists.unwrap_or_else(|| conftest.is_file()) {
            self.out
                .conftests
                .insert(dir.to_path_buf(), conftest.clone());
            let file = ParsedFile::load(
                &conftest,
                self.settings.relative(&conftest),
                self.settings.max_file_size,
            );
            if let Some(error) = &file.error {
                // pytest's `ImportError while loading conftest`: the
                // directory's tests are not collected.
                self.out.errors.push(CollectError {
                    message: format!("ImportError while loading conftest: {}", error.message),
                    ..error.clone()
                });
                self.broken.insert(dir.to_path_buf());
            }
            if file.source.text.contains("pytest_collect_file") {
                self.hook_dirs.push(dir.to_path_buf());
            }
            let ignores = read_collect_ignores(&file, dir, self.settings);
            if !ignores.is_empty() {
                self.ignores.insert(dir.to_path_buf(), ignores);
            }
            self.out.conftest_sources.push(file);
        }
    }

    /// Walks `dir`. `canonical` is its resolved path when known without a
    /// system call (a plain subdirectory of an already resolved parent);
    /// only symlinks need resolving, and only they can make a loop.
    /// `from_parent`: met in its parent's listing, which applied pytest's
    /// ignore rules to it but the virtualenv check (a `pyvenv.cfg` in it),
    /// made here from its own listing.
    fn walk_dir(
        &mut self,
        dir: &Path,
        canonical: Option<PathBuf>,
        stack: &mut Vec<PathBuf>,
        from_parent: bool,
    ) {
        let listing = match self.ahead.remove(dir) {
            Some(ahead) => ahead.take(dir),
            None => list_dir(dir),
        };
        if from_parent {
            if has_file(dir, &listing, "pyvenv.cfg") {
                // pytest's `_in_venv`: not collected.
                return;
            }
            self.note_conditional(dir);
        }
        let canonical = canonical
            .unwrap_or_else(|| std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf()));
        if stack.contains(&canonical) {
            self.out.errors.push(CollectError {
                file: self.settings.relative(dir),
                line: 0,
                column: 0,
                message: "symlink loop: this directory is its own ancestor; not descended"
                    .to_string(),
            });
            return;
        }
        stack.push(canonical);
        self.visit_conftest(dir, Some(has_file(dir, &listing, "conftest.py")));
        if self.broken.contains(dir) {
            stack.pop();
            return;
        }
        let mut entries = match listing {
            Ok(entries) => entries,
            Err(err) => {
                self.out.errors.push(CollectError {
                    file: self.settings.relative(dir),
                    line: 0,
                    column: 0,
                    message: format!("cannot read directory: {err}"),
                });
                stack.pop();
                return;
            }
        };
        // pytest sorts by name, with `__init__.py` first.
        entries.sort_by(|a, b| (a.0 != "__init__.py", &a.0).cmp(&(b.0 != "__init__.py", &b.0)));
        let parent_canonical = stack.last().cloned().unwrap_or_default();
        // What decides below is only the conftests of `dir` and above, all
        // read by now: whether its files are under a hook's directory, and
        // which directories to enter (the rest of `ignored` is checked on
        // their own listing), listed ahead.
        let hooked = self.hook_dirs.iter().any(|d| starts_with_dir(dir, d));
        let enter: Vec<bool> = entries
            .iter()
            .map(|(name, path, kind)| {
                matches!(kind, Kind::Dir | Kind::LinkedDir)
                    && !self.ignored_for_sure(path, name, true)
            })
            .collect();
        for ((_, path, kind), _) in entries.iter().zip(&enter).filter(|(_, e)| **e) {
            // (Not a symlink's target, which may be anywhere.)
            if *kind == Kind::Dir {
                let ahead = Arc::new(Ahead::default());
                self.ahead.insert(path.clone(), Arc::clone(&ahead));
                let path = path.clone();
                rayon::spawn(move || ahead.list(&path));
            }
        }
        for ((name, path, kind), enter) in entries.into_iter().zip(enter) {
            match kind {
                Kind::Dir | Kind::LinkedDir => {
                    if enter {
                        let canonical = (kind == Kind::Dir).then(|| parent_canonical.join(&name));
                        self.walk_dir(&path, canonical, stack, true);
                    }
                }
                Kind::File if self.opt_in_file(&path) => {
                    if hooked && !self.ignored(&path, &name) {
                        self.note_hook_file(&path, Also::Yes);
                    }
                }
                Kind::File => {
                    // `Path::extension`'s rule: a name of `.py` alone has none.
                    let is_py = name.len() > 3 && name.as_bytes().ends_with(b".py");
                    let wanted = if is_py {
                        self.settings
                            .python_files
                            .iter()
                            .any(|p| fnmatch_ex_named(p, &path, &name))
                    } else {
                        self.is_doctest_named(&path, &name)
                    };
                    // A text file without examples gives pytest's doctest
                    // plugin no item: its text is read after the walk.
                    let also = match (wanted, is_py) {
                        (false, _) => Also::No,
                        (true, true) => Also::Yes,
                        (true, false) => Also::IfExamples,
                    };
                    // Asked once: for the hook and for the file itself.
                    let mut ignored = None;
                    let mut is_ignored = |walker: &mut Self| {
                        *ignored.get_or_insert_with(|| walker.ignored(&path, &name))
                    };
                    if hooked && !is_ignored(self) {
                        self.note_hook_file(&path, also);
                    }
                    if wanted && !is_ignored(self) {
                        if is_py {
                            self.add_file(&path);
                        } else {
                            self.add_doctest(&path);
                        }
                    }
                }
                Kind::Other => {}
            }
        }
        stack.pop();
    }

    /// Records a file, under a hook's directory and not ignored, that a
    /// conftest's `pytest_collect_file` may collect (`also` when pytest's
    /// own plugins may collect it too).
    fn note_hook_file(&mut self, path: &Path, also: Also) {
        let also = if self.out.conditional.contains_key(path) {
            Also::Yes
        } else {
            also
        };
        self.push_hook_file(path, also);
    }

    fn push_hook_file(&mut self, path: &Path, also: Also) {
        if also == Also::IfExamples {
            self.unread_hooks.push(self.out.hook_files.len());
        }
        self.out.hook_files.push(crate::eval::HookFile {
            at: self.out.test_files.len(),
            path: path.to_path_buf(),
            also_collected: also == Also::Yes,
        });
    }

    /// [`Self::note_hook_file`] for a file given on the command line:
    /// pytest's ignore rules do not apply to it, and pytest's own plugins
    /// collect any Python file, and any text file with doctest examples.
    fn note_initial_hook_file(&mut self, path: &Path) {
        if self.hook_dirs.iter().any(|d| starts_with_dir(path, d)) {
            let also = if path.extension().is_some_and(|e| e == "py") {
                Also::Yes
            } else {
                Also::IfExamples
            };
            self.push_hook_file(path, also);
        }
    }

    /// pytest's `pytest_ignore_collect` for a file. (A directory's is
    /// [`Self::ignored_for_sure`] in its parent's loop, then the virtualenv
    /// check and the conditional ignores in [`Self::walk_dir`].)
    fn ignored(&mut self, path: &Path, name: &str) -> bool {
        let ignored = self.ignored_for_sure(path, name, false);
        if !ignored {
            self.note_conditional(path);
        }
        ignored
    }

    /// The ignore lists of the conftests in `dir` and its ancestors (the
    /// ones pytest consults for paths in `dir`).
    /// Only conftests with ignore lists are kept, so a suite without any
    /// pays nothing per path.
    fn applicable<'w>(&'w self, dir: &'w Path) -> impl Iterator<Item = &'w ConftestIgnores> + 'w {
        let ancestors = if self.ignores.is_empty() {
            None
        } else {
            Some(dir.ancestors())
        };
        ancestors
            .into_iter()
            .flatten()
            .filter_map(|d| self.ignores.get(d))
    }

    /// Records a path that a conftest ignores only under some condition.
    fn note_conditional(&mut self, path: &Path) {
        if self.ignores.is_empty() {
            return;
        }
        let parent = path.parent().unwrap_or(path);
        let text = path.to_string_lossy();
        let conftest = self
            .applicable(parent)
            .find(|i| {
                i.cond_paths.iter().any(|p| p == path)
                    || i.cond_globs.iter().any(|g| fnmatch(&text, g))
            })
            .map(|i| i.conftest.clone());
        if let Some(conftest) = conftest {
            self.out.conditional.insert(
                path.to_path_buf(),
                format!("{conftest} adds this path to collect_ignore under a condition known only at run time"),
            );
        }
    }

    fn ignored_for_sure(&self, path: &Path, name: &str, is_dir: bool) -> bool {
        if name == "__pycache__" {
            return true;
        }
        let parent = if self.ignores.is_empty() {
            path
        } else {
            path.parent().unwrap_or(path)
        };
        for ignores in self.applicable(parent) {
            if ignores.paths.iter().any(|p| p == path) {
                return true;
            }
            let text = path.to_string_lossy();
            if ignores.globs.iter().any(|g| fnmatch(&text, g)) {
                return true;
            }
        }
        if self.settings.ignore.iter().any(|p| p == path) {
            return true;
        }
        // The text is made only when there are globs: most suites have none.
        if self
            .settings
            .ignore_glob
            .iter()
            .any(|g| fnmatch(&path.to_string_lossy(), g))
        {
            return true;
        }
        // (A directory's virtualenv check is made on its listing: see
        // `walk_dir`.)
        is_dir
            && self
                .settings
                .norecursedirs
                .iter()
                .any(|p| fnmatch_ex_named(p, path, name))
    }
}

/// A path's file name as a listing gives it.
fn file_name(path: &Path) -> std::borrow::Cow<'_, str> {
    path.file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default()
}

/// A directory's entries: name, path and kind (symlinks followed).
fn list_dir(dir: &Path) -> std::io::Result<Listing> {
    Ok(std::fs::read_dir(dir)?
        .filter_map(Result::ok)
        .map(|e| {
            let path = e.path();
            let kind = match e.file_type() {
                Ok(t) if t.is_dir() => Kind::Dir,
                Ok(t) if t.is_file() => Kind::File,
                // Symlinks (and odd types) are followed, as pytest does.
                _ if path.is_dir() => Kind::LinkedDir,
                _ if path.is_file() => Kind::File,
                _ => Kind::Other,
            };
            (e.file_name().to_string_lossy().into_owned(), path, kind)
        })
        .collect())
}

/// Whether `dir` holds a file `name` (following a symlink, as pytest's
/// `Path.is_file()`): from its listing, without a `stat`, where names are
/// compared as the file system does (Linux: byte for byte).
fn has_file(dir: &Path, listing: &std::io::Result<Listing>, name: &str) -> bool {
    match listing {
        Ok(entries) if cfg!(target_os = "linux") => entries
            .iter()
            .any(|(entry, _, kind)| entry == name && *kind == Kind::File),
        _ => dir.join(name).is_file(),
    }
}

/// Whether a text file holds doctest examples (pytest's doctest plugin
/// makes an item of it only then).
fn has_doctest_examples(text: &[u8]) -> bool {
    // A line that is `>>>`, or starts with `>>> `, after leading spaces
    // (lines end at `\n` or `\r\n`, as `str::lines` splits them).
    memchr::memmem::find_iter(text, b">>>").any(|at| {
        let start = memchr::memrchr(b'\n', &text[..at]).map_or(0, |n| n + 1);
        text[start..at].iter().all(|&b| b == b' ')
            && matches!(
                &text[at + 3..],
                [] | [b' ' | b'\n', ..] | [b'\r', b'\n', ..]
            )
    })
}

/// Reads literal `collect_ignore` and `collect_ignore_glob` lists of a
/// conftest.py (module level, including `+=`/`.append`/`.extend` of
/// literals). Paths are relative to the conftest's directory. Entries added
/// inside `if`/`try` blocks depend on the environment; they are kept apart
/// so the files they name can be flagged instead of silently dropped.
/// An `if` whose condition the evaluator decides (`sys.version_info <
/// (3, 0)`) is followed like Python would.
fn read_collect_ignores(
    file: &ParsedFile,
    dir: &Path,
    settings: &CollectSettings,
) -> ConftestIgnores {
    let mut out = ConftestIgnores {
        conftest: file.rel.clone(),
        ..ConftestIgnores::default()
    };
    let Some(ast) = &file.ast else {
        return out;
    };
    if ast.body.iter().any(|stmt| matches!(stmt, Stmt::If(_))) {
        // The conftest as a module of its own, with the suite and project
        // modules it imports directly (`from pkg._compat import PY_3_10`):
        // its conditions rarely need more than `sys`, its own names and a
        // version flag of the project's.
        let (loaded, names) = conftest_with_imports(file, ast, settings);
        let shared = crate::session::build_shared(
            loaded
                .iter()
                .map(crate::project::SourceRef::Parsed)
                .collect(),
            &names,
            settings.python_version.clone(),
        );
        let project = crate::project::Project::new(&shared, None);
        let decide = |test: &Expr| crate::eval::truth(&project.eval(0, test)).ok();
        scan_ignores(&ast.body, dir, false, &decide, &mut out);
    } else {
        scan_ignores(&ast.body, dir, false, &|_| None, &mut out);
    }
    out
}

/// The conftest (first) and the modules of the suite and the project that
/// it imports at module level, parsed, with their dotted names and
/// packages. Only direct imports: a name they import in turn stays unknown,
/// and with it the condition.
fn conftest_with_imports(
    file: &ParsedFile,
    ast: &ruff_python_ast::ModModule,
    settings: &CollectSettings,
) -> (Vec<ParsedFile>, Vec<(String, String)>) {
    let mut resolver = crate::imports::Resolver::default();
    let (dotted, package) = resolver.module_names(&file.path);
    let roots = resolver.import_roots(settings, [file.path.as_path()]);
    // Parsed again from the text already read: the shared modules are one
    // slice, and the walker keeps its own copy of the conftest.
    let mut loaded = vec![ParsedFile::parse(
        &file.path,
        file.rel.clone(),
        Ok(file.source.text.as_bytes().to_vec()),
    )];
    let mut names = vec![(dotted, package.clone())];
    let mut seen: FxHashSet<PathBuf> = std::iter::once(file.path.clone()).collect();
    for module in crate::session::imported_modules(&ast.body, &package) {
        for (path, name) in resolver.find_module(&roots, &module).iter() {
            if seen.insert(path.clone()) {
                let package = crate::imports::package_of(path, name);
                loaded.push(ParsedFile::load(
                    path,
                    settings.relative(path),
                    settings.max_file_size,
                ));
                names.push((name.clone(), package));
            }
        }
    }
    (loaded, names)
}

fn scan_ignores(
    body: &[Stmt],
    dir: &Path,
    cond: bool,
    decide: &dyn Fn(&Expr) -> Option<bool>,
    out: &mut ConftestIgnores,
) {
    let push = |name: &str, expr: &Expr, out: &mut ConftestIgnores| {
        let strings = literal_strings(expr);
        let paths = strings.iter().map(|s| normalize(&dir.join(s)));
        let globs = strings
            .iter()
            .map(|s| dir.join(s).to_string_lossy().into_owned());
        match (name, cond) {
            ("collect_ignore", false) => out.paths.extend(paths),
            ("collect_ignore", true) => out.cond_paths.extend(paths),
            ("collect_ignore_glob", false) => out.globs.extend(globs),
            ("collect_ignore_glob", true) => out.cond_globs.extend(globs),
            _ => {}
        }
    };
    for stmt in body {
        match stmt {
            Stmt::Assign(assign) => {
                for target in &assign.targets {
                    if let Expr::Name(name) = target {
                        if !cond {
                            match name.id.as_str() {
                                "collect_ignore" => out.paths.clear(),
                                "collect_ignore_glob" => out.globs.clear(),
                                _ => {}
                            }
                        }
                        push(name.id.as_str(), &assign.value, out);
                    }
                }
            }
            Stmt::AnnAssign(assign) => {
                if let (Expr::Name(name), Some(value)) = (assign.target.as_ref(), &assign.value) {
                    push(name.id.as_str(), value, out);
                }
            }
            Stmt::AugAssign(assign) => {
                if let Expr::Name(name) = assign.target.as_ref() {
                    push(name.id.as_str(), &assign.value, out);
                }
            }
            Stmt::Expr(expr) => {
                let Expr::Call(call) = expr.value.as_ref() else {
                    continue;
                };
                let Expr::Attribute(attr) = call.func.as_ref() else {
                    continue;
                };
                let (Expr::Name(name), Some(arg)) =
                    (attr.value.as_ref(), call.arguments.args.first())
                else {
                    continue;
                };
                match (attr.attr.id.as_str(), arg) {
                    ("append", Expr::StringLiteral(s)) => {
                        let text = s.value.to_str();
                        match (name.id.as_str(), cond) {
                            ("collect_ignore", false) => out.paths.push(normalize(&dir.join(text))),
                            ("collect_ignore", true) => {
                                out.cond_paths.push(normalize(&dir.join(text)));
                            }
                            ("collect_ignore_glob", false) => out
                                .globs
                                .push(dir.join(text).to_string_lossy().into_owned()),
                            ("collect_ignore_glob", true) => out
                                .cond_globs
                                .push(dir.join(text).to_string_lossy().into_owned()),
                            _ => {}
                        }
                    }
                    ("extend", _) => push(name.id.as_str(), arg, out),
                    _ => {}
                }
            }
            Stmt::If(stmt_if) => {
                // The branch Python takes when every condition before it is
                // decided; from the first undecided one on, each may run.
                let branches = std::iter::once((Some(&*stmt_if.test), &stmt_if.body)).chain(
                    stmt_if
                        .elif_else_clauses
                        .iter()
                        .map(|clause| (clause.test.as_ref(), &clause.body)),
                );
                let mut decided = true;
                for (test, branch) in branches {
                    let verdict = if decided {
                        test.map_or(Some(true), decide)
                    } else {
                        None
                    };
                    match verdict {
                        Some(true) => {
                            scan_ignores(branch, dir, cond, decide, out);
                            break;
                        }
                        Some(false) => {}
                        None => {
                            decided = false;
                            scan_ignores(branch, dir, true, decide, out);
                        }
                    }
                }
            }
            Stmt::Try(stmt_try) => {
                scan_ignores(&stmt_try.body, dir, true, decide, out);
                for handler in &stmt_try.handlers {
                    let ruff_python_ast::ExceptHandler::ExceptHandler(h) = handler;
                    scan_ignores(&h.body, dir, true, decide, out);
                }
                scan_ignores(&stmt_try.orelse, dir, true, decide, out);
            }
            _ => {}
        }
    }
}

fn literal_strings(expr: &Expr) -> Vec<String> {
    match expr {
        Expr::List(list) => list.elts.iter().filter_map(string_of).collect(),
        Expr::Tuple(tuple) => tuple.elts.iter().filter_map(string_of).collect(),
        _ => Vec::new(),
    }
}

fn string_of(expr: &Expr) -> Option<String> {
    match expr {
        Expr::StringLiteral(s) => Some(s.value.to_str().to_string()),
        _ => None,
    }
}

/// Lexically normalises `a/./b/../c` to `a/c`, as `os.path.normpath` would.
#[must_use]
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    /// The byte shortcut answers as `Path::starts_with` does.
    #[test]
    fn a_path_under_a_directory_is_found_by_its_bytes() {
        use std::path::Path;
        let paths = [
            "/r",
            "/r/",
            "/r/a",
            "/r/a/",
            "/r/ab",
            "/r/a/b.py",
            "/r/a//b",
            "/r/./a/b",
            "/r/a/./b",
            "/r/a/../b",
            "r/a",
            "a",
            "",
            "/",
            "./a/b",
        ];
        for dir in paths {
            for path in paths {
                let (dir, path) = (Path::new(dir), Path::new(path));
                assert_eq!(
                    super::starts_with_dir(path, dir),
                    path.starts_with(dir),
                    "{} under {}",
                    path.display(),
                    dir.display()
                );
            }
        }
    }

    use super::has_doctest_examples;

    /// The line-by-line reading the byte search stands for: a line (as
    /// `str::lines` splits them) that is `>>>` or starts with `>>> ` after
    /// leading spaces.
    fn by_lines(text: &str) -> bool {
        text.lines().any(|line| {
            let rest = line.trim_start_matches(' ');
            rest == ">>>" || rest.starts_with(">>> ")
        })
    }

    #[test]
    fn examples_are_found_as_lines_would_find_them() {
        let pieces = [
            ">>>", ">>> ", ">>>>", " ", "  ", "\t", "\n", "\r\n", "\r", "x", "1 + 1", ">>", "...",
            "\u{e9}",
        ];
        // Every text of up to four pieces.
        let mut texts = vec![String::new()];
        for _ in 0..4 {
            let longer: Vec<String> = texts
                .iter()
                .flat_map(|t| pieces.iter().map(move |p| format!("{t}{p}")))
                .collect();
            texts.extend(longer);
            texts.sort();
            texts.dedup();
        }
        for text in &texts {
            assert_eq!(
                has_doctest_examples(text.as_bytes()),
                by_lines(text),
                "{text:?}"
            );
        }
        // Bytes that are not UTF-8 do not hide a prompt.
        assert!(has_doctest_examples(b"\xff\n  >>> 1\n"));
        assert!(!has_doctest_examples(b"\xff>>> 1\n"));
    }
}
