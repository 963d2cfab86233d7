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
        let mut file = SourceFile {
            path: path.to_path_buf(),
            rel,
            text: String::new(),
            line_index: LineIndex::new(""),
            ast: None,
            error: None,
        };
        match std::fs::metadata(path) {
            Ok(meta) if meta.len() > max_size => {
                file.error = Some(file.whole_file_error(format!(
                    "file is {} bytes, over the {max_size}-byte limit (collect.max-file-size); not parsed",
                    meta.len()
                )));
                return file;
            }
            Ok(_) => {}
            Err(err) => {
                file.error = Some(file.whole_file_error(format!("cannot read file: {err}")));
                return file;
            }
        }
        let bytes = match std::fs::read(path) {
            Ok(bytes) => bytes,
            Err(err) => {
                file.error = Some(file.whole_file_error(format!("cannot read file: {err}")));
                return file;
            }
        };
        match decode(&bytes) {
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

/// Decodes Python source bytes as `CPython` would: UTF-8 (with or without a
/// BOM) unless a PEP 263 coding cookie on the first two lines says
/// otherwise. Latin-1 cookies are supported; other encodings are reported.
fn decode(bytes: &[u8]) -> Result<String, String> {
    if bytes.contains(&0) {
        return Err("SyntaxError: source code cannot contain null bytes".to_string());
    }
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    let cookie = coding_cookie(bytes);
    match cookie.as_deref() {
        None | Some("utf-8" | "utf8" | "utf_8") => std::str::from_utf8(bytes)
            .map(str::to_string)
            .map_err(|err| {
                let offset = err.valid_up_to();
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
