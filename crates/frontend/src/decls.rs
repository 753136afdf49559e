//! The declaration scanner: which variables (and type names) are visible at the
//! `#pragma scop` line.
//!
//! The scanner reads the tokens before the region and recognises declarations at the
//! places where C allows them (the start of the file, after `;`, `{`, `}` or a directive,
//! and the parameter lists of function definitions), following block scopes so that the
//! declarations of other functions are forgotten when their bodies close. It is lax on
//! purpose: whatever it does not recognise (expressions, macros, function bodies'
//! statements) is skipped.
//!
//! Recognised declarators are `name`, `*name` (pointers), `name[e1][e2]` (arrays, the
//! extents' text kept) and PolyBench's `POLYBENCH_<n>D(name, D1, .., Dn, d1, .., dn)`
//! (an array with extents `D1 .. Dn`). A type name that is not a C keyword is recognised
//! when a declarator follows it (`DATA_TYPE alpha`), or when a `typedef` declared it.

use std::collections::BTreeMap;

use crate::lexer::{Token, TokenKind};

/// A declared variable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct VarDecl {
    /// The C name.
    pub name: String,
    /// The element type as written (type specifier words, qualifiers and storage
    /// classes dropped), e.g. `double`, `DATA_TYPE`, `unsigned int`.
    pub element_type: String,
    /// The text of each array extent; empty for scalars and pointers.
    pub extents: Vec<String>,
    /// Whether the declarator has a `*` (a pointer, or an array of pointers).
    pub pointer: bool,
    /// Whether it is a scalar of a signed C integer type.
    pub integer: bool,
    /// Byte offset of the declarator's name (orders the arrays of a scop).
    pub at: usize,
    /// Whether the region declares it (a scalar temporary of the region).
    pub local: bool,
    /// Whether it is declared inside a function (a local variable or a parameter), not
    /// at file scope.
    pub in_function: bool,
}

/// What is visible at the region's start.
#[derive(Clone, Debug, Default)]
pub(crate) struct Decls {
    /// The variables, by name (the innermost declaration of each name).
    pub vars: BTreeMap<String, VarDecl>,
    /// Type names that are not keywords (typedefs, and macros used as types), each with
    /// whether it names a signed integer type.
    pub types: BTreeMap<String, bool>,
}

/// Keywords of C that can never be declared names.
const KEYWORDS: [&str; 44] = [
    "auto",
    "break",
    "case",
    "char",
    "const",
    "continue",
    "default",
    "do",
    "double",
    "else",
    "enum",
    "extern",
    "float",
    "for",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "register",
    "restrict",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "struct",
    "switch",
    "typedef",
    "union",
    "unsigned",
    "void",
    "volatile",
    "while",
    "_Bool",
    "_Complex",
    "__restrict",
    "__restrict__",
    "__inline",
    "__inline__",
    "_Thread_local",
    "_Alignas",
    "_Static_assert",
    "_Noreturn",
];

/// Storage classes and qualifiers: allowed among the specifiers, not part of the type.
const QUALIFIERS: [&str; 13] = [
    "static",
    "extern",
    "register",
    "auto",
    "inline",
    "__inline",
    "__inline__",
    "_Thread_local",
    "const",
    "volatile",
    "restrict",
    "__restrict",
    "__restrict__",
];

/// Type specifier keywords.
const TYPE_WORDS: [&str; 11] = [
    "void", "char", "short", "int", "long", "float", "double", "signed", "unsigned", "_Bool",
    "_Complex",
];

/// Type specifier keywords of signed integer types.
const SIGNED_WORDS: [&str; 5] = ["char", "short", "int", "long", "signed"];

/// Standard typedef names of signed integer types, the last five at least as wide as
/// `int`.
const SIGNED_TYPEDEFS: [&str; 7] = [
    "int8_t",
    "int16_t",
    "int32_t",
    "int64_t",
    "ssize_t",
    "ptrdiff_t",
    "intptr_t",
];

