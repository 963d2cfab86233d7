//! Differential test of selection: for seeded random `-m` and `-k`
//! expressions over fixture suites without a taxonomy, `proctor select`
//! must pick exactly the items real `pytest --collect-only -m … -k …` keeps.
//!
//! The expressions are built from the marker names the suite uses (plus an
//! unknown one) and from substrings of its node ids, combined with `not`,
//! `and`, `or` and parentheses. pytest's explicit `-m` replaces its
//! `addopts -m`, so proctor runs with `--no-default-select` to compare like
//! with like.
//!
//! With a default selection `D`, an explicit `-m E` selects what
//! `E and (D with each marker E names free)` does, which pytest has no
//! option for: that rule is evaluated by pytest's own expression engine
//! (`_pytest.mark.expression.Expression` over each item's
//! `MarkMatcher`), `D` taking each marker `E` names as both true and false.
//!
//! `scripts/test` sets `PROCTOR_TEST_PYTHON`; without it this test fails.

mod common;

use common::repo as repo_root;

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

fn python() -> String {
    std::env::var("PROCTOR_TEST_PYTHON").unwrap_or_else(|_| {
        panic!("PROCTOR_TEST_PYTHON is not set: run the tests through `scripts/test`, which creates .venv with the pinned pytest")
    })
}

/// A small deterministic generator (xorshift), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next() % (n as u64)).unwrap()
    }
}

fn expression(rng: &mut Rng, atoms: &[String], depth: usize) -> String {
    let atom = atoms[rng.below(atoms.len())].clone();
    if depth == 0 {
        return atom;
    }
    match rng.below(5) {
        0 => format!("not {}", expression(rng, atoms, depth - 1)),
        1 => format!(
            "{} and {}",
            expression(rng, atoms, depth - 1),
            expression(rng, atoms, depth - 1)
        ),
        2 => format!(
            "{} or {}",
            expression(rng, atoms, depth - 1),
            expression(rng, atoms, depth - 1)
        ),
        3 => format!("({})", expression(rng, atoms, depth - 1)),
        _ => atom,
    }
}

