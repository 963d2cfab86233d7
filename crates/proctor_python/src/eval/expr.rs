//! Expressions: literals, names, attributes, calls, comprehensions,
//! operators, subscripts and f-strings.

use std::rc::Rc;

use ruff_python_ast::{self as ast, Expr, UnaryOp};

use super::ops::{self, truth};
use super::{Callable, Evaluator, Scope, MAX_CALL_DEPTH, MAX_ELEMENTS, MAX_EXPR_DEPTH};
use crate::namespace::Binding;
use crate::project::{number_value, Entity, EnumKind};
use crate::value::{ContainerKind, MarkValue, ParamValue, PyValue};

/// Arguments of a call, evaluated.
pub(super) struct Args {
    pub(super) positional: Vec<PyValue>,
    pub(super) keywords: Vec<(String, PyValue)>,
}

impl<'a> Evaluator<'_, 'a> {
    /// The value of `expr` in module `module`, with local variables from
    /// `scope`.
    pub(super) fn expr(&self, module: usize, scope: Option<&Rc<Scope>>, expr: &'a Expr) -> PyValue {
        if !self.step() {
            return Self::out_of_budget();
        }
        let depth = self.depth.get();
        if depth > MAX_EXPR_DEPTH {
            return PyValue::Unknown("expression nested too deeply".to_owned());
        }
        self.depth.set(depth + 1);
        let value = self.expr_inner(module, scope, expr);
        self.depth.set(depth);
        value
    }

    fn expr_inner(&self, module: usize, scope: Option<&Rc<Scope>>, expr: &'a Expr) -> PyValue {
        if self.literal_only
            && matches!(
                expr,
                Expr::Call(_)
                    | Expr::ListComp(_)
                    | Expr::SetComp(_)
                    | Expr::DictComp(_)
                    | Expr::Generator(_)
                    | Expr::Lambda(_)
            )
        {
            return PyValue::Unknown("a computed value".to_owned());
        }
        match expr {
            Expr::NoneLiteral(_) => PyValue::None,
            Expr::BooleanLiteral(b) => PyValue::Bool(b.value),
            Expr::NumberLiteral(n) => number_value(&n.value, false),
            Expr::StringLiteral(s) => PyValue::str(s.value.to_str()),
            Expr::BytesLiteral(b) => PyValue::Bytes(b.value.bytes().collect()),
            Expr::EllipsisLiteral(_) => PyValue::Object,
            Expr::UnaryOp(op) => match (op.op, op.operand.as_ref()) {
                // Literal negative numbers keep their exact text.
                (UnaryOp::USub, Expr::NumberLiteral(n)) => number_value(&n.value, true),
                (UnaryOp::Not, operand) => match truth(&self.expr(module, scope, operand)) {
                    Ok(b) => PyValue::Bool(!b),
                    Err(reason) => PyValue::Unknown(reason),
                },
                (op, operand) => ops::unary(op, &self.expr(module, scope, operand)),
            },
            Expr::List(ast::ExprList { elts, .. }) => {
                self.sequence(module, scope, ContainerKind::List, elts)
            }
            Expr::Tuple(ast::ExprTuple { elts, .. }) => {
                self.sequence(module, scope, ContainerKind::Tuple, elts)
            }
            Expr::Set(ast::ExprSet { elts, .. }) => {
                match self.sequence(module, scope, ContainerKind::List, elts) {
                    PyValue::Container { elements, .. } => ops::make_set(elements.into_vec()),
                    other => other,
                }
            }
            Expr::Dict(dict) => self.dict(module, scope, dict),
            Expr::Lambda(lambda) => self.register(
                Callable::Lambda {
                    module,
                    lambda,
                    scope: scope.cloned(),
                },
                "<lambda>".to_owned(),
            ),
            Expr::FString(f) => self.fstring(module, scope, f),
            Expr::Name(name) => match scope {
                Some(scope) => scope
                    .get(name.id.as_str())
                    .unwrap_or_else(|| self.global(module, name.id.as_str())),
                // Module or class level: a class body's names come first.
                None => self
                    .class_name(module, name.id.as_str(), name.range)
                    .unwrap_or_else(|| self.global(module, name.id.as_str())),
            },
            Expr::Attribute(attr) => self.attribute(module, scope, expr, attr),
            Expr::Call(call) => self.call(module, scope, call),
            Expr::BinOp(binop) => {
                let left = self.expr(module, scope, &binop.left);
                let right = self.expr(module, scope, &binop.right);
                ops::binary(binop.op, &left, &right)
            }
            Expr::BoolOp(boolop) => {
                let mut last = PyValue::None;
                for value in &boolop.values {
                    last = self.expr(module, scope, value);
                    let truthy = match truth(&last) {
                        Ok(b) => b,
                        Err(reason) => return PyValue::Unknown(reason),
                    };
                    let stop = match boolop.op {
                        ast::BoolOp::And => !truthy,
                        ast::BoolOp::Or => truthy,
                    };
                    if stop {
                        break;
                    }
                }
                last
            }
            Expr::Compare(compare) => {
                let mut left = self.expr(module, scope, &compare.left);
                for (op, right) in compare.ops.iter().zip(compare.comparators.iter()) {
                    let right = self.expr(module, scope, right);
                    match ops::compare(*op, &left, &right) {
                        Ok(true) => left = right,
                        Ok(false) => return PyValue::Bool(false),
                        Err(reason) => return PyValue::Unknown(reason),
                    }
                }
                PyValue::Bool(true)
            }
            Expr::If(ternary) => match truth(&self.expr(module, scope, &ternary.test)) {
                Ok(true) => self.expr(module, scope, &ternary.body),
                Ok(false) => self.expr(module, scope, &ternary.orelse),
                Err(reason) => PyValue::Unknown(reason),
            },
            Expr::Subscript(subscript) => {
                let value = self.expr(module, scope, &subscript.value);
                if let Expr::Slice(slice) = subscript.slice.as_ref() {
                    let bound = |e: &'a Option<Box<Expr>>| {
                        e.as_deref().map(|e| self.expr(module, scope, e))
                    };
                    let (lower, upper, step) =
                        (bound(&slice.lower), bound(&slice.upper), bound(&slice.step));
                    return ops::slice(&value, lower.as_ref(), upper.as_ref(), step.as_ref());
                }
                let index = self.expr(module, scope, &subscript.slice);
                ops::subscript(&value, &index)
            }
            Expr::ListComp(comp) => self
                .comprehension(module, scope, &comp.generators, &mut |s| {
                    Some(self.expr(module, Some(s), &comp.elt))
                })
                .map_or_else(PyValue::Unknown, |elements| PyValue::Container {
                    kind: ContainerKind::List,
                    elements: elements.into(),
                }),
            Expr::Generator(comp) => self
                .comprehension(module, scope, &comp.generators, &mut |s| {
                    Some(self.expr(module, Some(s), &comp.elt))
                })
                // A generator is consumed once, as a list would be iterated.
                .map_or_else(PyValue::Unknown, |elements| PyValue::Container {
                    kind: ContainerKind::Lazy,
                    elements: elements.into(),
                }),
            Expr::SetComp(comp) => self
                .comprehension(module, scope, &comp.generators, &mut |s| {
                    Some(self.expr(module, Some(s), &comp.elt))
                })
                .map_or_else(PyValue::Unknown, ops::make_set),
            Expr::DictComp(comp) => {
                let pairs = self.comprehension(module, scope, &comp.generators, &mut |s| {
                    let key = comp.key.as_deref().map_or(
                        PyValue::Unknown("`**` in a dict comprehension".to_owned()),
                        |k| self.expr(module, Some(s), k),
                    );
                    let value = self.expr(module, Some(s), &comp.value);
                    Some(PyValue::Container {
                        kind: ContainerKind::Tuple,
                        elements: vec![key, value].into(),
                    })
                });
                pairs.map_or_else(PyValue::Unknown, ops::make_dict)
            }
            Expr::Named(named) => {
                let value = self.expr(module, scope, &named.value);
                match (scope, named.target.as_ref()) {
                    (Some(scope), Expr::Name(name)) => {
                        scope.set(name.id.as_str(), value.clone());
                        value
                    }
                    _ => PyValue::Unknown(
                        "an assignment expression outside a local scope".to_owned(),
                    ),
                }
            }
            Expr::Starred(_) => PyValue::Unknown("`*` unpacking here".to_owned()),
            _ => PyValue::Unknown("an expression proctor does not evaluate statically".to_owned()),
        }
    }

    /// The elements of a list, tuple or set display, with `*` unpacking.
    fn sequence(
        &self,
        module: usize,
        scope: Option<&Rc<Scope>>,
        kind: ContainerKind,
        elts: &'a [Expr],
    ) -> PyValue {
        let mut elements = Vec::with_capacity(elts.len());
        for elt in elts {
            if let Expr::Starred(starred) = elt {
                match ops::iterate_owned(self.expr(module, scope, &starred.value)) {
                    Ok(items) => elements.extend(items),
                    Err(reason) => return PyValue::Unknown(reason),
                }
            } else {
                elements.push(self.expr(module, scope, elt));
            }
            if elements.len() > MAX_ELEMENTS {
                return ops::too_large();
            }
        }
        PyValue::Container {
            kind,
            elements: elements.into(),
        }
    }

    fn dict(&self, module: usize, scope: Option<&Rc<Scope>>, dict: &'a ast::ExprDict) -> PyValue {
        let mut pairs = Vec::with_capacity(dict.items.len());
        for item in &dict.items {
            match &item.key {
                Some(key) => pairs.push(PyValue::Container {
                    kind: ContainerKind::Tuple,
                    elements: vec![
                        self.expr(module, scope, key),
                        self.expr(module, scope, &item.value),
                    ]
                    .into(),
                }),
                None => match self.expr(module, scope, &item.value) {
                    PyValue::Container {
                        kind: ContainerKind::Dict,
                        elements,
                    } => pairs.extend(elements),
                    PyValue::Unknown(reason) => return PyValue::Unknown(reason),
                    _ => return PyValue::Unknown("`**` of a value that is not a dict".to_owned()),
                },
            }
        }
        ops::make_dict(pairs)
    }

    /// Runs the generators of a comprehension, calling `element` for each
    /// combination that passes the `if` clauses.
    fn comprehension(
        &self,
        module: usize,
        scope: Option<&Rc<Scope>>,
        generators: &'a [ast::Comprehension],
        element: &mut dyn FnMut(&Rc<Scope>) -> Option<PyValue>,
    ) -> Result<Vec<PyValue>, String> {
        // The first iterable is evaluated where the comprehension is
        // written (a class body's names are visible there, and only there).
        let first = match generators.first() {
            Some(first) if !first.is_async => {
                Some(ops::iterate_owned(self.expr(module, scope, &first.iter))?)
            }
            _ => None,
        };
        let inner = Scope::child(scope);
        // One `for` and no `if`: one element per item, known at once.
        let mut out = match (&first, generators) {
            (Some(items), [only]) if only.ifs.is_empty() => Vec::with_capacity(items.len()),
            _ => Vec::new(),
        };
        self.generate(module, &inner, generators, first, element, &mut out)?;
        Ok(out)
    }

    fn generate(
        &self,
        module: usize,
        scope: &Rc<Scope>,
        generators: &'a [ast::Comprehension],
        first_items: Option<Vec<PyValue>>,
        element: &mut dyn FnMut(&Rc<Scope>) -> Option<PyValue>,
        out: &mut Vec<PyValue>,
    ) -> Result<(), String> {
        let Some((first, rest)) = generators.split_first() else {
            if let Some(value) = element(scope) {
                if let PyValue::Unknown(reason) = value {
                    return Err(reason);
                }
                out.push(value);
                if out.len() > MAX_ELEMENTS {
                    return Err("a comprehension too large to expand statically".to_owned());
                }
            }
            return Ok(());
        };
        if first.is_async {
            return Err("an async comprehension".to_owned());
        }
        let items = match first_items {
            Some(items) => items,
            None => ops::iterate_owned(self.expr(module, Some(scope), &first.iter))?,
        };
        'items: for item in items {
            if !self.step() {
                return Err("the value takes too many steps to compute statically".to_owned());
            }
            Self::bind(scope, &first.target, item)?;
            for condition in &first.ifs {
                if !truth(&self.expr(module, Some(scope), condition))? {
                    continue 'items;
                }
            }
            self.generate(module, scope, rest, None, element, out)?;
        }
        Ok(())
    }

    /// Binds an assignment or loop target (a name, or a tuple or list of
    /// targets, with one `*` at most).
    pub(super) fn bind(scope: &Rc<Scope>, target: &'a Expr, value: PyValue) -> Result<(), String> {
        match target {
            Expr::Name(name) => {
                scope.set(name.id.as_str(), value);
                Ok(())
            }
            Expr::Tuple(ast::ExprTuple { elts, .. }) | Expr::List(ast::ExprList { elts, .. }) => {
                let items = ops::iterate_owned(value)?;
                let star = elts.iter().position(|e| matches!(e, Expr::Starred(_)));
                match star {
                    None if items.len() == elts.len() => {
                        for (elt, item) in elts.iter().zip(items) {
                            Self::bind(scope, elt, item)?;
                        }
                        Ok(())
                    }
                    None => Err(format!(
                        "cannot unpack {} values into {} names",
                        items.len(),
                        elts.len()
                    )),
                    Some(at) if items.len() + 1 >= elts.len() => {
                        let after = elts.len() - at - 1;
                        let mut items = items;
                        let tail = items.split_off(items.len() - after);
                        let middle = items.split_off(at);
                        for (elt, item) in elts[..at].iter().zip(items) {
                            Self::bind(scope, elt, item)?;
                        }
                        if let Expr::Starred(starred) = &elts[at] {
                            Self::bind(
                                scope,
                                &starred.value,
                                PyValue::Container {
                                    kind: ContainerKind::List,
                                    elements: middle.into(),
                                },
                            )?;
                        }
                        for (elt, item) in elts[at + 1..].iter().zip(tail) {
                            Self::bind(scope, elt, item)?;
                        }
                        Ok(())
                    }
                    Some(_) => Err("not enough values to unpack".to_owned()),
                }
            }
            _ => Err("an assignment target proctor does not follow".to_owned()),
        }
    }

    fn fstring(
        &self,
        module: usize,
        scope: Option<&Rc<Scope>>,
        f: &'a ast::ExprFString,
    ) -> PyValue {
        let mut text = String::new();
        for part in &f.value {
            match part {
                ast::FStringPart::Literal(lit) => text.push_str(&lit.value),
                ast::FStringPart::FString(fs) => {
                    if let Err(reason) = self.interpolate(module, scope, &fs.elements, &mut text) {
                        return PyValue::Unknown(reason);
                    }
                }
            }
        }
        PyValue::str(text)
    }

    fn interpolate(
        &self,
        module: usize,
        scope: Option<&Rc<Scope>>,
        elements: &'a ast::InterpolatedStringElements,
        text: &mut String,
    ) -> Result<(), String> {
        for element in elements {
            match element {
                ast::InterpolatedStringElement::Literal(lit) => text.push_str(&lit.value),
                ast::InterpolatedStringElement::Interpolation(inner) => {
                    if inner.debug_text.is_some() {
                        return Err("an f-string with `=`".to_owned());
                    }
                    let value = self.expr(module, scope, &inner.expression);
                    let value = match inner.conversion {
                        ast::ConversionFlag::None => value,
                        ast::ConversionFlag::Str => PyValue::str(super::text::str_of(&value)?),
                        ast::ConversionFlag::Repr => PyValue::str(super::text::repr(&value)?),
                        ast::ConversionFlag::Ascii => {
                            return Err("an f-string with `!a`".to_owned())
                        }
                    };
                    let mut spec = String::new();
                    if let Some(format_spec) = &inner.format_spec {
                        self.interpolate(module, scope, &format_spec.elements, &mut spec)?;
                    }
                    text.push_str(&super::text::format_value(&value, &spec)?);
                    if text.len() > super::MAX_TEXT {
                        return Err("a string too large to build statically".to_owned());
                    }
                }
            }
        }
        Ok(())
    }

    /// `base.name` where `base` is a local value, else a reference resolved
    /// through the module's names and imports.
    fn attribute(
        &self,
        module: usize,
        scope: Option<&Rc<Scope>>,
        expr: &'a Expr,
        attr: &'a ast::ExprAttribute,
    ) -> PyValue {
        let name = attr.attr.id.as_str();
        if !matches!(attr.value.as_ref(), Expr::Name(_) | Expr::Attribute(_)) {
            // `pair[0].__name__`, `make()(...).attr`: of the value.
            let base = self.expr(module, scope, &attr.value);
            return self.attribute_of(base, name);
        }
        if let Some(base) = self.local_base(scope, &attr.value) {
            return self.attribute_of(base, name);
        }
        if scope.is_none() {
            if let Some(base) = self.class_base(module, &attr.value) {
                return self.attribute_of(base, name);
            }
        }
        self.reference(module, expr, Some(attr))
    }

    /// The value of the leftmost name of `expr` when a local scope binds it.
    fn local_base(&self, scope: Option<&Rc<Scope>>, expr: &'a Expr) -> Option<PyValue> {
        match expr {
            Expr::Name(name) => scope?.get(name.id.as_str()),
            Expr::Attribute(attr) => {
                let base = self.local_base(scope, &attr.value)?;
                Some(self.attribute_of(base, attr.attr.id.as_str()))
            }
            _ => None,
        }
    }

    /// An attribute of a value: a bound method of a builtin type.
    pub(super) fn attribute_of(&self, base: PyValue, name: &str) -> PyValue {
        match &base {
            PyValue::Unknown(_) => base,
            PyValue::Str(_) | PyValue::Bytes(_) | PyValue::Container { .. } => {
                if super::builtins::is_method(&base, name) {
                    self.register(
                        Callable::Method {
                            receiver: base,
                            name: name.to_owned(),
                        },
                        name.to_owned(),
                    )
                } else {
                    PyValue::Unknown(format!("attribute `{name}` of a value"))
                }
            }
            PyValue::Path(path) => super::paths::attribute(path, name),
            // A class: `__name__` is what pytest's id reads.
            PyValue::Named(own) if name == "__name__" => PyValue::str(own.clone()),
            PyValue::Function { name: own, .. } => match self.callable(&base) {
                // A module's `__name__` is its dotted name, and its other
                // attributes (and a class's) are looked up in its body.
                Some(callable) if name != "__name__" || matches!(callable, Callable::Module(_)) => {
                    self.object_attribute(&callable, name).unwrap_or_else(|| {
                        PyValue::Unknown(format!("attribute `{name}` of a value"))
                    })
                }
                // A function's or class's `__name__` is its own name.
                _ if name == "__name__" => PyValue::str(own.clone()),
                _ => PyValue::Unknown(format!("attribute `{name}` of a value")),
            },
            PyValue::Param(param) => match name {
                "values" => PyValue::Container {
                    kind: ContainerKind::Tuple,
                    elements: param.values.clone().into(),
                },
                "id" => param.id.clone().unwrap_or(PyValue::None),
                _ => PyValue::Unknown(format!("attribute `{name}` of a pytest.param")),
            },
            _ => PyValue::Unknown(format!("attribute `{name}` of a value")),
        }
    }

    /// A module-level name of `module`.
    pub(super) fn global(&self, module: usize, name: &str) -> PyValue {
        let entity = self.project.resolve_name(module, name, 0);
        self.entity_value(entity)
    }

    /// A name or attribute chain resolved through the module's names;
    /// what resolves to a definition or outside the suite is kept (see
    /// [`Evaluator::references`]).
    fn reference(
        &self,
        module: usize,
        expr: &'a Expr,
        attr: Option<&'a ast::ExprAttribute>,
    ) -> PyValue {
        let key = (module, std::ptr::from_ref(expr) as usize);
        if let Some(known) = self.references.borrow().get(&key) {
            return known.clone();
        }
        let outer_read_target = self.read_target.replace(false);
        let (value, kept) = self.resolve_reference(module, expr, attr);
        let from_target = self.read_target.get();
        self.read_target.set(outer_read_target || from_target);
        if kept && !from_target {
            self.references.borrow_mut().insert(key, value.clone());
        }
        value
    }

    /// [`Evaluator::reference`] resolved, and whether it may be kept.
    fn resolve_reference(
        &self,
        module: usize,
        expr: &'a Expr,
        attr: Option<&'a ast::ExprAttribute>,
    ) -> (PyValue, bool) {
        // An enum member: `Color.RED` where `Color` is an Enum of the suite.
        if let Some(attr) = attr {
            if let Entity::Class { module: cm, def } =
                self.project.resolve_expr(module, &attr.value, 0)
            {
                if let Some(kind) = self.project.enum_kind(cm, def, 0) {
                    let member = attr.attr.id.as_str();
                    if let Some(Binding::Value { expr: value, .. }) =
                        self.project.class_ns(def).get(member)
                    {
                        let value = match kind {
                            EnumKind::Plain => PyValue::EnumMember {
                                display: format!("{}.{member}", def.name.id.as_str()),
                            },
                            EnumKind::ValueStr => match self.expr(cm, None, value) {
                                PyValue::Int(display) => PyValue::EnumMember {
                                    display: display.into(),
                                },
                                PyValue::Str(display) => PyValue::EnumMember {
                                    display: display.into_string(),
                                },
                                _ => PyValue::Unknown(format!("value of enum member `{member}`")),
                            },
                            EnumKind::MixedStr => match self.expr(cm, None, value) {
                                // `class X(str, Enum)`: a str, so its id is the escaped value.
                                PyValue::Str(text) => PyValue::Str(text),
                                _ => PyValue::Unknown(format!("value of enum member `{member}`")),
                            },
                        };
                        return (value, false);
                    }
                }
            }
        }
        let entity = self.project.resolve_expr(module, expr, 0);
        if let (Entity::Unknown(_), Some(attr)) = (&entity, attr) {
            // An attribute of a value (`CASES.copy`, `TABLE.items`).
            if let Entity::Value { .. } = self.project.resolve_expr(module, &attr.value, 0) {
                let base = self.expr(module, None, &attr.value);
                return (self.attribute_of(base, attr.attr.id.as_str()), false);
            }
        }
        // A module-level value may be changed by a function, and what is
        // unknown may depend on the budget left.
        let kept = matches!(
            entity,
            Entity::Func { .. }
                | Entity::Class { .. }
                | Entity::Builtin(_)
                | Entity::External(_)
                | Entity::SuiteModule(_)
        );
        (self.entity_value(entity), kept)
    }

    pub(super) fn entity_value(&self, entity: Entity<'a>) -> PyValue {
        match entity {
            Entity::Func { module: fm, def } => self.register(
                Callable::Function {
                    module: fm,
                    def,
                    scope: None,
                },
                def.name.id.as_str().to_owned(),
            ),
            Entity::Class { def, .. } => PyValue::Named(def.name.id.as_str().into()),
            Entity::Value {
                module: vm,
                expr: value,
            } => {
                let key = std::ptr::from_ref(value) as usize;
                if let Some(reason) = self.changed_global(vm, value) {
                    return PyValue::Unknown(reason);
                }
                if let Some(known) = self.globals.borrow().get(&key) {
                    if self.target_globals.borrow().contains(&key) {
                        self.read_target.set(true);
                    }
                    return known.clone();
                }
                let outer_read_target = self.read_target.replace(false);
                let computed = match self.project.module(vm).ns.mutated_by_expr.get(&key) {
                    Some(_) if self.literal_only => {
                        PyValue::Unknown("a value built by module code".to_owned())
                    }
                    // A name built by module code (`CASES.append(...)`).
                    Some(name) => self.module_value(vm, name),
                    None => self.expr(vm, None, value),
                };
                let from_target = self.read_target.get();
                self.read_target.set(outer_read_target || from_target);
                // Unknown values may depend on the budget or depth left.
                if !matches!(computed, PyValue::Unknown(_)) {
                    if from_target {
                        self.target_globals.borrow_mut().insert(key);
                    }
                    self.globals.borrow_mut().insert(key, computed.clone());
                }
                computed
            }
            Entity::Builtin(name) => PyValue::Named(name.into()),
            Entity::External(path) => match crate::project::mark_name(&path) {
                Some(name) => PyValue::Mark(Box::new(MarkValue {
                    name: name.to_owned(),
                    args: Vec::new(),
                    kwargs: Vec::new(),
                })),
                None => self
                    .target_value(&path)
                    .unwrap_or_else(|| super::builtins::external_value(&path)),
            },
            Entity::SuiteModule(idx) => self.module_object(idx),
            Entity::Unknown(reason) => PyValue::Unknown(reason),
        }
    }

    /// Evaluates the arguments of a call (with `*` and `**` unpacking).
    pub(super) fn args(
        &self,
        module: usize,
        scope: Option<&Rc<Scope>>,
        arguments: &'a ast::Arguments,
    ) -> Result<Args, String> {
        let mut positional = Vec::with_capacity(arguments.args.len());
        for arg in &arguments.args {
            if let Expr::Starred(starred) = arg {
                positional.extend(ops::iterate_owned(self.expr(
                    module,
                    scope,
                    &starred.value,
                ))?);
            } else {
                let value = self.expr(module, scope, arg);
                positional.push(value);
            }
        }
        let mut keywords = Vec::with_capacity(arguments.keywords.len());
        for keyword in &arguments.keywords {
            let value = self.expr(module, scope, &keyword.value);
            match &keyword.arg {
                Some(name) => keywords.push((name.id.as_str().to_owned(), value)),
                None => match value {
                    PyValue::Container {
                        kind: ContainerKind::Dict,
                        elements,
                    } => {
                        for pair in elements {
                            match ops::pair(pair) {
                                Some((PyValue::Str(k), v)) => keywords.push((k.to_string(), v)),
                                _ => return Err("`**` of a dict with non-string keys".to_owned()),
                            }
                        }
                    }
                    PyValue::Unknown(reason) => return Err(reason),
                    _ => return Err("`**` of a value that is not a dict".to_owned()),
                },
            }
        }
        Ok(Args {
            positional,
            keywords,
        })
    }

    fn call(&self, module: usize, scope: Option<&Rc<Scope>>, call: &'a ast::ExprCall) -> PyValue {
        // A callee bound locally is a value; otherwise it is resolved
        // statically, which keeps classes and pytest's helpers apart.
        let class_callee = || {
            scope
                .is_none()
                .then(|| self.class_base(module, &call.func))
                .flatten()
        };
        if let Some(callee) = self.local_base(scope, &call.func).or_else(class_callee) {
            return match self.args(module, scope, &call.arguments) {
                Ok(args) => self.call_value(&callee, args.positional, args.keywords),
                Err(reason) => PyValue::Unknown(reason),
            };
        }
        if let Expr::Attribute(attr) = call.func.as_ref() {
            if !matches!(attr.value.as_ref(), Expr::Name(_) | Expr::Attribute(_)) {
                // `"-".join(...)`, `[...].index(...)`, `"{}".format(...)`.
                let receiver = self.expr(module, scope, &attr.value);
                let method = self.attribute_of(receiver, attr.attr.id.as_str());
                return match self.args(module, scope, &call.arguments) {
                    Ok(args) => self.call_value(&method, args.positional, args.keywords),
                    Err(reason) => PyValue::Unknown(reason),
                };
            }
        }
        if !matches!(call.func.as_ref(), Expr::Name(_) | Expr::Attribute(_)) {
            let callee = self.expr(module, scope, &call.func);
            return match self.args(module, scope, &call.arguments) {
                Ok(args) => self.call_value(&callee, args.positional, args.keywords),
                Err(reason) => PyValue::Unknown(reason),
            };
        }
        let entity = match self.project.resolve_expr(module, &call.func, 0) {
            // A method of a module-level value (`TABLE.items()`).
            Entity::Unknown(_) if matches!(call.func.as_ref(), Expr::Attribute(_)) => {
                let callee = self.expr(module, scope, &call.func);
                return match self.args(module, scope, &call.arguments) {
                    Ok(args) => self.call_value(&callee, args.positional, args.keywords),
                    Err(reason) => PyValue::Unknown(reason),
                };
            }
            entity => entity,
        };
        if matches!(&entity, Entity::Builtin(name) if name == "getattr") {
            if let Some(value) = self.getattr_outside(module, call) {
                return value;
            }
        }
        let args = match self.args(module, scope, &call.arguments) {
            Ok(args) => args,
            Err(reason) => return PyValue::Unknown(reason),
        };
        match entity {
            Entity::External(path) if path == "importlib.import_module" => {
                self.import_module(&args)
            }
            Entity::External(path) => match self
                .target_call(&path, &args)
                .or_else(|| super::class_factory::class_factory_call(&path, &args))
            {
                Some(value) => value,
                None => Self::call_external(&path, args),
            },
            Entity::Builtin(name) => super::builtins::call_builtin(self, &name, &args),
            Entity::Func { module: fm, def } => {
                let qualified = format!("{}.{}", self.project.module(fm).dotted, def.name.id);
                match super::class_factory::class_factory_call(&qualified, &args) {
                    Some(value) => value,
                    None => self.call_function(fm, def, None, args),
                }
            }
            Entity::Class { module: cm, def } => {
                if self.project.class_is_plain(cm, def, 0) {
                    PyValue::Object
                } else {
                    PyValue::Unknown(format!("instance of `{}`", def.name.id.as_str()))
                }
            }
            Entity::Value { .. } => {
                let callee = self.expr(module, scope, &call.func);
                self.call_value(&callee, args.positional, args.keywords)
            }
            Entity::SuiteModule(_) => PyValue::Unknown("a call of a module".to_owned()),
            Entity::Unknown(reason) => {
                PyValue::Unknown(self.deleted_callee(module, &call.func).unwrap_or(reason))
            }
        }
    }

    /// Why a call of a name its module deletes at the top level
    /// (python-dateutil's `gettz = __get_gettz()` then `del __get_gettz`)
    /// is not evaluated: the name is bound when the call runs, but not in
    /// the module's final namespace, which is what proctor reads.
    fn deleted_callee(&self, module: usize, func: &Expr) -> Option<String> {
        let Expr::Name(name) = func else {
            return None;
        };
        let ast = self.project.module(module).file.ast.as_ref()?;
        let deleted = ast.body.iter().any(|stmt| {
            matches!(stmt, ast::Stmt::Delete(d)
                if d.targets.iter().any(|t| matches!(t, Expr::Name(n) if n.id == name.id)))
        });
        deleted.then(|| {
            format!(
                "`{0}()` calls a function its module deletes afterwards (`del {0}`): \
                 what the call returns is not evaluated",
                name.id
            )
        })
    }

    /// `getattr(module, "name"[, default])` of a module outside the suite
    /// (`getattr(re, "fullmatch", None)`): the value `module.name` has when
    /// proctor knows it; `None` otherwise (the call is then evaluated, and
    /// unknown, as any other).
    fn getattr_outside(&self, module: usize, call: &'a ast::ExprCall) -> Option<PyValue> {
        let [target, Expr::StringLiteral(name), rest @ ..] = &call.arguments.args[..] else {
            return None;
        };
        if rest.len() > 1 || !call.arguments.keywords.is_empty() {
            return None;
        }
        let Entity::External(path) = self.project.resolve_expr(module, target, 0) else {
            return None;
        };
        let attribute = format!("{path}.{}", name.value.to_str());
        match self.entity_value(Entity::External(attribute)) {
            PyValue::Unknown(_) => None,
            value => Some(value),
        }
    }

    /// A call of something outside the suite: pytest's helpers, marks and
    /// the standard library functions proctor knows.
    fn call_external(path: &str, args: Args) -> PyValue {
        match path {
            "pytest.param" | "_pytest.mark.param" => param(args),
            _ => {
                if let Some(name) = crate::project::mark_name(path) {
                    return mark(name, args);
                }
                super::builtins::call_library(path, &args)
            }
        }
    }

    /// Calls a value: a lambda, a suite function, a bound method, a mark or
    /// a builtin known by name.
    pub(super) fn call_value(
        &self,
        callee: &PyValue,
        positional: Vec<PyValue>,
        keywords: Vec<(String, PyValue)>,
    ) -> PyValue {
        if let PyValue::Mark(existing) = callee {
            // `mark(func)` would apply it; with values it adds arguments.
            let mut value = (**existing).clone();
            value.args.extend(positional);
            for (name, v) in keywords {
                value.kwargs.retain(|(n, _)| *n != name);
                value.kwargs.push((name, v));
            }
            return PyValue::Mark(Box::new(value));
        }
        if let PyValue::Unknown(reason) = callee {
            return PyValue::Unknown(reason.clone());
        }
        let Some(callable) = self.callable(callee) else {
            return PyValue::Unknown(
                "a call of a value that is not known to be callable".to_owned(),
            );
        };
        let args = Args {
            positional,
            keywords,
        };
        match callable {
            Callable::Lambda {
                module,
                lambda,
                scope,
            } => self.call_lambda(module, lambda, scope.as_ref(), args),
            Callable::Function { module, def, scope } => {
                self.call_function(module, def, scope.as_ref(), args)
            }
            Callable::Method { receiver, name } => {
                super::builtins::call_method(&receiver, &name, &args)
            }
            Callable::Module(_) => PyValue::Unknown("a call of a module".to_owned()),
            Callable::Class { module, def } => {
                if self.project.class_is_plain(module, def, 0) {
                    PyValue::Object
                } else {
                    PyValue::Unknown(format!("instance of `{}`", def.name.id.as_str()))
                }
            }
            Callable::Named(name) => {
                if crate::namespace::BUILTIN_CALLABLES.contains(&name.as_str()) {
                    super::builtins::call_builtin(self, &name, &args)
                } else {
                    super::builtins::call_library(&name, &args)
                }
            }
        }
    }

    fn call_lambda(
        &self,
        module: usize,
        lambda: &'a ast::ExprLambda,
        scope: Option<&Rc<Scope>>,
        args: Args,
    ) -> PyValue {
        let calls = self.calls.get();
        if calls >= MAX_CALL_DEPTH {
            return PyValue::Unknown("calls nested too deeply".to_owned());
        }
        let local = Scope::child(scope);
        if let Err(reason) =
            self.bind_parameters(module, &local, lambda.parameters.as_deref(), args)
        {
            return PyValue::Unknown(reason);
        }
        self.calls.set(calls + 1);
        let value = self.expr(module, Some(&local), &lambda.body);
        self.calls.set(calls);
        value
    }

    /// Binds a call's arguments to the parameters of a function or lambda
    /// (defaults evaluated in the defining module).
    pub(super) fn bind_parameters(
        &self,
        module: usize,
        local: &Rc<Scope>,
        parameters: Option<&'a ast::Parameters>,
        args: Args,
    ) -> Result<(), String> {
        let Some(parameters) = parameters else {
            return if args.positional.is_empty() && args.keywords.is_empty() {
                Ok(())
            } else {
                Err("too many arguments for a call".to_owned())
            };
        };
        let named: Vec<&'a ast::ParameterWithDefault> = parameters
            .posonlyargs
            .iter()
            .chain(parameters.args.iter())
            .collect();
        let mut positional = args.positional.into_iter();
        let mut bound: Vec<Option<PyValue>> = vec![None; named.len()];
        for slot in &mut bound {
            match positional.next() {
                Some(value) => *slot = Some(value),
                None => break,
            }
        }
        let rest: Vec<PyValue> = positional.collect();
        match &parameters.vararg {
            Some(vararg) => local.set(
                vararg.name.id.as_str(),
                PyValue::Container {
                    kind: ContainerKind::Tuple,
                    elements: rest.into(),
                },
            ),
            None if !rest.is_empty() => {
                return Err("too many positional arguments for a call".to_owned())
            }
            None => {}
        }
        let mut extra = Vec::new();
        let mut kwonly: Vec<Option<PyValue>> = vec![None; parameters.kwonlyargs.len()];
        for (name, value) in args.keywords {
            if let Some(i) = named
                .iter()
                .position(|p| p.parameter.name.id.as_str() == name)
            {
                bound[i] = Some(value);
            } else if let Some(i) = parameters
                .kwonlyargs
                .iter()
                .position(|p| p.parameter.name.id.as_str() == name)
            {
                kwonly[i] = Some(value);
            } else if parameters.kwarg.is_some() {
                extra.push(PyValue::Container {
                    kind: ContainerKind::Tuple,
                    elements: vec![PyValue::str(name), value].into(),
                });
            } else {
                return Err(format!("unexpected keyword argument `{name}`"));
            }
        }
        for (parameter, value) in named
            .iter()
            .copied()
            .zip(bound)
            .chain(parameters.kwonlyargs.iter().zip(kwonly))
        {
            let value = match (value, &parameter.default) {
                (Some(value), _) => value,
                (None, Some(default)) => self.expr(module, None, default),
                (None, None) => {
                    return Err(format!(
                        "missing argument `{}`",
                        parameter.parameter.name.id.as_str()
                    ))
                }
            };
            local.set(parameter.parameter.name.id.as_str(), value);
        }
        if let Some(kwarg) = &parameters.kwarg {
            local.set(kwarg.name.id.as_str(), ops::make_dict(extra));
        }
        Ok(())
    }
}

