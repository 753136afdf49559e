//! The shapes of typical mappings: tile loops on blocks and point loops on threads,
//! untiled nests, one-dimensional loops, sequential code, host loops, arrays and
//! options; each mapped program is also checked.

use pollen_codegen::{Ast, Expr, Loop};
use pollen_gpu::{
    block_model, check, map, ArrayKind, Error, GpuOptions, GpuProgram, Host, KernelAst, Mapping,
};
use pollen_presburger::Int;
use pollen_scop::Scop;

use crate::common::{ast, in_context, kernel_scop, scheduled, tiled, value_deps};

/// A compact picture of a kernel's code: `block1[...]`, `thread0[...]`, `seq[...]`,
/// `global0[...]`, `single[...]`, `if[...]`, `|` for a barrier, statement names.
fn shape(a: &KernelAst) -> String {
    match a {
        KernelAst::Block(v) => v.iter().map(shape).collect::<Vec<_>>().join(" "),
        KernelAst::For(l) => {
            let m = match l.mapping {
                Mapping::Sequential => "seq".to_string(),
                Mapping::Block(d) => format!("block{d}"),
                Mapping::Thread(d) => match &l.lanes {
                    Some(lanes) => format!("thread{d}x{}", lanes.width),
                    None => format!("thread{d}"),
                },
                Mapping::Global(d) => format!("global{d}"),
            };
            format!("{m}[{}]", shape(&l.body))
        }
        KernelAst::If {
            then, otherwise, ..
        } => match otherwise {
            Some(o) => format!("if[{}][{}]", shape(then), shape(o)),
            None => format!("if[{}]", shape(then)),
        },
        KernelAst::User { statement, .. } => statement.clone(),
        KernelAst::SingleThread(b) => format!("single[{}]", shape(b)),
        KernelAst::Barrier => "|".to_string(),
        KernelAst::Copy { shared, .. } => format!("copy{shared}"),
        KernelAst::Shared { promotions, body } => {
            let list: Vec<String> = promotions.iter().map(|(s, _)| s.to_string()).collect();
            format!("shared{}[{}]", list.join(","), shape(body))
        }
    }
}

/// The launches of the host code, with the host loops around them: `for[launch0]`.
fn host_shape(h: &Host) -> String {
    match h {
        Host::Block(v) => v.iter().map(host_shape).collect::<Vec<_>>().join(" "),
        Host::For { body, .. } => format!("for[{}]", host_shape(body)),
        Host::If {
            then, otherwise, ..
        } => match otherwise {
            Some(o) => format!("if[{}][{}]", host_shape(then), host_shape(o)),
            None => format!("if[{}]", host_shape(then)),
        },
        Host::Launch(k) => format!("launch{k}"),
    }
}

/// Checks the program at every parameter equal to `value` (which must lie in the
/// context).
fn assert_checks(scop: &Scop, program: &GpuProgram, value: i64) {
    let values: Vec<(String, i64)> = scop.params.iter().map(|p| (p.clone(), value)).collect();
    assert!(in_context(scop, &values));
    let deps = value_deps(scop);
    let report = check(scop, &deps, program, &values).expect("check");
    assert!(report.is_ok(), "{report:?}\n{program}");
    assert!(report.instances > 0);
}

/// A C function around a scop region, extracted.
fn scop_of(source: &str) -> Scop {
    pollen_frontend::extract(source).expect("extraction").scop
}

