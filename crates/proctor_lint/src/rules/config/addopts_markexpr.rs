//! PRC202: `addopts` has `-m`, which an explicit `-m` replaces under bare
//! pytest.

use crate::context::{Sink, SuiteContext};
use crate::rules::rule_doc;

pub(crate) const NAME: &str = "addopts-markexpr";

rule_doc!(
    r#"## What it does
Reports a `-m` in the `addopts` of pytest's configuration file.

## Why is this bad?
pytest keeps only the last `-m` it is given, so `pytest -m smoke` replaces
the `-m "not slow"` of `addopts` instead of combining with it: the slow
tests that `addopts` meant to exclude run after all. proctor combines the
two by `and` (when `[select] default` is unset, the `-m` of `addopts` is the
default selection), so `proctor run -m smoke` and `pytest -m smoke` select
different tests. This is informational: the configuration works, but users
of bare pytest should know.

## Example
```ini
[pytest]
addopts = -m "not slow"
```

## Use instead
```toml
# proctor.toml
[select]
default = "not slow"
```

and run the suite through proctor (or write the whole expression in each
explicit `-m`).
"#
);

pub(crate) fn check(suite: &SuiteContext<'_>, sink: &mut Sink<'_>) {
    let pytest = &suite.settings.pytest;
    let (Some(markexpr), Some(location), Some(file)) = (
        &pytest.addopts_parsed.markexpr,
        pytest.key_locations.get("addopts"),
        suite.inifile(),
    ) else {
        return;
    };
    let span = suite
        .find(&file, markexpr, location.line)
        .filter(|found| found.line() <= location.line + 20)
        .map_or_else(
            || suite.at(&file, location.line, location.column),
            |found| suite.line_span(&file, found.line()),
        );
    sink.report(
        span,
        format!("`addopts` selects with `-m {markexpr:?}`, which an explicit `-m` replaces under bare pytest"),
        Some("proctor combines it with an explicit `-m` by `and`; consider `[select] default` in proctor's options".to_owned()),
    );
}
