//! Detection: every probe that may wait (the interpreter, `nvidia-smi`,
//! each service) runs on its own thread, so `detect` takes as long as the
//! slowest probe rather than their sum.

use std::path::PathBuf;
use std::time::Duration;

use crate::model::{Capabilities, Platform, Service};
use crate::{binaries, cpu_memory, env, gpu, python, services};

/// The environment variable that, set to `1` or `true`, makes resource
/// needs (GPU, RAM) count as met.
pub const SKIP_RESOURCE_CHECKS_ENV: &str = "PROCTOR_SKIP_RESOURCE_CHECKS";

/// What to detect, and how long to wait.
#[derive(Debug, Clone)]
pub struct DetectOptions {
    /// The interpreter to ask for its version and packages; `None` skips
    /// Python.
    pub python: Option<PathBuf>,
    /// Environment variables to report as set or not.
    pub env_names: Vec<String>,
    /// Services to probe.
    pub services: Vec<ServiceProbe>,
    /// Variables the tests get on top of the process's environment (a
    /// job's `env`): a service's `address_env` is read here first, so that
    /// the address probed is the one the tests will use.
    pub env: Vec<(String, String)>,
    /// Programs to look for on `PATH`.
    pub binaries: Vec<String>,
    /// Treat resource needs as met, whatever the hardware.
    pub skip_resource_checks: bool,
    /// The longest a service probe waits, for the connection and again for
    /// the HTTP answer (default 300 ms).
    pub tcp_timeout: Duration,
    /// The longest a child process (`nvidia-smi`, the interpreter) may run
    /// before it is killed (default 3 s).
    pub process_timeout: Duration,
}

impl Default for DetectOptions {
    fn default() -> Self {
        DetectOptions {
            python: None,
            env_names: Vec::new(),
            services: Vec::new(),
            env: Vec::new(),
            binaries: Vec::new(),
            skip_resource_checks: false,
            tcp_timeout: Duration::from_millis(300),
            process_timeout: Duration::from_secs(3),
        }
    }
}

/// How to find and probe one service.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServiceProbe {
    /// The service's name (`ollama`).
    pub name: String,
    /// The variable that may hold its address (`OLLAMA_HOST`).
    pub address_env: Option<String>,
    /// The address when the variable is not set (`127.0.0.1:11434`).
    pub default_address: String,
    /// A path to `GET` once the port answers (`/api/tags`).
    pub http_path: Option<String>,
}

/// Detects what this machine offers. Never fails: what cannot be detected
/// is left empty and explained in [`Capabilities::warnings`].
#[must_use]
pub fn detect(options: &DetectOptions) -> Capabilities {
    let path_var = std::env::var_os("PATH");
    let mut caps = Capabilities {
        platform: Platform::default(),
        cpus: cpu_memory::cpus(),
        skip_resource_checks: options.skip_resource_checks
            || skip_requested(std::env::var(SKIP_RESOURCE_CHECKS_ENV).ok().as_deref()),
        ..Capabilities::default()
    };
    std::thread::scope(|scope| {
        let python = options.python.as_deref().map(|interpreter| {
            let timeout = options.process_timeout;
            (
                interpreter,
                scope.spawn(move || python::detect(interpreter, timeout)),
            )
        });
        let nvidia = binaries::find("nvidia-smi", path_var.as_deref()).map(|program| {
            let timeout = options.process_timeout;
            scope.spawn(move || gpu::nvidia(&program, timeout))
        });
        let probes: Vec<_> = options
            .services
            .iter()
            .map(|probe| {
                // The value goes to the probe only; it is never stored.
                let value = probe.address_env.as_deref().and_then(|name| {
                    let given = options
                        .env
                        .iter()
                        .rev()
                        .find(|(key, _)| key == name)
                        .map(|(_, value)| value.clone());
                    given.or_else(|| std::env::var_os(name).and_then(|v| v.into_string().ok()))
                });
                let timeout = options.tcp_timeout;
                let handle = scope.spawn(move || {
                    services::probe_service(
                        probe.address_env.as_deref(),
                        value.as_deref(),
                        &probe.default_address,
                        probe.http_path.as_deref(),
                        timeout,
                    )
                });
                (probe.name.clone(), handle)
            })
            .collect();

        caps.ram_bytes = cpu_memory::ram_bytes(options.process_timeout);
        caps.env = env::env_set(&options.env_names);
        caps.binaries = binaries::find_all(&options.binaries, path_var.as_deref());
        caps.gpus
            .extend(gpu::apple(caps.ram_bytes, options.process_timeout));

        if let Some(handle) = nvidia {
            match handle.join().unwrap_or_else(|_| Err(PANICKED.to_owned())) {
                Ok(gpus) => caps.gpus.extend(gpus),
                Err(message) => caps
                    .warnings
                    .push(format!("no NVIDIA GPU information: {message}")),
            }
        }
        for (name, handle) in probes {
            let (service, warnings) = handle
                .join()
                .unwrap_or_else(|_| (down(), vec![PANICKED.to_owned()]));
            caps.warnings.extend(
                warnings
                    .into_iter()
                    .map(|w| format!("service `{name}`: {w}")),
            );
            caps.services.insert(name, service);
        }
        if let Some((interpreter, handle)) = python {
            match handle.join().unwrap_or_else(|_| Err(PANICKED.to_owned())) {
                Ok(found) => caps.python = Some(found),
                Err(message) => caps.warnings.push(format!(
                    "no Python information from `{}`: {message}",
                    interpreter.display()
                )),
            }
        }
    });
    caps
}

/// The warning for a probe that panicked (a bug): detection goes on.
const PANICKED: &str = "the probe failed unexpectedly";

/// A service whose probe failed unexpectedly.
fn down() -> Service {
    Service {
        address: String::new(),
        source: String::new(),
        reachable: false,
        http: None,
    }
}

/// Whether `PROCTOR_SKIP_RESOURCE_CHECKS` asks to skip: `1` or `true`.
pub(crate) fn skip_requested(value: Option<&str>) -> bool {
    value.is_some_and(|v| v.trim() == "1" || v.trim().eq_ignore_ascii_case("true"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skip_is_requested_by_one_or_true() {
        assert!(
            skip_requested(Some("1"))
                && skip_requested(Some("true"))
                && skip_requested(Some("TRUE"))
        );
        assert!(
            !skip_requested(Some("0"))
                && !skip_requested(Some(""))
                && !skip_requested(Some("yes"))
                && !skip_requested(None)
        );
    }
}
