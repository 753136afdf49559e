//! Printing of quasi-affine expressions and conditions as C.
//!
//! Sums are flattened into terms (constant multiples of variables and of calls) and
//! printed in the usual way, `32 * c0 + 31`, `N - c1 - 1`; floor and ceiling divisions,
//! the non-negative remainder, minimum and maximum become calls of the helper macros
//! ([`Helper`]). A comparison with zero is solved for the innermost iterator with a unit
//! coefficient when there is one (`c1 <= N - 1` rather than `N - c1 - 1 >= 0`).
//!
//! Names are resolved through a scope: the enclosing loops' iterators (innermost last),
//! then fixed names (parameters and, in a GPU kernel, the host iterators passed to it),
//! each with the text it is printed as. The C emitter prints its iterators with a prefix
//! and its parameters as they are; the GPU emitters rename every name.
//!
//! # Invariants
//! Every printed expression is a complete C expression whose value is the mathematical
//! value of the AST expression (assuming no overflow): the helpers parenthesise their
//! arguments, and [`ExprPrinter::argument`] parenthesises whatever is not an atom.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use pollen_arith::Int;
use pollen_codegen::{Cond, Expr};

/// Why an expression cannot be printed. Each emitter turns it into its own error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExprError {
    /// A name that is neither an enclosing loop's iterator nor a fixed name.
    UnknownName(String),
    /// A division or modulo by a non-positive constant.
    NonPositiveDivisor(String),
    /// A minimum or maximum without operands.
    EmptyMinMax,
}

impl fmt::Display for ExprError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExprError::UnknownName(n) => write!(f, "the AST uses the unknown name {n}"),
            ExprError::NonPositiveDivisor(d) => {
                write!(f, "the AST divides by the non-positive constant {d}")
            }
            ExprError::EmptyMinMax => {
                write!(f, "the AST has a minimum or maximum without operands")
            }
        }
    }
}

impl std::error::Error for ExprError {}

/// The result type of the printer.
type Result<T> = std::result::Result<T, ExprError>;

/// A helper macro the generated code calls, emitted (guarded) once before the code that
/// uses it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Helper {
    /// `pollen_floord(n, d)`: `floor(n / d)` for `d > 0`.
    Floord,
    /// `pollen_ceild(n, d)`: `ceil(n / d)` for `d > 0`.
    Ceild,
    /// `pollen_mod(n, d)`: the remainder of `n` by `d > 0` in `[0, d)`.
    Mod,
    /// `pollen_min(a, b)`.
    Min,
    /// `pollen_max(a, b)`.
    Max,
}

impl Helper {
    /// Every helper, in the order of their definitions.
    pub const ALL: [Helper; 5] = [
        Helper::Floord,
        Helper::Ceild,
        Helper::Mod,
        Helper::Min,
        Helper::Max,
    ];

    /// The macro's name.
    pub fn name(self) -> &'static str {
        match self {
            Helper::Floord => "pollen_floord",
            Helper::Ceild => "pollen_ceild",
            Helper::Mod => "pollen_mod",
            Helper::Min => "pollen_min",
            Helper::Max => "pollen_max",
        }
    }

    /// The guarded definition, three lines ending with a line break. Each argument is
    /// parenthesised; an argument is evaluated more than once, which is harmless as the
    /// generated expressions have no side effects.
    pub fn definition(self) -> String {
        let name = self.name();
        format!("#ifndef {name}\n{}\n#endif\n", self.define())
    }

    /// The `# define` line alone, without its line break.
    pub fn define(self) -> String {
        let body = match self {
            Helper::Floord => "(n, d) (((n) >= 0) ? (n) / (d) : ((n) - (d) + 1) / (d))",
            Helper::Ceild => "(n, d) (((n) > 0) ? ((n) + (d) - 1) / (d) : (n) / (d))",
            Helper::Mod => "(n, d) ((((n) % (d)) + (d)) % (d))",
            Helper::Min => "(a, b) (((a) < (b)) ? (a) : (b))",
            Helper::Max => "(a, b) (((a) > (b)) ? (a) : (b))",
        };
        format!("# define {}{body}", self.name())
    }
}

