//! pytest's scanner and recursive-descent parser (`_pytest/mark/expression.py`),
//! followed by the checks Python's compiler makes on the resulting call
//! expressions.
//!
//! The scanner is lazy with one token of lookahead, like pytest's generator:
//! a bad character is only reported once the parser moves onto it, so
//! `a b $` fails on `b`, not on `$`. The parser follows pytest's recursive
//! functions step by step, but keeps its pending contexts on an explicit
//! stack, so that deeply nested input cannot overflow the thread's stack.

use crate::error::{ParseError, ParseErrorKind};
use crate::expression::{Node, Value};
use crate::python;
use crate::MAX_NESTING;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TokenKind {
    LParen,
    RParen,
    Or,
    And,
    Not,
    Ident,
    Eof,
    Equal,
    String,
    Comma,
}

impl TokenKind {
    /// pytest's `TokenType` value, used in its messages.
    fn describe(self) -> &'static str {
        match self {
            Self::LParen => "left parenthesis",
            Self::RParen => "right parenthesis",
            Self::Or => "or",
            Self::And => "and",
            Self::Not => "not",
            Self::Ident => "identifier",
            Self::Eof => "end of input",
            Self::Equal => "=",
            Self::String => "string literal",
            Self::Comma => ",",
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Token<'a> {
    kind: TokenKind,
    value: &'a str,
    /// Byte offset of the token in the input.
    offset: usize,
}

struct Scanner<'a> {
    input: &'a str,
    /// Byte offset where the next token is lexed.
    pos: usize,
    current: Token<'a>,
}

/// A parsed sub-expression and the depth of its tree.
type Parsed = (Node, usize);

