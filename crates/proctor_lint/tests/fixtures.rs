//! Runs each rule over its fixture suite under `tests/lint/<CODE>/` and
//! checks that exactly the lines marked `# Error` are flagged with that
//! code; snapshots the full rendering of the findings, and the files with
//! the fixes applied for rules that have fixes.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use proctor_config::LoadOptions;
use proctor_lint::{check_suite, RuleSelection, RULES};
use proctor_python::CollectSettings;
use proctor_source::{apply_fixes, render, Diagnostic, Format, Sources};
use proctor_taxonomy::Taxonomy;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/lint")
}

/// Lints the fixture suite of `code` with only that rule enabled, over
/// test definitions as `proctor check` does.
fn lint(code: &str) -> (Vec<Diagnostic>, Sources) {
    lint_collected(code, true)
}

/// Lints the fixture suite of `code` over pytest's items, or over test
/// definitions (`definitions_only`).
fn lint_collected(code: &str, definitions_only: bool) -> (Vec<Diagnostic>, Sources) {
    let root = proctor_python::normalize(&fixtures().join(code));
    let options = LoadOptions {
        cwd: root.clone(),
        args: Vec::new(),
        rootdir: Some(root.clone()),
        inifile: None,
        env_addopts: None,
        ..LoadOptions::default()
    };
    let config = proctor_config::load(&options).unwrap_or_else(|e| panic!("{code}: {e}"));
    let mut settings = CollectSettings::new(config.pytest.rootdir.clone());
    settings.threads = 1;
    settings.definitions_only = definitions_only;
    let (examples, notebooks) = (&config.proctor.examples, &config.proctor.notebooks);
    settings.opt_in = proctor_python::OptInSettings::under(
        &root,
        &examples.dirs(),
        examples.comment(),
        &notebooks.dirs(),
        notebooks.metadata_key(),
    );
    let collection = proctor_python::collect(&settings, &[], &root, &config.pytest.testpaths);
    assert!(
        collection.errors.is_empty(),
        "{code}: {:?}",
        collection.errors
    );
    let taxonomy = Taxonomy::new(&config.proctor.taxonomy).unwrap();
    let selection = RuleSelection::new(&[code.to_owned()], &[]).unwrap();
    let mut sources = Sources::new(root);
    let diagnostics = check_suite(
        &collection,
        &[],
        &config,
        &taxonomy,
        &selection,
        &mut sources,
    );
    (diagnostics, sources)
}

/// The configuration files at the root of a fixture that may carry
/// `# Error` comments (for rules about the configuration).
const CONFIG_FILES: &[&str] = &[
    "pytest.ini",
    "pyproject.toml",
    "proctor.toml",
    "tox.ini",
    "setup.cfg",
];

/// The `(file, line)` pairs marked `# Error` in the fixture's test files
/// (notebooks included: there `# Error` sits in a string on the line)
/// and configuration files.
fn expected(code: &str) -> BTreeSet<(String, usize)> {
    let root = fixtures().join(code);
    let mut out = BTreeSet::new();
    let mut files: Vec<PathBuf> = CONFIG_FILES
        .iter()
        .map(|name| root.join(name))
        .filter(|path| path.is_file())
        .collect();
    let mut stack = vec![root.join("tests")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "py" || e == "ipynb") {
                files.push(path);
            }
        }
    }
    for path in files {
        let file = path
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let trimmed = line.trim_start();
            let standalone = trimmed.starts_with('#');
            if !(trimmed.contains("# Error") || standalone && trimmed.starts_with("# Error")) {
                continue;
            }
            // A standalone `# Error` names the next line of code, or the
            // next example opt-in comment (`# pytest: ...`).
            let target = if standalone {
                let code = |l: &str| {
                    !l.trim().is_empty()
                        && (!l.trim_start().starts_with('#')
                            || l.trim_start().starts_with("# pytest:"))
                };
                lines
                    .iter()
                    .enumerate()
                    .skip(i + 1)
                    .find(|(_, l)| code(l))
                    .map(|(j, _)| j)
            } else {
                Some(i)
            };
            out.insert((
                file.clone(),
                target.expect("an `# Error` comment before some code") + 1,
            ));
        }
    }
    out
}

