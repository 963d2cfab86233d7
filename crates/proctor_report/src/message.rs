//! The one-line form of a failure's text, as pytest's "reprcrash" message
//! shows it in the short test summary and in `JUnit` `message` attributes.

/// The line that says what went wrong in `message` (pytest's `longrepr`).
///
/// pytest marks the exception lines of a traceback with a leading `E`
/// (`E       assert 1 == 2`); the first such line, without the marker, is
/// what pytest's own short summary shows. A text without such a line
/// (proctor's crash and timeout explanations) gives its first non-blank
/// line.
pub(crate) fn crash_line(message: &str) -> &str {
    let exception = message.lines().find_map(|line| {
        let rest = line.strip_prefix('E')?;
        (rest.is_empty() || rest.starts_with(' ')).then(|| rest.trim())
    });
    match exception {
        Some(line) if !line.is_empty() => line,
        _ => message
            .lines()
            .map(str::trim)
            .find(|line| !line.is_empty())
            .unwrap_or(""),
    }
}

#[cfg(test)]
mod tests {
    use super::crash_line;

    #[test]
    fn prefers_the_exception_line_of_a_traceback() {
        let longrepr = "def test_x():\n>       assert 1 == 2\nE       assert 1 == 2\nE         extra\n\ntests/test_a.py:2: AssertionError";
        assert_eq!(crash_line(longrepr), "assert 1 == 2");
    }

    #[test]
    fn falls_back_to_the_first_non_blank_line() {
        assert_eq!(
            crash_line("\n  worker died (signal 9)\nmore"),
            "worker died (signal 9)"
        );
        assert_eq!(crash_line("Error: no E marker"), "Error: no E marker");
        assert_eq!(crash_line(""), "");
    }
}
