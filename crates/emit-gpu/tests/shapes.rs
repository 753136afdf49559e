//! The shape of the emitted files and the errors: where each part goes, the names
//! chosen against the source's words, parameters that are macros of constants,
//! extents that differ from the loop bounds, and every way a program may not fit.

use pollen_arith::Int;
use pollen_codegen::Expr;
use pollen_emit_gpu::{cuda_parts, emit_cuda, emit_opencl, opencl_parts, EmitOptions, Error};
use pollen_gpu::{
    ArrayKind, DeviceArray, GpuProgram, Host, Kernel, KernelAst, KernelLoop, Mapping,
};
use pollen_testkit::{cc, gpu};

/// A complete program whose region scales a 64 × 65 array; `N` is a macro of a
/// constant, and the word `c0` (a macro here) forces a prefix on the iterators.
const SCALE: &str = r#"#include <stdio.h>

#define N 64
#define c0 "a word of the file"

static double A[N][N + 1];

/* Scales the first N columns. */
static void scale(double s)
{
  int i, j;
#pragma scop
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      A[i][j] = A[i][j] * s + (i - 2 * j) / 3;
#pragma endscop
}

int main(void)
{
  int i, j;
  double sum = 0;
  for (i = 0; i < N; i++)
    for (j = 0; j < N + 1; j++)
      A[i][j] = (double) ((i * 7 + j) % 11) / 7;
  scale(1.5);
  for (i = 0; i < N; i++)
    for (j = 0; j < N + 1; j++)
      sum += A[i][j] * (1 + (i + j) % 13);
  printf("%s %.17g\n", c0, sum);
  return 0;
}
"#;

fn v(name: &str) -> Expr {
    Expr::var(name)
}

fn int(k: i64) -> Expr {
    Expr::int(k)
}

fn lp(iterator: &str, upper: Expr, mapping: Mapping, body: KernelAst) -> KernelAst {
    KernelAst::For(KernelLoop {
        iterator: iterator.to_string(),
        lower: int(0),
        upper,
        stride: Int::one(),
        mapping,
        lanes: None,
        body: Box::new(body),
    })
}

fn n_minus_1() -> Expr {
    Expr::Add(vec![v("N"), int(-1)])
}

/// `scale` mapped to a 2-D grid of global threads, rows along `y`.
fn scale_program(scop: &pollen_scop::Scop) -> GpuProgram {
    let arrays = scop
        .arrays
        .iter()
        .map(|a| DeviceArray {
            name: a.name.clone(),
            element_type: a.element_type.clone(),
            extents: a.extents.clone(),
            kind: if a.extents.is_empty() {
                ArrayKind::Value
            } else {
                ArrayKind::Buffer
            },
            copy_in: true,
            copy_out: !a.extents.is_empty(),
        })
        .collect();
    let body = lp(
        "c0",
        n_minus_1(),
        Mapping::Global(1),
        lp(
            "c1",
            n_minus_1(),
            Mapping::Global(0),
            KernelAst::User {
                statement: "S0".to_string(),
                args: vec![v("c0"), v("c1")],
            },
        ),
    );
    GpuProgram {
        arrays,
        host: Host::Launch(0),
        kernels: vec![Kernel {
            name: "scale_kernel".to_string(),
            grid: vec![int(3), int(5)],
            block: vec![8, 4],
            host_iterators: vec![],
            arrays: scop.arrays.iter().map(|a| a.name.clone()).collect(),
            body,
            shared: vec![],
        }],
    }
}

fn scale_scop() -> (pollen_scop::Scop, std::ops::Range<usize>) {
    let extracted = pollen_frontend::extract(SCALE).expect("the scale program's scop");
    (extracted.scop, extracted.region)
}

