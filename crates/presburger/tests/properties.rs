//! Property tests: every operation of the library against brute-force enumeration inside
//! a box (the oracle of `pollen_presburger::oracle`), on random small sets and maps with
//! parameters, existentials and floor divisions, plus the algebraic laws.
//!
//! Each property runs a fixed number of cases from a fixed seed, so that `cargo test` is
//! deterministic and takes a few seconds; set `POLLEN_QC_SEED` to explore other inputs
//! and `QUICKCHECK_TESTS` is ignored on purpose.

use pollen_presburger::oracle::{
    self, op_budget, seeded_quickcheck, ArbChain, ArbMap, ArbPair, ArbSet, ArbSetNoParams, Entropy,
    SplitMix,
};
use pollen_presburger::{DimKind, Map};
use quickcheck::{TestResult, Testable};

/// Runs `prop` on `cases` random inputs from the fixed (or `POLLEN_QC_SEED`) seed.
fn check<F: Testable>(cases: u64, prop: F) {
    seeded_quickcheck(100)
        .tests(cases)
        .max_tests(cases * 4)
        .quickcheck(prop);
}

fn verdict(r: Result<(), String>) -> TestResult {
    match r {
        Ok(()) => TestResult::passed(),
        Err(message) => TestResult::error(message),
    }
}

/// A random choice derived from a quickcheck-supplied seed.
fn pick(seed: u64, n: usize) -> usize {
    SplitMix::new(seed).below(n.max(1) as u64) as usize
}

// ----- construction, emptiness, counting -----

#[test]
fn construction_keeps_points() {
    fn prop(a: ArbMap) -> TestResult {
        verdict(oracle::check_construction(&a.0))
    }
    check(60, prop as fn(ArbMap) -> TestResult);
    fn prop_set(a: ArbSet) -> TestResult {
        verdict(oracle::check_construction(&a.0))
    }
    check(60, prop_set as fn(ArbSet) -> TestResult);
}

#[test]
fn is_empty_and_sample() {
    fn prop(a: ArbSet) -> TestResult {
        verdict(oracle::check_emptiness(&a.0))
    }
    check(80, prop as fn(ArbSet) -> TestResult);
    fn prop_map(a: ArbMap) -> TestResult {
        verdict(oracle::check_emptiness(&a.0))
    }
    check(40, prop_map as fn(ArbMap) -> TestResult);
}

#[test]
fn card_and_points() {
    fn prop(a: ArbSetNoParams) -> TestResult {
        verdict(oracle::check_card(&a.0))
    }
    check(60, prop as fn(ArbSetNoParams) -> TestResult);
}

// ----- boolean algebra -----

#[test]
fn intersect() {
    fn prop(p: ArbPair) -> TestResult {
        verdict(oracle::check_binary_op(
            &p.0,
            &p.1,
            "intersect",
            |a, b| a.intersect(b),
            |x, y| x && y,
        ))
    }
    check(60, prop as fn(ArbPair) -> TestResult);
}

/// Intersection with a union that holds the other operand's parts among its own (a
/// statement's domain intersected with itself), where parts are kept whole.
#[test]
fn intersect_with_a_union_of_its_parts() {
    fn prop(p: ArbPair) -> TestResult {
        let mut holder = p.1.clone();
        holder.parts.extend(p.0.parts.iter().cloned());
        let truth = |x: bool, y: bool| x && y;
        verdict(
            oracle::check_binary_op(&p.0, &holder, "intersect", |a, b| a.intersect(b), truth)
                .and_then(|()| {
                    oracle::check_binary_op(
                        &holder,
                        &p.0,
                        "intersect",
                        |a, b| a.intersect(b),
                        truth,
                    )
                }),
        )
    }
    check(60, prop as fn(ArbPair) -> TestResult);
}

#[test]
fn union() {
    fn prop(p: ArbPair) -> TestResult {
        verdict(oracle::check_binary_op(
            &p.0,
            &p.1,
            "union",
            |a, b| a.union(b),
            |x, y| x || y,
        ))
    }
    check(60, prop as fn(ArbPair) -> TestResult);
}

