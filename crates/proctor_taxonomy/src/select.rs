//! Selection: which items a `-m` / `-k` request picks, evaluated over the
//! effective markers. Defaults compose with explicit expressions by AND —
//! the default selection (`[select] default`, else pytest's `addopts -m`),
//! a profile's, and the command line's are all applied, never replacing
//! each other (the pitfall of the `MASEval` seed, where `-m` silently dropped
//! `addopts`). The default makes way for the explicit expressions on the
//! markers they name: for each such marker `m` it is relaxed to
//! `D[m:=True] or D[m:=False]`, so that `-m slow` under a default of
//! `not slow` selects the slow tests instead of nothing.

use proctor_expr::{
    keyword_names, parse_keyword_option, parse_mark_option, Expression, KeywordMatcher,
    MarkMatcher, Relaxed, MAX_RELAXED_NODES,
};
use proctor_python::{Item, MarkerSource};
use serde::Serialize;

use crate::effective::{Effective, Provenance};

/// Where one part of a selection comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Origin {
    /// `[select] default` in proctor's config.
    ConfigDefault,
    /// `-m` in pytest's `addopts` (used when `[select] default` is absent).
    Addopts,
    /// A profile chosen with `--profile`.
    Profile {
        /// The profile's name.
        name: String,
    },
    /// `-m` / `-k` on the command line.
    CommandLine,
    /// A CI job's `markers` / `keywords` (`[jobs.<name>]`).
    Job {
        /// The job's name.
        name: String,
    },
}

/// One expression of a selection.
#[derive(Debug, Clone)]
pub struct Part {
    /// The expression that applies: as written, or, for a default relaxed
    /// on the markers the explicit expressions name, the relaxed one.
    pub text: String,
    /// The expression as written.
    pub written: String,
    /// Where it comes from.
    pub origin: Origin,
    expression: Expression,
}

impl Origin {
    /// Whether this is the default selection (`[select] default` or
    /// `addopts -m`), which makes way for the explicit expressions.
    #[must_use]
    pub fn is_default(&self) -> bool {
        matches!(self, Origin::ConfigDefault | Origin::Addopts)
    }
}

/// Why an expression could not be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid -{option} expression {text:?} ({origin}): {message}")]
pub struct SelectionError {
    /// `m` or `k`.
    pub option: char,
    /// The expression.
    pub text: String,
    /// Where it comes from, in words.
    pub origin: String,
    /// pytest's message for it.
    pub message: String,
}

/// The `-m` and `-k` parts that apply, all combined by `and`.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// `-m` parts that apply: the defaults relaxed on the markers the
    /// explicit ones name (a default relaxed to "every item" is left out),
    /// then the explicit ones.
    pub markers: Vec<Part>,
    /// `-k` parts.
    pub keywords: Vec<Part>,
    /// The `-m` parts as added, defaults unrelaxed.
    added: Vec<Part>,
}

/// What a selection does with one item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Decision {
    /// Picked.
    Selected,
    /// Left out by a `-k` expression (pytest applies `-k` first).
    DeselectedByKeyword,
    /// Left out by a `-m` expression.
    DeselectedByMarker,
}

impl Selection {
    /// Adds a `-m` expression (pytest's reading: an empty value selects
    /// everything and adds nothing).
    pub fn add_markers(&mut self, text: &str, origin: Origin) -> Result<(), SelectionError> {
        match parse_mark_option(text) {
            Ok(Some(expression)) => {
                self.added.push(Part {
                    text: text.to_string(),
                    written: text.to_string(),
                    origin,
                    expression,
                });
                self.relax()
            }
            Ok(None) => Ok(()),
            Err(error) => Err(SelectionError {
                option: 'm',
                text: text.to_string(),
                origin: describe(&origin),
                message: error.to_string(),
            }),
        }
    }

    /// Adds a `-k` expression.
    pub fn add_keywords(&mut self, text: &str, origin: Origin) -> Result<(), SelectionError> {
        match parse_keyword_option(text) {
            Ok(Some(expression)) => {
                self.keywords.push(Part {
                    text: text.to_string(),
                    written: text.to_string(),
                    origin,
                    expression,
                });
                Ok(())
            }
            Ok(None) => Ok(()),
            Err(error) => Err(SelectionError {
                option: 'k',
                text: text.to_string(),
                origin: describe(&origin),
                message: error.to_string(),
            }),
        }
    }

    /// Recomputes [`Selection::markers`]: each default relaxed on the
    /// markers every explicit `-m` names; a default that would grow too
    /// large is an error that names `--no-default-select`.
    fn relax(&mut self) -> Result<(), SelectionError> {
        let named: Vec<String> = self
            .added
            .iter()
            .filter(|part| !part.origin.is_default())
            .flat_map(|part| part.expression.identifiers())
            .map(str::to_owned)
            .collect();
        let named: Vec<&str> = named.iter().map(String::as_str).collect();
        let (defaults, explicit): (Vec<&Part>, Vec<&Part>) =
            self.added.iter().partition(|part| part.origin.is_default());
        let mut markers = Vec::new();
        for part in defaults {
            match part.expression.relaxed(&named) {
                Relaxed::Always => {}
                // Never true whatever the named markers are: the default as
                // written is false on every item too, and says why better.
                Relaxed::Never => markers.push(part.clone()),
                Relaxed::TooLarge => {
                    return Err(SelectionError {
                        option: 'm',
                        text: part.written.clone(),
                        origin: describe(&part.origin),
                        message: format!(
                            "freeing the {} markers the explicit expressions name makes it larger than {MAX_RELAXED_NODES} terms; pass --no-default-select",
                            named.len()
                        ),
                    });
                }
                Relaxed::Expression(expression) => {
                    let text = if expression == part.expression {
                        part.text.clone()
                    } else {
                        expression.to_string()
                    };
                    markers.push(Part {
                        text,
                        written: part.written.clone(),
                        origin: part.origin.clone(),
                        expression,
                    });
                }
            }
        }
        markers.extend(explicit.into_iter().cloned());
        self.markers = markers;
        Ok(())
    }

