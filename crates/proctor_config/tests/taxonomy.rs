//! The taxonomy tables of proctor's options: what they read into, and every
//! way they can be refused, with the exact position of the error.

mod common;

use common::Tree;
use proctor_config::{
    AxisOptions, Cardinality, MarkerOptions, MarkerScope, PathRuleOptions, TaxonomyOptions,
};

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

/// Loads `text` as `proctor.toml` and returns the error's position and
/// message.
fn error(text: &str) -> (usize, usize, String) {
    let tree = Tree::new();
    tree.file("proctor.toml", text);
    match tree.load("", &[]) {
        Ok(settings) => panic!("expected an error, got {:?}", settings.proctor),
        Err(err) => {
            assert_eq!(err.path, tree.path("proctor.toml"));
            assert!(err.excerpt.is_some(), "{err}");
            (err.line, err.column, err.message)
        }
    }
}

#[track_caller]
fn assert_error(text: &str, line: usize, column: usize, needle: &str) {
    let (l, c, message) = error(text);
    assert_eq!((l, c), (line, column), "{message}");
    assert!(message.contains(needle), "{message:?} lacks {needle:?}");
}

const FULL: &str = r#"
[axes.tier]
markers = ["unit", "integration", "e2e"]
cardinality = "exactly-one"
default = "unit"
write-default = false

[axes.backend]
markers = ["ollama", "openai", "huggingface", "vllm", "watsonx"]
cardinality = "any"

[markers.llm]
alias-of = "e2e"
deprecated = true
[markers.old_gpu]
removed = "use `huggingface` with `require_gpu(...)` instead"
[markers.credentialed]
implies = ["live"]
[markers.qualitative]
requires-any = ["e2e"]
scope = ["function"]
[markers.ollama]
only-with = ["e2e", "qualitative"]
[markers.slow]
conflicts = ["smoke"]
[markers.realdb]
needs-comment = true

[[paths]]
glob = "tests/integration/**"
markers = ["integration"]
"#;

#[test]
fn every_key_reads_into_the_options_in_file_order() {
    let tree = Tree::new();
    tree.file("proctor.toml", FULL);
    let taxonomy = tree.ok("", &[]).proctor.taxonomy;
    let expected = TaxonomyOptions {
        axes: vec![
            (
                "tier".to_owned(),
                AxisOptions {
                    markers: strings(&["unit", "integration", "e2e"]),
                    cardinality: Cardinality::ExactlyOne,
                    default: Some("unit".to_owned()),
                    write_default: Some(false),
                },
            ),
            (
                "backend".to_owned(),
                AxisOptions {
                    markers: strings(&["ollama", "openai", "huggingface", "vllm", "watsonx"]),
                    cardinality: Cardinality::Any,
                    default: None,
                    write_default: None,
                },
            ),
        ],
        markers: vec![
            (
                "llm".to_owned(),
                MarkerOptions {
                    alias_of: Some("e2e".to_owned()),
                    deprecated: Some(true),
                    ..MarkerOptions::default()
                },
            ),
            (
                "old_gpu".to_owned(),
                MarkerOptions {
                    removed: Some("use `huggingface` with `require_gpu(...)` instead".to_owned()),
                    ..MarkerOptions::default()
                },
            ),
            (
                "credentialed".to_owned(),
                MarkerOptions {
                    implies: strings(&["live"]),
                    ..MarkerOptions::default()
                },
            ),
            (
                "qualitative".to_owned(),
                MarkerOptions {
                    requires_any: Some(strings(&["e2e"])),
                    scope: Some(vec![MarkerScope::Function]),
                    ..MarkerOptions::default()
                },
            ),
            (
                "ollama".to_owned(),
                MarkerOptions {
                    only_with: Some(strings(&["e2e", "qualitative"])),
                    ..MarkerOptions::default()
                },
            ),
            (
                "slow".to_owned(),
                MarkerOptions {
                    conflicts: strings(&["smoke"]),
                    ..MarkerOptions::default()
                },
            ),
            (
                "realdb".to_owned(),
                MarkerOptions {
                    needs_comment: Some(true),
                    ..MarkerOptions::default()
                },
            ),
        ],
        paths: vec![PathRuleOptions {
            glob: "tests/integration/**".to_owned(),
            markers: vec!["integration".into()],
        }],
        decorators: Vec::new(),
    };
    assert_eq!(taxonomy, expected);
    assert!(taxonomy.problems().is_empty());
    assert!(!taxonomy.axis("tier").unwrap().write_default_allowed());
    assert!(taxonomy.axis("backend").unwrap().write_default_allowed());
    assert!(taxonomy.marker("llm").unwrap().is_deprecated());
}

