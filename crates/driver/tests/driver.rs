//! The driver on the example kernels and small programs: each option changes what it
//! should, the report records the fusion choice and the profitability fallback where
//! they happen, several regions of one file are optimized with the rest of the file
//! kept, and errors are typed with their positions.

use pollen_driver::{
    optimize_scop, optimize_source, Algorithm, CacheInfo, Choice, DepKind, Error, Fallback, Fusion,
    LoopItem, LoopMark, Optimized, Options, Profitability, SchedulerFallback, Stage, TileSizes,
    Tiling, Vectorize,
};
use pollen_testkit::{kernel_scop, kernel_source};

fn optimize(name: &str, options: &Options) -> Optimized {
    optimize_source(&kernel_source(name), options).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn with(change: impl FnOnce(&mut Options)) -> Options {
    let mut options = Options {
        tiling: Tiling::Sizes(vec![32]),
        ..Options::default()
    };
    change(&mut options);
    options
}

fn marks(optimized: &Optimized) -> Vec<LoopMark> {
    optimized.report.regions[0]
        .scop
        .loops
        .iter()
        .filter_map(|l| match &l.item {
            LoopItem::For { mark, .. } => Some(*mark),
            _ => None,
        })
        .collect()
}

#[test]
fn tiling_on_and_off() {
    let tiled = optimize("gemm", &with(|_| {}));
    assert!(tiled.text.contains("pollen_floord"));
    let region = &tiled.report.regions[0].scop;
    assert_eq!(region.tile_sizes, TileSizes::Given(vec![32]));
    assert!(region.tiled.is_some());
    let untiled = optimize("gemm", &with(|o| o.tiling = Tiling::Off));
    assert!(!untiled.text.contains("pollen_floord"), "no tile loops");
    let region = &untiled.report.regions[0].scop;
    assert_eq!(region.tile_sizes, TileSizes::Off);
    assert!(region.tiled.is_none());
    assert!(untiled.report.to_string().contains("tiling: off\n"));
}

#[test]
fn tile_sizes_from_the_cache_follow_the_cache() {
    let sizes = |l2_bytes: u64| {
        let options = Options {
            cache: CacheInfo {
                l2_bytes,
                ..CacheInfo::default()
            },
            ..Options::default()
        };
        let optimized = optimize("gemm", &options);
        match &optimized.report.regions[0].scop.tile_sizes {
            TileSizes::FromCache {
                l2_bytes: recorded,
                by_depth,
                element_bytes,
                ..
            } => {
                assert_eq!(*recorded, l2_bytes);
                assert_eq!(*element_bytes, 8, "gemm's arrays are double");
                by_depth.clone()
            }
            other => panic!("sizes from the cache expected, got {other:?}"),
        }
    };
    let small = sizes(256 << 10);
    let large = sizes(4 << 20);
    assert_eq!(small.len(), 3);
    assert!(small[0].1 < large[0].1, "{small:?} vs {large:?}");
}

#[test]
fn parallelism_on_and_off() {
    let parallel = optimize("gemm", &with(|_| {}));
    assert!(parallel.text.contains("#pragma omp parallel for"));
    assert!(marks(&parallel).contains(&LoopMark::OmpParallelFor));
    let serial = optimize("gemm", &with(|o| o.parallel = false));
    assert!(!serial.text.contains("omp parallel"));
    assert!(!marks(&serial).contains(&LoopMark::OmpParallelFor));
}

#[test]
fn vectorization_pragmas() {
    let simd = optimize("gemm", &with(|_| {}));
    assert!(simd.text.contains("#pragma omp simd"));
    let ivdep = optimize("gemm", &with(|o| o.vectorize = Vectorize::Ivdep));
    assert!(ivdep.text.contains("#pragma GCC ivdep") && !ivdep.text.contains("omp simd"));
    let none = optimize("gemm", &with(|o| o.vectorize = Vectorize::None));
    assert!(!none.text.contains("ivdep") && !none.text.contains("omp simd"));
    assert!(
        marks(&none).contains(&LoopMark::Simd),
        "the loops stay vectorisable"
    );
}

#[test]
fn scalar_replacement_and_unroll_and_jam() {
    let default = optimize("gemm", &with(|_| {}));
    assert!(default.text.contains("const DATA_TYPE t0"));
    let tiled = default.report.regions[0].scop.tiled.as_ref().unwrap();
    assert!(tiled.to_string().contains("unroll-and-jam"));
    let plain = optimize("gemm", &with(|o| o.scalar_replacement = false));
    assert!(!plain.text.contains("const DATA_TYPE"));
    let no_jam = optimize("gemm", &with(|o| o.unroll_and_jam = false));
    let tiled = no_jam.report.regions[0].scop.tiled.as_ref().unwrap();
    assert!(!tiled.to_string().contains("unroll-and-jam"));
}

#[test]
fn algorithm_and_fusion_policy() {
    let feautrier = optimize(
        "gemm",
        &with(|o| {
            o.algorithm = Algorithm::Feautrier;
            o.fusion = Fusion::No;
        }),
    );
    let report = &feautrier.report.regions[0].scop;
    assert_eq!(report.algorithm, Algorithm::Feautrier);
    assert!(
        report.fusion_decision.is_none(),
        "only smart fusion is compared"
    );
    assert!(feautrier
        .report
        .to_string()
        .contains("schedule (feautrier, no fusion):"));
    let max = optimize("2mm", &with(|o| o.fusion = Fusion::Max));
    assert!(max.report.regions[0].scop.fusion_decision.is_none());
    assert_ne!(max.report.regions[0].scop.fallback, Fallback::NoFusion);
}

#[test]
fn smart_fusion_dropped_where_no_fusion_strides_less() {
    let mvt = optimize("mvt", &with(|_| {}));
    let report = &mvt.report.regions[0].scop;
    let decision = report.fusion_decision.as_ref().expect("compared");
    assert_eq!(decision.kept, Choice::Alternative);
    assert!(decision.no_fusion.is_better_than(&decision.smart));
    assert_eq!(report.fallback, Fallback::NoFusion);
    assert!(mvt.report.to_string().contains("components not fused"));
}

#[test]
fn smart_fusion_dropped_where_it_leaves_statements_without_a_parallel_loop() {
    // Smart fusion puts durbin's statements under sequential loops where no fusion keeps
    // parallel (and vectorisable) ones.
    let durbin = optimize("durbin", &with(|_| {}));
    let report = &durbin.report.regions[0].scop;
    let decision = report.fusion_decision.as_ref().expect("compared");
    assert_eq!(decision.kept, Choice::Alternative);
    assert!(decision.no_fusion.parallelizes_more_than(&decision.smart));
    assert!(durbin
        .report
        .to_string()
        .contains("without a parallel loop"));
}

#[test]
fn smart_fusion_kept_where_it_costs_nothing() {
    // A producer and its consumer fuse into one parallel loop: nothing is lost.
    let source = "void f(int n, double a[n], double b[n], double c[n])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    b[i] = 2.0 * a[i];
  for (i = 0; i < n; i++)
    c[i] = b[i] + a[i];
#pragma endscop
}
";
    let out = pollen_driver::optimize_source(source, &with(|_| {})).expect("optimize");
    let report = &out.report.regions[0].scop;
    let decision = report.fusion_decision.as_ref().expect("compared");
    assert_eq!(decision.kept, Choice::Optimized, "{}", out.report);
    assert_ne!(report.fallback, Fallback::NoFusion, "{}", out.report);
}

