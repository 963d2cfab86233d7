//! What happens to one item on one machine: deselected by the selection,
//! skipped by a gate or an unmet need (with the reason pytest's `-rs`
//! would show), or run.

use proctor_config::PlanOptions;
use proctor_expr::KeywordCallError;
use proctor_python::Item;
use proctor_taxonomy::{Decision, Effective, Selection};
use serde::Serialize;

use crate::derive::needs;
use crate::facts::Facts;
use crate::gate::closed;

/// The fate of an item.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "verdict", rename_all = "kebab-case")]
pub enum Verdict {
    /// Runs.
    Run,
    /// Not selected.
    Deselected {
        /// The expression that left it out, as `-m "not slow" (job `unit`)`.
        by: String,
    },
    /// Selected, then skipped.
    Skipped {
        /// The skip reason.
        reason: String,
    },
}

impl Verdict {
    /// Whether the item runs.
    #[must_use]
    pub fn runs(&self) -> bool {
        matches!(self, Verdict::Run)
    }
}

/// Decides `item` under `selection` on the machine `facts` describes.
pub fn decide(
    item: &Item,
    effective: &Effective,
    selection: &Selection,
    plan: &PlanOptions,
    facts: &Facts,
) -> Result<Verdict, KeywordCallError> {
    let (decision, part) = selection.decide_by(item, effective)?;
    if decision != Decision::Selected {
        let option = if decision == Decision::DeselectedByKeyword {
            'k'
        } else {
            'm'
        };
        let by = part.map_or_else(String::new, |p| {
            format!("-{option} {:?} ({})", p.text.trim(), p.origin_text())
        });
        return Ok(Verdict::Deselected { by });
    }
    // A written `skip` mark: pytest skips the test wherever it runs (its
    // marks are evaluated before proctor's own skips, added after them).
    if let Some(reason) = unconditional_skip(item) {
        return Ok(Verdict::Skipped { reason });
    }
    for (marker, gate) in &plan.gates {
        if effective.has(marker) {
            if let Some(reason) = closed(marker, gate, facts) {
                return Ok(Verdict::Skipped { reason });
            }
        }
    }
    for need in needs(item, effective, plan) {
        if let Some(reason) = need.requirement.unmet(facts) {
            return Ok(Verdict::Skipped { reason });
        }
    }
    // A class flag that switches the inherited test off: the test skips
    // itself when its body starts, after every skip taken at setup. `run`
    // leaves it to pytest (its items carry no `skip`).
    if let Some(reason) = &item.skip {
        return Ok(Verdict::Skipped {
            reason: reason.clone(),
        });
    }
    Ok(Verdict::Run)
}

/// The reason of the item's first `skip` mark, as pytest reports it
/// (`unconditional skip` when it gives none).
fn unconditional_skip(item: &Item) -> Option<String> {
    let marker = item.markers.iter().find(|m| m.name == "skip")?;
    let reason = marker.kwargs.get("reason").or_else(|| marker.args.first());
    Some(match reason {
        Some(serde_json::Value::String(text)) => text.clone(),
        Some(_) => return None,
        None => "unconditional skip".to_owned(),
    })
}
