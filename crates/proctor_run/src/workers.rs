//! Parallel workers (`proctor run -n N`): a phase's files split into
//! shares, longest first by their recorded durations (file size where
//! there are none), and one pytest process per share, all at once. Each
//! worker imports only its share: the other files are ignored as with
//! `--ignore`, so that every worker keeps bare pytest's command line (its
//! rootdir, ini file and initial conftests) and pytest's own walk, which
//! many file arguments would make slower. Each worker is a serial session
//! ([`run_phase`]) on a thread of its own, restarting after a crash for
//! the rest of its share; its events and its collections come to the
//! calling thread, which alone decides and reports, so that the run has
//! one stream of events.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::mpsc;

use crate::model::Event;
use crate::protocol::{CollectedItem, Decisions};
use crate::session::{run_phase, Exiting, LateExit, PhaseOptions, PhaseOutcome, RunError, Started};

/// The files split into at most `count` shares, each file whole, the
/// heaviest first onto the lightest share (longest processing time
/// first). A file's weight is its recorded duration; a file without one
/// weighs its size in bytes at the suite's seconds per byte (one second
/// per byte when no file has a duration, so sizes alone decide). Shares
/// keep the files' order and none is empty.
#[must_use]
pub(crate) fn shares(
    files: &[String],
    durations: &HashMap<String, f64>,
    rootdir: &Path,
    count: usize,
) -> Vec<Vec<String>> {
    let count = count.clamp(1, files.len().max(1));
    let sizes: Vec<f64> = files
        .iter()
        .map(|f| {
            #[expect(clippy::cast_precision_loss, reason = "a weight, not a count")]
            std::fs::metadata(rootdir.join(f)).map_or(1.0, |m| m.len().max(1) as f64)
        })
        .collect();
    let (known_seconds, known_bytes) = files
        .iter()
        .zip(&sizes)
        .filter_map(|(f, size)| durations.get(f).map(|d| (*d, *size)))
        .fold((0.0, 0.0), |(s, b), (d, size)| (s + d, b + size));
    let per_byte = if known_bytes > 0.0 && known_seconds > 0.0 {
        known_seconds / known_bytes
    } else {
        1.0
    };
    let mut order: Vec<(usize, f64)> = files
        .iter()
        .zip(&sizes)
        .enumerate()
        .map(|(at, (f, size))| (at, durations.get(f).copied().unwrap_or(size * per_byte)))
        .collect();
    // Heaviest first; ties keep the files' order, so shares are stable.
    order.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut load = vec![0.0_f64; count];
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); count];
    for (at, weight) in order {
        let lightest = (0..count)
            .min_by(|a, b| load[*a].total_cmp(&load[*b]).then(a.cmp(b)))
            .unwrap_or(0);
        load[lightest] += weight;
        members[lightest].push(at);
    }
    members
        .into_iter()
        .filter(|m| !m.is_empty())
        .map(|mut m| {
            m.sort_unstable();
            m.into_iter().map(|at| files[at].clone()).collect()
        })
        .collect()
}

/// What a worker's thread tells the calling thread.
enum FromWorker {
    Event(usize, Event),
    Decide(usize, Vec<CollectedItem>, mpsc::Sender<Decisions>),
    Done(Result<(PhaseOutcome, Option<LateExit>), RunError>),
}

/// The options of each worker: `phase`'s own, with the files of the other
/// shares ignored too, and (after the first, which may serve the process
/// started early) a work directory of its own for pytest's output.
#[must_use]
pub(crate) fn worker_options(
    phase: &PhaseOptions,
    rootdir: &Path,
    shares: &[Vec<String>],
) -> Vec<PhaseOptions> {
    shares
        .iter()
        .enumerate()
        .map(|(at, _)| {
            let mut ignore = phase.ignore.clone();
            for (other, files) in shares.iter().enumerate() {
                if other != at {
                    ignore.extend(files.iter().map(|f| rootdir.join(f)));
                }
            }
            PhaseOptions {
                ignore,
                work_dir: if at == 0 {
                    phase.work_dir.clone()
                } else {
                    phase.work_dir.join(format!("worker-{at}"))
                },
                ..phase.clone()
            }
        })
        .collect()
}