#[test]
fn pyproject_tables_and_inline_forms_read_the_same() {
    let tree = Tree::new();
    tree.file(
        "pyproject.toml",
        "[project]\nname = 'x'\n\n\
         [tool.proctor.axes.tier]\nmarkers = ['unit', 'integration']\ndefault = 'unit'\n\n\
         [tool.proctor.markers]\ncredentialed = { implies = ['live'] }\n\n\
         [[tool.proctor.paths]]\nglob = 'tests/integration/**'\nmarkers = ['integration']\n",
    );
    let pyproject = tree.ok("", &[]).proctor.taxonomy;

    let other = Tree::new();
    other.file(
        "proctor.toml",
        "axes = { tier = { markers = ['unit', 'integration'], default = 'unit' } }\n\
         markers.credentialed.implies = ['live']\n\
         paths = [{ glob = 'tests/integration/**', markers = ['integration'] }]\n",
    );
    assert_eq!(other.ok("", &[]).proctor.taxonomy, pyproject);
    assert_eq!(
        pyproject.axes[0].1.cardinality,
        Cardinality::Any,
        "the default cardinality"
    );
}

#[test]
fn unknown_keys_and_bad_values_are_located() {
    assert_error(
        "[axes.tier]\nmarkers = ['a']\ndefualt = 'a'\n",
        3,
        1,
        "unknown field `defualt`",
    );
    assert_error("[markers.x]\nalias = 'y'\n", 2, 1, "unknown field `alias`");
    assert_error(
        "[[paths]]\nglob = 'a/**'\nmarkers = ['b']\nmarker = 'c'\n",
        4,
        1,
        "unknown field `marker`",
    );
    assert_error(
        "[axes.tier]\nmarkers = ['a']\ncardinality = 'one'\n",
        3,
        15,
        "unknown variant `one`, expected one of `exactly-one`, `at-most-one`, `any`",
    );
    assert_error(
        "[markers.x]\nscope = ['function', 'method']\n",
        2,
        22,
        "unknown variant `method`",
    );
    assert_error(
        "[markers.x]\nimplies = 'y'\n",
        2,
        11,
        "invalid type: string \"y\", expected a sequence",
    );
    assert_error("[markers.x]\ndeprecated = 'yes'\n", 2, 14, "invalid type");
    assert_error(
        "[axes.tier]\ndefault = 'a'\n",
        1,
        1,
        "missing field `markers`",
    );
    assert_error("[[paths]]\nmarkers = ['a']\n", 1, 1, "missing field `glob`");
    assert_error(
        "axes = ['tier']\n",
        1,
        8,
        "invalid type: sequence, expected a table",
    );
}

#[test]
fn decorators_map_paths_to_markers() {
    let tree = Tree::new();
    tree.file("proctor.toml", "[decorators]\n\"transformers.testing_utils.slow\" = \"slow\"\n\"tests.predicates.require_gpu\" = \"gpu\"\n");
    let taxonomy = tree.ok("", &[]).proctor.taxonomy;
    assert_eq!(
        taxonomy.decorators,
        vec![
            (
                "transformers.testing_utils.slow".to_owned(),
                "slow".to_owned()
            ),
            ("tests.predicates.require_gpu".to_owned(), "gpu".to_owned()),
        ]
    );
}

