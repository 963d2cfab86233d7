//! The names `-k` matches against: pytest's `KeywordMatcher.from_item`.

/// Function attributes pytest never matches with `-k`
/// (`IGNORED_FUNCTION_ATTRIBUTES`): its own mark storage and what decorators
/// leave behind. Names starting with `_` are ignored as well.
const IGNORED_FUNCTION_ATTRIBUTES: &[&str] = &["pytestmark", "cache_parameters"];

/// The names pytest's `KeywordMatcher.from_item` collects for an item, sorted
/// and without repeats, given its node ID.
///
/// pytest collects:
///
/// - the name of every node above the item, except the `Session` and the
///   root `Dir` (whose parent is the session, normally the rootdir): for
///   `tests/sub/test_x.py::TestA::test_b[1-2]` that is `tests`, `sub`,
///   `test_x.py`, `TestA` and `test_b[1-2]`, and not the rootdir's basename,
///   nor `test_b` or `1-2` on their own. Packages (`__init__.py`) change
///   nothing: a `Package` is named after its directory, like a `Dir`;
/// - `marker_names`: the names of `item.iter_markers()`, i.e. the markers of
///   the function, its parametrize case (`pytest.param(marks=...)`), its
///   classes and its module, including `parametrize`, `usefixtures` and
///   `filterwarnings` themselves;
/// - `function_attributes`: the keys of the test function's `__dict__`
///   (`test_x.flaky = True`; a class's attributes do not count), without the
///   names starting with `_` (such as `__wrapped__` from `functools.wraps`),
///   `pytestmark` (left there by mark decorators) and `cache_parameters`
///   (from `functools.lru_cache`), which pytest drops;
/// - `extra_keywords`: the `extra_keyword_matches` of the item and its
///   parents, which only plugins fill.
///
/// The node ID is read as pytest writes it: directories and the file up to
/// the first `::`, separated by `/`; then the class and function names
/// separated by `::`, the parametrize id (`[...]`, which may itself contain
/// `::` or `/`) staying with the function name.
///
/// This assumes the collection tree's root directory is the rootdir that the
/// node ID is relative to, which is pytest's default (its root `Dir` is the
/// `confcutdir`, which defaults to the rootdir's config file directory). When
/// they differ (`--rootdir` below the configuration file, `--confcutdir`,
/// arguments outside the rootdir), pytest adds or drops directory names.
#[must_use]
pub fn keyword_names(
    nodeid: &str,
    marker_names: &[&str],
    function_attributes: &[&str],
    extra_keywords: &[&str],
) -> Vec<String> {
    let mut names: Vec<String> = node_names(nodeid).into_iter().map(str::to_owned).collect();
    names.extend(extra_keywords.iter().map(|&name| name.to_owned()));
    names.extend(
        function_attributes
            .iter()
            .filter(|name| !name.starts_with('_') && !IGNORED_FUNCTION_ATTRIBUTES.contains(name))
            .map(|&name| name.to_owned()),
    );
    names.extend(marker_names.iter().map(|&name| name.to_owned()));
    names.sort_unstable();
    names.dedup();
    names
}

/// The node names along a node ID, below the root directory.
fn node_names(nodeid: &str) -> Vec<&str> {
    let (path, rest) = match nodeid.split_once("::") {
        Some((path, rest)) => (path, Some(rest)),
        None => (nodeid, None),
    };
    let mut names: Vec<&str> = path.split('/').filter(|part| !part.is_empty()).collect();
    if let Some(rest) = rest {
        // Class and function names cannot contain `[`: the first one opens
        // the parametrize id.
        let (plain, param_len) = match rest.find('[') {
            Some(open) => (&rest[..open], rest.len() - open),
            None => (rest, 0),
        };
        let mut start = 0;
        let parts: Vec<&str> = plain.split("::").collect();
        for (i, part) in parts.iter().enumerate() {
            let end = start + part.len() + if i + 1 == parts.len() { param_len } else { 0 };
            names.push(&rest[start..end]);
            start = end + 2;
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_of_a_parametrized_method() {
        assert_eq!(
            keyword_names(
                "tests/sub/test_x.py::TestA::test_b[1-2]",
                &["parametrize", "clsmark", "modmark", "parametrize"],
                &[
                    "pytestmark",
                    "__wrapped__",
                    "_private",
                    "cache_parameters",
                    "flaky"
                ],
                &[],
            ),
            [
                "TestA",
                "clsmark",
                "flaky",
                "modmark",
                "parametrize",
                "sub",
                "test_b[1-2]",
                "test_x.py",
                "tests"
            ]
        );
    }

    #[test]
    fn parametrize_ids_keep_separators() {
        assert_eq!(
            node_names("t.py::TestA::TestB::test[a::b/c[d]]"),
            ["t.py", "TestA", "TestB", "test[a::b/c[d]]"]
        );
        assert_eq!(node_names("test_top.py::test"), ["test_top.py", "test"]);
        assert_eq!(node_names("a/b/test_x.py"), ["a", "b", "test_x.py"]);
    }

    #[test]
    fn extra_keywords_are_not_filtered() {
        assert_eq!(
            keyword_names("t.py::test", &[], &[], &["_extra", "pytestmark"]),
            ["_extra", "pytestmark", "t.py", "test"]
        );
    }
}
