//! The human-readable form of [`Capabilities`]: one labelled section per
//! kind of capability, columns aligned within each section.

use std::fmt::Write;

use crate::model::{gib, Capabilities};

/// The width of the section labels column.
const LABEL_WIDTH: usize = 10;

/// Renders `caps` as aligned text, one line per fact, ending with a
/// newline. Environment variables appear as `set` or `not set`, never with
/// their values.
#[must_use]
pub fn render(caps: &Capabilities) -> String {
    let mut out = String::new();
    let ram = caps.ram_bytes.map_or_else(
        || "unknown".to_owned(),
        |bytes| format!("{:.1} GiB", gib(bytes)),
    );
    section(
        &mut out,
        "platform",
        &[vec![format!("{} {}", caps.platform.os, caps.platform.arch)]],
        "",
    );
    section(&mut out, "cpus", &[vec![caps.cpus.to_string()]], "");
    section(&mut out, "ram", &[vec![ram]], "");
    let gpus: Vec<Vec<String>> = caps
        .gpus
        .iter()
        .map(|gpu| {
            let unified = if gpu.unified { " (unified memory)" } else { "" };
            vec![
                gpu.name.clone(),
                format!("{:.1} GiB{unified}", gib(gpu.vram_bytes)),
            ]
        })
        .collect();
    section(&mut out, "gpus", &gpus, "none");
    let python = caps.python.as_ref().map(|python| {
        let count = python.packages.len();
        let plural = if count == 1 { "" } else { "s" };
        vec![format!(
            "{} {}, {count} package{plural}",
            python.executable, python.version
        )]
    });
    section(&mut out, "python", &Vec::from_iter(python), "not found");
    let services: Vec<Vec<String>> = caps
        .services
        .iter()
        .map(|(name, service)| {
            let state = match (service.reachable, service.http) {
                (true, _) => "reachable",
                (false, Some(false)) => "port open, HTTP probe failed",
                (false, _) => "not reachable",
            };
            vec![
                name.clone(),
                format!("{} ({})", service.address, service.source),
                state.to_owned(),
            ]
        })
        .collect();
    section(&mut out, "services", &services, "none configured");
    let env: Vec<Vec<String>> = caps
        .env
        .iter()
        .map(|(name, set)| {
            vec![
                name.clone(),
                if *set { "set" } else { "not set" }.to_owned(),
            ]
        })
        .collect();
    section(&mut out, "env", &env, "none asked");
    let binaries: Vec<Vec<String>> = caps
        .binaries
        .iter()
        .map(|(name, path)| {
            vec![
                name.clone(),
                path.clone().unwrap_or_else(|| "not found".to_owned()),
            ]
        })
        .collect();
    section(&mut out, "binaries", &binaries, "none asked");
    if caps.skip_resource_checks {
        section(
            &mut out,
            "resources",
            &[vec![
                "checks skipped: GPU and RAM needs count as met".to_owned()
            ]],
            "",
        );
    }
    let assumed: Vec<Vec<String>> = caps
        .assumed
        .iter()
        .map(|entry| vec![entry.clone()])
        .collect();
    section(&mut out, "assumed", &assumed, "");
    let warnings: Vec<Vec<String>> = caps
        .warnings
        .iter()
        .map(|warning| vec![warning.clone()])
        .collect();
    section(&mut out, "warnings", &warnings, "");
    out
}

/// Writes a labelled section: `rows` with their columns aligned, or
/// `empty` when there is no row (nothing at all when `empty` is empty).
fn section(out: &mut String, label: &str, rows: &[Vec<String>], empty: &str) {
    if rows.is_empty() {
        if !empty.is_empty() {
            let _ = writeln!(out, "{label:<LABEL_WIDTH$}{empty}");
        }
        return;
    }
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|i| {
            rows.iter()
                .filter_map(|row| row.get(i))
                .map(|cell| cell.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    for (index, row) in rows.iter().enumerate() {
        let mut line = format!("{:<LABEL_WIDTH$}", if index == 0 { label } else { "" });
        for (i, cell) in row.iter().enumerate() {
            if i + 1 == row.len() {
                line.push_str(cell);
            } else {
                let _ = write!(line, "{cell:<width$}  ", width = widths[i]);
            }
        }
        let _ = writeln!(out, "{}", line.trim_end());
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::model::{Gpu, Platform, Python, Service};

    #[test]
    fn sections_are_aligned() {
        let caps = Capabilities {
            platform: Platform {
                os: "linux".into(),
                arch: "x86_64".into(),
            },
            cpus: 2,
            ram_bytes: Some(25_232_932_864),
            gpus: Vec::new(),
            python: Some(Python {
                executable: "/p/.venv/bin/python".into(),
                version: "3.11.2".into(),
                packages: BTreeMap::from([("pytest".into(), "9.0".into())]),
                modules: None,
            }),
            env: BTreeMap::from([("OPENAI_API_KEY".into(), false), ("CICD".into(), true)]),
            services: BTreeMap::from([(
                "ollama".into(),
                Service {
                    address: "127.0.0.1:11434".into(),
                    source: "default".into(),
                    reachable: false,
                    http: None,
                },
            )]),
            binaries: BTreeMap::from([("nvidia-smi".into(), None)]),
            skip_resource_checks: false,
            assumed: vec!["gpu.vram_gb=80".into()],
            warnings: Vec::new(),
        };
        assert_eq!(
            render(&caps),
            "\
platform  linux x86_64
cpus      2
ram       23.5 GiB
gpus      none
python    /p/.venv/bin/python 3.11.2, 1 package
services  ollama  127.0.0.1:11434 (default)  not reachable
env       CICD            set
          OPENAI_API_KEY  not set
binaries  nvidia-smi  not found
assumed   gpu.vram_gb=80
"
        );
    }

    #[test]
    fn gpus_empty_sections_and_warnings_render() {
        let caps = Capabilities {
            platform: Platform {
                os: "macos".into(),
                arch: "aarch64".into(),
            },
            cpus: 10,
            gpus: vec![Gpu {
                name: "Apple M2".into(),
                vendor: "apple".into(),
                vram_bytes: 16 << 30,
                unified: true,
            }],
            services: BTreeMap::from([(
                "api".into(),
                Service {
                    address: "h:80".into(),
                    source: "API_URL".into(),
                    reachable: false,
                    http: Some(false),
                },
            )]),
            skip_resource_checks: true,
            warnings: vec!["no Python information".into()],
            ..Capabilities::default()
        };
        let text = render(&caps);
        assert!(text.contains("ram       unknown\n"), "{text}");
        assert!(
            text.contains("gpus      Apple M2  16.0 GiB (unified memory)\n"),
            "{text}"
        );
        assert!(text.contains("python    not found\n"), "{text}");
        assert!(
            text.contains("services  api  h:80 (API_URL)  port open, HTTP probe failed\n"),
            "{text}"
        );
        assert!(text.contains("env       none asked\n"), "{text}");
        assert!(text.contains("resources checks skipped"), "{text}");
        assert!(
            text.ends_with("warnings  no Python information\n"),
            "{text}"
        );
        assert!(!text.contains("assumed"), "{text}");
    }
}
