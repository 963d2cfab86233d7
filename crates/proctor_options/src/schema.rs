//! The JSON schema of proctor's options, generated from their types
//! (doc comments are the descriptions), and the key table of
//! `docs/configuration.md`, generated from that schema.
//!
//! Both files are checked in; `crates/proctor_options/tests/schema.rs`
//! fails when either is stale, and `PROCTOR_BLESS_DOCS=1` rewrites them.

use std::fmt::Write as _;

use schemars::generate::SchemaSettings;
use serde_json::{Map, Value};

use crate::proctor_options::RawOptions;

/// The JSON schema (draft 7, which Even Better TOML / taplo read) of
/// `proctor.toml` and of the `[tool.proctor]` table, pretty-printed with a
/// final newline.
#[must_use]
pub fn json_schema() -> String {
    let mut text = serde_json::to_string_pretty(&schema_value()).unwrap_or_default();
    text.push('\n');
    text
}

fn schema_value() -> Value {
    let generator = SchemaSettings::draft07().into_generator();
    let mut schema = generator.into_root_schema_for::<RawOptions>().to_value();
    drop_null(&mut schema);
    schema
}

/// Removes `null` from every schema: TOML has no null, an `Option` is a
/// key that may be left out.
fn drop_null(value: &mut Value) {
    match value {
        Value::Object(object) => {
            if object.get("default").is_some_and(Value::is_null) {
                object.remove("default");
            }
            if let Some(Value::Array(kinds)) = object.get_mut("type") {
                kinds.retain(|kind| kind != "null");
                if kinds.len() == 1 {
                    let kind = kinds.remove(0);
                    object.insert("type".to_owned(), kind);
                }
            }
            if let Some(Value::Array(any)) = object.get_mut("anyOf") {
                any.retain(|schema| schema.get("type").and_then(Value::as_str) != Some("null"));
                if any.len() == 1 {
                    let only = any.remove(0);
                    object.remove("anyOf");
                    if let Value::Object(only) = only {
                        for (key, value) in only {
                            object.entry(key).or_insert(value);
                        }
                    }
                }
            }
            for child in object.values_mut() {
                drop_null(child);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(drop_null),
        _ => {}
    }
}

/// The Markdown table of every key (`| key | type | default | meaning |`),
/// one row per key of a fixed table (`collect.threads`) and one per table of
/// named entries (`axes.<name>`), in the order of the types' fields.
#[must_use]
pub fn key_table() -> String {
    let root = schema_value();
    let defs = root
        .get("definitions")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let table = Table { defs: &defs };
    let mut out = String::from("| key | type | default | meaning |\n|---|---|---|---|\n");
    for (key, schema) in properties(&root) {
        let resolved = table.resolve(schema);
        if is_fixed_table(resolved) {
            for (sub, sub_schema) in properties(resolved) {
                table.row(&mut out, &format!("{key}.{sub}"), sub_schema);
            }
        } else {
            table.row(&mut out, key, schema);
        }
    }
    out
}

struct Table<'a> {
    defs: &'a Map<String, Value>,
}

impl Table<'_> {
    /// The schema a `$ref` (possibly wrapped in a one-element `allOf`)
    /// points at.
    fn resolve<'v>(&'v self, schema: &'v Value) -> &'v Value {
        let target = schema
            .get("allOf")
            .and_then(Value::as_array)
            .filter(|all| all.len() == 1)
            .map_or(schema, |all| &all[0]);
        target
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|reference| reference.rsplit('/').next())
            .and_then(|name| self.defs.get(name))
            .map_or(target, |def| self.resolve(def))
    }

    fn row(&self, out: &mut String, key: &str, schema: &Value) {
        let resolved = self.resolve(schema);
        let shown = if is_array_of_tables(self, resolved) {
            format!("`[[{key}]]`")
        } else if resolved
            .get("additionalProperties")
            .is_some_and(|value| is_fixed_table(self.resolve(value)))
        {
            let placeholder = schema
                .get("x-placeholder")
                .and_then(Value::as_str)
                .unwrap_or("name");
            format!("`{key}.<{placeholder}>`")
        } else {
            format!("`{key}`")
        };
        let default = schema
            .get("default")
            .or_else(|| resolved.get("default"))
            .map_or_else(|| "—".to_owned(), |value| format!("`{value}`"));
        let meaning = description(schema)
            .or_else(|| description(resolved))
            .unwrap_or_default();
        let kind = self.type_of(schema);
        let _ = writeln!(out, "| {shown} | {kind} | {default} | {meaning} |");
    }

    /// The type of a value, in words.
    fn type_of(&self, schema: &Value) -> String {
        if schema
            .get("$ref")
            .and_then(Value::as_str)
            .is_some_and(|r| r.ends_with("/Seconds"))
            || schema.get("allOf").is_some_and(|all| {
                all.get(0)
                    .and_then(|s| s.get("$ref"))
                    .and_then(Value::as_str)
                    .is_some_and(|r| r.ends_with("/Seconds"))
            })
        {
            return "seconds (above 0, at most 86400)".to_owned();
        }
        let schema = self.resolve(schema);
        if let Some(values) = enum_values(schema) {
            return values.join(" or ");
        }
        if let Some(any) = schema.get("anyOf").and_then(Value::as_array) {
            let kinds: Vec<String> = any.iter().map(|s| self.type_of(s)).collect();
            return kinds.join(", or ");
        }
        match schema.get("type").and_then(Value::as_str) {
            Some("string") => "string".to_owned(),
            Some("boolean") => "bool".to_owned(),
            Some(kind @ ("integer" | "number")) => {
                let min = schema.get("minimum").and_then(Value::as_f64);
                let max = schema.get("maximum").and_then(Value::as_f64);
                match (min, max) {
                    (Some(min), Some(max)) => format!("{kind} from {min} to {max}"),
                    (Some(min), None) if min > 0.0 => format!("{kind} ≥ {min}"),
                    _ => kind.to_owned(),
                }
            }
            Some("array") => {
                let items = schema.get("items").map(|s| self.resolve(s));
                match items {
                    Some(items) if is_fixed_table(items) => {
                        format!("array of tables ({})", keys(items))
                    }
                    Some(items) => format!("list of {}", plural(&self.type_of(items))),
                    None => "list".to_owned(),
                }
            }
            Some("object") => {
                if let Some(value) = schema.get("additionalProperties").filter(|v| v.is_object()) {
                    let value = self.resolve(value);
                    if is_fixed_table(value) {
                        format!("tables ({})", keys(value))
                    } else {
                        format!("table: name → {}", self.type_of(value))
                    }
                } else {
                    format!("table ({})", keys(schema))
                }
            }
            _ => "value".to_owned(),
        }
    }
}

