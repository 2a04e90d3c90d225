//! Integer overflow in WGSL const-expressions, which WGSL makes a shader-creation error
//! and naga's constant evaluator wraps instead (`2147483647i + 1i` became -2147483648 in
//! the SPIR-V). Checked on the text with checked arithmetic, since naga's module holds
//! only the wrapped result.
//!
//! Only what is certainly a const-expression is evaluated: a whole expression (from a
//! `=`, `(`, `,`, `[`, `{`, `;` or `return` to a `;`, `,`, `)`, `]` or `}`) made of
//! integer literals, `const` names whose values are known, parentheses and integer
//! operators. Anything else in it (a call, a float, a runtime name) leaves it unchecked,
//! so a runtime expression, whose overflow WGSL defines as wrapping, is never refused.

use super::location::{line_col, LineCol};
use std::collections::HashMap;

/// An integer value of a WGSL const-expression.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Value {
    /// An unsuffixed literal: evaluated in 64 bits, converted where it meets a typed one.
    Abstract(i64),
    I32(i32),
    U32(u32),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Token<'a> {
    Int(Value),
    Name(&'a str),
    Op(&'static str),
    /// Anything else (a float, a literal out of range, a keyword's punctuation).
    Other,
}

/// Where the first overflowing const-expression is and what overflowed, if any.
pub fn check(text: &str) -> Option<(LineCol, String)> {
    let tokens = tokenize(text);
    let declared = declaration_counts(&tokens);
    let mut known: HashMap<&str, Value> = HashMap::new();
    let mut i = 0;
    while i < tokens.len() {
        let token = tokens[i].1;
        let starts = matches!(
            token,
            Token::Op("=" | "+=" | "-=" | "*=" | "/=" | "," | ";" | "{" | "[")
                | Token::Name("return")
        ) || (token == Token::Op("(")
            && i > 0
            && matches!(tokens[i - 1].1, Token::Name(_) | Token::Op(">")));
        if !starts {
            i += 1;
            continue;
        }
        let end = (i + 1..tokens.len())
            .find(|&j| !is_pure(tokens[j].1, &known))
            .unwrap_or(tokens.len());
        let ends = tokens
            .get(end)
            .is_some_and(|(_, t)| matches!(t, Token::Op(";" | "," | ")" | "]" | "}")));
        if ends && end > i + 1 {
            let mut parser = Parser {
                tokens: &tokens[i + 1..end],
                known: &known,
                at: 0,
            };
            let parsed = parser.expression(0);
            match parsed {
                Err(message) => return Some((line_col(text, tokens[i + 1].0), message)),
                Ok(Some(value)) if parser.at == parser.tokens.len() => {
                    if let Some((name, ty)) = const_name(&tokens[..=i], &declared) {
                        let typed = match (ty, value) {
                            (Some("i32"), Value::Abstract(v)) => {
                                i32::try_from(v).ok().map(Value::I32)
                            }
                            (Some("u32"), Value::Abstract(v)) => {
                                u32::try_from(v).ok().map(Value::U32)
                            }
                            (_, v) => Some(v),
                        };
                        if let Some(v) = typed {
                            known.insert(name, v);
                        }
                    }
                }
                Ok(_) => {}
            }
        }
        i = end.max(i + 1);
    }
    None
}

/// Tokens that may be part of an integer const-expression.
fn is_pure(token: Token, known: &HashMap<&str, Value>) -> bool {
    match token {
        Token::Int(_) => true,
        Token::Name(name) => known.contains_key(name),
        Token::Op(op) => matches!(
            op,
            "(" | ")" | "+" | "-" | "*" | "/" | "%" | "<<" | ">>" | "&" | "|" | "^" | "~"
        ),
        Token::Other => false,
    }
}

/// How many times each name is declared (`const`, `let`, `var`, `override`, or as a
/// parameter or member `name:`): only a name declared once is taken as a known constant,
/// so a shadowing local never gets the module constant's value.
fn declaration_counts<'a>(tokens: &[(usize, Token<'a>)]) -> HashMap<&'a str, usize> {
    let mut counts = HashMap::new();
    for pair in tokens.windows(2) {
        let name = match pair {
            [(_, Token::Name("const" | "let" | "var" | "override")), (_, Token::Name(n))] => n,
            [(_, Token::Name(n)), (_, Token::Op(":"))] => n,
            _ => continue,
        };
        *counts.entry(*name).or_insert(0) += 1;
    }
    counts
}

