//! Unroll-and-jam (register tiling) of the loops of a permutable band.
//!
//! A mark node named `unroll-and-jam m:u ...` ([`pollen_scop::marks`]) above a permutable
//! band asks for member `m` of that band to be unrolled `u` times and the copies jammed
//! into the band's innermost loop:
//! ```text
//!   for (v = l; v <= h; v++)            for (v = l; v <= h - (u - 1); v += u)
//!     for (w ...)                ==>      for (w ...)
//!       for (x ...)                         for (x ...) { B(v); B(v + 1); ...; B(v + u - 1) }
//!         B(v)                          for (v = max(l, h - ((h - l + 1) mod u) + 1); v <= h; v++)
//!                                         for (w ...) for (x ...) B(v)
//! ```
//! The copies of the body share every load that does not depend on `v` (in a matrix
//! product, the row of `B` in the vectorised loop), which is what makes the innermost
//! loop compute-bound rather than load-bound.
//!
//! # Legality
//! The new order runs, for each group of `u` consecutive values of `v`, the inner loops
//! once with the `u` instances side by side: the schedule `(floor(v / u), w, x, v)`, a
//! strip-mining of `v` followed by moving its point loop innermost. Within a permutable
//! band every order of the members is legal, hence this one. The pass therefore only
//! jams a loop whose inner loops down to the innermost are all members of the same band
//! (the mark's band, identified by the iterator names its members got) and whose bounds
//! do not depend on `v` (a rectangular nest, so the copies share the inner loops'
//! iterations); it leaves every other loop unchanged. The remainder loop runs the last
//! `(h - l + 1) mod u` values in the original order.

use pollen_arith::Int;

use crate::ast::{Ast, Expr, Loop};
use crate::expr::simplify;
use crate::unroll::substitute;

/// A loop to jam: its iterator and the number of copies.
pub(crate) type Request = (String, u32);

/// `ast` (the code of one band and its subtree) with the loops of `requests` jammed
/// where that is legal; `band` holds the iterator names of the band's members.
///
/// All requests are applied together: inside the main loops of the jammed loops, the
/// innermost loop's body is copied once per combination of copy numbers, the first
/// request's number varying slowest. In a matrix product jammed along `i` and `k`, the
/// two updates of one element of `C` are then adjacent, so the compiler keeps the
/// element in a register between them.
pub(crate) fn jam(ast: Ast, requests: &[Request], band: &[String]) -> Ast {
    walk(ast, requests, band, &[])
}

/// `ast` with the loops of `requests` split into jammed main loops and remainders;
/// `pending` lists the jammed loops around `ast` whose copies the innermost loop body
/// still has to make.
fn walk(ast: Ast, requests: &[Request], band: &[String], pending: &[Request]) -> Ast {
    match ast {
        Ast::Block(children) => Ast::Block(
            children
                .into_iter()
                .map(|c| walk(c, requests, band, pending))
                .collect(),
        ),
        Ast::If {
            cond,
            then,
            otherwise,
        } => Ast::If {
            cond,
            then: Box::new(walk(*then, requests, band, pending)),
            otherwise: otherwise.map(|o| Box::new(walk(*o, requests, band, pending))),
        },
        Ast::For(l) => {
            let request = requests.iter().find(|(it, _)| *it == l.iterator);
            match request {
                Some((_, factor)) if jammable(&l, band) => {
                    split(l, *factor, requests, band, pending)
                }
                _ if !pending.is_empty() && !crate::build::contains_loop(&l.body) => {
                    let mut l = l;
                    l.body = Box::new(copies(&l.body, pending));
                    Ast::For(l)
                }
                _ => {
                    let mut l = l;
                    l.body = Box::new(walk(*l.body, requests, band, pending));
                    Ast::For(l)
                }
            }
        }
        user @ Ast::User { .. } => user,
    }
}

