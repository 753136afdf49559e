//! Distribution of parallel innermost loops whose statements carry guards.
//!
//! Fusing statements with different offsets (a time-skewed stencil's two updates) leaves
//! an innermost loop whose body guards each statement by its own range:
//! ```text
//!   for (c = l; c <= h; c++) {          for (c = max(l, a); c <= h; c++)
//!     if (c >= a) S(c);          ==>      S(c);
//!     if (c <= b && p) T(c);            if (p) for (c = l; c <= min(h, b); c++)
//!   }                                       T(c);
//! ```
//! The guards keep the loop from being vectorised well and cost a test per iteration.
//! When the loop is parallel (it carries no dependence: no instance of one iteration
//! depends on an instance of another), running the statements in separate loops, in
//! body order, keeps every dependence: those inside one iteration still go from an
//! earlier statement of the body to a later one. Each guard conjunct `±c + e >= 0` with
//! `e` free of `c` becomes a bound of the new loop, a conjunct free of `c` a guard
//! around it; anything else stays a guard inside.

use pollen_arith::Int;

use crate::ast::{Ast, Cond, Expr, Loop};
use crate::build::contains_loop;
use crate::expr::{simplify, Linear};

/// The AST with every parallel innermost loop of guarded statements distributed.
pub(crate) fn distribute(ast: Ast) -> Ast {
    match ast {
        Ast::Block(v) => Ast::Block(v.into_iter().map(distribute).collect()),
        Ast::If {
            cond,
            then,
            otherwise,
        } => Ast::If {
            cond,
            then: Box::new(distribute(*then)),
            otherwise: otherwise.map(|o| Box::new(distribute(*o))),
        },
        Ast::For(l) if l.parallel && !contains_loop(&l.body) => match parts(&l.body) {
            Some(parts) if parts.len() > 1 && parts.iter().any(|p| matches!(p, Ast::If { .. })) => {
                Ast::Block(parts.into_iter().map(|p| split_part(&l, p)).collect())
            }
            _ => Ast::For(l),
        },
        Ast::For(mut l) => {
            l.body = Box::new(distribute(*l.body));
            Ast::For(l)
        }
        user => user,
    }
}

/// The statements of a loop body (blocks flattened), when each is a statement call or
/// a guarded one without `else`.
fn parts(body: &Ast) -> Option<Vec<Ast>> {
    let mut out = Vec::new();
    collect(body, &mut out).then_some(out)
}

fn collect(ast: &Ast, out: &mut Vec<Ast>) -> bool {
    match ast {
        Ast::Block(v) => v.iter().all(|a| collect(a, out)),
        Ast::User { .. } => {
            out.push(ast.clone());
            true
        }
        Ast::If {
            otherwise: None, ..
        } => {
            out.push(ast.clone());
            true
        }
        _ => false,
    }
}

/// The loop `l` over one part of its body, its guard turned into bounds where it can.
fn split_part(l: &Loop, part: Ast) -> Ast {
    let (cond, inner) = match part {
        Ast::If {
            cond,
            then,
            otherwise: None,
        } => (cond, *then),
        other => (Cond::And(Vec::new()), other),
    };
    let mut lowers = vec![l.lower.clone()];
    let mut uppers = vec![l.upper.clone()];
    let mut outside = Vec::new();
    let mut inside = Vec::new();
    for c in conjuncts(cond) {
        match bound(&c, &l.iterator) {
            Bound::Lower(e) if l.stride.is_one() => lowers.push(e),
            Bound::Upper(e) => uppers.push(e),
            Bound::Free => outside.push(c),
            Bound::Lower(_) | Bound::Other => inside.push(c),
        }
    }
    let body = if inside.is_empty() {
        inner
    } else {
        Ast::If {
            cond: Cond::And(inside),
            then: Box::new(inner),
            otherwise: None,
        }
    };
    let lp = Ast::For(Loop {
        iterator: l.iterator.clone(),
        lower: extremum(lowers, Expr::Max),
        upper: extremum(uppers, Expr::Min),
        stride: l.stride.clone(),
        body: Box::new(body),
        parallel: l.parallel,
        vectorizable: l.vectorizable,
    });
    if outside.is_empty() {
        lp
    } else {
        Ast::If {
            cond: Cond::And(outside),
            then: Box::new(lp),
            otherwise: None,
        }
    }
}

/// The conjuncts of a condition (a disjunction is one conjunct).
fn conjuncts(c: Cond) -> Vec<Cond> {
    match c {
        Cond::And(v) => v.into_iter().flat_map(conjuncts).collect(),
        other => vec![other],
    }
}

/// What a conjunct says about the loop iterator.
enum Bound {
    /// `c >= e`.
    Lower(Expr),
    /// `c <= e`.
    Upper(Expr),
    /// It does not mention the iterator.
    Free,
    /// Anything else.
    Other,
}

