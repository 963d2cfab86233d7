//! Values read from the config file: types, defaults, `addopts`, overrides,
//! warnings about shadowed files, errors with positions, proctor's options.

mod common;

use common::Tree;
use proctor_config::{load, ConfigLocation, IniKind, IniValue};

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

#[test]
fn defaults_without_configuration() {
    let tree = Tree::new();
    let pytest = tree.ok("", &[]).pytest;
    assert!(pytest.testpaths.is_empty());
    assert_eq!(pytest.python_files, ["test_*.py", "*_test.py"]);
    assert_eq!(pytest.python_classes, ["Test"]);
    assert_eq!(pytest.python_functions, ["test"]);
    assert_eq!(
        pytest.norecursedirs,
        [
            "*.egg",
            ".*",
            "_darcs",
            "build",
            "CVS",
            "dist",
            "node_modules",
            "venv",
            "{arch}"
        ]
    );
    assert!(pytest.markers.is_empty() && pytest.addopts.is_empty() && pytest.other.is_empty());
}

#[test]
fn ini_values_are_split_like_pytest() {
    let tree = Tree::new();
    tree.file(
        "pytest.ini",
        "[pytest]\n\
         testpaths = tests\n    'with space'\n\
         python_files = check_*.py\n\
         norecursedirs = .git build\n\
         markers =\n    slow: slow tests\n\n    e2e(backend): end to end\n\
         addopts = -ra -m \"not slow\" --strict-markers -p no:randomly\n\
         xfail_strict: true\n\
         minversion = 9.0\n",
    );
    let settings = tree.ok("", &[]);
    let pytest = &settings.pytest;
    assert_eq!(pytest.testpaths, ["tests", "with space"]);
    assert_eq!(pytest.python_files, ["check_*.py"]);
    assert_eq!(
        pytest.norecursedirs,
        [".git", "build"],
        "a configured value replaces the defaults"
    );
    assert_eq!(
        pytest.markers,
        ["slow: slow tests", "e2e(backend): end to end"]
    );
    assert_eq!(
        pytest.addopts,
        [
            "-ra",
            "-m",
            "not slow",
            "--strict-markers",
            "-p",
            "no:randomly"
        ]
    );
    assert_eq!(pytest.addopts_parsed.markexpr.as_deref(), Some("not slow"));
    assert!(pytest.addopts_parsed.strict_markers);
    assert_eq!(pytest.addopts_parsed.plugins, ["no:randomly"]);
    // `--strict-markers` is an override of `strict_markers`, as in pytest.
    assert_eq!(
        pytest.other.get("strict_markers"),
        Some(&IniValue::Text("true".into()))
    );
    assert_eq!(
        pytest.other.get("xfail_strict"),
        Some(&IniValue::Text("true".into()))
    );
    assert_eq!(
        pytest.other.get("minversion"),
        Some(&IniValue::Text("9.0".into()))
    );
    assert_eq!(
        pytest.key_locations.get("markers"),
        Some(&ConfigLocation { line: 6, column: 1 })
    );
    assert!(settings.warnings.is_empty());
}

#[test]
fn pyproject_ini_options_values() {
    let tree = Tree::new();
    tree.file(
        "pyproject.toml",
        "[tool.pytest.ini_options]\n\
         testpaths = ['tests', 'more tests']\n\
         addopts = '-q'\n\
         markers = ['slow: slow']\n\
         xfail_strict = true\n",
    );
    let pytest = tree.ok("", &[]).pytest;
    assert_eq!(pytest.ini_kind, Some(IniKind::PyprojectIniOptions));
    assert_eq!(pytest.testpaths, ["tests", "more tests"]);
    assert_eq!(pytest.addopts, ["-q"]);
    assert_eq!(pytest.markers, ["slow: slow"]);
    assert_eq!(
        pytest.other.get("xfail_strict"),
        Some(&IniValue::Text("True".into()))
    );
}

#[test]
fn pyproject_native_values_must_have_their_type() {
    let tree = Tree::new();
    tree.file(
        "pyproject.toml",
        "[project]\nname = 'x'\n\n[tool.pytest]\ntestpaths = ['t']\nstrict_xfail = true\n",
    );
    let pytest = tree.ok("", &[]).pytest;
    assert_eq!(pytest.ini_kind, Some(IniKind::PyprojectNative));
    assert_eq!(pytest.testpaths, ["t"]);
    assert_eq!(
        pytest.other.get("strict_xfail"),
        Some(&IniValue::Native(toml::Value::Boolean(true)))
    );

    tree.file(
        "pyproject.toml",
        "[tool.pytest]\nstrict = true\npython_files = 'check_*.py'\n",
    );
    let error = tree.load("", &[]).unwrap_err();
    assert_eq!(error.path, tree.path("pyproject.toml"));
    assert_eq!((error.line, error.column), (3, 1));
    assert_eq!(
        error.message,
        "config option 'python_files' expects a list for type 'args', got str: 'check_*.py'"
    );
    assert_eq!(
        error.excerpt.as_deref(),
        Some("python_files = 'check_*.py'")
    );
}

