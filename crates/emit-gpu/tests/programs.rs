//! Hand-mapped GPU programs of real example kernels, emitted as OpenCL and CUDA.
//!
//! Each test builds a [`GpuProgram`] for an example kernel's scop by hand (the shapes a
//! mapper produces: tiles over blocks and threads, a global 1-D loop under a host time
//! loop, a single-thread nest, a block-wide sequential loop with barriers and
//! single-thread parts, scalars in one-element buffers, by value and private), then:
//! - emits OpenCL, compiles the host program with gcc, runs it on the OpenCL device
//!   (PoCL on machines without a GPU) and requires the printed checksums to equal those
//!   of the original program compiled with gcc, exactly;
//! - emits CUDA and, when nvcc is found, compiles it to an object (host and device
//!   code) and to PTX, which needs no GPU; without nvcc that part is skipped, saying so.

use std::path::Path;

use pollen_arith::Int;
use pollen_codegen::{Cond, Expr};
use pollen_emit_gpu::{emit_cuda, emit_opencl, EmitOptions};
use pollen_gpu::{
    ArrayKind, DeviceArray, GpuProgram, Host, Kernel, KernelAst, KernelLoop, Mapping, SharedArray,
};
use pollen_scop::Scop;
use pollen_testkit::{cc, gpu, kernel_source, kernels_dir};

fn v(name: &str) -> Expr {
    Expr::var(name)
}

fn int(k: i64) -> Expr {
    Expr::int(k)
}

fn add(terms: Vec<Expr>) -> Expr {
    Expr::Add(terms)
}

fn times(k: i64, e: Expr) -> Expr {
    Expr::Mul(Int::from(k), Box::new(e))
}

fn floord(e: Expr, d: i64) -> Expr {
    Expr::FloorDiv(Box::new(e), Int::from(d))
}

/// `name - 1`.
fn last(name: &str) -> Expr {
    add(vec![v(name), int(-1)])
}

/// A loop with stride 1.
fn lp(
    iterator: &str,
    lower: Expr,
    upper: Expr,
    mapping: Mapping,
    body: Vec<KernelAst>,
) -> KernelAst {
    KernelAst::For(KernelLoop {
        iterator: iterator.to_string(),
        lower,
        upper,
        stride: Int::one(),
        mapping,
        lanes: None,
        body: Box::new(KernelAst::Block(body)),
    })
}

fn user(statement: &str, args: Vec<Expr>) -> KernelAst {
    KernelAst::User {
        statement: statement.to_string(),
        args,
    }
}

fn kernel(
    name: &str,
    grid: Vec<Expr>,
    block: Vec<u32>,
    host_iterators: &[&str],
    arrays: &[&str],
    body: Vec<KernelAst>,
) -> Kernel {
    Kernel {
        name: name.to_string(),
        grid,
        block,
        host_iterators: host_iterators.iter().map(|s| s.to_string()).collect(),
        arrays: arrays.iter().map(|s| s.to_string()).collect(),
        body: KernelAst::Block(body),
        shared: vec![],
    }
}

/// The device arrays of `scop` named in `kinds` (name, kind, copy in, copy out), in the
/// scop's order, with the scop's types and extents.
fn arrays(scop: &Scop, kinds: &[(&str, ArrayKind, bool, bool)]) -> Vec<DeviceArray> {
    scop.arrays
        .iter()
        .filter_map(|a| {
            let (_, kind, copy_in, copy_out) = kinds.iter().find(|k| k.0 == a.name)?;
            Some(DeviceArray {
                name: a.name.clone(),
                element_type: a.element_type.clone(),
                extents: a.extents.clone(),
                kind: *kind,
                copy_in: *copy_in,
                copy_out: *copy_out,
            })
        })
        .collect()
}

/// The scop and region of an example kernel.
fn extract(name: &str) -> (String, pollen_frontend::Extracted) {
    let source = kernel_source(name);
    let extracted = pollen_frontend::extract(&source).unwrap_or_else(|e| panic!("{name}: {e}"));
    (source, extracted)
}

