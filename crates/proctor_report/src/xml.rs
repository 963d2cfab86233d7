//! Escaping for hand-written XML: markup characters become entities, and
//! characters XML 1.0 forbids become visible `#xNN` text, as pytest's
//! `bin_xml_escape` writes them.

use std::fmt::Write as _;

/// `text` made safe for an attribute value: as [`escape_text`], and tab and
/// newline become character references, which parsers keep (they turn raw
/// ones into spaces).
pub(crate) fn escape_attr(text: &str) -> String {
    escape(text, true)
}

/// `text` made safe for element text: `& < > " '` become entities, carriage
/// return a character reference (parsers would drop a raw one), and any
/// other character XML 1.0 forbids, and DEL, becomes `#x1B`-style text,
/// which keeps the information without breaking the document.
pub(crate) fn escape_text(text: &str) -> String {
    escape(text, false)
}

fn escape(text: &str, attribute: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' if attribute => out.push_str("&#9;"),
            '\n' if attribute => out.push_str("&#10;"),
            '\t' | '\n' => out.push(c),
            '\r' => out.push_str("&#13;"),
            c if is_allowed(c) => out.push(c),
            c if u32::from(c) <= 0xFF => {
                let _ = write!(out, "#x{:02X}", u32::from(c));
            }
            c => {
                let _ = write!(out, "#x{:04X}", u32::from(c));
            }
        }
    }
    out
}

/// Whether pytest's `JUnit` writer keeps `c` as is (tab, newline and
/// carriage return are handled before).
fn is_allowed(c: char) -> bool {
    matches!(u32::from(c), 0x20..=0x7E | 0x80..=0xD7FF | 0xE000..=0xFFFD | 0x1_0000..)
}

#[cfg(test)]
mod tests {
    use super::{escape_attr, escape_text};

    #[test]
    fn escapes_markup_and_forbidden_characters() {
        assert_eq!(
            escape_text(r#"<a href="x">&'</a>"#),
            "&lt;a href=&quot;x&quot;&gt;&amp;&apos;&lt;/a&gt;"
        );
        assert_eq!(escape_text("]]>"), "]]&gt;");
        assert_eq!(
            escape_attr("\x1b[31mred\x00\x7f\u{fffe}"),
            "#x1B[31mred#x00#x7F#xFFFE"
        );
        assert_eq!(escape_attr("a\tb\nc\r"), "a&#9;b&#10;c&#13;");
        assert_eq!(escape_text("a\tb\nc\r"), "a\tb\nc&#13;");
        assert_eq!(escape_text("é ☃ 🦀"), "é ☃ 🦀");
    }
}
