//! Module-level names that module code builds: `CASES = []` followed by
//! `CASES.append(...)` in a loop, `CASES += [...]`, a name assigned in both
//! branches of an `if`. The module's top-level statements that mention the
//! name are run in order (the others cannot change it), and the name's
//! value at the end is the one pytest sees when it collects the module.

use ruff_python_ast::visitor::{walk_expr, Visitor};
use ruff_python_ast::{Expr, Stmt};

use super::{Evaluator, Scope};
use crate::value::PyValue;

/// Whether `stmt` mentions `name` anywhere.
fn mentions(stmt: &Stmt, name: &str) -> bool {
    struct Finder<'n> {
        name: &'n str,
        found: bool,
    }
    impl<'b> Visitor<'b> for Finder<'_> {
        fn visit_expr(&mut self, expr: &'b Expr) {
            if self.found {
                return;
            }
            if let Expr::Name(n) = expr {
                if n.id.as_str() == self.name {
                    self.found = true;
                    return;
                }
            }
            walk_expr(self, expr);
        }
    }
    let mut finder = Finder { name, found: false };
    finder.visit_stmt(stmt);
    finder.found
}

impl<'a> Evaluator<'_, 'a> {
    /// The value module `module`'s code gives `name`.
    pub(super) fn module_value(&self, module: usize, name: &str) -> PyValue {
        let key = (module, name.to_owned());
        if let Some(value) = self.module_values.borrow().get(&key) {
            return value.clone();
        }
        if self.in_progress.borrow().contains(&key) {
            return PyValue::Unknown(format!("`{name}` is defined through itself"));
        }
        self.in_progress.borrow_mut().push(key.clone());
        let value = self.run_module_code(module, name);
        self.in_progress.borrow_mut().pop();
        self.module_values.borrow_mut().insert(key, value.clone());
        value
    }

    fn run_module_code(&self, module: usize, name: &str) -> PyValue {
        let file: &'a crate::source::ParsedFile = self.project.module(module).file;
        let Some(ast) = &file.ast else {
            return PyValue::Unknown(format!("`{name}` is in a module that does not parse"));
        };
        let body: &'a [Stmt] = &ast.body;
        let scope = Scope::child(None);
        for (i, stmt) in body.iter().enumerate() {
            // Definitions are the name table's: running them here does
            // nothing, whatever their bodies mention.
            if matches!(stmt, Stmt::FunctionDef(_) | Stmt::ClassDef(_)) {
                continue;
            }
            // A block holding definitions whose bodies a source module's
            // tree dropped is read whole (the whole tree's statement `i`).
            let whole = file
                .bodies
                .as_ref()
                .filter(|_| crate::bodies::holds_stripped(stmt))
                .and_then(|stripped| stripped.full(file.text()))
                .and_then(|full| full.body.get(i));
            if !mentions(whole.unwrap_or(stmt), name) {
                continue;
            }
            if let Err(reason) = self.block(module, &scope, std::slice::from_ref(stmt), None, true)
            {
                return PyValue::Unknown(format!(
                    "`{name}` is built by module code proctor cannot follow: {reason}"
                ));
            }
        }
        scope.get(name).unwrap_or_else(|| {
            PyValue::Unknown(format!(
                "`{name}` is bound in a way proctor does not follow"
            ))
        })
    }
}
