//! CLI tests for `proctor caps` over a temporary project: secrets never
//! printed, `--assume` applied or rejected, the configuration's probes.

mod common;

use std::path::Path;

use common::{run_env, write};

const CONFIG: &str = r#"
[services.db]
address-env = "DB_URL"
default-address = "127.0.0.1:5432"

[needs.llm]
env = ["MY_SERVICE_TOKEN"]
binaries = ["proctor-surely-absent-tool"]
"#;

/// A project whose proctor.toml names services, variables and programs,
/// with a stub interpreter (no real Python needed) at `python`.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "pytest.ini", "[pytest]\n");
    write(root, "proctor.toml", CONFIG);
    write(
        root,
        "site/pkg-1.0.dist-info/METADATA",
        "Name: pkg\nVersion: 1.0\n",
    );
    let json = format!(
        r#"{{"executable": "/stub/python", "version": "3.12.1", "paths": ["{}"]}}"#,
        root.join("site").display()
    );
    write(root, "python", &format!("#!/bin/sh\necho '{json}'\n"));
    make_executable(&root.join("python"));
    dir
}

#[cfg(unix)]
fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[cfg(not(unix))]
fn make_executable(_path: &Path) {}

/// A value no run could print by chance.
fn unique_secret(label: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    format!("s3cr3t-{label}-{}-{nanos}", std::process::id())
}

#[cfg(unix)]
#[test]
fn secret_values_are_never_printed() {
    let dir = project();
    let api_key = unique_secret("api");
    let token = unique_secret("token");
    let password = unique_secret("password");
    let db_url = format!("postgres://admin:{password}@127.0.0.1:1/app");
    let env = [
        ("OPENAI_API_KEY", Some(api_key.as_str())),
        ("MY_SERVICE_TOKEN", Some(token.as_str())),
        ("DB_URL", Some(db_url.as_str())),
        ("HF_TOKEN", None),
    ];
    for args in [
        &["caps", "--python", "./python"][..],
        &["caps", "--python", "./python", "--json"],
    ] {
        let output = run_env(dir.path(), args, &env);
        assert!(output.starts_with("exit: 0\n"), "{output}");
        for secret in [&api_key, &token, &password] {
            assert!(
                !output.contains(secret.as_str()),
                "{args:?} printed a secret:\n{output}"
            );
        }
        assert!(!output.contains("admin"), "{output}");
        for name in [
            "OPENAI_API_KEY",
            "MY_SERVICE_TOKEN",
            "DB_URL",
            "HF_TOKEN",
            "CUDA_VISIBLE_DEVICES",
        ] {
            assert!(
                output.contains(name),
                "{args:?} does not name {name}:\n{output}"
            );
        }
        // The address came from DB_URL, with the credentials dropped.
        assert!(output.contains("127.0.0.1:1"), "{output}");
    }
    let text = run_env(dir.path(), &["caps", "--python", "./python"], &env);
    for line in [
        "OPENAI_API_KEY        set",
        "MY_SERVICE_TOKEN      set",
        "HF_TOKEN              not set",
    ] {
        assert!(text.contains(line), "{text}");
    }
    assert!(
        text.contains("services  db  127.0.0.1:1 (DB_URL)  not reachable\n"),
        "{text}"
    );
    assert!(
        text.contains("proctor-surely-absent-tool  not found"),
        "{text}"
    );
    assert!(
        text.contains("python    /stub/python 3.12.1, 1 package\n"),
        "{text}"
    );
}

fn json(output: &str) -> serde_json::Value {
    let stdout = output
        .split("--- stdout\n")
        .nth(1)
        .unwrap()
        .split("--- stderr\n")
        .next()
        .unwrap();
    serde_json::from_str(stdout).unwrap_or_else(|err| panic!("{err}:\n{output}"))
}

#[cfg(unix)]
#[test]
fn assumed_gpu_shows_in_json() {
    let dir = project();
    let output = run_env(
        dir.path(),
        &[
            "caps",
            "--json",
            "--python",
            "./python",
            "--assume",
            "gpu.vram_gb=80",
        ],
        &[],
    );
    assert!(output.starts_with("exit: 0\n"), "{output}");
    let caps = json(&output);
    assert_eq!(caps["version"], 1);
    assert_eq!(
        caps["gpus"],
        serde_json::json!([{"name": "assumed", "vendor": "assumed", "vram_bytes": 80_u64 << 30, "unified": false}])
    );
    assert_eq!(caps["assumed"], serde_json::json!(["gpu.vram_gb=80"]));
    assert_eq!(
        caps["python"]["packages"],
        serde_json::json!({"pkg": "1.0"})
    );
    assert_eq!(caps["services"]["db"]["source"], "default");
    assert_eq!(caps["skip_resource_checks"], false);
}

#[cfg(unix)]
#[test]
fn resource_checks_can_be_skipped_by_flag_or_variable() {
    let dir = project();
    let by_variable = run_env(
        dir.path(),
        &["caps", "--json", "--python", "./python"],
        &[("PROCTOR_SKIP_RESOURCE_CHECKS", Some("1"))],
    );
    assert_eq!(json(&by_variable)["skip_resource_checks"], true);
    let by_flag = run_env(
        dir.path(),
        &["caps", "--skip-resource-checks", "--python", "./python"],
        &[("PROCTOR_SKIP_RESOURCE_CHECKS", None)],
    );
    assert!(by_flag.contains("resources checks skipped"), "{by_flag}");
}

#[test]
fn a_bad_assume_is_a_usage_error() {
    let dir = project();
    let output = run_env(
        dir.path(),
        &["caps", "--python", "./python", "--assume", "gpu.vram=80"],
        &[],
    );
    assert!(
        output.starts_with("exit: 4\n--- stdout\n--- stderr\n"),
        "{output}"
    );
    assert!(
        output.contains("proctor: error: `--assume gpu.vram=80`: unknown key `gpu.vram` (keys: gpu.count, gpu.vram_gb, ram_gb,"),
        "{output}"
    );
    let output = run_env(
        dir.path(),
        &[
            "caps",
            "--python",
            "./python",
            "--assume",
            "service.db=maybe",
        ],
        &[],
    );
    assert!(
        output.contains("`service.db` takes `up` or `down`"),
        "{output}"
    );
}
