//! `proctor config schema` prints the schema shipped as
//! `docs/proctor.schema.json` (which `proctor_options`' own test keeps
//! generated).

use std::path::Path;
use std::process::Command;

#[test]
fn config_schema_prints_the_shipped_schema() {
    let output = Command::new(env!("CARGO_BIN_EXE_proctor"))
        .args(["config", "schema"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let shipped = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/proctor.schema.json"),
    )
    .unwrap();
    let printed = String::from_utf8(output.stdout).unwrap();
    assert!(
        printed == shipped,
        "proctor config schema differs from docs/proctor.schema.json"
    );
    let schema: serde_json::Value = serde_json::from_str(&printed).unwrap();
    assert_eq!(schema["$schema"], "http://json-schema.org/draft-07/schema#");
}
