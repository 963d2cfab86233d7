//! The static model of a pytest suite: discovers test files as pytest does,
//! parses them with ruff's parser (in parallel), and produces the items pytest
//! would collect — node ids, order, markers with provenance — without
//! importing anything. What cannot be known statically is reported as a
//! dynamic item, never guessed and never dropped.

mod collector;
mod discover;
mod fixtures;
mod fnmatch;
mod ids;
mod imports;
mod model;
mod namespace;
mod parametrize;
mod project;
mod reorder;
mod settings;
mod source;
mod value;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use ruff_python_ast::Stmt;

pub use ids::IdOptions;
pub use model::{CollectError, Collection, Item, Marker, MarkerSource};
pub use discover::normalize;
pub use settings::CollectSettings;

use collector::{ModuleCollector, RawItem};
use fixtures::Fixtures;
use namespace::{absolute_module, Namespace};
use project::{Module, Project};
use source::SourceFile;

/// One positional argument: a path, optionally followed by `::` node-id
/// parts.
#[derive(Debug, Clone)]
struct Arg {
    path: PathBuf,
    /// The node id prefix the argument selects (`path::Class::test`), when
    /// it has `::` parts.
    nodeid: Option<String>,
}

/// The paths pytest starts collecting from: the arguments, else `testpaths`
/// (when run from the rootdir), else the current directory.
fn initial_args(settings: &CollectSettings, args: &[String], cwd: &Path, testpaths: &[String]) -> Vec<Arg> {
    let mut out = Vec::new();
    if args.is_empty() {
        if cwd == settings.rootdir {
            for pattern in testpaths {
                let full = settings.rootdir.join(pattern);
                if pattern.contains(['*', '?', '[']) {
                    let mut matches = glob_paths(&settings.rootdir, pattern);
                    matches.sort();
                    out.extend(matches.into_iter().map(|path| Arg { path, nodeid: None }));
                } else if full.exists() {
                    out.push(Arg { path: full, nodeid: None });
                }
            }
        }
        if out.is_empty() {
            out.push(Arg { path: cwd.to_path_buf(), nodeid: None });
        }
        return out;
    }
    for arg in args {
        let (path_part, rest) = match arg.split_once("::") {
            Some((p, r)) => (p, Some(r)),
            None => (arg.as_str(), None),
        };
        let path = discover::normalize(&cwd.join(path_part));
        let nodeid = rest.map(|r| format!("{}::{r}", settings.relative(&path)));
        out.push(Arg { path, nodeid });
    }
    out
}

/// Expands a relative glob (as `testpaths` allows) under `root`.
fn glob_paths(root: &Path, pattern: &str) -> Vec<PathBuf> {
    let mut current = vec![root.to_path_buf()];
    for part in pattern.split('/') {
        let mut next = Vec::new();
        for dir in &current {
            if part.contains(['*', '?', '[']) {
                if let Ok(rd) = std::fs::read_dir(dir) {
                    for entry in rd.flatten() {
                        let name = entry.file_name().to_string_lossy().into_owned();
                        if fnmatch::fnmatch(&name, part) {
                            next.push(entry.path());
                        }
                    }
                }
            } else {
                let p = dir.join(part);
                if p.exists() {
                    next.push(p);
                }
            }
        }
        current = next;
    }
    current
}

/// Collects the suite statically. `args` are pytest's positional
/// arguments as given on the command line (relative to `cwd`).
#[must_use]
pub fn collect(settings: &CollectSettings, args: &[String], cwd: &Path, testpaths: &[String]) -> Collection {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(settings.threads).build();
    match pool {
        Ok(pool) => pool.install(|| collect_inner(settings, args, cwd, testpaths)),
        Err(_) => collect_inner(settings, args, cwd, testpaths),
    }
}

