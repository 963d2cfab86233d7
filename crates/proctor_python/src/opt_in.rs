//! Files that are tests only when they opt in (the Mellea document's
//! "Examples as tests" and "Notebooks"): an example script under a
//! configured folder with a `# pytest: e2e, ollama` comment near the top,
//! and a notebook under a configured folder, whose top-level metadata
//! block (`{"<key>": {"markers": [...], "packages": [...]}}`) gives its
//! markers and the packages it needs.
//!
//! Each becomes one item named after its file, as the Mellea conftest and
//! nbmake name theirs: `docs/examples/hello.py::hello.py`,
//! `docs/notebooks/intro.ipynb::intro.ipynb`.
//! Its markers are written in the comment or the metadata
//! ([`MarkerSource::OptIn`]), so taxonomy, gates and jobs treat it as any
//! test; a notebook's packages are recorded as `pytest.importorskip`
//! calls, so the plan skips it when one is missing. A notebook without a
//! usable block is still an item, skipped with the reason, never dropped.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;
use serde_json::Value as Json;

use crate::collector::{ItemFacts, RawItem};
use crate::model::{Decorator, Location, Marker, MarkerSource};
use crate::settings::CollectSettings;

/// The package every notebook needs to run: proctor's bridge executes
/// notebooks with nbclient.
pub const NOTEBOOK_RUNNER_PACKAGE: &str = "nbclient";

/// Which files opt in, and how (resolved from `[examples]` and
/// `[notebooks]`).
#[derive(Debug, Clone, Default)]
pub struct OptInSettings {
    /// Folders (absolute) whose `.py` files are examples.
    pub example_dirs: Vec<PathBuf>,
    /// The comment an example opts in with (`# pytest:`).
    pub comment: String,
    /// Folders (absolute) whose `.ipynb` files are notebooks.
    pub notebook_dirs: Vec<PathBuf>,
    /// The notebook metadata key of the opt-in block.
    pub metadata_key: String,
    /// Without explicit paths, start from these folders as well as from
    /// pytest's (`testpaths`): the whole suite, as `check` and `plan` see
    /// it, where pytest's own walk may not reach them.
    pub whole_suite: bool,
}

impl OptInSettings {
    /// The settings of folders given relative to `rootdir`.
    #[must_use]
    pub fn under(
        rootdir: &Path,
        example_dirs: &[String],
        comment: &str,
        notebook_dirs: &[String],
        metadata_key: &str,
    ) -> OptInSettings {
        let resolve = |dirs: &[String]| {
            dirs.iter()
                .map(|d| crate::discover::normalize(&rootdir.join(d)))
                .collect()
        };
        OptInSettings {
            example_dirs: resolve(example_dirs),
            comment: comment.to_owned(),
            notebook_dirs: resolve(notebook_dirs),
            metadata_key: metadata_key.to_owned(),
            whole_suite: false,
        }
    }

    /// What `path` is, when it lies in a configured folder: an example
    /// candidate (any `.py` but `conftest.py` and `__init__.py`) or a
    /// notebook.
    pub(crate) fn kind_of(&self, path: &Path) -> Option<OptInKind> {
        // Most suites configure neither: every file of the walk asks.
        if self.example_dirs.is_empty() && self.notebook_dirs.is_empty() {
            return None;
        }
        let extension = path.extension()?;
        if extension == "ipynb" && self.notebook_dirs.iter().any(|d| path.starts_with(d)) {
            return Some(OptInKind::Notebook);
        }
        let name = path.file_name()?;
        if extension == "py"
            && name != "conftest.py"
            && name != "__init__.py"
            && self.example_dirs.iter().any(|d| path.starts_with(d))
        {
            return Some(OptInKind::Example);
        }
        None
    }
}

/// An example script or a notebook.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum OptInKind {
    /// A script run as a subprocess.
    Example,
    /// A notebook executed cell by cell.
    Notebook,
}

/// One file in a configured example or notebook folder, and what its
/// opt-in says.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OptInFile {
    /// The file, relative to the rootdir.
    pub file: String,
    /// Example or notebook.
    pub kind: OptInKind,
    /// The item's node id; `None` for an example without the comment,
    /// which is not a test.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nodeid: Option<String>,
    /// The marker names it opts in with, in written order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub markers: Vec<String>,
    /// Where each of `markers` is written (same order).
    #[serde(skip)]
    pub locations: Vec<Location>,
    /// Packages a notebook needs (`packages`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub packages: Vec<String>,
    /// Why the item is skipped whatever the machine (a notebook without a
    /// usable block).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skip: Option<String>,
    /// What is wrong with the opt-in, for `proctor check`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<OptInProblem>,
}

