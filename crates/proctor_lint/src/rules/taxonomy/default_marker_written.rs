//! PRC003: an axis's default written explicitly when `write-default = false`.

use proctor_source::Fix;

use crate::context::{ItemContext, Sink};
use crate::rules::rule_doc;

pub(crate) const NAME: &str = "default-marker-written";

rule_doc!(
    r#"## What it does
Checks for markers that are the `default` of their axis, written
explicitly (on a function, class, module or parameter set) although the
axis says `write-default = false`.

## Why is this bad?
The default is applied to every test that has no marker of the axis, so
writing it adds nothing; and when someone later adds another marker of the
axis, the written default turns into a second, contradictory one.

## Example
```toml
[axes.tier]
markers = ["unit", "integration", "e2e"]
cardinality = "exactly-one"
default = "unit"
write-default = false
```

```python
@pytest.mark.unit
def test_parse():
    ...
```

## Use instead
```python
def test_parse():
    ...
```

## Fix safety
When the marker is a decorator on a line of its own, `--fix` deletes the
line, when the default is then applied instead to every test that carries
the marker: not when one of them has another marker of the axis (a
module's `e2e`), nor when the marker has arguments. A marker in an
example's opt-in comment (`# pytest: unit`) has no fix: the comment is what
makes the file a test.
"#
);

pub(crate) fn check(cx: &ItemContext<'_>, sink: &mut Sink<'_>) {
    for (marker, effective) in cx.written() {
        let Some(axis) = cx.taxonomy.axis_of(&effective.name) else {
            continue;
        };
        if axis.write_default || axis.default.as_deref() != Some(effective.name.as_str()) {
            continue;
        }
        let diagnostic = sink.report(
            cx.marker_span(marker),
            format!(
                "`{}` is the default of axis `{}` and is not written explicitly",
                marker.name, axis.name
            ),
            Some(format!(
                "remove it: `{}` is applied to every test without a marker of axis `{}`",
                effective.name, axis.name
            )),
        );
        diagnostic.fix = cx.delete_decorator_edit(marker).map(|edit| Fix {
            description: format!("Remove `@pytest.mark.{}`", marker.name),
            edits: vec![edit],
        });
    }
}
