//! Items of one test module, in pytest's order: module functions, classes
//! (with inherited tests in reverse-MRO order), unittest cases, markers on
//! every level, and parametrization.

use rustc_hash::FxHashSet as HashSet;
use std::sync::Arc;

use ruff_python_ast::{self as ast, Expr, Stmt};
use ruff_text_size::Ranged;

use crate::fixtures::{FixtureDef, Fixtures};
use crate::model::{CollectError, Decorator, Location, Marker, MarkerSource};
use crate::namespace::{Binding, Namespace};
use crate::parametrize::{expand, ParamEntry};
use crate::project::{Entity, Project, RawMark};
use crate::settings::{matches_prefix_or_glob, CollectSettings};

/// An item before the session-wide reordering. Kept small: a cold run
/// holds every item of a module (18,060 in packaging's `test_version.py`)
/// in its functions' vectors, then in the module's, so what most items
/// lack (the function's facts) is one shared pointer.
#[derive(Debug, Clone)]
pub(crate) struct RawItem {
    pub(crate) nodeid: String,
    /// The test module, as pytest's `item.path` (one allocation shared by
    /// the module's items).
    pub(crate) file: Arc<str>,
    /// The file that defines the test function (a base class's module for
    /// inherited tests), as pytest's `item.location` (shared, like
    /// `file`).
    pub(crate) def_file: Arc<str>,
    pub(crate) line: usize,
    pub(crate) markers: Vec<Arc<Marker>>,
    /// Parameters of a scope wider than the function, for
    /// `reorder_items`; empty for most items.
    pub(crate) high_params: Vec<ParamEntry>,
    /// Node id of the innermost class, for class-scoped parameters.
    pub(crate) class_key: Option<Arc<str>>,
    /// What the item's function says of every item it gives, when it says
    /// anything: shared by those items.
    pub(crate) facts: Option<Arc<ItemFacts>>,
}

// Every item of a module is held (and copied once) at 136 bytes, not the
// 224 it took with the function's facts inline.
const _: () = assert!(std::mem::size_of::<RawItem>() <= 136);

/// What a test function says of each of its items, when it says more
/// than most (see [`RawItem::facts`]).
#[derive(Debug, Clone, Default)]
pub(crate) struct ItemFacts {
    /// Why the items cannot be known statically (see
    /// [`crate::model::Item`]).
    pub(crate) dynamic: Option<String>,
    /// Non-mark decorators of the function, then of its classes, then of
    /// the module (see [`Decorator`]).
    pub(crate) decorators: Vec<Arc<Decorator>>,
    /// Why the test skips itself on its class (see
    /// [`crate::class_flags`]).
    pub(crate) skip: Option<String>,
    /// Why the markers may be incomplete (see [`crate::model::Item`]).
    pub(crate) markers_uncertain: Option<String>,
}

impl ItemFacts {
    /// The facts to share, or `None` when there are none.
    pub(crate) fn shared(self) -> Option<Arc<ItemFacts>> {
        let none = self.dynamic.is_none()
            && self.decorators.is_empty()
            && self.skip.is_none()
            && self.markers_uncertain.is_none();
        (!none).then(|| Arc::new(self))
    }
}

impl RawItem {
    /// The item of a file as a whole (a doctest text file, a file a
    /// conftest hook collects, an example or a notebook): defined by the
    /// file itself at line 0, without marks, parameters, class or facts.
    pub(crate) fn of_file(nodeid: String, file: Arc<str>) -> RawItem {
        RawItem {
            nodeid,
            def_file: Arc::clone(&file),
            file,
            line: 0,
            markers: Vec::new(),
            high_params: Vec::new(),
            class_key: None,
            facts: None,
        }
    }

    /// Why the item cannot be known statically, if it cannot.
    pub(crate) fn dynamic(&self) -> Option<&str> {
        self.facts.as_ref()?.dynamic.as_deref()
    }

    /// The item's decorators that are not marks.
    pub(crate) fn decorators(&self) -> &[Arc<Decorator>] {
        self.facts.as_ref().map_or(&[], |facts| &facts.decorators)
    }

    /// Why the test skips itself on its class, if it does.
    pub(crate) fn skip(&self) -> Option<&str> {
        self.facts.as_ref()?.skip.as_deref()
    }

    /// Why the markers may be incomplete, when they may.
    pub(crate) fn markers_uncertain(&self) -> Option<&str> {
        self.facts.as_ref()?.markers_uncertain.as_deref()
    }
}

/// One class on the path from the module to an item.
#[derive(Clone)]
struct ClassFrame<'a> {
    /// Marks of this class node (its MRO, base-most first).
    marks: Vec<RawMark<'a>>,
    /// The same marks, converted once for every item of the class.
    markers: Vec<Arc<Marker>>,
    /// The class's own decorators that are not marks, then the entries of
    /// its `pytestmark` lists that are not marks.
    decorators: Vec<Arc<Decorator>>,
    /// Suite classes of the MRO, most derived first.
    mro: Vec<(usize, &'a ast::StmtClassDef)>,
    /// Fixtures the class (and its bases) define.
    fixtures: Vec<FixtureDef<'a>>,
}

pub(crate) struct ModuleCollector<'p, 'a> {
    pub(crate) project: &'p Project<'p, 'a>,
    pub(crate) settings: &'p CollectSettings,
    pub(crate) module: usize,
    /// Fixtures visible from this module (conftest chain + module).
    pub(crate) fixtures: Fixtures<'a>,
    /// Reason that applies to every item of the module (a
    /// `pytest_generate_tests` hook).
    pub(crate) module_dynamic: Option<String>,
    module_marks: Vec<RawMark<'a>>,
    module_markers: Vec<Arc<Marker>>,
    /// The `hypothesis` mark Hypothesis's plugin adds to `@given` tests,
    /// when the plugin is active: one, shared by every such item.
    hypothesis_mark: Option<Arc<Marker>>,
    /// The `asyncio` mark pytest-asyncio adds to coroutine tests in `auto`
    /// mode, when the plugin is active: one, shared by every such item.
    asyncio_mark: Option<Arc<Marker>>,
    /// Module-level `pytest.importorskip` calls, then the entries of the
    /// module's `pytestmark` that are not marks.
    module_decorators: Vec<Arc<Decorator>>,
    items: Vec<RawItem>,
}

/// A test function to expand: its name, the module that defines it, and
/// its definition.
type TestFunction<'a> = (&'a str, usize, &'a ast::StmtFunctionDef);

/// A member of a test module that gives items, in the module's order.
enum ModuleMember<'a> {
    /// The next of the module's test functions.
    Test,
    Class(&'a str, usize, &'a ast::StmtClassDef, Option<String>),
    Lambda(&'a str, &'a ast::ExprLambda),
}

/// A failure that makes pytest drop the whole module.
pub(crate) struct ModuleError(pub(crate) CollectError);

