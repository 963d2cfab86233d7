//! The modules a source module imports, read from its text without
//! parsing it: the statements the import closure follows (module level,
//! `if`/`try` branches and class bodies, not function bodies), in the order
//! the syntax tree gives them. A shared module is then parsed only when the
//! evaluator first asks it for a name.
//!
//! The scan answers only where it is sure: an f-string it cannot follow, an
//! `import` it does not recognise, a `pytest_plugins` value, an encoding
//! other than plain UTF-8 all give `None`, and the caller parses the module
//! instead.

use crate::byte_search;
use crate::namespace::absolute_module;

/// Absolute names of the modules `text` imports, as the syntax tree's
/// module-level walk finds them; `None` where only a parse can tell.
#[cfg(test)]
pub(crate) fn top_level_imports(text: &str, package: &str) -> Option<Vec<String>> {
    scan_module(text, package).map(|scan| scan.imports)
}

/// What the scan of a module's text finds: the modules it imports, and the
/// values of its classes' attributes that a parse may leave out.
pub(crate) struct Scan {
    /// Absolute names of the imported modules, in the syntax tree's order.
    pub(crate) imports: Vec<String>,
    /// Byte ranges of the bracketed values (`tokens = {...}`) of class
    /// attributes written directly in the body of a top-level class, each
    /// at least [`ELIDE_MIN`] bytes long: the value a lexer's or a
    /// formatter's class carries as data, which nothing reads in most
    /// collections. See [`crate::source::Elided`].
    pub(crate) elidable: Vec<(u32, u32)>,
}

/// The smallest class attribute value left out of a parse: below this,
/// parsing it costs less than the bookkeeping.
pub(crate) const ELIDE_MIN: usize = 48;

/// The [`Scan`] of `text`; `None` where only a parse can tell.
pub(crate) fn scan_module(text: &str, package: &str) -> Option<Scan> {
    if text.starts_with('\u{feff}')
        || memchr::memmem::find(text.as_bytes(), b"pytest_plugins").is_some()
        || names_own_submodules(text, package)
    {
        return None;
    }
    // An encoding declaration on one of the first two lines: the parse
    // decodes as it says.
    if text
        .lines()
        .take(2)
        .any(|l| l.trim_start().starts_with('#') && l.contains("coding"))
    {
        return None;
    }
    let logical = logical_lines(text.as_bytes())?;
    let lines = logical.lines();
    let mut pos = 0;
    let mut out = Vec::new();
    block(&lines, &mut pos, None, package, &mut out)?;
    if pos != lines.len() {
        return None;
    }
    out.retain(|m| !m.is_empty());
    Some(Scan {
        imports: out,
        elidable: elidable_values(text.as_bytes(), &lines),
    })
}

/// The [`Scan::elidable`] ranges of a module whose logical lines are
/// `lines`: in the body of each class statement at module level, the
/// statements `NAME = <bracketed value>` whose value is one bracketed
/// group of at least [`ELIDE_MIN`] bytes.
fn elidable_values(b: &[u8], lines: &[Line]) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = &lines[i];
        i += 1;
        if line.indent != 0 || line.first_word() != "class" || !line.is_header() {
            continue;
        }
        // The body: the lines indented deeper, whose statements all sit at
        // the first one's indentation.
        let Some(level) = lines.get(i).map(|l| l.indent).filter(|&l| l > 0) else {
            continue;
        };
        while let Some(stmt) = lines.get(i).filter(|l| l.indent > 0) {
            i += 1;
            if stmt.indent == level {
                out.extend(bracketed_value(b, stmt));
            }
        }
    }
    out
}

