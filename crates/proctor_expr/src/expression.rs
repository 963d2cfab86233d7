//! The parsed expression: its tree, its evaluation against a matcher, and its
//! canonical printed form.

use std::fmt;

use crate::error::ParseError;
use crate::parser;

/// The keyword arguments of a call such as `device(serial='123')`, in the
/// order written: what a matcher receives.
pub type Kwargs = [(String, Value)];

/// A literal keyword-argument value of an expression, as pytest parses it.
///
/// pytest accepts a quoted string (no escapes), an integer written as an
/// optional `-` and digits (any script's decimal digits), `True`, `False`
/// and `None`; nothing else (no floats: `x=1.5` is refused with
/// `unexpected character/s "1.5"`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Value {
    /// A string, without its quotes.
    Str(String),
    /// An integer that fits in an `i64`.
    Int(i64),
    /// An integer outside `i64`'s range (Python's integers are unbounded):
    /// its canonical decimal digits, with a leading `-` when negative.
    BigInt(String),
    /// `True` or `False`.
    Bool(bool),
    /// `None`.
    None,
}

impl fmt::Display for Value {
    /// The value as written in an expression: a string in single quotes
    /// (double quotes when it contains a single quote), integers in ASCII
    /// digits, `True`, `False`, `None`. Every value the parser produces
    /// prints as it parses; a string with both kinds of quotes or a
    /// backslash, which no expression can hold, does not.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Str(s) if s.contains('\'') => write!(f, "\"{s}\""),
            Self::Str(s) => write!(f, "'{s}'"),
            Self::Int(i) => write!(f, "{i}"),
            Self::BigInt(digits) => f.write_str(digits),
            Self::Bool(true) => f.write_str("True"),
            Self::Bool(false) => f.write_str("False"),
            Self::None => f.write_str("None"),
        }
    }
}

/// A node of the expression tree. `and` and `or` are binary and nest the way
/// they were written (`a or b or c` is `(a or b) or c`), like pytest's tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Node {
    /// A name, matched by the matcher; with `kwargs`, a call `name(k=v, ...)`.
    Ident {
        name: String,
        kwargs: Option<Vec<(String, Value)>>,
    },
    Not(Box<Node>),
    And(Box<Node>, Box<Node>),
    Or(Box<Node>, Box<Node>),
}

/// A parsed `-m` or `-k` expression (pytest's `Expression`).
///
/// The grammar, from `_pytest/mark/expression.py`:
///
/// ```text
/// expression: expr? EOF
/// expr:       and_expr ('or' and_expr)*
/// and_expr:   not_expr ('and' not_expr)*
/// not_expr:   'not' not_expr | '(' expr ')' | ident kwargs?
/// ident:      (\w|:|\+|-|\.|\[|\]|\\|/)+
/// kwargs:     '(' name '=' value (',' name '=' value)* ')'
/// name:       a Python identifier that is not a keyword
/// value:      a quoted string without `\` | -?digits | True | False | None
/// ```
///
/// Spaces and tabs separate tokens; `\w` is Python's Unicode word class.
/// An identifier may be `True`, `None` or `1` (it is only a name to match).
/// The empty expression (or only blanks) evaluates to false.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expression {
    /// `None` for the empty expression.
    root: Option<Node>,
}

impl Expression {
    /// Parses `input` exactly as pytest's `Expression.compile` does,
    /// reporting its first error with pytest's column and message.
    ///
    /// This is the raw parser: pytest's options treat some inputs specially
    /// before parsing (see [`parse_mark_option`](crate::parse_mark_option) and
    /// [`parse_keyword_option`](crate::parse_keyword_option)).
    pub fn parse(input: &str) -> Result<Expression, ParseError> {
        Ok(Self {
            root: parser::parse(input)?,
        })
    }

