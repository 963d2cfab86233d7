//! Running a suite through real pytest: a bridge plugin hands pytest's
//! collected items to proctor, which answers with decisions (deselect,
//! skip with a reason, order) from the same taxonomy and plan code as the
//! static commands; results stream back per test. The runner restarts
//! pytest after a crash or a timeout so that no selected test is lost.

mod model;
mod outcome;
mod process;
mod protocol;
mod services;
mod session;

pub use model::Event;
pub use process::{kill_registered_groups, signal_name};
pub use proctor_outcome::{Outcome, RunSummary, TestResult};
pub use protocol::{CollectedItem, CollectedMarker, Decisions};
pub use services::{RunningService, ServiceError};
pub use session::{
    run_phase, start, Exiting, LateExit, PhaseOptions, PhaseOutcome, RunError, Started,
};
