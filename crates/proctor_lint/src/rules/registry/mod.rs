//! Suite-level rules about registering markers with pytest: markers used
//! but unknown, registered but unused, and `-m` expressions that name
//! markers nobody has.

pub(crate) mod unknown_marker_in_expression;
pub(crate) mod unregistered_marker;
pub(crate) mod unused_registered_marker;
