//! proctor's own options: `proctor.toml` (keys at the top level) or the
//! `[tool.proctor]` table of `pyproject.toml`, looked up in the rootdir and
//! then in its parents; the first directory that has either wins, and in it
//! `proctor.toml` wins over `pyproject.toml`.
//!
//! Keys are kebab-case; unknown keys, bad values and invalid taxonomies are
//! errors with their position.

use std::num::{NonZeroU64, NonZeroUsize};
use std::path::{Path, PathBuf};

use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer};

use crate::coverage_options::CoverageOptions;
use crate::opt_in_options::{ExampleOptions, NotebookOptions};
use crate::plan_options::{
    GateOptions, HelperOptions, JobOptions, NeedOptions, PlanOptions, ServiceOptions,
};
use crate::run_options::RunOptions;
use crate::taxonomy_options::{
    AxisOptions, MarkerOptions, PathRuleOptions, TaxonomyOptions, TaxonomyProblem,
};
use proctor_config_file::{ConfigError, ConfigFile, KeyPath, TomlDoc};

/// proctor's options as written in `proctor.toml` or `[tool.proctor]`.
///
/// ```toml
/// python = ".venv/bin/python"
///
/// [collect]
/// threads = 4
/// max-file-size = 2_000_000
///
/// [axes.tier]
/// markers = ["unit", "integration", "e2e"]
/// default = "unit"
/// ```
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(from = "RawOptions")]
pub struct ProctorOptions {
    /// The Python interpreter that runs pytest (`python`).
    pub python: Option<String>,
    /// Static collection (`[collect]`).
    pub collect: CollectOptions,
    /// Axes, marker rules and path rules (`[axes.*]`, `[markers.*]`,
    /// `[[paths]]`), validated.
    pub taxonomy: TaxonomyOptions,
    /// The default selection (`[select]`).
    pub select: SelectOptions,
    /// Named selections (`[profiles.<name>]`), in file order.
    pub profiles: Vec<(String, ProfileOptions)>,
    /// Opt-in conventions that `proctor check` enforces (`[check]`).
    pub check: CheckOptions,
    /// Services, needs, helpers, gates and CI jobs (`[services.*]`,
    /// `[needs.*]`, `[helpers]`, `[gates.*]`, `[jobs.*]`).
    pub plan: PlanOptions,
    /// `proctor run` (`[run]`).
    pub run: RunOptions,
    /// `proctor coverage` (`[coverage]`).
    pub coverage: CoverageOptions,
    /// Example scripts that opt in with a comment (`[examples]`).
    pub examples: ExampleOptions,
    /// Notebooks that opt in with a metadata block (`[notebooks]`).
    pub notebooks: NotebookOptions,
    /// Markers for the tests that use a fixture (`[fixtures.<name>]`), in
    /// file order.
    pub fixtures: Vec<(String, FixtureOptions)>,
}

/// Markers applied to every test whose fixture closure holds the fixture
/// (`[fixtures.<name>]`): requested as an argument, by `usefixtures`, as
/// autouse, or by another fixture it uses. They come after the test's own
/// markers and its parameters', as a `pytest_collection_modifyitems` hook's
/// `item.add_marker(...)` puts them.
///
/// ```toml
/// [fixtures.pytester]
/// markers = ["slow"]
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct FixtureOptions {
    /// The markers' names, in the order they are added (`markers`).
    pub markers: Vec<String>,
}

