//! A conftest's `pytest_collect_file` hook, followed statically where it
//! has the shape pytest's documentation teaches ("Working with non-python
//! tests"): a condition on the file's name, then
//! `return MyFile.from_parent(parent, path=file_path)`, where `MyFile` is a
//! `pytest.File` whose `collect()` yields
//! `MyItem.from_parent(self, name="...")` with names known statically. The
//! items' node ids are then as certain as those of a test module (their
//! constructors run at collection, as a module's code runs at import).
//! Anything else makes the hook's directory dynamic, with the reason.

use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;

use rayon::prelude::*;
use ruff_python_ast::{self as ast, Expr, Stmt};

use super::ops::truth;
use super::{Evaluator, Scope};
use crate::collector::{is_generator, RawItem};
use crate::namespace::Binding;
use crate::project::{Entity, Project};
use crate::settings::CollectSettings;
use crate::value::PyValue;

/// Nested suite classes followed up an MRO.
const MAX_BASES: usize = 16;

/// What the `pytest_collect_file` hooks of the suite make of the files
/// under their conftests.
#[derive(Default)]
pub(crate) struct HookedFiles {
    /// Items, each with the index in the session's test files it follows.
    pub(crate) items: Vec<(usize, RawItem)>,
    /// Conftests (by their index in the hooks given) whose hook proctor
    /// cannot follow, with the reason: their directory stays dynamic.
    pub(crate) failed: Vec<(usize, String)>,
}

/// One file a hook may collect, as discovery met it.
#[derive(Debug)]
pub(crate) struct HookFile {
    /// The index in the session's test files this file follows.
    pub(crate) at: usize,
    pub(crate) path: PathBuf,
    /// Collected by pytest's own plugins too (a test module, a doctest
    /// file, an example) or ignored under a condition.
    pub(crate) also_collected: bool,
}

/// What following one hook for one file gives: its items, or why they
/// cannot be known.
type HookResult = Result<Vec<RawItem>, String>;

/// Follows the `pytest_collect_file` hook of each conftest in `hooks`
/// (its directory and module) for every file of `files` under it.
pub(crate) fn collect_files(
    project: Project<'_, '_>,
    settings: &CollectSettings,
    hooks: &[(&Path, usize)],
    files: &[HookFile],
) -> HookedFiles {
    let mut out = HookedFiles::default();
    let collected = FileItems::default();
    // Each file's hooks are followed in parallel (its items made there);
    // then, in the files' order, a hook that failed is not followed for
    // the files after.
    let (applicable, followed): (Vec<Vec<usize>>, Vec<Vec<HookResult>>) = files
        .par_iter()
        .map(|file| {
            // pytest calls the hooks of the deepest conftest first.
            let mut applicable: Vec<usize> = (0..hooks.len())
                .filter(|&h| crate::discover::starts_with_dir(&file.path, hooks[h].0))
                .collect();
            applicable.sort_by_key(|&h| std::cmp::Reverse(hooks[h].0.components().count()));
            let rel = settings.relative(&file.path);
            let shared: Arc<str> = rel.as_str().into();
            let results = applicable
                .iter()
                .map(
                    |&h| match collect_file(project, hooks[h].1, &file.path, &collected) {
                        Ok(names) if file.also_collected && !names.is_empty() => Err(format!(
                            "it collects `{rel}`, which pytest's own plugins collect too"
                        )),
                        Ok(names) => Ok(names
                            .into_iter()
                            .map(|name| {
                                RawItem::of_file(format!("{rel}::{name}"), Arc::clone(&shared))
                            })
                            .collect()),
                        Err(reason) => Err(reason),
                    },
                )
                .collect();
            (applicable, results)
        })
        .unzip();
    let mut failed: Vec<Option<String>> = vec![None; hooks.len()];
    // (where it follows, the index of its file, the item)
    let mut made: Vec<(usize, usize, RawItem)> = Vec::new();
    for (i, (file, results)) in files.iter().zip(followed).enumerate() {
        for (&h, result) in applicable[i].iter().zip(results) {
            if failed[h].is_some() {
                continue;
            }
            match result {
                Ok(items) => made.extend(items.into_iter().map(|item| (file.at, i, item))),
                Err(reason) => failed[h] = Some(reason),
            }
        }
    }
    // A file under a hook proctor cannot follow is that hook's directory's.
    out.items = made
        .into_iter()
        .filter(|(_, i, _)| applicable[*i].iter().all(|&h| failed[h].is_none()))
        .map(|(at, _, item)| (at, item))
        .collect();
    out.failed = failed
        .into_iter()
        .enumerate()
        .filter_map(|(h, reason)| reason.map(|r| (h, r)))
        .collect();
    out
}