#[test]
fn profitability_keeps_the_original_order_unless_disabled() {
    let checked = optimize("jacobi-1d", &with(|_| {}));
    let report = &checked.report.regions[0].scop;
    match &report.profitability {
        Profitability::Compared {
            original,
            optimized,
            kept,
            ..
        } => {
            assert_eq!(*kept, Choice::Alternative);
            assert!(original.vectorizes_more_than(optimized));
        }
        other => panic!("a comparison expected, got {other:?}"),
    }
    assert_eq!(report.fallback, Fallback::OriginalOrder);
    assert!(checked.report.to_string().contains("original order kept"));
    let forced = optimize("jacobi-1d", &with(|o| o.profitability = false));
    let report = &forced.report.regions[0].scop;
    assert!(matches!(report.profitability, Profitability::Disabled));
    assert_eq!(report.fallback, Fallback::None);
    assert_ne!(forced.text, checked.text);
    let untiled = optimize("jacobi-1d", &with(|o| o.tiling = Tiling::Off));
    let report = &untiled.report.regions[0].scop;
    assert!(matches!(report.profitability, Profitability::NothingTiled));
}

#[test]
fn a_scop_gives_its_tree_loops_and_report() {
    let scop = kernel_scop("gemm");
    let optimized = optimize_scop(&scop, &with(|_| {})).unwrap();
    let report = &optimized.report;
    assert_eq!(report.summary.statements.len(), 2);
    assert_eq!(report.summary.params, ["_PB_NI", "_PB_NJ", "_PB_NK"]);
    assert_eq!(report.dependences.len(), 6);
    assert_eq!(report.dependence_count(DepKind::Flow), 2);
    assert_eq!(
        optimized.tree.to_string(),
        report.tiled.as_ref().unwrap().to_string(),
        "gemm keeps its tiled schedule"
    );
    assert!(matches!(
        optimized.ast,
        pollen_codegen::Ast::Block(_) | pollen_codegen::Ast::For(_)
    ));
    assert!(report
        .to_string()
        .starts_with("extract: scop: 2 statement(s)"));
}

