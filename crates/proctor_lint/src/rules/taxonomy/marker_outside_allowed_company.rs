//! PRC007: a marker on a test without any marker its `only-with` allows.

use crate::context::{listed, ItemContext, Sink};
use crate::rules::rule_doc;

pub(crate) const NAME: &str = "marker-outside-allowed-company";

rule_doc!(
    r#"## What it does
Checks for tests that have a marker whose `only-with` lists the markers it
may accompany, and none of them. The finding points at the marker and
blames it: it is misplaced.

## Why is this bad?
Some markers only mean something on certain tests: a backend marker on a
unit test makes the backend's nightly phase start a server for a test that
never talks to it, and `-m "not ollama"` no longer gives an offline run.

## Example
```toml
[markers.ollama]
only-with = ["e2e", "qualitative"]
```

```python
@pytest.mark.ollama
def test_prompt_template():
    ...
```

## Use instead
```python
def test_prompt_template():
    ...
```

Or, if the test does talk to Ollama, mark it `e2e`.
"#
);

pub(crate) fn check(cx: &ItemContext<'_>, sink: &mut Sink<'_>) {
    for name in cx.names() {
        let Some(allowed) = cx.taxonomy.rule(name).and_then(|r| r.only_with.as_ref()) else {
            continue;
        };
        if !allowed.iter().any(|a| cx.effective.has(a)) {
            sink.report(
                cx.name_span(name),
                format!(
                    "{} is only allowed on tests marked {}",
                    cx.describe(name),
                    listed(allowed, "or")
                ),
                Some(format!("remove `{name}`, or add {}", listed(allowed, "or"))),
            );
        }
    }
}
