//! The machine-readable report of a run (`proctor run --json`): a versioned
//! document with the run's context, its totals, every test's result and
//! the skips grouped by reason, plus the optional [`ReportExtras`]; and
//! the same document read back ([`SavedReport`]) for `proctor report`.

use proctor_outcome::{RunSummary, TestResult};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::extras::ReportExtras;
use crate::skips::skip_groups;

/// The version of the JSON report's shape; it changes only when a field
/// changes meaning or goes away.
pub const JSON_REPORT_VERSION: u32 = 1;

/// The context of a run that the results alone do not tell.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReportMeta {
    /// proctor's version.
    pub proctor_version: String,
    /// When the run started, ISO-8601 in UTC (`2025-01-31T12:00:00Z`).
    pub started_at: String,
    /// The command line, program name first.
    pub command: Vec<String>,
    /// The selection as the user wrote it (`-m`, `-k`, tier, job), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selection: Option<String>,
    /// The seed of a random test order, if the order was random.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
}

impl ReportMeta {
    /// The meta with secret-looking values in the command line and the
    /// selection masked (`API_TOKEN=***`, `https://user:***@host`), as the
    /// history stores them: what every report shows.
    #[must_use]
    pub fn redacted(&self) -> ReportMeta {
        ReportMeta {
            command: proctor_history::redact_args(&self.command),
            selection: self.selection.as_deref().map(proctor_history::redact_text),
            ..self.clone()
        }
    }
}

/// The JSON report: `version`, `meta`, `summary` (the [`RunSummary`]
/// fields plus its pytest-style `line`), `tests` (each [`TestResult`] as
/// serialized) and `skips` (`{reason, count, tests}` per reason, most
/// frequent first), then the fields of `extras` that are present
/// (`tier_axis`, `jobs_by_tier`, `history`).
#[must_use]
pub fn json_report(
    results: &[TestResult],
    summary: &RunSummary,
    meta: &ReportMeta,
    extras: &ReportExtras,
) -> Value {
    let mut summary_value = to_value(summary);
    if let Value::Object(fields) = &mut summary_value {
        fields.insert("line".to_owned(), Value::String(summary.line()));
    }
    let skips: Vec<Value> = skip_groups(results)
        .into_iter()
        .map(|group| json!({ "reason": group.reason, "count": group.nodeids.len(), "tests": group.nodeids }))
        .collect();
    let mut report = json!({
        "version": JSON_REPORT_VERSION,
        "meta": to_value(meta.redacted()),
        "summary": summary_value,
        "tests": results.iter().map(to_value).collect::<Vec<_>>(),
        "skips": skips,
    });
    if let (Value::Object(fields), Value::Object(extra)) = (&mut report, to_value(extras)) {
        fields.extend(extra);
    }
    report
}

/// A JSON report read back: what [`json_report`] was given. `skips` and
/// the summary's `line` are left out, since they follow from the rest.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct SavedReport {
    /// The shape's version ([`JSON_REPORT_VERSION`] when written by this
    /// proctor).
    pub version: u32,
    /// The run's context.
    pub meta: ReportMeta,
    /// The run's totals.
    pub summary: RunSummary,
    /// Every test's result, in run order.
    pub tests: Vec<TestResult>,
    /// The tier axis, jobs × tiers and history, where the report has them.
    #[serde(flatten)]
    pub extras: ReportExtras,
}

/// `value` as JSON. The report's types have string keys only, so this
/// cannot fail; `null` stands in should that ever change.
fn to_value(value: impl Serialize) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}
