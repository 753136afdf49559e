//! The evaluation of one candidate in four steps, generate → build → run → measure,
//! behind the [`Evaluator`] trait, and [`Local`], the evaluator that does them on this
//! machine: the driver prints the candidate, a C compiler builds it, the program runs
//! once for its output and then for its time.
//!
//! The steps are separate so that a batch of candidates can be handed to another
//! executor (a cluster's scheduler) by another implementation of the trait: every step
//! takes and returns plain data (text, paths, seconds).
//!
//! [`Local`] times a program by the first of: the fastest `time <seconds>` or
//! `POLLEN_TIME <seconds>` line on its standard error (Pollen's kernels built with
//! `-DPOLLEN_TIME`, the tensor operators), the last line of its
//! standard output when that is a bare number (PolyBench's `-DPOLYBENCH_TIME`), the
//! wall clock of the whole process ([`Timer::Auto`]); or always by the wall clock
//! ([`Timer::Wall`]). The timer's lines are left out of the output that is compared with
//! the original's.

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use pollen_driver::{Coincidence, Options as DriverOptions, Strategy};
use pollen_presburger::Budget;

use pollen_search::FusionStructure;
use pollen_search::{Limits, Space};

/// One point of the search: a fusion structure of the space with a choice of the
/// pipeline, or `pollen opt`'s default.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// The position in the candidate list (0 is the default).
    pub id: usize,
    /// The outer fusion structure; `None` for `pollen opt`'s default pipeline (the
    /// scheduler's own fusion and the cost model's checks).
    pub structure: Option<FusionStructure>,
    /// How the classes of the structure are scheduled (ignored for the default).
    pub inner: Inner,
    /// The pipeline's parameters: tile sizes, register tiling, parallel loops.
    pub knobs: Knobs,
}

/// The parameters of the pipeline that a candidate may change, each a neighbour of the
/// others in the local search ([`neighbours`]): the tile sizes, whether the default
/// pipeline tiles at all, the unroll-and-jam of the point loops, OpenMP's parallel
/// loops, and the default pipeline's strategy.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Knobs {
    /// Tile sizes, outermost band member first, the last one repeated
    /// ([`pollen_driver::Tiling::Sizes`]); `None`: the sizes of the cache model.
    pub tile_sizes: Option<Vec<i64>>,
    /// Whether the default pipeline tiles (`false`: [`pollen_driver::Tiling::Off`]);
    /// structures say it with their [`Inner`] choice instead.
    pub tiling: bool,
    /// Register tiling ([`DriverOptions::unroll_and_jam`]).
    pub unroll_and_jam: bool,
    /// Parallel loops and wavefronts ([`DriverOptions::parallel`]).
    pub parallel: bool,
    /// The default pipeline's strategy ([`DriverOptions::strategy`]); structures are
    /// always scheduled by Pluto.
    pub strategy: Strategy,
    /// Reductions held in explicit vector variables
    /// ([`DriverOptions::vector_registers`]).
    pub vector_registers: bool,
    /// Vector registers of [`WIDE_VECTOR_BYTES`] bytes instead of the pipeline's
    /// ([`DriverOptions::vector_bytes`]); only with [`Knobs::vector_registers`].
    pub wide_vectors: bool,
    /// Reductions kept in their order where the search reassociates them
    /// ([`DriverOptions::reassociate`] off for this candidate): a reduction over a few
    /// elements runs faster in order than split into vector lanes.
    pub in_order: bool,
}

/// The bytes of a vector with [`Knobs::wide_vectors`]: AVX-512's registers.
pub const WIDE_VECTOR_BYTES: usize = 64;

impl Default for Knobs {
    /// `pollen opt`'s choices.
    fn default() -> Knobs {
        Knobs {
            tile_sizes: None,
            tiling: true,
            unroll_and_jam: true,
            parallel: true,
            strategy: Strategy::Pluto,
            vector_registers: false,
            wide_vectors: false,
            in_order: false,
        }
    }
}

/// What the local search's neighbours may change besides a candidate's own parameters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Walk {
    /// The most band members a tiled candidate can have (the loops around the
    /// program's deepest statement): given sizes of fewer members are spelled out to
    /// as many before each member is doubled or halved, so that each member of a cube
    /// (`tiles=32`) is walked on its own. 0: the sizes as given.
    pub members: usize,
    /// Whether the search reassociates reductions: then [`Knobs::in_order`] is a
    /// parameter too.
    pub reassociating: bool,
}

/// The tile sizes the local search tries besides the cache model's: cubes from 16 to
/// 128, and two shapes with a long innermost extent (for bands whose innermost loop
/// streams through memory).
pub const TILE_SIZES: [&[i64]; 6] = [&[16], &[32], &[64], &[128], &[32, 256], &[64, 512]];

