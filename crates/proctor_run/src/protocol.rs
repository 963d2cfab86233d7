//! The bridge's messages: JSON lines from the plugin, one JSON answer from
//! proctor after collection. The plugin sends only valid JSON in UTF-8
//! (node ids with lone surrogates arrive as text, `\udcff`); a line that
//! is not is an error proctor reports, never one it skips.

use std::collections::BTreeMap;
use std::sync::Arc;

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
    /// pytest starts collecting a file or directory (sent only with
    /// [`Setup::progress`], so that a timeout bounds each import).
    Collecting {
        /// The collector's node id.
        nodeid: String,
    },
    /// A collector failed (a module that does not import): pytest counts
    /// an error.
    CollectError {
        /// The collector's node id (a module's path).
        nodeid: String,
        /// pytest's report of the failure.
        longrepr: String,
    },
    /// A collector was skipped as a whole while pytest imported it (a
    /// module-level `pytest.importorskip`, `pytest.skip(...,
    /// allow_module_level=True)`): pytest counts one skip.
    CollectSkip {
        /// The collector's node id (a module's path).
        nodeid: String,
        /// The skip's reason, as pytest's `-rs` prints it.
        reason: String,
    },
    /// pytest collected these items; the plugin waits for the answer.
    Collected {
        /// In pytest's order.
        items: Vec<CollectedItem>,
    },
    /// A hook after the plugin's reordered or dropped items: pytest runs
    /// these, in this order.
    Order {
        /// The node ids.
        ids: Vec<String>,
    },
    /// The next test is in another module; the plugin waits for a line.
    Module {
        /// The module's path.
        module: String,
    },
    /// A test starts (sent only when [`Setup::starts`] asks).
    Started {
        /// Its node id.
        nodeid: String,
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
        /// Its subtests' reports (pytest's `subtests` fixture), in order.
        subtests: Vec<Report>,
    },
    /// The session ended.
    SessionFinish {
        /// pytest's exit status.
        exitstatus: i32,
        /// Why the session ended before its last test, if it did
        /// (`pytest.exit`, a `KeyboardInterrupt`, `-x`), as pytest says it.
        stopped: Option<String>,
    },
    /// A worker (`-n`) is about to run the last test it holds and asks
    /// for more files; the plugin waits for [`More`], and
    /// collects the files it names into the same session.
    More,
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
    #[serde(default)]
    subtests: Vec<Report>,
    module: Option<String>,
    exitstatus: Option<i32>,
    longrepr: Option<String>,
    stopped: Option<String>,
    reason: Option<String>,
    ids: Option<Vec<String>>,
    /// The distinct markers of a collection, each once.
    #[serde(default)]
    markers: Vec<CollectedMarker>,
    /// The distinct lists of markers: indices into `markers`.
    #[serde(default)]
    groups: Vec<Vec<usize>>,
    /// Each item's list, an index into `groups`.
    #[serde(default)]
    marks: Vec<usize>,
}

/// A line from the plugin that is not a message proctor can read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unreadable(pub(crate) String);

