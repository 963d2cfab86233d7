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
    let [Stmt::FunctionDef(inner), Stmt::Return(ret)] = without_docstring(project.body(hm, helper))
    else {
        return None;
    };
    if !matches!(ret.value.as_deref(), Some(Expr::Name(n)) if n.id == inner.name.id) {
        return None;
    }
    let f = single_argument(inner)?;
    let [Stmt::Return(ast::StmtReturn {
        value: Some(applied),
        ..
    })] = without_docstring(project.body(hm, inner))
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

/// The name of the one parameter of a plain (not async, undecorated)
/// decorator function `def d(f): ...`.
fn single_argument(def: &ast::StmtFunctionDef) -> Option<&str> {
    if def.is_async || !def.decorator_list.is_empty() {
        return None;
    }
    let p = &def.parameters;
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
    Some(f.parameter.name.id.as_str())
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

/// Words whose absence from a decorator's source shows it applies no mark.
const MARKING: &[&str] = &[
    "mark",
    "skip",
    "xfail",
    "usefixtures",
    "filterwarnings",
    "parametrize",
];

/// What a decorator that is a plain function of the suite (`@mark_nix`,
/// not a call) does to the marks of the function it decorates.
pub(crate) enum Applied<'a> {
    /// The marks it applies, first applied first (the order pytest stores
    /// them in), each with the module and range where it is written.
    Marks(Vec<RawMark<'a>>),
    /// It may apply marks, in a way proctor does not follow: why.
    Unknown(String),
}

/// The marks a decorator of the suite applies to its argument when its body
/// is one of these simple forms (python-dateutil's `@mark_tzlocal_nix`):
///
/// ```python
/// def mark_nix(f):
///     marks = [pytest.mark.tzlocal, pytest.mark.skipif(IS_WIN, reason="Unix")]
///     for mark in reversed(marks):   # or `marks`, a module-level list,
///         f = mark(f)                # or a list or tuple written here
///     f = pytest.mark.slow(f)
///     return f                       # or `return pytest.mark.slow(f)`
/// ```
///
/// `None` when the decorator is not a function of the suite, or is one
/// whose source names no mark (`mark`, `skip`, `xfail`, `usefixtures`,
/// `filterwarnings`, `parametrize`): it leaves the marks as they are.
/// [`Applied::Unknown`] for any other body that names one.
pub(crate) fn applied_marks<'a>(
    project: &Project<'_, 'a>,
    module: usize,
    decorator: &'a ast::Decorator,
) -> Option<Applied<'a>> {
    let target = match &decorator.expression {
        Expr::Call(call) => call.func.as_ref(),
        other => other,
    };
    let Entity::Func {
        module: hm,
        def: helper,
    } = project.resolve_expr(module, target, 0)
    else {
        return None;
    };
    let text = project.module(hm).file.slice(helper);
    if !MARKING.iter().any(|word| text.contains(word)) {
        return None;
    }
    let name = helper.name.id.as_str();
    let unknown = || {
        Some(Applied::Unknown(format!(
            "decorated by `{name}`, a function of the suite that may apply marks in a way \
             proctor does not follow"
        )))
    };
    if matches!(decorator.expression, Expr::Call(_)) {
        return unknown();
    }
    follow(project, hm, helper).map_or_else(unknown, |marks| Some(Applied::Marks(marks)))
}