/// Standard typedef names of unsigned integer types (types, but not signed integers).
const UNSIGNED_TYPEDEFS: [&str; 7] = [
    "size_t",
    "uintptr_t",
    "uint8_t",
    "uint16_t",
    "uint32_t",
    "uint64_t",
    "bool",
];

/// Whether `word` is a C keyword.
pub(crate) fn is_keyword(word: &str) -> bool {
    KEYWORDS.contains(&word)
}

/// Whether `word` is a type specifier keyword (`int`, `double`, ...).
pub(crate) fn is_type_word(word: &str) -> bool {
    TYPE_WORDS.contains(&word)
}

/// Whether `word` is a storage class or type qualifier.
pub(crate) fn is_qualifier(word: &str) -> bool {
    QUALIFIERS.contains(&word)
}

/// Whether the type spelled by `words` (specifier keywords or one type name) is a
/// signed integer type, given the known type names. Unsigned types are not: their
/// wrap-around (and the conversions of signed operands compared with them) is outside
/// the model of integer arithmetic.
pub(crate) fn is_integer_type(words: &[String], types: &BTreeMap<String, bool>) -> bool {
    match words {
        [] => false,
        [one] if !is_type_word(one) => {
            SIGNED_TYPEDEFS.contains(&one.as_str()) || types.get(one).copied().unwrap_or(false)
        }
        _ => words.iter().all(|w| SIGNED_WORDS.contains(&w.as_str())),
    }
}

/// Whether a cast to the type spelled by `words` leaves every `int` value unchanged:
/// signed integer types at least as wide as `int`.
pub(crate) fn is_wide_integer_type(words: &[String]) -> bool {
    match words {
        [] => false,
        [one] if !is_type_word(one) => SIGNED_TYPEDEFS[2..].contains(&one.as_str()),
        _ => words
            .iter()
            .all(|w| matches!(w.as_str(), "int" | "long" | "signed")),
    }
}

/// The variables and type names visible at the end of `tokens` (the tokens before the
/// region).
pub(crate) fn scan(source: &str, tokens: &[Token]) -> Decls {
    let mut scanner = Scanner {
        source,
        tokens,
        types: BTreeMap::new(),
        scopes: Vec::new(),
    };
    for t in SIGNED_TYPEDEFS {
        scanner.types.insert(t.to_string(), true);
    }
    for t in UNSIGNED_TYPEDEFS {
        scanner.types.insert(t.to_string(), false);
    }
    scanner.run();
    let mut vars = BTreeMap::new();
    for (depth, mut v) in scanner.scopes {
        v.in_function = depth > 0;
        vars.insert(v.name.clone(), v);
    }
    Decls {
        vars,
        types: scanner.types,
    }
}

/// The type part of a declaration.
struct Specifiers {
    words: Vec<String>,
    typedef: bool,
    /// A name not yet known as a type, taken as one because a declarator follows it.
    learned: Option<String>,
}

/// One declarator.
enum Declarator {
    Variable {
        name: String,
        at: usize,
        extents: Vec<String>,
        pointer: bool,
    },
    Function {
        params: Vec<VarDecl>,
    },
}

/// A recognised declaration.
struct Declaration {
    vars: Vec<VarDecl>,
    /// The parameters of a function definition whose body follows.
    body_params: Option<Vec<VarDecl>>,
    next: usize,
}

struct Scanner<'a> {
    source: &'a str,
    tokens: &'a [Token],
    types: BTreeMap<String, bool>,
    /// Declarations with the brace depth of their scope, in source order.
    scopes: Vec<(usize, VarDecl)>,
}

