//! The array references of a statement's C text, and the text with its iterators and
//! some references replaced: the lexical part of scalar replacement (module `scalar`).
//!
//! The text is a statement body as the macros hold it (comments removed, one line). It is
//! split into C tokens ([`tokens`]); a reference ([`references`]) is an identifier naming
//! an array of the scop with `n >= 1` dimensions followed by exactly `n` balanced
//! `[...]` subscripts. Only references whose value can be loaded ahead of time with no
//! change in meaning are reported:
//! - a reference after the first operator of conditional evaluation (`?:`, `&&`, `||`)
//!   might not be evaluated at all, and loading it could read outside the array: it is
//!   reported as [`Reference::conditional`], for the caller to load only elements it
//!   knows to exist;
//! - the reference is not inside the arguments of a call (a function-like macro may
//!   evaluate its argument conditionally, or not at all), except a call of a function
//!   or macro that evaluates each argument once as a value ([`value_calls`]: `sqrtf`,
//!   `SQRT_FUN` and the other mathematical functions);
//! - it is not a member name (after `.` or `->`), its address is not taken (`&`), it is
//!   not the operand of `sizeof`, `++`, `--` or an assignment, and it is not followed by
//!   more subscripts, a call or a member access;
//! - its subscripts hold only integer literals, the operators `+ - * / %`, parentheses and
//!   identifiers that are the statement's iterators, the scop's parameters or names that
//!   are no array or scalar of the scop (constants), never called.
//!
//! Text that cannot be tokenised (an unterminated literal, a stray `#` or `\`, a
//! non-ASCII character outside literals, unbalanced parentheses) has no references: the
//! statement is then printed the old way.
//!
//! [`substitute`] rebuilds a token range with every identifier token equal to an
//! iterator replaced by its (parenthesised) value, exactly what the statement macro's
//! expansion produces, and chosen references replaced by names.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

pub(crate) use pollen_emit_text::{matching_bracket, tokens, Token, TokenKind};

/// The assignment operators.
const ASSIGNMENTS: [&str; 11] = [
    "=", "+=", "-=", "*=", "/=", "%=", "&=", "^=", "|=", "<<=", ">>=",
];

/// What the reference scanner knows about the names of a statement.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Names<'a> {
    /// Every array and scalar of the scop, with its number of dimensions.
    pub arrays: &'a BTreeMap<String, usize>,
    /// The statement's iterators.
    pub iterators: &'a [String],
    /// The scop's parameters.
    pub params: &'a [String],
    /// The functions and macros whose calls evaluate each argument exactly once, as a
    /// value ([`value_calls`]): references among their arguments are reported.
    pub calls: &'a BTreeSet<String>,
}

/// The C library's mathematical functions that the scanner knows: a call evaluates
/// each argument once, as a value, and changes no array.
const MATH_FUNCTIONS: [&str; 22] = [
    "sqrt", "sqrtf", "exp", "expf", "log", "logf", "tanh", "tanhf", "erf", "erff", "fabs", "fabsf",
    "pow", "powf", "sin", "sinf", "cos", "cosf", "floor", "floorf", "ceil", "ceilf",
];

/// The macros of `examples/operators/operators.h` (and PolyBench's `polybench.h`) that
/// stand for one call of such a function.
const MATH_MACROS: [&str; 7] = [
    "SQRT_FUN", "EXP_FUN", "LOG_FUN", "TANH_FUN", "ERF_FUN", "ABS_FUN", "POW_FUN",
];

/// The calls among whose arguments references may be replaced ([`Names::calls`]): the
/// mathematical functions of the C library and the macros of the operators' and
/// PolyBench's headers that stand for them, except the names that `source` defines
/// as macros itself (which may then do anything with their arguments).
pub(crate) fn value_calls(source: &str) -> BTreeSet<String> {
    let defined: BTreeSet<String> = defines(source)
        .iter()
        .map(|rest| {
            rest.trim_start()
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect()
        })
        .collect();
    MATH_FUNCTIONS
        .iter()
        .chain(&MATH_MACROS)
        .filter(|name| !defined.contains(**name))
        .map(|name| name.to_string())
        .collect()
}

/// One array reference: the array and the tokens from its name to its last `]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Reference {
    /// The array's name.
    pub array: String,
    /// The token indices of the reference.
    pub tokens: Range<usize>,
    /// Whether it follows an operator of conditional evaluation (it may not be
    /// evaluated).
    pub conditional: bool,
}

