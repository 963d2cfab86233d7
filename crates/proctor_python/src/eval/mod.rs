//! A static evaluator for the Python that parametrize lists, ids, marker
//! arguments and fixture params are written in: literals, names bound in
//! the suite and in the project's own source, comprehensions, the common
//! builtins, `itertools`, string formatting, calls of simple functions and
//! lambdas, and the straight-line module code that builds a list
//! (`CASES.append(...)`, `CASES += [...]`). It never imports or runs
//! anything: what it cannot know is a [`PyValue::Unknown`] with the reason,
//! never a guess.
//!
//! Every evaluation is bounded: a budget of steps, a size limit for each
//! string and container, and a depth limit for calls, so no input can make
//! it hang or exhaust memory.

mod builtins;
mod class_factory;
mod class_scope;
mod collect_file;
mod expr;
mod module_code;
mod objects;
mod ops;
mod paths;
mod scope;
mod stmts;
mod target;
mod text;

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};

use ruff_python_ast::{self as ast, Expr};
use rustc_hash::FxHashMap as HashMap;

use crate::project::Project;
use crate::value::PyValue;

pub(crate) use collect_file::{collect_files, HookFile};
pub(crate) use objects::{changed_by_calls, changed_by_functions, named_submodules};
pub(crate) use scope::Scope;
pub(crate) use stmts::MUTATING_METHODS;
pub(crate) use target::literal_reads_target;

/// The items `for x in value` visits, or why they cannot be known.
pub(crate) fn iterate(value: &PyValue) -> Result<Vec<PyValue>, String> {
    ops::iterate(value)
}

/// [`iterate`] of a value given up: its elements moved when not shared.
pub(crate) fn iterate_owned(value: PyValue) -> Result<Vec<PyValue>, String> {
    ops::iterate_owned(value)
}

/// `bool(value)`, or why it cannot be known.
pub(crate) fn truth(value: &PyValue) -> Result<bool, String> {
    ops::truth(value)
}

/// Steps (expressions and statements evaluated) one evaluation may take.
const STEP_BUDGET: u64 = 2_000_000;
/// Elements one container may hold.
pub(crate) const MAX_ELEMENTS: usize = 200_000;
/// Bytes one string may hold.
const MAX_TEXT: usize = 1 << 20;
/// Nested calls of suite functions and lambdas.
const MAX_CALL_DEPTH: u32 = 48;
/// Nested expressions.
const MAX_EXPR_DEPTH: u32 = 160;

/// Distinguishes evaluators, so that a [`PyValue::Function`] is only ever
/// called by the evaluator that made it.
static NEXT_OWNER: AtomicU64 = AtomicU64::new(1);

/// Something the evaluator can call, referred to by a
/// [`PyValue::Function`]'s slot.
#[derive(Clone)]
enum Callable<'a> {
    Lambda {
        module: usize,
        lambda: &'a ast::ExprLambda,
        scope: Option<Rc<Scope>>,
    },
    Function {
        module: usize,
        def: &'a ast::StmtFunctionDef,
        scope: Option<Rc<Scope>>,
    },
    /// A method bound to its receiver (`", ".join`, `"{}".format`).
    Method { receiver: PyValue, name: String },
    /// A builtin or standard-library function known by name (`str`,
    /// `operator.eq`).
    Named(String),
    /// A module of the suite or the project's source, as a value.
    Module(usize),
    /// A class of the suite or the project's source whose attributes can
    /// be read.
    Class {
        module: usize,
        def: &'a ast::StmtClassDef,
    },
}

