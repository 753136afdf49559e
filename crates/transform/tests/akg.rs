//! AKG's strategy on the running example of the paper (`shared/digests/akg.md`, §2.2
//! and the test cases of §6): a bias addition `S0` feeding a 2D convolution (`S1`
//! initialisation, `S2` reduction) followed by `abs` (`S3`) and ReLU (`S4`).

use std::collections::BTreeSet;

use pollen_deps::{analyze, Analysis, DepKind, Dependence};
use pollen_presburger::{Budget, DimKind, Int, Map, UnionMap, UnionSet};
use pollen_scop::{Node, ScheduleTree, Scop};
use pollen_transform::akg::memory::{promote, roles, Hierarchy, Level, Policy, Role};
use pollen_transform::akg::{
    classify, cluster, distribute_local_ub, instance_count, is_dot_product, point_count,
    post_tiling_fusion, post_tiling_fusion_with, producer_tiles, tile_live_out, units, SpaceKind,
    Unit, LOCAL_UB, SKIPPED,
};
use pollen_transform::{CacheInfo, Error};

const RUNNING: &str = "void f(int H, int W, int KH, int KW, float bias, float A[H][W], float B[KH][KW], float C[H][W]) {
#pragma scop
  for (int h = 0; h < H; h++)
    for (int w = 0; w < W; w++)
      A[h][w] = A[h][w] + bias;
  for (int h = 0; h <= H - KH; h++)
    for (int w = 0; w <= W - KW; w++) {
      C[h][w] = 0;
      for (int kh = 0; kh < KH; kh++)
        for (int kw = 0; kw < KW; kw++)
          C[h][w] += A[h + kh][w + kw] * B[kh][kw];
    }
  for (int h = 0; h <= H - KH; h++)
    for (int w = 0; w <= W - KW; w++)
      C[h][w] = fabsf(C[h][w]);
  for (int h = 0; h <= H - KH; h++)
    for (int w = 0; w <= W - KW; w++)
      C[h][w] = fmaxf(C[h][w], 0.0f);
#pragma endscop
}";

/// The running example, for kernels of at least one tap that fit the image.
fn running() -> Scop {
    let mut scop = pollen_frontend::extract(RUNNING).unwrap().scop;
    let context = format!("{PARAMS} -> {{ : KH >= 1 and KW >= 1 and H >= KH and W >= KW }}");
    scop.context = scop.context.intersect(&context.parse().unwrap()).unwrap();
    scop
}

fn deps(scop: &Scop) -> Vec<Dependence> {
    analyze(scop, Analysis::ValueBased)
        .unwrap()
        .as_slice()
        .to_vec()
}

fn clustered(scop: &Scop) -> ScheduleTree {
    cluster(scop, &deps(scop), &mut Budget::unlimited()).unwrap()
}

fn live_out() -> BTreeSet<String> {
    ["C".to_string()].into_iter().collect()
}

fn map(text: &str) -> Map {
    text.parse().unwrap()
}

/// The top-level filters of a tree: their statement names and subtrees.
fn top_filters(tree: &ScheduleTree) -> Vec<(Vec<String>, Node)> {
    let Node::Domain { child, .. } = &tree.root else {
        panic!("no domain root");
    };
    let Node::Sequence(children) = &**child else {
        panic!("no top-level sequence: {tree}");
    };
    children
        .iter()
        .map(|c| match c {
            Node::Filter { filter, child } => (names(filter), (**child).clone()),
            other => panic!("not a filter: {}", other.kind_name()),
        })
        .collect()
}

