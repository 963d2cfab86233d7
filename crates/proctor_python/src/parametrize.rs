//! Expanding a test function into its parametrized calls, as pytest's
//! `Metafunc.parametrize` does: fixture params first (in fixture-closure
//! order), then `@pytest.mark.parametrize` marks in `iter_markers()` order.

use ruff_python_ast::{self as ast, Expr};
use std::sync::Arc;

use serde_json::json;

use crate::collector::to_marker;
use crate::eval::{iterate as ops_iterate, iterate_owned, Evaluator};
use crate::fixtures::{FixtureScope, FixtureView};
use crate::ids::{check_ids, function_id, make_ids, ExplicitId, IdInput};
use crate::model::{Marker, MarkerSource};
use crate::project::{Project, RawMark};
use crate::settings::CollectSettings;
use crate::value::{ContainerKind, MarkValue, PyValue};

/// One planned call of a test function.
#[derive(Debug, Clone, Default)]
pub(crate) struct CallSpec {
    /// The call's id parts joined with `-`, as pytest's `CallSpec2.id`.
    pub(crate) id: String,
    /// Whether any parametrization gave the call an id part (a hidden
    /// parameter gives none): without one, the node id has no `[...]`.
    pub(crate) has_id: bool,
    /// Marks from `pytest.param(marks=...)` and the empty-set mark.
    pub(crate) marks: Vec<Arc<Marker>>,
    /// The parameters of a scope wider than the function (what
    /// `reorder_items` reads); function-scoped ones are only named, once
    /// per expansion, to catch a duplicate parametrization.
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

struct ParamSet {
    evaluated: Vec<PyValue>,
    explicit: Option<ExplicitId>,
    hidden: bool,
    marks: Vec<Arc<Marker>>,
}

/// Expands one test function. `Ok(None)` means not parametrized.
/// `closure_out` receives the function's fixture closure (pytest's
/// `fixturenames`) once it is known.
#[expect(
    clippy::too_many_arguments,
    reason = "the inputs of one expansion, each read once"
)]
pub(crate) fn expand<'a>(
    project: &Project<'_, 'a>,
    settings: &CollectSettings,
    fixtures: &FixtureView<'_, 'a>,
    marks: &[RawMark<'a>],
    argnames: &[String],
    func_name: &str,
    nodeid: &str,
    closure_out: &mut Vec<String>,
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
    if settings.deprecations_are_errors {
        for call in &parsed {
            let (vm, values) = project.deref(call.argvalues.0, call.argvalues.1);
            if let Some(kind) = iterator_kind(project, vm, values) {
                // pytest 9.1 warns; the suite's filters make the warning an error.
                return Err(ExpandError::Collect(format!(
                    "pytest.PytestRemovedIn10Warning: Passing a non-Collection iterable to parametrize is deprecated.\nTest: {nodeid}, argvalues type: {kind}"
                )));
            }
        }
    }
    let mut usefixtures = Vec::new();
    for mark in marks.iter().filter(|m| m.name == "usefixtures") {
        for &(m, e) in &mark.args {
            match project.eval(m, e) {
                PyValue::Str(s) => usefixtures.push(s.into_string()),
                _ => {
                    return Err(ExpandError::Dynamic(
                        "usefixtures with a non-literal name".into(),
                    ))
                }
            }
        }
    }
    let mut initial: Vec<String> = Vec::new();
    for name in fixtures
        .autouse_names()
        .into_iter()
        .chain(usefixtures)
        .chain(argnames.iter().cloned())
    {
        if !initial.contains(&name) {
            initial.push(name);
        }
    }
    let closure = fixtures.closure(&initial, &direct_args);
    closure_out.clone_from(&closure);
    let mut calls: Option<Vec<CallSpec>> = None;
    // Every argname parametrized so far (all calls share them).
    let mut parametrized: Vec<String> = Vec::new();
    let mark_argnames: Vec<&String> = parsed.iter().flat_map(|p| p.argnames.iter()).collect();
    for argname in &closure {
        if mark_argnames.contains(&argname) {
            continue;
        }
        let defs = fixtures.defs(argname);
        for def in defs.iter().rev() {
            if let Some(params) = def.params {
                if def.scope_dynamic {
                    return Err(ExpandError::Dynamic(format!(
                        "fixture `{argname}` has a computed scope"
                    )));
                }
                let sets = param_sets(
                    project,
                    settings,
                    def.module,
                    params,
                    1,
                    true,
                    std::slice::from_ref(argname),
                    func_name,
                )?;
                let ids_expr = def.ids.map(|e| (def.module, e));
                let call = Parametrization {
                    argnames: vec![argname.clone()],
                    sets,
                    ids: ids_expr,
                    scope: def.scope,
                };
                calls = Some(apply(
                    project,
                    settings,
                    calls,
                    call,
                    nodeid,
                    &mut parametrized,
                )?);
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
                let kind = if call.is_indirect(arg) {
                    "fixture"
                } else {
                    "argument"
                };
                return Err(ExpandError::Collect(format!(
                    "In {nodeid}: function uses no {kind} '{arg}'"
                )));
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
        let sets = param_sets(
            project,
            settings,
            vm,
            values,
            call.argnames.len(),
            call.force_tuple,
            &call.argnames,
            func_name,
        )?;
        let parametrization = Parametrization {
            argnames: call.argnames.clone(),
            sets,
            ids: call.ids,
            scope,
        };
        calls = Some(apply(
            project,
            settings,
            calls,
            parametrization,
            nodeid,
            &mut parametrized,
        )?);
    }
    Ok(calls)
}

struct Parametrization<'a> {
    argnames: Vec<String>,
    sets: Vec<ParamSet>,
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
            return Err(ExpandError::Dynamic(
                "parametrize called with *args or **kwargs".into(),
            ));
        }
        let kw = |name: &str| {
            mark.kwargs
                .iter()
                .find(|(k, _, _)| k == name)
                .map(|(_, m, e)| (*m, *e))
        };
        let names = mark.args.first().copied().or_else(|| kw("argnames"));
        let values = mark.args.get(1).copied().or_else(|| kw("argvalues"));
        let (Some((nm, names)), Some(argvalues)) = (names, values) else {
            return Err(ExpandError::Dynamic(
                "parametrize without argnames and argvalues".into(),
            ));
        };
        let (argnames, force_tuple) = match project.eval(nm, names) {
            PyValue::Str(s) => {
                let trailing = s.trim_end().ends_with(',');
                let names: Vec<String> = s
                    .split(',')
                    .map(str::trim)
                    .filter(|n| !n.is_empty())
                    .map(String::from)
                    .collect();
                let force = names.len() == 1 && !trailing;
                (names, force)
            }
            PyValue::Container {
                kind: ContainerKind::List | ContainerKind::Tuple,
                elements,
            } => {
                let mut names = Vec::new();
                for element in elements {
                    match element {
                        PyValue::Str(s) => names.push(s.into_string()),
                        _ => {
                            return Err(ExpandError::Dynamic(
                                "parametrize argnames are not literal strings".into(),
                            ))
                        }
                    }
                }
                (names, false)
            }
            _ => {
                return Err(ExpandError::Dynamic(
                    "parametrize argnames are not literal".into(),
                ))
            }
        };
        let indirect = match kw("indirect") {
            None => Indirect::All(false),
            Some((m, e)) => match project.eval(m, e) {
                PyValue::Bool(b) => Indirect::All(b),
                PyValue::Container { elements, .. } => Indirect::Some(
                    elements
                        .into_iter()
                        .filter_map(|v| {
                            if let PyValue::Str(s) = v {
                                Some(s.into_string())
                            } else {
                                None
                            }
                        })
                        .collect(),
                ),
                _ => {
                    return Err(ExpandError::Dynamic(
                        "parametrize indirect= is not literal".into(),
                    ))
                }
            },
        };
        let scope = match kw("scope") {
            None => None,
            Some((m, e)) => match project.eval(m, e) {
                PyValue::Str(s) => FixtureScope::parse(&s),
                PyValue::None => None,
                _ => {
                    return Err(ExpandError::Dynamic(
                        "parametrize scope= is not literal".into(),
                    ))
                }
            },
        };
        Ok(ParametrizeCall {
            argnames,
            force_tuple,
            argvalues,
            indirect,
            ids: kw("ids"),
            scope,
        })
    }

    fn is_indirect(&self, name: &str) -> bool {
        match &self.indirect {
            Indirect::All(b) => *b,
            Indirect::Some(names) => names.iter().any(|n| n == name),
        }
    }
}

