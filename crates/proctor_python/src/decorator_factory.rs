//! Decorator factories of the suite that parametrize the test they
//! decorate:
//!
//! ```python
//! def mark_dualiter(parameter, factory):
//!     def decorator(f):
//!         return pytest.mark.parametrize(
//!             parameter, [lambda: factory(), lambda: make_aiter(factory())]
//!         )(f)
//!     return decorator
//!
//! @mark_dualiter("foo", lambda: range(10))
//! def test_first(foo): ...
//! ```
//!
//! The mark the factory applies is read from its body, with the factory's
//! parameters replaced by the arguments of the decorating call. Only that
//! exact shape is followed, and only when the mark's arguments read no
//! other name the factory binds (a lambda's body is not run at
//! collection, so what it reads does not matter); anything else stays
//! dynamic.

use ruff_python_ast::{self as ast, Expr, Stmt};
use ruff_text_size::Ranged;

use crate::project::{Entity, Project, RawMark};

/// The `parametrize` mark that `decorator` (a call of a decorator factory
/// of the suite, written in `module`) applies, when its body has the shape
/// above.
pub(crate) fn factory_mark<'a>(
    project: &Project<'_, 'a>,
    module: usize,
    decorator: &'a ast::Decorator,
) -> Option<RawMark<'a>> {
    let Expr::Call(call) = &decorator.expression else {
        return None;
    };
    let Entity::Func {
        module: hm,
        def: helper,
    } = project.resolve_expr(module, &call.func, 0)
    else {
        return None;
    };
    if helper.is_async || !helper.decorator_list.is_empty() {
        return None;
    }
    let [Stmt::FunctionDef(inner), Stmt::Return(ret)] = without_docstring(&helper.body) else {
        return None;
    };
    if !matches!(ret.value.as_deref(), Some(Expr::Name(n)) if n.id == inner.name.id) {
        return None;
    }
    if inner.is_async || !inner.decorator_list.is_empty() {
        return None;
    }
    let p = &inner.parameters;
    let [f] = p.args.as_slice() else {
        return None;
    };
    if !p.posonlyargs.is_empty()
        || !p.kwonlyargs.is_empty()
        || p.vararg.is_some()
        || p.kwarg.is_some()
        || f.default.is_some()
    {
        return None;
    }
    let f = f.parameter.name.id.as_str();
    let [Stmt::Return(ast::StmtReturn {
        value: Some(applied),
        ..
    })] = without_docstring(&inner.body)
    else {
        return None;
    };
    // `<mark call>(f)`: the mark applied to the decorated function.
    let Expr::Call(apply) = applied.as_ref() else {
        return None;
    };
    if !apply.arguments.keywords.is_empty()
        || !matches!(apply.arguments.args.as_ref(), [Expr::Name(n)] if n.id.as_str() == f)
    {
        return None;
    }
    let mut mark = project.as_mark(hm, &apply.func, 0)?;
    if mark.name != "parametrize" || mark.opaque {
        return None;
    }
    let arguments = Arguments::bind(helper, &call.arguments)?;
    let locals = [f, inner.name.id.as_str()];
    let substitute = |(m, e): &mut (usize, &'a Expr)| -> Option<()> {
        if let Expr::Name(name) = e {
            if let Some((am, ae)) = arguments.get(name.id.as_str(), module, hm) {
                (*m, *e) = (am, ae);
                return Some(());
            }
        }
        // Any other name the factory binds makes the value unknown here.
        let bound = |n: &str| locals.contains(&n) || arguments.names.contains(&n);
        (!reads_any(e, &bound)).then_some(())
    };
    for arg in &mut mark.args {
        substitute(arg)?;
    }
    for (_, m, e) in &mut mark.kwargs {
        let mut pair = (*m, *e);
        substitute(&mut pair)?;
        (*m, *e) = pair;
    }
    mark.at = Some((module, decorator.expression.range()));
    Some(mark)
}