fn names(filter: &UnionSet) -> Vec<String> {
    filter
        .sets()
        .map(|s| s.space().range_tuple().unwrap().name().unwrap().to_string())
        .collect()
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

const PARAMS: &str = "[H, W, KH, KW]";

// Case 1: the IR of the running example.
#[test]
fn running_example_domain_accesses_and_dependences() {
    let scop = running();
    let paper: UnionSet = format!(
        "{PARAMS} -> {{ S0[h, w] : 0 <= h < H and 0 <= w < W; \
         S1[h, w] : 0 <= h <= H - KH and 0 <= w <= W - KW; \
         S2[h, w, kh, kw] : 0 <= h <= H - KH and 0 <= w <= W - KW and 0 <= kh < KH and 0 <= kw < KW; \
         S3[h, w] : 0 <= h <= H - KH and 0 <= w <= W - KW; \
         S4[h, w] : 0 <= h <= H - KH and 0 <= w <= W - KW }}"
    )
    .parse()
    .unwrap();
    assert!(scop.domains().unwrap().is_equal(&paper).unwrap());

    let expect = [
        ("S0", "Read", "A", "{ S0[h, w] -> A[h, w] }"),
        ("S0", "Write", "A", "{ S0[h, w] -> A[h, w] }"),
        ("S1", "Write", "C", "{ S1[h, w] -> C[h, w] }"),
        ("S2", "Read", "C", "{ S2[h, w, kh, kw] -> C[h, w] }"),
        (
            "S2",
            "Read",
            "A",
            "{ S2[h, w, kh, kw] -> A[h + kh, w + kw] }",
        ),
        ("S2", "Read", "B", "{ S2[h, w, kh, kw] -> B[kh, kw] }"),
        ("S2", "Write", "C", "{ S2[h, w, kh, kw] -> C[h, w] }"),
        ("S3", "Read", "C", "{ S3[h, w] -> C[h, w] }"),
        ("S3", "Write", "C", "{ S3[h, w] -> C[h, w] }"),
        ("S4", "Read", "C", "{ S4[h, w] -> C[h, w] }"),
        ("S4", "Write", "C", "{ S4[h, w] -> C[h, w] }"),
    ];
    for (stmt, kind, array, relation) in expect {
        let s = scop.statement(stmt).unwrap();
        let want = map(&format!("{PARAMS} -> {relation}"));
        let found = s.accesses.iter().any(|a| {
            format!("{:?}", a.kind) == kind
                && a.array == array
                && a.relation.is_equal(&want).unwrap()
        });
        assert!(found, "{stmt}: no {kind} access {relation}");
    }

    let deps = deps(&scop);
    let flows: BTreeSet<(String, String, String)> = deps
        .iter()
        .filter(|d| d.kind == DepKind::Flow)
        .map(|d| (d.source.clone(), d.target.clone(), d.array.clone()))
        .collect();
    let want: BTreeSet<(String, String, String)> = [
        ("S0", "S2", "A"),
        ("S1", "S2", "C"),
        ("S2", "S2", "C"),
        ("S2", "S3", "C"),
        ("S3", "S4", "C"),
    ]
    .iter()
    .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()))
    .collect();
    // With an empty kernel (KH = 0 or KW = 0) the initialisation S1 reaches S3
    // directly; for every kernel of at least one tap, the flows are the paper's.
    let kernel = map(&format!("{PARAMS} -> {{ : KH >= 1 and KW >= 1 }}"));
    let flows: BTreeSet<(String, String, String)> = deps
        .iter()
        .filter(|d| d.kind == DepKind::Flow)
        .filter(|d| {
            !d.relation
                .intersect_params(&kernel)
                .unwrap()
                .is_empty()
                .unwrap()
        })
        .map(|d| (d.source.clone(), d.target.clone(), d.array.clone()))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .filter(|f| flows.contains(f))
        .collect();
    assert_eq!(flows, want);
    // The reduction carries its value along (kh, kw): S2(h, w, kh, kw) feeds the next
    // instance of the same output element.
    let reduction = deps
        .iter()
        .find(|d| d.kind == DepKind::Flow && d.source == "S2" && d.target == "S2")
        .unwrap();
    let step = map(&format!(
        "{PARAMS} -> {{ S2[h, w, kh, kw] -> S2[h, w, kh, kw + 1] : 0 <= h <= H - KH and \
         0 <= w <= W - KW and 0 <= kh < KH and 0 <= kw < KW - 1 }}"
    ));
    assert!(step.is_subset(&reduction.relation).unwrap());
}

// Case 2: conservative clustering gives {S0} (intermediate) and {S1, S2, S3, S4}
// (live-out) with the band (h, w) and the inner sequence [S1, S2 -> (kh, kw), S3, S4].
#[test]
fn conservative_clustering_gives_two_fusion_groups() {
    let scop = running();
    let tree = clustered(&scop);
    let top = top_filters(&tree);
    let groups: Vec<Vec<String>> = top.iter().map(|(n, _)| n.clone()).collect();
    assert_eq!(
        groups,
        vec![strings(&["S0"]), strings(&["S1", "S2", "S3", "S4"])]
    );
    let Node::Band(band) = &top[1].1 else {
        panic!("the live-out group has no band");
    };
    let want: UnionMap = format!(
        "{PARAMS} -> {{ S1[h, w] -> [h, w]; S2[h, w, kh, kw] -> [h, w]; S3[h, w] -> [h, w]; \
         S4[h, w] -> [h, w] }}"
    )
    .parse()
    .unwrap();
    assert!(band.schedule.is_equal(&want).unwrap());
    assert!(band.permutable);
    assert_eq!(band.coincident, vec![true, true]);
    let Node::Sequence(inner) = &*band.child else {
        panic!("no inner sequence");
    };
    let inner: Vec<Vec<String>> = inner
        .iter()
        .map(|c| match c {
            Node::Filter { filter, .. } => names(filter),
            _ => panic!("not a filter"),
        })
        .collect();
    assert_eq!(
        inner,
        vec![
            strings(&["S1"]),
            strings(&["S2"]),
            strings(&["S3"]),
            strings(&["S4"])
        ]
    );
    // S2 keeps its own loops over (kh, kw) below the shared band.
    let kh_kw = tree.to_union_map().unwrap();
    let s2 = kh_kw
        .maps()
        .find(|m| m.space().domain_tuple().unwrap().name() == Some("S2"));
    assert!(s2.is_some());

    let spaces = classify(&scop, &tree, &live_out()).unwrap();
    let kinds: Vec<SpaceKind> = spaces.iter().map(|s| s.kind).collect();
    assert_eq!(kinds, vec![SpaceKind::Intermediate, SpaceKind::LiveOut]);
}

