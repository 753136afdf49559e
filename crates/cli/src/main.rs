//! The `pollen` command-line tool.
//!
//! For now it has one subcommand, `pollen calc`, an iscc-like calculator over the exact
//! integer sets and maps of `pollen-presburger` (see [`calc`]). This is the only crate
//! of the workspace that reads files and reports errors with `anyhow`.

mod calc;

use std::io::{self, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};

/// Pollen: a polyhedral loop optimizer built on an exact Presburger library.
#[derive(Parser, Debug)]
#[command(name = "pollen", version, about, long_about = None)]
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
    },
}

const CALC_HELP: &str = "\
Evaluate a script of integer set and map expressions, like isl's iscc.

Statements end with `;`. `X := <expr>;` assigns, `<expr>;` prints the value on one line
in isl syntax (booleans as True/False, counts as integers). `#` starts a comment.

Literals are isl sets and maps, e.g. `[N] -> { S[i, j] -> S[i, j + 1] : 0 <= i, j < N }`.
Operators, from the tightest to the loosest binding:
  A^-1                         inverse of a map
  dom ran lexmin lexmax deltas coalesce sample card params complement is_empty A
  A . B                        composition (A then B); image of a set A under a map B
  A * B                        intersection; a map * a set restricts the map's domain
  A + B, A - B                 union, difference
  A = B, A <= B, A < B         equality, subset, strict subset

A statement with an error is reported as `file:line:column: error: message` on standard
error; the remaining statements still run and the exit status is 1.";

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("pollen: error: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Calc { file } => run_calc(file),
    }
}

fn run_calc(file: Option<PathBuf>) -> Result<ExitCode> {
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
    let outcome = calc::run(&src, &name, &mut out, &mut stderr.lock())?;
    out.flush()?;
    Ok(if outcome.success() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
