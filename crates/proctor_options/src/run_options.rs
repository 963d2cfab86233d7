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

use std::time::Duration;

use serde::{Deserialize, Deserializer};

/// `[run]`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct RunOptions {
    /// Seconds a test may run before its process is killed and the rest run
    /// in a new one (`timeout`); `--timeout` overrides it.
    #[serde(deserialize_with = "positive_seconds")]
    pub timeout: Option<f64>,
    /// Markers (tiers) whose tests fail when they open a connection to a
    /// non-loopback address (`no-network`, e.g. `["unit"]`).
    pub no_network: Vec<String>,
    /// When a failing test is run again (`[[run.reruns]]`), first match
    /// wins; a failure no rule matches is never rerun.
    pub reruns: Vec<RerunRule>,
    /// Seconds above which a test's median duration in the history makes
    /// it slow (`slow-threshold`): `proctor run` names slow tests without
    /// the slow marker, and marked ones ten times faster than this.
    #[serde(deserialize_with = "positive_seconds")]
    pub slow_threshold: Option<f64>,
    /// The marker of slow tests (`slow-marker`, default `slow`).
    pub slow_marker: Option<String>,
    /// How many runs the history keeps (`history-runs`, at least 1,
    /// default [`DEFAULT_HISTORY_RUNS`]): after each run the older ones
    /// are dropped, so that the file stays small enough to cache.
    #[serde(deserialize_with = "positive_runs")]
    pub history_runs: Option<usize>,
    /// The order of `proctor run` without `--order` (`order`: `pytest`,
    /// the default, or `random`, whose seed the run prints); a job's
    /// `order` wins over it for `proctor run --job`.
    pub order: Option<RunOrder>,
}

/// A default order of `proctor run` (`[run] order`, a job's `order`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
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
        self.history_runs.unwrap_or(DEFAULT_HISTORY_RUNS)
    }
}

/// One rerun rule.
#[derive(Debug, Clone, PartialEq, Deserialize)]
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
    #[serde(deserialize_with = "positive_times")]
    pub times: u32,
    /// Seconds to wait before each attempt (`delay`, default 0, at most
    /// [`MAX_SECONDS`]).
    #[serde(default, deserialize_with = "delay_seconds")]
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

/// The longest time limit or delay accepted, in seconds: a day. It keeps
/// every such value a valid [`Duration`] (`1e300` is not one).
pub const MAX_SECONDS: f64 = 86_400.0;

/// `value` as a time limit (`--timeout`, `timeout = ...`): a number of
/// seconds above 0 and at most [`MAX_SECONDS`].
pub fn limit_seconds(value: f64) -> Result<Duration, String> {
    if value.is_finite() && value > 0.0 && value <= MAX_SECONDS {
        Ok(Duration::from_secs_f64(value))
    } else {
        Err(format!(
            "must be a number of seconds above 0 and at most {MAX_SECONDS}"
        ))
    }
}

pub(crate) fn positive_seconds<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<f64>, D::Error> {
    let value = f64::deserialize(deserializer)?;
    limit_seconds(value).map_err(serde::de::Error::custom)?;
    Ok(Some(value))
}

/// A rerun's `delay`: 0 (no wait) up to [`MAX_SECONDS`].
fn delay_seconds<'de, D: Deserializer<'de>>(deserializer: D) -> Result<f64, D::Error> {
    let value = f64::deserialize(deserializer)?;
    if value == 0.0 || limit_seconds(value).is_ok() {
        Ok(value)
    } else {
        Err(serde::de::Error::custom(format!(
            "must be a number of seconds from 0 to {MAX_SECONDS}"
        )))
    }
}

fn positive_runs<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<usize>, D::Error> {
    match usize::deserialize(deserializer)? {
        0 => Err(serde::de::Error::custom(
            "`history-runs` must be at least 1",
        )),
        n => Ok(Some(n)),
    }
}

fn positive_times<'de, D: Deserializer<'de>>(deserializer: D) -> Result<u32, D::Error> {
    match u32::deserialize(deserializer)? {
        0 => Err(serde::de::Error::custom("`times` must be at least 1")),
        n => Ok(n),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
                .timeout,
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
            err.to_string()
                .contains("`history-runs` must be at least 1"),
            "{err}"
        );
        assert!(toml::from_str::<RunOptions>("history-runs = -3").is_err());
    }
}
