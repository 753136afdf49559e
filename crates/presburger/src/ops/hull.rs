//! Hulls: a single basic set (or basic map) containing a set (or map).
//!
//! - `simple_hull` (in the spirit of isl's `isl_set_simple_hull`): every constraint of
//!   some part that involves no local variable is a candidate direction `a·x + c ≥ 0`;
//!   the exact integer minimum `m` of `a·x` over the whole set (parameters counted as
//!   variables) gives the tightest valid shift `a·x - m ≥ 0`. Candidates whose minimum
//!   is unbounded on some part are dropped. A constraint already valid on every part
//!   keeps a shift at least as tight as its own, so parametric bounds such as
//!   `i ≤ N - 1` survive when all parts respect them. Redundant constraints are removed
//!   from the result.
//! - `box_hull`: for every set dimension its constant integer minimum and maximum over
//!   the set (over all parameter values), when they exist, together with the
//!   constraints of the simple hull that bound one set dimension in terms of the
//!   parameters only (the "easy" parametric bounds). Other parametric information is
//!   not kept, so the box may be larger than the smallest parametric box.
//!
//! Local variables of the parts are not carried over: the hull has none.
//!
//! # Invariants
//! - the hull contains every point of the input; the hull of an empty input is empty.

use pollen_arith::Int;

use crate::bmap::BasicMap;
use crate::error::{Budget, Result};
use crate::map::Map;
use crate::set::{BasicSet, Set};
use crate::solver::{self, Optimum};

use super::gist::remove_redundant_basic;
use super::{capped, constraints_as_ineqs, nonempty_parts};

impl Map {
    /// A single basic map containing the map (see the module documentation).
    pub fn simple_hull(&self) -> Result<BasicMap> {
        self.simple_hull_with(&mut Budget::unlimited())
    }

    /// [`Map::simple_hull`] within a budget.
    pub fn simple_hull_with(&self, budget: &mut Budget) -> Result<BasicMap> {
        let parts = nonempty_parts(self, budget)?;
        if parts.is_empty() {
            return Ok(BasicMap::empty(self.space().clone()));
        }
        let nd = self.space().n_dims();
        let mut directions: Vec<Vec<Int>> = Vec::new();
        for p in &parts {
            for r in constraints_as_ineqs(p) {
                if r[1 + nd..].iter().all(Int::is_zero) {
                    let mut d = r[..=nd].to_vec();
                    d[0] = Int::zero();
                    let g = pollen_arith::gcd_slice(&d);
                    if g.is_zero() {
                        continue;
                    }
                    let d: Vec<Int> = d.iter().map(|c| c.exact_div(&g)).collect();
                    if !directions.contains(&d) {
                        directions.push(d);
                    }
                }
            }
        }
        let mut hull = BasicMap::universe(self.space().clone());
        for d in directions {
            budget.tick(1)?;
            if let Some(m) = min_over(&parts, &d, budget)? {
                let mut row = d;
                row[0] = -m;
                hull.add_ineq(row);
            }
        }
        remove_redundant_basic(&hull.simplify(), budget)
    }

    /// The box hull: constant bounds of each input and output dimension plus the easy
    /// parametric ones (see the module documentation).
    pub fn box_hull(&self) -> Result<BasicMap> {
        self.box_hull_with(&mut Budget::unlimited())
    }

    /// [`Map::box_hull`] within a budget.
    pub fn box_hull_with(&self, budget: &mut Budget) -> Result<BasicMap> {
        let parts = nonempty_parts(self, budget)?;
        if parts.is_empty() {
            return Ok(BasicMap::empty(self.space().clone()));
        }
        let np = self.space().n_params();
        let nd = self.space().n_dims();
        let mut hull = BasicMap::universe(self.space().clone());
        for i in np..nd {
            for sign in [1i64, -1] {
                budget.tick(1)?;
                let mut d = vec![Int::zero(); nd + 1];
                d[1 + i] = Int::from(sign);
                if let Some(m) = min_over(&parts, &d, budget)? {
                    d[0] = -m;
                    hull.add_ineq(d);
                }
            }
        }
        let simple = self.simple_hull_with(budget)?;
        for r in constraints_as_ineqs(&simple) {
            let dims = r[1 + np..=nd].iter().filter(|c| !c.is_zero()).count();
            if dims == 1 && r[1 + nd..].iter().all(Int::is_zero) {
                hull.add_ineq(r[..=nd].to_vec());
            }
        }
        remove_redundant_basic(&hull.simplify(), budget)
    }
}

impl Set {
    /// A single basic set containing the set (see the module documentation).
    pub fn simple_hull(&self) -> Result<BasicSet> {
        self.simple_hull_with(&mut Budget::unlimited())
    }

    /// [`Set::simple_hull`] within a budget.
    pub fn simple_hull_with(&self, budget: &mut Budget) -> Result<BasicSet> {
        BasicSet::from_basic_map(self.as_map().simple_hull_with(budget)?)
    }

    /// The box hull: per-dimension constant integer bounds plus the easy parametric ones
    /// (see the module documentation).
    pub fn box_hull(&self) -> Result<BasicSet> {
        self.box_hull_with(&mut Budget::unlimited())
    }

    /// [`Set::box_hull`] within a budget.
    pub fn box_hull_with(&self, budget: &mut Budget) -> Result<BasicSet> {
        BasicSet::from_basic_map(self.as_map().box_hull_with(budget)?)
    }
}

/// The integer minimum of the linear form `d` (over the dimensions, `d[0]` ignored) over
/// the parts, `None` when it is unbounded on one of them (or the solver's cap runs out:
/// the hull then just lacks that constraint).
fn min_over(parts: &[BasicMap], d: &[Int], budget: &mut Budget) -> Result<Option<Int>> {
    let mut best: Option<Int> = None;
    for p in parts {
        let sys = p.to_system();
        let mut objective = vec![Int::zero(); sys.n_vars + 1];
        objective[1..d.len()].clone_from_slice(&d[1..]);
        let Some(optimum) = capped(budget, |local| solver::integer_min(&sys, &objective, local))?
        else {
            return Ok(None);
        };
        match optimum {
            Optimum::Unbounded => return Ok(None),
            Optimum::Empty => {}
            Optimum::Bounded((m, _)) => {
                best = Some(match best {
                    Some(b) if b <= m => b,
                    _ => m,
                });
            }
        }
    }
    Ok(best)
}
