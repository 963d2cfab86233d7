//! The text each [`Outcome`] is stored as. The codes are part of the
//! on-disk format: they never change, whatever the enum's names become.

use proctor_run::Outcome;

/// Every outcome, for building SQL sets and for parsing.
pub(crate) const ALL: [Outcome; 8] = [
    Outcome::Passed,
    Outcome::Failed,
    Outcome::Error,
    Outcome::Skipped,
    Outcome::Xfailed,
    Outcome::Xpassed,
    Outcome::Crashed,
    Outcome::TimedOut,
];

/// The stored code of `outcome`.
pub(crate) fn code(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Passed => "passed",
        Outcome::Failed => "failed",
        Outcome::Error => "error",
        Outcome::Skipped => "skipped",
        Outcome::Xfailed => "xfailed",
        Outcome::Xpassed => "xpassed",
        Outcome::Crashed => "crashed",
        Outcome::TimedOut => "timed-out",
    }
}

/// The outcome stored as `text`, if any.
pub(crate) fn parse(text: &str) -> Option<Outcome> {
    ALL.into_iter().find(|&outcome| code(outcome) == text)
}

/// `('failed', 'error', ...)`: the failing outcomes as an SQL list.
pub(crate) fn failure_set() -> String {
    let codes: Vec<String> = ALL
        .into_iter()
        .filter(|o| o.is_failure())
        .map(|o| format!("'{}'", code(o)))
        .collect();
    format!("({})", codes.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_and_are_distinct() {
        for outcome in ALL {
            assert_eq!(parse(code(outcome)), Some(outcome));
        }
        let mut codes: Vec<_> = ALL.into_iter().map(code).collect();
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), ALL.len());
        assert_eq!(parse("timed out"), None);
    }

    #[test]
    fn failure_set_lists_failing_outcomes() {
        assert_eq!(failure_set(), "('failed', 'error', 'crashed', 'timed-out')");
    }
}
