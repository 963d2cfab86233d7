//! What a rule sees of one item, and where it reports.

use rustc_hash::FxHashSet as HashSet;
use std::path::{Path, PathBuf};

use proctor_config::{MarkerOptions, Settings};
use proctor_python::{Item, Marker};
use proctor_source::{Diagnostic, Edit, LineColumn, Sources};
use proctor_taxonomy::{Effective, EffectiveMarker, Taxonomy};

use crate::Rule;

/// A range of a file that a finding points at.
#[derive(Debug, Clone)]
pub(crate) struct Span {
    pub(crate) file: String,
    pub(crate) start: LineColumn,
    pub(crate) end: LineColumn,
}

/// One item, its effective markers and the taxonomy.
pub(crate) struct ItemContext<'a> {
    pub(crate) item: &'a Item,
    pub(crate) effective: &'a Effective,
    pub(crate) taxonomy: &'a Taxonomy,
    pub(crate) sources: &'a Sources,
    /// `names()`, computed once for the rules that ask.
    names: std::cell::OnceCell<Vec<&'a str>>,
}

impl<'a> ItemContext<'a> {
    pub(crate) fn new(
        item: &'a Item,
        effective: &'a Effective,
        taxonomy: &'a Taxonomy,
        sources: &'a Sources,
    ) -> Self {
        ItemContext {
            item,
            effective,
            taxonomy,
            sources,
            names: std::cell::OnceCell::new(),
        }
    }

