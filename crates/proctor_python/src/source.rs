//! Reading and parsing one Python file, turning every failure into a
//! [`CollectError`] instead of a panic.

use std::path::{Path, PathBuf};

use proctor_source::SourceFile;
use ruff_python_ast::{Expr, ModModule, Stmt};
use ruff_python_parser::parse_module;
use ruff_text_size::{Ranged, TextRange, TextSize};

use crate::model::CollectError;
use crate::namespace::Binding;

/// A Python file read and parsed: its text and line index are a
/// [`proctor_source::SourceFile`], the type diagnostics render from.
#[derive(Debug)]
pub(crate) struct ParsedFile {
    pub(crate) path: PathBuf,
    /// Path relative to the rootdir with `/` separators (or the absolute path
    /// when outside it).
    pub(crate) rel: String,
    /// The decoded text and its line index (empty when unreadable; the
    /// text is empty too once let go: read it with [`ParsedFile::text`]).
    pub(crate) source: SourceFile,
    /// The syntax tree, or `None` when the file could not be parsed.
    pub(crate) ast: Option<ModModule>,
    /// Why the file could not be read or parsed.
    pub(crate) error: Option<CollectError>,
    /// Class attribute values the parse left out, parsed when read.
    pub(crate) elided: Elided,
    /// The function bodies a source module's tree dropped, read through
    /// [`ParsedFile::body`]; `None` when the tree holds them all.
    pub(crate) bodies: Option<crate::bodies::Stripped>,
    /// A source module's text, let go once parsed (see [`LetGo`]).
    let_go: Option<LetGo>,
}

/// A source module's text, let go once the module is parsed and its bodies
/// dropped: its tree and line index stand for it, and collection rarely
/// reads a source module's text (a value left out of the parse, a body
/// read, a mark's column). The first read takes the file again, checked
/// against the text it had.
#[derive(Debug)]
struct LetGo {
    max_size: u64,
    /// The length and hash of the text let go.
    len: usize,
    hash: u64,
    text: std::sync::OnceLock<String>,
    /// The file read again is not the text parsed (it changed since).
    changed: std::sync::atomic::AtomicBool,
}

/// A quick hash of a file's bytes, to tell the same file read twice.
pub(crate) fn bytes_hash(bytes: &[u8]) -> u64 {
    use std::hash::Hasher;
    let mut hasher = rustc_hash::FxHasher::default();
    hasher.write(bytes);
    hasher.finish()
}

/// Class attribute values left out of a module's parse: the scan
/// ([`crate::import_scan::Scan::elidable`]) found them, the parse read an
/// empty bracket pair of the same byte range in their place, and a value is
/// parsed from the file's text the first time its binding is read
/// ([`crate::namespace::Namespace::get`]). A pygments lexer module is
/// nearly all `tokens = {...}` tables that no collection reads.
#[derive(Debug, Default)]
pub(crate) struct Elided {
    /// By the address of the placeholder expression. The table is not
    /// changed once built, so what its cells hold never moves.
    values: rustc_hash::FxHashMap<usize, ElidedValue>,
}

/// One value left out of a parse.
#[derive(Debug)]
struct ElidedValue {
    range: TextRange,
    /// The value, parsed on first use (`None` when it does not parse).
    value: std::sync::OnceLock<Option<Expr>>,
    /// The binding of the value, unconditional and conditional, made on
    /// first use. Stored as `'static`, so that `Elided` has no lifetime
    /// (a lifetime in a cell would make the name tables that refer to it
    /// invariant); see [`Elided::binding`].
    bindings: [std::sync::OnceLock<Binding<'static>>; 2],
}

impl Elided {
    /// Whether nothing was left out.
    pub(crate) fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The binding of the value `placeholder` stands for (bound under a
    /// condition when `cond`), the value parsed from the file's `text` on
    /// first use; [`Binding::Opaque`] when it does not parse; `None` when
    /// `placeholder` stands for nothing left out (`text` is not asked).
    pub(crate) fn binding<'s>(
        &'s self,
        text: &dyn Fn() -> &'s str,
        placeholder: &Expr,
        cond: bool,
    ) -> Option<&'s Binding<'s>> {
        let entry = self
            .values
            .get(&(std::ptr::from_ref(placeholder) as usize))?;
        let binding = entry.bindings[usize::from(cond)].get_or_init(|| {
            let value: Option<&'s Expr> = entry
                .value
                .get_or_init(|| {
                    // The range is the scan's, of these very bytes; checked
                    // anyway, since the parser slices the text with it.
                    let text = text();
                    let (start, end) =
                        (entry.range.start().to_usize(), entry.range.end().to_usize());
                    if !(start < end && text.is_char_boundary(start) && text.is_char_boundary(end))
                    {
                        return None;
                    }
                    ruff_python_parser::parse_expression_range(text, entry.range)
                        .ok()
                        .map(|parsed| *parsed.into_syntax().body)
                })
                .as_ref();
            let binding: Binding<'s> = match value {
                Some(expr) => Binding::Value { expr, cond },
                None => Binding::Opaque,
            };
            // SAFETY: the types differ only in lifetime (same layout). The
            // binding borrows only `entry.value`, which lives as long as
            // `self` and never moves (the table is not changed after it is
            // built), and it is handed out only as `Binding<'s>` (below,
            // by covariance), never as `'static`; dropping it reads
            // nothing through the reference.
            unsafe { std::mem::transmute::<Binding<'s>, Binding<'static>>(binding) }
        });
        Some(binding)
    }
}