    /// The selection without its default parts: what the explicit
    /// expressions alone pick (`--no-default-select`).
    #[must_use]
    pub fn without_defaults(&self) -> Selection {
        let mut out = Selection {
            keywords: self.keywords.clone(),
            ..Selection::default()
        };
        out.added = self
            .added
            .iter()
            .filter(|part| !part.origin.is_default())
            .cloned()
            .collect();
        // Without defaults nothing is relaxed, nothing can fail.
        let _ = out.relax();
        out
    }

    /// Whether a default part applies (possibly relaxed).
    #[must_use]
    pub fn has_default(&self) -> bool {
        self.markers.iter().any(|part| part.origin.is_default())
    }

    /// The default parts that apply, possibly relaxed.
    pub fn defaults(&self) -> impl Iterator<Item = &Part> {
        self.markers.iter().filter(|part| part.origin.is_default())
    }

    /// The effective `-m` expression, as one string (`None` when there is
    /// no `-m` part).
    #[must_use]
    pub fn markers_text(&self) -> Option<String> {
        conjunction(&self.markers)
    }

    /// The effective `-k` expression, as one string.
    #[must_use]
    pub fn keywords_text(&self) -> Option<String> {
        conjunction(&self.keywords)
    }

    /// Whether the selection has no expression at all.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.markers.is_empty() && self.keywords.is_empty()
    }

    /// Decides one item. `-k` runs first, as in pytest; a `-k` identifier
    /// called with arguments is an error there and here.
    pub fn decide(
        &self,
        item: &Item,
        effective: &Effective,
    ) -> Result<Decision, proctor_expr::KeywordCallError> {
        self.decide_by(item, effective)
            .map(|(decision, _)| decision)
    }

    /// Like [`Selection::decide`], with the expression that left the item
    /// out, when one did.
    pub fn decide_by(
        &self,
        item: &Item,
        effective: &Effective,
    ) -> Result<(Decision, Option<&Part>), proctor_expr::KeywordCallError> {
        if !self.keywords.is_empty() {
            let names: Vec<&str> = effective.markers.iter().map(|m| m.name.as_str()).collect();
            // Function attributes: pytest ignores `pytestmark` (what mark
            // decorators leave) and private names; others are not known
            // statically and rarely matter.
            let matcher = KeywordMatcher::new(keyword_names(&item.nodeid, &names, &[], &[]));
            for part in &self.keywords {
                if !part.expression.try_evaluate(
                    |name: &str, kwargs: Option<&proctor_expr::Kwargs>| {
                        matcher.matches(name, kwargs)
                    },
                )? {
                    return Ok((Decision::DeselectedByKeyword, Some(part)));
                }
            }
        }
        if !self.markers.is_empty() {
            let matcher = MarkMatcher::new(
                effective
                    .markers
                    .iter()
                    .map(|m| (m.name.clone(), m.kwargs().cloned().unwrap_or_default())),
            );
            for part in &self.markers {
                if !part
                    .expression
                    .evaluate(&mut |name, kwargs| matcher.matches(name, kwargs))
                {
                    return Ok((Decision::DeselectedByMarker, Some(part)));
                }
            }
        }
        Ok((Decision::Selected, None))
    }
}

impl Part {
    /// Where the expression comes from, in words, such as ``job `unit` ``.
    #[must_use]
    pub fn origin_text(&self) -> String {
        describe(&self.origin)
    }
}

fn conjunction(parts: &[Part]) -> Option<String> {
    match parts {
        [] => None,
        [one] => Some(one.text.trim().to_string()),
        many => Some(
            many.iter()
                .map(|p| format!("({})", p.text.trim()))
                .collect::<Vec<_>>()
                .join(" and "),
        ),
    }
}

fn describe(origin: &Origin) -> String {
    match origin {
        Origin::ConfigDefault => "[select] default".to_string(),
        Origin::Addopts => "pytest addopts".to_string(),
        Origin::Profile { name } => format!("profile `{name}`"),
        Origin::CommandLine => "command line".to_string(),
        Origin::Job { name } => format!("job `{name}`"),
    }
}

/// A written marker's provenance, for messages (`written on the class`).
#[must_use]
pub fn describe_provenance(provenance: &Provenance) -> String {
    let place = |source: &MarkerSource| match source {
        MarkerSource::Function => "the function",
        MarkerSource::Class => "the class",
        MarkerSource::Module => "the module (pytestmark)",
        MarkerSource::Param => "a parameter set",
        MarkerSource::OptIn => "the file's opt-in (`# pytest:` comment or notebook metadata)",
    };
    match provenance {
        Provenance::Written { source } => format!("written on {}", place(source)),
        Provenance::PathRule { glob } => format!("path rule `{glob}`"),
        Provenance::Alias { written, source } => {
            format!("`{written}` (an alias) written on {}", place(source))
        }
        Provenance::Implied { by } => format!("implied by `{by}`"),
        Provenance::AxisDefault { axis } => format!("default of axis `{axis}`"),
        Provenance::Decorator { path } => format!("decorator `{path}`"),
    }
}