/// The references of the tokenised `text` that may be replaced by a value loaded before
/// (in the order they appear), or `None` when the text has unbalanced parentheses or
/// brackets. See the module documentation.
pub(crate) fn references(text: &str, tokens: &[Token], names: Names) -> Option<Vec<Reference>> {
    let spelling = |k: usize| &text[tokens[k].range.clone()];
    let first_conditional = (0..tokens.len())
        .find(|&k| matches!(spelling(k), "?" | "&&" | "||"))
        .unwrap_or(tokens.len());
    let mut out = Vec::new();
    // One entry per open parenthesis: whether it opens a call's arguments.
    let mut calls: Vec<bool> = Vec::new();
    let mut brackets = 0usize;
    let mut k = 0;
    while k < tokens.len() {
        match spelling(k) {
            "(" => calls.push(
                k > 0
                    && tokens[k - 1].kind == TokenKind::Identifier
                    && !names.calls.contains(spelling(k - 1)),
            ),
            ")" => {
                calls.pop()?;
            }
            "[" => brackets += 1,
            "]" => brackets = brackets.checked_sub(1)?,
            _ => {}
        }
        if tokens[k].kind == TokenKind::Identifier && !calls.contains(&true) {
            if let Some(end) = reference_end(text, tokens, k, names) {
                out.push(Reference {
                    array: spelling(k).to_string(),
                    tokens: k..end,
                    conditional: k > first_conditional,
                });
                k = end;
                continue;
            }
        }
        k += 1;
    }
    (calls.is_empty() && brackets == 0).then_some(out)
}

/// A linear expression of a subscript: the constant and the coefficient of each name.
pub(crate) type Linear = (i128, BTreeMap<String, i128>);

/// The subscripts of the reference whose name is token `k`, with `dimensions`
/// subscripts, each linear in names and integer literals (`+`, `-`, multiplication by a
/// literal, parentheses), and the token index after the last `]`; `None` for anything
/// else (a division, a call, another reference, a name times a name).
pub(crate) fn linear_subscripts(
    text: &str,
    tokens: &[Token],
    k: usize,
    dimensions: usize,
) -> Option<(Vec<Linear>, usize)> {
    let mut out = Vec::new();
    let mut at = k + 1;
    for _ in 0..dimensions {
        if tokens.get(at).map(|t| &text[t.range.clone()]) != Some("[") {
            return None;
        }
        let close = matching_bracket(text, tokens, at, tokens.len())?;
        let mut parser = LinearParser {
            text,
            tokens: &tokens[at + 1..close],
            at: 0,
        };
        let value = parser.sum()?;
        if parser.at != parser.tokens.len() {
            return None;
        }
        out.push(value);
        at = close + 1;
    }
    Some((out, at))
}

/// A recursive-descent reader of linear expressions over tokens.
struct LinearParser<'a> {
    text: &'a str,
    tokens: &'a [Token],
    at: usize,
}

impl LinearParser<'_> {
    fn peek(&self) -> Option<&str> {
        self.tokens
            .get(self.at)
            .map(|t| &self.text[t.range.clone()])
    }

    /// `term (('+' | '-') term)*`.
    fn sum(&mut self) -> Option<Linear> {
        let mut value = self.term()?;
        while let Some(op @ ("+" | "-")) = self.peek() {
            let sign = if op == "+" { 1 } else { -1 };
            self.at += 1;
            value = add(value, scale(self.term()?, sign)?)?;
        }
        Some(value)
    }

    /// `factor ('*' factor)*`, one side of each product a constant.
    fn term(&mut self) -> Option<Linear> {
        let mut value = self.factor()?;
        while self.peek() == Some("*") {
            self.at += 1;
            let other = self.factor()?;
            value = match (value.1.is_empty(), other.1.is_empty()) {
                (true, _) => scale(other, value.0)?,
                (_, true) => scale(value, other.0)?,
                _ => return None,
            };
        }
        Some(value)
    }

    /// A literal, a name, `-factor` or `(sum)`.
    fn factor(&mut self) -> Option<Linear> {
        let token = self.tokens.get(self.at)?;
        let s = &self.text[token.range.clone()];
        self.at += 1;
        match token.kind {
            TokenKind::Number => Some((s.parse::<i128>().ok()?, BTreeMap::new())),
            TokenKind::Identifier => Some((0, BTreeMap::from([(s.to_string(), 1)]))),
            TokenKind::Punctuator if s == "-" => scale(self.factor()?, -1),
            TokenKind::Punctuator if s == "(" => {
                let value = self.sum()?;
                (self.peek() == Some(")")).then_some(())?;
                self.at += 1;
                Some(value)
            }
            _ => None,
        }
    }
}

