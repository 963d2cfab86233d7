//! Areas against a report: which files each area covers, its summed
//! percentages, its minimums and, against a baseline, its change.

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use serde::Serialize;

use crate::error::AreaError;
use crate::model::{Counts, Report};

/// Drops smaller than this are rounding noise, not drops.
const EPSILON: f64 = 1e-9;

/// An area of the source tree and its minimums, as configured.
#[derive(Debug, Clone, PartialEq)]
pub struct Area {
    /// The area's name.
    pub name: String,
    /// Globs over the report's paths (`*` stays in a directory, `**`
    /// crosses them).
    pub paths: Vec<String>,
    /// Minimum line coverage, percent.
    pub line: f64,
    /// Minimum branch coverage, percent, if any.
    pub branch: Option<f64>,
}

/// Lines or branches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Metric {
    /// Line coverage.
    Lines,
    /// Branch coverage.
    Branches,
}

impl Metric {
    /// `lines` or `branches`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Metric::Lines => "lines",
            Metric::Branches => "branches",
        }
    }
}

/// Whether an area met its minimums and kept its level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Every minimum met, no drop.
    Pass,
    /// Below a minimum, dropped, or matching no file.
    Fail,
}

/// The change of an area since the baseline, in percentage points.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Change {
    /// Line coverage now minus line coverage then.
    pub lines: f64,
    /// The same for branches, when both reports measured them.
    pub branches: Option<f64>,
}

/// One area, evaluated.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AreaResult {
    /// The area's name.
    pub name: String,
    /// How many of the report's files it matches.
    pub files: usize,
    /// Their lines, summed.
    pub lines: Counts,
    /// Their branches, summed; `None` when the report has no branch data.
    pub branches: Option<Counts>,
    /// The configured line minimum.
    pub min_line: f64,
    /// The configured branch minimum.
    pub min_branch: Option<f64>,
    /// The change since the baseline; `None` without a baseline or when
    /// the area matched no file there.
    pub change: Option<Change>,
    /// Pass or fail.
    pub verdict: Verdict,
}

/// Why an area fails.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum FindingKind {
    /// The area matches no file of the report.
    NoFiles,
    /// Coverage is below the minimum.
    BelowMinimum {
        /// Lines or branches.
        metric: Metric,
        /// The coverage, percent.
        actual: f64,
        /// The minimum, percent.
        minimum: f64,
    },
    /// A branch minimum is set but the report did not measure branches.
    NoBranchData,
    /// Coverage dropped since the baseline by more than the tolerance.
    Dropped {
        /// Lines or branches.
        metric: Metric,
        /// The baseline's coverage, percent.
        before: f64,
        /// The coverage now, percent.
        after: f64,
    },
}

/// A reason for an area to fail, with its message.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    /// The area's name.
    pub area: String,
    /// What is wrong.
    #[serde(flatten)]
    pub kind: FindingKind,
    /// One line for people: `area core: lines 85.0% < 90%`.
    pub message: String,
}

/// Every area evaluated against one report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Evaluation {
    /// The areas, in configuration order.
    pub areas: Vec<AreaResult>,
    /// Every reason to fail, area by area.
    pub findings: Vec<Finding>,
    /// The report's files that no area matches (informational).
    pub unmatched: Vec<String>,
}

impl Evaluation {
    /// Whether every area passed.
    #[must_use]
    pub fn passed(&self) -> bool {
        self.findings.is_empty()
    }
}

/// Evaluates `areas` against `report` and, when given, against `baseline`:
/// an area fails below a minimum, when it matches no file, when a branch
/// minimum meets a report without branch data, and when it dropped by more
/// than `tolerance` points since the baseline.
pub fn evaluate(
    report: &Report,
    areas: &[Area],
    baseline: Option<&Report>,
    tolerance: f64,
) -> Result<Evaluation, AreaError> {
    let sets = areas.iter().map(compile).collect::<Result<Vec<_>, _>>()?;
    let mut results = Vec::new();
    let mut findings = Vec::new();
    for (area, set) in areas.iter().zip(&sets) {
        let (files, lines, branches) = sum(report, set);
        let branches = report.branch.then_some(branches);
        let mut kinds = Vec::new();
        let mut found = |kind: FindingKind| kinds.push(kind);
        if files == 0 {
            found(FindingKind::NoFiles);
        } else {
            if lines.percent() < area.line - EPSILON {
                found(FindingKind::BelowMinimum {
                    metric: Metric::Lines,
                    actual: lines.percent(),
                    minimum: area.line,
                });
            }
            match (area.branch, branches) {
                (Some(minimum), Some(branches)) if branches.percent() < minimum - EPSILON => {
                    found(FindingKind::BelowMinimum {
                        metric: Metric::Branches,
                        actual: branches.percent(),
                        minimum,
                    });
                }
                (Some(_), None) => found(FindingKind::NoBranchData),
                _ => {}
            }
        }
        let change = baseline.and_then(|baseline| {
            let (old_files, old_lines, old_branches) = sum(baseline, set);
            if files == 0 || old_files == 0 {
                return None;
            }
            let old_branches = baseline.branch.then_some(old_branches);
            let change = Change {
                lines: lines.percent() - old_lines.percent(),
                branches: branches
                    .zip(old_branches)
                    .map(|(now, then)| now.percent() - then.percent()),
            };
            if -change.lines > tolerance + EPSILON {
                found(FindingKind::Dropped {
                    metric: Metric::Lines,
                    before: old_lines.percent(),
                    after: lines.percent(),
                });
            }
            if let (Some(delta), Some(now), Some(then)) = (change.branches, branches, old_branches)
            {
                if -delta > tolerance + EPSILON {
                    found(FindingKind::Dropped {
                        metric: Metric::Branches,
                        before: then.percent(),
                        after: now.percent(),
                    });
                }
            }
            Some(change)
        });
        let verdict = if kinds.is_empty() {
            Verdict::Pass
        } else {
            Verdict::Fail
        };
        findings.extend(kinds.into_iter().map(|kind| Finding {
            area: area.name.clone(),
            message: message(&area.name, &kind),
            kind,
        }));
        results.push(AreaResult {
            name: area.name.clone(),
            files,
            lines,
            branches,
            min_line: area.line,
            min_branch: area.branch,
            change,
            verdict,
        });
    }
    let unmatched = report
        .files
        .keys()
        .filter(|path| !sets.iter().any(|set| set.is_match(path.as_str())))
        .cloned()
        .collect();
    Ok(Evaluation {
        areas: results,
        findings,
        unmatched,
    })
}