impl OptInFile {
    /// An example without the opt-in comment: not a test.
    pub(crate) fn unopted(file: String) -> OptInFile {
        OptInFile {
            file,
            kind: OptInKind::Example,
            nodeid: None,
            markers: Vec::new(),
            locations: Vec::new(),
            packages: Vec::new(),
            skip: None,
            problems: Vec::new(),
        }
    }
}

/// A mistake in an opt-in comment or block.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OptInProblem {
    /// What it is about: `expression` (and/or/not or another non-name in
    /// the comment), `missing` (a notebook without the block) or
    /// `malformed` (a block or notebook that cannot be read).
    pub kind: &'static str,
    /// Where.
    pub location: Location,
    /// What is wrong and what to write instead.
    pub message: String,
}

/// Reads an example candidate: the opt-in comment, when the file has one.
/// `None` when the file does not opt in (or cannot be read: pytest will
/// then report it, or ignore it, as any other file).
pub(crate) fn read_example(settings: &CollectSettings, path: &Path) -> Option<OptInFile> {
    let bytes = crate::source::read_bytes(path, settings.max_file_size).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    let rel = settings.relative(path);
    let (line_no, line) = comment_line(&text, &settings.opt_in.comment)?;
    let mut out = OptInFile {
        file: rel.clone(),
        kind: OptInKind::Example,
        nodeid: None,
        markers: Vec::new(),
        locations: Vec::new(),
        packages: Vec::new(),
        skip: None,
        problems: Vec::new(),
    };
    let indent = line.len() - line.trim_start().len();
    let mut at = indent + settings.opt_in.comment.len();
    for part in line[at..].split(',') {
        let name = part.trim();
        let start = at + (part.len() - part.trim_start().len());
        at += part.len() + 1;
        if name.is_empty() {
            continue;
        }
        let column = line[..start].chars().count() + 1;
        let location = Location {
            file: rel.clone(),
            line: line_no,
            column,
            end_line: line_no,
            end_column: column + name.chars().count(),
        };
        if is_marker_name(name) {
            out.markers.push(name.to_owned());
            out.locations.push(location);
        } else {
            let words: Vec<&str> = name
                .split_whitespace()
                .filter(|w| !matches!(*w, "and" | "or" | "not" | "(" | ")"))
                .collect();
            let message = if name
                .split_whitespace()
                .any(|w| matches!(w, "and" | "or" | "not"))
            {
                format!("`{name}` is an expression; `{}` takes comma-separated marker names: write `{}`", settings.opt_in.comment, words.join(", "))
            } else {
                format!(
                    "`{name}` is not a marker name; `{}` takes comma-separated marker names",
                    settings.opt_in.comment
                )
            };
            out.problems.push(OptInProblem {
                kind: "expression",
                location,
                message,
            });
        }
    }
    let name = path
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    out.nodeid = Some(format!("{rel}::{name}"));
    Some(out)
}

/// The opt-in comment line (1-based number, text) among the first lines:
/// the scan stops at the first line that is neither blank, a comment, nor
/// the start of a docstring, as the Mellea conftest's parser does.
fn comment_line<'t>(text: &'t str, comment: &str) -> Option<(usize, &'t str)> {
    for (index, line) in text.lines().enumerate() {
        let stripped = line.trim();
        if stripped.starts_with(comment) {
            return Some((index + 1, line));
        }
        if !stripped.is_empty() && !stripped.starts_with('#') && !stripped.starts_with("\"\"\"") {
            return None;
        }
    }
    None
}

fn is_marker_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_')
}

