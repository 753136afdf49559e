//! Full unrolling of loops with a small constant trip count.
//!
//! A loop whose upper and lower bounds differ by a constant (their linear forms have the
//! same terms) runs `(upper - lower) / stride + 1` times whatever the values of the
//! enclosing iterators and parameters. When that count is at most the limit, the loop
//! becomes a block of copies of its body, copy `k` with the iterator replaced by
//! `lower + k·stride`; a negative count makes the loop disappear.

use pollen_arith::Int;

use crate::ast::{Ast, Cond, Expr, Loop};
use crate::expr::{simplify, Linear};

/// The AST with every loop of at most `limit` iterations (a constant) unrolled.
pub(crate) fn unroll(ast: Ast, limit: u64) -> Ast {
    match ast {
        Ast::Block(v) => Ast::Block(v.into_iter().map(|a| unroll(a, limit)).collect()),
        Ast::If {
            cond,
            then,
            otherwise,
        } => Ast::If {
            cond,
            then: Box::new(unroll(*then, limit)),
            otherwise: otherwise.map(|o| Box::new(unroll(*o, limit))),
        },
        Ast::For(mut l) => {
            l.body = Box::new(unroll(*l.body, limit));
            match trip_count(&l) {
                Some(n) if n <= Int::from(limit) => copies(&l, &n),
                _ => Ast::For(l),
            }
        }
        user => user,
    }
}

/// A parallel loop `l` with the loops of its body fully unrolled, when each of them runs
/// a constant number of iterations and the unrolled body has at most `limit` statement
/// instances: an innermost parallel loop, so vectorisable (a pooling window's loops
/// inside the loop over the output's columns). `None` when `l` is not parallel, its body
/// holds no loop, or a loop of it cannot be unrolled within the limit.
///
/// The body executes the same instances in the same order, so the loop carries no more
/// dependences than before.
pub fn unrolled_body(l: &Loop, limit: u64) -> Option<Loop> {
    if !l.parallel || !crate::build::contains_loop(&l.body) {
        return None;
    }
    fn fits(ast: &Ast, limit: &Int) -> Option<Int> {
        match ast {
            Ast::Block(v) => {
                let mut total = Int::zero();
                for a in v {
                    total = &total + &fits(a, limit)?;
                }
                Some(total)
            }
            Ast::If {
                then, otherwise, ..
            } => {
                let mut total = fits(then, limit)?;
                if let Some(o) = otherwise {
                    total = &total + &fits(o, limit)?;
                }
                Some(total)
            }
            Ast::For(inner) => Some(&trip_count(inner)? * &fits(&inner.body, limit)?),
            Ast::User { .. } => Some(Int::one()),
        }
        .filter(|n| n <= limit)
    }
    fits(&l.body, &Int::from(limit))?;
    let body = crate::post::tidy(unroll((*l.body).clone(), limit));
    if crate::build::contains_loop(&body) {
        return None;
    }
    Some(Loop {
        body: Box::new(body),
        vectorizable: true,
        ..l.clone()
    })
}

/// The constant number of iterations of a loop (zero when it never runs), if constant:
/// its bounds differ by a constant.
pub fn trip_count(l: &Loop) -> Option<Int> {
    let lower = Linear::of(&l.lower);
    let upper = Linear::of(&l.upper);
    if lower.terms != upper.terms {
        return None;
    }
    let span = &upper.constant - &lower.constant;
    if span.is_negative() {
        return Some(Int::zero());
    }
    Some(&span.floor_div(&l.stride) + &Int::one())
}

/// The body of `l` once per iteration, `n` iterations.
fn copies(l: &Loop, n: &Int) -> Ast {
    let mut out = Vec::new();
    let mut k = Int::zero();
    while &k < n {
        let value = simplify(Expr::Add(vec![
            l.lower.clone(),
            Expr::Mul(&k * &l.stride, Box::new(Expr::Int(Int::one()))),
        ]));
        out.push(substitute(&l.body, &l.iterator, &value));
        k = &k + &Int::one();
    }
    Ast::Block(out)
}

