//! Running a suite through real pytest: a bridge plugin hands pytest's
//! collected items to proctor, which answers with decisions (deselect,
//! skip with a reason, order) from the same taxonomy and plan code as the
//! static commands; results stream back per test. The runner restarts
//! pytest after a crash or a timeout so that no selected test is lost.
//! The [`Runner`] carries out a [`RunPlan`] phase by phase (services,
//! processes, reruns, drift) and reports [`RunEvent`]s, which every
//! reporter consumes through [`RunReporter`].

mod events;
pub mod interrupt;
mod model;
mod outcome;
mod plan;
mod process;
mod protocol;
mod runner;
mod services;
mod session;
mod workers;

pub use events::{Reporters, Results, RunEnd, RunEvent, RunReporter, StoredResult};
pub use model::Event;
pub use plan::{ItemPlan, PhasePlan, PlannedItem, RunPlan};
pub use process::{kill_registered_groups, signal_name};
pub use proctor_outcome::{MarkerNames, Outcome, RunSummary, TestResult};
pub use protocol::{AddedMarker, CollectedItem, CollectedMarker, Decisions};
pub use runner::{env_var, Decider, Finished, Runner, RunnerError};
pub use services::{RunningService, ServiceError};
pub use session::{
    run_phase, start, Exiting, LateExit, PhaseOptions, PhaseOutcome, RunError, Started,
};
pub use workers::{Dist, StealQueue};
