//! PRC005: a removed marker written.

use proctor_source::Fix;

use crate::context::{ItemContext, Sink};
use crate::rules::rule_doc;

pub(crate) const NAME: &str = "removed-marker";

rule_doc!(
    r#"## What it does
Checks for markers declared `removed` where they are still written. The
configured message, which says what to use instead, is the help. With
`replaced-by`, the finding has a fix.

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

## Fix safety
When the marker has `replaced-by = "name"`, `--fix` replaces the marker's
name with `name` and keeps its arguments (`@pytest.mark.old_gpu(8)` becomes
`@pytest.mark.gpu(8)`), since `replaced-by` declares the marker that now
means what the removed one meant; only when nothing else changes with it
(the replacement may not keep an axis's default from being applied, nor
imply a marker the test lacks). Without it there is no fix.
"#
);

pub(crate) fn check(cx: &ItemContext<'_>, sink: &mut Sink<'_>) {
    for (marker, _) in cx.written() {
        let Some(rule) = cx.taxonomy.rule(&marker.name) else {
            continue;
        };
        let Some(message) = &rule.removed else {
            continue;
        };
        let diagnostic = sink.report(
            cx.marker_span(marker),
            format!("`{}` was removed", marker.name),
            Some(message.clone()),
        );
        if let Some(replacement) = &rule.replaced_by {
            diagnostic.fix = cx.rename_edit(marker, replacement).map(|edit| Fix {
                description: format!("Replace `{}` with `{replacement}`", marker.name),
                edits: vec![edit],
            });
        }
    }
}
