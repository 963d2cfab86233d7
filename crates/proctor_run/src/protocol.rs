//! The bridge's messages: JSON lines from the plugin, one JSON answer from
//! proctor after collection.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value as Json};

/// One message from the plugin.
#[derive(Debug, Clone)]
pub(crate) enum Message {
    /// The plugin connected; it waits for the [`Setup`].
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
    /// A test ended and every phase passed (the common case, sent short).
    Passed {
        /// Its node id.
        nodeid: String,
        /// Setup, call and teardown together, in seconds.
        duration: f64,
    },
    /// A test ended, with its reports (one message per test: the test
    /// running when a process dies is the first kept one not done).
    Done {
        /// Its node id.
        nodeid: String,
        /// Its reports, in order.
        reports: Vec<Report>,
    },
    /// The session ended.
    SessionFinish {
        /// pytest's exit status.
        exitstatus: i32,
    },
    /// pytest ran its last hook (`pytest_unconfigure`): from here the
    /// interpreter only shuts down, which takes a large suite hundreds of
    /// milliseconds.
    Unconfigured {
        /// pytest's exit status, as `pytest.main` returns it.
        exitstatus: i32,
    },
}

/// Every field any message has, read in one pass: serde's tagged enums
/// buffer each message whole before reading it, which cost proctor more
/// than pytest spent sending.
#[derive(Deserialize)]
struct Wire {
    event: String,
    token: Option<String>,
    nodeid: Option<String>,
    /// A passed test's duration in nanoseconds: an integer, which Python
    /// writes for a fraction of what the shortest `repr` of a float costs.
    nanos: Option<u64>,
    reports: Option<Vec<Report>>,
    module: Option<String>,
    exitstatus: Option<i32>,
    ids: Option<Vec<String>>,
    #[serde(default)]
    groups: Vec<Vec<CollectedMarker>>,
    #[serde(default)]
    marks: Vec<usize>,
}

impl Message {
    /// The message on one line from the plugin; `None` for a line that is
    /// not one (a plugin newer than this proctor), which is skipped.
    pub(crate) fn parse(line: &[u8]) -> Option<Message> {
        let wire: Wire = serde_json::from_slice(line).ok()?;
        Some(match wire.event.as_str() {
            "hello" => Message::Hello { token: wire.token.unwrap_or_default() },
            "collected" => {
                // Each item's markers are one of the distinct lists in
                // `groups` (`marks` empty: all the first, no markers).
                let ids = wire.ids?;
                let no_markers = Vec::new();
                let items = ids
                    .into_iter()
                    .enumerate()
                    .map(|(i, nodeid)| {
                        let group = wire.marks.get(i).copied().unwrap_or(0);
                        CollectedItem { nodeid, markers: wire.groups.get(group).unwrap_or(&no_markers).clone() }
                    })
                    .collect();
                Message::Collected { items }
            }
            "module" => Message::Module { module: wire.module? },
            #[expect(clippy::cast_precision_loss, reason = "2^53 ns is over 100 days")]
            "passed" => Message::Passed { nodeid: wire.nodeid?, duration: wire.nanos? as f64 / 1e9 },
            "done" => Message::Done { nodeid: wire.nodeid?, reports: wire.reports? },
            "session-finish" => Message::SessionFinish { exitstatus: wire.exitstatus? },
            "unconfigured" => Message::Unconfigured { exitstatus: wire.exitstatus? },
            _ => return None,
        })
    }
}

/// What proctor tells the plugin when it connects, before pytest collects.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub(crate) struct Setup {
    /// Modules pytest need not import (absolute paths), as `--ignore`.
    pub(crate) ignore: Vec<String>,
    /// The manifest of opted-in examples and notebooks, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) opt_in: Option<String>,
    /// Pause before each module after the first (services' hooks).
    pub(crate) module_sync: bool,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_passed_test_is_timed_in_nanoseconds() {
        let parsed = Message::parse(br#"{"event":"passed","nodeid":"t.py::a","nanos":1500000000}"#);
        assert!(matches!(parsed, Some(Message::Passed { ref nodeid, duration }) if nodeid == "t.py::a" && (duration - 1.5).abs() < 1e-12), "{parsed:?}");
        assert!(Message::parse(br#"{"event":"passed","nodeid":"t.py::a","nanos":-1}"#).is_none());
        assert!(Message::parse(br#"{"event":"passed","nodeid":"t.py::a"}"#).is_none());
    }
}