impl std::fmt::Display for Unreadable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl Message {
    /// The message on one line from the plugin; `Ok(None)` for an event
    /// this proctor does not know (a newer plugin), which is skipped. A line
    /// that is not JSON, or a known event without its fields, is an error.
    pub(crate) fn parse(line: &[u8]) -> Result<Option<Message>, Unreadable> {
        let unreadable = |reason: &dyn std::fmt::Display| {
            const EXCERPT: usize = 200;
            let text = String::from_utf8_lossy(&line[..line.len().min(EXCERPT)]).into_owned();
            let more = if line.len() > EXCERPT { "..." } else { "" };
            Unreadable(format!("{reason}, in the line `{text}{more}`"))
        };
        let wire: Wire = serde_json::from_slice(line).map_err(|err| unreadable(&err))?;
        let missing = || {
            unreadable(&format_args!(
                "a `{}` message without its fields",
                wire.event
            ))
        };
        Ok(Some(match wire.event.as_str() {
            "hello" => Message::Hello {
                token: wire.token.unwrap_or_default(),
            },
            "collected" => {
                // Each item's markers are one of the distinct lists in
                // `groups` (`marks` empty: all the first, no markers), each
                // list of indices into the distinct `markers`: items share
                // their list, and lists their markers, as in pytest.
                let ids = wire.ids.ok_or_else(missing)?;
                let markers: Vec<Arc<CollectedMarker>> =
                    wire.markers.into_iter().map(Arc::new).collect();
                let groups = wire
                    .groups
                    .iter()
                    .map(|group| {
                        group
                            .iter()
                            .map(|&i| markers.get(i).cloned())
                            .collect::<Option<Arc<[_]>>>()
                    })
                    .collect::<Option<Vec<_>>>()
                    .ok_or_else(|| {
                        unreadable(
                            &"a `collected` message whose groups name markers it does not hold",
                        )
                    })?;
                let no_markers: Arc<[Arc<CollectedMarker>]> = Arc::new([]);
                let mut items = Vec::with_capacity(ids.len());
                for (i, nodeid) in ids.into_iter().enumerate() {
                    let group = wire.marks.get(i).copied().unwrap_or(0);
                    let markers =
                        match groups.get(group) {
                            Some(markers) => Arc::clone(markers),
                            None if groups.is_empty() && group == 0 => Arc::clone(&no_markers),
                            None => return Err(unreadable(
                                &"a `collected` message whose items name groups it does not hold",
                            )),
                        };
                    items.push(CollectedItem {
                        nodeid: nodeid.into(),
                        markers,
                    });
                }
                Message::Collected { items }
            }
            "collecting" => Message::Collecting {
                nodeid: wire.nodeid.ok_or_else(missing)?,
            },
            "collect-error" => Message::CollectError {
                nodeid: wire.nodeid.ok_or_else(missing)?,
                longrepr: wire.longrepr.unwrap_or_default(),
            },
            "collect-skip" => Message::CollectSkip {
                nodeid: wire.nodeid.ok_or_else(missing)?,
                reason: wire.reason.unwrap_or_default(),
            },
            "order" => Message::Order {
                ids: wire.ids.ok_or_else(missing)?,
            },
            "start" => Message::Started {
                nodeid: wire.nodeid.ok_or_else(missing)?,
            },
            "module" => Message::Module {
                module: wire.module.ok_or_else(missing)?,
            },
            #[expect(clippy::cast_precision_loss, reason = "2^53 ns is over 100 days")]
            "passed" => match (wire.nodeid, wire.nanos) {
                (Some(nodeid), Some(nanos)) => Message::Passed {
                    nodeid,
                    duration: nanos as f64 / 1e9,
                },
                _ => return Err(missing()),
            },
            "done" => match (wire.nodeid, wire.reports) {
                (Some(nodeid), Some(reports)) => Message::Done {
                    nodeid,
                    reports,
                    subtests: wire.subtests,
                },
                _ => return Err(missing()),
            },
            "session-finish" => Message::SessionFinish {
                exitstatus: wire.exitstatus.ok_or_else(missing)?,
                stopped: wire.stopped,
            },
            "more" => Message::More,
            "unconfigured" => Message::Unconfigured {
                exitstatus: wire.exitstatus.ok_or_else(missing)?,
            },
            _ => return Ok(None),
        }))
    }
}

/// What proctor tells the plugin when it connects, before pytest collects.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[expect(
    clippy::struct_excessive_bools,
    reason = "the wire message to the plugin: each flag is a JSON field the plugin reads on its own"
)]
pub(crate) struct Setup {
    /// Modules pytest need not import (absolute paths), as `--ignore`.
    pub(crate) ignore: Vec<String>,
    /// The manifest of opted-in examples and notebooks, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) opt_in: Option<String>,
    /// Pause before each module after the first (services' hooks).
    pub(crate) module_sync: bool,
    /// Collect only these node ids (as the plugin sent them), as if they
    /// were the command line's: the tests still to run after a crash, or
    /// the failures to rerun.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) only: Option<Vec<String>>,
    /// Send [`Message::Collecting`] (a timeout applies).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(crate) progress: bool,
    /// Send [`Message::Started`] for each test (a progress line shows the
    /// running test).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(crate) starts: bool,
    /// Ask for more files before the last test ([`Message::More`]).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(crate) steal: bool,
}

