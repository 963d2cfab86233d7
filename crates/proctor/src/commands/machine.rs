//! The machine a plan is for, as the planner's [`Facts`]: this one, as
//! `proctor caps` detects it, with `--assume` overrides; or a CI job's
//! runner, from the job's configuration.

use std::collections::BTreeMap;

use anyhow::{anyhow, bail, Context, Result};
use proctor_caps::{Capabilities, DetectOptions, ServiceProbe};
use proctor_config::{HelperOptions, NeedOptions, PlanOptions, Settings};
use proctor_plan::{job_facts, job_selection, Facts, JobSetup, ServiceFact};

use crate::args::{MachineArgs, ProbeArgs};
use crate::commands::selection::default_selection;
use crate::commands::suite::Suite;

/// Environment variables worth reporting in every suite.
const COMMON_ENV: &[&str] = &[
    "CI",
    "CICD",
    "RUN_SLOW",
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "HF_TOKEN",
    "CUDA_VISIBLE_DEVICES",
];

/// What to probe for a suite: its configured services, every environment
/// variable and program its plan names, and the interpreter that runs
/// pytest.
pub(crate) fn detect_options(config: &Settings, args: &ProbeArgs) -> DetectOptions {
    let plan = &config.proctor.plan;
    let python = proctor_caps::find_interpreter(
        args.python.as_deref(),
        config.proctor.python.as_deref(),
        &config.pytest.rootdir,
    );
    DetectOptions {
        python,
        env_names: env_names(plan),
        services: plan
            .services
            .iter()
            .map(|(name, service)| ServiceProbe {
                name: name.clone(),
                address_env: service.address_env.clone(),
                default_address: service.default_address.clone(),
                http_path: service.http_probe.clone(),
            })
            .collect(),
        binaries: binaries(plan),
        skip_resource_checks: args.skip_resource_checks,
        ..DetectOptions::default()
    }
}

/// Every table of needs in the plan: `[needs.<marker>]` and the fixed
/// ones of `[helpers]`.
fn tables_of_needs(plan: &PlanOptions) -> impl Iterator<Item = &NeedOptions> {
    plan.needs
        .iter()
        .map(|(_, need)| need)
        .chain(plan.helpers.iter().filter_map(|(_, helper)| match helper {
            HelperOptions::Fixed(need) => Some(need),
            HelperOptions::Kind(_) => None,
        }))
}

/// `names` in order, each once.
fn once<'a>(names: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for name in names {
        if !out.iter().any(|n| n == name) {
            out.push(name.to_owned());
        }
    }
    out
}

/// The environment variables the plan names, then the common ones, once.
fn env_names(plan: &PlanOptions) -> Vec<String> {
    let mut all: Vec<&String> = tables_of_needs(plan).flat_map(|n| &n.env).collect();
    all.extend(
        plan.gates
            .iter()
            .flat_map(|(_, g)| g.skip_if_env.keys().chain(g.run_if_env.keys())),
    );
    all.extend(plan.jobs.iter().flat_map(|(_, j)| j.env.keys()));
    all.extend(
        plan.services
            .iter()
            .filter_map(|(_, s)| s.address_env.as_ref()),
    );
    once(
        all.into_iter()
            .map(String::as_str)
            .chain(COMMON_ENV.iter().copied()),
    )
}

/// The programs the plan names, and `nvidia-smi`.
fn binaries(plan: &PlanOptions) -> Vec<String> {
    once(
        tables_of_needs(plan)
            .flat_map(|n| n.binaries.iter().map(String::as_str))
            .chain(["nvidia-smi"]),
    )
}

/// The configured jobs (or only `only`), each with its selection and
/// runner.
pub(crate) fn job_setups(suite: &Suite, only: Option<&str>) -> Result<Vec<JobSetup>> {
    let options = &suite.config.proctor;
    let plan = &options.plan;
    let default = default_selection(suite);
    // A job without paths runs what `pytest` alone collects: `testpaths`
    // (globs aside, which are not prefixes).
    let testpaths = &suite.config.pytest.testpaths;
    let walk: Vec<String> = if testpaths.iter().any(|p| p.contains(['*', '?', '['])) {
        Vec::new()
    } else {
        testpaths.clone()
    };
    let mut jobs = Vec::new();
    for (name, job) in &plan.jobs {
        if only.is_some_and(|wanted| wanted != name) {
            continue;
        }
        let selection =
            job_selection(name, job, default.clone()).with_context(|| format!("job `{name}`"))?;
        let mut facts = job_facts(job, plan);
        assume_on_facts(&mut facts, &job.assume)
            .with_context(|| format!("job `{name}`: `assume`"))?;
        jobs.push(JobSetup {
            name: name.clone(),
            options: job.clone(),
            selection,
            facts,
            walk: walk.clone(),
        });
    }
    if let Some(wanted) = only {
        if jobs.is_empty() {
            let known: Vec<&str> = plan.jobs.iter().map(|(n, _)| n.as_str()).collect();
            if known.is_empty() {
                bail!("unknown job `{wanted}`: no [jobs] are configured");
            }
            bail!("unknown job `{wanted}` (configured: {})", known.join(", "));
        }
    }
    Ok(jobs)
}

