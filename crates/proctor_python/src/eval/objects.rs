//! Module and class objects as values, and the module-level state that
//! functions change. A registry table maps names to modules that a helper
//! imports by name (`__import__(module_name, None, None, ['__all__'])`,
//! `importlib.import_module(name)`) and then reads classes from
//! (`getattr(mod, name)`, `cls.name`), memoizing them in a module-level
//! dict (`_cache[cls.name] = cls`): pygments builds its lexer list that
//! way. A module of the suite or of the project's own source is a value
//! here; any other module stays unknown with the reason.

use ruff_python_ast::{self as ast, Expr};

use super::expr::Args;
use super::{Callable, Evaluator};
use crate::namespace::Binding;
use crate::project::Entity;
use crate::value::PyValue;

/// Classes followed through their bases to find an attribute.
const MAX_BASES: usize = 64;

/// Adds to `out` the string literals of a module-level table (`expr`, a
/// dict, list, tuple or set, nested) that name a submodule of the
/// module's own top-level package (`'pygments.lexers.business'` in
/// `pygments/lexers/_mapping.py`): the modules such a table lets code
/// import by name, so that proctor reads them too.
pub(crate) fn named_submodules(expr: &Expr, package: &str, out: &mut Vec<String>) {
    let Some(top) = package.split('.').next().filter(|t| !t.is_empty()) else {
        return;
    };
    let mut stack = vec![expr];
    let mut seen = 0usize;
    while let Some(expr) = stack.pop() {
        seen += 1;
        if seen > super::MAX_ELEMENTS {
            return;
        }
        match expr {
            Expr::Dict(dict) => {
                for item in &dict.items {
                    stack.extend(item.key.as_ref());
                    stack.push(&item.value);
                }
            }
            Expr::List(ast::ExprList { elts, .. })
            | Expr::Tuple(ast::ExprTuple { elts, .. })
            | Expr::Set(ast::ExprSet { elts, .. }) => stack.extend(elts),
            Expr::StringLiteral(s) => {
                let text = s.value.to_str();
                let mut parts = text.split('.');
                if parts.next() == Some(top)
                    && text.len() > top.len() + 1
                    && text.split('.').all(is_identifier)
                {
                    out.push(text.to_owned());
                }
            }
            _ => {}
        }
    }
}

