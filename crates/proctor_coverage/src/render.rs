//! The evaluation for people (a table), for GitHub (workflow annotations)
//! and for programs (versioned JSON).

use std::fmt::Write;

use serde::Serialize;

use crate::evaluate::{format_minimum, AreaResult, Evaluation, Verdict};
use crate::model::{Report, ReportFormat};

/// The version of [`JsonOutput`]'s shape.
pub const JSON_VERSION: u32 = 1;

/// `proctor coverage --format json`.
#[derive(Debug, Serialize)]
pub struct JsonOutput<'e> {
    /// [`JSON_VERSION`].
    pub version: u32,
    /// The report's path as given.
    pub report: String,
    /// The report's format.
    pub format: ReportFormat,
    /// Whether the report measured branches.
    pub branch_coverage: bool,
    /// The baseline's path, if any.
    pub baseline: Option<String>,
    /// The allowed drop, in points.
    pub tolerance: f64,
    /// Whether every area passed.
    pub passed: bool,
    /// The evaluation: areas, findings, unmatched files.
    #[serde(flatten)]
    pub evaluation: &'e Evaluation,
}

/// A percentage with one decimal, rounded down so that a value below a
/// minimum never prints as the minimum (`89.96` is `89.9`).
#[must_use]
pub fn format_percent(value: f64) -> String {
    format!("{:.1}", ((value * 10.0) + 1e-6).floor() / 10.0)
}