impl ParsedFile {
    /// Reads and parses `path`. Files over `max_size` bytes, unreadable
    /// files, undecodable text and syntax errors become `error`.
    pub(crate) fn load(path: &Path, rel: String, max_size: u64) -> ParsedFile {
        ParsedFile::parse(path, rel, read_bytes(path, max_size))
    }

    /// Parses what [`read_bytes`] read from `path`; a read error becomes
    /// `error`, as do undecodable text and syntax errors.
    pub(crate) fn parse(path: &Path, rel: String, bytes: Result<Vec<u8>, String>) -> ParsedFile {
        ParsedFile::parse_eliding(path, rel, bytes, &[], None)
    }

    /// Like [`ParsedFile::parse`], leaving the class attribute values at
    /// `elide` out of the parse (see [`Elided`]): the text parsed has each
    /// of those ranges blanked to an empty bracket pair, lines kept, so
    /// every other node has the offsets it has in the file. With `strip`
    /// (a source module, read with at most `max_size` bytes), the tree
    /// drops its function bodies once parsed (see [`crate::bodies`]) and
    /// the text is let go (see [`LetGo`]).
    pub(crate) fn parse_eliding(
        path: &Path,
        rel: String,
        bytes: Result<Vec<u8>, String>,
        elide: &[(u32, u32)],
        strip: Option<u64>,
    ) -> ParsedFile {
        let mut file = ParsedFile {
            path: path.to_path_buf(),
            rel,
            source: SourceFile::new(String::new()),
            ast: None,
            error: None,
            elided: Elided::default(),
            bodies: None,
            let_go: None,
        };
        let bytes = match bytes {
            Ok(bytes) => bytes,
            Err(message) => {
                file.error = Some(file.whole_file_error(message));
                return file;
            }
        };
        match decode(bytes) {
            Ok(text) => file.source = SourceFile::new(text),
            Err(err) => {
                file.error = Some(CollectError {
                    file: file.rel.clone(),
                    line: err.line,
                    column: err.column,
                    message: err.message,
                });
                return file;
            }
        }
        // The blanked text's parse stands for the file's only when it
        // parses and holds a placeholder for every range left out; else the
        // file is parsed whole (and its own error reported).
        if let Some(blanked) = (!elide.is_empty())
            .then(|| blank_ranges(&file.source.text, elide))
            .flatten()
        {
            if let Ok(parsed) = parse_module(&blanked) {
                let ast = parsed.into_syntax();
                let elided = placeholders(&ast.body, elide);
                if elided.values.len() == elide.len() {
                    file.elided = elided;
                    file.ast = Some(ast);
                    if let Some(max_size) = strip {
                        file.strip(elide, max_size);
                    }
                    return file;
                }
            }
        }
        match parse_module(&file.source.text) {
            Ok(parsed) => {
                file.ast = Some(parsed.into_syntax());
                if let Some(max_size) = strip {
                    file.strip(&[], max_size);
                }
            }
            Err(err) => {
                let start = err.location.start().to_u32();
                let lc = file.source.index.line_column(&file.source.text, start);
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

    /// Drops a parsed source module's function bodies and lets its text go
    /// (`elide`: the ranges the parse blanked).
    fn strip(&mut self, elide: &[(u32, u32)], max_size: u64) {
        let Some(ast) = self.ast.as_mut() else {
            return;
        };
        self.bodies = crate::bodies::strip(ast, elide);
        let text = &self.source.text;
        self.let_go = Some(LetGo {
            max_size,
            len: text.len(),
            hash: bytes_hash(text.as_bytes()),
            text: std::sync::OnceLock::new(),
            changed: std::sync::atomic::AtomicBool::new(false),
        });
        self.source.text = String::new();
    }

    /// The file's text (read again if it was let go).
    pub(crate) fn text(&self) -> &str {
        let Some(let_go) = &self.let_go else {
            return &self.source.text;
        };
        let_go.text.get_or_init(|| {
            let text = read_bytes(&self.path, let_go.max_size)
                .ok()
                .and_then(|bytes| decode(bytes).ok())
                .unwrap_or_default();
            if text.len() != let_go.len || bytes_hash(text.as_bytes()) != let_go.hash {
                let_go
                    .changed
                    .store(true, std::sync::atomic::Ordering::Relaxed);
            }
            text
        })
    }

    /// Whether the text read again was not the text parsed.
    pub(crate) fn text_changed(&self) -> bool {
        self.let_go
            .as_ref()
            .is_some_and(|l| l.changed.load(std::sync::atomic::Ordering::Relaxed))
    }

    fn whole_file_error(&self, message: String) -> CollectError {
        CollectError {
            file: self.rel.clone(),
            line: 0,
            column: 0,
            message,
        }
    }

    /// The body of `def`, a function definition of this file's tree (see
    /// [`crate::bodies`]: a source module's tree dropped its bodies).
    pub(crate) fn body<'s>(&'s self, def: &'s ruff_python_ast::StmtFunctionDef) -> &'s [Stmt] {
        match &self.bodies {
            Some(stripped) => stripped.body(self.text(), def),
            None => &def.body,
        }
    }

    /// The 1-based line of byte `offset`.
    pub(crate) fn line_of(&self, offset: u32) -> usize {
        self.source.index.line(offset)
    }

    /// The source text of `node`.
    pub(crate) fn slice(&self, node: &impl Ranged) -> &str {
        let range = node.range();
        self.text()
            .get(range.start().to_usize()..range.end().to_usize())
            .unwrap_or("")
    }
}

/// `text` with each range of `elide` (bracketed values, in order) blanked:
/// its first and last bytes kept, and between them one comment, then a line
/// break before the closing bracket. Every byte keeps its offset (a node's
/// range is its range in the file; lines are counted in the file's text,
/// never in this one), and the parser's lexer skips a comment with one
/// search, where it steps over blanks one character at a time (a table is
/// megabytes of pygments' lexers). `None` when a range does not fit the
/// text.
pub(crate) fn blank_ranges(text: &str, elide: &[(u32, u32)]) -> Option<String> {
    let mut bytes = text.as_bytes().to_vec();
    for &(start, end) in elide {
        let inner = bytes.get_mut(start as usize + 1..(end as usize).checked_sub(1)?)?;
        match inner {
            [first, .., last] => {
                *first = b'#';
                *last = b'\n';
                let len = inner.len();
                inner[1..len - 1].fill(b' ');
            }
            // Too short for a comment and its line end: blanks.
            _ => inner.fill(b' '),
        }
    }
    String::from_utf8(bytes).ok()
}

/// The placeholders the parse of a blanked text holds for the ranges of
/// `elide`: values of assignments in the bodies of top-level classes.
fn placeholders(body: &[Stmt], elide: &[(u32, u32)]) -> Elided {
    let wanted: rustc_hash::FxHashMap<u32, u32> = elide.iter().copied().collect();
    let mut values = rustc_hash::FxHashMap::default();
    for stmt in body {
        let Stmt::ClassDef(class) = stmt else {
            continue;
        };
        for stmt in &class.body {
            let Stmt::Assign(assign) = stmt else { continue };
            let start = assign.value.range().start();
            if let Some(&end) = wanted.get(&start.to_u32()) {
                let range = TextRange::new(start, TextSize::new(end));
                if assign.value.range() == range {
                    values.insert(
                        std::ptr::from_ref(assign.value.as_ref()) as usize,
                        ElidedValue {
                            range,
                            value: std::sync::OnceLock::new(),
                            bindings: [std::sync::OnceLock::new(), std::sync::OnceLock::new()],
                        },
                    );
                }
            }
        }
    }
    Elided { values }
}

/// A shared module's file, parsed the first time something asks for it:
/// a module the suite imports but nobody asks a name of is never parsed.
#[derive(Debug)]
pub(crate) struct LazyFile {
    pub(crate) path: PathBuf,
    rel: String,
    max_size: u64,
    /// The bytes read ahead (for the hash or the import scan), taken by the
    /// parse; `None`: read them when parsing.
    pending: std::sync::Mutex<Option<Result<Vec<u8>, String>>>,
    /// The content hash the bytes read when parsing must have.
    expect: Option<u128>,
    /// The bytes read when parsing did not have `expect`.
    changed: std::sync::atomic::AtomicBool,
    /// Ranges the parse leaves out (see [`Elided`]), found by the scan of
    /// the `pending` bytes, or of the bytes with hash `scanned` (see
    /// [`bytes_hash`]) when they were not kept.
    elide: Vec<(u32, u32)>,
    scanned: Option<u64>,
    /// Whether the tree drops its function bodies (a source module: see
    /// [`crate::bodies`]).
    strip: bool,
    parsed: std::sync::OnceLock<ParsedFile>,
}

impl LazyFile {
    /// A file parsed already.
    pub(crate) fn parsed(file: ParsedFile) -> LazyFile {
        let lazy = LazyFile::new(file.path.clone(), file.rel.clone(), 0, None, None);
        let _ = lazy.parsed.set(file);
        lazy
    }

    /// A file to parse on first use, from `bytes` when given, else read
    /// then (and checked against the content hash `expect` when given).
    pub(crate) fn new(
        path: PathBuf,
        rel: String,
        max_size: u64,
        bytes: Option<Result<Vec<u8>, String>>,
        expect: Option<u128>,
    ) -> LazyFile {
        LazyFile {
            path,
            rel,
            max_size,
            pending: std::sync::Mutex::new(bytes),
            expect,
            changed: std::sync::atomic::AtomicBool::new(false),
            elide: Vec::new(),
            scanned: None,
            strip: false,
            parsed: std::sync::OnceLock::new(),
        }
    }

    /// Leaves the class attribute values at `elide` out of the parse (see
    /// [`Elided`]); they are ranges of the bytes given to [`LazyFile::new`],
    /// or of bytes whose [`bytes_hash`] is `scanned`, read again to parse.
    #[must_use]
    pub(crate) fn eliding(mut self, elide: Vec<(u32, u32)>, scanned: Option<u64>) -> LazyFile {
        self.elide = elide;
        self.scanned = scanned;
        self
    }

    /// Drops the function bodies from the tree once parsed, when `strip`
    /// (a source module's: see [`crate::bodies`]).
    #[must_use]
    pub(crate) fn stripping(mut self, strip: bool) -> LazyFile {
        self.strip = strip;
        self
    }

    /// The parsed file (parsed now if it was not yet).
    pub(crate) fn get(&self) -> &ParsedFile {
        self.parsed.get_or_init(|| {
            let pending = self.pending.lock().ok().and_then(|mut p| p.take());
            // The ranges stand for the bytes read ahead only, or for the
            // bytes scanned and let go when these are read again: the
            // same when they have the content hash `expect` (of the bytes
            // scanned), else when they have the quick hash `scanned`.
            let mut same = pending.is_some();
            let bytes = pending.unwrap_or_else(|| {
                let bytes = read_bytes(&self.path, self.max_size);
                if let Some(hash) = self.expect {
                    if crate::cache::key::content(&bytes) == hash {
                        same = true;
                    } else {
                        self.changed
                            .store(true, std::sync::atomic::Ordering::Relaxed);
                    }
                }
                bytes
            });
            let same = same
                || (self.expect.is_none()
                    && self
                        .scanned
                        .zip(bytes.as_ref().ok())
                        .is_some_and(|(hash, bytes)| bytes_hash(bytes) == hash));
            let elide: &[(u32, u32)] = if same { &self.elide } else { &[] };
            let strip = self.strip.then_some(self.max_size);
            ParsedFile::parse_eliding(&self.path, self.rel.clone(), bytes, elide, strip)
        })
    }

    /// Whether the bytes parsed differ from the hash the session keyed its
    /// results with (the file changed while collecting).
    pub(crate) fn changed(&self) -> bool {
        self.changed.load(std::sync::atomic::Ordering::Relaxed)
            || self.parsed.get().is_some_and(ParsedFile::text_changed)
    }
}

/// The bytes of `path`, or why they cannot be read: files over `max_size`
/// bytes are not read.
pub(crate) fn read_bytes(path: &Path, max_size: u64) -> Result<Vec<u8>, String> {
    read_bytes_with(path, max_size, |_| ())
}

/// [`read_bytes`], with `with` given the open file's metadata before it is
/// read (the cache's `stat` data without a second `stat`).
pub(crate) fn read_bytes_with(
    path: &Path,
    max_size: u64,
    with: impl FnOnce(&std::fs::Metadata),
) -> Result<Vec<u8>, String> {
    use std::io::Read;
    // One open and one fstat: the size is checked on the open file.
    let mut file = std::fs::File::open(path).map_err(|err| format!("cannot read file: {err}"))?;
    let meta = file
        .metadata()
        .map_err(|err| format!("cannot read file: {err}"))?;
    with(&meta);
    let size = meta.len();
    if size > max_size {
        return Err(format!("file is {size} bytes, over the {max_size}-byte limit (collect.max-file-size); not parsed"));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0) + 1);
    file.read_to_end(&mut bytes)
        .map_err(|err| format!("cannot read file: {err}"))?;
    Ok(bytes)
}

/// Why source bytes cannot be decoded, and where (1-based).
#[derive(Debug)]
struct DecodeError {
    message: String,
    line: usize,
    column: usize,
}

impl DecodeError {
    /// An error at byte `offset` of `bytes`.
    fn at(bytes: &[u8], offset: usize, message: String) -> DecodeError {
        let before = &bytes[..offset.min(bytes.len())];
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        DecodeError {
            message,
            line: before.split(|&b| b == b'\n').count(),
            column: String::from_utf8_lossy(&before[line_start..])
                .chars()
                .count()
                + 1,
        }
    }
}

/// Decodes Python source bytes as `CPython` does: UTF-8 (with or without a
/// BOM) unless a PEP 263 coding cookie on the first two lines says
/// otherwise, with the tokenizer's name normalisation (`utf-8-sig` and
/// `latin-1-unix` are UTF-8 and Latin-1); a BOM with another encoding is
/// an error. Invalid UTF-8 inside a comment is accepted, as `CPython`
/// accepts it. Latin-1 and ASCII cookies are supported; other encodings
/// are reported.
fn decode(mut owned: Vec<u8>) -> Result<String, DecodeError> {
    if let Some(offset) = memchr::memchr(0, &owned) {
        return Err(DecodeError::at(
            &owned,
            offset,
            "SyntaxError: source code cannot contain null bytes".to_string(),
        ));
    }
    let bom = owned.starts_with(b"\xef\xbb\xbf");
    if bom {
        owned.drain(..3);
        if owned.starts_with(b"\xef\xbb\xbf") {
            return Err(DecodeError::at(
                &owned,
                0,
                "SyntaxError: invalid non-printable character U+FEFF".to_string(),
            ));
        }
    }
    let cookie = coding_cookie(&owned);
    let encoding = cookie.as_deref().map(normal_encoding_name);
    if bom && encoding.as_deref().is_some_and(|name| name != "utf-8") {
        let name = encoding.unwrap_or_default();
        return Err(DecodeError::at(
            &owned,
            0,
            format!("SyntaxError: encoding problem: {name} with BOM"),
        ));
    }
    match encoding.as_deref() {
        None | Some("utf-8" | "utf8") => decode_utf8(owned),
        Some("iso-8859-1" | "latin1" | "l1") => Ok(owned.iter().map(|&b| char::from(b)).collect()),
        Some("ascii" | "us-ascii" | "646") => match owned.iter().position(|b| !b.is_ascii()) {
            Some(offset) => Err(DecodeError::at(
                &owned,
                offset,
                format!(
                    "SyntaxError: (unicode error) 'ascii' codec can't decode byte 0x{:02x} in position {offset}: ordinal not in range(128)",
                    owned[offset]
                ),
            )),
            None => decode_utf8(owned),
        },
        Some(other) => Err(DecodeError::at(
            &owned,
            0,
            format!("unsupported source encoding `{other}` (proctor reads utf-8, latin-1 and ascii)"),
        )),
    }
}

/// `CPython`'s `get_normal_name`: `utf-8-*` is UTF-8, `latin-1-*`,
/// `iso-8859-1-*` and `iso-latin-1-*` are Latin-1 (underscores read as
/// dashes); other names are returned lowercased.
fn normal_encoding_name(name: &str) -> String {
    let name = name.to_ascii_lowercase();
    let dashed: String = name
        .chars()
        .take(12)
        .map(|c| if c == '_' { '-' } else { c })
        .collect();
    let is = |base: &str| dashed == base || dashed.starts_with(&format!("{base}-"));
    if is("utf-8") {
        "utf-8".to_string()
    } else if is("latin-1") || is("iso-8859-1") || is("iso-latin-1") {
        "iso-8859-1".to_string()
    } else {
        name
    }
}

/// UTF-8 source; bytes that are not UTF-8 are accepted inside comments
/// only (the tokenizer never decodes a comment), and stand there as `?`.
fn decode_utf8(owned: Vec<u8>) -> Result<String, DecodeError> {
    let err = match String::from_utf8(owned) {
        Ok(text) => return Ok(text),
        Err(err) => err,
    };
    let first = err.utf8_error();
    let bytes = err.into_bytes();
    let error = |offset: usize| {
        let reason = match first.error_len() {
            Some(_) if bytes[offset] & 0xc0 == 0x80 || bytes[offset] >= 0xf8 => {
                "invalid start byte"
            }
            Some(_) => "invalid continuation byte",
            None => "unexpected end of data",
        };
        DecodeError::at(
            &bytes,
            offset,
            format!(
                "SyntaxError: (unicode error) 'utf-8' codec can't decode byte 0x{:02x} in position {offset}: {reason}",
                bytes[offset]
            ),
        )
    };
    // Every invalid sequence becomes as many `?`, so offsets stay put.
    let mut patched = Vec::with_capacity(bytes.len());
    let mut invalid = Vec::new();
    for chunk in bytes.utf8_chunks() {
        patched.extend_from_slice(chunk.valid().as_bytes());
        for _ in chunk.invalid() {
            invalid.push(patched.len());
            patched.push(b'?');
        }
    }
    let text = String::from_utf8(patched).map_err(|_| error(first.valid_up_to()))?;
    let parsed = parse_module(&text);
    let tokens = match &parsed {
        Ok(parsed) => parsed.tokens(),
        Err(_) => return Err(error(first.valid_up_to())),
    };
    let in_comment = |offset: usize| {
        tokens.iter().any(|token| {
            token.kind() == ruff_python_ast::token::TokenKind::Comment
                && token
                    .range()
                    .contains(ruff_text_size::TextSize::try_from(offset).unwrap_or_default())
        })
    };
    match invalid.iter().find(|&&offset| !in_comment(offset)) {
        Some(&offset) => Err(error(offset)),
        None => Ok(text),
    }
}

/// A PEP 263 cookie (`^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)`) on the
/// first line, or on the second when the first holds only a comment or
/// blanks.
fn coding_cookie(bytes: &[u8]) -> Option<String> {
    for (index, line) in bytes.split(|&b| b == b'\n').take(2).enumerate() {
        let line = String::from_utf8_lossy(line);
        let trimmed = line.trim_start_matches([' ', '\t', '\x0c']);
        if !trimmed.starts_with('#') {
            if index == 0 && !trimmed.trim().is_empty() {
                return None;
            }
            continue;
        }
        let mut rest = trimmed;
        while let Some(pos) = rest.find("coding") {
            let after = &rest[pos + "coding".len()..];
            if let Some(value) = after.strip_prefix(':').or_else(|| after.strip_prefix('=')) {
                let name: String = value
                    .trim_start_matches([' ', '\t'])
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.'))
                    .collect();
                if !name.is_empty() {
                    return Some(name);
                }
            }
            rest = after;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::{blank_ranges, decode, normal_encoding_name, ParsedFile};
    use crate::namespace::Namespace;

    #[test]
    fn blanking_keeps_brackets_and_offsets() {
        let text = "a = {1,\r\n 2,\n\n 3}\nb = [x]\n";
        let blanked = blank_ranges(text, &[(4, 17), (22, 25)]).expect("fits");
        assert_eq!(blanked, "a = {#         \n}\nb = [ ]\n");
        assert_eq!(blanked.len(), text.len());
        assert_eq!(blank_ranges(text, &[(4, 99)]), None);
    }

    /// A module whose classes carry large bracketed values, some of which
    /// the scan may leave out of the parse and some it must not.
    fn lexer_module() -> String {
        use std::fmt::Write;
        let mut rows = String::new();
        for i in 0..12 {
            let _ = writeln!(rows, "            (r'k{i}\\b', Keyword),  # row {i}");
        }
        format!(
            "from base import RegexLexer, Keyword\n\nclass Lexer(RegexLexer):\n    name = 'X'\n    tokens = {{\n        'root': [\n{rows}        ],\n    }}  # tokens\n    aliases = ['x']\n\n    def analyse(self):\n        table = [\n{rows}        ]\n        return table\n\n\nclass Other:\n    joined = [\n{rows}    ] + [1]\n    later = (\n{rows}    )\n    if True:\n        nested = [\n{rows}        ]\n"
        )
    }

    /// Each class's name table, every binding printed (with its ranges).
    fn class_tables(file: &ParsedFile) -> Vec<Vec<String>> {
        let body = &file.ast.as_ref().expect("parses").body;
        let elided = Some(file);
        body.iter()
            .filter_map(|stmt| match stmt {
                ruff_python_ast::Stmt::ClassDef(def) => Some(
                    Namespace::build_in(&def.body, "", elided)
                        .iter()
                        .map(|(name, binding)| format!("{name}: {binding:?}"))
                        .collect(),
                ),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn values_left_out_of_a_parse_read_as_the_whole_parse_has_them() {
        let text = lexer_module();
        let scan = crate::import_scan::scan_module(&text, "").expect("scanned");
        // `tokens` and `later`; not a value with more after its group, in a
        // function or under a condition.
        let left_out: Vec<&str> = scan
            .elidable
            .iter()
            .map(|&(s, e)| &text[s as usize..e as usize])
            .collect();
        assert_eq!(left_out.len(), 2, "{left_out:?}");
        assert!(left_out[0].starts_with("{\n        'root'") && left_out[0].ends_with('}'));
        assert!(left_out[1].starts_with("(\n") && left_out[1].ends_with(')'));
        let path = std::path::Path::new("m.py");
        let whole = ParsedFile::parse(path, "m.py".into(), Ok(text.clone().into_bytes()));
        let lazy = ParsedFile::parse_eliding(
            path,
            "m.py".into(),
            Ok(text.clone().into_bytes()),
            &scan.elidable,
            None,
        );
        assert!(!lazy.elided.is_empty());
        assert_eq!(lazy.source.text, text);
        assert_eq!(class_tables(&lazy), class_tables(&whole));
    }

    #[test]
    fn bytes_let_go_after_the_scan_are_read_again_and_elided_only_if_unchanged() {
        let text = lexer_module();
        let scan = crate::import_scan::scan_module(&text, "").expect("scanned");
        let dir = tempfile::tempdir().expect("temporary directory");
        let path = dir.path().join("m.py");
        let lazy = |on_disk: &str| {
            std::fs::write(&path, on_disk).expect("written");
            let file = super::LazyFile::new(path.clone(), "m.py".into(), u64::MAX, None, None)
                .eliding(
                    scan.elidable.clone(),
                    Some(super::bytes_hash(text.as_bytes())),
                );
            let parsed = file.get();
            (parsed.elided.is_empty(), class_tables(parsed))
        };
        let whole = ParsedFile::parse(&path, "m.py".into(), Ok(text.clone().into_bytes()));
        // The bytes scanned: their ranges are left out, and read as the
        // whole parse has them.
        let (none_left_out, tables) = lazy(&text);
        assert!(!none_left_out);
        assert_eq!(tables, class_tables(&whole));
        // Other bytes: the ranges do not stand for them, nothing is left out.
        let edited = format!("# edited\n{text}");
        let (none_left_out, _) = lazy(&edited);
        assert!(none_left_out);
    }

    #[test]
    fn a_value_that_does_not_parse_is_bound_opaquely() {
        // In `tokens` only, the first table of the module.
        let text = lexer_module().replacen("(r'k3\\b', Keyword)", "(r'k3' +* 1)", 1);
        let scan = crate::import_scan::scan_module(&text, "").expect("scanned");
        let path = std::path::Path::new("m.py");
        let lazy = ParsedFile::parse_eliding(
            path,
            "m.py".into(),
            Ok(text.into_bytes()),
            &scan.elidable,
            None,
        );
        assert!(lazy.error.is_none());
        let tables = class_tables(&lazy);
        assert!(
            tables[0].iter().any(|b| b == "tokens: Opaque"),
            "{tables:?}"
        );
    }

    #[test]
    fn ranges_that_match_no_placeholder_parse_the_file_whole() {
        let text = lexer_module();
        let path = std::path::Path::new("m.py");
        // A range inside a function body: no class attribute holds it.
        let start = u32::try_from(text.find("table = [").expect("there") + 8).expect("small");
        let end = u32::try_from(text.find("        ]\n        return").expect("there") + 9)
            .expect("small");
        let lazy = ParsedFile::parse_eliding(
            path,
            "m.py".into(),
            Ok(text.clone().into_bytes()),
            &[(start, end)],
            None,
        );
        let whole = ParsedFile::parse(path, "m.py".into(), Ok(text.into_bytes()));
        assert!(lazy.elided.is_empty());
        assert_eq!(format!("{:?}", lazy.ast), format!("{:?}", whole.ast));
    }

    fn error(bytes: &[u8]) -> (usize, usize, String) {
        let err = decode(bytes.to_vec()).expect_err("an error");
        (err.line, err.column, err.message)
    }

    #[test]
    fn encoding_names_are_normalised_as_the_tokenizer_does() {
        assert_eq!(normal_encoding_name("UTF_8-sig"), "utf-8");
        assert_eq!(normal_encoding_name("latin-1-unix"), "iso-8859-1");
        assert_eq!(normal_encoding_name("iso_latin_1"), "iso-8859-1");
        assert_eq!(normal_encoding_name("utf-80"), "utf-80");
        assert_eq!(normal_encoding_name("cp1252"), "cp1252");
    }

    #[test]
    fn cookies_are_read_where_python_reads_them() {
        assert_eq!(
            decode(b"# vim: set fileencoding=latin-1 :\nx = '\xe9'\n".to_vec()).unwrap(),
            "# vim: set fileencoding=latin-1 :\nx = '\u{e9}'\n"
        );
        assert!(
            decode(b"#!/usr/bin/env python\n# -*- coding: latin-1 -*-\nx = '\xe9'\n".to_vec())
                .unwrap()
                .ends_with("x = '\u{e9}'\n")
        );
        // After a line of code, a cookie on line 2 is only a comment.
        assert_eq!(error(b"x = 1\n# coding: latin-1\ny = '\xe9'\n").0, 3);
        // `decoding` is not the cookie; the `coding:` after it is.
        assert!(decode(b"# decoding and coding: latin-1\nx = '\xe9'\n".to_vec()).is_ok());
    }

    #[test]
    fn byte_errors_say_where() {
        assert_eq!(
            error(b"x = 1\ny = 2\0\n"),
            (
                2,
                6,
                "SyntaxError: source code cannot contain null bytes".to_string()
            )
        );
        assert_eq!(
            error(b"\xef\xbb\xbf# coding: latin-1\n").2,
            "SyntaxError: encoding problem: iso-8859-1 with BOM"
        );
        assert_eq!(
            error(b"\xef\xbb\xbf\xef\xbb\xbfx = 1\n").2,
            "SyntaxError: invalid non-printable character U+FEFF"
        );
        let (line, column, message) = error(b"# ok\nx = 'caf\xe9'\n");
        assert_eq!((line, column), (2, 9));
        assert!(
            message.contains("'utf-8' codec can't decode byte 0xe9"),
            "{message}"
        );
    }

    #[test]
    fn invalid_utf8_is_accepted_in_comments_only() {
        assert!(decode(b"x = 1  # caf\xe9\n# \xff\xfe\n".to_vec()).is_ok());
        assert_eq!(error(b"s = '#'; y = '\xe9'\n").0, 1);
        assert_eq!(error(b"'''\n# caf\xe9\n'''\n").0, 2);
    }
}
