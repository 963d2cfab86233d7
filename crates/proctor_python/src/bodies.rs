//! Function bodies taken out of a source module's syntax tree once it is
//! parsed, and the whole tree parsed again the first time one is read.
//!
//! A source module (one the suite imports, not a test module or a
//! conftest) is parsed whole, so that a syntax error anywhere in it is
//! found as pytest's import would find it. But collection reads few of its
//! function bodies: those of the helpers a parameter list calls, of the
//! decorators it follows. Function bodies are four fifths of networkx's
//! source, and their trees, held until the session ends, were most of a
//! cold collect's peak memory. So the tree keeps every definition with its
//! signature, decorators and range, and drops its body (a body is never
//! empty in Python: an empty one is a dropped one); [`Stripped::body`]
//! answers a read of one from the whole tree, parsed again from the same
//! text the first time, then kept.
//!
//! Only bodies of definitions outside functions are dropped (module level,
//! class bodies and the blocks around them): a nested definition is in its
//! parent's body, which is read whole.

use std::sync::OnceLock;

use ruff_python_ast::{ModModule, Stmt, StmtFunctionDef};
use ruff_text_size::{Ranged, TextRange};

/// What a source module's tree lost to [`strip`], and how to get it back.
#[derive(Debug)]
pub(crate) struct Stripped {
    /// The text the first parse read (the file's, with the class attribute
    /// values of [`crate::source::Elided`] blanked): the second parse reads
    /// the same, so that its statements are the first one's.
    blanked: Option<Vec<(u32, u32)>>,
    /// The module-level names function bodies change in place
    /// ([`crate::eval::changed_by_functions`]), found before the bodies
    /// went: every module whose values are read asks.
    pub(crate) changed: Vec<String>,
    /// The whole tree, parsed on first use (`None` when the text does not
    /// parse again, which the first parse rules out).
    full: OnceLock<Option<ModModule>>,
}

/// Drops the bodies of the function definitions outside functions in
/// `ast`, after finding what [`Stripped`] keeps of them; `elide` are the
/// ranges the parse blanked. `None` when the module has no function.
pub(crate) fn strip(ast: &mut ModModule, elide: &[(u32, u32)]) -> Option<Stripped> {
    if !ast.body.iter().any(holds_function) {
        return None;
    }
    let changed = crate::eval::changed_by_functions(&ast.body);
    strip_body(&mut ast.body);
    Some(Stripped {
        blanked: (!elide.is_empty()).then(|| elide.to_vec()),
        changed,
        full: OnceLock::new(),
    })
}

impl Stripped {
    /// The body of `def`, a definition of the stripped tree of the module
    /// whose text is `text`: its own when it kept one, else the whole
    /// tree's (parsed now if it was not yet).
    pub(crate) fn body<'s>(&'s self, text: &str, def: &'s StmtFunctionDef) -> &'s [Stmt] {
        if !def.body.is_empty() {
            return &def.body;
        }
        self.full(text)
            .and_then(|full| find_def(&full.body, def.range()))
            .map_or(&def.body[..], |whole| &whole.body[..])
    }

    /// The whole tree of the module whose text is `text`, parsed now if it
    /// was not yet: its top-level statements are the stripped tree's, in
    /// the same order and with the same ranges.
    pub(crate) fn full(&self, text: &str) -> Option<&ModModule> {
        self.full
            .get_or_init(|| {
                let blanked;
                let text = match &self.blanked {
                    Some(elide) => {
                        blanked = crate::source::blank_ranges(text, elide)?;
                        blanked.as_str()
                    }
                    None => text,
                };
                ruff_python_parser::parse_module(text)
                    .ok()
                    .map(ruff_python_parser::Parsed::into_syntax)
            })
            .as_ref()
    }
}

/// Whether `stmt` is or holds a definition whose body was dropped.
pub(crate) fn holds_stripped(stmt: &Stmt) -> bool {
    if let Stmt::FunctionDef(def) = stmt {
        return def.body.is_empty();
    }
    let mut found = false;
    each_body(stmt, &mut |body| {
        found = found || body.iter().any(holds_stripped);
    });
    found
}

/// Whether `stmt` is or holds a definition [`strip`] would reach.
fn holds_function(stmt: &Stmt) -> bool {
    if matches!(stmt, Stmt::FunctionDef(_)) {
        return true;
    }
    let mut found = false;
    each_body(stmt, &mut |body| {
        found = found || body.iter().any(holds_function);
    });
    found
}