    /// pytest's `Expression.evaluate(matcher)`: `matcher(name, kwargs)`
    /// answers one identifier, `kwargs` being `Some` for a call
    /// `name(k=v, ...)` (never empty) and `None` for a bare name.
    ///
    /// `and` and `or` short-circuit like Python's, so an identifier whose
    /// operand is not needed is not asked about. The matcher is asked once
    /// per identifier that is reached; pytest may ask again about the same
    /// occurrence (Python tests the truth of a name once per enclosing
    /// operator), which only a matcher with side effects could notice.
    pub fn evaluate(&self, matcher: &mut dyn FnMut(&str, Option<&Kwargs>) -> bool) -> bool {
        let result: Result<bool, std::convert::Infallible> =
            self.try_evaluate(|name, kwargs| Ok(matcher(name, kwargs)));
        match result {
            Ok(answer) => answer,
        }
    }

    /// [`evaluate`](Self::evaluate) with a matcher that can fail, as
    /// pytest's `-k` matcher fails on a call with keyword arguments: the first
    /// error of a matcher stops the evaluation and is returned.
    pub fn try_evaluate<E>(
        &self,
        mut matcher: impl FnMut(&str, Option<&Kwargs>) -> Result<bool, E>,
    ) -> Result<bool, E> {
        match &self.root {
            None => Ok(false),
            Some(root) => eval(root, &mut matcher),
        }
    }

    /// The identifiers the expression names (pytest's `Expression.idents()`),
    /// each once, in order of first appearance: the names matched and the
    /// names called, not keyword-argument names or values.
    ///
    /// pytest's strict-markers check reports those not registered, sorted
    /// (`Unknown marker(s) in '-m' expression: {names joined by ", "}. Use
    /// 'pytest --markers' to see available markers.`).
    #[must_use]
    pub fn identifiers(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        if let Some(root) = &self.root {
            collect_identifiers(root, &mut out);
        }
        out
    }

    /// Whether this is the empty expression, which matches nothing.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.root.is_none()
    }
}

/// What an expression becomes when some names may take either value
/// ([`Expression::relaxed`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Relaxed {
    /// True whatever the other names are: the expression no longer
    /// constrains anything.
    Always,
    /// False whatever the other names are.
    Never,
    /// An expression over the remaining names.
    Expression(Expression),
    /// Relaxing grew the tree past [`MAX_RELAXED_NODES`] (each freed name
    /// can double it): not computed.
    TooLarge,
}

/// The most nodes [`Expression::relaxed`] builds before it gives up.
pub const MAX_RELAXED_NODES: usize = 100_000;

impl Expression {
    /// The expression with each of `names` free to take either value: for
    /// each name `m`, `E[m:=True] or E[m:=False]` (every occurrence of `m`,
    /// bare or called with keyword arguments, replaced by the constant),
    /// folded so that no constant is left.
    ///
    /// This is how a default selection makes way for an explicit one: the
    /// default stops deciding the markers the explicit expression names.
    ///
    /// ```
    /// use proctor_expr::{Expression, Relaxed};
    ///
    /// let default = Expression::parse("not (slow or credentialed or smoke)").unwrap();
    /// let Relaxed::Expression(relaxed) = default.relaxed(&["live", "slow"]) else { panic!() };
    /// assert_eq!(relaxed.to_string(), "not (credentialed or smoke)");
    /// assert_eq!(Expression::parse("not slow").unwrap().relaxed(&["slow"]), Relaxed::Always);
    /// ```
    #[must_use]
    pub fn relaxed(&self, names: &[&str]) -> Relaxed {
        let Some(root) = &self.root else {
            return Relaxed::Never;
        };
        let mut folded = Folded::Node(root.clone());
        for name in names {
            let Folded::Node(node) = &folded else { break };
            if !mentions(node, name) {
                continue;
            }
            let when_true = substitute(node, name, true);
            let when_false = substitute(node, name, false);
            folded = or(when_true, when_false);
            if let Folded::Node(node) = &folded {
                if size(node) > MAX_RELAXED_NODES {
                    return Relaxed::TooLarge;
                }
            }
        }
        match folded {
            Folded::Const(true) => Relaxed::Always,
            Folded::Const(false) => Relaxed::Never,
            Folded::Node(node) => Relaxed::Expression(Self { root: Some(node) }),
        }
    }
}

/// A subtree after constants were substituted and folded away.
enum Folded {
    Const(bool),
    Node(Node),
}

fn size(node: &Node) -> usize {
    match node {
        Node::Ident { .. } => 1,
        Node::Not(operand) => 1 + size(operand),
        Node::And(lhs, rhs) | Node::Or(lhs, rhs) => 1 + size(lhs) + size(rhs),
    }
}

