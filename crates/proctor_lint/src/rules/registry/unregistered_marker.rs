//! PRC101: a marker used but not registered with pytest.

use crate::context::{Sink, SuiteContext};
use crate::rules::rule_doc;

pub(crate) const NAME: &str = "unregistered-marker";

rule_doc!(
    r#"## What it does
Checks for markers written on tests that pytest does not know: not in the
`markers` of pytest's configuration, not one of pytest's own marks (`skip`,
`skipif`, `xfail`, `parametrize`, `usefixtures`, `filterwarnings`) and not
declared in the taxonomy (an axis marker or a `[markers.<name>]` table).
Markers that a `conftest.py` registers with
`config.addinivalue_line("markers", "name: ...")` count as registered;
markers that plugins register (`asyncio`, `django_db`, `timeout`) do not:
register them in `markers` too, or suppress the finding.

## Why is this bad?
An unregistered marker is usually a typo: `@pytest.mark.intergration`
selects nothing under `-m integration`, and pytest only warns
(`PytestUnknownMarkWarning`) unless `--strict-markers` is on, in which case
collection fails.

## Example
```ini
[pytest]
markers =
    integration: talks to real services
```

```python
@pytest.mark.intergration
def test_upload():
    ...
```

## Use instead
```python
@pytest.mark.integration
def test_upload():
    ...
```
"#
);

pub(crate) fn check(suite: &SuiteContext<'_>, sink: &mut Sink<'_>) {
    let known = suite.known();
    suite.for_each_item(|cx| {
        for marker in &cx.item.markers {
            if known.contains(&marker.name) {
                continue;
            }
            sink.report(
                cx.marker_span(marker),
                format!("`{}` is not registered with pytest", marker.name),
                Some(
                    "add it to `markers` in pytest's configuration, or declare it in the taxonomy"
                        .to_owned(),
                ),
            );
        }
    });
}
