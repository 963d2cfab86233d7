//! Options of `proctor coverage` (`[coverage]`): where coverage.py's report
//! is, and the areas of the source tree with their minimum coverage.
//!
//! ```toml
//! [coverage]
//! report = "coverage.json"
//!
//! [[coverage.areas]]
//! name = "core"
//! paths = ["src/indx/core/**"]
//! line = 90
//! branch = 80
//! ```

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer};

use proctor_config_file::KeyPath;

use crate::taxonomy_options::{build_path_glob, TaxonomyProblem};

/// `[coverage]`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct CoverageOptions {
    /// The report read when the command line names none (`report`, relative
    /// to the directory of the options file; default `coverage.json`). A
    /// path ending in `.xml` is read as Cobertura XML, any other as
    /// coverage.py's JSON.
    pub report: Option<String>,
    /// The areas and their minimums (`[[coverage.areas]]`), in file order.
    pub areas: Vec<CoverageArea>,
}

/// One area of the source tree (`[[coverage.areas]]`).
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct CoverageArea {
    /// The area's name, unique and non-empty (`name`).
    pub name: String,
    /// Globs over the report's file paths, relative and `/`-separated; `*`
    /// stays within a directory, `**` crosses them (`paths`, at least one).
    pub paths: Vec<String>,
    /// Minimum line coverage in percent, 0 to 100 (`line`).
    #[serde(deserialize_with = "percent")]
    pub line: f64,
    /// Minimum branch coverage in percent, 0 to 100 (`branch`, optional).
    #[serde(default, deserialize_with = "optional_percent")]
    pub branch: Option<f64>,
}

impl CoverageOptions {
    /// Every reason to refuse these options, in file order: empty or
    /// repeated names, areas without paths, invalid globs.
    #[must_use]
    pub fn problems(&self) -> Vec<TaxonomyProblem> {
        let mut problems = Vec::new();
        for (index, area) in self.areas.iter().enumerate() {
            let key = KeyPath::default().key("coverage").key("areas").index(index);
            if area.name.trim().is_empty() {
                problems.push(TaxonomyProblem {
                    key: key.clone().key("name"),
                    message: "an area's `name` cannot be empty".to_owned(),
                });
            } else if self.areas[..index]
                .iter()
                .any(|other| other.name == area.name)
            {
                problems.push(TaxonomyProblem {
                    key: key.clone().key("name"),
                    message: format!("area `{}` is defined twice", area.name),
                });
            }
            if area.paths.is_empty() {
                problems.push(TaxonomyProblem {
                    key: key.clone().key("paths"),
                    message: format!("area `{}` needs at least one glob in `paths`", area.name),
                });
            }
            for (i, glob) in area.paths.iter().enumerate() {
                if let Err(err) = build_path_glob(glob) {
                    problems.push(TaxonomyProblem {
                        key: key.clone().key("paths").index(i),
                        message: format!("invalid glob `{glob}`: {}", err.kind()),
                    });
                }
            }
        }
        problems
    }
}

fn percent<'de, D: Deserializer<'de>>(deserializer: D) -> Result<f64, D::Error> {
    let value = f64::deserialize(deserializer)?;
    if (0.0..=100.0).contains(&value) {
        Ok(value)
    } else {
        Err(serde::de::Error::custom(format!(
            "a percentage must be between 0 and 100, not {value}"
        )))
    }
}

fn optional_percent<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<f64>, D::Error> {
    percent(deserializer).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<CoverageOptions, toml::de::Error> {
        toml::from_str(text)
    }

    #[test]
    fn areas_parse_with_optional_branch_minimum() {
        let options = parse(
            "report = 'cov.xml'\n[[areas]]\nname = 'core'\npaths = ['src/core/**']\nline = 90\nbranch = 80.5\n\
             [[areas]]\nname = 'adapters'\npaths = ['src/adapters/**']\nline = 80\n",
        )
        .unwrap();
        assert_eq!(options.report.as_deref(), Some("cov.xml"));
        assert_eq!(options.areas.len(), 2);
        assert!((options.areas[0].line - 90.0).abs() < f64::EPSILON);
        assert_eq!(options.areas[0].branch, Some(80.5));
        assert_eq!(options.areas[1].branch, None);
        assert!(options.problems().is_empty());
    }

    #[test]
    fn out_of_range_percentages_and_missing_minimums_are_refused() {
        let error = parse("[[areas]]\nname = 'a'\npaths = ['x']\nline = 101\n").unwrap_err();
        assert!(error.message().contains("between 0 and 100"), "{error}");
        let error =
            parse("[[areas]]\nname = 'a'\npaths = ['x']\nline = 50\nbranch = -1\n").unwrap_err();
        assert!(error.message().contains("between 0 and 100"), "{error}");
        let error = parse("[[areas]]\nname = 'a'\npaths = ['x']\n").unwrap_err();
        assert!(error.message().contains("missing field `line`"), "{error}");
    }

    #[test]
    fn names_paths_and_globs_are_checked() {
        let options = parse(
            "[[areas]]\nname = ''\npaths = ['x']\nline = 1\n\
             [[areas]]\nname = 'a'\npaths = []\nline = 1\n\
             [[areas]]\nname = 'a'\npaths = ['src/[x']\nline = 1\n",
        )
        .unwrap();
        let problems: Vec<String> = options.problems().iter().map(ToString::to_string).collect();
        assert_eq!(problems.len(), 4, "{problems:?}");
        assert!(problems[0].contains("cannot be empty"), "{problems:?}");
        assert!(problems[1].contains("at least one glob"), "{problems:?}");
        assert!(problems[2].contains("defined twice"), "{problems:?}");
        assert!(
            problems[3].contains("invalid glob `src/[x`"),
            "{problems:?}"
        );
    }

    #[test]
    fn problems_in_proctor_toml_are_located() {
        let dir = tempfile::tempdir().unwrap();
        let check = |text: &str, line: usize, column: usize, needle: &str| {
            std::fs::write(dir.path().join("proctor.toml"), text).unwrap();
            let error = crate::find(dir.path()).unwrap_err();
            assert_eq!((error.line, error.column), (line, column), "{error}");
            assert!(error.message.contains(needle), "{error}");
        };
        let area = "[[coverage.areas]]\nname = 'core'\npaths = ['src/core/**']\nline = 90\n";
        check(&format!("{area}{area}"), 6, 8, "defined twice");
        check(
            "[[coverage.areas]]\nname = 'a'\npaths = ['x']\nline = 120\n",
            4,
            8,
            "between 0 and 100",
        );
        check(
            "[[coverage.areas]]\nname = 'a'\npaths = ['x', 'a/[b']\nline = 1\n",
            3,
            15,
            "invalid glob",
        );
        check(
            "[coverage]\nreport = 'c.json'\nthreshold = 1\n",
            3,
            1,
            "unknown field `threshold`",
        );
    }
}