/// Reads a notebook's opt-in block. Always an item: without a usable
/// block it is skipped with the reason.
pub(crate) fn read_notebook(settings: &CollectSettings, path: &Path) -> OptInFile {
    let rel = settings.relative(path);
    let key = settings.opt_in.metadata_key.as_str();
    let mut out = OptInFile {
        file: rel.clone(),
        kind: OptInKind::Notebook,
        nodeid: Some(format!(
            "{rel}::{}",
            path.file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
        )),
        markers: Vec::new(),
        locations: Vec::new(),
        packages: Vec::new(),
        skip: None,
        problems: Vec::new(),
    };
    let at_start = Location {
        file: rel.clone(),
        line: 1,
        column: 1,
        end_line: 1,
        end_column: 2,
    };
    let text = match crate::source::read_bytes(path, settings.max_file_size) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(err) => {
            out.skip = Some(format!("notebook cannot be read: {err}"));
            out.problems.push(OptInProblem {
                kind: "malformed",
                location: at_start,
                message: err.clone(),
            });
            return out;
        }
    };
    let notebook: Json = match serde_json::from_str(&text) {
        Ok(value) => value,
        Err(err) => {
            let location = Location {
                file: rel.clone(),
                line: err.line().max(1),
                column: err.column().max(1),
                end_line: err.line().max(1),
                end_column: err.column().max(1) + 1,
            };
            out.skip = Some(format!(
                "notebook is not valid JSON ({}:{}:{}): {err}",
                rel, location.line, location.column
            ));
            out.problems.push(OptInProblem {
                kind: "malformed",
                location,
                message: format!("the notebook is not valid JSON: {err}"),
            });
            return out;
        }
    };
    // One line index for every location (a notebook with outputs can be
    // megabytes long).
    let index = proctor_source::LineIndex::new(&text);
    let locate = |needle: &str, from: usize| -> (Location, usize) {
        match text[from.min(text.len())..].find(needle) {
            Some(found) => {
                let offset = from + found;
                (
                    location_at(&index, &text, &rel, offset, needle.chars().count()),
                    offset,
                )
            }
            None => (at_start.clone(), from),
        }
    };
    let Some(block) = notebook.get("metadata").and_then(|m| m.get(key)) else {
        let (location, _) = locate("\"metadata\"", 0);
        let reason = format!("notebook has no `{key}` metadata block: add {{\"{key}\": {{\"markers\": [...]}}}} to its metadata to run it");
        out.problems.push(OptInProblem {
            kind: "missing",
            location,
            message: format!("the notebook's metadata has no `{key}` block, so it never runs"),
        });
        out.skip = Some(reason);
        return out;
    };
    let (block_location, block_at) = locate(
        &format!("\"{key}\""),
        text.find("\"metadata\"").unwrap_or(0),
    );
    if let Some(Json::Array(values)) = block.get("markers") {
        let mut from = block_at;
        for value in values {
            match value.as_str().filter(|name| is_marker_name(name)) {
                Some(name) => {
                    let (mut location, offset) = locate(&format!("\"{name}\""), from);
                    from = offset + 1;
                    // The name, without its quotes.
                    location.column += 1;
                    location.end_column -= 1;
                    out.markers.push(name.to_owned());
                    out.locations.push(location);
                }
                None => out.problems.push(OptInProblem {
                    kind: "malformed",
                    location: block_location.clone(),
                    message: format!("`markers` holds {value}, which is not a marker name"),
                }),
            }
        }
    } else {
        out.problems.push(OptInProblem {
            kind: "missing",
            location: block_location.clone(),
            message: format!("the `{key}` block has no `markers` list; it is required (an empty list is allowed)"),
        });
        out.skip = Some(format!(
            "notebook's `{key}` metadata block has no `markers` list"
        ));
    }
    match block.get("packages") {
        None => {}
        Some(Json::Array(values)) => {
            for value in values {
                match value.as_str().filter(|p| !p.trim().is_empty()) {
                    Some(package) => out.packages.push(package.to_owned()),
                    None => out.problems.push(OptInProblem {
                        kind: "malformed",
                        location: block_location.clone(),
                        message: format!("`packages` holds {value}, which is not a package name"),
                    }),
                }
            }
        }
        Some(other) => out.problems.push(OptInProblem {
            kind: "malformed",
            location: block_location.clone(),
            message: format!("`packages` must be a list of names, not {other}"),
        }),
    }
    out
}

/// The location of `len` characters at byte `offset` of `text`, whose
/// line index is `index`.
fn location_at(
    index: &proctor_source::LineIndex,
    text: &str,
    file: &str,
    offset: usize,
    len: usize,
) -> Location {
    let at = index.line_column(text, u32::try_from(offset).unwrap_or(u32::MAX));
    Location {
        file: file.to_owned(),
        line: at.line,
        column: at.column,
        end_line: at.line,
        end_column: at.column + len,
    }
}