// A producer read without an offset clusters with its consumer: the separation above
// comes from the dependences, not from the loop nests.
#[test]
fn pointwise_producer_joins_the_cluster() {
    let c = "void f(int H, int W, float bias, float A[H][W], float D[H][W], float C[H][W]) {
#pragma scop
  for (int h = 0; h < H; h++)
    for (int w = 0; w < W; w++)
      D[h][w] = A[h][w] + bias;
  for (int h = 0; h < H; h++)
    for (int w = 0; w < W; w++)
      C[h][w] = D[h][w] * D[h][w];
#pragma endscop
}";
    let scop = pollen_frontend::extract(c).unwrap().scop;
    let tree = clustered(&scop);
    let Node::Domain { child, .. } = &tree.root else {
        panic!()
    };
    let Node::Band(band) = &**child else {
        panic!("expected one fused band: {tree}");
    };
    assert_eq!(band.schedule.n_maps(), 2);
}

// Case 3: tiling the live-out space, 4D -> 6D for S2.
#[test]
fn live_out_tiling_maps_s2_to_six_dimensions() {
    let scop = running();
    let tree = clustered(&scop);
    let spaces = classify(&scop, &tree, &live_out()).unwrap();
    let tiling = tile_live_out(&scop, &spaces, 1, &[32, 32]).unwrap();
    for s in ["S1", "S2", "S3", "S4"] {
        let stmt = scop.statement(s).unwrap();
        let tile = tiling
            .tile
            .maps()
            .find(|m| m.space().domain_tuple().unwrap().name() == Some(s))
            .unwrap();
        let iters = stmt.iterators.join(", ");
        let flat = tile
            .flat_range_product(&stmt.domain.identity().unwrap())
            .unwrap();
        let want = map(&format!(
            "{PARAMS} -> {{ {s}[{iters}] -> [floor(h / 32), floor(w / 32), {iters}] }}"
        ))
        .intersect_domain(stmt.domain.as_map())
        .unwrap();
        assert!(flat.is_equal(&want).unwrap(), "{s}: {flat}");
        let n = stmt.iterators.len();
        assert_eq!(flat.space().n_in(), n);
        assert_eq!(flat.space().n_out(), n + 2);
    }
    assert!(matches!(
        tile_live_out(&scop, &spaces, 1, &[0, 32]),
        Err(Error::InvalidTileSize { size: 0 })
    ));
    assert!(matches!(
        tile_live_out(&scop, &spaces, 0, &[32, 32]),
        Err(Error::UnsupportedTree(_))
    ));
}

/// `m` with its input dimensions fixed to `tile`.
fn at_tile(m: &UnionMap, tile: &[i64]) -> UnionMap {
    m.map_each(|x| {
        let mut x = x.clone();
        for (k, v) in tile.iter().enumerate() {
            x = x.fix_val(DimKind::In, k, &Int::from(*v))?;
        }
        Ok(x)
    })
    .unwrap()
}

fn values(h: i64, w: i64, k: i64) -> Vec<(&'static str, i64)> {
    vec![("H", h), ("W", w), ("KH", k), ("KW", k)]
}

/// The least and greatest `h` of S0 that tile `(o0, o1)` runs at the given sizes.
fn rows(ext: &UnionMap, tile: &[i64], h: i64, w: i64, k: i64) -> (i64, i64, i64) {
    let m = at_tile(ext, tile);
    let m = m.maps().next().unwrap();
    let fixed = m
        .fix_val(DimKind::Param, 0, &Int::from(h))
        .unwrap()
        .fix_val(DimKind::Param, 1, &Int::from(w))
        .unwrap()
        .fix_val(DimKind::Param, 2, &Int::from(k))
        .unwrap()
        .fix_val(DimKind::Param, 3, &Int::from(k))
        .unwrap()
        .project_out(DimKind::Param, 0, 4)
        .unwrap();
    let points = fixed.points().unwrap();
    let hs: Vec<i64> = points.iter().map(|p| p[2].to_i64().unwrap()).collect();
    let lo = *hs.iter().min().unwrap();
    let hi = *hs.iter().max().unwrap();
    let distinct: BTreeSet<i64> = hs.into_iter().collect();
    (lo, hi, distinct.len() as i64)
}