fn is_identifier(part: &str) -> bool {
    part.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && part.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

impl<'a> Evaluator<'_, 'a> {
    /// The module object of module `idx`: its id is its `__name__`.
    pub(super) fn module_object(&self, idx: usize) -> PyValue {
        let name = self.project.module(idx).dotted.clone();
        self.register(Callable::Module(idx), name)
    }

    /// A class object whose attributes can be read: its id is its
    /// `__name__`.
    pub(super) fn class_object(&self, module: usize, def: &'a ast::StmtClassDef) -> PyValue {
        self.register(
            Callable::Class { module, def },
            def.name.id.as_str().to_owned(),
        )
    }

    /// The value of an entity, with modules and classes as objects whose
    /// attributes can be read.
    fn object_value(&self, entity: Entity<'a>) -> PyValue {
        match entity {
            Entity::SuiteModule(idx) => self.module_object(idx),
            Entity::Class { module, def } => self.class_object(module, def),
            entity => self.entity_value(entity),
        }
    }

    /// `object.name` for a module or class object; `None` for other
    /// callables.
    pub(super) fn object_attribute(&self, callable: &Callable<'a>, name: &str) -> Option<PyValue> {
        Some(match callable {
            Callable::Module(idx) => self
                .module_attribute(*idx, name)
                .unwrap_or_else(|| PyValue::Unknown(self.missing_in_module(*idx, name))),
            Callable::Class { module, def } => match self.class_attribute(*module, def, name, 0) {
                Some(value) => value,
                None => PyValue::Unknown(format!(
                    "`{name}` is not bound statically in class `{}` or its bases",
                    def.name.id.as_str()
                )),
            },
            _ => return None,
        })
    }

    fn missing_in_module(&self, idx: usize, name: &str) -> String {
        let module = self.project.module(idx);
        // Not an AttributeError for sure: a module may put another object
        // in its place in `sys.modules` (pygments.formatters does).
        if replaces_itself(module.file) {
            return format!(
                "`{name}` is not bound statically in module `{0}`, which puts another object \
                 in its place (`sys.modules[__name__] = ...`): its attributes are that object's",
                module.dotted
            );
        }
        format!(
            "`{name}` is not bound statically in module `{}`",
            module.dotted
        )
    }

    /// `module.name`; `None` when the module certainly lacks it.
    fn module_attribute(&self, idx: usize, name: &str) -> Option<PyValue> {
        let module = self.project.module(idx);
        if name == "__name__" {
            return Some(PyValue::str(module.dotted.clone()));
        }
        if module.ns.get(name).is_some() || !module.ns.star_imports.is_empty() {
            match self.project.resolve_name(idx, name, 0) {
                // Builtins are not attributes of a module.
                Entity::Builtin(_) if module.ns.get(name).is_none() => {}
                Entity::Unknown(reason) if module.ns.get(name).is_some() => {
                    return Some(PyValue::Unknown(reason))
                }
                Entity::Unknown(_) => {}
                entity => return Some(self.object_value(entity)),
            }
        }
        let sub = format!("{}.{name}", module.dotted);
        if let Some(sub) = self.project.by_dotted(&sub) {
            return Some(self.module_object(sub));
        }
        if matches!(module.ns.get("__getattr__"), Some(Binding::Func { .. })) {
            return Some(PyValue::Unknown(format!(
                "`{name}` is computed by module `{}`'s `__getattr__` when it is read",
                module.dotted
            )));
        }
        if !module.ns.star_imports.is_empty() {
            return Some(PyValue::Unknown(format!(
                "`{name}` is not found in module `{}` or the modules it imports with `*`",
                module.dotted
            )));
        }
        None
    }

    /// `cls.name` read on a class of the suite or the project's source,
    /// through its bases; `None` when no class of the chain binds it.
    fn class_attribute(
        &self,
        module: usize,
        def: &'a ast::StmtClassDef,
        name: &str,
        depth: usize,
    ) -> Option<PyValue> {
        let class = def.name.id.as_str();
        let unknown = |why: String| Some(PyValue::Unknown(why));
        if depth > MAX_BASES {
            return unknown(format!("the bases of class `{class}` nest too deeply"));
        }
        if name == "__name__" && depth == 0 {
            return Some(PyValue::str(class));
        }
        if !def.decorator_list.is_empty() {
            return unknown(format!("class `{class}` is decorated"));
        }
        let ns = self.project.class_ns(def);
        if ns.mutated.contains(name) {
            return unknown(format!(
                "`{name}` is bound more than once or changed in class `{class}`"
            ));
        }
        match ns.get(name) {
            Some(Binding::Value { expr, cond: false }) => {
                return Some(self.expr(module, None, expr))
            }
            Some(Binding::Class { def, cond: false }) => {
                return Some(self.class_object(module, def))
            }
            Some(Binding::Func { .. }) => {
                return unknown(format!("method `{name}` of class `{class}`"))
            }
            Some(_) => {
                return unknown(format!(
                    "`{name}` is bound in a way proctor does not follow in class `{class}`"
                ))
            }
            None => {}
        }
        let bases: Vec<&'a Expr> = def
            .bases()
            .iter()
            .filter(|b| !matches!(b, Expr::Name(n) if n.id.as_str() == "object"))
            .collect();
        match bases.as_slice() {
            [] => None,
            [base] => match self.project.resolve_expr(module, base, 0) {
                Entity::Class {
                    module: bm,
                    def: bdef,
                } => self.class_attribute(bm, bdef, name, depth + 1),
                _ => unknown(format!(
                    "`{name}` may come from a base of class `{class}` defined outside the suite"
                )),
            },
            _ => unknown(format!(
                "`{name}` of class `{class}`, which has several bases"
            )),
        }
    }

    /// `getattr(object, name[, default])`. A default is never taken: a
    /// name a module does not bind statically may still be there.
    pub(super) fn getattr(&self, args: &Args) -> PyValue {
        let (object, name, default) = match args.positional.as_slice() {
            [object, PyValue::Str(name)] => (object, name, None),
            [object, PyValue::Str(name), default] => (object, name, Some(default)),
            _ => {
                return PyValue::Unknown("getattr() with arguments proctor does not follow".into())
            }
        };
        if let Some(callable) = self.callable(object) {
            let found = match &callable {
                Callable::Module(idx) => self.module_attribute(*idx, name),
                Callable::Class { module, def } => self.class_attribute(*module, def, name, 0),
                _ => Some(self.attribute_of(object.clone(), name)),
            };
            return match found {
                Some(value) => value,
                None => match callable {
                    Callable::Module(idx) => PyValue::Unknown(self.missing_in_module(idx, name)),
                    _ => PyValue::Unknown(format!("`{name}` is not bound statically on the class")),
                },
            };
        }
        match default {
            None => self.attribute_of(object.clone(), name),
            Some(_) => PyValue::Unknown("getattr() with a default on a value".to_owned()),
        }
    }

    /// `__import__(name, globals, locals, fromlist, level)`: the top-level
    /// package, or the module itself when `fromlist` is not empty.
    pub(super) fn dunder_import(&self, args: &Args) -> PyValue {
        let arg = |i: usize, key: &str| {
            args.positional
                .get(i)
                .or_else(|| args.keywords.iter().find(|(k, _)| k == key).map(|(_, v)| v))
        };
        let Some(PyValue::Str(name)) = arg(0, "name") else {
            return PyValue::Unknown("`__import__` of a name that is not a string".to_owned());
        };
        match arg(4, "level") {
            None => {}
            Some(level) if super::ops::int(level) == Some(0) => {}
            Some(_) => return PyValue::Unknown("a relative `__import__`".to_owned()),
        }
        let leaf = match arg(3, "fromlist") {
            None | Some(PyValue::None) => false,
            Some(fromlist) => match super::ops::truth(fromlist) {
                Ok(leaf) => leaf,
                Err(reason) => return PyValue::Unknown(reason),
            },
        };
        let Some(idx) = self.import_module_named(name) else {
            return Self::not_importable(name);
        };
        self.project.prefetch_siblings(idx);
        if leaf {
            return self.module_object(idx);
        }
        let top = name.split('.').next().unwrap_or(name);
        match self.project.by_dotted(top) {
            Some(top) => self.module_object(top),
            None => Self::not_importable(top),
        }
    }

    /// `importlib.import_module(name, package=None)`.
    pub(super) fn import_module(&self, args: &Args) -> PyValue {
        let name = args.positional.first().or_else(|| {
            args.keywords
                .iter()
                .find(|(k, _)| k == "name")
                .map(|(_, v)| v)
        });
        let package = args.positional.get(1).or_else(|| {
            args.keywords
                .iter()
                .find(|(k, _)| k == "package")
                .map(|(_, v)| v)
        });
        let Some(PyValue::Str(name)) = name else {
            return PyValue::Unknown("`import_module` of a name that is not a string".to_owned());
        };
        let absolute = if name.starts_with('.') {
            let Some(PyValue::Str(package)) = package else {
                return PyValue::Unknown("a relative `import_module` without a package".into());
            };
            let rest = name.trim_start_matches('.');
            let level = u32::try_from(name.len() - rest.len()).unwrap_or(u32::MAX);
            crate::namespace::absolute_module(package, level, Some(rest).filter(|r| !r.is_empty()))
        } else {
            name.to_string()
        };
        match self.import_module_named(&absolute) {
            Some(idx) => {
                self.project.prefetch_siblings(idx);
                self.module_object(idx)
            }
            None => Self::not_importable(&absolute),
        }
    }

    /// The module `dotted` when it and every package above it are modules
    /// of the suite or the project's source that proctor read.
    fn import_module_named(&self, dotted: &str) -> Option<usize> {
        let mut prefix = String::new();
        for part in dotted.split('.') {
            if !prefix.is_empty() {
                prefix.push('.');
            }
            prefix.push_str(part);
            self.project.by_dotted(&prefix)?;
        }
        self.project.by_dotted(dotted)
    }

    fn not_importable(name: &str) -> PyValue {
        PyValue::Unknown(format!(
            "importing `{name}`, which is not a module of the suite or the project's source"
        ))
    }

    /// Changes the module-level value `name` of `module` (seen from a
    /// function that does not bind it) in place, as `_cache[k] = v` or
    /// `CASES.append(v)` there does; `false` when `name` is not a value
    /// bound at module level.
    pub(super) fn update_global(
        &self,
        module: usize,
        name: &str,
        change: &mut dyn FnMut(&mut PyValue),
    ) -> bool {
        let entity = self.project.resolve_name(module, name, 0);
        let Entity::Value { expr, .. } = entity else {
            return false;
        };
        let key = std::ptr::from_ref(expr) as usize;
        // Taken out of the table, so that changing it copies nothing.
        let known = self.globals.borrow_mut().remove(&key);
        let mut value = known.unwrap_or_else(|| {
            let value = self.entity_value(entity);
            self.globals.borrow_mut().remove(&key);
            value
        });
        change(&mut value);
        self.globals.borrow_mut().insert(key, value);
        true
    }
}

