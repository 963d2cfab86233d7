//! The options of planning: the services a suite talks to, what markers and
//! project helpers need from the machine, environment-dependent gates, and
//! the CI jobs with their phases. `proctor caps`, `proctor plan` and
//! `proctor ci github` read them.
//!
//! ```toml
//! [services.ollama]
//! address-env = "OLLAMA_HOST"
//! default-address = "127.0.0.1:11434"
//!
//! [needs.ollama]
//! services = ["ollama"]
//!
//! [helpers]
//! "test.predicates.require_gpu" = "gpu"
//! "transformers.testing_utils.require_torch" = { packages = ["torch"] }
//!
//! [gates.qualitative]
//! skip-if-env = { CICD = "1" }
//!
//! [jobs.unit]
//! markers = "not e2e"
//! python = ["3.11", "3.12"]
//! trigger = "pr"
//! ```

use std::collections::BTreeMap;
use std::num::NonZeroUsize;
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer};

use proctor_config_file::KeyPath;

use crate::seconds::Seconds;
use crate::taxonomy_options::{TaxonomyOptions, TaxonomyProblem};

/// How to reach a service (`[services.<name>]`) and, for `proctor run`, how
/// to start and stop it. A service without `start` is external: proctor
/// only probes it.
///
/// ```toml
/// [services.ollama]
/// address-env = "OLLAMA_HOST"
/// default-address = "127.0.0.1:11434"
/// http-probe = "/api/tags"
/// start = "ollama serve"
/// stop = "ollama stop-all"
/// env = { OLLAMA_KEEP_ALIVE = "0" }
/// ready-timeout = 60
/// stop-timeout = 10
/// hook-between-modules = { method = "POST", path = "/api/evict", body = "{}" }
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct ServiceOptions {
    /// The environment variable that holds the service's address, as
    /// `host:port` or a URL (`address-env`, e.g. `OLLAMA_HOST`).
    pub address_env: Option<String>,
    /// The address when the variable is not set (`default-address`,
    /// `host:port`).
    pub default_address: String,
    /// A path to `GET` once the port answers; the service counts as up only
    /// on a 2xx answer (`http-probe`, e.g. `/api/tags`).
    pub http_probe: Option<String>,
    /// The command line that starts the service, run with `sh -c` in the
    /// rootdir in a process group of its own (`start`, e.g.
    /// `ollama serve`). Without it the service is external.
    #[serde(default)]
    pub start: Option<String>,
    /// The command line that stops what `start` started, run like `start`
    /// before proctor signals `start`'s process group (`stop`, e.g.
    /// `pg_ctl stop -D data`): how a daemon that `start` left running on
    /// its own (`pg_ctl start`, `docker run -d`) is stopped. Only with
    /// `start`.
    #[serde(default)]
    pub stop: Option<String>,
    /// Environment variables for the started process (`env`); the variable
    /// named by `address-env` is always set to the resolved address.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// How long a started service may take to answer, in seconds
    /// (`ready-timeout`, default 30).
    #[serde(default = "default_ready_timeout", deserialize_with = "seconds")]
    #[schemars(with = "Seconds", extend("default" = 30))]
    pub ready_timeout: Duration,
    /// How long a service may take to exit after `SIGTERM` before its
    /// whole process group gets `SIGKILL`, in seconds (`stop-timeout`,
    /// default 10).
    #[serde(default = "default_stop_timeout", deserialize_with = "seconds")]
    #[schemars(with = "Seconds", extend("default" = 10))]
    pub stop_timeout: Duration,
    /// An HTTP request to send to the service between two test modules,
    /// e.g. to evict models from memory (`hook-between-modules`).
    #[serde(default)]
    pub hook_between_modules: Option<HookOptions>,
    /// The container image `proctor ci github` runs as a GitHub service
    /// container for the jobs that list the service (`image`, e.g.
    /// `postgres:16`), published on `default-address`'s port with `env`.
    #[serde(default)]
    pub image: Option<String>,
}

impl Default for ServiceOptions {
    fn default() -> Self {
        ServiceOptions {
            address_env: None,
            default_address: String::new(),
            http_probe: None,
            start: None,
            stop: None,
            env: BTreeMap::new(),
            ready_timeout: default_ready_timeout(),
            stop_timeout: default_stop_timeout(),
            hook_between_modules: None,
            image: None,
        }
    }
}

fn default_ready_timeout() -> Duration {
    Duration::from_secs(30)
}