/// The largest tile size a neighbour doubles to.
pub const MAX_TILE_SIZE: i64 = 1024;

impl Knobs {
    /// The suffix of a candidate's key: empty for the default choices, else one word
    /// per changed parameter (` strategy=akg`, ` no-tiling`, ` tiles=32,256`,
    /// ` no-unroll-and-jam`, ` sequential`, ` vector-registers`, ` wide-vectors`,
    /// ` in-order`).
    pub fn suffix(&self) -> String {
        let mut out = String::new();
        if self.strategy != Strategy::Pluto {
            out += &format!(" strategy={}", self.strategy.name());
        }
        if !self.tiling {
            out += " no-tiling";
        }
        if let Some(sizes) = &self.tile_sizes {
            let sizes: Vec<String> = sizes.iter().map(i64::to_string).collect();
            out += &format!(" tiles={}", sizes.join(","));
        }
        if !self.unroll_and_jam {
            out += " no-unroll-and-jam";
        }
        if !self.parallel {
            out += " sequential";
        }
        if self.vector_registers {
            out += " vector-registers";
        }
        if self.wide_vectors {
            out += " wide-vectors";
        }
        if self.in_order {
            out += " in-order";
        }
        out
    }

    /// The knobs that differ from these in one parameter; the tile parameters only
    /// where the candidate is `tiled`. Besides the model's sizes and
    /// [`TILE_SIZES`], given sizes have as neighbours the same sizes with one member
    /// doubled or halved (within 2 to [`MAX_TILE_SIZE`]), so that the search walks
    /// the sizes of each band member in turn. The parameters that change the code the
    /// most come first, since the search tries the neighbours of its best candidate in
    /// their order: with vector registers the other vector width, then vector registers
    /// on or off (turned on, also with wide vectors), unroll-and-jam, parallel loops,
    /// and the tile sizes last.
    pub fn neighbours(&self, tiled: bool) -> Vec<Knobs> {
        self.neighbours_in(tiled, &Walk::default())
    }

    /// [`Knobs::neighbours`] under `walk`: given sizes of fewer than
    /// [`Walk::members`] members are first spelled out to that many (the last one
    /// repeated, as the tiler reads them), and a walked size is written without the
    /// trailing members that repeat the one before them (`32,64,64` as `32,64`); where
    /// the search reassociates, the reductions kept in order (or not) come first.
    pub fn neighbours_in(&self, tiled: bool, walk: &Walk) -> Vec<Knobs> {
        let members = walk.members;
        let mut out = Vec::new();
        if walk.reassociating {
            out.push(Knobs {
                in_order: !self.in_order,
                ..self.clone()
            });
        }
        if self.vector_registers {
            out.push(Knobs {
                wide_vectors: !self.wide_vectors,
                ..self.clone()
            });
        }
        out.push(Knobs {
            vector_registers: !self.vector_registers,
            wide_vectors: false,
            ..self.clone()
        });
        if !self.vector_registers {
            // Vector registers at once with wide vectors too: where a vector nest's
            // accumulators pay off only with twice the registers (AVX-512's), the
            // narrow one is no faster than the candidate refined, and a walk that turns
            // vector registers on and then widens them would never take its first step.
            out.push(Knobs {
                vector_registers: true,
                wide_vectors: true,
                ..self.clone()
            });
        }
        if tiled {
            out.push(Knobs {
                unroll_and_jam: !self.unroll_and_jam,
                ..self.clone()
            });
        }
        out.push(Knobs {
            parallel: !self.parallel,
            ..self.clone()
        });
        if tiled {
            let mut sizes: Vec<Option<Vec<i64>>> = std::iter::once(None)
                .chain(TILE_SIZES.iter().map(|s| Some(s.to_vec())))
                .collect();
            if let Some(given) = &self.tile_sizes {
                let mut spelled = given.clone();
                while let (true, Some(&last)) = (spelled.len() < members, spelled.last()) {
                    spelled.push(last);
                }
                for k in 0..spelled.len() {
                    for size in [spelled[k].saturating_mul(2), spelled[k] / 2] {
                        if (2..=MAX_TILE_SIZE).contains(&size) {
                            let mut s = spelled.clone();
                            s[k] = size;
                            while s.len() > 1 && s[s.len() - 1] == s[s.len() - 2] {
                                s.pop();
                            }
                            sizes.push(Some(s));
                        }
                    }
                }
            }
            let mut seen = std::collections::HashSet::new();
            for tile_sizes in sizes {
                if tile_sizes != self.tile_sizes && seen.insert(tile_sizes.clone()) {
                    out.push(Knobs {
                        tile_sizes,
                        ..self.clone()
                    });
                }
            }
        }
        out
    }
}