/// Runs the workers at once, the first in `early` if given; `decide` and
/// `on_event` are called on this thread only. An item two workers collect
/// (a file no share names, which every worker imports) runs in the first
/// worker to collect it and is deselected in the others. Returns the
/// merged outcome (pytest's most severe status, the first failure to
/// start, every result, deselection and collected item) once every
/// worker's process has exited, with the processes that exited otherwise
/// than their session ended.
pub(crate) fn run_workers(
    workers: &[PhaseOptions],
    early: Option<Started>,
    decide: &mut dyn FnMut(&[CollectedItem]) -> Decisions,
    on_event: &mut dyn FnMut(&Event),
) -> Result<(PhaseOutcome, Vec<LateExit>), RunError> {
    let (tx, rx) = mpsc::channel::<FromWorker>();
    let mut outcomes = Vec::with_capacity(workers.len());
    std::thread::scope(|scope| {
        let mut early = early;
        for (at, options) in workers.iter().enumerate() {
            let tx = tx.clone();
            let started = early.take();
            scope.spawn(move || {
                let mut ask = |items: &[CollectedItem]| {
                    let (reply, answer) = mpsc::channel();
                    if tx
                        .send(FromWorker::Decide(at, items.to_vec(), reply))
                        .is_err()
                    {
                        return Decisions::default();
                    }
                    answer.recv().unwrap_or_default()
                };
                let mut tell = |event: &Event| {
                    let _ = tx.send(FromWorker::Event(at, event.clone()));
                };
                // The kernel kills a child when the thread that started it
                // ends (`PR_SET_PDEATHSIG`): this thread waits for its last
                // process to exit.
                let outcome = run_phase(options, started, &mut ask, &mut tell).map(|mut o| {
                    let late = o.exiting.take().and_then(Exiting::wait);
                    (o, late)
                });
                let _ = tx.send(FromWorker::Done(outcome));
            });
        }
        drop(tx);
        let mut merger = Merger::new(workers.len());
        // Every worker sends `Done` last; the channel ends when all have.
        for message in &rx {
            match message {
                FromWorker::Event(at, event) => merger.event(at, &event, on_event),
                FromWorker::Decide(at, items, reply) => {
                    let _ = reply.send(merger.decide(at, &items, decide));
                }
                FromWorker::Done(outcome) => outcomes.push(outcome),
            }
        }
    });
    merge(outcomes)
}

/// The calling thread's view of the workers: which worker claimed which
/// item, and each one's collection, for one count of the run's tests.
struct Merger {
    claimed: HashMap<String, usize>,
    /// Per worker: tests finished, and its latest collection's expected
    /// total (finished then + kept), deselected and skipped.
    done: Vec<usize>,
    expected: Vec<usize>,
    deselected: Vec<usize>,
    skipped: Vec<usize>,
}

impl Merger {
    fn new(count: usize) -> Merger {
        Merger {
            claimed: HashMap::new(),
            done: vec![0; count],
            expected: vec![0; count],
            deselected: vec![0; count],
            skipped: vec![0; count],
        }
    }

    fn decide(
        &mut self,
        at: usize,
        items: &[CollectedItem],
        decide: &mut dyn FnMut(&[CollectedItem]) -> Decisions,
    ) -> Decisions {
        let mut decisions = decide(items);
        let deselected: HashSet<&str> = decisions.deselect.iter().map(String::as_str).collect();
        let mut elsewhere: Vec<String> = Vec::new();
        for item in items {
            if deselected.contains(item.nodeid.as_str()) {
                continue;
            }
            let owner = *self.claimed.entry(item.nodeid.clone()).or_insert(at);
            if owner != at {
                elsewhere.push(item.nodeid.clone());
            }
        }
        if !elsewhere.is_empty() {
            let gone: HashSet<&str> = elsewhere.iter().map(String::as_str).collect();
            decisions.order.retain(|n| !gone.contains(n.as_str()));
            decisions.skip.retain(|n, _| !gone.contains(n.as_str()));
            decisions.deselect.extend(elsewhere);
        }
        decisions
    }

