//! PRC009: two markers that conflict on one test.

use crate::context::{ItemContext, Sink};
use crate::rules::rule_doc;

pub(crate) const NAME: &str = "conflicting-markers";

rule_doc!(
    r#"## What it does
Checks for tests that have two markers one of which lists the other in
`conflicts` (a conflict is symmetric). Markers applied by path rules,
implications and axis defaults count. The finding points at the marker
whose rule declares the conflict, where it is written.

## Why is this bad?
The markers make promises that cannot both hold: a `live` test hits real
backends, a `unit` test runs with no network. Whichever selection picks
the test is wrong about it.

## Example
```toml
[axes.tier]
markers = ["unit", "integration"]
default = "unit"

[markers.live]
conflicts = ["unit"]
```

```python
@pytest.mark.live
def test_fetch():
    ...
```

## Use instead
```python
@pytest.mark.integration
@pytest.mark.live
def test_fetch():
    ...
```
"#
);

pub(crate) fn check(cx: &ItemContext<'_>, sink: &mut Sink<'_>) {
    let names = cx.names();
    let mut reported: Vec<(&str, &str)> = Vec::new();
    for &name in names {
        let Some(rule) = cx.taxonomy.rule(name) else {
            continue;
        };
        for other in &rule.conflicts {
            let other = other.as_str();
            if !names.contains(&other) || reported.iter().any(|&(a, b)| (a, b) == (other, name)) {
                continue;
            }
            reported.push((name, other));
            let span = if cx.written_as(name).is_some() || cx.written_as(other).is_none() {
                cx.name_span(name)
            } else {
                cx.name_span(other)
            };
            sink.report(
                span,
                format!(
                    "{} conflicts with {}",
                    cx.describe(name),
                    cx.describe(other)
                ),
                Some(format!(
                    "a test cannot be both `{name}` and `{other}`; remove one"
                )),
            );
        }
    }
}