/// The range of the value of `NAME = (...)` / `[...]` / `{...}` on one
/// logical line, when it is one bracketed group of at least
/// [`ELIDE_MIN`] bytes and nothing follows it.
fn bracketed_value(b: &[u8], line: &Line) -> Option<(u32, u32)> {
    let code = line.code.as_bytes();
    // In the code (strings replaced, comments dropped): the name, `=`, and
    // a group that closes at the end of the line.
    let name = line.first_word().len();
    if name == 0 {
        return None;
    }
    let mut at = name;
    while code.get(at).is_some_and(|c| *c == b' ' || *c == b'\t') {
        at += 1;
    }
    if code.get(at) != Some(&b'=') || code.get(at + 1) == Some(&b'=') {
        return None;
    }
    at += 1;
    while code.get(at).is_some_and(|c| *c == b' ' || *c == b'\t') {
        at += 1;
    }
    let open = *code.get(at)?;
    let close = match open {
        b'(' => b')',
        b'[' => b']',
        b'{' => b'}',
        _ => return None,
    };
    // The code before `at` holds no bracket: the group opened at `at` is
    // the line's first, and it must close at the line's end (a logical
    // line ends with its brackets closed).
    let rest = code[at..].trim_ascii_end();
    if line.closed != Some(at + rest.len()) || rest.last() != Some(&close) {
        return None;
    }
    // The same in the source: the code before the value has no string,
    // comment or continuation, so it is the source's text.
    let start = line.start + at;
    let end = line.end;
    if b.get(line.start..start)? != &code[..at] || b.get(start) != Some(&open) {
        return None;
    }
    if end <= start || b.get(end - 1) != Some(&close) || end - start < ELIDE_MIN {
        return None;
    }
    Some((u32::try_from(start).ok()?, u32::try_from(end).ok()?))
}

/// Whether `text` may hold a string naming a submodule of its own
/// top-level package (`'pygments.lexers.business'`): the syntax-tree walk
/// follows such module-level tables (`eval::named_submodules`), so only a
/// parse can tell.
fn names_own_submodules(text: &str, package: &str) -> bool {
    package
        .split('.')
        .next()
        .filter(|top| !top.is_empty())
        .is_some_and(|top| {
            // One search for the name, then the quote before it.
            let dotted = format!("{top}.");
            let bytes = text.as_bytes();
            memchr::memmem::find_iter(bytes, dotted.as_bytes())
                .any(|at| at > 0 && matches!(bytes[at - 1], b'\'' | b'"'))
        })
}

/// One logical line: its indentation column and its code with comments
/// dropped, strings replaced by `S` and continuation lines joined, with
/// the byte offsets of its first code byte and just past its last.
struct Line<'s> {
    indent: usize,
    code: &'s str,
    start: usize,
    end: usize,
    /// Where in `code` the first bracket that opens on the line closes
    /// (just past it); `None` without brackets.
    closed: Option<usize>,
}

impl Line<'_> {
    fn first_word(&self) -> &str {
        // ASCII bytes first (nearly every line), characters after the
        // first other byte.
        let bytes = self.code.as_bytes();
        let ascii = bytes
            .iter()
            .position(|&c| !(c == b'_' || c.is_ascii_alphanumeric()))
            .unwrap_or(bytes.len());
        if bytes.get(ascii).is_none_or(u8::is_ascii) {
            return &self.code[..ascii];
        }
        let end = self.code[ascii..]
            .find(|c: char| !is_ident_char(c))
            .map_or(self.code.len(), |at| ascii + at);
        &self.code[..end]
    }

    fn is_header(&self) -> bool {
        self.code.trim_end().ends_with(':')
    }
}

