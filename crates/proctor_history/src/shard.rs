//! `--shard i/n`: splits the selected tests into `n` parts of about equal
//! expected duration, the same way on every machine.
//!
//! The planner is the LPT greedy algorithm: tests sorted longest first
//! (ties by node id), each placed on the shard with the least expected load
//! so far (ties by fewer tests, then lower index). Tests without history
//! count as the median known duration of the selected tests, or 1.0 when
//! none is known, which makes the split round-robin. Every shard computes
//! the whole plan and keeps its part; the result depends only on the node
//! ids and the durations, so shards that read the same history agree, and
//! every test lands in exactly one shard.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap, HashSet};
use std::fmt;
use std::hash::BuildHasher;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::stats::median;

/// Why a shard could not be computed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShardError {
    /// `n` is 0.
    #[error("invalid shard count 0: there must be at least one shard")]
    CountZero,
    /// `i` is 0 (shards are numbered from 1).
    #[error("invalid shard index 0: shards are numbered from 1 to {count}")]
    IndexZero {
        /// The number of shards.
        count: usize,
    },
    /// `i` is greater than `n`.
    #[error("invalid shard index {index}: there are only {count} shards")]
    IndexOutOfRange {
        /// The index given.
        index: usize,
        /// The number of shards.
        count: usize,
    },
    /// The text is not `i/n`.
    #[error("invalid shard `{text}`: expected INDEX/COUNT such as `2/4`")]
    Syntax {
        /// The text given.
        text: String,
    },
}

/// Which shard a run is: `--shard 2/4` is index 2 of count 4.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ShardSpec {
    /// 1-based index of this shard.
    pub index: usize,
    /// Number of shards.
    pub count: usize,
}

impl ShardSpec {
    /// A checked spec: `1 <= index <= count`.
    pub fn new(index: usize, count: usize) -> Result<ShardSpec, ShardError> {
        if count == 0 {
            Err(ShardError::CountZero)
        } else if index == 0 {
            Err(ShardError::IndexZero { count })
        } else if index > count {
            Err(ShardError::IndexOutOfRange { index, count })
        } else {
            Ok(ShardSpec { index, count })
        }
    }
}

impl FromStr for ShardSpec {
    type Err = ShardError;

    fn from_str(text: &str) -> Result<ShardSpec, ShardError> {
        let syntax = || ShardError::Syntax {
            text: text.to_owned(),
        };
        let (index, count) = text.split_once('/').ok_or_else(syntax)?;
        let index = index.trim().parse().map_err(|_| syntax())?;
        let count = count.trim().parse().map_err(|_| syntax())?;
        ShardSpec::new(index, count)
    }
}

impl fmt::Display for ShardSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// One shard of a plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Shard {
    /// Its tests, in the order they were given (collection order matters
    /// to fixtures and to pytest's output).
    pub nodeids: Vec<String>,
    /// The sum of its tests' expected durations, in seconds.
    pub expected_load: f64,
}

/// The tests of shard `index` (1-based) of `count`; see [`plan_shards`].
pub fn shard<S: BuildHasher>(
    nodeids: &[String],
    durations: &HashMap<String, f64, S>,
    index: usize,
    count: usize,
) -> Result<Vec<String>, ShardError> {
    let spec = ShardSpec::new(index, count)?;
    let mut plan = plan_shards(nodeids, durations, spec.count)?;
    Ok(plan.swap_remove(spec.index - 1).nodeids)
}

/// Splits `nodeids` into `count` shards balanced by expected duration, with
/// each shard's expected load. `durations` maps node ids to seconds (as
/// [`crate::History::durations`] returns them); a missing, negative or
/// non-finite entry counts as unknown. A node id given twice is placed
/// once, at its first position.
pub fn plan_shards<S: BuildHasher>(
    nodeids: &[String],
    durations: &HashMap<String, f64, S>,
    count: usize,
) -> Result<Vec<Shard>, ShardError> {
    if count == 0 {
        return Err(ShardError::CountZero);
    }
    let known = |nodeid: &String| {
        durations
            .get(nodeid)
            .copied()
            .filter(|d| d.is_finite() && *d >= 0.0)
    };
    let mut seen = HashSet::with_capacity(nodeids.len());
    let unique: Vec<&String> = nodeids
        .iter()
        .filter(|nodeid| seen.insert(*nodeid))
        .collect();
    let mut known_values: Vec<f64> = unique.iter().copied().filter_map(known).collect();
    let fallback = median(&mut known_values).unwrap_or(1.0);
    let mut order: Vec<(usize, f64)> = unique
        .iter()
        .enumerate()
        .map(|(i, nodeid)| (i, known(nodeid).unwrap_or(fallback)))
        .collect();
    order.sort_by(|&(a, da), &(b, db)| db.total_cmp(&da).then_with(|| unique[a].cmp(unique[b])));

    let mut heap: BinaryHeap<Bin> = (0..count)
        .map(|index| Bin {
            load: 0.0,
            tests: 0,
            index,
        })
        .collect();
    let mut assigned = vec![0usize; unique.len()];
    let mut loads = vec![0.0; count];
    for (position, duration) in order {
        // The heap holds `count > 0` bins; changing the top re-sorts it.
        if let Some(mut bin) = heap.peek_mut() {
            bin.load += duration;
            bin.tests += 1;
            assigned[position] = bin.index;
            loads[bin.index] = bin.load;
        }
    }
    let mut shards: Vec<Shard> = loads
        .into_iter()
        .map(|expected_load| Shard {
            nodeids: Vec::new(),
            expected_load,
        })
        .collect();
    for (nodeid, index) in unique.into_iter().zip(assigned) {
        shards[index].nodeids.push(nodeid.clone());
    }
    Ok(shards)
}