/// Reads the argvalues list into parameter sets.
#[expect(
    clippy::too_many_arguments,
    reason = "mirrors ParameterSet._for_parametrize"
)]
fn param_sets<'a>(
    project: &Project<'_, 'a>,
    settings: &CollectSettings,
    module: usize,
    values: &'a Expr,
    n_names: usize,
    force_tuple: bool,
    argnames: &[String],
    func_name: &str,
) -> Result<Vec<ParamSet>, ExpandError> {
    if let Some(reason) = crate::eval::changed_by_calls(*project, module, values) {
        return Err(ExpandError::Dynamic(format!(
            "parametrize argvalues: {reason}"
        )));
    }
    let (vm, values) = project.deref(module, values);
    let elements: &'a [Expr] = match values {
        Expr::List(ast::ExprList { elts, .. }) | Expr::Tuple(ast::ExprTuple { elts, .. }) => elts,
        _ => {
            // A computed list: evaluated as a whole.
            let evaluator = Evaluator::new(*project);
            let items = iterate_owned(evaluator.eval(vm, values)).map_err(|reason| {
                ExpandError::Dynamic(format!("parametrize argvalues: {reason}"))
            })?;
            let mut sets = Vec::with_capacity(items.len());
            for item in items {
                sets.push(set_from_value(item, n_names, force_tuple, argnames)?);
            }
            return finish_sets(settings, sets, n_names, argnames, func_name);
        }
    };
    let mut sets = Vec::new();
    for element in elements {
        if matches!(element, Expr::Starred(_)) {
            return Err(ExpandError::Dynamic("argvalues use * unpacking".into()));
        }
        let mut set = ParamSet {
            evaluated: Vec::new(),
            explicit: None,
            hidden: false,
            marks: Vec::new(),
        };
        // The values as written, and those the evaluator computed
        // (`pytest.param(*CASE)` of a computed tuple).
        let mut values: Vec<(usize, &'a Expr)> = Vec::new();
        let mut computed: Vec<PyValue> = Vec::new();
        if let Some(param) = project.as_param(vm, element) {
            for value in param.values {
                if let Expr::Starred(starred) = value {
                    // `pytest.param(*CASE, id=...)` with `CASE = (a, b)`.
                    let (sm, target) = project.deref(vm, &starred.value);
                    match target {
                        Expr::List(ast::ExprList { elts, .. })
                        | Expr::Tuple(ast::ExprTuple { elts, .. })
                            if !elts.iter().any(|e| matches!(e, Expr::Starred(_))) =>
                        {
                            values.extend(elts.iter().map(|e| (sm, e)));
                        }
                        _ => match iterate_owned(project.eval(sm, target)) {
                            Ok(items) => computed.extend(items),
                            Err(reason) => {
                                return Err(ExpandError::Dynamic(format!(
                                    "pytest.param(*values): {reason}"
                                )))
                            }
                        },
                    }
                } else {
                    values.push((vm, value));
                }
            }
            set.marks = param
                .marks
                .iter()
                .map(|m| Arc::new(to_marker(project, m, MarkerSource::Param)))
                .collect();
            if let Some(id) = param.id {
                if project.is_hidden_param(vm, id) {
                    set.hidden = true;
                } else {
                    match project.eval(vm, id) {
                        PyValue::Str(s) => set.explicit = Some(ExplicitId::Param(s.to_string())),
                        PyValue::None => {}
                        _ => {
                            return Err(ExpandError::Dynamic(
                                "pytest.param id is not a literal string".into(),
                            ))
                        }
                    }
                }
            }
        } else if force_tuple {
            values = vec![(vm, element)];
        } else {
            let (em, target) = project.deref(vm, element);
            match target {
                Expr::List(ast::ExprList { elts, .. })
                | Expr::Tuple(ast::ExprTuple { elts, .. }) => {
                    if elts.iter().any(|e| matches!(e, Expr::Starred(_))) {
                        return Err(ExpandError::Dynamic("argvalues use * unpacking".into()));
                    }
                    values = elts.iter().map(|e| (em, e)).collect();
                }
                _ => {
                    let value = project.eval(em, target);
                    sets.push(set_from_value(value, n_names, force_tuple, argnames)?);
                    continue;
                }
            }
        }
        if computed.is_empty() {
            set.evaluated = values.iter().map(|&(m, e)| project.eval(m, e)).collect();
        } else {
            // `pytest.param(*CASE)`: the literal values, then the computed
            // ones, in the call's order only when all are computed.
            if !values.is_empty() {
                return Err(ExpandError::Dynamic(
                    "pytest.param mixing * unpacking and values".into(),
                ));
            }
            set.evaluated = computed;
        }
        if set.evaluated.len() != n_names {
            return Err(wrong_count(n_names, argnames, set.evaluated.len()));
        }
        sets.push(set);
    }
    finish_sets(settings, sets, n_names, argnames, func_name)
}