#[test]
fn tiled_gemm_maps_tiles_to_blocks_and_points_to_threads() {
    let (scop, deps, tree) = scheduled("gemm");
    let tree = tiled(&scop, &deps, &tree, 4);
    let program = map(&scop, &ast(&scop, &tree), &GpuOptions::default()).expect("map");
    assert_eq!(host_shape(&program.host), "launch0 launch1");
    // C = beta * C: two tile loops on blocks, two point loops on threads.
    let k0 = &program.kernels[0];
    assert_eq!(shape(&k0.body), "block1[block0[thread1[thread0[S0]]]]");
    assert_eq!(k0.block, vec![4, 4]);
    // C += alpha * A * B: the k tile loop runs in every thread with a barrier after each
    // of its iterations; the i point loop on threads, k and j points inside a thread.
    // Each iteration starts with copies of the A and B tiles to shared memory.
    let k1 = &program.kernels[1];
    assert_eq!(
        shape(&k1.body),
        "block1[block0[seq[if[copy0] if[copy1] | shared0,1[thread0[seq[seq[S1]]] |]]]]"
    );
    assert_eq!(k1.block, vec![4]);
    assert_eq!(k1.grid.len(), 2);
    for g in &k1.grid {
        assert!(!g.mentions("c0") && !g.mentions("c1"), "{g}");
    }
    assert_eq!(k1.arrays, vec!["alpha", "C", "A", "B"]);
    assert!(k1.host_iterators.is_empty());
    let text = program.to_string();
    assert!(text.contains("launch kernel1<<<"), "{text}");
    assert!(text.contains("// block y"), "{text}");
    assert!(text.contains("// thread x"), "{text}");
    assert!(text.contains("barrier;"), "{text}");
    assert_checks(&scop, &program, 6);
    // The arrays: scalars only read are values, the written matrix copied both ways.
    let kinds: Vec<(&str, ArrayKind, bool, bool)> = program
        .arrays
        .iter()
        .map(|a| (a.name.as_str(), a.kind, a.copy_in, a.copy_out))
        .collect();
    assert_eq!(
        kinds,
        vec![
            ("alpha", ArrayKind::Value, true, false),
            ("beta", ArrayKind::Value, true, false),
            ("C", ArrayKind::Buffer, true, true),
            ("A", ArrayKind::Buffer, true, false),
            ("B", ArrayKind::Buffer, true, false),
        ]
    );
}

/// The shared arrays of a program's kernels: kernel index, array, sizes.
fn promotions(program: &GpuProgram) -> Vec<(usize, String, Vec<u64>)> {
    let mut out = Vec::new();
    for (k, kernel) in program.kernels.iter().enumerate() {
        for a in &kernel.shared {
            out.push((k, a.array.clone(), a.sizes.clone()));
        }
    }
    out
}

#[test]
fn tiled_gemm_promotes_the_tiles_of_a_and_b() {
    let (scop, deps, tree) = scheduled("gemm");
    let tree = tiled(&scop, &deps, &tree, 32);
    let program = map(&scop, &ast(&scop, &tree), &GpuOptions::default()).expect("map");
    // C is written, A and B only read: their 32 x 32 tiles per iteration of the k tile
    // loop, each element read by 32 threads or iterations. The threads along x (i) read
    // A down its columns: its rows are padded to 33 elements, so that they meet 32
    // banks.
    assert_eq!(
        promotions(&program),
        vec![
            (1, "A".to_string(), vec![32, 33]),
            (1, "B".to_string(), vec![32, 32]),
        ],
        "{program}"
    );
    let k1 = &program.kernels[1];
    let text = program.to_string();
    assert!(
        text.contains("shared DATA_TYPE shared_A[32][33]; // of A"),
        "{text}"
    );
    // The copy of A: rows of the block's i tile, columns of the k tile, from the tile's
    // first element; only elements inside the loops' bounds.
    fn only(a: &KernelAst) -> &KernelAst {
        match a {
            KernelAst::Block(v) if v.len() == 1 => only(&v[0]),
            a => a,
        }
    }
    let KernelAst::For(b1) = only(&k1.body) else {
        panic!("{text}")
    };
    let KernelAst::For(b0) = only(&b1.body) else {
        panic!("{text}")
    };
    let KernelAst::For(l) = only(&b0.body) else {
        panic!("{text}")
    };
    let KernelAst::Block(items) = &*l.body else {
        panic!("{text}")
    };
    let KernelAst::If { then, .. } = &items[0] else {
        panic!("{text}")
    };
    let KernelAst::Copy {
        shared,
        offset,
        lower,
        upper,
    } = &**then
    else {
        panic!("{text}")
    };
    assert_eq!(*shared, 0);
    let strings = |v: &[Expr]| v.iter().map(Expr::to_string).collect::<Vec<_>>();
    assert_eq!(strings(offset), vec!["32 * c0", "32 * c2"]);
    assert_eq!(strings(lower), vec!["32 * c0", "32 * c2"]);
    assert_eq!(
        strings(upper),
        vec![
            "min(_PB_NI - 1, 32 * c0 + 31)",
            "min(_PB_NK - 1, 32 * c2 + 31)"
        ]
    );
    assert!(matches!(items[2], KernelAst::Barrier), "{text}");
    assert!(
        matches!(&items[3], KernelAst::Shared { promotions, .. } if promotions.len() == 2),
        "{text}"
    );
    assert_checks(&scop, &program, 34);
    // Without the option, or with too little shared memory, nothing is promoted.
    let off = GpuOptions {
        shared_memory: false,
        ..GpuOptions::default()
    };
    let program = map(&scop, &ast(&scop, &tree), &off).expect("map");
    assert!(promotions(&program).is_empty());
    let small = GpuOptions {
        shared_memory_bytes: 32 * 32 * 8 - 1,
        ..GpuOptions::default()
    };
    let program = map(&scop, &ast(&scop, &tree), &small).expect("map");
    assert!(promotions(&program).is_empty());
    // Room for one tile: A only (B would fit in less, but arrays are taken in order).
    let one = GpuOptions {
        shared_memory_bytes: 32 * 33 * 8,
        ..GpuOptions::default()
    };
    let program = map(&scop, &ast(&scop, &tree), &one).expect("map");
    assert_eq!(
        promotions(&program),
        vec![(1, "A".to_string(), vec![32, 33])]
    );
}

