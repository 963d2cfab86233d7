//! Per-line suppression: `# proctor: ignore[PRC004, PRC005]` (or a bare
//! `# proctor: ignore`) on the line a finding starts on.

use proctor_source::{Diagnostic, Sources};

const DIRECTIVE: &str = "proctor: ignore";

/// Whether a comment on the diagnostic's first line suppresses it.
pub(crate) fn suppressed(diagnostic: &Diagnostic, sources: &Sources) -> bool {
    let Some(source) = sources.get(&diagnostic.file) else {
        return false;
    };
    suppresses(source.line(diagnostic.start.line), diagnostic.code)
}

/// Whether `line` carries a directive that suppresses `code`.
fn suppresses(line: &str, code: &str) -> bool {
    let Some(hash) = line.find('#') else {
        return false;
    };
    let comment = &line[hash..];
    let mut rest = comment;
    while let Some(at) = rest.find(DIRECTIVE) {
        let after = &rest[at + DIRECTIVE.len()..];
        match after.strip_prefix('[') {
            Some(list) => {
                let list = list.split(']').next().unwrap_or("");
                if list.split(',').any(|c| c.trim().eq_ignore_ascii_case(code)) {
                    return true;
                }
            }
            None => return true,
        }
        rest = after;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::suppresses;

    #[test]
    fn directives() {
        assert!(suppresses("@pytest.mark.llm  # proctor: ignore", "PRC004"));
        assert!(suppresses(
            "@pytest.mark.llm  # proctor: ignore[PRC005, PRC004]",
            "PRC004"
        ));
        assert!(!suppresses(
            "@pytest.mark.llm  # proctor: ignore[PRC005]",
            "PRC004"
        ));
        assert!(!suppresses("@pytest.mark.llm", "PRC004"));
        assert!(suppresses("x  # legacy; proctor: ignore[PRC004]", "PRC004"));
    }
}
