//! Residue splitting (`pollen_transform::residues`): the pieces of an up-sampling
//! statement partition its instances, read without division, keep the original's
//! dependences, and statements whose divisions a split cannot remove stay whole.

use pollen_deps::{analyze, Analysis, DepKind};
use pollen_presburger::{Budget, DimKind, Int, Set};
use pollen_scop::Scop;
use pollen_transform::residues::{split_residues, ResidueOptions};

fn scop(body: &str, params: &str) -> Scop {
    let c = format!("void f({params}) {{\n#pragma scop\n{body}\n#pragma endscop\n}}\n");
    pollen_frontend::extract(&c).expect("extract").scop
}

/// The points of `s` at `n`, its first parameter.
fn points(s: &Set, n: i64) -> Vec<Vec<i64>> {
    let fixed = s
        .fix_val(DimKind::Param, 0, &Int::from(n))
        .and_then(|s| s.project_out(DimKind::Param, 0, s.n_params()))
        .expect("fix");
    fixed
        .points()
        .expect("points")
        .into_iter()
        .map(|p| p.iter().map(|v| v.to_i64().unwrap()).collect())
        .collect()
}

const UPSAMPLE: &str = "\
for (x = 0; x < 2 * n - 1; x++)
  u[x] = 0.5f * (d[x / 2] + d[(x + 1) / 2]);
for (x = 0; x < 2 * n - 1; x++)
  w[x] = u[x] + u[x + 1 < 2 * n - 1 ? x + 1 : x];";
const PARAMS: &str = "int n, float d[n], float u[2 * n], float w[2 * n]";

#[test]
fn an_upsampling_statement_splits_into_two_pieces_without_division() {
    let original = scop(UPSAMPLE, PARAMS);
    let (split, splits) = split_residues(
        &original,
        &ResidueOptions::default(),
        &mut Budget::unlimited(),
    )
    .expect("split");
    assert_eq!(splits.len(), 1, "{splits:?}");
    assert_eq!(splits[0].statement, "S0");
    assert_eq!(splits[0].moduli, [("x".to_string(), 2)]);
    let names: Vec<&str> = splits[0].pieces.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(names, ["S0_0", "S0_1"]);
    // The pieces' instances are the even and the odd x of the original.
    for n in [1, 4, 7] {
        let even: Vec<i64> = points(&split.statement("S0_0").unwrap().domain, n)
            .into_iter()
            .map(|p| 2 * p[0])
            .collect();
        let odd: Vec<i64> = points(&split.statement("S0_1").unwrap().domain, n)
            .into_iter()
            .map(|p| 2 * p[0] + 1)
            .collect();
        let mut all: Vec<i64> = even.iter().chain(&odd).copied().collect();
        all.sort_unstable();
        let expected: Vec<i64> = points(&original.statement("S0").unwrap().domain, n)
            .into_iter()
            .map(|p| p[0])
            .collect();
        assert_eq!(all, expected, "n = {n}");
    }
    // Every access of a piece is affine, and the text computes the original element.
    for piece in ["S0_0", "S0_1"] {
        let s = split.statement(piece).unwrap();
        for a in &s.accesses {
            assert!(
                a.relation.basic_maps().iter().all(|b| b.n_div() == 0),
                "{piece}: {}",
                a.relation
            );
        }
    }
    // The divisions the split made exact are folded: `x >= 0` in the piece's domain
    // makes C's truncation the floor.
    assert_eq!(
        split.statement("S0_1").unwrap().body.trim(),
        "u[(2 * (x) + 1)] = 0.5f * (d[(x)] + d[(x + 1)]);"
    );
    // The statement without division is kept as it is.
    assert_eq!(
        split.statement("S1").unwrap().body,
        original.statement("S1").unwrap().body
    );
}

