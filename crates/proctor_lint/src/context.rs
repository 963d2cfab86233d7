//! What a rule sees of one item, and where it reports.

use proctor_config::MarkerOptions;
use proctor_python::{Item, Marker};
use proctor_source::{Diagnostic, Edit, LineColumn, Sources};
use proctor_taxonomy::{Effective, EffectiveMarker, Taxonomy};

use crate::Rule;

/// A range of a file that a finding points at.
#[derive(Debug, Clone)]
pub(crate) struct Span {
    file: String,
    start: LineColumn,
    end: LineColumn,
}

/// One item, its effective markers and the taxonomy.
pub(crate) struct ItemContext<'a> {
    pub(crate) item: &'a Item,
    pub(crate) effective: &'a Effective,
    pub(crate) taxonomy: &'a Taxonomy,
    pub(crate) sources: &'a Sources,
}

impl<'a> ItemContext<'a> {
    pub(crate) fn new(item: &'a Item, effective: &'a Effective, taxonomy: &'a Taxonomy, sources: &'a Sources) -> Self {
        ItemContext { item, effective, taxonomy, sources }
    }

    /// The written markers with their effective counterparts (an alias's
    /// target): the taxonomy puts one effective marker per written marker
    /// first, in the same order.
    pub(crate) fn written(&self) -> impl Iterator<Item = (&'a Marker, &'a EffectiveMarker)> + use<'a> {
        self.item.markers.iter().map(AsRef::as_ref).zip(&self.effective.markers)
    }

    /// The rules of a written marker: its own, else (for an alias without
    /// rules of its own) its target's.
    pub(crate) fn rule_of(&self, marker: &Marker, effective: &EffectiveMarker) -> Option<&'a MarkerOptions> {
        self.taxonomy.rule(&marker.name).or_else(|| self.taxonomy.rule(&effective.name))
    }

    /// The distinct names of the effective markers, in order.
    pub(crate) fn names(&self) -> Vec<&'a str> {
        let mut names: Vec<&str> = Vec::new();
        for name in self.effective.names() {
            if !names.contains(&name) {
                names.push(name);
            }
        }
        names
    }

    /// The first written marker whose effective name is `name`.
    pub(crate) fn written_as(&self, name: &str) -> Option<&'a Marker> {
        self.written().find(|(_, e)| e.name == name).map(|(m, _)| m).filter(|m| m.location.is_some())
    }

    /// An edit that replaces the name in a written marker
    /// (`pytest.mark.llm` -> `pytest.mark.e2e`), when the name is on the
    /// marker's first line.
    pub(crate) fn rename_edit(&self, marker: &Marker, replacement: &str) -> Option<Edit> {
        let location = marker.location.as_ref()?;
        let line = self.sources.get(&location.file)?.line(location.line);
        let from = line.char_indices().nth(location.column.saturating_sub(1))?.0;
        let dotted = format!(".{}", marker.name);
        let found = line[from..].find(&dotted)? + from + 1;
        let after = line[found + marker.name.len()..].chars().next();
        if after.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            return None;
        }
        let column = line[..found].chars().count() + 1;
        Some(Edit {
            file: location.file.clone(),
            start: LineColumn { line: location.line, column },
            end: LineColumn { line: location.line, column: column + marker.name.chars().count() },
            replacement: replacement.to_owned(),
        })
    }

    /// An edit that deletes the marker's line, when the line is nothing but
    /// the marker as a decorator (and a comment).
    pub(crate) fn delete_decorator_edit(&self, marker: &Marker) -> Option<Edit> {
        let location = marker.location.as_ref()?;
        if location.end_line != location.line {
            return None;
        }
        let line = self.sources.get(&location.file)?.line(location.line);
        let code = trailing_comment(line).map_or(line, |comment| &line[..line.len() - comment.len()]);
        let start = line.char_indices().nth(location.column.saturating_sub(1))?.0;
        let end = line.char_indices().nth(location.end_column.saturating_sub(1)).map_or(line.len(), |(i, _)| i);
        let decorator = code[..start].trim_start() == "@" && code.get(end..).is_some_and(|rest| rest.trim().is_empty());
        decorator.then(|| Edit {
            file: location.file.clone(),
            start: LineColumn { line: location.line, column: 1 },
            end: LineColumn { line: location.line + 1, column: 1 },
            replacement: String::new(),
        })
    }

    /// `` `name` ``, followed by where the test got it when it is not
    /// written (`` `qualitative` (implied by `judge`) ``).
    pub(crate) fn describe(&self, name: &str) -> String {
        if self.written_as(name).is_some() {
            return format!("`{name}`");
        }
        match self.effective.markers.iter().find(|m| m.name == name) {
            Some(marker) => format!("`{name}` ({})", proctor_taxonomy::describe_provenance(&marker.provenance)),
            None => format!("`{name}`"),
        }
    }

    /// The test function's name, without parameters.
    pub(crate) fn test_name(&self) -> &'a str {
        let last = self.item.nodeid.rsplit("::").next().unwrap_or(&self.item.nodeid);
        last.split('[').next().unwrap_or(last)
    }

    /// Where `marker` is written, else the test's definition.
    pub(crate) fn marker_span(&self, marker: &Marker) -> Span {
        match &marker.location {
            Some(l) => Span {
                file: l.file.clone(),
                start: LineColumn { line: l.line, column: l.column },
                end: LineColumn { line: l.end_line, column: l.end_column },
            },
            None => self.def_span(),
        }
    }

    /// Where `name` is written, else the test's definition.
    pub(crate) fn name_span(&self, name: &str) -> Span {
        self.written_as(name).map_or_else(|| self.def_span(), |m| self.marker_span(m))
    }

    /// The test's definition: the text of its first line (its first
    /// decorator, or the `def`).
    pub(crate) fn def_span(&self) -> Span {
        let line = self.item.line.max(1);
        let (start, end) = self.sources.get(&self.item.file).map_or((1, 1), |source| {
            let text = source.line(line);
            let code = trailing_comment(text).map_or(text, |comment| &text[..text.len() - comment.len()]);
            let indent = code.chars().take_while(|c| c.is_whitespace()).count();
            (indent + 1, code.trim_end().chars().count().max(indent) + 1)
        });
        Span {
            file: self.item.file.clone(),
            start: LineColumn { line, column: start },
            end: LineColumn { line, column: end },
        }
    }
}

