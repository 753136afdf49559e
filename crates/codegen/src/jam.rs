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
//! # Non-rectangular nests
//! When the bounds of an inner loop `w` depend on `v` (a triangle `w <= v`), the copies
//! do not share all of `w`'s iterations. Inside the jammed main loop, `w`'s range is then
//! split in three: the values below the largest lower bound of the copies, run copy by
//! copy as the original code (`v` replaced by `v + r`, copies in order), the values that
//! every copy has, `[max_r l_w(v + r), min_r u_w(v + r)]`, jammed and guard-free, and the
//! values above them, again copy by copy. The extremes are the bounds at the first or
//! the last copy where a bound is monotone in `v` (affine, `min`, `max`, divisions), and
//! the `max` or `min` over all copies otherwise. Several jammed loops split an inner loop
//! over every combination of their copies.
//!
//! # Legality
//! The new order runs, for each group of `u` consecutive values of `v`, the inner loops
//! once with the `u` instances side by side: the schedule `(floor(v / u), w, x, v)`, a
//! strip-mining of `v` followed by moving its point loop innermost. Within a permutable
//! band every order of the members is legal, hence this one. The pass therefore only
//! jams a loop whose inner loops down to the innermost are all members of the same band
//! (the mark's band, identified by the iterator names its members got); it leaves every
//! other loop unchanged. The remainder loop runs the last `(h - l + 1) mod u` values in
//! the original order. In a permutable band every dependence advances by a non-negative
//! distance along each member, so an order is legal when it runs `x` before `y`
//! whenever `y` is at least `x` in every member. The three parts of a split inner loop
//! `w` hold increasing values of `w`, so such an `x` never runs in a later part than
//! `y`; inside the first and the last part the copies run in increasing order of the
//! jammed iterators, each one in the original order; inside the middle part the
//! argument repeats one loop further in.

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
        Ast::For(l) if depends_on_copies(&l, pending) => peel(l, requests, band, pending),
        Ast::For(l) => walk_loop(l, requests, band, pending),
        user @ Ast::User { .. } => user,
    }
}

