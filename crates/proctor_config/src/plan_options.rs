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

use serde::{Deserialize, Deserializer};

use crate::taxonomy_options::{KeyPath, TaxonomyOptions, TaxonomyProblem};

/// How to reach a service (`[services.<name>]`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
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
}

/// What the machine must offer a test (`[needs.<marker>]`, or a table in
/// `[helpers]`). Every field is optional; together they are all required.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
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
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged, expecting = "a helper kind (\"gpu\", \"ram\", \"env\", \"package\", \"python\", \"binary\") or a table of needs")]
pub enum HelperOptions {
    /// The call's arguments say how much (`require_gpu(min_vram_gb=8)`).
    Kind(HelperKind),
    /// The helper always needs the same (`require_torch`).
    Fixed(NeedOptions),
}

/// What a helper's arguments are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
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
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
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
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, serde::Serialize)]
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
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct PhaseOptions {
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
#[derive(Debug, Clone, PartialEq, Deserialize)]
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
    pub phases: Option<PhaseOptions>,
    /// When it runs (`trigger`: `pr`, `nightly` or `manual`).
    pub trigger: Trigger,
    /// Whether a failure blocks merging (`required`, default true); an
    /// advisory job sets false.
    pub required: bool,
    /// Shards to split the job into (`shards`, default 1).
    #[serde(deserialize_with = "positive_shards")]
    pub shards: usize,
    /// The runner label (`runs-on`, default `ubuntu-latest`).
    pub runs_on: Option<String>,
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
            required: true,
            shards: 1,
            runs_on: None,
        }
    }
}

fn positive_shards<'de, D: Deserializer<'de>>(deserializer: D) -> Result<usize, D::Error> {
    match usize::deserialize(deserializer)? {
        0 => Err(serde::de::Error::custom("`shards` must be at least 1")),
        n => Ok(n),
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
        self.services.iter().find(|(n, _)| n == name).map(|(_, s)| s)
    }

    /// What the configuration refers to that does not exist, with where.
    #[must_use]
    pub fn problems(&self, taxonomy: &TaxonomyOptions) -> Vec<TaxonomyProblem> {
        let mut problems = Vec::new();
        let mut report = |key: KeyPath, message: String| problems.push(TaxonomyProblem { key, message });
        for (name, service) in &self.services {
            if !valid_address(&service.default_address) {
                report(
                    KeyPath::default().key("services").key(name).key("default-address"),
                    format!("`{}` is not a `host:port` address", service.default_address),
                );
            }
            if let Some(path) = &service.http_probe {
                if !path.starts_with('/') {
                    report(KeyPath::default().key("services").key(name).key("http-probe"), format!("`{path}` must start with `/`"));
                }
            }
        }
        let known_service = |s: &str| self.services.iter().any(|(n, _)| n == s);
        let check_need = |key: KeyPath, need: &NeedOptions, report: &mut dyn FnMut(KeyPath, String)| {
            for (i, service) in need.services.iter().enumerate() {
                if !known_service(service) {
                    report(key.clone().key("services").index(i), format!("unknown service `{service}` (declare it in [services.{service}])"));
                }
            }
            if let Some(python) = &need.python {
                if parse_version(python).is_none() {
                    report(key.clone().key("python"), format!("`{python}` is not a version such as `3.11`"));
                }
            }
            for (field, value) in [("gpu-vram-gb", need.gpu_vram_gb), ("ram-gb", need.ram_gb)] {
                if value.is_some_and(|v| !(v.is_finite() && v >= 0.0)) {
                    report(key.clone().key(field), "must be a number of GB, 0 or more".to_owned());
                }
            }
        };
        for (marker, need) in &self.needs {
            check_need(KeyPath::default().key("needs").key(marker), need, &mut report);
        }
        for (path, helper) in &self.helpers {
            if let HelperOptions::Fixed(need) = helper {
                check_need(KeyPath::default().key("helpers").key(path), need, &mut report);
            }
        }
        for (marker, gate) in &self.gates {
            let key = KeyPath::default().key("gates").key(marker);
            if gate.skip_if_env.is_empty() && gate.run_if_env.is_empty() && gate.run_if_flag.is_none() {
                report(key.clone(), "a gate needs `skip-if-env`, `run-if-env` or `run-if-flag`".to_owned());
            }
            if let Some(flag) = &gate.run_if_flag {
                if !flag.starts_with("--") || flag.len() < 3 {
                    report(key.key("run-if-flag"), format!("`{flag}` is not a long option such as `--live`"));
                }
            }
        }
        for (name, job) in &self.jobs {
            let key = KeyPath::default().key("jobs").key(name);
            for (i, service) in job.services.iter().enumerate() {
                if !known_service(service) {
                    report(key.clone().key("services").index(i), format!("unknown service `{service}` (declare it in [services.{service}])"));
                }
            }
            for (i, python) in job.python.iter().enumerate() {
                if parse_version(python).is_none() {
                    report(key.clone().key("python").index(i), format!("`{python}` is not a version such as `3.11`"));
                }
            }
            if let Some(phases) = &job.phases {
                let axis = taxonomy.axes.iter().find(|(n, _)| *n == phases.by);
                match axis {
                    None => report(key.clone().key("phases").key("by"), format!("unknown axis `{}` (phases are the markers of an axis)", phases.by)),
                    Some((axis_name, axis)) => {
                        for (i, marker) in phases.order.iter().enumerate() {
                            if !axis.markers.contains(marker) {
                                report(key.clone().key("phases").key("order").index(i), format!("`{marker}` is not a marker of axis `{axis_name}`"));
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
    address.rsplit_once(':').is_some_and(|(host, port)| !host.is_empty() && port.parse::<u16>().is_ok())
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

    fn load(text: &str) -> Result<PlanOptions, crate::ConfigError> {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("proctor.toml"), text).unwrap();
        crate::proctor_options::find(dir.path()).map(|found| found.unwrap().1.plan)
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
        assert_eq!(plan.service("ollama").unwrap().address_env.as_deref(), Some("OLLAMA_HOST"));
        assert_eq!(plan.helpers[0].1, HelperOptions::Kind(HelperKind::Gpu));
        assert_eq!(plan.helpers[1].1, HelperOptions::Fixed(NeedOptions { packages: vec!["torch".into()], ..NeedOptions::default() }));
        let (name, job) = &plan.jobs[0];
        assert_eq!((name.as_str(), job.trigger, job.required, job.use_default, job.shards), ("nightly", Trigger::Nightly, false, false, 1));
    }

    #[test]
    fn bad_references_are_located() {
        let check = |text: &str, line: usize, needle: &str| {
            let error = load(text).unwrap_err();
            assert_eq!(error.line, line, "{error}");
            assert!(error.message.contains(needle), "{error}");
        };
        check("[needs.ollama]\nservices = ['olama']\n", 2, "unknown service `olama`");
        check("[services.db]\ndefault-address = 'localhost'\n", 2, "not a `host:port`");
        check("[gates.slow]\nreason = 'x'\n", 1, "needs `skip-if-env`");
        check("[jobs.unit]\npython = ['three']\n", 2, "not a version");
        check("[jobs.unit]\nphases = { by = 'backend' }\n", 2, "unknown axis `backend`");
        check("[jobs.unit]\ntrigger = 'weekly'\n", 2, "unknown variant `weekly`");
        check("[jobs.unit]\nshards = 0\n", 2, "at least 1");
        check("[helpers]\n'a.b' = 'gpus'\n", 2, "a helper kind");
        check("[jobs.unit]\nmarker = 'x'\n", 2, "unknown field `marker`");
    }
}
