//! PRC402: a script in an `[examples]` folder without the opt-in comment.

use crate::context::{Sink, SuiteContext};
use crate::rules::rule_doc;

pub(crate) const NAME: &str = "example-without-opt-in";

rule_doc!(
    r#"## What it does
Lists the `.py` files of the `[examples]` folders that carry no opt-in
comment (`# pytest: ...` near the top, before the first line of code).

## Why is this bad?
Such a file is never run as a test, and pytest says nothing about it: it
is not collected, not skipped, not in any summary. An example that stopped
working goes unnoticed. Listing them makes the choice explicit: opt the
file in, or leave it out knowingly (suppress the finding with
`# proctor: ignore[PRC402]` on its first line, or `--ignore PRC402`).

## Example
```python
"""Greeting example."""
from mellea import start_session
```

## Use instead
```python
# pytest: e2e, ollama
"""Greeting example."""
from mellea import start_session
```
"#
);

pub(crate) fn check(suite: &SuiteContext<'_>, sink: &mut Sink<'_>) {
    for file in suite.opt_in.iter().filter(|f| f.nodeid.is_none()) {
        let comment = &suite.settings.proctor.examples.comment();
        sink.report(
            suite.line_span(&file.file, 1),
            format!("this example has no `{comment}` comment, so it never runs as a test"),
            Some(format!("add `{comment} <markers>` at the top to run it, or suppress this finding to leave it out knowingly")),
        );
    }
}
