//! pytest's `reorder_items`: items sharing a higher-scoped parameter
//! (module, class, package or session scope) are grouped together so the
//! parameter is set up once. A port of `_pytest.fixtures.reorder_items`,
//! with parameter keys interned to integers.

use std::collections::VecDeque;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use crate::collector::RawItem;
use crate::fixtures::FixtureScope;

const HIGH_SCOPES: [FixtureScope; 4] = [
    FixtureScope::Session,
    FixtureScope::Package,
    FixtureScope::Module,
    FixtureScope::Class,
];

/// An interned `ParamArgKey`: argname, value key, scoped path and class.
type Key = u32;

fn scope_slot(scope: FixtureScope) -> usize {
    match scope {
        FixtureScope::Session => 0,
        FixtureScope::Package => 1,
        FixtureScope::Module => 2,
        FixtureScope::Class | FixtureScope::Function => 3,
    }
}

fn lower(scope: FixtureScope) -> FixtureScope {
    match scope {
        FixtureScope::Session => FixtureScope::Package,
        FixtureScope::Package => FixtureScope::Module,
        FixtureScope::Module => FixtureScope::Class,
        FixtureScope::Class | FixtureScope::Function => FixtureScope::Function,
    }
}

struct State {
    /// Per scope slot: item -> its keys in order (`OrderedSet`).
    keys_by_item: [HashMap<usize, Vec<Key>>; 4],
    /// Per scope slot: key -> items in order (`OrderedDict`).
    items_by_key: [HashMap<Key, Vec<usize>>; 4],
}

/// Reorders `items` in place when any of them has a higher-scoped param.
pub(crate) fn reorder_items(items: &mut Vec<RawItem>) {
    let Some(result) = reordered(items) else {
        return;
    };
    let mut slots: Vec<Option<RawItem>> = std::mem::take(items).into_iter().map(Some).collect();
    *items = result.into_iter().filter_map(|i| slots[i].take()).collect();
}

/// Whether an item has a parameter whose key spans test modules (package
/// or session scope): only then does pytest's order of a whole session
/// differ from each module's own order put end to end, since module and
/// class keys name the module's file.
pub(crate) fn spans_modules(items: &[RawItem]) -> bool {
    items.iter().any(|item| {
        item.high_params
            .iter()
            .any(|p| matches!(p.scope, FixtureScope::Package | FixtureScope::Session))
    })
}

/// The order `reorder_items` gives `items` (indices into them), or `None`
/// when no item has a higher-scoped param (the order is unchanged).
pub(crate) fn reordered(items: &[RawItem]) -> Option<Vec<usize>> {
    if items.iter().all(|i| i.high_params.is_empty()) {
        return None;
    }
    let mut interner: HashMap<(&str, &str, &str, &str), Key> = HashMap::default();
    let mut state = State {
        keys_by_item: Default::default(),
        items_by_key: Default::default(),
    };
    for scope in HIGH_SCOPES {
        let slot = scope_slot(scope);
        for (idx, item) in items.iter().enumerate() {
            let (path, class): (&str, &str) = match scope {
                FixtureScope::Session => ("", ""),
                FixtureScope::Package => (item.file.rsplit_once('/').map_or("", |(d, _)| d), ""),
                FixtureScope::Module => (&item.file, ""),
                FixtureScope::Class | FixtureScope::Function => {
                    (&item.file, item.class_key.as_deref().unwrap_or(""))
                }
            };
            let mut keys: Vec<Key> = Vec::new();
            for param in item.high_params.iter().filter(|p| p.scope == scope) {
                let next = Key::try_from(interner.len()).unwrap_or(Key::MAX);
                let key = *interner
                    .entry((&param.argname, &param.key, path, class))
                    .or_insert(next);
                if !keys.contains(&key) {
                    keys.push(key);
                }
            }
            if !keys.is_empty() {
                for &key in &keys {
                    state.items_by_key[slot].entry(key).or_default().push(idx);
                }
                state.keys_by_item[slot].insert(idx, keys);
            }
        }
    }
    let order: Vec<usize> = (0..items.len()).collect();
    Some(reorder_atscope(&order, &mut state, FixtureScope::Session))
}

fn reorder_atscope(items: &[usize], state: &mut State, scope: FixtureScope) -> Vec<usize> {
    if scope == FixtureScope::Function || items.len() < 3 {
        return items.to_vec();
    }
    let slot = scope_slot(scope);
    if state.keys_by_item[slot].is_empty() {
        // No item has a parameter of this scope: every item lands in the
        // "no key" group, which pytest reorders at the next scope down.
        return reorder_atscope(items, state, lower(scope));
    }
    // Item indices are dense, so flags live in vectors, not hash sets.
    let size = items.iter().copied().max().map_or(0, |m| m + 1);
    let mut in_items = vec![false; size];
    for &i in items {
        in_items[i] = true;
    }
    let mut done_flag = vec![false; size];
    let mut ignore: HashSet<Key> = HashSet::default();
    let mut deque: VecDeque<usize> = items.iter().copied().collect();
    let mut done: Vec<usize> = Vec::new();
    while !deque.is_empty() {
        let mut no_key: Vec<usize> = Vec::new();
        let mut no_key_flag: HashSet<usize> = HashSet::default();
        let mut slicing = None;
        while let Some(item) = deque.pop_front() {
            if done_flag[item] || no_key_flag.contains(&item) {
                continue;
            }
            // `dict.popitem()` takes the last key not ignored.
            let key = state.keys_by_item[slot]
                .get(&item)
                .and_then(|keys| keys.iter().rev().find(|k| !ignore.contains(k)).copied());
            let Some(key) = key else {
                no_key.push(item);
                no_key_flag.insert(item);
                continue;
            };
            let matching: Vec<usize> = state.items_by_key[slot]
                .get(&key)
                .map(|v| {
                    v.iter()
                        .copied()
                        .filter(|&i| i < size && in_items[i])
                        .collect()
                })
                .unwrap_or_default();
            for &i in matching.iter().rev() {
                deque.push_front(i);
                // Move `i` to the front of every key's item list, as pytest
                // does with `move_to_end(last=False)`.
                for other in 0..HIGH_SCOPES.len() {
                    let Some(keys) = state.keys_by_item[other].get(&i) else {
                        continue;
                    };
                    for key in keys.clone() {
                        let list = state.items_by_key[other].entry(key).or_default();
                        if let Some(pos) = list.iter().position(|&x| x == i) {
                            list.remove(pos);
                        }
                        list.insert(0, i);
                    }
                }
            }
            slicing = Some(key);
            break;
        }
        if !no_key.is_empty() {
            for i in reorder_atscope(&no_key, state, lower(scope)) {
                if !done_flag[i] {
                    done_flag[i] = true;
                    done.push(i);
                }
            }
        }
        if let Some(key) = slicing {
            ignore.insert(key);
        }
    }
    done
}
