//! F¹ against a direct enumeration: every ordered partition of at most four
//! statements, legal when every dependence between classes goes forward and every
//! class has fusing rows found by an exhaustive search over small coefficients, checked
//! exactly on the integer dependences (no Farkas, no 0/1 encoding).

use std::collections::{BTreeMap, BTreeSet};

use pollen_search::{prune_outer, FusionOptions, Options, Problem, RowKind};

use crate::common::{
    atax, bicg, doitgen, gemver, matvec_chain, problem, program, three_mat_mat, violated,
};

/// Every ordered partition of `0..n`, as dense ranks.
fn ordered_partitions(n: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let total = n.pow(n as u32);
    for code in 0..total {
        let ranks: Vec<usize> = (0..n).map(|s| code / n.pow(s as u32) % n).collect();
        let mut used = ranks.clone();
        used.sort_unstable();
        used.dedup();
        if used.iter().enumerate().all(|(k, &v)| k == v) {
            out.push(ranks);
        }
    }
    out
}

/// Every vector of `len` values in `0..=max`.
fn vectors(len: usize, max: i64) -> Vec<Vec<i64>> {
    let mut out = vec![vec![]];
    for _ in 0..len {
        out = out
            .into_iter()
            .flat_map(|v| {
                (0..=max).map(move |c| {
                    let mut w = v.clone();
                    w.push(c);
                    w
                })
            })
            .collect();
    }
    out
}

/// Whether `class` has non-constant rows with coefficients in `0..=1` (`0..=2` for
/// few unknowns) and constants in `0..=max_shift` that no dependence inside it violates.
fn fusable_by_search(p: &Problem, class: &[usize], options: &FusionOptions) -> bool {
    let dims: Vec<usize> = class.iter().map(|&s| p.dims()[s]).collect();
    let total: usize = dims.iter().sum();
    let max = if total <= 4 { 2 } else { 1 };
    let shift = i64::from(options.max_shift);
    let edges: Vec<_> = p
        .edges()
        .iter()
        .filter(|e| class.contains(&e.source) && class.contains(&e.target))
        .collect();
    for coefficients in vectors(total, max) {
        let mut rows = Vec::new();
        let mut at = 0;
        for &d in &dims {
            rows.push(coefficients[at..at + d].to_vec());
            at += d;
        }
        let ok_shape = rows.iter().all(|r| match options.rows {
            RowKind::Affine => r.iter().any(|&c| c > 0),
            RowKind::Selector => r.iter().sum::<i64>() == 1 && r.iter().all(|&c| c <= 1),
        });
        if !ok_shape {
            continue;
        }
        for constants in vectors(class.len(), shift) {
            let legal = edges.iter().all(|e| {
                let a = class.iter().position(|&s| s == e.source).unwrap();
                let b = class.iter().position(|&s| s == e.target).unwrap();
                !violated(e, (&rows[a], constants[a]), (&rows[b], constants[b]))
            });
            if legal {
                return true;
            }
        }
    }
    false
}

/// The legal ordered partitions by direct enumeration.
fn brute_force(p: &Problem, options: &FusionOptions) -> BTreeSet<Vec<usize>> {
    let n = p.n_statements();
    let mut memo: BTreeMap<Vec<usize>, bool> = BTreeMap::new();
    let mut out = BTreeSet::new();
    for ranks in ordered_partitions(n) {
        let forward = p.edges().iter().all(|e| ranks[e.source] <= ranks[e.target]);
        if !forward {
            continue;
        }
        let k = ranks.iter().max().map_or(0, |m| m + 1);
        let classes: Vec<Vec<usize>> = (0..k)
            .map(|c| (0..n).filter(|&s| ranks[s] == c).collect())
            .collect();
        let all_fuse = classes.iter().filter(|c| c.len() > 1).all(|c| {
            *memo
                .entry(c.clone())
                .or_insert_with(|| fusable_by_search(p, c, options))
        });
        if all_fuse {
            out.insert(ranks);
        }
    }
    out
}

fn check(p: &Problem, options: &FusionOptions) {
    let pruned = prune_outer(p, &Options { fusion: *options }).unwrap();
    let structures = pruned.structures().unwrap();
    assert_eq!(structures, pruned.structures_from_set().unwrap());
    let got: BTreeSet<Vec<usize>> = structures.iter().map(|s| s.ranks()).collect();
    let want = brute_force(p, options);
    assert_eq!(got, want, "{:?}, {options:?}", p.names());
}

const SHIFTED: &str = "
for (i = 0; i < N; i++) a[i] = 1;
for (i = 0; i < N - 1; i++) b[i] = a[i + 1];
for (i = 0; i < N; i++) c[i] = b[i] + a[i];";

const STAR: &str = "
for (i = 0; i < N; i++) a[i] = 1;
for (i = 0; i < N; i++)
  for (j = 0; j < N; j++)
    b[i] = b[i] + A[i][j] * a[j];
for (i = 0; i < N; i++)
  for (j = 0; j < N; j++)
    c[j] = c[j] + A[i][j] * a[i];
for (i = 0; i < N; i++) d[i] = a[N - 1 - i];";

const CYCLE: &str = "
for (i = 1; i < N; i++) {
  a[i] = b[i - 1];
  b[i] = a[i];
}
for (i = 0; i < N; i++) c[i] = a[i];";

fn all_options() -> [FusionOptions; 3] {
    [
        FusionOptions::default(),
        FusionOptions {
            max_shift: 0,
            rows: RowKind::Selector,
        },
        FusionOptions {
            max_shift: 1,
            rows: RowKind::Affine,
        },
    ]
}

#[test]
fn matches_brute_force_on_the_digest_kernels() {
    for p in [matvec_chain(), three_mat_mat(), doitgen()] {
        for options in all_options() {
            check(&p, &options);
        }
    }
    for p in [atax(), bicg(), gemver()] {
        check(&p, &FusionOptions::default());
    }
}

#[test]
fn matches_brute_force_on_small_programs() {
    let programs = [
        program(&[], &["a", "b", "c"], SHIFTED),
        program(&["A"], &["a", "b", "c", "d"], STAR),
        program(&[], &["a", "b", "c"], CYCLE),
    ];
    for c in &programs {
        let p = problem(c);
        for options in all_options() {
            check(&p, &options);
        }
    }
}