// Case 4: the reverse strategy's extension and its halo recomputations.
#[test]
fn reverse_strategy_extension_matches_the_paper() {
    let scop = running();
    let tree = clustered(&scop);
    let spaces = classify(&scop, &tree, &live_out()).unwrap();
    let mut budget = Budget::unlimited();
    for (t2, t3) in [(32, 32), (16, 8)] {
        let tiling = tile_live_out(&scop, &spaces, 1, &[t2, t3]).unwrap();
        let producers = producer_tiles(&scop, &spaces, &tiling, &mut budget).unwrap();
        assert_eq!(producers.len(), 1);
        assert_eq!(producers[0].statements, strings(&["S0"]));
        let ext = producers[0].extension.maps().next().unwrap().clone();
        // T2 o0 <= h < T2 o0 + KH + T2 - 1, 0 <= o0 < ceil((H - KH + 1) / T2) (that is,
        // T2 o0 <= H - KH), and S0's domain.
        let paper = map(&format!(
            "{PARAMS} -> {{ [o0, o1] -> S0[h, w] : {t2}o0 <= h < {t2}o0 + KH + {t2} - 1 and \
             {t3}o1 <= w < {t3}o1 + KW + {t3} - 1 and 0 <= o0 and {t2}o0 <= H - KH and \
             0 <= o1 and {t3}o1 <= W - KW and 0 <= h < H and 0 <= w < W }}"
        ));
        let context = map(&format!(
            "{PARAMS} -> {{ : KH >= 1 and KW >= 1 and H >= KH and W >= KW }}"
        ));
        let ext = ext.intersect_params(&context).unwrap();
        let paper = paper.intersect_params(&context).unwrap();
        assert!(ext.is_equal(&paper).unwrap(), "T = {t2}x{t3}: {ext}");
    }

    let tiling = tile_live_out(&scop, &spaces, 1, &[32, 32]).unwrap();
    let producers = producer_tiles(&scop, &spaces, &tiling, &mut budget).unwrap();
    let ext = &producers[0].extension;
    // H = W = 66, KH = KW = 3: 2 x 2 tiles.
    let v = values(66, 66, 3);
    let tiles = point_count(&ext.domain(), &v).unwrap();
    assert_eq!(tiles, Int::from(4));
    assert_eq!(
        instance_count(&at_tile(ext, &[0, 0]), &v).unwrap(),
        Int::from(34 * 34)
    );
    assert_eq!(rows(ext, &[0, 0], 66, 66, 3), (0, 33, 34));
    assert_eq!(rows(ext, &[1, 1], 66, 66, 3), (32, 65, 34));
    let executed = instance_count(ext, &v).unwrap();
    let original = point_count(
        &UnionSet::from_set(scop.statement("S0").unwrap().domain.clone()),
        &v,
    )
    .unwrap();
    assert_eq!(executed, Int::from(4624));
    assert_eq!(original, Int::from(4356));
    assert_eq!(executed - &original, Int::from(268));
    // H = 70: three tile rows, the last one clipped to h < 70.
    let v = values(70, 66, 3);
    let tile_rows: BTreeSet<Int> = ext
        .domain()
        .sets()
        .flat_map(|s| {
            let m = s.into_map();
            let m = m
                .fix_val(DimKind::Param, 0, &Int::from(70))
                .unwrap()
                .fix_val(DimKind::Param, 1, &Int::from(66))
                .unwrap()
                .fix_val(DimKind::Param, 2, &Int::from(3))
                .unwrap()
                .fix_val(DimKind::Param, 3, &Int::from(3))
                .unwrap()
                .project_out(DimKind::Param, 0, 4)
                .unwrap();
            m.points().unwrap().into_iter().map(|p| p[0].clone())
        })
        .collect();
    assert_eq!(tile_rows.len(), 3);
    let _ = v;
    assert_eq!(rows(ext, &[2, 0], 70, 66, 3), (64, 69, 6));
}

// Case 5: post-tiling fusion under an extension node; one kernel, one S0 nest inside
// the tile loops, 4624 executions of S0 at H = W = 66 with 3x3 kernels.
#[test]
fn post_tiling_fusion_runs_every_statement_in_the_tiles() {
    let scop = running();
    let tree = clustered(&scop);
    let fused = post_tiling_fusion(
        &scop,
        &tree,
        &live_out(),
        &[32, 32],
        &mut Budget::unlimited(),
    )
    .unwrap();
    let top = top_filters(&fused.tree);
    assert_eq!(top.len(), 2);
    let Node::Mark { name, .. } = &top[0].1 else {
        panic!("the producer's subtree is not marked");
    };
    assert_eq!(name, SKIPPED);
    let Node::Band(tile) = &top[1].1 else {
        panic!("no tile band");
    };
    assert_eq!(tile.n_members(), 2);
    let Node::Extension { extension, child } = &*tile.child else {
        panic!("no extension below the tile band");
    };
    // Below the top-level sequence, the extension sees (position, o0, o1).
    assert_eq!(extension.maps().next().unwrap().space().n_in(), 3);
    let Node::Sequence(inner) = &**child else {
        panic!("no sequence below the extension");
    };
    let inner: Vec<Vec<String>> = inner
        .iter()
        .map(|c| match c {
            Node::Filter { filter, .. } => names(filter),
            _ => panic!("not a filter"),
        })
        .collect();
    assert_eq!(
        inner,
        vec![strings(&["S0"]), strings(&["S1", "S2", "S3", "S4"])]
    );

    let ast = pollen_codegen::generate(&scop, &fused.tree, &Default::default()).unwrap();
    let text = ast.to_string();
    assert_eq!(text.matches("S0(").count(), 1, "{text}");
    let params: Vec<(String, i64)> = values(66, 66, 3)
        .into_iter()
        .map(|(n, v)| (n.to_string(), v))
        .collect();
    let trace = pollen_codegen::interp::interpret(&ast, &params).unwrap();
    let count = |name: &str| trace.iter().filter(|(n, _)| n == name).count();
    assert_eq!(count("S0"), 4624);
    assert_eq!(count("S1"), 64 * 64);
    assert_eq!(count("S2"), 64 * 64 * 9);
    assert_eq!(count("S4"), 64 * 64);
    // Every S2 reads A[h + kh][w + kw] after an S0 of its own tile wrote it: the last
    // S0 instance for that element before the read ran in the same tile.
    let mut last_tile: std::collections::BTreeMap<(i64, i64), usize> = Default::default();
    let mut previous = String::new();
    let mut tiles_seen = 0;
    for (name, it) in &trace {
        if name == "S0" && previous != "S0" {
            tiles_seen += 1;
        }
        if name == "S0" {
            last_tile.insert((it[0], it[1]), tiles_seen);
        }
        if name == "S2" {
            let written = last_tile.get(&(it[0] + it[2], it[1] + it[3]));
            assert_eq!(written.copied(), Some(tiles_seen), "S2{it:?}");
        }
        previous = name.clone();
    }
    assert_eq!(tiles_seen, 4);
}

