//! Rules over the marker taxonomy: axes, aliases, removed markers and the
//! rules of `[markers.<name>]`, checked against each test's effective
//! markers.

pub(crate) mod conflicting_markers;
pub(crate) mod default_marker_written;
pub(crate) mod deprecated_marker;
pub(crate) mod dynamic_item;
pub(crate) mod marker_outside_allowed_company;
pub(crate) mod marker_without_comment;
pub(crate) mod marker_without_required_companion;
pub(crate) mod missing_axis_marker;
pub(crate) mod removed_marker;
pub(crate) mod too_many_axis_markers;
pub(crate) mod wrong_marker_scope;