/// Which rules `proctor check` runs, and opt-in conventions it enforces
/// (`[check]`); each convention is off until its key is set.
///
/// ```toml
/// [check]
/// select = ["PRC0", "PRC1"]
/// extend-select = ["PRC302"]
/// ignore = ["PRC003"]
/// per-file-ignores = { "tests/legacy/**" = ["PRC302"] }
/// mirror = { tests = "tests/unit", source = "src/pkg" }
/// test-name = "test_<subject>_<scenario>"
/// one-claim = true
/// file-name = "test_*.py"
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct CheckOptions {
    /// The rules `proctor check` runs, as codes or code prefixes (empty:
    /// every rule); `--select` replaces it: [check.md](check.md#usage).
    #[schemars(with = "Vec<String>")]
    pub select: Vec<toml::Spanned<String>>,
    /// Rules added to `select` (`--extend-select` adds more).
    #[schemars(with = "Vec<String>")]
    pub extend_select: Vec<toml::Spanned<String>>,
    /// Rules that do not run (`--extend-ignore` adds more).
    #[schemars(with = "Vec<String>")]
    pub ignore: Vec<toml::Spanned<String>>,
    /// Rules that do not apply to the files a glob matches (a
    /// rootdir-relative glob, or a file name when it has no `/`).
    pub per_file_ignores: std::collections::BTreeMap<String, Vec<String>>,
    /// Test files under `tests` must mirror the modules under `source`
    /// (PRC301): [check.md](check.md).
    pub mirror: Option<MirrorOptions>,
    /// Test names must have this shape, e.g.
    /// `"test_<subject>_<scenario>_<expected>"` (PRC302).
    #[serde(deserialize_with = "test_name_pattern")]
    #[schemars(with = "Option<String>")]
    pub test_name: Option<TestNamePattern>,
    /// No `_and_` in test names (PRC303).
    pub one_claim: bool,
    /// Test file names must match this glob, e.g. `"test_*.py"` (PRC304).
    #[serde(deserialize_with = "file_name_glob")]
    pub file_name: Option<String>,
}

fn file_name_glob<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
    let text = String::deserialize(deserializer)?;
    if text.contains('/') {
        return Err(serde::de::Error::custom(
            "`file-name` is matched against a file's name: it cannot contain `/`",
        ));
    }
    globset::Glob::new(&text)
        .map_err(|err| serde::de::Error::custom(format!("invalid glob: {}", err.kind())))?;
    Ok(Some(text))
}

/// Where tests mirror sources: `tests/unit/store/test_jsonl.py` tests
/// `src/pkg/store/jsonl.py` (both directories relative to the rootdir).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct MirrorOptions {
    /// The directory of the mirroring test files (`tests`).
    pub tests: String,
    /// The directory of the mirrored modules (`source`).
    pub source: String,
}

/// A test name pattern such as `test_<subject>_<scenario>`: `_`-separated
/// words, first literal words (a required prefix), then `<placeholder>`s,
/// each of which stands for at least one non-empty word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestNamePattern {
    /// The pattern as written.
    pub text: String,
    /// The literal words the name starts with (`["test"]`).
    pub prefix: Vec<String>,
    /// The placeholders, in order (`["subject", "scenario"]`).
    pub placeholders: Vec<String>,
}

impl TestNamePattern {
    /// Parses a pattern; the message says what is wrong.
    ///
    /// # Errors
    /// A pattern without placeholders, with a literal word after a
    /// placeholder, or with an empty word.
    pub fn parse(text: &str) -> Result<TestNamePattern, String> {
        let mut prefix = Vec::new();
        let mut placeholders = Vec::new();
        for word in text.split('_') {
            if let Some(name) = word.strip_prefix('<').and_then(|w| w.strip_suffix('>')) {
                if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '-') {
                    return Err(format!("`test-name`: bad placeholder `{word}` in `{text}`"));
                }
                placeholders.push(name.to_owned());
            } else if word.is_empty() || word.contains(['<', '>']) {
                return Err(format!("`test-name`: empty or malformed word in `{text}` (words are separated by one `_`)"));
            } else if !placeholders.is_empty() {
                return Err(format!("`test-name`: literal word `{word}` after a placeholder in `{text}` (literal words must come first)"));
            } else {
                prefix.push(word.to_owned());
            }
        }
        if placeholders.is_empty() {
            return Err(format!("`test-name`: `{text}` has no `<placeholder>`"));
        }
        Ok(TestNamePattern {
            text: text.to_owned(),
            prefix,
            placeholders,
        })
    }

    /// Whether `name` starts with the prefix words and has at least one
    /// non-empty word per placeholder after them.
    #[must_use]
    pub fn matches(&self, name: &str) -> bool {
        let words: Vec<&str> = name.split('_').collect();
        if words.len() < self.prefix.len() + self.placeholders.len() {
            return false;
        }
        let (head, rest) = words.split_at(self.prefix.len());
        head.iter().zip(&self.prefix).all(|(w, p)| w == p)
            && rest.iter().filter(|w| !w.is_empty()).count() >= self.placeholders.len()
    }
}

fn test_name_pattern<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<TestNamePattern>, D::Error> {
    let text = String::deserialize(deserializer)?;
    TestNamePattern::parse(&text)
        .map(Some)
        .map_err(serde::de::Error::custom)
}

