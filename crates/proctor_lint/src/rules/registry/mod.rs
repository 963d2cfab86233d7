//! Suite-level rules about registering markers with pytest: markers used
//! but unknown, registered but unused, `-m` expressions that name markers
//! nobody has, and configured helpers nothing resolves to.

pub(crate) mod unknown_marker_in_expression;
pub(crate) mod unregistered_marker;
pub(crate) mod unused_helper;
pub(crate) mod unused_registered_marker;
