//! PRC001: a test without a marker of an `exactly-one` axis.

use proctor_config::Cardinality;

use crate::context::{listed, ItemContext, Sink};
use crate::rules::rule_doc;

pub(crate) const NAME: &str = "missing-axis-marker";

rule_doc!(
    r#"## What it does
Checks for tests that carry no marker of an axis with
`cardinality = "exactly-one"` and no `default`. Markers applied by path
rules, implications and mapped decorators count.

## Why is this bad?
The axis says every test answers its question (its tier, say) exactly once.
A test without an answer escapes every selection written in terms of the
axis: `-m unit` and `-m "not unit"` both skip it or both pick it by accident.

## Example
```toml
[axes.tier]
markers = ["unit", "integration", "e2e"]
cardinality = "exactly-one"
```

```python
def test_parse():
    ...
```

## Use instead
```python
@pytest.mark.unit
def test_parse():
    ...
```

Or give the axis a `default`, which is applied to every test without one.
"#
);

pub(crate) fn check(cx: &ItemContext<'_>, sink: &mut Sink<'_>) {
    for axis in cx.taxonomy.axes() {
        if axis.cardinality != Cardinality::ExactlyOne || axis.default.is_some() {
            continue;
        }
        if !axis.markers.iter().any(|m| cx.effective.has(m)) {
            sink.report(
                cx.def_span(),
                format!("`{}` has no marker of axis `{}`", cx.test_name(), axis.name),
                Some(format!("add one of {}", listed(&axis.markers, "or"))),
            );
        }
    }
}
