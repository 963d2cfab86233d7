//! Applying the fixes of diagnostics to source texts, and refusing the
//! results that no longer parse. Pure: the caller parses and writes.

use std::collections::BTreeMap;

use crate::{Diagnostic, Sources};

/// A file with fixes applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FixedFile {
    /// The file, relative to the rootdir.
    pub file: String,
    /// Its new text.
    pub text: String,
    /// How many diagnostics were fixed in it.
    pub fixed: usize,
}

/// One file's accepted edits as byte ranges with their replacements, and
/// how many fixes they come from.
type Plan<'a> = (Vec<(usize, usize, &'a str)>, usize);

/// Applies the fixes of `diagnostics` to the texts in `sources`. A fix whose
/// edits overlap an edit already taken is skipped whole (a second run
/// applies it); fixes in files that could not be read are skipped.
#[must_use]
pub fn apply_fixes(diagnostics: &[Diagnostic], sources: &Sources) -> Vec<FixedFile> {
    let mut plans: BTreeMap<&str, Plan<'_>> = BTreeMap::new();
    for fix in diagnostics.iter().filter_map(|d| d.fix.as_ref()) {
        let mut edits = Vec::new();
        for edit in &fix.edits {
            let Some(source) = sources.get(&edit.file) else {
                edits.clear();
                break;
            };
            let start = source.index.offset(&source.text, edit.start);
            let end = source.index.offset(&source.text, edit.end).max(start);
            edits.push((edit.file.as_str(), start, end, edit.replacement.as_str()));
        }
        if edits.is_empty() {
            continue;
        }
        let overlaps = edits.iter().any(|&(file, start, end, _)| {
            plans.get(file).is_some_and(|(taken, _)| {
                taken
                    .iter()
                    .any(|&(s, e, _)| start < e && s < end || start == s && end == e)
            })
        });
        if overlaps {
            continue;
        }
        let first = edits[0].0;
        for (file, start, end, replacement) in edits {
            plans
                .entry(file)
                .or_default()
                .0
                .push((start, end, replacement));
        }
        plans.entry(first).or_default().1 += 1;
    }
    plans
        .into_iter()
        .filter_map(|(file, (mut edits, fixed))| {
            let source = sources.get(file)?;
            edits.sort_by_key(|&(start, end, _)| (start, end));
            let mut text = String::with_capacity(source.text.len());
            let mut at = 0;
            for (start, end, replacement) in edits {
                text.push_str(&source.text[at..start]);
                text.push_str(replacement);
                at = end;
            }
            text.push_str(&source.text[at..]);
            Some(FixedFile {
                file: file.to_owned(),
                text,
                fixed,
            })
        })
        .collect()
}

/// A fixed file whose new text does not parse: it must not be written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RejectedFix {
    /// The file, relative to the rootdir.
    pub file: String,
    /// How many fixes were refused with it.
    pub fixed: usize,
    /// Why its new text does not parse.
    pub error: String,
}

/// Splits `files` into those whose new text `parses` (given the file's
/// path and its text) accepts and those it refuses. A fix is only as good as the rule that built it: this is the
/// net that keeps a wrong edit from breaking a test file (every file with
/// findings parsed before it was fixed).
#[must_use]
pub fn verify_fixes(
    files: Vec<FixedFile>,
    parses: impl Fn(&str, &str) -> Result<(), String>,
) -> (Vec<FixedFile>, Vec<RejectedFix>) {
    let mut accepted = Vec::with_capacity(files.len());
    let mut rejected = Vec::new();
    for file in files {
        match parses(&file.file, &file.text) {
            Ok(()) => accepted.push(file),
            Err(error) => rejected.push(RejectedFix {
                file: file.file,
                fixed: file.fixed,
                error,
            }),
        }
    }
    (accepted, rejected)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Edit, Fix, LineColumn, Severity};

    fn fixing(line: usize, start: usize, end: usize, replacement: &str) -> Diagnostic {
        let at = |column| LineColumn { line, column };
        let mut d = Diagnostic::new(
            "PRC004",
            Severity::Warning,
            String::new(),
            "t.py".into(),
            at(start),
            at(end),
        );
        d.fix = Some(Fix {
            description: String::new(),
            edits: vec![Edit {
                file: "t.py".into(),
                start: at(start),
                end: at(end),
                replacement: replacement.into(),
            }],
        });
        d
    }

    #[test]
    fn edits_apply_and_overlaps_wait() {
        let mut sources = Sources::default();
        sources.insert("t.py", "@pytest.mark.llm\n@pytest.mark.llm\n".to_owned());
        let fixed = apply_fixes(
            &[
                fixing(1, 14, 17, "e2e"),
                fixing(2, 14, 17, "e2e"),
                fixing(2, 13, 16, "x"),
            ],
            &sources,
        );
        assert_eq!(
            fixed,
            [FixedFile {
                file: "t.py".into(),
                text: "@pytest.mark.e2e\n@pytest.mark.e2e\n".into(),
                fixed: 2
            }]
        );
    }

    #[test]
    fn fixes_that_do_not_parse_are_refused() {
        let mut sources = Sources::default();
        sources.insert(
            "t.py",
            "@pytest.mark.llm\ndef test_a():\n    pass\n".to_owned(),
        );
        // A rename into a keyword: `pytest.mark.class` is a syntax error.
        let fixed = apply_fixes(&[fixing(1, 14, 17, "class")], &sources);
        let parses = |_: &str, text: &str| {
            if text.contains(".class") {
                Err("1:14: SyntaxError: invalid syntax".to_owned())
            } else {
                Ok(())
            }
        };
        let (accepted, rejected) = verify_fixes(fixed, parses);
        assert_eq!(accepted, []);
        assert_eq!(
            rejected,
            [RejectedFix {
                file: "t.py".into(),
                fixed: 1,
                error: "1:14: SyntaxError: invalid syntax".into()
            }]
        );
        let (accepted, rejected) =
            verify_fixes(apply_fixes(&[fixing(1, 14, 17, "e2e")], &sources), parses);
        assert_eq!((accepted.len(), rejected.len()), (1, 0));
    }
}
