//! `--assume KEY=VALUE`: overriding what was detected, to plan for another
//! machine (a CI runner with a GPU) or to pretend a service is up.

use std::collections::BTreeMap;

use crate::model::{gib_bytes, parse_major_minor, Capabilities, Gpu, Python, Service};

/// The keys `--assume` accepts, with the values each takes.
pub const ASSUME_KEYS: &[(&str, &str)] = &[
    ("gpu.count", "N: N identical GPUs (0 removes them)"),
    (
        "gpu.vram_gb",
        "N GiB for every GPU (one assumed GPU if there is none; 0 removes them)",
    ),
    ("ram_gb", "N GiB of RAM"),
    ("cpus", "N CPUs, 1 or more"),
    ("service.NAME", "up|down"),
    ("env.NAME", "set|unset"),
    ("package.NAME", "VERSION|absent"),
    ("python.version", "X.Y or X.Y.Z"),
    ("binary.NAME", "present|absent"),
    ("platform.os", "linux, macos, windows, ..."),
    ("platform.arch", "x86_64, aarch64, ..."),
];

/// Where assumed things come from, in `vendor`, `executable`, `source` and
/// binary paths.
const ASSUMED: &str = "assumed";

/// An `--assume` entry that cannot be applied.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AssumeError {
    /// The entry is not `KEY=VALUE`.
    #[error("`--assume {entry}` is not KEY=VALUE (keys: {keys})", keys = key_list())]
    NotKeyValue {
        /// The entry as given.
        entry: String,
    },
    /// The key is not one of [`ASSUME_KEYS`].
    #[error("`--assume {entry}`: unknown key `{key}` (keys: {keys})", keys = key_list())]
    UnknownKey {
        /// The entry as given.
        entry: String,
        /// Its key.
        key: String,
    },
    /// The value does not fit the key.
    #[error("`--assume {entry}`: `{key}` takes {expected}")]
    BadValue {
        /// The entry as given.
        entry: String,
        /// Its key.
        key: String,
        /// What the key accepts.
        expected: &'static str,
    },
}

