//! Parallel workers (`proctor run -n N`): a phase's files as units one
//! worker runs whole (a module; with `--dist loadgroup` the modules that
//! share an `xdist_group`), longest first by their recorded durations
//! (file size where there are none). Each worker starts with a first
//! share and takes more from a queue as it finishes ([`schedule`]):
//! before the last test it holds, the bridge asks for more files and
//! collects them into the same pytest session, so that a worker pays
//! pytest's start-up once, keeps its session fixtures, and none idles
//! while another has a long tail. Each worker imports only what it runs:
//! the other files are ignored as with `--ignore`, so that every worker
//! keeps bare pytest's command line (its rootdir, ini file and initial
//! conftests) and pytest's own walk, which many file arguments would
//! make slower. Each worker is a serial session ([`run_phase`]) on a
//! thread of its own, restarting after a crash or a timeout for the rest
//! of what it holds (and taking on from the queue); its events and its
//! collections come to the calling thread, which alone decides and
//! reports, so that the run has one stream of events.

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::{mpsc, Arc, Mutex, PoisonError};

use crate::model::Event;
use crate::protocol::{CollectedItem, Decisions};
use crate::session::{run_phase, Exiting, LateExit, PhaseOptions, PhaseOutcome, RunError, Started};

/// The weight of each file: its recorded duration; a file without one
/// weighs its size in bytes at the suite's seconds per byte (one second
/// per byte when no file has a duration, so sizes alone decide).
fn weights(files: &[String], durations: &HashMap<String, f64>, rootdir: &Path) -> Vec<f64> {
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
    files
        .iter()
        .zip(&sizes)
        .map(|(f, size)| durations.get(f).copied().unwrap_or(size * per_byte))
        .collect()
}

/// The files as units that one worker runs whole: each file alone, or
/// with `--dist loadgroup` every file that shares an `xdist_group` name
/// with another (transitively) in one unit. Indices into `files`, each
/// unit's in order, the units in the order of their first file.
fn units(files: &[String], dist: Dist, groups: &HashMap<String, Vec<String>>) -> Vec<Vec<usize>> {
    fn root(unit_of: &mut [usize], mut at: usize) -> usize {
        while unit_of[at] != at {
            unit_of[at] = unit_of[unit_of[at]];
            at = unit_of[at];
        }
        at
    }
    let mut unit_of: Vec<usize> = (0..files.len()).collect();
    if dist == Dist::LoadGroup {
        let mut first_with: HashMap<&str, usize> = HashMap::new();
        for (at, file) in files.iter().enumerate() {
            for group in groups.get(file).into_iter().flatten() {
                let other = *first_with.entry(group.as_str()).or_insert(at);
                let (a, b) = (root(&mut unit_of, at), root(&mut unit_of, other));
                unit_of[a.max(b)] = a.min(b);
            }
        }
    }
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); files.len()];
    for at in 0..files.len() {
        let unit = root(&mut unit_of, at);
        members[unit].push(at);
    }
    members.retain(|m| !m.is_empty());
    members
}

/// A phase's work for `count` workers: a first share for each (at most
/// `count`, none empty, each file whole) and the queue of the rest,
/// which the workers take from as they finish ([`StealQueue::take`]).
/// Units (see [`units`]) go heaviest first; each share, and each take
/// from the queue, is the next units until they weigh at least what is
/// left over twice the workers (guided self-scheduling): the heavy files
/// are shared out first, and the takes shrink towards the end, when a
/// worker with a long tail is what the others would wait for.
#[must_use]
pub(crate) fn schedule(
    files: &[String],
    durations: &HashMap<String, f64>,
    rootdir: &Path,
    count: usize,
    dist: Dist,
    groups: &HashMap<String, Vec<String>>,
) -> (Vec<Vec<String>>, StealQueue) {
    let count = count.max(1);
    let weight = weights(files, durations, rootdir);
    let mut order: Vec<(Vec<usize>, f64)> = units(files, dist, groups)
        .into_iter()
        .map(|members| {
            let total = members.iter().map(|&at| weight[at]).sum();
            (members, total)
        })
        .collect();
    // Heaviest first; ties keep the files' order, so shares are stable.
    order.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0[0].cmp(&b.0[0])));
    let mut queue = StealQueue {
        state: Mutex::new(Pending {
            units: order
                .into_iter()
                .map(|(members, weight)| {
                    (
                        members.into_iter().map(|at| files[at].clone()).collect(),
                        weight,
                    )
                })
                .collect(),
            remaining: 0.0,
            withdrawn: Vec::new(),
        }),
        workers: count,
        rootdir: rootdir.to_path_buf(),
    };
    let pending = queue
        .state
        .get_mut()
        .unwrap_or_else(PoisonError::into_inner);
    pending.remaining = pending.units.iter().map(|u| u.1).sum();
    let mut shares = Vec::new();
    for _ in 0..count {
        let taken = pending.take(count);
        if taken.is_empty() {
            break;
        }
        shares.push(taken);
    }
    (shares, queue)
}

