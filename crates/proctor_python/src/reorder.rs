//! pytest's `reorder_items`: items sharing a higher-scoped parameter
//! (module, class, package or session scope) are grouped together so the
//! parameter is set up once. A port of `_pytest.fixtures.reorder_items`.

use std::collections::{HashMap, HashSet, VecDeque};

use crate::collector::RawItem;
use crate::fixtures::FixtureScope;

const HIGH_SCOPES: [FixtureScope; 4] = [FixtureScope::Session, FixtureScope::Package, FixtureScope::Module, FixtureScope::Class];

type ArgKey = (String, String, Option<String>, Option<String>);

fn argkeys(item: &RawItem, scope: FixtureScope) -> Vec<ArgKey> {
    let (path, class) = match scope {
        FixtureScope::Session => (None, None),
        FixtureScope::Package => (Some(item.file.rsplit_once('/').map_or("", |(d, _)| d).to_string()), None),
        FixtureScope::Module => (Some(item.file.clone()), None),
        FixtureScope::Class => (Some(item.file.clone()), item.class_key.clone()),
        FixtureScope::Function => return Vec::new(),
    };
    let mut out: Vec<ArgKey> = Vec::new();
    for param in &item.high_params {
        if param.scope != scope {
            continue;
        }
        let key = (param.argname.clone(), param.key.clone(), path.clone(), class.clone());
        if !out.contains(&key) {
            out.push(key);
        }
    }
    out
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
    argkeys_by_item: HashMap<FixtureScope, HashMap<usize, Vec<ArgKey>>>,
    items_by_argkey: HashMap<FixtureScope, HashMap<ArgKey, Vec<usize>>>,
}

/// Reorders `items` in place when any of them has a higher-scoped param.
pub(crate) fn reorder_items(items: &mut Vec<RawItem>) {
    let any_high = items.iter().any(|i| !i.high_params.is_empty());
    if !any_high {
        return;
    }
    let mut state = State { argkeys_by_item: HashMap::new(), items_by_argkey: HashMap::new() };
    for scope in HIGH_SCOPES {
        let by_item = state.argkeys_by_item.entry(scope).or_default();
        let by_key = state.items_by_argkey.entry(scope).or_default();
        for (idx, item) in items.iter().enumerate() {
            let keys = argkeys(item, scope);
            if !keys.is_empty() {
                for key in &keys {
                    by_key.entry(key.clone()).or_default().push(idx);
                }
                by_item.insert(idx, keys);
            }
        }
    }
    let order: Vec<usize> = (0..items.len()).collect();
    let result = reorder_atscope(&order, &mut state, FixtureScope::Session);
    let mut slots: Vec<Option<RawItem>> = std::mem::take(items).into_iter().map(Some).collect();
    *items = result.into_iter().filter_map(|i| slots[i].take()).collect();
}

fn reorder_atscope(items: &[usize], state: &mut State, scope: FixtureScope) -> Vec<usize> {
    if scope == FixtureScope::Function || items.len() < 3 {
        return items.to_vec();
    }
    let in_items: HashSet<usize> = items.iter().copied().collect();
    let mut ignore: HashSet<ArgKey> = HashSet::new();
    let mut deque: VecDeque<usize> = items.iter().copied().collect();
    let mut done: Vec<usize> = Vec::new();
    let mut done_set: HashSet<usize> = HashSet::new();
    while !deque.is_empty() {
        let mut no_argkey: Vec<usize> = Vec::new();
        let mut no_argkey_set: HashSet<usize> = HashSet::new();
        let mut slicing = None;
        while let Some(item) = deque.pop_front() {
            if done_set.contains(&item) || no_argkey_set.contains(&item) {
                continue;
            }
            let keys: Vec<ArgKey> = state.argkeys_by_item[&scope]
                .get(&item)
                .map(|ks| ks.iter().filter(|k| !ignore.contains(*k)).cloned().collect())
                .unwrap_or_default();
            if keys.is_empty() {
                no_argkey.push(item);
                no_argkey_set.insert(item);
            } else {
                // `dict.popitem()` takes the last key.
                let key = keys[keys.len() - 1].clone();
                let matching: Vec<usize> = state.items_by_argkey[&scope]
                    .get(&key)
                    .map(|v| v.iter().copied().filter(|i| in_items.contains(i)).collect())
                    .unwrap_or_default();
                for &i in matching.iter().rev() {
                    deque.push_front(i);
                    for other in HIGH_SCOPES {
                        let keys_of_i: Vec<ArgKey> = state.argkeys_by_item[&other].get(&i).cloned().unwrap_or_default();
                        let by_key = state.items_by_argkey.get_mut(&other).expect("all high scopes present");
                        for argkey in keys_of_i {
                            let list = by_key.entry(argkey).or_default();
                            list.retain(|&x| x != i);
                            list.insert(0, i);
                        }
                    }
                }
                slicing = Some(key);
                break;
            }
        }
        if !no_argkey.is_empty() {
            for i in reorder_atscope(&no_argkey, state, lower(scope)) {
                if done_set.insert(i) {
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
