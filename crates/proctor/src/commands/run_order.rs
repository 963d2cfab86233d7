//! The order `proctor run` gives pytest: random (modules, then classes,
//! then tests within them, from a printed seed) or grouped by an axis.

use std::collections::HashMap;

/// How to order the tests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Order {
    /// pytest's own order.
    Pytest,
    /// Shuffled from this seed, keeping modules and classes together.
    Random(u64),
    /// Grouped by the first of these markers each test has, in this order;
    /// tests with none last; pytest's order within a group.
    ByGroup(Vec<String>),
}

/// `node ids` reordered. `markers` gives each test's effective marker names
/// (for `ByGroup`).
pub(crate) fn order(
    nodeids: &[String],
    how: &Order,
    markers: &dyn Fn(&str) -> Vec<String>,
) -> Vec<String> {
    match how {
        Order::Pytest => nodeids.to_vec(),
        Order::Random(seed) => shuffled(nodeids, *seed),
        Order::ByGroup(groups) => {
            let rank = |nodeid: &str| {
                let names = markers(nodeid);
                groups
                    .iter()
                    .position(|g| names.contains(g))
                    .unwrap_or(groups.len())
            };
            let mut ranked: Vec<(usize, usize, &String)> = nodeids
                .iter()
                .enumerate()
                .map(|(i, n)| (rank(n), i, n))
                .collect();
            ranked.sort();
            ranked.into_iter().map(|(_, _, n)| n.clone()).collect()
        }
    }
}

/// Modules in random order, then the classes of each module, then the
/// tests of each class (or module level), each level shuffled on its own,
/// as pytest-randomly does: fixtures of a module or class stay together.
fn shuffled(nodeids: &[String], seed: u64) -> Vec<String> {
    let mut rng = SplitMix(seed);
    // module -> class -> tests, in first-seen order.
    let mut modules: Vec<(String, Vec<Group>)> = Vec::new();
    let mut module_at: HashMap<String, usize> = HashMap::new();
    for nodeid in nodeids {
        let module = proctor_python::collected_file(nodeid).to_owned();
        let class = nodeid
            .rsplit_once("::")
            .map_or(String::new(), |(prefix, _)| prefix.to_owned());
        let m = *module_at.entry(module.clone()).or_insert_with(|| {
            modules.push((module, Vec::new()));
            modules.len() - 1
        });
        let classes = &mut modules[m].1;
        match classes.iter_mut().find(|(c, _)| *c == class) {
            Some((_, tests)) => tests.push(nodeid.clone()),
            None => classes.push((class, vec![nodeid.clone()])),
        }
    }
    rng.shuffle(&mut modules);
    let mut out = Vec::with_capacity(nodeids.len());
    for (_, mut classes) in modules {
        rng.shuffle(&mut classes);
        for (_, mut tests) in classes {
            rng.shuffle(&mut tests);
            out.extend(tests);
        }
    }
    out
}

/// A class (or a module's top level) and its tests.
type Group = (String, Vec<String>);

/// A small, fast generator; the same seed gives the same order on every
/// machine.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Fisher–Yates.
    fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = usize::try_from(self.next() % (i as u64 + 1)).unwrap_or(0);
            items.swap(i, j);
        }
    }
}

/// A seed from the clock, for `--order random` without `--seed`.
pub(crate) fn fresh_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    u64::from(nanos) ^ u64::from(std::process::id()) << 32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn random_keeps_modules_and_classes_together_and_repeats_with_the_seed() {
        let nodeids = ids(&[
            "a.py::t1",
            "a.py::t2",
            "a.py::C::t3",
            "a.py::C::t4",
            "b.py::t5",
            "b.py::t6",
            "c.py::t7",
        ]);
        let first = order(&nodeids, &Order::Random(42), &|_| Vec::new());
        assert_eq!(first, order(&nodeids, &Order::Random(42), &|_| Vec::new()));
        let mut sorted = first.clone();
        sorted.sort();
        let mut expected = nodeids.clone();
        expected.sort();
        assert_eq!(sorted, expected);
        // Each module's tests are contiguous, and so are each class's.
        for group in ["a.py", "b.py", "a.py::C"] {
            let at: Vec<usize> = first
                .iter()
                .enumerate()
                .filter(|(_, n)| {
                    n.starts_with(&format!("{group}::"))
                        && (group.contains("::") || n.matches("::").count() == 1 || group == "a.py")
                })
                .map(|(i, _)| i)
                .collect();
            assert!(
                at.windows(2).all(|w| w[1] == w[0] + 1),
                "{group} split in {first:?}"
            );
        }
        let orders: std::collections::HashSet<Vec<String>> = (0..20)
            .map(|s| order(&nodeids, &Order::Random(s), &|_| Vec::new()))
            .collect();
        assert!(orders.len() > 5, "seeds change the order");
    }

    #[test]
    fn by_group_follows_the_axis_order() {
        let nodeids = ids(&["t_openai", "t_plain", "t_ollama", "t_ollama2"]);
        let markers = |n: &str| {
            if n.contains("ollama") {
                vec!["ollama".to_owned()]
            } else if n.contains("openai") {
                vec!["openai".to_owned()]
            } else {
                Vec::new()
            }
        };
        let ordered = order(
            &nodeids,
            &Order::ByGroup(ids(&["ollama", "openai"])),
            &markers,
        );
        assert_eq!(
            ordered,
            ids(&["t_ollama", "t_ollama2", "t_openai", "t_plain"])
        );
    }
}