const TWO_REGIONS: &str = "\
/* two nests */
void f(int n, double A[100][100], double B[100][100], double x[100]) {
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      B[j][i] = A[j][i] + 1;
#pragma endscop
  x[0] = 1; /* between the regions */
  #pragma scop
  for (i = 1; i < n; i++)
    for (j = 0; j < n; j++)
      A[i][j] = A[i - 1][j] * 2;
  #pragma endscop
}
";

#[test]
fn two_regions_both_optimized_and_the_rest_kept() {
    let optimized = optimize_source(TWO_REGIONS, &Options::default()).unwrap();
    let text = &optimized.text;
    let regions = &optimized.report.regions;
    assert_eq!(regions.len(), 2);
    assert_eq!((regions[0].index, regions[0].line), (0, 4));
    assert_eq!((regions[1].index, regions[1].line), (1, 10));
    assert_eq!(text.matches("/* Generated by Pollen").count(), 2);
    assert!(!text.contains("#pragma endscop"));
    // Everything outside the regions, byte for byte and in order: the text before the
    // first, between the two, and after the second.
    let before = &TWO_REGIONS[..regions[0].range.start];
    let between = &TWO_REGIONS[regions[0].range.end..regions[1].range.start];
    let after = &TWO_REGIONS[regions[1].range.end..];
    assert!(between.contains("between the regions"));
    assert!(text.starts_with(before), "{text}");
    assert!(text.ends_with(after), "{text}");
    let first_end = text.find("#undef S0").expect("the first region's code") + "#undef S0".len();
    assert!(text[first_end..].starts_with(between), "{text}");
    let second = &text[first_end + between.len()..text.len() - after.len()];
    assert!(second.contains("/* Generated by Pollen") && second.ends_with("#undef S0"));
    // Each region's statement, and the second region's parallel inner loop.
    assert!(text.contains("#define S0(i, j) B[j][i] = A[j][i] + 1"));
    assert!(text.contains("#define S0(i, j) A[i][j] = A[i - 1][j] * 2"));
    assert_eq!(text.matches("#undef S0").count(), 2);
    for region in regions {
        assert_eq!(region.scop.summary.statements.len(), 1);
        assert!(region.scop.loops.iter().any(|l| matches!(
            l.item,
            LoopItem::For {
                mark: LoopMark::OmpParallelFor,
                ..
            }
        )));
    }
    let explained = optimized.report.to_string();
    assert!(explained.contains("extract: region 1 (line 4): 1 statement(s)"));
    assert!(explained.contains("extract: region 2 (line 10): 1 statement(s)"));
    let mut named = optimized.report.clone();
    named.name = Some("two.c".into());
    assert!(named
        .to_string()
        .contains("extract: two.c, region 2 (line 10):"));
}

