//! Cobertura XML (`coverage xml`): each `<class filename=...>` holds
//! `<lines><line number hits [branch condition-coverage="50% (1/2)"]>`;
//! lines and branches are counted from those elements, not taken from the
//! rounded `line-rate` and `branch-rate` attributes.

use std::collections::BTreeMap;
use std::path::Path;

use crate::error::ReportError;
use crate::model::{normalize_path, Counts, FileCoverage, Report, ReportFormat};

const EXPECTED: &str = "Cobertura XML";

/// One source line: executed or not, and its branches (covered, total).
#[derive(Clone, Copy, Default)]
struct LineState {
    hit: bool,
    branches: Option<(u64, u64)>,
}

pub(crate) fn parse(path: &Path, text: &str) -> Result<Report, ReportError> {
    let doc = roxmltree::Document::parse(text).map_err(|err| {
        let pos = err.pos();
        let message = err.to_string();
        ReportError::Malformed {
            path: path.to_owned(),
            format: "XML",
            line: Some(pos.row as usize),
            column: Some(pos.col as usize),
            message: message.split(" at ").next().unwrap_or(&message).to_owned(),
        }
    })?;
    let shape = |reason: String| ReportError::Shape {
        path: path.to_owned(),
        expected: EXPECTED,
        reason,
    };
    let root = doc.root_element();
    if root.tag_name().name() != "coverage" {
        return Err(shape(format!(
            "the root element is `<{}>`, not `<coverage>`",
            root.tag_name().name()
        )));
    }
    // Lines are merged per file: several classes may share one file.
    let mut files: BTreeMap<String, BTreeMap<u64, LineState>> = BTreeMap::new();
    let mut branch = root
        .attribute("branches-valid")
        .and_then(|v| v.parse::<u64>().ok())
        .is_some_and(|n| n > 0);
    for class in root.descendants().filter(|n| n.has_tag_name("class")) {
        let at = |what: &str| format!("line {}: {what}", doc.text_pos_at(class.range().start).row);
        let filename = class
            .attribute("filename")
            .ok_or_else(|| shape(at("`<class>` has no `filename`")))?;
        let lines = files.entry(normalize_path(filename)).or_default();
        // Only the class's own `<lines>`: those under `<methods>` repeat them.
        for line in class
            .children()
            .filter(|n| n.has_tag_name("lines"))
            .flat_map(|n| n.children())
            .filter(|n| n.has_tag_name("line"))
        {
            let at =
                |what: String| format!("line {}: {what}", doc.text_pos_at(line.range().start).row);
            let number = attribute_number(line, "number").map_err(|e| shape(at(e)))?;
            let hits = attribute_number(line, "hits").map_err(|e| shape(at(e)))?;
            let mut state = LineState {
                hit: hits > 0,
                branches: None,
            };
            if line.attribute("branch") == Some("true") {
                branch = true;
                let condition = line.attribute("condition-coverage").unwrap_or("100% (0/0)");
                state.branches = Some(condition_counts(condition).ok_or_else(|| {
                    shape(at(format!("bad `condition-coverage=\"{condition}\"`")))
                })?);
            }
            let merged = lines.entry(number).or_default();
            merged.hit |= state.hit;
            merged.branches = match (merged.branches, state.branches) {
                (Some(a), Some(b)) => Some(if a.0 >= b.0 { a } else { b }),
                (a, b) => a.or(b),
            };
        }
    }
    let files = files
        .into_iter()
        .map(|(name, lines)| {
            let mut coverage = FileCoverage::default();
            for state in lines.values() {
                coverage.lines += Counts {
                    covered: u64::from(state.hit),
                    total: 1,
                };
                if let Some((covered, total)) = state.branches {
                    coverage.branches += Counts { covered, total };
                }
            }
            (name, coverage)
        })
        .collect();
    Ok(Report {
        format: ReportFormat::Cobertura,
        branch,
        files,
    })
}

fn attribute_number(node: roxmltree::Node<'_, '_>, name: &str) -> Result<u64, String> {
    let value = node
        .attribute(name)
        .ok_or_else(|| format!("`<line>` has no `{name}`"))?;
    value
        .parse()
        .map_err(|_| format!("`{name}=\"{value}\"` is not a whole number"))
}

/// `50% (1/2)` → `(1, 2)`.
fn condition_counts(text: &str) -> Option<(u64, u64)> {
    let inner = text.split_once('(')?.1.strip_suffix(')')?;
    let (covered, total) = inner.split_once('/')?;
    let (covered, total) = (covered.trim().parse().ok()?, total.trim().parse().ok()?);
    (covered <= total).then_some((covered, total))
}

#[cfg(test)]
mod tests {
    use super::*;

