//! Reading and parsing one Python file, turning every failure into a
//! [`CollectError`] instead of a panic.

use std::path::{Path, PathBuf};

use proctor_source::LineIndex;
use ruff_python_ast::ModModule;
use ruff_python_parser::parse_module;
use ruff_text_size::Ranged;

use crate::model::CollectError;

/// A Python file read and parsed.
#[derive(Debug)]
pub(crate) struct SourceFile {
    pub(crate) path: PathBuf,
    /// Path relative to the rootdir with `/` separators (or the absolute path
    /// when outside it).
    pub(crate) rel: String,
    pub(crate) text: String,
    pub(crate) line_index: LineIndex,
    /// The syntax tree, or `None` when the file could not be parsed.
    pub(crate) ast: Option<ModModule>,
    /// Why the file could not be read or parsed.
    pub(crate) error: Option<CollectError>,
}

impl SourceFile {
    /// Reads and parses `path`. Files over `max_size` bytes, unreadable
    /// files, undecodable text and syntax errors become `error`.
    pub(crate) fn load(path: &Path, rel: String, max_size: u64) -> SourceFile {
        SourceFile::parse(path, rel, read_bytes(path, max_size))
    }

    /// Parses what [`read_bytes`] read from `path`; a read error becomes
    /// `error`, as do undecodable text and syntax errors.
    pub(crate) fn parse(path: &Path, rel: String, bytes: Result<Vec<u8>, String>) -> SourceFile {
        let mut file = SourceFile {
            path: path.to_path_buf(),
            rel,
            text: String::new(),
            line_index: LineIndex::new(""),
            ast: None,
            error: None,
        };
        let decoded = bytes.and_then(decode);
        match decoded {
            Ok(text) => file.text = text,
            Err(message) => {
                file.error = Some(file.whole_file_error(message));
                return file;
            }
        }
        file.line_index = LineIndex::new(&file.text);
        match parse_module(&file.text) {
            Ok(parsed) => file.ast = Some(parsed.into_syntax()),
            Err(err) => {
                let start = err.location.start().to_u32();
                let lc = file.line_index.line_column(&file.text, start);
                file.error = Some(CollectError {
                    file: file.rel.clone(),
                    line: lc.line,
                    column: lc.column,
                    message: format!("SyntaxError: {}", err.error),
                });
            }
        }
        file
    }

    fn whole_file_error(&self, message: String) -> CollectError {
        CollectError { file: self.rel.clone(), line: 0, column: 0, message }
    }

    /// The 1-based line of byte `offset`.
    pub(crate) fn line_of(&self, offset: u32) -> usize {
        self.line_index.line(offset)
    }

    /// The source text of `node`.
    pub(crate) fn slice(&self, node: &impl Ranged) -> &str {
        let range = node.range();
        self.text
            .get(range.start().to_usize()..range.end().to_usize())
            .unwrap_or("")
    }
}

/// The bytes of `path`, or why they cannot be read: files over `max_size`
/// bytes are not read.
pub(crate) fn read_bytes(path: &Path, max_size: u64) -> Result<Vec<u8>, String> {
    use std::io::Read;
    // One open and one fstat: the size is checked on the open file.
    let mut file = std::fs::File::open(path).map_err(|err| format!("cannot read file: {err}"))?;
    let size = file.metadata().map_err(|err| format!("cannot read file: {err}"))?.len();
    if size > max_size {
        return Err(format!("file is {size} bytes, over the {max_size}-byte limit (collect.max-file-size); not parsed"));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0) + 1);
    file.read_to_end(&mut bytes).map_err(|err| format!("cannot read file: {err}"))?;
    Ok(bytes)
}

/// Decodes Python source bytes as `CPython` would: UTF-8 (with or without a
/// BOM) unless a PEP 263 coding cookie on the first two lines says
/// otherwise. Latin-1 cookies are supported; other encodings are reported.
fn decode(mut owned: Vec<u8>) -> Result<String, String> {
    if owned.contains(&0) {
        return Err("SyntaxError: source code cannot contain null bytes".to_string());
    }
    if owned.starts_with(b"\xef\xbb\xbf") {
        owned.drain(..3);
    }
    let bytes = owned.as_slice();
    let cookie = coding_cookie(bytes);
    match cookie.as_deref() {
        None | Some("utf-8" | "utf8" | "utf_8") => String::from_utf8(owned).map_err(|err| {
                let bytes = err.as_bytes();
                let offset = err.utf8_error().valid_up_to();
                let line = bytes[..offset].split(|&b| b == b'\n').count();
                format!(
                    "SyntaxError: (unicode error) 'utf-8' codec can't decode byte 0x{:02x} in position {offset}: invalid start byte (line {line})",
                    bytes[offset]
                )
            }),
        Some("latin-1" | "latin1" | "iso-8859-1" | "iso8859-1" | "l1") => {
            Ok(bytes.iter().map(|&b| char::from(b)).collect())
        }
        Some(other) => Err(format!(
            "unsupported source encoding `{other}` (proctor reads utf-8 and latin-1)"
        )),
    }
}

fn coding_cookie(bytes: &[u8]) -> Option<String> {
    for line in bytes.split(|&b| b == b'\n').take(2) {
        let line = String::from_utf8_lossy(line);
        let trimmed = line.trim_start();
        if !trimmed.starts_with('#') {
            continue;
        }
        if let Some(pos) = trimmed.find("coding") {
            let rest = &trimmed[pos + "coding".len()..];
            if let Some(rest) = rest.strip_prefix(':').or_else(|| rest.strip_prefix('=')) {
                let name: String = rest
                    .trim_start()
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
                    .collect();
                if !name.is_empty() {
                    return Some(name.to_ascii_lowercase());
                }
            }
        }
    }
    None
}