/// [`walk`] of a loop whose bounds do not depend on the copies of `pending`.
fn walk_loop(l: Loop, requests: &[Request], band: &[String], pending: &[Request]) -> Ast {
    let request = requests.iter().find(|(it, _)| *it == l.iterator);
    match request {
        Some((_, factor)) if jammable(&l, band) => split(l, *factor, requests, band, pending),
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
/// band ending in a loop without loops; those whose bounds mention `l`'s iterator (split
/// by [`peel`]) with unit stride.
fn jammable(l: &Loop, band: &[String]) -> bool {
    if l.stride != Int::one() {
        return false;
    }
    let mut current = single_loop(&l.body);
    while let Some(inner) = current {
        let moves = inner.lower.mentions(&l.iterator) || inner.upper.mentions(&l.iterator);
        if !band.contains(&inner.iterator) || (moves && inner.stride != Int::one()) {
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

/// Whether the bounds of `l` mention an iterator whose copies are pending.
fn depends_on_copies(l: &Loop, pending: &[Request]) -> bool {
    pending
        .iter()
        .any(|(it, _)| l.lower.mentions(it) || l.upper.mentions(it))
}

/// Every combination of the copy numbers of `pending`, the first varying slowest.
fn combinations(pending: &[Request]) -> Vec<Vec<u32>> {
    let mut out = vec![Vec::new()];
    for (_, factor) in pending {
        out = out
            .into_iter()
            .flat_map(|c| {
                (0..*factor).map(move |r| {
                    let mut c = c.clone();
                    c.push(r);
                    c
                })
            })
            .collect();
    }
    out
}

/// `v + r`.
fn advanced(iterator: &str, r: u32) -> Expr {
    simplify(Expr::Add(vec![
        Expr::Var(iterator.to_string()),
        Expr::Int(Int::from(i64::from(r))),
    ]))
}

/// `ast` with the iterators of `pending` advanced by the copy numbers of `combination`.
fn copy(ast: &Ast, pending: &[Request], combination: &[u32]) -> Ast {
    let mut out = ast.clone();
    for ((iterator, _), r) in pending.iter().zip(combination) {
        if *r != 0 {
            out = substitute(&out, iterator, &advanced(iterator, *r));
        }
    }
    out
}

/// How `e` changes as `v` grows: `Some(1)` never decreasing, `Some(-1)` never
/// increasing, `Some(0)` constant (not mentioned), `None` unknown.
fn monotonicity(e: &Expr, v: &str) -> Option<i8> {
    let combine = |es: &[Expr]| {
        let mut sign = 0i8;
        for x in es {
            match monotonicity(x, v)? {
                0 => {}
                s if sign == 0 || sign == s => sign = s,
                _ => return None,
            }
        }
        Some(sign)
    };
    match e {
        Expr::Int(_) => Some(0),
        Expr::Var(x) => Some(i8::from(x == v)),
        Expr::Add(es) | Expr::Min(es) | Expr::Max(es) => combine(es),
        Expr::Mul(c, x) => {
            let s = monotonicity(x, v)?;
            Some(if c.is_zero() {
                0
            } else if *c < Int::zero() {
                -s
            } else {
                s
            })
        }
        Expr::FloorDiv(x, _) | Expr::CeilDiv(x, _) => monotonicity(x, v),
        Expr::Mod(x, _) => (!x.mentions(v)).then_some(0),
    }
}

/// The largest (`max`) or smallest value of the bound `e` over the copies of `pending`.
fn extreme(e: &Expr, pending: &[Request], max: bool) -> Expr {
    let mut out = e.clone();
    for (iterator, factor) in pending {
        let last = factor - 1;
        let at = |r: u32| {
            if r == 0 {
                out.clone()
            } else {
                expr_substitute(&out, iterator, &advanced(iterator, r))
            }
        };
        out = match monotonicity(&out, iterator) {
            Some(0) => out,
            Some(s) if (s > 0) == max => at(last),
            Some(_) => at(0),
            None => {
                let all: Vec<Expr> = (0..*factor).map(at).collect();
                simplify(if max { Expr::Max(all) } else { Expr::Min(all) })
            }
        };
    }
    out
}

/// `e` with `v` replaced by `value`.
fn expr_substitute(e: &Expr, v: &str, value: &Expr) -> Expr {
    let probe = Ast::User {
        statement: String::new(),
        args: vec![e.clone()],
    };
    match substitute(&probe, v, value) {
        Ast::User { mut args, .. } => args.pop().unwrap_or_else(|| e.clone()),
        _ => e.clone(),
    }
}

/// A loop of the band inside jammed main loops whose bounds depend on their iterators:
/// the values below the largest lower bound of the copies and above the smallest upper
/// bound run copy by copy as the original code; the values between them, which every
/// copy has, are jammed. A copy's first (last) part is left out when its lower (upper)
/// bound is the extreme itself, so that the part is empty.
fn peel(l: Loop, requests: &[Request], band: &[String], pending: &[Request]) -> Ast {
    let mentions = |e: &Expr| pending.iter().any(|(it, _)| e.mentions(it));
    let one = || Expr::Int(Int::one());
    let lower_max = extreme(&l.lower, pending, true);
    let upper_min = extreme(&l.upper, pending, false);
    let original = Ast::For(l.clone());
    let mut out = Vec::new();
    let combos = combinations(pending);
    if mentions(&l.lower) {
        for c in &combos {
            let Ast::For(mut low) = copy(&original, pending, c) else {
                continue;
            };
            if low.lower == lower_max {
                continue;
            }
            low.upper = simplify(Expr::Min(vec![
                low.upper,
                Expr::Add(vec![
                    lower_max.clone(),
                    Expr::Mul(-Int::one(), Box::new(one())),
                ]),
            ]));
            out.push(Ast::For(low));
        }
    }
    let mut middle = l.clone();
    middle.lower = lower_max.clone();
    middle.upper = upper_min.clone();
    out.push(walk_loop(middle, requests, band, pending));
    if mentions(&l.upper) {
        for c in &combos {
            let Ast::For(mut high) = copy(&original, pending, c) else {
                continue;
            };
            if high.upper == upper_min {
                continue;
            }
            high.lower = simplify(Expr::Max(vec![
                high.lower,
                lower_max.clone(),
                Expr::Add(vec![upper_min.clone(), one()]),
            ]));
            out.push(Ast::For(high));
        }
    }
    Ast::Block(out)
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

    /// Whether the trace runs every instance of `original` once and `x` before `y`
    /// whenever `y` is at least `x` in every coordinate (the order a permutable band's
    /// dependences need).
    fn respects_the_band(original: &Ast, jammed: &Ast, n: i64) -> Result<(), String> {
        let a = run(original, n);
        let b = run(jammed, n);
        let (mut sa, mut sb) = (a.clone(), b.clone());
        sa.sort();
        sb.sort();
        if sa != sb {
            return Err(format!("n = {n}: instances differ"));
        }
        for (k, (_, x)) in b.iter().enumerate() {
            for (_, y) in &b[..k] {
                if x != y && x.iter().zip(y).all(|(p, q)| p <= q) {
                    return Err(format!("n = {n}: {y:?} runs before {x:?}"));
                }
            }
        }
        Ok(())
    }

    /// The loops of `ast` whose body holds `copies` statement instances and no loop or
    /// guard: the jammed innermost loops.
    fn jammed_loops(ast: &Ast, copies: usize, out: &mut usize) {
        match ast {
            Ast::Block(v) => v.iter().for_each(|c| jammed_loops(c, copies, out)),
            Ast::For(l) => {
                let mut users = 0;
                let plain = |a: &Ast, users: &mut usize| -> bool {
                    match a {
                        Ast::User { .. } => {
                            *users += 1;
                            true
                        }
                        Ast::Block(v) => v.iter().all(|c| {
                            *users += usize::from(matches!(c, Ast::User { .. }));
                            matches!(c, Ast::User { .. })
                        }),
                        _ => false,
                    }
                };
                if plain(&l.body, &mut users) && users == copies {
                    *out += 1;
                }
                jammed_loops(&l.body, copies, out);
            }
            Ast::If {
                then, otherwise, ..
            } => {
                jammed_loops(then, copies, out);
                if let Some(o) = otherwise {
                    jammed_loops(o, copies, out);
                }
            }
            Ast::User { .. } => {}
        }
    }

    #[test]
    fn triangular_nests_jam_their_common_part_and_peel_the_rest() {
        let names = band(&["c0", "c1", "c2"]);
        let shifted = |v: &str, k: i64| Expr::Add(vec![var(v), int(k)]);
        // c1 <= c0 (syrk's j <= i), c1 >= c0 + 1 (trmm's k > i), both bounds moving
        // (a band of width 3 along the diagonal) and a bound with a modulo (no
        // monotonicity known: the extreme over every copy).
        let shapes: Vec<(Expr, Expr)> = vec![
            (int(0), var("c0")),
            (shifted("c0", 1), var("n")),
            (shifted("c0", -1), shifted("c0", 1)),
            (
                int(0),
                Expr::Add(vec![
                    var("c0"),
                    Expr::Mod(Box::new(var("c0")), Int::from(3)),
                ]),
            ),
        ];
        for (lower, upper) in shapes {
            let nest = for_loop(
                "c0",
                int(0),
                Expr::Add(vec![var("n"), int(-1)]),
                for_loop(
                    "c1",
                    lower.clone(),
                    upper.clone(),
                    for_loop("c2", int(0), int(2), user(&["c0", "c1", "c2"])),
                ),
            );
            for requests in [
                vec![("c0".to_string(), 4)],
                vec![("c0".to_string(), 4), ("c1".to_string(), 2)],
            ] {
                let jammed = jam(nest.clone(), &requests, &names);
                assert_ne!(jammed, nest, "{lower:?} {upper:?} not jammed");
                let copies = requests.iter().map(|(_, u)| *u as usize).product();
                let mut count = 0;
                jammed_loops(&jammed, copies, &mut count);
                assert!(
                    count > 0,
                    "no guard-free loop of {copies} copies:\n{jammed:?}"
                );
                for n in [0, 1, 2, 3, 4, 5, 7, 8, 9, 12] {
                    respects_the_band(&nest, &jammed, n).unwrap();
                }
            }
        }
    }

    #[test]
    fn loops_outside_the_band_are_not_jammed() {
        // The inner loop is not a member of the band.
        let jammed = jam(nest(), &[("c0".into(), 4)], &band(&["c0", "c1"]));
        assert_eq!(jammed, nest());
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
