//! A time limit or delay written as a number of seconds.

use std::time::Duration;

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Deserializer};

/// The longest time limit or delay accepted, in seconds: a day. It keeps
/// every such value a valid [`Duration`] (`1e300` is not one).
pub const MAX_SECONDS: f64 = 86_400.0;

/// A number of seconds, integer or fractional, above 0 and at most
/// [`MAX_SECONDS`]: a value that deserializes is a valid [`Duration`].
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
pub struct Seconds(f64);

impl Seconds {
    /// `value` as a time limit (`--timeout`, `timeout = ...`).
    ///
    /// # Errors
    /// A value that is not a number above 0 and at most [`MAX_SECONDS`].
    pub fn new(value: f64) -> Result<Seconds, String> {
        if value.is_finite() && value > 0.0 && value <= MAX_SECONDS {
            Ok(Seconds(value))
        } else {
            Err(format!(
                "must be a number of seconds above 0 and at most {MAX_SECONDS}"
            ))
        }
    }

    /// The number of seconds.
    #[must_use]
    pub fn get(self) -> f64 {
        self.0
    }

    /// The limit as a [`Duration`].
    #[must_use]
    pub fn duration(self) -> Duration {
        Duration::from_secs_f64(self.0)
    }
}

/// `value` as a time limit: a number of seconds above 0 and at most
/// [`MAX_SECONDS`].
pub fn limit_seconds(value: f64) -> Result<Duration, String> {
    Seconds::new(value).map(Seconds::duration)
}

impl<'de> Deserialize<'de> for Seconds {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Seconds::new(f64::deserialize(deserializer)?).map_err(serde::de::Error::custom)
    }
}

impl JsonSchema for Seconds {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Seconds".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A number of seconds, integer or fractional, above 0 and at most a day.",
            "type": "number",
            "exclusiveMinimum": 0,
            "maximum": MAX_SECONDS,
        })
    }
}
