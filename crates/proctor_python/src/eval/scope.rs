//! Local variables: of a comprehension, a lambda, a function call, or the
//! module code being run for one name. Module-level names that no scope
//! binds are looked up in the module's name table.

use std::cell::RefCell;
use std::rc::Rc;

use rustc_hash::FxHashMap as HashMap;

use crate::value::PyValue;

/// One scope of local variables, with the scope it is nested in.
#[derive(Default)]
pub(crate) struct Scope {
    vars: RefCell<HashMap<String, PyValue>>,
    parent: Option<Rc<Scope>>,
}

impl Scope {
    /// A new scope inside `parent`.
    pub(crate) fn child(parent: Option<&Rc<Scope>>) -> Rc<Scope> {
        Rc::new(Scope {
            vars: RefCell::new(HashMap::default()),
            parent: parent.cloned(),
        })
    }

    /// The value `name` has in this scope or an enclosing one.
    pub(crate) fn get(&self, name: &str) -> Option<PyValue> {
        if let Some(value) = self.vars.borrow().get(name) {
            return Some(value.clone());
        }
        self.parent.as_ref().and_then(|parent| parent.get(name))
    }

    /// Binds `name` in this scope (a name bound again, as a loop's target
    /// is on every element, keeps its key).
    pub(crate) fn set(&self, name: &str, value: PyValue) {
        let mut vars = self.vars.borrow_mut();
        match vars.get_mut(name) {
            Some(bound) => *bound = value,
            None => {
                vars.insert(name.to_owned(), value);
            }
        }
    }

    /// Changes the value of `name` in the scope that binds it, in place
    /// (`items.append(x)`); `false` when no scope binds it.
    pub(crate) fn update(&self, name: &str, change: &mut dyn FnMut(&mut PyValue)) -> bool {
        if let Some(value) = self.vars.borrow_mut().get_mut(name) {
            change(value);
            return true;
        }
        self.parent
            .as_ref()
            .is_some_and(|parent| parent.update(name, change))
    }
}