// ----- projections and structure -----

#[test]
fn project_out() {
    fn prop(a: ArbMap, seed: u64) -> TestResult {
        let s = &a.0.space;
        let kinds: Vec<DimKind> = [DimKind::Param, DimKind::In, DimKind::Out]
            .into_iter()
            .filter(|k| s.n(*k) > 0)
            .collect();
        let kind = kinds[pick(seed, kinds.len())];
        let total = s.n(kind);
        let first = pick(seed >> 8, total);
        let n = 1 + pick(seed >> 16, total - first);
        verdict(oracle::check_project_out(&a.0, kind, first, n))
    }
    check(60, prop as fn(ArbMap, u64) -> TestResult);
    fn prop_set(a: ArbSet, seed: u64) -> TestResult {
        let total = a.0.space.n_out();
        let first = pick(seed, total);
        let n = 1 + pick(seed >> 16, total - first);
        verdict(oracle::check_project_out(&a.0, DimKind::Out, first, n))
    }
    check(60, prop_set as fn(ArbSet, u64) -> TestResult);
}

#[test]
fn reverse_domain_range_params_deltas() {
    fn prop(a: ArbMap) -> TestResult {
        verdict(oracle::check_map_structure(&a.0))
    }
    check(60, prop as fn(ArbMap) -> TestResult);
}

#[test]
fn apply_range() {
    fn prop(c: ArbChain) -> TestResult {
        verdict(oracle::check_apply_range(&c.0, &c.1))
    }
    check(60, prop as fn(ArbChain) -> TestResult);
}

#[test]
fn products() {
    fn prop(a: ArbMap, seed: u64) -> TestResult {
        // Keep the products within four variables of brute force per side.
        if a.0.space.n_dims() > 3 {
            return TestResult::discard();
        }
        let mut g = SplitMix::new(seed);
        let b = oracle::gen_map_spec(&mut g, &a.0.space, &oracle::GenConfig::default());
        verdict(oracle::check_products(&a.0, &b))
    }
    check(40, prop as fn(ArbMap, u64) -> TestResult);
}

#[test]
fn fix_and_bounds() {
    fn prop(a: ArbMap, seed: u64, value: i8) -> TestResult {
        let s = &a.0.space;
        let kinds: Vec<DimKind> = [DimKind::Param, DimKind::In, DimKind::Out]
            .into_iter()
            .filter(|k| s.n(*k) > 0)
            .collect();
        let kind = kinds[pick(seed, kinds.len())];
        let pos = pick(seed >> 8, s.n(kind));
        let value = i64::from(value % 5);
        verdict(oracle::check_bounds(&a.0, kind, pos, value))
    }
    check(60, prop as fn(ArbMap, u64, i8) -> TestResult);
}

// ----- laws -----

#[test]
fn intersect_is_invariant_under_permutation() {
    fn prop(p: ArbPair, seed: u64) -> TestResult {
        verdict(oracle::check_permutation(
            &p.0,
            &p.1,
            seed,
            "intersect",
            |a, b| a.intersect(b),
        ))
    }
    check(40, prop as fn(ArbPair, u64) -> TestResult);
}

// ----- operations of the ops module -----

#[test]
fn subtract() {
    fn prop(p: ArbPair) -> TestResult {
        verdict(oracle::check_binary_op(
            &p.0,
            &p.1,
            "subtract",
            |a, b| a.subtract_with(b, &mut op_budget()),
            |x, y| x && !y,
        ))
    }
    check(60, prop as fn(ArbPair) -> TestResult);
}

