//! Static name binding and resolution over the suite's modules.
//!
//! A module's or class's `__dict__` is modelled as an ordered table of
//! bindings with Python's dict semantics (first insertion fixes the position,
//! the last assignment the value). Names resolve through imports (absolute,
//! relative, `as` aliases) into other modules of the suite, or to dotted
//! paths outside it (`pytest.mark.slow`, `unittest.TestCase`).

use rustc_hash::FxHashMap as HashMap;

use ruff_python_ast::{self as ast, Expr, Stmt};

/// What a name is bound to in a namespace.
#[derive(Debug, Clone)]
pub(crate) enum Binding<'a> {
    Func {
        def: &'a ast::StmtFunctionDef,
        cond: bool,
    },
    Class {
        def: &'a ast::StmtClassDef,
        cond: bool,
    },
    Value {
        expr: &'a Expr,
        cond: bool,
    },
    /// `import a.b as c` binds `c` to `a.b`; `import a.b` binds `a` to `a`.
    Module {
        dotted: String,
    },
    /// `from m import n`.
    From {
        module: String,
        name: String,
    },
    /// Bound in a way proctor does not follow (augmented assignment, loop
    /// target, unpacking).
    Opaque,
}

/// An ordered name table with `dict` semantics.
#[derive(Debug, Default)]
pub(crate) struct Namespace<'a> {
    entries: Vec<Option<(&'a str, Binding<'a>)>>,
    index: HashMap<&'a str, usize>,
    /// Modules of `from m import *` statements, in order.
    pub(crate) star_imports: Vec<String>,
    /// Names switched off with `name.__test__ = False`.
    pub(crate) test_disabled: Vec<&'a str>,
    /// Names whose final value depends on more than one statement: bound
    /// more than once, or changed in place (`X.append(..)`, `X += ..`,
    /// `X[k] = ..`). The evaluator runs the module code for them.
    pub(crate) mutated: rustc_hash::FxHashSet<&'a str>,
    /// The expression each mutated name is bound to in this table (by
    /// address), so that a reference that resolves to it is recognised.
    pub(crate) mutated_by_expr: HashMap<usize, &'a str>,
    /// The file whose parse left values out (see
    /// [`crate::source::Elided`]), when it left any out.
    elided: Option<&'a crate::source::ParsedFile>,
}

impl<'a> Namespace<'a> {
    fn insert(&mut self, name: &'a str, binding: Binding<'a>) {
        if let Some(&i) = self.index.get(name) {
            if self.entries[i].is_some() {
                self.mutated.insert(name);
            }
            self.entries[i] = Some((name, binding));
        } else {
            self.index.insert(name, self.entries.len());
            self.entries.push(Some((name, binding)));
        }
    }

    fn remove(&mut self, name: &str) {
        if let Some(i) = self.index.remove(name) {
            self.entries[i] = None;
        }
    }

