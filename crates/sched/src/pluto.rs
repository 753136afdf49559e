//! The Pluto scheduler (Bondhugula et al., PLDI 2008; Bondhugula's thesis, 2008), one
//! hyperplane at a time.
//!
//! Every level solves an ILP over the coefficients of all statements: validity
//! (`φ_T − φ_S ≥ 0` on every dependence not satisfied when the current band started, so
//! that the band is permutable), the distance bound `φ_T − φ_S ≤ u·N + w` (both
//! linearised with Farkas, see [`crate::model`]), non-triviality and linear independence
//! from the statement's earlier rows, and the lexicographic minimum over
//! `(u, w, coefficients)` (see [`crate::vars`] for the order).
//!
//! Validity and the bound apply to each dependence's *residual* at the start of the band
//! (the pairs not yet strictly ordered by earlier rows), not to its whole relation as in
//! Pluto: a dependence partly carried by an outer loop (floyd-warshall's `k`) does not
//! constrain the inner bands with the pairs already ordered. Pluto gets the same effect
//! from candl's per-level dependence polyhedra; our relations come one per array and
//! statement pair. The bound assumes non-negative parameters (it is a cost, not a
//! legality condition).
//!
//! Linear independence follows Pluto's orthogonal sub-space construction (see
//! [`crate::progress`]). In *eager* mode every statement that is not full rank gets such
//! a constraint (and `Σ h ≥ 1`); in *lazy* mode one summed constraint asks for progress
//! on at least one statement.
//!
//! Coefficients are non-negative, as in Pluto's default (the lexicographic minimum over
//! non-negative variables always exists, and shifts and skews stay small). When the
//! algorithm gets stuck that way (a loop running downwards, such as nussinov's or
//! ludcmp's), it goes on from the rows found so far with signed iterator coefficients
//! `c⁺ − c⁻` (the negative parts first in the objective, see [`crate::vars`]; `Σ h ≥ 1`
//! is then left out, independence alone excluding the zero row); should that fail too,
//! [`crate::schedule`] starts again with signed coefficients from the first row. `Options::coefficient_bound` (by
//! default Pluto's rule, see [`crate::model::automatic_bound`]) bounds every variable
//! from above.
//!
//! The driver follows `pluto_auto_transform`: find as many permutable hyperplanes as the
//! deepest statement still needs; when none is found, cut between strongly connected
//! components of the unsatisfied dependences according to the fusion policy, or switch
//! to lazy mode; repeat until every statement is full rank and every dependence is
//! satisfied. The fusion policies:
//! - [`Fuse::No`]: before every band, cut between all components;
//! - [`Fuse::Smart`]: first cut between components of different dimensionality, later
//!   (when no hyperplane exists) cut in the middle of the component order, then between
//!   connected components far apart;
//! - [`Fuse::Max`]: cut only when no hyperplane exists, as few dependences as possible.
//!
//! When the search is stuck (no hyperplane, no cut: e.g. every statement full rank but
//! a cycle of dependences with distance zero on every row), [`Pluto::complete`] takes
//! the original schedule's next dimension for the statements that resist, then goes on
//! searching (see [`crate::fallback`]); every step of this ladder is recorded in the
//! state's `fallbacks`.
//!
//! # Invariants
//! - every row weakly satisfies every dependence not satisfied before its band started;
//! - a state's residuals are the pairs of each relation on which all rows so far have
//!   distance zero.

use pollen_arith::Int;
use pollen_presburger::Budget;

use crate::ddg::Sccs;
use crate::error::{Error, Result};
use crate::fallback::{self, Fallback};
use crate::fm::Rows;
use crate::ilp;
use crate::model::{Model, Row, RowKind, Tracker};
use crate::progress;
use crate::vars::{edge_targets, embed, Target, Vars};
use crate::{Fuse, Options};