#[test]
fn complement() {
    fn prop(a: ArbMap) -> TestResult {
        verdict(oracle::check_complement(&a.0, |m| {
            m.complement_with(&mut op_budget())
        }))
    }
    check(40, prop as fn(ArbMap) -> TestResult);
    fn prop_set(a: ArbSet) -> TestResult {
        verdict(oracle::check_complement(&a.0, |m| {
            m.complement_with(&mut op_budget())
        }))
    }
    check(40, prop_set as fn(ArbSet) -> TestResult);
}

#[test]
fn is_subset_is_equal_is_disjoint() {
    fn prop(p: ArbPair) -> TestResult {
        let all = [
            oracle::check_relation(
                &p.0,
                &p.1,
                "is_subset",
                |a, b| a.is_subset_with(b, &mut op_budget()),
                |x, y| x.is_subset(y),
            ),
            oracle::check_relation(
                &p.0,
                &p.1,
                "is_equal",
                |a, b| a.is_equal_with(b, &mut op_budget()),
                |x, y| x == y,
            ),
            oracle::check_relation(
                &p.0,
                &p.1,
                "is_disjoint",
                |a, b| a.is_disjoint_with(b, &mut op_budget()),
                |x, y| x.is_disjoint(y),
            ),
            // Pairs that are related, so that `true` answers are exercised too.
            oracle::check_relation(
                &p.0,
                &p.1,
                "is_subset(A * B, A)",
                |a, b| a.intersect(b)?.is_subset_with(a, &mut op_budget()),
                |_, _| true,
            ),
            oracle::check_relation(
                &p.0,
                &p.1,
                "is_subset(A, A + B)",
                |a, b| a.is_subset_with(&a.union(b)?, &mut op_budget()),
                |_, _| true,
            ),
            oracle::check_relation(
                &p.0,
                &p.1,
                "is_equal(A + B, B + A)",
                |a, b| a.union(b)?.is_equal_with(&b.union(a)?, &mut op_budget()),
                |_, _| true,
            ),
            oracle::check_relation(
                &p.0,
                &p.1,
                "is_disjoint(A - B, B)",
                |a, b| {
                    a.subtract_with(b, &mut op_budget())?
                        .is_disjoint_with(b, &mut op_budget())
                },
                |_, _| true,
            ),
        ];
        verdict(all.into_iter().collect())
    }
    check(60, prop as fn(ArbPair) -> TestResult);
}

#[test]
fn coalesce_keeps_points() {
    fn prop(a: ArbMap) -> TestResult {
        verdict(oracle::check_same_points(&a.0, "coalesce", |m| {
            m.coalesce_with(&mut op_budget())
        }))
    }
    check(60, prop as fn(ArbMap) -> TestResult);
    fn prop_union(p: ArbPair) -> TestResult {
        verdict(oracle::check_binary_op(
            &p.0,
            &p.1,
            "coalesce of a union",
            |a, b| a.union(b)?.coalesce_with(&mut op_budget()),
            |x, y| x || y,
        ))
    }
    check(60, prop_union as fn(ArbPair) -> TestResult);
}

#[test]
fn detect_equalities_and_remove_redundancies_keep_points() {
    fn prop(a: ArbMap) -> TestResult {
        verdict(
            oracle::check_same_points(&a.0, "detect_equalities", |m| {
                m.detect_equalities_with(&mut op_budget())
            })
            .and_then(|()| {
                oracle::check_same_points(&a.0, "remove_redundancies", |m| {
                    m.remove_redundancies_with(&mut op_budget())
                })
            }),
        )
    }
    check(60, prop as fn(ArbMap) -> TestResult);
}

#[test]
fn gist() {
    fn prop(p: ArbPair) -> TestResult {
        verdict(oracle::check_binary_op(
            &p.0,
            &p.1,
            "gist(A, B) * B",
            |a, b| a.gist_with(b, &mut op_budget())?.intersect(b),
            |x, y| x && y,
        ))
    }
    check(60, prop as fn(ArbPair) -> TestResult);
}

