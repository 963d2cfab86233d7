//! The suite's modules seen together: resolving names across imports,
//! evaluating literal expressions, and recognising pytest marks and params.

use rustc_hash::FxHashMap as HashMap;

use ruff_python_ast::{self as ast, Expr, Number};
use ruff_text_size::Ranged;

use crate::namespace::{Binding, Namespace, BUILTIN_CALLABLES};
use crate::source::ParsedFile;
use crate::value::PyValue;

/// One parsed module with its name table.
pub(crate) struct Module<'a> {
    pub(crate) file: &'a ParsedFile,
    /// Dotted module name (pytest's `prepend` import mode).
    pub(crate) dotted: String,
    /// Dotted package used for relative imports.
    pub(crate) package: String,
    pub(crate) ns: Namespace<'a>,
}

/// A resolved reference.
#[derive(Debug, Clone)]
pub(crate) enum Entity<'a> {
    Func {
        module: usize,
        def: &'a ast::StmtFunctionDef,
    },
    Class {
        module: usize,
        def: &'a ast::StmtClassDef,
    },
    Value {
        module: usize,
        expr: &'a Expr,
    },
    SuiteModule(usize),
    /// A dotted path outside the suite (`pytest.mark.slow`).
    External(String),
    Builtin(String),
    Unknown(String),
}

/// A `@pytest.fixture` decorator, with the call's arguments when called.
pub(crate) struct FixtureDecorator<'a> {
    pub(crate) arguments: Option<&'a ast::Arguments>,
}

/// A mark decorator found statically.
#[derive(Debug, Clone)]
pub(crate) struct RawMark<'a> {
    pub(crate) name: String,
    pub(crate) args: Vec<(usize, &'a Expr)>,
    pub(crate) kwargs: Vec<(String, usize, &'a Expr)>,
    /// `*args` or `**kwargs` were passed.
    pub(crate) opaque: bool,
    /// Where the mark is written (the decorator or list element), by module
    /// and byte range.
    pub(crate) at: Option<(usize, ruff_text_size::TextRange)>,
}

/// A `pytest.param(...)` call.
pub(crate) struct Param<'a> {
    pub(crate) values: Vec<&'a Expr>,
    pub(crate) id: Option<&'a Expr>,
    pub(crate) marks: Vec<RawMark<'a>>,
}

const MAX_DEPTH: usize = 24;

/// The modules every test module may refer to — conftests, the suite's
/// helper modules, and test modules that others import — kept for the
/// whole collection. Each is parsed and its names tabled the first time
/// it is asked for ([`Project::module`]), so a module that nobody asks a
/// name of costs only the read its import scan needed.
pub(crate) struct Shared<'a> {
    pub(crate) modules: Vec<SharedModule<'a>>,
    pub(crate) by_dotted: HashMap<String, usize>,
    /// The target interpreter's version (`sys.version_info`).
    pub(crate) python_version: Option<crate::settings::PythonVersion>,
}

/// Where a shared module's parsed file comes from.
#[derive(Clone, Copy)]
pub(crate) enum SourceRef<'a> {
    Parsed(&'a ParsedFile),
    Lazy(&'a crate::source::LazyFile),
}

impl<'a> SourceRef<'a> {
    fn get(self) -> &'a ParsedFile {
        match self {
            SourceRef::Parsed(file) => file,
            SourceRef::Lazy(lazy) => lazy.get(),
        }
    }
}

/// A built shared module: the module with its name table, and the name
/// tables of its class bodies keyed by the class node's address.
type Built<'a> = (Module<'a>, HashMap<usize, Namespace<'a>>);

/// One shared module, built on first use.
pub(crate) struct SharedModule<'a> {
    source: SourceRef<'a>,
    dotted: String,
    package: String,
    /// Stored as `'static` so that `SharedModule` (and [`Shared`]) stay
    /// covariant in `'a`, as a plain field would be: a collection task
    /// views the shared modules with the shorter lifetime of its own
    /// module. See [`SharedModule::get`].
    built: std::sync::OnceLock<Built<'static>>,
    /// Whether this module's siblings were built together already (see
    /// [`Project::prefetch_siblings`]).
    swept: std::sync::atomic::AtomicBool,
}

impl<'a> SharedModule<'a> {
    pub(crate) fn new(source: SourceRef<'a>, dotted: String, package: String) -> Self {
        SharedModule {
            source,
            dotted,
            package,
            built: std::sync::OnceLock::new(),
            swept: std::sync::atomic::AtomicBool::new(false),
        }
    }

