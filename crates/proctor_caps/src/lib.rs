//! What a machine offers a pytest suite — platform, CPUs, RAM, GPUs, the
//! Python interpreter and its installed distributions, services, environment
//! variables and programs — detected quickly and without importing any
//! Python module, then adjusted by `--assume` entries.
//!
//! [`detect`] runs the independent probes concurrently; [`assume`] applies
//! overrides; [`render`] formats the result for a terminal and
//! [`Capabilities`] serializes to JSON. The values of environment variables
//! are never stored: only whether each one is set.

mod assume;
mod binaries;
mod cpu_memory;
mod detect;
mod env;
mod gpu;
mod interpreter;
mod model;
pub mod net;
mod packages;
mod process;
mod python;
mod render;
mod services;
mod site;

pub use assume::{assume, AssumeError, ASSUME_KEYS};
pub use detect::{detect, DetectOptions, ServiceProbe, SKIP_RESOURCE_CHECKS_ENV};
pub use interpreter::find_interpreter;
pub use model::{gib, gib_bytes, Capabilities, Gpu, Platform, Python, Service};
pub use packages::normalize_name;
pub use render::render;
pub use site::{interpreter_version, module_search_path, site_packages};
