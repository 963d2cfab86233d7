//! The central table: stable codes to rules. Codes are never reused; a
//! retired rule keeps its code out of circulation.

use proctor_source::Severity;

use crate::context::{ItemContext, Sink, SuiteContext};
use crate::rules::config::{addopts_markexpr, ignored_config_table};
use crate::rules::conventions::{
    multi_claim_test_name, test_file_name, test_name_shape, unmirrored_test_file,
};
use crate::rules::examples::{example_without_opt_in, notebook_without_opt_in, opt_in_expression};
use crate::rules::registry::{
    unknown_marker_in_expression, unregistered_marker, unused_helper, unused_registered_marker,
};
use crate::rules::taxonomy::{
    conflicting_markers, default_marker_written, deprecated_marker, dynamic_item,
    marker_outside_allowed_company, marker_without_comment, marker_without_required_companion,
    missing_axis_marker, removed_marker, too_many_axis_markers, wrong_marker_scope,
};

/// One lint rule.
pub struct Rule {
    /// The stable code (`PRC004`).
    pub code: &'static str,
    /// The kebab-case name of the pattern it flags.
    pub name: &'static str,
    /// The severity of its findings.
    pub severity: Severity,
    /// One line for `proctor rule --all`.
    pub summary: &'static str,
    /// The documentation `proctor rule CODE` prints: what it does, why is
    /// this bad, example, use instead (Markdown).
    pub doc: &'static str,
    pub(crate) check: Check,
}

/// What a rule looks at.
#[derive(Clone, Copy)]
pub(crate) enum Check {
    /// One item at a time, with its effective markers.
    Item(fn(&ItemContext<'_>, &mut Sink<'_>)),
    /// The whole collection and the configuration at once.
    Suite(fn(&SuiteContext<'_>, &mut Sink<'_>)),
}

impl std::fmt::Debug for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rule")
            .field("code", &self.code)
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

macro_rules! rule {
    ($code:literal, $module:ident, $severity:ident, $summary:literal) => {
        Rule {
            code: $code,
            name: $module::NAME,
            severity: Severity::$severity,
            summary: $summary,
            doc: $module::DOC,
            check: Check::Item($module::check),
        }
    };
    (suite $code:literal, $module:ident, $severity:ident, $summary:literal) => {
        Rule {
            code: $code,
            name: $module::NAME,
            severity: Severity::$severity,
            summary: $summary,
            doc: $module::DOC,
            check: Check::Suite($module::check),
        }
    };
}

/// Every rule, by code.
pub static RULES: &[Rule] = &[
    rule!(
        "PRC001",
        missing_axis_marker,
        Error,
        "a test has no marker of an exactly-one axis that has no default"
    ),
    rule!(
        "PRC002",
        too_many_axis_markers,
        Error,
        "a test has several markers of an exactly-one or at-most-one axis"
    ),
    rule!(
        "PRC003",
        default_marker_written,
        Error,
        "an axis default is written although `write-default = false`"
    ),
    rule!(
        "PRC004",
        deprecated_marker,
        Warning,
        "a deprecated marker or alias is written"
    ),
    rule!(
        "PRC005",
        removed_marker,
        Error,
        "a removed marker is written"
    ),
    rule!(
        "PRC006",
        marker_without_required_companion,
        Error,
        "a marker lacks a companion its `requires-any` asks for"
    ),
    rule!(
        "PRC007",
        marker_outside_allowed_company,
        Error,
        "a marker is on a test without any marker its `only-with` allows"
    ),
    rule!(
        "PRC008",
        wrong_marker_scope,
        Error,
        "a marker is written where its `scope` forbids"
    ),
    rule!(
        "PRC009",
        conflicting_markers,
        Error,
        "a test has two markers that conflict"
    ),
    rule!(
        "PRC010",
        marker_without_comment,
        Error,
        "a `needs-comment` marker has no justifying comment"
    ),
    rule!(suite "PRC101", unregistered_marker, Warning, "a marker is used but not registered with pytest nor declared in the taxonomy"),
    rule!(suite "PRC102", unused_registered_marker, Warning, "a marker registered with pytest is used by no test"),
    rule!(suite "PRC103", unknown_marker_in_expression, Error, "a `-m` expression in the configuration names a marker nobody has or registered"),
    rule!(suite "PRC104", unused_helper, Warning, "a `[helpers]` or `[decorators]` entry is what no test's calls resolve to"),
    rule!(suite "PRC201", ignored_config_table, Error, "a pytest configuration table is ignored because another file wins"),
    rule!(suite "PRC202", addopts_markexpr, Info, "`addopts` has `-m`, which an explicit `-m` replaces under bare pytest"),
    rule!(suite "PRC301", unmirrored_test_file, Error, "a test file does not mirror an existing module (`[check] mirror`)"),
    rule!(suite "PRC302", test_name_shape, Error, "a test name does not have the shape of `[check] test-name`"),
    rule!(suite "PRC303", multi_claim_test_name, Error, "a test name claims two things with `_and_` (`[check] one-claim`)"),
    rule!(suite "PRC304", test_file_name, Error, "a test file name does not match `[check] file-name`"),
    rule!(suite "PRC401", opt_in_expression, Error, "an example's opt-in comment holds an expression instead of comma-separated marker names"),
    rule!(suite "PRC402", example_without_opt_in, Info, "a script in an `[examples]` folder has no opt-in comment, so it never runs"),
    rule!(suite "PRC403", notebook_without_opt_in, Error, "a notebook has no usable opt-in metadata block, so it is always skipped"),
    rule!(
        "PRC900",
        dynamic_item,
        Info,
        "a test proctor cannot see statically"
    ),
];

/// The rule with `code` (case-insensitive).
#[must_use]
pub fn rule(code: &str) -> Option<&'static Rule> {
    RULES
        .iter()
        .find(|rule| rule.code.eq_ignore_ascii_case(code))
}

#[cfg(test)]
mod tests {
    use super::RULES;

    #[test]
    fn codes_are_unique_and_docs_have_the_fixed_shape() {
        for (i, rule) in RULES.iter().enumerate() {
            assert!(
                RULES[..i]
                    .iter()
                    .all(|r| r.code != rule.code && r.name != rule.name),
                "{} is listed twice",
                rule.code
            );
            let mut at = 0;
            for heading in [
                "## What it does",
                "## Why is this bad?",
                "## Example",
                "## Use instead",
            ] {
                let found = rule.doc[at..].find(heading);
                assert!(
                    found.is_some(),
                    "{}: `{heading}` missing or out of order",
                    rule.code
                );
                at += found.unwrap_or(0);
            }
        }
    }
}