    fn get(&self) -> &Built<'a> {
        let built = self.built.get_or_init(|| {
            let file = self.source.get();
            let body: &'a [ast::Stmt] = file.ast.as_ref().map_or(&[], |a| a.body.as_slice());
            let module = Module {
                file,
                dotted: self.dotted.clone(),
                package: self.package.clone(),
                ns: Namespace::build(body, &self.package),
            };
            let classes = class_tables(&module);
            let built: Built<'a> = (module, classes);
            // SAFETY: the types differ only in lifetime (same layout). The
            // value borrows nothing but `self.source`'s file, which lives
            // for the longest `'a` this module is ever viewed with (the
            // lifetime it was created with: `'a` only shrinks), and it is
            // handed out only as `Built<'a>` below, never as `'static`.
            unsafe { std::mem::transmute::<Built<'a>, Built<'static>>(built) }
        });
        // SAFETY: see above: the value is valid for every `'a` this module
        // is viewed with.
        unsafe { std::mem::transmute::<&Built<'static>, &Built<'a>>(built) }
    }
}

/// Name tables of every class body of a module, keyed by the class node's
/// address.
pub(crate) fn class_tables<'a>(module: &Module<'a>) -> HashMap<usize, Namespace<'a>> {
    let mut defs = Vec::new();
    if let Some(ast) = &module.file.ast {
        class_defs(&ast.body, &mut defs);
    }
    let file: &'a ParsedFile = module.file;
    let elided = Some(file);
    defs.into_iter()
        .map(|def| {
            (
                std::ptr::from_ref(def) as usize,
                Namespace::build_in(&def.body, &module.package, elided),
            )
        })
        .collect()
}

/// A module parsed for one collection task only (a test module nothing
/// imports), with its class name tables. Its index is one past the shared
/// modules.
#[derive(Clone, Copy)]
pub(crate) struct Local<'p, 'a> {
    pub(crate) module: &'p Module<'a>,
    pub(crate) classes: &'p HashMap<usize, Namespace<'a>>,
}

/// The suite as one collection task sees it: the shared modules, plus
/// possibly one local module.
#[derive(Clone, Copy)]
pub(crate) struct Project<'p, 'a> {
    shared: &'p Shared<'a>,
    local: Option<Local<'p, 'a>>,
}

/// Every class statement in a body (nested in classes, conditionals and
/// `try` blocks, not in functions).
pub(crate) fn class_defs<'a>(body: &'a [ast::Stmt], out: &mut Vec<&'a ast::StmtClassDef>) {
    for stmt in body {
        match stmt {
            ast::Stmt::ClassDef(def) => {
                out.push(def);
                class_defs(&def.body, out);
            }
            ast::Stmt::If(s) => {
                class_defs(&s.body, out);
                for clause in &s.elif_else_clauses {
                    class_defs(&clause.body, out);
                }
            }
            ast::Stmt::Try(s) => {
                class_defs(&s.body, out);
                class_defs(&s.orelse, out);
                class_defs(&s.finalbody, out);
                for handler in &s.handlers {
                    let ast::ExceptHandler::ExceptHandler(h) = handler;
                    class_defs(&h.body, out);
                }
            }
            ast::Stmt::With(s) => class_defs(&s.body, out),
            ast::Stmt::For(s) => class_defs(&s.body, out),
            ast::Stmt::While(s) => class_defs(&s.body, out),
            _ => {}
        }
    }
}

impl<'p, 'a> Project<'p, 'a> {
    /// The target interpreter's version, when known.
    pub(crate) fn python_version(&self) -> Option<&crate::settings::PythonVersion> {
        self.shared.python_version.as_ref()
    }

    pub(crate) fn new(shared: &'p Shared<'a>, local: Option<Local<'p, 'a>>) -> Self {
        Project { shared, local }
    }

