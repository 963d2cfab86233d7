//! PRC005: a removed marker written.

use crate::context::{ItemContext, Sink};
use crate::rules::rule_doc;

pub(crate) const NAME: &str = "removed-marker";

rule_doc!(
    r#"## What it does
Checks for markers declared `removed` where they are still written. The
configured message, which says what to use instead, is the help.

## Why is this bad?
A removed marker no longer does anything: the hook that acted on it is
gone. The test still carries it, so readers believe it is gated or
grouped when it is not.

## Example
```toml
[markers.requires_gpu]
removed = "use `require_gpu(min_vram_gb=N)` from test.predicates instead"
```

```python
@pytest.mark.requires_gpu
def test_generate():
    ...
```

## Use instead
```python
@require_gpu(min_vram_gb=8)
def test_generate():
    ...
```
"#
);

pub(crate) fn check(cx: &ItemContext<'_>, sink: &mut Sink<'_>) {
    for (marker, _) in cx.written() {
        if let Some(message) = cx.taxonomy.rule(&marker.name).and_then(|r| r.removed.as_ref()) {
            sink.report(cx.marker_span(marker), format!("`{}` was removed", marker.name), Some(message.clone()));
        }
    }
}
