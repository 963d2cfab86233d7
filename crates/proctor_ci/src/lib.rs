//! The CI configuration `proctor ci` writes for the jobs declared in
//! `[jobs.<name>]`: pure functions from the configuration to text. Nothing
//! here reads files or prints; the `proctor` binary does.

mod github;

pub use github::{derived_markers, proctor_install, workflow, WorkflowOptions};

/// What runs the tests in a generated CI job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CiRunner {
    /// `proctor run --job NAME`: gates, phases and shards as configured.
    Proctor,
    /// A plain `pytest -m ... -k ... PATHS FLAGS` command.
    Pytest,
}