/// The item names each collector class of a hook yields, by the class's
/// module and expression (its address): the same for every file it is returned for
/// (`collect` is checked and its names evaluated without the file), so
/// worked out once, not once per file (pygments' hook returns one class
/// for 2,000 files).
type FileItems =
    std::sync::Mutex<rustc_hash::FxHashMap<(usize, usize), Result<Vec<String>, String>>>;

/// The names of the items conftest `module`'s `pytest_collect_file` makes
/// of the file `path` (none when it returns `None`), or why they cannot be
/// known; `collected` holds what each collector class yields.
fn collect_file(
    project: Project<'_, '_>,
    module: usize,
    path: &Path,
    collected: &FileItems,
) -> Result<Vec<String>, String> {
    let Some(Binding::Func { def, cond: false }) =
        project.module(module).ns.get("pytest_collect_file")
    else {
        return Err("the hook is not a plain function defined once".to_owned());
    };
    if !def.decorator_list.is_empty() {
        return Err("the hook is decorated".to_owned());
    }
    if def.is_async {
        return Err("the hook is a coroutine function".to_owned());
    }
    let params = &def.parameters;
    if params.vararg.is_some() || params.kwarg.is_some() || !params.kwonlyargs.is_empty() {
        return Err("the hook takes parameters other than `file_path` and `parent`".to_owned());
    }
    let evaluator = Evaluator::new(project);
    let scope = Scope::child(None);
    for param in params.posonlyargs.iter().chain(params.args.iter()) {
        match param.parameter.name.id.as_str() {
            "file_path" => scope.set(
                "file_path",
                PyValue::Path(path.to_string_lossy().into_owned()),
            ),
            "parent" => scope.set("parent", PyValue::Object),
            other => return Err(format!("the hook takes `{other}`")),
        }
    }
    match evaluator.hook_body(module, &scope, project.body(module, def))? {
        Some(Some(collector)) => {
            let key = (module, std::ptr::from_ref(collector) as usize);
            let known = collected
                .lock()
                .ok()
                .and_then(|items| items.get(&key).cloned());
            known.unwrap_or_else(|| {
                let items = evaluator.file_items(module, collector);
                if let Ok(mut known) = collected.lock() {
                    known.insert(key, items.clone());
                }
                items
            })
        }
        _ => Ok(Vec::new()),
    }
}

/// Whether `expr` is the local name `name`.
fn is_name(expr: &Expr, name: &str) -> bool {
    matches!(expr, Expr::Name(n) if n.id.as_str() == name)
}

/// `CLS.from_parent(<parent>, <keyword>=<value>)` with exactly these
/// arguments: `CLS`, and the keyword's value.
fn from_parent<'a>(expr: &'a Expr, parent: &str, keyword: &str) -> Option<(&'a Expr, &'a Expr)> {
    let Expr::Call(call) = expr else {
        return None;
    };
    let Expr::Attribute(attr) = call.func.as_ref() else {
        return None;
    };
    if attr.attr.id.as_str() != "from_parent" {
        return None;
    }
    let args = &call.arguments;
    let mut parent_given = matches!(args.args.as_ref(), [p] if is_name(p, parent));
    if !parent_given && !args.args.is_empty() {
        return None;
    }
    let mut value = None;
    for kw in &args.keywords {
        match kw.arg.as_ref().map(|a| a.id.as_str()) {
            Some("parent") if !parent_given && is_name(&kw.value, parent) => parent_given = true,
            Some(k) if k == keyword && value.is_none() => value = Some(&kw.value),
            _ => return None,
        }
    }
    parent_given.then_some((attr.value.as_ref(), value?))
}