fn default_stop_timeout() -> Duration {
    Duration::from_secs(10)
}

/// A [`Seconds`] as the [`Duration`] the services read.
fn seconds<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Duration, D::Error> {
    Seconds::deserialize(deserializer).map(Seconds::duration)
}

/// An HTTP request sent to a service
/// (`hook-between-modules = { method = "POST", path = "/api/evict", body = "{}" }`).
/// A body is sent as `application/json`; any 2xx answer counts as done.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct HookOptions {
    /// The HTTP method (`method`, default `POST`).
    #[serde(default = "default_hook_method")]
    pub method: String,
    /// The path, starting with `/` (`path`).
    pub path: String,
    /// The request body (`body`), if any.
    #[serde(default)]
    pub body: Option<String>,
}

fn default_hook_method() -> String {
    "POST".to_owned()
}

/// What the machine must offer a test (`[needs.<marker>]`, or a table in
/// `[helpers]`). Every field is optional; together they are all required.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct NeedOptions {
    /// A GPU of any size (`gpu`).
    pub gpu: bool,
    /// A GPU with at least this much memory, in GB (`gpu-vram-gb`).
    pub gpu_vram_gb: Option<f64>,
    /// At least this much RAM, in GB (`ram-gb`).
    pub ram_gb: Option<f64>,
    /// Environment variables that must be set, e.g. API keys (`env`).
    pub env: Vec<String>,
    /// Python distributions that must be installed (`packages`).
    pub packages: Vec<String>,
    /// Programs that must be on `PATH` (`binaries`).
    pub binaries: Vec<String>,
    /// Services (from `[services]`) that must be reachable (`services`).
    pub services: Vec<String>,
    /// The lowest Python version, `3.11` (`python`).
    pub python: Option<String>,
}

/// How a project helper (a decorator, or a call in `pytestmark`) states
/// what a test needs (`[helpers]`): a kind whose amount is read from the
/// call's arguments, or a fixed set of needs.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(
    untagged,
    expecting = "a helper kind (\"gpu\", \"ram\", \"env\", \"package\", \"python\", \"binary\") or a table of needs"
)]
pub enum HelperOptions {
    /// The call's arguments say how much (`require_gpu(min_vram_gb=8)`).
    Kind(HelperKind),
    /// The helper always needs the same (`require_torch`).
    Fixed(NeedOptions),
}

/// What a helper's arguments are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum HelperKind {
    /// `min_vram_gb=N` (or a first positional number): a GPU with N GB;
    /// no argument: any GPU.
    Gpu,
    /// `min_gb=N` (or a first positional number): N GB of RAM.
    Ram,
    /// Positional strings: environment variables that must be set.
    Env,
    /// Positional strings: distributions that must be installed.
    Package,
    /// A first positional `(3, 11)` or `"3.11"`: the lowest Python.
    Python,
    /// Positional strings: programs that must be on `PATH`.
    Binary,
}

/// An environment-dependent rule for the tests with a marker
/// (`[gates.<marker>]`). A test the gate closes is skipped with `reason`
/// (or one that names the condition).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct GateOptions {
    /// Skipped when every one of these variables has its value
    /// (`skip-if-env`, e.g. `{ CICD = "1" }`).
    pub skip_if_env: BTreeMap<String, String>,
    /// Run only when every one of these variables has its value
    /// (`run-if-env`, e.g. `{ RUN_SLOW = "1" }`).
    pub run_if_env: BTreeMap<String, String>,
    /// Run only when this flag is given to `proctor run` / `plan` or set on
    /// the job (`run-if-flag`, e.g. `--live`).
    pub run_if_flag: Option<String>,
    /// The skip reason to print (`reason`).
    pub reason: Option<String>,
}

/// When a CI job runs (`trigger`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, serde::Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Trigger {
    /// On every pull request and push to the default branch.
    #[default]
    Pr,
    /// On a schedule (nightly).
    Nightly,
    /// By hand (`workflow_dispatch`).
    Manual,
}

/// Items of a job grouped by an axis and run one group after the other, in
/// one pytest process each (`phases = { by = "backend", order = [...] }`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct JobPhaseOptions {
    /// The axis whose markers name the phases (`by`).
    pub by: String,
    /// The markers of the axis in the order their phases run (`order`);
    /// markers left out run after them in the axis's order, and items with
    /// none of the axis's markers run last.
    #[serde(default)]
    pub order: Vec<String>,
}