impl Scanner<'_> {
    fn text(&self, i: usize) -> &str {
        self.tokens
            .get(i)
            .map_or("", |t| &self.source[t.start..t.end])
    }

    fn kind(&self, i: usize) -> Option<TokenKind> {
        self.tokens.get(i).map(|t| t.kind)
    }

    fn is_name(&self, i: usize) -> bool {
        self.kind(i) == Some(TokenKind::Ident) && !is_keyword(self.text(i))
    }

    /// Walks the tokens, recording declarations where one may start.
    fn run(&mut self) {
        let mut i = 0;
        let mut depth = 0usize;
        let mut declaration_position = true;
        let mut pending: Option<Vec<VarDecl>> = None;
        while i < self.tokens.len() {
            if declaration_position && self.kind(i) == Some(TokenKind::Ident) {
                if let Some(d) = self.declaration(i) {
                    for v in d.vars {
                        self.scopes.push((depth, v));
                    }
                    pending = d.body_params;
                    i = d.next;
                    declaration_position = true;
                    continue;
                }
            }
            let text = self.text(i).to_string();
            match text.as_str() {
                "{" => {
                    depth += 1;
                    for p in pending.take().unwrap_or_default() {
                        self.scopes.push((depth, p));
                    }
                    declaration_position = true;
                }
                "}" => {
                    self.scopes.retain(|(d, _)| *d < depth);
                    depth = depth.saturating_sub(1);
                    declaration_position = true;
                }
                ";" => {
                    pending = None;
                    declaration_position = true;
                }
                "(" => declaration_position = i > 0 && self.text(i - 1) == "for",
                _ => declaration_position = self.kind(i) == Some(TokenKind::Directive),
            }
            i += 1;
        }
    }

    /// The declaration starting at token `i`, if one does.
    fn declaration(&mut self, i: usize) -> Option<Declaration> {
        let (spec, mut j) = self.specifiers(i)?;
        let integer = is_integer_type(&spec.words, &self.types);
        let element_type = spec.words.join(" ");
        let mut vars = Vec::new();
        let mut typedef_names = Vec::new();
        let mut body_params = None;
        loop {
            let (declarator, next) = self.declarator(j, true)?;
            j = next;
            match declarator {
                Declarator::Function { params } => {
                    if self.text(j) == "{" {
                        body_params = Some(params);
                        break;
                    }
                }
                Declarator::Variable {
                    name,
                    at,
                    extents,
                    pointer,
                } => {
                    if spec.typedef {
                        typedef_names.push((name, integer && !pointer && extents.is_empty()));
                    } else {
                        vars.push(VarDecl {
                            name,
                            element_type: element_type.clone(),
                            integer: integer && !pointer && extents.is_empty(),
                            extents,
                            pointer,
                            at,
                            local: false,
                            in_function: false,
                        });
                    }
                    if self.text(j) == "=" {
                        j = self.skip_initializer(j + 1);
                    }
                }
            }
            match self.text(j) {
                "," => j += 1,
                ";" => {
                    j += 1;
                    break;
                }
                _ => return None,
            }
        }
        if let Some(t) = spec.learned {
            self.types.insert(t, false);
        }
        for (name, integer) in typedef_names {
            self.types.insert(name, integer);
        }
        Some(Declaration {
            vars,
            body_params,
            next: j,
        })
    }

    /// The specifiers starting at `i` and the index after them; `None` when they name no
    /// type.
    fn specifiers(&self, mut i: usize) -> Option<(Specifiers, usize)> {
        let mut spec = Specifiers {
            words: Vec::new(),
            typedef: false,
            learned: None,
        };
        while self.kind(i) == Some(TokenKind::Ident) {
            let t = self.text(i);
            if t == "typedef" {
                spec.typedef = true;
            } else if is_qualifier(t) {
            } else if is_type_word(t) {
                spec.words.push(t.to_string());
            } else if matches!(t, "struct" | "union" | "enum") {
                spec.words.push(t.to_string());
                if self.is_name(i + 1) {
                    spec.words.push(self.text(i + 1).to_string());
                    i += 1;
                }
                if self.text(i + 1) == "{" {
                    i = self.skip_balanced(i + 1) - 1;
                }
            } else if spec.words.is_empty() && !is_keyword(t) {
                let known = self.types.contains_key(t);
                let declarator_follows = self.is_name(i + 1)
                    || (known && matches!(self.text(i + 1), "*" | "(" | ")" | ","));
                if !declarator_follows {
                    return None;
                }
                if !known {
                    spec.learned = Some(t.to_string());
                }
                spec.words.push(t.to_string());
            } else {
                break;
            }
            i += 1;
        }
        if spec.words.is_empty() {
            return None;
        }
        Some((spec, i))
    }

    /// The declarator starting at `i` and the index after it. Function declarators are
    /// allowed when `function` is set (not inside parameter lists).
    fn declarator(&self, mut i: usize, function: bool) -> Option<(Declarator, usize)> {
        let mut pointer = false;
        while self.text(i) == "*" || is_qualifier(self.text(i)) {
            pointer |= self.text(i) == "*";
            i += 1;
        }
        if !self.is_name(i) {
            return None;
        }
        let name = self.text(i).to_string();
        let at = self.tokens[i].start;
        if self.text(i + 1) == "(" {
            if let Some(rank) = polybench_rank(&name) {
                let close = self.skip_balanced(i + 1);
                let args = self.arguments(i + 1, close);
                if args.len() != 2 * rank + 1 {
                    return None;
                }
                let name_token = args[0].0;
                if !self.is_name(name_token) || args[0].1 != name_token + 1 {
                    return None;
                }
                let extents = args[1..=rank]
                    .iter()
                    .map(|&(a, b)| self.span_text(a, b))
                    .collect();
                let declarator = Declarator::Variable {
                    name: self.text(name_token).to_string(),
                    at: self.tokens[name_token].start,
                    extents,
                    pointer,
                };
                return Some((declarator, close));
            }
            if !function {
                return None;
            }
            let (params, next) = self.parameters(i + 1)?;
            return Some((Declarator::Function { params }, next));
        }
        i += 1;
        let mut extents = Vec::new();
        while self.text(i) == "[" {
            let close = self.skip_balanced(i);
            if close > self.tokens.len() || self.text(close - 1) != "]" {
                return None;
            }
            extents.push(self.span_text(i + 1, close - 1));
            i = close;
        }
        Some((
            Declarator::Variable {
                name,
                at,
                extents,
                pointer,
            },
            i,
        ))
    }

    /// The parameters of a function declarator whose `(` is at `open`, and the index after
    /// its `)`.
    fn parameters(&self, open: usize) -> Option<(Vec<VarDecl>, usize)> {
        let mut params = Vec::new();
        let mut i = open + 1;
        if self.text(i) == ")" {
            return Some((params, i + 1));
        }
        loop {
            if self.text(i) == "..." {
                i += 1;
            } else {
                let (spec, next) = self.specifiers(i)?;
                i = next;
                let integer = is_integer_type(&spec.words, &self.types);
                if !matches!(self.text(i), "," | ")") {
                    let (d, next) = self.declarator(i, false)?;
                    i = next;
                    if let Declarator::Variable {
                        name,
                        at,
                        extents,
                        pointer,
                    } = d
                    {
                        params.push(VarDecl {
                            name,
                            element_type: spec.words.join(" "),
                            integer: integer && !pointer && extents.is_empty(),
                            extents,
                            pointer,
                            at,
                            local: false,
                            in_function: false,
                        });
                    }
                }
            }
            match self.text(i) {
                "," => i += 1,
                ")" => return Some((params, i + 1)),
                _ => return None,
            }
        }
    }

    /// The index just past the bracket closing the one at `open` (or past the end).
    fn skip_balanced(&self, open: usize) -> usize {
        let mut depth = 0usize;
        let mut i = open;
        while i < self.tokens.len() {
            match self.text(i) {
                "(" | "[" | "{" => depth += 1,
                ")" | "]" | "}" => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return i + 1;
                    }
                }
                _ => {}
            }
            i += 1;
        }
        self.tokens.len() + 1
    }

    /// The index of the `,` or `;` ending an initializer that starts at `i`.
    fn skip_initializer(&self, mut i: usize) -> usize {
        while i < self.tokens.len() {
            match self.text(i) {
                "(" | "[" | "{" => i = self.skip_balanced(i),
                "," | ";" | ")" | "]" | "}" => return i,
                _ => i += 1,
            }
        }
        i
    }

    /// The token ranges of the comma-separated arguments between `open` and `close - 1`.
    fn arguments(&self, open: usize, close: usize) -> Vec<(usize, usize)> {
        let mut args = Vec::new();
        let mut start = open + 1;
        let mut i = open + 1;
        let end = close.saturating_sub(1).min(self.tokens.len());
        while i < end {
            match self.text(i) {
                "(" | "[" | "{" => i = self.skip_balanced(i),
                "," => {
                    args.push((start, i));
                    i += 1;
                    start = i;
                }
                _ => i += 1,
            }
        }
        if start < end {
            args.push((start, end));
        }
        args
    }

    /// The source text of tokens `a..b`, trimmed.
    fn span_text(&self, a: usize, b: usize) -> String {
        if a >= b || b > self.tokens.len() {
            return String::new();
        }
        self.source[self.tokens[a].start..self.tokens[b - 1].end]
            .trim()
            .to_string()
    }
}

