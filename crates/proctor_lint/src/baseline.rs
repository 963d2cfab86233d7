//! Findings baselines: the findings a suite had when it adopted a rule, so
//! that `proctor check --baseline FILE` reports only new ones.
//!
//! A finding is known by its code, file and message, not by its line: an
//! edit above a known finding moves it without making it new. Each entry
//! accounts for one finding, so a second identical finding in the same
//! file is new.

use rustc_hash::FxHashMap as HashMap;

use proctor_source::Diagnostic;
use serde_json::{json, Value};

use crate::LintError;

/// The version of the baseline file format.
pub const BASELINE_VERSION: u64 = 1;

/// Known findings, with how many of each.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Baseline {
    known: HashMap<(String, String, String), usize>,
}

impl Baseline {
    /// The baseline of `diagnostics` (all of them).
    #[must_use]
    pub fn of(diagnostics: &[Diagnostic]) -> Self {
        let mut known: HashMap<(String, String, String), usize> = HashMap::default();
        for d in diagnostics {
            *known
                .entry((d.code.to_owned(), d.file.clone(), d.message.clone()))
                .or_default() += 1;
        }
        Baseline { known }
    }

    /// Reads a baseline written by [`Baseline::to_json`].
    pub fn parse(text: &str) -> Result<Self, LintError> {
        let bad = |why: &str| LintError::BadBaseline(why.to_owned());
        let value: Value =
            serde_json::from_str(text).map_err(|err| LintError::BadBaseline(err.to_string()))?;
        if value.get("version").and_then(Value::as_u64) != Some(BASELINE_VERSION) {
            return Err(bad("not a version 1 baseline (`version` must be 1)"));
        }
        let findings = value
            .get("findings")
            .and_then(Value::as_array)
            .ok_or_else(|| bad("`findings` must be an array"))?;
        let mut known: HashMap<(String, String, String), usize> = HashMap::default();
        for finding in findings {
            let field = |name: &str| {
                finding
                    .get(name)
                    .and_then(Value::as_str)
                    .map(str::to_owned)
                    .ok_or_else(|| {
                        LintError::BadBaseline(format!("a finding without a string `{name}`"))
                    })
            };
            *known
                .entry((field("code")?, field("file")?, field("message")?))
                .or_default() += 1;
        }
        Ok(Baseline { known })
    }

    /// The baseline as JSON, findings sorted by file, code and message.
    #[must_use]
    pub fn to_json(&self) -> String {
        let mut entries: Vec<(&(String, String, String), &usize)> = self.known.iter().collect();
        entries.sort_by(|a, b| (&a.0 .1, &a.0 .0, &a.0 .2).cmp(&(&b.0 .1, &b.0 .0, &b.0 .2)));
        let findings: Vec<Value> = entries
            .into_iter()
            .flat_map(|((code, file, message), &count)| {
                std::iter::repeat_n(
                    json!({ "code": code, "file": file, "message": message }),
                    count,
                )
            })
            .collect();
        let mut text = serde_json::to_string_pretty(&json!({
            "version": BASELINE_VERSION,
            "findings": findings,
        }))
        .unwrap_or_default();
        text.push('\n');
        text
    }

    /// Removes the findings the baseline knows from `diagnostics`; returns
    /// how many were removed.
    pub fn filter(&self, diagnostics: &mut Vec<Diagnostic>) -> usize {
        let mut left = self.known.clone();
        let before = diagnostics.len();
        diagnostics.retain(|d| {
            let key = (d.code.to_owned(), d.file.clone(), d.message.clone());
            match left.get_mut(&key) {
                Some(count) if *count > 0 => {
                    *count -= 1;
                    false
                }
                _ => true,
            }
        });
        before - diagnostics.len()
    }
}

#[cfg(test)]
mod tests {
    use proctor_source::{LineColumn, Severity};

    use super::*;

    fn finding(line: usize, message: &str) -> Diagnostic {
        let at = LineColumn { line, column: 1 };
        Diagnostic::new(
            "PRC302",
            Severity::Warning,
            message.into(),
            "t.py".into(),
            at,
            at,
        )
    }

    #[test]
    fn known_findings_are_removed_wherever_they_moved() {
        let baseline = Baseline::of(&[finding(3, "a"), finding(9, "b")]);
        let read = Baseline::parse(&baseline.to_json()).unwrap();
        assert_eq!(read, baseline);
        let mut now = vec![finding(5, "a"), finding(6, "a"), finding(12, "c")];
        assert_eq!(read.filter(&mut now), 1);
        assert_eq!(now, vec![finding(6, "a"), finding(12, "c")]);
    }

    #[test]
    fn a_bad_baseline_says_why() {
        assert!(Baseline::parse("[]").is_err());
        assert!(Baseline::parse(r#"{"version": 1, "findings": [{"code": 1}]}"#).is_err());
        assert!(Baseline::parse("not json").is_err());
    }
}