/// A CI job (`[jobs.<name>]`).
///
/// ```toml
/// [jobs.integration]
/// markers = "integration and not llm"
/// env = { CICD = "1" }
/// python = ["3.11", "3.12"]
/// services = ["postgres"]
/// trigger = "pr"
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct JobOptions {
    /// What the job is for.
    pub description: Option<String>,
    /// The job's `-m` expression (`markers`).
    pub markers: Option<String>,
    /// The job's `-k` expression (`keywords`).
    pub keywords: Option<String>,
    /// Paths or node ids the job passes to pytest (`paths`).
    pub paths: Vec<String>,
    /// Whether the default selection (`[select] default`, else pytest's
    /// `addopts -m`) applies too, by `and` (`use-default`, default true).
    /// A nightly job for `slow` tests under a `not slow` default sets false.
    pub use_default: bool,
    /// Environment variables the job sets (`env`): gates read them.
    pub env: BTreeMap<String, String>,
    /// Flags the job passes (`flags`, e.g. `["--live"]`): gates read them.
    pub flags: Vec<String>,
    /// Python versions, one matrix entry each (`python`).
    pub python: Vec<String>,
    /// Services the job provides (`services`, from `[services]`).
    pub services: Vec<String>,
    /// The capabilities of the machine the job runs on, as `--assume`
    /// entries (`assume`, e.g. `["gpu.vram_gb=24"]`).
    pub assume: Vec<String>,
    /// Phases, grouped by an axis (`phases`).
    pub phases: Option<JobPhaseOptions>,
    /// When it runs (`trigger`: `pr`, `nightly` or `manual`).
    pub trigger: Trigger,
    /// More events the job runs on besides `trigger` (`also-on`, e.g.
    /// `["nightly"]` for a PR job that also runs on the schedule), for
    /// `proctor ci github`; `proctor plan` reports the job under `trigger`.
    pub also_on: Vec<Trigger>,
    /// Globs of the files whose change runs the job on a pull request or a
    /// push (`on-paths`, GitHub's `paths:` syntax, e.g.
    /// `["src/db/**"]`); empty: every change. Schedules and runs by hand
    /// are not filtered. For `proctor ci github`.
    pub on_paths: Vec<String>,
    /// Whether a failure blocks merging (`required`, default true); an
    /// advisory job sets false.
    pub required: bool,
    /// Shards to split the job into (`shards`, default 1).
    pub shards: NonZeroUsize,
    /// The runner label (`runs-on`, default `ubuntu-latest`).
    pub runs_on: Option<String>,
    /// The order of `proctor run --job` without `--order` (`order`:
    /// `pytest` or `random`); else `[run] order`.
    pub order: Option<crate::run_options::RunOrder>,
    /// The GitHub environment the job runs in (`environment`): an
    /// environment with required reviewers makes the job wait for
    /// approval, and its secrets reach only that job.
    pub environment: Option<String>,
    /// Shell commands `proctor ci github` runs after the install step and
    /// before the tests, one step each (`setup`, e.g. `["nl2sql init
    /// --demo demo-ci"]`).
    pub setup: Vec<String>,
}

impl Default for JobOptions {
    fn default() -> Self {
        JobOptions {
            description: None,
            markers: None,
            keywords: None,
            paths: Vec::new(),
            use_default: true,
            env: BTreeMap::new(),
            flags: Vec::new(),
            python: Vec::new(),
            services: Vec::new(),
            assume: Vec::new(),
            phases: None,
            trigger: Trigger::Pr,
            also_on: Vec::new(),
            on_paths: Vec::new(),
            required: true,
            shards: NonZeroUsize::MIN,
            runs_on: None,
            order: None,
            environment: None,
            setup: Vec::new(),
        }
    }
}

/// Services, needs, helpers, gates and jobs, in file order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PlanOptions {
    /// `[services.<name>]`.
    pub services: Vec<(String, ServiceOptions)>,
    /// `[needs.<marker>]`.
    pub needs: Vec<(String, NeedOptions)>,
    /// `[helpers]`: dotted path of a helper → what it needs.
    pub helpers: Vec<(String, HelperOptions)>,
    /// `[gates.<marker>]`.
    pub gates: Vec<(String, GateOptions)>,
    /// `[jobs.<name>]`.
    pub jobs: Vec<(String, JobOptions)>,
}