#[test]
fn frontend_errors_have_their_position() {
    let bad = TWO_REGIONS.replace("A[i][j] = A[i - 1][j] * 2;", "while (1) ;");
    let error = optimize_source(&bad, &Options::default()).unwrap_err();
    assert_eq!(error.stage(), Stage::Extraction);
    match &error {
        Error::Frontend(e) => assert_eq!((e.line(), e.column()), (13, 7)),
        other => panic!("a frontend error expected, got {other:?}"),
    }
    assert!(error.to_string().starts_with("13:7: "), "{error}");
    let none = optimize_source("int main(void) { return 0; }\n", &Options::default());
    assert!(matches!(none, Err(Error::Frontend(_))));
}

#[test]
fn stage_errors_name_the_stage_and_the_region() {
    let zero = Options {
        tiling: Tiling::Sizes(vec![0]),
        ..Options::default()
    };
    let error = optimize_source(TWO_REGIONS, &zero).unwrap_err();
    assert_eq!(error.stage(), Stage::Tiling);
    match &error {
        Error::Region { index, line, error } => {
            assert_eq!((*index, *line), (0, 4));
            assert!(matches!(
                **error,
                Error::Transform {
                    stage: Stage::Tiling,
                    error: pollen_transform::Error::InvalidTileSize { size: 0 }
                }
            ));
        }
        other => panic!("a region error expected, got {other:?}"),
    }
    assert!(error
        .to_string()
        .starts_with("region 1 (line 4): tiling failed"));
}

#[test]
fn a_small_budget_is_an_error_not_a_hang() {
    let tiny = Options {
        budget: Some(10),
        ..Options::default()
    };
    let error = optimize_source(&kernel_source("gemm"), &tiny).unwrap_err();
    assert!(error.is_limit_exceeded(), "{error}");
    let ample = Options {
        budget: Some(u64::MAX / 2),
        ..Options::default()
    };
    assert!(optimize_source(&kernel_source("gemm"), &ample).is_ok());
}

/// The fuzz target `driver`'s seeds are optimized within its budget, so that the fuzzer
/// starts from inputs that reach every stage.
#[test]
fn the_fuzz_seeds_are_optimized() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/seeds/driver");
    let mut seeds: Vec<_> = std::fs::read_dir(&dir)
        .expect("fuzz/seeds/driver")
        .map(|e| e.expect("entry").path())
        .collect();
    seeds.sort();
    assert!(seeds.len() >= 3);
    for seed in seeds {
        let source = std::fs::read_to_string(&seed).unwrap();
        let optimized = optimize_source(
            &source,
            &Options {
                budget: Some(200_000),
                ..Options::default()
            },
        )
        .unwrap_or_else(|e| panic!("{}: {e}", seed.display()));
        assert!(optimized.text.contains("/* Generated by Pollen"));
    }
}

/// A program where Pluto finds no hyperplane for a cycle of two statements (their
/// crossed writes of `B` have distance zero on the first band) reports the scheduler's
/// fallback to the original schedule's dimensions, and its output still follows a legal
/// schedule.
#[test]
fn the_report_names_the_schedulers_fallbacks() {
    let source = "\
void f(int n, double A[n + 4], double B[n + 4][n + 4]) {
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < i; j++) {
      B[i + 1][j + 4] = 0.125 * A[i + 2];
      B[j + 4][i] = 0.375 * A[j + 3] + 0.375 * A[i + 4];
    }