/// The AST with variable `v` replaced by `value` (inner loops rebinding `v` excepted).
pub(crate) fn substitute(ast: &Ast, v: &str, value: &Expr) -> Ast {
    match ast {
        Ast::Block(children) => {
            Ast::Block(children.iter().map(|c| substitute(c, v, value)).collect())
        }
        Ast::For(l) => {
            let mut l = l.clone();
            l.lower = expr(&l.lower, v, value);
            l.upper = expr(&l.upper, v, value);
            if l.iterator != v {
                l.body = Box::new(substitute(&l.body, v, value));
            }
            Ast::For(l)
        }
        Ast::If {
            cond,
            then,
            otherwise,
        } => Ast::If {
            cond: condition(cond, v, value),
            then: Box::new(substitute(then, v, value)),
            otherwise: otherwise
                .as_ref()
                .map(|o| Box::new(substitute(o, v, value))),
        },
        Ast::User { statement, args } => Ast::User {
            statement: statement.clone(),
            args: args.iter().map(|a| expr(a, v, value)).collect(),
        },
    }
}

fn condition(c: &Cond, v: &str, value: &Expr) -> Cond {
    match c {
        Cond::NonNegative(e) => Cond::NonNegative(expr(e, v, value)),
        Cond::Zero(e) => Cond::Zero(expr(e, v, value)),
        Cond::And(w) => Cond::And(w.iter().map(|x| condition(x, v, value)).collect()),
        Cond::Or(w) => Cond::Or(w.iter().map(|x| condition(x, v, value)).collect()),
    }
}

fn expr(e: &Expr, v: &str, value: &Expr) -> Expr {
    simplify(replace(e, v, value))
}

fn replace(e: &Expr, v: &str, value: &Expr) -> Expr {
    let each = |w: &[Expr]| w.iter().map(|x| replace(x, v, value)).collect();
    match e {
        Expr::Int(_) => e.clone(),
        Expr::Var(x) if x == v => value.clone(),
        Expr::Var(_) => e.clone(),
        Expr::Add(w) => Expr::Add(each(w)),
        Expr::Min(w) => Expr::Min(each(w)),
        Expr::Max(w) => Expr::Max(each(w)),
        Expr::Mul(c, x) => Expr::Mul(c.clone(), Box::new(replace(x, v, value))),
        Expr::FloorDiv(x, d) => Expr::FloorDiv(Box::new(replace(x, v, value)), d.clone()),
        Expr::CeilDiv(x, d) => Expr::CeilDiv(Box::new(replace(x, v, value)), d.clone()),
        Expr::Mod(x, d) => Expr::Mod(Box::new(replace(x, v, value)), d.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interp::interpret;

    #[test]
    fn constant_trip_counts_unroll_exactly() {
        // for (c0 = 0; c0 <= N - 1; c0++) for (c1 = c0; c1 <= c0 + 2; c1++) S(c0, c1)
        let var = |s: &str| Expr::Var(s.into());
        let inner = Ast::For(Loop {
            iterator: "c1".into(),
            lower: var("c0"),
            upper: Expr::Add(vec![var("c0"), Expr::Int(Int::from(2))]),
            stride: Int::one(),
            body: Box::new(Ast::User {
                statement: "S".into(),
                args: vec![var("c0"), var("c1")],
            }),
            parallel: false,
            vectorizable: false,
        });
        let outer = Ast::For(Loop {
            iterator: "c0".into(),
            lower: Expr::Int(Int::zero()),
            upper: Expr::Add(vec![var("N"), Expr::Int(Int::from(-1))]),
            stride: Int::one(),
            body: Box::new(inner),
            parallel: false,
            vectorizable: false,
        });
        let params = [("N".to_string(), 4)];
        let unrolled = unroll(outer.clone(), 3);
        assert_eq!(
            interpret(&unrolled, &params).unwrap(),
            interpret(&outer, &params).unwrap()
        );
        let Ast::For(l) = &unrolled else {
            panic!("the outer loop stays")
        };
        assert!(matches!(&*l.body, Ast::Block(v) if v.len() == 3));
        // A limit below the trip count keeps the loop.
        assert_eq!(unroll(outer.clone(), 2), outer);
    }
}
