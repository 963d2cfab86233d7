//! `slow` markers checked against the clock: tests that take longer than
//! the threshold without being marked `slow`, and tests marked `slow` that
//! take less than a tenth of it.

use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};
use std::hash::BuildHasher;

use serde::{Deserialize, Serialize};

/// A disagreement between a test's `slow` marker and its recorded median
/// duration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum SlowFinding {
    /// Slower than the threshold, not marked `slow`.
    Unmarked {
        /// The node id.
        nodeid: String,
        /// Its median duration in seconds.
        median: f64,
    },
    /// Marked `slow`, faster than a tenth of the threshold.
    NotSlow {
        /// The node id.
        nodeid: String,
        /// Its median duration in seconds.
        median: f64,
    },
}

impl SlowFinding {
    /// The test's node id.
    #[must_use]
    pub fn nodeid(&self) -> &str {
        match self {
            SlowFinding::Unmarked { nodeid, .. } | SlowFinding::NotSlow { nodeid, .. } => nodeid,
        }
    }

    /// The test's median duration in seconds.
    #[must_use]
    pub fn median(&self) -> f64 {
        match self {
            SlowFinding::Unmarked { median, .. } | SlowFinding::NotSlow { median, .. } => *median,
        }
    }
}

/// The tests whose `slow` marker disagrees with their median duration
/// (`durations`, as [`crate::History::durations`] returns them): unmarked
/// tests slower than `threshold_s`, and tests in `marked_slow` faster than
/// `threshold_s / 10`. Tests without a recorded duration have no finding.
/// Sorted by duration, longest first, then by node id.
#[must_use]
pub fn slow_findings<S: BuildHasher, T: BuildHasher>(
    durations: &HashMap<String, f64, S>,
    marked_slow: &HashSet<String, T>,
    threshold_s: f64,
) -> Vec<SlowFinding> {
    let fast = threshold_s / 10.0;
    let mut findings: Vec<SlowFinding> = durations
        .iter()
        .filter_map(|(nodeid, &median)| {
            let nodeid = nodeid.clone();
            if marked_slow.contains(&nodeid) {
                (median < fast).then_some(SlowFinding::NotSlow { nodeid, median })
            } else {
                (median > threshold_s).then_some(SlowFinding::Unmarked { nodeid, median })
            }
        })
        .collect();
    findings.sort_by(|a, b| match b.median().total_cmp(&a.median()) {
        Ordering::Equal => a.nodeid().cmp(b.nodeid()),
        other => other,
    });
    findings
}

#[cfg(test)]
#[expect(clippy::float_cmp, reason = "the expected values are exact")]
mod tests {
    use super::*;

    #[test]
    fn finds_unmarked_slow_and_marked_fast_tests() {
        let durations: HashMap<String, f64> = [
            ("big", 30.0),
            ("also_big", 12.0),
            ("tie", 12.0),
            ("edge", 10.0),
            ("ok_slow", 5.0),
            ("fast_slow", 0.5),
            ("tiny_slow", 0.01),
            ("fast", 0.01),
        ]
        .into_iter()
        .map(|(n, d)| (n.to_owned(), d))
        .collect();
        let marked: HashSet<String> = ["ok_slow", "fast_slow", "tiny_slow", "no_history"]
            .into_iter()
            .map(str::to_owned)
            .collect();
        let findings = slow_findings(&durations, &marked, 10.0);
        assert_eq!(
            findings,
            vec![
                SlowFinding::Unmarked {
                    nodeid: "big".into(),
                    median: 30.0
                },
                SlowFinding::Unmarked {
                    nodeid: "also_big".into(),
                    median: 12.0
                },
                SlowFinding::Unmarked {
                    nodeid: "tie".into(),
                    median: 12.0
                },
                SlowFinding::NotSlow {
                    nodeid: "fast_slow".into(),
                    median: 0.5
                },
                SlowFinding::NotSlow {
                    nodeid: "tiny_slow".into(),
                    median: 0.01
                },
            ]
        );
        assert_eq!(findings[3].nodeid(), "fast_slow");
        assert_eq!(findings[3].median(), 0.5);
        assert!(slow_findings(&HashMap::new(), &marked, 10.0).is_empty());
    }
}
