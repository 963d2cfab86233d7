//! PRC304: a test file whose name does not match the configured glob.

use std::collections::BTreeSet;

use crate::context::{Sink, SuiteContext};
use crate::rules::rule_doc;

pub(crate) const NAME: &str = "test-file-name";

rule_doc!(
    r#"## What it does
Opt-in with `[check] file-name = "<glob>"`. Checks that every file tests are
collected from has a name matching the glob, e.g. `test_*.py` when a project
allows only that of pytest's two default patterns.

## Why is this bad?
pytest collects both `test_*.py` and `*_test.py` by default, so a suite
drifts into both spellings, and tools, editors and people looking for "the
tests of `jsonl.py`" have to know both. One spelling keeps the tree
predictable.

## Example
```toml
[check]
file-name = "test_*.py"
```

```text
tests/store/jsonl_test.py
```

## Use instead
```text
tests/store/test_jsonl.py
```
"#
);

pub(crate) fn check(suite: &SuiteContext<'_>, sink: &mut Sink<'_>) {
    let Some(pattern) = &suite.settings.proctor.check.file_name else {
        return;
    };
    let Ok(glob) = globset::Glob::new(pattern) else {
        return;
    };
    let matcher = glob.compile_matcher();
    let mut files: BTreeSet<&str> = BTreeSet::new();
    let opt_in = suite.opt_in_files();
    for item in suite.items {
        if item.dynamic.is_some() && !item.nodeid.contains("::")
            || opt_in.contains(item.file.as_str())
        {
            continue;
        }
        files.insert(proctor_python::collected_file(&item.nodeid));
    }
    for file in files {
        let name = file.rsplit('/').next().unwrap_or(file);
        if !matcher.is_match(name) {
            sink.report(
                suite.line_span(file, 1),
                format!("test file `{name}` does not match `{pattern}`"),
                Some(format!("rename it to match `{pattern}`")),
            );
        }
    }
}
