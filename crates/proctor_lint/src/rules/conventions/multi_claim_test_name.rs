//! PRC303: a test name with `_and_`, claiming two things.

use crate::context::{Sink, SuiteContext};
use crate::rules::rule_doc;

pub(crate) const NAME: &str = "multi-claim-test-name";

rule_doc!(
    r"## What it does
Opt-in with `[check] one-claim = true`. Checks for test names that contain
the word `and` (`_and_`), the sign of a test that makes two claims.

## Why is this bad?
A test that checks two behaviours stops at the first failing assertion, so
a failure hides whether the other claim still holds, and its name cannot
say which one broke. One claim per test keeps failures precise.

## Example
```toml
[check]
one-claim = true
```

```python
def test_parse_strips_comments_and_joins_lines():
    ...
```

## Use instead
```python
def test_parse_strips_comments():
    ...


def test_parse_joins_continued_lines():
    ...
```
"
);

pub(crate) fn check(suite: &SuiteContext<'_>, sink: &mut Sink<'_>) {
    if !suite.settings.proctor.check.one_claim {
        return;
    }
    let opt_in = suite.opt_in_files();
    suite.for_each_item(|cx| {
        if opt_in.contains(cx.item.file.as_str()) {
            return;
        }
        let name = cx.test_name();
        if name.contains("_and_") {
            sink.report(
                cx.def_span(),
                format!("`{name}` makes more than one claim (`_and_`)"),
                Some("split it into one test per claim".to_owned()),
            );
        }
    });
}