/// How `-n` shares a phase's tests out among its workers, as named by
/// pytest-xdist's `--dist`. proctor never splits a module between
/// workers (each would import it), so `load`, `loadfile` and `loadscope`
/// all share whole modules out; `loadgroup` also keeps the modules whose
/// tests share an `xdist_group` name on one worker.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Dist {
    /// `load`, the default: whole modules (see above).
    #[default]
    Load,
    /// `loadfile`: whole modules.
    LoadFile,
    /// `loadscope`: whole modules, so every module and class stays on one
    /// worker.
    LoadScope,
    /// `loadgroup`: whole modules, and those sharing an `xdist_group` on
    /// one worker.
    LoadGroup,
}

/// The files no worker holds yet, for the workers that finish their
/// share to take (the bridge asks before its last test, and collects
/// what it gets into the same pytest session).
#[derive(Debug, Default)]
pub struct StealQueue {
    state: Mutex<Pending>,
    workers: usize,
    rootdir: PathBuf,
}

#[derive(Debug, Default)]
struct Pending {
    /// Units of files (as in node ids) with their weights, heaviest first.
    units: VecDeque<(Vec<String>, f64)>,
    /// Their total weight.
    remaining: f64,
    /// The files withdrawn when a worker's session stopped early.
    withdrawn: Vec<String>,
}

impl Pending {
    /// The next units until they weigh at least what is left over twice
    /// `workers` (at least one unit), their files sorted.
    fn take(&mut self, workers: usize) -> Vec<String> {
        #[expect(clippy::cast_precision_loss, reason = "a worker count")]
        let enough = self.remaining / (2 * workers) as f64;
        let mut taken = Vec::new();
        let mut weight = 0.0;
        while let Some((files, w)) = self.units.pop_front() {
            taken.extend(files);
            weight += w;
            self.remaining -= w;
            if weight >= enough {
                break;
            }
        }
        taken.sort();
        taken
    }
}

impl StealQueue {
    /// Absolute paths of the next files for a worker that asks; empty
    /// once there are none left.
    pub(crate) fn take(&self) -> Vec<String> {
        let taken = self
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take(self.workers);
        taken.iter().map(|f| self.absolute(f)).collect()
    }

    fn absolute(&self, file: &str) -> String {
        self.rootdir.join(file).to_string_lossy().into_owned()
    }

    /// Hands out nothing more: a worker's pytest session stopped early
    /// (`-x`, `pytest.exit`), as one process would have.
    pub(crate) fn close(&self) {
        let mut pending = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let units = std::mem::take(&mut pending.units);
        pending
            .withdrawn
            .extend(units.into_iter().flat_map(|u| u.0));
        pending.remaining = 0.0;
    }

    /// The files [`close`](Self::close) withdrew (as in node ids): no
    /// worker collected them.
    pub(crate) fn withdrawn(&self) -> Vec<String> {
        let pending = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        pending.withdrawn.clone()
    }

    /// Every file still queued (absolute paths), which the workers ignore
    /// until they take them.
    fn files(&self) -> Vec<String> {
        let pending = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        pending
            .units
            .iter()
            .flat_map(|u| u.0.iter().map(|f| self.absolute(f)))
            .collect()
    }
}

/// What a worker's thread tells the calling thread.
enum FromWorker {
    Event(usize, Event),
    Decide(usize, Vec<CollectedItem>, mpsc::Sender<Decisions>),
    Done(Result<(PhaseOutcome, Option<LateExit>), RunError>),
}

