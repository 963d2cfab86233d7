//! Statements: the bodies of suite functions the evaluator calls (a
//! helper that builds and returns a parameter list, a generator that
//! yields cases) and the module code that builds a module-level name. A
//! statement whose effect proctor cannot follow (`try`, `with`, `raise`,
//! an import inside a function, assigning an attribute) makes the result
//! unknown with the reason.

use std::cell::RefCell;
use std::rc::Rc;

use ruff_python_ast::{self as ast, Expr, Stmt};

use super::expr::Args;
use super::ops::{self, iterate, truth};
use super::{Callable, Evaluator, Scope, MAX_CALL_DEPTH, MAX_ELEMENTS};
use crate::collector::is_generator;
use crate::value::{ContainerKind, Elements, KeyLookup, PyValue};

/// How a block of statements ended.
pub(super) enum Flow {
    Normal,
    Return(PyValue),
    Break,
    Continue,
}

/// Methods that change a list, set or dict in place.
pub(crate) const MUTATING_METHODS: &[&str] = &[
    "append",
    "extend",
    "insert",
    "add",
    "update",
    "clear",
    "sort",
    "reverse",
    "remove",
    "discard",
    "setdefault",
    "pop",
];

/// Changes `value` in place as `value.method(*args)` would.
fn mutate(value: &mut PyValue, method: &str, args: &Args) -> Result<(), String> {
    let arg = |i: usize| {
        args.positional
            .get(i)
            .ok_or_else(|| format!("{method}() without its argument"))
    };
    match (value, method) {
        (
            PyValue::Container {
                kind: ContainerKind::List,
                elements,
            },
            "append",
        ) => elements.push(arg(0)?.clone()),
        (
            PyValue::Container {
                kind: ContainerKind::List,
                elements,
            },
            "extend",
        ) => elements.extend(iterate(arg(0)?)?),
        (
            PyValue::Container {
                kind: ContainerKind::List,
                elements,
            },
            "insert",
        ) => {
            let len = i128::try_from(elements.len()).unwrap_or(i128::MAX);
            let at = ops::int(arg(0)?).ok_or("insert() at a position that is not an integer")?;
            let at = if at < 0 {
                (at + len).max(0)
            } else {
                at.min(len)
            };
            elements.insert(usize::try_from(at).unwrap_or(0), arg(1)?.clone());
        }
        (
            PyValue::Container {
                kind: ContainerKind::List,
                elements,
            },
            "reverse",
        ) => elements.reverse(),
        (PyValue::Container { elements, .. }, "clear") => elements.clear(),
        (
            set @ PyValue::Container {
                kind: ContainerKind::Set,
                ..
            },
            "add" | "update",
        ) => {
            let PyValue::Container { elements, .. } = &*set else {
                unreachable!("matched a set")
            };
            let mut all = elements.to_vec();
            if method == "add" {
                all.push(arg(0)?.clone());
            } else {
                for other in &args.positional {
                    all.extend(iterate(other)?);
                }
            }
            *set = ops::make_set(all);
        }
        (
            dict @ PyValue::Container {
                kind: ContainerKind::Dict,
                ..
            },
            "update",
        ) => {
            let PyValue::Container { elements, .. } = &*dict else {
                unreachable!("matched a dict")
            };
            let mut pairs = elements.to_vec();
            match args.positional.first() {
                Some(PyValue::Container {
                    kind: ContainerKind::Dict,
                    elements,
                }) => pairs.extend(elements.iter().cloned()),
                Some(other) => pairs.extend(iterate(other)?),
                None => {}
            }
            pairs.extend(args.keywords.iter().map(|(k, v)| PyValue::Container {
                kind: ContainerKind::Tuple,
                elements: vec![PyValue::str(k.clone()), v.clone()].into(),
            }));
            *dict = ops::make_dict(pairs);
        }
        (PyValue::Unknown(reason), _) => return Err(reason.clone()),
        (_, method) => {
            return Err(format!(
                "`.{method}()` changing a value in a way proctor does not follow"
            ))
        }
    }
    Ok(())
}

/// Where a dict's entries hold a key.
enum DictSlot {
    At(usize),
    Absent,
}