/// One evaluation context: the project's names, the callables made so far,
/// the budget left, and the module-level names already computed.
pub(crate) struct Evaluator<'p, 'a> {
    project: Project<'p, 'a>,
    owner: u64,
    steps: Cell<u64>,
    calls: Cell<u32>,
    depth: Cell<u32>,
    callables: RefCell<Vec<Callable<'a>>>,
    /// Values of module-level names computed by running module code,
    /// keyed by module and name.
    module_values: RefCell<HashMap<(usize, String), PyValue>>,
    /// Module-level names being computed (a cycle is unknown).
    in_progress: RefCell<Vec<(usize, String)>>,
    /// Literals only: no calls, comprehensions or module code.
    literal_only: bool,
    /// Module-level values computed once (as importing computes them) or
    /// changed in place by a function (`_cache[k] = v`), keyed by the
    /// address of the bound expression.
    globals: RefCell<HashMap<usize, PyValue>>,
    /// Whether a value read so far came from the target interpreter
    /// (`sys.platform`, `sys.version_info`, however it is spelled or
    /// bound): a taint carried through everything computed from it.
    read_target: Cell<bool>,
    /// The keys of [`Self::globals`] whose values were computed from what
    /// the target interpreter decides.
    target_globals: RefCell<rustc_hash::FxHashSet<usize>>,
    /// Per module: the module-level values its functions change in place,
    /// by the address of the bound expression (see
    /// [`Evaluator::changed_global`]).
    changed_globals: RefCell<HashMap<usize, HashMap<usize, String>>>,
    /// Names and attribute chains that resolve to a definition or to
    /// something outside the suite (not to a module-level value, which a
    /// function may change), by module and the address of the expression:
    /// a comprehension reads `operator.lt` once per element.
    references: RefCell<HashMap<(usize, usize), PyValue>>,
}

impl<'p, 'a> Evaluator<'p, 'a> {
    pub(crate) fn new(project: Project<'p, 'a>) -> Self {
        Evaluator {
            project,
            owner: NEXT_OWNER.fetch_add(1, Ordering::Relaxed),
            steps: Cell::new(0),
            calls: Cell::new(0),
            depth: Cell::new(0),
            callables: RefCell::new(Vec::new()),
            module_values: RefCell::new(HashMap::default()),
            in_progress: RefCell::new(Vec::new()),
            literal_only: false,
            globals: RefCell::new(HashMap::default()),
            read_target: Cell::new(false),
            target_globals: RefCell::new(rustc_hash::FxHashSet::default()),
            changed_globals: RefCell::new(HashMap::default()),
            references: RefCell::new(HashMap::default()),
        }
    }

    /// An evaluator of literal values only (see
    /// [`crate::project::Project::eval_literal`]).
    pub(crate) fn literal(project: Project<'p, 'a>) -> Self {
        Evaluator {
            literal_only: true,
            ..Self::new(project)
        }
    }

    /// The value of `expr`, written in module `module` (at module level).
    pub(crate) fn eval(&self, module: usize, expr: &'a Expr) -> PyValue {
        self.expr(module, None, expr)
    }

    /// Calls `callee` (a value this evaluator made, or a builtin) with one
    /// positional argument, as pytest calls an `ids=` callable.
    pub(crate) fn call1(&self, callee: &PyValue, arg: PyValue) -> PyValue {
        self.call_value(callee, vec![arg], Vec::new())
    }

    /// Counts one step; `false` once the budget is spent.
    fn step(&self) -> bool {
        let used = self.steps.get() + 1;
        self.steps.set(used);
        used <= STEP_BUDGET
    }

    fn out_of_budget() -> PyValue {
        PyValue::Unknown("the value takes too many steps to compute statically".to_owned())
    }

    fn register(&self, callable: Callable<'a>, name: String) -> PyValue {
        let mut callables = self.callables.borrow_mut();
        let slot = u32::try_from(callables.len()).unwrap_or(u32::MAX);
        callables.push(callable);
        PyValue::Function {
            name: name.into(),
            owner: self.owner,
            slot,
        }
    }

    fn callable(&self, value: &PyValue) -> Option<Callable<'a>> {
        match value {
            PyValue::Function { owner, slot, .. } if *owner == self.owner => {
                self.callables.borrow().get(*slot as usize).cloned()
            }
            PyValue::Named(name) => Some(Callable::Named(name.to_string())),
            _ => None,
        }
    }
}
