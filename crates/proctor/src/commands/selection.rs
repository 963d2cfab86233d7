//! Builds the selection a command applies: the default (`[select] default`,
//! else pytest's `addopts -m`), the chosen profile, then the command line's
//! `-m` / `-k`, all combined by `and`.

use anyhow::{bail, Result};
use proctor_taxonomy::{Origin, Selection, Taxonomy};

use crate::args::SelectionArgs;
use crate::commands::suite::Suite;

/// The default selection: `[select] default`, else the `-m` of pytest's
/// `addopts`, so that proctor selects what bare pytest would.
pub(crate) fn default_selection(suite: &Suite) -> Option<(&str, Origin)> {
    match (&suite.config.proctor.select.default, &suite.config.pytest.addopts_parsed.markexpr) {
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
        let taxonomy = Taxonomy::new(&suite.config.proctor.taxonomy)?;
        let mut selection = Selection::default();
        if !args.no_default_select {
            if let Some((default, origin)) = default_selection(suite) {
                selection.add_markers(default, origin)?;
            }
        }
        if let Some(name) = &args.profile {
            let profiles = &suite.config.proctor.profiles;
            let Some((_, profile)) = profiles.iter().find(|(n, _)| n == name) else {
                let known: Vec<&str> = profiles.iter().map(|(n, _)| n.as_str()).collect();
                if known.is_empty() {
                    bail!("unknown profile `{name}`: no [profiles] are configured");
                }
                bail!("unknown profile `{name}` (configured: {})", known.join(", "));
            };
            let origin = Origin::Profile { name: name.clone() };
            if let Some(markers) = &profile.markers {
                selection.add_markers(markers, origin.clone())?;
            }
            if let Some(keywords) = &profile.keywords {
                selection.add_keywords(keywords, origin)?;
            }
        }
        if let Some(markers) = &args.markers {
            selection.add_markers(markers, Origin::CommandLine)?;
        }
        if let Some(keywords) = &args.keywords {
            selection.add_keywords(keywords, Origin::CommandLine)?;
        }
        Ok(Selecting { taxonomy, selection })
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