fn key_list() -> String {
    ASSUME_KEYS
        .iter()
        .map(|(key, _)| *key)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Applies `entries` in order, recording each in
/// [`Capabilities::assumed`]; stops at the first entry that cannot be
/// applied.
pub fn assume(caps: &mut Capabilities, entries: &[String]) -> Result<(), AssumeError> {
    for entry in entries {
        apply(caps, entry)?;
        caps.assumed.push(entry.clone());
    }
    Ok(())
}

fn apply(caps: &mut Capabilities, entry: &str) -> Result<(), AssumeError> {
    let (key, value) = entry
        .split_once('=')
        .map(|(k, v)| (k.trim(), v.trim()))
        .filter(|(k, _)| !k.is_empty())
        .ok_or_else(|| AssumeError::NotKeyValue {
            entry: entry.to_owned(),
        })?;
    let bad = |expected: &'static str| AssumeError::BadValue {
        entry: entry.to_owned(),
        key: key.to_owned(),
        expected,
    };
    let named = |prefix: &str| key.strip_prefix(prefix).filter(|name| !name.is_empty());
    match key {
        "gpu.count" => {
            let count: usize = value
                .parse()
                .map_err(|_| bad("a whole number of GPUs, 0 or more"))?;
            let template = caps.gpus.first();
            let vram_bytes = template.map_or(0, |gpu| gpu.vram_bytes);
            let unified = template.is_some_and(|gpu| gpu.unified);
            caps.gpus = (0..count)
                .map(|_| assumed_gpu(vram_bytes, unified))
                .collect();
        }
        "gpu.vram_gb" => {
            let bytes = gib_to_bytes(value).ok_or_else(|| bad("a number of GiB, 0 or more"))?;
            if bytes == 0 {
                caps.gpus.clear();
            } else if caps.gpus.is_empty() {
                caps.gpus.push(assumed_gpu(bytes, false));
            } else {
                for gpu in &mut caps.gpus {
                    gpu.vram_bytes = bytes;
                }
            }
        }
        "ram_gb" => {
            caps.ram_bytes =
                Some(gib_to_bytes(value).ok_or_else(|| bad("a number of GiB, 0 or more"))?);
        }
        "cpus" => {
            caps.cpus = value
                .parse()
                .ok()
                .filter(|&n| n > 0)
                .ok_or_else(|| bad("a whole number of CPUs, 1 or more"))?;
        }
        "python.version" => {
            if parse_major_minor(value).is_none()
                || !value
                    .split('.')
                    .all(|part| !part.is_empty() && part.chars().all(|c| c.is_ascii_digit()))
            {
                return Err(bad("a version such as `3.12` or `3.12.1`"));
            }
            value.clone_into(&mut python(caps).version);
        }
        "platform.os" | "platform.arch" if value.is_empty() => {
            return Err(bad("a name such as `linux` or `x86_64`"))
        }
        "platform.os" => value.clone_into(&mut caps.platform.os),
        "platform.arch" => value.clone_into(&mut caps.platform.arch),
        _ => {
            if let Some(name) = named("service.") {
                let reachable = match value {
                    "up" => true,
                    "down" => false,
                    _ => return Err(bad("`up` or `down`")),
                };
                let service = caps
                    .services
                    .entry(name.to_owned())
                    .or_insert_with(|| Service {
                        address: ASSUMED.to_owned(),
                        source: ASSUMED.to_owned(),
                        reachable,
                        http: None,
                    });
                service.reachable = reachable;
                service.http = service.http.map(|_| reachable);
            } else if let Some(name) = named("env.") {
                let set = match value {
                    "set" => true,
                    "unset" => false,
                    _ => return Err(bad("`set` or `unset`")),
                };
                caps.env.insert(name.to_owned(), set);
            } else if let Some(written) = named("package.") {
                // The module of the same name goes with it, for
                // `pytest.importorskip("NAME")`.
                let name = crate::packages::normalize_name(written);
                match value {
                    "" => return Err(bad("a version, or `absent`")),
                    "absent" => {
                        if let Some(python) = &mut caps.python {
                            python.packages.remove(&name);
                            if let Some(modules) = &mut python.modules {
                                modules.remove(written);
                            }
                        }
                    }
                    version => {
                        let python = python(caps);
                        python.packages.insert(name, version.to_owned());
                        if let Some(modules) = &mut python.modules {
                            modules.insert(written.to_owned());
                        }
                    }
                }
            } else if let Some(name) = named("binary.") {
                let path = match value {
                    "present" => Some(ASSUMED.to_owned()),
                    "absent" => None,
                    _ => return Err(bad("`present` or `absent`")),
                };
                caps.binaries.insert(name.to_owned(), path);
            } else {
                return Err(AssumeError::UnknownKey {
                    entry: entry.to_owned(),
                    key: key.to_owned(),
                });
            }
        }
    }
    Ok(())
}

fn assumed_gpu(vram_bytes: u64, unified: bool) -> Gpu {
    Gpu {
        name: ASSUMED.to_owned(),
        vendor: ASSUMED.to_owned(),
        vram_bytes,
        unified,
    }
}

/// The interpreter, made up when none was detected.
fn python(caps: &mut Capabilities) -> &mut Python {
    caps.python.get_or_insert_with(|| Python {
        executable: ASSUMED.to_owned(),
        version: "unknown".to_owned(),
        packages: BTreeMap::new(),
        modules: None,
    })
}

