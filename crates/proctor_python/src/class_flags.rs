//! Class flags that switch inherited tests off, as the Transformers mixins
//! do: a test whose body starts with
//!
//! ```python
//! if not self.test_pruning:
//!     self.skipTest(reason="test_pruning is set to False")
//! ```
//!
//! (or `pytest.skip(...)`) is skipped when it runs on a class whose MRO sets
//! the flag false. The static reading is for `plan` and `select`; `proctor
//! run` leaves the skip to pytest, which takes it when the test runs.

use ruff_python_ast::{self as ast, Expr, Stmt, UnaryOp};

use crate::namespace::Binding;
use crate::project::Project;
use crate::value::PyValue;

/// Why the test `def` skips itself on the class whose suite MRO is `mro`
/// (most derived first): its reason, the flag and the class that sets it.
/// `None` when the body does not start with the pattern, the flag is true,
/// is not known statically, or may be set on the instance
/// (`self.<flag> = ...` in a method of the MRO).
pub(crate) fn flag_skip<'a>(
    project: &Project<'_, 'a>,
    module: usize,
    def: &'a ast::StmtFunctionDef,
    mro: &[(usize, &'a ast::StmtClassDef)],
) -> Option<String> {
    let first = project
        .body(module, def)
        .iter()
        .find(|stmt| !is_docstring(stmt))?;
    let Stmt::If(stmt_if) = first else {
        return None;
    };
    let Expr::UnaryOp(not) = stmt_if.test.as_ref() else {
        return None;
    };
    if not.op != UnaryOp::Not {
        return None;
    }
    let flag = self_attribute(&not.operand)?;
    let reason = skip_reason(project, module, stmt_if.body.first()?)?;
    let (cm, class) = mro
        .iter()
        .find(|(_, cdef)| project.class_ns(cdef).get(flag).is_some())?;
    let Some(Binding::Value { expr, cond: false }) = project.class_ns(class).get(flag) else {
        return None;
    };
    if crate::eval::truth(&project.eval(*cm, expr)).ok()? {
        return None;
    }
    let assigned = mro.iter().any(|(m, cdef)| {
        let text = project.module(*m).file.slice(*cdef);
        text.contains(&format!("self.{flag} =")) || text.contains(&format!("self.{flag}="))
    });
    if assigned {
        return None;
    }
    Some(format!(
        "{reason} (`{flag}` is false in `{}`)",
        class.name.id.as_str()
    ))
}

fn is_docstring(stmt: &Stmt) -> bool {
    matches!(stmt, Stmt::Expr(e) if matches!(e.value.as_ref(), Expr::StringLiteral(_)))
}

/// `flag` of `self.flag`.
fn self_attribute(expr: &Expr) -> Option<&str> {
    let Expr::Attribute(attr) = expr else {
        return None;
    };
    let Expr::Name(name) = attr.value.as_ref() else {
        return None;
    };
    (name.id.as_str() == "self").then_some(attr.attr.id.as_str())
}

/// The reason of `self.skipTest(...)` or `pytest.skip(...)`, as pytest
/// reports it: the first argument or `reason=`, evaluated (a reason it
/// cannot evaluate is shown as its source).
fn skip_reason<'a>(project: &Project<'_, 'a>, module: usize, stmt: &'a Stmt) -> Option<String> {
    let Stmt::Expr(expr) = stmt else {
        return None;
    };
    let Expr::Call(call) = expr.value.as_ref() else {
        return None;
    };
    let is_skip_test = self_attribute(&call.func) == Some("skipTest");
    let is_pytest_skip = !is_skip_test
        && project
            .external_path(module, &call.func)
            .is_some_and(|path| path == "pytest.skip" || path == "_pytest.outcomes.skip");
    if !is_skip_test && !is_pytest_skip {
        return None;
    }
    let argument = call.arguments.args.first().or_else(|| {
        call.arguments
            .keywords
            .iter()
            .find(|k| k.arg.as_ref().is_some_and(|a| a.id.as_str() == "reason"))
            .map(|k| &k.value)
    });
    Some(match argument {
        None => String::new(),
        Some(arg) => match project.eval(module, arg) {
            PyValue::Str(text) => text.to_string(),
            _ => project.module(module).file.slice(arg).to_owned(),
        },
    })
}
