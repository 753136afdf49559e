//! Affine scheduling of scops.
//!
//! The schedulers (Pluto and Feautrier, on Farkas-linearised legality constraints) compute
//! a new [`pollen_scop::ScheduleTree`] from a scop's dependences; [`legality`] checks any
//! schedule against the dependences independently of how it was found.
//!
//! ```text
//!   Scop + dependences ──► model (edges, Farkas constraints: farkas, fm)
//!        │
//!        ├─ pluto: level by level lexmin ILP (ilp) over (u, w, coefficients) ─┐
//!        └─ feautrier: maximise strongly satisfied dependences per level ─────┤
//!                                                                             ▼
//!                        rows (loop / scalar) ──► build: schedule tree, coincidence,
//!                                                 wavefront
//! ```
//!
//! [`schedule`] is the entry point ([`schedule_with_report`] also says which
//! [`Fallback`]s were taken and what the constraint injection did); [`Options`] chooses
//! the algorithm, the fusion policy, the wavefront, a coefficient bound, a work budget,
//! and an optional [`ConstraintTree`] of extra constraints on the coefficients (see
//! [`inject`]; [`inject::gpu`] builds such trees for GPU vectorization and coalescing).

mod build;
mod ddg;
mod error;
mod fallback;
pub mod farkas;
mod feautrier;
pub mod fm;
mod ilp;
pub mod inject;
pub mod legality;
mod model;
mod pluto;
mod progress;
mod vars;

pub use error::{Error, Result};
pub use fallback::Fallback;
pub use inject::{
    Coefficient, ConstraintNode, ConstraintTree, InjectedConstraint, InjectionReport, InjectionStep,
};

use pollen_deps::Dependence;
use pollen_presburger::Budget;
use pollen_scop::{ScheduleTree, Scop};

/// The scheduling algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Algo {
    /// Pluto: permutable bands minimising dependence distances (the default).
    #[default]
    Pluto,
    /// Feautrier: per level, as many dependences strongly satisfied as possible.
    Feautrier,
}

/// The fusion policy of the Pluto scheduler (how strongly connected components of the
/// dependence graph are separated).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Fuse {
    /// Separate all components before every band (Pluto's `--nofuse`).
    No,
    /// Separate components of different dimensionality first, fuse the others where a
    /// common hyperplane exists (Pluto's default `--smartfuse`).
    #[default]
    Smart,
    /// Separate components only when no common hyperplane exists (`--maxfuse`).
    Max,
}

/// The options of [`schedule`].
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The algorithm (default Pluto).
    pub algo: Algo,
    /// The fusion policy (default smart; Feautrier fuses maximally).
    pub fuse: Fuse,
    /// Whether a band whose first member is not parallel is given a wavefront, the first
    /// member becoming the sum of the first two (or of all) members (default off).
    pub wavefront: bool,
    /// An upper bound on every schedule coefficient variable (iterator coefficients, or
    /// their positive and negative parts, and constants). By default (`None`) Pluto's
    /// rule applies: the largest constant of the domains' constraints minus one when that
    /// is at least 10, no bound otherwise.
    pub coefficient_bound: Option<i64>,
    /// Whether iterator coefficients may be negative from the start (reversal, negative
    /// skews). By default they are non-negative, as in Pluto, and negative ones are
    /// allowed only from the point where non-negative ones admit no schedule (reversed
    /// loops such as `for (i = N - 1; i >= 0; i--)` need them).
    pub negative_coefficients: bool,
    /// The number of elementary steps the Presburger operations may take, or unlimited
    /// (the default); running out gives [`Error::LimitExceeded`].
    pub budget: Option<u64>,
    /// Extra constraints on the schedule coefficients, tried in priority order (see
    /// [`inject`]); honoured by the Pluto scheduler (Feautrier's ignores them).
    pub constraints: Option<ConstraintTree>,
}

/// A new schedule for `scop` that respects the dependences `deps`.
///
/// The result has a domain root over every statement, bands (permutable, with exact
/// coincidence flags) and sequences of filters where statements are distributed. Before
/// it is returned, the independent [`legality::check`] confirms its order and its band
/// annotations against the dependences (restricted to the context and the domains);
/// a failure there is [`Error::Illegal`].
pub fn schedule(scop: &Scop, deps: &[Dependence], options: &Options) -> Result<ScheduleTree> {
    schedule_with_report(scop, deps, options).map(|outcome| outcome.tree)
}

