//! The marking patterns of a conftest's `pytest_collection_modifyitems`
//! hook that can be read without running it: `item.add_marker(...)` under
//! conditions on the item's path, on its other markers, on the absence of
//! a family of markers, on an environment variable, or behind an early
//! `return` when a command-line flag is absent. `proctor init` turns them
//! into path rules, implications, axis defaults and gates; every other
//! `add_marker` call is reported as not recognised, with its line.

use std::collections::BTreeMap;
use std::path::Path;

use ruff_python_ast::{self as ast, BoolOp, CmpOp, Expr, Stmt, UnaryOp};
use ruff_text_size::Ranged;

use crate::source::ParsedFile;

/// One condition of an `if` around `item.add_marker(...)`; a mark applies
/// when all of its conditions hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HookCondition {
    /// `"integration" in item.path.parts`, `... in str(item.fspath)`,
    /// `... in item.nodeid`: a part of the item's path.
    PathContains(String),
    /// `item.get_closest_marker("x")`, `"x" in item.keywords`, `"x" in
    /// names` (a set of the item's marker names).
    HasMarker(String),
    /// `not item.get_closest_marker("x")`, `"x" not in item.keywords`.
    LacksMarker(String),
    /// `not names & TIERS`, `names.isdisjoint(TIERS)`: none of these
    /// markers.
    NoneOf(Vec<String>),
    /// `os.environ.get("CICD") == "1"` (also `os.getenv`, `os.environ[...]`).
    Env {
        /// The variable.
        var: String,
        /// The value it is compared with.
        value: String,
    },
    /// The hook returned early when this flag was given
    /// (`if config.getoption("--live"): return`).
    FlagAbsent(String),
}

/// What a recognised `add_marker` call adds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HookMarkKind {
    /// `pytest.mark.NAME`.
    Marker(String),
    /// `pytest.mark.skip(reason=...)`, possibly through a variable.
    Skip {
        /// The skip's reason, when it is a literal.
        reason: Option<String>,
    },
}

/// One `item.add_marker(...)` call that was read, with its conditions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookMark {
    /// 1-based line of the call.
    pub line: usize,
    /// What it adds.
    pub mark: HookMarkKind,
    /// When it adds it (all must hold; none: always).
    pub conditions: Vec<HookCondition>,
}

/// An `add_marker` call (or hook) that was not recognised.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookUnknown {
    /// 1-based line.
    pub line: usize,
    /// Why: the condition or call that was not understood.
    pub why: String,
}

/// What one conftest's `pytest_collection_modifyitems` does, as far as
/// it can be read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConftestHooks {
    /// Whether the conftest defines `pytest_collection_modifyitems`.
    pub has_hook: bool,
    /// The recognised marks.
    pub marks: Vec<HookMark>,
    /// What was not recognised.
    pub unknown: Vec<HookUnknown>,
    /// A file that could not be read or parsed: why.
    pub error: Option<String>,
}

/// Reads the `pytest_collection_modifyitems` hook of the conftest at
/// `path` (`rel` is its name in messages).
#[must_use]
pub fn read_conftest_hooks(path: &Path, rel: &str) -> ConftestHooks {
    let file = ParsedFile::load(path, rel.to_owned(), 16 * 1024 * 1024);
    let mut out = ConftestHooks::default();
    if let Some(error) = &file.error {
        out.error = Some(error.message.clone());
        return out;
    }
    let Some(module) = &file.ast else {
        return out;
    };
    let mut reader = Reader {
        file: &file,
        sets: BTreeMap::new(),
        out: &mut out,
    };
    for stmt in &module.body {
        if let Stmt::Assign(assign) = stmt {
            if let ([Expr::Name(name)], Some(values)) =
                (&assign.targets[..], string_collection(&assign.value))
            {
                reader.sets.insert(name.id.to_string(), values);
            }
        }
    }
    for stmt in &module.body {
        if let Stmt::FunctionDef(def) = stmt {
            if def.name.as_str() == "pytest_collection_modifyitems" {
                reader.out.has_hook = true;
                let mut scope = Scope::default();
                reader.block(&def.body, &mut Vec::new(), &mut scope);
            }
        }
    }
    out
}