/// `pytest.param(*values, id=None, marks=())`.
fn param(args: Args) -> PyValue {
    let mut value = ParamValue {
        values: args.positional,
        id: None,
        hidden: false,
        marks: Vec::new(),
    };
    for (name, v) in args.keywords {
        match name.as_str() {
            "id" => match v {
                PyValue::Named(ref n) if n == "HIDDEN_PARAM" => value.hidden = true,
                PyValue::Str(_) | PyValue::None => value.id = Some(v),
                PyValue::Unknown(reason) => return PyValue::Unknown(reason),
                _ => return PyValue::Unknown("pytest.param id is not a string".to_owned()),
            },
            "marks" => match v {
                PyValue::Mark(m) => value.marks.push(*m),
                PyValue::Container {
                    kind: ContainerKind::List | ContainerKind::Tuple,
                    elements,
                } => {
                    for element in elements {
                        match element {
                            PyValue::Mark(m) => value.marks.push(*m),
                            _ => {
                                return PyValue::Unknown(
                                    "pytest.param marks that are not marks".to_owned(),
                                )
                            }
                        }
                    }
                }
                PyValue::Unknown(reason) => return PyValue::Unknown(reason),
                _ => return PyValue::Unknown("pytest.param marks that are not marks".to_owned()),
            },
            _ => {
                return PyValue::Unknown(format!("pytest.param got an unexpected keyword `{name}`"))
            }
        }
    }
    PyValue::Param(Box::new(value))
}

/// `pytest.mark.NAME(*args, **kwargs)`.
fn mark(name: &str, args: Args) -> PyValue {
    PyValue::Mark(Box::new(MarkValue {
        name: name.to_owned(),
        args: args.positional,
        kwargs: args.keywords,
    }))
}
