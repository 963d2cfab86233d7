//! The file-system questions collecting one module asks beyond its own
//! text (is `src/pkg/` a directory, is there a `pkg/mod.py`, an extension
//! module `mod.*.so`): recorded while the module is collected, stored with
//! its cached result, and asked again on a warm start. A cached result is
//! used only while every answer is still the same, so a module that
//! appears or disappears on `sys.path` invalidates what depended on it.

use std::cell::RefCell;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// One question and the answer it had.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub(crate) struct Probe {
    pub(crate) path: PathBuf,
    pub(crate) kind: ProbeKind,
    pub(crate) answer: bool,
}

/// What was asked about [`Probe::path`].
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub(crate) enum ProbeKind {
    /// `path.is_dir()`.
    Dir,
    /// `path.is_file()`.
    File,
    /// Whether the directory `path` holds an extension module `NAME.*.so`
    /// (or `.pyd`).
    Extension(String),
}

thread_local! {
    /// The probes of the module being collected on this thread, when its
    /// result is to be cached.
    static RECORDING: RefCell<Option<Vec<Probe>>> = const { RefCell::new(None) };
}

/// Runs `f` recording every probe it makes on this thread; returns its
/// result and the probes, without duplicates, in the order first made.
pub(crate) fn recording<T>(f: impl FnOnce() -> T) -> (T, Vec<Probe>) {
    let previous = RECORDING.with(|r| r.borrow_mut().replace(Vec::new()));
    let out = f();
    let mut probes = RECORDING.with(|r| {
        let mut slot = r.borrow_mut();
        let probes = slot.take().unwrap_or_default();
        *slot = previous;
        probes
    });
    let mut seen = rustc_hash::FxHashSet::default();
    probes.retain(|p| seen.insert(p.clone()));
    (out, probes)
}

/// Adds probes that [`recording`] returned for work done on another
/// thread to the recording of this one (the module that work was for).
pub(crate) fn replay(probes: Vec<Probe>) {
    RECORDING.with(|r| {
        if let Some(recorded) = r.borrow_mut().as_mut() {
            recorded.extend(probes);
        }
    });
}

fn record(path: &Path, kind: ProbeKind, answer: bool) -> bool {
    RECORDING.with(|r| {
        if let Some(probes) = r.borrow_mut().as_mut() {
            probes.push(Probe {
                path: path.to_path_buf(),
                kind,
                answer,
            });
        }
    });
    answer
}

/// `path.is_dir()`, recorded.
pub(crate) fn is_dir(path: &Path) -> bool {
    record(path, ProbeKind::Dir, answer(path, true))
}

/// `path.is_file()`, recorded.
pub(crate) fn is_file(path: &Path) -> bool {
    record(path, ProbeKind::File, answer(path, false))
}

/// Answers to `is_dir` (`true`) and `is_file` (`false`) questions, kept:
/// every test module resolving its imports asks the same ones
/// (`rootdir/packaging.py`, `rootdir/pytest/`), a `stat` each time.
#[derive(Default)]
struct Answers(std::sync::Mutex<rustc_hash::FxHashMap<(PathBuf, bool), bool>>);

impl Answers {
    /// The kept answer about `path`, else `ask`'s (then kept).
    fn get(&self, path: &Path, dir: bool, ask: impl FnOnce() -> bool) -> bool {
        let key = (path.to_path_buf(), dir);
        let known = self.0.lock().ok().and_then(|a| a.get(&key).copied());
        if let Some(known) = known {
            return known;
        }
        let now = ask();
        if let Ok(mut answers) = self.0.lock() {
            answers.insert(key, now);
        }
        now
    }

    fn clear(&self) {
        if let Ok(mut answers) = self.0.lock() {
            answers.clear();
        }
    }
}

/// The answers given so far in this session.
static ANSWERS: std::sync::LazyLock<Answers> = std::sync::LazyLock::new(Answers::default);

/// `path.is_dir()` (`dir`) or `path.is_file()`, asked once per session.
fn answer(path: &Path, dir: bool) -> bool {
    ANSWERS.get(
        path,
        dir,
        || {
            if dir {
                path.is_dir()
            } else {
                path.is_file()
            }
        },
    )
}

/// Whether `dir` holds an extension module for `name` (`name.*.so` or
/// `name.*.pyd`, suffixes compared case-sensitively as `CPython` does),
/// recorded.
pub(crate) fn has_extension(dir: &Path, name: &str) -> bool {
    record(
        dir,
        ProbeKind::Extension(name.to_string()),
        extension_in(dir, name),
    )
}

/// The names of the extension modules (`NAME.*.so`, `NAME.*.pyd`) in
/// each directory listed so far in this session, so that a directory
/// every test module asks about (`site-packages`) is listed once.
static LISTINGS: std::sync::LazyLock<
    std::sync::Mutex<rustc_hash::FxHashMap<PathBuf, std::sync::Arc<[String]>>>,
> = std::sync::LazyLock::new(Default::default);

/// Forgets the listings [`extension_in`] keeps and the answers [`is_dir`]
/// and [`is_file`] gave: called when a session starts, so a long-lived
/// process sees the file system as it is now.
pub(crate) fn forget_listings() {
    if let Ok(mut listings) = LISTINGS.lock() {
        listings.clear();
    }
    ANSWERS.clear();
}

/// The file names in `dir` that may be extension modules, listed once per
/// session.
fn extensions_of(dir: &Path) -> std::sync::Arc<[String]> {
    if let Some(names) = LISTINGS.lock().ok().and_then(|l| l.get(dir).cloned()) {
        return names;
    }
    let names: std::sync::Arc<[String]> = std::fs::read_dir(dir)
        .ok()
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|entry| entry.file_name().to_string_lossy().into_owned())
                .filter(|name| {
                    #[expect(
                        clippy::case_sensitive_file_extension_comparisons,
                        reason = "as CPython's importer does"
                    )]
                    let extension = name.ends_with(".so") || name.ends_with(".pyd");
                    extension
                })
                .collect()
        })
        .unwrap_or_default();
    if let Ok(mut listings) = LISTINGS.lock() {
        listings.insert(dir.to_path_buf(), names.clone());
    }
    names
}

fn extension_in(dir: &Path, part: &str) -> bool {
    extensions_of(dir).iter().any(|name| {
        name.strip_prefix(part)
            .is_some_and(|rest| rest.starts_with('.'))
    })
}

impl Probe {
    /// Whether asking again gives the recorded answer.
    pub(crate) fn holds(&self) -> bool {
        let now = match &self.kind {
            ProbeKind::Dir => self.path.is_dir(),
            ProbeKind::File => self.path.is_file(),
            ProbeKind::Extension(name) => extension_in(&self.path, name),
        };
        now == self.answer
    }
}

#[cfg(test)]
mod tests {
    use super::Answers;
    use std::cell::Cell;
    use std::path::Path;

    /// A question asked again is answered from what was kept, per path and
    /// kind, until the answers are cleared (a new session).
    #[test]
    fn answers_are_asked_once_per_session() {
        let answers = Answers::default();
        let asked = Cell::new(0);
        let ask = |answer: bool| {
            asked.set(asked.get() + 1);
            answer
        };
        let path = Path::new("/nowhere/pkg.py");
        assert!(!answers.get(path, false, || ask(false)));
        assert!(!answers.get(path, false, || ask(true)));
        assert_eq!(asked.get(), 1);
        assert!(answers.get(path, true, || ask(true)));
        assert_eq!(asked.get(), 2);
        answers.clear();
        assert!(answers.get(path, false, || ask(true)));
        assert_eq!(asked.get(), 3);
    }
}
