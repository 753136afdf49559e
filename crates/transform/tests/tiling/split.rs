//! Band splitting for locality (`split_for_locality`) and the access steps of bands
//! nested in other bands (the `_in` queries with a prefix).

use pollen_deps::{analyze, Analysis, Dependence};
use pollen_scop::{Band, Node, ScheduleTree, Scop};
use pollen_transform::order::{
    extend_prefix, has_tiling_reuse_in, invariant_read_of_written_array, is_triangular_in,
    member_steps_in, strided_with_spatial_reuse, Prefix,
};
use pollen_transform::profit::cost;
use pollen_transform::{parallelize, split_for_locality, tile, TileOptions};

use crate::common::{bands, is_legal, kernel, kernel_names, shape};

/// A fragment's scop, its value-based dependences and its original loops as a tree with
/// their parallel loops marked.
fn fragment(body: &str) -> (Scop, Vec<Dependence>, ScheduleTree) {
    let source = format!(
        "void f(int n, double X[n][n], double Y[n][n], double Z[n][n]) {{\n#pragma scop\n{body}\n#pragma endscop\n}}"
    );
    let scop = pollen_frontend::extract(&source).expect("extraction").scop;
    let deps = analyze(&scop, Analysis::ValueBased)
        .expect("dependences")
        .as_slice()
        .to_vec();
    let tree = parallelize(&deps, &scop.schedule, None).expect("original order");
    (scop, deps, tree)
}

/// The statement names of a band.
fn names(band: &Band) -> Vec<String> {
    band.schedule
        .maps()
        .filter_map(|m| {
            m.space()
                .domain_tuple()
                .and_then(|t| t.name())
                .map(String::from)
        })
        .collect()
}

/// The band scheduling exactly `statement` with `n` members, if any.
fn band_of<'a>(tree: &'a ScheduleTree, statement: &str, n: usize) -> Option<&'a Band> {
    bands(tree)
        .into_iter()
        .find(|b| names(b) == [statement] && b.n_members() == n)
}

const COLUMN_WALKS: &str = "for (int j = 0; j < n; j++) {
  for (int i = 0; i < n; i++) X[i][j] = Z[i][j] + 1;
  for (int i = 0; i < n; i++) Y[i][j] = X[i][j] * 2;
}";

#[test]
fn a_band_over_column_walks_is_split_into_two_dimensional_bands() {
    let (scop, deps, tree) = fragment(COLUMN_WALKS);
    let split = split_for_locality(&scop, &deps, &tree).expect("split");
    assert!(is_legal(&split, &deps), "{}", shape(&split));
    for statement in ["S0", "S1"] {
        let band = band_of(&split, statement, 2)
            .unwrap_or_else(|| panic!("no [j, i] band of {statement} in {}", shape(&split)));
        assert!(band.permutable);
        assert_eq!(band.coincident, vec![true, true]);
    }
    // Ordered for stride 1, no innermost loop strides any more; before, all did.
    let order = TileOptions {
        min_band_depth: usize::MAX,
        ..TileOptions::default()
    };
    let before = cost(&scop, &tile(&scop, &deps, &tree, &order).expect("order")).expect("cost");
    let after = cost(&scop, &tile(&scop, &deps, &split, &order).expect("order")).expect("cost");
    assert_eq!(before.strided.get(&2), Some(&4), "{before}");
    assert_eq!(after.strided.get(&2).copied().unwrap_or(0), 0, "{after}");
    assert!(after.is_better_than(&before));
}

#[test]
fn a_split_that_reverses_a_dependence_is_not_made() {
    // S1 at column j writes what S0 reads at column j + 1: distributing the j loop
    // would run every S0 before every S1.
    let (scop, deps, tree) = fragment(
        "for (int j = 1; j < n; j++) {
  for (int i = 0; i < n; i++) X[i][j] = Y[i][j - 1] + 1;
  for (int i = 0; i < n; i++) Y[i][j] = X[i][j] * 2;
}",
    );
    let split = split_for_locality(&scop, &deps, &tree).expect("split");
    assert_eq!(shape(&split), shape(&tree));
    assert!(is_legal(&split, &deps));
}