/// One copy of `body` per combination of the copy numbers of `pending` (the first
/// varying slowest), each with the iterators advanced by their copy numbers.
fn copies(body: &Ast, pending: &[Request]) -> Ast {
    let mut out = vec![body.clone()];
    for (iterator, factor) in pending.iter().rev() {
        // Prepend this iterator's copies as the slower-varying choice.
        let mut next = Vec::with_capacity(out.len() * *factor as usize);
        for r in 0..*factor {
            let value = simplify(Expr::Add(vec![
                Expr::Var(iterator.clone()),
                Expr::Int(Int::from(i64::from(r))),
            ]));
            for b in &out {
                next.push(substitute(b, iterator, &value));
            }
        }
        out = next;
    }
    Ast::Block(out)
}

/// Whether `l` can be jammed: unit stride, and below it a chain of single loops of the
/// band, none of whose bounds mentions `l`'s iterator, ending in a loop without loops.
fn jammable(l: &Loop, band: &[String]) -> bool {
    if l.stride != Int::one() {
        return false;
    }
    let mut current = single_loop(&l.body);
    while let Some(inner) = current {
        if !band.contains(&inner.iterator)
            || inner.lower.mentions(&l.iterator)
            || inner.upper.mentions(&l.iterator)
        {
            return false;
        }
        current = single_loop(&inner.body);
        if current.is_none() {
            return !crate::build::contains_loop(&inner.body);
        }
    }
    false
}

/// The loop `ast` consists of, through blocks of one element.
fn single_loop(ast: &Ast) -> Option<&Loop> {
    match ast {
        Ast::For(l) => Some(l),
        Ast::Block(v) if v.len() == 1 => single_loop(&v[0]),
        _ => None,
    }
}