#[test]
fn translated_and_reversed_references_share_one_box() {
    // A[i][k] and A[i][k + 2] read one box of 4 x 6 per k tile (its rows padded to 7:
    // the threads along x, i, read it down its columns); B[n - 1 - k][j] runs
    // backwards through its rows.
    let scop = scop_of(
        "
void f(int n, double A[100][100], double B[100][100], double C[100][100]) {
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n; k++)
        C[i][j] += A[i][k] * A[i][k + 2] * B[n - 1 - k][j];
#pragma endscop
}",
    );
    let deps = value_deps(&scop);
    let tree = pollen_sched::schedule(&scop, &deps, &Default::default()).expect("schedule");
    let tree = tiled(&scop, &deps, &tree, 4);
    let program = map(&scop, &ast(&scop, &tree), &GpuOptions::default()).expect("map");
    let found = promotions(&program);
    assert!(
        found.contains(&(0, "A".to_string(), vec![4, 7])),
        "{found:?}\n{program}"
    );
    assert!(
        found.contains(&(0, "B".to_string(), vec![4, 4])),
        "{found:?}\n{program}"
    );
    for n in [5, 9, 10] {
        assert_checks(&scop, &program, n);
    }
}

#[test]
fn transposed_reads_are_promoted_without_reuse_and_others_are_not() {
    // A transpose reads every element once, but the threads along x (j) read A down a
    // column: the block's 8 x 8 box is copied row by row, then read from shared
    // memory, its rows padded to 9 elements (distinct banks down a column).
    let transpose = "
void transpose(int n, double A[100][100], double B[100][100]) {
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      B[i][j] = A[j][i];
#pragma endscop
}";
    let scop = scop_of(transpose);
    let deps = value_deps(&scop);
    let tree = pollen_sched::schedule(&scop, &deps, &Default::default()).expect("schedule");
    let tree = tiled(&scop, &deps, &tree, 8);
    let program = map(&scop, &ast(&scop, &tree), &GpuOptions::default()).expect("map");
    assert_eq!(
        promotions(&program),
        vec![(0, "A".to_string(), vec![8, 9])],
        "{program}"
    );
    for n in [5, 8, 10, 17] {
        assert_checks(&scop, &program, n);
    }
    // Not without reuse when the option says so.
    let reuse_only = GpuOptions {
        transposed_tiles: false,
        ..GpuOptions::default()
    };
    let program = map(&scop, &ast(&scop, &tree), &reuse_only).expect("map");
    assert!(promotions(&program).is_empty(), "{program}");
    // A copy reads every element once along the threads' x: nothing to gain.
    let copy = transpose.replace("A[j][i]", "A[i][j]");
    let scop = scop_of(&copy);
    let deps = value_deps(&scop);
    let tree = pollen_sched::schedule(&scop, &deps, &Default::default()).expect("schedule");
    let tree = tiled(&scop, &deps, &tree, 8);
    let program = map(&scop, &ast(&scop, &tree), &GpuOptions::default()).expect("map");
    assert!(promotions(&program).is_empty(), "{program}");
    assert_checks(&scop, &program, 10);
    // A stencil of jacobi-1d, tiled: every reference's loops all occur in it.
    let (scop, deps, tree) = scheduled("jacobi-1d");
    let tree = tiled(&scop, &deps, &tree, 8);
    let program = map(&scop, &ast(&scop, &tree), &GpuOptions::default()).expect("map");
    assert!(promotions(&program).is_empty(), "{program}");
}