    /// The written markers with their effective counterparts (an alias's
    /// target): the taxonomy puts one effective marker per written marker
    /// first, in the same order.
    pub(crate) fn written(
        &self,
    ) -> impl Iterator<Item = (&'a Marker, &'a EffectiveMarker)> + use<'a> {
        self.item
            .markers
            .iter()
            .map(AsRef::as_ref)
            .zip(&self.effective.markers)
    }

    /// The rules of a written marker: its own, else (for an alias without
    /// rules of its own) its target's.
    pub(crate) fn rule_of(
        &self,
        marker: &Marker,
        effective: &EffectiveMarker,
    ) -> Option<&'a MarkerOptions> {
        self.taxonomy
            .rule(&marker.name)
            .or_else(|| self.taxonomy.rule(&effective.name))
    }

    /// The distinct names of the effective markers, in order.
    pub(crate) fn names(&self) -> &[&'a str] {
        self.names.get_or_init(|| {
            let mut names: Vec<&str> = Vec::with_capacity(self.effective.markers.len());
            for name in self.effective.names() {
                if !names.contains(&name) {
                    names.push(name);
                }
            }
            names
        })
    }

    /// The first written marker whose effective name is `name`.
    pub(crate) fn written_as(&self, name: &str) -> Option<&'a Marker> {
        self.written()
            .find(|(_, e)| e.name == name)
            .map(|(m, _)| m)
            .filter(|m| m.location.is_some())
    }

    /// An edit that replaces the name in a written marker
    /// (`pytest.mark.llm` -> `pytest.mark.e2e`), when the name is on the
    /// marker's first line.
    pub(crate) fn rename_edit(&self, marker: &Marker, replacement: &str) -> Option<Edit> {
        let location = marker.location.as_ref()?;
        if marker.source == proctor_python::MarkerSource::OptIn {
            // An example's comment or a notebook's block: the location is
            // the name itself.
            return Some(Edit {
                file: location.file.clone(),
                start: LineColumn {
                    line: location.line,
                    column: location.column,
                },
                end: LineColumn {
                    line: location.end_line,
                    column: location.end_column,
                },
                replacement: replacement.to_owned(),
            });
        }
        let line = self.sources.get(&location.file)?.line(location.line);
        let from = line
            .char_indices()
            .nth(location.column.saturating_sub(1))?
            .0;
        let dotted = format!(".{}", marker.name);
        let found = line[from..].find(&dotted)? + from + 1;
        let after = line[found + marker.name.len()..].chars().next();
        if after.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            return None;
        }
        let column = line[..found].chars().count() + 1;
        Some(Edit {
            file: location.file.clone(),
            start: LineColumn {
                line: location.line,
                column,
            },
            end: LineColumn {
                line: location.line,
                column: column + marker.name.chars().count(),
            },
            replacement: replacement.to_owned(),
        })
    }

    /// An edit that deletes the marker's line, when the line is nothing but
    /// the marker as a decorator (and a comment). Never for an opt-in: its
    /// location is a name inside a comment (`# pytest: unit`), and deleting
    /// the line would take the file out of the suite.
    pub(crate) fn delete_decorator_edit(&self, marker: &Marker) -> Option<Edit> {
        if marker.source == proctor_python::MarkerSource::OptIn {
            return None;
        }
        let location = marker.location.as_ref()?;
        if location.end_line != location.line {
            return None;
        }
        let line = self.sources.get(&location.file)?.line(location.line);
        let code =
            trailing_comment(line).map_or(line, |comment| &line[..line.len() - comment.len()]);
        let start = line
            .char_indices()
            .nth(location.column.saturating_sub(1))?
            .0;
        let end = line
            .char_indices()
            .nth(location.end_column.saturating_sub(1))
            .map_or(line.len(), |(i, _)| i);
        // A marker that starts inside the comment is no decorator.
        let before = code.get(..start)?;
        let decorator = before.trim_start() == "@"
            && code.get(end..).is_some_and(|rest| rest.trim().is_empty());
        decorator.then(|| Edit {
            file: location.file.clone(),
            start: LineColumn {
                line: location.line,
                column: 1,
            },
            end: LineColumn {
                line: location.line + 1,
                column: 1,
            },
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
            Some(marker) => format!(
                "`{name}` ({})",
                proctor_taxonomy::describe_provenance(&marker.provenance)
            ),
            None => format!("`{name}`"),
        }
    }

    /// The test function's name, without parameters.
    pub(crate) fn test_name(&self) -> &'a str {
        let last = self
            .item
            .nodeid
            .rsplit("::")
            .next()
            .unwrap_or(&self.item.nodeid);
        last.split('[').next().unwrap_or(last)
    }

    /// Where `marker` is written, else the test's definition.
    pub(crate) fn marker_span(&self, marker: &Marker) -> Span {
        match &marker.location {
            Some(l) => Span {
                file: l.file.clone(),
                start: LineColumn {
                    line: l.line,
                    column: l.column,
                },
                end: LineColumn {
                    line: l.end_line,
                    column: l.end_column,
                },
            },
            None => self.def_span(),
        }
    }

    /// Where `name` is written, else the test's definition.
    pub(crate) fn name_span(&self, name: &str) -> Span {
        self.written_as(name)
            .map_or_else(|| self.def_span(), |m| self.marker_span(m))
    }

    /// The test's definition: the text of its first line (its first
    /// decorator, or the `def`).
    pub(crate) fn def_span(&self) -> Span {
        let line = self.item.line.max(1);
        let (start, end) = self.sources.get(&self.item.file).map_or((1, 1), |source| {
            let text = source.line(line);
            let code =
                trailing_comment(text).map_or(text, |comment| &text[..text.len() - comment.len()]);
            let indent = code.chars().take_while(|c| c.is_whitespace()).count();
            (indent + 1, code.trim_end().chars().count().max(indent) + 1)
        });
        Span {
            file: self.item.file.clone(),
            start: LineColumn {
                line,
                column: start,
            },
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
    pub(crate) fn report(
        &mut self,
        span: Span,
        message: String,
        help: Option<String>,
    ) -> &mut Diagnostic {
        let mut diagnostic = Diagnostic::new(
            self.rule.code,
            self.rule.severity,
            message,
            span.file,
            span.start,
            span.end,
        );
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

/// The whole collection and the configuration, for rules about the suite
/// rather than one test (registration of markers, config files, layout).
pub(crate) struct SuiteContext<'a> {
    /// Every collected item.
    pub(crate) items: &'a [Item],
    /// The `conftest.py` files of the collection (absolute).
    pub(crate) conftests: &'a [PathBuf],
    /// The files of the example and notebook folders and their opt-ins.
    pub(crate) opt_in: &'a [proctor_python::OptInFile],
    /// The distinct items (see `distinct` in the crate root) with their
    /// effective markers.
    pub(crate) linted: &'a [crate::Linted<'a>],
    /// `known()`, computed once for the rules that ask (it reads conftests).
    pub(crate) known: std::sync::OnceLock<HashSet<String>>,
    /// `used()`, computed once (it walks every item's effective markers).
    pub(crate) used: std::sync::OnceLock<HashSet<&'a str>>,
    pub(crate) settings: &'a Settings,
    pub(crate) taxonomy: &'a Taxonomy,
    pub(crate) sources: &'a Sources,
}

/// The marks pytest registers itself.
pub(crate) const BUILTIN_MARKS: &[&str] = &[
    "skip",
    "skipif",
    "xfail",
    "parametrize",
    "usefixtures",
    "filterwarnings",
];

impl<'a> SuiteContext<'a> {
    /// Runs `f` with the [`ItemContext`] of every distinct item (the
    /// instances of a parametrized test that share its markers count
    /// once).
    pub(crate) fn for_each_item(&self, mut f: impl FnMut(&ItemContext<'_>)) {
        for (item, effective) in self.linted {
            f(&ItemContext::new(
                item,
                effective,
                self.taxonomy,
                self.sources,
            ));
        }
    }

    /// The files of opted-in examples and notebooks: tests, but not test
    /// modules, so the conventions about test files and test names do not
    /// apply to them.
    pub(crate) fn opt_in_files(&self) -> HashSet<&'a str> {
        self.opt_in
            .iter()
            .filter(|f| f.nodeid.is_some())
            .map(|f| f.file.as_str())
            .collect()
    }

    /// The names in pytest's `markers`, each with its raw line.
    pub(crate) fn registered(&self) -> Vec<(&'a str, &'a str)> {
        self.settings
            .pytest
            .markers
            .iter()
            .filter_map(|line| {
                let name = line.split([':', '(']).next().unwrap_or("").trim();
                (!name.is_empty()).then_some((name, line.as_str()))
            })
            .collect()
    }

    /// The markers the taxonomy declares: every axis marker and every
    /// `[markers.<name>]`.
    pub(crate) fn declared(&self) -> Vec<&'a str> {
        let options = &self.settings.proctor.taxonomy;
        let axes = options
            .axes
            .iter()
            .flat_map(|(_, axis)| axis.markers.iter().map(String::as_str));
        axes.chain(options.markers.iter().map(|(name, _)| name.as_str()))
            .collect()
    }

    /// Every marker pytest knows: pytest's builtin marks, the names in
    /// `markers`, those registered by `conftest.py` files with
    /// `config.addinivalue_line("markers", ...)` (and installed plugins
    /// that register them the same way), and those the taxonomy declares.
    pub(crate) fn known(&self) -> &HashSet<String> {
        self.known.get_or_init(|| {
            let mut known: HashSet<String> =
                BUILTIN_MARKS.iter().map(|&name| name.to_owned()).collect();
            known.extend(
                self.registered()
                    .into_iter()
                    .map(|(name, _)| name.to_owned()),
            );
            known.extend(self.declared().into_iter().map(str::to_owned));
            known.extend(self.conftest_registered());
            known
        })
    }

    /// The markers registered in the collection's `conftest.py` files.
    fn conftest_registered(&self) -> Vec<String> {
        let mut names = Vec::new();
        for conftest in self.conftests {
            if let Ok(text) = std::fs::read_to_string(conftest) {
                names.extend(addinivalue_markers(&text));
            }
        }
        names
    }

    /// Every marker name some item has, written or effective.
    pub(crate) fn used(&self) -> &HashSet<&'a str> {
        self.used.get_or_init(|| {
            let mut used = HashSet::default();
            for (item, effective) in self.linted {
                used.extend(item.markers.iter().map(|m| m.name.as_str()));
                used.extend(effective.names());
            }
            used
        })
    }

    /// `path` relative to the rootdir, with `/` separators (as the sources
    /// are keyed), or as given when it is outside.
    pub(crate) fn relative(&self, path: &Path) -> String {
        path.strip_prefix(&self.settings.pytest.rootdir)
            .unwrap_or(path)
            .to_string_lossy()
            .replace('\\', "/")
    }

    /// pytest's config file, relative.
    pub(crate) fn inifile(&self) -> Option<String> {
        self.settings
            .pytest
            .inifile
            .as_deref()
            .map(|p| self.relative(p))
    }

    /// The line `line` of `file` from its first non-blank character to its
    /// end (without a comment), or `1:1` when the file was not read.
    pub(crate) fn line_span(&self, file: &str, line: usize) -> Span {
        let (start, end) = self.sources.get(file).map_or((1, 1), |source| {
            let text = source.line(line);
            let code =
                trailing_comment(text).map_or(text, |comment| &text[..text.len() - comment.len()]);
            let indent = code.chars().take_while(|c| c.is_whitespace()).count();
            (indent + 1, code.trim_end().chars().count().max(indent) + 1)
        });
        Span {
            file: file.to_owned(),
            start: LineColumn {
                line: line.max(1),
                column: start,
            },
            end: LineColumn {
                line: line.max(1),
                column: end,
            },
        }
    }

    /// The first occurrence of `needle` in `file` at or after line `from`,
    /// as a span, when it is there.
    pub(crate) fn find(&self, file: &str, needle: &str, from: usize) -> Option<Span> {
        let source = self.sources.get(file)?;
        (from.max(1)..=source.line_count()).find_map(|line| {
            let text = source.line(line);
            let at = text.find(needle)?;
            let column = text[..at].chars().count() + 1;
            Some(Span {
                file: file.to_owned(),
                start: LineColumn { line, column },
                end: LineColumn {
                    line,
                    column: column + needle.chars().count(),
                },
            })
        })
    }

    /// A span at a located point of `file`, covering the rest of its line.
    pub(crate) fn at(&self, file: &str, line: usize, column: usize) -> Span {
        let mut span = self.line_span(file, line);
        span.start.column = column.max(1);
        span.end.column = span.end.column.max(span.start.column);
        span
    }
}

