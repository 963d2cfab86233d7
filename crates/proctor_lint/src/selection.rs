//! Which rules run: `--select` and `--ignore`, as codes or code prefixes,
//! like ruff's. The most specific (longest) matching selector decides; on a
//! tie `--ignore` wins.

use crate::{LintError, RULES};

/// The enabled rules, as selectors.
#[derive(Debug, Clone, Default)]
pub struct RuleSelection {
    select: Vec<String>,
    ignore: Vec<String>,
}

impl RuleSelection {
    /// Every rule, unless `select` is not empty; then only those it names;
    /// minus those `ignore` names more specifically. `ALL` selects every
    /// rule. Each selector must be the prefix of at least one code.
    pub fn new(select: &[String], ignore: &[String]) -> Result<Self, LintError> {
        let normalize = |list: &[String]| -> Result<Vec<String>, LintError> {
            list.iter()
                .map(|s| {
                    let s = s.trim().to_ascii_uppercase();
                    if s == "ALL" {
                        return Ok(String::new());
                    }
                    if RULES.iter().any(|rule| rule.code.starts_with(&s)) && !s.is_empty() {
                        Ok(s)
                    } else {
                        Err(LintError::UnknownSelector(s))
                    }
                })
                .collect()
        };
        Ok(RuleSelection {
            select: normalize(select)?,
            ignore: normalize(ignore)?,
        })
    }

    /// Whether the rule with `code` runs.
    #[must_use]
    pub fn enabled(&self, code: &str) -> bool {
        let longest = |list: &[String]| {
            list.iter()
                .filter(|s| code.starts_with(s.as_str()))
                .map(String::len)
                .max()
        };
        let selected = if self.select.is_empty() {
            Some(0)
        } else {
            longest(&self.select)
        };
        match (selected, longest(&self.ignore)) {
            (None, _) => false,
            (Some(_), None) => true,
            (Some(selected), Some(ignored)) => selected > ignored,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn selection(select: &[&str], ignore: &[&str]) -> RuleSelection {
        let owned = |l: &[&str]| l.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        RuleSelection::new(&owned(select), &owned(ignore)).unwrap()
    }

    #[test]
    fn the_most_specific_selector_wins() {
        assert!(selection(&[], &[]).enabled("PRC004"));
        assert!(!selection(&["PRC00"], &[]).enabled("PRC900"));
        assert!(!selection(&[], &["PRC004"]).enabled("PRC004"));
        assert!(selection(&["PRC004"], &["PRC"]).enabled("PRC004"));
        assert!(!selection(&["PRC"], &["PRC0"]).enabled("PRC004"));
        assert!(!selection(&["prc004"], &["PRC004"]).enabled("PRC004"));
        assert!(selection(&["ALL"], &[]).enabled("PRC900"));
    }

    #[test]
    fn unknown_selectors_are_refused() {
        let err = RuleSelection::new(&["E501".to_owned()], &[]).unwrap_err();
        assert_eq!(err, LintError::UnknownSelector("E501".into()));
    }
}
