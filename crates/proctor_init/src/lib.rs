//! `proctor init`'s inference: a first, commented configuration from what
//! a suite already has. One module per source read — pytest's registered
//! markers and `addopts` ([`infer`]), the CI workflows ([`workflows`]) and
//! the shell scripts that run pytest ([`scripts`]), the
//! helpers' own source ([`helper_source`]) — the draft they fill
//! ([`draft`]) and its rendering as TOML ([`render`]). The conftest hooks
//! are read by `proctor_python`, where the Python parser lives. Nothing
//! here prints or writes files.

pub mod draft;
pub mod helper_source;
pub mod infer;
pub mod render;
pub mod scripts;
pub mod workflows;

pub use draft::Draft;
pub use infer::{infer, Inputs};
pub use render::{render, without_tool_proctor, Layout};