    const REPORT: &str = r#"<?xml version="1.0" ?>
<coverage version="7.6.1" timestamp="1" lines-valid="7" lines-covered="5" line-rate="0.7143" branches-covered="2" branches-valid="4" branch-rate="0.5" complexity="0">
  <sources><source>/home/dev/project</source></sources>
  <packages>
    <package name="src.pkg.core" line-rate="0.75" branch-rate="0.5" complexity="0">
      <classes>
        <class name="model.py" filename="src/pkg/core/model.py" complexity="0" line-rate="0.75" branch-rate="0.5">
          <methods/>
          <lines>
            <line number="1" hits="1"/>
            <line number="2" hits="1" branch="true" condition-coverage="50% (1/2)" missing-branches="4"/>
            <line number="3" hits="0"/>
            <line number="5" hits="3" branch="true" condition-coverage="50% (1/2)" missing-branches="exit"/>
          </lines>
        </class>
      </classes>
    </package>
    <package name="src.pkg" line-rate="0.6667" branch-rate="1" complexity="0">
      <classes>
        <class name="cli.py" filename="src\pkg\cli.py" complexity="0" line-rate="0.6667" branch-rate="1">
          <methods>
            <method name="main" signature="()"><lines><line number="1" hits="1"/></lines></method>
          </methods>
          <lines>
            <line number="1" hits="1"/>
            <line number="2" hits="1"/>
            <line number="3" hits="0"/>
          </lines>
        </class>
      </classes>
    </package>
  </packages>
</coverage>
"#;

    fn parse_text(text: &str) -> Result<Report, ReportError> {
        parse(Path::new("out/coverage.xml"), text)
    }

    #[test]
    fn lines_and_branches_are_counted_from_line_elements() {
        let report = parse_text(REPORT).unwrap();
        assert_eq!(report.format, ReportFormat::Cobertura);
        assert!(report.branch);
        assert_eq!(
            report.files["src/pkg/core/model.py"],
            FileCoverage {
                lines: Counts {
                    covered: 3,
                    total: 4
                },
                branches: Counts {
                    covered: 2,
                    total: 4
                }
            }
        );
        // Method lines repeat the class's and are not counted twice.
        assert_eq!(
            report.files["src/pkg/cli.py"].lines,
            Counts {
                covered: 2,
                total: 3
            }
        );
        assert_eq!(report.files["src/pkg/cli.py"].branches, Counts::default());
    }

    #[test]
    fn classes_of_one_file_are_merged() {
        let report = parse_text(
            r#"<coverage><packages><package><classes>
                 <class filename="a.py"><lines><line number="1" hits="0"/><line number="2" hits="1"/></lines></class>
                 <class filename="a.py"><lines><line number="1" hits="2"/></lines></class>
               </classes></package></packages></coverage>"#,
        )
        .unwrap();
        assert!(!report.branch);
        assert_eq!(
            report.files["a.py"].lines,
            Counts {
                covered: 2,
                total: 2
            }
        );
    }

    #[test]
    fn malformed_xml_has_a_line_and_column() {
        let message = parse_text("<coverage>\n  <packages>\n</coverage>")
            .unwrap_err()
            .to_string();
        assert!(
            message.starts_with("malformed XML in coverage report `out/coverage.xml:3:"),
            "{message}"
        );
    }

    #[test]
    fn reports_of_the_wrong_shape_say_what_is_wrong() {
        let reason = |text: &str| parse_text(text).unwrap_err().to_string();
        assert!(reason("<report/>")
            .contains("is not a Cobertura XML report: the root element is `<report>`"));
        assert!(reason("<coverage><class/></coverage>").contains("`<class>` has no `filename`"));
        assert!(reason("<coverage>\n<class filename='a.py'><lines><line number='x' hits='1'/></lines></class></coverage>")
            .contains("line 2: `number=\"x\"` is not a whole number"));
        assert!(reason(
            "<coverage><class filename='a.py'><lines><line number='1'/></lines></class></coverage>"
        )
        .contains("`<line>` has no `hits`"));
        assert!(reason(
            "<coverage><class filename='a.py'><lines><line number='1' hits='1' branch='true' condition-coverage='odd'/></lines></class></coverage>"
        )
        .contains("bad `condition-coverage=\"odd\"`"));
    }

    #[test]
    fn condition_coverage_is_read_from_the_parentheses() {
        assert_eq!(condition_counts("50% (1/2)"), Some((1, 2)));
        assert_eq!(condition_counts("100% (4/4)"), Some((4, 4)));
        assert_eq!(condition_counts("50%"), None);
        assert_eq!(condition_counts("(3/2)"), None);
    }
}
