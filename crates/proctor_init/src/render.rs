//! A [`Draft`] as commented TOML: either a `proctor.toml` (keys at the top
//! level) or `[tool.proctor]` tables for `pyproject.toml`. Every table
//! says where it was inferred from; what could not be inferred closes the
//! file as comments.

use std::fmt::Write as _;

use crate::draft::{Draft, HelperDraft};

/// Where the configuration goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// `proctor.toml`: tables at the top level.
    ProctorToml,
    /// `pyproject.toml`: tables under `[tool.proctor]`.
    Pyproject,
}

impl Layout {
    fn table(self, name: &str) -> String {
        match self {
            Layout::ProctorToml => format!("[{name}]"),
            Layout::Pyproject => format!("[tool.proctor.{name}]"),
        }
    }

    fn array_table(self, name: &str) -> String {
        match self {
            Layout::ProctorToml => format!("[[{name}]]"),
            Layout::Pyproject => format!("[[tool.proctor.{name}]]"),
        }
    }
}

fn quote(text: &str) -> String {
    toml::Value::String(text.to_owned()).to_string()
}

fn key(text: &str) -> String {
    if !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        text.to_owned()
    } else {
        quote(text)
    }
}

fn list(items: &[String]) -> String {
    let quoted: Vec<String> = items.iter().map(|i| quote(i)).collect();
    format!("[{}]", quoted.join(", "))
}

fn inline(map: &std::collections::BTreeMap<String, String>) -> String {
    let pairs: Vec<String> = map
        .iter()
        .map(|(k, v)| format!("{} = {}", key(k), quote(v)))
        .collect();
    format!("{{ {} }}", pairs.join(", "))
}

fn comment(out: &mut String, text: &str) {
    for line in wrap(text, 76) {
        let _ = writeln!(out, "# {line}");
    }
}