fn scale((c, terms): Linear, k: i128) -> Option<Linear> {
    let mut out = BTreeMap::new();
    for (name, v) in terms {
        out.insert(name, v.checked_mul(k)?);
    }
    Some((c.checked_mul(k)?, out))
}

fn add((c, mut terms): Linear, (d, others): Linear) -> Option<Linear> {
    for (name, v) in others {
        let t = terms.entry(name).or_insert(0);
        *t = t.checked_add(v)?;
    }
    terms.retain(|_, v| *v != 0);
    Some((c.checked_add(d)?, terms))
}

/// One plain element reference found by [`element_references`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ElementReference {
    /// The token indices of the reference.
    pub tokens: Range<usize>,
    /// Whether it may not be evaluated: after an operator of conditional evaluation, or
    /// inside the arguments of a plain macro (which may evaluate them conditionally).
    pub conditional: bool,
}

/// The token ranges of every occurrence of `array` (with `dimensions >= 1` dimensions)
/// in the tokenised `text`, or `None` unless each is a plain element reference whose
/// value a variable of the element type can stand for: not a member name, its address
/// not taken, not inside the arguments of a call (a function-like macro may take it)
/// other than a call of one of the `plain` macros ([`plain_macros`]), followed by exactly
/// `dimensions` linear subscripts ([`linear_subscripts`]) and by no further subscript,
/// call or member access. Unlike [`references`], assignment
/// targets are included.
pub(crate) fn element_references(
    text: &str,
    tokens: &[Token],
    array: &str,
    dimensions: usize,
    plain: &BTreeSet<String>,
) -> Option<Vec<ElementReference>> {
    let spelling = |k: usize| &text[tokens[k].range.clone()];
    let first_conditional = (0..tokens.len())
        .find(|&k| matches!(spelling(k), "?" | "&&" | "||"))
        .unwrap_or(tokens.len());
    let mut out = Vec::new();
    // One entry per open parenthesis: whether it opens a call's arguments, and whether
    // that call is of a plain macro.
    let mut calls: Vec<(bool, bool)> = Vec::new();
    let mut k = 0;
    while k < tokens.len() {
        match spelling(k) {
            "(" => {
                let call = k > 0 && tokens[k - 1].kind == TokenKind::Identifier;
                let plain_call = call && plain.contains(spelling(k - 1));
                calls.push((call && !plain_call, plain_call));
            }
            ")" => {
                calls.pop()?;
            }
            _ => {}
        }
        if tokens[k].kind != TokenKind::Identifier || spelling(k) != array {
            k += 1;
            continue;
        }
        if dimensions == 0
            || calls.iter().any(|c| c.0)
            || (k > 0
                && (tokens[k - 1].kind != TokenKind::Punctuator
                    || matches!(spelling(k - 1), "." | "->" | "&")))
        {
            return None;
        }
        let (_, end) = linear_subscripts(text, tokens, k, dimensions)?;
        if end < tokens.len() && matches!(spelling(end), "[" | "(" | "." | "->") {
            return None;
        }
        out.push(ElementReference {
            tokens: k..end,
            conditional: k > first_conditional || calls.iter().any(|c| c.1),
        });
        k = end;
    }
    Some(out)
}

/// The text after `define` of every `#define` line of `source`, continuation lines
/// joined.
fn defines(source: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut lines = source.lines();
    while let Some(line) = lines.next() {
        let mut text = line.to_string();
        while text.ends_with('\\') {
            text.pop();
            match lines.next() {
                Some(next) => text.push_str(next),
                None => break,
            }
        }
        let Some(rest) = text.trim_start().strip_prefix('#') else {
            continue;
        };
        if let Some(rest) = rest.trim_start().strip_prefix("define") {
            out.push(rest.to_string());
        }
    }
    out
}

/// The function-like macros `#define` in `source` whose arguments are plain values:
/// each parameter appears in the body only where a value is read (never after `&`,
/// `++`, `--`, `.` or `->`, never before an assignment operator, `++`, `--`, `[`, `(`,
/// `.` or `->`, parentheses around it skipped), and the body has no `#` or `##` and no `sizeof`. An element reference
/// among such a macro's arguments can stand for a variable holding its value
/// (`max_score(table[i][j], ...)`). A name defined twice is left out.
pub(crate) fn plain_macros(source: &str) -> BTreeSet<String> {
    let mut plain = BTreeSet::new();
    let mut seen = BTreeSet::new();
    for rest in defines(source) {
        let rest = rest.as_str();
        let Some((name, params, body)) = function_like(rest) else {
            continue;
        };
        if !seen.insert(name.clone()) {
            plain.remove(&name);
            continue;
        }
        if plain_body(&params, body) {
            plain.insert(name);
        }
    }
    plain
}