/// A shard being filled. Ordered so that the max-heap pops the least
/// loaded, then the one with fewest tests, then the lowest index.
#[derive(Debug, Clone, Copy)]
struct Bin {
    load: f64,
    tests: usize,
    index: usize,
}

impl Ord for Bin {
    fn cmp(&self, other: &Bin) -> Ordering {
        other
            .load
            .total_cmp(&self.load)
            .then(other.tests.cmp(&self.tests))
            .then(other.index.cmp(&self.index))
    }
}

impl PartialOrd for Bin {
    fn partial_cmp(&self, other: &Bin) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Bin {
    fn eq(&self, other: &Bin) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Bin {}

#[cfg(test)]
#[expect(clippy::float_cmp, reason = "the expected values are exact")]
mod tests {
    use super::*;

    fn ids(names: &[&str]) -> Vec<String> {
        names.iter().map(|&n| n.to_owned()).collect()
    }

    fn durations(pairs: &[(&str, f64)]) -> HashMap<String, f64> {
        pairs.iter().map(|&(n, d)| (n.to_owned(), d)).collect()
    }

    #[test]
    fn spec_parses_displays_and_checks() {
        assert_eq!(
            "2/4".parse::<ShardSpec>(),
            Ok(ShardSpec { index: 2, count: 4 })
        );
        assert_eq!(ShardSpec { index: 2, count: 4 }.to_string(), "2/4");
        assert_eq!(
            "0/4".parse::<ShardSpec>(),
            Err(ShardError::IndexZero { count: 4 })
        );
        assert_eq!(
            "5/4".parse::<ShardSpec>(),
            Err(ShardError::IndexOutOfRange { index: 5, count: 4 })
        );
        assert_eq!("1/0".parse::<ShardSpec>(), Err(ShardError::CountZero));
        for bad in ["", "2", "2/", "a/4", "2/4/6", "-1/4"] {
            assert_eq!(
                bad.parse::<ShardSpec>(),
                Err(ShardError::Syntax { text: bad.into() }),
                "{bad}"
            );
        }
        assert_eq!(
            "9/4".parse::<ShardSpec>().unwrap_err().to_string(),
            "invalid shard index 9: there are only 4 shards"
        );
    }

    #[test]
    fn shard_rejects_bad_indexes() {
        let tests = ids(&["a"]);
        let none = HashMap::new();
        assert_eq!(
            shard(&tests, &none, 0, 2),
            Err(ShardError::IndexZero { count: 2 })
        );
        assert_eq!(
            shard(&tests, &none, 3, 2),
            Err(ShardError::IndexOutOfRange { index: 3, count: 2 })
        );
        assert_eq!(shard(&tests, &none, 1, 0), Err(ShardError::CountZero));
        assert_eq!(plan_shards(&tests, &none, 0), Err(ShardError::CountZero));
    }

    #[test]
    fn lpt_balances_by_duration_and_keeps_input_order() {
        let tests = ids(&["t1", "t2", "t3", "t4", "t5", "t6"]);
        let known = durations(&[
            ("t1", 1.0),
            ("t2", 8.0),
            ("t3", 3.0),
            ("t4", 4.0),
            ("t5", 5.0),
            ("t6", 7.0),
        ]);
        // LPT: 8 -> s1, 7 -> s2, 5 -> s2 (12), 4 -> s1 (12), 3 -> s1 (15), 1 -> s2 (13).
        let plan = plan_shards(&tests, &known, 2).unwrap();
        assert_eq!(plan[0].nodeids, ids(&["t2", "t3", "t4"]));
        assert_eq!(plan[1].nodeids, ids(&["t1", "t5", "t6"]));
        assert_eq!(plan[0].expected_load, 15.0);
        assert_eq!(plan[1].expected_load, 13.0);
        assert_eq!(
            shard(&tests, &known, 2, 2).unwrap(),
            ids(&["t1", "t5", "t6"])
        );
    }

    #[test]
    fn unknown_tests_count_as_the_median_and_no_history_is_round_robin() {
        let tests = ids(&["a", "b", "c", "d", "e"]);
        let plan = plan_shards(&tests, &HashMap::new(), 2).unwrap();
        assert_eq!(plan[0].nodeids, ids(&["a", "c", "e"]));
        assert_eq!(plan[1].nodeids, ids(&["b", "d"]));
        assert_eq!(plan[0].expected_load, 3.0);
        // a, b known (median 2.0 -> c, d, e count 2.0 each); NaN is unknown.
        let known = durations(&[("a", 1.0), ("b", 3.0), ("c", f64::NAN), ("zzz", 100.0)]);
        let plan = plan_shards(&tests, &known, 2).unwrap();
        let loads: Vec<f64> = plan.iter().map(|s| s.expected_load).collect();
        assert_eq!(loads.iter().sum::<f64>(), 1.0 + 3.0 + 3.0 * 2.0);
        assert_eq!(loads, [5.0, 5.0]);
    }

    #[test]
    fn zero_durations_still_spread_by_count() {
        let tests = ids(&["a", "b", "c", "d"]);
        let known = durations(&[("a", 0.0), ("b", 0.0), ("c", 0.0), ("d", 0.0)]);
        let plan = plan_shards(&tests, &known, 2).unwrap();
        assert_eq!(plan[0].nodeids.len(), 2);
        assert_eq!(plan[1].nodeids.len(), 2);
    }

    #[test]
    fn duplicates_are_placed_once() {
        let plan = plan_shards(&ids(&["a", "b", "a"]), &HashMap::new(), 2).unwrap();
        assert_eq!(plan[0].nodeids, ids(&["a"]));
        assert_eq!(plan[1].nodeids, ids(&["b"]));
    }

    #[test]
    fn more_shards_than_tests_leaves_some_empty() {
        let plan = plan_shards(&ids(&["a"]), &HashMap::new(), 3).unwrap();
        assert_eq!(
            plan.iter().map(|s| s.nodeids.len()).collect::<Vec<_>>(),
            [1, 0, 0]
        );
    }

    /// A small deterministic PRNG (xorshift64*), so the property test needs
    /// no dependency and fails reproducibly.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }

        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    #[test]
    fn every_test_lands_in_exactly_one_shard_deterministically() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        for case in 0..300 {
            let n = usize::try_from(rng.below(60)).unwrap();
            let count = usize::try_from(rng.below(7) + 1).unwrap();
            let tests: Vec<String> = (0..n)
                .map(|i| format!("t.py::t{}[{}]", rng.below(40), i % 3))
                .collect();
            let mut known = HashMap::new();
            for test in &tests {
                match rng.below(4) {
                    0 => {}
                    1 => {
                        known.insert(test.clone(), 0.0);
                    }
                    _ => {
                        #[expect(clippy::cast_precision_loss, reason = "small test values")]
                        known.insert(test.clone(), rng.below(10_000) as f64 / 100.0);
                    }
                }
            }
            let parts: Vec<Vec<String>> = (1..=count)
                .map(|index| shard(&tests, &known, index, count).unwrap())
                .collect();
            // The union is the input and the parts are disjoint.
            let union: Vec<&String> = parts.iter().flatten().collect();
            let distinct: HashSet<&String> = tests.iter().collect();
            assert_eq!(union.len(), distinct.len(), "case {case}");
            assert_eq!(
                union.into_iter().collect::<HashSet<_>>(),
                distinct,
                "case {case}"
            );
            // Each part keeps the input order.
            for part in &parts {
                let positions: Vec<usize> = part
                    .iter()
                    .map(|id| tests.iter().position(|t| t == id).unwrap())
                    .collect();
                assert!(positions.windows(2).all(|w| w[0] <= w[1]), "case {case}");
            }
            // Deterministic: the same input gives the same plan, also when
            // the map (with its own random hash order) was built anew.
            let rebuilt: HashMap<String, f64> =
                known.iter().map(|(k, v)| (k.clone(), *v)).collect();
            assert_eq!(
                plan_shards(&tests, &known, count),
                plan_shards(&tests, &rebuilt, count),
                "case {case}"
            );
            // LPT bound: no shard exceeds the mean load by more than the
            // longest test.
            let plan = plan_shards(&tests, &known, count).unwrap();
            let total: f64 = plan.iter().map(|s| s.expected_load).sum();
            let longest = plan
                .iter()
                .flat_map(|s| &s.nodeids)
                .map(|id| known.get(id).copied().unwrap_or(0.0))
                .fold(1.0, f64::max);
            #[expect(clippy::cast_precision_loss, reason = "small shard counts")]
            let mean = total / count as f64;
            for shard in &plan {
                assert!(shard.expected_load <= mean + longest + 1e-9, "case {case}");
            }
        }
    }
}