impl<'p, 'a> ModuleCollector<'p, 'a> {
    pub(crate) fn new(
        project: &'p Project<'p, 'a>,
        settings: &'p CollectSettings,
        module: usize,
        fixtures: Fixtures<'a>,
        module_dynamic: Option<String>,
    ) -> Self {
        ModuleCollector {
            project,
            settings,
            module,
            fixtures,
            module_dynamic,
            module_marks: Vec::new(),
            module_markers: Vec::new(),
            asyncio_mark: (settings.asyncio_plugin && settings.asyncio_auto).then(|| {
                Arc::new(Marker {
                    name: "asyncio".into(),
                    args: Vec::new(),
                    kwargs: serde_json::Map::new(),
                    source: MarkerSource::Function,
                    location: None,
                })
            }),
            hypothesis_mark: settings.hypothesis_plugin.then(|| {
                Arc::new(Marker {
                    name: "hypothesis".into(),
                    args: Vec::new(),
                    kwargs: serde_json::Map::new(),
                    source: MarkerSource::Function,
                    location: None,
                })
            }),
            module_decorators: Vec::new(),
            items: Vec::new(),
        }
    }

    fn rel(&self) -> &str {
        &self.project.module(self.module).file.rel
    }

    /// Collects the module, or the error that makes pytest drop it.
    pub(crate) fn collect(mut self) -> Result<Vec<RawItem>, ModuleError> {
        let project = self.project;
        let m = project.module(self.module);
        if let Some(Binding::Value { expr, .. }) = m.ns.get("__test__") {
            if is_false(expr) {
                return Ok(Vec::new());
            }
        }
        if let Some(Binding::Value { expr, .. }) = m.ns.get("pytestmark") {
            self.module_marks = project.pytestmark_marks(self.module, expr);
            self.module_markers = self.shared(&self.module_marks, MarkerSource::Module);
        }
        self.module_decorators = self.importorskips();
        if let Some(Binding::Value { expr, .. }) = m.ns.get("pytestmark") {
            self.module_decorators.extend(self.pytestmark_decorators(
                self.module,
                expr,
                MarkerSource::Module,
            ));
        }
        let prefix = self.rel().to_string();
        let mut members: Vec<ModuleMember<'a>> = Vec::new();
        let mut tests: Vec<(TestFunction<'a>, Option<String>)> = Vec::new();
        for (name, binding) in m.ns.iter() {
            if name.starts_with("__") && name.ends_with("__") {
                continue;
            }
            let cond = matches!(
                binding,
                Binding::Func { cond: true, .. }
                    | Binding::Class { cond: true, .. }
                    | Binding::Value { cond: true, .. }
            );
            if m.ns.test_disabled.contains(&name) {
                continue;
            }
            if let Binding::Value {
                expr: Expr::Lambda(lambda),
                ..
            } = binding
            {
                if matches_prefix_or_glob(&self.settings.python_functions, name) {
                    members.push(ModuleMember::Lambda(name, lambda));
                }
                continue;
            }
            let entity = match binding {
                Binding::Func { def, .. } => Entity::Func {
                    module: self.module,
                    def,
                },
                Binding::Class { def, .. } => Entity::Class {
                    module: self.module,
                    def,
                },
                Binding::Value { expr, .. }
                    if matches!(expr, Expr::Name(_) | Expr::Attribute(_)) =>
                {
                    project.resolve_expr(self.module, expr, 0)
                }
                Binding::From { .. } | Binding::Module { .. } => {
                    project.resolve_name(self.module, name, 0)
                }
                _ => continue,
            };
            let dynamic = if cond {
                match defined_under(project, self.module, binding, &m.ns, name) {
                    Some(true) => None,
                    Some(false) => continue,
                    None => Some(format!("`{name}` is defined inside a conditional block")),
                }
            } else {
                None
            };
            match entity {
                Entity::Class { module: cm, def } => {
                    if !self.settings.collect_imported_tests && cm != self.module {
                        continue;
                    }
                    members.push(ModuleMember::Class(name, cm, def, dynamic));
                }
                Entity::Func { module: fm, def } => {
                    if !self.settings.collect_imported_tests && fm != self.module {
                        continue;
                    }
                    if self.is_test_function(name, fm, def) {
                        members.push(ModuleMember::Test);
                        tests.push(((name, fm, def), dynamic));
                    }
                }
                _ => {}
            }
        }
        // The test functions' items are made first (in parallel), then
        // every member is taken in order.
        let functions: Vec<TestFunction<'a>> = tests.iter().map(|(test, _)| *test).collect();
        let made = self.functions_items(&functions, &prefix, &[], |index| tests[index].1.clone());
        self.items
            .reserve(made.iter().map(|(items, _)| items.len()).sum());
        let mut made = made.into_iter();
        for member in members {
            match member {
                ModuleMember::Test => {
                    if let Some((items, result)) = made.next() {
                        self.items.extend(items);
                        result?;
                    }
                }
                ModuleMember::Class(name, cm, def, dynamic) => {
                    self.collect_class_entry(name, cm, def, &prefix, &[], dynamic)?;
                }
                ModuleMember::Lambda(name, lambda) => {
                    self.collect_lambda(name, lambda, &prefix, &[]);
                }
            }
        }
        Ok(self.items)
    }

    /// pytest's `istestfunction` for a statically known function.
    fn is_test_function(&self, name: &str, module: usize, def: &'a ast::StmtFunctionDef) -> bool {
        if !matches_prefix_or_glob(&self.settings.python_functions, name) {
            return false;
        }
        for decorator in &def.decorator_list {
            if self
                .project
                .fixture_decorator(module, &decorator.expression)
                .is_some()
            {
                return false;
            }
            if let Expr::Name(n) = &decorator.expression {
                if n.id.as_str() == "property" {
                    return false;
                }
            }
        }
        true
    }

    fn collect_class_entry(
        &mut self,
        name: &str,
        module: usize,
        def: &'a ast::StmtClassDef,
        prefix: &str,
        parents: &[ClassFrame<'a>],
        dynamic: Option<String>,
    ) -> Result<(), ModuleError> {
        let info = ClassInfo::compute(self.project, module, def);
        if info.unittest {
            if info.is_abstract {
                return Ok(());
            }
            self.collect_unittest(name, &info, prefix, parents, dynamic);
            return Ok(());
        }
        let dunder_test = info.dunder_test;
        if !(matches_prefix_or_glob(&self.settings.python_classes, name)
            || dunder_test == Some(true))
        {
            return Ok(());
        }
        if info.is_abstract || dunder_test == Some(false) || info.has_init {
            return Ok(());
        }
        let dynamic = dynamic
            .or_else(|| {
                info.mro
                    .iter()
                    .any(|&(_, cdef)| self.project.class_ns(cdef).get("pytest_generate_tests").is_some())
                    .then(|| format!("class `{name}` defines `pytest_generate_tests`: parametrization happens at run time"))
            })
            .or_else(|| {
                info.unknown_base
                    .as_ref()
                    .map(|b| format!("class `{name}` inherits from `{b}`, which is outside the suite"))
            });
        let frame = ClassFrame {
            decorators: self.class_decorators(&info.mro),
            markers: self.shared(&info.marks, MarkerSource::Class),
            marks: info.marks.clone(),
            mro: info.mro.clone(),
            fixtures: Fixtures::of_class(self.project, &info.mro),
        };
        let mut chain = parents.to_vec();
        chain.push(frame);
        let prefix = format!("{prefix}::{name}");
        // One dict per class of the MRO; names seen in a more derived class
        // hide those of its bases; bases' items come first.
        let mut seen: HashSet<&'a str> = HashSet::default();
        let mut groups: Vec<Vec<(&'a str, usize, Member<'a>)>> = Vec::new();
        for &(cm, cdef) in &info.mro {
            let ns = self.project.class_ns(cdef);
            let mut group = Vec::new();
            for (member_name, binding) in ns.iter() {
                if !seen.insert(member_name) {
                    continue;
                }
                if ns.test_disabled.contains(&member_name) {
                    continue;
                }
                match binding {
                    Binding::Value {
                        expr: Expr::Lambda(lambda),
                        ..
                    } => group.push((member_name, cm, Member::Lambda(lambda))),
                    Binding::Func { def: fdef, .. } => {
                        group.push((member_name, cm, Member::Func(fdef)));
                    }
                    Binding::Class { def: cdef2, .. } => {
                        group.push((member_name, cm, Member::Class(cdef2)));
                    }
                    Binding::Value { expr, .. } => match self.project.resolve_expr(cm, expr, 0) {
                        Entity::Func {
                            module: fm,
                            def: fdef,
                        } => group.push((member_name, fm, Member::Func(fdef))),
                        Entity::Class {
                            module: km,
                            def: kdef,
                        } => group.push((member_name, km, Member::Class(kdef))),
                        _ => {}
                    },
                    _ => {}
                }
            }
            groups.push(group);
        }
        let members: Vec<(&'a str, usize, Member<'a>)> =
            groups.into_iter().rev().flatten().collect();
        // The test functions' items are made first (in parallel: each only
        // reads the module's data), then every member is taken in order.
        let tests: Vec<TestFunction<'a>> = members
            .iter()
            .filter_map(|&(member_name, mm, ref member)| match member {
                Member::Func(fdef) if self.is_test_function(member_name, mm, fdef) => {
                    Some((member_name, mm, *fdef))
                }
                _ => None,
            })
            .collect();
        let made = self.functions_items(&tests, &prefix, &chain, |_| dynamic.clone());
        self.items
            .reserve(made.iter().map(|(items, _)| items.len()).sum());
        let mut made = made.into_iter();
        let mut tests = tests.iter().peekable();
        for (member_name, mm, member) in members {
            match member {
                Member::Func(_) => {
                    if tests
                        .next_if(|&&(test, _, _)| test == member_name)
                        .is_some()
                    {
                        if let Some((items, result)) = made.next() {
                            self.items.extend(items);
                            result?;
                        }
                    }
                }
                Member::Class(kdef) => {
                    self.collect_class_entry(
                        member_name,
                        mm,
                        kdef,
                        &prefix,
                        &chain,
                        dynamic.clone(),
                    )?;
                }
                Member::Lambda(lambda) => {
                    if matches_prefix_or_glob(&self.settings.python_functions, member_name) {
                        self.collect_lambda(member_name, lambda, &prefix, &chain);
                    }
                }
            }
        }
        Ok(())
    }

    /// The items of each test function of `tests` (a module's or a class's
    /// own), in order, each with the error that makes pytest drop the module, if
    /// it has one. Several functions are expanded in parallel, each
    /// recording its own file-system probes for the cache, which are then
    /// added to this thread's (the module's) recording.
    fn functions_items(
        &self,
        tests: &[TestFunction<'a>],
        prefix: &str,
        chain: &[ClassFrame<'a>],
        dynamic: impl Fn(usize) -> Option<String> + Sync,
    ) -> Vec<(Vec<RawItem>, Result<(), ModuleError>)> {
        use rayon::prelude::*;
        let one = |(index, &(name, fm, def)): (usize, &TestFunction<'a>)| {
            let mut items = Vec::new();
            let result =
                self.function_items(name, fm, def, prefix, chain, dynamic(index), &mut items);
            (items, result)
        };
        if tests.len() < 2 || rayon::current_num_threads() < 2 {
            return tests.iter().enumerate().map(one).collect();
        }
        let made: Vec<_> = tests
            .par_iter()
            .enumerate()
            .with_max_len(1)
            .map(|test| crate::cache::probe::recording(|| one(test)))
            .collect();
        made.into_iter()
            .map(|(out, probes)| {
                crate::cache::probe::replay(probes);
                out
            })
            .collect()
    }

    fn collect_unittest(
        &mut self,
        name: &str,
        info: &ClassInfo<'a>,
        prefix: &str,
        parents: &[ClassFrame<'a>],
        dynamic: Option<String>,
    ) {
        if info.dunder_test == Some(false) {
            return;
        }
        let dynamic = dynamic.or_else(|| {
            info.unknown_base.as_ref().map(|b| {
                format!("unittest class `{name}` inherits from `{b}`, which is outside the suite")
            })
        });
        let mut chain = parents.to_vec();
        let class_decorators = self.class_decorators(&info.mro);
        chain.push(ClassFrame {
            decorators: class_decorators,
            markers: self.shared(&info.marks, MarkerSource::Class),
            marks: info.marks.clone(),
            mro: info.mro.clone(),
            fixtures: Vec::new(),
        });
        let prefix = format!("{prefix}::{name}");
        // TestLoader.getTestCaseNames: every attribute starting with "test"
        // across the MRO, sorted by name.
        let mut methods: Vec<(&'a str, usize, &'a ast::StmtFunctionDef)> = Vec::new();
        let mut seen = HashSet::default();
        let mut run_test = None;
        for &(cm, cdef) in &info.mro {
            let ns = self.project.class_ns(cdef);
            for (member_name, binding) in ns.iter() {
                if !seen.insert(member_name) {
                    continue;
                }
                if ns.test_disabled.contains(&member_name) {
                    continue;
                }
                let func = match binding {
                    Binding::Func { def: fdef, .. } => Some((cm, *fdef)),
                    Binding::Value { expr, .. } => match self.project.resolve_expr(cm, expr, 0) {
                        Entity::Func {
                            module: fm,
                            def: fdef,
                        } => Some((fm, fdef)),
                        _ => None,
                    },
                    _ => None,
                };
                if let Some((fm, fdef)) = func {
                    if member_name.starts_with("test") {
                        methods.push((member_name, fm, fdef));
                    } else if member_name == "runTest" {
                        run_test = Some((member_name, fm, fdef));
                    }
                }
            }
        }
        methods.sort_by(|a, b| a.0.cmp(b.0));
        let methods = if methods.is_empty() {
            run_test.into_iter().collect()
        } else {
            methods
        };
        for (method_name, fm, fdef) in methods {
            let owner = owner_namespace(self.project, fdef, &chain);
            let mut own = self
                .project
                .decorator_marks_in(fm, &fdef.decorator_list, owner);
            let markers_uncertain = self.add_factory_marks(fm, fdef, &mut own);
            let own = self.shared(&own, MarkerSource::Function);
            let markers = self.markers(&own, &[], Some((fm, fdef, false)), &[], &chain);
            let own_decorators = self.decorators(fm, &fdef.decorator_list, MarkerSource::Function);
            let decorators = self.item_decorators(&own_decorators, &chain);
            let facts = ItemFacts {
                dynamic: dynamic.clone().or_else(|| self.module_dynamic.clone()),
                decorators,
                skip: crate::class_flags::flag_skip(self.project, fm, fdef, &info.mro),
                markers_uncertain,
            };
            self.items.push(RawItem {
                nodeid: format!("{prefix}::{method_name}"),
                file: self.rel().into(),
                def_file: self.project.module(fm).file.rel.as_str().into(),
                line: self
                    .project
                    .module(fm)
                    .file
                    .line_of(fdef.range.start().to_u32()),
                markers,
                high_params: Vec::new(),
                class_key: Some(prefix.as_str().into()),
                facts: facts.shared(),
            });
        }
    }

    /// A lambda bound to a test name: a plain function without marks of
    /// its own.
    fn collect_lambda(
        &mut self,
        name: &str,
        lambda: &'a ast::ExprLambda,
        prefix: &str,
        chain: &[ClassFrame<'a>],
    ) {
        let markers = self.markers(&[], &[], None, &[], chain);
        let decorators = self.item_decorators(&[], chain);
        let facts = ItemFacts {
            dynamic: self.module_dynamic.clone(),
            decorators,
            ..ItemFacts::default()
        };
        self.items.push(RawItem {
            nodeid: format!("{prefix}::{name}"),
            file: self.rel().into(),
            def_file: self.rel().into(),
            line: self
                .project
                .module(self.module)
                .file
                .line_of(lambda.range.start().to_u32()),
            markers,
            high_params: Vec::new(),
            class_key: (!chain.is_empty()).then(|| prefix.into()),
            facts: facts.shared(),
        });
    }

    /// Appends the items of one test function to `items`.
    #[expect(
        clippy::too_many_arguments,
        reason = "the function, where it is, and where its items go"
    )]
    fn function_items(
        &self,
        name: &str,
        fmodule: usize,
        def: &'a ast::StmtFunctionDef,
        prefix: &str,
        chain: &[ClassFrame<'a>],
        dynamic: Option<String>,
        items: &mut Vec<RawItem>,
    ) -> Result<(), ModuleError> {
        if is_generator(self.project.body(fmodule, def)) {
            return Err(ModuleError(CollectError {
                file: self.rel().into(),
                line: self
                    .project
                    .module(fmodule)
                    .file
                    .line_of(def.range.start().to_u32()),
                column: 0,
                message: format!(
                    "'yield' keyword is allowed in fixtures, but not in tests ({name})"
                ),
            }));
        }
        let owner = owner_namespace(self.project, def, chain);
        let mut own = self
            .project
            .decorator_marks_in(fmodule, &def.decorator_list, owner);
        let unsure_markers = self.add_factory_marks(fmodule, def, &mut own);
        let base_id = format!("{prefix}::{name}");
        let line = self
            .project
            .module(fmodule)
            .file
            .line_of(def.range.start().to_u32());
        let class_key: Option<Arc<str>> = (!chain.is_empty()).then(|| prefix.into());
        let skip = chain.last().and_then(|frame| {
            crate::class_flags::flag_skip(self.project, fmodule, def, &frame.mro)
        });
        let def_file: Arc<str> = self.project.module(fmodule).file.rel.as_str().into();
        let is_method = !chain.is_empty() && !has_decorator(def, "staticmethod");
        let mut argnames = function_argnames(def, is_method);
        self.drop_given_args(fmodule, def, is_method, &mut argnames);
        // All marks in iter_markers order, for parametrize and usefixtures.
        let all_marks = self.mark_order(&own, chain);
        let fixtures = self
            .fixtures
            .with_classes(chain.iter().map(|frame| frame.fixtures.as_slice()));
        let mut closure = Vec::new();
        let expansion = expand(
            self.project,
            self.settings,
            &fixtures,
            &all_marks,
            &argnames,
            name,
            &base_id,
            &mut closure,
        );
        let fixture_marks = self.fixture_marks(&closure);
        let dynamic = dynamic
            .or_else(|| self.module_dynamic.clone())
            .or_else(|| self.marking_decorator(fmodule, def));
        let own = self.shared(&own, MarkerSource::Function);
        let own_decorators = self.decorators(fmodule, &def.decorator_list, MarkerSource::Function);
        let decorators = self.item_decorators(&own_decorators, chain);
        match expansion {
            Err(crate::parametrize::ExpandError::Dynamic(reason)) => {
                let markers =
                    self.markers(&own, &[], Some((fmodule, def, true)), &fixture_marks, chain);
                let facts = ItemFacts {
                    dynamic: Some(dynamic.unwrap_or(reason)),
                    decorators,
                    skip,
                    markers_uncertain: unsure_markers,
                };
                items.push(RawItem {
                    nodeid: base_id,
                    file: self.rel().into(),
                    def_file,
                    line,
                    markers,
                    high_params: Vec::new(),
                    class_key,
                    facts: facts.shared(),
                });
            }
            Err(crate::parametrize::ExpandError::Collect(message)) => {
                return Err(ModuleError(CollectError {
                    file: self.rel().into(),
                    line,
                    column: 0,
                    message,
                }));
            }
            Ok(None) => {
                let markers =
                    self.markers(&own, &[], Some((fmodule, def, true)), &fixture_marks, chain);
                let facts = ItemFacts {
                    dynamic,
                    decorators,
                    skip,
                    markers_uncertain: unsure_markers,
                };
                items.push(RawItem {
                    nodeid: base_id,
                    file: self.rel().into(),
                    def_file,
                    line,
                    markers,
                    high_params: Vec::new(),
                    class_key,
                    facts: facts.shared(),
                });
            }
            Ok(Some(callspecs)) => {
                // The markers of a call without marks of its own, made once
                // for all of them.
                let common =
                    self.markers(&own, &[], Some((fmodule, def, true)), &fixture_marks, chain);
                let file: Arc<str> = self.rel().into();
                let facts = ItemFacts {
                    dynamic,
                    decorators,
                    skip,
                    markers_uncertain: unsure_markers,
                }
                .shared();
                items.reserve(callspecs.len());
                let mut unmarked_seen = false;
                for callspec in callspecs {
                    if self.settings.definitions_only {
                        // One item for the instances without marks of
                        // their own, one per instance with marks.
                        if callspec.marks.is_empty() && std::mem::replace(&mut unmarked_seen, true)
                        {
                            continue;
                        }
                    }
                    let nodeid = if !callspec.has_id || self.settings.definitions_only {
                        base_id.clone()
                    } else {
                        let mut nodeid =
                            String::with_capacity(base_id.len() + callspec.id.len() + 2);
                        nodeid.push_str(&base_id);
                        nodeid.push('[');
                        nodeid.push_str(&callspec.id);
                        nodeid.push(']');
                        nodeid
                    };
                    let markers = if callspec.marks.is_empty() {
                        common.clone()
                    } else {
                        self.markers(
                            &own,
                            &callspec.marks,
                            Some((fmodule, def, true)),
                            &fixture_marks,
                            chain,
                        )
                    };
                    items.push(RawItem {
                        nodeid,
                        file: file.clone(),
                        def_file: def_file.clone(),
                        line,
                        markers,
                        // Only the wider-scoped parameters: no allocation
                        // for the usual function-scoped ones.
                        high_params: callspec.params,
                        class_key: class_key.clone(),
                        facts: facts.clone(),
                    });
                }
            }
        }
        Ok(())
    }

    /// The markers of the `[fixtures.<name>]` rules whose fixture is in
    /// `closure`, rules in file order.
    fn fixture_marks(&self, closure: &[String]) -> Vec<Arc<Marker>> {
        self.settings
            .fixture_markers
            .iter()
            .filter(|(fixture, _)| closure.contains(fixture))
            .flat_map(|(_, markers)| markers)
            .map(|name| {
                Arc::new(Marker {
                    name: name.clone(),
                    args: Vec::new(),
                    kwargs: serde_json::Map::new(),
                    source: MarkerSource::Function,
                    location: None,
                })
            })
            .collect()
    }

    /// Hypothesis' `@given(...)` rewrites the test's signature: the
    /// arguments its strategies fill are not fixtures. Positional strategies
    /// fill the rightmost positional parameters, keyword strategies their
    /// names.
    /// The `hypothesis` mark, for a test Hypothesis's plugin marks: one
    /// decorated with `@given(...)` (the plugin's `is_hypothesis_test`).
    fn plugin_mark(&self, module: usize, def: &'a ast::StmtFunctionDef) -> Option<&Arc<Marker>> {
        let mark = self.hypothesis_mark.as_ref()?;
        let given = def.decorator_list.iter().any(|decorator| {
            let Expr::Call(call) = &decorator.expression else {
                return false;
            };
            self.project
                .external_path(module, &call.func)
                .is_some_and(|path| path == "hypothesis.given")
        });
        given.then_some(mark)
    }

    fn drop_given_args(
        &self,
        module: usize,
        def: &'a ast::StmtFunctionDef,
        is_method: bool,
        argnames: &mut Vec<String>,
    ) {
        for decorator in &def.decorator_list {
            let Expr::Call(call) = &decorator.expression else {
                continue;
            };
            let Some(path) = self.project.external_path(module, &call.func) else {
                continue;
            };
            if path != "hypothesis.given" {
                continue;
            }
            for keyword in &call.arguments.keywords {
                if let Some(arg) = &keyword.arg {
                    argnames.retain(|a| a != arg.id.as_str());
                }
            }
            let positional: Vec<&str> = def
                .parameters
                .posonlyargs
                .iter()
                .chain(def.parameters.args.iter())
                .skip(usize::from(is_method))
                .map(|p| p.parameter.name.id.as_str())
                .collect();
            let n = call.arguments.args.len().min(positional.len());
            for name in &positional[positional.len() - n..] {
                argnames.retain(|a| a != name);
            }
        }
    }

    /// Marks in `iter_markers()` order: the function's own, then the
    /// classes innermost first, then the module.
    fn mark_order(&self, own: &[RawMark<'a>], chain: &[ClassFrame<'a>]) -> Vec<RawMark<'a>> {
        let mut all: Vec<RawMark<'a>> = own.to_vec();
        for frame in chain.iter().rev() {
            all.extend(frame.marks.iter().cloned());
        }
        all.extend(self.module_marks.iter().cloned());
        all
    }

    /// An item's markers: its own, its parameters', its classes' (innermost
    /// first), then the module's.
    /// `test` is the test function, for the marks plugins append to the
    /// item (`add_marker`) after its own and its parameters', and whether
    /// its item is a plain pytest `Function` (not a unittest method, which
    /// pytest-asyncio leaves alone).
    fn markers(
        &self,
        own: &[Arc<Marker>],
        params: &[Arc<Marker>],
        test: Option<(usize, &'a ast::StmtFunctionDef, bool)>,
        fixture_marks: &[Arc<Marker>],
        chain: &[ClassFrame<'a>],
    ) -> Vec<Arc<Marker>> {
        let mut out: Vec<Arc<Marker>> =
            Vec::with_capacity(own.len() + params.len() + self.module_markers.len() + 2);
        out.extend(own.iter().cloned());
        out.extend(params.iter().cloned());
        if let Some((module, def, function)) = test {
            // pytest-asyncio's `_resolve_asyncio_marker`: a coroutine test
            // without an `asyncio` mark of its own or from its classes or
            // module gets one, while the item is made.
            if let Some(mark) = &self.asyncio_mark {
                let marked = || {
                    out.iter()
                        .chain(chain.iter().flat_map(|frame| frame.markers.iter()))
                        .chain(self.module_markers.iter())
                        .any(|m| m.name == "asyncio")
                };
                if function && def.is_async && !marked() {
                    out.push(mark.clone());
                }
            }
            // Hypothesis adds its mark later, in
            // `pytest_collection_modifyitems`.
            out.extend(self.plugin_mark(module, def).cloned());
        }
        out.extend(fixture_marks.iter().cloned());
        for frame in chain.iter().rev() {
            out.extend(frame.markers.iter().cloned());
        }
        out.extend(self.module_markers.iter().cloned());
        out
    }

    /// The decorators of a function or class that are not marks, in source
    /// order.
    fn decorators(
        &self,
        module: usize,
        list: &'a [ast::Decorator],
        source: MarkerSource,
    ) -> Vec<Arc<Decorator>> {
        list.iter()
            .filter_map(|d| self.decorator(module, &d.expression, source))
            .collect()
    }

    /// `expr` as a decorator, unless it is a pytest mark, one of pytest's
    /// own functions, or something that does not resolve.
    fn decorator(
        &self,
        module: usize,
        expr: &'a Expr,
        source: MarkerSource,
    ) -> Option<Arc<Decorator>> {
        let (path, arguments) = self.project.decorator_path(module, expr)?;
        Some(self.decorator_call(module, path, arguments, source))
    }

    /// A decorator with its call arguments encoded like marker arguments.
    fn decorator_call(
        &self,
        module: usize,
        path: String,
        arguments: Option<&'a ast::Arguments>,
        source: MarkerSource,
    ) -> Arc<Decorator> {
        let json = |expr: &'a Expr| {
            let text = self.project.module(module).file.slice(expr);
            self.project.eval_literal(module, expr).to_json(text)
        };
        let (args, kwargs) = arguments.map_or_else(
            || (Vec::new(), serde_json::Map::new()),
            |a| {
                let args = a.args.iter().map(json).collect();
                let kwargs = a
                    .keywords
                    .iter()
                    .filter_map(|k| {
                        k.arg
                            .as_ref()
                            .map(|name| (name.id.as_str().to_string(), json(&k.value)))
                    })
                    .collect();
                (args, kwargs)
            },
        );
        Arc::new(Decorator {
            path,
            args,
            kwargs,
            source,
        })
    }

    /// The entries of a `pytestmark` value that are not marks, such as
    /// `require_gpu(min_vram_gb=20)` written among the marks, as
    /// decorators. A name bound to a call (`gpu = require_gpu(8)`) stands
    /// for that call.
    fn pytestmark_decorators(
        &self,
        module: usize,
        expr: &'a Expr,
        source: MarkerSource,
    ) -> Vec<Arc<Decorator>> {
        self.project
            .pytestmark_entries(module, expr)
            .into_iter()
            .filter_map(|(m, e)| {
                let (m, e) = self.project.deref(m, e);
                self.decorator(m, e, source)
            })
            .collect()
    }

    /// A class's own decorators that are not marks, then the entries of
    /// the `pytestmark` lists along its MRO (most derived first) that are
    /// not marks. pytest reads `pytestmark` from every class of the MRO;
    /// decorators stay the class's own.
    fn class_decorators(&self, mro: &[(usize, &'a ast::StmtClassDef)]) -> Vec<Arc<Decorator>> {
        let mut out = mro
            .first()
            .map(|&(cm, cdef)| self.decorators(cm, &cdef.decorator_list, MarkerSource::Class))
            .unwrap_or_default();
        for &(cm, cdef) in mro {
            if let Some(Binding::Value { expr, .. }) = self.project.class_ns(cdef).get("pytestmark")
            {
                out.extend(self.pytestmark_decorators(cm, expr, MarkerSource::Class));
            }
        }
        out
    }

    /// Adds to `own` (bottom decorator first) the marks that decorator
    /// factories of the suite apply (see [`crate::decorator_factory`]) and
    /// those that plain decorators of the suite apply to their argument
    /// (first applied first, where the decorator stands). Returns why the
    /// markers may still be incomplete: a decorator of the suite that may
    /// apply marks in a way this does not follow.
    fn add_factory_marks(
        &self,
        module: usize,
        def: &'a ast::StmtFunctionDef,
        own: &mut Vec<RawMark<'a>>,
    ) -> Option<String> {
        use crate::decorator_factory::{applied_marks, factory_mark, Applied};
        let mut extra = Vec::new();
        let mut unsure = None;
        for (i, decorator) in def.decorator_list.iter().enumerate() {
            if let Some(mark) = factory_mark(self.project, module, decorator) {
                extra.push((i, mark));
                continue;
            }
            match applied_marks(self.project, module, decorator) {
                Some(Applied::Marks(marks)) => extra.extend(marks.into_iter().map(|m| (i, m))),
                Some(Applied::Unknown(reason)) => {
                    unsure.get_or_insert(reason);
                }
                None => {}
            }
        }
        if extra.is_empty() {
            return unsure;
        }
        // Decorators apply bottom first: later in the source, earlier here.
        let index_of = |mark: &RawMark<'a>| {
            mark.at
                .and_then(|(_, range)| {
                    def.decorator_list
                        .iter()
                        .position(|d| d.expression.range() == range)
                })
                .unwrap_or(0)
        };
        let mut all: Vec<(usize, RawMark<'a>)> = own.drain(..).map(|m| (index_of(&m), m)).collect();
        all.extend(extra);
        all.sort_by_key(|(i, _)| std::cmp::Reverse(*i));
        own.extend(all.into_iter().map(|(_, m)| m));
        unsure
    }

    /// Why a test's items are only known at import: it is decorated by a
    /// function of the suite that parametrizes it (a decorator factory
    /// returning `pytest.mark.parametrize(...)(f)`). Helpers that return
    /// other marks (`require_gpu` giving a `skipif`) leave the items as
    /// they are and are recorded as decorators.
    fn marking_decorator(&self, module: usize, def: &'a ast::StmtFunctionDef) -> Option<String> {
        def.decorator_list.iter().find_map(|decorator| {
            if crate::decorator_factory::factory_mark(self.project, module, decorator).is_some()
                || matches!(
                    crate::decorator_factory::applied_marks(self.project, module, decorator),
                    Some(crate::decorator_factory::Applied::Marks(_))
                )
            {
                return None;
            }
            let target = match &decorator.expression {
                Expr::Call(call) => call.func.as_ref(),
                other => other,
            };
            let Entity::Func {
                module: dm,
                def: helper,
            } = self.project.resolve_expr(module, target, 0)
            else {
                return None;
            };
            let text = self.project.module(dm).file.slice(helper);
            text.contains("parametrize").then(|| {
                format!(
                    "decorated by `{}`, which parametrizes it when the module is imported",
                    helper.name.id.as_str()
                )
            })
        })
    }

    /// `pytest.importorskip(...)` calls among the module's top-level
    /// statements, alone or assigned (`torch = pytest.importorskip("torch")`),
    /// in source order: each skips every item of the module when the import
    /// fails. Calls in functions, conditionals or `try` blocks may never run
    /// and are left out.
    fn importorskips(&self) -> Vec<Arc<Decorator>> {
        let Some(ast) = &self.project.module(self.module).file.ast else {
            return Vec::new();
        };
        ast.body
            .iter()
            .filter_map(|stmt| {
                let value = match stmt {
                    Stmt::Expr(s) => &s.value,
                    Stmt::Assign(s) => &s.value,
                    Stmt::AnnAssign(s) => s.value.as_ref()?,
                    _ => return None,
                };
                let Expr::Call(call) = value.as_ref() else {
                    return None;
                };
                self.project.is_importorskip(self.module, call).then(|| {
                    self.decorator_call(
                        self.module,
                        "pytest.importorskip".to_string(),
                        Some(&call.arguments),
                        MarkerSource::Module,
                    )
                })
            })
            .collect()
    }

    /// An item's decorators: the function's, its classes' (innermost
    /// first), then the module's.
    fn item_decorators(
        &self,
        own: &[Arc<Decorator>],
        chain: &[ClassFrame<'a>],
    ) -> Vec<Arc<Decorator>> {
        let mut out = own.to_vec();
        for frame in chain.iter().rev() {
            out.extend(frame.decorators.iter().cloned());
        }
        out.extend(self.module_decorators.iter().cloned());
        out
    }

    /// Converts marks once, to be shared by every item they apply to.
    fn shared(&self, marks: &[RawMark<'a>], source: MarkerSource) -> Vec<Arc<Marker>> {
        marks
            .iter()
            .map(|m| Arc::new(to_marker(self.project, m, source)))
            .collect()
    }
}

/// Converts a statically found mark to its output form.
pub(crate) fn to_marker<'a>(
    project: &Project<'_, 'a>,
    mark: &RawMark<'a>,
    source: MarkerSource,
) -> Marker {
    let json = |module: usize, expr: &'a Expr| {
        let text = project.module(module).file.slice(expr);
        project.eval_literal(module, expr).to_json(text)
    };
    let location = mark.at.map(|(module, range)| {
        let file = project.module(module).file;
        let start = file
            .source
            .index
            .line_column(file.text(), range.start().to_u32());
        let end = file
            .source
            .index
            .line_column(file.text(), range.end().to_u32());
        Location {
            file: file.rel.clone(),
            line: start.line,
            column: start.column,
            end_line: end.line,
            end_column: end.column,
        }
    });
    // A `skipif`/`xfail` condition on the interpreter or the platform stays
    // as written: pytest decides it on the machine that runs the test, and
    // `plan` decides it per CI job (a Windows-only test is run by no job on
    // Ubuntu runners), where this machine's interpreter says nothing.
    let condition = |module: usize, expr: &'a Expr| {
        if !matches!(mark.name.as_str(), "skipif" | "xfail") {
            return json(module, expr);
        }
        let text = project.module(module).file.slice(expr);
        let (value, reads_target) = crate::eval::literal_reads_target(*project, module, expr);
        if reads_target || names_the_target(text) {
            serde_json::json!({ "expr": text })
        } else {
            value.to_json(text)
        }
    };
    Marker {
        name: mark.name.clone(),
        args: mark.args.iter().map(|&(m, e)| condition(m, e)).collect(),
        kwargs: mark
            .kwargs
            .iter()
            .map(|(k, m, e)| {
                let value = if k == "condition" {
                    condition(*m, e)
                } else {
                    json(*m, e)
                };
                (k.clone(), value)
            })
            .collect(),
        source,
        location,
    }
}

/// Whether a condition's source names what the target interpreter decides
/// (`sys.platform`, `sys.version_info`, `os.name`, `platform.system()`),
/// also inside a string condition, which pytest evaluates with `sys`,
/// `os` and `platform` in scope. Values read under other names are
/// caught by the evaluator's taint ([`crate::eval::literal_reads_target`]).
fn names_the_target(text: &str) -> bool {
    ["sys.platform", "sys.version_info", "os.name", "platform."]
        .iter()
        .any(|name| text.contains(name))
}

enum Member<'a> {
    Lambda(&'a ast::ExprLambda),
    Func(&'a ast::StmtFunctionDef),
    Class(&'a ast::StmtClassDef),
}

/// What collection needs to know about a class and its bases.
pub(crate) struct ClassInfo<'a> {
    /// Suite classes of the MRO, most derived first.
    pub(crate) mro: Vec<(usize, &'a ast::StmtClassDef)>,
    pub(crate) unittest: bool,
    pub(crate) has_init: bool,
    pub(crate) is_abstract: bool,
    /// `__test__` found along the MRO.
    pub(crate) dunder_test: Option<bool>,
    /// A base that is neither in the suite nor a known neutral class.
    pub(crate) unknown_base: Option<String>,
    /// Class marks in pytest's order (reverse MRO, own marks last).
    pub(crate) marks: Vec<RawMark<'a>>,
}

impl<'a> ClassInfo<'a> {
    pub(crate) fn compute(
        project: &Project<'_, 'a>,
        module: usize,
        def: &'a ast::StmtClassDef,
    ) -> Self {
        let mut info = ClassInfo {
            mro: Vec::new(),
            unittest: false,
            has_init: false,
            is_abstract: false,
            dunder_test: None,
            unknown_base: None,
            marks: Vec::new(),
        };
        let mut externals = Vec::new();
        info.mro = linearize(project, module, def, &mut externals, 0);
        let mut abc = false;
        for path in &externals {
            match path.as_str() {
                "unittest.TestCase"
                | "unittest.case.TestCase"
                | "unittest.IsolatedAsyncioTestCase"
                | "unittest.async_case.IsolatedAsyncioTestCase" => info.unittest = true,
                "abc.ABC" => abc = true,
                "object" | "typing.Generic" | "typing.Protocol" | "typing_extensions.Protocol" => {}
                other => {
                    if info.unknown_base.is_none() {
                        info.unknown_base = Some(other.to_string());
                    }
                }
            }
        }
        let mut abstract_names: HashSet<&str> = HashSet::default();
        let mut concrete: HashSet<&str> = HashSet::default();
        for &(cm, cdef) in &info.mro {
            if let Some(args) = &cdef.arguments {
                for kw in &args.keywords {
                    if kw
                        .arg
                        .as_ref()
                        .is_some_and(|a| a.id.as_str() == "metaclass")
                        && project.external_path(cm, &kw.value).as_deref() == Some("abc.ABCMeta")
                    {
                        abc = true;
                    }
                }
            }
            let ns = project.class_ns(cdef);
            if ns.get("__init__").is_some() || ns.get("__new__").is_some() {
                info.has_init = true;
            }
            if info.dunder_test.is_none() {
                if let Some(Binding::Value { expr, .. }) = ns.get("__test__") {
                    info.dunder_test = match expr {
                        Expr::BooleanLiteral(b) => Some(b.value),
                        _ => None,
                    };
                }
            }
            for (name, binding) in ns.iter() {
                if let Binding::Func { def: fdef, .. } = binding {
                    let is_abstract = fdef.decorator_list.iter().any(|d| {
                        project
                            .external_path(cm, &d.expression)
                            .is_some_and(|p| p == "abc.abstractmethod")
                    });
                    if is_abstract && !concrete.contains(name) {
                        abstract_names.insert(name);
                    } else {
                        concrete.insert(name);
                    }
                } else {
                    concrete.insert(name);
                }
            }
        }
        info.is_abstract = abc && !abstract_names.is_empty();
        for &(cm, cdef) in info.mro.iter().rev() {
            let ns = project.class_ns(cdef);
            if let Some(Binding::Value { expr, .. }) = ns.get("pytestmark") {
                info.marks.extend(project.pytestmark_marks(cm, expr));
            }
            info.marks
                .extend(project.decorator_marks(cm, &cdef.decorator_list));
        }
        info
    }
}

/// A C3 linearisation of the suite classes of `def`'s MRO; bases outside
/// the suite are recorded in `externals`.
fn linearize<'a>(
    project: &Project<'_, 'a>,
    module: usize,
    def: &'a ast::StmtClassDef,
    externals: &mut Vec<String>,
    depth: usize,
) -> Vec<(usize, &'a ast::StmtClassDef)> {
    if depth > 32 {
        return vec![(module, def)];
    }
    let mut sequences: Vec<Vec<(usize, &'a ast::StmtClassDef)>> = Vec::new();
    let mut direct = Vec::new();
    for base in def.bases() {
        let base_expr = match base {
            Expr::Subscript(sub) => &sub.value,
            other => other,
        };
        match project.resolve_expr(module, base_expr, 0) {
            Entity::Class {
                module: bm,
                def: bdef,
            } => {
                sequences.push(linearize(project, bm, bdef, externals, depth + 1));
                direct.push((bm, bdef));
            }
            Entity::External(path) => externals.push(path),
            Entity::Builtin(name) => externals.push(name),
            _ => externals.push(project.module(module).file.slice(base).to_string()),
        }
    }
    sequences.push(direct);
    let mut out = vec![(module, def)];
    loop {
        sequences.retain(|s| !s.is_empty());
        if sequences.is_empty() {
            break;
        }
        let candidate = sequences.iter().find_map(|seq| {
            let head = seq[0];
            let in_tail = sequences
                .iter()
                .any(|s| s[1..].iter().any(|c| same(*c, head)));
            (!in_tail).then_some(head)
        });
        let Some(head) = candidate.or_else(|| sequences.first().map(|s| s[0])) else {
            break;
        };
        out.push(head);
        for seq in &mut sequences {
            if same(seq[0], head) {
                seq.remove(0);
            }
        }
    }
    out
}

fn same(a: (usize, &ast::StmtClassDef), b: (usize, &ast::StmtClassDef)) -> bool {
    a.0 == b.0 && std::ptr::eq(a.1, b.1)
}

/// The namespace of the class body that defines `def`, searched along the
/// MRO of the innermost class of `chain`.
fn owner_namespace<'p, 'a>(
    project: &Project<'p, 'a>,
    def: &'a ast::StmtFunctionDef,
    chain: &[ClassFrame<'a>],
) -> Option<&'p Namespace<'a>> {
    let frame = chain.last()?;
    for &(cm, cdef) in &frame.mro {
        let holds = cdef
            .body
            .iter()
            .any(|stmt| matches!(stmt, Stmt::FunctionDef(f) if std::ptr::eq(f, def)));
        if holds {
            let _ = cm;
            return Some(project.class_ns(cdef));
        }
    }
    None
}

fn is_false(expr: &Expr) -> bool {
    matches!(expr, Expr::BooleanLiteral(b) if !b.value)
}

/// Whether `def` is decorated with the builtin `name` (`staticmethod`).
pub(crate) fn has_decorator(def: &ast::StmtFunctionDef, name: &str) -> bool {
    def.decorator_list
        .iter()
        .any(|d| matches!(&d.expression, Expr::Name(n) if n.id.as_str() == name))
}

/// pytest's `getfuncargnames`: parameters without defaults, minus the
/// first one of a method.
pub(crate) fn function_argnames(def: &ast::StmtFunctionDef, is_method: bool) -> Vec<String> {
    let params = &def.parameters;
    let mut names: Vec<String> = params
        .posonlyargs
        .iter()
        .chain(params.args.iter())
        .chain(params.kwonlyargs.iter())
        .filter(|p| p.default.is_none())
        .map(|p| p.parameter.name.id.as_str().to_string())
        .collect();
    let first_is_positional = params
        .posonlyargs
        .iter()
        .chain(params.args.iter())
        .next()
        .is_some_and(|p| p.default.is_none());
    if is_method && first_is_positional && !names.is_empty() {
        names.remove(0);
    }
    names
}

/// Whether a function body contains `yield` outside nested scopes.
pub(crate) fn is_generator(body: &[Stmt]) -> bool {
    use ruff_python_ast::visitor::{walk_expr, walk_stmt, Visitor};
    struct Finder(bool);
    impl<'b> Visitor<'b> for Finder {
        fn visit_stmt(&mut self, stmt: &'b Stmt) {
            match stmt {
                Stmt::FunctionDef(_) | Stmt::ClassDef(_) => {}
                _ => walk_stmt(self, stmt),
            }
        }
        fn visit_expr(&mut self, expr: &'b Expr) {
            match expr {
                Expr::Yield(_) | Expr::YieldFrom(_) => self.0 = true,
                Expr::Lambda(_) => {}
                _ => walk_expr(self, expr),
            }
        }
    }
    let mut finder = Finder(false);
    for stmt in body {
        finder.visit_stmt(stmt);
    }
    finder.0
}

/// Whether a definition bound only under `if` blocks runs: `Some(true)`
/// when every `if` around it is decided by the evaluator and takes its
/// branch, `Some(false)` when one takes another branch, `None` when a
/// condition is not known, the name is bound more than once, or the
/// definition sits in another kind of block (`try`, `for`).
fn defined_under<'a>(
    project: &Project<'_, 'a>,
    module: usize,
    binding: &Binding<'a>,
    ns: &Namespace<'a>,
    name: &str,
) -> Option<bool> {
    if ns.mutated.contains(name) {
        return None;
    }
    let target: *const () = match binding {
        Binding::Func { def, .. } => std::ptr::from_ref(*def).cast(),
        Binding::Class { def, .. } => std::ptr::from_ref(*def).cast(),
        _ => return None,
    };
    let body = &project.module(module).file.ast.as_ref()?.body;
    branch_runs(project, module, body, target)
}

/// See [`defined_under`]: the search through one body.
fn branch_runs<'a>(
    project: &Project<'_, 'a>,
    module: usize,
    body: &'a [Stmt],
    target: *const (),
) -> Option<bool> {
    for stmt in body {
        let Stmt::If(stmt_if) = stmt else {
            continue;
        };
        let branches: Vec<(Option<&'a Expr>, &'a [Stmt])> =
            std::iter::once((Some(&*stmt_if.test), &stmt_if.body[..]))
                .chain(
                    stmt_if
                        .elif_else_clauses
                        .iter()
                        .map(|clause| (clause.test.as_ref(), &clause.body[..])),
                )
                .collect();
        let holds = |branch: &'a [Stmt]| -> Option<Option<bool>> {
            branch.iter().find_map(|s| match s {
                Stmt::FunctionDef(d) if std::ptr::eq(std::ptr::from_ref(d).cast(), target) => {
                    Some(Some(true))
                }
                Stmt::ClassDef(d) if std::ptr::eq(std::ptr::from_ref(d).cast(), target) => {
                    Some(Some(true))
                }
                Stmt::If(_) => {
                    branch_runs(project, module, std::slice::from_ref(s), target).map(Some)
                }
                _ => None,
            })
        };
        let Some(at) = branches.iter().position(|(_, b)| holds(b).is_some()) else {
            continue;
        };
        for (i, (test, _)) in branches.iter().enumerate() {
            let taken = match test {
                Some(test) => crate::eval::truth(&project.eval(module, test)).ok()?,
                None => true,
            };
            if taken {
                if i != at {
                    return Some(false);
                }
                return holds(branches[at].1).flatten();
            }
            if i == at {
                return Some(false);
            }
        }
        return Some(false);
    }
    None
}