/// The marks `helper`'s body applies, when it has one of the forms of
/// [`applied_marks`].
fn follow<'a>(
    project: &Project<'_, 'a>,
    hm: usize,
    helper: &'a ast::StmtFunctionDef,
) -> Option<Vec<RawMark<'a>>> {
    let f = single_argument(helper)?;
    // Local lists of marks, by name: (module, element) each.
    let mut lists: Vec<(&'a str, Vec<(usize, &'a Expr)>)> = Vec::new();
    let mut locals: Vec<&'a str> = vec![f];
    let mut applied = Vec::new();
    let mark_of = |locals: &[&str], (m, e): (usize, &'a Expr)| -> Option<RawMark<'a>> {
        if reads_any(e, &|n| locals.contains(&n)) {
            return None;
        }
        let mark = project.as_mark(m, e, 0)?;
        Some(RawMark {
            at: Some((m, e.range())),
            ..mark
        })
    };
    // `<mark>(f)`: the mark expression applied to the argument.
    let applied_to_f = |expr: &'a Expr| -> Option<&'a Expr> {
        let Expr::Call(call) = expr else {
            return None;
        };
        let [Expr::Name(arg)] = call.arguments.args.as_ref() else {
            return None;
        };
        (call.arguments.keywords.is_empty() && arg.id.as_str() == f).then_some(call.func.as_ref())
    };
    let assigns_f = |stmt: &'a Stmt| -> Option<&'a Expr> {
        let Stmt::Assign(assign) = stmt else {
            return None;
        };
        match assign.targets.as_slice() {
            [Expr::Name(t)] if t.id.as_str() == f => Some(&assign.value),
            _ => None,
        }
    };
    let body = without_docstring(project.body(hm, helper));
    let (last, body) = body.split_last()?;
    for stmt in body {
        if let Some(value) = assigns_f(stmt) {
            let mark = applied_to_f(value)?;
            applied.push(mark_of(&locals, (hm, mark))?);
            continue;
        }
        match stmt {
            Stmt::Assign(assign) => {
                let [Expr::Name(target)] = assign.targets.as_slice() else {
                    return None;
                };
                let (Expr::List(ast::ExprList { elts, .. })
                | Expr::Tuple(ast::ExprTuple { elts, .. })) = assign.value.as_ref()
                else {
                    return None;
                };
                if reads_any(&assign.value, &|n| locals.contains(&n)) {
                    return None;
                }
                let name = target.id.as_str();
                lists.retain(|(n, _)| *n != name);
                lists.push((name, elts.iter().map(|e| (hm, e)).collect()));
                locals.push(name);
            }
            Stmt::For(for_) => {
                let Expr::Name(var) = for_.target.as_ref() else {
                    return None;
                };
                if for_.is_async || !for_.orelse.is_empty() {
                    return None;
                }
                let [step] = for_.body.as_slice() else {
                    return None;
                };
                let value = assigns_f(step)?;
                let applied_name = applied_to_f(value)?;
                if !matches!(applied_name, Expr::Name(n) if n.id == var.id) {
                    return None;
                }
                let mut entries = iterated(project, hm, &for_.iter, &lists, &locals)?;
                for entry in entries.drain(..) {
                    applied.push(mark_of(&locals, entry)?);
                }
                locals.push(var.id.as_str());
            }
            _ => return None,
        }
    }
    let Stmt::Return(ast::StmtReturn {
        value: Some(returned),
        ..
    }) = last
    else {
        return None;
    };
    match returned.as_ref() {
        Expr::Name(n) if n.id.as_str() == f => {}
        other => {
            let mark = applied_to_f(other)?;
            applied.push(mark_of(&locals, (hm, mark))?);
        }
    }
    Some(applied)
}

/// The entries a `for` loop of [`follow`] iterates over: a local list of
/// marks, a list or tuple written there, a module-level list, or
/// `reversed(...)` of one of those.
fn iterated<'a>(
    project: &Project<'_, 'a>,
    hm: usize,
    iter: &'a Expr,
    lists: &[(&'a str, Vec<(usize, &'a Expr)>)],
    locals: &[&str],
) -> Option<Vec<(usize, &'a Expr)>> {
    match iter {
        Expr::List(ast::ExprList { elts, .. }) | Expr::Tuple(ast::ExprTuple { elts, .. }) => {
            Some(elts.iter().map(|e| (hm, e)).collect())
        }
        Expr::Name(name) => {
            if let Some((_, entries)) = lists.iter().find(|(n, _)| *n == name.id.as_str()) {
                return Some(entries.clone());
            }
            if locals.contains(&name.id.as_str()) {
                return None;
            }
            match project.resolve_expr(hm, iter, 0) {
                Entity::Value {
                    module: vm,
                    expr: value @ (Expr::List(_) | Expr::Tuple(_)),
                } => Some(project.pytestmark_entries(vm, value)),
                _ => None,
            }
        }
        Expr::Call(call) => {
            let [inner] = call.arguments.args.as_ref() else {
                return None;
            };
            if !call.arguments.keywords.is_empty()
                || !matches!(
                    project.resolve_expr(hm, &call.func, 0),
                    Entity::Builtin(ref b) if b == "reversed"
                )
            {
                return None;
            }
            let mut entries = iterated(project, hm, inner, lists, locals)?;
            entries.reverse();
            Some(entries)
        }
        _ => None,
    }
}