/// The type name of an argvalues expression that is an iterator rather than
/// a collection (a generator expression, `map(...)`, `itertools.chain(...)`).
fn iterator_kind<'a>(project: &Project<'_, 'a>, module: usize, expr: &'a Expr) -> Option<String> {
    match expr {
        Expr::Generator(_) => Some("generator".to_owned()),
        Expr::Call(call) => match project.resolve_expr(module, &call.func, 0) {
            crate::project::Entity::Builtin(name)
                if matches!(
                    name.as_str(),
                    "map" | "filter" | "zip" | "reversed" | "iter" | "enumerate"
                ) =>
            {
                Some(name)
            }
            crate::project::Entity::External(path) if path.starts_with("itertools.") => {
                path.rsplit('.').next().map(|n| {
                    if n == "from_iterable" {
                        "chain".to_owned()
                    } else {
                        n.to_owned()
                    }
                })
            }
            _ => None,
        },
        _ => None,
    }
}

/// pytest's error for a parameter set of the wrong length.
fn wrong_count(n_names: usize, argnames: &[String], n_values: usize) -> ExpandError {
    ExpandError::Collect(format!(
        "in \"parametrize\" the number of names ({n_names}):\n  {argnames:?}\nmust be equal to the number of values ({n_values})"
    ))
}

