//! coverage.py's JSON report (`coverage json`, format 2 and later):
//! `files.<path>.summary.{covered_lines, num_statements, covered_branches,
//! num_branches}` and `meta.branch_coverage`.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use crate::error::ReportError;
use crate::model::{normalize_path, Counts, FileCoverage, Report, ReportFormat};

const EXPECTED: &str = "coverage.py JSON";

pub(crate) fn parse(path: &Path, text: &str) -> Result<Report, ReportError> {
    let value: Value = serde_json::from_str(text).map_err(|err| ReportError::Malformed {
        path: path.to_owned(),
        format: "JSON",
        line: (err.line() > 0).then_some(err.line()),
        column: (err.column() > 0).then_some(err.column()),
        message: err
            .to_string()
            .split(" at line ")
            .next()
            .unwrap_or_default()
            .to_owned(),
    })?;
    let shape = |reason: String| ReportError::Shape {
        path: path.to_owned(),
        expected: EXPECTED,
        reason,
    };
    let root = value
        .as_object()
        .ok_or_else(|| shape("the top level is not an object".to_owned()))?;
    let branch = match root
        .get("meta")
        .and_then(|meta| meta.get("branch_coverage"))
    {
        None => false,
        Some(Value::Bool(branch)) => *branch,
        Some(_) => {
            return Err(shape(
                "`meta.branch_coverage` is not true or false".to_owned(),
            ))
        }
    };
    let files = root
        .get("files")
        .ok_or_else(|| shape("it has no `files` object".to_owned()))?
        .as_object()
        .ok_or_else(|| shape("`files` is not an object".to_owned()))?;
    let mut out = BTreeMap::new();
    for (name, file) in files {
        let summary = file
            .get("summary")
            .and_then(Value::as_object)
            .ok_or_else(|| shape(format!("`files.\"{name}\"` has no `summary` object")))?;
        let count = |key: &str, required: bool| -> Result<u64, ReportError> {
            match summary.get(key) {
                None if !required => Ok(0),
                Some(value) => value.as_u64().ok_or_else(|| {
                    shape(format!(
                        "`files.\"{name}\".summary.{key}` is not a whole number"
                    ))
                }),
                None => Err(shape(format!("`files.\"{name}\".summary` has no `{key}`"))),
            }
        };
        let lines = Counts {
            covered: count("covered_lines", true)?,
            total: count("num_statements", true)?,
        };
        let branches = Counts {
            covered: count("covered_branches", branch)?,
            total: count("num_branches", branch)?,
        };
        for (counts, what) in [(lines, "covered_lines"), (branches, "covered_branches")] {
            if counts.covered > counts.total {
                return Err(shape(format!(
                    "`files.\"{name}\".summary.{what}` exceeds the total"
                )));
            }
        }
        out.insert(normalize_path(name), FileCoverage { lines, branches });
    }
    Ok(Report {
        format: ReportFormat::CoveragePyJson,
        branch,
        files: out,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const REPORT: &str = r#"{
  "meta": {"format": 3, "version": "7.6.1", "branch_coverage": true, "show_contexts": false},
  "files": {
    "src/pkg/core/model.py": {
      "executed_lines": [1, 2, 4],
      "summary": {"covered_lines": 9, "num_statements": 10, "percent_covered": 85.0,
                  "missing_lines": 1, "excluded_lines": 0, "num_branches": 4,
                  "num_partial_branches": 1, "covered_branches": 3, "missing_branches": 1}
    },
    "./src\\pkg\\cli.py": {
      "summary": {"covered_lines": 0, "num_statements": 3, "num_branches": 0, "covered_branches": 0}
    }
  },
  "totals": {"covered_lines": 9, "num_statements": 13}
}"#;

    fn parse_text(text: &str) -> Result<Report, ReportError> {
        parse(Path::new("out/coverage.json"), text)
    }

    #[test]
    fn summaries_become_counts() {
        let report = parse_text(REPORT).unwrap();
        assert_eq!(report.format, ReportFormat::CoveragePyJson);
        assert!(report.branch);
        assert_eq!(
            report.files["src/pkg/core/model.py"],
            FileCoverage {
                lines: Counts {
                    covered: 9,
                    total: 10
                },
                branches: Counts {
                    covered: 3,
                    total: 4
                }
            }
        );
        assert_eq!(
            report.files["src/pkg/cli.py"].lines,
            Counts {
                covered: 0,
                total: 3
            }
        );
    }

    #[test]
    fn without_branch_coverage_branch_keys_may_be_absent() {
        let report = parse_text(
            r#"{"meta": {"branch_coverage": false}, "files": {"a.py": {"summary": {"covered_lines": 1, "num_statements": 2}}}}"#,
        )
        .unwrap();
        assert!(!report.branch);
        assert_eq!(report.files["a.py"].branches, Counts::default());
    }

    #[test]
    fn malformed_json_has_a_line_and_column() {
        let error = parse_text("{\n  \"files\": {,\n}").unwrap_err();
        let message = error.to_string();
        assert!(
            message.starts_with("malformed JSON in coverage report `out/coverage.json:2:"),
            "{message}"
        );
        assert!(!message.contains(" at line "), "{message}");
    }

    #[test]
    fn reports_of_the_wrong_shape_say_what_is_wrong() {
        let reason = |text: &str| parse_text(text).unwrap_err().to_string();
        assert!(reason("[]").contains("the top level is not an object"));
        assert!(reason(r#"{"meta": {}}"#)
            .contains("is not a coverage.py JSON report: it has no `files` object"));
        assert!(reason(r#"{"files": {"a.py": {}}}"#)
            .contains("`files.\"a.py\"` has no `summary` object"));
        assert!(
            reason(r#"{"files": {"a.py": {"summary": {"covered_lines": 1}}}}"#)
                .contains("has no `num_statements`")
        );
        assert!(reason(
            r#"{"files": {"a.py": {"summary": {"covered_lines": -1, "num_statements": 1}}}}"#
        )
        .contains("covered_lines` is not a whole number"));
        assert!(reason(r#"{"meta": {"branch_coverage": true}, "files": {"a.py": {"summary": {"covered_lines": 1, "num_statements": 1}}}}"#)
            .contains("has no `covered_branches`"));
        assert!(reason(
            r#"{"files": {"a.py": {"summary": {"covered_lines": 3, "num_statements": 1}}}}"#
        )
        .contains("exceeds the total"));
    }
}