/// The table of areas, then the findings, the files no area matches, and
/// a summary line.
#[must_use]
pub fn render_human(
    evaluation: &Evaluation,
    report_path: &str,
    report: &Report,
    baseline_path: Option<&str>,
) -> String {
    let mut out = String::new();
    let kind = match report.format {
        ReportFormat::CoveragePyJson => "coverage.py JSON",
        ReportFormat::Cobertura => "Cobertura XML",
    };
    let branch = if report.branch {
        "with branches"
    } else {
        "lines only"
    };
    let _ = writeln!(
        out,
        "report: {report_path} ({kind}, {branch}, {} files)",
        report.files.len()
    );
    if let Some(baseline) = baseline_path {
        let _ = writeln!(out, "baseline: {baseline}");
    }
    out.push('\n');
    let header = [
        "area", "files", "lines", "branches", "minimum", "change", "verdict",
    ];
    let rows: Vec<[String; 7]> = evaluation.areas.iter().map(row).collect();
    let widths: Vec<usize> = (0..header.len())
        .map(|i| {
            rows.iter()
                .map(|r| r[i].len())
                .chain([header[i].len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    // Names and verdicts are left-aligned, numbers right-aligned.
    let line = |cells: [&str; 7]| {
        let mut text = String::new();
        for (i, cell) in cells.iter().enumerate() {
            if i > 0 {
                text.push_str("  ");
            }
            if i == 0 || i == cells.len() - 1 {
                let _ = write!(text, "{cell:<width$}", width = widths[i]);
            } else {
                let _ = write!(text, "{cell:>width$}", width = widths[i]);
            }
        }
        text.trim_end().to_owned()
    };
    let _ = writeln!(out, "{}", line(header));
    for row in &rows {
        let _ = writeln!(out, "{}", line(row.each_ref().map(String::as_str)));
    }
    if !evaluation.findings.is_empty() {
        out.push('\n');
        for finding in &evaluation.findings {
            let _ = writeln!(out, "error: {}", finding.message);
        }
    }
    if !evaluation.unmatched.is_empty() {
        let count = evaluation.unmatched.len();
        let _ = writeln!(
            out,
            "\n{count} {} in no area:",
            if count == 1 { "file" } else { "files" }
        );
        for path in &evaluation.unmatched {
            let _ = writeln!(out, "  {path}");
        }
    }
    let failed = evaluation
        .areas
        .iter()
        .filter(|a| a.verdict == Verdict::Fail)
        .count();
    let total = evaluation.areas.len();
    if failed == 0 {
        let _ = writeln!(out, "\n{total} of {total} areas pass.");
    } else {
        let _ = writeln!(out, "\n{failed} of {total} areas fail.");
    }
    out
}

fn row(area: &AreaResult) -> [String; 7] {
    let minimum = match area.min_branch {
        Some(branch) => format!(
            "{}% / {}%",
            format_minimum(area.min_line),
            format_minimum(branch)
        ),
        None => format!("{}%", format_minimum(area.min_line)),
    };
    let (lines, branches) = if area.files == 0 {
        ("-".to_owned(), "-".to_owned())
    } else {
        (
            format!("{}%", format_percent(area.lines.percent())),
            area.branches.map_or_else(
                || "-".to_owned(),
                |b| format!("{}%", format_percent(b.percent())),
            ),
        )
    };
    let change = area.change.map_or_else(
        || "-".to_owned(),
        |change| match change.branches {
            Some(branches) => format!("{} / {}", signed(change.lines), signed(branches)),
            None => signed(change.lines),
        },
    );
    let verdict = match area.verdict {
        Verdict::Pass => "pass",
        Verdict::Fail => "FAIL",
    };
    [
        area.name.clone(),
        area.files.to_string(),
        lines,
        branches,
        minimum,
        change,
        verdict.to_owned(),
    ]
}

fn signed(points: f64) -> String {
    let rounded = (points * 10.0).round() / 10.0;
    if rounded == 0.0 {
        "0.0".to_owned()
    } else {
        format!("{rounded:+.1}")
    }
}

/// One `::error title=coverage::…` workflow command per finding, and a
/// `::notice` for files no area matches.
#[must_use]
pub fn render_github(evaluation: &Evaluation) -> String {
    let mut out = String::new();
    for finding in &evaluation.findings {
        let _ = writeln!(out, "::error title=coverage::{}", escape(&finding.message));
    }
    if !evaluation.unmatched.is_empty() {
        let _ = writeln!(
            out,
            "::notice title=coverage::{}",
            escape(&format!(
                "{} files in no area: {}",
                evaluation.unmatched.len(),
                evaluation.unmatched.join(", ")
            ))
        );
    }
    out
}

/// GitHub's escaping of workflow command data.
fn escape(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::evaluate::{evaluate, Area};
    use crate::model::{Counts, FileCoverage};

    fn fixture() -> (Report, Evaluation) {
        let file = |lines: (u64, u64), branches: (u64, u64)| FileCoverage {
            lines: Counts {
                covered: lines.0,
                total: lines.1,
            },
            branches: Counts {
                covered: branches.0,
                total: branches.1,
            },
        };
        let report = Report {
            format: ReportFormat::CoveragePyJson,
            branch: true,
            files: BTreeMap::from([
                ("src/indx/core/a.py".to_owned(), file((95, 100), (17, 20))),
                ("src/indx/adapters/b.py".to_owned(), file((17, 20), (1, 2))),
                ("src/indx/cli.py".to_owned(), file((0, 5), (0, 0))),
            ]),
        };
        let areas = [
            Area {
                name: "core".to_owned(),
                paths: vec!["src/indx/core/**".to_owned()],
                line: 90.0,
                branch: Some(80.0),
            },
            Area {
                name: "adapters".to_owned(),
                paths: vec!["src/indx/adapters/**".to_owned()],
                line: 87.5,
                branch: None,
            },
        ];
        let evaluation = evaluate(&report, &areas, None, 0.0).unwrap();
        (report, evaluation)
    }

    #[test]
    fn the_table_aligns_areas_and_lists_findings() {
        let (report, evaluation) = fixture();
        let text = render_human(&evaluation, "coverage.json", &report, None);
        assert_eq!(
            text,
            "report: coverage.json (coverage.py JSON, with branches, 3 files)\n\
             \n\
             area      files  lines  branches    minimum  change  verdict\n\
             core          1  95.0%     85.0%  90% / 80%       -  pass\n\
             adapters      1  85.0%     50.0%      87.5%       -  FAIL\n\
             \n\
             error: area adapters: lines 85.0% < 87.5%\n\
             \n\
             1 file in no area:\n  src/indx/cli.py\n\
             \n\
             1 of 2 areas fail.\n"
        );
    }

    #[test]
    fn github_annotations_carry_the_findings() {
        let (_, evaluation) = fixture();
        assert_eq!(
            render_github(&evaluation),
            "::error title=coverage::area adapters: lines 85.0%25 < 87.5%25\n\
             ::notice title=coverage::1 files in no area: src/indx/cli.py\n"
        );
    }

    #[test]
    fn percentages_round_down() {
        assert_eq!(format_percent(89.96), "89.9");
        assert_eq!(format_percent(90.0), "90.0");
        assert_eq!(format_percent(100.0), "100.0");
        assert_eq!(signed(-2.54), "-2.5");
        assert_eq!(signed(0.01), "0.0");
        assert_eq!(signed(1.0), "+1.0");
    }
}