fn mentions(node: &Node, wanted: &str) -> bool {
    match node {
        Node::Ident { name, .. } => name == wanted,
        Node::Not(operand) => mentions(operand, wanted),
        Node::And(lhs, rhs) | Node::Or(lhs, rhs) => mentions(lhs, wanted) || mentions(rhs, wanted),
    }
}

fn substitute(node: &Node, wanted: &str, value: bool) -> Folded {
    match node {
        Node::Ident { name, .. } if name == wanted => Folded::Const(value),
        Node::Ident { .. } => Folded::Node(node.clone()),
        Node::Not(operand) => match substitute(operand, wanted, value) {
            Folded::Const(b) => Folded::Const(!b),
            Folded::Node(operand) => Folded::Node(Node::Not(Box::new(operand))),
        },
        Node::And(lhs, rhs) => match (
            substitute(lhs, wanted, value),
            substitute(rhs, wanted, value),
        ) {
            (Folded::Const(false), _) | (_, Folded::Const(false)) => Folded::Const(false),
            (Folded::Const(true), other) | (other, Folded::Const(true)) => other,
            (Folded::Node(lhs), Folded::Node(rhs)) => {
                Folded::Node(Node::And(Box::new(lhs), Box::new(rhs)))
            }
        },
        Node::Or(lhs, rhs) => or(
            substitute(lhs, wanted, value),
            substitute(rhs, wanted, value),
        ),
    }
}

/// Whether `x or other` is `x`: `other` is `x and y` or `y and x`.
fn absorbs(x: &Node, other: &Node) -> bool {
    matches!(other, Node::And(lhs, rhs) if **lhs == *x || **rhs == *x)
}

/// `lhs or rhs`, folded; `x or x` and `x or x and y` are `x`.
fn or(lhs: Folded, rhs: Folded) -> Folded {
    match (lhs, rhs) {
        (Folded::Const(true), _) | (_, Folded::Const(true)) => Folded::Const(true),
        (Folded::Const(false), other) | (other, Folded::Const(false)) => other,
        (Folded::Node(lhs), Folded::Node(rhs)) if lhs == rhs || absorbs(&lhs, &rhs) => {
            Folded::Node(lhs)
        }
        (Folded::Node(lhs), Folded::Node(rhs)) if absorbs(&rhs, &lhs) => Folded::Node(rhs),
        (Folded::Node(lhs), Folded::Node(rhs)) => {
            Folded::Node(Node::Or(Box::new(lhs), Box::new(rhs)))
        }
    }
}

fn eval<E, F>(node: &Node, matcher: &mut F) -> Result<bool, E>
where
    F: FnMut(&str, Option<&Kwargs>) -> Result<bool, E>,
{
    Ok(match node {
        Node::Ident { name, kwargs } => matcher(name, kwargs.as_deref())?,
        Node::Not(operand) => !eval(operand, matcher)?,
        Node::And(lhs, rhs) => eval(lhs, matcher)? && eval(rhs, matcher)?,
        Node::Or(lhs, rhs) => eval(lhs, matcher)? || eval(rhs, matcher)?,
    })
}

fn collect_identifiers<'a>(node: &'a Node, out: &mut Vec<&'a str>) {
    match node {
        Node::Ident { name, .. } => {
            if !out.contains(&name.as_str()) {
                out.push(name);
            }
        }
        Node::Not(operand) => collect_identifiers(operand, out),
        Node::And(lhs, rhs) | Node::Or(lhs, rhs) => {
            collect_identifiers(lhs, out);
            collect_identifiers(rhs, out);
        }
    }
}

/// Where a node is printed, which decides whether it needs parentheses.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    Top,
    OrLeft,
    OrRight,
    AndLeft,
    AndRight,
    NotOperand,
}

