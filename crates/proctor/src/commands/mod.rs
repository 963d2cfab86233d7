//! One module per command.

pub(crate) mod collect;
pub(crate) mod suite;