/// The selection every command starts from (`[select]`).
///
/// ```toml
/// [select]
/// default = "not slow and not credentialed"
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct SelectOptions {
    /// The default selection, a `-m` expression combined with an explicit
    /// `-m` by `and`, except on the markers the explicit expression names
    /// (default: pytest's `addopts -m`, so proctor selects what bare pytest
    /// would): [select.md](select.md#the-default-makes-way-for-the-markers-you-name).
    pub default: Option<String>,
}

/// A named selection, chosen with `--profile NAME` (`[profiles.<name>]`).
///
/// ```toml
/// [profiles.ci]
/// description = "what the pull-request job runs"
/// markers = "not qualitative"
/// env = { CICD = "1" }
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct ProfileOptions {
    /// What the profile is for, shown by `proctor explain`.
    pub description: Option<String>,
    /// A `-m` expression combined by `and` with the default and an explicit `-m`.
    pub markers: Option<String>,
    /// A `-k` expression combined by `and` with an explicit `-k`.
    pub keywords: Option<String>,
    /// Whether the default selection (`[select] default`, else pytest's
    /// `addopts -m`) applies too (`use-default`, default true).
    pub use_default: Option<bool>,
    /// Environment variables the profile sets for runs (names and values).
    pub env: std::collections::BTreeMap<String, String>,
}

/// The options as written (`proctor.toml`, or `[tool.proctor]` in
/// `pyproject.toml`): the taxonomy's and the plan's tables sit at the top
/// level. The JSON schema and the key table of `docs/configuration.md` are
/// generated from this type; its field docs are their descriptions.
#[derive(Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
#[schemars(title = "proctor options")]
pub(crate) struct RawOptions {
    /// The interpreter that runs the suite (used by `proctor run`).
    python: Option<String>,
    /// Static collection.
    collect: CollectOptions,
    /// A family of markers with a cardinality and an auto-applied default: [taxonomy.md](taxonomy.md#axes).
    axes: IndexMap<String, AxisOptions>,
    /// Rules for one marker: [taxonomy.md](taxonomy.md#marker-rules).
    markers: IndexMap<String, MarkerOptions>,
    /// Glob → markers: [taxonomy.md](taxonomy.md#path-rules).
    paths: Vec<PathRuleOptions>,
    /// The default selection.
    select: SelectOptions,
    /// A named selection for `--profile`; `use-default = false` leaves the default selection out: [select.md](select.md#profiles).
    profiles: IndexMap<String, ProfileOptions>,
    /// Decorator dotted path → marker: [taxonomy.md](taxonomy.md#decorators).
    decorators: IndexMap<String, String>,
    /// Markers for every test whose fixture closure holds the fixture: [below](#markers-for-the-tests-that-use-a-fixture).
    fixtures: IndexMap<String, FixtureOptions>,
    /// What `proctor check` runs and the opt-in conventions it enforces.
    check: CheckOptions,
    /// A service tests talk to, how to reach it, and how `proctor run` starts and stops it: [plan.md](plan.md#services), [plan.md](plan.md#service-lifecycles).
    services: IndexMap<String, ServiceOptions>,
    /// What the tests with a marker need from the machine: [plan.md](plan.md#what-a-test-needs).
    #[schemars(extend("x-placeholder" = "marker"))]
    needs: IndexMap<String, NeedOptions>,
    /// Project helpers (`require_gpu(min_vram_gb=8)`) that state needs: a kind or a table of needs: [plan.md](plan.md#what-a-test-needs).
    helpers: IndexMap<String, HelperOptions>,
    /// Environment-dependent rules (`qualitative` under `CICD=1`): [plan.md](plan.md#gates).
    #[schemars(extend("x-placeholder" = "marker"))]
    gates: IndexMap<String, GateOptions>,
    /// CI jobs, audited by `proctor plan`; `also-on` (more triggers), `on-paths` (on pull requests and pushes, run only when these globs' files change: `on-paths = ["src/db/**"]`), `environment` (a GitHub environment: approval and its secrets) and `setup` (shell commands before the tests) are for `proctor ci github`: [plan.md](plan.md#jobs), [ci.md](ci.md#what-comes-from-which-key).
    jobs: IndexMap<String, JobOptions>,
    /// `proctor run`.
    run: RunOptions,
    /// Per-area coverage thresholds for `proctor coverage`: [coverage.md](coverage.md).
    coverage: CoverageOptions,
    /// Scripts that run as tests when they opt in with a comment: [examples.md](examples.md#example-scripts).
    examples: ExampleOptions,
    /// Notebooks that run as tests, opted in by a metadata block: [examples.md](examples.md#notebooks).
    notebooks: NotebookOptions,
}