/// A context of pytest's recursive parser that waits for an operand.
enum Pending<'a> {
    /// `not` (the token, for errors).
    Not(Token<'a>),
    /// `(`, which wants `)` after its expression.
    Paren,
    /// The left operand of `and`, and the operator.
    And(Parsed, Token<'a>),
    /// The left operand of `or`, and the operator.
    Or(Parsed, Token<'a>),
}

impl<'a> Scanner<'a> {
    fn new(input: &'a str) -> Result<Self, ParseError> {
        let mut scanner = Self {
            input,
            pos: 0,
            current: Token {
                kind: TokenKind::Eof,
                value: "",
                offset: 0,
            },
        };
        scanner.current = scanner.lex()?;
        Ok(scanner)
    }

    fn error(&self, offset: usize, message: String) -> ParseError {
        ParseError::syntax(self.input, offset, message)
    }

    fn lex(&mut self) -> Result<Token<'a>, ParseError> {
        let input = self.input;
        let bytes = input.as_bytes();
        while matches!(bytes.get(self.pos), Some(b' ' | b'\t')) {
            self.pos += 1;
        }
        let start = self.pos;
        let Some(c) = input[start..].chars().next() else {
            return Ok(Token {
                kind: TokenKind::Eof,
                value: "",
                offset: start,
            });
        };
        let single = |kind| Token {
            kind,
            value: &input[start..=start],
            offset: start,
        };
        let token = match c {
            '(' => single(TokenKind::LParen),
            ')' => single(TokenKind::RParen),
            '=' => single(TokenKind::Equal),
            ',' => single(TokenKind::Comma),
            '\'' | '"' => {
                let Some(close) = input[start + 1..].find(c) else {
                    return Err(self.error(start, format!("closing quote \"{c}\" is missing")));
                };
                let value = &input[start..=start + 1 + close];
                if let Some(backslash) = value.find('\\') {
                    return Err(self.error(
                        start + backslash,
                        r#"escaping with "\" not supported in marker expression"#.to_owned(),
                    ));
                }
                Token {
                    kind: TokenKind::String,
                    value,
                    offset: start,
                }
            }
            _ => {
                let len: usize = input[start..]
                    .chars()
                    .take_while(|&c| python::is_ident_char(c))
                    .map(char::len_utf8)
                    .sum();
                if len == 0 {
                    return Err(self.error(start, format!("unexpected character \"{c}\"")));
                }
                let value = &input[start..start + len];
                let kind = match value {
                    "or" => TokenKind::Or,
                    "and" => TokenKind::And,
                    "not" => TokenKind::Not,
                    _ => TokenKind::Ident,
                };
                Token {
                    kind,
                    value,
                    offset: start,
                }
            }
        };
        self.pos = start + token.value.len();
        Ok(token)
    }

    /// pytest's `Scanner.accept`: consumes the current token if it is of
    /// `kind` (lexing the next one, which may fail).
    fn accept(&mut self, kind: TokenKind) -> Result<Option<Token<'a>>, ParseError> {
        if self.current.kind != kind {
            return Ok(None);
        }
        let token = self.current;
        if kind != TokenKind::Eof {
            self.current = self.lex()?;
        }
        Ok(Some(token))
    }

    /// `accept(kind, reject=True)`.
    fn expect(&mut self, kind: TokenKind) -> Result<Token<'a>, ParseError> {
        match self.accept(kind)? {
            Some(token) => Ok(token),
            None => Err(self.reject(&[kind])),
        }
    }

    fn reject(&self, expected: &[TokenKind]) -> ParseError {
        let expected: Vec<&str> = expected.iter().map(|kind| kind.describe()).collect();
        self.error(
            self.current.offset,
            format!(
                "expected {}; got {}",
                expected.join(" OR "),
                self.current.kind.describe()
            ),
        )
    }

    fn too_deep(&self, offset: usize) -> ParseError {
        ParseError {
            kind: ParseErrorKind::Crash {
                exception: "RecursionError",
            },
            ..self.error(offset, "maximum recursion depth exceeded".to_owned())
        }
    }

    /// Joins two operands, refusing trees deeper than Python can compile.
    fn join(
        &self,
        op: Token<'a>,
        (lhs, lhs_depth): Parsed,
        (rhs, rhs_depth): Parsed,
        make: fn(Box<Node>, Box<Node>) -> Node,
    ) -> Result<Parsed, ParseError> {
        let depth = lhs_depth.max(rhs_depth) + 1;
        if depth > MAX_NESTING {
            return Err(self.too_deep(op.offset));
        }
        Ok((make(Box::new(lhs), Box::new(rhs)), depth))
    }

    /// pytest's `expr` (with `and_expr` and `not_expr` inside it), run on an
    /// explicit stack instead of the call stack, so that no input can
    /// overflow it. The tokens are accepted, and errors raised, in exactly
    /// the order of pytest's recursive functions:
    ///
    /// - `not_expr` accepts `not`s and `(`s, which open pending contexts,
    ///   until an identifier completes an operand;
    /// - a completed operand closes the `not`s above it, then the `and`
    ///   waiting for it, and `and_expr` looks for another `and`;
    /// - when there is none, the `or` waiting closes, and `expr` looks for
    ///   another `or`;
    /// - when there is none, `expr` returns to the `(` that opened it, which
    ///   wants `)` and completes an operand, or to the top level.
    fn expr(&mut self) -> Result<Parsed, ParseError> {
        let mut stack: Vec<Pending<'a>> = Vec::new();
        let mut parentheses = 0_usize;
        loop {
            // `not_expr`: open contexts until an identifier.
            let mut nots = 0_usize;
            let mut operand = loop {
                if let Some(not) = self.accept(TokenKind::Not)? {
                    nots += 1;
                    if nots > MAX_NESTING {
                        return Err(self.too_deep(not.offset));
                    }
                    stack.push(Pending::Not(not));
                } else if let Some(paren) = self.accept(TokenKind::LParen)? {
                    parentheses += 1;
                    if parentheses > MAX_NESTING {
                        return Err(self.too_deep(paren.offset));
                    }
                    stack.push(Pending::Paren);
                } else {
                    break self.ident()?;
                }
            };
            // Return up the contexts the operand completes.
            loop {
                while let Some(&Pending::Not(not)) = stack.last() {
                    stack.pop();
                    let (node, depth) = operand;
                    if depth + 1 > MAX_NESTING {
                        return Err(self.too_deep(not.offset));
                    }
                    operand = (Node::Not(Box::new(node)), depth + 1);
                }
                if matches!(stack.last(), Some(Pending::And(..))) {
                    let Some(Pending::And(lhs, op)) = stack.pop() else {
                        unreachable!("just matched")
                    };
                    operand = self.join(op, lhs, operand, Node::And)?;
                }
                if let Some(op) = self.accept(TokenKind::And)? {
                    stack.push(Pending::And(operand, op));
                    break;
                }
                if matches!(stack.last(), Some(Pending::Or(..))) {
                    let Some(Pending::Or(lhs, op)) = stack.pop() else {
                        unreachable!("just matched")
                    };
                    operand = self.join(op, lhs, operand, Node::Or)?;
                }
                if let Some(op) = self.accept(TokenKind::Or)? {
                    stack.push(Pending::Or(operand, op));
                    break;
                }
                match stack.pop() {
                    None => return Ok(operand),
                    Some(Pending::Paren) => {
                        self.expect(TokenKind::RParen)?;
                        parentheses -= 1;
                    }
                    Some(_) => unreachable!("`not`, `and` and `or` were closed above"),
                }
            }
        }
    }

    /// The end of pytest's `not_expr`: an identifier with optional keyword
    /// arguments.
    fn ident(&mut self) -> Result<Parsed, ParseError> {
        if let Some(ident) = self.accept(TokenKind::Ident)? {
            let kwargs = if self.accept(TokenKind::LParen)?.is_some() {
                let kwargs = self.all_kwargs()?;
                self.expect(TokenKind::RParen)?;
                Some(kwargs)
            } else {
                None
            };
            return Ok((
                Node::Ident {
                    name: ident.value.to_owned(),
                    kwargs,
                },
                1,
            ));
        }
        Err(self.reject(&[TokenKind::Not, TokenKind::LParen, TokenKind::Ident]))
    }

    fn all_kwargs(&mut self) -> Result<Vec<(String, Value)>, ParseError> {
        let mut ret = vec![self.single_kwarg()?];
        while self.accept(TokenKind::Comma)?.is_some() {
            ret.push(self.single_kwarg()?);
        }
        Ok(ret)
    }

    fn single_kwarg(&mut self) -> Result<(String, Value), ParseError> {
        let name = self.expect(TokenKind::Ident)?;
        if !python::is_identifier(name.value) {
            return Err(self.error(
                name.offset,
                format!("not a valid python identifier {}", name.value),
            ));
        }
        if python::is_keyword(name.value) {
            return Err(self.error(
                name.offset,
                format!("unexpected reserved python keyword `{}`", name.value),
            ));
        }
        self.expect(TokenKind::Equal)?;

        let value = if let Some(string) = self.accept(TokenKind::String)? {
            Value::Str(string.value[1..string.value.len() - 1].to_owned())
        } else {
            let token = self.expect(TokenKind::Ident)?;
            let number = token.value;
            let is_int = python::is_digit_str(number)
                || number.strip_prefix('-').is_some_and(python::is_digit_str);
            if is_int {
                match python::parse_int(number) {
                    Ok(python::Integer::Small(value)) => Value::Int(value),
                    Ok(python::Integer::Big(digits)) => Value::BigInt(digits),
                    Err(python::IntError(message)) => {
                        return Err(ParseError {
                            kind: ParseErrorKind::Crash {
                                exception: "ValueError",
                            },
                            ..self.error(token.offset, message)
                        });
                    }
                }
            } else {
                match number {
                    "True" => Value::Bool(true),
                    "False" => Value::Bool(false),
                    "None" => Value::None,
                    _ => {
                        return Err(self
                            .error(token.offset, format!("unexpected character/s \"{number}\"")))
                    }
                }
            }
        };
        Ok((name.value.to_owned(), value))
    }
}

