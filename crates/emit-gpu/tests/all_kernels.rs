//! Every example kernel as one single-thread kernel: the loop AST of its original
//! schedule, every loop sequential, run on OpenCL and compared with the C program, and
//! compiled as CUDA (host and device code) when nvcc is found.
//!
//! This puts every statement text of the thirty kernels through the rewriting of
//! statement bodies (flattened references, scalars in buffers, by value and private,
//! parameters as arguments, names that collide with generated ones) and the host code
//! through every shape of array. The instances run in the original order, so the
//! output must be the original's exactly; the one exception is a kernel that calls
//! `exp` or `pow`, whose OpenCL implementation may round differently from the C
//! library's (reported, and compared to one part in 10^10).

use pollen_arith::Int;
use pollen_codegen::{Ast, Options};
use pollen_emit_gpu::{emit_cuda, emit_opencl, EmitOptions};
use pollen_gpu::{
    ArrayKind, DeviceArray, GpuProgram, Host, Kernel, KernelAst, KernelLoop, Mapping,
};
use pollen_scop::{AccessKind, Scop};
use pollen_testkit::{cc, gpu, kernel_names, kernel_source, kernels_dir};

/// The kernel AST of a loop AST, every loop sequential.
fn sequential(ast: &Ast) -> KernelAst {
    match ast {
        Ast::Block(children) => KernelAst::Block(children.iter().map(sequential).collect()),
        Ast::For(l) => KernelAst::For(KernelLoop {
            iterator: l.iterator.clone(),
            lower: l.lower.clone(),
            upper: l.upper.clone(),
            stride: l.stride.clone(),
            mapping: Mapping::Sequential,
            lanes: None,
            body: Box::new(sequential(&l.body)),
        }),
        Ast::If {
            cond,
            then,
            otherwise,
        } => KernelAst::If {
            cond: cond.clone(),
            then: Box::new(sequential(then)),
            otherwise: otherwise.as_ref().map(|o| Box::new(sequential(o))),
        },
        Ast::User { statement, args } => KernelAst::User {
            statement: statement.clone(),
            args: args.clone(),
        },
    }
}

/// The scop's whole region in one thread of one kernel.
fn single_thread(scop: &Scop) -> GpuProgram {
    let ast = pollen_codegen::generate(scop, &scop.schedule, &Options::default())
        .expect("code generation");
    let written = |name: &str| {
        scop.statements.iter().any(|s| {
            s.accesses
                .iter()
                .any(|a| a.kind == AccessKind::Write && a.array == name)
        })
    };
    let arrays: Vec<DeviceArray> = scop
        .arrays
        .iter()
        .map(|a| {
            let kind = if !a.extents.is_empty() {
                ArrayKind::Buffer
            } else if a.local {
                ArrayKind::Private
            } else if written(&a.name) {
                ArrayKind::ScalarBuffer
            } else {
                ArrayKind::Value
            };
            DeviceArray {
                name: a.name.clone(),
                element_type: a.element_type.clone(),
                extents: a.extents.clone(),
                kind,
                copy_in: kind != ArrayKind::Private,
                copy_out: kind != ArrayKind::Private && written(&a.name),
            }
        })
        .collect();
    GpuProgram {
        kernels: vec![Kernel {
            name: "kernel0".to_string(),
            grid: vec![pollen_codegen::Expr::int(1)],
            block: vec![1],
            host_iterators: vec![],
            arrays: arrays.iter().map(|a| a.name.clone()).collect(),
            body: sequential(&ast),
            shared: vec![],
        }],
        arrays,
        host: Host::Launch(0),
    }
}

