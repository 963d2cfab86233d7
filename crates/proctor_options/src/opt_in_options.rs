//! Options of the files that are tests only when they opt in: example
//! scripts with a `# pytest: e2e, ollama` comment near the top
//! (`[examples]`) and notebooks with a metadata block (`[notebooks]`), as
//! the Mellea document describes them.
//!
//! ```toml
//! [examples]
//! paths = ["docs/examples"]
//! comment = "# pytest:"
//! timeout = 600
//!
//! [notebooks]
//! paths = ["docs/examples/notebooks"]
//! metadata-key = "mellea"
//! cell-timeout = 300
//! timeout = 900
//! ```

use schemars::JsonSchema;
use serde::Deserialize;
use toml::Spanned;

use crate::proctor_options::Problem;
use crate::seconds::Seconds;
use proctor_config_file::KeyPath;

/// The comment an example opts in with when `comment` is not set.
pub const DEFAULT_EXAMPLE_COMMENT: &str = "# pytest:";
/// The notebook metadata key when `metadata-key` is not set.
pub const DEFAULT_METADATA_KEY: &str = "proctor";
/// Seconds one notebook cell may run when `cell-timeout` is not set
/// (nbmake's default).
pub const DEFAULT_CELL_TIMEOUT: f64 = 300.0;
/// Seconds a whole notebook may run when `timeout` is not set.
pub const DEFAULT_NOTEBOOK_TIMEOUT: f64 = 900.0;

/// `[examples]`: scripts that run as tests when they opt in.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct ExampleOptions {
    /// Directories (relative to the rootdir) whose `.py` files are examples
    /// (`paths`). A file there is a test only when it carries the opt-in
    /// comment; one without it is left to pytest as any other file.
    #[schemars(with = "Vec<String>")]
    pub paths: Vec<Spanned<String>>,
    /// The comment that opts a file in, followed by comma-separated marker
    /// names (`comment`, default `# pytest:`).
    #[schemars(with = "Option<String>")]
    pub comment: Option<Spanned<String>>,
    /// Seconds an example may run before it is killed and fails
    /// (`timeout`; default: no limit but `proctor run --timeout`).
    pub timeout: Option<Seconds>,
}

impl ExampleOptions {
    /// The opt-in comment.
    #[must_use]
    pub fn comment(&self) -> &str {
        self.comment
            .as_ref()
            .map_or(DEFAULT_EXAMPLE_COMMENT, |c| c.get_ref().as_str())
    }

    /// The example directories, as written.
    #[must_use]
    pub fn dirs(&self) -> Vec<String> {
        self.paths.iter().map(|p| p.get_ref().clone()).collect()
    }
}

/// `[notebooks]`: `.ipynb` files that run as tests.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct NotebookOptions {
    /// Directories (relative to the rootdir) whose `.ipynb` files are tests
    /// (`paths`).
    #[schemars(with = "Vec<String>")]
    pub paths: Vec<Spanned<String>>,
    /// The top-level notebook metadata key of the opt-in block
    /// (`metadata-key`, default `proctor`): `{"markers": [...],
    /// "packages": [...]}`.
    #[schemars(with = "Option<String>")]
    pub metadata_key: Option<Spanned<String>>,
    /// Seconds one cell may run (`cell-timeout`, default 300).
    pub cell_timeout: Option<Seconds>,
    /// Seconds the whole notebook may run (`timeout`, default 900); at
    /// least `cell-timeout`.
    pub timeout: Option<Seconds>,
}

impl NotebookOptions {
    /// The metadata key of the opt-in block.
    #[must_use]
    pub fn metadata_key(&self) -> &str {
        self.metadata_key
            .as_ref()
            .map_or(DEFAULT_METADATA_KEY, |k| k.get_ref().as_str())
    }

    /// The notebook directories, as written.
    #[must_use]
    pub fn dirs(&self) -> Vec<String> {
        self.paths.iter().map(|p| p.get_ref().clone()).collect()
    }

    /// Seconds one cell may run.
    #[must_use]
    pub fn cell_timeout(&self) -> f64 {
        self.cell_timeout.map_or(DEFAULT_CELL_TIMEOUT, Seconds::get)
    }

    /// Seconds the whole notebook may run.
    #[must_use]
    pub fn timeout(&self) -> f64 {
        self.timeout.map_or(DEFAULT_NOTEBOOK_TIMEOUT, Seconds::get)
    }
}

/// Every reason to refuse these options: empty or absolute paths, an
/// empty comment or key (each at its value), and a notebook timeout shorter
/// than one cell's (the per-cell budget could never be used: the pitfall
/// the Mellea document warns about).
pub(crate) fn problems(examples: &ExampleOptions, notebooks: &NotebookOptions) -> Vec<Problem> {
    let mut problems = Vec::new();
    for path in examples.paths.iter().chain(&notebooks.paths) {
        let text = path.get_ref();
        if text.trim().is_empty() {
            problems.push(Problem::at_value(path, "a path cannot be empty".to_owned()));
        } else if std::path::Path::new(text).is_absolute() {
            problems.push(Problem::at_value(
                path,
                format!("`{text}` must be relative to the rootdir"),
            ));
        }
    }
    let empty = |value: &Option<Spanned<String>>| {
        value
            .as_ref()
            .filter(|v| v.get_ref().trim().is_empty())
            .cloned()
    };
    if let Some(comment) = empty(&examples.comment) {
        problems.push(Problem::at_value(
            &comment,
            "`comment` cannot be empty".to_owned(),
        ));
    }
    if let Some(key) = empty(&notebooks.metadata_key) {
        problems.push(Problem::at_value(
            &key,
            "`metadata-key` cannot be empty".to_owned(),
        ));
    }
    if notebooks.timeout() < notebooks.cell_timeout() {
        let key = if notebooks.timeout.is_some() {
            "timeout"
        } else {
            "cell-timeout"
        };
        problems.push(Problem::at_key(
            KeyPath::default().key("notebooks").key(key),
            format!(
                "the notebook timeout ({} s) is shorter than one cell's ({} s): a cell could never use its budget; raise `timeout` with `cell-timeout`",
                notebooks.timeout(),
                notebooks.cell_timeout()
            ),
        ));
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_notebook_timeout_below_the_cell_timeout_is_refused() {
        let notebooks = NotebookOptions {
            cell_timeout: Some(Seconds::new(1200.0).unwrap()),
            ..NotebookOptions::default()
        };
        let found = problems(&ExampleOptions::default(), &notebooks);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].to_string(), "notebooks.cell-timeout");
        assert!(
            found[0]
                .message
                .contains("(900 s) is shorter than one cell's (1200 s)"),
            "{}",
            found[0].message
        );
        let fine = NotebookOptions {
            cell_timeout: Some(Seconds::new(600.0).unwrap()),
            timeout: Some(Seconds::new(1200.0).unwrap()),
            ..NotebookOptions::default()
        };
        assert!(problems(&ExampleOptions::default(), &fine).is_empty());
    }

    #[test]
    fn paths_must_be_relative_and_not_empty() {
        let examples = ExampleOptions {
            paths: vec![
                Spanned::new(10..12, String::new()),
                Spanned::new(14..20, "/abs".into()),
                Spanned::new(22..37, "docs/examples".into()),
            ],
            ..ExampleOptions::default()
        };
        let found: Vec<String> = problems(&examples, &NotebookOptions::default())
            .iter()
            .map(|p| format!("{p}: {}", p.message))
            .collect();
        assert_eq!(
            found,
            [
                "bytes 10..12: a path cannot be empty",
                "bytes 14..20: `/abs` must be relative to the rootdir"
            ]
        );
    }
}
