//! A property test of the collection cache: it never lies. A generated
//! suite (test modules with plain, parametrized, fixture-parametrized and
//! inherited tests; a conftest; a helper module in the suite and a
//! src-layout package whose lists parametrize tests; a module-level
//! `importorskip` of an optional module; pytest and proctor config) is
//! edited at random, one edit at a time — tests added, removed, renamed,
//! parametrize lists changed, helpers, conftest and config edited, files
//! deleted, renamed, broken, created, rewritten unchanged — and after each
//! edit `proctor collect --json` with the cache must print byte for byte
//! what `--no-cache` prints. Every few edits `proctor check --format json`
//! is compared the same way, and each cached command runs twice (the
//! second `collect --json` writes the memo of the first). Some edits set the edited file's modification
//! time to a distinct past time, so that the `stat` fast path (which does
//! not trust files changed in the last seconds) is taken as well.
//!
//! `PROCTOR_CACHE_CASES=N` (default 100) sets the number of edits and
//! `PROCTOR_CACHE_SEED=S` the seed; a failure names both.
//! With `PROCTOR_TEST_PYTHON` set, the suite's interpreter is that one
//! (so that the `importorskip` is decided from its import path).

mod common;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, SystemTime};

use common::{env_number, text, write, Rng};

/// What a generated test is.
#[derive(Clone, Debug)]
enum Kind {
    Plain,
    /// `@pytest.mark.parametrize("x", [..])` with a literal list.
    Local(Vec<i64>),
    /// Parametrized by `helperpkg.data.CASES` (the src-layout package).
    Package,
    /// Parametrized by `helpers.IDS` (a helper module of the suite).
    Suite,
    /// Uses the conftest's parametrized fixture `num`.
    Fixture,
    /// A class inheriting `helpers.Mixin`'s tests.
    Mixin,
    /// Marked `slow`.
    Slow,
}

#[derive(Clone, Debug)]
struct Test {
    name: String,
    kind: Kind,
}

#[derive(Clone, Debug)]
struct Module {
    name: String,
    tests: Vec<Test>,
    /// `pytest.importorskip("optional_dep")` at the top.
    optional: bool,
    /// A syntax error at the end.
    broken: bool,
}

struct Suite {
    root: PathBuf,
    modules: Vec<Module>,
    cases: Vec<i64>,
    ids: Vec<String>,
    mixin: Vec<String>,
    fixture_params: Vec<i64>,
    check_prefix: bool,
    small_files: bool,
    optional_present: bool,
    counter: usize,
    python: Option<String>,
}

impl Module {
    fn render(&self) -> String {
        let mut out = String::from(
            "import pytest\nfrom helperpkg.data import CASES\nfrom helpers import IDS, Mixin\n",
        );
        if self.optional {
            out.push_str("pytest.importorskip(\"optional_dep\")\n");
        }
        for test in &self.tests {
            out.push('\n');
            let name = &test.name;
            match &test.kind {
                Kind::Plain => {
                    let _ = write!(out, "def {name}():\n    pass\n");
                }
                Kind::Local(values) => {
                    let _ =
                        write!(out,
                    "@pytest.mark.parametrize(\"x\", {values:?})\ndef {name}(x):\n    pass\n"
                );
                }
                Kind::Package => {
                    let _ = write!(
                        out,
                        "@pytest.mark.parametrize(\"x\", CASES)\ndef {name}(x):\n    pass\n"
                    );
                }
                Kind::Suite => {
                    let _ = write!(
                        out,
                        "@pytest.mark.parametrize(\"s\", IDS)\ndef {name}(s):\n    pass\n"
                    );
                }
                Kind::Fixture => {
                    let _ = write!(out, "def {name}(num):\n    pass\n");
                }
                Kind::Mixin => {
                    let _ = write!(
                        out,
                        "class Test{}(Mixin):\n    def test_own(self):\n        pass\n",
                        name.trim_start_matches("test_")
                            .trim_start_matches("check_")
                    );
                }
                Kind::Slow => {
                    let _ = write!(out, "@pytest.mark.slow\ndef {name}():\n    pass\n");
                }
            }
        }
        if self.broken {
            out.push_str("\ndef oops(:\n");
        }
        out
    }
}