/// Names that function bodies of `body` change in place (`NAME[k] = v`,
/// `NAME.append(v)`) without binding them locally: module-level values
/// whose content depends on which calls ran before they are read.
pub(crate) fn changed_by_functions(body: &[ast::Stmt]) -> Vec<String> {
    use ruff_python_ast::visitor::{walk_expr, walk_stmt, Visitor};
    struct Finder {
        in_function: bool,
        names: Vec<String>,
    }
    impl<'b> Visitor<'b> for Finder {
        fn visit_stmt(&mut self, stmt: &'b ast::Stmt) {
            match stmt {
                ast::Stmt::FunctionDef(def) => {
                    let outer = std::mem::replace(&mut self.in_function, true);
                    for stmt in &def.body {
                        self.visit_stmt(stmt);
                    }
                    self.in_function = outer;
                }
                ast::Stmt::Assign(assign) if self.in_function => {
                    for target in &assign.targets {
                        if let Expr::Subscript(s) = target {
                            if let Expr::Name(n) = s.value.as_ref() {
                                self.names.push(n.id.as_str().to_owned());
                            }
                        }
                    }
                    walk_stmt(self, stmt);
                }
                _ => walk_stmt(self, stmt),
            }
        }
        fn visit_expr(&mut self, expr: &'b Expr) {
            if self.in_function {
                if let Expr::Call(call) = expr {
                    if let Expr::Attribute(attr) = call.func.as_ref() {
                        if let Expr::Name(n) = attr.value.as_ref() {
                            if super::MUTATING_METHODS.contains(&attr.attr.id.as_str()) {
                                self.names.push(n.id.as_str().to_owned());
                            }
                        }
                    }
                }
            }
            walk_expr(self, expr);
        }
    }
    let mut finder = Finder {
        in_function: false,
        names: Vec::new(),
    };
    for stmt in body {
        finder.visit_stmt(stmt);
    }
    finder.names.sort();
    finder.names.dedup();
    finder.names
}