#[test]
fn the_scale_program_runs_with_macro_parameters_and_prefixed_names() {
    cc::require_gcc();
    gpu::require_opencl();
    let (scop, region) = scale_scop();
    assert_eq!(scop.params, ["N"]);
    let program = scale_program(&scop);
    let opencl =
        emit_opencl(SCALE, region, &scop, &program, &EmitOptions::default()).expect("emits OpenCL");
    // The parameter is an argument under a generated name, and all generated names
    // get the prefix `p_` because of the word `c0`.
    assert!(opencl.contains("long p_p_N)"), "{opencl}");
    assert!(opencl.contains("long p_c0, p_c1;"), "{opencl}");
    assert!(opencl.contains("A[(p_c0) * p_A_d1 + (p_c1)]"), "{opencl}");
    assert!(
        opencl.contains("cl_long p_A_d1 = (cl_long) (N + 1);"),
        "{opencl}"
    );
    assert!(opencl.starts_with(
        "#include <stdio.h>\n#ifndef CL_TARGET_OPENCL_VERSION\n# define CL_TARGET_OPENCL_VERSION 120\n#endif\n#include <CL/cl.h>\n\n#define N 64\n"
    ), "{opencl}");

    let dir = cc::scratch("emit-gpu-scale");
    let original = dir.join("scale.c");
    let translated = dir.join("scale-opencl.c");
    std::fs::write(&original, SCALE).expect("write");
    std::fs::write(&translated, &opencl).expect("write");
    let flags = [
        "-O2",
        "-Wall",
        "-Wno-unknown-pragmas",
        "-Wno-unused-variable",
    ];
    cc::compile(&original, &dir.join("scale"), &flags).expect("the original compiles");
    gpu::compile_opencl(&translated, &dir.join("scale-opencl"), &flags)
        .expect("the OpenCL program compiles");
    let expected = cc::run(&dir.join("scale"), 1).expect("the original runs");
    let actual = cc::run(&dir.join("scale-opencl"), 1).expect("the OpenCL program runs");
    let compiled = match gpu::nvcc() {
        Some(nvcc) => {
            let (scop, region) = scale_scop();
            let cuda = emit_cuda(SCALE, region, &scop, &program, &EmitOptions::default())
                .expect("emits CUDA");
            let cu = dir.join("scale.cu");
            std::fs::write(&cu, &cuda).expect("write");
            let object = dir.join("scale.o");
            let args = [
                "-c",
                cu.to_str().expect("a UTF-8 path"),
                "-o",
                object.to_str().expect("a UTF-8 path"),
            ];
            Some(gpu::run_nvcc(&nvcc, &args))
        }
        None => {
            eprintln!("scale: nvcc not found (set POLLEN_NVCC): the CUDA check is skipped");
            None
        }
    };
    let _ = std::fs::remove_dir_all(&dir);
    assert!(expected.starts_with("a word of the file "), "{expected}");
    assert_eq!(expected, actual);
    if let Some(compiled) = compiled {
        compiled.expect("the CUDA file compiles");
    }
}

#[test]
fn parts_go_before_the_function_and_in_place_of_the_region() {
    let (scop, region) = scale_scop();
    let program = scale_program(&scop);
    let options = EmitOptions::default();
    let function = SCALE.find("/* Scales").expect("the function's comment");
    for parts in [
        opencl_parts(SCALE, region.clone(), &scop, &program, &options).expect("OpenCL parts"),
        cuda_parts(SCALE, region.clone(), &scop, &program, &options).expect("CUDA parts"),
    ] {
        assert!(parts.insertion <= function);
        assert!(SCALE[parts.insertion..function].trim().is_empty());
        assert!(SCALE[..parts.insertion].ends_with("static double A[N][N + 1];\n"));
        assert!(parts.declarations.ends_with('\n'));
        assert!(!parts.replacement.ends_with('\n'));
        assert!(parts.replacement.starts_with("  /* Generated by Pollen"));
    }
    let cuda = emit_cuda(SCALE, region, &scop, &program, &options).expect("emits CUDA");
    let kernel = cuda
        .find("__global__ void p_scale_kernel(double *__restrict__ A, long p_A_d1, double s, long p_p_N)")
        .expect("the kernel's definition");
    let prelude = cuda
        .find("#ifndef POLLEN_CUDA_PRELUDE")
        .expect("the prelude");
    let function = cuda.find("/* Scales").expect("the function");
    assert!(prelude < kernel && kernel < function, "{cuda}");
    assert!(cuda.contains(
        "p_scale_kernel<<<dim3((unsigned) pollen_max((long) (3), 1), (unsigned) pollen_max((long) (5), 1), 1), dim3(8, 4, 1)>>>(pollen_d_A, p_A_d1, s, p_p_N);"
    ), "{cuda}");
    assert!(cuda.contains("pollen_cuda_check(cudaGetLastError(), \"launching p_scale_kernel\");"));
    assert!(cuda.contains(
        "for (p_c0 = ((long)blockIdx.y * blockDim.y + threadIdx.y); p_c0 <= p_p_N - 1; p_c0 += ((long)gridDim.y * blockDim.y)) {"
    ), "{cuda}");
    assert!(!cuda.contains("\n#pragma scop\n") && !cuda.contains("#pragma endscop"));
}