/// `ParameterSet.extract_from`: one computed element of argvalues.
fn set_from_value(
    value: PyValue,
    n_names: usize,
    force_tuple: bool,
    argnames: &[String],
) -> Result<ParamSet, ExpandError> {
    let mut set = ParamSet {
        evaluated: Vec::new(),
        explicit: None,
        hidden: false,
        marks: Vec::new(),
    };
    match value {
        PyValue::Unknown(reason) => {
            return Err(ExpandError::Dynamic(format!("a parameter set: {reason}")))
        }
        PyValue::Param(param) => {
            set.evaluated = param.values;
            set.hidden = param.hidden;
            match param.id {
                Some(PyValue::Str(id)) => set.explicit = Some(ExplicitId::Param(id.to_string())),
                Some(PyValue::None) | None => {}
                Some(_) => {
                    return Err(ExpandError::Dynamic(
                        "pytest.param id is not a string".into(),
                    ))
                }
            }
            set.marks = param
                .marks
                .iter()
                .map(|m| Arc::new(mark_marker(m)))
                .collect();
        }
        value if force_tuple => set.evaluated = vec![value],
        PyValue::Container {
            kind: ContainerKind::List | ContainerKind::Tuple,
            elements,
        } => set.evaluated = elements.into_vec(),
        _ => {
            return Err(ExpandError::Dynamic(
                "a parameter set that is not a tuple".into(),
            ))
        }
    }
    if set.evaluated.len() != n_names {
        return Err(wrong_count(n_names, argnames, set.evaluated.len()));
    }
    Ok(set)
}

/// A mark of `pytest.param(marks=...)` computed by the evaluator.
fn mark_marker(mark: &MarkValue) -> Marker {
    Marker {
        name: mark.name.clone(),
        args: mark.args.iter().map(|v| v.to_json("<computed>")).collect(),
        kwargs: mark
            .kwargs
            .iter()
            .map(|(k, v)| (k.clone(), v.to_json("<computed>")))
            .collect(),
        source: MarkerSource::Param,
        location: None,
    }
}

/// The empty-parameter-set rule, once the sets are known.
fn finish_sets(
    settings: &CollectSettings,
    mut sets: Vec<ParamSet>,
    n_names: usize,
    argnames: &[String],
    func_name: &str,
) -> Result<Vec<ParamSet>, ExpandError> {
    if sets.is_empty() {
        let reason = format!("got empty parameter set for ({})", argnames.join(", "));
        let mark = match settings.empty_parameter_set_mark.as_str() {
            "xfail" => Marker {
                name: "xfail".into(),
                args: vec![],
                kwargs: [
                    ("reason".to_string(), json!(reason)),
                    ("run".to_string(), json!(false)),
                ]
                .into_iter()
                .collect(),
                source: MarkerSource::Param,
                location: None,
            },
            "fail_at_collect" => {
                return Err(ExpandError::Collect(format!(
                    "Empty parameter set in '{func_name}'"
                )));
            }
            _ => Marker {
                name: "skip".into(),
                args: vec![],
                kwargs: [("reason".to_string(), json!(reason))]
                    .into_iter()
                    .collect(),
                source: MarkerSource::Param,
                location: None,
            },
        };
        sets.push(ParamSet {
            evaluated: vec![PyValue::Object; n_names],
            explicit: Some(ExplicitId::Param("NOTSET".into())),
            hidden: false,
            marks: vec![Arc::new(mark)],
        });
    }
    Ok(sets)
}