/// How tightly a printed expression binds, to decide on parentheses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Precedence {
    /// A sum, a difference or a negation.
    Sum,
    /// `k * x`.
    Product,
    /// A name, a non-negative constant or a call.
    Atom,
}

/// One term of a flattened sum: `coefficient * factor`, or the constant `coefficient`
/// when there is no factor. A factor is never a sum, a product or a constant.
#[derive(Clone, Debug)]
struct Term {
    coefficient: Int,
    factor: Option<Expr>,
}

/// Prints expressions and conditions with the names in scope renamed and records the
/// helpers used.
#[derive(Debug)]
pub struct ExprPrinter {
    /// The AST names of the enclosing loops' iterators, outermost first, with their
    /// printed names.
    scope: Vec<(String, String)>,
    /// The names valid everywhere (parameters, host iterators), with their printed
    /// names.
    fixed: BTreeMap<String, String>,
    /// The helpers used so far.
    pub helpers: BTreeSet<Helper>,
}

impl ExprPrinter {
    /// A printer with no iterator in scope and the given fixed names (AST name to printed
    /// name).
    pub fn new(fixed: BTreeMap<String, String>) -> ExprPrinter {
        ExprPrinter {
            scope: Vec::new(),
            fixed,
            helpers: BTreeSet::new(),
        }
    }

    /// Brings a loop's iterator into scope, printed as `printed`.
    pub fn enter(&mut self, iterator: &str, printed: &str) {
        self.scope.push((iterator.to_string(), printed.to_string()));
    }

    /// Leaves the innermost loop.
    pub fn leave(&mut self) {
        self.scope.pop();
    }

    /// An expression, unparenthesised.
    pub fn expr(&mut self, e: &Expr) -> Result<String> {
        Ok(self.sum(e)?.0)
    }

    /// An expression as a macro argument or operand: parenthesised unless it is an atom.
    pub fn argument(&mut self, e: &Expr) -> Result<String> {
        let (text, precedence) = self.sum(e)?;
        Ok(if precedence == Precedence::Atom {
            text
        } else {
            format!("({text})")
        })
    }

    /// A condition, as a C expression that may be the operand of `&&`.
    pub fn cond(&mut self, c: &Cond) -> Result<String> {
        match c {
            Cond::NonNegative(e) => self.comparison(e, ">=", "<="),
            Cond::Zero(e) => self.comparison(e, "==", "=="),
            Cond::And(cs) => {
                self.junction(cs, " && ", "1", |c| matches!(c, Cond::Or(v) if v.len() > 1))
            }
            Cond::Or(cs) => self.junction(
                cs,
                " || ",
                "0",
                |c| matches!(c, Cond::And(v) if v.len() > 1),
            ),
        }
    }

    /// `a && b && ...` or `a || b || ...`, with the other junction parenthesised.
    fn junction(
        &mut self,
        cs: &[Cond],
        separator: &str,
        empty: &str,
        needs_parentheses: impl Fn(&Cond) -> bool,
    ) -> Result<String> {
        if cs.is_empty() {
            return Ok(empty.to_string());
        }
        let mut parts = Vec::new();
        for c in cs {
            let text = self.cond(c)?;
            parts.push(if needs_parentheses(c) {
                format!("({text})")
            } else {
                text
            });
        }
        Ok(parts.join(separator))
    }

