//! `Apart::implied`: the Presburger library proves an affine consequence of affine
//! facts over the integers, refuses non-consequences and what it cannot state, and the
//! prover that proves nothing says so.

use pollen_codegen::apart::{Apart, ByDomains, NeverProved};
use pollen_codegen::Expr;

fn v(n: &str) -> Expr {
    Expr::var(n)
}

fn sum(terms: &[(i64, &str)], constant: i64) -> Expr {
    let mut parts: Vec<Expr> = terms
        .iter()
        .map(|&(k, n)| Expr::Mul(k.into(), Box::new(v(n))))
        .collect();
    parts.push(Expr::int(constant));
    Expr::Add(parts)
}

#[test]
fn consequences_of_loop_bounds() {
    // 0 <= q <= 1: the loop `r <= min(1, 2 - 2q)` from 0 runs, `2 - 2q >= 0`.
    let context = [v("q"), sum(&[(-1, "q")], 1)];
    let goal = sum(&[(-2, "q")], 2);
    assert!(ByDomains::default().implied(&context, &goal));
    assert!(!NeverProved.implied(&context, &goal));
    // Not a consequence: `1 - 2q >= 0` fails at q = 1.
    assert!(!ByDomains::default().implied(&context, &sum(&[(-2, "q")], 1)));
    // Over the integers: 2q >= 1 and 2q <= 1 have no integer solution, so anything
    // follows.
    let none = [sum(&[(2, "q")], -1), sum(&[(-2, "q")], 1)];
    assert!(ByDomains::default().implied(&none, &sum(&[], -5)));
    // Names of other variables stand for any value.
    assert!(!ByDomains::default().implied(&context, &v("n")));
    // Not affine: nothing is proved.
    let min = Expr::Min(vec![v("q"), Expr::int(1)]);
    assert!(!ByDomains::default().implied(&context, &min));
    // A name the set syntax cannot hold.
    assert!(!ByDomains::default().implied(&[v("and")], &v("and")));
}