impl From<RawOptions> for ProctorOptions {
    fn from(raw: RawOptions) -> Self {
        ProctorOptions {
            python: raw.python,
            collect: raw.collect,
            taxonomy: TaxonomyOptions {
                axes: raw.axes.into_iter().collect(),
                markers: raw.markers.into_iter().collect(),
                paths: raw.paths,
                decorators: raw.decorators.into_iter().collect(),
            },
            select: raw.select,
            profiles: raw.profiles.into_iter().collect(),
            check: raw.check,
            plan: PlanOptions {
                services: raw.services.into_iter().collect(),
                needs: raw.needs.into_iter().collect(),
                helpers: raw.helpers.into_iter().collect(),
                gates: raw.gates.into_iter().collect(),
                jobs: raw.jobs.into_iter().collect(),
            },
            run: raw.run,
            coverage: raw.coverage,
            examples: raw.examples,
            notebooks: raw.notebooks,
            fixtures: raw.fixtures.into_iter().collect(),
        }
    }
}

/// Options of static collection (`[collect]`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct CollectOptions {
    /// Threads for parsing and collection (default: one per core), at most
    /// one per core (a larger number is capped: parsing is CPU-bound).
    /// `--threads` overrides it.
    pub threads: Option<NonZeroUsize>,
    /// Larger `.py` files, in bytes, are reported as errors instead of
    /// parsed (default: 16 MiB).
    pub max_file_size: Option<NonZeroU64>,
}

#[derive(Deserialize)]
struct Pyproject {
    #[serde(default)]
    tool: Option<Tool>,
}

#[derive(Deserialize)]
struct Tool {
    #[serde(default)]
    proctor: Option<ProctorOptions>,
}

/// Finds and reads proctor's options, starting in `rootdir`.
pub fn find(rootdir: &Path) -> Result<Option<(PathBuf, ProctorOptions)>, ConfigError> {
    for dir in rootdir.ancestors() {
        let proctor_toml = dir.join("proctor.toml");
        if proctor_toml.is_file() {
            let source = ConfigFile::read(&proctor_toml)?;
            // Syntax errors first, with the same wording as for pytest's files.
            let doc = TomlDoc::parse(&source)?;
            let options = deserialize::<ProctorOptions>(&doc)?;
            validate(&doc, &[], &options)?;
            return Ok(Some((proctor_toml, options)));
        }
        let pyproject = dir.join("pyproject.toml");
        if pyproject.is_file() {
            let source = ConfigFile::read(&pyproject)?;
            let doc = TomlDoc::parse(&source)?;
            let has_table = doc
                .root()
                .get("tool")
                .and_then(|tool| tool.as_table_like())
                .is_some_and(|tool| tool.contains_key("proctor"));
            if has_table {
                let parsed = deserialize::<Pyproject>(&doc)?;
                let options = parsed
                    .tool
                    .and_then(|tool| tool.proctor)
                    .unwrap_or_default();
                validate(&doc, &["tool", "proctor"], &options)?;
                return Ok(Some((pyproject, options)));
            }
        }
    }
    Ok(None)
}

/// A problem found after deserialization, and where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Problem {
    pub(crate) at: ProblemAt,
    /// What is wrong, in lowercase.
    pub(crate) message: String,
}

/// Where a [`Problem`] is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ProblemAt {
    /// A key path, relative to proctor's table, that the document locates.
    Key(KeyPath),
    /// The bytes of a value in the file, as `toml::Spanned` gives them.
    Span(std::ops::Range<usize>),
}

impl Problem {
    /// A problem with `value`, at its position in the file.
    pub(crate) fn at_value<T>(value: &toml::Spanned<T>, message: String) -> Problem {
        Problem {
            at: ProblemAt::Span(value.span()),
            message,
        }
    }

    /// A problem at the value (or table) that `key` names.
    pub(crate) fn at_key(key: KeyPath, message: String) -> Problem {
        Problem {
            at: ProblemAt::Key(key),
            message,
        }
    }
}

impl From<TaxonomyProblem> for Problem {
    fn from(problem: TaxonomyProblem) -> Problem {
        Problem::at_key(problem.key, problem.message)
    }
}