// Case 6: S3 and S4 are marked local_UB and distributed, S1 and S2 stay fused for the
// Cube unit; w is innermost in each distributed band.
#[test]
fn local_ub_isolation_and_distribution() {
    let scop = running();
    let all = strings(&["S0", "S1", "S2", "S3", "S4"]);
    let u = units(&scop, &all).unwrap();
    assert_eq!(
        u,
        vec![
            Unit::Vector,
            Unit::Cube,
            Unit::Cube,
            Unit::Vector,
            Unit::Vector
        ]
    );
    assert!(is_dot_product(scop.statement("S2").unwrap()).unwrap());
    assert!(!is_dot_product(scop.statement("S3").unwrap()).unwrap());

    let d = deps(&scop);
    let tree = clustered(&scop);
    let split = distribute_local_ub(&scop, &d, &tree, 1).unwrap();
    let top = top_filters(&split);
    let Node::Sequence(paths) = &top[1].1 else {
        panic!("the live-out space is not split: {split}");
    };
    assert_eq!(paths.len(), 2);
    let Node::Filter { filter, child } = &paths[0] else {
        panic!()
    };
    assert_eq!(names(filter), strings(&["S1", "S2"]));
    assert!(matches!(&**child, Node::Band(_)));
    let Node::Filter { filter, child } = &paths[1] else {
        panic!()
    };
    assert_eq!(names(filter), strings(&["S3", "S4"]));
    let Node::Mark { name, child } = &**child else {
        panic!("no local_UB mark");
    };
    assert_eq!(name, LOCAL_UB);
    let Node::Sequence(vector) = &**child else {
        panic!("not distributed");
    };
    assert_eq!(vector.len(), 2);
    for (k, s) in ["S3", "S4"].iter().enumerate() {
        let Node::Filter { filter, child } = &vector[k] else {
            panic!()
        };
        assert_eq!(names(filter), strings(&[s]));
        let Node::Band(b) = &**child else {
            panic!("no band for {s}")
        };
        let want: UnionMap = format!("{PARAMS} -> {{ {s}[h, w] -> [h, w] }}")
            .parse()
            .unwrap();
        assert!(b.schedule.is_equal(&want).unwrap(), "{s}: {}", b.schedule);
    }
    // The same split inside the tiles of the fused tree (Fig. 3(f)): the code still runs
    // every instance once per tile (S0 with its halo).
    let fused = post_tiling_fusion_with(
        &scop,
        &tree,
        &live_out(),
        &[32, 32],
        Some(&d),
        &mut Budget::unlimited(),
    )
    .unwrap();
    let ast = pollen_codegen::generate(&scop, &fused.tree, &Default::default()).unwrap();
    let params: Vec<(String, i64)> = values(66, 66, 3)
        .into_iter()
        .map(|(n, v)| (n.to_string(), v))
        .collect();
    let trace = pollen_codegen::interp::interpret(&ast, &params).unwrap();
    let count = |name: &str| trace.iter().filter(|(n, _)| n == name).count();
    assert_eq!(count("S0"), 4624);
    assert_eq!(count("S3"), 64 * 64);
    // Within a tile, all of S2 runs before the first S3 (distribution), and S3 before S4.
    let first = |name: &str| trace.iter().position(|(n, _)| n == name).unwrap();
    let s3 = first("S3");
    assert!(trace[..s3].iter().filter(|(n, _)| n == "S2").count() == 32 * 32 * 9);
    assert!(trace[s3..s3 + 32 * 32].iter().all(|(n, _)| n == "S3"));
}