/// Emits both dialects for `program` of the example kernel `name`, runs the OpenCL
/// program and compares its output with the original's, and compiles the CUDA file when
/// nvcc is there; `label` names the scratch directory (kept with `$KEEP` set).
fn check(name: &str, label: &str, program: &GpuProgram) {
    cc::require_gcc();
    gpu::require_opencl();
    let (source, extracted) = extract(name);
    let scop = &extracted.scop;
    let options = EmitOptions::default();
    let opencl = emit_opencl(&source, extracted.region.clone(), scop, program, &options)
        .unwrap_or_else(|e| panic!("{name}: OpenCL emission: {e}"));
    let cuda = emit_cuda(&source, extracted.region.clone(), scop, program, &options)
        .unwrap_or_else(|e| panic!("{name}: CUDA emission: {e}"));
    let dir = cc::scratch(&format!("emit-gpu-{label}"));
    let include = format!("-I{}", kernels_dir().display());
    let original = dir.join(format!("{name}.c"));
    let translated = dir.join(format!("{name}-opencl.c"));
    std::fs::write(&original, &source).expect("write the original");
    std::fs::write(&translated, &opencl).expect("write the OpenCL program");
    std::fs::write(dir.join(format!("{name}.cu")), &cuda).expect("write the CUDA program");

    // Strict C99: the feature-test macro of kernel.h must still reach the system
    // headers, so the OpenCL header may not come first.
    let flags = [
        "-std=c99",
        "-pedantic",
        "-O2",
        "-Wall",
        "-Werror",
        "-Wno-unknown-pragmas",
        include.as_str(),
    ];
    // The region's iterators are no longer used by the host code.
    let translated_flags = [&flags[..], &["-Wno-unused-variable"]].concat();
    let reference = dir.join(format!("{name}-c"));
    let device = dir.join(format!("{name}-opencl"));
    std::thread::scope(|s| {
        let cuda_check = s.spawn(|| compile_cuda(name, &dir, &include));
        let c = s.spawn(|| cc::compile(&original, &reference, &flags));
        gpu::compile_opencl(&translated, &device, &translated_flags)
            .unwrap_or_else(|e| panic!("{name}: the OpenCL program does not compile: {e}"));
        let c = c.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
        c.unwrap_or_else(|e| panic!("{name}: {e}"));
        let expected = cc::run(&reference, 1).unwrap_or_else(|e| panic!("{name}: {e}"));
        let actual =
            cc::run(&device, 1).unwrap_or_else(|e| panic!("{name}: the OpenCL program: {e}"));
        assert!(
            !expected.trim().is_empty(),
            "{name}: the original prints nothing"
        );
        assert_eq!(
            expected,
            actual,
            "{name}: the OpenCL program's output differs ({}); sources in {}",
            cc::first_difference(&expected, &actual),
            dir.display()
        );
        if let Err(p) = cuda_check.join() {
            std::panic::resume_unwind(p);
        }
    });
    if std::env::var_os("KEEP").is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// Compiles `<name>.cu` of `dir` to an object and to PTX when nvcc is found.
fn compile_cuda(name: &str, dir: &Path, include: &str) {
    let Some(nvcc) = gpu::nvcc() else {
        eprintln!("{name}: nvcc not found (set POLLEN_NVCC): the CUDA checks are skipped");
        return;
    };
    let cu = dir.join(format!("{name}.cu"));
    let cu = cu.to_str().expect("a UTF-8 path");
    let object = dir.join(format!("{name}.o"));
    let ptx = dir.join(format!("{name}.ptx"));
    let object = object.to_str().expect("a UTF-8 path");
    let ptx = ptx.to_str().expect("a UTF-8 path");
    gpu::run_nvcc(&nvcc, &["-c", include, cu, "-o", object])
        .unwrap_or_else(|e| panic!("{name}: the CUDA file does not compile: {e}"));
    gpu::run_nvcc(&nvcc, &["--ptx", include, cu, "-o", ptx])
        .unwrap_or_else(|e| panic!("{name}: the CUDA file does not compile to PTX: {e}"));
}

/// gemm: 32 × 32 tiles of C over a 2-D grid (`j` tiles along `x`), each tile spread
/// over a 16 × 8 block, the `k` loop sequential inside; alpha and beta by value.
fn gemm_program(scop: &Scop) -> GpuProgram {
    let tile = |c: &str, p: &str| {
        (
            times(32, v(c)),
            Expr::Min(vec![last(p), add(vec![times(32, v(c)), int(31)])]),
        )
    };
    let (i_lo, i_hi) = tile("c0", "_PB_NI");
    let (j_lo, j_hi) = tile("c1", "_PB_NJ");
    let body = lp(
        "c0",
        int(0),
        floord(last("_PB_NI"), 32),
        Mapping::Block(1),
        vec![lp(
            "c1",
            int(0),
            floord(last("_PB_NJ"), 32),
            Mapping::Block(0),
            vec![lp(
                "c2",
                i_lo,
                i_hi,
                Mapping::Thread(1),
                vec![lp(
                    "c3",
                    j_lo,
                    j_hi,
                    Mapping::Thread(0),
                    vec![
                        user("S0", vec![v("c2"), v("c3")]),
                        lp(
                            "c4",
                            int(0),
                            last("_PB_NK"),
                            Mapping::Sequential,
                            vec![user("S1", vec![v("c2"), v("c4"), v("c3")])],
                        ),
                    ],
                )],
            )],
        )],
    );
    let grid = vec![
        floord(add(vec![v("_PB_NJ"), int(31)]), 32),
        floord(add(vec![v("_PB_NI"), int(31)]), 32),
    ];
    GpuProgram {
        arrays: arrays(
            scop,
            &[
                ("alpha", ArrayKind::Value, false, false),
                ("beta", ArrayKind::Value, false, false),
                ("C", ArrayKind::Buffer, true, true),
                ("A", ArrayKind::Buffer, true, false),
                ("B", ArrayKind::Buffer, true, false),
            ],
        ),
        host: Host::Launch(0),
        kernels: vec![kernel(
            "kernel0",
            grid,
            vec![16, 8],
            &[],
            &["alpha", "beta", "C", "A", "B"],
            vec![body],
        )],
    }
}

#[test]
fn gemm_tiles_over_blocks_and_threads() {
    let (_, extracted) = extract("gemm");
    let program = gemm_program(&extracted.scop);
    assert_eq!(program.arrays.len(), 5, "gemm's arrays and scalars");
    check("gemm", "gemm", &program);
}

/// gemm with the tiles of A (16 x 8) and B (8 x 16) of each iteration of the k tile
/// loop copied to shared memory by the 8 x 4 threads of a block, and read from there.
#[test]
fn gemm_with_tiles_in_shared_memory() {
    let (_, extracted) = extract("gemm");
    let scop = &extracted.scop;
    let mut program = gemm_program(scop);
    // kernel0: C *= beta only (the first statement of the hand-mapped gemm).
    let tile = |c: &str, p: &str, size: i64| {
        (
            times(size, v(c)),
            Expr::Min(vec![last(p), add(vec![times(size, v(c)), int(size - 1)])]),
        )
    };
    let (i_lo, i_hi) = tile("c0", "_PB_NI", 16);
    let (j_lo, j_hi) = tile("c1", "_PB_NJ", 16);
    let (k_lo, k_hi) = tile("c2", "_PB_NK", 8);
    let scale = lp(
        "c2",
        i_lo.clone(),
        i_hi.clone(),
        Mapping::Thread(1),
        vec![lp(
            "c3",
            j_lo.clone(),
            j_hi.clone(),
            Mapping::Thread(0),
            vec![user("S0", vec![v("c2"), v("c3")])],
        )],
    );
    let copy =
        |shared: usize, offset: Vec<Expr>, lower: Vec<Expr>, upper: Vec<Expr>| KernelAst::Copy {
            shared,
            offset,
            lower,
            upper,
        };
    let a_offset = vec![i_lo.clone(), k_lo.clone()];
    let b_offset = vec![k_lo.clone(), j_lo.clone()];
    let product = lp(
        "c2",
        int(0),
        floord(last("_PB_NK"), 8),
        Mapping::Sequential,
        vec![
            copy(
                0,
                a_offset.clone(),
                a_offset.clone(),
                vec![i_hi.clone(), k_hi.clone()],
            ),
            copy(
                1,
                b_offset.clone(),
                b_offset.clone(),
                vec![k_hi.clone(), j_hi.clone()],
            ),
            KernelAst::Barrier,
            KernelAst::Shared {
                promotions: vec![(0, a_offset), (1, b_offset)],
                body: Box::new(lp(
                    "c3",
                    i_lo.clone(),
                    i_hi.clone(),
                    Mapping::Thread(1),
                    vec![lp(
                        "c4",
                        j_lo.clone(),
                        j_hi.clone(),
                        Mapping::Thread(0),
                        vec![lp(
                            "c5",
                            k_lo,
                            k_hi,
                            Mapping::Sequential,
                            vec![user("S1", vec![v("c3"), v("c5"), v("c4")])],
                        )],
                    )],
                )),
            },
            KernelAst::Barrier,
        ],
    );
    let blocks = |body: Vec<KernelAst>| {
        lp(
            "c0",
            int(0),
            floord(last("_PB_NI"), 16),
            Mapping::Block(1),
            vec![lp(
                "c1",
                int(0),
                floord(last("_PB_NJ"), 16),
                Mapping::Block(0),
                body,
            )],
        )
    };
    let grid = vec![
        floord(add(vec![v("_PB_NJ"), int(15)]), 16),
        floord(add(vec![v("_PB_NI"), int(15)]), 16),
    ];
    let mut k1 = kernel(
        "kernel1",
        grid.clone(),
        vec![8, 4],
        &[],
        &["alpha", "C", "A", "B"],
        vec![blocks(vec![product])],
    );
    let shared = |name: &str, array: &str, sizes: Vec<u64>| SharedArray {
        name: name.to_string(),
        array: array.to_string(),
        element_type: "DATA_TYPE".to_string(),
        sizes,
    };
    k1.shared = vec![
        shared("tile_A", "A", vec![16, 8]),
        shared("tile_B", "B", vec![8, 16]),
    ];
    program.kernels = vec![
        kernel(
            "kernel0",
            grid,
            vec![8, 4],
            &[],
            &["beta", "C"],
            vec![blocks(vec![scale])],
        ),
        k1,
    ];
    program.host = Host::Block(vec![Host::Launch(0), Host::Launch(1)]);
    let source = extract("gemm").0;
    let options = EmitOptions::default();
    let opencl = emit_opencl(&source, extracted.region.clone(), scop, &program, &options)
        .expect("OpenCL emission");
    assert!(
        opencl.contains("__local DATA_TYPE tile_A[16][8];"),
        "{opencl}"
    );
    assert!(
        opencl.contains("tile_A[(c3) - (16 * c0)][(c5) - (8 * c2)]"),
        "{opencl}"
    );
    let cuda = emit_cuda(&source, extracted.region.clone(), scop, &program, &options)
        .expect("CUDA emission");
    assert!(
        cuda.contains("__shared__ DATA_TYPE tile_B[8][16];"),
        "{cuda}"
    );
    assert!(
        cuda.contains("(long)threadIdx.x + (long)blockDim.x * ((long)threadIdx.y)"),
        "{cuda}"
    );
    check("gemm", "gemm-shared", &program);
}

/// jacobi-1d: the time loop on the host, two 1-D kernels per step over global threads,
/// the time step passed as an argument.
#[test]
fn jacobi_1d_global_kernels_under_a_host_loop() {
    let (_, extracted) = extract("jacobi-1d");
    let scop = &extracted.scop;
    let step = |name: &str, statement: &str| {
        kernel(
            name,
            vec![int(2)],
            vec![16],
            &["c0"],
            &["A", "B"],
            vec![lp(
                "c1",
                int(1),
                add(vec![v("_PB_N"), int(-2)]),
                Mapping::Global(0),
                vec![user(statement, vec![v("c0"), v("c1")])],
            )],
        )
    };
    let program = GpuProgram {
        arrays: arrays(
            scop,
            &[
                ("A", ArrayKind::Buffer, true, true),
                ("B", ArrayKind::Buffer, true, true),
            ],
        ),
        host: Host::For {
            iterator: "c0".to_string(),
            lower: int(0),
            upper: last("_PB_TSTEPS"),
            stride: Int::one(),
            body: Box::new(Host::Block(vec![Host::Launch(0), Host::Launch(1)])),
        },
        kernels: vec![step("kernel0", "S0"), step("kernel1", "S1")],
    };
    check("jacobi-1d", "jacobi-1d", &program);
}

/// trisolv: the whole nest in one thread.
#[test]
fn trisolv_in_a_single_thread() {
    let (_, extracted) = extract("trisolv");
    let scop = &extracted.scop;
    let nest = lp(
        "c0",
        int(0),
        last("_PB_N"),
        Mapping::Sequential,
        vec![
            user("S0", vec![v("c0")]),
            lp(
                "c1",
                int(0),
                add(vec![v("c0"), int(-1)]),
                Mapping::Sequential,
                vec![user("S1", vec![v("c0"), v("c1")])],
            ),
            user("S2", vec![v("c0")]),
        ],
    );
    let program = GpuProgram {
        arrays: arrays(
            scop,
            &[
                ("L", ArrayKind::Buffer, true, false),
                ("x", ArrayKind::Buffer, false, true),
                ("b", ArrayKind::Buffer, true, false),
            ],
        ),
        host: Host::Launch(0),
        kernels: vec![kernel(
            "kernel0",
            vec![int(1)],
            vec![1],
            &[],
            &["L", "x", "b"],
            vec![nest],
        )],
    };
    check("trisolv", "trisolv", &program);
}

/// atax in one block: `y` cleared by the threads (in reverse, so that the thread that
/// clears an element is not the one that updates it: without the first barrier a
/// late thread would clear what another already accumulated); then per row a single
/// thread computes `tmp[i]` while the others wait at a barrier, and the threads update
/// `y` by columns.
#[test]
fn atax_sequential_loop_with_barriers_and_single_thread_parts() {
    let (_, extracted) = extract("atax");
    let scop = &extracted.scop;
    let body = vec![
        lp(
            "c0",
            int(0),
            last("_PB_N"),
            Mapping::Thread(0),
            vec![user(
                "S0",
                vec![add(vec![last("_PB_N"), times(-1, v("c0"))])],
            )],
        ),
        KernelAst::Barrier,
        lp(
            "c0",
            int(0),
            last("_PB_M"),
            Mapping::Sequential,
            vec![
                KernelAst::SingleThread(Box::new(KernelAst::Block(vec![
                    user("S1", vec![v("c0")]),
                    lp(
                        "c1",
                        int(0),
                        last("_PB_N"),
                        Mapping::Sequential,
                        vec![user("S2", vec![v("c0"), v("c1")])],
                    ),
                ]))),
                KernelAst::Barrier,
                lp(
                    "c1",
                    int(0),
                    last("_PB_N"),
                    Mapping::Thread(0),
                    vec![user("S3", vec![v("c0"), v("c1")])],
                ),
                KernelAst::Barrier,
            ],
        ),
    ];
    let program = GpuProgram {
        arrays: arrays(
            scop,
            &[
                ("A", ArrayKind::Buffer, true, false),
                ("x", ArrayKind::Buffer, true, false),
                ("y", ArrayKind::Buffer, false, true),
                ("tmp", ArrayKind::Buffer, false, true),
            ],
        ),
        host: Host::Launch(0),
        kernels: vec![kernel(
            "kernel0",
            vec![int(1)],
            vec![32],
            &[],
            &["A", "x", "y", "tmp"],
            body,
        )],
    };
    check("atax", "atax", &program);
}

/// symm's nest, as the given kernel loops over `i` and `j`.
fn symm_nest(i: Mapping, j: Mapping) -> KernelAst {
    lp(
        "c0",
        int(0),
        last("_PB_M"),
        i,
        vec![lp(
            "c1",
            int(0),
            last("_PB_N"),
            j,
            vec![
                user("S0", vec![v("c0"), v("c1")]),
                lp(
                    "c2",
                    int(0),
                    add(vec![v("c0"), int(-1)]),
                    Mapping::Sequential,
                    vec![
                        user("S1", vec![v("c0"), v("c1"), v("c2")]),
                        user("S2", vec![v("c0"), v("c1"), v("c2")]),
                    ],
                ),
                user("S3", vec![v("c0"), v("c1")]),
            ],
        )],
    )
}

/// symm's one kernel: `temp2` held as `temp2` says (copied back when it is a buffer),
/// `alpha` and `beta` by value, the columns' loop mapped by `columns` over `grid` blocks
/// of `block` threads.
fn symm_program(temp2: ArrayKind, columns: Mapping, grid: i64, block: u32) -> GpuProgram {
    let (_, extracted) = extract("symm");
    let scop = &extracted.scop;
    GpuProgram {
        arrays: arrays(
            scop,
            &[
                ("alpha", ArrayKind::Value, false, false),
                ("beta", ArrayKind::Value, false, false),
                ("C", ArrayKind::Buffer, true, true),
                ("A", ArrayKind::Buffer, true, false),
                ("B", ArrayKind::Buffer, true, false),
                ("temp2", temp2, false, temp2 == ArrayKind::ScalarBuffer),
            ],
        ),
        host: Host::Launch(0),
        kernels: vec![kernel(
            "kernel0",
            vec![int(grid)],
            vec![block],
            &[],
            &["alpha", "beta", "C", "A", "B", "temp2"],
            vec![symm_nest(Mapping::Sequential, columns)],
        )],
    }
}

/// symm in one thread: the written scalar `temp2` in a one-element buffer (copied back),
/// `alpha` and `beta` by value.
#[test]
fn symm_with_a_written_scalar_and_scalars_by_value() {
    let program = symm_program(ArrayKind::ScalarBuffer, Mapping::Sequential, 1, 1);
    check("symm", "symm-scalar-buffer", &program);
}

/// symm with the columns spread over global threads (each column's updates stay in its
/// thread) and `temp2` private to each thread.
#[test]
fn symm_columns_over_threads_with_a_private_scalar() {
    let program = symm_program(ArrayKind::Private, Mapping::Global(0), 3, 8);
    check("symm", "symm-private", &program);
}

/// durbin in one thread: statements without iterators, three written scalars, and a
/// host guard around the launch.
#[test]
fn durbin_scalars_in_buffers_under_a_host_guard() {
    let (_, extracted) = extract("durbin");
    let scop = &extracted.scop;
    let inner = |statement: &str| {
        lp(
            "c1",
            int(0),
            add(vec![v("c0"), int(-1)]),
            Mapping::Sequential,
            vec![user(statement, vec![v("c0"), v("c1")])],
        )
    };
    let body = vec![
        user("S0", vec![]),
        user("S1", vec![]),
        user("S2", vec![]),
        lp(
            "c0",
            int(1),
            last("_PB_N"),
            Mapping::Sequential,
            vec![
                user("S3", vec![v("c0")]),
                user("S4", vec![v("c0")]),
                inner("S5"),
                user("S6", vec![v("c0")]),
                inner("S7"),
                inner("S8"),
                user("S9", vec![v("c0")]),
            ],
        ),
    ];
    let program = GpuProgram {
        arrays: arrays(
            scop,
            &[
                ("r", ArrayKind::Buffer, true, false),
                ("y", ArrayKind::Buffer, false, true),
                ("z", ArrayKind::Buffer, false, true),
                ("alpha", ArrayKind::ScalarBuffer, false, true),
                ("beta", ArrayKind::ScalarBuffer, false, true),
                ("sum", ArrayKind::ScalarBuffer, false, true),
            ],
        ),
        host: Host::If {
            cond: Cond::NonNegative(add(vec![v("_PB_N"), int(-1)])),
            then: Box::new(Host::Launch(0)),
            otherwise: None,
        },
        kernels: vec![kernel(
            "kernel0",
            vec![int(1)],
            vec![1],
            &[],
            &["r", "y", "z", "alpha", "beta", "sum"],
            body,
        )],
    };
    check("durbin", "durbin", &program);
}