/// How a candidate's classes are scheduled below the outer level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Inner {
    /// Pluto with maximal fusion in each class ([`Space::schedule`]), permutable bands
    /// tiled with sizes from the cache model.
    Tiled,
    /// The same schedule, not tiled.
    Untiled,
    /// Each class's fusing row over the original loop order of its statements
    /// ([`Space::embed`]), not tiled: interchanges and skews left out.
    Original,
}

impl Inner {
    /// Every choice, in the order of the candidate list.
    pub const ALL: [Inner; 3] = [Inner::Tiled, Inner::Untiled, Inner::Original];

    /// The name in keys and tables.
    pub fn name(self) -> &'static str {
        match self {
            Inner::Tiled => "tiled",
            Inner::Untiled => "untiled",
            Inner::Original => "original-order",
        }
    }
}

impl Candidate {
    /// The key that names the candidate in results and resumed searches: `default`, or
    /// the structure and the [`Inner`] choice's name.
    pub fn key(&self) -> String {
        let base = match &self.structure {
            None => "default".to_string(),
            Some(s) => format!("{s} {}", self.inner.name()),
        };
        base + &self.knobs.suffix()
    }

    /// Whether this is `pollen opt`'s default: its pipeline with its parameters.
    pub fn is_default(&self) -> bool {
        self.structure.is_none() && self.knobs == Knobs::default()
    }

    /// Whether the candidate's bands are tiled: the default pipeline's (where the cost
    /// model finds reuse) unless its knobs turn tiling off, and [`Inner::Tiled`]
    /// structures'.
    pub fn tiled(&self) -> bool {
        match self.structure {
            None => self.knobs.tiling,
            Some(_) => self.inner == Inner::Tiled,
        }
    }
}

/// The candidate that `key` names ([`Candidate::key`]): one of `list`, or one of their
/// variants (a listed key followed by the words of [`Knobs::suffix`]), as the local
/// refinement names them; `None` when nothing matches.
pub fn by_key(list: &[Candidate], key: &str) -> Option<Candidate> {
    let key = key.trim();
    if let Some(c) = list.iter().find(|c| c.key() == key) {
        return Some(c.clone());
    }
    let mut words: Vec<&str> = key.split(' ').collect();
    let mut knobs = Knobs::default();
    let mut seen_suffix = false;
    while let Some(&last) = words.last() {
        if last == "in-order" && !seen_suffix {
            knobs.in_order = true;
        } else if last == "wide-vectors" && !knobs.wide_vectors && !knobs.vector_registers {
            knobs.wide_vectors = true;
        } else if last == "vector-registers" && !knobs.vector_registers {
            knobs.vector_registers = true;
        } else if last == "sequential" && knobs.parallel {
            knobs.parallel = false;
        } else if last == "no-tiling" && knobs.tiling {
            knobs.tiling = false;
        } else if let Some(name) = last.strip_prefix("strategy=") {
            if knobs.strategy != Strategy::Pluto {
                return None;
            }
            knobs.strategy = Strategy::ALL
                .into_iter()
                .find(|s| s.name() == name && *s != Strategy::Pluto)?;
        } else if last == "no-unroll-and-jam" && knobs.unroll_and_jam {
            knobs.unroll_and_jam = false;
        } else if let Some(sizes) = last.strip_prefix("tiles=") {
            if knobs.tile_sizes.is_some() {
                return None;
            }
            let sizes: Option<Vec<i64>> = sizes
                .split(',')
                .map(|n| n.parse().ok().filter(|&n: &i64| n > 0))
                .collect();
            knobs.tile_sizes = Some(sizes?);
        } else {
            break;
        }
        seen_suffix = true;
        words.pop();
    }
    if !seen_suffix {
        return None;
    }
    let base = words.join(" ");
    let c = list
        .iter()
        .find(|c| c.knobs == Knobs::default() && c.key() == base)?;
    let candidate = Candidate {
        id: list.iter().map(|c| c.id + 1).max().unwrap_or(0),
        knobs,
        ..c.clone()
    };
    // Tile sizes name only tiled candidates, strategies and `no-tiling` only the
    // default pipeline; the suffix's words in their order.
    let default_only = candidate.knobs.strategy == Strategy::Pluto && candidate.knobs.tiling;
    (candidate.key() == key
        && (candidate.knobs.vector_registers || !candidate.knobs.wide_vectors)
        && (candidate.tiled() || candidate.knobs.tile_sizes.is_none())
        && (candidate.structure.is_none() || default_only))
        .then_some(candidate)
}

/// The neighbours of a candidate in the local search: the same structure and schedule
/// with one parameter of its [`Knobs`] changed; the default pipeline's, at the model's
/// tile sizes, also untiled (when tiled) and with each other strategy. Their ids are
/// left 0 for the search to number.
pub fn neighbours(candidate: &Candidate) -> Vec<Candidate> {
    neighbours_in(candidate, &Walk::default())
}

