//! Renderers: one function per output format, each turning a list of
//! diagnostics into text. They never print; the binary writes the text.

use std::fmt::Write as _;

use anstyle::{AnsiColor, Style};
use serde::Serialize;
use serde_json::json;

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
    /// A SARIF 2.1.0 log (one run), as code scanning services read it.
    Sarif,
}

/// What SARIF says about a rule: its code, name and one-line summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SarifRule<'a> {
    /// The stable code (`PRC004`).
    pub code: &'a str,
    /// The kebab-case name (`deprecated-marker`).
    pub name: &'a str,
    /// One sentence on what the rule checks.
    pub summary: &'a str,
}

/// Options of [`render_styled`].
#[derive(Debug, Clone, Copy, Default)]
pub struct RenderOptions<'a> {
    /// Whether the full and concise formats carry ANSI styles (a terminal
    /// that shows colour; the caller decides).
    pub color: bool,
    /// The rules SARIF describes in its `tool.driver.rules`.
    pub rules: &'a [SarifRule<'a>],
}

/// Renders `diagnostics` in `format`, drawing code frames from `sources`,
/// without styles.
#[must_use]
pub fn render(format: Format, diagnostics: &[Diagnostic], sources: &Sources) -> String {
    render_styled(format, diagnostics, sources, &RenderOptions::default())
}

/// Renders `diagnostics` in `format` with `options`.
#[must_use]
pub fn render_styled(
    format: Format,
    diagnostics: &[Diagnostic],
    sources: &Sources,
    options: &RenderOptions<'_>,
) -> String {
    let paint = Paint(options.color);
    let mut out = String::new();
    match format {
        Format::Full => {
            for diagnostic in diagnostics {
                full(&mut out, diagnostic, sources.get(&diagnostic.file), paint);
            }
        }
        Format::Concise => {
            for diagnostic in diagnostics {
                header(&mut out, diagnostic, paint);
            }
        }
        Format::Json => out = json(diagnostics),
        Format::Github => {
            for diagnostic in diagnostics {
                github(&mut out, diagnostic);
            }
        }
        Format::Sarif => out = sarif(diagnostics, options.rules),
    }
    out
}

/// Wraps text in ANSI styles when colour is on.
#[derive(Debug, Clone, Copy)]
struct Paint(bool);

impl Paint {
    fn paint(self, style: Style, text: &str) -> String {
        if self.0 {
            format!("{style}{text}{style:#}")
        } else {
            text.to_owned()
        }
    }

    /// The style of a diagnostic's code and carets, by severity (as ruff:
    /// red for errors).
    fn severity(severity: Severity) -> Style {
        let color = match severity {
            Severity::Error => AnsiColor::Red,
            Severity::Warning => AnsiColor::Yellow,
            Severity::Info => AnsiColor::Cyan,
        };
        Style::new().bold().fg_color(Some(color.into()))
    }

    fn gutter() -> Style {
        Style::new().bold().fg_color(Some(AnsiColor::Blue.into()))
    }
}

fn header(out: &mut String, d: &Diagnostic, paint: Paint) {
    let fixable = if d.fix.is_some() {
        format!(
            " {}",
            paint.paint(Style::new().fg_color(Some(AnsiColor::Cyan.into())), "[*]")
        )
    } else {
        String::new()
    };
    // Line 0: the diagnostic concerns the whole file.
    let position = if d.start.line == 0 {
        String::new()
    } else {
        format!(":{}:{}", d.start.line, d.start.column)
    };
    let _ = writeln!(
        out,
        "{}{position}: {}{fixable} {}",
        paint.paint(Style::new().bold(), &d.file),
        paint.paint(Paint::severity(d.severity), d.code),
        d.message
    );
}