impl PlanOptions {
    /// The service called `name`.
    #[must_use]
    pub fn service(&self, name: &str) -> Option<&ServiceOptions> {
        self.services
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, s)| s)
    }

    /// What the configuration refers to that does not exist, with where.
    #[must_use]
    pub fn problems(&self, taxonomy: &TaxonomyOptions) -> Vec<TaxonomyProblem> {
        let mut problems = Vec::new();
        let mut report =
            |key: KeyPath, message: String| problems.push(TaxonomyProblem { key, message });
        for (name, service) in &self.services {
            if !valid_address(&service.default_address) {
                report(
                    KeyPath::default()
                        .key("services")
                        .key(name)
                        .key("default-address"),
                    format!("`{}` is not a `host:port` address", service.default_address),
                );
            }
            let key = KeyPath::default().key("services").key(name);
            if let Some(path) = &service.http_probe {
                if !path.starts_with('/') {
                    report(
                        key.clone().key("http-probe"),
                        format!("`{path}` must start with `/`"),
                    );
                }
            }
            if service
                .start
                .as_deref()
                .is_some_and(|start| start.trim().is_empty())
            {
                report(
                    key.clone().key("start"),
                    "`start` is an empty command line".to_owned(),
                );
            }
            match (&service.stop, &service.start) {
                (Some(stop), _) if stop.trim().is_empty() => report(
                    key.clone().key("stop"),
                    "`stop` is an empty command line".to_owned(),
                ),
                (Some(_), None) => report(
                    key.clone().key("stop"),
                    "`stop` needs `start`: proctor never stops a service it does not start"
                        .to_owned(),
                ),
                _ => {}
            }
            if let Some(variable) = &service.address_env {
                if !valid_variable(variable) {
                    report(
                        key.clone().key("address-env"),
                        format!("`{variable}` is not an environment variable name"),
                    );
                }
            }
            for variable in service.env.keys() {
                if !valid_variable(variable) {
                    report(
                        key.clone().key("env").key(variable),
                        format!("`{variable}` is not an environment variable name"),
                    );
                }
            }
            if let Some(hook) = &service.hook_between_modules {
                let key = key.clone().key("hook-between-modules");
                if hook.method.is_empty() || !hook.method.chars().all(|c| c.is_ascii_uppercase()) {
                    report(
                        key.clone().key("method"),
                        format!("`{}` is not an HTTP method such as `POST`", hook.method),
                    );
                }
                if !hook.path.starts_with('/') || hook.path.contains(char::is_whitespace) {
                    report(
                        key.key("path"),
                        format!("`{}` must start with `/` and contain no spaces", hook.path),
                    );
                }
            }
        }
        let known_service = |s: &str| self.services.iter().any(|(n, _)| n == s);
        let check_need = |key: KeyPath,
                          need: &NeedOptions,
                          report: &mut dyn FnMut(KeyPath, String)| {
            for (i, service) in need.services.iter().enumerate() {
                if !known_service(service) {
                    report(
                        key.clone().key("services").index(i),
                        format!("unknown service `{service}` (declare it in [services.{service}])"),
                    );
                }
            }
            if let Some(python) = &need.python {
                if parse_version(python).is_none() {
                    report(
                        key.clone().key("python"),
                        format!("`{python}` is not a version such as `3.11`"),
                    );
                }
            }
            for (field, value) in [("gpu-vram-gb", need.gpu_vram_gb), ("ram-gb", need.ram_gb)] {
                if value.is_some_and(|v| !(v.is_finite() && v >= 0.0)) {
                    report(
                        key.clone().key(field),
                        "must be a number of GB, 0 or more".to_owned(),
                    );
                }
            }
        };
        for (marker, need) in &self.needs {
            check_need(
                KeyPath::default().key("needs").key(marker),
                need,
                &mut report,
            );
        }
        for (path, helper) in &self.helpers {
            if let HelperOptions::Fixed(need) = helper {
                check_need(
                    KeyPath::default().key("helpers").key(path),
                    need,
                    &mut report,
                );
            }
        }
        for (marker, gate) in &self.gates {
            let key = KeyPath::default().key("gates").key(marker);
            if gate.skip_if_env.is_empty()
                && gate.run_if_env.is_empty()
                && gate.run_if_flag.is_none()
            {
                report(
                    key.clone(),
                    "a gate needs `skip-if-env`, `run-if-env` or `run-if-flag`".to_owned(),
                );
            }
            if let Some(flag) = &gate.run_if_flag {
                if !flag.starts_with("--") || flag.len() < 3 {
                    report(
                        key.key("run-if-flag"),
                        format!("`{flag}` is not a long option such as `--live`"),
                    );
                }
            }
        }
        for (name, job) in &self.jobs {
            let key = KeyPath::default().key("jobs").key(name);
            for (i, service) in job.services.iter().enumerate() {
                if !known_service(service) {
                    report(
                        key.clone().key("services").index(i),
                        format!("unknown service `{service}` (declare it in [services.{service}])"),
                    );
                }
            }
            for (i, python) in job.python.iter().enumerate() {
                if parse_version(python).is_none() {
                    report(
                        key.clone().key("python").index(i),
                        format!("`{python}` is not a version such as `3.11`"),
                    );
                }
            }
            if let Some(phases) = &job.phases {
                let axis = taxonomy.axes.iter().find(|(n, _)| *n == phases.by);
                match axis {
                    None => report(
                        key.clone().key("phases").key("by"),
                        format!(
                            "unknown axis `{}` (phases are the markers of an axis)",
                            phases.by
                        ),
                    ),
                    Some((axis_name, axis)) => {
                        for (i, marker) in phases.order.iter().enumerate() {
                            if !axis.markers.contains(marker) {
                                report(
                                    key.clone().key("phases").key("order").index(i),
                                    format!("`{marker}` is not a marker of axis `{axis_name}`"),
                                );
                            }
                        }
                    }
                }
            }
        }
        problems
    }
}

