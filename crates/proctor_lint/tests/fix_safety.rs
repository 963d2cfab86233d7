//! Every fix `proctor check` offers is safe: over generated suites, with
//! every rule enabled, applying all the fixes (as `--fix` does, round after
//! round until none is left) leaves every item's effective markers as they
//! were, a renamed marker counting as the marker it is renamed to.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;

use proctor_config::LoadOptions;
use proctor_lint::{check_suite, RuleSelection};
use proctor_python::{CollectSettings, Collection};
use proctor_source::{apply_fixes, Diagnostic, Edit, Sources};
use proctor_taxonomy::Taxonomy;

/// Two axes with defaults that are never written, an alias, removed
/// markers with replacements (one of them an axis marker, one implying
/// another), and a path rule.
const CONFIG: &str = r#"[axes.tier]
markers = ["unit", "integration", "e2e"]
cardinality = "exactly-one"
default = "unit"
write-default = false

[axes.speed]
markers = ["fast", "slow"]
default = "fast"
write-default = false

[markers.llm]
alias-of = "e2e"
deprecated = true

[markers.quick]
alias-of = "fast"
deprecated = true

[markers.old_int]
removed = "use `integration`"
replaced-by = "integration"

[markers.old_gpu]
removed = "use `gpu`"
replaced-by = "gpu"

[markers.gpu]
implies = ["slow"]

[[paths]]
glob = "tests/integration"
markers = ["integration"]

[examples]
paths = ["tests/examples"]
"#;

/// The marks the generator writes.
const MARKS: &[&str] = &[
    "unit",
    "unit(reason='x')",
    "integration",
    "e2e",
    "llm",
    "quick",
    "fast",
    "slow",
    "old_int",
    "old_gpu",
    "gpu",
];

/// A small deterministic generator (xorshift64*).
struct Random(u64);

impl Random {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let value = self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33;
        usize::try_from(value).unwrap() % n
    }

    fn mark(&mut self) -> &'static str {
        MARKS[self.below(MARKS.len())]
    }

    /// Up to `most` decorator lines at `indent`.
    fn decorators(&mut self, out: &mut String, indent: &str, most: usize) {
        for _ in 0..self.below(most + 1) {
            let _ = writeln!(out, "{indent}@pytest.mark.{}", self.mark());
        }
    }
}

/// One generated test module.
fn module(random: &mut Random, index: usize) -> String {
    let mut out = String::from("import pytest\n\n");
    match random.below(4) {
        0 => {
            let _ = writeln!(out, "pytestmark = pytest.mark.{}\n", random.mark());
        }
        1 => {
            let _ = writeln!(
                out,
                "pytestmark = [pytest.mark.{}, pytest.mark.{}]\n",
                random.mark(),
                random.mark()
            );
        }
        _ => {}
    }
    for function in 0..=random.below(3) {
        random.decorators(&mut out, "", 2);
        if random.below(3) == 0 {
            let _ = writeln!(
                out,
                "@pytest.mark.parametrize(\"x\", [1, pytest.param(2, marks=pytest.mark.{})])",
                random.mark()
            );
            let _ = writeln!(out, "def test_f{index}_{function}(x):\n    pass\n");
        } else {
            let _ = writeln!(out, "def test_f{index}_{function}():\n    pass\n");
        }
    }
    for class in 0..random.below(3) {
        random.decorators(&mut out, "", 2);
        let _ = writeln!(out, "class TestC{class}:");
        for method in 0..=random.below(3) {
            random.decorators(&mut out, "    ", 2);
            let _ = writeln!(out, "    def test_m{method}(self):\n        pass\n");
        }
    }
    out
}

/// An example script that opts in with one to three markers.
fn example(random: &mut Random) -> String {
    let marks: Vec<&str> = (0..=random.below(3))
        .map(|_| random.mark())
        .filter(|m| !m.contains('('))
        .collect();
    let marks = if marks.is_empty() { vec!["e2e"] } else { marks };
    format!("# pytest: {}\nprint('ok')\n", marks.join(", "))
}