/// The name (and type, when one is written) a `const NAME (: TYPE)? =` declaration
/// ending at `=` gives, when the name is declared nowhere else.
fn const_name<'a>(
    before: &[(usize, Token<'a>)],
    declared: &HashMap<&str, usize>,
) -> Option<(&'a str, Option<&'a str>)> {
    let names: Vec<Token> = before.iter().rev().take(5).map(|(_, t)| *t).collect();
    let (name, ty) = match names.as_slice() {
        [Token::Op("="), Token::Name(n), Token::Name("const"), ..] => (*n, None),
        [Token::Op("="), Token::Name(t), Token::Op(":"), Token::Name(n), Token::Name("const")] => {
            (*n, Some(*t))
        }
        _ => return None,
    };
    // A typed declaration ("const a: u32 = 1;") is counted twice: `const a` and `a:`.
    let times = 1 + usize::from(ty.is_some());
    (declared.get(name) == Some(&times)).then_some((name, ty))
}

fn tokenize(text: &str) -> Vec<(usize, Token<'_>)> {
    let bytes = text.as_bytes();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let start = i;
        if b.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if text[i..].starts_with("//") {
            i = text[i..].find('\n').map_or(bytes.len(), |n| i + n);
            continue;
        }
        if text[i..].starts_with("/*") {
            i = skip_block_comment(text, i);
            continue;
        }
        let token = if b.is_ascii_digit() {
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            // `1.5`, `1e-3`: floats are not integers, whatever follows.
            if i < bytes.len() && bytes[i] == b'.' {
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'.') {
                    i += 1;
                }
                Token::Other
            } else {
                int_literal(&text[start..i]).map_or(Token::Other, Token::Int)
            }
        } else if b.is_ascii_alphabetic() || b == b'_' {
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            Token::Name(&text[start..i])
        } else {
            const OPS: [&str; 27] = [
                "<<=", ">>=", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "->", "+=", "-=",
                "*=", "/=", "(", ")", "+", "-", "*", "/", "%", "&", "|", "^", "~", "=",
            ];
            const SINGLE: [&str; 9] = [",", ";", "{", "}", "[", "]", ":", "<", ">"];
            match OPS
                .iter()
                .chain(&SINGLE)
                .find(|op| text[i..].starts_with(**op))
            {
                Some(op) => {
                    i += op.len();
                    Token::Op(op)
                }
                None => {
                    i += text[i..].chars().next().map_or(1, char::len_utf8);
                    Token::Other
                }
            }
        };
        tokens.push((start, token));
    }
    tokens
}

/// Past a WGSL block comment, which nests.
fn skip_block_comment(text: &str, mut i: usize) -> usize {
    let mut depth = 0usize;
    while i < text.len() {
        if text[i..].starts_with("/*") {
            depth += 1;
            i += 2;
        } else if text[i..].starts_with("*/") {
            depth -= 1;
            i += 2;
            if depth == 0 {
                return i;
            }
        } else {
            i += text[i..].chars().next().map_or(1, char::len_utf8);
        }
    }
    text.len()
}

/// An integer literal's value; `None` for a float or one out of its type's range (naga
/// has accepted the source, so such a token is something this reading does not know).
fn int_literal(word: &str) -> Option<Value> {
    let (digits, suffix) = match word.as_bytes().last() {
        Some(b'i' | b'u') => word.split_at(word.len() - 1),
        _ => (word, ""),
    };
    let value = match digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        Some(hex) => i64::from_str_radix(hex, 16).ok()?,
        None if digits.bytes().all(|b| b.is_ascii_digit()) => digits.parse().ok()?,
        None => return None,
    };
    match suffix {
        "i" => i32::try_from(value).ok().map(Value::I32),
        "u" => u32::try_from(value).ok().map(Value::U32),
        _ => Some(Value::Abstract(value)),
    }
}