fn assert_fixture(code: &str) {
    let (diagnostics, sources) = lint(code);
    assert!(diagnostics.iter().all(|d| d.code == code));
    let flagged: BTreeSet<(String, usize)> = diagnostics
        .iter()
        .map(|d| (d.file.clone(), d.start.line))
        .collect();
    assert_eq!(
        flagged.len(),
        diagnostics.len(),
        "{code}: one finding per line"
    );
    assert_eq!(
        flagged,
        expected(code),
        "{code}: flagged lines (left) differ from the `# Error` lines (right)"
    );
    insta::assert_snapshot!(code, render(Format::Full, &diagnostics, &sources));
    // The fixed files, for rules with fixes.
    let fixed = apply_fixes(&diagnostics, &sources);
    if !fixed.is_empty() {
        let mut text = String::new();
        for file in &fixed {
            let _ = writeln!(text, "--- {} ({} fixed)", file.file, file.fixed);
            text.push_str(&file.text);
        }
        insta::assert_snapshot!(format!("{code}_fixed"), text);
    }
}

macro_rules! fixture_tests {
    ($($name:ident: $code:literal,)*) => {
        $(
            #[test]
            fn $name() {
                assert_fixture($code);
            }
        )*

        #[test]
        fn every_rule_has_a_fixture() {
            let tested = [$($code),*];
            for rule in RULES {
                assert!(tested.contains(&rule.code), "{} has no fixture test", rule.code);
            }
        }
    };
}

fixture_tests! {
    prc001_missing_axis_marker: "PRC001",
    prc002_too_many_axis_markers: "PRC002",
    prc003_default_marker_written: "PRC003",
    prc004_deprecated_marker: "PRC004",
    prc005_removed_marker: "PRC005",
    prc006_marker_without_required_companion: "PRC006",
    prc007_marker_outside_allowed_company: "PRC007",
    prc008_wrong_marker_scope: "PRC008",
    prc009_conflicting_markers: "PRC009",
    prc010_marker_without_comment: "PRC010",
    prc101_unregistered_marker: "PRC101",
    prc102_unused_registered_marker: "PRC102",
    prc103_unknown_marker_in_expression: "PRC103",
    prc104_unused_helper: "PRC104",
    prc201_ignored_config_table: "PRC201",
    prc202_addopts_markexpr: "PRC202",
    prc301_unmirrored_test_file: "PRC301",
    prc302_test_name_shape: "PRC302",
    prc303_multi_claim_test_name: "PRC303",
    prc304_test_file_name: "PRC304",
    prc401_opt_in_expression: "PRC401",
    prc402_example_without_opt_in: "PRC402",
    prc403_notebook_without_opt_in: "PRC403",
    prc900_dynamic_item: "PRC900",
}

/// `docs/check.md` lists every rule with its code, name and severity.
#[test]
fn the_docs_list_every_rule() {
    let docs =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/check.md"))
            .unwrap();
    for rule in RULES {
        let row = format!(
            "| {} | {} | {} |",
            rule.code,
            rule.name,
            rule.severity.as_str()
        );
        assert!(docs.contains(&row), "docs/check.md lacks `{row}`");
    }
}

/// `proctor check` lints test definitions, not pytest's items: the same
/// findings, rendered the same, for every rule's fixture.
#[test]
fn definitions_give_the_findings_of_items() {
    for rule in RULES {
        let (by_definition, sources) = lint_collected(rule.code, true);
        let (by_item, _) = lint_collected(rule.code, false);
        assert_eq!(
            render(Format::Concise, &by_definition, &sources),
            render(Format::Concise, &by_item, &sources),
            "{}: findings differ between definitions and items",
            rule.code
        );
    }
}