fn collect_inner(settings: &CollectSettings, args: &[String], cwd: &Path, testpaths: &[String]) -> Collection {
    let initial = initial_args(settings, args, cwd, testpaths);
    let paths: Vec<PathBuf> = initial.iter().map(|a| a.path.clone()).collect();
    let discovery = discover::Walker::new(settings).run(&paths);

    // Load test files and conftests in parallel, then the suite modules
    // they import, until no new module is found.
    let mut files: Vec<PathBuf> = discovery.test_files.clone();
    files.extend(discovery.conftests.values().cloned());
    let mut loaded: Vec<SourceFile> = files
        .par_iter()
        .map(|path| SourceFile::load(path, settings.relative(path), settings.max_file_size))
        .collect();
    let mut resolver = imports::Resolver::default();
    let mut names: Vec<(String, String)> = loaded.iter().map(|f| resolver.module_names(&f.path)).collect();
    let roots = resolver.import_roots(settings, &loaded);
    let mut known: HashSet<PathBuf> = loaded.iter().map(|f| f.path.clone()).collect();
    let mut frontier: Vec<usize> = (0..loaded.len()).collect();
    while !frontier.is_empty() {
        let mut wanted: Vec<(PathBuf, String)> = Vec::new();
        for &idx in &frontier {
            let Some(ast) = &loaded[idx].ast else { continue };
            for dotted in imported_modules(&ast.body, &names[idx].1) {
                for (file, name) in resolver.find_module(&roots, &dotted) {
                    if known.insert(file.clone()) {
                        wanted.push((file, name));
                    }
                }
            }
        }
        let start = loaded.len();
        let new: Vec<SourceFile> = wanted
            .par_iter()
            .map(|(path, _)| SourceFile::load(path, settings.relative(path), settings.max_file_size))
            .collect();
        for (file, (_, dotted)) in new.into_iter().zip(wanted) {
            let package = package_of(&file.path, &dotted);
            names.push((dotted, package));
            loaded.push(file);
        }
        frontier = (start..loaded.len()).collect();
    }

    let mut collection = Collection::default();
    collection.errors.extend(discovery.errors);

    let modules: Vec<Module<'_>> = loaded
        .par_iter()
        .zip(names.par_iter())
        .map(|(file, (_, package))| {
            let body: &[Stmt] = file.ast.as_ref().map_or(&[], |a| a.body.as_slice());
            Module { file, package: package.clone(), ns: Namespace::build(body, package) }
        })
        .collect();
    let mut by_dotted = HashMap::new();
    for (idx, (dotted, _)) in names.iter().enumerate() {
        by_dotted.entry(dotted.clone()).or_insert(idx);
    }
    let class_list: Vec<(usize, &ruff_python_ast::StmtClassDef)> = modules
        .iter()
        .enumerate()
        .flat_map(|(idx, m)| {
            let mut defs = Vec::new();
            if let Some(ast) = &m.file.ast {
                project::class_defs(&ast.body, &mut defs);
            }
            defs.into_iter().map(move |d| (idx, d))
        })
        .collect();
    let classes: HashMap<usize, Namespace<'_>> = class_list
        .par_iter()
        .map(|&(idx, def)| (std::ptr::from_ref(def) as usize, Namespace::build(&def.body, &modules[idx].package)))
        .collect();
    let project = Project { modules, by_dotted, classes };

    let by_path: HashMap<&Path, usize> = loaded.iter().enumerate().map(|(i, f)| (f.path.as_path(), i)).collect();
    let conftest_fixtures: HashMap<usize, Vec<fixtures::FixtureDef<'_>>> = discovery
        .conftests
        .values()
        .filter_map(|p| by_path.get(p.as_path()).copied())
        .map(|idx| (idx, Fixtures::of_namespace(&project, idx, &project.module(idx).ns, false)))
        .collect();

    // Fixtures of modules named in a conftest's `pytest_plugins`: visible to
    // the whole session, registered before the conftests' own.
    let mut plugin_layers: Vec<Vec<fixtures::FixtureDef<'_>>> = Vec::new();
    let mut seen_plugins = HashSet::new();
    for conftest in discovery.conftests.values() {
        let Some(&idx) = by_path.get(conftest.as_path()) else { continue };
        let Some(namespace::Binding::Value { expr, .. }) = project.module(idx).ns.get("pytest_plugins") else { continue };
        for name in plugin_names(expr) {
            if let Some(&plugin) = project.by_dotted.get(&name) {
                if seen_plugins.insert(plugin) {
                    plugin_layers.push(Fixtures::of_namespace(&project, plugin, &project.module(plugin).ns, false));
                }
            }
        }
    }

    // Conftest hooks that add items pytest will see but proctor cannot.
    for (dir, conftest) in &discovery.conftests {
        let Some(&idx) = by_path.get(conftest.as_path()) else { continue };
        for hook in ["pytest_collect_file", "pytest_pycollect_makeitem", "pytest_collect_directory", "pytest_pycollect_makemodule"] {
            if project.module(idx).ns.get(hook).is_some() {
                let nodeid = settings.relative(dir);
                collection.items.push(Item {
                    nodeid: if nodeid == "." { String::new() } else { nodeid },
                    file: settings.relative(conftest),
                    line: 0,
                    markers: Vec::new(),
                    dynamic: Some(format!("{} defines `{hook}`: the items it creates are only known at run time", settings.relative(conftest))),
                });
            }
        }
    }

    for (dir, conftest) in &discovery.conftests {
        let Some(&idx) = by_path.get(conftest.as_path()) else { continue };
        let _ = dir;
        if project.module(idx).ns.get("pytest_collection_modifyitems").is_some() {
            collection.warnings.push(CollectError {
                file: settings.relative(conftest),
                line: 0,
                column: 0,
                message: "defines `pytest_collection_modifyitems`: pytest may reorder, deselect or re-mark items at run time".to_string(),
            });
        }
    }

    let collect_module = |idx: usize, module: &Module<'_>| -> (Vec<RawItem>, Option<CollectError>) {
            if let Some(error) = &module.file.error {
                return (Vec::new(), Some(error.clone()));
            }
            let chain = conftest_chain(settings, &module.file.path, &discovery.conftests, &by_path);
            let mut layers: Vec<Vec<fixtures::FixtureDef<'_>>> = plugin_layers.clone();
            layers.extend(chain.iter().map(|c| conftest_fixtures.get(c).cloned().unwrap_or_default()));
            layers.push(Fixtures::of_namespace(&project, idx, &module.ns, false));
            let mut module_dynamic = module
                .file
                .path
                .ancestors()
                .take_while(|p| p.starts_with(&settings.rootdir))
                .find_map(|p| discovery.conditional.get(p).cloned());
            for &c in chain.iter().chain(std::iter::once(&idx)) {
                if module_dynamic.is_none() && project.module(c).ns.get("pytest_generate_tests").is_some() {
                    module_dynamic = Some(format!(
                        "{} defines `pytest_generate_tests`: parametrization happens at run time",
                        project.module(c).file.rel
                    ));
                }
            }
            let collector = ModuleCollector::new(&project, settings, idx, Fixtures { layers }, module_dynamic);
            match collector.collect() {
                Ok(items) => (items, None),
                Err(collector::ModuleError(error)) => (Vec::new(), Some(error)),
            }
    };
    let test_indices: Vec<usize> = discovery.test_files.iter().filter_map(|p| by_path.get(p.as_path()).copied()).collect();
    let results: Vec<(Vec<RawItem>, Option<CollectError>)> = test_indices
        .par_iter()
        .map(|&idx| {
            let module = project.module(idx);
            let mut doc_item = None;
            if settings.doctest_modules && module.file.text.contains(">>>") {
                doc_item = Some(RawItem {
                    nodeid: module.file.rel.clone(),
                    file: module.file.rel.clone(),
                    def_file: module.file.rel.clone(),
                    line: 0,
                    markers: Vec::new(),
                    dynamic: Some("--doctest-modules: docstring doctests are found at run time".to_string()),
                    callspec: None,
                    class_key: None,
                });
            }
            let (mut items, error) = collect_module(idx, module);
            items.extend(doc_item);
            (items, error)
        })
        .collect();
    let mut raw: Vec<RawItem> = Vec::new();
    let mut doctests = discovery.doctest_files.iter().peekable();
    // In pytest's default `prepend` import mode, two test modules with the
    // same dotted name cannot both be imported: the later one fails.
    let mut imported: HashMap<&str, &Path> = HashMap::new();
    for (position, (items, error)) in results.into_iter().enumerate() {
        while let Some((_, path)) = doctests.next_if(|(at, _)| *at <= position) {
            raw.extend(doctest_item(settings, path));
        }
        let idx = test_indices[position];
        let file = &loaded[idx];
        if settings.import_mode != "importlib" && file.error.is_none() {
            let dotted = names[idx].0.as_str();
            match imported.get(dotted) {
                Some(first) if *first != file.path.as_path() => {
                    collection.errors.push(CollectError {
                        file: file.rel.clone(),
                        line: 0,
                        column: 0,
                        message: format!(
                            "import file mismatch:\nimported module '{dotted}' has this __file__ attribute:\n  {}\nwhich is not the same as the test file we want to collect:\n  {}\nHINT: remove __pycache__ / .pyc files and/or use a unique basename for your test file modules",
                            first.display(),
                            file.path.display()
                        ),
                    });
                    continue;
                }
                Some(_) => {}
                None => {
                    imported.insert(dotted, file.path.as_path());
                }
            }
        }
        raw.extend(items);
        collection.errors.extend(error);
    }
    for (_, path) in doctests {
        raw.extend(doctest_item(settings, path));
    }
    reorder::reorder_items(&mut raw);

    let selectors: Vec<&str> = initial.iter().filter_map(|a| a.nodeid.as_deref()).collect();
    let whole_files: Vec<String> = initial.iter().filter(|a| a.nodeid.is_none()).map(|a| settings.relative(&a.path)).collect();
    for item in raw {
        if !selectors.is_empty() && !selected(&item, &selectors, &whole_files) {
            continue;
        }
        collection.items.push(Item { nodeid: item.nodeid, file: item.def_file, line: item.line, markers: item.markers, dynamic: item.dynamic });
    }
    collection
}