/// The schedule under construction.
#[derive(Clone, Debug)]
pub struct State {
    /// The rows found so far.
    pub rows: Vec<Row>,
    /// What the rows leave of the dependences.
    pub tracker: Tracker,
    band: Option<Band>,
    n_bands: usize,
    lazy: bool,
    iterations: usize,
    /// The fallbacks taken so far.
    pub fallbacks: Vec<Fallback>,
    /// How many dimensions of the original schedule have been appended.
    original_taken: usize,
    /// How the last influenced row was found (set by [`Pluto::advance`] when it appends a
    /// row under influence).
    pub held: Held,
}

/// How an influenced row was found: the rungs of the injection ladder it needed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Held {
    /// Without progression constraints (every dependence being satisfied already).
    pub without_progression: bool,
    /// After the open band was closed early.
    pub band_broken: bool,
}

/// The band being built.
#[derive(Clone, Debug)]
struct Band {
    id: usize,
    /// The validity and bounding constraints of the edges unsatisfied at its start.
    base: Rows,
    /// Edges unsatisfied when the band started.
    edges: Vec<bool>,
    found: usize,
    max: usize,
}

/// The outcome of [`Pluto::advance`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Advance {
    /// A loop row was appended.
    Appended,
    /// Every statement is full rank and every dependence is satisfied.
    Complete,
    /// The extra constraints admit no hyperplane here.
    Blocked,
}

/// Extra constraints for the next hyperplane (constraint injection).
#[derive(Clone, Debug)]
pub struct Influence {
    /// Rows over the ILP variables.
    pub rows: Rows,
    /// Whether a band may be closed early to satisfy them.
    pub break_band: bool,
}

/// The Pluto scheduler over a model.
pub struct Pluto<'a> {
    /// The problem (its edges' Farkas constraints computed).
    pub model: &'a Model,
    options: &'a Options,
    /// The ILP layout: `u_1..u_p, w`, then the coefficients.
    pub vars: Vars,
    budget: Budget,
    /// The original schedule's rows, when the search may fall back to them.
    original: Option<Vec<Row>>,
}

