//! The text of the files diagnostics point into, read once per file, on
//! first use, and shared by the checks that look at comments and by the
//! renderers that draw code frames.

use std::path::PathBuf;
use std::sync::OnceLock;

use rustc_hash::FxHashMap as HashMap;

use crate::LineIndex;

/// One file's text and line index.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// The whole text.
    pub text: String,
    /// Its line index.
    pub index: LineIndex,
}

impl SourceFile {
    /// Indexes `text`.
    #[must_use]
    pub fn new(text: String) -> Self {
        let index = LineIndex::new(&text);
        SourceFile { text, index }
    }

    /// The text of 1-based `line`, without its line ending ("" past the
    /// end).
    #[must_use]
    pub fn line(&self, line: usize) -> &str {
        self.index.line_text(&self.text, line)
    }

    /// The number of lines.
    #[must_use]
    pub fn line_count(&self) -> usize {
        self.index
            .line(u32::try_from(self.text.len()).unwrap_or(u32::MAX))
    }
}

/// Files by their rootdir-relative path, read from the rootdir when first
/// asked for. A file must be announced with [`Sources::load`] before it can
/// be read, so that reading needs only `&self` and can happen on many
/// threads at once. A file that cannot be read is remembered as missing:
/// diagnostics in it are rendered without a code frame.
#[derive(Debug, Clone, Default)]
pub struct Sources {
    root: PathBuf,
    files: HashMap<String, OnceLock<Option<SourceFile>>>,
}

impl Sources {
    /// An empty set of files under `root`.
    #[must_use]
    pub fn new(root: PathBuf) -> Self {
        Sources {
            root,
            files: HashMap::default(),
        }
    }

    /// Makes `file` (relative to the root) available; it is read the first
    /// time [`Sources::get`] asks for it.
    pub fn load(&mut self, file: &str) {
        if !self.files.contains_key(file) {
            self.files.insert(file.to_owned(), OnceLock::new());
        }
    }

    /// Adds `file` with `text`, replacing what was read before.
    pub fn insert(&mut self, file: &str, text: String) {
        self.files
            .insert(file.to_owned(), OnceLock::from(Some(SourceFile::new(text))));
    }

    /// The file, when it was announced and can be read.
    #[must_use]
    pub fn get(&self, file: &str) -> Option<&SourceFile> {
        self.files
            .get(file)?
            .get_or_init(|| {
                std::fs::read(self.root.join(file))
                    .ok()
                    .map(|bytes| SourceFile::new(String::from_utf8_lossy(&bytes).into_owned()))
            })
            .as_ref()
    }
}