/// Where the problem is: its key path, or its bytes.
impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.at {
            ProblemAt::Key(key) => write!(f, "{key}"),
            ProblemAt::Span(span) => write!(f, "bytes {}..{}", span.start, span.end),
        }
    }
}

/// Checks what serde cannot: the taxonomy's consistency. Every problem is
/// reported, in file order.
fn validate(
    doc: &TomlDoc<'_>,
    prefix: &[&str],
    options: &ProctorOptions,
) -> Result<(), ConfigError> {
    let errors: Vec<ConfigError> = options
        .taxonomy
        .problems()
        .into_iter()
        .chain(options.plan.problems(&options.taxonomy))
        .chain(options.coverage.problems())
        .map(Problem::from)
        .chain(crate::opt_in_options::problems(
            &options.examples,
            &options.notebooks,
        ))
        .map(|problem| match problem.at {
            ProblemAt::Key(key) => doc.error(doc.locate(prefix, &key), problem.message),
            ProblemAt::Span(span) => doc.source.error_at(span.start, problem.message),
        })
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(ConfigError::all(errors))
    }
}

/// At most this many deserialization problems are reported for one file.
const MAX_PROBLEMS: usize = 50;

/// Deserializes the file, reporting every problem serde finds rather than
/// the first: after each error, the lines of the value it points at are
/// blanked (replaced by spaces, so that byte offsets stay those of the
/// file) and the text is read again. It stops when the text deserializes,
/// when the blanked text would not be TOML any more, when the error
/// concerns a table header (blanking it would move its keys into another
/// table and report errors that are not there), or at a missing field
/// after the first error (the field may be one that was blanked).
///
/// A file without mistakes is read from the document already parsed for
/// its syntax and positions: it is parsed once.
fn deserialize<T: for<'de> Deserialize<'de>>(doc: &TomlDoc<'_>) -> Result<T, ConfigError> {
    if let Ok(value) = T::deserialize(toml_edit::de::Deserializer::from(doc.doc.clone())) {
        return Ok(value);
    }
    let source = doc.source;
    let mut text = source.text().to_owned();
    let mut errors = Vec::new();
    while errors.len() < MAX_PROBLEMS {
        let err = match toml::from_str::<T>(&text) {
            Ok(value) if errors.is_empty() => return Ok(value),
            Ok(_) => break,
            Err(err) => err,
        };
        let span = err.span();
        let offset = span.as_ref().map_or(0, |span| span.start);
        let message = plain_words(err.message());
        // A missing field after a blanked line may be the line blanked.
        if !errors.is_empty() && message.starts_with("missing field") {
            break;
        }
        errors.push(source.error_at(offset, message));
        let Some(span) = span else { break };
        if !blank_lines(&mut text, span) || toml::from_str::<toml::Table>(&text).is_err() {
            break;
        }
    }
    Err(ConfigError::all(errors))
}

/// serde's message on one line, in TOML's words rather than Rust's: a
/// `NonZero*` value's "expected a nonzero usize" says "expected an integer
/// of at least 1", and an `IndexMap`'s "expected a map" "expected a table".
fn plain_words(message: &str) -> String {
    let mut message = message.trim_end().replace('\n', "; ");
    for kind in ["usize", "u64", "u32"] {
        message = message.replace(
            &format!("expected a nonzero {kind}"),
            "expected an integer of at least 1",
        );
    }
    message.replace("expected a map", "expected a table")
}

