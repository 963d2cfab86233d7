//! Planning: what each test needs from the machine, which gates apply, and
//! — for this machine or for each CI job's runner — whether a test runs, is
//! deselected, or is skipped and why. Pure: machines come in as [`Facts`],
//! items and effective markers from collection and the taxonomy.
//!
//! - [`needs`] derives an item's requirements from `[needs.<marker>]`,
//!   project helpers in `[helpers]` (and `pytest.importorskip`), and
//!   `skipif` conditions that are standard idioms.
//! - [`decide`] gives an item's [`Verdict`] under a selection on a machine.
//! - [`plan_jobs`] does it for every job, with phases and the audit of
//!   tests that no job runs.

mod decide;
mod derive;
mod facts;
mod gate;
mod idioms;
mod jobs;
mod requirement;

pub use decide::{decide, Verdict};
pub use derive::needs;
pub use facts::{Facts, ServiceFact};
pub use gate::closed;
pub use idioms::skipif_requirement;
pub use jobs::{
    job_facts, job_selection, job_verdict, phase_names, plan_jobs, skip_reasons, ItemPlan,
    JobReport, JobSetup, Planned, NO_PHASE_MARKER,
};
pub use requirement::{Need, NeedOrigin, Requirement};