#[test]
fn pytest_addopts_are_appended_after_ini_addopts() {
    let tree = Tree::new();
    tree.file("pytest.ini", "[pytest]\naddopts = -m slow --ignore=a\n");
    let mut opts = tree.opts("", &[]);
    opts.env_addopts = Some("-m fast --ignore b -n auto".to_owned());
    let pytest = load(&opts).unwrap().pytest;
    assert_eq!(
        pytest.addopts,
        strings(&[
            "-m",
            "slow",
            "--ignore=a",
            "-m",
            "fast",
            "--ignore",
            "b",
            "-n",
            "auto"
        ])
    );
    assert_eq!(pytest.addopts_parsed.markexpr.as_deref(), Some("fast"));
    assert_eq!(pytest.addopts_parsed.ignore, ["a", "b"]);
    assert!(
        pytest.addopts_parsed.paths.is_empty(),
        "`auto` is xdist's value, not a path"
    );
}

#[test]
fn overrides_from_pytest_addopts_and_addopts() {
    let tree = Tree::new();
    tree.file(
        "pytest.ini",
        "[pytest]\ntestpaths = a\naddopts = -o python_classes=Check -o markers=ini\nmarkers = x\n",
    );
    let mut opts = tree.opts("", &[]);
    opts.env_addopts = Some("-o 'testpaths=b c' -o markers=env".to_owned());
    let pytest = load(&opts).unwrap().pytest;
    assert_eq!(pytest.testpaths, ["b", "c"]);
    assert_eq!(
        pytest.python_classes,
        ["Check"],
        "overrides inside addopts apply"
    );
    assert_eq!(
        pytest.markers,
        ["env"],
        "PYTEST_ADDOPTS comes after addopts"
    );
    assert_eq!(
        pytest.other.get("python_classes"),
        None,
        "typed keys are not in `other`"
    );

    // `-o addopts=…` replaces the ini addopts before they are read.
    opts.env_addopts = Some("-o addopts=-q".to_owned());
    let pytest = load(&opts).unwrap().pytest;
    assert_eq!(pytest.addopts, ["-q", "-o", "addopts=-q"]);
    assert_eq!(pytest.python_classes, ["Test"]);

    opts.env_addopts = Some("-o novalue".to_owned());
    let error = load(&opts).unwrap_err();
    assert!(error
        .message
        .starts_with("-o/--override-ini expects option=value style (got: 'novalue')."));
    assert_eq!(error.path.to_str(), Some("$PYTEST_ADDOPTS"));
}

#[test]
fn bad_addopts_are_errors_at_the_key() {
    let tree = Tree::new();
    tree.file(
        "tox.ini",
        "[pytest]\ntestpaths = t\naddopts = -k 'unclosed\n",
    );
    let error = tree.load("", &[]).unwrap_err();
    assert_eq!(error.path, tree.path("tox.ini"));
    assert_eq!((error.line, error.column), (3, 1));
    assert_eq!(error.message, "No closing quotation");

    tree.file("tox.ini", "[pytest]\naddopts = -v -m\n");
    let error = tree.load("", &[]).unwrap_err();
    assert_eq!(error.message, "argument -m: expected one argument");
    assert_eq!(error.line, 2);
}

#[test]
fn malformed_files_pytest_reads_are_errors_with_positions() {
    let tree = Tree::new();
    tree.file("pytest.ini", "[pytest]\naddopts = -v\nthis is not ini\n");
    let error = tree.load("", &[]).unwrap_err();
    assert_eq!(error.path, tree.path("pytest.ini"));
    assert_eq!((error.line, error.column), (3, 1));
    assert_eq!(error.message, "unexpected line: 'this is not ini'");
    assert_eq!(
        error.to_string(),
        format!(
            "{}:3:1: unexpected line: 'this is not ini'\n  |\n3 | this is not ini\n  | ^",
            tree.path("pytest.ini").display()
        )
    );

    let tree = Tree::new();
    tree.file(
        "pyproject.toml",
        "[tool.pytest.ini_options]\ntestpaths = [\n",
    );
    let error = tree.load("", &[]).unwrap_err();
    assert_eq!(error.path, tree.path("pyproject.toml"));
    assert!(error.message.starts_with("invalid TOML"), "{error}");
}