    /// Builds, in parallel, module `idx` and the other modules of its
    /// package that a module-level table of a built module names
    /// ([`crate::eval::named_submodules`]: `'pkg.lexers.python'` in
    /// `pkg/lexers/_mapping.py`), when `idx` is not built: called when code
    /// imports a module by a name it computed (`__import__(name)`), as a
    /// loop over such a table does (pygments' `_iter_lexerclasses` imports
    /// every lexer module). Built one at a time, each by the first task
    /// that asks, the modules would hold the whole loop on one thread, the
    /// other one waiting on the same module. Once per module; modules no
    /// table names (a lexer's `_builtins` data module) are built only when
    /// asked for.
    pub(crate) fn prefetch_siblings(&self, idx: usize) {
        use rayon::prelude::*;
        use std::sync::atomic::Ordering;
        let Some(module) = self.shared.modules.get(idx) else {
            return;
        };
        if rayon::current_num_threads() < 2
            || module.built.get().is_some()
            || module.swept.load(Ordering::Relaxed)
        {
            return;
        }
        let Some((parent, _)) = module.dotted.rsplit_once('.') else {
            return;
        };
        let top = parent.split('.').next().unwrap_or(parent);
        let in_top = |dotted: &str| {
            dotted
                .strip_prefix(top)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
        };
        let mut named = Vec::new();
        for (built, _) in self.shared.modules.iter().filter_map(|m| m.built.get()) {
            if !in_top(&built.dotted) {
                continue;
            }
            for stmt in built
                .file
                .ast
                .as_ref()
                .map_or(&[][..], |a| a.body.as_slice())
            {
                if let ast::Stmt::Assign(assign) = stmt {
                    crate::eval::named_submodules(&assign.value, &built.package, &mut named);
                }
            }
        }
        let named: rustc_hash::FxHashSet<&str> = named.iter().map(String::as_str).collect();
        if !named.contains(module.dotted.as_str()) {
            // Asked once: a loop importing modules no table names does not
            // walk the tables again for each.
            module.swept.store(true, Ordering::Relaxed);
            return;
        }
        let siblings: Vec<&SharedModule<'a>> = self
            .shared
            .modules
            .iter()
            .filter(|m| {
                m.dotted
                    .strip_prefix(parent)
                    .and_then(|rest| rest.strip_prefix('.'))
                    .is_some_and(|leaf| !leaf.contains('.'))
                    && named.contains(m.dotted.as_str())
            })
            // Each module is claimed by one sweep only.
            .filter(|m| !m.swept.swap(true, Ordering::Relaxed))
            .filter(|m| m.built.get().is_none())
            .collect();
        if siblings.len() > 1 {
            siblings.par_iter().for_each(|m| {
                m.get();
            });
        }
    }

    /// The index a local module has.
    pub(crate) fn local_index(&self) -> usize {
        self.shared.modules.len()
    }

    /// The module with index `dotted`, among the shared ones.
    pub(crate) fn by_dotted(&self, dotted: &str) -> Option<usize> {
        self.shared.by_dotted.get(dotted).copied()
    }

    /// The name table of a class body (built once per module).
    pub(crate) fn class_ns(&self, def: &'a ast::StmtClassDef) -> &'p Namespace<'a> {
        static EMPTY: std::sync::LazyLock<Namespace<'static>> =
            std::sync::LazyLock::new(Namespace::default);
        let key = std::ptr::from_ref(def) as usize;
        if let Some(ns) = self.local.and_then(|l| l.classes.get(&key)) {
            return ns;
        }
        // A class node comes from a module built already: only those are
        // searched.
        self.shared
            .modules
            .iter()
            .filter(|m| m.built.get().is_some())
            .find_map(|m| m.get().1.get(&key))
            .unwrap_or(&EMPTY)
    }

    pub(crate) fn module(&self, idx: usize) -> &'p Module<'a> {
        match (self.shared.modules.get(idx), self.local) {
            (Some(module), _) => &module.get().0,
            (None, Some(local)) => local.module,
            // Indices only come from this project; an out-of-range one is a
            // bug, reported rather than a panic on users' input.
            (None, None) => unreachable!("module index {idx} out of range"),
        }
    }

    /// The body of `def`, a function definition of module `module`: every
    /// reader of a function's body asks here, since a source module's tree
    /// holds none (see [`crate::bodies`]).
    pub(crate) fn body(&self, module: usize, def: &'a ast::StmtFunctionDef) -> &'a [ast::Stmt] {
        let file: &'a ParsedFile = self.module(module).file;
        file.body(def)
    }

    /// Resolves `name` as seen from module `module`.
    pub(crate) fn resolve_name(&self, module: usize, name: &str, depth: usize) -> Entity<'a> {
        if depth > MAX_DEPTH {
            return Entity::Unknown(format!("import cycle while resolving `{name}`"));
        }
        let m = self.module(module);
        if let Some(binding) = m.ns.get(name) {
            self.resolve_binding(module, binding, depth)
        } else {
            for star in &m.ns.star_imports {
                if let Some(target) = self.by_dotted(star) {
                    if self.star_exports(target, name, depth + 1) {
                        return self.resolve_name(target, name, depth + 1);
                    }
                }
            }
            if BUILTIN_CALLABLES.contains(&name) {
                Entity::Builtin(name.to_string())
            } else {
                Entity::Unknown(format!("`{name}` is not bound statically"))
            }
        }
    }