fn bound(c: &Cond, iterator: &str) -> Bound {
    let Cond::NonNegative(e) = c else {
        return if c.mentions(iterator) {
            Bound::Other
        } else {
            Bound::Free
        };
    };
    if !e.mentions(iterator) {
        return Bound::Free;
    }
    let linear = Linear::of(e);
    let var = Expr::Var(iterator.to_string());
    let mut coefficient = None;
    let mut rest = Linear {
        constant: linear.constant.clone(),
        terms: Vec::new(),
    };
    for (atom, k) in &linear.terms {
        if *atom == var {
            coefficient = Some(k.clone());
        } else if atom.mentions(iterator) {
            return Bound::Other;
        } else {
            rest.terms.push((atom.clone(), k.clone()));
        }
    }
    match coefficient {
        // c + rest >= 0: c >= -rest.
        Some(k) if k.is_one() => {
            Bound::Lower(simplify(Expr::Mul(-Int::one(), Box::new(rest.to_expr()))))
        }
        // rest - c >= 0: c <= rest.
        Some(k) if k == -Int::one() => Bound::Upper(simplify(rest.to_expr())),
        _ => Bound::Other,
    }
}

/// `f(operands)` simplified, or the single operand.
fn extremum(mut operands: Vec<Expr>, f: fn(Vec<Expr>) -> Expr) -> Expr {
    if operands.len() == 1 {
        return operands.pop().unwrap_or(Expr::Int(Int::zero()));
    }
    simplify(f(operands))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interp::interpret;

    fn var(v: &str) -> Expr {
        Expr::var(v)
    }

    fn int(k: i64) -> Expr {
        Expr::int(k)
    }

    fn user(name: &str, arg: Expr) -> Ast {
        Ast::User {
            statement: name.into(),
            args: vec![arg],
        }
    }

    fn guarded(cond: Cond, then: Ast) -> Ast {
        Ast::If {
            cond,
            then: Box::new(then),
            otherwise: None,
        }
    }

    fn lp(body: Ast, parallel: bool) -> Ast {
        Ast::For(Loop {
            iterator: "c".into(),
            lower: int(0),
            upper: Expr::Add(vec![var("n"), int(-1)]),
            stride: Int::one(),
            body: Box::new(body),
            parallel,
            vectorizable: parallel,
        })
    }

    /// `for c in 0..n { if (c >= 2) S(c); if (n - 3 - c >= 0 && m >= 1) T(c); if (c % 2 ...) }`
    fn body() -> Ast {
        Ast::Block(vec![
            guarded(
                Cond::NonNegative(Expr::Add(vec![var("c"), int(-2)])),
                user("S", var("c")),
            ),
            guarded(
                Cond::And(vec![
                    Cond::NonNegative(Expr::Add(vec![
                        var("n"),
                        int(-3),
                        Expr::Mul(-Int::one(), Box::new(var("c"))),
                    ])),
                    Cond::NonNegative(Expr::Add(vec![var("m"), int(-1)])),
                ]),
                user("T", var("c")),
            ),
            guarded(
                Cond::Zero(Expr::Mod(Box::new(var("c")), Int::from(2))),
                user("U", var("c")),
            ),
            user("V", var("c")),
        ])
    }

    fn trace(ast: &Ast, n: i64, m: i64) -> Vec<(String, Vec<i64>)> {
        interpret(ast, &[("n".to_string(), n), ("m".to_string(), m)]).unwrap()
    }

    #[test]
    fn parallel_loops_are_split_per_statement_with_guards_as_bounds() {
        let ast = distribute(lp(body(), true));
        let Ast::Block(loops) = &ast else {
            panic!("not distributed: {ast:?}");
        };
        assert_eq!(loops.len(), 4);
        // S: the guard became the lower bound.
        let Ast::For(s) = &loops[0] else { panic!() };
        assert!(matches!(*s.body, Ast::User { .. }));
        // T: the upper bound inside, the condition on m around the loop.
        let Ast::If { then, .. } = &loops[1] else {
            panic!()
        };
        let Ast::For(t) = &**then else { panic!() };
        assert!(matches!(*t.body, Ast::User { .. }));
        // U keeps its modulo guard inside.
        let Ast::For(u) = &loops[2] else { panic!() };
        assert!(matches!(*u.body, Ast::If { .. }));
        for (n, m) in [(0, 0), (1, 1), (5, 0), (6, 2)] {
            let mut want = trace(&lp(body(), true), n, m);
            let got = trace(&ast, n, m);
            // Per statement, the instances and their order are those of the loop.
            for name in ["S", "T", "U", "V"] {
                let a: Vec<_> = want.iter().filter(|(s, _)| s == name).cloned().collect();
                let b: Vec<_> = got.iter().filter(|(s, _)| s == name).cloned().collect();
                assert_eq!(a, b, "{name} at n = {n}, m = {m}");
            }
            want.sort();
            let mut got = got;
            got.sort();
            assert_eq!(want, got);
        }
    }

    #[test]
    fn sequential_or_unguarded_loops_stay() {
        assert_eq!(distribute(lp(body(), false)), lp(body(), false));
        let plain = Ast::Block(vec![user("S", var("c")), user("T", var("c"))]);
        assert_eq!(distribute(lp(plain.clone(), true)), lp(plain, true));
    }
}
