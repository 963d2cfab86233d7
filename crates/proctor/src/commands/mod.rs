//! One module per command.

pub(crate) mod check;
pub(crate) mod collect;
pub(crate) mod explain;
pub(crate) mod rule;
pub(crate) mod select;
pub(crate) mod selection;
pub(crate) mod suite;