#pragma endscop
}
";
    let optimized = optimize_source(source, &Options::default()).expect("optimized");
    let scop = &optimized.report.regions[0].scop;
    assert!(
        scop.scheduler_fallbacks
            .iter()
            .any(|f| matches!(f, SchedulerFallback::OriginalDimension { .. })),
        "{:?}",
        scop.scheduler_fallbacks
    );
    let text = optimized.report.to_string();
    assert!(
        text.contains(
            "scheduler fallback: dimension 2: S0, S1 take dimension 0 of the original schedule"
        ),
        "{text}"
    );
    let plain = optimize("gemm", &Options::default());
    assert!(plain.report.regions[0].scop.scheduler_fallbacks.is_empty());
}

#[test]
fn the_basteln_strategy_fuses_a_pipeline_into_tiles_with_scratch_windows() {
    let source = "\
void blur(int R, int C, float img[R+2][C+2], float bx[R+2][C], float by[R][C]) {
  int x, y;
#pragma scop
  for (x = 0; x < R + 2; x++)
    for (y = 0; y < C; y++)
      bx[x][y] = (img[x][y] + img[x][y+1] + img[x][y+2]) / 3;
  for (x = 0; x < R; x++)
    for (y = 0; y < C; y++)
      by[x][y] = (bx[x][y] + bx[x+1][y] + bx[x+2][y]) / 3;
#pragma endscop
}
";
    let options = Options {
        strategy: pollen_driver::Strategy::Basteln,
        live_out: Some(["by".to_string()].into_iter().collect()),
        tiling: Tiling::Sizes(vec![16, 64]),
        ..Options::default()
    };
    let optimized = optimize_source(source, &options).expect("basteln");
    let report = &optimized.report.regions[0].scop;
    let fused = report.fused.as_ref().expect("a fused program");
    assert_eq!(fused.groups.len(), 1);
    assert_eq!(report.tile_sizes, TileSizes::Given(vec![16, 64]));
    // The window is declared inside the parallel tile loop: one per tile and thread.
    let text = &optimized.text;
    let parallel = text
        .find("#pragma omp parallel for")
        .expect("a parallel loop");
    let declaration = text.find("float bx_tile[18][64];").expect("the window");
    assert!(parallel < declaration, "{text}");
    // bx is not live out: nothing writes it any more.
    assert!(!text.contains("bx[x][y] ="), "{text}");
    assert!(
        report.to_string().contains("bx: window 18 x 64"),
        "{}",
        report
    );
    // Without the live-out list, the window is written back.
    let all_live = Options {
        live_out: None,
        ..options
    };
    let optimized = optimize_source(source, &all_live).expect("basteln");
    assert!(
        optimized.text.contains("bx[x0][x1] = bx_tile["),
        "{}",
        optimized.text
    );
}

