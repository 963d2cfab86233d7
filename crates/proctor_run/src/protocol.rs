//! The bridge's messages: JSON lines from the plugin, one JSON answer from
//! proctor after collection.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value as Json};

/// One message from the plugin.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "event", rename_all = "kebab-case")]
pub(crate) enum Message {
    /// The plugin connected.
    Hello {
        /// The token proctor gave the process, to refuse strangers.
        token: String,
    },
    /// pytest collected these items; the plugin waits for the answer.
    Collected {
        /// In pytest's order.
        items: Vec<CollectedItem>,
    },
    /// The next test is in another module; the plugin waits for a line.
    Module {
        /// The module's path.
        module: String,
    },
    /// A test ended, with its reports (one message per test: the test
    /// running when a process dies is the first kept one not done).
    Done {
        /// Its node id.
        nodeid: String,
        /// Its reports, in order.
        reports: Vec<CompactReport>,
    },
    /// The session ended.
    SessionFinish {
        /// pytest's exit status.
        exitstatus: i32,
    },
}

/// An item as pytest collected it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CollectedItem {
    /// Its node id.
    pub nodeid: String,
    /// `item.iter_markers()`, closest first.
    #[serde(default)]
    pub markers: Vec<CollectedMarker>,
}

/// A marker as pytest has it at run time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CollectedMarker {
    /// Its name.
    pub name: String,
    /// Positional arguments (JSON literals; others as `{"repr": ...}`).
    #[serde(default)]
    pub args: Vec<Json>,
    /// Keyword arguments.
    #[serde(default)]
    pub kwargs: Map<String, Json>,
}

/// One phase's report.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Report {
    /// `setup`, `call` or `teardown`.
    pub(crate) when: String,
    /// `passed`, `failed` or `skipped`.
    pub(crate) outcome: String,
    pub(crate) duration: f64,
    pub(crate) longrepr: Option<String>,
    pub(crate) reason: Option<String>,
    pub(crate) wasxfail: Option<String>,
    #[serde(default)]
    pub(crate) sections: Vec<(String, String)>,
}

/// A report as the plugin sends it at a test's end: a passing phase as
/// `[when, outcome, duration]`, anything else in full.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub(crate) enum CompactReport {
    Full(Report),
    Passed(String, String, f64),
}

impl CompactReport {
    pub(crate) fn into_report(self) -> Report {
        match self {
            CompactReport::Full(report) => report,
            CompactReport::Passed(when, outcome, duration) => Report {
                when,
                outcome,
                duration,
                longrepr: None,
                reason: None,
                wasxfail: None,
                sections: Vec::new(),
            },
        }
    }
}

/// proctor's answer to a collection.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Decisions {
    /// Node ids to deselect.
    pub deselect: Vec<String>,
    /// Node ids to skip, with the reason.
    pub skip: BTreeMap<String, String>,
    /// The order to run the kept items in (empty: pytest's).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub order: Vec<String>,
    /// Node ids whose tests fail on a connection to a non-loopback address.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub no_network: Vec<String>,
}
