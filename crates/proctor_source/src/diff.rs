//! Unified diffs of fixed files, for `proctor check --diff`: what `--fix`
//! would write, shown instead of written.

use similar::TextDiff;

/// The unified diff from `old` to `new` of `file` (rootdir-relative, `/`
/// separated): a `--- a/<file>` / `+++ b/<file>` header, then hunks with
/// three lines of context, as `git diff` prints them. Empty when the texts
/// are equal.
#[must_use]
pub fn unified_diff(file: &str, old: &str, new: &str) -> String {
    if old == new {
        return String::new();
    }
    TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{file}"), &format!("b/{file}"))
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hunks_with_three_lines_of_context() {
        let old = "a\nb\nc\nd\ne\nf\ng\nh\n";
        let new = "a\nb\nc\nd\nE\nf\ng\nh\n";
        assert_eq!(
            unified_diff("t.py", old, new),
            "--- a/t.py\n+++ b/t.py\n@@ -2,7 +2,7 @@\n b\n c\n d\n-e\n+E\n f\n g\n h\n"
        );
        assert_eq!(unified_diff("t.py", old, old), "");
    }

    #[test]
    fn a_missing_final_newline_is_marked() {
        let diff = unified_diff("t.py", "x = 1", "x = 2");
        assert_eq!(diff, "--- a/t.py\n+++ b/t.py\n@@ -1 +1 @@\n-x = 1\n\\ No newline at end of file\n+x = 2\n\\ No newline at end of file\n");
    }
}
