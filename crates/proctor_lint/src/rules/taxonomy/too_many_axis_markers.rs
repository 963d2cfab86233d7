//! PRC002: a test with several markers of an `exactly-one` or `at-most-one`
//! axis.

use proctor_config::Cardinality;

use crate::context::{listed, ItemContext, Sink};
use crate::rules::rule_doc;

pub(crate) const NAME: &str = "too-many-axis-markers";

rule_doc!(
    r#"## What it does
Checks for tests that carry two or more different markers of an axis whose
`cardinality` is `"exactly-one"` or `"at-most-one"`, however they got them
(written on the function, its class or module, applied by a path rule or
implied). The finding points at the innermost of them that is written: a
function's marker that adds to its module's, or the first of two written
at the same level.

## Why is this bad?
The axis is a question with one answer. A test that is both `integration`
and `e2e` is selected by two jobs meant to be disjoint, and reports per
tier count it twice.

## Example
```toml
[axes.tier]
markers = ["unit", "integration", "e2e"]
cardinality = "exactly-one"
```

```python
pytestmark = pytest.mark.integration

@pytest.mark.e2e
def test_chat():
    ...
```

## Use instead
```python
@pytest.mark.e2e
def test_chat():
    ...
```

Move the test to a module of its tier, or drop one of the markers.
"#
);

pub(crate) fn check(cx: &ItemContext<'_>, sink: &mut Sink<'_>) {
    for axis in cx.taxonomy.axes() {
        let limit = match axis.cardinality {
            Cardinality::ExactlyOne => "exactly one",
            Cardinality::AtMostOne => "at most one",
            Cardinality::Any => continue,
        };
        let present: Vec<String> = cx
            .names()
            .iter()
            .filter(|n| axis.markers.iter().any(|m| m == *n))
            .map(|n| (*n).to_owned())
            .collect();
        if present.len() < 2 {
            continue;
        }
        // Point at the innermost written one (a function's marker before its
        // class's or module's): it is the one that adds to the others, and a
        // class or module that carries two is then reported once.
        let span = present
            .iter()
            .find_map(|n| cx.written_as(n))
            .map_or_else(|| cx.def_span(), |m| cx.marker_span(m));
        sink.report(
            span,
            format!(
                "too many markers of axis `{}`: {}",
                axis.name,
                listed(&present, "and")
            ),
            Some(format!("axis `{}` allows {limit}; keep one", axis.name)),
        );
    }
}