struct Parser<'t, 'a> {
    tokens: &'t [(usize, Token<'a>)],
    known: &'t HashMap<&'a str, Value>,
    at: usize,
}

/// `Ok(None)`: not an expression this reading can evaluate; `Err`: one that overflows.
type Evaluated = Result<Option<Value>, String>;

impl Parser<'_, '_> {
    fn peek_op(&self) -> Option<&'static str> {
        match self.tokens.get(self.at) {
            Some(&(_, Token::Op(op))) => Some(op),
            _ => None,
        }
    }

    /// Precedence climbing over WGSL's integer operators (WGSL forbids mixing most of
    /// them without parentheses; naga has checked that already).
    fn expression(&mut self, min: u8) -> Evaluated {
        let Some(mut left) = self.unary()? else {
            return Ok(None);
        };
        while let Some(op) = self.peek_op() {
            let precedence = match op {
                "|" | "^" | "&" => 1,
                "<<" | ">>" => 2,
                "+" | "-" => 3,
                "*" | "/" | "%" => 4,
                _ => break,
            };
            if precedence < min {
                break;
            }
            self.at += 1;
            let Some(right) = self.expression(precedence + 1)? else {
                return Ok(None);
            };
            left = match binary(op, left, right)? {
                Some(v) => v,
                None => return Ok(None),
            };
        }
        Ok(Some(left))
    }

    fn unary(&mut self) -> Evaluated {
        let Some(&(_, token)) = self.tokens.get(self.at) else {
            return Ok(None);
        };
        self.at += 1;
        match token {
            Token::Int(v) => Ok(Some(v)),
            Token::Name(name) => Ok(self.known.get(name).copied()),
            Token::Op("(") => {
                let inner = self.expression(0)?;
                if self.peek_op() != Some(")") {
                    return Ok(None);
                }
                self.at += 1;
                Ok(inner)
            }
            Token::Op("-") => Ok(match self.unary()? {
                Some(Value::Abstract(a)) => Some(Value::Abstract(
                    a.checked_neg()
                        .ok_or_else(|| overflow("negation", "abstract-int"))?,
                )),
                Some(Value::I32(a)) => Some(Value::I32(
                    a.checked_neg().ok_or_else(|| overflow("negation", "i32"))?,
                )),
                _ => None,
            }),
            Token::Op("~") => Ok(match self.unary()? {
                Some(Value::Abstract(a)) => Some(Value::Abstract(!a)),
                Some(Value::I32(a)) => Some(Value::I32(!a)),
                Some(Value::U32(a)) => Some(Value::U32(!a)),
                None => None,
            }),
            _ => Ok(None),
        }
    }
}

fn overflow(what: &str, ty: &str) -> String {
    format!(
        "{what} overflows {ty} in a const-expression: WGSL makes that an error (naga would \
         wrap it)"
    )
}

/// One binary operation, its operands converted to a common type as WGSL does.
fn binary(op: &str, left: Value, right: Value) -> Result<Option<Value>, String> {
    use Value::*;
    if matches!(op, "<<" | ">>") {
        let shift = match right {
            U32(s) => s,
            Abstract(s) => match u32::try_from(s) {
                Ok(s) => s,
                Err(_) => return Ok(None),
            },
            I32(_) => return Ok(None),
        };
        return Ok(shifted(op, left, shift));
    }
    let (left, right) = match (left, right) {
        (Abstract(a), I32(_)) => (I32(fit(a, "i32", i32::try_from)?), right),
        (I32(_), Abstract(b)) => (left, I32(fit(b, "i32", i32::try_from)?)),
        (Abstract(a), U32(_)) => (U32(fit(a, "u32", u32::try_from)?), right),
        (U32(_), Abstract(b)) => (left, U32(fit(b, "u32", u32::try_from)?)),
        pair => pair,
    };
    let name = match op {
        "+" => "addition",
        "-" => "subtraction",
        "*" => "multiplication",
        _ => "",
    };
    macro_rules! arith {
        ($a:expr, $b:expr, $wrap:path, $ty:literal) => {{
            let (a, b) = ($a, $b);
            let checked = match op {
                "+" => a.checked_add(b),
                "-" => a.checked_sub(b),
                "*" => a.checked_mul(b),
                // Division and remainder by zero, and MIN / -1, naga refuses itself.
                "/" => return Ok(a.checked_div(b).map($wrap)),
                "%" => return Ok(a.checked_rem(b).map($wrap)),
                "&" => Some(a & b),
                "|" => Some(a | b),
                "^" => Some(a ^ b),
                _ => return Ok(None),
            };
            checked
                .map($wrap)
                .map(Some)
                .ok_or_else(|| overflow(name, $ty))
        }};
    }
    match (left, right) {
        (Abstract(a), Abstract(b)) => arith!(a, b, Abstract, "abstract-int"),
        (I32(a), I32(b)) => arith!(a, b, I32, "i32"),
        (U32(a), U32(b)) => arith!(a, b, U32, "u32"),
        _ => Ok(None),
    }
}