#[test]
fn the_split_program_has_the_original_dependences() {
    let original = scop(UPSAMPLE, PARAMS);
    let (split, _) = split_residues(
        &original,
        &ResidueOptions::default(),
        &mut Budget::unlimited(),
    )
    .expect("split");
    let before = analyze(&original, Analysis::ValueBased).expect("deps");
    let after = analyze(&split, Analysis::ValueBased).expect("deps");
    // Flow dependences S0 -> S1 through u, as pairs (x of S0, x of S1) at n = 6.
    let pairs = |deps: &pollen_deps::Dependences| -> Vec<(i64, i64)> {
        let mut out = Vec::new();
        for d in deps.as_slice().iter().filter(|d| d.kind == DepKind::Flow) {
            let (m, r) = match d.source.as_str() {
                "S0" => (1, 0),
                "S0_0" => (2, 0),
                "S0_1" => (2, 1),
                other => panic!("unexpected source {other}"),
            };
            let rel = d
                .relation
                .fix_val(DimKind::Param, 0, &Int::from(6))
                .and_then(|x| x.project_out(DimKind::Param, 0, 1))
                .expect("fix");
            for p in rel.points().expect("points") {
                out.push((m * p[0].to_i64().unwrap() + r, p[1].to_i64().unwrap()));
            }
        }
        out.sort_unstable();
        out
    };
    let expected = pairs(&before);
    assert!(!expected.is_empty());
    assert_eq!(pairs(&after), expected);
}

#[test]
fn divisions_a_split_cannot_remove_keep_the_statement_whole() {
    // (x + n) / 2: the parity of n decides; x / 8 is beyond the largest modulus.
    for body in [
        "for (x = 0; x < n; x++)\n  u[x] = d[(x + n) / 2];",
        "for (x = 0; x < n; x++)\n  u[x] = d[x / 8];",
    ] {
        let original = scop(body, "int n, float d[2 * n], float u[n]");
        let (split, splits) = split_residues(
            &original,
            &ResidueOptions::default(),
            &mut Budget::unlimited(),
        )
        .expect("split");
        assert!(splits.is_empty(), "{body}: {splits:?}");
        assert_eq!(split.statements.len(), 1);
        assert_eq!(split.statements[0].name, "S0");
    }
}

#[test]
fn a_compared_channel_iterator_splits_by_value() {
    // c == 0 ? ... : ... over three channels: one piece per channel, each with a
    // constant condition; without `values` the statement stays whole.
    let body = "for (c = 0; c < 3; c++)\n  for (x = 0; x < n; x++)\n    \
                y[c][x] = c == 0 ? 2.0f * a[x] : c == 1 ? a[x] : -a[x];";
    let original = scop(body, "int n, float a[n], float y[3][n]");
    let (split, splits) = split_residues(
        &original,
        &ResidueOptions::default(),
        &mut Budget::unlimited(),
    )
    .expect("split");
    assert_eq!(splits.len(), 1);
    assert_eq!(
        splits[0].moduli,
        [("c".to_string(), 3), ("x".to_string(), 1)]
    );
    assert_eq!(split.statements.len(), 3);
    for (k, s) in split.statements.iter().enumerate() {
        // The piece of channel k has the single value c' = 0, standing for c = k.
        assert_eq!(points(&s.domain, 2), [vec![0, 0], vec![0, 1]], "{}", s.name);
        assert!(
            s.body.contains(&format!("(3 * (c) + {k}) == 0")),
            "{}",
            s.body
        );
    }
    let options = ResidueOptions {
        values: false,
        ..ResidueOptions::default()
    };
    let (_, splits) = split_residues(&original, &options, &mut Budget::unlimited()).expect("split");
    assert!(splits.is_empty());
    // A compared iterator with a parametric range is not split.
    let body = "for (c = 0; c < n; c++)\n  y[c][0] = c == 0 ? a[c] : -a[c];";
    let original = scop(body, "int n, float a[n], float y[n][1]");
    let (_, splits) = split_residues(
        &original,
        &ResidueOptions::default(),
        &mut Budget::unlimited(),
    )
    .expect("split");
    assert!(splits.is_empty());
}