/// Where a dict's entries hold `key`, when a string key makes that
/// certain; `None` otherwise.
fn dict_slot(entries: &Elements, key: &PyValue) -> Option<DictSlot> {
    let PyValue::Str(text) = key else {
        return None;
    };
    match entries.str_key_position(text) {
        KeyLookup::Found(at) => return Some(DictSlot::At(at)),
        KeyLookup::Missing => return Some(DictSlot::Absent),
        KeyLookup::Unindexed => {}
    }
    for (at, entry) in entries.iter().enumerate() {
        let (k, _) = ops::pair_ref(entry)?;
        if ops::equal(k, key)? {
            return Some(DictSlot::At(at));
        }
    }
    Some(DictSlot::Absent)
}

fn check_size(value: &PyValue) -> Result<(), String> {
    match value {
        PyValue::Container { elements, .. } if elements.len() > MAX_ELEMENTS => {
            Err("a value too large to compute statically".to_owned())
        }
        _ => Ok(()),
    }
}

impl<'a> Evaluator<'_, 'a> {
    /// Calls a suite function: its parameters bound, its body run. A
    /// generator's yields become a list (pytest iterates it once).
    pub(super) fn call_function(
        &self,
        module: usize,
        def: &'a ast::StmtFunctionDef,
        scope: Option<&Rc<Scope>>,
        args: Args,
    ) -> PyValue {
        let name = def.name.id.as_str();
        if def.is_async {
            return PyValue::Unknown(format!("`{name}` is a coroutine function"));
        }
        let transparent = |d: &ast::Decorator| {
            let path = self.project.external_path(
                module,
                match &d.expression {
                    Expr::Call(call) => &call.func,
                    other => other,
                },
            );
            matches!(
                path.as_deref(),
                Some("functools.cache" | "functools.lru_cache" | "staticmethod" | "classmethod")
            ) || matches!(&d.expression, Expr::Name(n) if n.id.as_str() == "staticmethod")
        };
        if !def.decorator_list.iter().all(transparent) {
            return PyValue::Unknown(format!("`{name}` is decorated"));
        }
        let calls = self.calls.get();
        if calls >= MAX_CALL_DEPTH {
            return PyValue::Unknown("calls nested too deeply".to_owned());
        }
        let local = Scope::child(scope);
        if let Err(reason) = self.bind_parameters(module, &local, Some(&def.parameters), args) {
            return PyValue::Unknown(format!("calling `{name}`: {reason}"));
        }
        let body = self.project.body(module, def);
        let yields = is_generator(body).then(|| RefCell::new(Vec::new()));
        self.calls.set(calls + 1);
        let flow = self.block(module, &local, body, yields.as_ref(), false);
        self.calls.set(calls);
        match (flow, yields) {
            // The innermost call names itself; outer calls add nothing.
            (Err(reason), _) if reason.starts_with("calling `") => PyValue::Unknown(reason),
            (Err(reason), _) => PyValue::Unknown(format!("calling `{name}`: {reason}")),
            (Ok(_), Some(yields)) => PyValue::Container {
                kind: ContainerKind::List,
                elements: yields.into_inner().into(),
            },
            (Ok(Flow::Return(value)), None) => value,
            (Ok(_), None) => PyValue::None,
        }
    }

    /// Runs `body`. At module level (`module_level`), definitions and
    /// imports are left to the module's name table.
    pub(super) fn block(
        &self,
        module: usize,
        scope: &Rc<Scope>,
        body: &'a [Stmt],
        yields: Option<&RefCell<Vec<PyValue>>>,
        module_level: bool,
    ) -> Result<Flow, String> {
        for stmt in body {
            if !self.step() {
                return Err("the value takes too many steps to compute statically".to_owned());
            }
            match self.statement(module, scope, stmt, yields, module_level)? {
                Flow::Normal => {}
                other => return Ok(other),
            }
        }
        Ok(Flow::Normal)
    }

    fn value(&self, module: usize, scope: &Rc<Scope>, expr: &'a Expr) -> Result<PyValue, String> {
        match self.expr(module, Some(scope), expr) {
            PyValue::Unknown(reason) => Err(reason),
            value => {
                check_size(&value)?;
                Ok(value)
            }
        }
    }

    /// The current value of a name: local, else module-level.
    fn current(&self, module: usize, scope: &Rc<Scope>, name: &str) -> PyValue {
        scope.get(name).unwrap_or_else(|| self.global(module, name))
    }

    #[expect(
        clippy::too_many_lines,
        reason = "one arm per statement kind reads best in one place"
    )]
    fn statement(
        &self,
        module: usize,
        scope: &Rc<Scope>,
        stmt: &'a Stmt,
        yields: Option<&RefCell<Vec<PyValue>>>,
        module_level: bool,
    ) -> Result<Flow, String> {
        match stmt {
            Stmt::Pass(_) => {}
            Stmt::Expr(ast::StmtExpr { value, .. }) => match value.as_ref() {
                Expr::StringLiteral(_) | Expr::EllipsisLiteral(_) => {}
                Expr::Yield(y) => {
                    let v = match &y.value {
                        Some(v) => self.value(module, scope, v)?,
                        None => PyValue::None,
                    };
                    let yields = yields.ok_or("`yield` outside a generator")?;
                    yields.borrow_mut().push(v);
                    if yields.borrow().len() > MAX_ELEMENTS {
                        return Err("a generator too long to run statically".to_owned());
                    }
                }
                Expr::YieldFrom(y) => {
                    let items = iterate(&self.value(module, scope, &y.value)?)?;
                    yields
                        .ok_or("`yield from` outside a generator")?
                        .borrow_mut()
                        .extend(items);
                }
                Expr::Call(call) => {
                    if let Expr::Attribute(attr) = call.func.as_ref() {
                        if let Expr::Name(target) = attr.value.as_ref() {
                            let method = attr.attr.id.as_str();
                            if MUTATING_METHODS.contains(&method) {
                                let args = self.args(module, Some(scope), &call.arguments)?;
                                let name = target.id.as_str();
                                let mut failure = None;
                                let mut change = |value: &mut PyValue| {
                                    if let Err(reason) = mutate(value, method, &args)
                                        .and_then(|()| check_size(value))
                                    {
                                        failure = Some(reason);
                                    }
                                };
                                if !scope.update(name, &mut change)
                                    && !self.update_global(module, name, &mut change)
                                {
                                    return Err(format!(
                                        "`{name}.{method}(...)` on a name that is not local"
                                    ));
                                }
                                return failure.map_or(Ok(Flow::Normal), Err);
                            }
                        }
                    }
                    self.value(module, scope, value)?;
                }
                other => {
                    self.value(module, scope, other)?;
                }
            },
            Stmt::Assign(assign) => {
                let value = self.value(module, scope, &assign.value)?;
                for target in &assign.targets {
                    self.assign(module, scope, target, value.clone())?;
                }
            }
            Stmt::AnnAssign(assign) => {
                if let Some(value) = &assign.value {
                    let value = self.value(module, scope, value)?;
                    self.assign(module, scope, &assign.target, value)?;
                }
            }
            Stmt::AugAssign(assign) => {
                let Expr::Name(target) = assign.target.as_ref() else {
                    return Err("an augmented assignment to something other than a name".to_owned());
                };
                let name = target.id.as_str();
                let current = self.current(module, scope, name);
                let right = self.value(module, scope, &assign.value)?;
                let new = match (&current, assign.op) {
                    // `items += iterable` extends the list in place.
                    (
                        PyValue::Container {
                            kind: ContainerKind::List,
                            elements,
                        },
                        ast::Operator::Add,
                    ) => {
                        let mut elements = elements.clone();
                        elements.extend(iterate(&right)?);
                        PyValue::Container {
                            kind: ContainerKind::List,
                            elements,
                        }
                    }
                    _ => ops::binary(assign.op, &current, &right),
                };
                if let PyValue::Unknown(reason) = new {
                    return Err(reason);
                }
                check_size(&new)?;
                scope.set(name, new);
            }
            Stmt::Return(ret) => {
                let value = match &ret.value {
                    Some(v) => self.value(module, scope, v)?,
                    None => PyValue::None,
                };
                return Ok(Flow::Return(value));
            }
            Stmt::If(stmt_if) => {
                if truth(&self.value(module, scope, &stmt_if.test)?)? {
                    return self.block(module, scope, &stmt_if.body, yields, module_level);
                }
                for clause in &stmt_if.elif_else_clauses {
                    let taken = match &clause.test {
                        Some(test) => truth(&self.value(module, scope, test)?)?,
                        None => true,
                    };
                    if taken {
                        return self.block(module, scope, &clause.body, yields, module_level);
                    }
                }
            }
            Stmt::For(stmt_for) => {
                if stmt_for.is_async {
                    return Err("an async for loop".to_owned());
                }
                let items = iterate(&self.value(module, scope, &stmt_for.iter)?)?;
                let mut broke = false;
                for item in items {
                    Self::bind(scope, &stmt_for.target, item)?;
                    match self.block(module, scope, &stmt_for.body, yields, module_level)? {
                        Flow::Break => {
                            broke = true;
                            break;
                        }
                        Flow::Return(value) => return Ok(Flow::Return(value)),
                        Flow::Normal | Flow::Continue => {}
                    }
                }
                if !broke {
                    return self.block(module, scope, &stmt_for.orelse, yields, module_level);
                }
            }
            Stmt::While(stmt_while) => loop {
                if !truth(&self.value(module, scope, &stmt_while.test)?)? {
                    return self.block(module, scope, &stmt_while.orelse, yields, module_level);
                }
                if !self.step() {
                    return Err("a loop that takes too many steps to run statically".to_owned());
                }
                match self.block(module, scope, &stmt_while.body, yields, module_level)? {
                    Flow::Break => break,
                    Flow::Return(value) => return Ok(Flow::Return(value)),
                    Flow::Normal | Flow::Continue => {}
                }
            },
            Stmt::Break(_) => return Ok(Flow::Break),
            Stmt::Continue(_) => return Ok(Flow::Continue),
            Stmt::FunctionDef(def) if !module_level => {
                let value = self.register(
                    Callable::Function {
                        module,
                        def,
                        scope: Some(scope.clone()),
                    },
                    def.name.id.as_str().to_owned(),
                );
                scope.set(def.name.id.as_str(), value);
            }
            Stmt::Assert(assert) => {
                // A failing assertion raises: nothing after it happens.
                if let Ok(false) = truth(&self.expr(module, Some(scope), &assert.test)) {
                    return Err("an assertion that fails".to_owned());
                }
            }
            Stmt::FunctionDef(_) | Stmt::ClassDef(_) | Stmt::Import(_) | Stmt::ImportFrom(_)
                if module_level => {}
            Stmt::Raise(_) => return Err("code that raises an exception".to_owned()),
            Stmt::Try(_) => return Err("a `try` statement".to_owned()),
            Stmt::With(_) => return Err("a `with` statement".to_owned()),
            Stmt::Import(_) | Stmt::ImportFrom(_) => {
                return Err("an import inside a function".to_owned())
            }
            Stmt::Global(_) | Stmt::Nonlocal(_) => {
                return Err("a `global` or `nonlocal` statement".to_owned())
            }
            _ => return Err("a statement proctor does not run statically".to_owned()),
        }
        Ok(Flow::Normal)
    }

    fn assign(
        &self,
        module: usize,
        scope: &Rc<Scope>,
        target: &'a Expr,
        value: PyValue,
    ) -> Result<(), String> {
        match target {
            Expr::Subscript(subscript) => {
                let Expr::Name(name) = subscript.value.as_ref() else {
                    return Err("an item assignment proctor does not follow".to_owned());
                };
                let key = self.value(module, scope, &subscript.slice)?;
                let mut failure = None;
                let mut change = |container: &mut PyValue| match container {
                    PyValue::Container {
                        kind: ContainerKind::Dict,
                        elements,
                    } => match dict_slot(elements, &key) {
                        // Set in place, without rebuilding the dict.
                        Some(DictSlot::At(at)) => elements.set_entry_value(at, value.clone()),
                        Some(DictSlot::Absent) => elements.push_entry(PyValue::Container {
                            kind: ContainerKind::Tuple,
                            elements: vec![key.clone(), value.clone()].into(),
                        }),
                        None => {
                            let mut pairs = std::mem::take(elements).into_vec();
                            pairs.push(PyValue::Container {
                                kind: ContainerKind::Tuple,
                                elements: vec![key.clone(), value.clone()].into(),
                            });
                            *container = ops::make_dict(pairs);
                            if let PyValue::Unknown(reason) = container {
                                failure = Some(reason.clone());
                            }
                        }
                    },
                    PyValue::Container {
                        kind: ContainerKind::List,
                        elements,
                    } => {
                        let len = i128::try_from(elements.len()).unwrap_or(i128::MAX);
                        match ops::int(&key)
                            .map(|i| if i < 0 { i + len } else { i })
                            .and_then(|i| usize::try_from(i).ok())
                        {
                            Some(i) if i < elements.len() => elements[i] = value.clone(),
                            _ => failure = Some("a list index out of range".to_owned()),
                        }
                    }
                    _ => failure = Some("an item assignment proctor does not follow".to_owned()),
                };
                if !scope.update(name.id.as_str(), &mut change)
                    && !self.update_global(module, name.id.as_str(), &mut change)
                {
                    return Err("an item assignment to a name that is not local".to_owned());
                }
                failure.map_or(Ok(()), Err)
            }
            Expr::Attribute(_) => Err("an attribute assignment".to_owned()),
            _ => Self::bind(scope, target, value),
        }
    }
}