#[test]
fn axis_problems() {
    assert_error(
        "[axes.tier]\nmarkers = []\n",
        2,
        11,
        "an axis needs at least one marker",
    );
    assert_error(
        "[axes.tier]\nmarkers = ['unit', 'e2e', 'unit']\n",
        2,
        27,
        "`unit` is listed twice",
    );
    assert_error(
        "[axes.backend]\nmarkers = ['ollama', 'openai']\n\n[axes.provider]\nmarkers = ['local', 'openai']\n",
        5,
        21,
        "`openai` is already in axis `backend`; a marker belongs to at most one axis",
    );
    assert_error(
        "[axes.tier]\nmarkers = ['unit', 'e2e']\ndefault = 'none'\n",
        3,
        11,
        "the default `none` is not one of the axis's markers (`unit`, `e2e`)",
    );
    assert_error(
        "[axes.tier]\nmarkers = ['unit']\nwrite-default = true\n",
        3,
        17,
        "`write-default` needs a `default`",
    );
    assert_error(
        "[axes.tier]\nmarkers = ['unit', 'llm']\n[markers.llm]\nalias-of = 'e2e'\n",
        2,
        20,
        "`llm` is an alias of `e2e`, and aliases are replaced before axes are looked at; write `e2e`",
    );
    assert_error(
        "[axes.gpu]\nmarkers = ['old_gpu']\n[markers.old_gpu]\nremoved = 'use require_gpu'\n",
        2,
        12,
        "`old_gpu` is a removed marker",
    );
    assert_error(
        "[axes.tier]\nmarkers = ['unit', 'e2e']\ndefault = 'unit'\n[markers.unit]\nimplies = ['offline']\n",
        3,
        11,
        "defaults are applied after implications",
    );
    assert_error(
        "[axes.tier]\nmarkers = ['unit', 'end to end']\n",
        2,
        20,
        "`end to end` is not a marker name",
    );
}

#[test]
fn alias_problems() {
    assert_error(
        "[markers.llm]\nalias-of = 'llm'\n",
        2,
        12,
        "`llm` cannot be an alias of itself",
    );
    assert_error(
        "[markers.llm]\nalias-of = 'old'\n[markers.old]\nalias-of = 'e2e'\n",
        2,
        12,
        "`old` is itself an alias (of `e2e`); an alias must point at a marker that is not one: write `alias-of = \"e2e\"`",
    );
    assert_error(
        "[markers.a]\nalias-of = 'b'\n\n[markers.b]\nalias-of = 'c'\n\n[markers.c]\nalias-of = 'a'\n",
        2,
        12,
        "alias cycle: `a` -> `b` -> `c` -> `a`",
    );
    assert_error(
        "[markers.llm]\nalias-of = 'gone'\n[markers.gone]\nremoved = 'no more'\n",
        2,
        12,
        "`gone` is a removed marker",
    );
    assert_error(
        "[markers.llm]\nalias-of = 'e2e'\nimplies = ['live']\n",
        3,
        11,
        "`implies` has no effect on an alias: `llm` is replaced by `e2e`, whose rules apply; put it in `[markers.e2e]`",
    );
    assert_error(
        "[markers.llm]\nalias-of = 'e2e'\nremoved = 'gone'\n",
        3,
        11,
        "`removed` has no effect on an alias",
    );
    assert_error(
        "[markers.llm]\nalias-of = 'e 2 e'\n",
        2,
        12,
        "`e 2 e` is not a marker name",
    );
}

