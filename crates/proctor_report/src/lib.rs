//! Reporters of `proctor run`: pure functions that turn the runner's
//! [`TestResult`](proctor_outcome::TestResult)s and
//! [`RunSummary`](proctor_outcome::RunSummary) into the terminal summary, the
//! versioned JSON report, pytest-compatible `JUnit` XML and a
//! self-contained HTML page. Nothing here prints or touches files: the
//! binary decides where each text goes.

mod ansi;
mod extras;
mod html;
mod json;
mod junit;
mod message;
mod skips;
mod terminal;
mod xml;

pub use extras::{HistoryExtract, JobTiers, ReportExtras, TierAxis, NO_TIER};
pub use html::{html_report, HTML_DATA_ID};
pub use json::{json_report, ReportMeta, SavedReport, JSON_REPORT_VERSION};
pub use junit::{junit_names, junit_xml};
pub use skips::{skip_groups, SkipGroup, NO_REASON};
pub use terminal::{progress_line, summary, SummaryOptions};