/// [`schedule`] within `budget` (`options.budget` is ignored): the Farkas eliminations,
/// the ILPs, the tree's coincidence tests and the final legality check all spend it.
/// Running out gives [`Error::LimitExceeded`].
pub fn schedule_with(
    scop: &Scop,
    deps: &[Dependence],
    options: &Options,
    budget: &mut Budget,
) -> Result<ScheduleTree> {
    outcome_with(scop, deps, options, budget).map(|outcome| outcome.tree)
}

/// A schedule and how it was found.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The schedule, as [`schedule`] returns it.
    pub tree: ScheduleTree,
    /// The steps of the fallback ladder taken, in order (empty when the algorithm found
    /// the schedule without them).
    pub fallbacks: Vec<Fallback>,
    /// What the constraint injection did (the node that held, the rungs of its ladder
    /// taken); `None` without a constraint tree or with the Feautrier scheduler.
    pub injection: Option<InjectionReport>,
}

/// [`schedule`], with the fallbacks taken, within `options.budget`.
///
/// The ladder: the algorithm with non-negative coefficients, cutting between strongly
/// connected components where no hyperplane exists ([`Fallback::CutComponents`]); signed
/// coefficients from the point where non-negative ones admit nothing, then from scratch
/// ([`Fallback::NegativeCoefficients`]); and where the search is still stuck, the
/// original schedule's dimensions, one at a time, for the statements that resist
/// ([`Fallback::OriginalDimension`], and [`Fallback::OriginalOrder`] when all of them
/// were needed), the search going on after each. The original schedule being legal, the
/// last rung always succeeds, so every scop with a legal original schedule gets a
/// schedule.
pub fn schedule_with_report(
    scop: &Scop,
    deps: &[Dependence],
    options: &Options,
) -> Result<Outcome> {
    let mut budget = match options.budget {
        Some(steps) => Budget::new(steps),
        None => Budget::unlimited(),
    };
    outcome_with(scop, deps, options, &mut budget)
}

/// [`schedule_with_report`] within `budget` (`options.budget` is ignored).
pub fn outcome_with(
    scop: &Scop,
    deps: &[Dependence],
    options: &Options,
    budget: &mut Budget,
) -> Result<Outcome> {
    let model = model::Model::new(scop, deps, options.coefficient_bound, budget)?;
    let signed = options.negative_coefficients;
    let (rows, fallbacks, injection) = match rows(&model, options, signed, None, budget) {
        Err(Error::NoLegalSchedule) => {
            let from_scratch = if signed {
                Err(Error::NoLegalSchedule)
            } else {
                rows(&model, options, true, None, budget)
            };
            match from_scratch {
                Ok((rows, mut fallbacks, injection)) => {
                    fallbacks.insert(0, Fallback::NegativeCoefficients { level: 0 });
                    (rows, fallbacks, injection)
                }
                Err(Error::NoLegalSchedule) => {
                    let original = fallback::original_rows(scop, &model)?;
                    rows(&model, options, signed, Some(original), budget)?
                }
                Err(e) => return Err(e),
            }
        }
        other => other?,
    };
    let tree = build::build_tree(&model, &rows, options.wavefront, budget)?;
    let report = legality::check_with(&model.dependences(), &tree, budget)?;
    if !report.is_legal() {
        return Err(Error::Illegal(Box::new(report)));
    }
    Ok(Outcome {
        tree,
        fallbacks,
        injection,
    })
}

/// The schedule rows of the chosen algorithm, the fallbacks taken and what the
/// constraint injection did; `signed` allows
/// negative iterator coefficients, `original` (the original schedule's rows) lets the
/// algorithm fall back to them.
fn rows(
    model: &model::Model,
    options: &Options,
    signed: bool,
    original: Option<Vec<model::Row>>,
    budget: &mut Budget,
) -> Result<(Vec<model::Row>, Vec<Fallback>, Option<InjectionReport>)> {
    match options.algo {
        Algo::Pluto => inject::schedule_rows(model, options, signed, original, budget),
        Algo::Feautrier => feautrier::schedule_rows(model, signed, original.as_deref(), budget)
            .map(|(rows, fallbacks)| (rows, fallbacks, None)),
    }
}
