//! Service lifecycles for `proctor run`: start a service's command in a
//! process group of its own, wait until its address answers, hand its
//! address to the tests, and stop it afterwards — `SIGTERM` to the group,
//! then `SIGKILL` — so that nothing it spawned is left behind.
//!
//! A service without `start` is external: it is probed once, never started
//! or stopped. A started service whose address already answers before its
//! command runs is one the machine already provides (a developer's own
//! `ollama serve`): it is used as it is and not started a second time.
//!
//! A start command that exits successfully before the address answers
//! (`pg_ctl start`, `docker run -d`) started a daemon: proctor keeps
//! polling until `ready-timeout`, stops it with the service's `stop`
//! command, and says so when, without one, the address still answers
//! after the service was stopped.
//!
//! Every started process gets the parent-death signal (see
//! [`own_group_dying_with_proctor`]), and the waits watch the run's
//! interrupt flag: Ctrl-C or `SIGTERM` during the readiness wait is an
//! interruption, not a service error.
//!
//! Addresses are reduced to `host:port` as soon as they are read, so
//! credentials written in a URL never reach an error, a log or the tests'
//! environment.

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use proctor_caps::net::{connect, http_request, parse_address, probe, Address};
use proctor_config::ServiceOptions;

use crate::process::{
    group_alive, group_of, log_tail, own_group_dying_with_proctor, register_group, signal_group,
    unregister_group, wait_for_group_exit,
};

/// How often readiness is polled while a service starts.
const POLL_INTERVAL: Duration = Duration::from_millis(100);
/// The longest a single connection or HTTP exchange may take.
const PROBE_TIMEOUT: Duration = Duration::from_secs(2);
/// How long `SIGKILL`ed processes get to disappear before `stop` returns.
const KILL_GRACE: Duration = Duration::from_secs(2);
/// How many lines of a service's log an error carries.
const LOG_TAIL_LINES: usize = 20;

/// Why a service could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    /// Neither the variable nor the default holds an address. The
    /// variable's value is never quoted: it may hold credentials.
    #[error("failed to read an address for service `{name}`: {reason}")]
    Address {
        /// The service.
        name: String,
        /// What was wrong, naming the variable or the default.
        reason: String,
    },
    /// The log file could not be created.
    #[error("failed to create the log `{}` of service `{name}`", path.display())]
    Log {
        /// The service.
        name: String,
        /// The log file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The start command could not be spawned.
    #[error("failed to spawn service `{name}`")]
    Spawn {
        /// The service.
        name: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The service did not answer in time, or its process exited first.
    /// The message leaves the log out; `log_tail` holds its last lines.
    #[error("service `{name}` is not ready at {address}: {reason}")]
    NotReady {
        /// The service.
        name: String,
        /// The `host:port` probed.
        address: String,
        /// What happened: the exit status, or the timeout.
        reason: String,
        /// The last lines of the service's log (empty for an external
        /// service).
        log_tail: String,
    },
    /// The run was interrupted (Ctrl-C, `SIGTERM`) while the service
    /// started; what had started is stopped.
    #[error("interrupted while service `{name}` started")]
    Interrupted {
        /// The service.
        name: String,
    },
    /// The service's `stop` command failed or ran over `stop-timeout`.
    #[error("the `stop` command of service `{name}` {reason}")]
    StopCommand {
        /// The service.
        name: String,
        /// What happened.
        reason: String,
    },
    /// Something still answers at the service's address after proctor
    /// stopped it: a daemon that its `start` command left running.
    #[error("service `{name}` still answers at {address} after proctor stopped it: {reason}")]
    LeftRunning {
        /// The service.
        name: String,
        /// The `host:port` probed.
        address: String,
        /// Why, and what to do.
        reason: String,
    },
    /// Waiting for the service's process failed.
    #[error("failed to wait for service `{name}`")]
    Wait {
        /// The service.
        name: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The hook between modules did not get a 2xx answer.
    #[error(
        "failed to call the hook `{method} {path}` of service `{name}` at {address}: {reason}"
    )]
    Hook {
        /// The service.
        name: String,
        /// The `host:port` called.
        address: String,
        /// The HTTP method.
        method: String,
        /// The path.
        path: String,
        /// The status, or why there was none.
        reason: String,
    },
}

