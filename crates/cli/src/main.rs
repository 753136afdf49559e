//! The `pollen` command-line tool.
//!
//! `pollen calc` is an iscc-like calculator over the exact integer sets and maps of
//! `pollen-presburger` (see [`calc`]); `pollen scop` and `pollen deps` print the
//! polyhedral model and the dependences of a C file's `#pragma scop` region (see
//! [`program`]); `pollen opt` maps its flags onto the `pollen-driver` library (see
//! [`opt`]); `pollen explain` writes an HTML page with pictures of what it does (see
//! [`explain`]); `pollen search` compiles and times the legal fusion structures of a
//! region (see [`search`], over `pollen-tune`); `pollen te` lowers a tensor program to C
//! (see [`tensor`], over `pollen-tensor`), and the commands that read C files read `.te`
//! files through it. This is the only crate of the workspace that reads files and reports
//! errors with `anyhow`. Every command runs under a work budget (`--budget`, see
//! [`budget`]); running out exits with status 3.

mod budget;
mod calc;
mod explain;
mod opt;
mod program;
mod search;
mod tensor;

use std::io::{self, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};

/// The command line: one subcommand.
#[derive(Parser, Debug)]
#[command(
    name = "pollen",
    version,
    about = "Pollen, a polyhedral loop optimizer built on exact integer sets and maps",
    long_about = POLLEN_HELP,
    after_help = "Run `pollen <COMMAND> --help` for the details of a command."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Evaluate a script of integer set and map expressions (an iscc-like calculator).
    #[command(long_about = CALC_HELP)]
    Calc {
        /// The script to run; reads standard input when absent or `-`.
        file: Option<PathBuf>,
        #[command(flatten)]
        budget: budget::BudgetArg,
    },
    /// Print the polyhedral model (scop) of a C file's `#pragma scop` region.
    #[command(long_about = SCOP_HELP)]
    Scop {
        /// The C file.
        file: PathBuf,
        #[command(flatten)]
        budget: budget::BudgetArg,
    },
    /// Print the dependences of a C file's `#pragma scop` region as isl union maps.
    #[command(long_about = DEPS_HELP)]
    Deps {
        /// The C file.
        file: PathBuf,
        /// Which kind of dependences to print.
        #[arg(long, value_enum, default_value = "all")]
        kind: program::KindChoice,
        /// Flow dependences to the last write only (the default).
        #[arg(long, conflicts_with = "memory_based")]
        value_based: bool,
        /// Flow dependences to every earlier write of the element.
        #[arg(long)]
        memory_based: bool,
        #[command(flatten)]
        budget: budget::BudgetArg,
    },
    /// Compute a new schedule of a C file's `#pragma scop` region (Pluto or Feautrier).
    #[command(long_about = SCHED_HELP)]
    Sched {
        /// The C file.
        file: PathBuf,
        /// The scheduling algorithm.
        #[arg(long, value_enum, default_value = "pluto")]
        algo: program::AlgoChoice,
        /// How strongly connected components of the dependence graph are fused.
        #[arg(long, value_enum, default_value = "smart")]
        fuse: program::FuseChoice,
        /// Pipelined parallelism: skew a band whose outer member is not parallel.
        #[arg(long)]
        wavefront: bool,
        #[command(flatten)]
        budget: budget::BudgetArg,
    },
    /// Optimize a C file's `#pragma scop` region: schedule, tile, parallelize, print C.
    #[command(long_about = opt::OPT_HELP)]
    Opt(opt::OptArgs),
    /// Write an HTML page with pictures of what the optimizer does to a C file's loops.
    #[command(long_about = explain::EXPLAIN_HELP)]
    Explain(explain::ExplainArgs),
    /// Search the legal fusion structures of a region for the fastest program.
    #[command(long_about = search::SEARCH_HELP)]
    Search(Box<search::SearchArgs>),
    /// Lower a tensor program (`.te`) to a C program with a `#pragma scop` region.
    #[command(long_about = tensor::TE_HELP)]
    Te(tensor::TeArgs),
}

const SCHED_HELP: &str = "\
Compute a new schedule of a C file's `#pragma scop` region from its dependences and print
it twice: as one isl union map from statement instances to their schedule vectors, then
as a schedule tree (bands with their `permutable` and per-member `coincident`, i.e.
parallel, flags; sequences of filters where statements are distributed).

