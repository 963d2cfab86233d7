//! Keeping only the fixes that are safe: a fix may change how markers are
//! written, never what the tests select.
//!
//! The rules propose fixes one marker at a time, but what a fix does to a
//! test depends on the test's other markers (deleting a written default is
//! harmless only when the default is then applied) and on the other fixes
//! applied with it (`--fix` applies them all). So the fixes are checked
//! here, per item and together: the item's markers are edited as the fixes
//! edit the file, the taxonomy is applied again, and the fixes are kept only
//! when every effective marker is as before. A renamed marker counts as the
//! marker it is renamed to (that is what the rename means: an alias's target,
//! a removed marker's `replaced-by`).

use std::collections::BTreeSet;
use std::sync::Arc;

use proctor_python::{Item, Marker};
use proctor_source::Edit;
use proctor_taxonomy::{Effective, Taxonomy};

/// A line and a column.
type Position = (usize, usize);

/// An item's effective markers as selection sees them: names with their
/// arguments, once each.
type MarkerSet = BTreeSet<(String, String)>;

/// Whether applying all of `edits` leaves the effective markers of `item`
/// (`effective` before the edits) unchanged.
pub(crate) fn edits_keep_effective(
    item: &Item,
    effective: &Effective,
    edits: &[&Edit],
    taxonomy: &Taxonomy,
) -> bool {
    let mut edited = item.clone();
    // The written markers a rename touches, with their new name.
    let mut renamed: Vec<(&Arc<Marker>, &str)> = Vec::new();
    // Renames first, in place; then the deleted lines.
    for edit in edits.iter().filter(|edit| !deletes_lines(edit)) {
        // The innermost marker around the edit: a `pytest.param`'s mark,
        // not the `parametrize` around it.
        let Some(innermost) = item
            .markers
            .iter()
            .filter_map(|marker| extent(marker, edit))
            .min()
        else {
            continue;
        };
        for (index, marker) in item.markers.iter().enumerate() {
            if extent(marker, edit) == Some(innermost) {
                renamed.push((marker, edit.replacement.as_str()));
                edited.markers[index] = Arc::new(Marker {
                    name: edit.replacement.clone(),
                    ..Marker::clone(marker)
                });
            }
        }
    }
    for edit in edits.iter().filter(|edit| deletes_lines(edit)) {
        edited.markers.retain(|marker| {
            !marker.location.as_ref().is_some_and(|l| {
                l.file == edit.file && (edit.start.line..edit.end.line).contains(&l.line)
            })
        });
    }
    let expected: MarkerSet = effective
        .markers
        .iter()
        .map(|marker| {
            let rename = marker
                .written
                .as_ref()
                .and_then(|w| renamed.iter().find(|(r, _)| Arc::ptr_eq(r, w)));
            let name = match rename {
                Some((_, to)) => resolve(taxonomy, to),
                None => marker.name.as_str(),
            };
            (name.to_owned(), arguments(marker.args(), marker.kwargs()))
        })
        .collect();
    // An edit that touched no marker of this item changes nothing here.
    if edited.markers.len() == item.markers.len() && renamed.is_empty() {
        return true;
    }
    marker_set(&taxonomy.effective(&edited)) == expected
}

/// The effective markers of `effective` as a set.
pub(crate) fn marker_set(effective: &Effective) -> MarkerSet {
    effective
        .markers
        .iter()
        .map(|marker| {
            (
                marker.name.clone(),
                arguments(marker.args(), marker.kwargs()),
            )
        })
        .collect()
}

/// A marker's arguments as one comparable string.
fn arguments(
    args: &[serde_json::Value],
    kwargs: Option<&serde_json::Map<String, serde_json::Value>>,
) -> String {
    let kwargs = kwargs.cloned().unwrap_or_default();
    serde_json::to_string(&(args, kwargs)).unwrap_or_default()
}

/// The marker a written `name` stands for: an alias's target, else itself.
fn resolve<'a>(taxonomy: &'a Taxonomy, name: &'a str) -> &'a str {
    taxonomy
        .rule(name)
        .and_then(|rule| rule.alias_of.as_deref())
        .unwrap_or(name)
}

/// Whether `edit` deletes whole lines (a decorator's).
fn deletes_lines(edit: &Edit) -> bool {
    edit.replacement.is_empty()
        && edit.start.column == 1
        && edit.end.column == 1
        && edit.end.line > edit.start.line
}

/// When `edit` replaces text inside `marker` as written (its name): the
/// marker's extent, from its end backwards to its start (the smallest is
/// the innermost).
fn extent(marker: &Marker, edit: &Edit) -> Option<(Position, std::cmp::Reverse<Position>)> {
    let l = marker.location.as_ref()?;
    let inside = l.file == edit.file
        && (l.line, l.column) <= (edit.start.line, edit.start.column)
        && (edit.start.line, edit.start.column) < (l.end_line, l.end_column);
    inside.then_some((
        (l.end_line, l.end_column),
        std::cmp::Reverse((l.line, l.column)),
    ))
}