#[test]
fn untiled_nests_map_to_blocks_and_threads() {
    let (scop, _, tree) = scheduled("gemm");
    let program = map(&scop, &ast(&scop, &tree), &GpuOptions::default()).expect("map");
    assert_eq!(shape(&program.kernels[0].body), "block0[thread0[S0]]");
    assert_eq!(shape(&program.kernels[1].body), "block0[thread0[seq[S1]]]");
    assert_eq!(program.kernels[0].block, vec![256]);
    assert_eq!(program.kernels[0].grid.len(), 1);
    assert_checks(&scop, &program, 5);
    // Given block sizes: extra dimensions are dropped (one thread dimension here).
    let options = GpuOptions {
        block: Some(vec![8, 4]),
        ..GpuOptions::default()
    };
    let program = map(&scop, &ast(&scop, &tree), &options).expect("map");
    assert_eq!(program.kernels[0].block, vec![8]);
    assert_checks(&scop, &program, 5);
}

const VECTOR_SCALE: &str = "
void scale(int n, double A[100], double B[100]) {
#pragma scop
  for (int i = 0; i < n; i++)
    A[i] = 2 * B[i];
#pragma endscop
}
";

#[test]
fn one_dimensional_loops_map_to_global_threads() {
    let scop = scop_of(VECTOR_SCALE);
    let deps = value_deps(&scop);
    let tree = pollen_testkit::pluto_with(&scop, &deps);
    let program = map(&scop, &ast(&scop, &tree), &GpuOptions::default()).expect("map");
    assert_eq!(program.kernels.len(), 1);
    let k = &program.kernels[0];
    assert_eq!(shape(&k.body), "global0[S0]");
    assert_eq!(k.block, vec![256]);
    // ceil(n / 256) blocks, capped.
    assert_eq!(
        k.grid,
        vec![Expr::Min(vec![
            Expr::CeilDiv(Box::new(Expr::var("n")), Int::from(256)),
            Expr::int(65535)
        ])]
    );
    assert_checks(&scop, &program, 7);
    let options = GpuOptions {
        block: Some(vec![3]),
        ..GpuOptions::default()
    };
    let program = map(&scop, &ast(&scop, &tree), &options).expect("map");
    assert_eq!(program.kernels[0].block, vec![3]);
    assert_checks(&scop, &program, 7);
}

const ACCUMULATE: &str = "
double total;
void accumulate(int n, double L[100][100], double x[100], double y[100]) {
#pragma scop
  for (int i = 0; i < n; i++) {
    double acc = 0.0;
    for (int j = 0; j <= i; j++)
      acc += L[i][j] * x[j];
    y[i] = acc;
    total = total + acc;
  }
#pragma endscop
}
";

#[test]
fn sequential_code_becomes_a_single_thread_kernel() {
    let scop = scop_of(ACCUMULATE);
    let deps = value_deps(&scop);
    let tree = pollen_testkit::pluto_with(&scop, &deps);
    let program = map(&scop, &ast(&scop, &tree), &GpuOptions::default()).expect("map");
    assert_eq!(program.kernels.len(), 1, "{program}");
    let k = &program.kernels[0];
    assert_eq!(k.grid, vec![Expr::int(1)]);
    assert_eq!(k.block, vec![1]);
    assert!(!program.to_string().contains("// block"), "{program}");
    let kind = |n: &str| {
        program
            .arrays
            .iter()
            .find(|a| a.name == n)
            .map(|a| (a.kind, a.copy_in, a.copy_out))
    };
    // The declared accumulator lives in the kernel; the other scalar is a buffer.
    assert_eq!(kind("acc"), Some((ArrayKind::Private, false, false)));
    assert_eq!(kind("y"), Some((ArrayKind::Buffer, true, true)));
    assert!(matches!(
        kind("total").map(|k| k.0),
        Some(ArrayKind::ScalarBuffer)
    ));
    assert_checks(&scop, &program, 5);
}

