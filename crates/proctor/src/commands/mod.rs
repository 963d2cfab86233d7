//! One module per command.

pub(crate) mod cache;
pub(crate) mod caps;
pub(crate) mod check;
pub(crate) mod ci;
pub(crate) mod collect;
pub(crate) mod completions;
pub(crate) mod config;
pub(crate) mod coverage;
pub(crate) mod explain;
pub(crate) mod init;
pub(crate) mod machine;
pub(crate) mod plan;
pub(crate) mod report;
pub(crate) mod rule;
pub(crate) mod run;
pub(crate) mod run_flags;
pub(crate) mod run_opt_in;
pub(crate) mod run_order;
pub(crate) mod run_plan;
pub(crate) mod run_progress;
pub(crate) mod run_report;
pub(crate) mod run_rules;
pub(crate) mod select;
pub(crate) mod selection;
pub(crate) mod suite;
