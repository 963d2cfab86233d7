//! PRC004: a deprecated marker or alias written.

use proctor_source::Fix;

use crate::context::{ItemContext, Sink};
use crate::rules::rule_doc;

pub(crate) const NAME: &str = "deprecated-marker";

rule_doc!(
    r#"## What it does
Checks for markers with `deprecated = true` where they are written. For an
alias (`alias-of`), the help names the marker to write instead.

## Why is this bad?
A deprecated marker still works, so new tests keep copying it from old ones
and the migration never ends. An alias also hides the real marker from
`-m`: `-m llm` selects nothing once `llm` is resolved to `e2e`.

## Example
```toml
[markers.llm]
alias-of = "e2e"
deprecated = true
```

```python
@pytest.mark.llm
def test_chat():
    ...
```

## Use instead
```python
@pytest.mark.e2e
def test_chat():
    ...
```

## Fix safety
For an alias, `--fix` replaces the name with the alias's target (safe: the
effective markers do not change).
"#
);

pub(crate) fn check(cx: &ItemContext<'_>, sink: &mut Sink<'_>) {
    for (marker, _) in cx.written() {
        let Some(rule) = cx.taxonomy.rule(&marker.name) else {
            continue;
        };
        if !rule.is_deprecated() {
            continue;
        }
        match &rule.alias_of {
            Some(target) => {
                let diagnostic = sink.report(
                    cx.marker_span(marker),
                    format!("`{}` is a deprecated alias of `{target}`", marker.name),
                    Some(format!("write `{target}` instead")),
                );
                diagnostic.fix = cx.rename_edit(marker, target).map(|edit| Fix {
                    description: format!("Replace `{}` with `{target}`", marker.name),
                    edits: vec![edit],
                });
            }
            None => {
                sink.report(
                    cx.marker_span(marker),
                    format!("`{}` is deprecated", marker.name),
                    None,
                );
            }
        }
    }
}