    /// Forwards a worker's event; a collection becomes the run's: how
    /// many tests all workers will have run, as one serial process would
    /// count them.
    fn event(&mut self, at: usize, event: &Event, on_event: &mut dyn FnMut(&Event)) {
        match event {
            Event::Collected {
                collected,
                deselected,
                skipped,
            } => {
                self.expected[at] = self.done[at] + collected.saturating_sub(*deselected);
                self.deselected[at] = *deselected;
                self.skipped[at] = *skipped;
                let done: usize = self.done.iter().sum();
                let deselected: usize = self.deselected.iter().sum();
                let remaining = self.expected.iter().sum::<usize>().saturating_sub(done);
                on_event(&Event::Collected {
                    collected: remaining + deselected,
                    deselected,
                    skipped: self.skipped.iter().sum(),
                });
            }
            Event::TestFinished(_) => {
                self.done[at] += 1;
                on_event(event);
            }
            _ => on_event(event),
        }
    }
}

/// One outcome of the workers' outcomes.
fn merge(
    outcomes: Vec<Result<(PhaseOutcome, Option<LateExit>), RunError>>,
) -> Result<(PhaseOutcome, Vec<LateExit>), RunError> {
    // pytest's statuses, least severe first: no tests, passed, failed,
    // interrupted, internal error, usage error.
    let severity = |status: Option<i32>| match status {
        None => 0,
        Some(5) => 1,
        Some(0) => 2,
        Some(1) => 3,
        Some(2) => 5,
        Some(3) => 6,
        Some(4) => 7,
        Some(_) => 4,
    };
    let mut merged = PhaseOutcome::default();
    let mut late_exits = Vec::new();
    for outcome in outcomes {
        let (outcome, late) = outcome?;
        late_exits.extend(late);
        merged.results.extend(outcome.results);
        merged.deselected.extend(outcome.deselected);
        merged.collected.extend(outcome.collected);
        if severity(outcome.pytest_status) > severity(merged.pytest_status) {
            merged.pytest_status = outcome.pytest_status;
        }
        if merged.failed_to_start.is_none() {
            merged.failed_to_start = outcome.failed_to_start;
        }
        merged.interrupted |= outcome.interrupted;
        if merged.stopped.is_none() {
            merged.stopped = outcome.stopped;
        }
        merged.not_run.extend(outcome.not_run);
        merged.problems.extend(outcome.problems);
    }
    // An item deselected in one worker and run in another was run.
    let ran: HashSet<&str> = merged.results.iter().map(|r| r.nodeid.as_str()).collect();
    let mut seen: HashSet<String> = HashSet::new();
    let deselected = std::mem::take(&mut merged.deselected);
    merged.deselected = deselected
        .into_iter()
        .filter(|n| !ran.contains(n.as_str()) && seen.insert(n.clone()))
        .collect();
    let mut seen: HashSet<String> = HashSet::new();
    merged.collected.retain(|i| seen.insert(i.nodeid.clone()));
    Ok((merged, late_exits))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(files: &[&str]) -> Vec<String> {
        files.iter().map(|f| (*f).to_owned()).collect()
    }

    #[test]
    fn shares_balance_recorded_durations_longest_first() {
        let files = names(&["a.py", "b.py", "c.py", "d.py"]);
        let durations: HashMap<String, f64> =
            [("a.py", 1.0), ("b.py", 5.0), ("c.py", 3.0), ("d.py", 2.0)]
                .into_iter()
                .map(|(f, d)| (f.to_owned(), d))
                .collect();
        let got = shares(&files, &durations, Path::new("/nonexistent"), 2);
        // b (5) alone against c + d (5), then a onto either: the first.
        assert_eq!(got, [names(&["a.py", "b.py"]), names(&["c.py", "d.py"])]);
    }

    #[test]
    fn shares_fall_back_to_file_sizes_and_are_never_empty() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("big.py"), "x".repeat(1000)).unwrap();
        std::fs::write(dir.path().join("small1.py"), "x".repeat(300)).unwrap();
        std::fs::write(dir.path().join("small2.py"), "x".repeat(300)).unwrap();
        let files = names(&["big.py", "small1.py", "small2.py"]);
        let got = shares(&files, &HashMap::new(), dir.path(), 2);
        assert_eq!(
            got,
            [names(&["big.py"]), names(&["small1.py", "small2.py"])]
        );
        // More workers than files: one share per file.
        assert_eq!(shares(&files, &HashMap::new(), dir.path(), 8).len(), 3);
        assert_eq!(shares(&[], &HashMap::new(), dir.path(), 2).len(), 0);
    }
}