    /// Whether `from <module> import *` binds `name`: the module binds it
    /// (and its `__all__` lists it, or, without `__all__`, it does not
    /// start with `_`), or one of its own star imports does, at any depth.
    /// An `__all__` that is not a literal list of strings lets every name
    /// through (it is resolved like any binding afterwards).
    fn star_exports(&self, module: usize, name: &str, depth: usize) -> bool {
        if depth > MAX_DEPTH {
            return false;
        }
        let ns = &self.module(module).ns;
        match ns.get("__all__") {
            Some(Binding::Value {
                expr:
                    Expr::List(ast::ExprList { elts, .. }) | Expr::Tuple(ast::ExprTuple { elts, .. }),
                ..
            }) if elts.iter().all(|e| matches!(e, Expr::StringLiteral(_))) => {
                let listed = elts
                    .iter()
                    .any(|e| matches!(e, Expr::StringLiteral(s) if s.value.to_str() == name));
                if !listed {
                    return false;
                }
            }
            None if name.starts_with('_') => return false,
            Some(_) | None => {}
        }
        ns.get(name).is_some()
            || ns.star_imports.iter().any(|star| {
                self.by_dotted(star).is_some_and(|target| {
                    target != module && self.star_exports(target, name, depth + 1)
                })
            })
    }

    fn resolve_binding(&self, module: usize, binding: &Binding<'a>, depth: usize) -> Entity<'a> {
        match binding {
            Binding::Func { def, .. } => Entity::Func { module, def },
            Binding::Class { def, .. } => Entity::Class { module, def },
            Binding::Value { expr, .. } => Entity::Value { module, expr },
            Binding::Module { dotted } => self.module_entity(dotted),
            Binding::From { module: from, name } => self.attribute_of_module(from, name, depth),
            Binding::Opaque => Entity::Unknown("bound dynamically".to_string()),
        }
    }

    fn module_entity(&self, dotted: &str) -> Entity<'a> {
        match self.by_dotted(dotted) {
            Some(idx) => Entity::SuiteModule(idx),
            None => Entity::External(dotted.to_string()),
        }
    }

