//! `proctor report`: a saved JSON report (`proctor run --json`) rendered
//! again, as the HTML page `proctor run --html` writes.

use std::path::Path;

use anyhow::{bail, Context, Result};
use proctor_report::{SavedReport, JSON_REPORT_VERSION};

use crate::args::ReportArgs;
use crate::commands::run_report::write_file;
use crate::exit;

pub(crate) fn run(args: &ReportArgs) -> Result<u8> {
    let report = read_report(&args.from)?;
    let page =
        proctor_report::html_report(&report.tests, &report.summary, &report.meta, &report.extras);
    write_file(&args.html, &page)?;
    Ok(exit::OK)
}

/// The JSON report at `path`, checked to be of the version this proctor
/// writes.
fn read_report(path: &Path) -> Result<SavedReport> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the JSON report {}", path.display()))?;
    let value: serde_json::Value =
        serde_json::from_str(&text).with_context(|| format!("{} is not JSON", path.display()))?;
    match value.get("version").and_then(serde_json::Value::as_u64) {
        Some(version) if version == u64::from(JSON_REPORT_VERSION) => {}
        Some(version) => bail!(
            "{} is a version {version} report; this proctor reads version {JSON_REPORT_VERSION} (write it again with this proctor's `run --json`)",
            path.display()
        ),
        None => bail!("{} is not a proctor JSON report: it has no `version` (write one with `proctor run --json PATH`)", path.display()),
    }
    serde_json::from_value(value).with_context(|| {
        format!(
            "{} is not a proctor JSON report of version {JSON_REPORT_VERSION}",
            path.display()
        )
    })
}