/// `host:port` with a port number.
fn valid_address(address: &str) -> bool {
    address
        .rsplit_once(':')
        .is_some_and(|(host, port)| !host.is_empty() && port.parse::<u16>().is_ok())
}

/// A name that can be set in a process environment: not empty, no `=`,
/// no NUL.
fn valid_variable(name: &str) -> bool {
    !name.is_empty() && !name.contains(['=', '\0'])
}

/// `3.11` → `(3, 11)`; `3` → `(3, 0)`.
#[must_use]
pub fn parse_version(text: &str) -> Option<(u32, u32)> {
    let mut parts = text.trim().split('.');
    let major = parts.next()?.parse().ok()?;
    let minor = match parts.next() {
        Some(minor) => minor.parse().ok()?,
        None => 0,
    };
    Some((major, minor))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: &str) -> Result<PlanOptions, proctor_config_file::ConfigError> {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("proctor.toml"), text).unwrap();
        crate::find(dir.path()).map(|found| found.unwrap().1.plan)
    }

    #[test]
    fn the_seed_setups_read() {
        let plan = load(
            "[axes.backend]\nmarkers = ['ollama', 'openai']\ncardinality = 'any'\n\
             [services.ollama]\naddress-env = 'OLLAMA_HOST'\ndefault-address = '127.0.0.1:11434'\nhttp-probe = '/api/tags'\n\
             [needs.ollama]\nservices = ['ollama']\n[needs.huggingface]\ngpu = true\n\
             [helpers]\n'test.predicates.require_gpu' = 'gpu'\n'transformers.testing_utils.require_torch' = { packages = ['torch'] }\n\
             [gates.qualitative]\nskip-if-env = { CICD = '1' }\n[gates.live]\nrun-if-flag = '--live'\n\
             [jobs.nightly]\nmarkers = 'e2e'\nuse-default = false\ntrigger = 'nightly'\nrequired = false\nphases = { by = 'backend', order = ['ollama'] }\npython = ['3.11']\n",
        )
        .unwrap();
        assert_eq!(
            plan.service("ollama").unwrap().address_env.as_deref(),
            Some("OLLAMA_HOST")
        );
        assert_eq!(plan.helpers[0].1, HelperOptions::Kind(HelperKind::Gpu));
        assert_eq!(
            plan.helpers[1].1,
            HelperOptions::Fixed(NeedOptions {
                packages: vec!["torch".into()],
                ..NeedOptions::default()
            })
        );
        let (name, job) = &plan.jobs[0];
        assert_eq!(
            (
                name.as_str(),
                job.trigger,
                job.required,
                job.use_default,
                job.shards.get()
            ),
            ("nightly", Trigger::Nightly, false, false, 1)
        );
    }

    #[test]
    fn bad_references_are_located() {
        let check = |text: &str, line: usize, needle: &str| {
            let error = load(text).unwrap_err();
            assert_eq!(error.line, line, "{error}");
            assert!(error.message.contains(needle), "{error}");
        };
        check(
            "[needs.ollama]\nservices = ['olama']\n",
            2,
            "unknown service `olama`",
        );
        check(
            "[services.db]\ndefault-address = 'localhost'\n",
            2,
            "not a `host:port`",
        );
        check("[gates.slow]\nreason = 'x'\n", 1, "needs `skip-if-env`");
        check("[jobs.unit]\npython = ['three']\n", 2, "not a version");
        check(
            "[jobs.unit]\nphases = { by = 'backend' }\n",
            2,
            "unknown axis `backend`",
        );
        check(
            "[jobs.unit]\ntrigger = 'weekly'\n",
            2,
            "unknown variant `weekly`",
        );
        check("[jobs.unit]\nshards = 0\n", 2, "at least 1");
        check("[helpers]\n'a.b' = 'gpus'\n", 2, "a helper kind");
        check("[jobs.unit]\nmarker = 'x'\n", 2, "unknown field `marker`");
        let service = "[services.db]\ndefault-address = '127.0.0.1:5432'\n";
        check(&format!("{service}start = ' '\n"), 3, "empty command line");
        check(
            &format!("{service}ready-timeout = 0\n"),
            3,
            "number of seconds",
        );
        check(
            &format!("{service}stop-timeout = -1.5\n"),
            3,
            "number of seconds",
        );
        check(&format!("{service}ready-timeout = 'soon'\n"), 3, "f64");
        check(
            &format!("{service}env = {{ 'A=B' = '1' }}\n"),
            3,
            "not an environment variable name",
        );
        check(
            &format!("{service}address-env = ''\n"),
            3,
            "not an environment variable name",
        );
        check(
            &format!("{service}hook-between-modules = {{ method = 'post', path = '/x' }}\n"),
            3,
            "not an HTTP method",
        );
        check(
            &format!("{service}hook-between-modules = {{ path = 'api/evict' }}\n"),
            3,
            "must start with `/`",
        );
        check(
            &format!("{service}hook-between-modules = {{ url = '/x' }}\n"),
            3,
            "unknown field `url`",
        );
        check(
            &format!("{service}stop = 'pg_ctl stop'\n"),
            3,
            "`stop` needs `start`",
        );
        check(
            &format!("{service}start = 'pg_ctl start'\nstop = ''\n"),
            4,
            "`stop` is an empty command line",
        );
        check(
            &format!("{service}stop-command = 'kill'\n"),
            3,
            "unknown field `stop-command`",
        );
    }

    #[test]
    fn service_lifecycles_read_with_defaults() {
        let plan = load(
            "[services.ollama]\naddress-env = 'OLLAMA_HOST'\ndefault-address = '127.0.0.1:11434'\nhttp-probe = '/api/tags'\n\
             start = 'ollama serve'\nstop = 'ollama stop'\nenv = { OLLAMA_KEEP_ALIVE = '0' }\nready-timeout = 45\nstop-timeout = 2.5\n\
             hook-between-modules = { path = '/api/evict', body = '{}' }\n\
             [services.db]\ndefault-address = '127.0.0.1:5432'\n",
        )
        .unwrap();
        let ollama = plan.service("ollama").unwrap();
        assert_eq!(
            (ollama.start.as_deref(), ollama.stop.as_deref()),
            (Some("ollama serve"), Some("ollama stop"))
        );
        assert_eq!(
            ollama.env.get("OLLAMA_KEEP_ALIVE").map(String::as_str),
            Some("0")
        );
        assert_eq!(
            (ollama.ready_timeout, ollama.stop_timeout),
            (Duration::from_secs(45), Duration::from_secs_f64(2.5))
        );
        let hook = ollama.hook_between_modules.as_ref().unwrap();
        assert_eq!(
            (
                hook.method.as_str(),
                hook.path.as_str(),
                hook.body.as_deref()
            ),
            ("POST", "/api/evict", Some("{}"))
        );
        let db = plan.service("db").unwrap();
        assert_eq!(
            db,
            &ServiceOptions {
                default_address: "127.0.0.1:5432".to_owned(),
                ..ServiceOptions::default()
            }
        );
        assert_eq!(
            (db.ready_timeout, db.stop_timeout),
            (Duration::from_secs(30), Duration::from_secs(10))
        );
    }
}
