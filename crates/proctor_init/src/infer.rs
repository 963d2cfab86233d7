//! From what the suite already has to a [`Draft`]: pytest's registered
//! markers and `addopts -m`, the conftest hooks' marking patterns, the
//! helpers and decorators tests use, marker usage, and the CI workflows.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use proctor_python::{ConftestHooks, HookCondition, HookMarkKind, Item};

use crate::draft::{AxisDraft, Draft, HelperDraft, JobDraft, PathDraft, ServiceDraft};
use crate::helper_source::{self, HelperSource};
use crate::{scripts, workflows};

/// Marks pytest itself defines: never part of a taxonomy.
const BUILTIN_MARKS: &[&str] = &[
    "parametrize",
    "skip",
    "skipif",
    "xfail",
    "usefixtures",
    "filterwarnings",
    "timeout",
    "asyncio",
    "anyio",
    "django_db",
    "flaky",
    "order",
    "dependency",
];

/// What `proctor init` reads.
#[derive(Debug, Default)]
pub struct Inputs {
    /// pytest's config file, relative to the rootdir (`pyproject.toml`).
    pub config_file: Option<String>,
    /// pytest's `markers` ini lines.
    pub markers: Vec<String>,
    /// The `-m` of pytest's `addopts`.
    pub addopts_markexpr: Option<String>,
    /// Static collection's items.
    pub items: Vec<Item>,
    /// Each conftest (relative path, with `/`) and what its hook does.
    pub conftests: Vec<(String, ConftestHooks)>,
    /// Each workflow (relative path) and its text.
    pub workflows: Vec<(String, String)>,
    /// Each shell script (`*.sh`, relative path) and its text.
    pub scripts: Vec<(String, String)>,
    /// The options the suite's conftests declare (`--live`).
    pub declared_flags: Vec<String>,
    /// Where helper modules are looked up: the rootdir, then `pythonpath`.
    pub search: Vec<PathBuf>,
}

/// Infers a first configuration from `inputs`.
#[must_use]
pub fn infer(inputs: &Inputs) -> Draft {
    let mut draft = Draft::default();
    registered_markers(inputs, &mut draft);
    if let Some(expr) = &inputs.addopts_markexpr {
        let file = inputs.config_file.as_deref().unwrap_or("pytest's config");
        draft.default_select = Some((expr.clone(), format!("the `-m` of `addopts` in {file}")));
        draft.inferred.push(format!(
            "default selection `{expr}`, from `addopts` in {file}"
        ));
    }
    let written = written_markers(&inputs.items);
    for (file, hooks) in &inputs.conftests {
        conftest_rules(file, hooks, inputs, &written, &mut draft);
    }
    let mut calls = Vec::new();
    for (file, text) in &inputs.workflows {
        let read = workflows::read_workflow(file, text, &inputs.declared_flags);
        for service in read.services {
            draft.add_service(service);
        }
        draft.unknown.extend(read.unknown);
        for job in read.jobs {
            add_job(&mut draft, job, file);
        }
        calls.extend(read.scripts.into_iter().map(|call| (file.clone(), call)));
    }
    for (workflow, call) in &calls {
        if !inputs.scripts.iter().any(|(file, _)| *file == call.script) {
            draft.unknown.push(format!(
                "{workflow}: job `{}` runs `{}`, which init did not find (or found in an ignored folder)",
                call.template.name, call.script
            ));
        }
    }
    for (file, text) in &inputs.scripts {
        let called: Vec<&scripts::ScriptCall> = calls
            .iter()
            .filter(|(_, call)| call.script == *file)
            .map(|(_, call)| call)
            .collect();
        let reads = if called.is_empty() {
            vec![scripts::read_script(
                file,
                text,
                None,
                &inputs.declared_flags,
            )]
        } else {
            called
                .into_iter()
                .map(|call| scripts::read_script(file, text, Some(call), &inputs.declared_flags))
                .collect()
        };
        for read in reads {
            draft.unknown.extend(read.unknown);
            for job in read.jobs {
                add_job(&mut draft, job, file);
            }
        }
    }
    notebooks(inputs, &mut draft);
    helpers(inputs, &written, &mut draft);
    usage_axes(inputs, &mut draft);
    if inputs.workflows.is_empty() && draft.jobs.is_empty() {
        draft.unknown.push(
            "CI jobs: no `.github/workflows/*.yml` found; declare `[jobs.<name>]` by hand (docs/plan.md#jobs)"
                .to_owned(),
        );
    }
    draft
}

