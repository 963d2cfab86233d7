//! Rootdir and config file discovery: every precedence rule of pytest 9.2's
//! `findpaths.py`, on temporary trees.

mod common;

use common::Tree;
use proctor_config::{load, IniKind};

/// (rootdir, inifile) relative to the tree root.
fn found(tree: &Tree, cwd: &str, args: &[&str]) -> (String, Option<String>) {
    let settings = tree.ok(cwd, args);
    (
        tree.rel(&settings.pytest.rootdir),
        settings.pytest.inifile.as_deref().map(|p| tree.rel(p)),
    )
}

fn pair(rootdir: &str, inifile: Option<&str>) -> (String, Option<String>) {
    (rootdir.to_owned(), inifile.map(str::to_owned))
}

#[test]
fn walks_up_from_the_working_directory_without_args() {
    let tree = Tree::new();
    tree.file("pytest.ini", "[pytest]\n").dir("a/b");
    assert_eq!(found(&tree, "a/b", &[]), pair("", Some("pytest.ini")));
    assert_eq!(
        tree.ok("a/b", &[]).pytest.ini_kind,
        Some(IniKind::PytestIni)
    );
}

#[test]
fn precedence_within_one_directory() {
    let tree = Tree::new();
    let files = [
        ("pytest.toml", "[pytest]\n", IniKind::PytestToml),
        (".pytest.toml", "[pytest]\n", IniKind::DotPytestToml),
        ("pytest.ini", "", IniKind::PytestIni),
        (".pytest.ini", "", IniKind::DotPytestIni),
        (
            "pyproject.toml",
            "[tool.pytest.ini_options]\n",
            IniKind::PyprojectIniOptions,
        ),
        ("tox.ini", "[pytest]\n", IniKind::ToxIni),
        ("setup.cfg", "[tool:pytest]\n", IniKind::SetupCfg),
    ];
    for (name, text, _) in &files {
        tree.file(name, text);
    }
    for (name, _, kind) in &files {
        let settings = tree.ok("", &[]);
        assert_eq!(settings.pytest.inifile, Some(tree.path(name)));
        assert_eq!(settings.pytest.ini_kind, Some(*kind));
        std::fs::remove_file(tree.path(name)).unwrap();
    }
    assert_eq!(tree.ok("", &[]).pytest.inifile, None);
}

#[test]
fn the_closest_directory_wins_over_a_better_file_name() {
    let tree = Tree::new();
    tree.file("pytest.ini", "[pytest]\n")
        .file("sub/setup.cfg", "[tool:pytest]\ntestpaths = t\n");
    assert_eq!(found(&tree, "sub", &[]), pair("sub", Some("sub/setup.cfg")));
}

#[test]
fn files_without_their_section_do_not_count() {
    let tree = Tree::new();
    tree.file("pytest.ini", "")
        .file("sub/tox.ini", "[tox]\nenvlist = py3\n")
        .file("sub/setup.cfg", "[metadata]\nname = x\n")
        .file("sub/pyproject.toml", "[tool.pytest]\n");
    // The empty `[tool.pytest]` makes sub/pyproject.toml only a fallback, and
    // the pytest.ini above is real configuration.
    assert_eq!(found(&tree, "sub", &[]), pair("", Some("pytest.ini")));
}

#[test]
fn pyproject_without_table_is_the_fallback_rootdir_and_config_file() {
    let tree = Tree::new();
    tree.file("setup.py", "")
        .file("pkg/pyproject.toml", "[project]\nname = 'x'\n")
        .dir("pkg/tests");
    let settings = tree.ok("pkg/tests", &[]);
    assert_eq!(tree.rel(&settings.pytest.rootdir), "pkg");
    assert_eq!(
        settings.pytest.inifile,
        Some(tree.path("pkg/pyproject.toml"))
    );
    assert_eq!(settings.pytest.ini_kind, Some(IniKind::PyprojectNoTable));
}

#[test]
fn the_first_pyproject_seen_is_the_fallback() {
    let tree = Tree::new();
    tree.file("pyproject.toml", "[project]\n")
        .file("a/pyproject.toml", "[project]\n")
        .dir("a/b");
    assert_eq!(
        found(&tree, "a/b", &[]),
        pair("a", Some("a/pyproject.toml"))
    );
}

#[test]
fn setup_py_fixes_the_rootdir_without_config() {
    let tree = Tree::new();
    tree.file("setup.py", "").dir("a/b");
    assert_eq!(found(&tree, "a/b", &[]), pair("", None));
}