/// proctor's answer to [`Message::More`]: absolute paths of the files
/// to collect next, none when the worker is done.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub(crate) struct More {
    pub(crate) files: Vec<String>,
}

/// An item as pytest collected it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CollectedItem {
    /// Its node id: one text shared by whatever holds the item's id while
    /// pytest runs (the session's kept and finished tests, the decider's
    /// markers), not a copy each.
    pub nodeid: Arc<str>,
    /// `item.iter_markers()`, closest first: one list shared by the items
    /// that have the same markers (a parametrized function's calls), each
    /// marker shared by the lists that hold it.
    #[serde(default = "no_markers")]
    pub markers: Arc<[Arc<CollectedMarker>]>,
}

fn no_markers() -> Arc<[Arc<CollectedMarker>]> {
    Arc::new([])
}

/// A marker as pytest has it at run time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CollectedMarker {
    /// Its name.
    pub name: String,
    /// Positional arguments: JSON literals; others as `{"repr": ...}`, a
    /// repr cut to 200 characters (so is a container past 1,000 elements);
    /// `parametrize`'s argument values as `{"argvalues": COUNT}`, never the
    /// values themselves.
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
    /// A skip's place as pytest's `-rs` summary folds it: the path
    /// relative to the invocation directory, and the line unless pytest
    /// folds a skip marker's skips per file.
    #[serde(default)]
    pub(crate) location: Option<(String, Option<u64>)>,
    /// A subtest's description, as pytest titles it (`[msg] (i=1)`).
    #[serde(default)]
    pub(crate) description: Option<String>,
    /// A subtest's category in pytest's terminal stats (`failed`,
    /// `subtests passed`; empty: not counted).
    #[serde(default)]
    pub(crate) category: Option<String>,
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
    /// Markers the path rules add to the items of these files, in order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub markers: Vec<AddedMarker>,
}

/// A marker a path rule adds to every item collected from `files`, unless
/// the item has it already (by name; a marker with arguments, with the
/// same arguments).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct AddedMarker {
    /// The marker's name.
    pub name: String,
    /// Positional arguments, as JSON.
    pub args: Vec<serde_json::Value>,
    /// Keyword arguments; `None` for a marker given by name alone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kwargs: Option<serde_json::Map<String, serde_json::Value>>,
    /// The files (the part of a node id before `::`).
    pub files: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_passed_test_is_timed_in_nanoseconds() {
        let parsed = Message::parse(br#"{"event":"passed","nodeid":"t.py::a","nanos":1500000000}"#);
        assert!(
            matches!(parsed, Ok(Some(Message::Passed { ref nodeid, duration })) if nodeid == "t.py::a" && (duration - 1.5).abs() < 1e-12),
            "{parsed:?}"
        );
        assert!(Message::parse(br#"{"event":"passed","nodeid":"t.py::a","nanos":-1}"#).is_err());
        assert!(Message::parse(br#"{"event":"passed","nodeid":"t.py::a"}"#).is_err());
    }

    #[test]
    fn a_line_that_is_not_a_message_is_an_error_and_an_unknown_event_is_skipped() {
        let surrogate = Message::parse(br#"{"event":"passed","nodeid":"t\udcff.py::a","nanos":1}"#)
            .unwrap_err();
        assert!(
            surrogate.0.contains("lone leading surrogate") || surrogate.0.contains("surrogate"),
            "{surrogate}"
        );
        assert!(
            surrogate.0.contains(r#"in the line `{"event":"passed""#),
            "{surrogate}"
        );
        assert!(Message::parse(b"NaN").is_err());
        assert!(matches!(
            Message::parse(br#"{"event":"from-a-newer-plugin"}"#),
            Ok(None)
        ));
    }
}
