//! What a test needs from the machine, where the need comes from, and
//! whether a machine meets it, with the skip reason a maintainer would
//! write when it does not.

use std::fmt;

use serde::Serialize;

use proctor_caps::normalize_name;

use crate::facts::Facts;

/// One thing a test needs.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Requirement {
    /// A GPU, with at least `vram_gb` GiB when given.
    Gpu {
        /// The least memory, in GiB.
        vram_gb: Option<f64>,
    },
    /// At least `gb` GiB of RAM.
    Ram {
        /// The least RAM, in GiB.
        gb: f64,
    },
    /// An environment variable that must be set (an API key).
    Env {
        /// Its name.
        name: String,
    },
    /// An installed distribution.
    Package {
        /// Its name as written.
        name: String,
    },
    /// A module the interpreter can import (`pytest.importorskip("yaml")`:
    /// a module's dotted name, not a distribution's).
    Module {
        /// Its dotted name as written.
        name: String,
    },
    /// At least this Python.
    Python {
        /// `(3, 11)`.
        min: (u32, u32),
    },
    /// A reachable service.
    Service {
        /// Its name in `[services]`.
        name: String,
    },
    /// A program on `PATH`.
    Binary {
        /// Its name.
        name: String,
    },
    /// A condition pytest evaluates at run time that proctor cannot read
    /// (`skipif` with a computed condition).
    Unknown {
        /// The condition as written.
        condition: String,
    },
    /// Skipped on these platforms (`sys.platform == "win32"` in a skipif).
    NotPlatform {
        /// `sys.platform` prefixes: `win32`, `darwin`, `linux`.
        platform: String,
    },
    /// Runs only on this platform.
    OnlyPlatform {
        /// A `sys.platform` prefix.
        platform: String,
    },
}

impl fmt::Display for Requirement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Requirement::Gpu { vram_gb: None } => f.write_str("a GPU"),
            Requirement::Gpu {
                vram_gb: Some(need),
            } => write!(f, "a GPU with {} GB", gb(*need)),
            Requirement::Ram { gb: need } => write!(f, "{} GB of RAM", gb(*need)),
            Requirement::Env { name } => write!(f, "{name} set"),
            Requirement::Package { name } => write!(f, "package {name}"),
            Requirement::Module { name } => write!(f, "module {name}"),
            Requirement::Python { min } => write!(f, "Python >= {}.{}", min.0, min.1),
            Requirement::Service { name } => write!(f, "service {name}"),
            Requirement::Binary { name } => write!(f, "{name} on PATH"),
            Requirement::Unknown { condition } => {
                write!(f, "not ({condition}), decided by pytest at run time")
            }
            Requirement::NotPlatform { platform } => write!(f, "not {platform}"),
            Requirement::OnlyPlatform { platform } => write!(f, "{platform} only"),
        }
    }
}

/// Where a requirement comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum NeedOrigin {
    /// `[needs.<marker>]` of an effective marker.
    Marker {
        /// The marker.
        name: String,
    },
    /// A project helper mapped in `[helpers]`, or `pytest.importorskip`.
    Helper {
        /// The helper's dotted path.
        path: String,
    },
    /// A `skipif` mark whose condition proctor reads.
    Skipif {
        /// The condition as written.
        condition: String,
    },
}

impl fmt::Display for NeedOrigin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NeedOrigin::Marker { name } => write!(f, "marker `{name}`"),
            NeedOrigin::Helper { path } => write!(f, "`{path}`"),
            NeedOrigin::Skipif { condition } => write!(f, "skipif({condition})"),
        }
    }
}

/// A requirement with its origin.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Need {
    /// What is needed.
    pub requirement: Requirement,
    /// Why.
    pub origin: NeedOrigin,
}

/// GPU and RAM needs, which `--skip-resource-checks` bypasses.
fn is_resource(requirement: &Requirement) -> bool {
    matches!(
        requirement,
        Requirement::Gpu { .. } | Requirement::Ram { .. }
    )
}

