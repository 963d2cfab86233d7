//! The persistent collection cache (`.proctor/cache/`): per test module
//! its content hash and the items collecting it produced, valid while its
//! bytes, everything they resolve against (conftests, the suite's shared
//! modules, the configuration, the target interpreter, proctor's build)
//! and the file-system answers its collection got are unchanged. A warm
//! collection reads `stat` data, re-collects only what changed, and gives
//! byte for byte what an uncached one gives.

pub(crate) mod fragment;
pub(crate) mod key;
pub(crate) mod probe;
pub(crate) mod store;

pub use store::clean;