/// [`neighbours`] under `walk` ([`Knobs::neighbours_in`]).
pub fn neighbours_in(candidate: &Candidate, walk: &Walk) -> Vec<Candidate> {
    let knobs = &candidate.knobs;
    let mut all = knobs.neighbours_in(candidate.tiled(), walk);
    // The pipeline-wide choices are neighbours of the model's tile sizes only: a
    // strategy slow at those is tried again at no other sizes.
    if candidate.structure.is_none() && knobs.tile_sizes.is_none() {
        if knobs.tiling {
            all.push(Knobs {
                tiling: false,
                ..knobs.clone()
            });
        }
        for strategy in Strategy::ALL {
            if strategy != knobs.strategy {
                all.push(Knobs {
                    strategy,
                    ..knobs.clone()
                });
            }
        }
    }
    all.into_iter()
        .map(|knobs| Candidate {
            id: 0,
            knobs,
            ..candidate.clone()
        })
        .collect()
}

impl fmt::Display for Candidate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{} {}", self.id, self.key())
    }
}

/// The candidates of `space`: the default first, then the default with vector
/// registers, alone, untiled (also with wide vectors), without unroll-and-jam (also
/// with wide vectors) and untiled under AKG's strategy,
/// then the rest of its
/// [`neighbours`] (the default pipeline with one parameter changed), then every
/// structure of F¹ with each [`Inner`] choice (the order of [`Space::structures`],
/// maximal fusion first). The neighbours of the structures' candidates come later,
/// from the search's local refinement of the fastest
/// ([`crate::tuner::Config::refine`]).
///
/// Vector registers go first because they change the code the most where they apply
/// (a reduction's accumulators kept in registers across its loop), and they change
/// the best loop structure around them (an untiled or un-jammed nest keeps whole rows
/// of accumulators in registers; a nest in its original loop order, AKG's, keeps a
/// pooling window inside the loop over the output's columns, which the C emitter then
/// unrolls into a vector loop). Their combinations with those are therefore
/// tried at once instead of being left to the local refinement, which changes one
/// knob at a time, and before it starts.
pub fn candidates(space: &Space) -> Vec<Candidate> {
    let default = Candidate {
        id: 0,
        structure: None,
        inner: Inner::Tiled,
        knobs: Knobs::default(),
    };
    let (vector, rest): (Vec<Candidate>, Vec<Candidate>) = neighbours(&default)
        .into_iter()
        .partition(|c| c.knobs.vector_registers);
    let combined = [
        Knobs {
            vector_registers: true,
            tiling: false,
            ..Knobs::default()
        },
        Knobs {
            vector_registers: true,
            wide_vectors: true,
            tiling: false,
            ..Knobs::default()
        },
        Knobs {
            vector_registers: true,
            unroll_and_jam: false,
            ..Knobs::default()
        },
        Knobs {
            vector_registers: true,
            wide_vectors: true,
            unroll_and_jam: false,
            ..Knobs::default()
        },
        Knobs {
            vector_registers: true,
            tiling: false,
            strategy: Strategy::Akg,
            ..Knobs::default()
        },
    ]
    .into_iter()
    .map(|knobs| Candidate {
        knobs,
        ..default.clone()
    });
    let mut out = vec![default.clone()];
    for mut c in vector.into_iter().chain(combined).chain(rest) {
        c.id = out.len();
        out.push(c);
    }
    for structure in space.structures() {
        for inner in Inner::ALL {
            out.push(Candidate {
                id: out.len(),
                structure: Some(structure.clone()),
                inner,
                knobs: Knobs::default(),
            });
        }
    }
    out
}

/// The step of an evaluation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Step {
    /// Printing the candidate's program.
    Generate,
    /// Compiling it.
    Build,
    /// Running it for its output.
    Run,
    /// Comparing the output with the original's.
    Check,
    /// Timing it.
    Measure,
}

impl Step {
    /// The name, in lower case.
    pub fn name(self) -> &'static str {
        match self {
            Step::Generate => "generate",
            Step::Build => "build",
            Step::Run => "run",
            Step::Check => "check",
            Step::Measure => "measure",
        }
    }
}

/// A failed step, with its message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// The step that failed.
    pub step: Step,
    /// What went wrong.
    pub message: String,
}

impl Failure {
    /// A failure of `step`.
    pub fn new(step: Step, message: impl Into<String>) -> Failure {
        Failure {
            step,
            message: message.into(),
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} failed: {}", self.step.name(), self.message)
    }
}

