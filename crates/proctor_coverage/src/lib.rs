//! Per-area coverage thresholds over coverage.py's reports.
//!
//! [`read_report`] parses coverage.py's JSON report (`coverage json`) or a
//! Cobertura XML report (`coverage xml`) into one [`Report`]; [`evaluate`]
//! sums the files of each [`Area`], checks its minimums and, given a
//! baseline report, how much it changed; [`render_human`],
//! [`render_github`] and [`JsonOutput`] present the result. Nothing here
//! prints.

mod cobertura;
mod error;
mod evaluate;
mod json;
mod model;
mod read;
mod render;

pub use error::{AreaError, ReportError};
pub use evaluate::{
    evaluate, Area, AreaResult, Change, Evaluation, Finding, FindingKind, Metric, Verdict,
};
pub use model::{Counts, FileCoverage, Report, ReportFormat};
pub use read::{parse_report, read_report};
pub use render::{format_percent, render_github, render_human, JsonOutput, JSON_VERSION};
