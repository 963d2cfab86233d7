//! The run history of `proctor run`: every run's per-test outcomes and
//! durations in a `SQLite` database (`.proctor/history.db`), and what that
//! history enables: shards balanced by recorded durations, tests that are
//! flaky across runs, and `slow` markers that disagree with the clock.
//!
//! The store keeps only what those uses need (node id, outcome, duration,
//! attempts, flaky, phase), never a test's output or failure message.

mod error;
mod outcome;
mod query;
mod redact;
mod schema;
mod shard;
mod slow;
mod stats;
mod store;

pub use error::HistoryError;
pub use query::{FlakyTest, StoredResult};
pub use redact::{redact_args, redact_text};
pub use shard::{plan_shards, shard, Shard, ShardError, ShardSpec};
pub use slow::{slow_findings, SlowFinding};
pub use store::{History, RunRecord, DEFAULT_PATH};