impl Suite {
    fn new(root: &Path, rng: &mut Rng) -> Suite {
        let mut suite = Suite {
            root: root.to_path_buf(),
            modules: Vec::new(),
            cases: vec![1, 2, 3],
            ids: vec!["a".into(), "b".into()],
            mixin: vec!["test_inherited".into()],
            fixture_params: vec![10, 20],
            check_prefix: false,
            small_files: false,
            optional_present: false,
            counter: 0,
            python: std::env::var("PROCTOR_TEST_PYTHON").ok(),
        };
        for _ in 0..4 {
            let module = suite.new_module(rng);
            suite.modules.push(module);
        }
        write(root, "src/helperpkg/__init__.py", "");
        write(root, "tests/__init__.py", "");
        suite.write_all();
        suite
    }

    fn fresh_name(&mut self, prefix: &str) -> String {
        self.counter += 1;
        format!("{prefix}{}", self.counter)
    }

    fn new_test(&mut self, rng: &mut Rng) -> Test {
        let kind = match rng.below(7) {
            0 => Kind::Plain,
            1 => Kind::Local(
                (0..rng.below(4))
                    .map(|i| i64::try_from(i * 3).unwrap())
                    .collect(),
            ),
            2 => Kind::Package,
            3 => Kind::Suite,
            4 => Kind::Fixture,
            5 => Kind::Mixin,
            _ => Kind::Slow,
        };
        let prefix = if self.check_prefix && rng.below(3) == 0 {
            "check_"
        } else {
            "test_"
        };
        Test {
            name: self.fresh_name(prefix),
            kind,
        }
    }

    fn new_module(&mut self, rng: &mut Rng) -> Module {
        let name = self.fresh_name("test_mod_");
        let tests = (0..=rng.below(4)).map(|_| self.new_test(rng)).collect();
        Module {
            name,
            tests,
            optional: rng.below(4) == 0,
            broken: false,
        }
    }

    fn module_path(module: &Module) -> String {
        format!("tests/{}.py", module.name)
    }

    fn write_module(&self, index: usize) -> String {
        let module = &self.modules[index];
        let path = Suite::module_path(module);
        write(&self.root, &path, &module.render());
        path
    }

    fn write_pyproject(&self) -> String {
        let functions = if self.check_prefix {
            "[\"test\", \"check\"]"
        } else {
            "[\"test\"]"
        };
        write(
            &self.root,
            "pyproject.toml",
            &format!(
                "[tool.pytest.ini_options]\ntestpaths = [\"tests\"]\npythonpath = [\"src\", \"tests\"]\npython_functions = {functions}\nmarkers = [\"slow: slow tests\"]\n"
            ),
        );
        "pyproject.toml".into()
    }

    fn write_proctor(&self) -> String {
        let mut text = String::new();
        if let Some(python) = &self.python {
            {
                let _ = writeln!(text, "python = {python:?}");
            };
        }
        if self.small_files {
            text.push_str("[collect]\nmax-file-size = 300\n");
        }
        write(&self.root, "proctor.toml", &text);
        "proctor.toml".into()
    }

    fn write_data(&self) -> String {
        write(
            &self.root,
            "src/helperpkg/data.py",
            &format!("CASES = {:?}\n", self.cases),
        );
        "src/helperpkg/data.py".into()
    }

    fn write_helpers(&self) -> String {
        let mut text = format!("IDS = {:?}\n\n\nclass Mixin:\n", self.ids);
        for name in &self.mixin {
            {
                let _ = write!(text, "    def {name}(self):\n        pass\n\n");
            };
        }
        if self.mixin.is_empty() {
            text.push_str("    pass\n");
        }
        write(&self.root, "tests/helpers.py", &text);
        "tests/helpers.py".into()
    }

    fn write_conftest(&self) -> String {
        write(
            &self.root,
            "tests/conftest.py",
            &format!(
                "import pytest\n\n\n@pytest.fixture(params={:?})\ndef num(request):\n    return request.param\n",
                self.fixture_params
            ),
        );
        "tests/conftest.py".into()
    }

    fn write_optional(&self) -> Option<String> {
        let path = self.root.join("src/optional_dep.py");
        if self.optional_present {
            write(&self.root, "src/optional_dep.py", "VALUE = 1\n");
            Some("src/optional_dep.py".into())
        } else {
            let _ = std::fs::remove_file(path);
            None
        }
    }