fn write_node(f: &mut fmt::Formatter<'_>, node: &Node, place: Place) -> fmt::Result {
    let parenthesize = match node {
        Node::Ident { .. } | Node::Not(_) => false,
        Node::Or(..) => !matches!(place, Place::Top | Place::OrLeft),
        Node::And(..) => matches!(place, Place::AndRight | Place::NotOperand),
    };
    if parenthesize {
        f.write_str("(")?;
    }
    match node {
        Node::Ident { name, kwargs } => {
            f.write_str(name)?;
            if let Some(kwargs) = kwargs {
                f.write_str("(")?;
                for (i, (key, value)) in kwargs.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{key}={value}")?;
                }
                f.write_str(")")?;
            }
        }
        Node::Not(operand) => {
            f.write_str("not ")?;
            write_node(f, operand, Place::NotOperand)?;
        }
        Node::And(lhs, rhs) => {
            write_node(f, lhs, Place::AndLeft)?;
            f.write_str(" and ")?;
            write_node(f, rhs, Place::AndRight)?;
        }
        Node::Or(lhs, rhs) => {
            write_node(f, lhs, Place::OrLeft)?;
            f.write_str(" or ")?;
            write_node(f, rhs, Place::OrRight)?;
        }
    }
    if parenthesize {
        f.write_str(")")?;
    }
    Ok(())
}

impl std::str::FromStr for Expression {
    type Err = ParseError;

    /// [`Expression::parse`].
    fn from_str(input: &str) -> Result<Self, ParseError> {
        Self::parse(input)
    }
}

impl fmt::Display for Expression {
    /// A canonical form that parses back to an equal expression: single
    /// spaces around operators, parentheses only where the tree needs them,
    /// `name(k=v, k2=v2)` calls, and nothing for the empty expression.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.root {
            None => Ok(()),
            Some(root) => write_node(f, root, Place::Top),
        }
    }
}