fn pytest_selection(dir: &Path, markers: &str, keywords: &str) -> BTreeSet<String> {
    let output = Command::new(python())
        .args([
            "-m",
            "pytest",
            "--collect-only",
            "-q",
            "-p",
            "no:cacheprovider",
            "-m",
            markers,
            "-k",
            keywords,
        ])
        .current_dir(dir)
        .env("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .expect("pytest runs");
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter(|line| line.contains("::") && !line.starts_with("ERROR"))
        .map(str::to_string)
        .collect()
}

fn proctor(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_proctor"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("proctor runs")
}

/// proctor's selected node ids, and the base ids of its dynamic items.
fn proctor_selection(
    dir: &Path,
    markers: &str,
    keywords: &str,
) -> (BTreeSet<String>, BTreeSet<String>) {
    let output = proctor(
        dir,
        &[
            "select",
            "--json",
            "--no-default-select",
            "-m",
            markers,
            "-k",
            keywords,
        ],
    );
    let doc: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("select --json prints JSON");
    let mut ids = BTreeSet::new();
    let mut dynamic = BTreeSet::new();
    for item in doc["selected"].as_array().unwrap() {
        let nodeid = item["nodeid"].as_str().unwrap().to_string();
        if item["dynamic"].is_null() {
            ids.insert(nodeid);
        } else {
            dynamic.insert(nodeid);
        }
    }
    (ids, dynamic)
}

fn check_suite(name: &str, seed: u64, cases: usize) {
    let dir = repo_root().join("tests/suites").join(name);
    let collected = proctor(&dir, &["collect", "--json"]);
    let doc = common::inline_markers(serde_json::from_slice(&collected.stdout).unwrap());
    let items = doc["items"].as_array().unwrap();
    let mut markers: BTreeSet<String> = BTreeSet::new();
    let mut fragments: BTreeSet<String> = BTreeSet::new();
    for item in items {
        for marker in item["markers"].as_array().unwrap() {
            markers.insert(marker["name"].as_str().unwrap().to_string());
        }
        let nodeid = item["nodeid"].as_str().unwrap();
        let name = nodeid.rsplit("::").next().unwrap();
        let name = name.split('[').next().unwrap();
        if name.len() > 6 {
            fragments.insert(name[5..name.len().min(9)].to_string());
        }
    }
    let mut mark_atoms: Vec<String> = markers.into_iter().collect();
    mark_atoms.push("not_a_marker".to_string());
    let mut key_atoms: Vec<String> = fragments
        .into_iter()
        .filter(|f| f.chars().all(|c| c.is_alphanumeric() || c == '_'))
        .collect();
    key_atoms.push("Test".to_string());
    assert!(
        mark_atoms.len() > 2 && key_atoms.len() > 2,
        "{name}: too few atoms to test"
    );
    let mut rng = Rng(seed);
    let mut nonempty = 0;
    for case in 0..cases {
        let m = expression(&mut rng, &mark_atoms, 3);
        let k = if case % 3 == 0 {
            String::new()
        } else {
            expression(&mut rng, &key_atoms, 2)
        };
        let expected = pytest_selection(&dir, &m, &k);
        let (actual, dynamic) = proctor_selection(&dir, &m, &k);
        // A dynamic item stands for every pytest item of its function; its
        // own selection is checked on the markers known statically.
        let expected_static: BTreeSet<String> = expected
            .iter()
            .filter(|id| !dynamic.contains(id.split('[').next().unwrap()))
            .cloned()
            .collect();
        assert_eq!(actual, expected_static, "suite {name}: -m {m:?} -k {k:?}");
        for base in &dynamic {
            assert!(
                expected.iter().any(|id| id.split('[').next() == Some(base.as_str())),
                "suite {name}: -m {m:?} -k {k:?}: dynamic {base} selected, pytest selects none of its items"
            );
        }
        if !expected.is_empty() {
            nonempty += 1;
        }
    }
    // The generator must exercise real selections, not only empty ones.
    assert!(
        nonempty * 3 >= cases,
        "suite {name}: only {nonempty}/{cases} selections were non-empty"
    );
}

#[test]
fn markers_suite_selections_match_pytest() {
    check_suite("markers", 0x9e37_79b9_7f4a_7c15, 14);
}

#[test]
fn parametrize_suite_selections_match_pytest() {
    check_suite("parametrize", 0xd1b5_4a32_d192_ed03, 10);
}

#[test]
fn fixtures_suite_selections_match_pytest() {
    check_suite("fixtures", 0x2545_f491_4f6c_dd1d, 8);
}

/// The oracle for a default selection: pytest collects the suite, then
/// for each `[default, explicit]` case keeps an item when `explicit`
/// matches it and `default` does for some value of the markers `explicit`
/// names, both evaluated by pytest's `Expression`.
const DEFAULT_ORACLE: &str = r#"
import itertools, json, sys
import pytest
from _pytest.mark import MarkMatcher
from _pytest.mark.expression import Expression

class Items:
    def pytest_collection_finish(self, session):
        self.items = [(item.nodeid, MarkMatcher.from_markers(item.iter_markers())) for item in session.items]

items = Items()
pytest.main(["--collect-only", "-q", "-p", "no:cacheprovider"], plugins=[items])
out = []
for default, explicit in json.load(open(sys.argv[1])):
    explicit = Expression.compile(explicit)
    default = Expression.compile(default)
    named = sorted(explicit.idents())
    def relaxed(matcher):
        for values in itertools.product([True, False], repeat=len(named)):
            fixed = dict(zip(named, values))
            if default.evaluate(lambda name, /, **kwargs: fixed[name] if name in fixed else matcher(name, **kwargs)):
                return True
        return False
    out.append(sorted(nodeid for nodeid, matcher in items.items if explicit.evaluate(matcher) and relaxed(matcher)))
print("RESULT " + json.dumps(out))
"#;

#[test]
fn a_default_selection_makes_way_on_the_markers_the_explicit_m_names() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let names = ["core", "live", "slow", "smoke", "property"];
    // One test per subset of the markers, and a few with a called marker.
    let mut module = String::from("import pytest\n");
    for subset in 0..1usize << names.len() {
        module.push('\n');
        for (bit, name) in names.iter().enumerate() {
            if subset >> bit & 1 == 1 {
                let _ = writeln!(module, "@pytest.mark.{name}");
            }
        }
        if subset % 5 == 0 {
            let _ = writeln!(module, "@pytest.mark.device(serial='{}')", subset % 2);
        }
        let _ = write!(module, "def test_{subset}():\n    pass\n");
    }
    common::write(root, "tests/test_all.py", &module);
    common::write(root, "pytest.ini", "[pytest]\n");
    let mut atoms: Vec<String> = names.iter().map(|n| (*n).to_string()).collect();
    atoms.extend([
        "device(serial='1')".to_string(),
        "device".to_string(),
        "not_a_marker".to_string(),
    ]);
    let mut rng = Rng(0x5851_f42d_4c95_7f2d);
    let cases: Vec<(String, String)> = (0..40)
        .map(|_| {
            (
                expression(&mut rng, &atoms, 3),
                expression(&mut rng, &atoms, 2),
            )
        })
        .collect();
    let cases_path = root.join("cases.json");
    std::fs::write(&cases_path, serde_json::to_string(&cases).unwrap()).unwrap();
    std::fs::write(root.join("oracle.py"), DEFAULT_ORACLE).unwrap();
    let oracle = Command::new(python())
        .arg("oracle.py")
        .arg(&cases_path)
        .current_dir(root)
        .env("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .expect("the oracle runs");
    let stdout = String::from_utf8_lossy(&oracle.stdout);
    let result = stdout
        .lines()
        .find_map(|line| line.strip_prefix("RESULT "))
        .unwrap_or_else(|| {
            panic!(
                "oracle: {stdout}{}",
                String::from_utf8_lossy(&oracle.stderr)
            )
        });
    let expected: Vec<BTreeSet<String>> = serde_json::from_str(result).unwrap();
    let (mut nonempty, mut relaxed) = (0, 0);
    for ((default, explicit), expected) in cases.iter().zip(&expected) {
        common::write(
            root,
            "proctor.toml",
            &format!(
                "[select]\ndefault = {}\n",
                serde_json::to_string(default).unwrap()
            ),
        );
        let output = proctor(root, &["select", "--json", "-m", explicit]);
        let doc: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|_| {
            panic!(
                "-m {explicit:?}: {}",
                String::from_utf8_lossy(&output.stderr)
            )
        });
        let actual: BTreeSet<String> = doc["selected"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["nodeid"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(&actual, expected, "default {default:?}, -m {explicit:?}");
        let plain = proctor(
            root,
            &[
                "select",
                "--json",
                "--no-default-select",
                "-m",
                &format!("({default}) and ({explicit})"),
            ],
        );
        let plain: serde_json::Value = serde_json::from_slice(&plain.stdout).unwrap();
        if plain["selected"].as_array().unwrap().len() != actual.len() {
            relaxed += 1;
        }
        if !expected.is_empty() {
            nonempty += 1;
        }
    }
    // The cases must exercise real selections, and the relaxation itself.
    assert!(
        nonempty * 3 >= cases.len(),
        "only {nonempty}/{} selections were non-empty",
        cases.len()
    );
    assert!(
        relaxed * 5 >= cases.len(),
        "only {relaxed}/{} cases differ from plain `and`",
        cases.len()
    );
}
