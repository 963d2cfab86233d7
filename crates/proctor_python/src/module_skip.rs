//! Test modules pytest skips as a whole while importing them: a top-level
//! `pytest.importorskip("numpy")` of a module the target interpreter does
//! not have, or `pytest.skip(..., allow_module_level=True)` at the top
//! level (or under an `if` the evaluator decides). pytest collects no item
//! from such a module and reports one skip with its reason; so does
//! proctor. Where the answer is not certain (no interpreter found, a
//! `minversion`, a condition known only at run time) the items stay.

use std::path::{Path, PathBuf};

use ruff_python_ast::{self as ast, Expr, Stmt};

use rustc_hash::FxHashSet as HashSet;

use crate::project::Project;
use crate::settings::CollectSettings;
use crate::value::PyValue;

/// Modules compiled into `CPython` 3.11–3.13 (`sys.builtin_module_names`).
const BUILTIN_MODULES: &[&str] = &[
    "_abc",
    "_ast",
    "_codecs",
    "_collections",
    "_functools",
    "_imp",
    "_io",
    "_locale",
    "_operator",
    "_signal",
    "_sre",
    "_stat",
    "_string",
    "_symtable",
    "_thread",
    "_tokenize",
    "_tracemalloc",
    "_typing",
    "_warnings",
    "_weakref",
    "atexit",
    "builtins",
    "errno",
    "faulthandler",
    "gc",
    "itertools",
    "marshal",
    "posix",
    "pwd",
    "sys",
    "time",
];

/// How importing a test module ends before any test is collected.
pub(crate) enum ModuleStop {
    /// pytest skips the module, with this reason, at this byte offset (the
    /// call that skips, whose line pytest's `-rs` shows).
    Skip(String, u32),
    /// pytest fails to import it: `ModuleNotFoundError` of this module.
    Missing(String),
    /// Importing it may fail: a missing module is imported under a
    /// condition known only at run time. Its items are dynamic.
    Uncertain(String),
}

/// The reason pytest gives for skipping the whole module or failing to
/// import it, when it does.
pub(crate) fn module_stop(
    project: &Project<'_, '_>,
    module: usize,
    settings: &CollectSettings,
) -> Option<ModuleStop> {
    let file = project.module(module).file;
    let ast = file.ast.as_ref()?;
    // Computed once: every import of the module is checked against them.
    let suite = suite_dirs(settings, &file.path);
    statements_skip(project, module, settings, &suite, &ast.body)
}

fn statements_skip(
    project: &Project<'_, '_>,
    module: usize,
    settings: &CollectSettings,
    suite: &[PathBuf],
    body: &[Stmt],
) -> Option<ModuleStop> {
    for stmt in body {
        let value = match stmt {
            // A class body runs while the module is imported.
            Stmt::ClassDef(def) => {
                if let Some(stop) = statements_skip(project, module, settings, suite, &def.body) {
                    return Some(stop);
                }
                continue;
            }
            Stmt::Import(import) if settings.infer_import_errors => {
                for alias in &import.names {
                    if let Some(missing) = missing_module(settings, suite, alias.name.id.as_str()) {
                        return Some(ModuleStop::Missing(missing));
                    }
                }
                continue;
            }
            Stmt::ImportFrom(import) if settings.infer_import_errors && import.level == 0 => {
                if let Some(missing) = import
                    .module
                    .as_ref()
                    .and_then(|m| missing_module(settings, suite, m.id.as_str()))
                {
                    return Some(ModuleStop::Missing(missing));
                }
                continue;
            }
            Stmt::Expr(s) => s.value.as_ref(),
            Stmt::Assign(s) => s.value.as_ref(),
            Stmt::AnnAssign(s) => match &s.value {
                Some(value) => value.as_ref(),
                None => continue,
            },
            Stmt::If(s) => {
                // Only a condition the evaluator decides is followed.
                let chosen = match truth(&project.eval(module, &s.test)) {
                    Some(true) => Some(&s.body[..]),
                    Some(false) => {
                        let mut chosen = None;
                        for clause in &s.elif_else_clauses {
                            match clause
                                .test
                                .as_ref()
                                .map(|t| truth(&project.eval(module, t)))
                            {
                                None | Some(Some(true)) => {
                                    chosen = Some(&clause.body[..]);
                                    break;
                                }
                                Some(Some(false)) => {}
                                Some(None) => return None,
                            }
                        }
                        chosen
                    }
                    None => {
                        // Neither branch is known to run: a missing import in
                        // either makes the outcome uncertain.
                        let branches = std::iter::once(&s.body[..])
                            .chain(s.elif_else_clauses.iter().map(|c| &c.body[..]));
                        for body in branches {
                            if let Some(ModuleStop::Missing(name) | ModuleStop::Uncertain(name)) =
                                statements_skip(project, module, settings, suite, body)
                            {
                                return Some(ModuleStop::Uncertain(name));
                            }
                        }
                        None
                    }
                };
                if let Some(reason) =
                    chosen.and_then(|body| statements_skip(project, module, settings, suite, body))
                {
                    return Some(reason);
                }
                continue;
            }
            _ => continue,
        };
        let Expr::Call(call) = value else { continue };
        if let Some(reason) = call_skip(project, module, settings, suite, call) {
            return Some(ModuleStop::Skip(
                reason,
                ruff_text_size::Ranged::start(call).to_u32(),
            ));
        }
    }
    None
}

/// The first missing prefix of module `dotted`, given the suite's own
/// directories on `sys.path` for the importing file (`suite`).
fn missing_module(settings: &CollectSettings, suite: &[PathBuf], dotted: &str) -> Option<String> {
    let search = settings.module_path.as_ref()?;
    first_missing(dotted, suite, &search.dirs, &search.tops)
}