fn compile(area: &Area) -> Result<GlobSet, AreaError> {
    let mut builder = GlobSetBuilder::new();
    for glob in &area.paths {
        let glob = GlobBuilder::new(glob)
            .literal_separator(true)
            .build()
            .map_err(|err| AreaError::Glob {
                area: area.name.clone(),
                glob: glob.clone(),
                message: err.kind().to_string(),
            })?;
        builder.add(glob);
    }
    builder.build().map_err(|err| AreaError::Glob {
        area: area.name.clone(),
        glob: String::new(),
        message: err.to_string(),
    })
}

/// The number of files `set` matches and their summed lines and branches.
fn sum(report: &Report, set: &GlobSet) -> (usize, Counts, Counts) {
    let mut files = 0;
    let (mut lines, mut branches) = (Counts::default(), Counts::default());
    for (_, file) in report
        .files
        .iter()
        .filter(|(path, _)| set.is_match(path.as_str()))
    {
        files += 1;
        lines += file.lines;
        branches += file.branches;
    }
    (files, lines, branches)
}

fn message(area: &str, kind: &FindingKind) -> String {
    use crate::render::format_percent;
    match kind {
        FindingKind::NoFiles => format!("area {area}: no file of the report matches its paths"),
        FindingKind::BelowMinimum {
            metric,
            actual,
            minimum,
        } => {
            format!(
                "area {area}: {} {}% < {}%",
                metric.as_str(),
                format_percent(*actual),
                format_minimum(*minimum)
            )
        }
        FindingKind::NoBranchData => {
            format!("area {area}: a branch minimum is set but the report has no branch data (run coverage with --branch)")
        }
        FindingKind::Dropped {
            metric,
            before,
            after,
        } => format!(
            "area {area}: {} dropped {:.1} points ({}% -> {}%)",
            metric.as_str(),
            before - after,
            format_percent(*before),
            format_percent(*after)
        ),
    }
}