    /// `e >= 0` (or `e == 0`) solved for a variable with a unit coefficient where there
    /// is one, the innermost iterator first, then the first parameter; otherwise the
    /// positive terms are compared with the negated negative ones.
    fn comparison(&mut self, e: &Expr, op: &str, flipped: &str) -> Result<String> {
        let terms = self.flatten(e)?;
        if terms.iter().all(|t| t.factor.is_none()) {
            let value = terms
                .first()
                .map_or_else(Int::zero, |t| t.coefficient.clone());
            let holds = if op == "==" {
                value.is_zero()
            } else {
                !value.is_negative()
            };
            return Ok(if holds { "1" } else { "0" }.to_string());
        }
        let pivot = self
            .pivot(&terms)
            .and_then(|p| Some((p, terms[p].factor.clone()?)));
        if let Some((pivot, factor)) = pivot {
            let mut rest: Vec<Term> = terms
                .iter()
                .enumerate()
                .filter(|(k, _)| *k != pivot)
                .map(|(_, t)| t.clone())
                .collect();
            let positive = terms[pivot].coefficient.is_positive();
            if positive {
                negate(&mut rest);
            }
            let variable = self.atom(&factor)?;
            let right = self.print_terms(&rest)?.0;
            let op = if positive { op } else { flipped };
            return Ok(format!("{variable} {op} {right}"));
        }
        let (mut left, mut right): (Vec<Term>, Vec<Term>) =
            terms.into_iter().partition(|t| t.coefficient.is_positive());
        negate(&mut right);
        // Keep a constant on the side where it is positive.
        move_constant_last(&mut left);
        move_constant_last(&mut right);
        let left = self.print_terms(&left)?.0;
        let right = self.print_terms(&right)?.0;
        Ok(format!("{left} {op} {right}"))
    }

    /// The index of the term to solve a comparison for.
    fn pivot(&self, terms: &[Term]) -> Option<usize> {
        let unit_variable = |t: &Term| match &t.factor {
            Some(Expr::Var(name)) if t.coefficient.abs().is_one() => Some(name.clone()),
            _ => None,
        };
        let innermost = terms
            .iter()
            .enumerate()
            .filter_map(|(k, t)| {
                let name = unit_variable(t)?;
                let depth = self.scope.iter().rposition(|(s, _)| *s == name)?;
                Some((depth, k))
            })
            .max_by_key(|&(depth, k)| (depth, std::cmp::Reverse(k)));
        innermost
            .map(|(_, k)| k)
            .or_else(|| terms.iter().position(|t| unit_variable(t).is_some()))
    }

    /// A sum's text and precedence.
    fn sum(&mut self, e: &Expr) -> Result<(String, Precedence)> {
        let terms = self.flatten(e)?;
        self.print_terms(&terms)
    }

    /// Prints flattened terms: a positive term first where there is one, the constant
    /// last.
    fn print_terms(&mut self, terms: &[Term]) -> Result<(String, Precedence)> {
        let mut terms = terms.to_vec();
        move_constant_last(&mut terms);
        if let Some(p) = terms
            .iter()
            .position(|t| t.coefficient.is_positive() && t.factor.is_some())
        {
            let first = terms.remove(p);
            terms.insert(0, first);
        }
        if terms.is_empty() {
            return Ok(("0".to_string(), Precedence::Atom));
        }
        let mut text = String::new();
        let mut precedence = Precedence::Sum;
        for (k, t) in terms.iter().enumerate() {
            let (magnitude, p) = self.term_magnitude(t)?;
            let negative = t.coefficient.is_negative();
            if k == 0 {
                if negative {
                    text.push('-');
                } else {
                    precedence = p;
                }
            } else {
                text.push_str(if negative { " - " } else { " + " });
                precedence = Precedence::Sum;
            }
            text.push_str(&magnitude);
        }
        if terms.len() > 1 || terms[0].coefficient.is_negative() {
            precedence = Precedence::Sum;
        }
        Ok((text, precedence))
    }

    /// `|coefficient| * factor` (or the constant's magnitude) and its precedence.
    fn term_magnitude(&mut self, t: &Term) -> Result<(String, Precedence)> {
        let k = t.coefficient.abs();
        match &t.factor {
            None => Ok((k.to_string(), Precedence::Atom)),
            Some(f) => {
                let atom = self.atom(f)?;
                if k.is_one() {
                    Ok((atom, Precedence::Atom))
                } else {
                    Ok((format!("{k} * {atom}"), Precedence::Product))
                }
            }
        }
    }

