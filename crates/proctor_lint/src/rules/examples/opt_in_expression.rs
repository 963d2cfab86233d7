//! PRC401: an example's opt-in comment holds an expression (or another
//! non-name) instead of comma-separated marker names.

use proctor_python::OptInKind;

use crate::context::{Sink, SuiteContext};
use crate::rules::examples::problem_span;
use crate::rules::rule_doc;

pub(crate) const NAME: &str = "opt-in-expression";

rule_doc!(
    r#"## What it does
Checks the opt-in comment of every file in an `[examples]` folder: it must
list marker names separated by commas, as in `# pytest: e2e, ollama`.

## Why is this bad?
The comment is not a `-m` expression. `# pytest: e2e and ollama` does not
mean "both": the entry `e2e and ollama` is no marker name at all, so the
example gets neither marker, and the gates, jobs and `-m` selections that
should pick it (or skip it) never see it.

## Example
```python
# pytest: e2e and ollama
"""Greeting example."""
```

## Use instead
```python
# pytest: e2e, ollama
"""Greeting example."""
```
"#
);

pub(crate) fn check(suite: &SuiteContext<'_>, sink: &mut Sink<'_>) {
    for file in suite.opt_in.iter().filter(|f| f.kind == OptInKind::Example) {
        for problem in file.problems.iter().filter(|p| p.kind == "expression") {
            sink.report(problem_span(problem), problem.message.clone(), Some("list marker names separated by commas; `and`, `or` and `not` have no meaning here".to_owned()));
        }
    }
}