/// The jammed main loop and the remainder loop of a jammable loop.
fn split(l: Loop, factor: u32, requests: &[Request], band: &[String], pending: &[Request]) -> Ast {
    let u = Int::from(i64::from(factor));
    let minus = |e: &Expr| Expr::Mul(-Int::one(), Box::new(e.clone()));
    // The main loop stops where fewer than `u` values remain.
    let main_upper = simplify(Expr::Add(vec![
        l.upper.clone(),
        Expr::Int(&Int::one() - &u),
    ]));
    let mut inner = pending.to_vec();
    inner.push((l.iterator.clone(), factor));
    let main_body = walk((*l.body).clone(), requests, band, &inner);
    // The remainder starts after the last complete group: h - ((h - l + 1) mod u) + 1,
    // and never before l (when the loop is empty the main loop ran nothing either).
    let count = simplify(Expr::Add(vec![
        l.upper.clone(),
        minus(&l.lower),
        Expr::Int(Int::one()),
    ]));
    let rest_lower = simplify(Expr::Max(vec![
        l.lower.clone(),
        simplify(Expr::Add(vec![
            l.upper.clone(),
            minus(&Expr::Mod(Box::new(count), u.clone())),
            Expr::Int(Int::one()),
        ])),
    ]));
    let rest_body = walk(*l.body, requests, band, pending);
    let main = Loop {
        iterator: l.iterator.clone(),
        lower: l.lower.clone(),
        upper: main_upper,
        stride: u,
        body: Box::new(main_body),
        parallel: l.parallel,
        vectorizable: false,
    };
    let rest = Loop {
        iterator: l.iterator,
        lower: rest_lower,
        upper: l.upper,
        stride: Int::one(),
        body: Box::new(rest_body),
        parallel: l.parallel,
        vectorizable: l.vectorizable,
    };
    Ast::Block(vec![Ast::For(main), Ast::For(rest)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ast::Cond;
    use crate::interp::interpret;

    fn var(v: &str) -> Expr {
        Expr::var(v)
    }

    fn int(k: i64) -> Expr {
        Expr::int(k)
    }

    fn for_loop(it: &str, lower: Expr, upper: Expr, body: Ast) -> Ast {
        Ast::For(Loop {
            iterator: it.into(),
            lower,
            upper,
            stride: Int::one(),
            body: Box::new(body),
            parallel: false,
            vectorizable: false,
        })
    }

    fn user(args: &[&str]) -> Ast {
        Ast::User {
            statement: "S".into(),
            args: args.iter().map(|a| var(a)).collect(),
        }
    }

    fn band(names: &[&str]) -> Vec<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    /// A 3-deep rectangular nest over `[0, n-1] x [0, 2] x [m, m+3]`.
    fn nest() -> Ast {
        for_loop(
            "c0",
            int(0),
            Expr::Add(vec![var("n"), int(-1)]),
            for_loop(
                "c1",
                int(0),
                int(2),
                for_loop(
                    "c2",
                    var("m"),
                    Expr::Add(vec![var("m"), int(3)]),
                    user(&["c0", "c1", "c2"]),
                ),
            ),
        )
    }

    fn run(ast: &Ast, n: i64) -> Vec<(String, Vec<i64>)> {
        let params = [("n".to_string(), n), ("m".to_string(), 5)];
        interpret(ast, &params).unwrap()
    }

    #[test]
    fn jamming_keeps_the_instances_and_groups_them() {
        let names = band(&["c0", "c1", "c2"]);
        for n in [0, 1, 3, 4, 5, 8, 11] {
            let original = run(&nest(), n);
            let jammed = jam(nest(), &[("c0".into(), 4)], &names);
            let order = run(&jammed, n);
            let mut a = original.clone();
            let mut b = order.clone();
            a.sort();
            b.sort();
            assert_eq!(a, b, "n = {n}");
            // Within a group of four values of c0, the instances run in (c1, c2, c0)
            // order; the remainder in the original order.
            let full = (n / 4) * 4;
            let expected: Vec<_> = original
                .iter()
                .filter(|(_, v)| v[0] < full)
                .cloned()
                .collect::<Vec<_>>();
            let mut grouped = expected.clone();
            grouped.sort_by_key(|(_, v)| (v[0].div_euclid(4), v[1], v[2], v[0]));
            assert_eq!(&order[..grouped.len()], &grouped[..], "n = {n}");
            let tail: Vec<_> = original
                .iter()
                .filter(|(_, v)| v[0] >= full)
                .cloned()
                .collect();
            assert_eq!(&order[grouped.len()..], &tail[..], "n = {n}");
        }
    }

    #[test]
    fn two_members_jam_in_turn() {
        let names = band(&["c0", "c1", "c2"]);
        let jammed = jam(nest(), &[("c0".into(), 2), ("c1".into(), 2)], &names);
        for n in [0, 1, 2, 5] {
            let mut a = run(&nest(), n);
            let mut b = run(&jammed, n);
            a.sort();
            b.sort();
            assert_eq!(a, b);
        }
    }

    #[test]
    fn loops_outside_the_band_or_triangular_are_not_jammed() {
        // The inner loop is not a member of the band.
        let jammed = jam(nest(), &[("c0".into(), 4)], &band(&["c0", "c1"]));
        assert_eq!(jammed, nest());
        // The inner bound depends on the jammed iterator.
        let triangular = for_loop(
            "c0",
            int(0),
            var("n"),
            for_loop("c1", int(0), var("c0"), user(&["c0", "c1"])),
        );
        assert_eq!(
            jam(
                triangular.clone(),
                &[("c0".into(), 2)],
                &band(&["c0", "c1"])
            ),
            triangular
        );
        // A guard between the loops.
        let guarded = for_loop(
            "c0",
            int(0),
            var("n"),
            Ast::If {
                cond: Cond::NonNegative(var("n")),
                then: Box::new(for_loop("c1", int(0), int(3), user(&["c0", "c1"]))),
                otherwise: None,
            },
        );
        assert_eq!(
            jam(guarded.clone(), &[("c0".into(), 2)], &band(&["c0", "c1"])),
            guarded
        );
        // The innermost loop itself has no inner loop to jam into.
        let single = for_loop("c0", int(0), var("n"), user(&["c0", "c0"]));
        assert_eq!(
            jam(single.clone(), &[("c0".into(), 2)], &band(&["c0"])),
            single
        );
    }
}