/// A service that answers, started by proctor or found running. Dropping
/// it without [`RunningService::stop`] kills its process group.
#[derive(Debug)]
pub struct RunningService {
    name: String,
    address: String,
    address_env: Option<String>,
    log_path: Option<PathBuf>,
    options: ServiceOptions,
    /// The process proctor started, the leader of its own group; `None`
    /// for a service proctor did not start, and once it is stopped.
    child: Option<Child>,
    /// proctor ran `start` (and so runs `stop` at the end).
    started: bool,
    /// The start command exited successfully before the address
    /// answered: what answers is a daemon it left running.
    daemon: bool,
    /// Where `start` and `stop` run.
    rootdir: PathBuf,
}

impl RunningService {
    /// Makes the service `name` answer: resolves its address (the variable
    /// `address-env` read through `env_lookup`, else `default-address`),
    /// then probes it once when it is external, or else runs `start` with
    /// `sh -c` in `rootdir`, its output in `log_dir/<name>.log`, and polls
    /// until the address accepts connections (and `http-probe` answers
    /// 2xx) or `ready-timeout` passes. On failure nothing started is left
    /// running.
    pub fn start(
        name: &str,
        options: &ServiceOptions,
        rootdir: &Path,
        log_dir: &Path,
        env_lookup: impl Fn(&str) -> Option<String>,
    ) -> Result<RunningService, ServiceError> {
        RunningService::start_watching(name, options, rootdir, log_dir, env_lookup, None)
    }

    /// [`RunningService::start`], giving up at once with
    /// [`ServiceError::Interrupted`] when `interrupt` is set (Ctrl-C,
    /// `SIGTERM`) while the service starts.
    pub fn start_watching(
        name: &str,
        options: &ServiceOptions,
        rootdir: &Path,
        log_dir: &Path,
        env_lookup: impl Fn(&str) -> Option<String>,
        interrupt: Option<&AtomicBool>,
    ) -> Result<RunningService, ServiceError> {
        let address = resolve_address(name, options, env_lookup)?;
        let mut service = RunningService {
            name: name.to_owned(),
            address: address.to_string(),
            address_env: options.address_env.clone(),
            log_path: None,
            options: options.clone(),
            child: None,
            started: false,
            daemon: false,
            rootdir: rootdir.to_path_buf(),
        };
        let Some(command) = &options.start else {
            return match probe(&address, options.http_probe.as_deref(), PROBE_TIMEOUT) {
                Ok(()) => Ok(service),
                Err(reason) => Err(service.not_ready(
                    format!("external service does not answer: {reason}"),
                    String::new(),
                )),
            };
        };
        if probe(&address, options.http_probe.as_deref(), PROBE_TIMEOUT).is_ok() {
            return Ok(service);
        }
        let log_path = log_dir.join(format!("{name}.log"));
        let log_error = |source| ServiceError::Log {
            name: name.to_owned(),
            path: log_path.clone(),
            source,
        };
        let log = File::create(&log_path).map_err(log_error)?;
        let log_err = log.try_clone().map_err(log_error)?;
        let child = service
            .spawn(command, log, log_err)
            .map_err(|source| ServiceError::Spawn {
                name: name.to_owned(),
                source,
            })?;
        service.child = Some(child);
        service.started = true;
        service.log_path = Some(log_path);
        service.wait_ready(&address, interrupt)
    }

    /// Runs `command` with `sh -c` as the service's commands run: in the
    /// rootdir, with `env` and the address, its output in the log, in a
    /// process group of its own that dies with proctor.
    fn spawn(&self, command: &str, log: File, log_err: File) -> std::io::Result<Child> {
        let mut process = Command::new("sh");
        process
            .arg("-c")
            .arg(command)
            .current_dir(&self.rootdir)
            .envs(&self.options.env)
            .stdin(Stdio::null())
            .stdout(log)
            .stderr(log_err);
        if let Some(variable) = &self.address_env {
            // The service listens where proctor probes, whatever `env` says.
            process.env(variable, &self.address);
        }
        own_group_dying_with_proctor(&mut process);
        let child = process.spawn()?;
        register_group(group_of(&child));
        Ok(child)
    }