/// pytest's `markers` lines as (name, description), and the aliases their
/// descriptions state (`llm: deprecated alias of e2e`).
fn registered_markers(inputs: &Inputs, draft: &mut Draft) {
    for line in &inputs.markers {
        let (head, description) = line.split_once(':').unwrap_or((line.as_str(), ""));
        let name = head.split('(').next().unwrap_or(head).trim();
        if name.is_empty() {
            continue;
        }
        let description = description.trim();
        draft
            .registered
            .push((name.to_owned(), description.to_owned()));
        let lower = description.to_lowercase();
        for phrase in ["alias of ", "alias for "] {
            if let Some(at) = lower.find(phrase) {
                let target: String = description[at + phrase.len()..]
                    .trim_start_matches(['`', '"', '\''])
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !target.is_empty() && target != name {
                    let deprecated = lower.contains("deprecated") || lower.contains("legacy");
                    let rule = draft.marker(name);
                    rule.alias_of = Some(target.clone());
                    rule.deprecated = deprecated;
                    rule.from
                        .push(format!("its registration: \"{description}\""));
                    draft.inferred.push(format!(
                        "`{name}` is {} of `{target}`, from its registration",
                        if deprecated {
                            "a deprecated alias"
                        } else {
                            "an alias"
                        }
                    ));
                }
                break;
            }
        }
    }
    if inputs.markers.is_empty() {
        draft
            .unknown
            .push("registered markers: pytest's config registers none".to_owned());
    }
}

/// Every marker name written in a test (function, class, module, param).
fn written_markers(items: &[Item]) -> BTreeSet<String> {
    items
        .iter()
        .flat_map(|item| item.markers.iter().map(|m| m.name.clone()))
        .collect()
}

/// The directory of `conftest` relative to the rootdir (`""` at the top).
fn conftest_dir(conftest: &str) -> &str {
    conftest.rsplit_once('/').map_or("", |(dir, _)| dir)
}

fn under(dir: &str, file: &str) -> bool {
    dir.is_empty() || file.strip_prefix(dir).is_some_and(|r| r.starts_with('/'))
}