fn strip_body(body: &mut [Stmt]) {
    for stmt in body {
        if let Stmt::FunctionDef(def) = stmt {
            drop(std::mem::take(&mut def.body));
        } else {
            each_body_mut(stmt, &mut |inner| strip_body(inner));
        }
    }
}

/// The definition with `range` in `body`, searched where [`strip`] drops
/// bodies.
fn find_def(body: &[Stmt], range: TextRange) -> Option<&StmtFunctionDef> {
    // Statements are in source order: the one holding `range`.
    let i = body.partition_point(|s| s.range().end() <= range.start());
    let stmt = body.get(i).filter(|s| s.range().contains_range(range))?;
    if let Stmt::FunctionDef(def) = stmt {
        return (def.range == range).then_some(def);
    }
    let mut found = None;
    each_body(stmt, &mut |inner| {
        if found.is_none() {
            found = find_def(inner, range);
        }
    });
    found
}

/// Calls `f` with each statement list of a class or compound statement
/// (not a function's body).
fn each_body<'t>(stmt: &'t Stmt, f: &mut dyn FnMut(&'t [Stmt])) {
    match stmt {
        Stmt::ClassDef(class) => f(&class.body),
        Stmt::If(s) => {
            f(&s.body);
            for clause in &s.elif_else_clauses {
                f(&clause.body);
            }
        }
        Stmt::Try(s) => {
            f(&s.body);
            for handler in &s.handlers {
                let ruff_python_ast::ExceptHandler::ExceptHandler(h) = handler;
                f(&h.body);
            }
            f(&s.orelse);
            f(&s.finalbody);
        }
        Stmt::With(s) => f(&s.body),
        Stmt::For(s) => {
            f(&s.body);
            f(&s.orelse);
        }
        Stmt::While(s) => {
            f(&s.body);
            f(&s.orelse);
        }
        Stmt::Match(s) => {
            for case in &s.cases {
                f(&case.body);
            }
        }
        _ => {}
    }
}