fn is_ident_char(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

/// The searcher for `import`, built once: a searcher's set-up costs more
/// than the search of a short line, and every logical line is searched.
static IMPORT: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
    std::sync::LazyLock::new(|| memchr::memmem::Finder::new("import"));

/// Whether `code` holds the keyword `import` as a token of its own. Asked
/// of every logical line, some of them whole tables: a substring search,
/// then a look at the characters around each hit.
fn has_import(code: &str) -> bool {
    let word = "import";
    let mut from = 0;
    while let Some(found) = IMPORT.find(&code.as_bytes()[from..]) {
        let at = from + found;
        let end = at + word.len();
        let before = code[..at].chars().next_back();
        let after = code[end..].chars().next();
        if !before.is_some_and(is_ident_char) && !after.is_some_and(is_ident_char) {
            return true;
        }
        from = end;
    }
    false
}

/// The text's logical lines; `None` on anything the scan does not follow.
fn logical_lines(b: &[u8]) -> Option<LogicalLines> {
    let mut lines = Vec::new();
    // The code of every line, one after the other: one buffer, not one
    // string per line.
    let mut code: Vec<u8> = Vec::with_capacity(b.len());
    let mut from = 0;
    let mut depth = 0usize;
    let mut indent: Option<usize> = None;
    let mut start = 0;
    let mut end = 0;
    // Where in `code` the line's first group closed.
    let mut closed: Option<usize> = None;
    let mut i = 0;
    while i < b.len() {
        if indent.is_none() {
            // The start of a logical line: its indentation, or a blank or
            // comment line.
            let mut col = 0;
            while i < b.len() {
                match b[i] {
                    b' ' => col += 1,
                    b'\t' => col = (col / 8 + 1) * 8,
                    b'\x0c' => col = 0,
                    _ => break,
                }
                i += 1;
            }
            match b.get(i) {
                None => break,
                Some(b'\n') => {
                    i += 1;
                    continue;
                }
                Some(b'\r') if b.get(i + 1) == Some(&b'\n') => {
                    i += 2;
                    continue;
                }
                Some(b'#') => {
                    i = memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |at| i + at);
                    continue;
                }
                Some(b'\\') => return None,
                Some(_) => {
                    indent = Some(col);
                    start = i;
                    from = code.len();
                    closed = None;
                }
            }
        }
        // Up to the next byte where something happens other than a
        // bracket (brackets only count): the bytes before it are copied as
        // they are, in one copy.
        let run = i;
        let mut at = i;
        let stop = loop {
            match byte_search::next_code_stop(b, at) {
                Some(p) if matches!(b[p], b'(' | b'[' | b'{') => {
                    depth += 1;
                    at = p + 1;
                }
                Some(p) if matches!(b[p], b')' | b']' | b'}') => {
                    depth = depth.checked_sub(1)?;
                    if depth == 0 && closed.is_none() {
                        closed = Some(code.len() + (p + 1 - run));
                    }
                    at = p + 1;
                }
                other => break other,
            }
        };
        let copied = &b[run..stop.unwrap_or(b.len())];
        code.extend_from_slice(copied);
        if let Some(last) = copied
            .iter()
            .rposition(|c| !matches!(c, b' ' | b'\t' | b'\x0c'))
        {
            end = run + last + 1;
        }
        let Some(stop) = stop else {
            break;
        };
        i = stop;
        match b[i] {
            b'#' => {
                i = memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |at| i + at);
            }
            b'\\' => {
                match (b.get(i + 1), b.get(i + 2)) {
                    (Some(b'\n'), _) => i += 2,
                    (Some(b'\r'), Some(b'\n')) => i += 3,
                    _ => return None,
                }
                code.push(b' ');
            }
            b'\r' => {
                if b.get(i + 1) != Some(&b'\n') {
                    return None;
                }
                i += 1;
            }
            b'\n' => {
                i += 1;
                if depth > 0 {
                    code.push(b' ');
                } else {
                    lines.push(RawLine {
                        indent: indent.take()?,
                        code: from..code.len(),
                        start,
                        end,
                        closed: closed.map(|at| at - from),
                    });
                }
            }
            // A quote (the only other stop).
            _ => {
                let kind = string_prefix(&code[from..])?;
                i = skip_string(b, i, kind)?;
                end = i;
                code.push(b'S');
            }
        }
    }
    if depth > 0 {
        return None;
    }
    if let Some(indent) = indent {
        if !std::str::from_utf8(&code[from..]).ok()?.trim().is_empty() {
            lines.push(RawLine {
                indent,
                code: from..code.len(),
                start,
                end,
                closed: closed.map(|at| at - from),
            });
        }
    }
    // Cut only at ASCII bytes of a text that is UTF-8: valid.
    let code = String::from_utf8(code).ok()?;
    Some(LogicalLines { code, lines })
}

/// The logical lines of a text: their code in one buffer.
struct LogicalLines {
    code: String,
    lines: Vec<RawLine>,
}