    fn write_all(&self) {
        for i in 0..self.modules.len() {
            self.write_module(i);
        }
        self.write_pyproject();
        self.write_proctor();
        self.write_data();
        self.write_helpers();
        self.write_conftest();
        self.write_optional();
    }

    /// Applies one random edit; returns what it did and the files it wrote.
    fn edit(&mut self, rng: &mut Rng) -> (String, Vec<String>) {
        let n = self.modules.len();
        let pick = if n == 0 { 0 } else { rng.below(n) };
        match rng.below(16) {
            0 | 1 if n > 0 => {
                let test = self.new_test(rng);
                let what = format!("add {} to {}", test.name, self.modules[pick].name);
                self.modules[pick].tests.push(test);
                (what, vec![self.write_module(pick)])
            }
            2 if n > 0 && !self.modules[pick].tests.is_empty() => {
                let at = rng.below(self.modules[pick].tests.len());
                let test = self.modules[pick].tests.remove(at);
                let what = format!("remove {} from {}", test.name, self.modules[pick].name);
                (what, vec![self.write_module(pick)])
            }
            3 if n > 0 && !self.modules[pick].tests.is_empty() => {
                let at = rng.below(self.modules[pick].tests.len());
                let name = self.fresh_name("test_renamed_");
                let what = format!(
                    "rename {} to {name} in {}",
                    self.modules[pick].tests[at].name, self.modules[pick].name
                );
                self.modules[pick].tests[at].name = name;
                (what, vec![self.write_module(pick)])
            }
            4 if n > 0 => {
                let values: Vec<i64> = (0..rng.below(4))
                    .map(|_| i64::try_from(rng.below(9)).unwrap())
                    .collect();
                let module = &mut self.modules[pick];
                match module
                    .tests
                    .iter_mut()
                    .find(|t| matches!(t.kind, Kind::Local(_)))
                {
                    Some(test) => test.kind = Kind::Local(values.clone()),
                    None => module.tests.push(Test {
                        name: format!("test_local_{}", module.name),
                        kind: Kind::Local(values.clone()),
                    }),
                }
                (
                    format!("parametrize list {values:?} in {}", self.modules[pick].name),
                    vec![self.write_module(pick)],
                )
            }
            5 => {
                self.cases = (0..rng.below(4))
                    .map(|_| i64::try_from(rng.below(50)).unwrap())
                    .collect();
                (
                    format!("helperpkg.data.CASES = {:?}", self.cases),
                    vec![self.write_data()],
                )
            }
            6 => {
                if rng.below(2) == 0 {
                    self.ids = (0..rng.below(3))
                        .map(|i| format!("id{i}x{}", rng.below(5)))
                        .collect();
                } else if rng.below(2) == 0 || self.mixin.is_empty() {
                    let name = self.fresh_name("test_mixed_");
                    self.mixin.push(name);
                } else {
                    self.mixin.pop();
                }
                (
                    format!("helpers: IDS {:?}, Mixin {:?}", self.ids, self.mixin),
                    vec![self.write_helpers()],
                )
            }
            7 => {
                self.fixture_params = (0..=rng.below(3))
                    .map(|_| i64::try_from(rng.below(99)).unwrap())
                    .collect();
                (
                    format!("conftest params {:?}", self.fixture_params),
                    vec![self.write_conftest()],
                )
            }
            8 => {
                self.check_prefix = !self.check_prefix;
                (
                    format!("pytest python_functions check: {}", self.check_prefix),
                    vec![self.write_pyproject()],
                )
            }
            9 => {
                self.small_files = !self.small_files;
                (
                    format!("proctor max-file-size small: {}", self.small_files),
                    vec![self.write_proctor()],
                )
            }
            10 if n > 1 => {
                let module = self.modules.remove(pick);
                std::fs::remove_file(self.root.join(Suite::module_path(&module))).unwrap();
                (format!("delete {}", module.name), Vec::new())
            }
            11 if n > 0 => {
                let old = Suite::module_path(&self.modules[pick]);
                self.modules[pick].name = self.fresh_name("test_moved_");
                let new = Suite::module_path(&self.modules[pick]);
                std::fs::rename(self.root.join(&old), self.root.join(&new)).unwrap();
                (format!("rename {old} to {new}"), vec![new])
            }
            12 if n > 0 => {
                self.modules[pick].broken = !self.modules[pick].broken;
                (
                    format!(
                        "{} broken: {}",
                        self.modules[pick].name, self.modules[pick].broken
                    ),
                    vec![self.write_module(pick)],
                )
            }
            13 => {
                self.optional_present = !self.optional_present;
                (
                    format!("src/optional_dep.py present: {}", self.optional_present),
                    self.write_optional().into_iter().collect(),
                )
            }
            14 if n > 0 => (
                format!("rewrite {} unchanged", self.modules[pick].name),
                vec![self.write_module(pick)],
            ),
            _ => {
                let module = self.new_module(rng);
                let what = format!("new module {}", module.name);
                self.modules.push(module);
                (what, vec![self.write_module(self.modules.len() - 1)])
            }
        }
    }
}