/// An abstract value converted to a concrete type, which must hold it.
fn fit<T, E>(value: i64, ty: &str, convert: impl Fn(i64) -> Result<T, E>) -> Result<T, String> {
    convert(value).map_err(|_| format!("{value} does not fit {ty} in a const-expression"))
}

/// A shift; `None` when naga refuses it itself (shifting by the width or more, or a
/// signed left shift that overflows, which its evaluator checks).
fn shifted(op: &str, value: Value, shift: u32) -> Option<Value> {
    match (op, value) {
        ("<<", Value::U32(a)) => a.checked_shl(shift).map(Value::U32),
        (">>", Value::U32(a)) => a.checked_shr(shift).map(Value::U32),
        ("<<", Value::I32(a)) => a.checked_shl(shift).map(Value::I32),
        (">>", Value::I32(a)) => a.checked_shr(shift).map(Value::I32),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(text: &str) -> Option<String> {
        check(text).map(|(_, m)| m)
    }

    #[test]
    fn concrete_overflow_is_found_where_it_is() {
        let (at, m) = check("const ok = 1i;\nconst a = 2147483647i + 1i;\n").unwrap();
        assert_eq!((at.line, at.col), (2, 11));
        assert!(m.contains("addition overflows i32"), "{m}");
        assert!(message("const a = 4294967295u + 1u;")
            .unwrap()
            .contains("u32"));
        assert!(message("const a = 0u - 1u;")
            .unwrap()
            .contains("subtraction"));
        assert!(message("const a = 65536i * 65536i;").is_some());
        assert!(message("const a = -(-2147483647i - 1i);").is_some());
        // An abstract operand takes the concrete type of the other.
        assert!(message("const a = 2147483647i + 1;").is_some());
        // Through named constants, and inside a call's arguments.
        assert!(message("const a = 2147483647i;\nconst b = a + 1i;").is_some());
        assert!(message("const a: i32 = 65536;\nconst b = a * 65536;").is_some());
        assert!(message("fn f() { var x = 0u; x += 4294967295u + 1u; }").is_some());
        assert!(message("fn f() { let v = vec2<i32>(1i, 2147483647i + (1i)); }").is_some());
    }

    #[test]
    fn what_fits_or_is_not_a_const_expression_passes() {
        for text in [
            "const a = 2147483646i + 1i;",
            "const a = 2147483647 + 1;",
            "const a = -2147483647i - 1i;",
            "const a = 0xFFFFFFFFu;",
            "const a = 1u << 31u;",
            // Runtime values wrap by definition.
            "fn f(x: i32) -> i32 { return x + 2147483647i + 1i; }",
            "fn f(x: i32) -> i32 { return 2147483647i + x; }",
            "fn f(x: i32) -> i32 { let y = x * 65536i * 65536i; return y; }",
            // A local that shadows a constant is not the constant.
            "const a = 2147483647i;\nfn f(a: i32) -> i32 { return a + 1i; }",
            // Floats and calls are not read.
            "const f = 1.5e3 + 2.0;\nconst g = i32(2147483647) + 1i;",
            "// 2147483647i + 1i\n/* const a = 2147483647i + 1i; */",
        ] {
            assert_eq!(message(text), None, "{text}");
        }
    }
}