/// `80` or `7.5` GiB in bytes; `None` unless a finite number, 0 or more.
fn gib_to_bytes(text: &str) -> Option<u64> {
    gib_bytes(text.parse().ok()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assumed(entries: &[&str]) -> Result<Capabilities, AssumeError> {
        let mut caps = Capabilities {
            cpus: 2,
            ..Capabilities::default()
        };
        assume(
            &mut caps,
            &entries.iter().map(|e| (*e).to_owned()).collect::<Vec<_>>(),
        )?;
        Ok(caps)
    }

    #[test]
    fn gpus_can_be_assumed_resized_multiplied_and_removed() {
        let caps = assumed(&["gpu.vram_gb=80"]).unwrap();
        assert_eq!(caps.gpus, [assumed_gpu(80 << 30, false)]);
        assert_eq!(caps.vram_gb_max(), Some(80.0));
        assert_eq!(caps.assumed, ["gpu.vram_gb=80"]);
        let caps = assumed(&["gpu.vram_gb=24", "gpu.count=4"]).unwrap();
        assert_eq!(caps.gpus, vec![assumed_gpu(24 << 30, false); 4]);
        let caps = assumed(&["gpu.count=2", "gpu.vram_gb=7.5"]).unwrap();
        assert_eq!(caps.gpus, vec![assumed_gpu(8_053_063_680, false); 2]);
        assert_eq!(
            assumed(&["gpu.count=2"]).unwrap().gpus,
            vec![assumed_gpu(0, false); 2]
        );
        assert!(assumed(&["gpu.vram_gb=80", "gpu.vram_gb=0"])
            .unwrap()
            .gpus
            .is_empty());
        assert!(assumed(&["gpu.vram_gb=80", "gpu.count=0"])
            .unwrap()
            .gpus
            .is_empty());
        let mut caps = Capabilities::default();
        caps.gpus.push(Gpu {
            name: "NVIDIA H200".into(),
            vendor: "nvidia".into(),
            vram_bytes: 1,
            unified: false,
        });
        assume(&mut caps, &["gpu.vram_gb=16".to_owned()]).unwrap();
        assert_eq!(
            (caps.gpus[0].vendor.as_str(), caps.gpus[0].vram_bytes),
            ("nvidia", 16 << 30)
        );
    }

    #[test]
    fn every_other_key_applies() {
        let caps = assumed(&[
            "ram_gb=64",
            "cpus=16",
            "service.ollama=up",
            "env.OPENAI_API_KEY=set",
            "env.CI=unset",
            "package.Foo_Bar=1.2",
            "python.version=3.12",
            "binary.nvidia-smi=present",
            "binary.git=absent",
            "platform.os=macos",
            "platform.arch=aarch64",
        ])
        .unwrap();
        assert_eq!((caps.ram_gb(), caps.cpus), (Some(64.0), 16));
        assert!(caps.service_up("ollama") && caps.env_set("OPENAI_API_KEY") && !caps.env_set("CI"));
        assert!(
            caps.has_package("foo-bar") && caps.has_binary("nvidia-smi") && !caps.has_binary("git")
        );
        assert_eq!(caps.python_version(), Some((3, 12)));
        assert_eq!(
            (caps.platform.os.as_str(), caps.platform.arch.as_str()),
            ("macos", "aarch64")
        );
        assert_eq!(caps.assumed.len(), 11);
        let caps = assumed(&[
            "package.torch=2.1",
            "package.torch=absent",
            "service.db=up",
            "service.db=down",
        ])
        .unwrap();
        assert!(!caps.has_package("torch") && !caps.service_up("db"));
    }

    #[test]
    fn bad_entries_name_the_entry_and_what_is_allowed() {
        let message = |entry: &str| assumed(&[entry]).unwrap_err().to_string();
        assert_eq!(
            message("gpu.vram_gb=lots"),
            "`--assume gpu.vram_gb=lots`: `gpu.vram_gb` takes a number of GiB, 0 or more"
        );
        assert!(message("gpu.vram=80").starts_with(
            "`--assume gpu.vram=80`: unknown key `gpu.vram` (keys: gpu.count, gpu.vram_gb,"
        ));
        assert!(message("gpu").starts_with("`--assume gpu` is not KEY=VALUE (keys: "));
        assert!(message("=1").contains("not KEY=VALUE"));
        assert!(message("gpu.vram_gb=-1").contains("0 or more"));
        assert!(message("gpu.vram_gb=inf").contains("0 or more"));
        assert!(message("gpu.count=1.5").contains("whole number"));
        assert!(message("cpus=0").contains("1 or more"));
        assert!(message("service.ollama=maybe").contains("`up` or `down`"));
        assert!(message("service.=up").contains("unknown key `service.`"));
        assert!(message("env.CI=1").contains("`set` or `unset`"));
        assert!(message("package.torch=").contains("`absent`"));
        assert!(message("python.version=three").contains("`3.12`"));
        assert!(message("python.version=3.").contains("`3.12`"));
        assert!(message("binary.git=yes").contains("`present` or `absent`"));
        assert!(message("platform.os=").contains("linux"));
        let mut caps = Capabilities::default();
        let entries = ["cpus=4".to_owned(), "cpus=x".to_owned()];
        assert!(assume(&mut caps, &entries).is_err());
        assert_eq!(caps.assumed, ["cpus=4"]);
    }
}
