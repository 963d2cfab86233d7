//! Fixture definitions visible to a test (conftest chain, module, classes)
//! and pytest's fixture closure, which decides which parametrized fixtures
//! expand a test.

use std::sync::Arc;

use rustc_hash::FxHashMap as HashMap;

use ruff_python_ast::{self as ast, Expr};

use crate::collector::{function_argnames, has_decorator};
use crate::namespace::{Binding, Namespace};
use crate::project::{Entity, FixtureDecorator, Project};

/// A fixture scope, ordered from narrowest to widest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum FixtureScope {
    Function,
    Class,
    Module,
    Package,
    Session,
}

impl FixtureScope {
    pub(crate) fn is_function(self) -> bool {
        matches!(self, FixtureScope::Function)
    }

    pub(crate) fn parse(text: &str) -> Option<Self> {
        Some(match text {
            "function" => FixtureScope::Function,
            "class" => FixtureScope::Class,
            "module" => FixtureScope::Module,
            "package" => FixtureScope::Package,
            "session" => FixtureScope::Session,
            _ => return None,
        })
    }
}

/// One `@pytest.fixture` function.
#[derive(Debug, Clone)]
pub(crate) struct FixtureDef<'a> {
    pub(crate) name: String,
    pub(crate) module: usize,
    pub(crate) params: Option<&'a Expr>,
    pub(crate) ids: Option<&'a Expr>,
    pub(crate) scope: FixtureScope,
    /// `scope=` given as something other than a literal.
    pub(crate) scope_dynamic: bool,
    pub(crate) autouse: bool,
    pub(crate) argnames: Vec<String>,
}

/// Fixture definitions by layer, least specific first. The session's and
/// the conftests' layers are shared by every module that sees them.
#[derive(Debug, Clone, Default)]
pub(crate) struct Fixtures<'a> {
    pub(crate) layers: Vec<Arc<[FixtureDef<'a>]>>,
}

impl<'a> Fixtures<'a> {
    /// The fixtures a module's namespace defines or imports, in `dir()`
    /// (sorted) order.
    pub(crate) fn of_namespace(
        project: &Project<'_, 'a>,
        module: usize,
        ns: &Namespace<'a>,
        is_class: bool,
    ) -> Vec<FixtureDef<'a>> {
        let mut names: Vec<(&str, &Binding<'a>)> = ns.iter().collect();
        names.sort_by(|a, b| a.0.cmp(b.0));
        let mut out = Vec::new();
        for (attr, binding) in names {
            let (fm, def) = match binding {
                Binding::Func { def, .. } => (module, *def),
                Binding::From { .. } | Binding::Value { .. } => {
                    match project.resolve_name(module, attr, 0) {
                        Entity::Func { module: fm, def } => (fm, def),
                        _ => continue,
                    }
                }
                _ => continue,
            };
            if let Some(fixture) = fixture_def(project, fm, def, is_class) {
                out.push(fixture);
            }
        }
        out
    }

    /// The fixtures a class and its bases define (`dir(instance)`).
    pub(crate) fn of_class(
        project: &Project<'_, 'a>,
        mro: &[(usize, &'a ast::StmtClassDef)],
    ) -> Vec<FixtureDef<'a>> {
        let mut out: Vec<FixtureDef<'a>> = Vec::new();
        // dir(instance) covers the whole MRO; a derived definition hides
        // a base one of the same attribute name.
        let mut seen = rustc_hash::FxHashSet::default();
        for &(cm, cdef) in mro {
            let ns = project.class_ns(cdef);
            for fixture in Self::of_namespace(project, cm, ns, true) {
                if seen.insert(fixture.name.clone()) {
                    out.push(fixture);
                }
            }
        }
        out.sort_by(|a, b| a.name.cmp(&b.name));
        out
    }

    /// A view of these fixtures with the class layers appended.
    pub(crate) fn with_classes<'f>(
        &'f self,
        classes: impl IntoIterator<Item = &'f [FixtureDef<'a>]>,
    ) -> FixtureView<'f, 'a> {
        let mut layers: Vec<&'f [FixtureDef<'a>]> = self.layers.iter().map(AsRef::as_ref).collect();
        layers.extend(classes);
        FixtureView { layers }
    }
}

/// The fixture layers visible to one test function, least specific first.
pub(crate) struct FixtureView<'f, 'a> {
    layers: Vec<&'f [FixtureDef<'a>]>,
}

impl<'f, 'a> FixtureView<'f, 'a> {
    /// Definitions of `name`, least specific first.
    pub(crate) fn defs(&self, name: &str) -> Vec<&'f FixtureDef<'a>> {
        self.defs_iter(name).collect()
    }