/// A [`Line`] with its code as a range of [`LogicalLines::code`].
struct RawLine {
    indent: usize,
    code: std::ops::Range<usize>,
    start: usize,
    end: usize,
    closed: Option<usize>,
}

impl LogicalLines {
    fn lines(&self) -> Vec<Line<'_>> {
        self.lines
            .iter()
            .map(|l| Line {
                indent: l.indent,
                code: self.code.get(l.code.clone()).unwrap_or(""),
                start: l.start,
                end: l.end,
                closed: l.closed,
            })
            .collect()
    }
}

/// What a string literal's prefix says about its body, as far as finding
/// its end goes.
#[derive(Clone, Copy, PartialEq)]
enum StringKind {
    /// No replacement fields: the next quote not after a backslash ends it.
    Plain,
    /// An f- or t-string: `{` opens a replacement field.
    Interpolated {
        /// `\N{NAME}` is no escape in a raw string: its brace opens a field.
        raw: bool,
    },
}

/// The kind of the string starting after `code`; `None` for a prefix that
/// is not a string prefix.
fn string_prefix(code: &[u8]) -> Option<StringKind> {
    // Nearly every string follows a bracket, a comma or a blank: look at
    // no more than the three bytes a prefix could take.
    let len = code
        .iter()
        .rev()
        .take(3)
        .take_while(|&&c| c == b'_' || c.is_ascii_alphanumeric() || c >= 0x80)
        .count();
    if len > 2 {
        return None;
    }
    // At most two letters, lowered without allocating.
    let prefix = &code[code.len() - len..];
    let mut lower = [0u8; 2];
    for (to, from) in lower.iter_mut().zip(prefix) {
        *to = from.to_ascii_lowercase();
    }
    match &lower[..len] {
        b"" | b"r" | b"u" | b"b" | b"br" | b"rb" => Some(StringKind::Plain),
        b"f" | b"t" => Some(StringKind::Interpolated { raw: false }),
        b"fr" | b"rf" | b"tr" | b"rt" => Some(StringKind::Interpolated { raw: true }),
        _ => None,
    }
}

/// The index just past the string literal opening at `i`.
fn skip_string(b: &[u8], mut i: usize, kind: StringKind) -> Option<usize> {
    let quote = b[i];
    let triple = b.get(i + 1) == Some(&quote) && b.get(i + 2) == Some(&quote);
    i += if triple { 3 } else { 1 };
    loop {
        if kind == StringKind::Plain {
            // Straight to the next byte that can matter: docstrings and
            // table patterns are long.
            let rest = b.get(i..)?;
            i = if triple {
                i + memchr::memchr2(b'\\', quote, rest)?
            } else {
                // Most strings are short: a vector compare from here, not
                // `memchr`'s set-up.
                byte_search::next_of3(b, i, [b'\\', quote, b'\n'])?
            };
        }
        let c = *b.get(i)?;
        if c == b'\\' {
            if let StringKind::Interpolated { raw } = kind {
                match b.get(i + 1) {
                    // A backslash does not escape a brace: `\{x}` is a
                    // backslash and a field, raw or not.
                    Some(b'{') => {
                        i += 1;
                        continue;
                    }
                    // A named character, `\N{BULLET}`, outside raw strings.
                    Some(b'N') if !raw && b.get(i + 2) == Some(&b'{') => {
                        i += 3 + memchr::memchr(b'}', b.get(i + 3..)?)? + 1;
                        continue;
                    }
                    _ => {}
                }
            }
            i += 2;
            continue;
        }
        if c == quote && (!triple || (b.get(i + 1) == Some(&quote) && b.get(i + 2) == Some(&quote)))
        {
            return Some(i + if triple { 3 } else { 1 });
        }
        if c == b'\n' && !triple {
            return None;
        }
        if kind != StringKind::Plain && c == b'{' {
            if b.get(i + 1) == Some(&b'{') {
                i += 2;
                continue;
            }
            i = skip_field(b, i + 1)?;
            continue;
        }
        i += 1;
    }
}

