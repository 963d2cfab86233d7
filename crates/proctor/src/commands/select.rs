//! `proctor select`: the node ids a selection picks, one per line (or JSON,
//! or an args file for `pytest @FILE`).

use std::fmt::Write as _;
use std::io::Write;

use anyhow::{Context, Result};
use proctor_taxonomy::Decision;
use serde::Serialize;

use crate::args::SelectArgs;
use crate::commands::selection::{self, Selecting};
use crate::commands::suite::Suite;
use crate::exit;
use crate::printer::Printer;
use crate::settings::{Env, SelectSettings};

#[derive(Serialize)]
struct JsonSelection<'a> {
    version: u32,
    markers: Option<String>,
    keywords: Option<String>,
    selected: Vec<JsonItem<'a>>,
    deselected: Vec<JsonDeselected<'a>>,
}

#[derive(Serialize)]
struct JsonItem<'a> {
    nodeid: &'a str,
    dynamic: Option<&'a str>,
}

#[derive(Serialize)]
struct JsonDeselected<'a> {
    nodeid: &'a str,
    by: Decision,
}

pub(crate) fn run(args: &SelectArgs) -> Result<u8> {
    let suite = Suite::load(&args.suite, &Env::process())?;
    let settings = SelectSettings::resolve(args, &suite.config.proctor)?;
    let selecting = Selecting::resolved(&suite, &settings.selection, &[])?;
    let collection = suite.collect();
    let mut out = Printer::stdout();
    writeln!(out.err(), "selecting: {}", selecting.describe())?;
    for error in &collection.errors {
        writeln!(out.err(), "error: {}: {}", error.file, error.message)?;
    }
    let mut selected = Vec::new();
    let mut deselected = Vec::new();
    for item in &collection.items {
        let effective = selecting.taxonomy.effective(item);
        match selecting.selection.decide(item, &effective)? {
            Decision::Selected => selected.push(item),
            other => deselected.push((item, other)),
        }
    }
    if let Some(path) = &settings.args_file {
        let mut text = String::new();
        for item in &selected {
            text.push_str(&item.nodeid);
            text.push('\n');
        }
        std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))?;
    }
    if settings.json {
        let doc = JsonSelection {
            version: 1,
            markers: selecting.selection.markers_text(),
            keywords: selecting.selection.keywords_text(),
            selected: selected
                .iter()
                .map(|i| JsonItem {
                    nodeid: &i.nodeid,
                    dynamic: i.dynamic.as_deref(),
                })
                .collect(),
            deselected: deselected
                .iter()
                .map(|(i, by)| JsonDeselected {
                    nodeid: &i.nodeid,
                    by: *by,
                })
                .collect(),
        };
        serde_json::to_writer(&mut out, &doc)?;
        writeln!(out)?;
    } else {
        for item in &selected {
            writeln!(out, "{}", item.nodeid)?;
        }
    }
    let dynamic = selected.iter().filter(|i| i.dynamic.is_some()).count();
    let mut summary = format!(
        "{} selected, {} deselected",
        selected.len(),
        deselected.len()
    );
    if dynamic > 0 {
        let _ = write!(
            summary,
            " ({dynamic} dynamic: their parameters are known only at run time)"
        );
    }
    writeln!(out.err(), "{summary}")?;
    if selected.is_empty() {
        let effectives: Vec<_> = collection
            .items
            .iter()
            .map(|item| selecting.taxonomy.effective(item))
            .collect();
        if let Some(hint) = selection::empty_default_hint(
            &selecting.selection,
            &collection.items,
            &effectives,
            None,
        ) {
            writeln!(out.err(), "{hint}")?;
        }
    }
    out.flush()?;
    Ok(if !collection.errors.is_empty() {
        exit::INTERRUPTED
    } else if selected.is_empty() {
        exit::NO_TESTS
    } else {
        exit::OK
    })
}
