//! The subcommands that read a C file: `pollen scop`, `pollen deps` and `pollen sched`.
//!
//! Each reads the file, extracts its `#pragma scop` region with `pollen-frontend` and
//! prints a stage of the pipeline in isl syntax. Frontend errors are reported as
//! `file:line:column: error: message`. Each stage runs under the command's `--budget`
//! (see [`crate::budget`]); a stage that runs out is a [`LimitError`] naming it.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result};
use pollen_deps::{Analysis, DepKind, Dependences};
use pollen_frontend::Extracted;
use pollen_scop::Scop;

use crate::budget::{LimitError, Steps};

/// An error in the user's input with its place, printed as is:
/// `file:line:column: error: message`.
#[derive(Debug)]
pub struct Located(pub String);

impl std::fmt::Display for Located {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Located {}

/// Reads and extracts a C file within a budget of `steps`.
pub fn read_scop(path: &Path, steps: Steps) -> Result<Extracted> {
    let source = crate::tensor::read_source(path)?;
    pollen_frontend::extract_with(&source, &mut steps.budget()).map_err(|e| {
        if let pollen_frontend::Error::Presburger {
            error: pollen_presburger::Error::LimitExceeded,
            ..
        } = e
        {
            return LimitError::new("extraction", steps).into();
        }
        located(path, &e)
    })
}

/// A frontend error as `file:line:column: error: message`.
pub fn located(path: &Path, e: &pollen_frontend::Error) -> anyhow::Error {
    Located(format!(
        "{}:{}:{}: error: {}",
        path.display(),
        e.line(),
        e.column(),
        e.message()
    ))
    .into()
}

/// A driver error of the command on `path` under the budget `steps`: a [`LimitError`]
/// naming the stage when a budget ran out, a located error for the frontend's, the
/// stage's error otherwise.
pub fn driver_error(path: &Path, e: pollen_driver::Error, steps: Steps) -> anyhow::Error {
    match e {
        e if e.is_limit_exceeded() => LimitError::new(e.stage().name(), steps).into(),
        pollen_driver::Error::Frontend(e) => located(path, &e),
        e => anyhow::Error::new(e).context(format!("cannot optimize {}", path.display())),
    }
}

/// `pollen scop FILE.c`: the scop in its text form.
pub fn scop(path: &Path, steps: Steps) -> Result<String> {
    let extracted = read_scop(path, steps)?;
    Ok(pollen_scop::text::print(&extracted.scop))
}

/// Which dependence kinds `pollen deps` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum KindChoice {
    /// Read after write.
    Flow,
    /// Write after read.
    Anti,
    /// Write after write.
    Output,
    /// All three.
    All,
}

/// `pollen deps FILE.c`: one line per dependence kind, `kind: <union map>`.
pub fn deps(path: &Path, kind: KindChoice, analysis: Analysis, steps: Steps) -> Result<String> {
    let extracted = read_scop(path, steps)?;
    let deps = analyze(path, &extracted.scop, analysis, steps)?;
    Ok(print_deps(&deps, kind))
}

/// The dependences of `scop` (read from `path`) within a budget of `steps`.
pub fn analyze(path: &Path, scop: &Scop, analysis: Analysis, steps: Steps) -> Result<Dependences> {
    pollen_deps::analyze_with(scop, analysis, &mut steps.budget()).map_err(|e| match e {
        pollen_deps::Error::LimitExceeded => LimitError::new("dependence analysis", steps).into(),
        e => anyhow::Error::new(e)
            .context(format!("dependence analysis of {} failed", path.display())),
    })
}

/// A schedule of `scop` (read from `path`) within a budget of `steps`.
pub fn schedule(
    path: &Path,
    scop: &Scop,
    deps: &Dependences,
    options: &pollen_sched::Options,
    steps: Steps,
) -> Result<pollen_scop::ScheduleTree> {
    pollen_sched::schedule_with(scop, deps.as_slice(), options, &mut steps.budget()).map_err(|e| {
        match e {
            pollen_sched::Error::LimitExceeded => LimitError::new("scheduling", steps).into(),
            e => anyhow::Error::new(e).context(format!("scheduling {} failed", path.display())),
        }
    })
}

/// The kinds selected by `kind`, each as `name: union map` on its own line.
pub fn print_deps(deps: &Dependences, kind: KindChoice) -> String {
    let kinds: &[(DepKind, &str)] = match kind {
        KindChoice::Flow => &[(DepKind::Flow, "flow")],
        KindChoice::Anti => &[(DepKind::Anti, "anti")],
        KindChoice::Output => &[(DepKind::Output, "output")],
        KindChoice::All => &[
            (DepKind::Flow, "flow"),
            (DepKind::Anti, "anti"),
            (DepKind::Output, "output"),
        ],
    };
    let mut out = String::new();
    for (kind, name) in kinds {
        let _ = writeln!(out, "{name}: {}", deps.union(*kind));
    }
    out
}

/// The scheduling algorithm of `pollen sched`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum AlgoChoice {
    /// Pluto: permutable bands minimising dependence distances.
    Pluto,
    /// Feautrier: as many dependences strongly satisfied per level as possible.
    Feautrier,
}

/// The fusion policy of `pollen sched`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum FuseChoice {
    /// Distribute every strongly connected component.
    No,
    /// Fuse components of the same dimensionality.
    Smart,
    /// Fuse wherever a common hyperplane exists.
    Max,
}

/// `pollen sched FILE.c`: the new schedule as a union map, then as a tree; the schedule
/// is checked by the independent legality checker before it is printed.
pub fn sched(
    path: &Path,
    algo: AlgoChoice,
    fuse: FuseChoice,
    wavefront: bool,
    steps: Steps,
) -> Result<String> {
    let extracted = read_scop(path, steps)?;
    let scop = &extracted.scop;
    let deps = analyze(path, scop, Analysis::ValueBased, steps)?;
    let options = pollen_sched::Options {
        algo: match algo {
            AlgoChoice::Pluto => pollen_sched::Algo::Pluto,
            AlgoChoice::Feautrier => pollen_sched::Algo::Feautrier,
        },
        fuse: match fuse {
            FuseChoice::No => pollen_sched::Fuse::No,
            FuseChoice::Smart => pollen_sched::Fuse::Smart,
            FuseChoice::Max => pollen_sched::Fuse::Max,
        },
        wavefront,
        ..Default::default()
    };
    let tree = schedule(path, scop, &deps, &options, steps)?;
    let report = pollen_sched::legality::check_with(deps.as_slice(), &tree, &mut steps.budget())
        .map_err(|e| match e {
            pollen_sched::legality::Error::LimitExceeded => {
                LimitError::new("the legality check", steps).into()
            }
            e => anyhow::Error::new(e).context(format!(
                "checking the schedule of {} failed",
                path.display()
            )),
        })?;
    if !report.is_legal() {
        anyhow::bail!(
            "the schedule found for {} is not legal:\n{report}",
            path.display()
        );
    }
    let map = tree
        .to_union_map()
        .with_context(|| format!("flattening the schedule of {} failed", path.display()))?;
    Ok(format!("{map}\n{tree}\n"))
}