/// The executables of one candidate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Build {
    /// The build whose output is compared with the original's.
    pub check: PathBuf,
    /// The build that is timed (the same file when the check build has the same
    /// flags).
    pub timed: PathBuf,
}

/// The four steps of an evaluation. `generate` and `build` may run for several
/// candidates at once; the search never runs `measure` beside any other step.
pub trait Evaluator: Sync {
    /// The candidate's program text (`None`: the original program).
    fn generate(&self, candidate: Option<&Candidate>) -> Result<String, Failure>;
    /// Compiles a program text; `name` is unique per candidate.
    fn build(&self, name: &str, text: &str) -> Result<Build, Failure>;
    /// Runs the check build and returns the output to compare.
    fn run(&self, build: &Build) -> Result<String, Failure>;
    /// One timed run of the timed build: its seconds. A run that takes longer than
    /// `limit` may be stopped ([`Measured::Stopped`]).
    fn measure(&self, build: &Build, limit: Option<Duration>) -> Result<Measured, Failure>;
}

/// The result of one timed run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Measured {
    /// The seconds the timer gave, and the wall clock of the whole run: the same when
    /// the wall clock is the timer, more when the program times its kernel only (and
    /// its set-up, e.g. PolyBench's initialisation, is left out).
    Seconds {
        /// The timer's seconds.
        seconds: f64,
        /// The run's wall-clock seconds.
        wall: f64,
    },
    /// The run was stopped after this many seconds of wall clock.
    Stopped(f64),
}

/// How a program is timed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timer {
    /// The program's own timer when it prints one, else the wall clock.
    Auto,
    /// The wall clock of the whole process.
    Wall,
}

/// The compiler and the flags of [`Local`]'s builds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Toolchain {
    /// The compiler and its flags, e.g. `["gcc", "-O3", "-march=native", "-fopenmp"]`.
    pub compiler: Vec<String>,
    /// Words after the source file (more sources, `-I` directories, libraries).
    pub extra: Vec<String>,
    /// `-D` definitions of the timed build (`NAME` or `NAME=VALUE`).
    pub defines: Vec<String>,
    /// `-D` definitions of the check build; `None`: the timed build is also checked.
    pub check_defines: Option<Vec<String>>,
    /// Compiler flags of the check build only (e.g. `-ffp-contract=off`, so that the
    /// original and the candidates round every operation alike).
    pub check_flags: Vec<String>,
    /// `-I` directories given before the other flags: the source file's own directory,
    /// since the builds are written elsewhere and `#include "..."` must still find its
    /// headers.
    pub include: Vec<PathBuf>,
}

/// The evaluator that builds and runs candidates on this machine.
pub struct Local {
    /// The C source searched.
    pub source: String,
    /// The index of the region searched (others get the default pipeline).
    pub region: usize,
    /// The space of that region.
    pub space: Space,
    /// The driver options of the default candidate; structure candidates take them with
    /// the profitability check off, tiling as the candidate says and
    /// [`Local::candidate_budget`].
    pub options: DriverOptions,
    /// The solver steps per stage of a structure candidate (`None`: unlimited). Some
    /// structures give schedules whose tiling is far harder to check than the
    /// default's; a smaller budget than the default's stops them in seconds, as a
    /// failed candidate, before they take minutes and gigabytes.
    pub candidate_budget: Option<u64>,
    /// The compiler and flags.
    pub toolchain: Toolchain,
    /// Where the builds go.
    pub dir: PathBuf,
    /// The environment of every run (e.g. `OMP_NUM_THREADS`).
    pub env: Vec<(String, String)>,
    /// How runs are timed.
    pub timer: Timer,
    /// The longest a check run may take.
    pub run_limit: Duration,
}

impl Local {
    /// The driver options of `candidate`.
    pub fn driver_options(&self, candidate: &Candidate) -> DriverOptions {
        if candidate.is_default() {
            return self.options.clone();
        }
        let knobs = &candidate.knobs;
        let tiling = match (&knobs.tile_sizes, candidate.tiled()) {
            (_, false) => pollen_driver::Tiling::Off,
            (Some(sizes), true) => pollen_driver::Tiling::Sizes(sizes.clone()),
            (None, true) => self.options.tiling.clone(),
        };
        // The default pipeline's variants keep its checks and its budget.
        let base = if candidate.structure.is_none() {
            self.options.clone()
        } else {
            DriverOptions {
                profitability: false,
                budget: self.candidate_budget,
                ..self.options.clone()
            }
        };
        let strategy = match candidate.structure {
            None => knobs.strategy,
            Some(_) => base.strategy,
        };
        DriverOptions {
            tiling,
            strategy,
            unroll_and_jam: base.unroll_and_jam && knobs.unroll_and_jam,
            parallel: base.parallel && knobs.parallel,
            reassociate: base.reassociate && !knobs.in_order,
            vector_registers: base.vector_registers || knobs.vector_registers,
            vector_bytes: if knobs.wide_vectors {
                WIDE_VECTOR_BYTES
            } else {
                base.vector_bytes
            },
            ..base
        }
    }

