//! Names of a class body. Code written directly in a class body (a class
//! attribute's value, a method's decorators and defaults) sees the names
//! the class body bound before it, ahead of the module's: `cases = [(d1,
//! ...)]` after `d1 = {...}` in the class, then
//! `@pytest.mark.parametrize("d, m", cases)` on a method.

use ruff_python_ast::{self as ast, Stmt};
use ruff_text_size::{Ranged, TextRange};

use super::{Callable, Evaluator};
use crate::namespace::Binding;
use crate::value::PyValue;

impl<'a> Evaluator<'_, 'a> {
    /// The innermost class of module `module` whose body holds `at`.
    fn class_at(&self, module: usize, at: TextRange) -> Option<&'a ast::StmtClassDef> {
        let file: &'a crate::source::ParsedFile = self.project.module(module).file;
        let mut body: &'a [Stmt] = &file.ast.as_ref()?.body;
        let mut class = None;
        loop {
            // The statement of `body` that holds `at` (statements are in
            // source order).
            let i = body.partition_point(|s| s.range().end() <= at.start());
            let stmt = body.get(i).filter(|s| s.range().contains_range(at));
            match stmt {
                Some(Stmt::ClassDef(def)) => {
                    class = Some(def);
                    body = &def.body;
                }
                Some(
                    stmt @ (Stmt::If(_)
                    | Stmt::Try(_)
                    | Stmt::With(_)
                    | Stmt::For(_)
                    | Stmt::While(_)),
                ) => {
                    // Rare: a class under a compound statement.
                    let mut defs = Vec::new();
                    crate::project::class_defs(std::slice::from_ref(stmt), &mut defs);
                    return defs
                        .into_iter()
                        .filter(|d| d.body.iter().any(|s| s.range().contains_range(at)))
                        .min_by_key(|d| d.range.len())
                        .or(class);
                }
                // Module level, or a statement of the class body found.
                _ => return class,
            }
        }
    }

    /// The value of `name`, read at `at` with no local scope, when a class
    /// body around `at` binds it; `None` when none does (the module's name
    /// then).
    pub(super) fn class_name(&self, module: usize, name: &str, at: TextRange) -> Option<PyValue> {
        let class = self.class_at(module, at)?;
        let ns = self.project.class_ns(class);
        let binding = ns.get(name)?;
        let class_name = class.name.id.as_str();
        let unknown = |why: &str| {
            Some(PyValue::Unknown(format!(
                "`{name}` {why} in class `{class_name}`"
            )))
        };
        if ns.mutated.contains(name) {
            return unknown("is bound more than once or changed");
        }
        let (start, cond) = match binding {
            Binding::Value { expr, cond } => (expr.range().start(), *cond),
            Binding::Func { def, cond } => (def.range.start(), *cond),
            Binding::Class { def, cond } => (def.range.start(), *cond),
            _ => return unknown("is bound in a way proctor does not follow"),
        };
        if cond {
            return unknown("is bound under a condition");
        }
        if start >= at.start() {
            // Read before the class binds it: an earlier binding or the
            // module's, which proctor does not tell apart.
            return unknown("is bound only after it is read");
        }
        Some(match binding {
            Binding::Value { expr, .. } => self.expr(module, None, expr),
            Binding::Func { def, .. } => self.register(
                Callable::Function {
                    module,
                    def,
                    scope: None,
                },
                def.name.id.as_str().to_owned(),
            ),
            Binding::Class { def, .. } => PyValue::Named(def.name.id.as_str().into()),
            _ => return None,
        })
    }

    /// `expr` (a name, or attributes of one) when a class body around it
    /// binds its leftmost name.
    pub(super) fn class_base(&self, module: usize, expr: &'a ast::Expr) -> Option<PyValue> {
        match expr {
            ast::Expr::Name(n) => self.class_name(module, n.id.as_str(), n.range),
            ast::Expr::Attribute(a) => {
                let base = self.class_base(module, &a.value)?;
                Some(self.attribute_of(base, a.attr.id.as_str()))
            }
            _ => None,
        }
    }
}
