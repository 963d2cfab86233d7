//! PRC900: a test proctor cannot see statically.

use crate::context::{ItemContext, Sink};
use crate::rules::rule_doc;

pub(crate) const NAME: &str = "dynamic-item";

rule_doc!(
    r#"## What it does
Reports, as information, tests whose ids or markers proctor cannot know
without running Python: parameters from a callable, `pytest_generate_tests`,
ids computed at import time. The message gives the reason.

## Why is this bad?
It is not wrong, but every static answer about such a test (its node ids,
its markers, the jobs that run it) is a best effort: the rules above check
what proctor can see of it, and a run resolves the rest through pytest.

## Example
```python
def pytest_generate_tests(metafunc):
    metafunc.parametrize("backend", discover_backends())
```

## Use instead
```python
@pytest.mark.parametrize("backend", ["ollama", "openai"])
def test_chat(backend):
    ...
```

Where the values really are dynamic, keep them and ignore this code
(`--ignore PRC900`).
"#
);

pub(crate) fn check(cx: &ItemContext<'_>, sink: &mut Sink<'_>) {
    if let Some(reason) = &cx.item.dynamic {
        sink.report(
            cx.def_span(),
            format!("`{}` is dynamic: {reason}", cx.test_name()),
            None,
        );
    }
}
