//! The GPU toolchains of the tests: an OpenCL runtime (headers, the ICD loader and a
//! device, PoCL on machines without a GPU) and nvcc, found wherever it is installed.
//!
//! OpenCL is required where a test asks for it ([`require_opencl`] panics with install
//! instructions); nvcc is optional ([`nvcc`] returns `None`, and the test says that it
//! skipped its CUDA checks).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use crate::cc::scratch;

/// Panics at once, with install instructions, unless a C program can include
/// `CL/cl.h`, link with `-lOpenCL` and find an OpenCL device. The probe runs once per
/// test process.
pub fn require_opencl() {
    static PROBE: OnceLock<Result<(), String>> = OnceLock::new();
    if let Err(e) = PROBE.get_or_init(probe_opencl) {
        panic!("{e}");
    }
}

/// Compiles and runs a program that counts the OpenCL devices.
fn probe_opencl() -> Result<(), String> {
    let dir = scratch("opencl-probe");
    let source = dir.join("probe.c");
    let binary = dir.join("probe");
    let program = "#define CL_TARGET_OPENCL_VERSION 120\n#include <CL/cl.h>\n#include <stdio.h>\n\
int main(void) {\n  cl_platform_id p[8]; cl_uint n = 0, total = 0, k;\n  \
if (clGetPlatformIDs(8, p, &n) != CL_SUCCESS) return 1;\n  \
for (k = 0; k < n && k < 8; k++) { cl_uint d = 0;\n    \
if (clGetDeviceIDs(p[k], CL_DEVICE_TYPE_ALL, 0, NULL, &d) == CL_SUCCESS) total += d; }\n  \
printf(\"%u\\n\", total);\n  return total > 0 ? 0 : 1;\n}\n";
    std::fs::write(&source, program).map_err(|e| format!("cannot write the OpenCL probe: {e}"))?;
    let built = compile_opencl(&source, &binary, &[]);
    let ran = built.as_ref().ok().map(|_| Command::new(&binary).output());
    let _ = std::fs::remove_dir_all(&dir);
    if let Err(e) = built {
        return Err(format!(
            "this test needs OpenCL headers and the ICD loader (apt-get install \
             ocl-icd-opencl-dev pocl-opencl-icd): {e}"
        ));
    }
    if matches!(ran, Some(Ok(o)) if o.status.success()) {
        Ok(())
    } else {
        Err(
            "this test needs an OpenCL device; on a machine without a GPU install PoCL \
             (apt-get install pocl-opencl-icd) and check it with `clinfo -l`"
                .to_string(),
        )
    }
}

/// Compiles the OpenCL host program `source` into `binary` with gcc and `flags`,
/// linked with `-lOpenCL -lm`.
pub fn compile_opencl(source: &Path, binary: &Path, flags: &[&str]) -> Result<(), String> {
    let output = Command::new("gcc")
        .args(flags)
        .arg(source)
        .arg("-o")
        .arg(binary)
        .args(["-lOpenCL", "-lm"])
        .output()
        .map_err(|e| format!("cannot run gcc: {e}"))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "gcc failed on {}:\n{}",
            source.display(),
            String::from_utf8_lossy(&output.stderr)
        ))
    }
}

/// The nvcc to use: `$POLLEN_NVCC`, else `nvcc` on the `PATH`, else the one of the
/// `nvidia-cuda-nvcc` Python package (`nvidia/cu13/bin/nvcc` or
/// `nvidia/cuda_nvcc/bin/nvcc` of the package `python3` imports); `None` when there is
/// none that runs.
pub fn nvcc() -> Option<PathBuf> {
    let runs = |p: &Path| {
        Command::new(p)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if let Some(p) = std::env::var_os("POLLEN_NVCC") {
        let p = PathBuf::from(p);
        return runs(&p).then_some(p);
    }
    if runs(Path::new("nvcc")) {
        return Some(PathBuf::from("nvcc"));
    }
    let output = Command::new("python3")
        .args([
            "-c",
            "import nvidia, os; print('\\n'.join(os.path.abspath(p) for p in nvidia.__path__))",
        ])
        .output()
        .ok()?;
    let paths = String::from_utf8(output.stdout).ok()?;
    paths
        .lines()
        .flat_map(|root| {
            ["cu13", "cu12", "cuda_nvcc"].map(|sub| Path::new(root).join(sub).join("bin/nvcc"))
        })
        .find(|p| runs(p))
}

/// Runs `nvcc` with `args`; an error with what it printed when it fails.
pub fn run_nvcc(nvcc: &Path, args: &[&str]) -> Result<(), String> {
    let output = Command::new(nvcc)
        .args(args)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", nvcc.display()))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "nvcc {} failed:\n{}{}",
            args.join(" "),
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ))
    }
}
