//! `proctor init`: reads what the suite already has (pytest's config,
//! conftest hooks, helpers, CI workflows), writes a first, commented
//! proctor configuration, says what it inferred and what it could not,
//! and ends with `proctor plan`'s audit under the new configuration.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use proctor_init::{infer, render, without_tool_proctor, Inputs, Layout};

use crate::args::{InitArgs, MachineArgs, PlanArgs, SelectionArgs, SuiteArgs};
use crate::commands::suite::Suite;
use crate::exit;
use crate::printer::Printer;
use crate::settings::Env;

pub(crate) fn run(args: &InitArgs) -> Result<u8> {
    let suite = Suite::load(&SuiteArgs::with(&args.config, Vec::new()), &Env::process())?;
    let rootdir = suite.config.pytest.rootdir.clone();
    let (target, layout) = target(&suite, &rootdir);
    if let Some(existing) = &suite.config.proctor_file {
        if !args.force && !args.dry_run {
            bail!(
                "proctor's configuration already exists in {}: `proctor init --force` replaces it, `--dry-run` prints what it would write",
                existing.display()
            );
        }
    }
    let mut collection = suite.collect();
    let relative = |path: &Path| -> String {
        path.strip_prefix(&rootdir)
            .unwrap_or(path)
            .to_string_lossy()
            .replace('\\', "/")
    };
    let conftests: Vec<(String, proctor_python::ConftestHooks)> = collection
        .conftests
        .iter()
        .map(|path| {
            let rel = relative(path);
            let hooks = proctor_python::read_conftest_hooks(path, &rel);
            (rel, hooks)
        })
        .collect();
    let declared_flags: Vec<String> =
        proctor_config::declared_options::scan_files(&collection.conftests)
            .into_iter()
            .flat_map(|option| option.names)
            .filter(|name| name.starts_with("--"))
            .collect();
    let mut search = vec![rootdir.clone()];
    search.extend(suite.collect.pythonpath.iter().cloned());
    let inputs = Inputs {
        config_file: suite.config.pytest.inifile.as_deref().map(relative),
        markers: suite.config.pytest.markers.clone(),
        addopts_markexpr: suite.config.pytest.addopts_parsed.markexpr.clone(),
        items: std::mem::take(&mut collection.items),
        conftests,
        workflows: workflows(&rootdir)?,
        scripts: scripts(&rootdir, &suite.collect.norecursedirs),
        declared_flags,
        search,
    };
    let mut draft = infer(&inputs);
    // What static collection could not read is said first: its tests are
    // missing from everything inferred from usage.
    let errors: Vec<String> = collection
        .errors
        .iter()
        .map(|error| format!("{}: not collected: {}", error.file, error.message))
        .collect();
    draft.unknown.splice(0..0, errors);
    let text = render(&draft, layout);

    let mut out = Printer::stdout();
    // With --dry-run the configuration is stdout, the notes stderr, so
    // that `proctor init --dry-run > proctor.toml` is clean TOML.
    let scripts = if inputs.scripts.is_empty() {
        String::new()
    } else {
        format!(
            ", {} shell script{}",
            inputs.scripts.len(),
            plural(inputs.scripts.len())
        )
    };
    let mut notes = vec![format!(
        "Read {} test{}, {} conftest{}, {} workflow{}{scripts}.",
        inputs.items.len(),
        plural(inputs.items.len()),
        inputs.conftests.len(),
        plural(inputs.conftests.len()),
        inputs.workflows.len(),
        plural(inputs.workflows.len()),
    )];
    notes.push("Inferred:".to_owned());
    notes.extend(draft.inferred.iter().map(|line| format!("  - {line}")));
    if draft.inferred.is_empty() {
        notes.push("  (nothing)".to_owned());
    }
    notes.push("Not inferred (written as comments at the end of the file):".to_owned());
    notes.extend(draft.unknown.iter().map(|line| format!("  - {line}")));
    if draft.unknown.is_empty() {
        notes.push("  (nothing)".to_owned());
    }
    let notes = notes.join("\n") + "\n";
    if args.dry_run {
        write!(out.err(), "{notes}")?;
        writeln!(out, "{text}")?;
        out.flush()?;
        return Ok(exit::OK);
    }
    write!(out, "{notes}")?;
    let written = match layout {
        Layout::ProctorToml => format!("{text}\n"),
        Layout::Pyproject => {
            let existing = std::fs::read_to_string(&target)
                .with_context(|| format!("cannot read {}", target.display()))?;
            let mut kept = if args.force {
                without_tool_proctor(&existing)
            } else {
                existing
            };
            if !kept.ends_with('\n') {
                kept.push('\n');
            }
            format!("{kept}\n{text}\n")
        }
    };
    // With `--force`, a `proctor.toml` next to the new `[tool.proctor]`
    // would win over it: it is replaced. A parent directory's config is
    // left alone (the rootdir's new one comes first).
    if let Some(existing) = &suite.config.proctor_file {
        if existing != &target
            && existing.parent() == Some(rootdir.as_path())
            && existing.file_name().is_some_and(|n| n == "proctor.toml")
        {
            std::fs::remove_file(existing)
                .with_context(|| format!("cannot remove {}", existing.display()))?;
        }
    }
    std::fs::write(&target, written)
        .with_context(|| format!("cannot write {}", target.display()))?;
    writeln!(
        out,
        "\nWrote {}{}.\n\n`proctor plan` under it:\n",
        relative(&target),
        if layout == Layout::Pyproject {
            " ([tool.proctor])"
        } else {
            ""
        }
    )?;
    out.flush()?;
    drop(out);
    let plan = PlanArgs {
        suite: SuiteArgs::with(&args.config, Vec::new()),
        selection: SelectionArgs {
            markers: None,
            keywords: None,
            profile: None,
            no_default_select: false,
        },
        machine: MachineArgs::default(),
        job: None,
        json: false,
    };
    crate::commands::plan::run(&plan).context(
        "the written configuration does not load; fix it or run `proctor init --force` again",
    )?;
    Ok(exit::OK)
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// Where the configuration goes: `[tool.proctor]` in the rootdir's
/// `pyproject.toml` when that file is pytest's config (or already holds
/// proctor's), else `proctor.toml` in the rootdir — where proctor looks
/// first (docs/configuration.md).
fn target(suite: &Suite, rootdir: &Path) -> (PathBuf, Layout) {
    let pyproject = rootdir.join("pyproject.toml");
    let pytest_in_pyproject = suite.config.pytest.inifile.as_deref() == Some(pyproject.as_path());
    let proctor_in_pyproject = suite.config.proctor_file.as_deref() == Some(pyproject.as_path());
    if pyproject.is_file() && (pytest_in_pyproject || proctor_in_pyproject) {
        (pyproject, Layout::Pyproject)
    } else {
        (rootdir.join("proctor.toml"), Layout::ProctorToml)
    }
}

/// The shell scripts (`*.sh`) under the rootdir that run pytest, by
/// relative path, with their text: folders pytest does not recurse into
/// (`norecursedirs`, which covers dot folders by default) and virtual
/// environments are left out, as collection leaves them out.
fn scripts(rootdir: &Path, norecursedirs: &[String]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut pending = vec![rootdir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for path in entries.filter_map(Result::ok).map(|e| e.path()) {
            if path.is_dir() {
                let ignored = path.join("pyvenv.cfg").is_file()
                    || norecursedirs
                        .iter()
                        .any(|p| proctor_python::fnmatch_ex(p, &path));
                if !ignored {
                    pending.push(path);
                }
            } else if path.extension().is_some_and(|ext| ext == "sh") {
                // A script that cannot be read, or never names pytest,
                // has no jobs to give.
                let Ok(text) = std::fs::read_to_string(&path) else {
                    continue;
                };
                if text.contains("pytest") {
                    let rel = path
                        .strip_prefix(rootdir)
                        .unwrap_or(&path)
                        .to_string_lossy()
                        .replace('\\', "/");
                    out.push((rel, text));
                }
            }
        }
    }
    out.sort();
    out
}

/// The GitHub workflows of the rootdir (`.github/workflows/*.yml` and
/// `*.yaml`), by name, with their text.
fn workflows(rootdir: &Path) -> Result<Vec<(String, String)>> {
    let dir = rootdir.join(".github").join("workflows");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Ok(Vec::new());
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.is_file()
                && p.extension()
                    .is_some_and(|ext| ext == "yml" || ext == "yaml")
        })
        .collect();
    files.sort();
    let mut out = Vec::new();
    for file in files {
        let bytes =
            std::fs::read(&file).with_context(|| format!("cannot read {}", file.display()))?;
        let name = format!(
            ".github/workflows/{}",
            file.file_name().unwrap_or_default().to_string_lossy()
        );
        out.push((name, String::from_utf8_lossy(&bytes).into_owned()));
    }
    Ok(out)
}
