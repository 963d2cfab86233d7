//! Environment variables: whether each one asked about is set. Values are
//! read only to test for emptiness and are never kept.

use std::collections::BTreeMap;

/// Name → whether the variable is present and not empty.
pub(crate) fn env_set(names: &[String]) -> BTreeMap<String, bool> {
    names
        .iter()
        .map(|name| (name.clone(), is_set(name)))
        .collect()
}

/// Whether `name` is present and not empty.
pub(crate) fn is_set(name: &str) -> bool {
    !name.is_empty()
        && !name.contains(['=', '\0'])
        && std::env::var_os(name).is_some_and(|value| !value.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_cannot_be_variables_are_unset() {
        assert!(!is_set(""));
        assert!(!is_set("A=B"));
        assert!(!is_set("PROCTOR_CAPS_SURELY_UNSET_VARIABLE"));
        // PATH is set in any environment that runs tests.
        let set = env_set(&[
            "PATH".to_owned(),
            "PROCTOR_CAPS_SURELY_UNSET_VARIABLE".to_owned(),
        ]);
        assert_eq!(
            set.into_iter().collect::<Vec<_>>(),
            [
                ("PATH".to_owned(), true),
                ("PROCTOR_CAPS_SURELY_UNSET_VARIABLE".to_owned(), false)
            ]
        );
    }
}
