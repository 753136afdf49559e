//! `pollen te`: tensor programs (`.te` files, `pollen-tensor`'s language) lowered to C.
//!
//! Every command that reads a C file also reads a `.te` file: [`read_source`] lowers it
//! to its naive C program first (named after the file's stem), so `pollen opt FILE.te`
//! optimizes that program. Errors in the tensor program are reported as
//! `file:line:column: error: message`.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};

use crate::program::Located;

/// The long help of `pollen te`.
pub const TE_HELP: &str = "\
Lower a tensor program (a `.te` file: size parameters, input tensors and tensors computed
elementwise, by reductions `sum`/`max`/`min` or by padding, in the spirit of TVM's
`te.compute`) to a C program in the layout of examples/operators/: sizes as macros that
-D flags override, deterministic input values, one `#pragma scop` region with the naive
loop nests (a reduction is an initialisation, then the accumulation in innermost loops),
and a checksum line per output tensor. Compile it with `-I examples/operators`.

--padding chooses which paddings are read in place instead of copied into an array of
their own: `auto` (the default) those that only maxima and minima read (a max pooling's),
`in-place` every one that only reductions read, `copy` none. A reduction that reads a
padding in place is lowered as an interior nest, where every term reads inside the
source, and a border nest whose reads of the padding select between the source and the
padding's value (or, for a padding by zero that a sum reads as a factor of its terms,
whose terms that read the padding are left out). The result is the copy's bit for bit
(with the other factors finite, in the second case).

The program is checked first: names, ranks, shapes, reduction axes, and every access is
proved within its tensor's bounds for all sizes (with a counterexample otherwise).

`pollen opt`, `pollen scop`, `pollen deps` and `pollen sched` accept a `.te` file too and
work on this C program.

Example:
  pollen te examples/tensor/softmax.te -o softmax.c
  gcc -O2 -I examples/operators -DR=2 -DS=16 softmax.c -o softmax -lm && ./softmax
  pollen opt examples/tensor/conv2d_3x3.te -o conv.c";

/// The arguments of `pollen te`.
#[derive(clap::Args, Debug)]
pub struct TeArgs {
    /// The tensor program (`.te`).
    pub file: PathBuf,
    /// Where to write the C program (standard output when absent or `-`).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Which paddings are read in place instead of copied.
    #[arg(long, value_enum, default_value_t = PaddingArg::Auto)]
    pub padding: PaddingArg,
}

/// The values of `pollen te --padding`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum PaddingArg {
    /// In place where only maxima and minima read the padding.
    Auto,
    /// Every padding copied.
    Copy,
    /// In place wherever the reads allow it.
    InPlace,
}

impl From<PaddingArg> for pollen_tensor::Padding {
    fn from(p: PaddingArg) -> Self {
        match p {
            PaddingArg::Auto => pollen_tensor::Padding::Auto,
            PaddingArg::Copy => pollen_tensor::Padding::Copy,
            PaddingArg::InPlace => pollen_tensor::Padding::InPlace,
        }
    }
}

/// Whether `path` names a tensor program.
pub fn is_tensor_program(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "te")
}

/// The C program of the tensor program at `path`.
pub fn lower(path: &Path) -> Result<String> {
    lower_with(path, &pollen_tensor::Lowering::default())
}

/// [`lower`] with the choices of `options`.
pub fn lower_with(path: &Path, options: &pollen_tensor::Lowering) -> Result<String> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let program = pollen_tensor::parse(&text).map_err(|e| {
        anyhow::Error::new(Located(format!(
            "{}:{}:{}: error: {}",
            path.display(),
            e.line(),
            e.column(),
            e.message
        )))
    })?;
    let name = path
        .file_stem()
        .map_or("tensor".to_string(), |s| s.to_string_lossy().into_owned());
    Ok(pollen_tensor::to_c_with(&program, &name, options))
}

/// The C text of `path`: the file itself, or the lowered program of a `.te` file.
pub fn read_source(path: &Path) -> Result<String> {
    if is_tensor_program(path) {
        lower(path)
    } else {
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))
    }
}

/// Runs `pollen te`.
pub fn run(args: &TeArgs) -> Result<ExitCode> {
    let options = pollen_tensor::Lowering {
        padding: args.padding.into(),
    };
    let text = lower_with(&args.file, &options)?;
    match &args.output {
        Some(out) if out.as_os_str() != "-" => {
            std::fs::write(out, &text).with_context(|| format!("cannot write {}", out.display()))?
        }
        _ => {
            let stdout = std::io::stdout();
            let mut out = stdout.lock();
            out.write_all(text.as_bytes())?;
            out.flush()?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