    /// The candidate's program and the driver's report.
    pub fn optimize(&self, candidate: &Candidate) -> Result<pollen_driver::Optimized, Failure> {
        let fail = |m: String| Failure::new(Step::Generate, m);
        let options = self.driver_options(candidate);
        match &candidate.structure {
            None => pollen_driver::optimize_source(&self.source, &options)
                .map_err(|e| fail(e.to_string())),
            Some(structure) => {
                // Pluto's bands carry its coincident flags; the plain embedding has none,
                // and the checker decides them.
                let (tree, coincidence) = match candidate.inner {
                    Inner::Tiled | Inner::Untiled => self
                        .space
                        .schedule(structure, options.budget)
                        .map(|s| (s.tree, Coincidence::Given)),
                    Inner::Original => self
                        .space
                        .embed(structure)
                        .map(|t| (t, Coincidence::Decided)),
                }
                .map_err(|e| fail(format!("{structure}: {e}")))?;
                let region = self.region;
                pollen_driver::optimize_source_scheduled(&self.source, &options, &|i, _| {
                    (i == region).then(|| (tree.clone(), coincidence))
                })
                .map_err(|e| fail(e.to_string()))
            }
        }
    }

    fn compile(
        &self,
        text_path: &Path,
        exe: &Path,
        defines: &[String],
        more_flags: &[String],
    ) -> Result<(), Failure> {
        let (program, flags) = self
            .toolchain
            .compiler
            .split_first()
            .ok_or_else(|| Failure::new(Step::Build, "no compiler given"))?;
        let out = Command::new(program)
            .args(flags)
            .args(more_flags)
            .args(
                self.toolchain
                    .include
                    .iter()
                    .map(|d| format!("-I{}", d.display())),
            )
            .args(defines.iter().map(|d| format!("-D{d}")))
            .arg(text_path)
            .args(&self.toolchain.extra)
            .arg("-o")
            .arg(exe)
            .stdin(Stdio::null())
            .output()
            .map_err(|e| Failure::new(Step::Build, format!("cannot run {program}: {e}")))?;
        if !out.status.success() {
            let stderr = String::from_utf8_lossy(&out.stderr);
            let first: Vec<&str> = stderr
                .lines()
                .filter(|l| l.contains("error"))
                .take(3)
                .collect();
            return Err(Failure::new(
                Step::Build,
                format!(
                    "{program} exited with {}: {}",
                    out.status,
                    first.join(" / ")
                ),
            ));
        }
        Ok(())
    }

    /// Runs `exe` within `limit`: its standard output and error and wall seconds, or
    /// `None` when it was stopped.
    fn execute(
        &self,
        exe: &Path,
        limit: Duration,
        step: Step,
    ) -> Result<Option<(String, String, f64)>, Failure> {
        let out_path = exe.with_extension("out");
        let err_path = exe.with_extension("err");
        let create = |p: &Path| {
            std::fs::File::create(p)
                .map_err(|e| Failure::new(step, format!("cannot create {}: {e}", p.display())))
        };
        let start = Instant::now();
        let mut child = Command::new(exe)
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(create(&out_path)?)
            .stderr(create(&err_path)?)
            .spawn()
            .map_err(|e| Failure::new(step, format!("cannot run {}: {e}", exe.display())))?;
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break status,
                Ok(None) if start.elapsed() > limit => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Ok(None);
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(2)),
                Err(e) => return Err(Failure::new(step, format!("cannot wait: {e}"))),
            }
        };
        let seconds = start.elapsed().as_secs_f64();
        let stdout = std::fs::read_to_string(&out_path).unwrap_or_default();
        let stderr = std::fs::read_to_string(&err_path).unwrap_or_default();
        if !status.success() {
            let first = stderr.lines().next().unwrap_or("");
            return Err(Failure::new(step, format!("exited with {status}: {first}")));
        }
        Ok(Some((stdout, stderr, seconds)))
    }
}

impl Local {
    /// Whether the check build differs from the timed one.
    fn separate_check(&self) -> bool {
        self.toolchain.check_defines.is_some() || !self.toolchain.check_flags.is_empty()
    }
}

impl Evaluator for Local {
    fn generate(&self, candidate: Option<&Candidate>) -> Result<String, Failure> {
        match candidate {
            None => Ok(self.source.clone()),
            Some(c) => Ok(self.optimize(c)?.text),
        }
    }

