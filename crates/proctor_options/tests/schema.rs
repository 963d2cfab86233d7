//! The JSON schema (`docs/proctor.schema.json`) and the key table of
//! `docs/configuration.md` are generated from the option types: this test
//! fails when either file is stale. `PROCTOR_BLESS_DOCS=1` rewrites both.

use std::path::PathBuf;

const BEGIN: &str = "<!-- keys: generated from the option types; `PROCTOR_BLESS_DOCS=1 cargo test -p proctor_options --test schema` rewrites it -->\n";
const END: &str = "<!-- /keys -->";

fn docs() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs")
}

fn bless() -> bool {
    std::env::var_os("PROCTOR_BLESS_DOCS").is_some_and(|v| !v.is_empty())
}

#[test]
fn the_shipped_schema_is_the_generated_one() {
    let path = docs().join("proctor.schema.json");
    let generated = proctor_options::json_schema();
    if bless() {
        std::fs::write(&path, &generated).unwrap();
    }
    let shipped = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        shipped == generated,
        "{} is stale: run `PROCTOR_BLESS_DOCS=1 cargo test -p proctor_options --test schema`",
        path.display()
    );
}

#[test]
fn the_key_table_of_configuration_md_is_the_generated_one() {
    let path = docs().join("configuration.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let start = text
        .find(BEGIN)
        .expect("configuration.md lacks the keys marker")
        + BEGIN.len();
    let end = start
        + text[start..]
            .find(END)
            .expect("configuration.md lacks the end marker");
    let generated = proctor_options::key_table();
    if bless() && text[start..end] != generated {
        let mut blessed = text[..start].to_owned();
        blessed.push_str(&generated);
        blessed.push_str(&text[end..]);
        std::fs::write(&path, blessed).unwrap();
        return;
    }
    assert!(
        text[start..end] == generated,
        "the key table of {} is stale: run `PROCTOR_BLESS_DOCS=1 cargo test -p proctor_options --test schema`\n--- generated:\n{generated}",
        path.display()
    );
}

#[test]
fn the_schema_describes_every_top_level_key() {
    let schema: serde_json::Value = serde_json::from_str(&proctor_options::json_schema()).unwrap();
    let properties = schema["properties"].as_object().unwrap();
    for key in [
        "python",
        "collect",
        "axes",
        "paths",
        "check",
        "jobs",
        "run",
        "notebooks",
    ] {
        let property = &properties[key];
        assert!(
            property.get("description").is_some(),
            "`{key}` has no description: {property}"
        );
    }
    assert_eq!(
        schema["additionalProperties"],
        serde_json::Value::Bool(false)
    );
}

/// The names in backticks after "expected" in serde's unknown-field message.
fn expected_keys(message: &str) -> Vec<String> {
    let after = message.split_once("expected").map_or("", |(_, rest)| rest);
    after
        .split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_schema_lists_the_keys_the_loader_accepts() {
    let schema: serde_json::Value = serde_json::from_str(&proctor_options::json_schema()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let keys_of = |schema: &serde_json::Value| -> Vec<String> {
        schema["properties"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect()
    };
    let mut tables = vec![(String::new(), keys_of(&schema))];
    for (key, property) in schema["properties"].as_object().unwrap() {
        let Some(reference) = property["allOf"][0]["$ref"].as_str() else {
            continue;
        };
        let name = reference.rsplit('/').next().unwrap();
        tables.push((key.clone(), keys_of(&schema["definitions"][name])));
    }
    assert!(tables.len() >= 8, "{tables:?}");
    for (table, keys) in tables {
        let header = if table.is_empty() {
            String::new()
        } else {
            format!("[{table}]\n")
        };
        std::fs::write(
            dir.path().join("proctor.toml"),
            format!("{header}not-a-key = 1\n"),
        )
        .unwrap();
        let error = proctor_options::find(dir.path()).unwrap_err();
        assert!(
            error.message.contains("unknown field `not-a-key`"),
            "{table}: {error}"
        );
        assert_eq!(expected_keys(&error.message), keys, "[{table}]: {error}");
    }
}