/// pytest's `_validate_ids`: a sized `ids=` must give one id per
/// parameter set (an empty one is allowed).
fn check_id_count(sets: usize, ids: usize, nodeid: &str) -> Result<(), ExpandError> {
    if ids == sets || ids == 0 {
        return Ok(());
    }
    Err(ExpandError::Collect(format!(
        "In {nodeid}: {sets} parameter sets specified, with different number of ids: {ids}"
    )))
}

/// `Metafunc.parametrize`: multiplies the existing calls by the new sets.
/// `parametrized` holds the argnames the existing calls already have (and
/// receives the new ones).
fn apply<'a>(
    project: &Project<'_, 'a>,
    settings: &CollectSettings,
    calls: Option<Vec<CallSpec>>,
    mut call: Parametrization<'a>,
    nodeid: &str,
    parametrized: &mut Vec<String>,
) -> Result<Vec<CallSpec>, ExpandError> {
    if let Some((im, ids_expr)) = call.ids {
        let (im, ids_expr) = project.deref(im, ids_expr);
        match ids_expr {
            Expr::List(ast::ExprList { elts, .. }) | Expr::Tuple(ast::ExprTuple { elts, .. }) => {
                if !elts.iter().any(Expr::is_starred_expr) {
                    check_id_count(call.sets.len(), elts.len(), nodeid)?;
                }
                for (set, id) in call.sets.iter_mut().zip(elts) {
                    if set.explicit.is_some() || set.hidden {
                        continue;
                    }
                    if project.is_hidden_param(im, id) {
                        set.hidden = true;
                        continue;
                    }
                    match project.eval(im, id) {
                        PyValue::None => {}
                        PyValue::Unknown(reason) => {
                            return Err(ExpandError::Dynamic(format!(
                                "an id in ids=[...] is not literal: {reason}"
                            )))
                        }
                        value => set.explicit = Some(ExplicitId::Listed(value)),
                    }
                }
            }
            Expr::NoneLiteral(_) => {}
            _ if matches!(project.resolve_expr(im, ids_expr, 0), crate::project::Entity::Builtin(ref n) if n == "str") =>
            {
                // `ids=str`: each value's id is `str(value)`, escaped.
                for set in &mut call.sets {
                    if set.explicit.is_some() || set.hidden {
                        continue;
                    }
                    let mut parts = Vec::with_capacity(set.evaluated.len());
                    for value in &set.evaluated {
                        let text = match value {
                            PyValue::Str(s) => s.to_string(),
                            PyValue::EnumMember { display } => display.clone(),
                            other => other.scalar_str().ok_or_else(|| {
                                ExpandError::Dynamic(
                                    "ids=str of a value whose str() is not known statically".into(),
                                )
                            })?,
                        };
                        parts.push(text);
                    }
                    set.explicit = Some(ExplicitId::Param(parts.join("-")));
                }
            }
            _ => {
                let evaluator = Evaluator::new(*project);
                match evaluator.eval(im, ids_expr) {
                    callable @ (PyValue::Function { .. } | PyValue::Named(_)) => {
                        // `ids=callable`: called with each value; `None`
                        // or an unsupported type falls back to the value's own id.
                        for set in &mut call.sets {
                            if set.explicit.is_some() || set.hidden {
                                continue;
                            }
                            let mut parts = Vec::with_capacity(set.evaluated.len());
                            for value in &set.evaluated {
                                let id = evaluator.call1(&callable, value.clone());
                                let part = match id {
                                    PyValue::None => None,
                                    other => {
                                        function_id(&other, &settings.ids).map_err(|reason| {
                                            ExpandError::Dynamic(format!(
                                                "the ids callable: {reason}"
                                            ))
                                        })?
                                    }
                                };
                                parts.push(part);
                            }
                            set.explicit = Some(ExplicitId::PerValue(parts));
                        }
                    }
                    PyValue::Unknown(reason) => {
                        return Err(ExpandError::Dynamic(format!("ids: {reason}")))
                    }
                    listed => {
                        let ids = ops_iterate(&listed)
                            .map_err(|reason| ExpandError::Dynamic(format!("ids: {reason}")))?;
                        if matches!(
                            listed,
                            PyValue::Container {
                                kind: ContainerKind::List | ContainerKind::Tuple,
                                ..
                            }
                        ) {
                            check_id_count(call.sets.len(), ids.len(), nodeid)?;
                        }
                        for (set, id) in call.sets.iter_mut().zip(ids) {
                            if set.explicit.is_some() || set.hidden {
                                continue;
                            }
                            match id {
                                PyValue::None => {}
                                PyValue::Named(ref n) if n == "HIDDEN_PARAM" => set.hidden = true,
                                PyValue::Unknown(reason) => {
                                    return Err(ExpandError::Dynamic(format!(
                                        "an id in ids: {reason}"
                                    )))
                                }
                                value => set.explicit = Some(ExplicitId::Listed(value)),
                            }
                        }
                    }
                }
            }
        }
    }
    let inputs: Vec<IdInput<'_>> = call
        .sets
        .iter_mut()
        .map(|set| IdInput {
            explicit: set.explicit.take(),
            values: &set.evaluated,
        })
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
    // Every call has the same argnames, so one check serves them all
    // (there is always at least one set: an empty list gets the NOTSET one).
    if !call.sets.is_empty() {
        for argname in &call.argnames {
            if parametrized.contains(argname) {
                return Err(ExpandError::Collect(format!(
                    "{nodeid}: duplicate parametrization of '{argname}'"
                )));
            }
            parametrized.push(argname.clone());
        }
    }
    // The key only serves `reorder_items`, which definitions skip.
    let keyed = !call.scope.is_function() && !settings.definitions_only;
    let mut ids = ids;
    let single = base.len() == 1;
    let mut out = Vec::with_capacity(base.len() * call.sets.len());
    for spec in &base {
        for (index, set) in call.sets.iter().enumerate() {
            let mut next = spec.clone();
            if keyed {
                for (argname, value) in call.argnames.iter().zip(set.evaluated.iter()) {
                    next.params.push(ParamEntry {
                        argname: argname.clone(),
                        scope: call.scope,
                        key: value_key(value, index),
                    });
                }
            }
            if !set.hidden && index < ids.len() {
                // One base call (the usual case) takes each id as it is.
                let id = if single {
                    std::mem::take(&mut ids[index])
                } else {
                    ids[index].clone()
                };
                if next.has_id {
                    next.id.push('-');
                    next.id.push_str(&id);
                } else {
                    next.id = id;
                    next.has_id = true;
                }
            }
            next.marks.extend(set.marks.iter().cloned());
            out.push(next);
        }
    }
    Ok(out)
}