#[test]
fn without_anything_the_rootdir_is_the_common_ancestor_of_cwd_and_args() {
    let tree = Tree::new();
    tree.dir("x/y").file("a/b/test_q.py", "");
    assert_eq!(found(&tree, "x", &["../a/b/test_q.py"]), pair("", None));
    assert_eq!(found(&tree, "a", &["b"]), pair("a", None));
    assert_eq!(found(&tree, "x/y", &[]), pair("x/y", None));
}

#[test]
fn args_decide_where_the_search_starts() {
    let tree = Tree::new();
    tree.file("pytest.ini", "")
        .file("p/tox.ini", "[pytest]\n")
        .file("p/tests/test_a.py", "")
        .dir("elsewhere");
    assert_eq!(
        found(&tree, "elsewhere", &["../p/tests/test_a.py::test_x[1]"]),
        pair("p", Some("p/tox.ini"))
    );
    // Missing paths and options are ignored.
    assert_eq!(
        found(&tree, "elsewhere", &["../p/tests/nope.py", "-x"]),
        pair("", Some("pytest.ini"))
    );
}

#[test]
fn sibling_args_search_their_ancestor_then_each_directory() {
    let tree = Tree::new();
    tree.file("a/pytest.ini", "")
        .file("b/pytest.ini", "")
        .dir("c");
    // Common ancestor (the root) has nothing and no setup.py: the args' own
    // directories are searched in order.
    assert_eq!(
        found(&tree, "c", &["../b", "../a"]),
        pair("b", Some("b/pytest.ini"))
    );
}

#[test]
fn setup_py_above_the_ancestor_beats_the_args_directories() {
    let tree = Tree::new();
    tree.file("setup.py", "")
        .file("a/pytest.ini", "")
        .file("b/pytest.ini", "");
    assert_eq!(found(&tree, "", &["a", "b"]), pair("", None));
}

#[test]
fn config_file_option() {
    let tree = Tree::new();
    tree.file("pytest.ini", "")
        .file("ci/custom.ini", "[pytest]\nmarkers = a\n")
        .file("ci/other.cfg", "[metadata]\n")
        .dir("sub");
    let mut opts = tree.opts("sub", &[]);
    opts.inifile = Some("../ci/custom.ini".into());
    let settings = load(&opts).unwrap();
    assert_eq!(tree.rel(&settings.pytest.rootdir), "ci");
    assert_eq!(settings.pytest.ini_kind, Some(IniKind::OtherIni));
    assert_eq!(settings.pytest.markers, ["a"]);

    // A file without pytest configuration is still the config file.
    opts.inifile = Some("../ci/other.cfg".into());
    let settings = load(&opts).unwrap();
    assert_eq!(settings.pytest.inifile, Some(tree.path("ci/other.cfg")));
    assert_eq!(settings.pytest.ini_kind, Some(IniKind::OtherCfg));
}

#[test]
fn config_file_that_is_not_a_regular_file_means_no_configuration() {
    let tree = Tree::new();
    tree.file("pytest.ini", "[pytest]\nmarkers = a\n")
        .dir("sub");
    let mut opts = tree.opts("sub", &[]);
    opts.inifile = Some("/dev/null".into());
    let settings = load(&opts).unwrap();
    assert_eq!(settings.pytest.rootdir, tree.path("sub"));
    assert_eq!(settings.pytest.ini_kind, Some(IniKind::NotAFile));
    assert!(settings.pytest.markers.is_empty());
}

#[test]
fn config_file_errors() {
    let tree = Tree::new();
    tree.file("conf.yaml", "").dir("d");
    let mut opts = tree.opts("", &[]);
    for (arg, needle) in [
        (
            "missing.ini",
            "not found. Check your '-c/--config-file' option.",
        ),
        ("d", "is a directory"),
        (
            "conf.yaml",
            "unsupported format. Supported extensions are: .cfg, .ini, .toml.",
        ),
    ] {
        opts.inifile = Some(arg.into());
        let error = load(&opts).unwrap_err();
        assert!(error.message.contains(needle), "{error}");
        assert_eq!((error.line, error.column), (1, 1));
        assert!(error.message.contains("no position"), "{error}");
    }
}