impl Span {
    /// The line the span starts on.
    pub(crate) fn line(&self) -> usize {
        self.start.line
    }
}

/// The names of the markers that `text` (a `conftest.py`) registers with
/// `config.addinivalue_line("markers", "name: description")`.
fn addinivalue_markers(text: &str) -> Vec<String> {
    let mut names = Vec::new();
    for (at, call) in text.match_indices("addinivalue_line(") {
        let rest = text[at + call.len()..].trim_start();
        let Some(rest) = rest
            .strip_prefix("\"markers\"")
            .or_else(|| rest.strip_prefix("'markers'"))
        else {
            continue;
        };
        let Some(rest) = rest.trim_start().strip_prefix(',') else {
            continue;
        };
        let rest = rest.trim_start();
        let Some(quote) = rest.chars().next().filter(|c| *c == '"' || *c == '\'') else {
            continue;
        };
        let line = &rest[1..];
        let end = line.find([quote, ':', '(', '\n']).unwrap_or(line.len());
        let name = line[..end].trim();
        if !name.is_empty() {
            names.push(name.to_owned());
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::addinivalue_markers;

    #[test]
    fn conftest_registrations_are_read() {
        let text = "def pytest_configure(config):\n    config.addinivalue_line(\"markers\", \"slow: takes long\")\n    config.addinivalue_line(\n        'markers', 'env(name): needs an environment'\n    )\n    config.addinivalue_line(\"filterwarnings\", \"error\")\n";
        assert_eq!(addinivalue_markers(text), ["slow", "env"]);
    }
}