#[test]
fn a_malformed_file_next_to_the_config_file_is_still_read() {
    // pytest loads the lower-precedence files in the same directory to report
    // them as ignored, so a broken one fails the run.
    let tree = Tree::new();
    tree.file("pytest.ini", "[pytest]\n")
        .file("setup.cfg", "[tool:pytest]\n  stray\n");
    let error = tree.load("", &[]).unwrap_err();
    assert_eq!(error.path, tree.path("setup.cfg"));
    assert_eq!(error.message, "unexpected value continuation");
}

#[test]
fn a_malformed_file_below_the_config_file_is_read_on_the_way_up() {
    let tree = Tree::new();
    tree.file("pytest.ini", "[pytest]\n")
        .file("sub/tox.ini", "[tox\n");
    let error = tree.load("sub", &[]).unwrap_err();
    assert_eq!(error.path, tree.path("sub/tox.ini"));
    assert_eq!(error.message, "unexpected value continuation");
}

#[test]
fn a_malformed_file_above_the_config_file_is_never_read() {
    let tree = Tree::new();
    tree.file("tox.ini", "garbage\n")
        .file("sub/pytest.ini", "[pytest]\n");
    assert_eq!(
        tree.ok("sub", &[]).pytest.inifile,
        Some(tree.path("sub/pytest.ini"))
    );
}

#[test]
fn setup_cfg_with_a_pytest_section_is_an_error() {
    let tree = Tree::new();
    tree.file(
        "setup.cfg",
        "[metadata]\nname = x\n[pytest]\naddopts = -v\n",
    );
    let error = tree.load("", &[]).unwrap_err();
    assert_eq!((error.line, error.column), (3, 1));
    assert!(error
        .message
        .contains("no longer supported, change to [tool:pytest]"));
}

#[test]
fn both_pyproject_tables_are_an_error() {
    let tree = Tree::new();
    tree.file(
        "pyproject.toml",
        "[tool.pytest]\nminversion = '9'\n\n[tool.pytest.ini_options]\nminversion = '9'\n",
    );
    let error = tree.load("", &[]).unwrap_err();
    assert_eq!(error.line, 4);
    assert!(error.message.starts_with("Cannot use both [tool.pytest]"));
}

#[test]
fn pytest_toml_options_outside_the_table_are_an_error() {
    let tree = Tree::new();
    tree.file("pytest.toml", "\ntestpaths = ['t']\n[pytest]\n");
    // With a [pytest] table the stray key is just not pytest's.
    assert!(tree.load("", &[]).is_ok());
    tree.file("pytest.toml", "\ntestpaths = ['t']\n");
    let error = tree.load("", &[]).unwrap_err();
    assert_eq!((error.line, error.column), (2, 1));
    assert!(error.message.contains("found top-level options: testpaths"));
}

#[test]
fn shadowed_configuration_in_the_same_directory_is_a_warning() {
    let tree = Tree::new();
    tree.file("pytest.ini", "[pytest]\nmarkers = a\n")
        .file(
            "pyproject.toml",
            "[project]\nname = 'x'\n\n[tool.pytest.ini_options]\nmarkers = ['b']\n",
        )
        .file("tox.ini", "[tox]\n")
        .file("setup.cfg", "[tool:pytest]\n");
    let settings = tree.ok("", &[]);
    assert_eq!(
        settings.pytest.ignored_config_files,
        [tree.path("pyproject.toml"), tree.path("setup.cfg")]
    );
    let warnings: Vec<String> = settings
        .warnings
        .iter()
        .map(|w| {
            format!(
                "{}:{}:{}: {}",
                tree.rel(&w.path),
                w.line,
                w.column,
                w.message
            )
        })
        .collect();
    assert_eq!(
        warnings,
        [
            "pyproject.toml:4:1: [tool.pytest.ini_options] in pyproject.toml is ignored because pytest.ini is used",
            "setup.cfg:1:1: [tool:pytest] in setup.cfg is ignored because pytest.ini is used",
        ]
    );
}

#[test]
fn shadowed_configuration_in_parent_directories_is_a_warning() {
    let tree = Tree::new();
    tree.file("pyproject.toml", "[tool.pytest]\nmarkers = ['b']\n")
        .file("tox.ini", "[pytest]\n")
        .file("setup.cfg", "broken\n")
        .file("packages/api/pytest.ini", "[pytest]\n");
    let settings = tree.ok("packages/api", &[]);
    assert!(settings.pytest.ignored_config_files.is_empty());
    let shadowed: Vec<_> = settings
        .warnings
        .iter()
        .map(|w| (tree.rel(&w.path), w.line))
        .collect();
    assert_eq!(
        shadowed,
        [("pyproject.toml".to_owned(), 1), ("tox.ini".to_owned(), 1)]
    );
    assert!(settings.warnings[0]
        .message
        .starts_with("[tool.pytest] in pyproject.toml is ignored because "));
    assert!(settings.warnings[0]
        .message
        .contains("packages/api/pytest.ini is used"));
}