/// Why the value a name (or attribute chain) `expr` refers to cannot be
/// read where it is written, outside any call: see
/// [`Evaluator::changed_global`]. For code that reads a parameter list
/// through its name without evaluating it.
pub(crate) fn changed_by_calls<'a>(
    project: crate::project::Project<'_, 'a>,
    module: usize,
    expr: &'a Expr,
) -> Option<String> {
    if !matches!(expr, Expr::Name(_) | Expr::Attribute(_)) {
        return None;
    }
    match project.resolve_expr(module, expr, 0) {
        Entity::Value { module: vm, expr } => Evaluator::new(project).changed_global(vm, expr),
        _ => None,
    }
}

impl Evaluator<'_, '_> {
    /// Why the module-level value bound by `expr` in `module` cannot be
    /// read outside a call: a function of its module changes it in place,
    /// so its content depends on which calls ran at import before the
    /// read (a registry `REG` that `register(x)` appends to). Read inside
    /// a call (a memo table a helper fills and then reads), it is followed.
    pub(super) fn changed_global(&self, module: usize, expr: &Expr) -> Option<String> {
        if self.calls.get() > 0 {
            return None;
        }
        let key = std::ptr::from_ref(expr) as usize;
        let mut cache = self.changed_globals.borrow_mut();
        let changed = cache.entry(module).or_insert_with(|| {
            let file: &crate::source::ParsedFile = self.project.module(module).file;
            // A source module's tree lost its function bodies: what they
            // change was found before.
            let names = match (&file.bodies, &file.ast) {
                (Some(stripped), _) => stripped.changed.clone(),
                (None, Some(ast)) => changed_by_functions(&ast.body),
                (None, None) => Vec::new(),
            };
            names
                .into_iter()
                .filter_map(|name| match self.project.module(module).ns.get(&name) {
                    Some(Binding::Value { expr, .. }) => {
                        Some((std::ptr::from_ref(*expr) as usize, name))
                    }
                    _ => None,
                })
                .collect()
        });
        changed.get(&key).map(|name| {
            format!("`{name}` is changed in place by functions when they are called, so its value depends on what ran before it is read")
        })
    }
}

/// Whether a module's top-level code assigns `sys.modules[__name__]`.
fn replaces_itself(file: &crate::source::ParsedFile) -> bool {
    let Some(ast) = &file.ast else {
        return false;
    };
    ast.body.iter().any(|stmt| {
        let ast::Stmt::Assign(assign) = stmt else {
            return false;
        };
        assign.targets.iter().any(|target| {
            let Expr::Subscript(sub) = target else {
                return false;
            };
            matches!(sub.slice.as_ref(), Expr::Name(n) if n.id.as_str() == "__name__")
                && matches!(sub.value.as_ref(), Expr::Attribute(a)
                    if a.attr.id.as_str() == "modules"
                        && matches!(a.value.as_ref(), Expr::Name(m) if m.id.as_str() == "sys"))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::named_submodules;

    #[test]
    fn a_table_names_its_own_submodules() {
        let parsed = ruff_python_parser::parse_expression(
            "{'A': ('pkg.lexers.a', 'A', ('a',)), 'B': ['pkg.b', 'other.c', 'pkg', '*.pkg', 'pkg.x-y']}",
        )
        .expect("parses");
        let mut out = Vec::new();
        named_submodules(parsed.expr(), "pkg.lexers", &mut out);
        out.sort();
        assert_eq!(out, ["pkg.b", "pkg.lexers.a"]);
    }
}