/// A printed decimal number (`-12.5`, `1.25e-07`) as an integer mantissa and a power of
/// ten, read exactly.
fn decimal(text: &str) -> Option<(Int, i64)> {
    let (mantissa, exponent) = match text.split_once(['e', 'E']) {
        Some((m, e)) => (m, e.parse::<i64>().ok()?),
        None => (text, 0),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = format!("{whole}{fraction}");
    let value: Int = digits.parse().ok()?;
    Some((value, exponent - fraction.len() as i64))
}

/// Whether two printed numbers differ by at most one part in 10^10 of the first.
fn close(a: &str, b: &str) -> bool {
    let (Some((ma, ea)), Some((mb, eb))) = (decimal(a), decimal(b)) else {
        return false;
    };
    // Both at the smaller power of ten.
    let scale = |m: Int, from: i64, to: i64| m * Int::from(10).pow((from - to) as u32);
    let low = ea.min(eb);
    let (a, b) = (scale(ma, ea, low), scale(mb, eb, low));
    (a.clone() - b).abs() * Int::from(10).pow(10) <= a.abs()
}

/// Whether two outputs print the same names and close values, line by line.
fn close_outputs(expected: &str, actual: &str) -> bool {
    pollen_testkit::cc::close_lines(expected, actual, close)
}

/// Emits, compiles and runs one kernel, and compiles its CUDA form with `nvcc` when
/// given; the failure, if any.
fn check(name: &str, dir: &std::path::Path, nvcc: Option<&std::path::Path>) -> Result<(), String> {
    let source = kernel_source(name);
    let extracted = pollen_frontend::extract(&source).map_err(|e| format!("{name}: {e}"))?;
    let scop = &extracted.scop;
    let program = single_thread(scop);
    let opencl = emit_opencl(
        &source,
        extracted.region.clone(),
        scop,
        &program,
        &EmitOptions::default(),
    )
    .map_err(|e| format!("{name}: emission: {e}"))?;
    let cuda = emit_cuda(
        &source,
        extracted.region.clone(),
        scop,
        &program,
        &EmitOptions::default(),
    )
    .map_err(|e| format!("{name}: CUDA emission: {e}"))?;
    let original = dir.join(format!("{name}.c"));
    let translated = dir.join(format!("{name}-opencl.c"));
    std::fs::write(&original, &source).map_err(|e| e.to_string())?;
    std::fs::write(&translated, &opencl).map_err(|e| e.to_string())?;
    let include = format!("-I{}", kernels_dir().display());
    let flags = ["-O2", "-Wno-unknown-pragmas", include.as_str()];
    let reference = dir.join(name);
    let device = dir.join(format!("{name}-opencl"));
    cc::compile(&original, &reference, &flags)?;
    gpu::compile_opencl(&translated, &device, &flags)?;
    if let Some(nvcc) = nvcc {
        let cu = dir.join(format!("{name}.cu"));
        std::fs::write(&cu, &cuda).map_err(|e| e.to_string())?;
        let object = dir.join(format!("{name}.o"));
        let path = |p: &std::path::Path| p.to_str().map(str::to_string).ok_or("a non-UTF-8 path");
        let args = [
            "-c".to_string(),
            include.clone(),
            path(&cu)?,
            "-o".to_string(),
            path(&object)?,
        ];
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        gpu::run_nvcc(nvcc, &args).map_err(|e| format!("{name}: {e}"))?;
    }
    let expected = cc::run(&reference, 1)?;
    let actual = cc::run(&device, 1)?;
    if expected == actual {
        return Ok(());
    }
    let libm = scop
        .statements
        .iter()
        .any(|s| s.body.contains("EXP_FUN") || s.body.contains("POW_FUN"));
    if libm && close_outputs(&expected, &actual) {
        eprintln!(
            "{name}: equal to one part in 10^10 only (exp/pow of OpenCL and of the C library): {}",
            cc::first_difference(&expected, &actual)
        );
        return Ok(());
    }
    Err(format!(
        "{name}: the output differs: {}",
        cc::first_difference(&expected, &actual)
    ))
}

#[test]
fn every_example_kernel_runs_in_one_thread_exactly() {
    cc::require_gcc();
    gpu::require_opencl();
    let names = kernel_names();
    let nvcc = gpu::nvcc();
    if nvcc.is_none() {
        eprintln!("nvcc not found (set POLLEN_NVCC): the CUDA compilations are skipped");
    }
    let dir = cc::scratch("emit-gpu-all");
    // Two workers: the machines that run the tests have few cores.
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failures: Vec<String> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..2)
            .map(|_| {
                s.spawn(|| {
                    let mut failures = Vec::new();
                    loop {
                        let k = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                        let Some(name) = names.get(k) else {
                            return failures;
                        };
                        if let Err(e) = check(name, &dir, nvcc.as_deref()) {
                            failures.push(e);
                        }
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    if std::env::var_os("KEEP").is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    assert!(names.len() >= 30 || std::env::var_os("KERNEL").is_some());
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn close_numbers() {
    assert!(close("1119.2608827564191", "1119.2608827564186"));
    assert!(close("-1.5e-07", "-1.5000000000001e-07"));
    assert!(close("0", "0"));
    assert!(!close("1119.26088", "1119.26089"));
    assert!(!close("1e3", "1e4"));
    assert!(!close("nan", "nan"));
    assert!(close_outputs("x 1\ny 2.5\n", "x 1\ny 2.50000000000001\n"));
    assert!(!close_outputs("x 1\n", "z 1\n"));
}