#[test]
fn a_split_that_gains_no_stride_one_loop_is_not_made() {
    // The inner loops already walk rows.
    let (scop, deps, tree) = fragment(
        "for (int i = 0; i < n; i++) {
  for (int j = 0; j < n; j++) X[i][j] = Z[i][j] + 1;
  for (int j = 0; j < n; j++) Y[i][j] = X[i][j] * 2;
}",
    );
    let split = split_for_locality(&scop, &deps, &tree).expect("split");
    assert_eq!(shape(&split), shape(&tree));
}

#[test]
fn gram_schmidt_runs_its_column_updates_row_by_row() {
    let k = kernel("gramschmidt");
    let split = split_for_locality(&k.scop, &k.deps, &k.tree).expect("split");
    assert!(is_legal(&split, &k.deps), "{}", shape(&split));
    let tiled = tile(
        &k.scop,
        &k.deps,
        &split,
        &TileOptions {
            require_reuse: true,
            ..TileOptions::default()
        },
    )
    .expect("tiling");
    assert!(is_legal(&tiled, &k.deps));
    let before = cost(&k.scop, &k.tree).expect("cost");
    let after = cost(&k.scop, &tiled).expect("cost");
    // R[k][j] += Q[i][k] * A[i][j] and A[i][j] -= Q[i][k] * R[k][j] walked down columns
    // of A and Q; now their innermost loop runs along j.
    assert!(before.strided.get(&3).copied().unwrap_or(0) > 0, "{before}");
    assert_eq!(after.strided.get(&3).copied().unwrap_or(0), 0, "{after}");
}

#[test]
fn every_kernel_splits_legally_and_never_strides_more() {
    let order = TileOptions {
        min_band_depth: usize::MAX,
        ..TileOptions::default()
    };
    let mut split_any = 0;
    for name in kernel_names() {
        let k = kernel(&name);
        let split = split_for_locality(&k.scop, &k.deps, &k.tree).expect("split");
        assert!(is_legal(&split, &k.deps), "{name}: {}", shape(&split));
        if shape(&split) == shape(&k.tree) {
            continue;
        }
        split_any += 1;
        let ordered = |t: &ScheduleTree| tile(&k.scop, &k.deps, t, &order).expect("order");
        let before = cost(&k.scop, &ordered(&k.tree)).expect("cost");
        let after = cost(&k.scop, &ordered(&split)).expect("cost");
        assert!(after.is_better_than(&before), "{name}: {before} -> {after}");
    }
    assert!(split_any > 0, "no kernel was split");
}

/// The inner band of a two-band tree and the prefix of its outer band.
fn inner_band(tree: &ScheduleTree) -> (Prefix, Band) {
    let all = bands(tree);
    assert_eq!(all.len(), 2, "{}", shape(tree));
    let prefix = extend_prefix(&Prefix::new(), all[0]).expect("prefix");
    (prefix, all[1].clone())
}

/// A tree with the original loops of a perfect nest split into an outer band of one
/// member and an inner band of the rest.
fn outer_and_inner(scop: &Scop) -> ScheduleTree {
    let Node::Domain { domain, child } = &scop.schedule.root else {
        panic!("no domain root");
    };
    let mut node = &**child;
    let mut members = Vec::new();
    while let Node::Band(b) = node {
        members.push(b.schedule.clone());
        node = &b.child;
    }
    assert_eq!(members.len(), 3, "a perfect nest of three loops");
    let join = |a: &pollen_presburger::UnionMap, b: &pollen_presburger::UnionMap| {
        let (a, b) = (a.maps().next().unwrap(), b.maps().next().unwrap());
        pollen_presburger::UnionMap::from_map(a.flat_range_product(b).expect("product"))
    };
    let inner = Band {
        schedule: join(&members[1], &members[2]),
        permutable: true,
        coincident: vec![true, true],
        child: Box::new(Node::Leaf),
    };
    ScheduleTree {
        root: Node::Domain {
            domain: domain.clone(),
            child: Box::new(Node::Band(Band {
                schedule: members[0].clone(),
                permutable: true,
                coincident: vec![false],
                child: Box::new(Node::Band(inner)),
            })),
        },
    }
}