    /// Polls until the service answers, its process fails, the ready
    /// timeout passes or `interrupt` is set; in the last three cases what
    /// was started is stopped. A command that exits successfully first
    /// started a daemon, which gets the rest of the timeout to answer.
    fn wait_ready(
        mut self,
        address: &Address,
        interrupt: Option<&AtomicBool>,
    ) -> Result<RunningService, ServiceError> {
        let deadline = Instant::now() + self.options.ready_timeout;
        let mut last_reason = String::from("nothing answered");
        loop {
            if interrupt.is_some_and(|flag| flag.load(Ordering::Relaxed)) {
                self.abandon();
                return Err(ServiceError::Interrupted {
                    name: self.name.clone(),
                });
            }
            if !self.daemon {
                if let Some(status) = self
                    .child
                    .as_mut()
                    .and_then(|child| child.try_wait().ok().flatten())
                {
                    if !status.success() {
                        return Err(
                            self.fail(format!("its command exited ({status}) before it answered"))
                        );
                    }
                    self.daemon = true;
                    self.forget_empty_group();
                }
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                let seconds = self.options.ready_timeout.as_secs_f64();
                return Err(self.fail(format!("no answer within {seconds} s ({last_reason})")));
            }
            match probe(
                address,
                self.options.http_probe.as_deref(),
                left.min(PROBE_TIMEOUT),
            ) {
                Ok(()) => return Ok(self),
                Err(reason) => last_reason = reason,
            }
            thread::sleep(POLL_INTERVAL.min(deadline.saturating_duration_since(Instant::now())));
        }
    }

    /// Once the start command has exited, its group is forgotten when
    /// nothing is left in it, so that no later signal can reach a group
    /// that reuses its number.
    fn forget_empty_group(&mut self) {
        if let Some(child) = &self.child {
            let group = group_of(child);
            if !group_alive(group) {
                unregister_group(group);
                self.child = None;
            }
        }
    }

    /// Whether the start command exited and left a daemon that answers.
    #[must_use]
    pub fn daemonized(&self) -> bool {
        self.daemon
    }

    /// Stops what a failed or interrupted start left: the `stop` command
    /// when there is one, then `SIGKILL` to the group.
    fn abandon(&mut self) {
        if let Some(command) = self.options.stop.clone() {
            let _ = self.run_stop_command(&command);
        }
        self.kill_group();
    }