/// Parses `input` as pytest's `Expression.compile` does: `None` for the empty
/// expression.
pub(crate) fn parse(input: &str) -> Result<Option<Node>, ParseError> {
    let mut scanner = Scanner::new(input)?;
    if scanner.accept(TokenKind::Eof)?.is_some() {
        return Ok(None);
    }
    let (root, _) = scanner.expr()?;
    scanner.expect(TokenKind::Eof)?;
    compile_check(&root)?;
    Ok(Some(root))
}

/// The checks `CPython`'s compiler makes on the call expressions (its
/// `validate_keywords`), in the order it visits them: for each keyword
/// argument, `__debug__` is refused, then a later repetition of its name.
fn compile_check(node: &Node) -> Result<(), ParseError> {
    match node {
        Node::Ident { kwargs: None, .. } => Ok(()),
        Node::Ident {
            kwargs: Some(kwargs),
            ..
        } => {
            for (i, (name, _)) in kwargs.iter().enumerate() {
                if name == "__debug__" {
                    return Err(compile_error("cannot assign to __debug__".to_owned()));
                }
                if kwargs[i + 1..].iter().any(|(other, _)| other == name) {
                    return Err(compile_error(format!("keyword argument repeated: {name}")));
                }
            }
            Ok(())
        }
        Node::Not(operand) => compile_check(operand),
        Node::And(lhs, rhs) | Node::Or(lhs, rhs) => {
            compile_check(lhs)?;
            compile_check(rhs)
        }
    }
}

/// A compiler error: its `SyntaxError` carries no text and, as the tree has no
/// real locations, column 1.
fn compile_error(message: String) -> ParseError {
    ParseError {
        column: 1,
        offset: 0,
        message,
        kind: ParseErrorKind::Compile,
    }
}
