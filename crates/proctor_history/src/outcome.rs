//! The outcomes as SQL: stored codes are `proctor_outcome`'s
//! [`Outcome::code`], part of the on-disk format.

use proctor_outcome::Outcome;

/// `('failed', 'error', ...)`: the failing outcomes as an SQL list.
pub(crate) fn failure_set() -> String {
    let codes: Vec<String> = Outcome::ALL
        .into_iter()
        .filter(|o| o.is_failure())
        .map(|o| format!("'{}'", o.code()))
        .collect();
    format!("({})", codes.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failure_set_lists_failing_outcomes() {
        assert_eq!(failure_set(), "('failed', 'error', 'crashed', 'timed-out')");
    }
}