    /// Runs `stop`, waiting up to `stop-timeout`, then kills its group.
    fn run_stop_command(&self, command: &str) -> Result<(), ServiceError> {
        let error = |reason: String| ServiceError::StopCommand {
            name: self.name.clone(),
            reason,
        };
        let log = match &self.log_path {
            Some(path) => OpenOptions::new()
                .append(true)
                .create(true)
                .open(path)
                .map_err(|e| error(format!("cannot open the log: {e}")))?,
            None => return Ok(()),
        };
        let log_err = log
            .try_clone()
            .map_err(|e| error(format!("cannot open the log: {e}")))?;
        let mut child = self
            .spawn(command, log, log_err)
            .map_err(|e| error(format!("cannot be spawned: {e}")))?;
        let group = group_of(&child);
        let deadline = Instant::now() + self.options.stop_timeout;
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break Some(status),
                Ok(None) if Instant::now() < deadline => thread::sleep(Duration::from_millis(20)),
                _ => break None,
            }
        };
        signal_group(group, libc::SIGKILL);
        let _ = child.wait();
        wait_for_group_exit(group, KILL_GRACE);
        match status {
            Some(status) if status.success() => Ok(()),
            Some(status) => Err(error(format!("exited with {status}"))),
            None => Err(error(format!(
                "did not finish within {} s and was killed",
                self.options.stop_timeout.as_secs_f64()
            ))),
        }
    }

    /// Stops what was started, then describes the failure with the log's
    /// tail.
    fn fail(mut self, reason: String) -> ServiceError {
        self.abandon();
        let tail = self
            .log_path
            .as_deref()
            .map(|path| log_tail(path, LOG_TAIL_LINES))
            .unwrap_or_default();
        self.not_ready(reason, tail)
    }

    fn not_ready(&self, reason: String, log_tail: String) -> ServiceError {
        ServiceError::NotReady {
            name: self.name.clone(),
            address: self.address.clone(),
            reason,
            log_tail,
        }
    }

    /// The service's name.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The resolved `host:port`, without any scheme or credentials.
    #[must_use]
    pub fn address(&self) -> &str {
        &self.address
    }

    /// The file holding the started process's output; `None` when proctor
    /// did not start the service.
    #[must_use]
    pub fn log_path(&self) -> Option<&Path> {
        self.log_path.as_deref()
    }

    /// The id of the started process, which is also its process group's;
    /// `None` when proctor did not start the service or has stopped it.
    #[must_use]
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// The variables the tests should see: `address-env` set to the
    /// address.
    #[must_use]
    pub fn env(&self) -> Vec<(String, String)> {
        self.address_env
            .iter()
            .map(|variable| (variable.clone(), self.address.clone()))
            .collect()
    }

    /// Sends the `hook-between-modules` request and returns its status;
    /// `Ok(None)` when the service has no hook.
    pub fn hook(&self) -> Result<Option<u16>, ServiceError> {
        let Some(hook) = &self.options.hook_between_modules else {
            return Ok(None);
        };
        let error = |reason: String| ServiceError::Hook {
            name: self.name.clone(),
            address: self.address.clone(),
            method: hook.method.clone(),
            path: hook.path.clone(),
            reason,
        };
        let address = parse_address(&self.address, None)
            .ok_or_else(|| error("not a `host:port` address".to_owned()))?;
        let stream =
            connect(&address, PROBE_TIMEOUT).ok_or_else(|| error("nothing answers".to_owned()))?;
        match http_request(
            stream,
            &address,
            &hook.method,
            &hook.path,
            hook.body.as_deref(),
            PROBE_TIMEOUT,
        ) {
            Some(status) if (200..300).contains(&status) => Ok(Some(status)),
            Some(status) => Err(error(format!("answered {status}"))),
            None => Err(error("no HTTP answer".to_owned())),
        }
    }

    /// Stops a service proctor started: its `stop` command when it has
    /// one, then `SIGTERM` to its process group, up to `stop-timeout` for
    /// the group to exit, then `SIGKILL`. An error says when something
    /// still answers at the address afterwards (a daemon proctor could
    /// not stop). Does nothing for a service proctor did not start.
    pub fn stop(mut self) -> Result<(), ServiceError> {
        if !self.started {
            return Ok(());
        }
        let stopped = self
            .options
            .stop
            .clone()
            .map(|command| self.run_stop_command(&command));
        let waited = self.stop_group();
        if let Some(Err(err)) = stopped {
            return Err(err);
        }
        waited?;
        let answers = || {
            parse_address(&self.address, None)
                .is_some_and(|address| probe(&address, None, PROBE_TIMEOUT).is_ok())
        };
        // A `stop` command may return before the daemon it stops has exited
        // (`kill`): it gets `stop-timeout` to go. Without one, what is
        // still there once the group is gone stays.
        let deadline = Instant::now() + self.options.stop_timeout;
        let mut still_answers = answers();
        while still_answers && self.options.stop.is_some() && Instant::now() < deadline {
            thread::sleep(POLL_INTERVAL);
            still_answers = answers();
        }
        if still_answers {
            let reason = match (&self.options.stop, self.daemon) {
                (Some(_), _) => "its `stop` command did not stop it".to_owned(),
                (None, true) => format!(
                    "its `start` command exited and left a daemon that proctor cannot stop; add `stop = \"<command>\"` to [services.{}]",
                    self.name
                ),
                (None, false) => format!(
                    "a process it started left its process group; add `stop = \"<command>\"` to [services.{}]",
                    self.name
                ),
            };
            return Err(ServiceError::LeftRunning {
                name: self.name.clone(),
                address: self.address.clone(),
                reason,
            });
        }
        Ok(())
    }

    /// `SIGTERM` to the start command's group, up to `stop-timeout`, then
    /// `SIGKILL`.
    fn stop_group(&mut self) -> Result<(), ServiceError> {
        let Some(mut child) = self.child.take() else {
            return Ok(());
        };
        let group = group_of(&child);
        signal_group(group, libc::SIGTERM);
        let deadline = Instant::now() + self.options.stop_timeout;
        // Reaping the leader as soon as it exits lets `group_alive` see
        // only the processes it left behind.
        while Instant::now() < deadline && (child.try_wait().is_err() || group_alive(group)) {
            thread::sleep(Duration::from_millis(20));
        }
        signal_group(group, libc::SIGKILL);
        let reaped = child.wait();
        wait_for_group_exit(group, KILL_GRACE);
        reaped.map(drop).map_err(|source| ServiceError::Wait {
            name: self.name.clone(),
            source,
        })
    }

    /// `SIGKILL` to the group, then reaps the leader.
    fn kill_group(&mut self) {
        if let Some(mut child) = self.child.take() {
            let group = group_of(&child);
            signal_group(group, libc::SIGKILL);
            let _ = child.wait();
            wait_for_group_exit(group, KILL_GRACE);
        }
    }
}