// The fastest-varying dimension is sunk innermost: a vector statement of a
// column-order nest gets its loops interchanged, the Cube statements keep theirs.
#[test]
fn distribution_sinks_the_stride_one_member() {
    let c = "void f(int H, int W, float A[H][W], float B[W][W], float C[H][W], float D[H][W]) {
#pragma scop
  for (int w = 0; w < W; w++)
    for (int h = 0; h < H; h++) {
      C[h][w] = 0;
      for (int k = 0; k < W; k++)
        C[h][w] += A[h][k] * B[k][w];
    }
  for (int w = 0; w < W; w++)
    for (int h = 0; h < H; h++)
      D[h][w] = fabsf(C[h][w]);
#pragma endscop
}";
    let scop = pollen_frontend::extract(c).unwrap().scop;
    let d = deps(&scop);
    let tree = clustered(&scop);
    let split = distribute_local_ub(&scop, &d, &tree, 0).unwrap();
    let schedule = split.to_union_map().unwrap();
    let of = |name: &str| {
        schedule
            .maps()
            .find(|m| m.space().domain_tuple().unwrap().name() == Some(name))
            .unwrap()
            .clone()
    };
    // The flat schedule: [path, member, member, ...]; S2 walks (h, w), S0 (w, h).
    let s2 = of("S2");
    let want = map("[W, H] -> { S2[w, h] -> [1, 0, h, w] }")
        .intersect_domain(scop.statement("S2").unwrap().domain.as_map())
        .unwrap();
    let flat = s2
        .project_out(DimKind::Out, 4, s2.space().n_out() - 4)
        .unwrap();
    assert!(flat.is_equal(&want).unwrap(), "{flat}");
    let s0 = of("S0");
    let flat = s0
        .project_out(DimKind::Out, 3, s0.space().n_out() - 3)
        .unwrap();
    let want = map("[W, H] -> { S0[w, h] -> [0, w, h] }")
        .intersect_domain(scop.statement("S0").unwrap().domain.as_map())
        .unwrap();
    assert!(flat.is_equal(&want).unwrap(), "{flat}");
}

/// The instances of one fused tile of the running example: the live-out statements'
/// tiles and S0's extension, `{ [o0, o1] -> S[i] }`.
fn tile_instances(scop: &Scop, sizes: &[i64]) -> UnionMap {
    let tree = clustered(scop);
    let spaces = classify(scop, &tree, &live_out()).unwrap();
    let tiling = tile_live_out(scop, &spaces, 1, sizes).unwrap();
    let producers = producer_tiles(scop, &spaces, &tiling, &mut Budget::unlimited()).unwrap();
    tiling.instances.union(&producers[0].extension).unwrap()
}

// Case 7: AKG's placement rules on the NPU, the buffers' sizes, copies and capacities.
#[test]
fn promotion_follows_the_npu_rules() {
    let scop = running();
    let all = strings(&["S0", "S1", "S2", "S3", "S4"]);
    let r = roles(&scop, &all).unwrap();
    let set = |v: &[Role]| v.iter().copied().collect::<BTreeSet<Role>>();
    assert_eq!(
        r["A"],
        set(&[Role::Vector, Role::CubeInput, Role::GemmLeft])
    );
    assert_eq!(r["B"], set(&[Role::CubeInput, Role::GemmRight]));
    assert_eq!(r["C"], set(&[Role::Vector, Role::GemmResult]));

    let tile = tile_instances(&scop, &[32, 32]);
    let npu = Hierarchy::npu();
    let promotions = promote(
        &scop,
        &npu,
        &tile,
        &r,
        &live_out(),
        &values(66, 66, 3),
        &mut Budget::unlimited(),
    )
    .unwrap();
    let placed: BTreeSet<(String, String)> = promotions
        .iter()
        .map(|p| (p.tensor.clone(), p.level.clone()))
        .collect();
    let want: BTreeSet<(String, String)> = [
        ("A", "UB"),
        ("A", "L1"),
        ("A", "L0A"),
        ("B", "L1"),
        ("B", "L0B"),
        ("C", "UB"),
        ("C", "L0C"),
        ("bias", "UB"),
    ]
    .iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    assert_eq!(placed, want);
    let find = |t: &str, l: &str| {
        promotions
            .iter()
            .find(|p| p.tensor == t && p.level == l)
            .unwrap()
    };
    // A's tile with its halo: 34 x 34 floats; B whole: 3 x 3; C's tile: 32 x 32.
    let a = find("A", "UB");
    assert_eq!(a.extents, vec![34, 34]);
    assert_eq!(a.bytes, 34 * 34 * 4);
    assert_eq!(find("B", "L0B").extents, vec![3, 3]);
    assert_eq!(find("C", "L0C").extents, vec![32, 32]);
    assert_eq!(find("C", "L0C").bytes, 4096);
    // A and B are read before the tile computes them: copied in; C is first written by
    // its initialisation S1: never copied in, and copied out (live-out).
    let copy = a.copy_in.as_ref().unwrap();
    assert_eq!(copy.body, "A_UB[x0 - (32*o0)][x1 - (32*o1)] = A[x0][x1];");
    assert!(find("B", "L1").copy_in.is_some());
    assert!(find("C", "UB").copy_in.is_none());
    assert!(a.copy_out.is_none());
    let out = find("C", "L0C").copy_out.as_ref().unwrap();
    assert_eq!(out.body, "C[x0][x1] = C_L0C[x0 - (32*o0)][x1 - (32*o1)];");
    // L0A is filled from L1.
    assert_eq!(
        find("A", "L0A").copy_in.as_ref().unwrap().body,
        "A_L0A[x0 - (32*o0)][x1 - (32*o1)] = A_L1[x0 - (32*o0)][x1 - (32*o1)];"
    );
    // The copy-in of A covers exactly the tile's 34 x 34 elements at H = W = 66.
    let elements = UnionMap::from_map(copy.elements.clone());
    assert_eq!(
        instance_count(&at_tile(&elements, &[1, 1]), &values(66, 66, 3)).unwrap(),
        Int::from(34 * 34)
    );
    // Every buffer fits half its level (double buffering).
    for p in &promotions {
        let level = npu.levels.iter().find(|l| l.name == p.level).unwrap();
        assert!(p.bytes <= level.capacity / 2);
    }
}

