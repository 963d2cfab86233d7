//! PRC302: a test function name that does not have the configured shape.

use crate::context::{listed, Sink, SuiteContext};
use crate::rules::rule_doc;

pub(crate) const NAME: &str = "test-name-shape";

rule_doc!(
    r#"## What it does
Opt-in with `[check] test-name = "test_<subject>_<scenario>_<expected>"`.
The pattern is `_`-separated words: literal words first (a required prefix,
such as `test`), then `<placeholder>`s, each standing for at least one
non-empty word. A test name matches when it starts with the literal words
and has at least as many further words as there are placeholders; the
placeholders name the parts for readers, they are not checked further.
Names of parametrized tests are checked without their parameters.

## Why is this bad?
`test_store` says what is tested but not in which situation nor what should
happen, so a failure report does not tell what broke. A fixed shape makes
names comparable and makes the missing part visible in review.

## Example
```toml
[check]
test-name = "test_<subject>_<scenario>_<expected>"
```

```python
def test_store():
    ...
```

## Use instead
```python
def test_store_empty_file_returns_nothing():
    ...
```
"#
);

pub(crate) fn check(suite: &SuiteContext<'_>, sink: &mut Sink<'_>) {
    let Some(pattern) = &suite.settings.proctor.check.test_name else {
        return;
    };
    let opt_in = suite.opt_in_files();
    suite.for_each_item(|cx| {
        if opt_in.contains(cx.item.file.as_str()) {
            return;
        }
        let name = cx.test_name();
        if pattern.matches(name) {
            return;
        }
        let parts: Vec<String> = pattern
            .placeholders
            .iter()
            .map(|p| format!("<{p}>"))
            .collect();
        let after = if pattern.prefix.is_empty() {
            String::new()
        } else {
            format!(" after `{}_`", pattern.prefix.join("_"))
        };
        sink.report(
            cx.def_span(),
            format!("`{name}` does not have the shape `{}`", pattern.text),
            Some(format!(
                "write one or more words{after} for each of {}",
                listed(&parts, "and")
            )),
        );
    });
}