#[cfg(test)]
impl Expression {
    pub(crate) fn from_root(root: Option<Node>) -> Self {
        Self { root }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn name() -> impl Strategy<Value = String> {
        prop_oneof![
            "[a-zA-Z_][a-zA-Z0-9_]{0,5}",
            r"[a-z0-9:+.\[\]/\\-]{1,6}",
            Just("True".to_owned()),
            Just("None".to_owned()),
            Just("-1".to_owned()),
            Just("été".to_owned()),
            Just("٣²".to_owned()),
            Just("oR".to_owned()),
            Just("nota".to_owned()),
        ]
        .prop_filter("operators are not names", |name| {
            !matches!(name.as_str(), "or" | "and" | "not")
        })
    }

    fn value() -> impl Strategy<Value = Value> {
        prop_oneof![
            (
                r#"[^\\'"]{0,6}"#,
                prop_oneof![Just(""), Just("'"), Just("\"")]
            )
                .prop_map(|(s, quote)| Value::Str(format!("{quote}{s}"))),
            any::<i64>().prop_map(Value::Int),
            ("-?[1-9][0-9]{19,30}").prop_map(Value::BigInt),
            any::<bool>().prop_map(Value::Bool),
            Just(Value::None),
        ]
    }

    fn kwargs() -> impl Strategy<Value = Vec<(String, Value)>> {
        proptest::collection::btree_map("[a-z_][a-z0-9_é]{0,4}", value(), 1..4).prop_map(|map| {
            map.into_iter()
                .filter(|(key, _)| !crate::python::is_keyword(key) && key != "__debug__")
                .collect()
        })
    }

    fn node() -> impl Strategy<Value = Node> {
        let leaf =
            (name(), proptest::option::of(kwargs())).prop_map(|(name, kwargs)| Node::Ident {
                name,
                kwargs: kwargs.filter(|kwargs| !kwargs.is_empty()),
            });
        leaf.prop_recursive(8, 64, 2, |inner| {
            prop_oneof![
                inner.clone().prop_map(|node| Node::Not(Box::new(node))),
                (inner.clone(), inner.clone())
                    .prop_map(|(lhs, rhs)| Node::And(Box::new(lhs), Box::new(rhs))),
                (inner.clone(), inner)
                    .prop_map(|(lhs, rhs)| Node::Or(Box::new(lhs), Box::new(rhs))),
            ]
        })
    }

    proptest! {
        #[test]
        fn display_parses_back_to_the_same_tree(root in proptest::option::of(node())) {
            let expr = Expression::from_root(root);
            let printed = expr.to_string();
            let reparsed = Expression::parse(&printed);
            prop_assert_eq!(reparsed.as_ref(), Ok(&expr), "printed as {:?}", printed);
        }
    }

    #[test]
    fn relaxed_frees_the_named_markers() {
        let relax =
            |input: &str, names: &[&str]| match Expression::parse(input).unwrap().relaxed(names) {
                Relaxed::Always => "<always>".to_owned(),
                Relaxed::Never => "<never>".to_owned(),
                Relaxed::Expression(e) => e.to_string(),
                Relaxed::TooLarge => "<too large>".to_owned(),
            };
        let default = "not (slow or credentialed or smoke)";
        assert_eq!(relax(default, &["core"]), default);
        assert_eq!(
            relax(default, &["live", "slow"]),
            "not (credentialed or smoke)"
        );
        assert_eq!(
            relax(default, &["slow", "smoke", "credentialed"]),
            "<always>"
        );
        assert_eq!(relax("not property", &["property"]), "<always>");
        assert_eq!(relax("a and not a", &["a"]), "<never>");
        assert_eq!(relax("a or b", &["a"]), "<always>");
        assert_eq!(relax("(a or b) and c", &["a"]), "c");
        assert_eq!(relax("a and b or not a and c", &["a"]), "b or c");
        assert_eq!(relax("not device(serial='1') and x", &["device"]), "x");
        assert_eq!(relax("", &["a"]), "<never>");
        // Twenty freed names that do not fold away would double the tree
        // twenty times: refused, not built.
        let names: Vec<String> = (0..40).map(|i| format!("m{i}")).collect();
        let many = names
            .chunks(2)
            .map(|pair| format!("({} and {})", pair[0], pair[1]))
            .collect::<Vec<_>>()
            .join(" or ");
        let all: Vec<&str> = names.iter().step_by(2).map(String::as_str).collect();
        assert_eq!(relax(&format!("not ({many}) and z"), &all), "<too large>");
    }

    proptest! {
        /// `E` relaxed on `m` is true exactly where `E[m:=True] or
        /// E[m:=False]` is, evaluated on the original tree.
        #[test]
        fn relaxed_agrees_with_both_substitutions(root in node(), truth in any::<u64>()) {
            let expr = Expression::from_root(Some(root));
            let names = expr.identifiers().into_iter().map(str::to_owned).collect::<Vec<_>>();
            let Some(free) = names.first().cloned() else { return Ok(()) };
            let value_of = |name: &str| names.iter().position(|n| n == name).is_some_and(|i| truth >> (i % 64) & 1 == 1);
            let relaxed = expr.relaxed(&[free.as_str()]);
            let expected = [true, false].into_iter().any(|fixed| {
                expr.evaluate(&mut |name, _| if name == free { fixed } else { value_of(name) })
            });
            let got = match &relaxed {
                Relaxed::Always => true,
                Relaxed::Never => false,
                Relaxed::Expression(e) => e.evaluate(&mut |name, _| value_of(name)),
                Relaxed::TooLarge => return Ok(()),
            };
            prop_assert_eq!(got, expected);
            if let Relaxed::Expression(e) = &relaxed {
                prop_assert!(!e.identifiers().contains(&free.as_str()));
            }
        }
    }

    #[test]
    fn display_parenthesizes_only_where_needed() {
        for (input, canonical) in [
            ("a or b or c", "a or b or c"),
            ("a or (b or c)", "a or (b or c)"),
            ("(a or b) and c", "(a or b) and c"),
            ("a and (b and c)", "a and (b and c)"),
            ("(a and b) or c", "a and b or c"),
            ("a or b and c", "a or b and c"),
            ("not (a and b)", "not (a and b)"),
            ("not not  ( a )", "not not a"),
            ("((a))", "a"),
            ("a\t(x = 1 ,y='b', z=\"'\")", "a(x=1, y='b', z=\"'\")"),
            ("a(x=007, y=-0, z=٣)", "a(x=7, y=0, z=3)"),
            ("", ""),
            (" \t ", ""),
        ] {
            assert_eq!(
                Expression::parse(input).unwrap().to_string(),
                canonical,
                "{input:?}"
            );
        }
    }
}
