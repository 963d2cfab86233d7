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

use crate::seconds::Seconds;
use proctor_config_file::KeyPath;

use crate::taxonomy_options::TaxonomyProblem;

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
    pub paths: Vec<String>,
    /// The comment that opts a file in, followed by comma-separated marker
    /// names (`comment`, default `# pytest:`).
    pub comment: Option<String>,
    /// Seconds an example may run before it is killed and fails
    /// (`timeout`; default: no limit but `proctor run --timeout`).
    pub timeout: Option<Seconds>,
}

impl ExampleOptions {
    /// The opt-in comment.
    #[must_use]
    pub fn comment(&self) -> &str {
        self.comment.as_deref().unwrap_or(DEFAULT_EXAMPLE_COMMENT)
    }
}

/// `[notebooks]`: `.ipynb` files that run as tests.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct NotebookOptions {
    /// Directories (relative to the rootdir) whose `.ipynb` files are tests
    /// (`paths`).
    pub paths: Vec<String>,
    /// The top-level notebook metadata key of the opt-in block
    /// (`metadata-key`, default `proctor`): `{"markers": [...],
    /// "packages": [...]}`.
    pub metadata_key: Option<String>,
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
        self.metadata_key.as_deref().unwrap_or(DEFAULT_METADATA_KEY)
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
/// empty comment or key, and a notebook timeout shorter than one cell's
/// (the per-cell budget could never be used: the pitfall the Mellea
/// document warns about).
pub(crate) fn problems(
    examples: &ExampleOptions,
    notebooks: &NotebookOptions,
) -> Vec<TaxonomyProblem> {
    let mut problems = Vec::new();
    for (table, paths) in [
        ("examples", &examples.paths),
        ("notebooks", &notebooks.paths),
    ] {
        for (index, path) in paths.iter().enumerate() {
            let key = KeyPath::default().key(table).key("paths").index(index);
            if path.trim().is_empty() {
                problems.push(TaxonomyProblem {
                    key,
                    message: "a path cannot be empty".to_owned(),
                });
            } else if std::path::Path::new(path).is_absolute() {
                problems.push(TaxonomyProblem {
                    key,
                    message: format!("`{path}` must be relative to the rootdir"),
                });
            }
        }
    }
    if examples
        .comment
        .as_deref()
        .is_some_and(|c| c.trim().is_empty())
    {
        problems.push(TaxonomyProblem {
            key: KeyPath::default().key("examples").key("comment"),
            message: "`comment` cannot be empty".to_owned(),
        });
    }
    if notebooks
        .metadata_key
        .as_deref()
        .is_some_and(|k| k.trim().is_empty())
    {
        problems.push(TaxonomyProblem {
            key: KeyPath::default().key("notebooks").key("metadata-key"),
            message: "`metadata-key` cannot be empty".to_owned(),
        });
    }
    if notebooks.timeout() < notebooks.cell_timeout() {
        let key = if notebooks.timeout.is_some() {
            "timeout"
        } else {
            "cell-timeout"
        };
        problems.push(TaxonomyProblem {
            key: KeyPath::default().key("notebooks").key(key),
            message: format!(
                "the notebook timeout ({} s) is shorter than one cell's ({} s): a cell could never use its budget; raise `timeout` with `cell-timeout`",
                notebooks.timeout(),
                notebooks.cell_timeout()
            ),
        });
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
        assert_eq!(found[0].key.to_string(), "notebooks.cell-timeout");
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
            paths: vec![String::new(), "/abs".into(), "docs/examples".into()],
            ..ExampleOptions::default()
        };
        let found: Vec<String> = problems(&examples, &NotebookOptions::default())
            .into_iter()
            .map(|p| format!("{}: {}", p.key, p.message))
            .collect();
        assert_eq!(
            found,
            [
                "examples.paths[0]: a path cannot be empty",
                "examples.paths[1]: `/abs` must be relative to the rootdir"
            ]
        );
    }
}