/// The one item pytest's doctest plugin makes of a text file with examples.
fn doctest_item(settings: &CollectSettings, path: &Path) -> Option<RawItem> {
    let text = std::fs::read(path).ok()?;
    let text = String::from_utf8_lossy(&text);
    let has_examples = text.lines().any(|line| {
        let rest = line.trim_start_matches(' ');
        rest == ">>>" || rest.starts_with(">>> ")
    });
    if !has_examples {
        return None;
    }
    let rel = settings.relative(path);
    let name = path.file_name()?.to_string_lossy().into_owned();
    Some(RawItem {
        nodeid: format!("{rel}::{name}"),
        file: rel.clone(),
        def_file: rel,
        line: 0,
        markers: Vec::new(),
        dynamic: None,
        callspec: None,
        class_key: None,
    })
}


fn selected(item: &RawItem, selectors: &[&str], whole: &[String]) -> bool {
    let in_whole = whole.iter().any(|w| w == "." || item.file == *w || item.file.starts_with(&format!("{w}/")));
    in_whole
        || selectors.iter().any(|s| {
            item.nodeid == *s
                || item.nodeid.strip_prefix(s).is_some_and(|rest| rest.starts_with("::") || rest.starts_with('['))
        })
}

/// Conftest modules from the rootdir down to `file`'s directory.
fn conftest_chain(settings: &CollectSettings, file: &Path, conftests: &std::collections::BTreeMap<PathBuf, PathBuf>, by_path: &HashMap<&Path, usize>) -> Vec<usize> {
    let mut dirs: Vec<&Path> = file.parent().map(|p| p.ancestors().take_while(|d| d.starts_with(&settings.rootdir)).collect()).unwrap_or_default();
    dirs.reverse();
    dirs.into_iter()
        .filter_map(|d| conftests.get(d))
        .filter_map(|c| by_path.get(c.as_path()).copied())
        .collect()
}


