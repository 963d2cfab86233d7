//! PRC201: a pytest configuration table ignored because a file of higher
//! precedence is used.

use crate::context::{Sink, SuiteContext};
use crate::rules::rule_doc;

pub(crate) const NAME: &str = "ignored-config-table";

rule_doc!(
    r#"## What it does
Checks for pytest configuration that pytest silently ignores because
another file wins: `pytest.ini` always wins over `pyproject.toml`,
`tox.ini` and `setup.cfg` in the same directory, and pytest reads only the
configuration file closest to the arguments.

## Why is this bad?
Everything in the ignored table looks configured and is not: its
`markers`, `addopts`, `testpaths` and `filterwarnings` have no effect, and
pytest only mentions it in its header. Edits to the ignored file change
nothing, which is confusing for whoever makes them.

## Example
```toml
# pyproject.toml, next to a pytest.ini
[tool.pytest.ini_options]
markers = ["slow: takes more than a second"]
```

## Use instead
Keep pytest's configuration in one file: move the keys into `pytest.ini`
and delete the `[tool.pytest.ini_options]` table (or delete `pytest.ini`).
"#
);

pub(crate) fn check(suite: &SuiteContext<'_>, sink: &mut Sink<'_>) {
    for warning in &suite.settings.warnings {
        if !warning.message.contains("is ignored because") {
            continue;
        }
        let file = suite.relative(&warning.path);
        sink.report(
            suite.at(&file, warning.line, warning.column),
            warning.message.clone(),
            Some("keep pytest's configuration in one file: move these keys into the file pytest uses".to_owned()),
        );
    }
}
