//! Renderers: one function per output format, each turning a list of
//! diagnostics into text. They never print; the binary writes the text.

use std::fmt::Write as _;

use serde::Serialize;

use crate::{Diagnostic, Edit, LineColumn, Severity, SourceFile, Sources};

/// How diagnostics are rendered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// `file:line:col: CODE message`, a code frame with the range
    /// underlined, and the help.
    #[default]
    Full,
    /// `file:line:col: CODE message`, one line per diagnostic.
    Concise,
    /// A JSON array of objects, one per diagnostic.
    Json,
    /// GitHub Actions workflow commands (`::error file=...::message`), which
    /// GitHub shows as annotations on the pull request.
    Github,
}

/// Renders `diagnostics` in `format`, drawing code frames from `sources`.
#[must_use]
pub fn render(format: Format, diagnostics: &[Diagnostic], sources: &Sources) -> String {
    let mut out = String::new();
    match format {
        Format::Full => {
            for diagnostic in diagnostics {
                full(&mut out, diagnostic, sources.get(&diagnostic.file));
            }
        }
        Format::Concise => {
            for diagnostic in diagnostics {
                header(&mut out, diagnostic);
            }
        }
        Format::Json => out = json(diagnostics),
        Format::Github => {
            for diagnostic in diagnostics {
                github(&mut out, diagnostic);
            }
        }
    }
    out
}

fn header(out: &mut String, d: &Diagnostic) {
    let fixable = if d.fix.is_some() { " [*]" } else { "" };
    let _ = writeln!(
        out,
        "{}:{}:{}: {}{fixable} {}",
        d.file, d.start.line, d.start.column, d.code, d.message
    );
}

/// The ruff-like rendering: header, frame, help, then a blank line.
fn full(out: &mut String, d: &Diagnostic, source: Option<&SourceFile>) {
    header(out, d);
    if let Some(source) = source.filter(|s| d.start.line >= 1 && d.start.line <= s.line_count()) {
        let line = d.start.line;
        let first = if line > 1 { line - 1 } else { line };
        let last = (line + 1).min(source.line_count());
        let width = last.to_string().len();
        let blank = " ".repeat(width);
        let _ = writeln!(out, "{blank} |");
        for number in first..=last {
            let text = source.line(number).replace('\t', " ");
            let _ = writeln!(out, "{}", format!("{number:>width$} | {text}").trim_end());
            if number == line {
                let length = text.chars().count();
                let start = d.start.column.saturating_sub(1).min(length);
                let end = if d.end.line == line {
                    d.end.column.saturating_sub(1).min(length)
                } else {
                    length
                };
                let carets = "^".repeat(end.saturating_sub(start).max(1));
                let _ = writeln!(out, "{blank} | {}{carets} {}", " ".repeat(start), d.code);
            }
        }
        let _ = writeln!(out, "{blank} |");
        if let Some(help) = &d.help {
            let _ = writeln!(out, "{blank} = help: {help}");
        }
    } else if let Some(help) = &d.help {
        let _ = writeln!(out, "  = help: {help}");
    }
    out.push('\n');
}

#[derive(Serialize)]
struct JsonDiagnostic<'a> {
    code: &'a str,
    severity: Severity,
    message: &'a str,
    file: &'a str,
    start: LineColumn,
    end: LineColumn,
    help: Option<&'a str>,
    fix: Option<JsonFix<'a>>,
}

#[derive(Serialize)]
struct JsonFix<'a> {
    description: &'a str,
    edits: &'a [Edit],
}

fn json(diagnostics: &[Diagnostic]) -> String {
    let objects: Vec<JsonDiagnostic<'_>> = diagnostics
        .iter()
        .map(|d| JsonDiagnostic {
            code: d.code,
            severity: d.severity,
            message: &d.message,
            file: &d.file,
            start: d.start,
            end: d.end,
            help: d.help.as_deref(),
            fix: d.fix.as_ref().map(|f| JsonFix {
                description: &f.description,
                edits: &f.edits,
            }),
        })
        .collect();
    let mut text = serde_json::to_string_pretty(&objects).unwrap_or_else(|_| "[]".to_owned());
    text.push('\n');
    text
}

/// One GitHub workflow command; see "Workflow commands for GitHub Actions".
fn github(out: &mut String, d: &Diagnostic) {
    let command = match d.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "notice",
    };
    let mut message = d.message.clone();
    if let Some(help) = &d.help {
        let _ = write!(message, " (help: {help})");
    }
    let _ = writeln!(
        out,
        "::{command} file={},line={},col={},endLine={},endColumn={},title={}::{}",
        property(&d.file),
        d.start.line,
        d.start.column,
        d.end.line,
        d.end.column,
        property(d.code),
        data(&message)
    );
}

/// Escapes a workflow command's message.
fn data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a workflow command's property value.
fn property(text: &str) -> String {
    data(text).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(line: usize, column: usize) -> LineColumn {
        LineColumn { line, column }
    }

    fn sample() -> (Vec<Diagnostic>, Sources) {
        let mut sources = Sources::default();
        sources.insert(
            "t.py",
            "import pytest\n@pytest.mark.llm\ndef test_a():\n    pass\n".to_owned(),
        );
        let d = Diagnostic::new(
            "PRC004",
            Severity::Warning,
            "`llm` is a deprecated alias of `e2e`".into(),
            "t.py".into(),
            at(2, 2),
            at(2, 17),
        )
        .with_help("write `e2e`");
        (vec![d], sources)
    }

    #[test]
    fn full_draws_a_frame() {
        let (d, sources) = sample();
        assert_eq!(
            render(Format::Full, &d, &sources),
            "t.py:2:2: PRC004 `llm` is a deprecated alias of `e2e`\n  |\n1 | import pytest\n2 | @pytest.mark.llm\n  |  ^^^^^^^^^^^^^^^ PRC004\n3 | def test_a():\n  |\n  = help: write `e2e`\n\n"
        );
    }

    #[test]
    fn github_escapes_properties_and_data() {
        let (mut d, sources) = sample();
        d[0].file = "a,b:c.py".into();
        d[0].message = "50%\nmore".into();
        d[0].help = None;
        assert_eq!(
            render(Format::Github, &d, &sources),
            "::warning file=a%2Cb%3Ac.py,line=2,col=2,endLine=2,endColumn=17,title=PRC004::50%25%0Amore\n"
        );
    }

    #[test]
    fn concise_and_json() {
        let (d, sources) = sample();
        assert_eq!(
            render(Format::Concise, &d, &sources),
            "t.py:2:2: PRC004 `llm` is a deprecated alias of `e2e`\n"
        );
        let json: serde_json::Value =
            serde_json::from_str(&render(Format::Json, &d, &sources)).unwrap();
        assert_eq!(json[0]["code"], "PRC004");
        assert_eq!(json[0]["severity"], "warning");
        assert_eq!(json[0]["end"]["column"], 17);
    }
}