/// The index just past the `}` closing the replacement field whose
/// expression starts at `i`.
fn skip_field(b: &[u8], mut i: usize) -> Option<usize> {
    let mut depth = 0usize;
    loop {
        let c = *b.get(i)?;
        match c {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' => depth = depth.checked_sub(1)?,
            b'}' if depth == 0 => return Some(i + 1),
            b'}' => depth -= 1,
            b'\'' | b'"' => {
                let start = b[..i]
                    .iter()
                    .rposition(|&c| !(c == b'_' || c.is_ascii_alphanumeric()))
                    .map_or(0, |p| p + 1);
                let kind = string_prefix(&b[start..i])?;
                i = skip_string(b, i, kind)?;
                continue;
            }
            // The format spec: literal text with nested fields.
            b':' if depth == 0 => {
                i += 1;
                loop {
                    match *b.get(i)? {
                        b'}' => return Some(i + 1),
                        b'{' => i = skip_field(b, i + 1)?,
                        b'\n' | b'\\' => return None,
                        _ => i += 1,
                    }
                }
            }
            b'#' | b'\\' => return None,
            _ => {}
        }
        i += 1;
    }
}

/// Which bodies the import walk enters.
#[derive(Clone, Copy, PartialEq)]
enum Body {
    Scanned,
    Skipped,
}

/// Walks the statements at one indentation (deeper than `parent`) from
/// `pos`, appending imports in syntax-tree order.
fn block(
    lines: &[Line],
    pos: &mut usize,
    parent: Option<usize>,
    package: &str,
    out: &mut Vec<String>,
) -> Option<()> {
    let inside = |line: &Line| parent.is_none_or(|p| line.indent > p);
    // Every statement of a block has the block's indentation (module level:
    // none); anything else is an indentation error, for the parse to report.
    let mut level = parent.is_none().then_some(0);
    while let Some(line) = lines.get(*pos).filter(|l| inside(l)) {
        if *level.get_or_insert(line.indent) != line.indent {
            return None;
        }
        let word = line.first_word();
        let compound = matches!(
            word,
            "if" | "elif"
                | "else"
                | "try"
                | "except"
                | "finally"
                | "class"
                | "def"
                | "async"
                | "with"
                | "for"
                | "while"
        ) || (matches!(word, "match" | "case") && line.is_header());
        if line.code.starts_with('@') {
            if has_import(line.code) {
                return None;
            }
            *pos += 1;
            continue;
        }
        if !compound {
            if line.is_header() {
                return None;
            }
            simple(line.code, package, out)?;
            *pos += 1;
            continue;
        }
        if !line.is_header() && has_import(line.code) {
            // A body on the header's line.
            return None;
        }
        let indent = line.indent;
        match word {
            "if" => {
                body(lines, pos, Body::Scanned, package, out)?;
                while let Some(next) = lines.get(*pos).filter(|l| l.indent == indent) {
                    if !matches!(next.first_word(), "elif" | "else") {
                        break;
                    }
                    body(lines, pos, Body::Scanned, package, out)?;
                }
            }
            "try" => {
                body(lines, pos, Body::Scanned, package, out)?;
                let mut handlers = Vec::new();
                let mut orelse = Vec::new();
                while let Some(next) = lines.get(*pos).filter(|l| l.indent == indent) {
                    match next.first_word() {
                        "except" => body(lines, pos, Body::Scanned, package, &mut handlers)?,
                        "else" => body(lines, pos, Body::Scanned, package, &mut orelse)?,
                        "finally" => body(lines, pos, Body::Skipped, package, out)?,
                        _ => break,
                    }
                }
                out.extend(orelse);
                out.extend(handlers);
            }
            "class" => body(lines, pos, Body::Scanned, package, out)?,
            // `def`, `with`, `for`, `while`, `match` and the `else` of a
            // loop: bodies the walk does not enter.
            _ => body(lines, pos, Body::Skipped, package, out)?,
        }
    }
    Some(())
}

/// The header at `pos` and its body.
fn body(
    lines: &[Line],
    pos: &mut usize,
    kind: Body,
    package: &str,
    out: &mut Vec<String>,
) -> Option<()> {
    let indent = lines[*pos].indent;
    *pos += 1;
    if kind == Body::Scanned {
        block(lines, pos, Some(indent), package, out)
    } else {
        while lines.get(*pos).is_some_and(|l| l.indent > indent) {
            *pos += 1;
        }
        Some(())
    }
}

