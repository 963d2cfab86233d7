//! PRC101: a marker used but not registered with pytest.

use crate::context::{Sink, SuiteContext};
use crate::rules::rule_doc;

pub(crate) const NAME: &str = "unregistered-marker";

rule_doc!(
    r#"## What it does
Checks for markers written on tests that pytest does not know: not in the
`markers` of pytest's configuration, not one of pytest's own marks (`skip`,
`skipif`, `xfail`, `parametrize`, `usefixtures`, `filterwarnings`) and not
declared in the taxonomy (an axis marker or a `[markers.<name>]` table).
Markers that a `conftest.py` registers with
`config.addinivalue_line("markers", "name: ...")` count as registered;
markers that plugins register (`asyncio`, `django_db`, `timeout`) do not:
register them in `markers` too, or suppress the finding.

## Why is this bad?
An unregistered marker is usually a typo: `@pytest.mark.intergration`
selects nothing under `-m integration`, and pytest only warns
(`PytestUnknownMarkWarning`) unless `--strict-markers` is on, in which case
collection fails.

## Example
```ini
[pytest]
markers =
    integration: talks to real services
```

```python
@pytest.mark.intergration
def test_upload():
    ...
```

## Use instead
```python
@pytest.mark.integration
def test_upload():
    ...
```
"#
);

pub(crate) fn check(suite: &SuiteContext<'_>, sink: &mut Sink<'_>) {
    let known = suite.known();
    suite.for_each_item(|cx| {
        for marker in &cx.item.markers {
            if known.contains(&marker.name) {
                continue;
            }
            let help = match nearest(&marker.name, known.iter().map(String::as_str)) {
                Some(near) => format!(
                    "did you mean `{near}`? Otherwise add `{}` to `markers` in pytest's configuration, or declare it in the taxonomy",
                    marker.name
                ),
                None => {
                    "add it to `markers` in pytest's configuration, or declare it in the taxonomy"
                        .to_owned()
                }
            };
            sink.report(
                cx.marker_span(marker),
                format!("`{}` is not registered with pytest", marker.name),
                Some(help),
            );
        }
    });
}

/// The known name closest to `name` by edit distance, when it is close
/// enough to be a typo: at most a third of the longer name's characters
/// differ (and at most three). On a tie, the alphabetically first.
fn nearest<'a>(name: &str, known: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    known
        .filter_map(|candidate| {
            let distance = edit_distance(name, candidate);
            let longest = name.chars().count().max(candidate.chars().count());
            (distance > 0 && distance <= 3 && distance * 3 <= longest)
                .then_some((distance, candidate))
        })
        .min()
        .map(|(_, candidate)| candidate)
}

/// The Damerau-Levenshtein distance (optimal string alignment): insertions,
/// deletions, substitutions and swaps of two neighbours each count one.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut rows = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in rows.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in rows[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (rows[i - 1][j] + 1)
                .min(rows[i][j - 1] + 1)
                .min(rows[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(rows[i - 2][j - 2] + 1);
            }
            rows[i][j] = best;
        }
    }
    rows[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_typo_gets_the_nearest_known_marker() {
        let known = ["slow", "integration", "e2e", "skip", "skipif"];
        assert_eq!(nearest("slwo", known.into_iter()), Some("slow"));
        assert_eq!(
            nearest("intergration", known.into_iter()),
            Some("integration")
        );
        assert_eq!(nearest("skp", known.into_iter()), Some("skip"));
        assert_eq!(nearest("gpu", known.into_iter()), None);
        assert_eq!(nearest("e2", known.into_iter()), Some("e2e"));
        assert_eq!(nearest("ab", known.into_iter()), None);
        assert_eq!(edit_distance("abc", "acb"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
    }
}
