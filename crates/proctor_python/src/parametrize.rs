//! Expanding a test function into its parametrized calls, as pytest's
//! `Metafunc.parametrize` does: fixture params first (in fixture-closure
//! order), then `@pytest.mark.parametrize` marks in `iter_markers()` order.

use ruff_python_ast::{self as ast, Expr};
use std::sync::Arc;

use serde_json::json;

use crate::collector::to_marker;
use crate::fixtures::{FixtureScope, FixtureView};
use crate::ids::{check_ids, make_ids, ExplicitId, IdInput};
use crate::model::{Marker, MarkerSource};
use crate::project::{Project, RawMark};
use crate::settings::CollectSettings;
use crate::value::{ContainerKind, PyValue};

/// One planned call of a test function.
#[derive(Debug, Clone, Default)]
pub(crate) struct CallSpec {
    pub(crate) ids: Vec<String>,
    /// Marks from `pytest.param(marks=...)` and the empty-set mark.
    pub(crate) marks: Vec<Arc<Marker>>,
    pub(crate) params: Vec<ParamEntry>,
}

/// A parameter of a call, with what `reorder_items` needs.
#[derive(Debug, Clone)]
pub(crate) struct ParamEntry {
    pub(crate) argname: String,
    pub(crate) scope: FixtureScope,
    /// Identity of the value (pytest compares hashable values by equality).
    pub(crate) key: String,
}

pub(crate) enum ExpandError {
    /// The calls cannot be known statically.
    Dynamic(String),
    /// pytest fails collecting the module with this message.
    Collect(String),
}

struct ParamSet<'a> {
    values: Vec<(usize, &'a Expr)>,
    evaluated: Vec<PyValue>,
    explicit: Option<ExplicitId>,
    hidden: bool,
    marks: Vec<Arc<Marker>>,
}

/// Expands one test function. `Ok(None)` means not parametrized.
pub(crate) fn expand<'a>(
    project: &Project<'_, 'a>,
    settings: &CollectSettings,
    fixtures: &FixtureView<'_, 'a>,
    marks: &[RawMark<'a>],
    argnames: &[String],
    func_name: &str,
    nodeid: &str,
) -> Result<Option<Vec<CallSpec>>, ExpandError> {
    let parametrize: Vec<&RawMark<'a>> = marks.iter().filter(|m| m.name == "parametrize").collect();
    let mut parsed = Vec::new();
    let mut direct_args: Vec<String> = Vec::new();
    for mark in &parametrize {
        let call = ParametrizeCall::parse(project, mark)?;
        for name in &call.argnames {
            if !call.is_indirect(name) {
                direct_args.push(name.clone());
            }
        }
        parsed.push(call);
    }
    let mut usefixtures = Vec::new();
    for mark in marks.iter().filter(|m| m.name == "usefixtures") {
        for &(m, e) in &mark.args {
            match project.eval(m, e, 0) {
                PyValue::Str(s) => usefixtures.push(s),
                _ => return Err(ExpandError::Dynamic("usefixtures with a non-literal name".into())),
            }
        }
    }
    let mut initial: Vec<String> = Vec::new();
    for name in fixtures.autouse_names().into_iter().chain(usefixtures).chain(argnames.iter().cloned()) {
        if !initial.contains(&name) {
            initial.push(name);
        }
    }
    let closure = fixtures.closure(&initial, &direct_args);
    let mut calls: Option<Vec<CallSpec>> = None;
    let mark_argnames: Vec<&String> = parsed.iter().flat_map(|p| p.argnames.iter()).collect();
    for argname in &closure {
        if mark_argnames.contains(&argname) {
            continue;
        }
        let defs = fixtures.defs(argname);
        for def in defs.iter().rev() {
            if let Some(params) = def.params {
                if def.scope_dynamic {
                    return Err(ExpandError::Dynamic(format!("fixture `{argname}` has a computed scope")));
                }
                let sets = param_sets(project, settings, def.module, params, 1, true, std::slice::from_ref(argname), func_name)?;
                let ids_expr = def.ids.map(|e| (def.module, e));
                let call = Parametrization { argnames: vec![argname.clone()], sets, ids: ids_expr, scope: def.scope };
                calls = Some(apply(project, settings, calls, call, nodeid)?);
                break;
            }
            if !def.argnames.contains(argname) {
                break;
            }
        }
    }
    for call in parsed {
        for arg in &call.argnames {
            if !closure.contains(arg) {
                let kind = if call.is_indirect(arg) { "fixture" } else { "argument" };
                return Err(ExpandError::Collect(format!("In {nodeid}: function uses no {kind} '{arg}'")));
            }
        }
        let scope = match &call.scope {
            Some(scope) => *scope,
            None if call.argnames.iter().all(|a| call.is_indirect(a)) => call
                .argnames
                .iter()
                .filter_map(|a| fixtures.defs(a).last().map(|d| d.scope))
                .min()
                .unwrap_or(FixtureScope::Function),
            None => FixtureScope::Function,
        };
        let (vm, values) = call.argvalues;
        let sets = param_sets(project, settings, vm, values, call.argnames.len(), call.force_tuple, &call.argnames, func_name)?;
        let parametrization = Parametrization { argnames: call.argnames.clone(), sets, ids: call.ids, scope };
        calls = Some(apply(project, settings, calls, parametrization, nodeid)?);
    }
    Ok(calls)
}