    fn defs_iter<'s>(
        &'s self,
        name: &'s str,
    ) -> impl DoubleEndedIterator<Item = &'f FixtureDef<'a>> + 's {
        self.layers
            .iter()
            .flat_map(|l| l.iter())
            .filter(move |f| f.name == name)
    }

    /// Autouse fixture names in pytest's order.
    pub(crate) fn autouse_names(&self) -> Vec<String> {
        self.layers
            .iter()
            .flat_map(|l| l.iter())
            .filter(|f| f.autouse)
            .map(|f| f.name.clone())
            .collect()
    }

    /// pytest's `getfixtureclosure`: a depth-first traversal of the
    /// requested names, then a stable sort by scope, widest first.
    pub(crate) fn closure(&self, initial: &[String], ignore: &[String]) -> Vec<String> {
        let mut indices: HashMap<&str, isize> = HashMap::default();
        let mut out: Vec<&str> = Vec::new();
        for name in initial {
            self.process(name, ignore, &mut indices, &mut out, 0);
        }
        let scope_of = |name: &str| -> FixtureScope {
            if ignore.iter().any(|i| i == name) {
                return FixtureScope::Function;
            }
            self.defs_iter(name)
                .next_back()
                .map_or(FixtureScope::Function, |d| d.scope)
        };
        out.sort_by_key(|name| std::cmp::Reverse(scope_of(name)));
        out.into_iter().map(str::to_string).collect()
    }

    /// One step of the traversal; `indices` holds, per name, which of its
    /// definitions (counted from the most specific) the next request of
    /// the name resolves to, as pytest's `getfixturedefs` with `-1`, `-2`
    /// for overrides that request the fixture they override.
    fn process<'n>(
        &'n self,
        name: &'n str,
        ignore: &[String],
        indices: &mut HashMap<&'n str, isize>,
        out: &mut Vec<&'n str>,
        depth: usize,
    ) where
        'f: 'n,
    {
        if depth > 64 {
            return;
        }
        let index = match indices.get(name).copied() {
            Some(-1) => return,
            Some(index) => index,
            None => {
                out.push(name);
                indices.insert(name, -1);
                -1
            }
        };
        if ignore.iter().any(|i| i == name) {
            return;
        }
        let len = isize::try_from(self.defs_iter(name).count()).unwrap_or(isize::MAX);
        if len == 0 || -index > len {
            return;
        }
        let Some(def) = self
            .defs_iter(name)
            .nth(usize::try_from(len + index).unwrap_or(0))
        else {
            return;
        };
        indices.insert(name, index - 1);
        for dep in &def.argnames {
            self.process(dep, ignore, indices, out, depth + 1);
        }
        indices.insert(name, index);
    }
}

/// Reads `@pytest.fixture(...)` on `def`, if present.
fn fixture_def<'a>(
    project: &Project<'_, 'a>,
    module: usize,
    def: &'a ast::StmtFunctionDef,
    is_class: bool,
) -> Option<FixtureDef<'a>> {
    for decorator in &def.decorator_list {
        let Some(FixtureDecorator { arguments }) =
            project.fixture_decorator(module, &decorator.expression)
        else {
            continue;
        };
        let is_static = has_decorator(def, "staticmethod");
        let mut fixture = FixtureDef {
            name: def.name.id.as_str().to_string(),
            module,
            params: None,
            ids: None,
            scope: FixtureScope::Function,
            scope_dynamic: false,
            autouse: false,
            argnames: function_argnames(def, is_class && !is_static),
        };
        if let Some(arguments) = arguments {
            if let Some(Expr::StringLiteral(s)) = arguments.args.first() {
                if let Some(scope) = FixtureScope::parse(s.value.to_str()) {
                    fixture.scope = scope;
                }
            }
            for keyword in &arguments.keywords {
                let Some(arg) = &keyword.arg else { continue };
                match arg.id.as_str() {
                    "params" => fixture.params = Some(&keyword.value),
                    "ids" => fixture.ids = Some(&keyword.value),
                    "autouse" => {
                        fixture.autouse =
                            matches!(&keyword.value, Expr::BooleanLiteral(b) if b.value);
                    }
                    "name" => {
                        if let Expr::StringLiteral(s) = &keyword.value {
                            fixture.name = s.value.to_str().to_string();
                        }
                    }
                    "scope" => match &keyword.value {
                        Expr::StringLiteral(s) => match FixtureScope::parse(s.value.to_str()) {
                            Some(scope) => fixture.scope = scope,
                            None => fixture.scope_dynamic = true,
                        },
                        _ => fixture.scope_dynamic = true,
                    },
                    _ => {}
                }
            }
        }
        return Some(fixture);
    }
    None
}