    fn attribute_of_module(&self, dotted: &str, name: &str, depth: usize) -> Entity<'a> {
        match self.by_dotted(dotted) {
            Some(idx) => {
                let target = self.module(idx);
                if target.ns.get(name).is_some() || !target.ns.star_imports.is_empty() {
                    let entity = self.resolve_name(idx, name, depth + 1);
                    if !matches!(entity, Entity::Unknown(_)) {
                        return entity;
                    }
                }
                let sub = format!("{dotted}.{name}");
                match self.by_dotted(&sub) {
                    Some(sub_idx) => Entity::SuiteModule(sub_idx),
                    // PEP 562: the module computes the names it lacks.
                    None if matches!(target.ns.get("__getattr__"), Some(Binding::Func { .. })) => {
                        Entity::Unknown(format!(
                            "`{name}` is computed by module `{dotted}`'s `__getattr__` when it is read"
                        ))
                    }
                    None => Entity::Unknown(format!("`{name}` not found in module `{dotted}`")),
                }
            }
            None => Entity::External(format!("{dotted}.{name}")),
        }
    }

    /// Resolves a name or attribute chain, following simple aliases
    /// (`mark = pytest.mark`).
    pub(crate) fn resolve_expr(&self, module: usize, expr: &'a Expr, depth: usize) -> Entity<'a> {
        if depth > MAX_DEPTH {
            return Entity::Unknown("reference chain too deep".to_string());
        }
        let entity = match expr {
            Expr::Name(name) => self.resolve_name(module, name.id.as_str(), depth + 1),
            Expr::Attribute(attr) => {
                let base = self.resolve_expr(module, &attr.value, depth + 1);
                let name = attr.attr.id.as_str();
                match base {
                    Entity::External(mut path) => {
                        // Extended in place: decorators resolve through
                        // this on every item, and `format!` costs more.
                        path.reserve(name.len() + 1);
                        path.push('.');
                        path.push_str(name);
                        Entity::External(path)
                    }
                    Entity::SuiteModule(idx) => {
                        let dotted = self.dotted_of(idx);
                        self.attribute_of_module(&dotted, name, depth + 1)
                    }
                    Entity::Class { module: cm, def } => {
                        let ns = self.class_ns(def);
                        match ns.get(name) {
                            Some(Binding::Func { def, .. }) => Entity::Func { module: cm, def },
                            Some(Binding::Class { def, .. }) => Entity::Class { module: cm, def },
                            Some(Binding::Value { expr, .. }) => Entity::Value { module: cm, expr },
                            _ => Entity::Unknown(format!("class attribute `{name}`")),
                        }
                    }
                    _ => Entity::Unknown(format!("attribute `{name}` of a dynamic value")),
                }
            }
            _ => return Entity::Unknown("not a name".to_string()),
        };
        // Follow `alias = other.name` bindings.
        if let Entity::Value {
            module: vm,
            expr: value,
        } = &entity
        {
            if matches!(value, Expr::Name(_) | Expr::Attribute(_)) {
                return self.resolve_expr(*vm, value, depth + 1);
            }
        }
        entity
    }

    fn dotted_of(&self, idx: usize) -> String {
        self.module(idx).dotted.clone()
    }

    /// The external dotted path `expr` refers to, if it refers outside the
    /// suite.
    pub(crate) fn external_path(&self, module: usize, expr: &'a Expr) -> Option<String> {
        match self.resolve_expr(module, expr, 0) {
            Entity::External(path) => Some(path),
            _ => None,
        }
    }

    /// Recognises a mark decorator expression.
    pub(crate) fn as_mark(
        &self,
        module: usize,
        expr: &'a Expr,
        depth: usize,
    ) -> Option<RawMark<'a>> {
        if depth > MAX_DEPTH {
            return None;
        }
        match expr {
            Expr::Call(call) => {
                if let Expr::Attribute(attr) = call.func.as_ref() {
                    if attr.attr.id.as_str() == "with_args" {
                        if let Some(mark) = self.as_mark(module, &attr.value, depth + 1) {
                            return Some(Self::extend_mark(mark, module, &call.arguments));
                        }
                    }
                }
                let mark = self.as_mark(module, &call.func, depth + 1)?;
                // `mark(func)` applies the mark to `func` instead of adding
                // arguments.
                if call.arguments.args.len() == 1 && call.arguments.keywords.is_empty() {
                    let arg = &call.arguments.args[0];
                    if matches!(arg, Expr::Lambda(_))
                        || matches!(
                            self.resolve_expr(module, arg, depth + 1),
                            Entity::Func { .. } | Entity::Class { .. }
                        )
                    {
                        return None;
                    }
                }
                Some(Self::extend_mark(mark, module, &call.arguments))
            }
            Expr::Name(_) | Expr::Attribute(_) => {
                match self.resolve_expr(module, expr, depth + 1) {
                    Entity::External(path) => mark_name(&path).map(|name| RawMark {
                        name: name.to_string(),
                        args: Vec::new(),
                        kwargs: Vec::new(),
                        opaque: false,
                        at: None,
                    }),
                    Entity::Value {
                        module: vm,
                        expr: value,
                    } => self.as_mark(vm, value, depth + 1),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    fn extend_mark(
        mut mark: RawMark<'a>,
        module: usize,
        arguments: &'a ast::Arguments,
    ) -> RawMark<'a> {
        for arg in &arguments.args {
            if matches!(arg, Expr::Starred(_)) {
                mark.opaque = true;
            } else {
                mark.args.push((module, arg));
            }
        }
        for keyword in &arguments.keywords {
            match &keyword.arg {
                Some(name) => {
                    let name = name.id.as_str().to_string();
                    mark.kwargs.retain(|(n, _, _)| *n != name);
                    mark.kwargs.push((name, module, &keyword.value));
                }
                None => mark.opaque = true,
            }
        }
        mark
    }

    /// Marks of a decorator list, in the order pytest stores them
    /// (bottom decorator first).
    pub(crate) fn decorator_marks(
        &self,
        module: usize,
        decorators: &'a [ast::Decorator],
    ) -> Vec<RawMark<'a>> {
        self.decorator_marks_in(module, decorators, None)
    }

    /// Like [`Self::decorator_marks`], for a method whose class body binds
    /// names the decorators may use (`known = pytest.mark.parametrize(...)`
    /// in the class, then `@known` on a method).
    pub(crate) fn decorator_marks_in(
        &self,
        module: usize,
        decorators: &'a [ast::Decorator],
        class_ns: Option<&Namespace<'a>>,
    ) -> Vec<RawMark<'a>> {
        decorators
            .iter()
            .rev()
            .filter_map(|d| {
                let at = Some((module, d.expression.range()));
                if let (Expr::Name(name), Some(ns)) = (&d.expression, class_ns) {
                    if let Some(Binding::Value { expr, .. }) = ns.get(name.id.as_str()) {
                        return self.as_mark(module, expr, 1).map(|m| RawMark { at, ..m });
                    }
                }
                let mark = self
                    .as_mark(module, &d.expression, 0)
                    .map(|m| RawMark { at, ..m })?;
                Some(match class_ns {
                    Some(ns) => Self::class_arguments(mark, ns),
                    None => mark,
                })
            })
            .collect()
    }

    /// A method's mark arguments that name class attributes (`VALUES` bound
    /// in the class body), replaced by the expressions bound to them: the
    /// class body is where the decorator runs.
    fn class_arguments(mut mark: RawMark<'a>, ns: &Namespace<'a>) -> RawMark<'a> {
        let bound = |expr: &'a Expr| match expr {
            Expr::Name(name) => match ns.get(name.id.as_str()) {
                Some(Binding::Value { expr, .. }) if !ns.mutated.contains(name.id.as_str()) => {
                    Some(*expr)
                }
                _ => None,
            },
            _ => None,
        };
        for (_, expr) in &mut mark.args {
            if let Some(value) = bound(expr) {
                *expr = value;
            }
        }
        for (_, _, expr) in &mut mark.kwargs {
            if let Some(value) = bound(expr) {
                *expr = value;
            }
        }
        mark
    }

    /// The entries of a `pytestmark = ...` value (one expression, or a
    /// list/tuple written there or bound to a name), each with the module
    /// it is written in.
    pub(crate) fn pytestmark_entries(
        &self,
        module: usize,
        expr: &'a Expr,
    ) -> Vec<(usize, &'a Expr)> {
        match expr {
            Expr::List(ast::ExprList { elts, .. }) | Expr::Tuple(ast::ExprTuple { elts, .. }) => {
                elts.iter().map(|e| (module, e)).collect()
            }
            Expr::Name(_) => match self.resolve_expr(module, expr, 0) {
                Entity::Value {
                    module: vm,
                    expr: value,
                } if matches!(value, Expr::List(_) | Expr::Tuple(_)) => {
                    self.pytestmark_entries(vm, value)
                }
                _ => vec![(module, expr)],
            },
            _ => vec![(module, expr)],
        }
    }

    /// Marks of a `pytestmark = ...` value (one mark or a list/tuple).
    pub(crate) fn pytestmark_marks(&self, module: usize, expr: &'a Expr) -> Vec<RawMark<'a>> {
        self.pytestmark_entries(module, expr)
            .into_iter()
            .filter_map(|(m, e)| {
                self.as_mark(m, e, 0).map(|mark| RawMark {
                    at: Some((m, e.range())),
                    ..mark
                })
            })
            .collect()
    }

    /// Whether `call` is `pytest.importorskip(...)`, however `pytest` was
    /// imported.
    pub(crate) fn is_importorskip(&self, module: usize, call: &'a ast::ExprCall) -> bool {
        matches!(
            self.external_path(module, &call.func).as_deref(),
            Some("pytest.importorskip" | "_pytest.outcomes.importorskip")
        )
    }

    /// The dotted path a decorator that is not a mark calls, with its call
    /// arguments: `@slow` imported from `transformers.testing_utils` gives
    /// `transformers.testing_utils.slow`; a helper of the suite gives its
    /// module's dotted name. Builtins (`staticmethod`, ...) and pytest's own
    /// decorators give `None`.
    pub(crate) fn decorator_path(
        &self,
        module: usize,
        expr: &'a Expr,
    ) -> Option<(String, Option<&'a ast::Arguments>)> {
        if self.as_mark(module, expr, 0).is_some() {
            return None;
        }
        let (target, arguments) = match expr {
            Expr::Call(call) => (call.func.as_ref(), Some(&call.arguments)),
            other => (other, None),
        };
        let path = match self.resolve_expr(module, target, 0) {
            Entity::External(path)
                if path == "pytest"
                    || path.starts_with("pytest.")
                    || path.starts_with("_pytest.") =>
            {
                return None
            }
            Entity::External(path) => path,
            Entity::Func { module: fm, def } => {
                qualified(&self.module(fm).dotted, def.name.id.as_str())
            }
            Entity::Class { module: cm, def } => {
                qualified(&self.module(cm).dotted, def.name.id.as_str())
            }
            _ => return None,
        };
        Some((path, arguments))
    }

    /// Recognises `@pytest.fixture` / `@pytest.fixture(...)`.
    pub(crate) fn fixture_decorator(
        &self,
        module: usize,
        expr: &'a Expr,
    ) -> Option<FixtureDecorator<'a>> {
        let (target, arguments) = match expr {
            Expr::Call(call) => (call.func.as_ref(), Some(&call.arguments)),
            other => (other, None),
        };
        matches!(
            self.external_path(module, target).as_deref(),
            Some("pytest.fixture" | "_pytest.fixtures.fixture" | "pytest.yield_fixture")
        )
        .then_some(FixtureDecorator { arguments })
    }

    /// Whether `expr` is `pytest.HIDDEN_PARAM` (an id that hides a
    /// parameter set from the node id).
    pub(crate) fn is_hidden_param(&self, module: usize, expr: &'a Expr) -> bool {
        self.external_path(module, expr)
            .is_some_and(|p| p.ends_with("HIDDEN_PARAM"))
    }

    /// Recognises `pytest.param(*values, id=..., marks=...)`.
    pub(crate) fn as_param(&self, module: usize, expr: &'a Expr) -> Option<Param<'a>> {
        let Expr::Call(call) = expr else { return None };
        let path = self.external_path(module, &call.func)?;
        if path != "pytest.param" && path != "_pytest.mark.param" {
            return None;
        }
        let mut param = Param {
            values: call.arguments.args.iter().collect(),
            id: None,
            marks: Vec::new(),
        };
        for keyword in &call.arguments.keywords {
            match keyword.arg.as_ref().map(|a| a.id.as_str()) {
                Some("id") => param.id = Some(&keyword.value),
                Some("marks") => param.marks = self.pytestmark_marks(module, &keyword.value),
                _ => {}
            }
        }
        Some(param)
    }

    /// Follows a name to the expression it is bound to (one module-level
    /// assignment), for argvalues lists such as `CASES = [...]`.
    pub(crate) fn deref(&self, module: usize, expr: &'a Expr) -> (usize, &'a Expr) {
        let mut current = (module, expr);
        for _ in 0..MAX_DEPTH {
            if !matches!(current.1, Expr::Name(_) | Expr::Attribute(_)) {
                break;
            }
            match self.resolve_expr(current.0, current.1, 0) {
                // A name that module code builds is not its first value.
                Entity::Value {
                    module: vm,
                    expr: value,
                } if !self
                    .module(vm)
                    .ns
                    .mutated_by_expr
                    .contains_key(&(std::ptr::from_ref(value) as usize)) =>
                {
                    current = (vm, value);
                }
                _ => break,
            }
        }
        current
    }

    /// Evaluates an expression to the value pytest would see (see
    /// [`crate::eval`]); what cannot be known is [`PyValue::Unknown`].
    pub(crate) fn eval(&self, module: usize, expr: &'a Expr) -> PyValue {
        crate::eval::Evaluator::new(*self).eval(module, expr)
    }

    /// Evaluates a marker or decorator argument for `collect --json`: only
    /// what is written as a literal (through names bound to literals), so
    /// that a computed list is shown as its source text, once, rather than
    /// built and repeated in every item.
    pub(crate) fn eval_literal(&self, module: usize, expr: &'a Expr) -> PyValue {
        crate::eval::Evaluator::literal(*self).eval(module, expr)
    }

    /// Whether instances of this suite class have no id of their own: no
    /// builtin or external bases, no `__name__`, not an enum.
    pub(crate) fn class_is_plain(
        &self,
        module: usize,
        def: &'a ast::StmtClassDef,
        depth: usize,
    ) -> bool {
        if depth > MAX_DEPTH {
            return false;
        }
        let ns = self.class_ns(def);
        if ns.get("__name__").is_some() {
            return false;
        }
        def.bases()
            .iter()
            .all(|base| match self.resolve_expr(module, base, 0) {
                Entity::Class {
                    module: bm,
                    def: bdef,
                } => self.class_is_plain(bm, bdef, depth + 1),
                Entity::Builtin(name) => {
                    name == "object" || name.ends_with("Exception") || name.ends_with("Error")
                }
                // Standard-library bases whose instances have no `__name__`.
                Entity::External(path) => matches!(
                    path.as_str(),
                    "abc.ABC" | "datetime.tzinfo" | "datetime.timezone" | "typing.NamedTuple"
                ),
                _ => false,
            })
    }

    /// How members of this class print if it is an Enum (Python 3.11+).
    pub(crate) fn enum_kind(
        &self,
        module: usize,
        def: &'a ast::StmtClassDef,
        depth: usize,
    ) -> Option<EnumKind> {
        if depth > MAX_DEPTH {
            return None;
        }
        // `class X(str, Enum)`: members are strs (pytest's id is the value).
        let str_mixin = def.bases().iter().any(|base| matches!(self.resolve_expr(module, base, 0), Entity::Builtin(ref n) if n == "str"));
        if str_mixin {
            let plain = def
                .bases()
                .iter()
                .any(|base| match self.resolve_expr(module, base, 0) {
                    Entity::External(path) => path == "enum.Enum",
                    Entity::Class {
                        module: bm,
                        def: bdef,
                    } => self.enum_kind(bm, bdef, depth + 1).is_some(),
                    _ => false,
                });
            if plain {
                return Some(EnumKind::MixedStr);
            }
        }
        for base in def.bases() {
            match self.resolve_expr(module, base, 0) {
                Entity::External(path) => match path.as_str() {
                    "enum.Enum" | "enum.Flag" => return Some(EnumKind::Plain),
                    "enum.IntEnum" | "enum.StrEnum" | "enum.IntFlag" => {
                        return Some(EnumKind::ValueStr)
                    }
                    _ => {}
                },
                Entity::Class {
                    module: bm,
                    def: bdef,
                } => {
                    if let Some(kind) = self.enum_kind(bm, bdef, depth + 1) {
                        return Some(kind);
                    }
                }
                _ => {}
            }
        }
        None
    }
}