    /// The binding of `name`. A value the parse left out is parsed now
    /// (once), so callers see the value the file holds.
    pub(crate) fn get(&self, name: &str) -> Option<&Binding<'a>> {
        let &i = self.index.get(name)?;
        let (_, binding) = self.entries[i].as_ref()?;
        Some(self.read(binding))
    }

    /// `binding`, or for a value left out of the parse, the binding of the
    /// value parsed.
    fn read<'s>(&'s self, binding: &'s Binding<'a>) -> &'s Binding<'a> {
        match (self.elided, binding) {
            (Some(file), Binding::Value { expr, cond }) => file
                .elided
                .binding(&|| file.text(), expr, *cond)
                .unwrap_or(binding),
            _ => binding,
        }
    }

    /// Bindings in dict order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&'a str, &Binding<'a>)> {
        self.entries
            .iter()
            .flatten()
            .map(|(n, b)| (*n, self.read(b)))
    }

    /// Builds the table of a module or class body. `package` is the dotted
    /// package used to resolve relative imports.
    pub(crate) fn build(body: &'a [Stmt], package: &str) -> Self {
        Namespace::build_in(body, package, None)
    }

    /// Like [`Namespace::build`], for a body of file `elided`, whose parse
    /// may have left values out: they are parsed from its text when read.
    pub(crate) fn build_in(
        body: &'a [Stmt],
        package: &str,
        elided: Option<&'a crate::source::ParsedFile>,
    ) -> Self {
        let mut ns = Namespace::default();
        ns.add_body(body, package, false);
        ns.elided = elided.filter(|file| !file.elided.is_empty());
        for &name in &ns.mutated {
            if let Some(Binding::Value { expr, .. }) = ns.get(name) {
                ns.mutated_by_expr
                    .insert(std::ptr::from_ref(*expr) as usize, name);
            }
        }
        ns
    }

    fn add_body(&mut self, body: &'a [Stmt], package: &str, cond: bool) {
        for stmt in body {
            self.add_stmt(stmt, package, cond);
        }
    }

    fn add_target(&mut self, target: &'a Expr, value: Option<&'a Expr>, cond: bool) {
        match (target, value) {
            (Expr::Name(name), Some(value)) => {
                self.insert(name.id.as_str(), Binding::Value { expr: value, cond });
            }
            (Expr::Name(name), None) => self.insert(name.id.as_str(), Binding::Opaque),
            (
                Expr::Tuple(ast::ExprTuple { elts, .. }) | Expr::List(ast::ExprList { elts, .. }),
                _,
            ) => {
                for elt in elts {
                    self.add_target(elt, None, cond);
                }
            }
            (Expr::Starred(starred), _) => self.add_target(&starred.value, None, cond),
            _ => {}
        }
    }

    fn add_stmt(&mut self, stmt: &'a Stmt, package: &str, cond: bool) {
        match stmt {
            Stmt::FunctionDef(def) => {
                self.insert(def.name.id.as_str(), Binding::Func { def, cond });
            }
            Stmt::ClassDef(def) => self.insert(def.name.id.as_str(), Binding::Class { def, cond }),
            Stmt::Assign(assign) => {
                for target in &assign.targets {
                    if let Expr::Subscript(subscript) = target {
                        if let Expr::Name(owner) = subscript.value.as_ref() {
                            self.mutated.insert(owner.id.as_str());
                        }
                    }
                    if let Expr::Attribute(attr) = target {
                        if let (Expr::Name(owner), "__test__") =
                            (attr.value.as_ref(), attr.attr.id.as_str())
                        {
                            if matches!(assign.value.as_ref(), Expr::BooleanLiteral(b) if !b.value)
                            {
                                self.test_disabled.push(owner.id.as_str());
                            } else {
                                self.test_disabled.retain(|n| *n != owner.id.as_str());
                            }
                        }
                    }
                    self.add_target(target, Some(&assign.value), cond);
                }
            }
            Stmt::AnnAssign(assign) => {
                if let Some(value) = &assign.value {
                    self.add_target(&assign.target, Some(value), cond);
                }
            }
            Stmt::AugAssign(assign) => match assign.target.as_ref() {
                // `X += [...]` keeps X's binding; module code gives its value.
                Expr::Name(name)
                    if matches!(self.get(name.id.as_str()), Some(Binding::Value { .. })) =>
                {
                    self.mutated.insert(name.id.as_str());
                }
                target => self.add_target(target, None, cond),
            },
            Stmt::Expr(stmt) => {
                if let Expr::Call(call) = stmt.value.as_ref() {
                    if let Expr::Attribute(attr) = call.func.as_ref() {
                        if let Expr::Name(owner) = attr.value.as_ref() {
                            if crate::eval::MUTATING_METHODS.contains(&attr.attr.id.as_str()) {
                                self.mutated.insert(owner.id.as_str());
                            }
                        }
                    }
                }
            }
            Stmt::Import(import) => {
                for alias in &import.names {
                    let dotted = alias.name.id.as_str();
                    if let Some(asname) = &alias.asname {
                        self.insert(
                            asname.id.as_str(),
                            Binding::Module {
                                dotted: dotted.to_string(),
                            },
                        );
                    } else {
                        let first = dotted.split('.').next().unwrap_or(dotted);
                        let first_name = &alias.name.id.as_str()[..first.len()];
                        self.insert(
                            first_name,
                            Binding::Module {
                                dotted: first.to_string(),
                            },
                        );
                    }
                }
            }
            Stmt::ImportFrom(import) => {
                let module = absolute_module(
                    package,
                    import.level,
                    import.module.as_ref().map(|m| m.id.as_str()),
                );
                for alias in &import.names {
                    let name = alias.name.id.as_str();
                    if name == "*" {
                        self.star_imports.push(module.clone());
                        continue;
                    }
                    let bound = alias.asname.as_ref().map_or(name, |a| a.id.as_str());
                    self.insert(
                        bound,
                        Binding::From {
                            module: module.clone(),
                            name: name.to_string(),
                        },
                    );
                }
            }
            Stmt::If(stmt_if) => {
                if !is_type_checking(&stmt_if.test) {
                    self.add_body(&stmt_if.body, package, true);
                }
                for clause in &stmt_if.elif_else_clauses {
                    self.add_body(&clause.body, package, true);
                }
            }
            Stmt::Try(stmt_try) => {
                self.add_body(&stmt_try.body, package, true);
                for handler in &stmt_try.handlers {
                    let ast::ExceptHandler::ExceptHandler(handler) = handler;
                    self.add_body(&handler.body, package, true);
                }
                self.add_body(&stmt_try.orelse, package, true);
                self.add_body(&stmt_try.finalbody, package, cond);
            }
            Stmt::With(with) => self.add_body(&with.body, package, cond),
            Stmt::For(stmt_for) => {
                self.add_target(&stmt_for.target, None, true);
                self.add_body(&stmt_for.body, package, true);
                self.add_body(&stmt_for.orelse, package, true);
            }
            Stmt::While(stmt_while) => {
                self.add_body(&stmt_while.body, package, true);
                self.add_body(&stmt_while.orelse, package, true);
            }
            Stmt::Delete(delete) => {
                for target in &delete.targets {
                    if let Expr::Name(name) = target {
                        self.remove(name.id.as_str());
                    }
                }
            }
            _ => {}
        }
    }
}