impl Requirement {
    /// `None` when `facts` meet it (or cannot tell), else the skip reason.
    #[must_use]
    pub fn unmet(&self, facts: &Facts) -> Option<String> {
        if facts.skip_resource_checks && is_resource(self) {
            return None;
        }
        match self {
            Requirement::Gpu { vram_gb } => match (facts.vram_gb(), vram_gb) {
                (None, None) => Some("no GPU detected".to_owned()),
                (None, Some(need)) => {
                    Some(format!("no GPU detected ({} GB VRAM required)", gb(*need)))
                }
                (Some(have), Some(need)) if have + 1e-9 < *need => Some(format!(
                    "Insufficient VRAM: {} GB < {} GB required",
                    gb(have),
                    gb(*need)
                )),
                _ => None,
            },
            Requirement::Ram { gb: need } => match facts.ram_gb {
                Some(have) if have + 1e-9 < *need => Some(format!(
                    "Insufficient RAM: {} GB < {} GB required",
                    gb(have),
                    gb(*need)
                )),
                _ => None,
            },
            Requirement::Env { name } => (!facts.env_set(name)).then(|| format!("{name} not set")),
            Requirement::Package { name } => match &facts.packages {
                Some(installed) if !installed.contains(&normalize_name(name)) => {
                    Some(format!("package {name} not installed"))
                }
                _ => None,
            },
            Requirement::Module { name } => {
                // A submodule of an importable package is left to pytest.
                let top = name.split('.').next().unwrap_or(name);
                let missing = match (&facts.modules, &facts.packages) {
                    (Some(modules), _) => !modules.contains(top),
                    // No module list (a CI job's runner, an assumed
                    // interpreter): the distribution of that name stands in.
                    (None, Some(installed)) => !installed.contains(&normalize_name(top)),
                    (None, None) => false,
                };
                // pytest's own reason for the skip.
                missing.then(|| format!("could not import '{name}': No module named '{top}'"))
            }
            Requirement::Python { min } => match facts.python {
                Some(have) if have < *min => Some(format!(
                    "requires Python >= {}.{} (running {}.{})",
                    min.0, min.1, have.0, have.1
                )),
                _ => None,
            },
            Requirement::Service { name } => match facts.services.get(name) {
                Some(service) if !service.up => Some(format!(
                    "service {name} not reachable at {}",
                    service.address
                )),
                None => Some(format!("service {name} not available")),
                Some(_) => None,
            },
            Requirement::Binary { name } => (facts.binaries.get(name) == Some(&false))
                .then(|| format!("{name} not found on PATH")),
            Requirement::Unknown { .. } => None,
            Requirement::NotPlatform { platform } => platform_matches(&facts.os, platform)
                .then(|| format!("not supported on {platform}")),
            Requirement::OnlyPlatform { platform } => (!facts.os.is_empty()
                && !platform_matches(&facts.os, platform))
            .then(|| format!("runs only on {platform}")),
        }
    }
}

/// Whether an OS name (`std::env::consts::OS`) is `sys.platform` prefix
/// `platform`.
fn platform_matches(os: &str, platform: &str) -> bool {
    let sys_platform = match os {
        "windows" => "win32",
        "macos" => "darwin",
        other => other,
    };
    !os.is_empty() && sys_platform.starts_with(platform)
}

/// `8`, `7.5`.
fn gb(value: f64) -> String {
    let rounded = (value * 10.0).round() / 10.0;
    if rounded.fract() == 0.0 {
        format!("{rounded:.0}")
    } else {
        format!("{rounded:.1}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(name: &str) -> Requirement {
        Requirement::Module {
            name: name.to_owned(),
        }
    }

    /// `pytest.importorskip` names a module: `yaml` is importable when
    /// distribution `PyYAML` is installed, and a missing one is skipped
    /// with pytest's own reason.
    #[test]
    fn modules_are_looked_up_as_modules_not_distributions() {
        let facts = Facts {
            packages: Some(["pyyaml", "python-dateutil"].map(str::to_owned).into()),
            modules: Some(["yaml", "dateutil", "os"].map(str::to_owned).into()),
            ..Facts::default()
        };
        assert_eq!(module("yaml").unmet(&facts), None);
        assert_eq!(module("dateutil.tz").unmet(&facts), None);
        assert_eq!(module("os.path").unmet(&facts), None);
        assert_eq!(
            module("numpy").unmet(&facts).as_deref(),
            Some("could not import 'numpy': No module named 'numpy'")
        );
        assert_eq!(
            module("numpy.linalg").unmet(&facts).as_deref(),
            Some("could not import 'numpy.linalg': No module named 'numpy'")
        );
        // Without a module list, the distribution of that name stands in;
        // without either, nothing is known and nothing is skipped.
        let packages_only = Facts {
            modules: None,
            ..facts
        };
        assert_eq!(module("pyyaml").unmet(&packages_only), None);
        assert!(module("yaml").unmet(&packages_only).is_some());
        assert_eq!(module("yaml").unmet(&Facts::default()), None);
        assert_eq!(module("yaml").to_string(), "module yaml");
    }
}