/// A function-like macro of two parameters that selects one of them by comparing them:
/// `((x) > (y) ? (x) : (y))` and the like.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SelectMacro {
    /// The comparison: `>`, `<`, `>=` or `<=`.
    pub op: &'static str,
    /// The parameter on the comparison's left (the other is on its right).
    pub p: usize,
    /// The parameter that is the value when the comparison holds, and when it does not.
    pub if_true: usize,
    pub if_false: usize,
}

/// The select macros a statement may call ([`SelectMacro`]): `MAX_FUN(x, y)` as
/// `((x) > (y) ? (x) : (y))` and `MIN_FUN(x, y)` as `((x) < (y) ? (x) : (y))`, the
/// definitions of `examples/operators/operators.h` that the tensor front end's programs
/// use, unless `source` defines them otherwise; and every function-like macro that
/// `source` defines (each time it does) as `((a) op (b) ? (c) : (d))`, the outer
/// parentheses optional, with `a`, `b` its two parameters and `c`, `d` each one of them.
pub(crate) fn select_macros(source: &str) -> BTreeMap<String, SelectMacro> {
    let mut found: BTreeMap<String, Option<SelectMacro>> = BTreeMap::new();
    for rest in defines(source) {
        let rest = rest.as_str();
        let Some((name, params, body)) = function_like(rest) else {
            // An object-like definition of the name takes it out too.
            let name: String = rest
                .trim_start()
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                found.insert(name, None);
            }
            continue;
        };
        let this = select_body(&params, body);
        let entry = found.entry(name).or_insert(this);
        if *entry != this {
            *entry = None;
        }
    }
    let mut out = BTreeMap::new();
    for (name, op) in [("MAX_FUN", ">"), ("MIN_FUN", "<")] {
        let m = SelectMacro {
            op,
            p: 0,
            if_true: 0,
            if_false: 1,
        };
        out.insert(name.to_string(), m);
    }
    for (name, m) in found {
        match m {
            Some(m) => out.insert(name, m),
            None => out.remove(&name),
        };
    }
    out
}

/// The select of a macro body over two parameters ([`select_macros`]).
fn select_body(params: &[String], body: &str) -> Option<SelectMacro> {
    if params.len() != 2 {
        return None;
    }
    let ts = tokens(body)?;
    let mut s: Vec<&str> = ts.iter().map(|t| &body[t.range.clone()]).collect();
    // Outer parentheses: the first token's `(` closes at the last token.
    let mut depth = 0usize;
    let outer = s.len() >= 2
        && s.iter().enumerate().all(|(k, t)| {
            match *t {
                "(" => depth += 1,
                ")" => depth = depth.saturating_sub(1),
                _ => {}
            }
            depth > 0 || k == s.len() - 1
        });
    if outer {
        s = s[1..s.len() - 1].to_vec();
    }
    let ["(", a, ")", op, "(", b, ")", "?", "(", c, ")", ":", "(", d, ")"] = s[..] else {
        return None;
    };
    let param = |x: &str| params.iter().position(|p| p == x);
    let (a, b, c, d) = (param(a)?, param(b)?, param(c)?, param(d)?);
    let op = match op {
        ">" => ">",
        "<" => "<",
        ">=" => ">=",
        "<=" => "<=",
        _ => return None,
    };
    (a != b).then_some(SelectMacro {
        op,
        p: a,
        if_true: c,
        if_false: d,
    })
}

/// `NAME(p1, ..., pn) body` after `#define` (a blank first): the name, the parameters
/// and the body; `None` for an object-like macro or a variadic one.
fn function_like(rest: &str) -> Option<(String, Vec<String>, &str)> {
    if !rest.starts_with([' ', '\t']) {
        return None;
    }
    let rest = rest.trim_start();
    let name_end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    let (name, after) = rest.split_at(name_end);
    let after = after.strip_prefix('(')?;
    let close = after.find(')')?;
    let params: Vec<String> = after[..close]
        .split(',')
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty())
        .collect();
    if name.is_empty() || params.iter().any(|p| !pollen_emit_text::is_identifier(p)) {
        return None;
    }
    Some((name.to_string(), params, &after[close + 1..]))
}