fn proctor(dir: &Path, args: &[&str]) -> (Vec<u8>, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_proctor"))
        .args(args)
        .current_dir(dir)
        .env_remove("PYTEST_ADDOPTS")
        .env_remove("PYTHONPATH")
        .env("PROCTOR_CACHE_TRACE", "1")
        .output()
        .expect("proctor runs");
    assert!(
        output.status.code().is_some_and(|c| c < 4) || args[0] == "check",
        "proctor {args:?} failed: {}",
        text(&output)
    );
    // The exit status is compared with the output.
    let mut stdout = output.stdout;
    stdout.extend(format!("exit: {:?}\n", output.status.code()).bytes());
    (stdout, String::from_utf8_lossy(&output.stderr).into_owned())
}

/// How many modules the cache served, from the `cache: N cached` line.
fn cached_count(stderr: &str) -> usize {
    stderr
        .lines()
        .find_map(|l| l.strip_prefix("cache: "))
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

/// Asserts that the cached and uncached outputs of `args` are the same;
/// returns how many modules the cached run took from the cache.
fn same_with_and_without_cache(root: &Path, args: &[&str], context: &str) -> usize {
    let (cached, stderr) = proctor(root, args);
    // Again with nothing changed: `collect --json` then writes its memo.
    let (again, _) = proctor(root, args);
    assert!(
        again == cached,
        "{context}: `proctor {}` differs on a second cached run\n--- first\n{}\n--- second\n{}",
        args.join(" "),
        String::from_utf8_lossy(&cached),
        String::from_utf8_lossy(&again)
    );
    let mut plain_args = args.to_vec();
    plain_args.push("--no-cache");
    let (plain, plain_stderr) = proctor(root, &plain_args);
    assert!(plain_stderr.contains("cache: off"), "{plain_stderr}");
    assert!(
        cached == plain,
        "{context}: `proctor {}` differs with the cache\n--- cached\n{}\n--- uncached\n{}",
        args.join(" "),
        String::from_utf8_lossy(&cached),
        String::from_utf8_lossy(&plain)
    );
    cached_count(&stderr)
}

#[test]
fn a_cached_collection_equals_an_uncached_one_after_every_edit() {
    let cases = env_number("PROCTOR_CACHE_CASES", 100);
    let seed = env_number("PROCTOR_CACHE_SEED", 7);
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let mut rng = Rng::new(seed);
    let mut suite = Suite::new(&root, &mut rng);
    let mut served = 0;
    let mut past = SystemTime::UNIX_EPOCH + Duration::from_secs(1_600_000_000);
    let mut log = Vec::new();
    for step in 0..cases {
        let (what, files) = suite.edit(&mut rng);
        log.push(what);
        // Half the edits look old: their `stat` data is trusted next time.
        if rng.below(2) == 0 {
            for file in &files {
                past += Duration::from_secs(1);
                let handle = std::fs::File::options()
                    .append(true)
                    .open(root.join(file))
                    .unwrap();
                handle.set_modified(past).unwrap();
            }
        }
        let context = format!(
            "seed {seed}, {cases} cases, step {step} (PROCTOR_CACHE_SEED={seed} PROCTOR_CACHE_CASES={}); edits:\n  {}",
            step + 1,
            log.join("\n  ")
        );
        served += same_with_and_without_cache(&root, &["collect", "--json"], &context);
        if step % 4 == 3 {
            same_with_and_without_cache(&root, &["check", "--format", "json"], &context);
        }
    }
    // The cache must have been used, or this test proves nothing.
    assert!(
        served > 0,
        "the cache never served a module in {cases} edits"
    );
}

/// Sets the modification time of `path`, a file or a directory.
fn set_mtime(path: &Path, time: SystemTime) {
    std::fs::File::open(path)
        .unwrap()
        .set_modified(time)
        .unwrap();
}

/// Gives every file and directory under `dir` (but the cache's) its own
/// past modification time, so that their `stat` data are trusted.
fn age_tree(dir: &Path, past: &mut SystemTime) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.file_name().is_some_and(|n| n == ".proctor") {
            continue;
        }
        if path.is_dir() {
            age_tree(&path, past);
        } else {
            *past += Duration::from_secs(1);
            set_mtime(&path, *past);
        }
    }
    *past += Duration::from_secs(1);
    set_mtime(dir, *past);
}

