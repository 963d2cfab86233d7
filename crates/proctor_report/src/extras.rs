//! What a report shows beyond the results themselves: the tier axis, how
//! many of the run's tests each CI job selects per tier, and what the run
//! history says (flaky tests, median durations). The binary computes
//! these from the configuration, the plan and the history database; the
//! JSON report stores them (each field optional, so reports without them
//! still read back) and the HTML report renders them.

use std::collections::BTreeMap;

use proctor_history::FlakyTest;
use proctor_outcome::TestResult;
use serde::{Deserialize, Serialize};

/// The tier shown for a test with no marker of the tier axis, and the
/// column for such tests in the jobs × tiers matrix.
pub const NO_TIER: &str = "(none)";

/// The context of a run beyond its results. Every field is optional: an
/// empty `ReportExtras` adds nothing to the JSON report.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ReportExtras {
    /// The taxonomy axis that counts as the tier, if the suite has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tier_axis: Option<TierAxis>,
    /// For every configured job, in configuration order: the run's tests
    /// it selects, per tier.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub jobs_by_tier: Vec<JobTiers>,
    /// What the run history says about the run's tests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history: Option<HistoryExtract>,
}

/// The axis whose markers are the tiers: the axis named `tier`, else the
/// first `exactly-one` axis.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TierAxis {
    /// The axis's name.
    pub name: String,
    /// Its markers, in configuration order.
    pub markers: Vec<String>,
}

impl TierAxis {
    /// The tier of a test: the first of its markers that is a marker of
    /// the axis, else [`NO_TIER`].
    #[must_use]
    pub fn tier_of<'a>(&'a self, result: &TestResult) -> &'a str {
        result
            .markers
            .iter()
            .find_map(|marker| self.markers.iter().find(|tier| *tier == marker))
            .map_or(NO_TIER, String::as_str)
    }

    /// The columns of a per-tier table: the axis's markers, then
    /// [`NO_TIER`].
    #[must_use]
    pub fn columns(&self) -> Vec<&str> {
        self.markers
            .iter()
            .map(String::as_str)
            .chain(std::iter::once(NO_TIER))
            .collect()
    }
}

/// One job's row of the jobs × tiers matrix.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobTiers {
    /// The job's name in `[jobs]`.
    pub name: String,
    /// The run's tests the job selects (it runs them or skips them).
    pub selected: usize,
    /// Of those, how many per tier, in the order of [`TierAxis::columns`]
    /// (tiers with none left out).
    pub tiers: Vec<(String, usize)>,
}

/// What the history database says about the run's tests.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HistoryExtract {
    /// How many of each test's last runs were looked at.
    pub window: usize,
    /// Runs recorded in the history, this one included.
    pub runs: usize,
    /// The run's tests that the history finds flaky, most unstable first.
    #[serde(default)]
    pub flaky: Vec<FlakyTest>,
    /// The median duration of each of the run's tests over the window, in
    /// seconds (tests with no passed or failed result are absent).
    #[serde(default)]
    pub durations: BTreeMap<String, f64>,
}