impl Drop for RunningService {
    fn drop(&mut self) {
        self.kill_group();
    }
}

/// The address of a service: the variable `address-env` when it is set,
/// else `default-address`. A variable that is set but unusable is an
/// error whose message never quotes its value.
fn resolve_address(
    name: &str,
    options: &ServiceOptions,
    env_lookup: impl Fn(&str) -> Option<String>,
) -> Result<Address, ServiceError> {
    let error = |reason: String| ServiceError::Address {
        name: name.to_owned(),
        reason,
    };
    let fallback = parse_address(&options.default_address, None);
    if let Some(variable) = &options.address_env {
        if let Some(value) = env_lookup(variable).filter(|value| !value.trim().is_empty()) {
            return parse_address(&value, fallback.as_ref().map(|a| a.port)).ok_or_else(|| {
                error(format!(
                    "`{variable}` does not hold a `host:port` address or URL"
                ))
            });
        }
    }
    fallback.ok_or_else(|| error("`default-address` is not a `host:port` address".to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_lose_scheme_credentials_and_path() {
        let parsed = parse_address("http://user:s3cr3t@db.internal:5432/app?x=1", None).unwrap();
        assert_eq!(parsed.to_string(), "db.internal:5432");
        assert_eq!(
            parse_address("gpu", Some(11434)).unwrap().to_string(),
            "gpu:11434"
        );
        assert_eq!(
            parse_address("[::1]:5432", None).unwrap().to_string(),
            "[::1]:5432"
        );
        assert_eq!(parse_address("host:port", None), None);
        assert_eq!(parse_address("gpu", None), None);
    }

    #[test]
    fn a_bad_variable_is_an_error_that_does_not_quote_it() {
        let options = ServiceOptions {
            address_env: Some("DB_URL".to_owned()),
            default_address: "127.0.0.1:5432".to_owned(),
            ..ServiceOptions::default()
        };
        let error =
            resolve_address("db", &options, |_| Some("http://u:pw-x@:bad".to_owned())).unwrap_err();
        let message = error.to_string();
        assert!(
            message.contains("DB_URL") && !message.contains("pw-x"),
            "{message}"
        );
        let resolved = resolve_address("db", &options, |_| {
            Some("postgres://u:pw@db:6543/x".to_owned())
        })
        .unwrap();
        assert_eq!(resolved.to_string(), "db:6543");
        assert_eq!(
            resolve_address("db", &options, |_| None)
                .unwrap()
                .to_string(),
            "127.0.0.1:5432"
        );
    }

    #[test]
    fn the_log_tail_keeps_the_last_lines() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.log");
        let text = (1..=30)
            .map(|i| format!("line {i}"))
            .collect::<Vec<_>>()
            .join("\n");
        std::fs::write(&path, text).unwrap();
        let tail = log_tail(&path, LOG_TAIL_LINES);
        assert!(
            tail.starts_with("line 11\n") && tail.ends_with("line 30"),
            "{tail}"
        );
        assert_eq!(
            log_tail(&dir.path().join("missing.log"), LOG_TAIL_LINES),
            ""
        );
    }
}
