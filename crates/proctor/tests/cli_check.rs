//! CLI tests for `proctor check` and `proctor rule` over a temporary
//! Mellea-like project: exit codes, stdout and stderr in every format, with
//! the temporary directory filtered out.

mod common;

use common::{run, run_env, write};

const TAXONOMY: &str = r#"
[axes.tier]
markers = ["unit", "integration", "e2e"]
cardinality = "exactly-one"
default = "unit"
write-default = false

[markers.llm]
alias-of = "e2e"
deprecated = true

[markers.qualitative]
requires-any = ["e2e"]
scope = ["function"]

[markers.requires_gpu]
removed = "use `require_gpu(min_vram_gb=N)` from test.predicates instead"
"#;

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "pytest.ini", "[pytest]\ntestpaths = test\n");
    write(root, "proctor.toml", TAXONOMY);
    write(
        root,
        "test/test_chat.py",
        r#"import pytest

pytestmark = pytest.mark.qualitative


@pytest.mark.llm
def test_answer():
    pass


@pytest.mark.unit
@pytest.mark.requires_gpu  # proctor: ignore[PRC005]
def test_parse():
    pass


@pytest.mark.parametrize("x", make())
def test_dynamic(x):
    pass
"#,
    );
    write(root, "test/test_clean.py", "def test_ok():\n    pass\n");
    dir
}