/// The rules one conftest's hook amounts to.
fn conftest_rules(
    file: &str,
    hooks: &ConftestHooks,
    inputs: &Inputs,
    written: &BTreeSet<String>,
    draft: &mut Draft,
) {
    if let Some(error) = &hooks.error {
        draft.unknown.push(format!("{file}: not read ({error})"));
        return;
    }
    let dir = conftest_dir(file);
    for mark in &hooks.marks {
        let at = format!("{file}:{}", mark.line);
        let marker_conditions: Vec<&HookCondition> = mark
            .conditions
            .iter()
            .filter(|c| !matches!(c, HookCondition::LacksMarker(m) if matches!(&mark.mark, HookMarkKind::Marker(n) if n == m)))
            .collect();
        match (&mark.mark, &marker_conditions[..]) {
            (HookMarkKind::Marker(name), []) => {
                let glob = if dir.is_empty() {
                    "**".to_owned()
                } else {
                    format!("{dir}/**")
                };
                draft.paths.push(PathDraft {
                    glob: glob.clone(),
                    markers: vec![name.clone()],
                    from: format!("{at}: adds `{name}` to every item"),
                });
                draft
                    .inferred
                    .push(format!("`{name}` on every test under `{glob}`, from {at}"));
            }
            (HookMarkKind::Marker(name), [HookCondition::PathContains(part)]) => {
                let globs = path_globs(dir, part, &inputs.items);
                for glob in &globs {
                    draft.paths.push(PathDraft {
                        glob: glob.clone(),
                        markers: vec![name.clone()],
                        from: format!("{at}: adds `{name}` when `{part}` is in the item's path"),
                    });
                }
                draft.inferred.push(format!(
                    "`{name}` by path ({}), from {at}",
                    globs
                        .iter()
                        .map(|g| format!("`{g}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            (HookMarkKind::Marker(name), [HookCondition::HasMarker(by)]) => {
                let rule = draft.marker(by);
                if !rule.implies.contains(name) {
                    rule.implies.push(name.clone());
                }
                rule.from
                    .push(format!("{at}: adds `{name}` to items marked `{by}`"));
                draft
                    .inferred
                    .push(format!("`{by}` implies `{name}`, from {at}"));
            }
            (HookMarkKind::Marker(name), [HookCondition::NoneOf(family)]) => {
                tier_axis(name, family, &at, inputs, written, draft);
            }
            (HookMarkKind::Skip { reason }, conditions) => {
                gate(conditions, reason.as_ref(), &at, draft);
            }
            (HookMarkKind::Marker(name), conditions) => draft.unknown.push(format!(
                "{at}: adds `{name}` when {}: no config rule says that",
                describe(conditions)
            )),
        }
    }
    for unknown in &hooks.unknown {
        draft.unknown.push(format!(
            "{file}:{}: not recognised: {}",
            unknown.line, unknown.why
        ));
    }
}

/// A gate from a skip under `conditions`.
fn gate(conditions: &[&HookCondition], reason: Option<&String>, at: &str, draft: &mut Draft) {
    let mut marker = None;
    let mut env = BTreeMap::new();
    let mut flag = None;
    let mut other = Vec::new();
    for condition in conditions {
        match condition {
            HookCondition::HasMarker(m) if marker.is_none() => marker = Some(m.clone()),
            HookCondition::Env { var, value } => {
                env.insert(var.clone(), value.clone());
            }
            HookCondition::FlagAbsent(f) if flag.is_none() => flag = Some(f.clone()),
            other_condition => other.push(*other_condition),
        }
    }
    let Some(marker) = marker.filter(|_| other.is_empty() && (flag.is_some() || !env.is_empty()))
    else {
        draft.unknown.push(format!(
            "{at}: a skip when {}: not a gate proctor can state",
            describe(conditions)
        ));
        return;
    };
    let gate = draft.gate(&marker, at);
    gate.skip_if_env.extend(env.clone());
    if flag.is_some() {
        gate.run_if_flag.clone_from(&flag);
    }
    gate.reason = reason.cloned();
    let what = match (&flag, env.is_empty()) {
        (Some(flag), _) => format!("runs only with `{flag}`"),
        (None, _) => format!(
            "skipped when {}",
            env.iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(" and ")
        ),
    };
    draft
        .inferred
        .push(format!("gate: `{marker}` {what}, from {at}"));
}

fn describe(conditions: &[&HookCondition]) -> String {
    if conditions.is_empty() {
        return "always".to_owned();
    }
    conditions
        .iter()
        .map(|c| match c {
            HookCondition::PathContains(p) => format!("`{p}` is in its path"),
            HookCondition::HasMarker(m) => format!("it has `{m}`"),
            HookCondition::LacksMarker(m) => format!("it lacks `{m}`"),
            HookCondition::NoneOf(ms) => format!("it has none of {}", ms.join(", ")),
            HookCondition::Env { var, value } => format!("{var}={value}"),
            HookCondition::FlagAbsent(f) => format!("`{f}` is not given"),
        })
        .collect::<Vec<_>>()
        .join(" and ")
}

/// The globs of the directories under `dir` whose name is `part` (else
/// contains it) and hold a test: `dir/.../part/**`.
fn path_globs(dir: &str, part: &str, items: &[Item]) -> Vec<String> {
    let mut exact = BTreeSet::new();
    let mut containing = BTreeSet::new();
    for item in items {
        if !under(dir, &item.file) {
            continue;
        }
        let parts: Vec<&str> = item.file.split('/').collect();
        let dirs = &parts[..parts.len().saturating_sub(1)];
        if let Some(at) = dirs.iter().position(|p| *p == part) {
            exact.insert(format!("{}/**", dirs[..=at].join("/")));
        } else if let Some(at) = dirs.iter().position(|p| p.contains(part)) {
            containing.insert(format!("{}/**", dirs[..=at].join("/")));
        }
    }
    let found = if exact.is_empty() { containing } else { exact };
    if found.is_empty() {
        let prefix = if dir.is_empty() {
            String::new()
        } else {
            format!("{dir}/")
        };
        return vec![format!("{prefix}**/{part}/**")];
    }
    found.into_iter().collect()
}

/// An axis whose default a hook adds to items with none of `family`.
fn tier_axis(
    default: &str,
    family: &[String],
    at: &str,
    inputs: &Inputs,
    written: &BTreeSet<String>,
    draft: &mut Draft,
) {
    let aliases: BTreeMap<String, String> = draft
        .markers
        .iter()
        .filter_map(|m| Some((m.name.clone(), m.alias_of.clone()?)))
        .collect();
    let mut markers: Vec<String> = Vec::new();
    for marker in family.iter().map(String::as_str).chain([default]) {
        if !aliases.contains_key(marker) && !markers.iter().any(|m| m == marker) {
            markers.push(marker.to_owned());
        }
    }
    // The default first, then the rest in the registration's order.
    let order = |m: &String| {
        draft
            .registered
            .iter()
            .position(|(n, _)| n == m)
            .unwrap_or(usize::MAX)
    };
    markers.sort_by_key(|m| (m != default, order(m)));
    let resolve = |name: &str| {
        aliases
            .get(name)
            .cloned()
            .unwrap_or_else(|| name.to_owned())
    };
    let overlap = inputs.items.iter().any(|item| {
        let on: BTreeSet<String> = item
            .markers
            .iter()
            .map(|m| resolve(&m.name))
            .filter(|m| markers.contains(m))
            .collect();
        on.len() > 1
    });
    let name = if markers.iter().any(|m| {
        matches!(
            m.as_str(),
            "unit" | "integration" | "e2e" | "functional" | "system"
        )
    }) {
        "tier".to_owned()
    } else {
        format!("{default}-family")
    };
    let never_written = !written.contains(default);
    draft.axes.push(AxisDraft {
        name: name.clone(),
        markers: markers.clone(),
        cardinality: if overlap { "any" } else { "exactly-one" }.to_owned(),
        default: Some(default.to_owned()),
        write_default: never_written.then_some(false),
        from: format!(
            "{at}: adds `{default}` to items with none of {}{}",
            family.join(", "),
            if never_written {
                format!("; no test writes `{default}`")
            } else {
                String::new()
            }
        ),
        suggestion: false,
    });
    draft.inferred.push(format!(
        "axis `{name}` ({}), default `{default}`{}, from {at}",
        markers.join(", "),
        if never_written {
            " (never written in tests)"
        } else {
            ""
        }
    ));
    if overlap {
        draft.unknown.push(format!(
            "axis `{name}`: some test writes two of its markers, so it is `any`, not `exactly-one`"
        ));
    }
}

fn add_job(draft: &mut Draft, mut job: JobDraft, file: &str) {
    if job.markers.is_some() && draft.default_select.is_some() {
        // pytest's `-m` replaces the one in addopts: the job runs exactly
        // its own expression.
        job.use_default = false;
    }
    if draft.jobs.iter().any(|j| j.name == job.name) {
        let stem = file
            .rsplit('/')
            .next()
            .unwrap_or(file)
            .trim_end_matches(".sh")
            .trim_end_matches(".yml")
            .trim_end_matches(".yaml");
        job.name = format!("{stem}-{}", job.name);
    }
    if let Some(runner) = &job.runs_on {
        if !runner.starts_with("ubuntu-")
            && !runner.starts_with("macos-")
            && !runner.starts_with("windows-")
        {
            draft.unknown.push(format!(
                "job `{}`: what runner `{runner}` offers (GPU, RAM) is unknown; add `assume = [\"gpu.vram_gb=N\"]` if it has a GPU",
                job.name
            ));
        }
    }
    for note in &job.notes {
        draft.unknown.push(format!("job `{}`: {note}", job.name));
    }
    draft
        .inferred
        .push(format!("job `{}`, from {}", job.name, job.from));
    draft.jobs.push(job);
}

/// Jobs that run notebooks (`pytest --nbmake DIR`): proctor collects them
/// under `[notebooks] paths`, opted in by a metadata block, whose key is
/// the one the folder's notebooks carry with a `markers` list in it.
fn notebooks(inputs: &Inputs, draft: &mut Draft) {
    let Some(rootdir) = inputs.search.first() else {
        return;
    };
    let mut folders: Vec<(String, String)> = Vec::new();
    let mut keys: BTreeMap<String, usize> = BTreeMap::new();
    for job in &draft.jobs {
        for path in &job.paths {
            if folders.iter().any(|(p, _)| p == path) {
                continue;
            }
            let Ok(entries) = std::fs::read_dir(rootdir.join(path)) else {
                continue;
            };
            let notebooks: Vec<PathBuf> = entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "ipynb"))
                .collect();
            if notebooks.is_empty() {
                continue;
            }
            folders.push((path.clone(), job.name.clone()));
            for notebook in notebooks {
                let Ok(text) = std::fs::read_to_string(&notebook) else {
                    continue;
                };
                let Ok(doc) = serde_json::from_str::<serde_json::Value>(&text) else {
                    continue;
                };
                if let Some(metadata) = doc["metadata"].as_object() {
                    for (key, value) in metadata {
                        if value
                            .get("markers")
                            .is_some_and(serde_json::Value::is_array)
                        {
                            *keys.entry(key.clone()).or_insert(0) += 1;
                        }
                    }
                }
            }
        }
    }
    if folders.is_empty() {
        return;
    }
    let paths: Vec<String> = folders.iter().map(|(p, _)| p.clone()).collect();
    match keys.into_iter().max_by_key(|(_, n)| *n) {
        Some((key, count)) => {
            draft.inferred.push(format!(
                "notebooks under {} (job `{}`), opted in by their `{key}` metadata block ({count} notebook{})",
                paths.join(", "),
                folders[0].1,
                if count == 1 { "" } else { "s" }
            ));
            draft.notebooks = Some((paths, key));
        }
        None => {
            for (path, job) in &folders {
                draft.unknown.push(format!(
                    "job `{job}` runs the notebooks of `{path}`, and none carries a metadata block with `markers`: proctor plans them with `[notebooks] paths = [\"{path}\"]` and such a block (docs/examples.md)"
                ));
            }
        }
    }
}

/// Helpers and decorators tests use: what each one needs, from its name
/// and, when its module is in the suite, its source.
fn helpers(inputs: &Inputs, written: &BTreeSet<String>, draft: &mut Draft) {
    let mut seen: BTreeMap<String, (usize, bool)> = BTreeMap::new();
    for item in &inputs.items {
        for decorator in &item.decorators {
            let numeric = decorator.kwargs.contains_key("min_vram_gb")
                || decorator.kwargs.contains_key("min_gb")
                || decorator
                    .args
                    .first()
                    .is_some_and(serde_json::Value::is_number);
            let entry = seen.entry(decorator.path.clone()).or_insert((0, false));
            entry.0 += 1;
            entry.1 |= numeric;
        }
    }
    let registered: BTreeSet<String> = draft.registered.iter().map(|(n, _)| n.clone()).collect();
    for (path, (uses, numeric)) in seen {
        if path.starts_with("pytest.")
            || path.starts_with("unittest.")
            || path.starts_with("functools.")
            || !path.contains('.')
        {
            continue;
        }
        let name = path.rsplit('.').next().unwrap_or(&path).to_owned();
        let lower = name.to_lowercase();
        let source = helper_source::find(&inputs.search, &path);
        let from = format!("{uses} use{} in tests", if uses == 1 { "" } else { "s" });
        if registered.contains(&name) || written.contains(&name) || lower == "slow" {
            draft
                .decorators
                .push((path.clone(), name.clone(), from.clone()));
            draft
                .inferred
                .push(format!("decorator `{path}` stands for marker `{name}`"));
            if let Some(HelperSource {
                env: Some(var),
                reason,
                ..
            }) = &source
            {
                let at = format!("the source of `{path}`");
                let gate = draft.gate(&name, &at);
                gate.run_if_env.insert(var.clone(), "1".to_owned());
                gate.reason.clone_from(reason);
                draft
                    .inferred
                    .push(format!("gate: `{name}` runs only with {var}=1, from {at}"));
            }
            continue;
        }
        let kind = if ["gpu", "cuda", "accelerator", "vram"]
            .iter()
            .any(|w| lower.contains(w))
        {
            if numeric || lower == "require_gpu" || lower.contains("accelerator") {
                Some(HelperDraft::Kind("gpu"))
            } else {
                let packages = subject(&lower)
                    .and_then(|s| s.strip_suffix("_gpu").map(str::to_owned))
                    .into_iter()
                    .collect();
                Some(HelperDraft::Fixed {
                    packages,
                    services: Vec::new(),
                    gpu: true,
                })
            }
        } else if lower.contains("ram") || lower.contains("memory") {
            Some(HelperDraft::Kind("ram"))
        } else if ["api_key", "apikey", "env", "credential", "secret", "token"]
            .iter()
            .any(|w| lower.contains(w))
        {
            Some(HelperDraft::Kind("env"))
        } else if ["package", "extra", "module", "import"]
            .iter()
            .any(|w| lower.contains(w))
        {
            Some(HelperDraft::Kind("package"))
        } else if lower.contains("python") {
            Some(HelperDraft::Kind("python"))
        } else if ["binary", "executable", "program"]
            .iter()
            .any(|w| lower.contains(w))
        {
            Some(HelperDraft::Kind("binary"))
        } else if let Some(subject) = subject(&lower) {
            let service = source.as_ref().and_then(|s| s.address.clone());
            let known = draft.services.iter().any(|s| s.name == subject);
            if service.is_some() || known {
                if let Some(address) = service {
                    draft.add_service(ServiceDraft {
                        name: subject.to_owned(),
                        default_address: Some(address),
                        address_env: source.as_ref().and_then(|s| s.env.clone()),
                        from: format!("the source of `{path}`"),
                        ..ServiceDraft::default()
                    });
                }
                Some(HelperDraft::Fixed {
                    packages: Vec::new(),
                    services: vec![subject.to_owned()],
                    gpu: false,
                })
            } else {
                Some(HelperDraft::Fixed {
                    packages: vec![subject.to_owned()],
                    services: Vec::new(),
                    gpu: false,
                })
            }
        } else {
            None
        };
        match kind {
            Some(kind) => {
                draft.inferred.push(format!(
                    "helper `{path}` needs {}, from its name{}",
                    describe_helper(&kind),
                    if source.is_some() { " and source" } else { "" }
                ));
                draft.helpers.push((path, kind, from));
            }
            None => draft.unknown.push(format!(
                "helper `{path}` ({from}): what it needs is not clear from its name; map it in `[helpers]` or `[decorators]`"
            )),
        }
    }
}

/// `torch` of `require_torch`, `qdrant` of `requires_qdrant`.
fn subject(name: &str) -> Option<&str> {
    let rest = name
        .strip_prefix("requires_")
        .or_else(|| name.strip_prefix("require_"))?;
    let rest = rest.strip_suffix("_available").unwrap_or(rest);
    (!rest.is_empty()).then_some(rest)
}

fn describe_helper(kind: &HelperDraft) -> String {
    match kind {
        HelperDraft::Kind(kind) => format!("`{kind}` (read from its arguments)"),
        HelperDraft::Fixed {
            packages,
            services,
            gpu,
        } => {
            let mut parts = Vec::new();
            if *gpu {
                parts.push("a GPU".to_owned());
            }
            parts.extend(packages.iter().map(|p| format!("package `{p}`")));
            parts.extend(services.iter().map(|s| format!("service `{s}`")));
            parts.join(" and ")
        }
    }
}

/// Groups of markers that never share a test, each used on two tests or
/// more: written as suggested axes (`at-most-one`), commented out.
fn usage_axes(inputs: &Inputs, draft: &mut Draft) {
    let in_axis: BTreeSet<&str> = draft
        .axes
        .iter()
        .flat_map(|a| a.markers.iter().map(String::as_str))
        .collect();
    let aliases: BTreeSet<&str> = draft
        .markers
        .iter()
        .filter(|m| m.alias_of.is_some())
        .map(|m| m.name.as_str())
        .collect();
    let mut on: BTreeMap<String, BTreeSet<usize>> = BTreeMap::new();
    for (index, item) in inputs.items.iter().enumerate() {
        for marker in &item.markers {
            let name = marker.name.as_str();
            if BUILTIN_MARKS.contains(&name) || in_axis.contains(name) || aliases.contains(name) {
                continue;
            }
            on.entry(name.to_owned()).or_default().insert(index);
        }
    }
    let mut candidates: Vec<(&String, &BTreeSet<usize>)> =
        on.iter().filter(|(_, items)| items.len() >= 2).collect();
    candidates.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.0.cmp(b.0)));
    let mut taken: BTreeSet<&str> = BTreeSet::new();
    let mut groups: Vec<Vec<&String>> = Vec::new();
    for (name, items) in &candidates {
        if taken.contains(name.as_str()) {
            continue;
        }
        let mut group = vec![*name];
        let mut union: BTreeSet<usize> = (*items).clone();
        for (other, other_items) in &candidates {
            if taken.contains(other.as_str()) || group.contains(other) {
                continue;
            }
            if union.is_disjoint(other_items) {
                group.push(other);
                union.extend(other_items.iter());
            }
        }
        // An axis is a family, not two markers that happen to be apart.
        if group.len() >= 3 && union.len() * 4 >= inputs.items.len() {
            taken.extend(group.iter().map(|n| n.as_str()));
            groups.push(group);
        }
    }
    for (index, group) in groups.iter().enumerate() {
        let markers: Vec<String> = group.iter().map(|n| (*n).clone()).collect();
        draft.inferred.push(format!(
            "suggested axis ({}): these markers never share a test (written commented out)",
            markers.join(", ")
        ));
        draft.axes.push(AxisDraft {
            name: format!("group-{}", index + 1),
            markers,
            cardinality: "at-most-one".to_owned(),
            default: None,
            write_default: None,
            from: "marker usage: no test has two of these".to_owned(),
            suggestion: true,
        });
    }
}
