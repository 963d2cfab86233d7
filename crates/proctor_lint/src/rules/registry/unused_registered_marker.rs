//! PRC102: a registered marker that no test uses.

use crate::context::{Sink, SuiteContext};
use crate::rules::rule_doc;

pub(crate) const NAME: &str = "unused-registered-marker";

rule_doc!(
    r"## What it does
Checks for markers registered in the `markers` of pytest's configuration
that no collected test carries, written or effective.

## Why is this bad?
A registered marker that nothing uses is left over from a removed feature
or misspelt where it is registered, so that the tests' marker is the
unregistered one. Either way `-m` with it selects nothing, and
`pytest --markers` advertises a category that does not exist.

## Example
```ini
[pytest]
markers =
    slow: takes more than a second
    flaky: retried in CI
```

(and no test is marked `flaky`)

## Use instead
```ini
[pytest]
markers =
    slow: takes more than a second
```
"
);

pub(crate) fn check(suite: &SuiteContext<'_>, sink: &mut Sink<'_>) {
    let used = suite.used();
    let inifile = suite.inifile();
    let from = suite.settings.pytest.key_locations.get("markers");
    for (name, line) in suite.registered() {
        if used.contains(name) {
            continue;
        }
        let Some(file) = &inifile else {
            continue;
        };
        // The registration as written (the name starts it), else the key.
        let span = match suite.find(file, line.trim(), from.map_or(1, |l| l.line)) {
            Some(mut found) => {
                found.end.column = found.start.column + name.chars().count();
                found
            }
            None => from.map_or_else(
                || suite.line_span(file, 1),
                |l| suite.at(file, l.line, l.column),
            ),
        };
        sink.report(
            span,
            format!("`{name}` is registered but no test uses it"),
            Some("remove it from `markers`, or fix its spelling".to_owned()),
        );
    }
}
