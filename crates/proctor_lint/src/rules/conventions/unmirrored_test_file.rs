//! PRC301: a test file whose subject module does not exist where the test
//! tree mirrors the source tree.

use std::path::Path;

use crate::context::{Sink, SuiteContext};
use crate::rules::rule_doc;

pub(crate) const NAME: &str = "unmirrored-test-file";

rule_doc!(
    r#"## What it does
Opt-in with `[check] mirror = { tests = "...", source = "..." }` (both
relative to the rootdir). Checks that every test file under `tests` tests a
module at the same relative place under `source`:
`tests/unit/store/test_jsonl.py` (or `jsonl_test.py`) tests
`src/pkg/store/jsonl.py`, or the package `src/pkg/store/jsonl/`. Flags test
files whose subject module does not exist. Test files outside `tests` are
not checked.

## Why is this bad?
When the test tree mirrors the source tree, the tests of a module are found
without searching, and a module without tests stands out. A test file whose
module was renamed or moved breaks the mirror silently: its tests still run,
but nobody looking at the module finds them.

## Example
```toml
[check]
mirror = { tests = "tests/unit", source = "src/pkg" }
```

`tests/unit/store/test_jsonl.py`, after `src/pkg/store/jsonl.py` was renamed
to `src/pkg/store/lines.py`.

## Use instead
Move the test file along with its module:
`tests/unit/store/test_lines.py`.
"#
);

pub(crate) fn check(suite: &SuiteContext<'_>, sink: &mut Sink<'_>) {
    let Some(mirror) = &suite.settings.proctor.check.mirror else {
        return;
    };
    let rootdir = &suite.settings.pytest.rootdir;
    let tests = mirror.tests.trim_start_matches("./").trim_end_matches('/');
    let source = mirror.source.trim_start_matches("./").trim_end_matches('/');
    let mut seen: Vec<&str> = suite.opt_in_files().into_iter().collect();
    for item in suite.items {
        if seen.contains(&item.file.as_str()) {
            continue;
        }
        seen.push(&item.file);
        let Some(relative) = item
            .file
            .strip_prefix(tests)
            .and_then(|rest| rest.strip_prefix('/'))
        else {
            continue;
        };
        let (dir, file) = relative
            .rsplit_once('/')
            .map_or(("", relative), |(dir, file)| (dir, file));
        let stem = file.strip_suffix(".py").unwrap_or(file);
        let Some(subject) = stem
            .strip_prefix("test_")
            .or_else(|| stem.strip_suffix("_test"))
        else {
            continue;
        };
        let base = if dir.is_empty() {
            format!("{source}/{subject}")
        } else {
            format!("{source}/{dir}/{subject}")
        };
        let module = format!("{base}.py");
        if rootdir.join(&module).is_file()
            || rootdir.join(Path::new(&base).join("__init__.py")).is_file()
        {
            continue;
        }
        sink.report(
            suite.line_span(&item.file, 1),
            format!("`{}` mirrors `{module}`, which does not exist", item.file),
            Some(format!(
                "move or rename the test file to mirror its module under `{source}`"
            )),
        );
    }
}