/// Collects one rule's findings, with its code and severity.
pub(crate) struct Sink<'s> {
    rule: &'static Rule,
    found: &'s mut Vec<Diagnostic>,
}

impl<'s> Sink<'s> {
    pub(crate) fn new(rule: &'static Rule, found: &'s mut Vec<Diagnostic>) -> Self {
        Sink { rule, found }
    }

    /// Reports `message` at `span`, with `help` when given; returns the
    /// diagnostic, for a rule to attach a fix.
    pub(crate) fn report(&mut self, span: Span, message: String, help: Option<String>) -> &mut Diagnostic {
        let mut diagnostic = Diagnostic::new(self.rule.code, self.rule.severity, message, span.file, span.start, span.end);
        diagnostic.help = help;
        self.found.push(diagnostic);
        self.found.last_mut().expect("just pushed")
    }
}

/// `a`, `b` and `c` as a list of backticked names.
pub(crate) fn listed(names: &[String], conjunction: &str) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    match quoted.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} {conjunction} {last}", init.join(", ")),
    }
}

/// The comment at the end of a line of code, if any: the first `#` outside
/// a string literal.
pub(crate) fn trailing_comment(line: &str) -> Option<&str> {
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in line.char_indices() {
        match quote {
            Some(q) => {
                if escaped {
                    escaped = false;
                } else if c == '\\' {
                    escaped = true;
                } else if c == q {
                    quote = None;
                }
            }
            None if c == '"' || c == '\'' => quote = Some(c),
            None if c == '#' => return Some(&line[i..]),
            None => {}
        }
    }
    None
}