struct Parametrization<'a> {
    argnames: Vec<String>,
    sets: Vec<ParamSet<'a>>,
    ids: Option<(usize, &'a Expr)>,
    scope: FixtureScope,
}

/// A `@pytest.mark.parametrize(...)` mark read statically.
struct ParametrizeCall<'a> {
    argnames: Vec<String>,
    force_tuple: bool,
    argvalues: (usize, &'a Expr),
    indirect: Indirect,
    ids: Option<(usize, &'a Expr)>,
    scope: Option<FixtureScope>,
}

enum Indirect {
    All(bool),
    Some(Vec<String>),
}

impl<'a> ParametrizeCall<'a> {
    fn parse(project: &Project<'_, 'a>, mark: &RawMark<'a>) -> Result<Self, ExpandError> {
        if mark.opaque {
            return Err(ExpandError::Dynamic("parametrize called with *args or **kwargs".into()));
        }
        let kw = |name: &str| mark.kwargs.iter().find(|(k, _, _)| k == name).map(|(_, m, e)| (*m, *e));
        let names = mark.args.first().copied().or_else(|| kw("argnames"));
        let values = mark.args.get(1).copied().or_else(|| kw("argvalues"));
        let (Some((nm, names)), Some(argvalues)) = (names, values) else {
            return Err(ExpandError::Dynamic("parametrize without argnames and argvalues".into()));
        };
        let (argnames, force_tuple) = match project.eval(nm, names, 0) {
            PyValue::Str(s) => {
                let trailing = s.trim_end().ends_with(',');
                let names: Vec<String> = s.split(',').map(str::trim).filter(|n| !n.is_empty()).map(String::from).collect();
                let force = names.len() == 1 && !trailing;
                (names, force)
            }
            PyValue::Container { kind: ContainerKind::List | ContainerKind::Tuple, elements } => {
                let mut names = Vec::new();
                for element in elements {
                    match element {
                        PyValue::Str(s) => names.push(s),
                        _ => return Err(ExpandError::Dynamic("parametrize argnames are not literal strings".into())),
                    }
                }
                (names, false)
            }
            _ => return Err(ExpandError::Dynamic("parametrize argnames are not literal".into())),
        };
        let indirect = match kw("indirect") {
            None => Indirect::All(false),
            Some((m, e)) => match project.eval(m, e, 0) {
                PyValue::Bool(b) => Indirect::All(b),
                PyValue::Container { elements, .. } => Indirect::Some(
                    elements.into_iter().filter_map(|v| if let PyValue::Str(s) = v { Some(s) } else { None }).collect(),
                ),
                _ => return Err(ExpandError::Dynamic("parametrize indirect= is not literal".into())),
            },
        };
        let scope = match kw("scope") {
            None => None,
            Some((m, e)) => match project.eval(m, e, 0) {
                PyValue::Str(s) => FixtureScope::parse(&s),
                PyValue::None => None,
                _ => return Err(ExpandError::Dynamic("parametrize scope= is not literal".into())),
            },
        };
        Ok(ParametrizeCall { argnames, force_tuple, argvalues, indirect, ids: kw("ids"), scope })
    }

    fn is_indirect(&self, name: &str) -> bool {
        match &self.indirect {
            Indirect::All(b) => *b,
            Indirect::Some(names) => names.iter().any(|n| n == name),
        }
    }
}

/// Reads the argvalues list into parameter sets.
#[expect(clippy::too_many_arguments, reason = "mirrors ParameterSet._for_parametrize")]
fn param_sets<'a>(
    project: &Project<'_, 'a>,
    settings: &CollectSettings,
    module: usize,
    values: &'a Expr,
    n_names: usize,
    force_tuple: bool,
    argnames: &[String],
    func_name: &str,
) -> Result<Vec<ParamSet<'a>>, ExpandError> {
    let (vm, values) = project.deref(module, values);
    let elements: &'a [Expr] = match values {
        Expr::List(ast::ExprList { elts, .. }) | Expr::Tuple(ast::ExprTuple { elts, .. }) => elts,
        Expr::Call(call) if force_tuple => {
            if let Some(range) = literal_range(project, vm, call).filter(|r| !r.is_empty()) {
                return Ok(range
                    .into_iter()
                    .map(|n| ParamSet {
                        values: Vec::new(),
                        evaluated: vec![PyValue::Int(n.to_string())],
                        explicit: None,
                        hidden: false,
                        marks: Vec::new(),
                    })
                    .collect());
            }
            if literal_range(project, vm, call).is_some() {
                &[]
            } else {
                return Err(ExpandError::Dynamic("parametrize argvalues are computed at runtime".into()));
            }
        }
        _ => return Err(ExpandError::Dynamic("parametrize argvalues are computed at runtime".into())),
    };
    let _ = func_name;
    let mut sets = Vec::new();
    for element in elements {
        if matches!(element, Expr::Starred(_)) {
            return Err(ExpandError::Dynamic("argvalues use * unpacking".into()));
        }
        let mut set = ParamSet { values: Vec::new(), evaluated: Vec::new(), explicit: None, hidden: false, marks: Vec::new() };
        if let Some(param) = project.as_param(vm, element) {
            for value in param.values {
                if let Expr::Starred(starred) = value {
                    // `pytest.param(*CASE, id=...)` with `CASE = (a, b)`.
                    let (sm, target) = project.deref(vm, &starred.value);
                    match target {
                        Expr::List(ast::ExprList { elts, .. }) | Expr::Tuple(ast::ExprTuple { elts, .. })
                            if !elts.iter().any(|e| matches!(e, Expr::Starred(_))) =>
                        {
                            set.values.extend(elts.iter().map(|e| (sm, e)));
                        }
                        _ => return Err(ExpandError::Dynamic("pytest.param(*values) of a non-literal sequence".into())),
                    }
                } else {
                    set.values.push((vm, value));
                }
            }
            set.marks = param.marks.iter().map(|m| Arc::new(to_marker(project, m, MarkerSource::Param))).collect();
            if let Some(id) = param.id {
                if project.is_hidden_param(vm, id) {
                    set.hidden = true;
                } else {
                    match project.eval(vm, id, 0) {
                        PyValue::Str(s) => set.explicit = Some(ExplicitId::Param(s)),
                        PyValue::None => {}
                        _ => return Err(ExpandError::Dynamic("pytest.param id is not a literal string".into())),
                    }
                }
            }
        } else if force_tuple {
            set.values = vec![(vm, element)];
        } else {
            let (em, target) = project.deref(vm, element);
            match target {
                Expr::List(ast::ExprList { elts, .. }) | Expr::Tuple(ast::ExprTuple { elts, .. }) => {
                    if elts.iter().any(|e| matches!(e, Expr::Starred(_))) {
                        return Err(ExpandError::Dynamic("argvalues use * unpacking".into()));
                    }
                    set.values = elts.iter().map(|e| (em, e)).collect();
                }
                _ => return Err(ExpandError::Dynamic("a parameter set is not a literal tuple".into())),
            }
        }
        if set.values.len() != n_names {
            return Err(ExpandError::Collect(format!(
                "in \"parametrize\" the number of names ({n_names}):\n  {argnames:?}\nmust be equal to the number of values ({})",
                set.values.len()
            )));
        }
        set.evaluated = set.values.iter().map(|&(m, e)| project.eval(m, e, 0)).collect();
        sets.push(set);
    }
    if sets.is_empty() {
        let reason = format!("got empty parameter set for ({})", argnames.join(", "));
        let mark = match settings.empty_parameter_set_mark.as_str() {
            "xfail" => Marker {
                name: "xfail".into(),
                args: vec![],
                kwargs: [("reason".to_string(), json!(reason)), ("run".to_string(), json!(false))].into_iter().collect(),
                source: MarkerSource::Param,
                location: None,
            },
            "fail_at_collect" => {
                return Err(ExpandError::Collect(format!("Empty parameter set in '{func_name}'")));
            }
            _ => Marker {
                name: "skip".into(),
                args: vec![],
                kwargs: [("reason".to_string(), json!(reason))].into_iter().collect(),
                source: MarkerSource::Param,
                location: None,
            },
        };
        sets.push(ParamSet {
            values: Vec::new(),
            evaluated: vec![PyValue::Object; n_names],
            explicit: Some(ExplicitId::Param("NOTSET".into())),
            hidden: false,
            marks: vec![Arc::new(mark)],
        });
    }
    Ok(sets)
}