/// `collect --json` with the cache, its output and whether its memo was
/// found from `stat` data alone.
fn collect_by_stat(root: &Path) -> (Vec<u8>, bool) {
    let (stdout, stderr) = collect_traced(root);
    (stdout, stderr.contains(", memo by stat"))
}

/// `collect --json` with the cache and `PROCTOR_CACHE_TRACE=memo`: its
/// output (with the exit status) and its stderr.
fn collect_traced(root: &Path) -> (Vec<u8>, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_proctor"))
        .args(["collect", "--json"])
        .current_dir(root)
        .env_remove("PYTEST_ADDOPTS")
        .env_remove("PYTHONPATH")
        .env("PROCTOR_CACHE_TRACE", "memo")
        .output()
        .expect("proctor runs");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let mut stdout = output.stdout;
    stdout.extend(format!("exit: {:?}\n", output.status.code()).bytes());
    (stdout, stderr)
}

/// The memo's watch list (the `stat` data that stand for discovery, the
/// stamps and the hashes) after every kind of edit: with every file old
/// enough to be trusted, the run after an edit never takes the memo from
/// `stat` data (something it watches changed) and prints what `--no-cache`
/// prints, and the run after that takes it from `stat` data alone.
#[test]
fn a_memo_checked_by_stat_alone_sees_every_edit() {
    let cases = env_number("PROCTOR_CACHE_CASES", 40);
    let seed = env_number("PROCTOR_CACHE_SEED", 11);
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let mut rng = Rng::new(seed);
    let mut suite = Suite::new(&root, &mut rng);
    let mut past = SystemTime::UNIX_EPOCH + Duration::from_secs(1_550_000_000);
    let _ = collect_by_stat(&root);
    // Creating `.proctor/` changed the rootdir.
    age_tree(&root, &mut past);
    let (first, _) = collect_by_stat(&root);
    let (second, by_stat) = collect_by_stat(&root);
    assert!(first == second);
    assert!(
        by_stat,
        "an unchanged suite's memo is not taken from stat data"
    );
    let mut log = Vec::new();
    for step in 0..cases {
        let (what, files) = suite.edit(&mut rng);
        log.push(what);
        let context = format!(
            "seed {seed}, step {step} (PROCTOR_CACHE_SEED={seed} PROCTOR_CACHE_CASES={}); edits:\n  {}",
            step + 1,
            log.join("\n  ")
        );
        if files.is_empty() {
            // A file deleted: its folder changed.
            age_tree(&root, &mut past);
        }
        for file in &files {
            for path in Path::new(file).ancestors() {
                if !path.as_os_str().is_empty() {
                    past += Duration::from_secs(1);
                    set_mtime(&root.join(path), past);
                }
            }
        }
        past += Duration::from_secs(1);
        set_mtime(&root, past);
        let config_only = !files.is_empty()
            && files
                .iter()
                .all(|f| f == "pyproject.toml" || f == "proctor.toml");
        let (after, stderr) = collect_traced(&root);
        let by_stat = stderr.contains(", memo by stat");
        assert!(
            config_only || !by_stat,
            "{context}: the memo was taken from stat data after an edit"
        );
        // A document the memo does not answer (an unchanged rewrite finds
        // it by its digest) is spliced from the pack's fragments (this
        // suite has no parameter whose key spans modules), so the
        // comparison below checks the splicing.
        assert!(
            by_stat || stderr.contains(", memo\n") || stderr.contains(", spliced"),
            "{context}: the document was not spliced: {stderr}"
        );
        let (plain, _) = proctor(&root, &["collect", "--json", "--no-cache"]);
        assert!(
            after == plain,
            "{context}: `collect --json` differs with the cache\n--- cached\n{}\n--- uncached\n{}",
            String::from_utf8_lossy(&after),
            String::from_utf8_lossy(&plain)
        );
        // A cold run (every module collected and stored in the pack)
        // stores no memo: the next one splices the document from the pack
        // and stores it. Any other run stores the memo itself. Either way
        // the run after the one that stored it takes it from `stat` data
        // alone.
        if stderr.contains(", spliced, not stored") {
            assert!(
                stderr.contains("cache: 0 cached,"),
                "{context}: the memo not stored after a run that was not cold: {stderr}"
            );
            let (again, trace) = collect_traced(&root);
            assert!(again == plain, "{context}: the document differs when rerun");
            assert!(
                trace.contains(", spliced\n"),
                "{context}: the run after a cold one did not splice and store: {trace}"
            );
        }
        let (again, by_stat) = collect_by_stat(&root);
        assert!(again == plain, "{context}: the memo differs");
        assert!(by_stat, "{context}: the memo was not taken from stat data");
    }
}