    fn build(&self, name: &str, text: &str) -> Result<Build, Failure> {
        let fail = |m: String| Failure::new(Step::Build, m);
        std::fs::create_dir_all(&self.dir)
            .map_err(|e| fail(format!("cannot create {}: {e}", self.dir.display())))?;
        let source = self.dir.join(format!("{name}.c"));
        std::fs::write(&source, text)
            .map_err(|e| fail(format!("cannot write {}: {e}", source.display())))?;
        let timed = self.dir.join(name);
        self.compile(&source, &timed, &self.toolchain.defines, &[])?;
        let check = if self.separate_check() {
            let check = self.dir.join(format!("{name}-check"));
            let defines = self
                .toolchain
                .check_defines
                .as_ref()
                .unwrap_or(&self.toolchain.defines);
            self.compile(&source, &check, defines, &self.toolchain.check_flags)?;
            check
        } else {
            timed.clone()
        };
        Ok(Build { check, timed })
    }

    fn run(&self, build: &Build) -> Result<String, Failure> {
        let Some((stdout, stderr, _)) = self.execute(&build.check, self.run_limit, Step::Run)?
        else {
            return Err(Failure::new(
                Step::Run,
                format!("stopped after {} s", self.run_limit.as_secs()),
            ));
        };
        // A separate check build's last number on standard output is its output (a
        // dump), not a timer; its timer lines on standard error (the tensor operators
        // always time their kernel) are left out all the same.
        let timed = !self.separate_check() || stderr.lines().any(|l| timer_seconds(l).is_some());
        Ok(output_without_timer(
            &stdout,
            &stderr,
            timed && self.timer == Timer::Auto,
        ))
    }

    fn measure(&self, build: &Build, limit: Option<Duration>) -> Result<Measured, Failure> {
        let limit = limit.unwrap_or(self.run_limit).min(self.run_limit);
        let Some((stdout, stderr, wall)) = self.execute(&build.timed, limit, Step::Measure)? else {
            return Ok(Measured::Stopped(limit.as_secs_f64()));
        };
        let own = match self.timer {
            Timer::Wall => None,
            Timer::Auto => program_timer(&stdout, &stderr).map(|(seconds, _)| seconds),
        };
        Ok(Measured::Seconds {
            seconds: own.unwrap_or(wall),
            wall,
        })
    }
}

/// The program's own time and where it printed it: the fastest of the `time <seconds>`
/// lines (Pollen's kernels) or `POLLEN_TIME <seconds>` lines (the tensor operators,
/// which may time their kernel several times) of its standard error, else the last line
/// of its standard output when that is a bare non-negative number.
pub fn program_timer(stdout: &str, stderr: &str) -> Option<(f64, TimerLine)> {
    let pollen = stderr.lines().filter_map(timer_seconds).reduce(f64::min);
    if let Some(seconds) = pollen {
        return Some((seconds, TimerLine::Stderr));
    }
    let last = stdout.lines().rev().find(|l| !l.trim().is_empty())?;
    let seconds: f64 = last.trim().parse().ok()?;
    (seconds.is_finite() && seconds >= 0.0).then_some((seconds, TimerLine::StdoutLast))
}

/// The seconds of a timer line of standard error (`time <s>` or `POLLEN_TIME <s>`).
fn timer_seconds(line: &str) -> Option<f64> {
    let line = line.trim();
    let value = line
        .strip_prefix("time ")
        .or_else(|| line.strip_prefix("POLLEN_TIME "))?;
    value
        .trim()
        .parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s >= 0.0)
}

/// Where a program's timer printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimerLine {
    /// `time <seconds>` or `POLLEN_TIME <seconds>` lines on standard error.
    Stderr,
    /// The last line of standard output.
    StdoutLast,
}

/// The output compared between programs: standard output and standard error, without
/// the timer's lines when `strip_timer`.
pub fn output_without_timer(stdout: &str, stderr: &str, strip_timer: bool) -> String {
    let timer = if strip_timer {
        program_timer(stdout, stderr).map(|(_, line)| line)
    } else {
        None
    };
    let out: Vec<&str> = match timer {
        Some(TimerLine::StdoutLast) => {
            let mut lines: Vec<&str> = stdout.lines().collect();
            while lines.last().is_some_and(|l| l.trim().is_empty()) {
                lines.pop();
            }
            lines.pop();
            lines
        }
        _ => stdout.lines().collect(),
    };
    let err: Vec<&str> = stderr
        .lines()
        .filter(|l| timer != Some(TimerLine::Stderr) || timer_seconds(l).is_none())
        .collect();
    format!("{}\n--- stderr ---\n{}\n", out.join("\n"), err.join("\n"))
}

/// How a candidate's output compares with the original's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Agreement {
    /// Byte for byte.
    Equal,
    /// The same words, the numbers within a relative difference of [`CLOSE`] (a
    /// compiler contracts multiply-adds differently in differently shaped loops).
    Close,
}