/// The rank `n` of a `POLYBENCH_<n>D` array macro.
fn polybench_rank(name: &str) -> Option<usize> {
    let rest = name.strip_prefix("POLYBENCH_")?.strip_suffix('D')?;
    match rest {
        "1" => Some(1),
        "2" => Some(2),
        "3" => Some(3),
        "4" => Some(4),
        "5" => Some(5),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lexer::lex;

    fn decls(source: &str) -> Decls {
        scan(source, &lex(source))
    }

    #[test]
    fn polybench_parameters_and_locals() {
        let d = decls(
            "#include <polybench.h>\nstatic\nvoid kernel(int ni, DATA_TYPE alpha,\n DATA_TYPE POLYBENCH_2D(C,NI,NJ,ni,nj), base POLYBENCH_1D(seq, N + 1, n))\n{\n  int i, j = 0, k;\n  DATA_TYPE z[N][M + 2];\n double *p;\n",
        );
        let c = &d.vars["C"];
        assert_eq!(c.element_type, "DATA_TYPE");
        assert_eq!(c.extents, ["NI", "NJ"]);
        assert_eq!(d.vars["seq"].extents, ["N + 1"]);
        assert_eq!(d.vars["seq"].element_type, "base");
        assert!(d.vars["ni"].integer);
        assert!(!d.vars["alpha"].integer);
        assert!(d.vars["alpha"].extents.is_empty());
        assert!(d.vars["j"].integer && d.vars["k"].integer);
        assert_eq!(d.vars["z"].extents, ["N", "M + 2"]);
        assert!(d.vars["p"].pointer);
        assert!(d.types.contains_key("DATA_TYPE"));
    }

    #[test]
    fn closed_scopes_are_forgotten() {
        let d = decls("void f(int a) { double x; }\nvoid g(float b) { int y;\n");
        assert!(!d.vars.contains_key("a") && !d.vars.contains_key("x"));
        assert!(d.vars.contains_key("b") && d.vars.contains_key("y"));
        let d = decls("double x;\nvoid g(void) { int x;\n");
        assert_eq!(d.vars["x"].element_type, "int");
    }

    #[test]
    fn typedefs_and_statements() {
        let d = decls("typedef char base;\nbase s;\nvoid f() { x = y * z; g(a, b); for (int q = 0; q < 3; q++) w = 1;\n");
        assert_eq!(d.types.get("base"), Some(&true));
        assert!(d.vars["s"].integer);
        assert!(d.vars.contains_key("q"));
        assert!(!d.vars.contains_key("z") && !d.vars.contains_key("b"));
    }
}