/// The error of emitting `program` (changed by `change`) in both dialects, which must
/// agree.
fn error_of(change: impl Fn(&mut GpuProgram)) -> Error {
    let (scop, region) = scale_scop();
    let mut program = scale_program(&scop);
    change(&mut program);
    let options = EmitOptions::default();
    let opencl = emit_opencl(SCALE, region.clone(), &scop, &program, &options)
        .expect_err("OpenCL emission fails");
    let cuda =
        emit_cuda(SCALE, region, &scop, &program, &options).expect_err("CUDA emission fails");
    assert_eq!(opencl, cuda);
    opencl
}

/// The kernel's innermost statement instance.
fn instance(program: &mut GpuProgram) -> &mut KernelAst {
    let mut ast = &mut program.kernels[0].body;
    while let KernelAst::For(l) = ast {
        ast = &mut l.body;
    }
    ast
}

#[test]
fn programs_that_do_not_fit_are_errors() {
    assert_eq!(
        error_of(|p| *instance(p) = KernelAst::User {
            statement: "S9".to_string(),
            args: vec![]
        }),
        Error::UnknownStatement("S9".to_string())
    );
    assert_eq!(
        error_of(|p| *instance(p) = KernelAst::User {
            statement: "S0".to_string(),
            args: vec![v("c0")]
        }),
        Error::ArityMismatch {
            statement: "S0".to_string(),
            expected: 2,
            found: 1
        }
    );
    assert_eq!(
        error_of(|p| *instance(p) = KernelAst::User {
            statement: "S0".to_string(),
            args: vec![v("c0"), v("k")]
        }),
        Error::UnknownName("k".to_string())
    );
    assert_eq!(
        error_of(|p| p.kernels[0].arrays.push("B".to_string())),
        Error::UnknownArray("B".to_string())
    );
    assert!(matches!(
        error_of(|p| p.kernels[0].arrays.retain(|a| a != "s")),
        Error::UnsupportedStatement { statement, reason } if statement == "S0" && reason.contains("s,")
    ));
    assert_eq!(
        error_of(|p| p.host = Host::Launch(1)),
        Error::UnknownKernel(1)
    );
    assert_eq!(
        error_of(|p| p.kernels[0].host_iterators.push("t".to_string())),
        Error::UnknownName("t".to_string())
    );
    for block in [vec![], vec![0], vec![64, 32], vec![1, 1, 1, 1]] {
        assert_eq!(
            error_of(|p| p.kernels[0].block = block.clone()),
            Error::InvalidGeometry("scale_kernel".to_string())
        );
    }
    assert_eq!(
        error_of(|p| p.kernels[0].grid.clear()),
        Error::InvalidGeometry("scale_kernel".to_string())
    );
    assert_eq!(
        error_of(|p| if let KernelAst::For(l) = &mut p.kernels[0].body {
            l.mapping = Mapping::Thread(3);
        }),
        Error::InvalidGeometry("scale_kernel".to_string())
    );
    assert_eq!(
        error_of(|p| if let KernelAst::For(l) = &mut p.kernels[0].body {
            l.stride = Int::zero();
        }),
        Error::NonPositiveStride("0".to_string())
    );
    assert_eq!(
        error_of(|p| p.arrays[0].kind = ArrayKind::ScalarBuffer),
        Error::KindMismatch("A".to_string())
    );
    assert_eq!(
        error_of(|p| p.arrays[1].kind = ArrayKind::Buffer),
        Error::KindMismatch("s".to_string())
    );
    assert_eq!(
        error_of(|p| p.arrays[0].element_type.clear()),
        Error::UnknownElementType("A".to_string())
    );
    assert_eq!(
        error_of(|p| p.arrays[0].extents[1].clear()),
        Error::UnknownExtent("A".to_string())
    );
    assert_eq!(
        error_of(|p| p.kernels[0].name = "scale kernel".to_string()),
        Error::NotAnIdentifier("scale kernel".to_string())
    );
    assert_eq!(
        error_of(|p| {
            let copy = p.kernels[0].clone();
            p.kernels.push(copy);
        }),
        Error::DuplicateName("scale_kernel".to_string())
    );
    // A kernel loop named like a host iterator the kernel receives.
    assert_eq!(
        error_of(|p| {
            p.host = Host::For {
                iterator: "c0".to_string(),
                lower: int(0),
                upper: int(0),
                stride: Int::one(),
                body: Box::new(Host::Launch(0)),
            };
            p.kernels[0].host_iterators.push("c0".to_string());
        }),
        Error::DuplicateName("c0".to_string())
    );
}

