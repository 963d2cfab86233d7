//! PRC403: a notebook in a `[notebooks]` folder without a usable opt-in
//! metadata block.

use proctor_python::OptInKind;

use crate::context::{Sink, SuiteContext};
use crate::rules::examples::problem_span;
use crate::rules::rule_doc;

pub(crate) const NAME: &str = "notebook-without-opt-in";

rule_doc!(
    r#"## What it does
Checks that every notebook in a `[notebooks]` folder has the opt-in block
in its top-level metadata, under `metadata-key`, with a `markers` list (and,
optionally, a `packages` list of names), and that the notebook is valid
JSON.

## Why is this bad?
`markers` decide which jobs and `-m` selections run the notebook and which
gates apply to it. A notebook without them is skipped with a reason on
every run: it never runs anywhere until someone adds the block.

## Example
```json
{"cells": [...], "metadata": {"kernelspec": {...}}, "nbformat": 4}
```

## Use instead
```json
{"cells": [...],
 "metadata": {"mellea": {"markers": ["e2e", "ollama"], "packages": ["docling"]},
              "kernelspec": {...}},
 "nbformat": 4}
```
"#
);

pub(crate) fn check(suite: &SuiteContext<'_>, sink: &mut Sink<'_>) {
    let key = suite.settings.proctor.notebooks.metadata_key();
    for file in suite
        .opt_in
        .iter()
        .filter(|f| f.kind == OptInKind::Notebook)
    {
        for problem in &file.problems {
            sink.report(
                problem_span(problem),
                problem.message.clone(),
                Some(format!("add `\"{key}\": {{\"markers\": [\"e2e\"], \"packages\": []}}` to the notebook's metadata (JupyterLab: Property Inspector → Notebook Metadata)")),
            );
        }
    }
}
