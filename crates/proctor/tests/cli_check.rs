//! CLI tests for `proctor check` and `proctor rule` over a temporary
//! Mellea-like project: exit codes, stdout and stderr in every format, with
//! the temporary directory filtered out.

mod common;

use common::{run, write};

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

    test/test_chat.py:17:1: PRC900 `test_dynamic` is dynamic: parametrize argvalues: `make` is not bound statically
       |
    16 |
    17 | @pytest.mark.parametrize("x", make())
       | ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ PRC900
    18 | def test_dynamic(x):
       |

    Found 5 findings (3 errors, 1 warning, 1 info).
    --- stderr
    "##);
}

#[test]
fn concise_format_with_select_and_ignore() {
    let dir = project();
    insta::assert_snapshot!(run(dir.path(), &["check", "--format", "concise", "--select", "PRC00", "--ignore", "PRC004,prc006"]), @r##"
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
    ::notice file=test/test_chat.py,line=17,col=1,endLine=17,endColumn=38,title=PRC900::`test_dynamic` is dynamic: parametrize argvalues: `make` is not bound statically
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
    --- stderr
    proctor: error: [ROOT]/proctor.toml:3:11: the default `none` is not one of the axis's markers (`unit`)
      |
    3 | default = "none"
      |           ^
    "##);
}

#[test]
fn a_file_that_does_not_parse_is_reported_and_the_rest_checked() {
    let dir = project();
    write(dir.path(), "test/test_broken.py", "def test_(:\n");
    insta::assert_snapshot!(run(dir.path(), &["check", "--format", "concise"]), @r##"
    exit: 2
    --- stdout
    test/test_chat.py:3:14: PRC006 `qualitative` requires `e2e` on the same test
    test/test_chat.py:3:14: PRC008 `qualitative` is written on the module (`pytestmark`), but its scope is `function`
    test/test_chat.py:6:2: PRC004 [*] `llm` is a deprecated alias of `e2e`
    test/test_chat.py:11:2: PRC003 [*] `unit` is the default of axis `tier` and is not written explicitly
    test/test_chat.py:17:1: PRC900 `test_dynamic` is dynamic: parametrize argvalues: `make` is not bound statically
    Found 5 findings (3 errors, 1 warning, 1 info).
    --- stderr
    error: test/test_broken.py:1:11: SyntaxError: Expected a parameter or the end of the parameter list
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
    test/test_chat.py:16:1: PRC900 `test_dynamic` is dynamic: parametrize argvalues: `make` is not bound statically
    Fixed 2 findings.
    Found 3 findings (2 errors, 1 info).
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
