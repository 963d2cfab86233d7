//! PRC008: a marker written where its `scope` forbids.

use proctor_config::MarkerScope;
use proctor_python::MarkerSource;

use crate::context::{ItemContext, Sink};
use crate::rules::rule_doc;

pub(crate) const NAME: &str = "wrong-marker-scope";

rule_doc!(
    r#"## What it does
Checks for markers written at a level their `scope` does not allow: on a
function (a decorator), a class (a decorator or `pytestmark`), the module
(`pytestmark`) or a parameter set (`pytest.param(..., marks=...)`).

## Why is this bad?
The scope is a convention the suite relies on: a `qualitative` marker on a
whole module sweeps in helper tests that grade nothing, and a per-module
marker that is written per function drifts as functions are added.

## Example
```toml
[markers.qualitative]
scope = ["function"]
```

```python
pytestmark = pytest.mark.qualitative

def test_summary_quality():
    ...
```

## Use instead
```python
@pytest.mark.qualitative
def test_summary_quality():
    ...
```
"#
);

pub(crate) fn check(cx: &ItemContext<'_>, sink: &mut Sink<'_>) {
    for (marker, effective) in cx.written() {
        let Some(scopes) = cx.rule_of(marker, effective).and_then(|r| r.scope.as_ref()) else {
            continue;
        };
        let scope = match marker.source {
            // An example or a notebook is one test: its opt-in is the
            // test's own marking.
            MarkerSource::Function | MarkerSource::OptIn => MarkerScope::Function,
            MarkerSource::Class => MarkerScope::Class,
            MarkerSource::Module => MarkerScope::Module,
            MarkerSource::Param => MarkerScope::Param,
        };
        if !scopes.contains(&scope) {
            let allowed: Vec<String> = scopes
                .iter()
                .map(|s| format!("`{}`", scope_name(*s)))
                .collect();
            sink.report(
                cx.marker_span(marker),
                format!(
                    "`{}` is written on the {}, but its scope is {}",
                    marker.name,
                    where_written(scope),
                    allowed.join(", ")
                ),
                Some(format!(
                    "write it on the {} instead",
                    where_written(scopes[0])
                )),
            );
        }
    }
}

fn scope_name(scope: MarkerScope) -> &'static str {
    match scope {
        MarkerScope::Function => "function",
        MarkerScope::Class => "class",
        MarkerScope::Module => "module",
        MarkerScope::Param => "param",
    }
}

fn where_written(scope: MarkerScope) -> &'static str {
    match scope {
        MarkerScope::Function => "test function",
        MarkerScope::Class => "class",
        MarkerScope::Module => "module (`pytestmark`)",
        MarkerScope::Param => "parameter set (`pytest.param(..., marks=...)`)",
    }
}