#[test]
fn hulls_contain_the_set() {
    fn prop(a: ArbMap) -> TestResult {
        verdict(
            oracle::check_superset(&a.0, "simple_hull", |m| {
                Ok(Map::from_basic(m.simple_hull_with(&mut op_budget())?))
            })
            .and_then(|()| {
                oracle::check_superset(&a.0, "box_hull", |m| {
                    Ok(Map::from_basic(m.box_hull_with(&mut op_budget())?))
                })
            }),
        )
    }
    check(60, prop as fn(ArbMap) -> TestResult);
}

#[test]
fn subtract_and_intersect_give_back_the_set() {
    fn prop(p: ArbPair) -> TestResult {
        verdict(oracle::check_laws(&p.0, &p.1, |a, b| {
            a.subtract_with(b, &mut op_budget())
        }))
    }
    check(60, prop as fn(ArbPair) -> TestResult);
}

#[test]
fn subtract_is_invariant_under_permutation() {
    fn prop(p: ArbPair, seed: u64) -> TestResult {
        verdict(oracle::check_permutation(
            &p.0,
            &p.1,
            seed,
            "subtract",
            |a, b| a.subtract_with(b, &mut op_budget()),
        ))
    }
    check(40, prop as fn(ArbPair, u64) -> TestResult);
}

// ----- lexicographic optimisation -----

#[test]
fn lexmin_and_lexmax() {
    fn prop(a: ArbMap) -> TestResult {
        verdict(
            oracle::check_lexopt(&a.0, "lexmin", false, |m| m.lexmin_with(&mut op_budget()))
                .and_then(|()| {
                    oracle::check_lexopt(&a.0, "lexmax", true, |m| m.lexmax_with(&mut op_budget()))
                }),
        )
    }
    check(40, prop as fn(ArbMap) -> TestResult);
    fn prop_set(a: ArbSet) -> TestResult {
        verdict(
            oracle::check_lexopt(&a.0, "lexmin", false, |m| m.lexmin_with(&mut op_budget()))
                .and_then(|()| {
                    oracle::check_lexopt(&a.0, "lexmax", true, |m| m.lexmax_with(&mut op_budget()))
                }),
        )
    }
    check(40, prop_set as fn(ArbSet) -> TestResult);
}

#[test]
fn lexmin_pw_per_parameter_value() {
    fn prop(a: ArbMap) -> TestResult {
        verdict(
            oracle::check_lexopt_pw(&a.0, false, |m| m.lexmin_pw_with(&mut op_budget())).and_then(
                |()| oracle::check_lexopt_pw(&a.0, true, |m| m.lexmax_pw_with(&mut op_budget())),
            ),
        )
    }
    check(40, prop as fn(ArbMap) -> TestResult);
    fn prop_set(a: ArbSet) -> TestResult {
        verdict(oracle::check_lexopt_pw(&a.0, false, |m| {
            m.lexmin_pw_with(&mut op_budget())
        }))
    }
    check(40, prop_set as fn(ArbSet) -> TestResult);
}

#[test]
fn lexmin_of_translated_set_is_translated_lexmin() {
    fn prop(a: ArbMap, shift: (i8, i8)) -> TestResult {
        let shift = [i64::from(shift.0 % 4), i64::from(shift.1 % 4)];
        verdict(oracle::check_lexopt_translation(&a.0, &shift, |m| {
            m.lexmin_with(&mut op_budget())
        }))
    }
    check(40, prop as fn(ArbMap, (i8, i8)) -> TestResult);
    fn prop_set(a: ArbSet, shift: (i8, i8)) -> TestResult {
        let shift = [i64::from(shift.0 % 4), i64::from(shift.1 % 4)];
        verdict(oracle::check_lexopt_translation(&a.0, &shift, |m| {
            m.lexmax_with(&mut op_budget())
        }))
    }
    check(40, prop_set as fn(ArbSet, (i8, i8)) -> TestResult);
}

// ----- text -----