/// Whether every use of a parameter in a macro body reads its value (see
/// [`plain_macros`]).
fn plain_body(params: &[String], body: &str) -> bool {
    let Some(ts) = tokens(body) else {
        return false;
    };
    let spelling = |k: usize| &body[ts[k].range.clone()];
    for k in 0..ts.len() {
        let s = spelling(k);
        if s == "sizeof" || s.starts_with('#') {
            return false;
        }
        if ts[k].kind != TokenKind::Identifier || !params.iter().any(|p| p == s) {
            continue;
        }
        // Parentheses around the parameter do not change what is done to it.
        let before = (0..k).rev().find(|&b| spelling(b) != "(");
        if before.is_some_and(|b| matches!(spelling(b), "&" | "++" | "--" | "." | "->")) {
            return false;
        }
        if let Some(after) = (k + 1..ts.len()).find(|&a| spelling(a) != ")") {
            let after = spelling(after);
            if ASSIGNMENTS.contains(&after) || matches!(after, "++" | "--" | "[" | "(" | "." | "->")
            {
                return false;
            }
        }
    }
    true
}

/// The token index after the replaceable reference whose name is token `k`, if it is
/// one.
fn reference_end(text: &str, tokens: &[Token], k: usize, names: Names) -> Option<usize> {
    let spelling = |k: usize| &text[tokens[k].range.clone()];
    let dimensions = *names.arrays.get(spelling(k))?;
    if dimensions == 0 {
        return None;
    }
    if k > 0 {
        let before = &tokens[k - 1];
        if before.kind != TokenKind::Punctuator
            || matches!(spelling(k - 1), "." | "->" | "&" | "++" | "--")
        {
            return None;
        }
    }
    let mut end = k + 1;
    for _ in 0..dimensions {
        let close = matching_bracket(text, tokens, end, tokens.len())?;
        if !valid_subscript(text, tokens, end + 1..close, names) {
            return None;
        }
        end = close + 1;
    }
    if end < tokens.len() {
        let after = spelling(end);
        if matches!(after, "[" | "(" | "." | "->" | "++" | "--") || ASSIGNMENTS.contains(&after) {
            return None;
        }
    }
    Some(end)
}

/// Whether the tokens `range` form a subscript that can be evaluated ahead of time:
/// non-empty, balanced parentheses, integer literals, `+ - * / %` and names that are
/// iterators, parameters or no variable of the scop, none of them called.
fn valid_subscript(text: &str, tokens: &[Token], range: Range<usize>, names: Names) -> bool {
    if range.is_empty() {
        return false;
    }
    let mut depth = 0usize;
    for k in range.clone() {
        let t = &tokens[k];
        let s = &text[t.range.clone()];
        let ok = match t.kind {
            TokenKind::Identifier => {
                let called = k + 1 < range.end && &text[tokens[k + 1].range.clone()] == "(";
                let known = names.iterators.iter().any(|i| i == s)
                    || names.params.iter().any(|p| p == s)
                    || !names.arrays.contains_key(s);
                known && !called
            }
            TokenKind::Number => s.bytes().all(|c| c == b'_' || c.is_ascii_alphanumeric()),
            TokenKind::Literal => false,
            TokenKind::Punctuator => match s {
                "(" => {
                    depth += 1;
                    true
                }
                ")" => match depth.checked_sub(1) {
                    Some(d) => {
                        depth = d;
                        true
                    }
                    None => false,
                },
                "+" | "-" | "*" | "/" | "%" => true,
                _ => false,
            },
        };
        if !ok {
            return false;
        }
    }
    depth == 0
}

/// The text of the tokens `range` with every identifier equal to `iterators[i]`
/// replaced by `values[i]` and every reference of `replaced` (token ranges inside
/// `range`, in order, disjoint) by its name; the whitespace between tokens is kept.
pub(crate) fn substitute(
    text: &str,
    tokens: &[Token],
    range: Range<usize>,
    iterators: &[String],
    values: &[String],
    replaced: &[(Range<usize>, String)],
) -> String {
    let mut out = String::new();
    let mut replaced = replaced.iter().peekable();
    let mut k = range.start;
    while k < range.end {
        if k > range.start {
            out.push_str(&text[tokens[k - 1].range.end..tokens[k].range.start]);
        }
        if let Some((r, name)) = replaced.peek() {
            if r.start == k {
                out.push_str(name);
                k = r.end;
                replaced.next();
                continue;
            }
        }
        out.push_str(&token_value(text, &tokens[k], iterators, values));
        k += 1;
    }
    out
}