/// `text` in lines of at most `width` characters (longer words stay whole).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.len() + 1 + word.len() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// The configuration text of `draft`.
#[must_use]
pub fn render(draft: &Draft, layout: Layout) -> String {
    let mut out = String::new();
    comment(
        &mut out,
        "proctor's configuration, first written by `proctor init` from what the suite already has (pytest's config, conftest hooks, helpers, CI workflows). Each table says where it comes from; review it, then run `proctor check` and `proctor plan`. Reference: docs/configuration.md.",
    );
    if layout == Layout::Pyproject {
        out.push_str("[tool.proctor]\n");
    }
    out.push('\n');
    if let Some((expr, from)) = &draft.default_select {
        comment(&mut out, &format!("From {from}."));
        let _ = writeln!(out, "{}", layout.table("select"));
        let _ = writeln!(out, "default = {}\n", quote(expr));
    }
    for axis in &draft.axes {
        let mut table = String::new();
        let _ = writeln!(
            table,
            "{}",
            layout.table(&format!("axes.{}", key(&axis.name)))
        );
        let _ = writeln!(table, "markers = {}", list(&axis.markers));
        let _ = writeln!(table, "cardinality = {}", quote(&axis.cardinality));
        if let Some(default) = &axis.default {
            let _ = writeln!(table, "default = {}", quote(default));
        }
        if let Some(write) = axis.write_default {
            let _ = writeln!(table, "write-default = {write}");
        }
        if axis.suggestion {
            comment(
                &mut out,
                &format!(
                    "Suggested, commented out: {}. Name it and uncomment it if it is a family.",
                    axis.from
                ),
            );
            for line in table.lines() {
                let _ = writeln!(out, "# {line}");
            }
        } else {
            comment(&mut out, &format!("From {}.", axis.from));
            out.push_str(&table);
        }
        out.push('\n');
    }
    for marker in &draft.markers {
        comment(&mut out, &format!("From {}.", marker.from.join("; ")));
        let _ = writeln!(
            out,
            "{}",
            layout.table(&format!("markers.{}", key(&marker.name)))
        );
        if let Some(alias) = &marker.alias_of {
            let _ = writeln!(out, "alias-of = {}", quote(alias));
            if marker.deprecated {
                out.push_str("deprecated = true\n");
            }
        }
        if !marker.implies.is_empty() {
            let _ = writeln!(out, "implies = {}", list(&marker.implies));
        }
        out.push('\n');
    }
    for rule in &draft.paths {
        comment(&mut out, &format!("From {}.", rule.from));
        let _ = writeln!(out, "{}", layout.array_table("paths"));
        let _ = writeln!(out, "glob = {}", quote(&rule.glob));
        let _ = writeln!(out, "markers = {}\n", list(&rule.markers));
    }
    if !draft.decorators.is_empty() {
        comment(
            &mut out,
            "Decorators that stand for a marker (from the tests that use them).",
        );
        let _ = writeln!(out, "{}", layout.table("decorators"));
        for (path, marker, from) in &draft.decorators {
            let _ = writeln!(out, "{} = {}  # {from}", quote(path), quote(marker));
        }
        out.push('\n');
    }
    if !draft.helpers.is_empty() {
        comment(
            &mut out,
            "Helpers that state what a test needs, from their names (and source where the suite has it): check each.",
        );
        let _ = writeln!(out, "{}", layout.table("helpers"));
        for (path, helper, from) in &draft.helpers {
            let value = match helper {
                HelperDraft::Kind(kind) => quote(kind),
                HelperDraft::Fixed {
                    packages,
                    services,
                    gpu,
                } => {
                    let mut parts = Vec::new();
                    if !packages.is_empty() {
                        parts.push(format!("packages = {}", list(packages)));
                    }
                    if !services.is_empty() {
                        parts.push(format!("services = {}", list(services)));
                    }
                    if *gpu {
                        parts.push("gpu = true".to_owned());
                    }
                    format!("{{ {} }}", parts.join(", "))
                }
            };
            let _ = writeln!(out, "{} = {value}  # {from}", quote(path));
        }
        out.push('\n');
    }
    for gate in &draft.gates {
        comment(&mut out, &format!("From {}.", gate.from));
        let _ = writeln!(
            out,
            "{}",
            layout.table(&format!("gates.{}", key(&gate.marker)))
        );
        if !gate.skip_if_env.is_empty() {
            let _ = writeln!(out, "skip-if-env = {}", inline(&gate.skip_if_env));
        }
        if !gate.run_if_env.is_empty() {
            let _ = writeln!(out, "run-if-env = {}", inline(&gate.run_if_env));
        }
        if let Some(flag) = &gate.run_if_flag {
            let _ = writeln!(out, "run-if-flag = {}", quote(flag));
        }
        if let Some(reason) = &gate.reason {
            let _ = writeln!(out, "reason = {}", quote(reason));
        }
        out.push('\n');
    }
    for service in &draft.services {
        let Some(address) = &service.default_address else {
            continue;
        };
        comment(&mut out, &format!("From {}.", service.from));
        let _ = writeln!(
            out,
            "{}",
            layout.table(&format!("services.{}", key(&service.name)))
        );
        if let Some(env) = &service.address_env {
            let _ = writeln!(out, "address-env = {}", quote(env));
        }
        let _ = writeln!(out, "default-address = {}", quote(address));
        if let Some(image) = &service.image {
            let _ = writeln!(out, "image = {}", quote(image));
        }
        if !service.env.is_empty() {
            let _ = writeln!(out, "env = {}", inline(&service.env));
        }
        out.push('\n');
    }
    if let Some((paths, key)) = &draft.notebooks {
        comment(
            &mut out,
            &format!("Notebooks a workflow runs, opted in by their `{key}` metadata block."),
        );
        let _ = writeln!(out, "{}", layout.table("notebooks"));
        let _ = writeln!(out, "paths = {}", list(paths));
        let _ = writeln!(out, "metadata-key = {}\n", quote(key));
    }
    for job in &draft.jobs {
        comment(&mut out, &format!("From {}.", job.from));
        if !job.use_default {
            comment(
                &mut out,
                "pytest's `-m` replaces the one of `addopts`, so this job runs its own expression only.",
            );
        }
        if job.environment.is_some() {
            comment(
                &mut out,
                "It runs in a GitHub environment, which may wait for approval.",
            );
        }
        if job.triggers.len() > 1 {
            comment(&mut out, &format!("Triggers: {}.", job.triggers.join(", ")));
        }
        let _ = writeln!(out, "{}", layout.table(&format!("jobs.{}", key(&job.name))));
        if let Some(markers) = &job.markers {
            let _ = writeln!(out, "markers = {}", quote(markers));
        }
        if let Some(keywords) = &job.keywords {
            let _ = writeln!(out, "keywords = {}", quote(keywords));
        }
        if !job.paths.is_empty() {
            let _ = writeln!(out, "paths = {}", list(&job.paths));
        }
        if !job.use_default {
            out.push_str("use-default = false\n");
        }
        if !job.env.is_empty() {
            let _ = writeln!(out, "env = {}", inline(&job.env));
        }
        if !job.flags.is_empty() {
            let _ = writeln!(out, "flags = {}", list(&job.flags));
        }
        if !job.python.is_empty() {
            let _ = writeln!(out, "python = {}", list(&job.python));
        }
        let services: Vec<String> = job
            .services
            .iter()
            .filter(|s| {
                draft
                    .services
                    .iter()
                    .any(|d| &d.name == *s && d.default_address.is_some())
            })
            .cloned()
            .collect();
        if !services.is_empty() {
            let _ = writeln!(out, "services = {}", list(&services));
        }
        if !job.assume.is_empty() {
            let _ = writeln!(out, "assume = {}", list(&job.assume));
        }
        let _ = writeln!(out, "trigger = {}", quote(&job.trigger));
        if !job.also_on.is_empty() {
            let _ = writeln!(out, "also-on = {}", list(&job.also_on));
        }
        if !job.on_paths.is_empty() {
            let _ = writeln!(out, "on-paths = {}", list(&job.on_paths));
        }
        if !job.required {
            out.push_str("required = false\n");
        }
        if let Some(runner) = &job.runs_on {
            let _ = writeln!(out, "runs-on = {}", quote(runner));
        }
        if let Some(environment) = &job.environment {
            let _ = writeln!(out, "environment = {}", quote(environment));
        }
        out.push('\n');
    }
    if !draft.unknown.is_empty() {
        comment(&mut out, "Not inferred (set these by hand if they matter):");
        for unknown in &draft.unknown {
            for (index, line) in wrap(unknown, 72).iter().enumerate() {
                let _ = writeln!(out, "# {} {line}", if index == 0 { "-" } else { " " });
            }
        }
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

/// `pyproject` without its `[tool.proctor]` tables (and their array
/// tables), for `--force`: the rest of the file is kept as written.
#[must_use]
pub fn without_tool_proctor(pyproject: &str) -> String {
    let mut out = String::new();
    let mut skipping = false;
    for line in pyproject.split_inclusive('\n') {
        let trimmed = line.trim_start();
        if trimmed.starts_with('[') {
            let name = trimmed
                .trim_start_matches('[')
                .split(']')
                .next()
                .unwrap_or("")
                .trim();
            skipping = name == "tool.proctor" || name.starts_with("tool.proctor.");
        }
        if !skipping {
            out.push_str(line);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn force_drops_only_the_tool_proctor_tables() {
        let text = "[project]\nname = \"x\"\n\n[tool.proctor.axes.tier]\nmarkers = []\n\n[[tool.proctor.paths]]\nglob = \"a\"\n\n[tool.pytest.ini_options]\nmarkers = []\n[tool.proctorx]\nk = 1\n";
        assert_eq!(
            without_tool_proctor(text),
            "[project]\nname = \"x\"\n\n[tool.pytest.ini_options]\nmarkers = []\n[tool.proctorx]\nk = 1\n"
        );
    }

    #[test]
    fn keys_and_values_are_quoted_as_toml_needs() {
        assert_eq!(key("tier"), "tier");
        assert_eq!(key("a.b"), "\"a.b\"");
        assert_eq!(quote("not \"slow\""), "'not \"slow\"'");
    }
}