/// `bytes` with every `from` replaced by `to`; panics when there is none,
/// so that a damage that misses the file fails the test.
fn replace_bytes(bytes: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut rest = bytes;
    let mut found = false;
    while let Some(at) = rest.windows(from.len()).position(|w| w == from) {
        out.extend_from_slice(&rest[..at]);
        out.extend_from_slice(to);
        rest = &rest[at + from.len()..];
        found = true;
    }
    assert!(found, "no {:?} in the pack", String::from_utf8_lossy(from));
    out.extend_from_slice(rest);
    out
}

#[test]
fn a_corrupt_or_foreign_cache_is_ignored_and_rebuilt() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let mut rng = Rng::new(3);
    let _suite = Suite::new(&root, &mut rng);
    let (expected, _) = proctor(&root, &["collect", "--json", "--no-cache"]);
    let (first, _) = proctor(&root, &["collect", "--json"]);
    assert_eq!(first, expected);
    let cache = root.join(".proctor/cache/v4");
    // A cold run writes the pack; the next one, finding nothing changed,
    // stores the memo.
    assert!(
        !cache.join("memo.bin").exists(),
        "a memo stored by a cold run"
    );
    let (second, _) = proctor(&root, &["collect", "--json"]);
    assert_eq!(second, expected);
    assert_eq!(
        std::fs::read_to_string(root.join(".proctor/.gitignore"))
            .unwrap()
            .lines()
            .last(),
        Some("*")
    );
    let packs: Vec<PathBuf> = std::fs::read_dir(&cache)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("pack-")
        })
        .collect();
    assert_eq!(packs.len(), 1, "{packs:?}");
    let pack = std::fs::read(&packs[0]).unwrap();
    let damages: Vec<(&str, Vec<u8>, Vec<u8>)> = vec![
        (
            "truncated",
            pack[..pack.len() / 2].to_vec(),
            b"{\"format\":".to_vec(),
        ),
        ("garbage", b"\x00\xff not json".to_vec(), b"[1, 2".to_vec()),
        (
            "foreign format",
            replace_bytes(
                &pack,
                b"proctor-pack\x02\x00\x00\x00v4",
                b"proctor-pack\x02\x00\x00\x00v0",
            ),
            br#"{"format":"v0","stamps":{}}"#.to_vec(),
        ),
        (
            // Every entry's stored items altered, the file's length kept.
            "entries of another shape",
            replace_bytes(&pack, b"\0items\0", b"\0itemz\0"),
            br#"{"format":"v4","stamps":{"x":{"stat":null,"hash":"zz"}}}"#.to_vec(),
        ),
        (
            // The rendered items altered: `collect --json` splices them.
            "fragments of another shape",
            replace_bytes(&pack, b"{\"nodeid\":", b"{\"nodeix\":"),
            Vec::new(),
        ),
    ];
    for (what, pack_bytes, stamp_bytes) in damages {
        std::fs::write(&packs[0], &pack_bytes).unwrap();
        std::fs::write(cache.join("stamps.json"), stamp_bytes).unwrap();
        // The memo of the last document, damaged alike (or cut after its
        // header and probes, so that it holds no document).
        let memo = cache.join("memo.bin");
        assert!(memo.exists(), "{what}: no memo written");
        let memo_bytes = std::fs::read(&memo).unwrap();
        let memo_damage = if what.starts_with("truncated") {
            let watch = u64::from_le_bytes(memo_bytes[32..40].try_into().unwrap());
            let probes = u64::from_le_bytes(memo_bytes[40..48].try_into().unwrap());
            memo_bytes[..48 + usize::try_from(watch + probes).unwrap()].to_vec()
        } else {
            pack_bytes.clone()
        };
        std::fs::write(&memo, memo_damage).unwrap();
        let (out, stderr) = proctor(&root, &["collect", "--json"]);
        assert!(out == expected, "{what}: output differs\n{stderr}");
        if what.starts_with("fragments") {
            // A module without items (skipped by its `importorskip`) has
            // no item to alter: the damaged ones are collected again.
            assert!(!stderr.contains(" 0 collected"), "{what}: {stderr}");
        } else {
            assert_eq!(cached_count(&stderr), 0, "{what}: {stderr}");
        }
        // Rebuilt: the next run is served from the cache again.
        let (again, stderr) = proctor(&root, &["collect", "--json"]);
        assert!(
            again == expected,
            "{what}: output differs after the rebuild"
        );
        assert!(cached_count(&stderr) > 0, "{what}: not rebuilt: {stderr}");
    }
    // `proctor cache clean` removes it all.
    let cleaned = Command::new(env!("CARGO_BIN_EXE_proctor"))
        .args(["cache", "clean"])
        .current_dir(&root)
        .output()
        .unwrap();
    assert!(cleaned.status.success(), "{}", text(&cleaned));
    assert!(!root.join(".proctor/cache").exists());
}