impl<'a> Pluto<'a> {
    /// A scheduler for `model`; `signed` allows negative iterator coefficients.
    pub fn new(model: &'a Model, options: &'a Options, budget: Budget, signed: bool) -> Pluto<'a> {
        let dims: Vec<usize> = model.stmts.iter().map(|s| s.dim).collect();
        let vars = Vars::new(&dims, model.n_params + 1, 0, signed);
        Pluto {
            model,
            options,
            vars,
            budget,
            original: None,
        }
    }

    /// Lets [`Pluto::complete`] fall back to the original schedule's rows (see
    /// [`crate::fallback`]) where the search is stuck.
    pub fn with_original(mut self, original: Vec<Row>) -> Pluto<'a> {
        self.original = Some(original);
        self
    }

    /// The empty schedule, with the smart-fusion pre-cut applied.
    pub fn initial_state(&mut self) -> Result<State> {
        let mut st = State {
            rows: Vec::new(),
            tracker: Tracker::new(self.model),
            band: None,
            n_bands: 0,
            lazy: false,
            iterations: 0,
            fallbacks: Vec::new(),
            original_taken: 0,
            held: Held::default(),
        };
        if self.options.fuse == Fuse::Smart {
            self.cut_dim_based(&mut st)?;
        }
        Ok(st)
    }

    /// The budget left.
    pub fn budget(&self) -> Budget {
        self.budget.clone()
    }

    /// Separates all components of the unsatisfied dependences by a scalar row;
    /// whether there was more than one.
    pub fn cut_all_components(&mut self, st: &mut State) -> Result<bool> {
        let sccs = self.sccs(st);
        self.cut_all(st, &sccs)
    }

    /// Runs the algorithm to completion from `st`; where it is stuck, falls back to the
    /// original schedule's next dimension when allowed ([`Pluto::with_original`]).
    pub fn complete(&mut self, st: &mut State) -> Result<()> {
        loop {
            match self.complete_plain(st) {
                Err(Error::NoLegalSchedule) if self.take_original_dimension(st)? => {}
                other => return other,
            }
        }
    }

    /// Runs the plain algorithm to completion from `st`.
    fn complete_plain(&mut self, st: &mut State) -> Result<()> {
        loop {
            match self.advance(st, None)? {
                Advance::Complete => return Ok(()),
                Advance::Appended => {}
                Advance::Blocked => return Err(Error::NoLegalSchedule),
            }
        }
    }

    /// Appends the original schedule's next dimension for the statements that resist
    /// (those with an unsatisfied dependence, or, when every dependence is satisfied,
    /// those not full rank), closing the open band; false when there is none left.
    fn take_original_dimension(&mut self, st: &mut State) -> Result<bool> {
        let Some(original) = &self.original else {
            return Ok(false);
        };
        let Some(next) = original.get(st.original_taken) else {
            return Ok(false);
        };
        let mut which = fallback::resisting(self.model, &st.tracker.satisfied);
        if which.is_empty() {
            which = (0..self.model.stmts.len())
                .filter(|&s| !self.is_full_rank(st, s))
                .collect();
        }
        let row = fallback::restricted(self.model, next, &which, st.n_bands);
        st.n_bands += 1;
        st.fallbacks.push(Fallback::OriginalDimension {
            statements: fallback::names(self.model, &which),
            level: st.rows.len(),
            original_level: st.original_taken,
        });
        st.original_taken += 1;
        if st.original_taken == original.len() {
            st.fallbacks.push(Fallback::OriginalOrder {
                statements: fallback::names(self.model, &which),
            });
        }
        st.band = None;
        st.lazy = false;
        st.iterations = 0;
        self.append_row(st, row)?;
        Ok(true)
    }

    /// Whether every statement is full rank and every dependence satisfied.
    pub fn is_complete(&self, st: &State) -> bool {
        st.tracker.satisfied.iter().all(|&s| s)
            && (0..self.model.stmts.len()).all(|s| self.is_full_rank(st, s))
    }

    fn is_full_rank(&self, st: &State, s: usize) -> bool {
        self.model.rank(&st.rows, s) >= self.model.stmts[s].dim
    }

    /// Runs the algorithm until it appends the next loop row (honouring `influence` for
    /// that row), or completes.
    pub fn advance(&mut self, st: &mut State, influence: Option<&Influence>) -> Result<Advance> {
        let max_iterations = 8 * (self.max_dim() + 2) * (self.model.stmts.len() + 2);
        st.held = Held::default();
        loop {
            st.iterations += 1;
            if st.iterations > max_iterations {
                return Err(Error::NoLegalSchedule);
            }
            if self.is_complete(st) {
                let Some(inf) = influence else {
                    return Ok(Advance::Complete);
                };
                // Influence asks for one more dimension: no progression constraints.
                self.open_band_if_closed(st)?;
                return Ok(match self.find(st, Some(&inf.rows), false)? {
                    Some(row) => {
                        st.held.without_progression = true;
                        self.append_loop_row(st, row)?;
                        Advance::Appended
                    }
                    None => Advance::Blocked,
                });
            }
            self.open_band_if_closed(st)?;
            let band = st.band.as_ref().expect("a band is open");
            if band.found < band.max {
                match influence {
                    None => {
                        if let Some(row) = self.find(st, None, true)? {
                            self.append_loop_row(st, row)?;
                            return Ok(Advance::Appended);
                        }
                    }
                    Some(inf) => {
                        if let Some(row) = self.find(st, Some(&inf.rows), true)? {
                            self.append_loop_row(st, row)?;
                            return Ok(Advance::Appended);
                        }
                        if st.tracker.satisfied.iter().all(|&s| s) {
                            if let Some(row) = self.find(st, Some(&inf.rows), false)? {
                                st.held.without_progression = true;
                                self.append_loop_row(st, row)?;
                                return Ok(Advance::Appended);
                            }
                        }
                        if self.find(st, None, true)?.is_some() {
                            if inf.break_band && self.can_break_band(st) {
                                st.held.band_broken = true;
                                st.band = None;
                                continue;
                            }
                            return Ok(Advance::Blocked);
                        }
                    }
                }
            }
            match self.after_band(st) {
                Err(Error::NoLegalSchedule) if !self.vars.signed => self.allow_negative(st),
                other => other?,
            }
        }
    }

    /// Switches to signed iterator coefficients from the next band on (the rows found so
    /// far stay), back in eager mode.
    fn allow_negative(&mut self, st: &mut State) {
        st.fallbacks.push(Fallback::NegativeCoefficients {
            level: st.rows.len(),
        });
        self.vars = Vars::new(&self.vars.dims, self.vars.prefix, 0, true);
        st.band = None;
        st.lazy = false;
    }

    /// Pluto's reaction to a band that can take no more hyperplanes.
    fn after_band(&mut self, st: &mut State) -> Result<()> {
        let band = st.band.take().expect("a band is open");
        if band.found >= 1 {
            return Ok(());
        }
        let sccs = self.sccs(st);
        if self.has_inter_scc_unsatisfied(st, &sccs) {
            let level = st.rows.len();
            self.cut_by_policy(st, &sccs)?;
            if st.rows.len() > level {
                st.fallbacks.push(Fallback::CutComponents {
                    level,
                    components: sccs.n_sccs,
                });
            }
            return Ok(());
        }
        if !st.lazy {
            st.lazy = true;
            return Ok(());
        }
        Err(Error::NoLegalSchedule)
    }

    /// The cut of the fusion policy, when no hyperplane was found.
    fn cut_by_policy(&mut self, st: &mut State, sccs: &Sccs) -> Result<()> {
        match self.options.fuse {
            Fuse::No => {
                self.cut_all(st, sccs)?;
            }
            Fuse::Smart => self.cut_smart(st, sccs)?,
            Fuse::Max => {
                if st.iterations > 2 * self.max_dim() {
                    self.cut_all(st, sccs)?;
                } else {
                    self.cut_conservative(st, sccs)?;
                }
            }
        }
        Ok(())
    }

    fn max_dim(&self) -> usize {
        self.model.stmts.iter().map(|s| s.dim).max().unwrap_or(0)
    }

    /// Whether closing the open band would drop some dependence from the validity
    /// constraints.
    fn can_break_band(&self, st: &State) -> bool {
        let Some(band) = &st.band else { return false };
        band.found >= 1
            && band
                .edges
                .iter()
                .zip(&st.tracker.satisfied)
                .any(|(&in_band, &sat)| in_band && sat)
    }

    fn open_band_if_closed(&mut self, st: &mut State) -> Result<()> {
        if st.band.is_some() {
            return Ok(());
        }
        if self.options.fuse == Fuse::No {
            let sccs = self.sccs(st);
            if sccs.n_sccs > 1 {
                self.cut_all(st, &sccs)?;
            }
        }
        let edges: Vec<bool> = st.tracker.satisfied.iter().map(|&s| !s).collect();
        let max = (0..self.model.stmts.len())
            .map(|s| {
                self.model.stmts[s].dim - self.model.rank(&st.rows, s).min(self.model.stmts[s].dim)
            })
            .max()
            .unwrap_or(0);
        let base = ilp::simplify(self.base_constraints(st, &edges)?);
        st.band = Some(Band {
            id: st.n_bands,
            base,
            edges,
            found: 0,
            max,
        });
        st.n_bands += 1;
        Ok(())
    }

    /// Validity (`δ = 0`) and distance-bound constraints of the given edges, and the
    /// coefficient bounds.
    fn base_constraints(&self, st: &mut State, edges: &[bool]) -> Result<Rows> {
        let mut rows = Rows::new(self.vars.n);
        let p = self.model.n_params;
        for (k, e) in self.model.edges.iter().enumerate() {
            if !edges[k] {
                continue;
            }
            let farkas = st.tracker.farkas(self.model, k, true)?;
            let targets = edge_targets(
                &self.vars,
                e,
                Target::Value(Int::zero()),
                &|i| Target::var(i),
                Target::var(p),
            );
            embed(&farkas.validity, &targets, &mut rows);
            if let Some(bounding) = &farkas.bounding {
                embed(bounding, &targets, &mut rows);
            }
        }
        if let Some(bound) = &self.model.coefficient_bound {
            for v in p + 1..self.vars.n {
                let mut r = self.vars.zero_row();
                r[0] = bound.clone();
                r[1 + v] = Int::from(-1);
                rows.ineqs.push(r);
            }
        }
        Ok(rows)
    }

    /// The lexicographically smallest hyperplane for the open band, with the
    /// progression constraints of the current mode when `progression` holds.
    fn find(&mut self, st: &State, extra: Option<&Rows>, progression: bool) -> Result<Option<Row>> {
        let band = st.band.as_ref().expect("a band is open");
        let kind = RowKind::Loop { band: band.id };
        let mut rows = band.base.clone();
        if let Some(extra) = extra {
            rows.eqs.extend(extra.eqs.iter().cloned());
            rows.ineqs.extend(extra.ineqs.iter().cloned());
        }
        if !progression {
            let sol = ilp::lexmin(&rows, &mut self.budget)?;
            return Ok(sol.map(|s| self.vars.row_of(&s, kind)));
        }
        let not_full: Vec<usize> = (0..self.model.stmts.len())
            .filter(|&s| !self.is_full_rank(st, s))
            .collect();
        if not_full.is_empty() {
            return Ok(None);
        }
        let sol = progress::lexmin_progressing(
            self.model,
            &self.vars,
            &st.rows,
            &rows,
            &not_full,
            st.lazy,
            &mut self.budget,
        )?;
        Ok(sol.map(|s| self.vars.row_of(&s, kind)))
    }

    /// Appends a loop row to the open band and updates the residuals.
    fn append_loop_row(&mut self, st: &mut State, row: Row) -> Result<()> {
        self.append_row(st, row)?;
        if let Some(band) = st.band.as_mut() {
            band.found += 1;
        }
        Ok(())
    }

    /// Appends a row and updates the residuals.
    pub fn append_row(&mut self, st: &mut State, row: Row) -> Result<()> {
        st.tracker.update(self.model, &row, &mut self.budget)?;
        st.rows.push(row);
        Ok(())
    }

    /// The components of the graph of unsatisfied dependences.
    fn sccs(&self, st: &State) -> Sccs {
        let edges: Vec<(usize, usize)> = self
            .model
            .edges
            .iter()
            .zip(&st.tracker.satisfied)
            .filter(|(_, &s)| !s)
            .map(|(e, _)| (e.source, e.target))
            .collect();
        Sccs::new(self.model.stmts.len(), &edges)
    }

    fn has_inter_scc_unsatisfied(&self, st: &State, sccs: &Sccs) -> bool {
        self.model
            .edges
            .iter()
            .zip(&st.tracker.satisfied)
            .any(|(e, &s)| !s && sccs.scc_of[e.source] != sccs.scc_of[e.target])
    }

    /// A scalar row giving statement `s` the value `value(s)`.
    fn scalar_row(&self, value: impl Fn(usize) -> usize) -> Row {
        let coeffs = self
            .model
            .stmts
            .iter()
            .enumerate()
            .map(|(s, stmt)| {
                let mut c = vec![Int::zero(); stmt.dim + 1];
                c[stmt.dim] = Int::from(value(s) as u64);
                c
            })
            .collect();
        Row {
            kind: RowKind::Scalar,
            coeffs,
        }
    }

    /// The number of unsatisfied edges a scalar row would satisfy.
    fn newly_satisfied(&self, st: &State, row: &Row) -> usize {
        self.model
            .edges
            .iter()
            .zip(&st.tracker.satisfied)
            .filter(|(e, &s)| {
                !s && self
                    .model
                    .constant_distance(e, row)
                    .is_some_and(|d| d.is_positive())
            })
            .count()
    }

    /// Appends a scalar row if it satisfies at least one dependence (or always, when
    /// `force`); returns whether it did.
    fn add_cut(&mut self, st: &mut State, row: Row, force: bool) -> Result<bool> {
        if !force && self.newly_satisfied(st, &row) == 0 {
            return Ok(false);
        }
        self.append_row(st, row)?;
        Ok(true)
    }

    /// Cuts between all components.
    fn cut_all(&mut self, st: &mut State, sccs: &Sccs) -> Result<bool> {
        if sccs.n_sccs <= 1 {
            return Ok(false);
        }
        let row = self.scalar_row(|s| sccs.scc_of[s]);
        self.add_cut(st, row, true)
    }

    /// Cuts between consecutive components of different dimensionality.
    fn cut_dim_based(&mut self, st: &mut State) -> Result<bool> {
        let sccs = self.sccs(st);
        if sccs.n_sccs <= 1 {
            return Ok(false);
        }
        let mut max_dim = vec![0usize; sccs.n_sccs];
        for (s, stmt) in self.model.stmts.iter().enumerate() {
            let c = sccs.scc_of[s];
            max_dim[c] = max_dim[c].max(stmt.dim);
        }
        let mut group = vec![0usize; sccs.n_sccs];
        let mut count = 0;
        for c in 1..sccs.n_sccs {
            if max_dim[c] != max_dim[c - 1] {
                count += 1;
            }
            group[c] = count;
        }
        let row = self.scalar_row(|s| group[sccs.scc_of[s]]);
        self.add_cut(st, row, false)
    }

    /// Whether an unsatisfied edge goes from component `a` to component `b`.
    fn directly_connected(&self, st: &State, sccs: &Sccs, a: usize, b: usize) -> bool {
        self.model
            .edges
            .iter()
            .zip(&st.tracker.satisfied)
            .any(|(e, &s)| !s && sccs.scc_of[e.source] == a && sccs.scc_of[e.target] == b)
    }

    /// Cuts between the components before `b` and the others, if `a` feeds `b`.
    fn cut_between(&mut self, st: &mut State, sccs: &Sccs, a: usize, b: usize) -> Result<bool> {
        if !self.directly_connected(st, sccs, a, b) {
            return Ok(false);
        }
        let row = self.scalar_row(|s| usize::from(sccs.scc_of[s] >= b));
        self.add_cut(st, row, false)
    }

    /// Pluto's `cut_smart`.
    fn cut_smart(&mut self, st: &mut State, sccs: &Sccs) -> Result<()> {
        if (0..self.model.stmts.len()).all(|s| self.is_full_rank(st, s)) {
            self.cut_all(st, sccs)?;
            return Ok(());
        }
        if self.cut_dim_based(st)? {
            return Ok(());
        }
        let n = sccs.n_sccs;
        let mid = n.div_ceil(2);
        if mid >= 1 && mid < n && self.cut_between(st, sccs, mid - 1, mid)? {
            return Ok(());
        }
        for i in 0..n.saturating_sub(1) {
            for j in (i + 1..n).rev() {
                if st.rows.len() <= 4 * self.max_dim() + 2 {
                    self.cut_between(st, sccs, i, j)?;
                } else {
                    self.cut_all(st, sccs)?;
                    return Ok(());
                }
            }
        }
        Ok(())
    }

    /// Pluto's `cut_conservative`: as few dependences cut as possible.
    fn cut_conservative(&mut self, st: &mut State, sccs: &Sccs) -> Result<()> {
        if self.cut_dim_based(st)? {
            return Ok(());
        }
        let n = sccs.n_sccs;
        let mid = n.div_ceil(2);
        if mid >= 1 && mid < n && self.cut_between(st, sccs, mid - 1, mid)? {
            return Ok(());
        }
        for i in 0..n.saturating_sub(1) {
            for j in (i + 1..n).rev() {
                if st.rows.len() <= 4 * self.max_dim() + 2 {
                    if self.cut_between(st, sccs, i, j)? {
                        return Ok(());
                    }
                } else {
                    self.cut_all(st, sccs)?;
                    return Ok(());
                }
            }
        }
        Ok(())
    }
}