/// [`each_body`], for changing the lists.
fn each_body_mut(stmt: &mut Stmt, f: &mut dyn FnMut(&mut [Stmt])) {
    match stmt {
        Stmt::ClassDef(class) => f(&mut class.body),
        Stmt::If(s) => {
            f(&mut s.body);
            for clause in &mut s.elif_else_clauses {
                f(&mut clause.body);
            }
        }
        Stmt::Try(s) => {
            f(&mut s.body);
            for handler in &mut s.handlers {
                let ruff_python_ast::ExceptHandler::ExceptHandler(h) = handler;
                f(&mut h.body);
            }
            f(&mut s.orelse);
            f(&mut s.finalbody);
        }
        Stmt::With(s) => f(&mut s.body),
        Stmt::For(s) => {
            f(&mut s.body);
            f(&mut s.orelse);
        }
        Stmt::While(s) => {
            f(&mut s.body);
            f(&mut s.orelse);
        }
        Stmt::Match(s) => {
            for case in &mut s.cases {
                f(&mut case.body);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use ruff_python_ast::{Stmt, StmtFunctionDef};

    use super::each_body;
    use crate::source::ParsedFile;

    /// Definitions everywhere [`super::strip`] reaches, and some it must
    /// leave to their parent's body.
    const MODULE: &str = r#"import os

REG = []


def register(f):
    """Adds `f`."""
    REG.append(f)
    return f


class Base:
    tokens = {
        'root': [('a', 1), ('b', 2), ('c', 3), ('d', 4), ('e', 5), ('f', 6)],
    }

    def method(self):
        def inner():
            return 1
        return inner()

    class Nested:
        @staticmethod
        def deep(x=1):
            yield x


if os.name == "nt":
    def chosen():
        return "nt"
else:
    def chosen():
        return "posix"

try:
    import json
except ImportError:
    def dumps(value):
        return str(value)
finally:
    def closing():
        pass

for _ in range(1):
    def in_loop():
        return [n for n in range(3)]

match os.sep:
    case "/":
        def slash():
            return "/"
"#;

    /// Every function definition outside functions, in source order.
    fn defs(body: &[Stmt]) -> Vec<&StmtFunctionDef> {
        let mut out = Vec::new();
        for stmt in body {
            if let Stmt::FunctionDef(def) = stmt {
                out.push(def);
            } else {
                each_body(stmt, &mut |inner| out.extend(defs(inner)));
            }
        }
        out
    }

    /// `MODULE` parsed from `dir`'s `m.py` (a stripped file's text is let
    /// go and read again from there).
    fn parse(dir: &Path, strip: bool, elide: &[(u32, u32)]) -> ParsedFile {
        let path = dir.join("m.py");
        std::fs::write(&path, MODULE).expect("written");
        let bytes = Ok(MODULE.as_bytes().to_vec());
        let strip = strip.then_some(u64::MAX);
        ParsedFile::parse_eliding(&path, "m.py".into(), bytes, elide, strip)
    }

    #[test]
    fn a_stripped_tree_reads_every_body_as_the_whole_tree_has_it() {
        let scan = crate::import_scan::scan_module(MODULE, "").expect("scanned");
        assert_eq!(scan.elidable.len(), 1, "`tokens` is left out of the parse");
        let dir = tempfile::tempdir().expect("temporary directory");
        for elide in [&scan.elidable[..], &[]] {
            let whole = parse(dir.path(), false, elide);
            let stripped = parse(dir.path(), true, elide);
            assert!(whole.bodies.is_none());
            assert!(stripped.source.text.is_empty(), "the text is let go");
            assert!(!stripped.text_changed());
            let bodies = stripped.bodies.as_ref().expect("bodies dropped");
            let whole_defs = defs(&whole.ast.as_ref().expect("parses").body);
            let stripped_defs = defs(&stripped.ast.as_ref().expect("parses").body);
            assert_eq!(whole_defs.len(), 9);
            assert_eq!(whole_defs.len(), stripped_defs.len());
            for (w, s) in whole_defs.iter().zip(&stripped_defs) {
                assert_eq!(w.range, s.range);
                assert!(s.body.is_empty(), "`{}` keeps its body", s.name);
                // Read back: the same statements (compared by their text and
                // shape), not the empty list.
                assert_eq!(format!("{:?}", w.body), format!("{:?}", stripped.body(s)));
            }
            // What function bodies change was found before they went.
            assert_eq!(bodies.changed, vec!["REG".to_string()]);
            assert_eq!(
                bodies.changed,
                crate::eval::changed_by_functions(&whole.ast.as_ref().expect("parses").body)
            );
            // The whole tree's top-level statements are the stripped tree's.
            let full = bodies.full(stripped.text()).expect("parses again");
            let top = &stripped.ast.as_ref().expect("parses").body;
            assert_eq!(full.body.len(), top.len());
            for (f, s) in full.body.iter().zip(top) {
                use ruff_text_size::Ranged;
                assert_eq!(f.range(), s.range());
                assert_eq!(
                    super::holds_stripped(s),
                    !defs(std::slice::from_ref(s)).is_empty()
                );
                assert!(!super::holds_stripped(f));
            }
            assert_eq!(stripped.text(), MODULE, "read again");
            assert!(!stripped.text_changed());
        }
    }

    #[test]
    fn a_let_go_text_read_again_from_a_changed_file_says_so() {
        let dir = tempfile::tempdir().expect("temporary directory");
        let file = parse(dir.path(), true, &[]);
        std::fs::write(dir.path().join("m.py"), MODULE.replace("REG", "GER")).expect("written");
        assert!(!file.text_changed());
        assert_ne!(file.text(), MODULE);
        assert!(file.text_changed());
    }

    #[test]
    fn a_syntax_error_in_a_body_is_reported_and_a_module_without_functions_keeps_its_tree() {
        let broken = "def f():\n    return (1,\n\nX = 1\n";
        let file = ParsedFile::parse_eliding(
            Path::new("m.py"),
            "m.py".into(),
            Ok(broken.as_bytes().to_vec()),
            &[],
            Some(u64::MAX),
        );
        let error = file.error.expect("the body's error is found");
        assert!(error.message.starts_with("SyntaxError"), "{error:?}");
        let plain = ParsedFile::parse_eliding(
            Path::new("m.py"),
            "m.py".into(),
            Ok(b"X = [1, 2]\nclass C:\n    y = 2\n".to_vec()),
            &[],
            Some(u64::MAX),
        );
        assert!(plain.error.is_none());
        assert!(plain.bodies.is_none());
    }
}