#[test]
fn banners_can_be_left_out() {
    let (scop, region) = scale_scop();
    let program = scale_program(&scop);
    let options = EmitOptions {
        banner: false,
        ..EmitOptions::default()
    };
    let opencl = emit_opencl(SCALE, region.clone(), &scop, &program, &options).expect("emits");
    let cuda = emit_cuda(SCALE, region, &scop, &program, &options).expect("emits");
    assert!(!opencl.contains("Generated by Pollen"));
    assert!(!cuda.contains("Generated by Pollen"));
    assert!(opencl.contains("pollen_cl_open(pollen_source, \"\", "));
    let fast = EmitOptions {
        opencl_build_options: "-cl-fast-relaxed-math \"quoted\"".to_string(),
        ..EmitOptions::default()
    };
    let (scop, region) = scale_scop();
    let opencl = emit_opencl(SCALE, region, &scop, &program, &fast).expect("emits");
    assert!(
        opencl.contains(r#"pollen_cl_open(pollen_source, "-cl-fast-relaxed-math \"quoted\"", "#)
    );
}

#[test]
fn regions_and_sources_that_do_not_fit_are_errors() {
    let (scop, region) = scale_scop();
    let program = scale_program(&scop);
    let options = EmitOptions::default();
    assert_eq!(
        emit_opencl(SCALE, 0..SCALE.len() + 1, &scop, &program, &options),
        Err(Error::InvalidRegion(0..SCALE.len() + 1))
    );
    // A statement that uses a row of a two-dimensional array.
    let mut rows = scop.clone();
    rows.statements[0].body = "A[i] = 0;".to_string();
    assert!(matches!(
        emit_cuda(SCALE, region.clone(), &rows, &program, &options),
        Err(Error::UnsupportedStatement { reason, .. }) if reason.contains("A is used without its 2 subscript")
    ));
    // A source that defines a name of the prelude.
    let taken = SCALE.replace(
        "static void scale",
        "static int pollen_cl_check;\nstatic void scale",
    );
    let moved = region.start + "static int pollen_cl_check;\n".len();
    let moved = moved..moved + region.len();
    assert_eq!(
        emit_opencl(&taken, moved, &scop, &program, &options),
        Err(Error::ReservedName("pollen_cl_check".to_string()))
    );
    // The region moved outside every function.
    let outside = format!("{}\n{}", &SCALE[region.clone()], SCALE);
    assert_eq!(
        emit_opencl(&outside, 0..region.len(), &scop, &program, &options),
        Err(Error::NoEnclosingDefinition)
    );
}

/// Runs `binary` with `$POLLEN_OPENCL_DEVICE` set to `device` (unset when `None`): its
/// exit status and standard error.
fn run_on(binary: &std::path::Path, device: Option<&str>) -> (bool, String) {
    let mut command = std::process::Command::new(binary);
    command.env_remove("POLLEN_OPENCL_DEVICE");
    if let Some(d) = device {
        command.env("POLLEN_OPENCL_DEVICE", d);
    }
    let output = command.output().expect("the program starts");
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stderr).to_string(),
    )
}

#[test]
fn the_host_reports_device_choices_and_build_failures() {
    cc::require_gcc();
    gpu::require_opencl();
    let (scop, region) = scale_scop();
    let program = scale_program(&scop);
    let mut broken = scop.clone();
    broken.statements[0].body = "A[i][j] = pollen_undefined_function(A[i][j]);".to_string();
    let options = EmitOptions::default();
    let dir = cc::scratch("emit-gpu-host-errors");
    let flags = ["-O2", "-Wno-unknown-pragmas"];
    let build = |scop: &pollen_scop::Scop, name: &str| {
        let text = emit_opencl(SCALE, region.clone(), scop, &program, &options).expect("emits");
        let source = dir.join(format!("{name}.c"));
        std::fs::write(&source, text).expect("write");
        let binary = dir.join(name);
        gpu::compile_opencl(&source, &binary, &flags).expect("the host program compiles");
        binary
    };
    let good = build(&scop, "good");
    let bad = build(&broken, "bad");
    let first = run_on(&good, Some("0"));
    let missing = run_on(&good, Some("999"));
    let failed_build = run_on(&bad, None);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(first.0, "device 0 runs: {}", first.1);
    assert!(!missing.0);
    assert!(
        missing
            .1
            .contains("there is no OpenCL device 999 (POLLEN_OPENCL_DEVICE)"),
        "{}",
        missing.1
    );
    assert!(!failed_build.0);
    assert!(
        failed_build.1.contains("the OpenCL kernels do not build")
            && failed_build.1.contains("pollen_undefined_function"),
        "{}",
        failed_build.1
    );
}