#[test]
fn a_time_loop_stays_on_the_host() {
    // jacobi-1d in its original order: the time loop is sequential, the two space
    // loops inside it parallel.
    let scop = kernel_scop("jacobi-1d");
    let deps = value_deps(&scop);
    let tree = pollen_transform::parallelize(&deps, &scop.schedule, None).expect("flags");
    let program = map(&scop, &ast(&scop, &tree), &GpuOptions::default()).expect("map");
    let host = host_shape(&program.host);
    assert!(host.contains("for[launch0 launch1]"), "{host}\n{program}");
    for k in &program.kernels {
        assert_eq!(shape(&k.body).split('[').next(), Some("global0"));
        assert_eq!(k.host_iterators.len(), 1, "{program}");
    }
    assert_checks(&scop, &program, 6);
}

#[test]
fn a_wavefront_of_jacobi_2d_launches_inside_the_host_loop() {
    let (scop, deps, tree) = scheduled("jacobi-2d");
    let tree = tiled(&scop, &deps, &tree, 4);
    let program = map(&scop, &ast(&scop, &tree), &GpuOptions::default()).expect("map");
    assert!(
        host_shape(&program.host).starts_with("for[launch0"),
        "{program}"
    );
    assert_checks(&scop, &program, 6);
}

fn for_loop(it: &str, lower: Expr, upper: Expr, parallel: bool, body: Ast) -> Ast {
    Ast::For(Loop {
        iterator: it.into(),
        lower,
        upper,
        stride: Int::one(),
        body: Box::new(body),
        parallel,
        vectorizable: false,
    })
}

fn user(s: &str, args: &[&str]) -> Ast {
    Ast::User {
        statement: s.into(),
        args: args.iter().map(|a| Expr::var(a)).collect(),
    }
}

fn minus_one(p: &str) -> Expr {
    Expr::Add(vec![Expr::var(p), Expr::int(-1)])
}

#[test]
fn thread_chains_of_different_depths_share_the_block() {
    // Under one block loop: a 2-D chain of thread loops with constant extents, then a
    // 1-D one, which only the threads with y = 0 run; statements between them run in
    // one thread, with barriers around.
    let scop = kernel_scop("gemm");
    let ni = "_PB_NI";
    let tile = |it: &str, base: &str, extent: i64, body: Ast| {
        let lower = Expr::Mul(Int::from(2), Box::new(Expr::var(base)));
        let upper = Expr::Add(vec![lower.clone(), Expr::int(extent - 1)]);
        for_loop(it, lower, upper, true, body)
    };
    let body = Ast::Block(vec![
        tile("a", "c0", 2, tile("b", "c0", 3, user("S0", &["a", "b"]))),
        user("S0", &["c0", "c0"]),
        tile("d", "c0", 2, user("S0", &["d", "c0"])),
    ]);
    let ast = for_loop("c0", Expr::int(0), minus_one(ni), true, body);
    let program = map(&scop, &ast, &GpuOptions::default()).expect("map");
    let k = &program.kernels[0];
    let text = shape(&k.body);
    assert!(
        text.starts_with("block0[thread1[thread0[S0]] | single[S0] | "),
        "{text}"
    );
    assert!(text.contains("thread1[thread0[S0]]]"), "{text}");
    assert_eq!(k.block, vec![3, 2]);
}