/// The options of each worker: `phase`'s own, with the files of the other
/// shares and of the queue ignored too (a worker takes queued files as it
/// finishes its share), and (after the first, which may serve the process
/// started early) a work directory of its own for pytest's output.
#[must_use]
pub(crate) fn worker_options(
    phase: &PhaseOptions,
    rootdir: &Path,
    shares: &[Vec<String>],
    queue: &Arc<StealQueue>,
) -> Vec<PhaseOptions> {
    let queued: Vec<PathBuf> = queue.files().into_iter().map(PathBuf::from).collect();
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
            ignore.extend(queued.iter().cloned());
            PhaseOptions {
                ignore,
                work_dir: if at == 0 {
                    phase.work_dir.clone()
                } else {
                    phase.work_dir.join(format!("worker-{at}"))
                },
                steal: Some(Arc::clone(queue)),
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
    let merger = std::thread::scope(|scope| {
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
        merger
    });
    merge(outcomes, &merger.ran)
}

/// The calling thread's view of the workers: which worker claimed which
/// item, and each one's collection, for one count of the run's tests.
struct Merger {
    claimed: HashMap<Arc<str>, usize>,
    /// Per worker: tests finished, and its latest collection's expected
    /// total (finished then + kept), deselected and skipped.
    done: Vec<usize>,
    expected: Vec<usize>,
    deselected: Vec<usize>,
    skipped: Vec<usize>,
    /// The tests any worker finished (the sessions do not keep their
    /// results: the runner keeps them from the events).
    ran: HashSet<String>,
}

impl Merger {
    fn new(count: usize) -> Merger {
        Merger {
            claimed: HashMap::new(),
            done: vec![0; count],
            expected: vec![0; count],
            deselected: vec![0; count],
            skipped: vec![0; count],
            ran: HashSet::new(),
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
            if deselected.contains(&*item.nodeid) {
                continue;
            }
            let owner = *self.claimed.entry(Arc::clone(&item.nodeid)).or_insert(at);
            if owner != at {
                elsewhere.push(item.nodeid.to_string());
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
                // A worker's later collections (the files it took, a
                // restart's) deselect what its earlier ones did not.
                self.deselected[at] += *deselected;
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
            Event::TestFinished(result) => {
                self.done[at] += 1;
                self.ran.insert(result.nodeid.clone());
                on_event(event);
            }
            _ => on_event(event),
        }
    }
}

/// One outcome of the workers' outcomes.
fn merge(
    outcomes: Vec<Result<(PhaseOutcome, Option<LateExit>), RunError>>,
    finished: &HashSet<String>,
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
    let ran: HashSet<&str> = merged
        .results
        .iter()
        .map(|r| r.nodeid.as_str())
        .chain(finished.iter().map(String::as_str))
        .collect();
    let mut seen: HashSet<String> = HashSet::new();
    let deselected = std::mem::take(&mut merged.deselected);
    merged.deselected = deselected
        .into_iter()
        .filter(|n| !ran.contains(n.as_str()) && seen.insert(n.clone()))
        .collect();
    let mut seen: HashSet<Arc<str>> = HashSet::new();
    merged
        .collected
        .retain(|i| seen.insert(Arc::clone(&i.nodeid)));
    Ok((merged, late_exits))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(files: &[&str]) -> Vec<String> {
        files.iter().map(|f| (*f).to_owned()).collect()
    }

    fn durations(pairs: &[(&str, f64)]) -> HashMap<String, f64> {
        pairs.iter().map(|(f, d)| ((*f).to_owned(), *d)).collect()
    }

    /// What the workers take from the queue, one after the other, as
    /// files relative to the rootdir.
    fn takes(queue: &StealQueue) -> Vec<Vec<String>> {
        let root = queue.rootdir.to_string_lossy().into_owned() + "/";
        std::iter::from_fn(|| {
            let taken = queue.take();
            (!taken.is_empty()).then(|| {
                taken
                    .iter()
                    .map(|f| f.strip_prefix(&root).unwrap().to_owned())
                    .collect()
            })
        })
        .collect()
    }

    #[test]
    fn first_shares_are_the_heaviest_files_and_takes_shrink() {
        let files = names(&["a.py", "b.py", "c.py", "d.py", "e.py", "f.py"]);
        let durations = durations(&[
            ("a.py", 1.0),
            ("b.py", 8.0),
            ("c.py", 4.0),
            ("d.py", 2.0),
            ("e.py", 1.0),
            ("f.py", 0.5),
        ]);
        let none = HashMap::new();
        let (shares, queue) = schedule(&files, &durations, Path::new("/r"), 2, Dist::Load, &none);
        // 16.5 in all: b (8) is over a quarter; then c (4) over 8.5 / 4.
        assert_eq!(shares, [names(&["b.py"]), names(&["c.py"])]);
        assert_eq!(queue.files(), ["/r/d.py", "/r/a.py", "/r/e.py", "/r/f.py"]);
        // 4.5 left: d (2) is over 4.5 / 4; then a (1) over 2.5 / 4 ...
        assert_eq!(
            takes(&queue),
            [
                names(&["d.py"]),
                names(&["a.py"]),
                names(&["e.py"]),
                names(&["f.py"])
            ]
        );
    }

    #[test]
    fn many_light_files_are_taken_together() {
        let files: Vec<String> = (0..20).map(|i| format!("t{i:02}.py")).collect();
        let durations: HashMap<String, f64> = files.iter().map(|f| (f.clone(), 1.0)).collect();
        let (shares, queue) = schedule(
            &files,
            &durations,
            Path::new("/r"),
            2,
            Dist::Load,
            &HashMap::new(),
        );
        // A quarter of 20, then of the 15 left.
        assert_eq!(shares.iter().map(Vec::len).collect::<Vec<_>>(), [5, 4]);
        let taken = takes(&queue);
        let sizes: Vec<usize> = taken.iter().map(Vec::len).collect();
        assert_eq!(sizes, [3, 2, 2, 1, 1, 1, 1]);
        // Every file once.
        let mut all: Vec<String> = shares.concat();
        all.extend(taken.concat());
        all.sort();
        assert_eq!(all, files);
    }

    #[test]
    fn shares_fall_back_to_file_sizes_and_are_never_empty() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("big.py"), "x".repeat(1000)).unwrap();
        std::fs::write(dir.path().join("small1.py"), "x".repeat(300)).unwrap();
        std::fs::write(dir.path().join("small2.py"), "x".repeat(300)).unwrap();
        let files = names(&["big.py", "small1.py", "small2.py"]);
        let (none, no_groups) = (HashMap::new(), HashMap::new());
        let (shares, queue) = schedule(&files, &none, dir.path(), 2, Dist::Load, &no_groups);
        assert_eq!(shares, [names(&["big.py"]), names(&["small1.py"])]);
        assert_eq!(takes(&queue), [names(&["small2.py"])]);
        // More workers than files: one share per file.
        let (shares, queue) = schedule(&files, &none, dir.path(), 8, Dist::Load, &no_groups);
        assert_eq!(shares.len(), 3);
        assert!(queue.take().is_empty());
        assert_eq!(
            schedule(&[], &none, dir.path(), 2, Dist::Load, &no_groups)
                .0
                .len(),
            0
        );
    }

    #[test]
    fn loadgroup_keeps_the_files_of_a_group_together() {
        let files = names(&["a.py", "b.py", "c.py", "d.py"]);
        let durations = durations(&[("a.py", 4.0), ("b.py", 3.0), ("c.py", 2.0), ("d.py", 1.0)]);
        let groups: HashMap<String, Vec<String>> = [
            ("a.py", vec!["db".to_owned()]),
            ("c.py", vec!["web".to_owned(), "db".to_owned()]),
            ("d.py", vec!["web".to_owned()]),
        ]
        .into_iter()
        .map(|(f, g)| (f.to_owned(), g))
        .collect();
        let (shares, queue) = schedule(
            &files,
            &durations,
            Path::new("/r"),
            2,
            Dist::LoadGroup,
            &groups,
        );
        assert_eq!(shares, [names(&["a.py", "c.py", "d.py"]), names(&["b.py"])]);
        assert!(queue.take().is_empty());
        // Without loadgroup the marks do not matter.
        let (shares, _) = schedule(&files, &durations, Path::new("/r"), 2, Dist::Load, &groups);
        assert_eq!(shares, [names(&["a.py"]), names(&["b.py"])]);
    }

    #[test]
    fn a_closed_queue_hands_out_nothing_and_names_what_it_withdrew() {
        let files = names(&["a.py", "b.py", "c.py", "d.py"]);
        let durations = durations(&[("a.py", 4.0), ("b.py", 3.0), ("c.py", 2.0), ("d.py", 1.0)]);
        let (_, queue) = schedule(
            &files,
            &durations,
            Path::new("/r"),
            2,
            Dist::Load,
            &HashMap::new(),
        );
        assert_eq!(queue.files(), ["/r/c.py", "/r/d.py"]);
        queue.close();
        assert!(queue.take().is_empty());
        assert_eq!(queue.withdrawn(), names(&["c.py", "d.py"]));
    }
}
