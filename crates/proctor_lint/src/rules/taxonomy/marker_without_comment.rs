//! PRC010: a `needs-comment` marker without a justifying comment.

use crate::context::{trailing_comment, ItemContext, Sink};
use crate::rules::rule_doc;

pub(crate) const NAME: &str = "marker-without-comment";

rule_doc!(
    r"## What it does
Checks for markers with `needs-comment = true` that are written with no
comment next to them: neither a comment line right above the line the
marker starts on, nor a comment at the end of that line. A
`# proctor: ignore` directive does not count as a justification.

## Why is this bad?
Some markers carry a cost that only the author knows the reason for: a
module marked `llm` needs an API key, and the comment says which call needs
it, so that the next person can tell whether the marker is still needed.

## Example
```toml
[markers.llm]
needs-comment = true
```

```python
pytestmark = pytest.mark.llm
```

## Use instead
```python
# generate_sql() calls the model: needs OPENAI_API_KEY.
pytestmark = pytest.mark.llm
```
"
);

pub(crate) fn check(cx: &ItemContext<'_>, sink: &mut Sink<'_>) {
    for (marker, effective) in cx.written() {
        if cx
            .rule_of(marker, effective)
            .is_none_or(|r| r.needs_comment != Some(true))
        {
            continue;
        }
        let Some(location) = &marker.location else {
            continue;
        };
        let Some(source) = cx.sources.get(&location.file) else {
            continue;
        };
        let above = location
            .line
            .checked_sub(1)
            .filter(|&l| l >= 1)
            .map_or("", |l| source.line(l));
        let justified = is_comment(above.trim_start())
            || trailing_comment(source.line(location.line)).is_some_and(is_comment);
        if !justified {
            sink.report(
                cx.marker_span(marker),
                format!(
                    "`{}` needs a comment that says why it is there",
                    marker.name
                ),
                Some("add a comment on the line above or at the end of the line".to_owned()),
            );
        }
    }
}

/// Whether `text` starts a comment that justifies something (not a
/// `# proctor: ignore` directive).
fn is_comment(text: &str) -> bool {
    text.strip_prefix('#').is_some_and(|body| {
        let body = body.trim();
        !body.is_empty() && !body.starts_with("proctor: ignore")
    })
}

#[cfg(test)]
mod tests {
    use super::{is_comment, trailing_comment};

    #[test]
    fn comments() {
        assert_eq!(trailing_comment("x = '#a'  # why"), Some("# why"));
        assert_eq!(trailing_comment("x = \"a\\\"#\""), None);
        assert!(is_comment("# needs the key"));
        assert!(!is_comment("# proctor: ignore[PRC010]"));
        assert!(!is_comment("#"));
    }
}