#[test]
fn rule_problems() {
    assert_error(
        "[markers.old_gpu]\nremoved = '  '\n",
        2,
        11,
        "`removed` is the message shown where the marker is written",
    );
    assert_error(
        "[markers.credentialed]\nimplies = ['live', 'credentialed']\n",
        2,
        20,
        "`credentialed` cannot imply itself",
    );
    assert_error(
        "[markers.credentialed]\nimplies = ['llm']\n[markers.llm]\nalias-of = 'e2e'\n",
        2,
        12,
        "`llm` is an alias of `e2e`, and aliases are replaced before implications; write `e2e`",
    );
    assert_error(
        "[markers.qualitative]\nrequires-any = []\n",
        2,
        16,
        "`requires-any` needs at least one marker",
    );
    assert_error(
        "[markers.ollama]\nonly-with = ['e2e', 'ollama']\n",
        2,
        21,
        "`ollama` cannot name itself",
    );
    assert_error(
        "[markers.ollama]\nonly-with = ['llm']\n[markers.llm]\nalias-of = 'e2e'\n",
        2,
        14,
        "aliases are replaced before rules are checked; write `e2e`",
    );
    assert_error(
        "[markers.slow]\nconflicts = ['slow']\n",
        2,
        14,
        "`slow` cannot conflict with itself",
    );
    assert_error(
        "[markers.qualitative]\nscope = []\n",
        2,
        9,
        "`scope` needs at least one of `function`, `class`, `module`, `param`",
    );
    assert_error(
        "[markers.\"not-a-name\"]\ndeprecated = true\n",
        1,
        10,
        "`not-a-name` is not a marker name",
    );
}

#[test]
fn path_rule_problems() {
    assert_error(
        "[[paths]]\nglob = 'tests/[integration/**'\nmarkers = ['integration']\n",
        2,
        8,
        "invalid glob: unclosed character class; missing ']'",
    );
    assert_error(
        "[[paths]]\nglob = 'tests/{unit,integration/**'\nmarkers = ['integration']\n",
        2,
        8,
        "invalid glob: unclosed alternate group; missing '}'",
    );
    assert_error(
        "[[paths]]\nglob = 'tests/[z-a]/**'\nmarkers = ['integration']\n",
        2,
        8,
        "invalid glob: invalid range; 'z' > 'a'",
    );
    assert_error(
        "[[paths]]\nglob = '/tests/**'\nmarkers = ['integration']\n",
        2,
        8,
        "drop the leading `/` or `./`",
    );
    assert_error(
        "[[paths]]\nglob = 'tests/**'\nmarkers = ['a']\n\n[[paths]]\nglob = 'tests/x/**'\nmarkers = []\n",
        7,
        11,
        "a path rule needs at least one marker",
    );
    assert_error(
        "paths = [\n  { glob = 'a/**', markers = ['llm'] },\n]\n[markers.llm]\nalias-of = 'e2e'\n",
        2,
        31,
        "aliases are replaced before path rules apply; write `e2e`",
    );
    let rule = |marker: &str| format!("[[paths]]\nglob = 'a'\nmarkers = ['x', {marker}]\n");
    assert_error(
        &rule("{ name = 'filterwarnings', arg = ['error'] }"),
        3,
        44,
        "unknown field `arg`, expected one of `name`, `args`, `kwargs`",
    );
    assert_error(&rule("{ args = [1] }"), 3, 17, "missing field `name`");
    assert_error(
        &rule("3"),
        3,
        17,
        "expected a marker name, or a table `{ name, args, kwargs }`",
    );
    assert_error(
        &rule("{ name = 'not a name' }"),
        3,
        26,
        "`not a name` is not a marker name",
    );
}

#[test]
fn path_rule_markers_with_arguments_read_as_written() {
    let tree = Tree::new();
    tree.file(
        "proctor.toml",
        "[[paths]]\nglob = 'tests/legacy'\nmarkers = ['legacy', { name = 'filterwarnings', args = ['error::UserWarning'] }, { name = 'timeout', kwargs = { seconds = 30 } }]\n",
    );
    let settings = tree.load("", &[]).unwrap_or_else(|err| panic!("{err}"));
    let markers = &settings.proctor.taxonomy.paths[0].markers;
    let read: Vec<_> = markers
        .iter()
        .map(|m| (m.name(), m.args().to_vec(), m.kwargs().cloned()))
        .collect();
    assert_eq!(
        read,
        vec![
            ("legacy", vec![], None),
            (
                "filterwarnings",
                vec![serde_json::json!("error::UserWarning")],
                Some(serde_json::Map::new())
            ),
            (
                "timeout",
                vec![],
                serde_json::json!({"seconds": 30}).as_object().cloned()
            ),
        ]
    );
}