fn truth(value: &PyValue) -> Option<bool> {
    match value {
        PyValue::Bool(b) => Some(*b),
        PyValue::None => Some(false),
        _ => None,
    }
}

fn call_skip(
    project: &Project<'_, '_>,
    module: usize,
    settings: &CollectSettings,
    suite: &[PathBuf],
    call: &ast::ExprCall,
) -> Option<String> {
    let callee = project.external_path(module, &call.func)?;
    let keyword = |name: &str| {
        call.arguments
            .keywords
            .iter()
            .find(|k| k.arg.as_ref().is_some_and(|a| a.id.as_str() == name))
    };
    match callee.as_str() {
        "pytest.importorskip" | "_pytest.outcomes.importorskip" => {
            let name = call
                .arguments
                .args
                .first()
                .or_else(|| keyword("modname").map(|k| &k.value))?;
            let PyValue::Str(dotted) = project.eval(module, name) else {
                return None;
            };
            if keyword("minversion").is_some() || call.arguments.args.len() > 1 {
                return None;
            }
            let missing = missing_module(settings, suite, &dotted)?;
            let reason = keyword("reason")
                .map(|k| project.eval(module, &k.value))
                .and_then(|v| {
                    if let PyValue::Str(s) = v {
                        Some(s.into_string())
                    } else {
                        None
                    }
                });
            Some(reason.unwrap_or_else(|| {
                format!("could not import '{dotted}': No module named '{missing}'")
            }))
        }
        "pytest.skip" | "_pytest.outcomes.skip" => {
            let allowed = keyword("allow_module_level").map(|k| project.eval(module, &k.value));
            if !matches!(allowed, Some(PyValue::Bool(true))) {
                return None;
            }
            let reason = call
                .arguments
                .args
                .first()
                .or_else(|| keyword("reason").map(|k| &k.value));
            match reason.map(|r| project.eval(module, r)) {
                None => Some(String::new()),
                Some(PyValue::Str(reason)) => Some(reason.to_string()),
                Some(_) => None,
            }
        }
        _ => None,
    }
}

/// The directories of the suite itself on `sys.path` for this test file:
/// its base directory (`prepend` import mode), `pythonpath`, the rootdir.
fn suite_dirs(settings: &CollectSettings, path: &Path) -> Vec<PathBuf> {
    let mut dir = path.parent();
    while let Some(d) = dir {
        if !crate::cache::probe::is_file(&d.join("__init__.py")) {
            break;
        }
        dir = d.parent();
    }
    let mut out: Vec<PathBuf> = dir.map(Path::to_path_buf).into_iter().collect();
    out.extend(settings.pythonpath.iter().cloned());
    out.push(settings.rootdir.clone());
    out
}

/// The top-level names the directories `dirs` provide: packages (any
/// directory, namespace packages included), `x.py` modules and extension
/// modules (`x.cpython-311-x86_64-linux-gnu.so`). Read once per run, so
/// that checking an import is a lookup.
#[must_use]
pub(crate) fn top_level_names(dirs: &[PathBuf]) -> HashSet<String> {
    let mut names = HashSet::default();
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        for entry in entries.filter_map(Result::ok) {
            let name = entry.file_name().to_string_lossy().into_owned();
            // The listing's own file type (no `stat` per entry of the
            // standard library), followed for a link as `is_dir` follows it.
            let is_dir = match entry.file_type() {
                Ok(kind) if !kind.is_symlink() => kind.is_dir(),
                _ => entry.path().is_dir(),
            };
            if is_dir {
                names.insert(name);
            } else if let Some(stem) = name.strip_suffix(".py") {
                names.insert(stem.to_owned());
            } else if std::path::Path::new(&name)
                .extension()
                .is_some_and(|e| e == "so" || e == "pyd")
            {
                if let Some((stem, _)) = name.split_once('.') {
                    names.insert(stem.to_owned());
                }
            }
        }
    }
    names
}

/// The first prefix of `dotted` that no directory provides (`a` or
/// `a.b`), or `None` when it can be imported. `tops` are the top-level
/// names of `search`.
fn first_missing(
    dotted: &str,
    suite: &[PathBuf],
    search: &[PathBuf],
    tops: &HashSet<String>,
) -> Option<String> {
    let parts: Vec<&str> = dotted.split('.').collect();
    let first = *parts.first()?;
    if BUILTIN_MODULES.contains(&first) && parts.len() == 1 {
        return None;
    }
    let search: &[PathBuf] = if tops.contains(first) { search } else { &[] };
    let mut best = 0;
    // The suite's own directories hold sources: no extension modules.
    let dirs = suite
        .iter()
        .map(|d| (d, false))
        .chain(search.iter().map(|d| (d, true)));
    for (dir, extensions) in dirs {
        let found = resolved_parts(dir, &parts, extensions);
        if found == parts.len() {
            return None;
        }
        best = best.max(found);
    }
    Some(parts[..=best].join("."))
}

/// How many leading parts of a dotted name `dir` provides.
fn resolved_parts(dir: &Path, parts: &[&str], extensions: bool) -> usize {
    let mut current = dir.to_path_buf();
    for (i, part) in parts.iter().enumerate() {
        let package = current.join(part);
        if crate::cache::probe::is_dir(&package) {
            current = package;
            continue;
        }
        let module = current.join(format!("{part}.py"));
        let extension = extensions && crate::cache::probe::has_extension(&current, part);
        if crate::cache::probe::is_file(&module) || extension {
            // A plain module has no submodules.
            return if i + 1 == parts.len() {
                parts.len()
            } else {
                i + 1
            };
        }
        return i;
    }
    parts.len()
}
