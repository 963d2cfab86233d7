//! Suite-level rules for conventions a project opts into with `[check]` in
//! proctor's options; each is off until its key is set.

pub(crate) mod multi_claim_test_name;
pub(crate) mod test_file_name;
pub(crate) mod test_name_shape;
pub(crate) mod unmirrored_test_file;