#[test]
fn the_first_problem_in_the_file_is_reported() {
    // `markers` are checked after `axes`, but the marker problem comes first
    // in the file.
    assert_error(
        "[markers.a]\nalias-of = 'a'\n\n[axes.tier]\nmarkers = []\n",
        2,
        12,
        "cannot be an alias of itself",
    );
}

#[test]
fn problems_in_pyproject_point_into_pyproject() {
    let tree = Tree::new();
    tree.file(
        "pyproject.toml",
        "[project]\nname = 'x'\n\n[tool.proctor.axes.tier]\nmarkers = ['unit']\ndefault = 'e2e'\n",
    );
    let error = tree.load("", &[]).unwrap_err();
    assert_eq!(error.path, tree.path("pyproject.toml"));
    assert_eq!((error.line, error.column), (6, 11));
    assert_eq!(error.excerpt.as_deref(), Some("default = 'e2e'"));
    assert_eq!(
        error.to_string(),
        format!(
            "{}:6:11: the default `e2e` is not one of the axis's markers (`unit`)\n  |\n6 | default = 'e2e'\n  |           ^",
            tree.path("pyproject.toml").display()
        )
    );
}

#[test]
fn implication_cycles_are_allowed() {
    let tree = Tree::new();
    tree.file(
        "proctor.toml",
        "[markers.live]\nimplies = ['network']\n[markers.network]\nimplies = ['live']\n",
    );
    let taxonomy = tree.ok("", &[]).proctor.taxonomy;
    assert!(taxonomy.problems().is_empty());
}

#[test]
fn problems_name_their_key() {
    let options = TaxonomyOptions {
        axes: vec![(
            "tier".to_owned(),
            AxisOptions {
                markers: strings(&["unit"]),
                cardinality: Cardinality::ExactlyOne,
                default: Some("e2e".to_owned()),
                write_default: None,
            },
        )],
        ..TaxonomyOptions::default()
    };
    let problems = options.problems();
    assert_eq!(problems.len(), 1);
    assert_eq!(
        problems[0].to_string(),
        "`axes.tier.default`: the default `e2e` is not one of the axis's markers (`unit`)"
    );
}

#[test]
fn replaced_by_reads_and_is_checked() {
    let tree = Tree::new();
    tree.file(
        "proctor.toml",
        "[markers.requires_gpu]\nremoved = 'use `gpu`'\nreplaced-by = 'gpu'\n",
    );
    let settings = tree.ok("", &[]);
    let rule = settings
        .proctor
        .taxonomy
        .marker("requires_gpu")
        .expect("a rule");
    assert_eq!(rule.replaced_by.as_deref(), Some("gpu"));

    assert_error(
        "[markers.old]\nreplaced-by = 'gpu'\n",
        2,
        15,
        "`replaced-by` needs `removed`: only a removed marker is replaced; for a synonym, use `alias-of`",
    );
    assert_error(
        "[markers.old]\nremoved = 'gone'\nreplaced-by = 'old'\n",
        3,
        15,
        "`old` cannot be replaced by itself",
    );
    assert_error(
        "[markers.old]\nremoved = 'gone'\nreplaced-by = 'g p u'\n",
        3,
        15,
        "`g p u` is not a marker name",
    );
    assert_error(
        "[markers.old]\nremoved = 'gone'\nreplaced-by = 'llm'\n[markers.llm]\nalias-of = 'e2e'\n",
        3,
        15,
        "`llm` is an alias of `e2e`, and aliases are replaced before `replaced-by` is applied; write `e2e`",
    );
    assert_error(
        "[markers.old]\nremoved = 'gone'\nreplaced-by = 'older'\n[markers.older]\nremoved = 'also gone'\n",
        3,
        15,
        "`older` is a removed marker",
    );
}