    /// A factor: a name or a helper call.
    fn atom(&mut self, f: &Expr) -> Result<String> {
        match f {
            Expr::Var(name) => self.variable(name),
            Expr::FloorDiv(e, d) => self.call(Helper::Floord, e, d),
            Expr::CeilDiv(e, d) => self.call(Helper::Ceild, e, d),
            Expr::Mod(e, d) => self.call(Helper::Mod, e, d),
            Expr::Min(es) => self.fold(Helper::Min, es),
            Expr::Max(es) => self.fold(Helper::Max, es),
            Expr::Int(_) | Expr::Add(_) | Expr::Mul(..) => {
                let (text, _) = self.sum(f)?;
                Ok(format!("({text})"))
            }
        }
    }

    /// A name: an enclosing loop's iterator or a fixed name, renamed.
    fn variable(&self, name: &str) -> Result<String> {
        if let Some((_, printed)) = self.scope.iter().rev().find(|(s, _)| s == name) {
            Ok(printed.clone())
        } else if let Some(printed) = self.fixed.get(name) {
            Ok(printed.clone())
        } else {
            Err(ExprError::UnknownName(name.to_string()))
        }
    }

    /// `helper(e, d)`.
    fn call(&mut self, helper: Helper, e: &Expr, d: &Int) -> Result<String> {
        if !d.is_positive() {
            return Err(ExprError::NonPositiveDivisor(d.to_string()));
        }
        self.helpers.insert(helper);
        let e = self.expr(e)?;
        Ok(format!("{}({e}, {d})", helper.name()))
    }

    /// `helper(a, helper(b, c))` for the minimum or maximum of several operands.
    fn fold(&mut self, helper: Helper, es: &[Expr]) -> Result<String> {
        let Some((last, rest)) = es.split_last() else {
            return Err(ExprError::EmptyMinMax);
        };
        let mut text = self.expr(last)?;
        for e in rest.iter().rev() {
            self.helpers.insert(helper);
            let e = self.expr(e)?;
            text = format!("{}({e}, {text})", helper.name());
        }
        Ok(text)
    }

    /// The terms of `e`: constants merged, equal factors merged, zero terms dropped.
    fn flatten(&self, e: &Expr) -> Result<Vec<Term>> {
        let mut terms = Vec::new();
        flatten_into(e, &Int::one(), &mut terms)?;
        let mut merged: Vec<Term> = Vec::new();
        for t in terms {
            match merged.iter_mut().find(|m| m.factor == t.factor) {
                Some(m) => m.coefficient = m.coefficient.clone() + t.coefficient,
                None => merged.push(t),
            }
        }
        merged.retain(|t| !t.coefficient.is_zero());
        Ok(merged)
    }
}

/// Appends the terms of `scale * e`; a minimum or maximum of one operand and a division
/// by one are their operand.
fn flatten_into(e: &Expr, scale: &Int, out: &mut Vec<Term>) -> Result<()> {
    match e {
        Expr::Int(c) => out.push(Term {
            coefficient: c.clone() * scale,
            factor: None,
        }),
        Expr::Add(es) => {
            for e in es {
                flatten_into(e, scale, out)?;
            }
        }
        Expr::Mul(k, inner) => flatten_into(inner, &(k.clone() * scale), out)?,
        Expr::Min(es) | Expr::Max(es) if es.len() == 1 => flatten_into(&es[0], scale, out)?,
        Expr::FloorDiv(inner, d) | Expr::CeilDiv(inner, d) if d.is_one() => {
            flatten_into(inner, scale, out)?
        }
        _ => out.push(Term {
            coefficient: scale.clone(),
            factor: Some(e.clone()),
        }),
    }
    Ok(())
}

/// Flips the sign of every term.
fn negate(terms: &mut [Term]) {
    for t in terms {
        t.coefficient = -t.coefficient.clone();
    }
}