/// pytest's `ParamValueKey`: hashable values compare by value, others by
/// their index in the parametrize call. A value holding an object or a
/// function compares by identity in Python, which proctor's values do not
/// carry (a function's slot differs between evaluations of one fixture's
/// params), so it too compares by index: every item of one fixture
/// param shares it, as they share the object.
fn value_key(value: &PyValue, index: usize) -> String {
    if by_index(value) {
        format!("#{index}")
    } else {
        format!("{value:?}")
    }
}

fn by_index(value: &PyValue) -> bool {
    match value {
        PyValue::Container {
            kind: ContainerKind::List | ContainerKind::Dict | ContainerKind::Set,
            ..
        }
        | PyValue::Object
        | PyValue::Function { .. }
        | PyValue::Unknown(_) => true,
        PyValue::Container { elements, .. } => elements.iter().any(by_index),
        PyValue::Param(param) => param.values.iter().any(by_index),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::value_key;
    use crate::value::{ContainerKind, PyValue};

    #[test]
    fn a_value_holding_a_function_or_object_is_keyed_by_index() {
        let function = |slot| PyValue::Function {
            name: "always_pass".into(),
            owner: 1,
            slot,
        };
        let tuple = |slot| PyValue::Container {
            kind: ContainerKind::Tuple,
            elements: vec![function(slot), PyValue::Object].into(),
        };
        // The same param evaluated twice (other slots) has one key.
        assert_eq!(value_key(&tuple(3), 2), value_key(&tuple(7), 2));
        assert_eq!(value_key(&tuple(3), 2), "#2");
        assert_eq!(value_key(&PyValue::Object, 0), "#0");
        // Hashable plain values compare by value, whatever their index.
        let ints = PyValue::Container {
            kind: ContainerKind::Tuple,
            elements: vec![PyValue::Int("1".into())].into(),
        };
        assert_eq!(value_key(&ints, 0), value_key(&ints, 5));
    }
}
