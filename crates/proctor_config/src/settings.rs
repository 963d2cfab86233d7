//! The entry point: pytest's configuration ([`proctor_pytest_config::load`])
//! and proctor's options ([`proctor_options::find`], from the rootdir pytest
//! decides), read together into one [`Settings`].

use std::path::PathBuf;

use proctor_config_file::{ConfigError, ConfigWarning};
use proctor_options::ProctorOptions;
use proctor_pytest_config::{LoadOptions, Loaded, PytestConfig};

/// Everything proctor knows about the configuration of one invocation.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// pytest's configuration, as pytest resolves it.
    pub pytest: PytestConfig,
    /// proctor's own options (defaults when no file has them).
    pub proctor: ProctorOptions,
    /// The file proctor's options came from, if any.
    pub proctor_file: Option<PathBuf>,
    /// Configurations that work but probably not as meant.
    pub warnings: Vec<ConfigWarning>,
}

/// Discovers and reads pytest's configuration and proctor's options.
pub fn load(opts: &LoadOptions) -> Result<Settings, ConfigError> {
    let mut found = None;
    let Loaded { pytest, warnings } = proctor_pytest_config::load(opts, &mut |rootdir| {
        found = proctor_options::find(rootdir)?;
        Ok(found
            .as_ref()
            .and_then(|(_, options)| options.python.clone()))
    })?;
    let (proctor_file, proctor) = match found {
        Some((path, options)) => (Some(path), options),
        None => (None, ProctorOptions::default()),
    };
    Ok(Settings {
        pytest,
        proctor,
        proctor_file,
        warnings,
    })
}
