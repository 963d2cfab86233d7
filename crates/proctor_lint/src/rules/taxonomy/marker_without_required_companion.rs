//! PRC006: a marker without a companion its `requires-any` asks for.

use crate::context::{listed, ItemContext, Sink};
use crate::rules::rule_doc;

pub(crate) const NAME: &str = "marker-without-required-companion";

rule_doc!(
    r#"## What it does
Checks for tests that have a marker whose `requires-any` lists companions,
and none of them. Companions applied by path rules, implications or axis
defaults count. The finding points at the marker and blames the missing
companion.

## Why is this bad?
The marker only makes sense together with one of the others: a
`qualitative` test that is not `e2e` runs in the fast suite, where the
model it grades is not available.

## Example
```toml
[markers.qualitative]
requires-any = ["e2e"]
```

```python
@pytest.mark.qualitative
def test_summary_quality():
    ...
```

## Use instead
```python
@pytest.mark.e2e
@pytest.mark.qualitative
def test_summary_quality():
    ...
```
"#
);

pub(crate) fn check(cx: &ItemContext<'_>, sink: &mut Sink<'_>) {
    for name in cx.names() {
        let Some(required) = cx.taxonomy.rule(name).and_then(|r| r.requires_any.as_ref()) else {
            continue;
        };
        if !required.iter().any(|r| cx.effective.has(r)) {
            sink.report(
                cx.name_span(name),
                format!(
                    "{} requires {} on the same test",
                    cx.describe(name),
                    listed(required, "or")
                ),
                Some(format!("add {}", listed(required, "or"))),
            );
        }
    }
}
