//! PRC103: a `-m` expression in the configuration that names a marker no
//! test has and nobody registered.

use proctor_expr::Expression;

use crate::context::{Sink, Span, SuiteContext};
use crate::rules::rule_doc;

pub(crate) const NAME: &str = "unknown-marker-in-expression";

rule_doc!(
    r#"## What it does
Checks the `-m` expressions of the configuration — proctor's
`[select] default` and `[profiles.<name>] markers`, and `-m` in pytest's
`addopts` — for marker names that no collected test carries and that are
neither registered in pytest's `markers`, nor pytest's own marks, nor
declared in the taxonomy.

## Why is this bad?
Such a name is a typo. `not slwo` is true for every test, so the intended
exclusion silently excludes nothing; `smoek` selects nothing, and a CI job
that runs it passes with zero tests.

## Example
```toml
[select]
default = "not slwo"
```

## Use instead
```toml
[select]
default = "not slow"
```
"#
);

pub(crate) fn check(suite: &SuiteContext<'_>, sink: &mut Sink<'_>) {
    let used = suite.used();
    let known = suite.known();
    let proctor = &suite.settings.proctor;
    let mut expressions: Vec<(String, &str, Option<String>, usize)> = Vec::new();
    let proctor_file = suite
        .settings
        .proctor_file
        .as_deref()
        .map(|p| suite.relative(p));
    if let Some(default) = &proctor.select.default {
        expressions.push((
            "`[select] default`".to_owned(),
            default,
            proctor_file.clone(),
            1,
        ));
    }
    for (name, profile) in &proctor.profiles {
        if let Some(markers) = &profile.markers {
            expressions.push((
                format!("`[profiles.{name}] markers`"),
                markers,
                proctor_file.clone(),
                1,
            ));
        }
    }
    if let Some(markexpr) = &suite.settings.pytest.addopts_parsed.markexpr {
        let from = suite
            .settings
            .pytest
            .key_locations
            .get("addopts")
            .map_or(1, |l| l.line);
        expressions.push((
            "`-m` in `addopts`".to_owned(),
            markexpr,
            suite.inifile(),
            from,
        ));
    }
    for (what, text, file, from) in expressions {
        let Ok(expression) = Expression::parse(text) else {
            continue;
        };
        let mut reported: Vec<&str> = Vec::new();
        for name in expression.identifiers() {
            if used.contains(name) || known.contains(name) || reported.contains(&name) {
                continue;
            }
            reported.push(name);
            let Some(file) = &file else {
                continue;
            };
            let span = locate(suite, file, text, name, from);
            sink.report(
                span,
                format!("{what} names `{name}`, which no test has and nobody registered"),
                Some("fix the spelling, or register the marker".to_owned()),
            );
        }
    }
}

/// The identifier `name` inside `text` where `text` is written in `file`,
/// else the line `text` is on, else the first line at or after `from`.
fn locate(suite: &SuiteContext<'_>, file: &str, text: &str, name: &str, from: usize) -> Span {
    let Some(found) = suite.find(file, text, from) else {
        return suite.line_span(file, from);
    };
    let word = text.match_indices(name).find(|(at, _)| {
        let before = text[..*at].chars().next_back();
        let after = text[at + name.len()..].chars().next();
        !before.is_some_and(is_word) && !after.is_some_and(is_word)
    });
    match word {
        Some((at, _)) => {
            let column = found.start.column + text[..at].chars().count();
            let mut span = suite.at(file, found.line(), column);
            span.end.column = column + name.chars().count();
            span
        }
        None => found,
    }
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}
