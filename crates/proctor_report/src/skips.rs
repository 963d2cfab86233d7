//! Skipped tests grouped by reason, as pytest's `-rs` folds them, shared by
//! the terminal summary and the JSON report.

use std::collections::HashMap;

use proctor_outcome::{Outcome, TestResult};

/// The reason shown for a skip that carries none.
pub const NO_REASON: &str = "no reason given";

/// The skipped tests that share one reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkipGroup<'a> {
    /// The reason, without pytest's `Skipped: ` prefix.
    pub reason: &'a str,
    /// The node ids skipped for it, in run order.
    pub nodeids: Vec<&'a str>,
}

/// The skipped tests of `results` grouped by reason: the most frequent
/// reason first, ties in alphabetical order.
#[must_use]
pub fn skip_groups(results: &[TestResult]) -> Vec<SkipGroup<'_>> {
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut groups: Vec<SkipGroup<'_>> = Vec::new();
    for result in results.iter().filter(|r| r.outcome == Outcome::Skipped) {
        let reason = skip_reason(result);
        let slot = *index.entry(reason).or_insert_with(|| {
            groups.push(SkipGroup {
                reason,
                nodeids: Vec::new(),
            });
            groups.len() - 1
        });
        groups[slot].nodeids.push(&result.nodeid);
    }
    groups.sort_by(|a, b| {
        b.nodeids
            .len()
            .cmp(&a.nodeids.len())
            .then_with(|| a.reason.cmp(b.reason))
    });
    groups
}

/// A skip's reason as pytest prints it (`Skipped: ` removed), or
/// [`NO_REASON`].
pub(crate) fn skip_reason(result: &TestResult) -> &str {
    match result
        .reason
        .as_deref()
        .map(|r| r.strip_prefix("Skipped: ").unwrap_or(r))
    {
        Some(reason) if !reason.is_empty() => reason,
        _ => NO_REASON,
    }
}
