//! Local variables: of a comprehension, a lambda, a function call, or the
//! module code being run for one name. Module-level names that no scope
//! binds are looked up in the module's name table.

use std::cell::RefCell;
use std::rc::Rc;

use crate::value::{PyValue, Text};

/// One scope of local variables, with the scope it is nested in.
///
/// Its names are kept in a list, not a hash map: a comprehension's or a
/// lambda's scope binds one to three names and is asked for each of them
/// (and, missing, for every outer name) once per element, where hashing
/// the name cost more than comparing it with each bound one.
#[derive(Default)]
pub(crate) struct Scope {
    vars: RefCell<Vec<(Text, PyValue)>>,
    parent: Option<Rc<Scope>>,
}

impl Scope {
    /// A new scope inside `parent`.
    pub(crate) fn child(parent: Option<&Rc<Scope>>) -> Rc<Scope> {
        Rc::new(Scope {
            vars: RefCell::new(Vec::new()),
            parent: parent.cloned(),
        })
    }

    /// The value `name` has in this scope or an enclosing one.
    pub(crate) fn get(&self, name: &str) -> Option<PyValue> {
        let mut scope = self;
        loop {
            if let Some((_, value)) = scope.vars.borrow().iter().find(|(n, _)| n == name) {
                return Some(value.clone());
            }
            scope = scope.parent.as_deref()?;
        }
    }

    /// Binds `name` in this scope (a name bound again, as a loop's target
    /// is on every element, keeps its place).
    pub(crate) fn set(&self, name: &str, value: PyValue) {
        let mut vars = self.vars.borrow_mut();
        match vars.iter_mut().find(|(n, _)| n == name) {
            Some((_, bound)) => *bound = value,
            None => vars.push((Text::from(name), value)),
        }
    }

    /// Changes the value of `name` in the scope that binds it, in place
    /// (`items.append(x)`); `false` when no scope binds it.
    pub(crate) fn update(&self, name: &str, change: &mut dyn FnMut(&mut PyValue)) -> bool {
        let mut scope = self;
        loop {
            if let Some((_, value)) = scope.vars.borrow_mut().iter_mut().find(|(n, _)| n == name) {
                change(value);
                return true;
            }
            match scope.parent.as_deref() {
                Some(parent) => scope = parent,
                None => return false,
            }
        }
    }
}