/// The values of `range(...)` with literal integer arguments (at most a
/// million of them), as parametrize argvalues.
fn literal_range<'a>(project: &Project<'_, 'a>, module: usize, call: &'a ast::ExprCall) -> Option<Vec<i64>> {
    if !matches!(project.resolve_expr(module, &call.func, 0), crate::project::Entity::Builtin(ref n) if n == "range") {
        return None;
    }
    if !call.arguments.keywords.is_empty() {
        return None;
    }
    let mut ints = Vec::new();
    for arg in &call.arguments.args {
        match project.eval(module, arg, 0) {
            PyValue::Int(digits) => ints.push(digits.parse::<i64>().ok()?),
            _ => return None,
        }
    }
    let (first, stop, stride) = match ints.as_slice() {
        [end] => (0, *end, 1),
        [begin, end] => (*begin, *end, 1),
        [begin, end, by] if *by != 0 => (*begin, *end, *by),
        _ => return None,
    };
    let len = if stride > 0 { (stop - first + stride - 1) / stride } else { (first - stop - stride - 1) / -stride };
    if len > 1_000_000 {
        return None;
    }
    let mut out = Vec::with_capacity(usize::try_from(len.max(0)).unwrap_or(0));
    let mut n = first;
    while (stride > 0 && n < stop) || (stride < 0 && n > stop) {
        out.push(n);
        n += stride;
    }
    Some(out)
}