/// The item of an opted-in file, with its markers written where the
/// opt-in names them.
pub(crate) fn item(file: &OptInFile) -> Option<RawItem> {
    let nodeid = file.nodeid.clone()?;
    let mut markers: Vec<Arc<Marker>> = file
        .markers
        .iter()
        .enumerate()
        .map(|(i, name)| {
            Arc::new(Marker {
                name: name.clone(),
                args: Vec::new(),
                kwargs: serde_json::Map::new(),
                source: MarkerSource::OptIn,
                location: file.locations.get(i).cloned(),
            })
        })
        .collect();
    if let Some(reason) = &file.skip {
        let mut kwargs = serde_json::Map::new();
        kwargs.insert("reason".to_owned(), Json::String(reason.clone()));
        markers.push(Arc::new(Marker {
            name: "skip".to_owned(),
            args: Vec::new(),
            kwargs,
            source: MarkerSource::OptIn,
            location: None,
        }));
    }
    let mut decorators = Vec::new();
    if file.kind == OptInKind::Notebook && file.skip.is_none() {
        for package in
            std::iter::once(NOTEBOOK_RUNNER_PACKAGE).chain(file.packages.iter().map(String::as_str))
        {
            decorators.push(Arc::new(Decorator {
                path: "pytest.importorskip".to_owned(),
                args: vec![Json::String(package.to_owned())],
                kwargs: serde_json::Map::new(),
                source: MarkerSource::OptIn,
            }));
        }
    }
    Some(RawItem {
        markers,
        facts: ItemFacts {
            decorators,
            ..ItemFacts::default()
        }
        .shared(),
        ..RawItem::of_file(nodeid, file.file.as_str().into())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(root: &Path) -> CollectSettings {
        let mut settings = CollectSettings::new(root.to_path_buf());
        settings.opt_in =
            OptInSettings::under(root, &["ex".into()], "# pytest:", &["nb".into()], "mellea");
        settings
    }

    fn example(text: &str) -> Option<OptInFile> {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("ex")).unwrap();
        let path = dir.path().join("ex/hello.py");
        std::fs::write(&path, text).unwrap();
        read_example(&settings(dir.path()), &path)
    }

    #[test]
    fn the_comment_is_found_before_the_first_line_of_code_only() {
        let found = example(
            "#!/usr/bin/env python\n\n# pytest: e2e, ollama,qualitative\n\"\"\"Doc.\"\"\"\n",
        )
        .unwrap();
        assert_eq!(found.markers, ["e2e", "ollama", "qualitative"]);
        assert_eq!(found.nodeid.as_deref(), Some("ex/hello.py::hello.py"));
        let columns: Vec<(usize, usize, usize)> = found
            .locations
            .iter()
            .map(|l| (l.line, l.column, l.end_column))
            .collect();
        assert_eq!(columns, [(3, 11, 14), (3, 16, 22), (3, 23, 34)]);
        assert!(
            example("import os\n# pytest: e2e\n").is_none(),
            "after code the comment does not count"
        );
        assert!(example("\"\"\"Doc.\"\"\"\nprint(1)\n").is_none());
    }

    #[test]
    fn an_expression_is_a_problem_and_gives_no_marker() {
        let found = example("# pytest: e2e and ollama, slow\n").unwrap();
        assert_eq!(found.markers, ["slow"]);
        assert_eq!(found.problems.len(), 1);
        assert_eq!(found.problems[0].kind, "expression");
        assert!(
            found.problems[0].message.contains("write `e2e, ollama`"),
            "{}",
            found.problems[0].message
        );
    }

    fn notebook(text: &str) -> OptInFile {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("nb")).unwrap();
        let path = dir.path().join("nb/intro.ipynb");
        std::fs::write(&path, text).unwrap();
        read_notebook(&settings(dir.path()), &path)
    }

    #[test]
    fn a_notebook_block_gives_markers_packages_and_locations() {
        let found = notebook("{\"cells\": [],\n \"metadata\": {\"mellea\": {\"markers\": [\"e2e\", \"slow\"], \"packages\": [\"docling\"]}}}\n");
        assert_eq!(
            (
                found.markers.as_slice(),
                found.packages.as_slice(),
                found.skip.as_deref()
            ),
            (
                &["e2e".to_owned(), "slow".to_owned()][..],
                &["docling".to_owned()][..],
                None
            )
        );
        assert_eq!(
            (found.locations[1].line, found.locations[1].column),
            (2, 46)
        );
        let item = item(&found).unwrap();
        let needs: Vec<&str> = item
            .decorators()
            .iter()
            .filter_map(|d| d.args[0].as_str())
            .collect();
        assert_eq!(needs, [NOTEBOOK_RUNNER_PACKAGE, "docling"]);
    }

    #[test]
    fn a_notebook_without_a_usable_block_is_skipped_with_the_reason() {
        let missing = notebook("{\"cells\": [], \"metadata\": {}}");
        assert!(missing
            .skip
            .as_deref()
            .is_some_and(|r| r.starts_with("notebook has no `mellea` metadata block")));
        let broken = notebook("{\"cells\": [,]}");
        assert!(
            broken
                .skip
                .as_deref()
                .is_some_and(|r| r.starts_with("notebook is not valid JSON (nb/intro.ipynb:1:")),
            "{:?}",
            broken.skip
        );
        assert_eq!(broken.problems[0].kind, "malformed");
        let skip = item(&broken).unwrap();
        assert!(skip.markers.iter().any(|m| m.name == "skip") && skip.decorators().is_empty());
    }
}