#[test]
fn parse_of_print_is_identity() {
    fn prop(a: ArbMap) -> TestResult {
        verdict(oracle::check_print_parse(&a.0))
    }
    check(60, prop as fn(ArbMap) -> TestResult);
    fn prop_set(a: ArbSet) -> TestResult {
        verdict(oracle::check_print_parse(&a.0))
    }
    check(60, prop_set as fn(ArbSet) -> TestResult);
}

// ----- more structural operations -----

#[test]
fn intersect_domain_and_range() {
    fn prop(a: ArbMap, seed: u64) -> TestResult {
        let mut g = SplitMix::new(seed);
        let cfg = oracle::GenConfig::default();
        let d = oracle::gen_map_spec(&mut g, &a.0.space.domain_space(), &cfg);
        let r = oracle::gen_map_spec(&mut g, &a.0.space.range_space(), &cfg);
        verdict(oracle::check_intersect_domain_range(&a.0, &d, &r))
    }
    check(40, prop as fn(ArbMap, u64) -> TestResult);
}

#[test]
fn eliminate() {
    fn prop(a: ArbMap, seed: u64) -> TestResult {
        let s = &a.0.space;
        let kinds: Vec<DimKind> = [DimKind::Param, DimKind::In, DimKind::Out]
            .into_iter()
            .filter(|k| s.n(*k) > 0)
            .collect();
        let kind = kinds[pick(seed, kinds.len())];
        let total = s.n(kind);
        let first = pick(seed >> 8, total);
        let n = 1 + pick(seed >> 16, total - first);
        verdict(oracle::check_eliminate(&a.0, kind, first, n))
    }
    check(40, prop as fn(ArbMap, u64) -> TestResult);
}

#[test]
fn apply_domain() {
    fn prop(a: ArbMap, seed: u64) -> TestResult {
        let s = &a.0.space;
        let mut g = SplitMix::new(seed);
        let nz = 1 + g.below(2) as usize;
        let space = oracle::make_space(s.n_params(), Some(s.n_in()), nz);
        let b = oracle::gen_map_spec(&mut g, &space, &oracle::GenConfig::default());
        verdict(oracle::check_apply_domain(&a.0, &b))
    }
    check(40, prop as fn(ArbMap, u64) -> TestResult);
}

#[test]
fn dim_min_and_dim_max() {
    fn prop(a: ArbSet, seed: u64) -> TestResult {
        let pos = pick(seed, a.0.space.n_out());
        verdict(
            oracle::check_dim_opt(&a.0, pos, false, |s| s.dim_min_with(pos, &mut op_budget()))
                .and_then(|()| {
                    oracle::check_dim_opt(&a.0, pos, true, |s| {
                        s.dim_max_with(pos, &mut op_budget())
                    })
                }),
        )
    }
    check(40, prop as fn(ArbSet, u64) -> TestResult);
}

#[test]
fn card_and_emptiness_are_invariant_under_permutation() {
    fn prop(a: ArbSetNoParams, seed: u64) -> TestResult {
        let n = a.0.space.n_out();
        let mut perm: Vec<usize> = (0..n).collect();
        let mut g = SplitMix::new(seed);
        for i in (1..n).rev() {
            let j = g.below(i as u64 + 1) as usize;
            perm.swap(i, j);
        }
        let permuted = a.0.permute_dims(&perm, a.0.space.clone());
        let (x, y) = (a.0.to_set(), permuted.to_set());
        let result = (|| -> Result<(), String> {
            let cx = x.card().map_err(|e| e.to_string())?;
            let cy = y.card().map_err(|e| e.to_string())?;
            let ex = x.is_empty().map_err(|e| e.to_string())?;
            let ey = y.is_empty().map_err(|e| e.to_string())?;
            if cx != cy || ex != ey {
                return Err(format!(
                    "card {cx} vs {cy}, is_empty {ex} vs {ey} under the permutation {perm:?}\nA = {}",
                    a.0
                ));
            }
            Ok(())
        })();
        verdict(result)
    }
    check(40, prop as fn(ArbSetNoParams, u64) -> TestResult);
}