#[test]
fn the_polymage_strategy_groups_by_its_model_and_tiles_with_its_sizes() {
    let source = "\
void blur(int R, int C, float img[R+2][C+2], float bx[R+2][C], float by[R][C]) {
  int x, y;
#pragma scop
  for (x = 0; x < R + 2; x++)
    for (y = 0; y < C; y++)
      bx[x][y] = (img[x][y] + img[x][y+1] + img[x][y+2]) / 3;
  for (x = 0; x < R; x++)
    for (y = 0; y < C; y++)
      by[x][y] = (bx[x][y] + bx[x+1][y] + bx[x+2][y]) / 3;
#pragma endscop
}
";
    let options = Options {
        strategy: pollen_driver::Strategy::Polymage,
        live_out: Some(["by".to_string()].into_iter().collect()),
        estimates: [("R".to_string(), 2048), ("C".to_string(), 2048)]
            .into_iter()
            .collect(),
        cache: CacheInfo {
            l1_bytes: 32 * 1024,
            l2_bytes: 1024 * 1024,
            l3_bytes: None,
        },
        cores: 2,
        ..Options::default()
    };
    let optimized = optimize_source(source, &options).expect("polymage");
    let report = &optimized.report.regions[0].scop;
    let plan = report.grouping.as_ref().expect("the model's plan");
    // One group of both stages; the model's tiles (innermost 256) are the fused
    // program's.
    assert_eq!(plan.grouping.groups.len(), 1, "{plan}");
    let tiles = plan.costs[0].tiles().to_vec();
    assert_eq!(tiles.last(), Some(&256));
    let fused = report.fused.as_ref().expect("a fused program");
    assert_eq!(fused.groups[0].tile_sizes, tiles, "{fused}");
    assert_eq!(fused.groups[0].producers.len(), 1);
    assert!(
        report.to_string().contains("grouping: 1 group(s)"),
        "{report}"
    );
    // Given sizes replace the model's.
    let given = Options {
        tiling: Tiling::Sizes(vec![8, 64]),
        ..options
    };
    let optimized = optimize_source(source, &given).expect("polymage");
    let fused = optimized.report.regions[0].scop.fused.clone().unwrap();
    assert_eq!(fused.groups[0].tile_sizes, vec![8, 64]);
}

#[test]
fn scratch_windows_are_declared_once_per_tile_not_per_point() {
    // The up-sampled `u` is written and read in one point loop: its window must still
    // live across the whole tile, where `d`'s does.
    let source = "\
void f(int N, float a[2*N+2], float d[N+1], float u[2*N], float o[2*N]) {
  int x;
#pragma scop
  for (x = 0; x <= N; x++)
    d[x] = (a[2*x] + a[2*x+1]) / 2;
  for (x = 0; x < 2*N; x++)
    u[x] = (d[x/2] + d[(x+1)/2]) / 2;
  for (x = 0; x < 2*N; x++)
    o[x] = a[x] - u[x];
#pragma endscop
}
";
    let options = Options {
        strategy: pollen_driver::Strategy::Basteln,
        live_out: Some(["o".to_string()].into_iter().collect()),
        tiling: Tiling::Sizes(vec![64]),
        ..Options::default()
    };
    let text = optimize_source(source, &options).expect("basteln").text;
    let line = |needle: &str| {
        text.lines()
            .find(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("{needle} in {text}"))
            .to_string()
    };
    let d = line("float d_tile[33];");
    let u = line("float u_tile[64];");
    let indent = |l: &str| l.len() - l.trim_start().len();
    assert_eq!(indent(&d), indent(&u), "{text}");
}

#[test]
fn expansion_makes_doitgens_outer_loop_parallel_and_copies_sum_back() {
    let options = Options::default();
    let expanded = optimize("doitgen", &options);
    let region = &expanded.report.regions[0];
    let found: Vec<(&str, &str, Option<&str>)> = region
        .scop
        .expansions
        .iter()
        .map(|e| (e.variable.as_str(), e.array.as_str(), e.copy_out.as_deref()))
        .collect();
    assert_eq!(found, [("sum", "sum_x", Some("S3"))]);
    assert!(expanded.text.contains("DATA_TYPE sum_x[_PB_NR][NP];"));
    // The untiled `r` loop is the parallel one (not a loop over tiles of `r`).
    assert!(
        expanded
            .text
            .contains("#pragma omp parallel for private(c1, c2, c3, c4, c5)\n      for (c0 = 0; c0 <= _PB_NR - 1; c0++)"),
        "{}",
        expanded.text
    );
    let plain = optimize(
        "doitgen",
        &Options {
            scalar_expansion: false,
            ..Options::default()
        },
    );
    assert!(plain.report.regions[0].scop.expansions.is_empty());
    assert!(!plain.text.contains("sum_x"));
}
