//! The one model both report formats are read into: covered and total
//! lines and branches per file.

use std::collections::BTreeMap;

use serde::Serialize;

/// Covered out of total (lines or branches).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// How many were executed.
    pub covered: u64,
    /// How many there are.
    pub total: u64,
}

impl Counts {
    /// `covered / total` in percent; 100 when there is nothing to cover, as
    /// coverage.py counts it.
    #[must_use]
    #[expect(clippy::cast_precision_loss, reason = "line counts are far below 2^52")]
    pub fn percent(self) -> f64 {
        if self.total == 0 {
            100.0
        } else {
            self.covered as f64 * 100.0 / self.total as f64
        }
    }
}

impl std::ops::AddAssign for Counts {
    fn add_assign(&mut self, other: Counts) {
        self.covered += other.covered;
        self.total += other.total;
    }
}

/// One measured file.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FileCoverage {
    /// Statements (coverage.py) or `<line>` elements (Cobertura).
    pub lines: Counts,
    /// Branch destinations; zero when branches were not measured.
    pub branches: Counts,
}

/// The format a report was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ReportFormat {
    /// coverage.py's `coverage json`.
    CoveragePyJson,
    /// Cobertura XML, as `coverage xml` writes it.
    Cobertura,
}

/// A coverage report: files by their path as the report writes it, with
/// `\` turned into `/` and a leading `./` removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// Where it was read from.
    pub format: ReportFormat,
    /// Whether branch coverage was measured (`coverage run --branch`).
    pub branch: bool,
    /// The measured files.
    pub files: BTreeMap<String, FileCoverage>,
}

impl Report {
    /// Makes absolute paths under `root` (a `/`-separated directory)
    /// relative to it, so that the areas' relative globs match them.
    pub fn relative_to(&mut self, root: &str) {
        let root = normalize_path(root);
        let root = root.trim_end_matches('/');
        let files = std::mem::take(&mut self.files);
        self.files = files
            .into_iter()
            .map(|(path, file)| {
                match path
                    .strip_prefix(root)
                    .and_then(|rest| rest.strip_prefix('/'))
                {
                    Some(rest) if !root.is_empty() => (rest.to_owned(), file),
                    _ => (path, file),
                }
            })
            .collect();
    }
}

/// The form in which paths are matched: `/`-separated, no leading `./`.
pub(crate) fn normalize_path(path: &str) -> String {
    let path = path.replace('\\', "/");
    let mut rest = path.as_str();
    while let Some(stripped) = rest.strip_prefix("./") {
        rest = stripped;
    }
    rest.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_of_nothing_is_full() {
        assert!(
            (Counts {
                covered: 0,
                total: 0
            }
            .percent()
                - 100.0)
                .abs()
                < f64::EPSILON
        );
        assert!(
            (Counts {
                covered: 1,
                total: 4
            }
            .percent()
                - 25.0)
                .abs()
                < f64::EPSILON
        );
    }

    #[test]
    fn absolute_paths_under_the_root_become_relative() {
        let mut report = Report {
            format: ReportFormat::CoveragePyJson,
            branch: false,
            files: BTreeMap::new(),
        };
        for path in ["/repo/src/a.py", "/repository/b.py", "c.py"] {
            report
                .files
                .insert(path.to_owned(), FileCoverage::default());
        }
        report.relative_to("/repo/");
        assert_eq!(
            report.files.keys().collect::<Vec<_>>(),
            ["/repository/b.py", "c.py", "src/a.py"]
        );
    }

    #[test]
    fn paths_are_normalized() {
        assert_eq!(normalize_path(r".\src\a.py"), "src/a.py");
        assert_eq!(normalize_path("././src/a.py"), "src/a.py");
    }
}
