//! PRC104: a `[helpers]` or `[decorators]` entry that no test's calls
//! resolve to.

use std::collections::HashSet;

use crate::context::{Sink, SuiteContext};
use crate::rules::rule_doc;

pub(crate) const NAME: &str = "unused-helper";

rule_doc!(
    r#"## What it does
Checks that every dotted path in `[helpers]` (project helpers that state
what a test needs) and `[decorators]` (decorators that stand for markers)
is what some collected test's decorators, `pytestmark` calls or
`pytest.importorskip` resolve to.

## Why is this bad?
An entry nothing resolves to states a need or a marker that no test gets:
misspelt (`test.predicate.require_gpu`), moved in a refactor, or a helper
that is a mark object (`requires_pg = pytest.mark.skipif(...)`), which
pytest applies as a `skipif` mark rather than as a call. `proctor plan` then
runs on machines that cannot run the tests, silently.

## Example
```toml
[helpers]
"test.predicate.require_gpu" = "gpu"
```

## Use instead
```toml
[helpers]
"test.predicates.require_gpu" = "gpu"
```
"#
);

pub(crate) fn check(suite: &SuiteContext<'_>, sink: &mut Sink<'_>) {
    let Some(file) = suite
        .settings
        .proctor_file
        .as_deref()
        .map(|p| suite.relative(p))
    else {
        return;
    };
    let used: HashSet<&str> = suite
        .items
        .iter()
        .flat_map(|item| item.decorators.iter().map(|d| d.path.as_str()))
        .collect();
    let options = &suite.settings.proctor;
    let entries = options
        .plan
        .helpers
        .iter()
        .map(|(path, _)| ("helpers", path))
        .chain(
            options
                .taxonomy
                .decorators
                .iter()
                .map(|(path, _)| ("decorators", path)),
        );
    for (table, path) in entries {
        if used.contains(path.as_str()) {
            continue;
        }
        let span = suite
            .find(&file, &format!("\"{path}\""), 1)
            .or_else(|| suite.find(&file, path, 1))
            .unwrap_or_else(|| suite.line_span(&file, 1));
        sink.report(
            span,
            format!("no test's decorators or `pytestmark` calls resolve to `{path}` (`[{table}]`)"),
            Some("check the dotted path (the module where the helper is defined, then its name); a helper that is a mark object is applied as that mark".to_owned()),
        );
    }
}