/// The imports of one logical line of simple statements.
fn simple(code: &str, package: &str, out: &mut Vec<String>) -> Option<()> {
    // Nearly every line (a lexer's whole token table among them) holds no
    // `import` at all: one search, not a split and a look at each part.
    if IMPORT.find(code.as_bytes()).is_none() {
        return Some(());
    }
    for stmt in code.split(';') {
        let stmt = stmt.trim();
        let word = stmt
            .find(|c: char| !is_ident_char(c))
            .map_or(stmt, |end| &stmt[..end]);
        match word {
            "import" => {
                for part in stmt[6..].split(',') {
                    let name = alias_name(part)?;
                    out.push(name);
                }
            }
            "from" => {
                let rest = &stmt[4..];
                let at = import_keyword(rest)?;
                let module: String = rest[..at].chars().filter(|c| !c.is_whitespace()).collect();
                let level = module.chars().take_while(|&c| c == '.').count();
                let name = &module[level..];
                if !name.is_empty() && !is_dotted(name) {
                    return None;
                }
                let level = u32::try_from(level).ok()?;
                let base = absolute_module(package, level, (!name.is_empty()).then_some(name));
                let mut names = rest[at + "import".len()..].trim();
                if let Some(inner) = names.strip_prefix('(') {
                    names = inner.strip_suffix(')')?;
                }
                let mut any = false;
                for part in names.split(',') {
                    if part.trim().is_empty() {
                        continue;
                    }
                    any = true;
                    if part.trim() == "*" {
                        continue;
                    }
                    let imported = alias_name(part)?;
                    if imported.contains('.') {
                        return None;
                    }
                    out.push(if base.is_empty() {
                        imported
                    } else {
                        let mut dotted = String::with_capacity(base.len() + 1 + imported.len());
                        dotted.push_str(&base);
                        dotted.push('.');
                        dotted.push_str(&imported);
                        dotted
                    });
                }
                if !any {
                    return None;
                }
                out.push(base);
            }
            _ if has_import(stmt) => return None,
            _ => {}
        }
    }
    Some(())
}