/// Writes a generated suite into `root`.
fn generate(root: &Path, seed: u64) {
    let mut random = Random(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    std::fs::write(root.join("pytest.ini"), "[pytest]\ntestpaths = tests\n").unwrap();
    std::fs::write(root.join("proctor.toml"), CONFIG).unwrap();
    for dir in ["tests", "tests/integration", "tests/examples"] {
        std::fs::create_dir_all(root.join(dir)).unwrap();
    }
    for index in 0..4 {
        let dir = if random.below(3) == 0 {
            "tests/integration"
        } else {
            "tests"
        };
        std::fs::write(
            root.join(format!("{dir}/test_gen{index}.py")),
            module(&mut random, index),
        )
        .unwrap();
    }
    for index in 0..2 {
        std::fs::write(
            root.join(format!("tests/examples/example{index}.py")),
            example(&mut random),
        )
        .unwrap();
    }
}

/// The suite's items and what the taxonomy makes of them.
struct Suite {
    config: proctor_config::Settings,
    collection: Collection,
    taxonomy: Taxonomy,
}

fn load(root: &Path) -> Suite {
    let options = LoadOptions {
        cwd: root.to_path_buf(),
        args: Vec::new(),
        rootdir: Some(root.to_path_buf()),
        inifile: None,
        env_addopts: None,
        ..LoadOptions::default()
    };
    let config = proctor_config::load(&options).unwrap();
    let mut settings = CollectSettings::new(config.pytest.rootdir.clone());
    settings.threads = 1;
    let (examples, notebooks) = (&config.proctor.examples, &config.proctor.notebooks);
    settings.opt_in = proctor_python::OptInSettings::under(
        root,
        &examples.dirs(),
        examples.comment(),
        &notebooks.dirs(),
        notebooks.metadata_key(),
    );
    settings.opt_in.whole_suite = true;
    let collection = proctor_python::collect(&settings, &[], root, &config.pytest.testpaths);
    assert!(collection.errors.is_empty(), "{:?}", collection.errors);
    let taxonomy = Taxonomy::new(&config.proctor.taxonomy).unwrap();
    Suite {
        config,
        collection,
        taxonomy,
    }
}

/// Each item's effective markers (name and arguments), with the markers
/// that `renames` touch renamed.
fn effective(suite: &Suite, renames: &[&Edit]) -> BTreeMap<String, BTreeSet<(String, String)>> {
    let resolve = |name: &str| {
        suite
            .taxonomy
            .rule(name)
            .and_then(|r| r.alias_of.clone())
            .unwrap_or_else(|| name.to_owned())
    };
    suite
        .collection
        .items
        .iter()
        .map(|item| {
            let markers = suite
                .taxonomy
                .effective(item)
                .markers
                .iter()
                .map(|marker| {
                    // A rename in a `pytest.param`'s marks is inside the
                    // `parametrize` too, which is not renamed; its
                    // arguments are the values' source text, which the
                    // rename rewrites: only its name is compared.
                    if marker.name == "parametrize" {
                        return (marker.name.clone(), String::new());
                    }
                    let rename = marker.location().and_then(|l| {
                        renames.iter().find(|e| {
                            e.file == l.file
                                && l.line == e.start.line
                                && l.column <= e.start.column
                                && e.start.column < l.end_column
                        })
                    });
                    let name = rename
                        .map_or_else(|| marker.name.clone(), |edit| resolve(&edit.replacement));
                    let kwargs = marker.kwargs().cloned().unwrap_or_default();
                    (
                        name,
                        serde_json::to_string(&(marker.args(), kwargs)).unwrap(),
                    )
                })
                .collect();
            (item.nodeid.clone(), markers)
        })
        .collect()
}

/// Lints with every rule, as `proctor check` does.
fn lint(root: &Path, suite: &Suite) -> (Vec<Diagnostic>, Sources) {
    let selection = RuleSelection::new(&[], &[]).unwrap();
    let mut sources = Sources::new(root.to_path_buf());
    let diagnostics = check_suite(
        &suite.collection,
        &[],
        &suite.config,
        &suite.taxonomy,
        &selection,
        &mut sources,
    );
    (diagnostics, sources)
}

#[test]
fn fixes_keep_every_items_effective_markers() {
    let (mut offered, mut refused) = (BTreeMap::<&str, usize>::new(), 0);
    for seed in 0..60 {
        let dir = tempfile::tempdir().unwrap();
        let root = proctor_python::normalize(dir.path());
        generate(&root, seed);
        for round in 0..4 {
            let suite = load(&root);
            let (diagnostics, sources) = lint(&root, &suite);
            refused += diagnostics
                .iter()
                .filter(|d| d.code == "PRC003" && d.fix.is_none())
                .count();
            let fixed = apply_fixes(&diagnostics, &sources);
            if fixed.is_empty() {
                break;
            }
            assert!(round < 3, "seed {seed}: fixes left after three rounds");
            // The edits `apply_fixes` took: those of the fixes it counted,
            // in the files it wrote (an overlapping fix waits a round).
            let mut taken: Vec<&Edit> = Vec::new();
            for diagnostic in &diagnostics {
                let Some(fix) = &diagnostic.fix else { continue };
                let overlaps = fix.edits.iter().any(|e| {
                    taken.iter().any(|t| {
                        t.file == e.file
                            && (t.start < e.end && e.start < t.end
                                || t.start == e.start && t.end == e.end)
                    })
                });
                if !overlaps {
                    *offered.entry(diagnostic.code).or_default() += 1;
                    taken.extend(&fix.edits);
                }
            }
            let renames: Vec<&Edit> = taken
                .iter()
                .copied()
                .filter(|e| !e.replacement.is_empty())
                .collect();
            let expected = effective(&suite, &renames);
            let before: BTreeMap<&str, String> = fixed
                .iter()
                .map(|f| {
                    (
                        f.file.as_str(),
                        std::fs::read_to_string(root.join(&f.file)).unwrap(),
                    )
                })
                .collect();
            for file in &fixed {
                std::fs::write(root.join(&file.file), &file.text).unwrap();
            }
            let after = effective(&load(&root), &[]);
            for (nodeid, markers) in &expected {
                assert_eq!(
                    after.get(nodeid),
                    Some(markers),
                    "seed {seed}, round {round}: the fixes changed the effective markers of {nodeid}\nfiles before the fixes:\n{before:#?}\nafter:\n{:#?}",
                    fixed.iter().map(|f| (&f.file, &f.text)).collect::<Vec<_>>()
                );
            }
            assert_eq!(
                after.len(),
                expected.len(),
                "seed {seed}: the fixes changed the items"
            );
        }
    }
    // The generator exercises every fix and the refusals.
    for code in ["PRC003", "PRC004", "PRC005"] {
        assert!(
            offered.get(code).is_some_and(|&n| n > 10),
            "too few {code} fixes: {offered:?}"
        );
    }
    assert!(refused > 10, "too few refused PRC003 fixes: {refused}");
}