pub(crate) fn package_of(path: &Path, dotted: &str) -> String {
    if path.file_stem().is_some_and(|s| s == "__init__") {
        dotted.to_string()
    } else {
        dotted.rsplit_once('.').map_or(String::new(), |(p, _)| p.to_string())
    }
}


/// Absolute module names a module imports (module level and class bodies).
fn imported_modules(body: &[Stmt], package: &str) -> Vec<String> {
    let mut out = Vec::new();
    for stmt in body {
        match stmt {
            Stmt::Import(import) => {
                for alias in &import.names {
                    out.push(alias.name.id.as_str().to_string());
                }
            }
            Stmt::ImportFrom(import) => {
                let base = absolute_module(package, import.level, import.module.as_ref().map(|m| m.id.as_str()));
                for alias in &import.names {
                    if alias.name.id.as_str() != "*" {
                        out.push(if base.is_empty() { alias.name.id.as_str().to_string() } else { format!("{base}.{}", alias.name.id.as_str()) });
                    }
                }
                out.push(base);
            }
            Stmt::If(s) => {
                out.extend(imported_modules(&s.body, package));
                for clause in &s.elif_else_clauses {
                    out.extend(imported_modules(&clause.body, package));
                }
            }
            Stmt::Try(s) => {
                out.extend(imported_modules(&s.body, package));
                out.extend(imported_modules(&s.orelse, package));
                for handler in &s.handlers {
                    let ruff_python_ast::ExceptHandler::ExceptHandler(h) = handler;
                    out.extend(imported_modules(&h.body, package));
                }
            }
            Stmt::ClassDef(c) => out.extend(imported_modules(&c.body, package)),
            Stmt::Assign(assign) => {
                let is_plugins = assign
                    .targets
                    .iter()
                    .any(|t| matches!(t, ruff_python_ast::Expr::Name(n) if n.id.as_str() == "pytest_plugins"));
                if is_plugins {
                    out.extend(plugin_names(&assign.value));
                }
            }
            _ => {}
        }
    }
    out.retain(|m| !m.is_empty());
    out
}


/// The module names of a literal `pytest_plugins` value.
fn plugin_names(value: &ruff_python_ast::Expr) -> Vec<String> {
    use ruff_python_ast::Expr;
    match value {
        Expr::StringLiteral(s) => vec![s.value.to_str().to_string()],
        Expr::List(list) => list.elts.iter().flat_map(plugin_names).collect(),
        Expr::Tuple(tuple) => tuple.elts.iter().flat_map(plugin_names).collect(),
        _ => Vec::new(),
    }
}