#[test]
fn rootdir_option_replaces_the_rootdir_but_not_the_config_file() {
    let tree = Tree::new();
    tree.file("pytest.ini", "").dir("other");
    let mut opts = tree.opts("", &[]);
    opts.rootdir = Some("other".into());
    let settings = load(&opts).unwrap();
    assert_eq!(settings.pytest.rootdir, tree.path("other"));
    assert_eq!(settings.pytest.inifile, Some(tree.path("pytest.ini")));

    opts.rootdir = Some("missing".into());
    let error = load(&opts).unwrap_err();
    assert!(
        error.message.contains("Check your '--rootdir' option"),
        "{error}"
    );
}

#[test]
fn rootdir_option_expands_environment_variables() {
    let tree = Tree::new();
    tree.dir("other");
    let mut opts = tree.opts("", &[]);
    // HOME is set in any test environment; the expansion must use it.
    let home = std::env::var_os("HOME").expect("HOME is set");
    opts.rootdir = Some("$HOME".into());
    let settings = load(&opts).unwrap();
    assert_eq!(settings.pytest.rootdir.as_os_str(), home.as_os_str());
}

#[test]
fn rootdir_variables_expand_from_the_given_environment() {
    let tree = Tree::new();
    tree.dir("other");
    let mut opts = tree.opts("", &[]);
    opts.rootdir = Some("${PROCTOR_TEST_ROOT}/other".into());
    opts.environ = Some(
        [("PROCTOR_TEST_ROOT".into(), tree.path("").into_os_string())]
            .into_iter()
            .collect(),
    );
    let settings = load(&opts).unwrap();
    assert_eq!(settings.pytest.rootdir, tree.path("other"));
    // A variable the environment lacks stays as written, as in
    // `os.path.expandvars`; the rootdir then does not exist.
    opts.environ = Some(std::collections::BTreeMap::new());
    assert!(load(&opts).is_err());
}

#[test]
fn rootdir_option_without_config_skips_the_fallbacks() {
    let tree = Tree::new();
    tree.file("setup.py", "").file("a/pytest.ini", "").dir("r");
    let mut opts = tree.opts("", &["a", "r"]);
    opts.rootdir = Some("r".into());
    let settings = load(&opts).unwrap();
    assert_eq!(settings.pytest.rootdir, tree.path("r"));
    assert_eq!(settings.pytest.inifile, None);
}

#[test]
fn pytest_addopts_takes_part_in_discovery() {
    let tree = Tree::new();
    tree.file("pytest.ini", "")
        .file("p/tox.ini", "[pytest]\n")
        .dir("r");
    let mut opts = tree.opts("", &[]);
    opts.env_addopts = Some("-v p".to_owned());
    let settings = load(&opts).unwrap();
    assert_eq!(settings.pytest.inifile, Some(tree.path("p/tox.ini")));

    opts.env_addopts = Some("--rootdir=r -c p/tox.ini".to_owned());
    let settings = load(&opts).unwrap();
    assert_eq!(settings.pytest.rootdir, tree.path("r"));
    assert_eq!(settings.pytest.inifile, Some(tree.path("p/tox.ini")));

    // The command line comes after PYTEST_ADDOPTS and wins.
    opts.inifile = Some("pytest.ini".into());
    assert_eq!(
        load(&opts).unwrap().pytest.inifile,
        Some(tree.path("pytest.ini"))
    );

    opts.env_addopts = Some("-m 'open".to_owned());
    let error = load(&opts).unwrap_err();
    assert_eq!(error.path.to_str(), Some("$PYTEST_ADDOPTS"));
    assert!(error.message.starts_with("No closing quotation"), "{error}");
}

#[test]
fn rootdir_in_ini_addopts_is_too_late_to_matter() {
    let tree = Tree::new();
    tree.file("pytest.ini", "[pytest]\naddopts = --rootdir=r -c x.ini\n")
        .dir("r");
    let settings = tree.ok("", &[]);
    assert_eq!(settings.pytest.rootdir, tree.root);
    assert_eq!(settings.pytest.addopts_parsed.rootdir.as_deref(), Some("r"));
    assert_eq!(
        settings.pytest.addopts_parsed.config_file.as_deref(),
        Some("x.ini")
    );
}

#[test]
fn relative_cwd_and_dot_dot_in_args_are_lexical() {
    let tree = Tree::new();
    tree.file("a/pytest.ini", "").dir("a/b").dir("c");
    assert_eq!(
        found(&tree, "c", &["../a/b/../b"]),
        pair("a", Some("a/pytest.ini"))
    );
}