// Tiles too large for a buffer are refused with the level, tensor and sizes.
#[test]
fn promotion_checks_capacities() {
    let scop = running();
    let all = strings(&["S0", "S1", "S2", "S3", "S4"]);
    let r = roles(&scop, &all).unwrap();
    // 96 x 96 tiles of a 258 x 258 image: A's tile with its halo is 98 x 98 floats,
    // 38416 bytes, more than half of L0A's 64 KiB (the GEMM's left factor goes there
    // without a second level of tiling).
    let tile = tile_instances(&scop, &[96, 96]);
    let shape = values(258, 258, 3);
    let err = promote(
        &scop,
        &Hierarchy::npu(),
        &tile,
        &r,
        &live_out(),
        &shape,
        &mut Budget::unlimited(),
    )
    .unwrap_err();
    assert_eq!(
        err,
        Error::CapacityExceeded {
            level: "L0A".into(),
            tensor: "A".into(),
            needed: 98 * 98 * 4,
            available: 32 << 10,
        }
    );
    // Without double buffering the same tiles fit; 88 x 88 tiles (90 x 90 = 32400
    // bytes of A) fit with it.
    let single = Hierarchy {
        double_buffer: false,
        ..Hierarchy::npu()
    };
    let r1 = promote(
        &scop,
        &single,
        &tile,
        &r,
        &live_out(),
        &shape,
        &mut Budget::unlimited(),
    );
    assert!(r1.is_ok());
    let tile = tile_instances(&scop, &[88, 88]);
    let fits = promote(
        &scop,
        &Hierarchy::npu(),
        &tile,
        &r,
        &live_out(),
        &shape,
        &mut Budget::unlimited(),
    )
    .unwrap();
    let a = fits.iter().find(|p| p.level == "L0A").unwrap();
    assert_eq!(a.bytes, 90 * 90 * 4);
}

// The CPU's caches: each tensor goes to the innermost level with room.
#[test]
fn promotion_into_a_cache_hierarchy() {
    let scop = running();
    let all = strings(&["S0", "S1", "S2", "S3", "S4"]);
    let r = roles(&scop, &all).unwrap();
    let cpu = Hierarchy::cpu(&CacheInfo::default());
    let tile = tile_instances(&scop, &[32, 32]);
    let promotions = promote(
        &scop,
        &cpu,
        &tile,
        &r,
        &live_out(),
        &values(66, 66, 3),
        &mut Budget::unlimited(),
    )
    .unwrap();
    // A (4624 bytes), B (36), C (4096) and bias (4) all fit the 32 KiB L1, once each.
    let placed: Vec<(String, String)> = promotions
        .iter()
        .map(|p| (p.tensor.clone(), p.level.clone()))
        .collect();
    assert_eq!(
        placed,
        vec![
            ("A".to_string(), "L1".to_string()),
            ("B".to_string(), "L1".to_string()),
            ("C".to_string(), "L1".to_string()),
            ("bias".to_string(), "L1".to_string()),
        ]
    );
    // 64 x 64 tiles: A's 66 x 66 floats (17424 bytes) take L1, C's 16384 bytes no longer
    // fit beside them and go to L2.
    let tile = tile_instances(&scop, &[64, 64]);
    let promotions = promote(
        &scop,
        &cpu,
        &tile,
        &r,
        &live_out(),
        &values(66, 66, 3),
        &mut Budget::unlimited(),
    )
    .unwrap();
    let level_of = |t: &str| {
        promotions
            .iter()
            .find(|p| p.tensor == t)
            .map(|p| p.level.clone())
            .unwrap()
    };
    assert_eq!(level_of("A"), "L1");
    assert_eq!(level_of("C"), "L2");
    // Nothing fits a 1 KiB cache with a 2 KiB L2.
    let tiny = Hierarchy::cpu(&CacheInfo {
        l1_bytes: 1024,
        l2_bytes: 2048,
        l3_bytes: None,
    });
    assert!(matches!(
        promote(
            &scop,
            &tiny,
            &tile,
            &r,
            &live_out(),
            &values(66, 66, 3),
            &mut Budget::unlimited()
        ),
        Err(Error::CapacityExceeded { .. })
    ));
}