/// The ruff-like rendering: header, frame, help, then a blank line.
fn full(out: &mut String, d: &Diagnostic, source: Option<&SourceFile>, paint: Paint) {
    header(out, d, paint);
    let help = |out: &mut String, gutter: &str| {
        if let Some(help) = &d.help {
            let _ = writeln!(
                out,
                "{gutter} {} {}",
                paint.paint(Paint::gutter(), "="),
                paint.paint(Style::new().bold(), &format!("help: {help}"))
            );
        }
    };
    if let Some(source) = source.filter(|s| d.start.line >= 1 && d.start.line <= s.line_count()) {
        let line = d.start.line;
        let first = if line > 1 { line - 1 } else { line };
        let last = (line + 1).min(source.line_count());
        let width = last.to_string().len();
        let blank = " ".repeat(width);
        let bar = paint.paint(Paint::gutter(), &format!("{blank} |"));
        let _ = writeln!(out, "{bar}");
        for number in first..=last {
            let text = source.line(number).replace('\t', " ");
            let gutter = paint.paint(Paint::gutter(), &format!("{number:>width$} |"));
            let _ = writeln!(out, "{}", format!("{gutter} {text}").trim_end());
            if number == line {
                let length = text.chars().count();
                let start = d.start.column.saturating_sub(1).min(length);
                let end = if d.end.line == line {
                    d.end.column.saturating_sub(1).min(length)
                } else {
                    length
                };
                let carets = "^".repeat(end.saturating_sub(start).max(1));
                let marks =
                    paint.paint(Paint::severity(d.severity), &format!("{carets} {}", d.code));
                let _ = writeln!(out, "{bar} {}{marks}", " ".repeat(start));
            }
        }
        let _ = writeln!(out, "{bar}");
        help(out, &blank);
    } else {
        help(out, " ");
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
    range: Option<crate::ByteRange>,
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
            range: d.range,
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

/// A SARIF 2.1.0 log with one run; see the OASIS "Static Analysis Results
/// Interchange Format" standard, section 3 (the required properties are
/// `version`, `runs`, `tool.driver.name` and each result's `message`).
fn sarif(diagnostics: &[Diagnostic], rules: &[SarifRule<'_>]) -> String {
    let mut codes: Vec<&str> = diagnostics.iter().map(|d| d.code).collect();
    codes.sort_unstable();
    codes.dedup();
    let described: Vec<serde_json::Value> = codes
        .iter()
        .map(|code| match rules.iter().find(|r| r.code == *code) {
            Some(rule) => json!({
                "id": rule.code,
                "name": rule.name,
                "shortDescription": { "text": rule.summary },
            }),
            None => json!({ "id": code }),
        })
        .collect();
    let results: Vec<serde_json::Value> = diagnostics
        .iter()
        .map(|d| {
            let level = match d.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
                Severity::Info => "note",
            };
            let mut region = json!({
                "startLine": d.start.line,
                "startColumn": d.start.column,
                "endLine": d.end.line,
                "endColumn": d.end.column,
            });
            if let Some(range) = d.range {
                region["byteOffset"] = json!(range.start);
                region["byteLength"] = json!(range.len());
            }
            let mut text = d.message.clone();
            if let Some(help) = &d.help {
                let _ = write!(text, " (help: {help})");
            }
            let mut physical = json!({ "artifactLocation": { "uri": uri(&d.file) } });
            // SARIF lines start at 1: a whole-file diagnostic has no region.
            if d.start.line > 0 {
                physical["region"] = region;
            }
            let mut result = json!({
                "ruleId": d.code,
                "ruleIndex": codes.binary_search(&d.code).unwrap_or(0),
                "level": level,
                "message": { "text": text },
                "locations": [{ "physicalLocation": physical }],
            });
            if let Some(fix) = &d.fix {
                result["fixes"] = json!([{
                    "description": { "text": fix.description },
                    "artifactChanges": fix.edits.iter().map(|e| json!({
                        "artifactLocation": { "uri": uri(&e.file) },
                        "replacements": [{
                            "deletedRegion": {
                                "startLine": e.start.line,
                                "startColumn": e.start.column,
                                "endLine": e.end.line,
                                "endColumn": e.end.column,
                            },
                            "insertedContent": { "text": e.replacement },
                        }],
                    })).collect::<Vec<_>>(),
                }]);
            }
            result
        })
        .collect();
    let log = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "proctor",
                    "version": env!("CARGO_PKG_VERSION"),
                    "rules": described,
                }
            },
            "results": results,
        }],
    });
    let mut text = serde_json::to_string_pretty(&log).unwrap_or_else(|_| "{}".to_owned());
    text.push('\n');
    text
}

/// A file's path as a relative URI reference: `/`-separated, with the
/// characters a URI cannot hold percent-encoded.
fn uri(file: &str) -> String {
    let mut out = String::new();
    for byte in file.replace('\\', "/").bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~/:".contains(&byte) {
            out.push(char::from(byte));
        } else {
            let _ = write!(out, "%{byte:02X}");
        }
    }
    out
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
    let position = if d.start.line == 0 {
        String::new()
    } else {
        format!(
            ",line={},col={},endLine={},endColumn={}",
            d.start.line, d.start.column, d.end.line, d.end.column
        )
    };
    let _ = writeln!(
        out,
        "::{command} file={}{position},title={}::{}",
        property(&d.file),
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
    fn styles_only_when_asked() {
        let (d, sources) = sample();
        let plain = render(Format::Full, &d, &sources);
        assert!(!plain.contains('\u{1b}'));
        let options = RenderOptions {
            color: true,
            rules: &[],
        };
        let styled = render_styled(Format::Full, &d, &sources, &options);
        assert!(styled.contains("\u{1b}[1m"));
        assert!(styled.contains("PRC004"));
        let json = render_styled(Format::Json, &d, &sources, &options);
        assert!(!json.contains('\u{1b}'));
    }

    #[test]
    fn sarif_has_the_required_properties() {
        let (mut d, sources) = sample();
        d[0].locate(sources.get("t.py").unwrap());
        d[0].file = "dir with space/t.py".into();
        let rules = [SarifRule {
            code: "PRC004",
            name: "deprecated-marker",
            summary: "a deprecated marker",
        }];
        let options = RenderOptions {
            color: false,
            rules: &rules,
        };
        let log: serde_json::Value =
            serde_json::from_str(&render_styled(Format::Sarif, &d, &sources, &options)).unwrap();
        assert_eq!(log["version"], "2.1.0");
        let run = &log["runs"][0];
        assert_eq!(run["tool"]["driver"]["name"], "proctor");
        assert_eq!(
            run["tool"]["driver"]["rules"][0]["name"],
            "deprecated-marker"
        );
        let result = &run["results"][0];
        assert_eq!(result["ruleId"], "PRC004");
        assert_eq!(result["level"], "warning");
        assert!(result["message"]["text"]
            .as_str()
            .unwrap()
            .starts_with("`llm`"));
        let location = &result["locations"][0]["physicalLocation"];
        assert_eq!(
            location["artifactLocation"]["uri"],
            "dir%20with%20space/t.py"
        );
        assert_eq!(location["region"]["startLine"], 2);
        assert_eq!(location["region"]["byteOffset"], 15);
        assert_eq!(location["region"]["byteLength"], 15);
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
