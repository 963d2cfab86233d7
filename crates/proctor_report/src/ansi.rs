//! pytest's terminal styling: `=`-rules with a centered title, and the ANSI
//! colors of its `TerminalWriter` (rendered by `anstyle`, one escape per
//! style in pytest's order), applied only when asked.

/// A color or weight pytest's terminal writer knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Style {
    Red,
    Green,
    Yellow,
    Cyan,
    Bold,
}

impl Style {
    fn style(self) -> anstyle::Style {
        let fg = |color: anstyle::AnsiColor| anstyle::Style::new().fg_color(Some(color.into()));
        match self {
            Style::Red => fg(anstyle::AnsiColor::Red),
            Style::Green => fg(anstyle::AnsiColor::Green),
            Style::Yellow => fg(anstyle::AnsiColor::Yellow),
            Style::Cyan => fg(anstyle::AnsiColor::Cyan),
            Style::Bold => anstyle::Style::new().bold(),
        }
    }
}

/// `text` wrapped in `styles` when `color` is on, as is otherwise: each
/// style's escape in the order given (pytest writes the colour, then
/// bold), then one reset.
pub(crate) fn paint(text: &str, styles: &[Style], color: bool) -> String {
    if !color || styles.is_empty() || text.is_empty() {
        return text.to_owned();
    }
    let mut painted: String = styles
        .iter()
        .map(|style| style.style().render().to_string())
        .collect();
    painted.push_str(text);
    painted.push_str(&anstyle::Reset.render().to_string());
    painted
}

/// A rule of `fill` characters with `title` in the middle, at most `width`
/// characters long, computed as pytest's `TerminalWriter.sep` does.
pub(crate) fn rule(fill: char, title: &str, width: usize) -> String {
    let title_len = title.chars().count();
    let n = (width.saturating_sub(title_len + 2) / 2).max(1);
    let side: String = std::iter::repeat_n(fill, n).collect();
    let mut line = format!("{side} {title} {side}");
    if 2 * n + title_len + 2 < width {
        line.push(fill);
    }
    line
}

#[cfg(test)]
mod tests {
    use super::{paint, rule, Style};

    #[test]
    fn rules_match_pytest_widths() {
        assert_eq!(
            rule('=', "FAILURES", 80),
            "=================================== FAILURES ==================================="
        );
        assert_eq!(
            rule('=', "short test summary info", 80),
            "=========================== short test summary info ============================"
        );
        assert_eq!(rule('=', "1 passed in 0.01s", 80).chars().count(), 80);
        assert_eq!(rule('_', "x", 10), "___ x ____");
        assert_eq!(
            rule('=', &"a".repeat(100), 80),
            format!("= {} =", "a".repeat(100))
        );
    }

    #[test]
    fn paints_only_with_color() {
        assert_eq!(paint("FAILED", &[Style::Red], false), "FAILED");
        assert_eq!(
            paint("FAILED", &[Style::Red, Style::Bold], true),
            "\x1b[31m\x1b[1mFAILED\x1b[0m"
        );
    }
}