#[test]
fn full_format_with_frames_and_a_summary() {
    let dir = project();
    insta::assert_snapshot!(run(dir.path(), &["check"]), @r##"
    exit: 1
    --- stdout
    test/test_chat.py:3:14: PRC006 `qualitative` requires `e2e` on the same test
      |
    2 |
    3 | pytestmark = pytest.mark.qualitative
      |              ^^^^^^^^^^^^^^^^^^^^^^^ PRC006
    4 |
      |
      = help: add `e2e`

    test/test_chat.py:3:14: PRC008 `qualitative` is written on the module (`pytestmark`), but its scope is `function`
      |
    2 |
    3 | pytestmark = pytest.mark.qualitative
      |              ^^^^^^^^^^^^^^^^^^^^^^^ PRC008
    4 |
      |
      = help: write it on the test function instead

    test/test_chat.py:6:2: PRC004 [*] `llm` is a deprecated alias of `e2e`
      |
    5 |
    6 | @pytest.mark.llm
      |  ^^^^^^^^^^^^^^^ PRC004
    7 | def test_answer():
      |
      = help: write `e2e` instead

    test/test_chat.py:11:2: PRC003 [*] `unit` is the default of axis `tier` and is not written explicitly
       |
    10 |
    11 | @pytest.mark.unit
       |  ^^^^^^^^^^^^^^^^ PRC003
    12 | @pytest.mark.requires_gpu  # proctor: ignore[PRC005]
       |
       = help: remove it: `unit` is applied to every test without a marker of axis `tier`

    1 information finding not shown (PRC900); list it with `--extend-select PRC900`.
    Found 4 findings (3 errors, 1 warning).
    --- stderr
    "##);
}

#[test]
fn concise_format_with_select_and_ignore() {
    let dir = project();
    insta::assert_snapshot!(run(dir.path(), &["check", "--format", "concise", "--select", "PRC00", "--extend-ignore", "PRC004,prc006"]), @r##"
    exit: 1
    --- stdout
    test/test_chat.py:3:14: PRC008 `qualitative` is written on the module (`pytestmark`), but its scope is `function`
    test/test_chat.py:11:2: PRC003 [*] `unit` is the default of axis `tier` and is not written explicitly
    Found 2 findings (2 errors).
    --- stderr
    "##);
}

#[test]
fn json_format() {
    let dir = project();
    insta::assert_snapshot!(run(dir.path(), &["check", "--format", "json", "--select", "PRC004"]), @r##"
    exit: 1
    --- stdout
    [
      {
        "code": "PRC004",
        "severity": "warning",
        "message": "`llm` is a deprecated alias of `e2e`",
        "file": "test/test_chat.py",
        "start": {
          "line": 6,
          "column": 2
        },
        "end": {
          "line": 6,
          "column": 17
        },
        "range": {
          "start": 55,
          "end": 70
        },
        "help": "write `e2e` instead",
        "fix": {
          "description": "Replace `llm` with `e2e`",
          "edits": [
            {
              "file": "test/test_chat.py",
              "start": {
                "line": 6,
                "column": 14
              },
              "end": {
                "line": 6,
                "column": 17
              },
              "replacement": "e2e"
            }
          ]
        }
      }
    ]
    --- stderr
    "##);
}

#[test]
fn github_format() {
    let dir = project();
    insta::assert_snapshot!(run(dir.path(), &["check", "--format", "github"]), @r##"
    exit: 1
    --- stdout
    ::error file=test/test_chat.py,line=3,col=14,endLine=3,endColumn=37,title=PRC006::`qualitative` requires `e2e` on the same test (help: add `e2e`)
    ::error file=test/test_chat.py,line=3,col=14,endLine=3,endColumn=37,title=PRC008::`qualitative` is written on the module (`pytestmark`), but its scope is `function` (help: write it on the test function instead)
    ::warning file=test/test_chat.py,line=6,col=2,endLine=6,endColumn=17,title=PRC004::`llm` is a deprecated alias of `e2e` (help: write `e2e` instead)
    ::error file=test/test_chat.py,line=11,col=2,endLine=11,endColumn=18,title=PRC003::`unit` is the default of axis `tier` and is not written explicitly (help: remove it: `unit` is applied to every test without a marker of axis `tier`)
    --- stderr
    "##);
}

#[test]
fn a_clean_path_exits_zero_and_information_does_not_fail() {
    let dir = project();
    insta::assert_snapshot!(run(dir.path(), &["check", "test/test_clean.py"]), @r##"
    exit: 0
    --- stdout
    All checks passed.
    --- stderr
    "##);
    insta::assert_snapshot!(run(dir.path(), &["check", "--format", "concise", "--select", "PRC900"]), @r##"
    exit: 0
    --- stdout
    test/test_chat.py:17:1: PRC900 `test_dynamic` is dynamic: parametrize argvalues: `make` is not bound statically
    Found 1 finding (1 info).
    --- stderr
    "##);
}

#[test]
fn errors_exit_two() {
    let dir = project();
    insta::assert_snapshot!(run(dir.path(), &["check", "--select", "E501"]), @r##"
    exit: 2
    --- stdout
    --- stderr
    proctor: error: unknown rule selector `E501`: no rule code starts with it (see `proctor rule --all`)
    "##);
    write(
        dir.path(),
        "proctor.toml",
        "[axes.tier]\nmarkers = [\"unit\"]\ndefault = \"none\"\n",
    );
    insta::assert_snapshot!(run(dir.path(), &["check"]), @r##"
    exit: 2
    --- stdout
    proctor.toml:3:11: config-error the default `none` is not one of the axis's markers (`unit`)
      |
    2 | markers = ["unit"]
    3 | default = "none"
      |           ^ config-error
    4 |
      |

    --- stderr
    "##);
}

#[test]
fn a_file_that_does_not_parse_is_reported_and_the_rest_checked() {
    let dir = project();
    write(dir.path(), "test/test_broken.py", "def test_(:\n");
    insta::assert_snapshot!(run(dir.path(), &["check", "--format", "concise"]), @r##"
    exit: 2
    --- stdout
    test/test_broken.py:1:11: collect-error SyntaxError: Expected a parameter or the end of the parameter list
    test/test_chat.py:3:14: PRC006 `qualitative` requires `e2e` on the same test
    test/test_chat.py:3:14: PRC008 `qualitative` is written on the module (`pytestmark`), but its scope is `function`
    test/test_chat.py:6:2: PRC004 [*] `llm` is a deprecated alias of `e2e`
    test/test_chat.py:11:2: PRC003 [*] `unit` is the default of axis `tier` and is not written explicitly
    1 information finding not shown (PRC900); list it with `--extend-select PRC900`.
    Found 4 findings (3 errors, 1 warning).
    --- stderr
    "##);
}

#[test]
fn rule_prints_the_documentation_and_lists_the_rules() {
    let dir = project();
    insta::assert_snapshot!(run(dir.path(), &["rule", "prc004"]), @r##"
    exit: 0
    --- stdout
    # deprecated-marker (PRC004)

    ## What it does
    Checks for markers with `deprecated = true` where they are written. For an
    alias (`alias-of`), the help names the marker to write instead.

    ## Why is this bad?
    A deprecated marker still works, so new tests keep copying it from old ones
    and the migration never ends. An alias also hides the real marker from
    `-m`: `-m llm` selects nothing once `llm` is resolved to `e2e`.

    ## Example
    ```toml
    [markers.llm]
    alias-of = "e2e"
    deprecated = true
    ```

    ```python
    @pytest.mark.llm
    def test_chat():
        ...
    ```

    ## Use instead
    ```python
    @pytest.mark.e2e
    def test_chat():
        ...
    ```

    ## Fix safety
    For an alias, `--fix` replaces the name with the alias's target (safe: the
    effective markers do not change).
    --- stderr
    "##);
    insta::assert_snapshot!(run(dir.path(), &["rule", "--all"]), @r##"
    exit: 0
    --- stdout
    PRC001  missing-axis-marker                 a test has no marker of an exactly-one axis that has no default
    PRC002  too-many-axis-markers               a test has several markers of an exactly-one or at-most-one axis
    PRC003  default-marker-written              an axis default is written although `write-default = false`
    PRC004  deprecated-marker                   a deprecated marker or alias is written
    PRC005  removed-marker                      a removed marker is written
    PRC006  marker-without-required-companion   a marker lacks a companion its `requires-any` asks for
    PRC007  marker-outside-allowed-company      a marker is on a test without any marker its `only-with` allows
    PRC008  wrong-marker-scope                  a marker is written where its `scope` forbids
    PRC009  conflicting-markers                 a test has two markers that conflict
    PRC010  marker-without-comment              a `needs-comment` marker has no justifying comment
    PRC101  unregistered-marker                 a marker is used but not registered with pytest nor declared in the taxonomy
    PRC102  unused-registered-marker            a marker registered with pytest is used by no test
    PRC103  unknown-marker-in-expression        a `-m` expression in the configuration names a marker nobody has or registered
    PRC104  unused-helper                       a `[helpers]` or `[decorators]` entry is what no test's calls resolve to
    PRC201  ignored-config-table                a pytest configuration table is ignored because another file wins
    PRC202  addopts-markexpr                    `addopts` has `-m`, which an explicit `-m` replaces under bare pytest
    PRC301  unmirrored-test-file                a test file does not mirror an existing module (`[check] mirror`)
    PRC302  test-name-shape                     a test name does not have the shape of `[check] test-name`
    PRC303  multi-claim-test-name               a test name claims two things with `_and_` (`[check] one-claim`)
    PRC304  test-file-name                      a test file name does not match `[check] file-name`
    PRC401  opt-in-expression                   an example's opt-in comment holds an expression instead of comma-separated marker names
    PRC402  example-without-opt-in              a script in an `[examples]` folder has no opt-in comment, so it never runs
    PRC403  notebook-without-opt-in             a notebook has no usable opt-in metadata block, so it is always skipped
    PRC900  dynamic-item                        a test proctor cannot see statically
    --- stderr
    "##);
    insta::assert_snapshot!(run(dir.path(), &["rule", "PRC999"]), @r##"
    exit: 4
    --- stdout
    --- stderr
    proctor: error: unknown rule `PRC999`; `proctor rule --all` lists the rules
    "##);
}

#[test]
fn fix_applies_the_safe_fixes_and_reports_the_rest() {
    let dir = project();
    insta::assert_snapshot!(run(dir.path(), &["check", "--fix", "--format", "concise"]), @r##"
    exit: 1
    --- stdout
    test/test_chat.py:3:14: PRC006 `qualitative` requires `e2e` on the same test
    test/test_chat.py:3:14: PRC008 `qualitative` is written on the module (`pytestmark`), but its scope is `function`
    Fixed 2 findings.
    1 information finding not shown (PRC900); list it with `--extend-select PRC900`.
    Found 2 findings (2 errors).
    --- stderr
    "##);
    insta::assert_snapshot!(std::fs::read_to_string(dir.path().join("test/test_chat.py")).unwrap(), @r##"
    import pytest

    pytestmark = pytest.mark.qualitative


    @pytest.mark.e2e
    def test_answer():
        pass


    @pytest.mark.requires_gpu  # proctor: ignore[PRC005]
    def test_parse():
        pass


    @pytest.mark.parametrize("x", make())
    def test_dynamic(x):
        pass
    "##);
}

#[test]
fn diff_prints_what_fix_would_change_and_writes_nothing() {
    let dir = project();
    let before = std::fs::read_to_string(dir.path().join("test/test_chat.py")).unwrap();
    insta::assert_snapshot!(run(dir.path(), &["check", "--diff"]), @r##"
    exit: 1
    --- stdout
    --- a/test/test_chat.py
    +++ b/test/test_chat.py
    @@ -3,12 +3,11 @@
     pytestmark = pytest.mark.qualitative
     
     
    -@pytest.mark.llm
    +@pytest.mark.e2e
     def test_answer():
         pass
     
     
    -@pytest.mark.unit
     @pytest.mark.requires_gpu  # proctor: ignore[PRC005]
     def test_parse():
         pass
    --- stderr
    Would fix 2 findings.
    "##);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("test/test_chat.py")).unwrap(),
        before
    );
    insta::assert_snapshot!(run(dir.path(), &["check", "--diff", "test/test_clean.py"]), @r##"
    exit: 0
    --- stdout
    --- stderr
    No fixes available.
    "##);
}

#[test]
fn a_fix_that_would_break_the_syntax_is_refused() {
    let dir = project();
    // `pytest.mark.class` is a syntax error: renaming the alias would break
    // the file.
    write(
        dir.path(),
        "proctor.toml",
        "[markers.llm]\nalias-of = \"class\"\ndeprecated = true\n",
    );
    let before = std::fs::read_to_string(dir.path().join("test/test_chat.py")).unwrap();
    insta::assert_snapshot!(run(dir.path(), &["check", "--fix", "--format", "concise", "--select", "PRC004"]), @r##"
    exit: 1
    --- stdout
    test/test_chat.py:6:2: PRC004 [*] `llm` is a deprecated alias of `class`
    Fixed 0 findings.
    Found 1 finding (1 warning).
    --- stderr
    error: test/test_chat.py: 1 fix would break the file (6:14: SyntaxError: Expected an identifier, but found a keyword `class` that cannot be used here); it is left unchanged. Please report this as a proctor bug.
    "##);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("test/test_chat.py")).unwrap(),
        before
    );
    insta::assert_snapshot!(run(dir.path(), &["check", "--diff", "--select", "PRC004"]), @r##"
    exit: 1
    --- stdout
    --- stderr
    error: test/test_chat.py: 1 fix would break the file (6:14: SyntaxError: Expected an identifier, but found a keyword `class` that cannot be used here); it is left unchanged. Please report this as a proctor bug.
    "##);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("test/test_chat.py")).unwrap(),
        before
    );
}

#[test]
fn fix_replaces_a_removed_marker_that_has_a_replacement() {
    let dir = project();
    write(
        dir.path(),
        "proctor.toml",
        "[axes.hardware]\nmarkers = [\"gpu\"]\n\n[markers.requires_gpu]\nremoved = \"use `gpu` instead\"\nreplaced-by = \"gpu\"\n",
    );
    write(
        dir.path(),
        "test/test_gpu.py",
        "import pytest\n\n\n@pytest.mark.requires_gpu(min_vram_gb=8)\ndef test_big():\n    pass\n",
    );
    insta::assert_snapshot!(run(dir.path(), &["check", "--format", "concise", "test/test_gpu.py"]), @r##"
    exit: 1
    --- stdout
    test/test_gpu.py:4:2: PRC005 [*] `requires_gpu` was removed
    Found 1 finding (1 error).
    --- stderr
    "##);
    insta::assert_snapshot!(run(dir.path(), &["check", "--fix", "--format", "concise", "test/test_gpu.py"]), @r##"
    exit: 0
    --- stdout
    Fixed 1 finding.
    All checks passed.
    --- stderr
    "##);
    insta::assert_snapshot!(std::fs::read_to_string(dir.path().join("test/test_gpu.py")).unwrap(), @r##"
    import pytest


    @pytest.mark.gpu(min_vram_gb=8)
    def test_big():
        pass
    "##);
}

#[test]
fn format_is_an_alias_of_output_format() {
    let dir = project();
    assert_eq!(
        run(dir.path(), &["check", "--format", "concise"]),
        run(dir.path(), &["check", "--output-format", "concise"])
    );
    // `--json`, as for collect, select, plan, caps and coverage.
    let json = run(dir.path(), &["check", "--json"]);
    assert!(json.contains("\"code\": \"PRC900\""), "{json}");
    assert_eq!(json, run(dir.path(), &["check", "--output-format", "json"]));
    assert!(
        run(dir.path(), &["check", "--json", "--output-format", "sarif"]).starts_with("exit: 2\n")
    );
}

#[test]
fn sarif_output_has_the_required_fields() {
    let dir = project();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_proctor"))
        .args(["check", "--output-format", "sarif"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let log: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    // SARIF 2.1.0 §3.13: `version` and `runs` are required; §3.14: a run
    // has a `tool`; §3.19: the tool's `driver` has a `name`; §3.27: a
    // result has a `message` with `text`.
    assert_eq!(log["version"], "2.1.0");
    assert!(log["$schema"].as_str().unwrap().contains("sarif-2.1.0"));
    let runs = log["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 1);
    let driver = &runs[0]["tool"]["driver"];
    assert_eq!(driver["name"], "proctor");
    let rules = driver["rules"].as_array().unwrap();
    let results = runs[0]["results"].as_array().unwrap();
    // Machine formats list information too.
    let codes: Vec<&str> = results
        .iter()
        .map(|r| r["ruleId"].as_str().unwrap())
        .collect();
    assert_eq!(codes, ["PRC006", "PRC008", "PRC004", "PRC003", "PRC900"]);
    for result in results {
        assert!(!result["message"]["text"].as_str().unwrap().is_empty());
        assert!(["error", "warning", "note"].contains(&result["level"].as_str().unwrap()));
        let index = usize::try_from(result["ruleIndex"].as_u64().unwrap()).unwrap();
        assert_eq!(rules[index]["id"], result["ruleId"]);
        assert!(rules[index]["shortDescription"]["text"].is_string());
        let location = &result["locations"][0]["physicalLocation"];
        assert_eq!(location["artifactLocation"]["uri"], "test/test_chat.py");
        let region = &location["region"];
        assert!(region["startLine"].as_u64().unwrap() >= 1);
        assert!(region["startColumn"].as_u64().unwrap() >= 1);
        assert!(region["byteLength"].as_u64().unwrap() >= 1);
    }
    // The byte range points at the marker the frame underlines.
    let text = std::fs::read_to_string(dir.path().join("test/test_chat.py")).unwrap();
    let region = &results[2]["locations"][0]["physicalLocation"]["region"];
    let start = usize::try_from(region["byteOffset"].as_u64().unwrap()).unwrap();
    let length = usize::try_from(region["byteLength"].as_u64().unwrap()).unwrap();
    assert_eq!(&text[start..start + length], "pytest.mark.llm");
    assert!(results[2]["fixes"][0]["artifactChanges"].is_array());
}

#[test]
fn statistics_count_findings_per_rule() {
    let dir = project();
    insta::assert_snapshot!(run(dir.path(), &["check", "--statistics"]), @r##"
    exit: 1
    --- stdout
    1	PRC003	[*]	default-marker-written
    1	PRC004	[*]	deprecated-marker
    1	PRC006	   	marker-without-required-companion
    1	PRC008	   	wrong-marker-scope
    1 information finding not shown (PRC900); list it with `--extend-select PRC900`.
    Found 4 findings (3 errors, 1 warning).
    --- stderr
    "##);
    insta::assert_snapshot!(run(dir.path(), &["check", "--statistics", "--output-format", "json", "--select", "PRC00"]), @r##"
    exit: 1
    --- stdout
    [
      {
        "code": "PRC003",
        "name": "default-marker-written",
        "count": 1,
        "fixable": true
      },
      {
        "code": "PRC004",
        "name": "deprecated-marker",
        "count": 1,
        "fixable": true
      },
      {
        "code": "PRC006",
        "name": "marker-without-required-companion",
        "count": 1,
        "fixable": false
      },
      {
        "code": "PRC008",
        "name": "wrong-marker-scope",
        "count": 1,
        "fixable": false
      }
    ]
    --- stderr
    "##);
}

#[test]
fn exit_zero_and_quiet() {
    let dir = project();
    insta::assert_snapshot!(run(dir.path(), &["check", "--exit-zero", "--quiet", "--output-format", "concise"]), @r##"
    exit: 0
    --- stdout
    test/test_chat.py:3:14: PRC006 `qualitative` requires `e2e` on the same test
    test/test_chat.py:3:14: PRC008 `qualitative` is written on the module (`pytestmark`), but its scope is `function`
    test/test_chat.py:6:2: PRC004 [*] `llm` is a deprecated alias of `e2e`
    test/test_chat.py:11:2: PRC003 [*] `unit` is the default of axis `tier` and is not written explicitly
    --- stderr
    "##);
    // An incomplete check still says so.
    write(dir.path(), "test/test_broken.py", "def test_(:\n");
    insta::assert_snapshot!(run(dir.path(), &["check", "--exit-zero", "-q", "--output-format", "concise", "--select", "PRC004"]), @r##"
    exit: 2
    --- stdout
    test/test_broken.py:1:11: collect-error SyntaxError: Expected a parameter or the end of the parameter list
    test/test_chat.py:6:2: PRC004 [*] `llm` is a deprecated alias of `e2e`
    --- stderr
    "##);
}

#[test]
fn information_is_counted_unless_a_selector_names_it() {
    let dir = project();
    insta::assert_snapshot!(run(dir.path(), &["check", "--output-format", "concise", "--select", "PRC004,PRC9"]), @r##"
    exit: 1
    --- stdout
    test/test_chat.py:6:2: PRC004 [*] `llm` is a deprecated alias of `e2e`
    test/test_chat.py:17:1: PRC900 `test_dynamic` is dynamic: parametrize argvalues: `make` is not bound statically
    Found 2 findings (1 warning, 1 info).
    --- stderr
    "##);
    insta::assert_snapshot!(run(dir.path(), &["check", "--output-format", "concise", "--select", "PRC004", "--extend-select", "PRC900"]), @r##"
    exit: 1
    --- stdout
    test/test_chat.py:6:2: PRC004 [*] `llm` is a deprecated alias of `e2e`
    test/test_chat.py:17:1: PRC900 `test_dynamic` is dynamic: parametrize argvalues: `make` is not bound statically
    Found 2 findings (1 warning, 1 info).
    --- stderr
    "##);
}

#[test]
fn config_selects_and_ignores_rules_per_file() {
    let dir = project();
    write(
        dir.path(),
        "proctor.toml",
        &format!(
            "{TAXONOMY}\n[check]\nselect = [\"PRC00\"]\nextend-select = [\"PRC101\"]\nignore = [\"PRC003\"]\nper-file-ignores = {{ \"test_chat.py\" = [\"PRC006\"], \"test/legacy/**\" = [\"PRC0\"] }}\n"
        ),
    );
    write(
        dir.path(),
        "test/legacy/test_old.py",
        "import pytest\n\n\n@pytest.mark.llm\n@pytest.mark.flaky\ndef test_old():\n    pass\n",
    );
    insta::assert_snapshot!(run(dir.path(), &["check", "--output-format", "concise"]), @r##"
    exit: 1
    --- stdout
    test/legacy/test_old.py:5:2: PRC101 `flaky` is not registered with pytest
    test/test_chat.py:3:14: PRC008 `qualitative` is written on the module (`pytestmark`), but its scope is `function`
    test/test_chat.py:6:2: PRC004 [*] `llm` is a deprecated alias of `e2e`
    Found 3 findings (1 error, 2 warnings).
    --- stderr
    "##);
    // The command line's `--select` replaces `[check] select`; `--extend-ignore` adds to `ignore`.
    insta::assert_snapshot!(run(dir.path(), &["check", "--output-format", "concise", "--select", "PRC1,PRC003", "--extend-ignore", "PRC101"]), @r##"
    exit: 0
    --- stdout
    All checks passed.
    --- stderr
    "##);
    write(
        dir.path(),
        "proctor.toml",
        &format!("{TAXONOMY}\n[check]\nselect = [\"E501\"]\n"),
    );
    // An unknown selector of `[check]` is a configuration error at its
    // value, in the chosen format like every other.
    insta::assert_snapshot!(run(dir.path(), &["check"]), @r##"
    exit: 2
    --- stdout
    proctor.toml:20:11: config-error unknown rule selector `E501`: no rule code starts with it (see `proctor rule --all`)
       |
    19 | [check]
    20 | select = ["E501"]
       |           ^ config-error
    21 |
       |

    --- stderr
    "##);
    write(
        dir.path(),
        "proctor.toml",
        &format!("{TAXONOMY}\n[check]\nselect = [\"PRC0\", \"E501\"]\nignore = [\"W2\"]\n"),
    );
    let github = run(dir.path(), &["check", "--output-format", "github"]);
    assert!(github.starts_with("exit: 2\n"), "{github}");
    for at in ["line=20,col=19,", "line=21,col=11,"] {
        assert!(
            github.contains(&format!("::error file=proctor.toml,{at}")),
            "{at}: {github}"
        );
    }
}

#[test]
fn ignore_takes_paths_and_a_rule_code_there_is_an_error_that_names_extend_ignore() {
    let dir = project();
    insta::assert_snapshot!(run(dir.path(), &["check", "--output-format", "concise", "--ignore", "test/test_chat.py"]), @r##"
    exit: 0
    --- stdout
    All checks passed.
    --- stderr
    "##);
    insta::assert_snapshot!(run(dir.path(), &["check", "--output-format", "concise", "--select", "PRC00", "--ignore", "PRC004,prc006"]), @r##"
    exit: 2
    --- stdout
    --- stderr
    proctor: error: `--ignore PRC004,prc006` names rule codes, and `--ignore` takes paths (as pytest's)
      hint: use `--extend-ignore PRC004,prc006`
    "##);
}

#[test]
fn a_baseline_hides_known_findings_and_reports_new_ones() {
    let dir = project();
    insta::assert_snapshot!(run(dir.path(), &["check", "--write-baseline", "baseline.json"]), @r##"
    exit: 0
    --- stdout
    --- stderr
    Wrote 4 findings to the baseline baseline.json.
    "##);
    insta::assert_snapshot!(std::fs::read_to_string(dir.path().join("baseline.json")).unwrap(), @r##"
    {
      "version": 1,
      "findings": [
        {
          "code": "PRC003",
          "file": "test/test_chat.py",
          "message": "`unit` is the default of axis `tier` and is not written explicitly"
        },
        {
          "code": "PRC004",
          "file": "test/test_chat.py",
          "message": "`llm` is a deprecated alias of `e2e`"
        },
        {
          "code": "PRC006",
          "file": "test/test_chat.py",
          "message": "`qualitative` requires `e2e` on the same test"
        },
        {
          "code": "PRC008",
          "file": "test/test_chat.py",
          "message": "`qualitative` is written on the module (`pytestmark`), but its scope is `function`"
        }
      ]
    }
    "##);
    insta::assert_snapshot!(run(dir.path(), &["check", "--baseline", "baseline.json"]), @r##"
    exit: 0
    --- stdout
    4 findings in the baseline not shown.
    1 information finding not shown (PRC900); list it with `--extend-select PRC900`.
    All checks passed.
    --- stderr
    "##);
    // Known findings that moved stay known; a new one is reported.
    let chat = std::fs::read_to_string(dir.path().join("test/test_chat.py")).unwrap();
    write(
        dir.path(),
        "test/test_chat.py",
        &format!("\n\n{chat}\n\n@pytest.mark.llm\ndef test_new():\n    pass\n"),
    );
    insta::assert_snapshot!(run(dir.path(), &["check", "--baseline", "baseline.json", "--output-format", "concise"]), @r##"
    exit: 1
    --- stdout
    test/test_chat.py:24:2: PRC004 [*] `llm` is a deprecated alias of `e2e`
    4 findings in the baseline not shown.
    1 information finding not shown (PRC900); list it with `--extend-select PRC900`.
    Found 1 finding (1 warning).
    --- stderr
    "##);
    write(dir.path(), "bad.json", "{\"version\": 7}");
    insta::assert_snapshot!(run(dir.path(), &["check", "--baseline", "bad.json"]), @r##"
    exit: 2
    --- stdout
    --- stderr
    proctor: error: cannot use the baseline bad.json
      caused by: invalid baseline: not a version 1 baseline (`version` must be 1)
    "##);
}

#[test]
fn config_errors_render_in_every_format() {
    let dir = project();
    // Three mistakes: a bad value, an unknown key, a bad type.
    write(
        dir.path(),
        "proctor.toml",
        "[axes.tier]\nmarkers = [\"unit\"]\n\n[check]\nselect = \"PRC004\"\ncolour = \"red\"\n\n[collect]\nthreads = 0\n",
    );
    for format in ["full", "concise", "json", "github", "sarif"] {
        let out = run(dir.path(), &["check", "--output-format", format]);
        assert!(out.starts_with("exit: 2\n"), "{format}: {out}");
        for (line, column) in [(5, 10), (6, 1), (9, 11)] {
            let at = match format {
                "full" | "concise" => format!("proctor.toml:{line}:{column}: config-error "),
                "json" => format!("\"line\": {line},\n      \"column\": {column}\n"),
                "github" => format!("::error file=proctor.toml,line={line},col={column},"),
                _ => {
                    format!("\"startLine\": {line},\n                  \"startColumn\": {column},")
                }
            };
            assert!(out.contains(&at), "{format} lacks {at}: {out}");
        }
    }
    insta::assert_snapshot!(run(dir.path(), &["check", "--output-format", "concise"]), @r##"
    exit: 2
    --- stdout
    proctor.toml:5:10: config-error invalid type: string "PRC004", expected a sequence
    proctor.toml:6:1: config-error unknown field `colour`, expected one of `select`, `extend-select`, `ignore`, `per-file-ignores`, `mirror`, `test-name`, `one-claim`, `file-name`
    proctor.toml:9:11: config-error invalid value: integer `0`, expected an integer of at least 1
    --- stderr
    "##);
    // A problem serde cannot see, in the same shape.
    write(
        dir.path(),
        "proctor.toml",
        "[axes.tier]\nmarkers = [\"unit\"]\ndefault = \"none\"\n",
    );
    insta::assert_snapshot!(run(dir.path(), &["check", "--output-format", "json"]), @r##"
    exit: 2
    --- stdout
    [
      {
        "code": "config-error",
        "severity": "error",
        "message": "the default `none` is not one of the axis's markers (`unit`)",
        "file": "proctor.toml",
        "start": {
          "line": 3,
          "column": 11
        },
        "end": {
          "line": 3,
          "column": 12
        },
        "range": {
          "start": 41,
          "end": 42
        },
        "help": null,
        "fix": null
      }
    ]
    --- stderr
    "##);
}

#[test]
fn no_config_is_said_once_with_the_init_hint() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "pytest.ini",
        "[pytest]\nmarkers =\n    slow: slow tests\n",
    );
    write(
        dir.path(),
        "test_a.py",
        "import pytest\n\n\n@pytest.mark.slwo\ndef test_a():\n    pass\n",
    );
    let out = run(dir.path(), &["check"]);
    assert_eq!(out.matches("no proctor config found").count(), 1, "{out}");
    insta::assert_snapshot!(out, @r##"
    exit: 1
    --- stdout
    pytest.ini:3:5: PRC102 `slow` is registered but no test uses it
      |
    2 | markers =
    3 |     slow: slow tests
      |     ^^^^ PRC102
    4 |
      |
      = help: remove it from `markers`, or fix its spelling

    test_a.py:4:2: PRC101 `slwo` is not registered with pytest
      |
    3 |
    4 | @pytest.mark.slwo
      |  ^^^^^^^^^^^^^^^^ PRC101
    5 | def test_a():
      |
      = help: did you mean `slow`? Otherwise add `slwo` to `markers` in pytest's configuration, or declare it in the taxonomy

    Found 2 findings (2 warnings).
    --- stderr
    warning: no proctor config found (`proctor.toml`, or `[tool.proctor]` in `pyproject.toml`): checking against pytest's markers only
      hint: `proctor init` writes a first config from the suite
    "##);
    // `--quiet` leaves it out.
    assert!(!run(dir.path(), &["check", "-q"]).contains("no proctor config"));
}

#[test]
fn colour_follows_color_no_color_and_force_color() {
    let dir = project();
    let escape = "\u{1b}[";
    let check = |args: &[&str], env: &[(&str, Option<&str>)]| {
        let mut all = vec!["check"];
        all.extend_from_slice(args);
        let mut env = env.to_vec();
        for name in ["NO_COLOR", "FORCE_COLOR", "CLICOLOR_FORCE", "CLICOLOR"] {
            if !env.iter().any(|(n, _)| *n == name) {
                env.push((name, None));
            }
        }
        run_env(dir.path(), &all, &env)
    };
    // Into a pipe: no colour, unless forced.
    assert!(!check(&[], &[]).contains(escape));
    let forced = check(&[], &[("FORCE_COLOR", Some("1"))]);
    assert!(forced.contains(&format!("{escape}1m")), "{forced}");
    assert!(forced.contains("PRC004"), "{forced}");
    // NO_COLOR wins over FORCE_COLOR, as in pytest.
    assert!(!check(&[], &[("NO_COLOR", Some("1")), ("FORCE_COLOR", Some("1"))]).contains(escape));
    // `--color` wins over both.
    assert!(check(&["--color", "always"], &[("NO_COLOR", Some("1"))]).contains(escape));
    assert!(!check(&["--color=never"], &[("FORCE_COLOR", Some("1"))]).contains(escape));
    // Machine formats are never coloured; errors on stderr are.
    assert!(!check(&["--color", "always", "--output-format", "json"], &[]).contains(escape));
    let failed = check(&["--color", "always", "--ignore", "PRC004"], &[]);
    assert!(
        failed.contains(&format!("{escape}1m{escape}31merror")),
        "{failed}"
    );
    // A usage error after the global flag still exits 2, as check does.
    assert!(check(&["--bogus"], &[]).starts_with("exit: 2\n"));
    let before = run(dir.path(), &["--color", "never", "check", "--bogus"]);
    assert!(before.starts_with("exit: 2\n"), "{before}");
    assert!(run(dir.path(), &["--color=always", "check", "--bogus"]).starts_with("exit: 2\n"));
    // The stripped text is the plain text.
    let plain = check(&["--color", "never"], &[]);
    assert_eq!(strip_ansi(&check(&["--color", "always"], &[])), plain);
}

/// `text` without ANSI escape sequences (`ESC [ ... letter`).
fn strip_ansi(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[test]
fn completions_and_the_man_page() {
    let dir = tempfile::tempdir().unwrap();
    for (shell, needle) in [
        ("bash", "_proctor()"),
        ("zsh", "#compdef proctor"),
        ("fish", "complete -c proctor"),
        ("elvish", "edit:completion:arg-completer[proctor]"),
        ("powershell", "Register-ArgumentCompleter"),
        ("man", ".TH proctor"),
    ] {
        let out = run(dir.path(), &["completions", shell]);
        assert!(out.starts_with("exit: 0\n"), "{shell}: {out}");
        assert!(out.contains(needle), "{shell} lacks {needle}");
        if shell != "man" {
            assert!(
                out.contains("output-format"),
                "{shell} completes check's flags"
            );
        }
    }
    assert!(run(dir.path(), &["completions", "tcsh"]).starts_with("exit: 4\n"));
}