--algo pluto (default) finds permutable bands of hyperplanes minimising dependence
distances (tileable, with parallel members marked); --algo feautrier strongly satisfies
as many dependences as possible per dimension. --fuse no|smart|max are Pluto's fusion
policies. Every schedule is checked by the independent legality checker before it is
printed; an illegal one is an error.

Example:
  pollen sched examples/kernels/jacobi-1d.c";

const SCOP_HELP: &str = "\
Print the polyhedral model of the region between `#pragma scop` and `#pragma endscop` of a
C file: the parameters and their context (the parameter values for which the region does
any work), the arrays, each statement's iteration domain, body and ordered accesses, and
the original schedule as a schedule tree, with sets and maps in isl syntax.

PolyBench/C files are read unchanged (`_PB_N`, `SCALAR_VAL`, `POLYBENCH_2D` declarations).
Constructs outside the model (non-affine bounds or subscripts, `while`, pointers,
data-dependent conditions) are reported as `file:line:column: error: message`.

Example:
  pollen scop examples/kernels/gemm.c";

const DEPS_HELP: &str = "\
Print the dependences of a C file's `#pragma scop` region, one line per kind, each an isl
union map from source to target statement instances:
  flow:   a write, then a read of the same element (read after write)
  anti:   a read, then a write of the same element (write after read)
  output: two writes of the same element
Flow dependences are value-based by default (each read depends on the last write of its
element only); --memory-based gives every earlier write. Anti and output dependences are
always memory-based.

Example:
  pollen deps examples/kernels/jacobi-1d.c --kind flow
  pollen sched examples/kernels/gemm.c";

const POLLEN_HELP: &str = "\
Pollen, a polyhedral loop optimizer built on exact integer sets and maps.

`pollen opt` reads the `#pragma scop` regions of a C file, computes their exact
dependences, schedules (Pluto or Feautrier), tiles and parallelizes them, and writes the
file back with each region replaced by C with OpenMP pragmas; every schedule is confirmed by an
independent legality checker. `pollen scop`, `pollen deps` and `pollen sched` print the
stages one by one; `pollen search` compiles, checks and times every legal outer fusion
structure of a region and keeps the fastest; `pollen explain` writes an HTML page with pictures of the domains,
dependences, schedules and tiles. `pollen calc` evaluates scripts over the exact Presburger library
(parametric integer sets and maps in isl's syntax). `pollen te` lowers a tensor program
(a `.te` file: deep-learning operators as tensor expressions) to a C program, and every
command that reads a C file reads a `.te` file through it. The optimizer of `pollen opt` is also
a library, `pollen-driver` (`pollen_driver::optimize_source`), for Rust programs.

Whole programs (PolyBench/C unchanged) and loop-nest fragments without declarations (as
clan and pet read them) are both inputs: an undeclared name with subscripts is an array,
an undeclared name the region writes is a scalar, any other is a parameter; scalars
declared inside the region (`double t = ...;`) and `for (long i = ...)` are read too.

Every stage runs under a budget of solver steps, `--budget N` (default 25000000, about
20 times what the largest example kernel needs) or `--budget unlimited`: a stage that
needs more stops with `resource limit: <stage> exceeded its budget of N steps` and exit
status 3 instead of running on.

Examples:
  pollen opt examples/kernels/gemm.c -o gemm.opt.c
  pollen opt examples/fragments/seidel2d.c --explain
  pollen explain examples/kernels/jacobi-1d.c -o jacobi-1d.html --tile-sizes 4
  pollen search examples/kernels/gemver.c -D POLLEN_TIME -D N=4000 --threads 2
  pollen scop examples/kernels/gemm.c
  pollen deps examples/kernels/jacobi-1d.c --kind flow
  pollen sched examples/kernels/gemm.c
  pollen calc examples/calc/tour.iscc
  echo 'card { [i, j] : 0 <= j <= i < 10 };' | pollen calc";

const CALC_HELP: &str = "\
Evaluate a script of integer set and map expressions, like isl's iscc.

Statements end with `;`. `X := <expr>;` assigns, `<expr>;` prints the value on one line
in isl syntax (booleans as True/False, counts as integers). `#` starts a comment.

Literals are isl sets and maps, e.g. `[N] -> { S[i, j] -> S[i, j + 1] : 0 <= i, j < N }`.
Operators, from the tightest to the loosest binding:
  A^-1                   inverse of a map
  A^+, A^*               transitive closure, reflexive transitive closure of a map,
                         printed with their exactness: (closure, True) or, for an
                         over-approximation, (closure, False)
  dom A, ran A           domain, range of a map
  lexmin A, lexmax A     lexicographic minimum, maximum (for each domain point of a map)
  deltas A               the differences y - x of the pairs x -> y of a map
  coalesce A             the same points in fewer pieces
  sample A               one point of A, or the empty set
  card A                 the number of points of a set: an integer, or with
                         parameters a piecewise quasi-polynomial in them, as
                         barvinok prints it: [N] -> { (1 + floor((N)/2)) : N >= 0 },
                         { infty } where unbounded; of a map, the number of range
                         points per domain point: { [i] -> i : 1 <= i <= 9 }
  params A               the parameter values for which A is not empty
  complement A           the points of A's space that are not in A
  is_empty A             True or False
  A . B                  composition (A then B); the image of a set A under a map B
  A * B                  intersection; a map * a set restricts the map's domain,
                         a set or map * a parameter domain restricts the parameters
  A + B, A - B           union, difference
  A = B, A <= B, A < B   equality, subset, strict subset
Operands in different spaces (e.g. `{ A[i] } + { B[i] }`) make union sets and maps.

A statement with an error is reported as `file:line:column: error: message` on standard
error; the remaining statements still run and the exit status is 1. Each statement may
take --budget solver steps (default 25000000; `--budget unlimited` for none); one that
needs more is a resource-limit error naming its operator, and the exit status is 3.

Example:
  A := [N] -> { S[i, j] : 0 <= j <= i < N };
  lexmin A;                               # the point (0, 0), where N >= 1
  A * { S[i, j] : i = j };                # the diagonal
  card { S[i, j] : 0 <= j <= i < 10 };    # 55";

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(code) => code,
        Err(e) => match e.downcast_ref::<program::Located>() {
            Some(located) => {
                eprintln!("{located}");
                ExitCode::FAILURE
            }
            None if e.downcast_ref::<budget::LimitError>().is_some() => {
                eprintln!("pollen: error: {e:#}");
                ExitCode::from(budget::LIMIT_EXIT_CODE)
            }
            None => {
                eprintln!("pollen: error: {e:#}");
                ExitCode::from(2)
            }
        },
    }
}

fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Calc { file, budget } => run_calc(file, budget.budget),
        Command::Scop { file, budget } => print_out(&program::scop(&file, budget.budget)?),
        Command::Deps {
            file,
            kind,
            value_based: _,
            memory_based,
            budget,
        } => {
            let analysis = if memory_based {
                pollen_deps::Analysis::MemoryBased
            } else {
                pollen_deps::Analysis::ValueBased
            };
            print_out(&program::deps(&file, kind, analysis, budget.budget)?)
        }
        Command::Sched {
            file,
            algo,
            fuse,
            wavefront,
            budget,
        } => print_out(&program::sched(
            &file,
            algo,
            fuse,
            wavefront,
            budget.budget,
        )?),
        Command::Opt(args) => opt::run(&args),
        Command::Explain(args) => explain::run(&args),
        Command::Search(args) => search::run(&args),
        Command::Te(args) => tensor::run(&args),
    }
}

fn print_out(text: &str) -> Result<ExitCode> {
    let stdout = io::stdout();
    let mut out = stdout.lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

fn run_calc(file: Option<PathBuf>, steps: budget::Steps) -> Result<ExitCode> {
    let (name, src) = match file {
        Some(path) if path.as_os_str() != "-" => {
            let src = std::fs::read_to_string(&path)
                .with_context(|| format!("cannot read {}", path.display()))?;
            (path.display().to_string(), src)
        }
        _ => {
            let mut src = String::new();
            io::stdin()
                .read_to_string(&mut src)
                .context("cannot read standard input")?;
            ("<stdin>".to_string(), src)
        }
    };
    let stdout = io::stdout();
    let stderr = io::stderr();
    let mut out = stdout.lock();
    let outcome = calc::run(&src, &name, steps, &mut out, &mut stderr.lock())?;
    out.flush()?;
    Ok(if outcome.success() {
        ExitCode::SUCCESS
    } else if outcome.limits > 0 {
        ExitCode::from(budget::LIMIT_EXIT_CODE)
    } else {
        ExitCode::FAILURE
    })
}
