//! One configuration file, as both halves of proctor's configuration read
//! it: pytest's files (`proctor_pytest_config`) and proctor's own options
//! (`proctor_options`).
//!
//! - [`ConfigFile`] reads a file the way Python's `open(…, encoding="utf-8")`
//!   does and locates byte offsets with `proctor_source`'s line index.
//! - [`TomlDoc`] parses TOML with the spans of keys and tables, and locates a
//!   [`KeyPath`] in it.
//! - [`ConfigError`] and [`ConfigWarning`] point at a [`ConfigLocation`] and
//!   render as `path:line:col: message`, or as a `proctor_source`
//!   diagnostic in every output format.

mod error;
mod source;
mod toml_doc;

pub use error::{ConfigError, ConfigLocation, ConfigWarning, NO_POSITION};
pub use source::ConfigFile;
pub use toml_doc::{is_table, to_value, KeyPath, KeySegment, TomlDoc};
