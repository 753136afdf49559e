//! The encodings O and I against the digest's tests T1–T6 (Pouchet et al., POPL 2011,
//! §3.1 and Table 1; digest `shared/digests/pouchet-popl11.md` §6).

use std::collections::BTreeSet;

use pollen_arith::Int;
use pollen_search::{default_names, Encoding, FusionStructure, Interleaving};

fn binomial(n: usize, k: usize) -> usize {
    if k > n {
        return 0;
    }
    (0..k).fold(1, |acc, i| acc * (n - i) / (i + 1))
}

/// Every ordered partition of `0..n` as dense ranks, by brute force.
fn all_rank_vectors(n: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let mut ranks = vec![0; n];
    fn go(at: usize, n: usize, ranks: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if at == n {
            let mut used: Vec<usize> = ranks.clone();
            used.sort_unstable();
            used.dedup();
            if used.iter().enumerate().all(|(k, &v)| k == v) {
                out.push(ranks.clone());
            }
            return;
        }
        for r in 0..n {
            ranks[at] = r;
            go(at + 1, n, ranks, out);
        }
    }
    go(0, n, &mut ranks, &mut out);
    out
}

#[test]
fn t1_t2_variables_and_constraints_of_o() {
    for (n, table1) in [
        (3, Some(22)),
        (4, Some(58)),
        (5, Some(120)),
        (6, Some(215)),
        (7, Some(350)),
        (14, Some(3003)),
        (2, None),
    ] {
        let o = Encoding::new(n, 1).unwrap();
        assert_eq!(o.n_vars(), n * (n - 1), "T1, n = {n}");
        let cst = o.constraints().len();
        assert_eq!(cst, 5 * binomial(n, 2) + 7 * binomial(n, 3), "T2, n = {n}");
        if let Some(want) = table1 {
            assert_eq!(cst, want, "T2 (Table 1 #cst), n = {n}");
        }
    }
    // Table 1's #dim column: 6, 12, 30, 42, 182.
    let dims: Vec<usize> = [3, 4, 6, 7, 14]
        .iter()
        .map(|&n| Encoding::new(n, 1).unwrap().n_vars())
        .collect();
    assert_eq!(dims, [6, 12, 30, 42, 182]);
}

#[test]
fn t3_points_of_o_are_the_ordered_bell_numbers() {
    let fubini: [u64; 5] = [1, 3, 13, 75, 541];
    for (k, &want) in fubini.iter().enumerate() {
        let n = k + 1;
        let o = Encoding::new(n, 1).unwrap();
        if n == 1 {
            // No variable: the one point of the zero-dimensional universe.
            assert_eq!(o.n_vars(), 0);
        }
        let stats = o.stats().unwrap();
        assert_eq!(stats.points, Int::from(want), "T3, n = {n}");
    }
}

#[test]
fn t4_every_point_of_o_decodes_to_a_distinct_consistent_preorder() {
    for n in 1..=5 {
        let o = Encoding::new(n, 1).unwrap();
        let names = default_names(n);
        let points = o.set().unwrap().points().unwrap();
        let mut seen = BTreeSet::new();
        for p in &points {
            let s = o.decode_level(p, 0, &names).unwrap();
            let i = Interleaving::new(vec![s.clone()]).unwrap();
            assert_eq!(&o.encode(&i).unwrap(), p, "round trip of {s}");
            assert!(seen.insert(s.ranks()), "duplicate {s}");
        }
        // And every ordered partition is there: the bijection of Lemma 5.
        let all: BTreeSet<Vec<usize>> = all_rank_vectors(n).into_iter().collect();
        assert_eq!(seen, all, "n = {n}");
    }
}

#[test]
fn t4_decoding_refuses_what_is_not_a_preorder() {
    let o = Encoding::new(3, 1).unwrap();
    let names = default_names(3);
    // e_{0,1} = e_{1,2} = 1 but e_{0,2} = 0: not transitive, and not a point of O.
    let mut point = vec![Int::zero(); 6];
    point[o.e(0, 0, 1)] = Int::one();
    point[o.e(0, 1, 2)] = Int::one();
    assert!(o.decode_level(&point, 0, &names).is_err());
    assert!(!o.set().unwrap().contains_point(&point).unwrap());
    assert!(o.decode_level(&point[..5], 0, &names).is_err());
}

#[test]
fn t5_fig_2b_outer_level() {
    let o = Encoding::new(3, 1).unwrap();
    let names: Vec<String> = ["R", "S", "T"].iter().map(|s| s.to_string()).collect();
    let fig = FusionStructure::from_ranks(&[0, 0, 1], names.clone()).unwrap();
    let point = o
        .encode(&Interleaving::new(vec![fig.clone()]).unwrap())
        .unwrap();
    let bit = |v: usize| point[v].clone();
    assert_eq!(bit(o.e(0, 0, 1)), Int::one());
    assert_eq!(bit(o.e(0, 0, 2)), Int::zero());
    assert_eq!(bit(o.e(0, 1, 2)), Int::zero());
    assert_eq!(bit(o.p(0, 0, 1)), Int::zero());
    assert_eq!(bit(o.p(0, 0, 2)), Int::one());
    assert_eq!(bit(o.p(0, 1, 2)), Int::one());
    assert!(o.set().unwrap().contains_point(&point).unwrap());
    assert_eq!(o.decode_level(&point, 0, &names).unwrap(), fig);
    assert_eq!(fig.to_string(), "{R S} {T}");
}

#[test]
fn t6_points_of_the_multi_level_space_i() {
    let table = [(2, [3, 5, 7]), (3, [13, 37, 73]), (4, [75, 365, 1015])];
    for (n, counts) in table {
        for (d, &want) in counts.iter().enumerate() {
            let i = Encoding::new(n, d + 1).unwrap();
            let stats = i.stats().unwrap();
            assert_eq!(stats.points, Int::from(want), "T6, n = {n}, d = {}", d + 1);
            assert_eq!(stats.dims, (d + 1) * n * (n - 1));
        }
    }
}

#[test]
fn multi_level_points_decode_to_distinct_refining_interleavings() {
    let i = Encoding::new(3, 2).unwrap();
    let names = default_names(3);
    let mut seen = BTreeSet::new();
    for p in i.set().unwrap().points().unwrap() {
        let il = i.decode(&p, &names).unwrap();
        assert_eq!(i.encode(&il).unwrap(), p);
        assert!(seen.insert(il.to_string()), "duplicate {il}");
    }
    assert_eq!(seen.len(), 37);
    assert!(seen.contains("{{S0 S1} {S2}}"));
    assert!(seen.contains("{{S2} {S0 S1}}"));
    assert!(seen.contains("{S1} {{S0} {S2}}"));
}

#[test]
fn multi_level_refuses_a_level_that_does_not_refine() {
    let names = default_names(2);
    let outer = FusionStructure::from_ranks(&[0, 1], names.clone()).unwrap();
    let inner = FusionStructure::from_ranks(&[0, 0], names).unwrap();
    assert!(Interleaving::new(vec![outer, inner]).is_err());
}