fn is_array_of_tables(table: &Table<'_>, schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("array")
        && schema
            .get("items")
            .is_some_and(|items| is_fixed_table(table.resolve(items)))
}

fn is_fixed_table(schema: &Value) -> bool {
    schema.get("properties").is_some_and(Value::is_object)
}

fn properties(schema: &Value) -> Vec<(&str, &Value)> {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|props| props.iter().map(|(k, v)| (k.as_str(), v)).collect())
        .unwrap_or_default()
}

fn keys(schema: &Value) -> String {
    properties(schema)
        .iter()
        .map(|(key, _)| format!("`{key}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn plural(kind: &str) -> String {
    match kind {
        "string" => "strings".to_owned(),
        "bool" => "bools".to_owned(),
        other if other.starts_with('`') => format!("{other} values"),
        other => other.to_owned(),
    }
}

/// The string values of an enum (`"pytest"` or `"random"`), quoted.
fn enum_values(schema: &Value) -> Option<Vec<String>> {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return Some(values.iter().map(|v| format!("`{v}`")).collect());
    }
    let one_of = schema.get("oneOf").and_then(Value::as_array)?;
    one_of
        .iter()
        .map(|s| {
            s.get("const")
                .or_else(|| s.get("enum").and_then(|e| e.get(0)))
                .map(|v| format!("`{v}`"))
        })
        .collect()
}

/// A schema's title and description as one line.
fn description(schema: &Value) -> Option<String> {
    let parts: Vec<&str> = ["title", "description"]
        .iter()
        .filter_map(|key| schema.get(*key).and_then(Value::as_str))
        .collect();
    if parts.is_empty() {
        return None;
    }
    let text = parts.join(". ");
    Some(
        text.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .replace('|', "\\|"),
    )
}