/// The tokens `range` with the iterators replaced by their values, separated by single
/// spaces: two references are the same element exactly when these texts are equal.
pub(crate) fn key(
    text: &str,
    tokens: &[Token],
    range: Range<usize>,
    iterators: &[String],
    values: &[String],
) -> String {
    tokens[range]
        .iter()
        .map(|t| token_value(text, t, iterators, values))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A token's text, or the value of the iterator it names.
fn token_value(text: &str, token: &Token, iterators: &[String], values: &[String]) -> String {
    let s = &text[token.range.clone()];
    if token.kind == TokenKind::Identifier {
        if let Some(i) = iterators.iter().position(|it| it == s) {
            return values[i].clone();
        }
    }
    s.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arrays(list: &[(&str, usize)]) -> BTreeMap<String, usize> {
        list.iter().map(|(n, d)| (n.to_string(), *d)).collect()
    }

    /// The texts of the references found in `text`.
    fn found(text: &str, arrays: &BTreeMap<String, usize>, iterators: &[&str]) -> Vec<String> {
        let iterators: Vec<String> = iterators.iter().map(|s| s.to_string()).collect();
        let params = vec!["N".to_string()];
        let ts = tokens(text).expect("tokenises");
        let calls = value_calls("#define MY_SQRT(x) (x > 0 ? sqrtf(x) : 0)\n#define expf(x) 1\n");
        let names = Names {
            arrays,
            iterators: &iterators,
            params: &params,
            calls: &calls,
        };
        references(text, &ts, names)
            .expect("scans")
            .iter()
            .map(|r| {
                text[ts[r.tokens.start].range.start..ts[r.tokens.end - 1].range.end].to_string()
            })
            .collect()
    }

    #[test]
    fn element_references_include_targets_and_refuse_other_uses() {
        let none = BTreeSet::new();
        let texts = |text: &str, array: &str, dims: usize| {
            let ts = tokens(text).expect("tokenises");
            element_references(text, &ts, array, dims, &none).map(|v| {
                v.iter()
                    .map(|r| r.tokens.clone())
                    .map(|r| text[ts[r.start].range.start..ts[r.end - 1].range.end].to_string())
                    .collect::<Vec<_>>()
            })
        };
        assert_eq!(
            texts("C[i][j] += alpha * A[i][k] * C[i][j]", "C", 2),
            Some(vec!["C[i][j]".to_string(), "C[i][j]".to_string()])
        );
        assert_eq!(texts("x = A[i][0]", "C", 2), Some(Vec::new()));
        // Linear subscripts are read; a division, a product of names, an address, a
        // call's argument, a pointer use are refused.
        assert_eq!(
            texts("C[i + 1][2 * (j - 1)] = C[-i][j * 3]", "C", 2),
            Some(vec![
                "C[i + 1][2 * (j - 1)]".to_string(),
                "C[-i][j * 3]".to_string()
            ])
        );
        assert_eq!(texts("C[i / 2][j] = 0", "C", 2), None);
        assert_eq!(texts("C[i * j][j] = 0", "C", 2), None);
        assert_eq!(texts("C[B[i]][j] = 0", "C", 2), None);
        assert_eq!(texts("f(&C[i][j])", "C", 2), None);
        assert_eq!(texts("C[i][j] = g(C[i][j])", "C", 2), None);
        assert_eq!(texts("p = C", "C", 2), None);
        assert_eq!(texts("C[i][j][k] = 0", "C", 2), None);
    }

    #[test]
    fn select_macros_are_comparisons_of_their_parameters() {
        let source = "#define MYMAX(a, b) ((a) > (b) ? (a) : (b))\n\
                      #define LOW(a, b) (a) <= (b) ? (b) : (a)\n\
                      #define BARE(a, b) (a > b ? a : b)\n\
                      #define SAME(a, b) ((a) > (a) ? (a) : (b))\n\
                      #define TWICE(a, b) ((a) < (b) ? (a) : (b))\n\
                      #define TWICE(a, b) ((a) > (b) ? (a) : (b))\n\
                      #ifdef D\n#define MIN_FUN(x, y) ((x) < (y) ? (x) : (y))\n\
                      #else\n#define MIN_FUN(x, y) ((x) < (y) ? (x) : (y))\n#endif\n";
        let found = select_macros(source);
        let names: Vec<&str> = found.keys().map(|k| k.as_str()).collect();
        // MAX_FUN by the operators' convention; MIN_FUN defined twice alike.
        assert_eq!(names, ["LOW", "MAX_FUN", "MIN_FUN", "MYMAX"]);
        let max = SelectMacro {
            op: ">",
            p: 0,
            if_true: 0,
            if_false: 1,
        };
        assert_eq!(found["MYMAX"], max);
        assert_eq!(found["MAX_FUN"], max);
        assert_eq!(found["MIN_FUN"], SelectMacro { op: "<", ..max });
        assert_eq!(
            found["LOW"],
            SelectMacro {
                op: "<=",
                p: 0,
                if_true: 1,
                if_false: 0
            }
        );
        // A file that defines MAX_FUN otherwise, or as an object, takes it out.
        let other = select_macros("#define MAX_FUN(x, y) fmaxf(x, y)\n#define MIN_FUN 3\n");
        assert!(other.is_empty(), "{other:?}");
    }

    #[test]
    fn plain_macros_take_their_arguments_as_values() {
        let source = "#define max_score(s1, s2) ((s1 >= s2) ? s1 : s2)\n\
                      # define match(b1, b2) (((b1)+(b2)) == 3 ? 1 : 0)\n\
                      #define ADDR(x) (&(x))\n#define SET(x, v) x = v\n\
                      #define STR(x) #x\n#define INC(x) (x)++\n#define SIZE(x) sizeof(x)\n\
                      #define N 10\n#define LONG(a, \\\n b) (a + b)\n\
                      #define TWICE(a) a\n#define TWICE(a) &a\n";
        let plain: Vec<String> = plain_macros(source).into_iter().collect();
        assert_eq!(plain, ["LONG", "match", "max_score"]);
        // An element among a plain macro's arguments is a reference that may not be
        // evaluated; among another call's arguments it is none.
        let text = "table[i][j] = max_score(table[i][j], table[i][k] + f(table[k][j]))";
        let ts = tokens(text).expect("tokenises");
        let with = plain_macros(source);
        assert_eq!(element_references(text, &ts, "table", 2, &with), None);
        let text = "table[i][j] = max_score(table[i][j], table[i][k] + table[k][j])";
        let ts = tokens(text).expect("tokenises");
        let found = element_references(text, &ts, "table", 2, &with).expect("plain");
        let conditional: Vec<bool> = found.iter().map(|r| r.conditional).collect();
        assert_eq!(conditional, [false, true, true, true]);
        assert_eq!(
            element_references(text, &ts, "table", 2, &BTreeSet::new()),
            None
        );
    }

    #[test]
    fn references_of_gemm() {
        let a = arrays(&[("A", 2), ("B", 2), ("C", 2), ("alpha", 0)]);
        assert_eq!(
            found("C[i][j] += alpha * A[i][k] * B[k][j]", &a, &["i", "k", "j"]),
            ["A[i][k]", "B[k][j]"],
            "the written reference is not replaceable"
        );
        assert_eq!(
            found("x = A[i + 1][(N - 1) * 2 % 3] + B[i][ j ]", &a, &["i", "j"]),
            ["A[i + 1][(N - 1) * 2 % 3]", "B[i][ j ]"]
        );
    }

    #[test]
    fn references_need_every_subscript() {
        let a = arrays(&[("A", 2), ("x", 1)]);
        // Too few and too many subscripts, and a scalar of the scop.
        assert!(found("y = A[i] + A[i][j][k] + x", &a, &["i", "j", "k"]).is_empty());
        assert_eq!(
            found("y = x[i] + x [ j ]", &a, &["i", "j"]),
            ["x[i]", "x [ j ]"]
        );
    }

    #[test]
    fn members_addresses_and_calls_are_not_references() {
        let a = arrays(&[("A", 1), ("B", 1), ("w", 0)]);
        let none: Vec<String> = Vec::new();
        assert_eq!(found("s.A[i] = p->B[i]", &a, &["i"]), none);
        assert_eq!(found("y = &A[i]", &a, &["i"]), none);
        assert_eq!(found("y = sizeof A[i]", &a, &["i"]), none);
        assert_eq!(found("y = f(A[i], (B[i]))", &a, &["i"]), none);
        // The C library's mathematical functions and the operators' macros for them
        // evaluate their arguments once, as values; a macro of the file may not, and a
        // name the file defines as a macro is no longer the function.
        assert_eq!(
            found(
                "y = sqrtf(A[i] + 1) * SQRT_FUN(B[i]) + powf(A[i], 2)",
                &a,
                &["i"]
            ),
            ["A[i]", "B[i]", "A[i]"]
        );
        assert_eq!(found("y = MY_SQRT(A[i]) + expf(B[i])", &a, &["i"]), none);
        assert_eq!(found("y = sqrtf(f(A[i]))", &a, &["i"]), none);
        assert_eq!(found("y = A[i](1) + B[i].x + A[i]++", &a, &["i"]), none);
        // Parentheses that are no call do not hide a reference.
        assert_eq!(
            found("y = (A[i]) * (double)B[i]", &a, &["i"]),
            ["A[i]", "B[i]"]
        );
    }

    #[test]
    fn references_after_conditional_evaluation_are_conditional() {
        let a = arrays(&[("A", 1), ("B", 1)]);
        let ts = |t: &str| tokens(t).unwrap();
        let none = BTreeSet::new();
        let names = |a| Names {
            arrays: a,
            iterators: &[],
            params: &[],
            calls: &none,
        };
        for text in [
            "y = B[0] < 1 ? A[0] : 1",
            "y = B[0] && A[0]",
            "y = B[0] || A[0]",
        ] {
            let found = references(text, &ts(text), names(&a)).expect("references");
            let flags: Vec<(&str, bool)> = found
                .iter()
                .map(|r| (r.array.as_str(), r.conditional))
                .collect();
            assert_eq!(flags, [("B", false), ("A", true)], "{text}");
        }
        for text in ["y = (A[0]", "y = A[0])", "y = ]"] {
            assert_eq!(references(text, &ts(text), names(&a)), None, "{text}");
        }
    }

    #[test]
    fn nested_brackets_and_subscript_contents() {
        let a = arrays(&[("A", 1), ("idx", 1), ("w", 0)]);
        // The outer reference has a reference in its subscript; the inner one is kept.
        assert_eq!(found("y = A[idx[i]]", &a, &["i"]), ["idx[i]"]);
        // A subscript naming a scalar of the scop, calling a function, or holding a
        // literal or another operator is not replaceable.
        assert!(found("y = A[w] + A[f(i)] + A['a'] + A[i << 1] + A[]", &a, &["i"]).is_empty());
        // Names that are no variable of the scop are constants.
        assert_eq!(found("y = A[M - i]", &a, &["i"]), ["A[M - i]"]);
        // Iterators that are substrings of other names.
        assert_eq!(found("y = A[ii + i]", &a, &["i"]), ["A[ii + i]"]);
    }

    #[test]
    fn substitution_replaces_whole_iterator_tokens() {
        let text = r#"A[i][ii] = i_1 * s.i + B[i] + "i" + 'i' + i2"#;
        let ts = tokens(text).unwrap();
        let iterators = vec!["i".to_string(), "i2".to_string()];
        let values = vec!["(c0 + 1)".to_string(), "c3".to_string()];
        assert_eq!(
            substitute(text, &ts, 0..ts.len(), &iterators, &values, &[]),
            r#"A[(c0 + 1)][ii] = i_1 * s.(c0 + 1) + B[(c0 + 1)] + "i" + 'i' + c3"#
        );
        // B[i] is tokens 16..20 (after `+`), replaced by a name.
        let b = ts
            .iter()
            .position(|t| &text[t.range.clone()] == "B")
            .unwrap();
        assert_eq!(
            substitute(
                text,
                &ts,
                0..ts.len(),
                &iterators,
                &values,
                &[(b..b + 4, "t0".to_string())]
            ),
            r#"A[(c0 + 1)][ii] = i_1 * s.(c0 + 1) + t0 + "i" + 'i' + c3"#
        );
        assert_eq!(
            substitute(text, &ts, b..b + 4, &iterators, &values, &[]),
            "B[(c0 + 1)]"
        );
    }

    #[test]
    fn keys_ignore_spacing() {
        let iterators = vec!["k".to_string(), "j".to_string()];
        let values = vec!["c4".to_string(), "(c5 + 1)".to_string()];
        let key_of = |text: &str| {
            let ts = tokens(text).unwrap();
            key(text, &ts, 0..ts.len(), &iterators, &values)
        };
        assert_eq!(key_of("B[k][j]"), key_of("B[ k ][j]"));
        assert_ne!(key_of("B[k][j]"), key_of("B[j][k]"));
        assert_eq!(key_of("B[k][j]"), "B [ c4 ] [ (c5 + 1) ]");
    }
}