/// Moves the constant term (at most one after merging) to the end.
fn move_constant_last(terms: &mut Vec<Term>) {
    if let Some(p) = terms.iter().position(|t| t.factor.is_none()) {
        let c = terms.remove(p);
        terms.push(c);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(k: i64) -> Int {
        Int::from(k)
    }

    /// A printer with the parameter `N` printed as `printed_n` and the iterators `i`, `j`
    /// in scope, printed `c_i`, `c_j`.
    fn printer(printed_n: &str) -> ExprPrinter {
        let fixed = [("N".to_string(), printed_n.to_string())].into();
        let mut p = ExprPrinter::new(fixed);
        p.enter("i", "c_i");
        p.enter("j", "c_j");
        p
    }

    #[test]
    fn sums_put_a_positive_term_first_and_the_constant_last() {
        let mut p = printer("N");
        let e = Expr::Add(vec![
            Expr::int(-1),
            Expr::Mul(int(-1), Box::new(Expr::var("j"))),
            Expr::var("N"),
        ]);
        assert_eq!(p.expr(&e), Ok("N - c_j - 1".to_string()));
        assert_eq!(p.argument(&e), Ok("(N - c_j - 1)".to_string()));
        let e = Expr::Add(vec![
            Expr::Mul(int(32), Box::new(Expr::var("i"))),
            Expr::int(31),
        ]);
        assert_eq!(p.expr(&e), Ok("32 * c_i + 31".to_string()));
        assert_eq!(p.argument(&Expr::var("i")), Ok("c_i".to_string()));
        assert!(p.helpers.is_empty());
    }

    #[test]
    fn comparisons_are_solved_for_the_innermost_unit_iterator() {
        let mut p = printer("p_N");
        // N - j - 1 >= 0 and i - j >= 0.
        let c = Cond::And(vec![
            Cond::NonNegative(Expr::Add(vec![
                Expr::var("N"),
                Expr::Mul(int(-1), Box::new(Expr::var("j"))),
                Expr::int(-1),
            ])),
            Cond::NonNegative(Expr::Add(vec![
                Expr::var("i"),
                Expr::Mul(int(-1), Box::new(Expr::var("j"))),
            ])),
        ]);
        assert_eq!(p.cond(&c), Ok("c_j <= p_N - 1 && c_j <= c_i".to_string()));
        assert_eq!(p.cond(&Cond::Or(vec![])), Ok("0".to_string()));
        assert_eq!(
            p.cond(&Cond::Zero(Expr::Add(vec![Expr::int(2), Expr::int(-2)]))),
            Ok("1".to_string())
        );
    }

    #[test]
    fn helpers_are_recorded() {
        let mut p = printer("N");
        let e = Expr::Min(vec![
            Expr::FloorDiv(Box::new(Expr::var("N")), int(32)),
            Expr::var("i"),
            Expr::Mod(Box::new(Expr::var("j")), int(4)),
        ]);
        assert_eq!(
            p.expr(&e),
            Ok("pollen_min(pollen_floord(N, 32), pollen_min(c_i, pollen_mod(c_j, 4)))".to_string())
        );
        let used: Vec<Helper> = p.helpers.iter().copied().collect();
        assert_eq!(used, [Helper::Floord, Helper::Mod, Helper::Min]);
        assert_eq!(
            Helper::Max.definition(),
            "#ifndef pollen_max\n# define pollen_max(a, b) (((a) > (b)) ? (a) : (b))\n#endif\n"
        );
    }

    #[test]
    fn unknown_names_and_bad_operands_are_errors() {
        let mut p = printer("N");
        assert_eq!(
            p.expr(&Expr::var("k")),
            Err(ExprError::UnknownName("k".to_string()))
        );
        p.leave();
        assert_eq!(
            p.expr(&Expr::var("j")),
            Err(ExprError::UnknownName("j".to_string()))
        );
        assert_eq!(
            p.expr(&Expr::FloorDiv(Box::new(Expr::var("i")), int(0))),
            Err(ExprError::NonPositiveDivisor("0".to_string()))
        );
        assert_eq!(p.expr(&Expr::Max(vec![])), Err(ExprError::EmptyMinMax));
    }
}