/// The largest relative difference of two printed numbers that [`compare`] accepts.
pub const CLOSE: f64 = 1e-6;

/// Compares a candidate's output with the original's: the agreement, or the first
/// difference.
pub fn compare(original: &str, candidate: &str) -> Result<Agreement, String> {
    if original == candidate {
        return Ok(Agreement::Equal);
    }
    let a: Vec<&str> = original.split_whitespace().collect();
    let b: Vec<&str> = candidate.split_whitespace().collect();
    if a.len() != b.len() {
        return Err(format!(
            "{} words of output, the original has {}",
            b.len(),
            a.len()
        ));
    }
    for (k, (x, y)) in a.iter().zip(&b).enumerate() {
        if x == y {
            continue;
        }
        let close = match (x.parse::<f64>(), y.parse::<f64>()) {
            (Ok(p), Ok(q)) => {
                let scale = p.abs().max(q.abs()).max(1e-300);
                (p - q).abs() / scale <= CLOSE || (p - q).abs() <= f64::MIN_POSITIVE
            }
            _ => false,
        };
        if !close {
            return Err(format!("word {}: `{y}`, the original has `{x}`", k + 1));
        }
    }
    Ok(Agreement::Close)
}

/// Compares a candidate's output with the original's, each printed number within
/// `tolerance` times the largest magnitude among the numbers of its line in the
/// original's output (at least the number's own): the agreement, or the first
/// difference. A checksum printed next to the checksum of its elements' magnitudes
/// (`Y -3.25 40960.5`) is so held to a share of the magnitudes, which a sum that
/// cancels does not hide. The other words must be equal, and the lines as many.
pub fn compare_within(
    original: &str,
    candidate: &str,
    tolerance: f64,
) -> Result<Agreement, String> {
    if original == candidate {
        return Ok(Agreement::Equal);
    }
    let a: Vec<&str> = original.lines().collect();
    let b: Vec<&str> = candidate.lines().collect();
    if a.len() != b.len() {
        return Err(format!(
            "{} lines of output, the original has {}",
            b.len(),
            a.len()
        ));
    }
    let mut word = 0;
    for (line, (x, y)) in a.iter().zip(&b).enumerate() {
        let xs: Vec<&str> = x.split_whitespace().collect();
        let ys: Vec<&str> = y.split_whitespace().collect();
        if xs.len() != ys.len() {
            return Err(format!(
                "line {}: {} words, the original has {}",
                line + 1,
                ys.len(),
                xs.len()
            ));
        }
        let scale = xs
            .iter()
            .filter_map(|w| w.parse::<f64>().ok())
            .filter(|v| v.is_finite())
            .fold(0.0f64, |m, v| m.max(v.abs()));
        for (p, q) in xs.iter().zip(&ys) {
            word += 1;
            if p == q {
                continue;
            }
            let close = match (p.parse::<f64>(), q.parse::<f64>()) {
                (Ok(u), Ok(v)) if u.is_finite() && v.is_finite() => {
                    let scale = scale.max(u.abs()).max(v.abs());
                    (u - v).abs() <= tolerance * scale
                }
                _ => false,
            };
            if !close {
                return Err(format!("word {word}: `{q}`, the original has `{p}`"));
            }
        }
    }
    Ok(Agreement::Close)
}

/// The space of region `region` of `source`, within `budget`.
pub fn space_of(
    source: &str,
    region: usize,
    limits: &Limits,
    budget: &mut Budget,
) -> Result<Space, SpaceError> {
    let regions =
        pollen_frontend::extract_all_with(source, budget).map_err(SpaceError::Frontend)?;
    let count = regions.len();
    let scop = regions
        .into_iter()
        .nth(region)
        .ok_or(SpaceError::NoRegion { region, count })?
        .scop;
    Space::with_limits(&scop, limits, budget).map_err(SpaceError::Space)
}

/// Why [`space_of`] failed.
#[derive(Clone, Debug)]
pub enum SpaceError {
    /// The source could not be read into a scop (positioned).
    Frontend(pollen_frontend::Error),
    /// The region asked for (from 0) is not in the file, which has `count`.
    NoRegion {
        /// The region asked for.
        region: usize,
        /// The regions of the file.
        count: usize,
    },
    /// The space could not be built (or the budget ran out: [`pollen_search::Error::LimitExceeded`]).
    Space(pollen_search::Error),
}

impl fmt::Display for SpaceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SpaceError::Frontend(e) => write!(f, "{e}"),
            SpaceError::NoRegion { region, count } => {
                write!(f, "region {} asked for, the file has {count}", region + 1)
            }
            SpaceError::Space(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for SpaceError {}