impl<'a> Evaluator<'_, 'a> {
    /// Runs the hook's body: `Some(returned)` when it returns (the
    /// collector class, or `None`), `None` when it falls off the end.
    #[expect(clippy::option_option, reason = "returned nothing vs did not return")]
    fn hook_body(
        &self,
        module: usize,
        scope: &Rc<Scope>,
        body: &'a [Stmt],
    ) -> Result<Option<Option<&'a Expr>>, String> {
        for stmt in body {
            match stmt {
                Stmt::Pass(_) => {}
                Stmt::Expr(e) if matches!(e.value.as_ref(), Expr::StringLiteral(_)) => {}
                Stmt::If(stmt_if) => {
                    let mut branch = None;
                    if truth(&self.expr(module, Some(scope), &stmt_if.test))? {
                        branch = Some(&stmt_if.body);
                    } else {
                        for clause in &stmt_if.elif_else_clauses {
                            let taken = match &clause.test {
                                Some(test) => truth(&self.expr(module, Some(scope), test))?,
                                None => true,
                            };
                            if taken {
                                branch = Some(&clause.body);
                                break;
                            }
                        }
                    }
                    if let Some(branch) = branch {
                        if let Some(returned) = self.hook_body(module, scope, branch)? {
                            return Ok(Some(returned));
                        }
                    }
                }
                Stmt::Return(ret) => {
                    return match ret.value.as_deref() {
                        None | Some(Expr::NoneLiteral(_)) => Ok(Some(None)),
                        Some(value) => match from_parent(value, "parent", "path") {
                            Some((class, path)) if is_name(path, "file_path") => {
                                Ok(Some(Some(class)))
                            }
                            _ => Err(
                                "it returns something other than `X.from_parent(parent, path=file_path)`"
                                    .to_owned(),
                            ),
                        },
                    };
                }
                _ => {
                    return Err(
                        "its body does more than test the path and return a collector".to_owned(),
                    )
                }
            }
        }
        Ok(None)
    }

    /// The names of the items the `pytest.File` subclass `class` yields.
    fn file_items(&self, module: usize, class: &'a Expr) -> Result<Vec<String>, String> {
        let (cm, def) = self.suite_class(module, class)?;
        let name = def.name.id.as_str();
        let mro = self.suite_mro(cm, def, &["pytest.File", "_pytest.nodes.File"])?;
        let mut collect = None;
        for &(bm, bdef) in &mro {
            let ns = self.project.class_ns(bdef);
            for special in ["__init__", "from_parent", "nodeid", "_getobj"] {
                if ns.get(special).is_some() {
                    return Err(format!("`{}` defines `{special}`", bdef.name.id.as_str()));
                }
            }
            if collect.is_none() {
                match ns.get("collect") {
                    Some(Binding::Func { def, cond: false }) => collect = Some((bm, *def)),
                    Some(_) => {
                        return Err(format!(
                            "`{}.collect` is not a plain method",
                            bdef.name.id.as_str()
                        ))
                    }
                    None => {}
                }
            }
        }
        let Some((fm, collect)) = collect else {
            return Err(format!("`{name}` does not define `collect`"));
        };
        let body = self.project.body(fm, collect);
        if !collect.decorator_list.is_empty() || collect.is_async || !is_generator(body) {
            return Err(format!("`{name}.collect` is not a plain generator"));
        }
        let this = match collect.parameters.args.as_slice() {
            [only] if collect.parameters.posonlyargs.is_empty() => only.parameter.name.id.as_str(),
            _ => return Err(format!("`{name}.collect` takes more than `self`")),
        };
        let mut names = Vec::new();
        for stmt in body {
            match stmt {
                Stmt::Pass(_) => {}
                Stmt::Expr(e) => match e.value.as_ref() {
                    Expr::StringLiteral(_) => {}
                    Expr::Yield(ast::ExprYield {
                        value: Some(value), ..
                    }) => {
                        let Some((item, item_name)) = from_parent(value, this, "name") else {
                            return Err(format!(
                                "`{name}.collect` yields something other than `X.from_parent(self, name=...)`"
                            ));
                        };
                        self.check_item_class(fm, item)?;
                        match self.expr(fm, None, item_name) {
                            PyValue::Str(text) => names.push(text.to_string()),
                            PyValue::Unknown(reason) => return Err(reason),
                            _ => return Err("an item name that is not a string".to_owned()),
                        }
                    }
                    _ => return Err(format!("`{name}.collect` does more than yield items")),
                },
                _ => return Err(format!("`{name}.collect` does more than yield items")),
            }
        }
        Ok(names)
    }

    /// Checks that `class` is a suite class deriving from `pytest.Item`
    /// (not `pytest.Function`) that adds no markers when it is made.
    fn check_item_class(&self, module: usize, class: &'a Expr) -> Result<(), String> {
        let (cm, def) = self.suite_class(module, class)?;
        for (bm, bdef) in self.suite_mro(cm, def, &["pytest.Item", "_pytest.nodes.Item"])? {
            let ns = self.project.class_ns(bdef);
            if ns.get("from_parent").is_some() || ns.get("nodeid").is_some() {
                return Err(format!(
                    "`{}` changes how its items are made",
                    bdef.name.id.as_str()
                ));
            }
            let text = self.project.module(bm).file.text();
            let range = ruff_text_size::Ranged::range(bdef);
            let body = text
                .get(usize::from(range.start())..usize::from(range.end()))
                .unwrap_or("");
            if ["add_marker", "own_markers", "keywords"]
                .iter()
                .any(|w| body.contains(w))
            {
                return Err(format!(
                    "`{}` may add markers to its items",
                    bdef.name.id.as_str()
                ));
            }
        }
        Ok(())
    }

    /// The suite class `class` refers to.
    fn suite_class(
        &self,
        module: usize,
        class: &'a Expr,
    ) -> Result<(usize, &'a ast::StmtClassDef), String> {
        match self.project.resolve_expr(module, class, 0) {
            Entity::Class { module, def } => Ok((module, def)),
            Entity::Unknown(reason) => Err(reason),
            _ => Err("the collector or item class is not a class of the suite".to_owned()),
        }
    }

    /// The suite classes of `def`'s MRO, most derived first, when every
    /// base leads to one of `roots` (single inheritance only).
    fn suite_mro(
        &self,
        module: usize,
        def: &'a ast::StmtClassDef,
        roots: &[&str],
    ) -> Result<Vec<(usize, &'a ast::StmtClassDef)>, String> {
        let mut mro = vec![(module, def)];
        loop {
            let (cm, current) = *mro.last().unwrap_or(&(module, def));
            let bases = current.bases();
            let [base] = bases else {
                return Err(format!(
                    "`{}` does not have exactly one base class",
                    current.name.id.as_str()
                ));
            };
            match self.project.resolve_expr(cm, base, 0) {
                Entity::External(path) if roots.contains(&path.as_str()) => return Ok(mro),
                Entity::Class {
                    module: bm,
                    def: bdef,
                } if mro.len() < MAX_BASES => {
                    mro.push((bm, bdef));
                }
                _ => {
                    return Err(format!(
                        "`{}` does not derive from `{}` through suite classes",
                        def.name.id.as_str(),
                        roots[0]
                    ))
                }
            }
        }
    }
}