/// Replaces the lines `span` touches with spaces; false (and nothing
/// changed) when one of them is a table header or the span is empty.
fn blank_lines(text: &mut String, span: std::ops::Range<usize>) -> bool {
    let start = text[..span.start.min(text.len())]
        .rfind('\n')
        .map_or(0, |i| i + 1);
    let end = text[span.end.min(text.len())..]
        .find('\n')
        .map_or(text.len(), |i| span.end + i);
    if start >= end
        || text[start..end]
            .lines()
            .next()
            .is_some_and(|first| first.trim_start().starts_with('['))
    {
        return false;
    }
    let blank: String = text[start..end]
        .bytes()
        .map(|b| if b == b'\n' { '\n' } else { ' ' })
        .collect();
    text.replace_range(start..end, &blank);
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_mistake_is_reported_at_once() {
        let dir = tempfile::tempdir().unwrap();
        write(
            dir.path(),
            "proctor.toml",
            "python = 3\n\n[check]\nselect = \"PRC004\"\none-claim = true\ncolour = \"red\"\n\n[collect]\nthreads = 0\n",
        );
        let error = find(dir.path()).unwrap_err();
        let found: Vec<(usize, usize, &str)> = error
            .iter()
            .map(|e| (e.line, e.column, e.message.as_str()))
            .collect();
        assert_eq!(found.len(), 4, "{error}");
        assert_eq!((found[0].0, found[0].1), (1, 10));
        assert_eq!((found[1].0, found[1].1), (4, 10));
        assert_eq!((found[2].0, found[2].1), (6, 1));
        assert!(found[2].2.contains("unknown field `colour`"), "{error}");
        assert_eq!((found[3].0, found[3].1), (9, 11));
        assert!(found[3].2.contains("at least 1"), "{error}");
        // Consistency problems found after deserialization: all of them too.
        write(
            dir.path(),
            "proctor.toml",
            "[axes.tier]\nmarkers = [\"unit\"]\ndefault = \"none\"\n\n[axes.size]\nmarkers = [\"small\"]\ndefault = \"huge\"\n",
        );
        let error = find(dir.path()).unwrap_err();
        let lines: Vec<usize> = error.iter().map(|e| e.line).collect();
        assert_eq!(lines, [3, 7], "{error}");
    }

    #[test]
    fn opt_in_problems_are_at_their_values_in_either_file() {
        let dir = tempfile::tempdir().unwrap();
        let table = "paths = [\"docs\", \"/abs\", \"\"]\ncomment = \" \"\n";
        write(dir.path(), "proctor.toml", &format!("[examples]\n{table}"));
        let error = find(dir.path()).unwrap_err();
        let found: Vec<(usize, usize, &str)> = error
            .iter()
            .map(|e| (e.line, e.column, e.message.as_str()))
            .collect();
        assert_eq!(
            found,
            [
                (2, 18, "`/abs` must be relative to the rootdir"),
                (2, 26, "a path cannot be empty"),
                (3, 11, "`comment` cannot be empty"),
            ],
            "{error}"
        );
        assert_eq!(
            error.excerpt.as_deref(),
            Some("paths = [\"docs\", \"/abs\", \"\"]")
        );
        std::fs::remove_file(dir.path().join("proctor.toml")).unwrap();
        write(
            dir.path(),
            "pyproject.toml",
            &format!("[project]\nname = 'x'\n\n[tool.proctor.examples]\n{table}"),
        );
        let error = find(dir.path()).unwrap_err();
        let found: Vec<(usize, usize)> = error.iter().map(|e| (e.line, e.column)).collect();
        assert_eq!(found, [(5, 18), (5, 26), (6, 11)], "{error}");
        write(
            dir.path(),
            "pyproject.toml",
            "[tool.proctor.notebooks]\npaths = ['nb']\nmetadata-key = ''\n",
        );
        let error = find(dir.path()).unwrap_err();
        assert_eq!((error.line, error.column), (3, 16), "{error}");
        assert_eq!(error.message, "`metadata-key` cannot be empty");
        let (_, options) = {
            write(
                dir.path(),
                "pyproject.toml",
                "[tool.proctor.notebooks]\npaths = ['nb']\nmetadata-key = 'm'\n",
            );
            find(dir.path()).unwrap().unwrap()
        };
        assert_eq!(options.notebooks.dirs(), ["nb"]);
        assert_eq!(options.notebooks.metadata_key(), "m");
    }

    fn write(dir: &Path, name: &str, text: &str) {
        std::fs::write(dir.join(name), text).unwrap();
    }

    #[test]
    fn fixture_tables_keep_their_order_and_reject_unknown_keys() {
        let dir = tempfile::tempdir().unwrap();
        write(
            dir.path(),
            "proctor.toml",
            "[fixtures.pytester]\nmarkers = ['slow']\n\n[fixtures.db]\nmarkers = ['integration', 'slow']\n",
        );
        let (_, options) = find(dir.path()).unwrap().unwrap();
        let names: Vec<(&str, &[String])> = options
            .fixtures
            .iter()
            .map(|(name, f)| (name.as_str(), f.markers.as_slice()))
            .collect();
        assert_eq!(
            names,
            [
                ("pytester", &["slow".to_owned()][..]),
                ("db", &["integration".to_owned(), "slow".to_owned()][..])
            ]
        );
        write(
            dir.path(),
            "proctor.toml",
            "[fixtures.db]\nmark = ['slow']\n",
        );
        assert!(find(dir.path()).is_err());
    }

    #[test]
    fn proctor_toml_wins_over_pyproject_in_the_same_directory() {
        let dir = tempfile::tempdir().unwrap();
        write(
            dir.path(),
            "pyproject.toml",
            "[tool.proctor]\npython = 'py'\n",
        );
        write(
            dir.path(),
            "proctor.toml",
            "[collect]\nthreads = 2\nmax-file-size = 10\n",
        );
        let (path, options) = find(dir.path()).unwrap().unwrap();
        assert_eq!(path, dir.path().join("proctor.toml"));
        assert_eq!(
            options,
            ProctorOptions {
                python: None,
                collect: CollectOptions {
                    threads: NonZeroUsize::new(2),
                    max_file_size: NonZeroU64::new(10)
                },
                taxonomy: TaxonomyOptions::default(),
                select: SelectOptions::default(),
                profiles: Vec::new(),
                check: CheckOptions::default(),
                plan: PlanOptions::default(),
                run: RunOptions::default(),
                coverage: CoverageOptions::default(),
                examples: ExampleOptions::default(),
                notebooks: NotebookOptions::default(),
                fixtures: Vec::new(),
            }
        );
    }

    #[test]
    fn pyproject_without_table_is_skipped_and_parents_are_searched() {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("sub");
        std::fs::create_dir(&sub).unwrap();
        write(&sub, "pyproject.toml", "[project]\nname = 'x'\n");
        write(
            dir.path(),
            "pyproject.toml",
            "[tool.proctor]\npython = 'py'\n",
        );
        let (path, options) = find(&sub).unwrap().unwrap();
        assert_eq!(path, dir.path().join("pyproject.toml"));
        assert_eq!(options.python.as_deref(), Some("py"));
    }

    #[test]
    fn unknown_keys_and_bad_values_are_located() {
        let dir = tempfile::tempdir().unwrap();
        let check = |text: &str, line: usize, column: usize, needle: &str| {
            write(dir.path(), "proctor.toml", text);
            let error = find(dir.path()).unwrap_err();
            assert_eq!((error.line, error.column), (line, column), "{error}");
            assert!(error.message.contains(needle), "{error}");
            assert!(error.excerpt.is_some());
        };
        check("pyhton = 'x'\n", 1, 1, "unknown field `pyhton`");
        check("[collect]\nthreads = 0\n", 2, 11, "at least 1");
        check("[collect]\nthreads = -2\n", 2, 11, "invalid value");
        check(
            "[collect]\n\nmax-file-size = '1MB'\n",
            3,
            17,
            "invalid type",
        );
        check(
            "[collect]\nmax_file_size = 1\n",
            2,
            1,
            "unknown field `max_file_size`",
        );
        check("python = \n", 1, 10, "invalid TOML");
        check(
            "[check]\ntest-name = 'test_<a>_x'\n",
            2,
            13,
            "literal word `x`",
        );
        check(
            "[check]\nmirror = { tests = 'tests' }\n",
            2,
            10,
            "missing field `source`",
        );
        check(
            "[check]\none_claim = true\n",
            2,
            1,
            "unknown field `one_claim`",
        );
    }

    #[test]
    fn test_name_patterns_need_prefix_words_then_placeholders() {
        let pattern = TestNamePattern::parse("test_<subject>_<scenario>").unwrap();
        assert_eq!(pattern.prefix, ["test"]);
        assert!(pattern.matches("test_store_empty"));
        assert!(pattern.matches("test_store_empty_returns_none"));
        assert!(!pattern.matches("test_store"));
        assert!(!pattern.matches("check_store_empty"));
        assert!(!pattern.matches("test__store"));
        assert!(TestNamePattern::parse("test_plain").is_err());
        assert!(TestNamePattern::parse("test__<a>").is_err());
    }

    #[test]
    fn errors_in_pyproject_table_point_into_pyproject() {
        let dir = tempfile::tempdir().unwrap();
        write(
            dir.path(),
            "pyproject.toml",
            "[project]\nname = 'x'\n\n[tool.proctor.collect]\nthreads = 'many'\n",
        );
        let error = find(dir.path()).unwrap_err();
        assert_eq!(error.path, dir.path().join("pyproject.toml"));
        assert_eq!((error.line, error.column), (5, 11));
    }
}
