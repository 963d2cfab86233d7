//! Suite-level rules about the files that are tests only when they opt in
//! (`[examples]`, `[notebooks]`): an opt-in comment written as an
//! expression, an example that never opted in, a notebook without its
//! metadata block.

pub(crate) mod example_without_opt_in;
pub(crate) mod notebook_without_opt_in;
pub(crate) mod opt_in_expression;

use proctor_python::OptInProblem;

use crate::context::Span;

/// The span of a problem's location.
pub(crate) fn problem_span(problem: &OptInProblem) -> Span {
    let l = &problem.location;
    Span {
        file: l.file.clone(),
        start: proctor_source::LineColumn {
            line: l.line,
            column: l.column,
        },
        end: proctor_source::LineColumn {
            line: l.end_line,
            column: l.end_column,
        },
    }
}