/// Where the `import` keyword of a `from` statement's remainder starts.
fn import_keyword(rest: &str) -> Option<usize> {
    let bytes = rest.as_bytes();
    let mut from = 0;
    while let Some(found) = rest[from..].find("import") {
        let at = from + found;
        let before = at.checked_sub(1).map(|p| bytes[p]);
        let after = bytes.get(at + "import".len()).copied();
        let bounded = |c: Option<u8>| {
            c.is_none_or(|c| !(c == b'_' || c.is_ascii_alphanumeric() || c >= 0x80))
        };
        if bounded(before) && bounded(after) {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

/// The dotted name of `a.b as c` (whitespace around dots allowed).
fn alias_name(part: &str) -> Option<String> {
    let mut words = part.split_whitespace().peekable();
    let mut name = String::new();
    while let Some(word) = words.next() {
        if word == "as" {
            words.next()?;
            if words.next().is_some() {
                return None;
            }
            break;
        }
        name.push_str(word);
    }
    is_dotted(&name).then_some(name)
}

fn is_dotted(name: &str) -> bool {
    !name.is_empty()
        && name.split('.').all(|part| {
            part.chars().next().is_some_and(|c| !c.is_ascii_digit())
                && part.chars().all(is_ident_char)
        })
}

#[cfg(test)]
mod tests {
    use super::top_level_imports;

    /// The scan agrees with the syntax tree's walk.
    fn same(text: &str, package: &str) {
        let parsed = ruff_python_parser::parse_module(text).expect("valid");
        let expected = crate::session::imported_modules(&parsed.syntax().body, package);
        assert_eq!(top_level_imports(text, package), Some(expected), "{text}");
    }

    #[test]
    fn follows_the_walk_of_the_syntax_tree() {
        same("import os, a.b as c\nfrom .base import (\n    Mixin,  # comment\n    Other,\n)\nfrom .. import sibling\nfrom x \\\n    import y\n", "pkg.sub");
        same(
            "if X:\n    import a\nelif Y:\n    import b\nelse:\n    import c\nimport d\n",
            "",
        );
        same("try:\n    import a\nexcept ImportError:\n    import b\nelse:\n    import c\nfinally:\n    import e\nimport d\n", "p");
        same("def f():\n    import hidden\n    if x:\n        import hidden2\nclass A(B):\n    import inner\n    def g(self):\n        import no\n", "");
        same("with x:\n    import w\nfor i in y:\n    import f\nelse:\n    import g\nwhile 1:\n    import h\n", "");
        same("s = '''\nimport fake\n'''\nt = f\"{x!r:>{w}} {'a'}\"\nu = rb'\\'import'\nimport real  # import comment\n", "");
        // A backslash before a brace escapes nothing: the brace opens a
        // field. `\\N{...}` is a named character outside raw strings.
        same(
            "t = rf'\\{x}' + f'\\{y!r}' + f'\\N{BULLET} {z}' + rf'\\N{w}'\nimport a\n",
            "",
        );
        same("@deco(1)\ndef f(): pass\nclass C: pass\nx = 1; import y; from . import (z as q,)\nfrom .  . m import *\n", "a.b.c");
        same(
            "if True:\n    try:\n        from .x import y\n    except Exception:\n        pass\n",
            "pkg",
        );
    }

    #[test]
    fn strings_and_brackets_in_long_runs() {
        // Escaped quotes, brackets and `#` inside strings, blanks before a
        // line end, tabs and a bracket spanning lines: what the byte-class
        // runs and the jumps to a string's next quote or backslash skip.
        same(
            r#"x = ('(\'', "[#\"", '''
\''' ''')  	
import a
y = [r'\\', {
  'k': """]\" """}]	
from b import (c,
	d)
"#,
            "",
        );
        let text = "class L:\n    tokens = {'root': [(r'[\\'\"]', S), (\"}#\", T), ('(', Punctuation)]}  \n    name = 'l'\n";
        let scan = super::scan_module(text, "").expect("scanned");
        let start = u32::try_from(text.find('{').unwrap()).unwrap();
        let end = u32::try_from(text.find("]}").unwrap() + 2).unwrap();
        assert_eq!(scan.elidable, vec![(start, end)]);
    }

    #[test]
    fn only_a_whole_bracketed_value_is_elidable() {
        let text = "class C:\n    a = {'k': [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]}  # c\n    b = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)(x)\n    c = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15] + [16]\n    d = f(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17)\n    e = [\n        (1, 2), 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 'ü',\n    ]\n    g = {1: 2}\n";
        let scan = super::scan_module(text, "").expect("scanned");
        let range = |from: &str, to: &str| {
            let start = text.find(from).unwrap();
            let end = start + text[start..].find(to).unwrap() + to.len();
            (u32::try_from(start).unwrap(), u32::try_from(end).unwrap())
        };
        assert_eq!(
            scan.elidable,
            vec![range("{'k'", "15]}"), range("[\n", "\n    ]")]
        );
    }

    #[test]
    fn a_word_is_a_token_of_its_own() {
        use super::has_import;
        assert!(has_import("import x"));
        assert!(has_import("x = 1; import y"));
        assert!(has_import("reimport + import"));
        assert!(!has_import("reimport(important, _import, import2)"));
        assert!(!has_import(""));
        assert!(has_import("é import"));
        assert!(!has_import("éimport"));
    }

    #[test]
    fn declines_what_it_cannot_follow() {
        assert_eq!(top_level_imports("if x: import y\n", ""), None);
        assert_eq!(top_level_imports("pytest_plugins = ['a']\n", ""), None);
        assert_eq!(top_level_imports("x = __import__('y'); import\n", ""), None);
        // A table naming the package's own modules, which the syntax-tree
        // walk follows.
        assert_eq!(
            top_level_imports("LEXERS = {'X': ('reg.plugins.a', 'X')}\n", "reg.plugins"),
            None
        );
        assert!(top_level_imports("NAME = 'other.a'\n", "reg.plugins").is_some());
    }
}