#[derive(Debug, Clone, Copy)]
pub(crate) enum EnumKind {
    /// `str(member)` is `Class.NAME`.
    Plain,
    /// `str(member)` is `str(member.value)` (`IntEnum`, `StrEnum`, `IntFlag`).
    ValueStr,
    /// `class X(str, Enum)`: a member is a `str`, so pytest's id is its
    /// value, escaped.
    MixedStr,
}

fn qualified(module: &str, name: &str) -> String {
    if module.is_empty() {
        name.to_string()
    } else {
        format!("{module}.{name}")
    }
}

/// The mark name of a `pytest.mark.NAME` path.
pub(crate) fn mark_name(path: &str) -> Option<&str> {
    let rest = path
        .strip_prefix("pytest.mark.")
        .or_else(|| path.strip_prefix("_pytest.mark.MARK_GEN."))
        .or_else(|| path.strip_prefix("_pytest.mark.structures.MARK_GEN."))?;
    (!rest.contains('.') && !rest.starts_with('_')).then_some(rest)
}

pub(crate) fn number_value(number: &Number, negative: bool) -> PyValue {
    let sign = if negative { "-" } else { "" };
    match number {
        Number::Int(int) => {
            let text = int.to_string().replace('_', "");
            if text.bytes().all(|b| b.is_ascii_digit()) {
                let digits = text.trim_start_matches('0');
                let digits = if digits.is_empty() { "0" } else { digits };
                if negative && digits == "0" {
                    PyValue::Int("0".into())
                } else {
                    PyValue::Int(compact_str::format_compact!("{sign}{digits}"))
                }
            } else {
                PyValue::Unknown("non-decimal big integer".to_string())
            }
        }
        Number::Float(f) => PyValue::Float(if negative { -f } else { *f }),
        Number::Complex { real, imag } => {
            if *real != 0.0 {
                PyValue::Unknown("complex number".to_string())
            } else if negative {
                PyValue::NegImag(*imag)
            } else {
                PyValue::Imag(*imag)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Project, Shared, SharedModule, SourceRef};
    use crate::source::ParsedFile;

    #[test]
    fn importing_a_module_by_name_builds_its_package_together() {
        let names = [
            "pkg",
            "pkg._map",
            "pkg.a",
            "pkg.b",
            "pkg.c",
            "pkg.sub.d",
            "other.e",
        ];
        let files: Vec<ParsedFile> = names
            .iter()
            .map(|n| {
                let path = std::path::PathBuf::from(format!("{n}.py"));
                let text: &[u8] = if *n == "pkg._map" {
                    b"T = {'a': ('pkg.a', 'A'), 'b': ['pkg.b'], 'd': 'pkg.sub.d', 'e': 'other.e'}\n"
                } else {
                    b"class X:\n    name = 'x'\n"
                };
                ParsedFile::parse(&path, format!("{n}.py"), Ok(text.to_vec()))
            })
            .collect();
        let shared = Shared {
            modules: files
                .iter()
                .zip(names)
                .map(|(f, n)| {
                    SharedModule::new(SourceRef::Parsed(f), n.to_owned(), "pkg".to_owned())
                })
                .collect(),
            by_dotted: names
                .iter()
                .enumerate()
                .map(|(i, n)| ((*n).to_owned(), i))
                .collect(),
            python_version: None,
        };
        let built = |shared: &Shared<'_>| -> Vec<bool> {
            shared
                .modules
                .iter()
                .map(|m| m.built.get().is_some())
                .collect()
        };
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .expect("a pool");
        pool.install(|| {
            let project = Project::new(&shared, None);
            // Nothing names `pkg.c`: importing it builds it alone.
            let _ = project.module(1);
            project.prefetch_siblings(4);
            assert_eq!(
                built(&shared),
                [false, true, false, false, false, false, false]
            );
            // The table names `pkg.a` and `pkg.b`, built together; not
            // `pkg.c`, nor the subpackage's or another package's module.
            project.prefetch_siblings(2);
        });
        assert_eq!(
            built(&shared),
            [false, true, true, true, false, false, false]
        );
    }
}
