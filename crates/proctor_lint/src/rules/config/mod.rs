//! Suite-level rules about pytest's configuration files: tables pytest
//! ignores, and options that behave differently under bare pytest.

pub(crate) mod addopts_markexpr;
pub(crate) mod ignored_config_table;