#[test]
fn no_warnings_for_an_explicit_config_file() {
    let tree = Tree::new();
    tree.file("pytest.ini", "").file("tox.ini", "[pytest]\n");
    let mut opts = tree.opts("", &[]);
    opts.inifile = Some("tox.ini".into());
    assert!(load(&opts).unwrap().warnings.is_empty());
}

#[test]
fn proctor_options_come_from_the_rootdir_or_its_parents() {
    let tree = Tree::new();
    tree.file("proctor.toml", "python = 'py3'\n[collect]\nthreads = 3\n")
        .file("pkg/pytest.ini", "");
    let settings = tree.ok("pkg", &[]);
    assert_eq!(settings.proctor_file, Some(tree.path("proctor.toml")));
    assert_eq!(settings.proctor.python.as_deref(), Some("py3"));
    assert_eq!(
        settings.proctor.collect.threads,
        std::num::NonZeroUsize::new(3)
    );

    tree.file(
        "pkg/pyproject.toml",
        "[tool.proctor.collect]\nmax-file-size = 1000\n",
    );
    let settings = tree.ok("pkg", &[]);
    assert_eq!(settings.proctor_file, Some(tree.path("pkg/pyproject.toml")));
    assert_eq!(
        settings.proctor.collect.max_file_size,
        std::num::NonZeroU64::new(1000)
    );
    assert_eq!(
        settings.proctor.collect.threads, None,
        "the first file found is the only one read"
    );

    tree.file("pkg/pyproject.toml", "[tool.proctor]\ncolect = {}\n");
    let error = tree.load("pkg", &[]).unwrap_err();
    assert_eq!(error.path, tree.path("pkg/pyproject.toml"));
    assert_eq!((error.line, error.column), (2, 1));
    assert!(error.message.contains("unknown field `colect`"), "{error}");
}

#[test]
fn without_proctor_options_the_defaults_apply() {
    let tree = Tree::new();
    tree.file("pyproject.toml", "[tool.pytest.ini_options]\n");
    let settings = tree.ok("", &[]);
    assert_eq!(settings.proctor_file, None);
    assert_eq!(settings.proctor, proctor_config::ProctorOptions::default());
}

#[test]
fn options_declared_by_conftests_and_installed_plugins_keep_their_values() {
    let tree = Tree::new();
    tree.file(
        "pytest.ini",
        "[pytest]\naddopts = --stages one two --fast --level 3 --plugin-cols min,mean --plugin-flag tests\n",
    )
    .file("proctor.toml", "python = \".venv/bin/python\"\n")
    .file(
        "conftest.py",
        "def pytest_addoption(parser):\n    parser.addoption('--stages', nargs='+')\n    parser.addoption('--fast', action='store_true')\n",
    )
    .file("tests/conftest.py", "def pytest_addoption(parser):\n    parser.getgroup('x').addoption('--level', type=int)\n")
    .file(".venv/bin/python", "")
    .file(".venv/pyvenv.cfg", "home = /nowhere\nversion = 3.11.7\n")
    .file(
        ".venv/lib/python3.11/site-packages/fake_plugin-1.0.dist-info/entry_points.txt",
        "[pytest11]\nfake = fake_plugin.plugin\n",
    )
    .file(
        ".venv/lib/python3.11/site-packages/fake_plugin/plugin.py",
        "def pytest_addoption(parser):\n    parser.addoption('--plugin-cols')\n    parser.addoption('--plugin-flag', action='store_true')\n",
    )
    .dir("tests");
    let settings = tree.ok("", &[]);
    assert_eq!(settings.pytest.addopts_parsed.paths, ["tests"]);
    assert!(settings.pytest.addopts_parsed.guessed.is_empty());
    assert!(settings.warnings.is_empty(), "{:?}", settings.warnings);
}

#[test]
fn an_option_nothing_declares_takes_a_value_that_is_not_a_path_with_a_warning() {
    let tree = Tree::new();
    tree.file(
        "pytest.ini",
        "[pytest]\naddopts = --unheard-of min,mean tests\n",
    )
    .dir("tests");
    let settings = tree.ok("", &[]);
    assert_eq!(settings.pytest.addopts_parsed.paths, ["tests"]);
    let messages: Vec<String> = settings.warnings.iter().map(ToString::to_string).collect();
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert!(
        messages[0].contains("pytest.ini:2:")
            && messages[0].contains("`--unheard-of`")
            && messages[0].contains("`min,mean`"),
        "{messages:?}"
    );
}
