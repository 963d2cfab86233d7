//! Which rules run: `--select` and `--ignore`, as codes or code prefixes,
//! like ruff's. The most specific (longest) matching selector decides; on a
//! tie `--ignore` wins. [`RuleSelection::layered`] puts the command line
//! over `[check]` as ruff does, and [`PerFileIgnores`] drops findings in
//! the files a glob names.

use globset::{Glob, GlobMatcher};
use proctor_source::Diagnostic;

use crate::{LintError, RULES};

/// The selectors of one layer (the configuration, or the command line).
#[derive(Debug, Clone, Default)]
pub struct SelectorLayer<'a> {
    /// Replaces the selection of the layers below when not empty.
    pub select: &'a [String],
    /// Added to the selection.
    pub extend_select: &'a [String],
    /// Removed from the selection.
    pub ignore: &'a [String],
}

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

    /// The selection of `layers`, lowest first (the configuration, then the
    /// command line), as ruff layers them: the last layer with a `select`
    /// sets the base (every rule when none has one), every
    /// `extend-select` adds to it and every `ignore` removes from it.
    pub fn layered(layers: &[SelectorLayer<'_>]) -> Result<Self, LintError> {
        let mut select: Vec<String> = layers
            .iter()
            .rev()
            .find(|layer| !layer.select.is_empty())
            .map_or_else(Vec::new, |layer| layer.select.to_vec());
        let extended: Vec<String> = layers
            .iter()
            .flat_map(|layer| layer.extend_select.iter().cloned())
            .collect();
        if !extended.is_empty() {
            if select.is_empty() {
                select.push("ALL".to_owned());
            }
            select.extend(extended);
        }
        let ignore: Vec<String> = layers
            .iter()
            .flat_map(|layer| layer.ignore.iter().cloned())
            .collect();
        RuleSelection::new(&select, &ignore)
    }

    /// Whether `selector` names at least one rule (`ALL` included).
    #[must_use]
    pub fn is_selector(selector: &str) -> bool {
        let s = selector.trim().to_ascii_uppercase();
        s == "ALL" || (!s.is_empty() && RULES.iter().any(|rule| rule.code.starts_with(&s)))
    }

    /// Whether the command line or the configuration named `code` (or a
    /// prefix of it at least as long as `min`) in a `select`: an explicit
    /// request, as opposed to the default "every rule".
    #[must_use]
    pub fn names(&self, code: &str, min: usize) -> bool {
        self.select
            .iter()
            .any(|s| s.len() >= min && code.starts_with(s.as_str()))
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

/// `[check] per-file-ignores`: rule selectors that do not apply to the
/// files a glob matches. A glob matches a rootdir-relative path, or, when
/// it has no `/`, a file's name (as ruff's).
#[derive(Debug, Clone, Default)]
pub struct PerFileIgnores {
    entries: Vec<(GlobMatcher, bool, RuleSelection)>,
}

impl PerFileIgnores {
    /// Compiles `(glob, selectors)` pairs.
    pub fn new<'a>(
        entries: impl IntoIterator<Item = (&'a str, &'a [String])>,
    ) -> Result<Self, LintError> {
        let mut compiled = Vec::new();
        for (pattern, codes) in entries {
            let glob = Glob::new(pattern).map_err(|err| LintError::BadPattern {
                pattern: pattern.to_owned(),
                reason: err.kind().to_string(),
            })?;
            let selection = RuleSelection::new(codes, &[])?;
            compiled.push((glob.compile_matcher(), !pattern.contains('/'), selection));
        }
        Ok(PerFileIgnores { entries: compiled })
    }

    /// Whether `diagnostic` is in a file whose entry ignores its code.
    #[must_use]
    pub fn ignores(&self, diagnostic: &Diagnostic) -> bool {
        let name = diagnostic
            .file
            .rsplit('/')
            .next()
            .unwrap_or(&diagnostic.file);
        self.entries.iter().any(|(glob, by_name, codes)| {
            (glob.is_match(&diagnostic.file) || (*by_name && glob.is_match(name)))
                && codes.enabled(diagnostic.code)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn owned(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn layers_put_the_command_line_over_the_configuration() {
        let (config_select, config_ignore) = (owned(&["PRC00"]), owned(&["PRC004"]));
        let cli_extend = owned(&["PRC9"]);
        let config = SelectorLayer {
            select: &config_select,
            extend_select: &[],
            ignore: &config_ignore,
        };
        let cli = SelectorLayer {
            select: &[],
            extend_select: &cli_extend,
            ignore: &[],
        };
        let both = RuleSelection::layered(&[config.clone(), cli]).unwrap();
        assert!(both.enabled("PRC003") && both.enabled("PRC900"));
        assert!(!both.enabled("PRC004") && !both.enabled("PRC101"));
        let cli_select = owned(&["PRC1"]);
        let replaced = RuleSelection::layered(&[
            config,
            SelectorLayer {
                select: &cli_select,
                ..SelectorLayer::default()
            },
        ])
        .unwrap();
        assert!(replaced.enabled("PRC101") && !replaced.enabled("PRC003"));
        let extended = RuleSelection::layered(&[SelectorLayer {
            extend_select: &cli_extend,
            ..SelectorLayer::default()
        }])
        .unwrap();
        assert!(extended.enabled("PRC004") && extended.enabled("PRC900"));
    }

    #[test]
    fn per_file_ignores_match_paths_and_names() {
        let codes = owned(&["PRC3"]);
        let ignores = PerFileIgnores::new([
            ("tests/legacy/**", codes.as_slice()),
            ("conftest.py", &codes),
        ])
        .unwrap();
        let at = |file: &str, code: &'static str| {
            let start = proctor_source::LineColumn { line: 1, column: 1 };
            Diagnostic::new(
                code,
                proctor_source::Severity::Warning,
                String::new(),
                file.into(),
                start,
                start,
            )
        };
        assert!(ignores.ignores(&at("tests/legacy/test_a.py", "PRC302")));
        assert!(!ignores.ignores(&at("tests/legacy/test_a.py", "PRC004")));
        assert!(!ignores.ignores(&at("tests/new/test_a.py", "PRC302")));
        assert!(ignores.ignores(&at("tests/new/conftest.py", "PRC301")));
        assert!(PerFileIgnores::new([("a[", codes.as_slice())]).is_err());
    }

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