fn is_type_checking(test: &Expr) -> bool {
    match test {
        Expr::Name(name) => name.id.as_str() == "TYPE_CHECKING",
        Expr::Attribute(attr) => attr.attr.id.as_str() == "TYPE_CHECKING",
        _ => false,
    }
}

/// The absolute module named by a `from` import at `level` dots inside
/// `package`.
pub(crate) fn absolute_module(package: &str, level: u32, module: Option<&str>) -> String {
    if level == 0 {
        return module.unwrap_or_default().to_string();
    }
    let mut parts: Vec<&str> = if package.is_empty() {
        Vec::new()
    } else {
        package.split('.').collect()
    };
    for _ in 1..level {
        parts.pop();
    }
    let mut base = parts.join(".");
    if let Some(module) = module {
        if !base.is_empty() {
            base.push('.');
        }
        base.push_str(module);
    }
    base
}

/// Names of Python builtins whose values are classes or functions (so their
/// id is their `__name__`).
pub(crate) const BUILTIN_CALLABLES: &[&str] = &[
    "__import__",
    "abs",
    "all",
    "any",
    "ascii",
    "bin",
    "bool",
    "bytearray",
    "bytes",
    "callable",
    "chr",
    "classmethod",
    "complex",
    "dict",
    "dir",
    "divmod",
    "enumerate",
    "filter",
    "float",
    "format",
    "frozenset",
    "getattr",
    "hasattr",
    "hash",
    "hex",
    "id",
    "input",
    "int",
    "isinstance",
    "issubclass",
    "iter",
    "len",
    "list",
    "map",
    "max",
    "min",
    "next",
    "object",
    "oct",
    "open",
    "ord",
    "pow",
    "print",
    "property",
    "range",
    "repr",
    "reversed",
    "round",
    "set",
    "setattr",
    "slice",
    "sorted",
    "staticmethod",
    "str",
    "sum",
    "super",
    "tuple",
    "type",
    "vars",
    "zip",
    "Exception",
    "BaseException",
    "ValueError",
    "TypeError",
    "KeyError",
    "IndexError",
    "RuntimeError",
    "AttributeError",
    "OSError",
    "IOError",
    "ImportError",
    "NotImplementedError",
    "ZeroDivisionError",
    "AssertionError",
    "StopIteration",
    "LookupError",
    "ArithmeticError",
    "FileNotFoundError",
    "PermissionError",
    "TimeoutError",
    "ConnectionError",
    "UnicodeError",
    "UnicodeDecodeError",
    "UnicodeEncodeError",
    "OverflowError",
    "RecursionError",
    "ModuleNotFoundError",
    "Warning",
    "UserWarning",
    "DeprecationWarning",
    "RuntimeWarning",
    "FutureWarning",
    "SyntaxError",
    "SystemExit",
    "KeyboardInterrupt",
    "MemoryError",
    "NameError",
    "EOFError",
    "BufferError",
    "ResourceWarning",
    "PendingDeprecationWarning",
];
