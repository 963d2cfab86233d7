//! An item's needs, from three places: `[needs.<marker>]` of its effective
//! markers, project helpers mapped in `[helpers]` (decorators and calls in
//! `pytestmark`, plus pytest's own `importorskip`), and `skipif` marks
//! whose condition is a standard idiom.

use proctor_config::{parse_version, HelperKind, HelperOptions, NeedOptions, PlanOptions};
use proctor_python::{Decorator, Item, MarkerSource};
use proctor_taxonomy::Effective;
use serde_json::Value as Json;

use crate::idioms::skipif_requirement;
use crate::requirement::{Need, NeedOrigin, Requirement};

/// Everything `item` needs, in order: markers' needs, helpers', then
/// `skipif` conditions; each requirement once.
#[must_use]
pub fn needs(item: &Item, effective: &Effective, plan: &PlanOptions) -> Vec<Need> {
    let mut out: Vec<Need> = Vec::new();
    let mut push = |requirement: Requirement, origin: NeedOrigin| {
        if !out.iter().any(|n| n.requirement == requirement) {
            out.push(Need {
                requirement,
                origin,
            });
        }
    };
    let mut seen_markers: Vec<&str> = Vec::new();
    for marker in &effective.markers {
        if seen_markers.contains(&marker.name.as_str()) {
            continue;
        }
        seen_markers.push(&marker.name);
        if let Some((_, need)) = plan.needs.iter().find(|(name, _)| *name == marker.name) {
            for requirement in fixed(need) {
                push(
                    requirement,
                    NeedOrigin::Marker {
                        name: marker.name.clone(),
                    },
                );
            }
        }
    }
    for decorator in &item.decorators {
        let origin = || NeedOrigin::Helper {
            path: decorator.path.clone(),
        };
        if decorator.path == "pytest.importorskip" {
            let Some(name) = decorator.args.first().and_then(Json::as_str) else {
                continue;
            };
            if decorator.source == MarkerSource::OptIn {
                // A notebook's metadata lists distributions.
                push(
                    Requirement::Package {
                        name: name.to_owned(),
                    },
                    origin(),
                );
            } else if decorator.args.len() == 1 && decorator.kwargs.is_empty() {
                // A module's name, which pytest imports: `yaml` is installed
                // by distribution `PyYAML`. With `minversion` or `reason`,
                // the skip and its reason are pytest's to give.
                push(
                    Requirement::Module {
                        name: name.to_owned(),
                    },
                    origin(),
                );
            }
            continue;
        }
        match plan
            .helpers
            .iter()
            .find(|(path, _)| *path == decorator.path)
            .map(|(_, h)| h)
        {
            Some(HelperOptions::Fixed(need)) => {
                for requirement in fixed(need) {
                    push(requirement, origin());
                }
            }
            Some(HelperOptions::Kind(kind)) => {
                for requirement in from_call(*kind, decorator) {
                    push(requirement, origin());
                }
            }
            None => {}
        }
    }
    for marker in item.markers.iter().filter(|m| m.name == "skipif") {
        for arg in &marker.args {
            let Some(condition) = condition_text(arg) else {
                continue;
            };
            push(
                skipif_requirement(&condition),
                NeedOrigin::Skipif { condition },
            );
        }
    }
    out
}

/// A `skipif` condition's source: a string condition (which pytest
/// evaluates) or an expression's text; `None` for `True`/`False`
/// constants, which are not requirements.
fn condition_text(arg: &Json) -> Option<String> {
    match arg {
        Json::String(text) => Some(text.clone()),
        Json::Object(map) => map.get("expr").and_then(Json::as_str).map(str::to_owned),
        _ => None,
    }
}

/// The requirements of a table of needs.
fn fixed(need: &NeedOptions) -> Vec<Requirement> {
    let mut out = Vec::new();
    if need.gpu || need.gpu_vram_gb.is_some() {
        out.push(Requirement::Gpu {
            vram_gb: need.gpu_vram_gb,
        });
    }
    if let Some(gb) = need.ram_gb {
        out.push(Requirement::Ram { gb });
    }
    out.extend(
        need.env
            .iter()
            .map(|name| Requirement::Env { name: name.clone() }),
    );
    out.extend(
        need.packages
            .iter()
            .map(|name| Requirement::Package { name: name.clone() }),
    );
    out.extend(
        need.binaries
            .iter()
            .map(|name| Requirement::Binary { name: name.clone() }),
    );
    out.extend(
        need.services
            .iter()
            .map(|name| Requirement::Service { name: name.clone() }),
    );
    if let Some(min) = need.python.as_deref().and_then(parse_version) {
        out.push(Requirement::Python { min });
    }
    out
}

/// The requirements a helper call states through its arguments.
fn from_call(kind: HelperKind, call: &Decorator) -> Vec<Requirement> {
    let strings = || call.args.iter().filter_map(Json::as_str).map(str::to_owned);
    let number = |keyword: &str| {
        call.kwargs
            .get(keyword)
            .or_else(|| call.args.first())
            .and_then(Json::as_f64)
    };
    match kind {
        HelperKind::Gpu => vec![Requirement::Gpu {
            vram_gb: number("min_vram_gb"),
        }],
        HelperKind::Ram => number("min_gb")
            .map(|gb| vec![Requirement::Ram { gb }])
            .unwrap_or_default(),
        HelperKind::Env => strings().map(|name| Requirement::Env { name }).collect(),
        HelperKind::Package => strings()
            .map(|name| Requirement::Package { name })
            .collect(),
        HelperKind::Binary => strings().map(|name| Requirement::Binary { name }).collect(),
        HelperKind::Python => call
            .args
            .first()
            .and_then(version_arg)
            .map(|min| vec![Requirement::Python { min }])
            .unwrap_or_default(),
    }
}

/// `(3, 11)` (as a list or as its source text) or `"3.11"`.
fn version_arg(arg: &Json) -> Option<(u32, u32)> {
    match arg {
        Json::String(text) => parse_version(text),
        Json::Array(items) => {
            let major = u32::try_from(items.first()?.as_u64()?).ok()?;
            let minor = items
                .get(1)
                .and_then(Json::as_u64)
                .and_then(|m| u32::try_from(m).ok())
                .unwrap_or(0);
            Some((major, minor))
        }
        Json::Object(map) => {
            let text = map.get("expr")?.as_str()?.trim();
            let inner = text.strip_prefix('(')?.strip_suffix(')')?;
            parse_version(&inner.replace(' ', "").replace(',', "."))
        }
        _ => None,
    }
}