/// The names a hook body binds that conditions refer to.
#[derive(Debug, Default, Clone)]
struct Scope {
    /// Variables holding the item's marker names (`{m.name for m in
    /// item.iter_markers()}`).
    names: Vec<String>,
    /// Variables holding the item's path (`parts = item.path.parts`).
    paths: Vec<String>,
    /// Variables holding a skip mark, with its reason.
    skips: BTreeMap<String, Option<String>>,
}

struct Reader<'a> {
    file: &'a ParsedFile,
    /// Module-level sets, lists and tuples of strings.
    sets: BTreeMap<String, Vec<String>>,
    out: &'a mut ConftestHooks,
}

impl Reader<'_> {
    fn line(&self, node: &impl Ranged) -> usize {
        self.file.line_of(node.start().to_u32())
    }

    /// The source of `node` on one line, spaces collapsed.
    fn text(&self, node: &impl Ranged) -> String {
        self.file
            .slice(node)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn block(&mut self, body: &[Stmt], conditions: &mut Vec<HookCondition>, scope: &mut Scope) {
        for stmt in body {
            match stmt {
                Stmt::For(stmt_for) => {
                    self.block(&stmt_for.body, conditions, scope);
                }
                Stmt::Assign(assign) => {
                    if let [Expr::Name(name)] = &assign.targets[..] {
                        let value = self.text(&*assign.value);
                        if compact(&value).contains(".iter_markers()") && value.contains(".name") {
                            scope.names.push(name.id.to_string());
                        } else if is_path_expr(&compact(&value)) {
                            scope.paths.push(name.id.to_string());
                        } else if let Some(SkipMark(reason)) = skip_mark(&assign.value) {
                            scope.skips.insert(name.id.to_string(), reason);
                        }
                    }
                }
                Stmt::If(stmt_if) => {
                    // `if config.getoption("--live"): return`
                    if stmt_if.elif_else_clauses.is_empty()
                        && matches!(&stmt_if.body[..], [Stmt::Return(_)])
                    {
                        if let Some(flag) = getoption(&stmt_if.test) {
                            conditions.push(HookCondition::FlagAbsent(flag));
                            continue;
                        }
                    }
                    match self.condition(&stmt_if.test, scope) {
                        Ok(parts) => {
                            let depth = conditions.len();
                            conditions.extend(parts);
                            self.block(&stmt_if.body, conditions, scope);
                            conditions.truncate(depth);
                        }
                        Err(why) => self.unknown_marks(&stmt_if.body, &why),
                    }
                    for clause in &stmt_if.elif_else_clauses {
                        self.unknown_marks(
                            &clause.body,
                            &format!("the `elif`/`else` of `if {}`", self.text(&*stmt_if.test)),
                        );
                    }
                }
                Stmt::Expr(expr) => self.call(&expr.value, conditions, scope),
                other => {
                    let text = self.text(other);
                    if text.contains("add_marker(") {
                        self.out.unknown.push(HookUnknown {
                            line: self.line(other),
                            why: format!("`{}` is not a plain `if` or `for`", first_line(&text)),
                        });
                    }
                }
            }
        }
    }

    /// Every `add_marker` in `body`, reported as not recognised.
    fn unknown_marks(&mut self, body: &[Stmt], why: &str) {
        for stmt in body {
            let text = self.text(stmt);
            if text.contains("add_marker(") {
                self.out.unknown.push(HookUnknown {
                    line: self.line(stmt),
                    why: format!("a mark under {why}"),
                });
            }
        }
    }

    fn call(&mut self, expr: &Expr, conditions: &[HookCondition], scope: &Scope) {
        let Expr::Call(call) = expr else { return };
        let Expr::Attribute(attr) = &*call.func else {
            return;
        };
        if attr.attr.as_str() != "add_marker" {
            return;
        }
        let line = self.line(expr);
        let Some(arg) = call.arguments.args.first() else {
            return;
        };
        let mark = if let Some(SkipMark(reason)) = skip_mark(arg) {
            Some(HookMarkKind::Skip { reason })
        } else if let Expr::Name(name) = arg {
            scope
                .skips
                .get(name.id.as_str())
                .map(|reason| HookMarkKind::Skip {
                    reason: reason.clone(),
                })
        } else {
            mark_name(arg).map(HookMarkKind::Marker)
        };
        match mark {
            Some(mark) => self.out.marks.push(HookMark {
                line,
                mark,
                conditions: conditions.to_vec(),
            }),
            None => self.out.unknown.push(HookUnknown {
                line,
                why: format!(
                    "`{}` adds a mark that is not `pytest.mark.NAME`",
                    self.text(expr)
                ),
            }),
        }
    }

    /// `test` as a conjunction of recognised conditions.
    fn condition(&self, test: &Expr, scope: &Scope) -> Result<Vec<HookCondition>, String> {
        if let Expr::BoolOp(bool_op) = test {
            if bool_op.op == BoolOp::And {
                let mut out = Vec::new();
                for value in &bool_op.values {
                    out.extend(self.condition(value, scope)?);
                }
                return Ok(out);
            }
        }
        self.single(test, scope)
            .map(|c| vec![c])
            .ok_or_else(|| format!("`if {}`", self.text(test)))
    }

    fn single(&self, test: &Expr, scope: &Scope) -> Option<HookCondition> {
        match test {
            Expr::Compare(compare) if compare.ops.len() == 1 => {
                let left = &compare.left;
                let right = &compare.comparators[0];
                match compare.ops[0] {
                    op @ (CmpOp::In | CmpOp::NotIn) => {
                        let needle = string(left)?;
                        let hay = self.text(right);
                        let negated = op == CmpOp::NotIn;
                        if (is_path_expr(&compact(&hay)) || scope.paths.contains(&hay)) && !negated
                        {
                            return Some(HookCondition::PathContains(needle));
                        }
                        let markers = hay.ends_with(".keywords")
                            || scope.names.contains(&hay)
                            || compact(&hay).contains(".iter_markers()");
                        match (markers, negated) {
                            (false, _) => None,
                            (true, true) => Some(HookCondition::LacksMarker(needle)),
                            (true, false) => Some(HookCondition::HasMarker(needle)),
                        }
                    }
                    CmpOp::Eq => {
                        let (var, value) = match (env_read(left), string(right)) {
                            (Some(var), Some(value)) => (var, value),
                            _ => (env_read(right)?, string(left)?),
                        };
                        Some(HookCondition::Env { var, value })
                    }
                    _ => None,
                }
            }
            Expr::Call(call) => {
                let func = self.text(&*call.func);
                if func.ends_with(".get_closest_marker") {
                    return Some(HookCondition::HasMarker(string(
                        call.arguments.args.first()?,
                    )?));
                }
                if func.ends_with(".isdisjoint") {
                    return self.none_of(call.arguments.args.first()?);
                }
                None
            }
            Expr::UnaryOp(unary) if unary.op == UnaryOp::Not => match &*unary.operand {
                Expr::Call(call) if self.text(&*call.func).ends_with(".get_closest_marker") => {
                    Some(HookCondition::LacksMarker(string(
                        call.arguments.args.first()?,
                    )?))
                }
                Expr::BinOp(bin) if bin.op == ast::Operator::BitAnd => {
                    let (l, r) = (self.text(&*bin.left), self.text(&*bin.right));
                    if scope.names.contains(&l) {
                        self.none_of(&bin.right)
                    } else if scope.names.contains(&r) {
                        self.none_of(&bin.left)
                    } else {
                        None
                    }
                }
                Expr::Compare(_) => match self.single(&unary.operand, scope)? {
                    HookCondition::HasMarker(m) => Some(HookCondition::LacksMarker(m)),
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        }
    }

    /// A set of marker names: a literal, or a module-level name bound to one.
    fn none_of(&self, expr: &Expr) -> Option<HookCondition> {
        let names = match expr {
            Expr::Name(name) => self.sets.get(name.id.as_str()).cloned(),
            other => string_collection(other),
        }?;
        Some(HookCondition::NoneOf(names))
    }
}

/// Whether `text` (compacted) is the item's path in one of pytest's
/// spellings.
fn is_path_expr(text: &str) -> bool {
    matches!(
        text,
        "item.path.parts"
            | "item.fspath.parts"
            | "str(item.fspath)"
            | "str(item.path)"
            | "item.nodeid"
            | "item.fspath.strpath"
            | "item.location[0]"
            | "item.path.as_posix()"
            | "item.fspath.dirname"
            | "str(item.path.parent)"
            | "item.path.parent.parts"
    )
}

/// `config.getoption("--live")` (or `config.option.live`): the flag.
fn getoption(test: &Expr) -> Option<String> {
    let Expr::Call(call) = test else { return None };
    let Expr::Attribute(attr) = &*call.func else {
        return None;
    };
    (attr.attr.as_str() == "getoption")
        .then(|| string(call.arguments.args.first()?))
        .flatten()
        .filter(|flag| flag.starts_with('-'))
}

/// `os.environ.get("X")`, `os.getenv("X")`, `os.environ["X"]`: `X`.
fn env_read(expr: &Expr) -> Option<String> {
    match expr {
        Expr::Call(call) => {
            let Expr::Attribute(attr) = &*call.func else {
                return None;
            };
            let on = dotted(&attr.value).unwrap_or_default();
            let getter = (attr.attr.as_str() == "get" && on.ends_with("environ"))
                || (attr.attr.as_str() == "getenv" && on == "os");
            getter
                .then(|| string(call.arguments.args.first()?))
                .flatten()
        }
        Expr::Subscript(sub) if dotted(&sub.value)?.ends_with("environ") => string(&sub.slice),
        _ => None,
    }
}

/// A `pytest.mark.skip(...)` call, with its literal reason (`reason=` or
/// the first argument) if it has one.
struct SkipMark(Option<String>);

/// `expr` as a `pytest.mark.skip(...)` call.
fn skip_mark(expr: &Expr) -> Option<SkipMark> {
    let Expr::Call(call) = expr else { return None };
    if dotted(&call.func)?.rsplit('.').take(2).collect::<Vec<_>>() != ["skip", "mark"] {
        return None;
    }
    let reason = call
        .arguments
        .find_argument_value("reason", 0)
        .and_then(string);
    Some(SkipMark(reason))
}

/// `pytest.mark.NAME` or `pytest.mark.NAME(...)`: `NAME`.
fn mark_name(expr: &Expr) -> Option<String> {
    let target = match expr {
        Expr::Call(call) => &*call.func,
        other => other,
    };
    let path = dotted(target)?;
    let mut parts = path.rsplit('.');
    let name = parts.next()?;
    (parts.next() == Some("mark")).then(|| name.to_owned())
}

/// `a.b.c` for a chain of names and attributes.
fn dotted(expr: &Expr) -> Option<String> {
    match expr {
        Expr::Name(name) => Some(name.id.to_string()),
        Expr::Attribute(attr) => Some(format!("{}.{}", dotted(&attr.value)?, attr.attr.as_str())),
        _ => None,
    }
}

fn string(expr: &Expr) -> Option<String> {
    match expr {
        Expr::StringLiteral(s) => Some(s.value.to_str().to_owned()),
        _ => None,
    }
}

/// The strings of a set, list or tuple literal of strings only.
fn string_collection(expr: &Expr) -> Option<Vec<String>> {
    let elts = match expr {
        Expr::Set(set) => &set.elts[..],
        Expr::List(list) => &list.elts[..],
        Expr::Tuple(tuple) => &tuple.elts[..],
        Expr::Call(call)
            if dotted(&call.func)
                .as_deref()
                .is_some_and(|f| f == "frozenset" || f == "set") =>
        {
            return string_collection(call.arguments.args.first()?);
        }
        _ => return None,
    };
    let mut out: Vec<String> = elts.iter().map(string).collect::<Option<_>>()?;
    out.sort();
    out.dedup();
    Some(out)
}

/// `text` without whitespace, for comparing spellings.
fn compact(text: &str) -> String {
    text.chars().filter(|c| !c.is_whitespace()).collect()
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(source: &str) -> ConftestHooks {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("conftest.py");
        std::fs::write(&path, source).unwrap();
        read_conftest_hooks(&path, "conftest.py")
    }

    #[test]
    fn a_mark_keyed_by_path_by_marker_and_by_absence() {
        let hooks = read(
            r#"
import os
import pytest

TIERS = {"unit", "integration", "e2e"}

def pytest_collection_modifyitems(config, items):
    for item in items:
        names = {m.name for m in item.iter_markers()}
        parts = item.path.parts
        if "integration" in parts:
            item.add_marker(pytest.mark.integration)
        if item.get_closest_marker("credentialed") and not item.get_closest_marker("live"):
            item.add_marker(pytest.mark.live)
        if not names & TIERS:
            item.add_marker(pytest.mark.unit)
        if "qualitative" in names and os.environ.get("CICD") == "1":
            item.add_marker(pytest.mark.skip(reason="no qualitative in CI"))
        item.add_marker(pytest.mark.always)
"#,
        );
        assert!(hooks.has_hook);
        assert!(hooks.unknown.is_empty(), "{:?}", hooks.unknown);
        let got: Vec<(HookMarkKind, Vec<HookCondition>)> = hooks
            .marks
            .into_iter()
            .map(|m| (m.mark, m.conditions))
            .collect();
        let marker = |n: &str| HookMarkKind::Marker(n.to_owned());
        assert_eq!(
            got,
            vec![
                (
                    marker("integration"),
                    vec![HookCondition::PathContains("integration".into())]
                ),
                (
                    marker("live"),
                    vec![
                        HookCondition::HasMarker("credentialed".into()),
                        HookCondition::LacksMarker("live".into())
                    ]
                ),
                (
                    marker("unit"),
                    vec![HookCondition::NoneOf(vec![
                        "e2e".into(),
                        "integration".into(),
                        "unit".into()
                    ])]
                ),
                (
                    HookMarkKind::Skip {
                        reason: Some("no qualitative in CI".into())
                    },
                    vec![
                        HookCondition::HasMarker("qualitative".into()),
                        HookCondition::Env {
                            var: "CICD".into(),
                            value: "1".into()
                        }
                    ]
                ),
                (marker("always"), vec![]),
            ]
        );
    }

    #[test]
    fn an_early_return_on_a_flag_and_a_skip_through_a_variable() {
        let hooks = read(
            r#"
import pytest

def pytest_collection_modifyitems(config, items):
    if config.getoption("--live"):
        return
    skip = pytest.mark.skip(reason="pass --live")
    for item in items:
        if "live" in item.keywords:
            item.add_marker(skip)
"#,
        );
        assert_eq!(
            hooks.marks,
            vec![HookMark {
                line: 10,
                mark: HookMarkKind::Skip {
                    reason: Some("pass --live".into())
                },
                conditions: vec![
                    HookCondition::FlagAbsent("--live".into()),
                    HookCondition::HasMarker("live".into())
                ],
            }]
        );
    }

    #[test]
    fn a_condition_it_cannot_read_is_reported_with_its_line() {
        let hooks = read(
            r#"
import pytest

def pytest_collection_modifyitems(config, items):
    up = probe()
    for item in items:
        if "ollama" in item.keywords and not up:
            item.add_marker(pytest.mark.skip(reason="down"))
        else:
            item.add_marker(pytest.mark.x)
"#,
        );
        assert!(hooks.marks.is_empty());
        assert_eq!(hooks.unknown.len(), 2);
        assert_eq!(hooks.unknown[0].line, 8);
        assert!(
            hooks.unknown[0].why.contains("not up"),
            "{:?}",
            hooks.unknown
        );
    }

    #[test]
    fn a_file_that_does_not_parse_is_an_error_not_a_panic() {
        let hooks = read("def pytest_collection_modifyitems(:\n");
        assert!(hooks.error.is_some());
        assert!(!hooks.has_hook);
    }
}