/// This machine: detected, then `--assume` applied; the process
/// environment for gates; `--flag`s.
pub(crate) fn facts(suite: &Suite, args: &MachineArgs) -> Result<Facts> {
    facts_asking_python(suite, args, true)
}

/// Like [`facts`]; without `ask_python` the interpreter is not run (its
/// packages and version stay unknown), which saves its start-up when no
/// test needs a package or a Python version.
pub(crate) fn facts_asking_python(
    suite: &Suite,
    args: &MachineArgs,
    ask_python: bool,
) -> Result<Facts> {
    facts_with_env(suite, args, ask_python, &[])
}

/// Like [`facts_asking_python`], for tests that get `env` on top of the
/// process's environment (`proctor run --job`): services are probed at
/// the addresses it gives them.
pub(crate) fn facts_with_env(
    suite: &Suite,
    args: &MachineArgs,
    ask_python: bool,
    env: &[(String, String)],
) -> Result<Facts> {
    let mut options = detect_options(&suite.config, &args.probe);
    options.env = env.to_vec();
    if !ask_python {
        options.python = None;
    }
    let mut caps = proctor_caps::detect(&options);
    proctor_caps::assume(&mut caps, &args.probe.assume).map_err(|e| anyhow!("{e}"))?;
    let env: BTreeMap<String, String> = std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .collect();
    Ok(from_capabilities(&caps, env, args.flags.clone()))
}

/// The planner's view of `caps`. `env` holds the variables gates compare;
/// a name that `caps` says is set (an `--assume env.X=set`) but that `env`
/// lacks counts as set, and one it says is unset is removed.
pub(crate) fn from_capabilities(
    caps: &Capabilities,
    mut env: BTreeMap<String, String>,
    flags: Vec<String>,
) -> Facts {
    for (name, set) in &caps.env {
        if *set {
            env.entry(name.clone()).or_insert_with(|| "1".to_owned());
        } else {
            env.remove(name);
        }
    }
    Facts {
        gpus_vram_gb: caps
            .gpus
            .iter()
            .map(|g| proctor_caps::gib(g.vram_bytes))
            .collect(),
        ram_gb: caps.ram_gb(),
        env,
        services: caps
            .services
            .iter()
            .map(|(name, s)| {
                (
                    name.clone(),
                    ServiceFact {
                        up: s.reachable,
                        address: s.address.clone(),
                    },
                )
            })
            .collect(),
        // Keys are PEP 503-normalized already.
        packages: caps
            .python
            .as_ref()
            .map(|p| p.packages.keys().cloned().collect()),
        modules: caps.python.as_ref().and_then(|p| p.modules.clone()),
        binaries: caps
            .binaries
            .iter()
            .map(|(name, path)| (name.clone(), path.is_some()))
            .collect(),
        python: caps.python_version(),
        os: caps.platform.os.clone(),
        flags,
        skip_resource_checks: caps.skip_resource_checks,
    }
}

/// A CI job's `assume` entries over its runner's facts: the entries are
/// applied to capabilities built from the facts, with the same keys and
/// checks as `--assume`.
pub(crate) fn assume_on_facts(facts: &mut Facts, entries: &[String]) -> Result<()> {
    if entries.is_empty() {
        return Ok(());
    }
    let mut caps = Capabilities::default();
    caps.platform.os.clone_from(&facts.os);
    caps.ram_bytes = facts.ram_gb.and_then(proctor_caps::gib_bytes);
    caps.env = facts
        .env
        .keys()
        .map(|k| (k.clone(), facts.env_set(k)))
        .collect();
    caps.services = facts
        .services
        .iter()
        .map(|(name, s)| {
            (
                name.clone(),
                proctor_caps::Service {
                    address: s.address.clone(),
                    source: "job".to_owned(),
                    reachable: s.up,
                    http: None,
                },
            )
        })
        .collect();
    proctor_caps::assume(&mut caps, entries).map_err(|e| anyhow!("{e}"))?;
    let env = std::mem::take(&mut facts.env);
    let flags = std::mem::take(&mut facts.flags);
    let assumed = from_capabilities(&caps, env, flags);
    let python = facts.python;
    *facts = Facts {
        python: assumed.python.or(python),
        ..assumed
    };
    Ok(())
}
