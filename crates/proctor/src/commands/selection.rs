//! Builds the selection a command applies: the default (`[select] default`,
//! else pytest's `addopts -m`), the chosen profile, then the command line's
//! `-m` / `-k`, all combined by `and`; the default relaxed on the markers
//! the others name (see `proctor_taxonomy::Selection`).

use anyhow::Result;
use proctor_python::Item;
use proctor_taxonomy::{Decision, Effective, Origin, Selection, Taxonomy};

use crate::args::SelectionArgs;
use crate::commands::suite::Suite;
use crate::settings::SelectionSettings;

/// The default selection: `[select] default`, else the `-m` of pytest's
/// `addopts`, so that proctor selects what bare pytest would.
pub(crate) fn default_selection(suite: &Suite) -> Option<(&str, Origin)> {
    match (
        &suite.config.proctor.select.default,
        &suite.config.pytest.addopts_parsed.markexpr,
    ) {
        (Some(default), _) => Some((default.as_str(), Origin::ConfigDefault)),
        (None, Some(markexpr)) => Some((markexpr.as_str(), Origin::Addopts)),
        (None, None) => None,
    }
}

/// The taxonomy and the selection of a command.
pub(crate) struct Selecting {
    pub(crate) taxonomy: Taxonomy,
    pub(crate) selection: Selection,
}

impl Selecting {
    pub(crate) fn new(suite: &Suite, args: &SelectionArgs) -> Result<Selecting> {
        Self::with_pytest_args(suite, args, &[])
    }

    /// The selection of `proctor run`: a `-m` after `--`, which pytest
    /// applies itself, counts as one on the command line, so that the
    /// default makes way for it too.
    pub(crate) fn with_pytest_args(
        suite: &Suite,
        args: &SelectionArgs,
        pytest_args: &[String],
    ) -> Result<Selecting> {
        let settings = SelectionSettings::resolve(args, &suite.config.proctor)?;
        Self::resolved(suite, &settings, pytest_args)
    }

    /// The selection `settings` ask for (with `pytest_args` as for
    /// [`Selecting::with_pytest_args`]).
    pub(crate) fn resolved(
        suite: &Suite,
        settings: &SelectionSettings,
        pytest_args: &[String],
    ) -> Result<Selecting> {
        // An error here is pytest's to report, when it reads them.
        let after_dashes = proctor_config::parse_pytest_args(pytest_args)
            .ok()
            .and_then(|parsed| parsed.markexpr);
        let taxonomy = Taxonomy::new(&suite.config.proctor.taxonomy)?;
        let mut selection = Selection::default();
        if let Some((name, profile)) = &settings.profile {
            let origin = Origin::Profile { name: name.clone() };
            if let Some(markers) = &profile.markers {
                selection.add_markers(markers, origin.clone())?;
            }
            if let Some(keywords) = &profile.keywords {
                selection.add_keywords(keywords, origin)?;
            }
        }
        if settings.use_default {
            if let Some((default, origin)) = default_selection(suite) {
                selection.add_markers(default, origin)?;
            }
        }
        for markers in settings.markers.iter().chain(&after_dashes) {
            selection.add_markers(markers, Origin::CommandLine)?;
        }
        if let Some(keywords) = &settings.keywords {
            selection.add_keywords(keywords, Origin::CommandLine)?;
        }
        Ok(Selecting {
            taxonomy,
            selection,
        })
    }

    /// The effective expressions, for the `selecting:` line.
    pub(crate) fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(markers) = self.selection.markers_text() {
            parts.push(format!("-m {markers:?}"));
        }
        if let Some(keywords) = self.selection.keywords_text() {
            parts.push(format!("-k {keywords:?}"));
        }
        if parts.is_empty() {
            "every item (no -m or -k)".to_string()
        } else {
            parts.join(" ")
        }
    }
}

/// When a selection picks nothing that it would pick without its default,
/// a hint that says so, with the way to drop the default (`job`: the job
/// the selection is, whose `use-default` decides).
pub(crate) fn empty_default_hint(
    selection: &Selection,
    items: &[Item],
    effectives: &[Effective],
    job: Option<&str>,
) -> Option<String> {
    let explicit = selection.without_defaults();
    if !selection.has_default() || explicit.is_empty() {
        return None;
    }
    let picks = |selection: &Selection| {
        items
            .iter()
            .zip(effectives)
            .filter(|(item, effective)| {
                matches!(selection.decide(item, effective), Ok(Decision::Selected))
            })
            .count()
    };
    if picks(selection) > 0 {
        return None;
    }
    let alone = picks(&explicit);
    if alone == 0 {
        return None;
    }
    let defaults: Vec<String> = selection
        .defaults()
        .map(|part| format!("-m {:?} ({})", part.text.trim(), part.origin_text()))
        .collect();
    let drop = match job {
        Some(name) => format!("`use-default = false` in [jobs.{name}]"),
        None => "--no-default-select".to_owned(),
    };
    let tests = if alone == 1 { "the 1 test" } else { "all" };
    let count = if alone == 1 {
        String::new()
    } else {
        format!(" {alone} tests")
    };
    Some(format!(
        "hint: the default selection {} leaves out {tests}{count} that {} alone selects; {drop} drops the default",
        defaults.join(" and "),
        describe_selection(&explicit)
    ))
}

/// A selection's expressions as `-m "..." -k "..."`.
pub(crate) fn describe_selection(selection: &Selection) -> String {
    let mut parts = Vec::new();
    if let Some(markers) = selection.markers_text() {
        parts.push(format!("-m {markers:?}"));
    }
    if let Some(keywords) = selection.keywords_text() {
        parts.push(format!("-k {keywords:?}"));
    }
    parts.join(" ")
}
