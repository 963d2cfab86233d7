//! Options of `proctor run` (`[run]`): reruns for transient failures,
//! the default per-test timeout, and tiers that may not use the network.
//!
//! ```toml
//! [run]
//! timeout = 300
//! no-network = ["unit"]
//! slow-threshold = 60
//! history-runs = 200
//! order = "random"
//!
//! [[run.reruns]]
//! markers = ["ollama"]
//! match = ["ReadTimeout"]
//! times = 2
//! delay = 5
//! ```

use std::num::{NonZeroU32, NonZeroUsize};

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer};

use crate::seconds::{Seconds, MAX_SECONDS};

/// `[run]`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct RunOptions {
    /// Per-test limit of `proctor run` (default: none): a test that runs
    /// longer is killed and the rest run in a new process; `--timeout`
    /// overrides it: [run.md](run.md#crashes-timeouts-ctrl-c).
    pub timeout: Option<Seconds>,
    /// Markers (tiers, e.g. `["unit"]`) whose tests fail on a non-loopback
    /// connection: [run.md](run.md#the-network-contract).
    pub no_network: Vec<String>,
    /// When a failure runs again, first match wins; a failure no rule
    /// matches is never rerun: [run.md](run.md#reruns).
    pub reruns: Vec<RerunRule>,
    /// A median duration in the history above this makes a test slow
    /// (default: off): `proctor run` names slow tests without the slow
    /// marker, and marked ones ten times faster: [run.md](run.md#history).
    pub slow_threshold: Option<Seconds>,
    /// The marker of slow tests (default `slow`).
    pub slow_marker: Option<String>,
    /// How many runs `.proctor/history.db` keeps; older ones are dropped
    /// after each run, so that the file stays small enough to cache:
    /// [history.md](history.md#how-long-it-keeps-runs).
    #[schemars(extend("default" = DEFAULT_HISTORY_RUNS))]
    pub history_runs: Option<NonZeroUsize>,
    /// The order of `proctor run` without `--order` (default `pytest`);
    /// `random` prints its seed (`random order (--seed N)`), and `--seed N`
    /// reproduces it. A job's `order` wins over it for `--job`:
    /// [run.md](run.md#selection-jobs-order-shards).
    pub order: Option<RunOrder>,
}

/// A default order of `proctor run` (`[run] order`, a job's `order`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum RunOrder {
    /// pytest's own order.
    Pytest,
    /// Shuffled from a fresh seed, printed in the run's header.
    Random,
}

impl RunOrder {
    /// The value as `--order` takes it.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            RunOrder::Pytest => "pytest",
            RunOrder::Random => "random",
        }
    }
}

/// Runs the history keeps without `history-runs`: the last 20 runs of
/// every test (the window of the flaky and slow findings) with up to ten
/// shards.
pub const DEFAULT_HISTORY_RUNS: usize = 200;

impl RunOptions {
    /// How many runs the history keeps.
    #[must_use]
    pub fn history_runs(&self) -> usize {
        self.history_runs
            .map_or(DEFAULT_HISTORY_RUNS, NonZeroUsize::get)
    }
}

/// One rerun rule.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct RerunRule {
    /// The rule applies to tests with any of these markers (`markers`;
    /// empty: every test).
    #[serde(default)]
    pub markers: Vec<String>,
    /// The rule applies only when the failure's text contains one of these
    /// (`match`, e.g. `["ReadTimeout"]`; empty: any failure, assertion
    /// failures included).
    #[serde(default, rename = "match")]
    pub patterns: Vec<String>,
    /// How many more attempts (`times`, at least 1).
    pub times: NonZeroU32,
    /// Seconds to wait before each attempt (`delay`, default 0, at most
    /// [`MAX_SECONDS`]).
    #[serde(default, deserialize_with = "delay_seconds")]
    #[schemars(range(min = 0, max = 86_400))]
    pub delay: f64,
}

impl RerunRule {
    /// Whether a failure of a test with `markers` and failure text `text`
    /// falls under this rule.
    #[must_use]
    pub fn applies(&self, markers: &[String], text: &str) -> bool {
        (self.markers.is_empty() || self.markers.iter().any(|m| markers.contains(m)))
            && (self.patterns.is_empty() || self.patterns.iter().any(|p| text.contains(p.as_str())))
    }
}

/// A rerun's `delay`: 0 (no wait) up to [`MAX_SECONDS`].
fn delay_seconds<'de, D: Deserializer<'de>>(deserializer: D) -> Result<f64, D::Error> {
    let value = f64::deserialize(deserializer)?;
    if value == 0.0 || Seconds::new(value).is_ok() {
        Ok(value)
    } else {
        Err(serde::de::Error::custom(format!(
            "must be a number of seconds from 0 to {MAX_SECONDS}"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limit_seconds;
    use std::time::Duration;

    #[test]
    fn rules_match_by_marker_and_text() {
        let rule: RerunRule =
            toml::from_str("markers = ['ollama']\nmatch = ['ReadTimeout']\ntimes = 2\ndelay = 5")
                .unwrap();
        let ollama = ["ollama".to_owned()];
        assert!(rule.applies(&ollama, "httpx.ReadTimeout: timed out"));
        assert!(!rule.applies(&ollama, "AssertionError: assert 1 == 2"));
        assert!(!rule.applies(&["openai".to_owned()], "ReadTimeout"));
        assert!(toml::from_str::<RerunRule>("times = 0").is_err());
    }

    #[test]
    fn times_are_bounded() {
        for bad in ["0", "-1", "nan", "inf", "1e300", "86401"] {
            let err = toml::from_str::<RunOptions>(&format!("timeout = {bad}")).unwrap_err();
            assert!(err.to_string().contains("at most 86400"), "{bad}: {err}");
            let err = toml::from_str::<RerunRule>(&format!(
                "times = 1\ndelay = {}",
                if bad == "0" { "-0.5" } else { bad }
            ))
            .unwrap_err();
            assert!(err.to_string().contains("from 0 to 86400"), "{bad}: {err}");
        }
        assert_eq!(
            toml::from_str::<RunOptions>("timeout = 86400")
                .unwrap()
                .timeout
                .map(Seconds::get),
            Some(86_400.0)
        );
        assert!(
            toml::from_str::<RerunRule>("times = 1\ndelay = 0")
                .unwrap()
                .delay
                .abs()
                < f64::EPSILON
        );
        assert_eq!(limit_seconds(2.5), Ok(Duration::from_millis(2500)));
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY, 1e300] {
            assert!(limit_seconds(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_history_keeps_a_positive_number_of_runs() {
        assert_eq!(RunOptions::default().history_runs(), DEFAULT_HISTORY_RUNS);
        let options: RunOptions = toml::from_str("history-runs = 50").unwrap();
        assert_eq!(options.history_runs(), 50);
        let err = toml::from_str::<RunOptions>("history-runs = 0").unwrap_err();
        assert!(
            err.to_string().contains("expected a nonzero usize"),
            "{err}"
        );
        assert!(toml::from_str::<RunOptions>("history-runs = -3").is_err());
    }
}