#[test]
fn errors_name_what_is_unsupported() {
    let source = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../examples/fragments/decl_accumulator.c"),
    )
    .expect("fragment");
    let scop = scop_of(&source);
    let deps = value_deps(&scop);
    let tree = pollen_testkit::pluto_with(&scop, &deps);
    let err = map(&scop, &ast(&scop, &tree), &GpuOptions::default()).unwrap_err();
    assert!(
        matches!(&err, Error::UnsupportedArray { reason, .. } if reason.contains("element type")),
        "{err}"
    );
    let scop = kernel_scop("gemm");
    let bad = [vec![], vec![0], vec![64, 64], vec![1, 1, 1, 1]];
    for b in bad {
        let options = GpuOptions {
            block: Some(b.clone()),
            ..GpuOptions::default()
        };
        assert!(
            matches!(
                map(&scop, &Ast::Block(vec![]), &options),
                Err(Error::InvalidOptions(_))
            ),
            "{b:?}"
        );
    }
    let ast = user("S9", &[]);
    assert_eq!(
        map(&scop, &ast, &GpuOptions::default()),
        Err(Error::UnknownStatement("S9".into()))
    );
    let ast = Ast::For(Loop {
        iterator: "i".into(),
        lower: Expr::int(0),
        upper: Expr::int(3),
        stride: Int::zero(),
        body: Box::new(user("S0", &["i", "i"])),
        parallel: true,
        vectorizable: false,
    });
    assert!(matches!(
        map(&scop, &ast, &GpuOptions::default()),
        Err(Error::InvalidAst(_))
    ));
}

#[test]
fn the_block_model() {
    assert_eq!(block_model(&[None]), vec![256]);
    assert_eq!(block_model(&[None, None]), vec![32, 8]);
    assert_eq!(block_model(&[None, None, None]), vec![32, 4, 2]);
    assert_eq!(block_model(&[Some(Int::from(4)), None]), vec![4, 8]);
    assert_eq!(
        block_model(&[Some(Int::from(64)), Some(Int::from(64))]),
        vec![64, 4]
    );
    assert_eq!(
        block_model(&[Some(Int::from(32)), Some(Int::from(32))]),
        vec![32, 8]
    );
    assert_eq!(block_model(&[Some(Int::from(5000))]), vec![256]);
    assert_eq!(block_model(&[Some(Int::from(0))]), vec![1]);
}

const ROW_SUMS: &str = "
void row_sums(int n, int m, double A[100][100], double out[100]) {
#pragma scop
  for (int t = 0; t < m; t++) {
    for (int i = 0; i < n; i++)
      A[t][i] = A[t][i] * 2;
    double s = 0.0;
    for (int i = 0; i < n; i++)
      s = s + A[t][i];
    out[t] = s;
  }
#pragma endscop
}
";

#[test]
fn a_local_scalar_shared_by_launches_stays_a_buffer() {
    // In the original order, the time loop stays on the host around a parallel kernel
    // and a single-thread kernel: the latter runs once per iteration, so its declared
    // scalar is not made private.
    let scop = scop_of(ROW_SUMS);
    let deps = value_deps(&scop);
    let tree = pollen_transform::parallelize(&deps, &scop.schedule, None).expect("flags");
    let program = map(&scop, &ast(&scop, &tree), &GpuOptions::default()).expect("map");
    assert!(
        host_shape(&program.host).starts_with("for[launch0 launch1"),
        "{program}"
    );
    assert_eq!(program.kernels[1].block, vec![1]);
    let s = program.arrays.iter().find(|a| a.name == "s").expect("s");
    assert_eq!(s.kind, ArrayKind::ScalarBuffer);
    assert_checks(&scop, &program, 5);
}

const LANES: &str = "
void lanes(int n, int m, float A[64][64], float B[64][64], float C[64][64], float x[64]) {
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) {
      A[i][j] = B[i][j] * x[j] + C[j][i];
      B[i][j] = A[i][j] + x[i];
    }
#pragma endscop
}";