// Malformed hierarchies and roles no level holds are typed errors.
#[test]
fn malformed_hierarchies_are_refused() {
    let scop = running();
    let all = strings(&["S0", "S1", "S2", "S3", "S4"]);
    let r = roles(&scop, &all).unwrap();
    let tile = tile_instances(&scop, &[32, 32]);
    let mut bad = Hierarchy::npu();
    bad.levels.swap(0, 2); // L0A before its parent L1
    assert!(matches!(
        promote(
            &scop,
            &bad,
            &tile,
            &r,
            &live_out(),
            &values(66, 66, 3),
            &mut Budget::unlimited()
        ),
        Err(Error::InvalidHierarchy(_))
    ));
    let mut zero = Hierarchy::npu();
    zero.levels[1].capacity = 0;
    assert!(matches!(zero.validate(), Err(Error::InvalidHierarchy(_))));
    let mut no_l0b = Hierarchy::npu();
    no_l0b.levels.retain(|l| l.name != "L0B");
    assert_eq!(
        promote(
            &scop,
            &no_l0b,
            &tile,
            &r,
            &live_out(),
            &values(66, 66, 3),
            &mut Budget::unlimited()
        )
        .unwrap_err(),
        Error::NoPlacement {
            tensor: "B".into(),
            role: Role::GemmRight.to_string(),
        }
    );
    let custom = Hierarchy {
        levels: vec![Level {
            name: "SPM".into(),
            capacity: 1 << 16,
            parent: None,
            holds: vec![Role::Vector],
        }],
        policy: Policy::Scratchpad,
        double_buffer: false,
    };
    assert!(custom.validate().is_ok());
}

// Distribution that would run a Vector statement after the Cube statements that read
// its values from an earlier iteration is refused by the legality checker.
#[test]
fn illegal_distribution_is_refused() {
    let c = "void f(int N, float A[N][N], float V[N + 1][N], float C[N]) {
#pragma scop
  for (int i = 0; i < N; i++) {
    C[i] = 0;
    for (int k = 0; k < N; k++)
      C[i] += A[i][k] * V[i][k];
    for (int k = 0; k < N; k++)
      V[i + 1][k] = C[i] * 2;
  }
#pragma endscop
}";
    let scop = pollen_frontend::extract(c).unwrap().scop;
    let d = deps(&scop);
    let tree = clustered(&scop);
    let u = units(&scop, &strings(&["S0", "S1", "S2"])).unwrap();
    assert_eq!(u, vec![Unit::Cube, Unit::Cube, Unit::Vector]);
    assert!(matches!(
        distribute_local_ub(&scop, &d, &tree, 0),
        Err(Error::Illegal(_))
    ));
}

// Without a live-out space there is nothing to tile.
#[test]
fn post_tiling_fusion_needs_a_live_out_space() {
    let scop = running();
    let tree = clustered(&scop);
    let none = BTreeSet::new();
    assert!(matches!(
        post_tiling_fusion(&scop, &tree, &none, &[32, 32], &mut Budget::unlimited()),
        Err(Error::UnsupportedTree(_))
    ));
    // The live-out tensors default to those only their writers read: C, not A.
    let sinks = pollen_transform::akg::sinks(&scop);
    assert_eq!(sinks, live_out());
}

// AKG's manual memory-hierarchy specification (Fig. 8) describes the same NPU, and
// malformed specifications are typed errors.
#[test]
fn hierarchy_specifications_are_read() {
    use pollen_transform::akg::memory::NPU_SPEC;
    assert_eq!(Hierarchy::parse(NPU_SPEC).unwrap(), Hierarchy::npu());
    let one_line = "buf UB (262144); vector (UB -> UB, 128, 32)";
    let h = Hierarchy::parse(one_line).unwrap();
    assert_eq!(h.levels.len(), 1);
    assert_eq!(h.levels[0].holds, vec![Role::Vector]);
    assert_eq!(h.levels_for(Role::GemmLeft).len(), 0);
    for bad in [
        "buf UB 262144",
        "buf UB (-1)",
        "buf UB (1); dataflow (UB -> L0A, 1, 32)",
        "buf UB (1); tensor (UB -> UB, 1, 1)",
        "buf A (1); buf B (1); cube (A -> B, 1, 1)",
        "buf UB (1); vector (UB -> UB, fast, 1)",
        "buf UB (0)",
        "buf UB (1); buf UB (2)",
    ] {
        assert!(
            matches!(Hierarchy::parse(bad), Err(Error::InvalidHierarchy(_))),
            "{bad}"
        );
    }
}