/// A configured minimum as written: `90`, `87.5`.
pub(crate) fn format_minimum(value: f64) -> String {
    if value.fract() == 0.0 {
        format!("{value:.0}")
    } else {
        format!("{value}")
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::model::{FileCoverage, ReportFormat};

    /// A file's path, (covered, total) lines and (covered, total) branches.
    type Row<'a> = (&'a str, (u64, u64), (u64, u64));

    fn report(branch: bool, files: &[Row<'_>]) -> Report {
        Report {
            format: ReportFormat::CoveragePyJson,
            branch,
            files: files
                .iter()
                .map(|(path, (lc, lt), (bc, bt))| {
                    (
                        (*path).to_owned(),
                        FileCoverage {
                            lines: Counts {
                                covered: *lc,
                                total: *lt,
                            },
                            branches: Counts {
                                covered: *bc,
                                total: *bt,
                            },
                        },
                    )
                })
                .collect::<BTreeMap<_, _>>(),
        }
    }

    fn area(name: &str, paths: &[&str], line: f64, branch: Option<f64>) -> Area {
        Area {
            name: name.to_owned(),
            paths: paths.iter().map(|p| (*p).to_owned()).collect(),
            line,
            branch,
        }
    }

    fn indx_areas() -> Vec<Area> {
        vec![
            area("core", &["src/indx/core/**"], 90.0, Some(80.0)),
            area("adapters", &["src/indx/adapters/**"], 80.0, None),
        ]
    }

    #[test]
    fn areas_sum_their_files_and_list_the_rest() {
        let report = report(
            true,
            &[
                ("src/indx/core/model.py", (45, 50), (9, 10)),
                ("src/indx/core/sub/context.py", (50, 50), (8, 10)),
                ("src/indx/adapters/qdrant.py", (30, 50), (0, 4)),
                ("src/indx/cli.py", (1, 10), (0, 0)),
                ("src/indx/core.py", (1, 10), (0, 0)),
            ],
        );
        let evaluation = evaluate(&report, &indx_areas(), None, 0.0).unwrap();
        let core = &evaluation.areas[0];
        assert_eq!(
            (core.files, core.lines, core.branches),
            (
                2,
                Counts {
                    covered: 95,
                    total: 100
                },
                Some(Counts {
                    covered: 17,
                    total: 20
                })
            )
        );
        assert_eq!(core.verdict, Verdict::Pass);
        let adapters = &evaluation.areas[1];
        assert_eq!(adapters.verdict, Verdict::Fail);
        assert_eq!(
            evaluation.unmatched,
            ["src/indx/cli.py", "src/indx/core.py"]
        );
        let messages: Vec<&str> = evaluation
            .findings
            .iter()
            .map(|f| f.message.as_str())
            .collect();
        assert_eq!(messages, ["area adapters: lines 60.0% < 80%"]);
        assert!(!evaluation.passed());
    }

    #[test]
    fn thresholds_apply_to_lines_and_branches() {
        let report = report(true, &[("src/indx/core/a.py", (89, 100), (79, 100))]);
        let evaluation = evaluate(&report, &indx_areas()[..1], None, 0.0).unwrap();
        let messages: Vec<&str> = evaluation
            .findings
            .iter()
            .map(|f| f.message.as_str())
            .collect();
        assert_eq!(
            messages,
            [
                "area core: lines 89.0% < 90%",
                "area core: branches 79.0% < 80%"
            ]
        );
        // Exactly at the minimum passes.
        let report = super::tests::report(true, &[("src/indx/core/a.py", (90, 100), (80, 100))]);
        assert!(evaluate(&report, &indx_areas()[..1], None, 0.0)
            .unwrap()
            .passed());
    }

    #[test]
    fn an_area_without_files_fails() {
        let report = report(false, &[("src/other.py", (1, 1), (0, 0))]);
        let evaluation = evaluate(&report, &indx_areas()[1..], None, 0.0).unwrap();
        assert_eq!(evaluation.findings[0].kind, FindingKind::NoFiles);
        assert_eq!(evaluation.areas[0].verdict, Verdict::Fail);
    }

    #[test]
    fn a_branch_minimum_needs_branch_data() {
        let report = report(false, &[("src/indx/core/a.py", (100, 100), (0, 0))]);
        let evaluation = evaluate(&report, &indx_areas()[..1], None, 0.0).unwrap();
        assert_eq!(evaluation.findings[0].kind, FindingKind::NoBranchData);
        assert_eq!(evaluation.areas[0].branches, None);
    }

    #[test]
    fn drops_beyond_the_tolerance_fail() {
        let before = report(
            true,
            &[
                ("src/indx/core/a.py", (98, 100), (90, 100)),
                ("src/indx/adapters/b.py", (85, 100), (0, 0)),
            ],
        );
        let after = report(
            true,
            &[
                ("src/indx/core/a.py", (95, 100), (91, 100)),
                ("src/indx/adapters/b.py", (85, 100), (0, 0)),
            ],
        );
        let evaluation = evaluate(&after, &indx_areas(), Some(&before), 0.0).unwrap();
        let change = evaluation.areas[0].change.unwrap();
        assert!((change.lines + 3.0).abs() < 1e-9);
        assert!((change.branches.unwrap() - 1.0).abs() < 1e-9);
        let messages: Vec<&str> = evaluation
            .findings
            .iter()
            .map(|f| f.message.as_str())
            .collect();
        assert_eq!(
            messages,
            ["area core: lines dropped 3.0 points (98.0% -> 95.0%)"]
        );
        assert_eq!(evaluation.areas[1].verdict, Verdict::Pass);
        assert!(evaluate(&after, &indx_areas(), Some(&before), 3.0)
            .unwrap()
            .passed());
        assert!(!evaluate(&after, &indx_areas(), Some(&before), 2.9)
            .unwrap()
            .passed());
    }

    #[test]
    fn areas_new_since_the_baseline_have_no_change() {
        let before = report(false, &[("src/indx/core/a.py", (98, 100), (0, 0))]);
        let after = report(
            false,
            &[
                ("src/indx/core/a.py", (98, 100), (0, 0)),
                ("src/indx/adapters/b.py", (85, 100), (0, 0)),
            ],
        );
        let evaluation = evaluate(&after, &indx_areas()[1..], Some(&before), 0.0).unwrap();
        assert_eq!(evaluation.areas[0].change, None);
        assert!(evaluation.passed());
    }

    #[test]
    fn invalid_globs_name_the_area() {
        let error = evaluate(
            &report(false, &[]),
            &[area("core", &["src/[x"], 1.0, None)],
            None,
            0.0,
        )
        .unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("area `core`: invalid glob `src/[x`"),
            "{error}"
        );
    }

    #[test]
    fn minimums_print_as_written() {
        assert_eq!(format_minimum(90.0), "90");
        assert_eq!(format_minimum(87.5), "87.5");
    }
}