/// Module- and class-scoped parametrized fixtures make pytest reorder a
/// module's items: the spliced document (each module in its own order)
/// equals `--no-cache`'s. A session-scoped one reorders across modules:
/// the document is then rendered from the whole collection, still equal.
#[test]
fn a_spliced_document_follows_reordering_and_yields_to_a_session_scoped_parameter() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    write(&root, "pyproject.toml", "[tool.pytest.ini_options]\n");
    write(
        &root,
        "tests/conftest.py",
        "import pytest\n\n\n@pytest.fixture(scope=\"module\", params=[1, 2])\ndef mod(request):\n    return request.param\n\n\n@pytest.fixture(scope=\"class\", params=[\"a\", \"b\"])\ndef cls(request):\n    return request.param\n",
    );
    let module = |name: &str| {
        format!(
            "import pytest\n\n\ndef test_{name}_plain():\n    pass\n\n\ndef test_{name}_mod(mod):\n    pass\n\n\n@pytest.mark.slow\ndef test_{name}_other(mod):\n    pass\n\n\nclass TestK:\n    def test_c(self, cls):\n        pass\n\n    def test_d(self, cls, mod):\n        pass\n"
        )
    };
    for name in ["a", "b", "c"] {
        write(&root, &format!("tests/test_{name}.py"), &module(name));
    }
    let check = |context: &str, spliced: bool| {
        let (cached, stderr) = collect_traced(&root);
        let (plain, _) = proctor(&root, &["collect", "--json", "--no-cache"]);
        assert!(
            cached == plain,
            "{context}: differs with the cache\n--- cached\n{}\n--- uncached\n{}",
            String::from_utf8_lossy(&cached),
            String::from_utf8_lossy(&plain)
        );
        assert_eq!(stderr.contains(", spliced"), spliced, "{context}: {stderr}");
    };
    check("first run", true);
    write(
        &root,
        "tests/test_b.py",
        &format!("{}\n\ndef test_b_new(mod):\n    pass\n", module("b")),
    );
    check("one module edited", true);
    write(
        &root,
        "tests/test_c.py",
        &format!(
            "{}\n\n@pytest.fixture(scope=\"session\", params=[\"x\", \"y\"])\ndef wide(request):\n    return request.param\n\n\ndef test_c_wide(wide):\n    pass\n",
            module("c")
        ),
    );
    check("a session-scoped parameter added", false);
    write(
        &root,
        "tests/test_a.py",
        &format!("{}\n# edited\n", module("a")),
    );
    check("another module edited", false);
}
