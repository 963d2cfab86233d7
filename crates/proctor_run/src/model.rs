//! The [`Event`]s that a pytest session reports as it goes. The results
//! they carry are `proctor_outcome`'s.

use serde::{Deserialize, Serialize};

use proctor_outcome::TestResult;

/// What the runner reports as it goes, in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "kebab-case")]
pub enum Event {
    /// A pytest process starts (one per phase, and again after a crash).
    ProcessStarted {
        /// The phase, when the run has phases.
        phase: Option<String>,
        /// The command line, for `--verbose`.
        command: Vec<String>,
    },
    /// A pytest process exited (after its session, or in the middle of
    /// one).
    ProcessExited {
        /// Its exit status, when it exited on its own.
        status: Option<i32>,
        /// The signal that ended it, if one did.
        signal: Option<i32>,
    },
    /// pytest collected, proctor decided: how many run, skip, deselect.
    Collected {
        /// Items pytest collected in this process.
        collected: usize,
        /// Items proctor deselected.
        deselected: usize,
        /// Items proctor marked skipped (gates, needs).
        skipped: usize,
    },
    /// pytest is about to run the first test of another module (sent only
    /// with `PhaseOptions::module_sync`; pytest waits until the handler
    /// returns, so hooks between modules run in between).
    ModuleStarting {
        /// The module's path, as in node ids.
        module: String,
    },
    /// A test starts.
    TestStarted {
        /// Its node id.
        nodeid: String,
    },
    /// A test ended (after any reruns).
    TestFinished(TestResult),
    /// Something the user should know (drift between the static model and
    /// pytest, a rerun, a restarted process).
    Note {
        /// The message.
        message: String,
    },
}