#[test]
fn steps_of_an_inner_band_hold_the_outer_loops_fixed() {
    // Floyd-Warshall: within one k, path[i][k] does not move along j and path[k][j] not
    // along i. Without the outer band fixed, both move (k is free).
    let (scop, _, _) = fragment(
        "for (int k = 0; k < n; k++)
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      X[i][j] = X[i][j] < X[i][k] + X[k][j] ? X[i][j] : X[i][k] + X[k][j];",
    );
    let tree = outer_and_inner(&scop);
    let (prefix, band) = inner_band(&tree);
    let mut budget = pollen_presburger::Budget::unlimited();
    // Accesses: X[i][j], X[i][k] and X[k][j] read twice each, X[i][j] written.
    let fixed = member_steps_in(&scop, &band, &prefix, &mut budget).expect("steps");
    let free = member_steps_in(&scop, &band, &Prefix::new(), &mut budget).expect("steps");
    // Along i: X[i][j] and X[i][k] move a row (strided), X[k][j] stays.
    assert_eq!(fixed[0], (0, 5));
    // Along j: X[i][j] and X[k][j] are unit steps, X[i][k] stays.
    assert_eq!(fixed[1], (5, 0));
    assert!(free[1].1 > fixed[1].1, "{free:?} vs {fixed:?}");
    // No two-dimensional reuse within one k, but the innermost loop reads X[i][k],
    // which it also overwrites (at j = k).
    assert!(!has_tiling_reuse_in(&scop, &band, &prefix, &mut budget).expect("reuse"));
    assert!(invariant_read_of_written_array(&scop, &band, &prefix, 1, &mut budget).expect("alias"));
    assert!(!strided_with_spatial_reuse(&scop, &band, &prefix, 1, &mut budget).expect("reuse"));
}

#[test]
fn a_column_walk_reuses_its_lines_along_the_row_member() {
    // Within one t, u[j][i] strides along j but is consecutive along i.
    let (scop, _, _) = fragment(
        "for (int t = 0; t < n; t++)
  for (int i = 1; i < n; i++)
    for (int j = 1; j < n; j++)
      X[i][j] = X[i][j - 1] + Z[j][i];",
    );
    let tree = outer_and_inner(&scop);
    let (prefix, band) = inner_band(&tree);
    let mut budget = pollen_presburger::Budget::unlimited();
    assert!(strided_with_spatial_reuse(&scop, &band, &prefix, 1, &mut budget).expect("reuse"));
    assert!(
        !invariant_read_of_written_array(&scop, &band, &prefix, 1, &mut budget).expect("alias")
    );
    // Rows only: nothing strides along j.
    let (scop, _, _) = fragment(
        "for (int t = 0; t < n; t++)
  for (int i = 1; i < n; i++)
    for (int j = 1; j < n; j++)
      X[i][j] = X[i][j - 1] + Z[i][j];",
    );
    let tree = outer_and_inner(&scop);
    let (prefix, band) = inner_band(&tree);
    assert!(!strided_with_spatial_reuse(&scop, &band, &prefix, 1, &mut budget).expect("reuse"));
}

#[test]
fn triangles_are_told_from_rectangles_within_the_outer_loops() {
    let mut budget = pollen_presburger::Budget::unlimited();
    // j <= i: a triangle in the inner band.
    let (scop, _, _) = fragment(
        "for (int t = 0; t < n; t++)
  for (int i = 0; i < n; i++)
    for (int j = 0; j <= i; j++)
      X[i][j] = X[i][j] + Z[j][i];",
    );
    let tree = outer_and_inner(&scop);
    let (prefix, band) = inner_band(&tree);
    assert!(is_triangular_in(&scop, &band, &prefix, &mut budget).expect("shape"));
    // j <= t: bounded by the outer loop only, a rectangle within each t.
    let (scop, _, _) = fragment(
        "for (int t = 0; t < n; t++)
  for (int i = 0; i < n; i++)
    for (int j = 0; j <= t; j++)
      X[i][j] = X[i][j] + Z[j][i];",
    );
    let tree = outer_and_inner(&scop);
    let (prefix, band) = inner_band(&tree);
    assert!(!is_triangular_in(&scop, &band, &prefix, &mut budget).expect("shape"));
    // Without the outer loop fixed, the same band is a triangle in (t, j) terms only,
    // which the band does not hold: still a rectangle in (i, j) over all t.
    assert!(!is_triangular_in(&scop, &band, &Prefix::new(), &mut budget).expect("shape"));
}
