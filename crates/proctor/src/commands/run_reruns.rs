//! Reruns: failures a `[[run.reruns]]` rule covers run again in a new
//! pytest process, each rule's `times` at most, `delay` seconds apart; a
//! test that passes on a rerun is `passed` and flaky.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::time::Duration;

use anyhow::{Context, Result};
use proctor_config::RerunRule;
use proctor_run::{CollectedItem, Decisions, Event, Outcome, PhaseOptions, TestResult};

use crate::commands::run_progress::Progress;

/// Runs again the failures a rerun rule covers, each rule's `times` at
/// most, `delay` seconds apart; a test that passes on a rerun is `passed`
/// and flaky.
pub(crate) fn rerun(
    rules: &[RerunRule],
    phase: &PhaseOptions,
    results: &mut [TestResult],
    markers_of: &RefCell<HashMap<String, Vec<String>>>,
    decide: &mut dyn FnMut(&[CollectedItem]) -> Decisions,
    progress: &mut Progress,
    shutdown: &mut crate::commands::run::Shutdown,
) -> Result<()> {
    if rules.is_empty() {
        return Ok(());
    }
    for round in 1..=rules.iter().map(|r| r.times).max().unwrap_or(0) {
        let mut wanted: Vec<(usize, f64)> = Vec::new();
        for (index, result) in results.iter().enumerate() {
            if !result.outcome.is_failure()
                || phase
                    .interrupt
                    .as_ref()
                    .is_some_and(|f| f.load(Ordering::Relaxed))
            {
                continue;
            }
            let markers = markers_of
                .borrow()
                .get(&result.nodeid)
                .cloned()
                .unwrap_or_default();
            let text = result.message.as_deref().unwrap_or_default();
            if let Some(rule) = rules.iter().find(|r| r.applies(&markers, text)) {
                if round <= rule.times {
                    wanted.push((index, rule.delay));
                }
            }
        }
        if wanted.is_empty() {
            return Ok(());
        }
        let delay = wanted.iter().map(|(_, d)| *d).fold(0.0, f64::max);
        progress.event(&Event::Note {
            message: format!(
                "rerun {round}: {} failed test(s) a rerun rule covers{}",
                wanted.len(),
                if delay > 0.0 {
                    format!(", after {delay}s")
                } else {
                    String::new()
                }
            ),
        });
        if delay > 0.0 {
            std::thread::sleep(Duration::from_secs_f64(delay));
        }
        // The node ids reach pytest through the bridge, whatever they hold.
        let nodeids: Vec<String> = wanted
            .iter()
            .map(|(i, _)| results[*i].nodeid.clone())
            .collect();
        // One pytest process at a time: the phase's own ends first.
        shutdown.wait(progress);
        let again = PhaseOptions {
            only: Some(nodeids),
            ..phase.clone()
        };
        let outcome = proctor_run::run_phase(&again, None, decide, &mut |event: &Event| {
            progress.event(event);
        })
        .context("cannot rerun pytest")?;
        shutdown.exiting = outcome.exiting;
        for attempt in outcome.results {
            let Some((index, _)) = wanted
                .iter()
                .find(|(i, _)| results[*i].nodeid == attempt.nodeid)
            else {
                continue;
            };
            let previous = &mut results[*index];
            previous.attempts += 1;
            previous.duration += attempt.duration;
            if attempt.outcome == Outcome::Passed {
                previous.outcome = Outcome::Passed;
                previous.flaky = true;
            } else {
                previous.outcome = attempt.outcome;
                previous.message = attempt.message;
                previous.output = attempt.output;
            }
        }
    }
    Ok(())
}