/// `Metafunc.parametrize`: multiplies the existing calls by the new sets.
fn apply<'a>(
    project: &Project<'_, 'a>,
    settings: &CollectSettings,
    calls: Option<Vec<CallSpec>>,
    mut call: Parametrization<'a>,
    nodeid: &str,
) -> Result<Vec<CallSpec>, ExpandError> {
    if let Some((im, ids_expr)) = call.ids {
        let (im, ids_expr) = project.deref(im, ids_expr);
        match ids_expr {
            Expr::List(ast::ExprList { elts, .. }) | Expr::Tuple(ast::ExprTuple { elts, .. }) => {
                for (set, id) in call.sets.iter_mut().zip(elts) {
                    if set.explicit.is_some() || set.hidden {
                        continue;
                    }
                    if project.is_hidden_param(im, id) {
                        set.hidden = true;
                        continue;
                    }
                    match project.eval(im, id, 0) {
                        PyValue::None => {}
                        PyValue::Unknown(reason) => return Err(ExpandError::Dynamic(format!("an id in ids=[...] is not literal: {reason}"))),
                        value => set.explicit = Some(ExplicitId::Listed(value)),
                    }
                }
            }
            Expr::NoneLiteral(_) => {}
            _ if matches!(project.resolve_expr(im, ids_expr, 0), crate::project::Entity::Builtin(ref n) if n == "str") => {
                // `ids=str`: each value's id is `str(value)`, escaped.
                for set in &mut call.sets {
                    if set.explicit.is_some() || set.hidden {
                        continue;
                    }
                    let mut parts = Vec::with_capacity(set.evaluated.len());
                    for value in &set.evaluated {
                        let text = match value {
                            PyValue::Str(s) => s.clone(),
                            PyValue::EnumMember { display } => display.clone(),
                            other => other
                                .scalar_str()
                                .ok_or_else(|| ExpandError::Dynamic("ids=str of a value whose str() is not known statically".into()))?,
                        };
                        parts.push(text);
                    }
                    set.explicit = Some(ExplicitId::Param(parts.join("-")));
                }
            }
            _ => return Err(ExpandError::Dynamic("ids are computed by a callable or at runtime".into())),
        }
    }
    let inputs: Vec<IdInput<'_>> = call
        .sets
        .iter_mut()
        .map(|set| IdInput { explicit: set.explicit.take(), values: &set.evaluated })
        .collect();
    // Test definitions have no ids: only whether pytest could build them
    // (else the test is dynamic) counts.
    let ids = if settings.definitions_only {
        check_ids(&inputs, &settings.ids).map_err(ExpandError::Dynamic)?;
        Vec::new()
    } else {
        make_ids(&call.argnames, &inputs, &settings.ids).map_err(ExpandError::Dynamic)?
    };
    let base = calls.unwrap_or_else(|| vec![CallSpec::default()]);
    let mut out = Vec::with_capacity(base.len() * call.sets.len());
    for spec in &base {
        for (index, set) in call.sets.iter().enumerate() {
            let mut next = spec.clone();
            for (argname, value) in call.argnames.iter().zip(set.evaluated.iter()) {
                if next.params.iter().any(|p| &p.argname == argname) {
                    return Err(ExpandError::Collect(format!("{nodeid}: duplicate parametrization of '{argname}'")));
                }
                // The key only serves `reorder_items`, which definitions skip.
                let key = if call.scope.is_function() || settings.definitions_only { String::new() } else { value_key(value, index) };
                next.params.push(ParamEntry { argname: argname.clone(), scope: call.scope, key });
            }
            if let Some(id) = ids.get(index).filter(|_| !set.hidden) {
                next.ids.push(id.clone());
            }
            next.marks.extend(set.marks.iter().cloned());
            out.push(next);
        }
    }
    Ok(out)
}

/// pytest's `ParamValueKey`: hashable values compare by value, others by
/// their index in the parametrize call.
fn value_key(value: &PyValue, index: usize) -> String {
    match value {
        PyValue::Container { kind: ContainerKind::List | ContainerKind::Dict | ContainerKind::Set, .. } | PyValue::Object | PyValue::Unknown(_) => {
            format!("#{index}")
        }
        other => format!("{other:?}"),
    }
}