/// A body without its leading docstring.
fn without_docstring(body: &[Stmt]) -> &[Stmt] {
    match body.split_first() {
        Some((Stmt::Expr(e), rest)) if matches!(e.value.as_ref(), Expr::StringLiteral(_)) => rest,
        _ => body,
    }
}

/// The factory's parameters bound to the decorating call's arguments.
struct Arguments<'a> {
    names: Vec<&'a str>,
    /// Per parameter: the argument (written where the decorator is), or
    /// the default (written in the factory's module).
    values: Vec<(bool, &'a Expr)>,
}

impl<'a> Arguments<'a> {
    fn bind(helper: &'a ast::StmtFunctionDef, call: &'a ast::Arguments) -> Option<Self> {
        let p = &helper.parameters;
        if p.vararg.is_some() || p.kwarg.is_some() || !p.kwonlyargs.is_empty() {
            return None;
        }
        if call.args.iter().any(|a| matches!(a, Expr::Starred(_)))
            || call.keywords.iter().any(|k| k.arg.is_none())
        {
            return None;
        }
        let params: Vec<&ast::ParameterWithDefault> = p.posonlyargs.iter().chain(&p.args).collect();
        if call.args.len() > params.len() {
            return None;
        }
        let mut names = Vec::with_capacity(params.len());
        let mut values = Vec::with_capacity(params.len());
        for (i, param) in params.iter().enumerate() {
            let name = param.parameter.name.id.as_str();
            let keyword = (i >= p.posonlyargs.len())
                .then(|| {
                    call.keywords
                        .iter()
                        .find(|k| k.arg.as_ref().is_some_and(|a| a.id.as_str() == name))
                })
                .flatten();
            let value = match (call.args.get(i), keyword) {
                (Some(_), Some(_)) => return None,
                (Some(arg), None) => (true, arg),
                (None, Some(keyword)) => (true, &keyword.value),
                (None, None) => (false, param.default.as_deref()?),
            };
            names.push(name);
            values.push(value);
        }
        // A keyword naming no parameter is a TypeError.
        if call.keywords.iter().any(|k| {
            k.arg
                .as_ref()
                .is_none_or(|a| !names[p.posonlyargs.len()..].contains(&a.id.as_str()))
        }) {
            return None;
        }
        Some(Arguments { names, values })
    }

    /// The expression `name` stands for, with the module it is written in.
    fn get(
        &self,
        name: &str,
        call_module: usize,
        helper_module: usize,
    ) -> Option<(usize, &'a Expr)> {
        let i = self.names.iter().position(|n| *n == name)?;
        let (from_call, expr) = self.values[i];
        Some((
            if from_call {
                call_module
            } else {
                helper_module
            },
            expr,
        ))
    }
}

/// Whether `expr` reads a name `bound` accepts, outside the bodies of
/// lambdas (which collection never runs).
fn reads_any(expr: &Expr, bound: &dyn Fn(&str) -> bool) -> bool {
    use ruff_python_ast::visitor::{walk_expr, Visitor};
    struct Finder<'b> {
        bound: &'b dyn Fn(&str) -> bool,
        found: bool,
    }
    impl<'x> Visitor<'x> for Finder<'_> {
        fn visit_expr(&mut self, expr: &'x Expr) {
            match expr {
                Expr::Name(name) if (self.bound)(name.id.as_str()) => self.found = true,
                Expr::Lambda(lambda) => {
                    // Defaults are evaluated when the lambda is made.
                    if let Some(parameters) = &lambda.parameters {
                        for default in parameters
                            .posonlyargs
                            .iter()
                            .chain(&parameters.args)
                            .chain(&parameters.kwonlyargs)
                            .filter_map(|p| p.default.as_deref())
                        {
                            self.visit_expr(default);
                        }
                    }
                }
                _ => walk_expr(self, expr),
            }
        }
    }
    let mut finder = Finder {
        bound,
        found: false,
    };
    finder.visit_expr(expr);
    finder.found
}