#[test]
fn lane_groups_run_the_statements_of_contiguous_thread_loops() {
    let scop = scop_of(LANES);
    let deps = value_deps(&scop);
    let tree = pollen_sched::schedule(&scop, &deps, &Default::default()).expect("schedule");
    let tree = tiled(&scop, &deps, &tree, 8);
    let lanes: std::collections::BTreeMap<String, usize> =
        [("S0".to_string(), 1), ("S1".to_string(), 1)].into();
    for width in [2, 4, 8] {
        let options = GpuOptions {
            lanes: lanes.clone(),
            lane_width: width,
            ..GpuOptions::default()
        };
        let program = map(&scop, &ast(&scop, &tree), &options).expect("map");
        let body = &program.kernels[0].body;
        assert_eq!(
            shape(body),
            format!("block1[block0[if[copy0] | shared0[thread1[thread0x{width}[S0 S1]]] |]]"),
            "{program}"
        );
        // C[j][i] is read down its columns by the threads along x: from shared memory.
        assert_eq!(
            promotions(&program),
            vec![(0, "C".to_string(), vec![8, 9])],
            "{program}"
        );
        // 8 / width threads along x: each runs groups of `width` iterations.
        assert_eq!(program.kernels[0].block, vec![8 / width, 8]);
        // A, B and x[j] move along j; C[j][i] does not, nor does x[i] in S1.
        let text = program.to_string();
        assert!(
            text.contains(&format!("lanes of {width}: S0.A S0.B S0.x S1.A S1.B")),
            "{text}"
        );
        for n in [5, 8, 13] {
            assert_checks(&scop, &program, n);
        }
    }
    // Along i the thread loop is not the lane iterator: no lanes.
    let options = GpuOptions {
        lanes: [("S0".to_string(), 0), ("S1".to_string(), 0)].into(),
        ..GpuOptions::default()
    };
    let program = map(&scop, &ast(&scop, &tree), &options).expect("map");
    assert_eq!(
        shape(&program.kernels[0].body),
        "block1[block0[if[copy0] | shared0[thread1[thread0[S0 S1]]] |]]"
    );
    // A lane group is only a reordering of independent iterations: on a loop that
    // carries a dependence, the checker sees it, even with one thread (S0 of the
    // group's second iteration reads B before S1 of its first writes it).
    let source = "
void carried(int n, float A[64][64], float B[64][64]) {
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 1; j < n; j++) {
      A[i][j] = B[i][j - 1];
      B[i][j] = A[i][j] + 1;
    }
#pragma endscop
}";
    let scop = scop_of(source);
    let deps = value_deps(&scop);
    let mut forced = ast(
        &scop,
        &pollen_sched::schedule(&scop, &deps, &Default::default()).expect("schedule"),
    );
    fn mark(a: &mut Ast) {
        match a {
            Ast::Block(v) => v.iter_mut().for_each(mark),
            Ast::For(l) => {
                l.parallel = true;
                mark(&mut l.body);
            }
            _ => {}
        }
    }
    mark(&mut forced);
    let options = GpuOptions {
        lanes: [("S0".to_string(), 1), ("S1".to_string(), 1)].into(),
        block: Some(vec![1]),
        ..GpuOptions::default()
    };
    let program = map(&scop, &forced, &options).expect("map");
    assert!(program.to_string().contains("lanes of 4"), "{program}");
    let values = vec![("n".to_string(), 9)];
    let report = check(&scop, &deps, &program, &values).expect("check");
    assert!(!report.is_ok(), "{program}");
}

#[test]
fn lane_groups_jam_into_inner_loops_whose_bounds_they_share() {
    let product = "
void product(int n, float C[64][64], float A[64][64], float B[64][64]) {
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n; k++)
        C[i][j] += A[i][k] * B[k][j];
#pragma endscop
}";
    let triangle = product.replace("k < n", "k <= j");
    for (source, jammed) in [(product, true), (triangle.as_str(), false)] {
        let scop = scop_of(source);
        let deps = value_deps(&scop);
        let tree = pollen_sched::schedule(&scop, &deps, &Default::default()).expect("schedule");
        let plain = GpuOptions {
            lanes: [("S0".to_string(), 1)].into(),
            ..GpuOptions::default()
        };
        // By default a lane loop holds statements only.
        let program = map(&scop, &ast(&scop, &tree), &plain).expect("map");
        assert_eq!(shape(&program.kernels[0].body), "block0[thread0[seq[S0]]]");
        let options = GpuOptions {
            lane_jam: true,
            ..plain
        };
        let program = map(&scop, &ast(&scop, &tree), &options).expect("map");
        let expected = if jammed {
            "block0[thread0x4[seq[S0]]]"
        } else {
            // The k loop's bound mentions j: the lanes of a group could not share it.
            "block0[thread0[seq[S0]]]"
        };
        assert_eq!(shape(&program.kernels[0].body), expected, "{program}");
        for n in [3, 9] {
            assert_checks(&scop, &program, n);
        }
    }
}
