//! Gates: rules that open or close the tests with a marker depending on
//! the environment of the run (`qualitative` skipped when `CICD=1`, `slow`
//! only with `RUN_SLOW=1`, `live` only with `--live`).

use proctor_config::GateOptions;

use crate::facts::Facts;

/// `None` when the gate of `marker` lets its tests run under `facts`, else
/// the skip reason.
#[must_use]
pub fn closed(marker: &str, gate: &GateOptions, facts: &Facts) -> Option<String> {
    let has = |(name, value): (&String, &String)| facts.env.get(name) == Some(value);
    let reason = |default: String| Some(gate.reason.clone().unwrap_or(default));
    if !gate.skip_if_env.is_empty() && gate.skip_if_env.iter().all(has) {
        return reason(format!(
            "`{marker}` tests are skipped when {}",
            assignments(&gate.skip_if_env)
        ));
    }
    if !gate.run_if_env.is_empty() && !gate.run_if_env.iter().all(has) {
        return reason(format!(
            "`{marker}` tests run only when {}",
            assignments(&gate.run_if_env)
        ));
    }
    if let Some(flag) = &gate.run_if_flag {
        if !facts.flags.iter().any(|f| f == flag) {
            return reason(format!("`{marker}` tests run only with {flag}"));
        }
    }
    None
}

/// `CICD=1 and CI=true`: the configured values, which are configuration,
/// not secrets.
fn assignments(env: &std::collections::BTreeMap<String, String>) -> String {
    env.iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(" and ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gate(text: &str) -> GateOptions {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn the_seed_gates() {
        let mut facts = Facts::default();
        let qualitative = gate("skip-if-env = { CICD = '1' }");
        assert_eq!(closed("qualitative", &qualitative, &facts), None);
        facts.env.insert("CICD".into(), "1".into());
        assert_eq!(
            closed("qualitative", &qualitative, &facts).unwrap(),
            "`qualitative` tests are skipped when CICD=1"
        );
        let slow = gate("run-if-env = { RUN_SLOW = '1' }");
        assert_eq!(
            closed("slow", &slow, &facts).unwrap(),
            "`slow` tests run only when RUN_SLOW=1"
        );
        facts.env.insert("RUN_SLOW".into(), "1".into());
        assert_eq!(closed("slow", &slow, &facts), None);
        let live = gate("run-if-flag = '--live'\nreason = 'needs the network: pass --live'");
        assert_eq!(
            closed("live", &live, &facts).unwrap(),
            "needs the network: pass --live"
        );
        facts.flags.push("--live".into());
        assert_eq!(closed("live", &live, &facts), None);
    }
}
