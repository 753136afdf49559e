//! Fusibility of a set of statements at the outermost level, and the pairwise
//! permutation sets of Lemma 6.
//!
//! Pouchet et al., POPL 2011, Def. 7 (§4.2) and §4.3; digest
//! `shared/digests/pouchet-popl11.md` §2.8–2.9. A set of statements is *fusable* when
//! one schedule row, an affine form `Θ^S(x) = θ^S·x + c^S` per statement with
//! non-negative iterator coefficients (`θ ∈ N`) on the loops normalised to run upwards
//! (Def. 7 assumes normalised loops: an iterator whose original loop runs downwards
//! enters as `−i`, see [`Problem::orientation`]), exists such that
//! - every dependence among the set's statements (self-dependences included) is weakly
//!   satisfied: `Θ^T(y) − Θ^S(x) ≥ 0` on its polyhedron (Farkas' lemma through
//!   [`pollen_sched::farkas`]);
//! - every statement's row is non-constant: `Σ θ^S ≥ 1` (Def. 7 (ii));
//! - the rows are aligned: no parameter coefficients (equal parametric parts) and
//!   constants that differ by at most [`FusionOptions::max_shift`] (Def. 7 (i), in the
//!   digest's reading, with `c = max_shift + 1`).
//!
//! Such a row, followed by the original schedule of the set, is legal for the set's
//! dependences, so the test decides the existence of a legal schedule that fuses the
//! set under one outer loop in the sense of Def. 7. It is a joint test on the whole set:
//! the pairwise Lemma 6 is not sound once rows may skew (digest T18), and is offered
//! here ([`Problem::compatible_selectors`]) only as the paper's characterisation.
//!
//! With [`RowKind::Selector`] the iterator part of each row is one loop iterator (a
//! pure permutation, `θ^S = μ^S`): the rows in which the paper's M-sets of ThreeMatMat
//! are stated.
//!
//! # Invariants
//! - `edges` hold every dependence of the scop whose two statements are known, with
//!   the relation's columns `[params | source dims | target dims | locals]`;
//! - a set answered fusable has a witness row; the tests check it against the exact
//!   integer dependences.

use pollen_arith::Int;
use pollen_deps::Dependences;
use pollen_presburger::solver::Optimum;
use pollen_presburger::{BasicMap, Budget, DimKind, Map, Set, Space};
use pollen_sched::farkas;
use pollen_scop::Scop;

use crate::error::{Error, Result};

/// The iterator parts a fusing row may have.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum RowKind {
    /// Any non-negative, non-constant combination of the iterators (skewing allowed):
    /// the rows of Def. 7.
    #[default]
    Affine,
    /// Exactly one iterator with coefficient 1 (loop permutation and shifting only).
    Selector,
}

/// How fusion is tested.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct FusionOptions {
    /// The largest difference between the constants of two fused rows (`c − 1` in
    /// Def. 7 (i)); `0` asks for aligned rows.
    pub max_shift: u32,
    /// The iterator parts allowed.
    pub rows: RowKind,
}

/// A dependence between two statements of a [`Problem`].
#[derive(Clone, Debug)]
pub struct Edge {
    /// The source statement's index.
    pub source: usize,
    /// The target statement's index.
    pub target: usize,
    /// The dependence relation.
    pub relation: Map,
}

/// The statements of a scop (names and loop depths) and their dependences, the input of
/// the fusion tests and of the pruning.
#[derive(Clone, Debug)]
pub struct Problem {
    names: Vec<String>,
    dims: Vec<usize>,
    orientation: Vec<Vec<i64>>,
    edges: Vec<Edge>,
}

/// A fusing row of one statement: iterator coefficients and constant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// One coefficient per loop iterator, outermost first.
    pub iterators: Vec<Int>,
    /// The constant.
    pub constant: Int,
}

impl Problem {
    /// The statements of `scop` and the dependences `deps` (computed on that scop).
    pub fn new(scop: &Scop, deps: &Dependences) -> Result<Problem> {
        let names: Vec<String> = scop.statements.iter().map(|s| s.name.clone()).collect();
        let dims = scop.statements.iter().map(|s| s.domain.n_dims()).collect();
        let index = |name: &str| {
            names
                .iter()
                .position(|n| n == name)
                .ok_or_else(|| Error::UnknownStatement(name.to_string()))
        };
        let mut edges = Vec::new();
        for d in deps.iter() {
            edges.push(Edge {
                source: index(&d.source)?,
                target: index(&d.target)?,
                relation: d.relation.clone(),
            });
        }
        let orientation = orientations(scop)?;
        Ok(Problem {
            names,
            dims,
            orientation,
            edges,
        })
    }

    /// Per statement and loop iterator, `1` when the original loop runs upwards and
    /// `-1` when it runs downwards.
    pub fn orientation(&self) -> &[Vec<i64>] {
        &self.orientation
    }

    /// The statement names, in scop order.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The number of statements.
    pub fn n_statements(&self) -> usize {
        self.names.len()
    }

    /// The loop depth of every statement.
    pub fn dims(&self) -> &[usize] {
        &self.dims
    }

    /// The dependences.
    pub fn edges(&self) -> &[Edge] {
        &self.edges
    }

    /// Whether some dependence goes from statement `a` to statement `b`.
    pub fn depends(&self, a: usize, b: usize) -> bool {
        self.edges.iter().any(|e| e.source == a && e.target == b)
    }

    /// Fails with [`Error::BadGroup`] unless `group` lists distinct statement indices.
    fn check_group(&self, group: &[usize]) -> Result<()> {
        let n = self.names.len();
        let mut seen = vec![false; n];
        for &s in group {
            if s >= n || std::mem::replace(&mut seen[s], true) {
                return Err(Error::BadGroup(group.to_vec()));
            }
        }
        Ok(())
    }

    /// Whether `group` (statement indices) is fusable at the outermost level.
    pub fn fusable(&self, group: &[usize], options: &FusionOptions) -> Result<bool> {
        self.fusable_with(group, options, &mut Budget::unlimited())
    }

    /// [`Problem::fusable`] within a budget.
    pub fn fusable_with(
        &self,
        group: &[usize],
        options: &FusionOptions,
        budget: &mut Budget,
    ) -> Result<bool> {
        let none = vec![None; group.len()];
        Ok(!self.rows(group, &none, options)?.is_empty_with(budget)?)
    }

    /// A fusing row per statement of `group`, the lexicographically smallest over the
    /// statements' coefficients then constants in group order, or `None` when it is not
    /// fusable.
    pub fn fusing_rows(
        &self,
        group: &[usize],
        options: &FusionOptions,
    ) -> Result<Option<Vec<Row>>> {
        let none = vec![None; group.len()];
        let set = self.rows(group, &none, options)?;
        let v = match set.lexmin_point()? {
            Optimum::Bounded(v) => v,
            Optimum::Empty => return Ok(None),
            // Every unknown is bounded below by 0.
            Optimum::Unbounded => match set.sample()? {
                Some(v) => v,
                None => return Ok(None),
            },
        };
        let layout = Layout::new(&self.dims, group);
        Ok(Some(
            group
                .iter()
                .enumerate()
                .map(|(g, &s)| Row {
                    iterators: v[layout.offset[g]..layout.offset[g] + self.dims[s]]
                        .iter()
                        .zip(&self.orientation[s])
                        .map(|(c, &o)| c * &Int::from(o))
                        .collect(),
                    constant: v[layout.constant(g, &self.dims, group)].clone(),
                })
                .collect(),
        ))
    }

    /// Whether `group` is fusable with the row of each statement selecting the given
    /// loop iterator: its first non-zero coefficient (the paper's μ convention) for
    /// [`RowKind::Affine`], its only one for [`RowKind::Selector`].
    pub fn fusable_selecting(
        &self,
        group: &[usize],
        selectors: &[usize],
        options: &FusionOptions,
    ) -> Result<bool> {
        self.check_group(group)?;
        let chosen: Vec<Option<usize>> = selectors.iter().map(|&s| Some(s)).collect();
        if chosen.len() != group.len()
            || group
                .iter()
                .zip(selectors)
                .any(|(&s, &m)| m >= self.dims[s])
        {
            return Ok(false);
        }
        Ok(!self.rows(group, &chosen, options)?.is_empty()?)
    }

    /// The set M of the pair `(r, s)`: the iterator pairs `(μ^r, μ^s)` for which the two
    /// statements are fusable with rows selecting them.
    pub fn permutation_pairs(
        &self,
        r: usize,
        s: usize,
        options: &FusionOptions,
    ) -> Result<Vec<(usize, usize)>> {
        self.check_group(&[r, s])?;
        let mut out = Vec::new();
        for a in 0..self.dims[r] {
            for b in 0..self.dims[s] {
                if self.fusable_selecting(&[r, s], &[a, b], options)? {
                    out.push((a, b));
                }
            }
        }
        Ok(out)
    }

    /// Lemma 6's pairwise test: every choice of one iterator per statement of `group`
    /// whose every pair lies in the pair's M-set, in lexicographic order. A sufficient
    /// condition of fusibility only for pure selectors; see the module doc.
    pub fn compatible_selectors(
        &self,
        group: &[usize],
        options: &FusionOptions,
    ) -> Result<Vec<Vec<usize>>> {
        self.check_group(group)?;
        let k = group.len();
        let mut m = vec![vec![Vec::new(); k]; k];
        for a in 0..k {
            for b in a + 1..k {
                m[a][b] = self.permutation_pairs(group[a], group[b], options)?;
            }
        }
        let mut out = Vec::new();
        let mut choice = vec![0usize; k];
        self.extend_choice(group, &m, 0, &mut choice, &mut out);
        Ok(out)
    }

    fn extend_choice(
        &self,
        group: &[usize],
        m: &[Vec<Vec<(usize, usize)>>],
        at: usize,
        choice: &mut Vec<usize>,
        out: &mut Vec<Vec<usize>>,
    ) {
        if at == group.len() {
            out.push(choice.clone());
            return;
        }
        for mu in 0..self.dims[group[at]] {
            if (0..at).all(|b| m[b][at].contains(&(choice[b], mu))) {
                choice[at] = mu;
                self.extend_choice(group, m, at + 1, choice, out);
            }
        }
    }

    /// The integer set of fusing rows of `group`, over the unknowns of [`Layout`].
    fn rows(
        &self,
        group: &[usize],
        chosen: &[Option<usize>],
        options: &FusionOptions,
    ) -> Result<Set> {
        self.check_group(group)?;
        let layout = Layout::new(&self.dims, group);
        let n_v = layout.n_vars;
        let mut b = BasicMap::universe(Space::set_anonymous(n_v));
        let unit = |v: usize, c: i64| {
            let mut r = vec![Int::zero(); 1 + n_v];
            r[1 + v] = Int::from(c);
            r
        };
        for (g, &s) in group.iter().enumerate() {
            let first = layout.offset[g];
            let d = self.dims[s];
            let constant = layout.constant(g, &self.dims, group);
            // θ ≥ 0, c ≥ 0 and Σ θ ≥ 1.
            for v in first..=constant {
                b.add_ineq(unit(v, 1));
            }
            let mut sum = vec![Int::zero(); 1 + n_v];
            sum[0] = Int::from(-1);
            for v in first..first + d {
                sum[1 + v] = Int::one();
            }
            b.add_ineq(sum);
            match (chosen[g], options.rows) {
                (Some(mu), RowKind::Affine) => {
                    for v in first..first + mu {
                        b.add_eq(unit(v, 1));
                    }
                    let mut r = unit(first + mu, 1);
                    r[0] = Int::from(-1);
                    b.add_ineq(r);
                }
                (Some(mu), RowKind::Selector) => {
                    for v in first..first + d {
                        let mut r = unit(v, 1);
                        if v == first + mu {
                            r[0] = Int::from(-1);
                        }
                        b.add_eq(r);
                    }
                }
                (None, RowKind::Selector) => {
                    // Σ θ = 1 with θ ≥ 0 integer: one iterator with coefficient 1.
                    let mut r = vec![Int::zero(); 1 + n_v];
                    r[0] = Int::one();
                    for v in first..first + d {
                        r[1 + v] = Int::from(-1);
                    }
                    b.add_ineq(r);
                }
                (None, RowKind::Affine) => {}
            }
        }
        // Aligned constants: |c_g − c_h| ≤ max_shift for every pair.
        for g in 0..group.len() {
            for h in g + 1..group.len() {
                let (cg, ch) = (
                    layout.constant(g, &self.dims, group),
                    layout.constant(h, &self.dims, group),
                );
                for sign in [1, -1] {
                    let mut r = vec![Int::zero(); 1 + n_v];
                    r[0] = Int::from(i64::from(options.max_shift));
                    r[1 + cg] = Int::from(-sign);
                    r[1 + ch] = Int::from(sign);
                    b.add_ineq(r);
                }
            }
        }
        for e in &self.edges {
            let (Some(gs), Some(gt)) = (
                group.iter().position(|&s| s == e.source),
                group.iter().position(|&s| s == e.target),
            ) else {
                continue;
            };
            for rows in self.validity(e, gs, gt, &layout, group)? {
                for r in rows.eqs {
                    b.add_eq(r);
                }
                for r in rows.ineqs {
                    b.add_ineq(r);
                }
            }
        }
        Ok(Set::from_map(Map::from_basic(b))?)
    }

    /// The Farkas constraints, one system per basic map of `e`, under which
    /// `Θ^target(y) − Θ^source(x) ≥ 0` on the dependence.
    fn validity(
        &self,
        e: &Edge,
        gs: usize,
        gt: usize,
        layout: &Layout,
        group: &[usize],
    ) -> Result<Vec<pollen_sched::fm::Rows>> {
        let n_v = layout.n_vars;
        let (ds, dt) = (self.dims[e.source], self.dims[e.target]);
        let p = e.relation.space().n_params();
        let mut out = Vec::new();
        for b in e.relation.basic_maps() {
            let sys = b.to_system();
            let zero = || vec![Int::zero(); 1 + n_v];
            let mut forms = vec![zero(); sys.n_vars];
            for k in 0..ds {
                forms[p + k][1 + layout.offset[gs] + k] -=
                    &Int::from(self.orientation[e.source][k]);
            }
            for k in 0..dt {
                forms[p + ds + k][1 + layout.offset[gt] + k] +=
                    &Int::from(self.orientation[e.target][k]);
            }
            let mut constant = zero();
            constant[1 + layout.constant(gt, &self.dims, group)] += &Int::one();
            constant[1 + layout.constant(gs, &self.dims, group)] -= &Int::one();
            out.push(farkas::nonnegative_on(&sys, &forms, &constant, n_v)?);
        }
        Ok(out)
    }
}

/// The direction of every loop of every statement in the original schedule: `-1` for
/// an iterator that the flattened schedule orders by `-i` (a loop running downwards),
/// `1` otherwise.
fn orientations(scop: &Scop) -> Result<Vec<Vec<i64>>> {
    let flat = scop.schedule.to_union_map()?;
    Ok(scop
        .statements
        .iter()
        .map(|st| {
            let mut sigma = vec![1; st.domain.n_dims()];
            let map = flat.maps().find(|m| {
                m.space().domain_tuple().and_then(|t| t.name()) == Some(st.name.as_str())
            });
            if let Some([b]) = map.map(|m| m.basic_maps()) {
                for (k, sign) in sigma.iter_mut().enumerate() {
                    *sign = direction(b, k).unwrap_or(1);
                }
            }
            sigma
        })
        .collect())
}

/// The sign of iterator `k` in the equality that defines a schedule dimension from it.
fn direction(b: &BasicMap, k: usize) -> Option<i64> {
    let col = b.dim_col(DimKind::In, k);
    let n_out = b.space().n_out();
    b.eqs().iter().find_map(|row| {
        if row[col].is_zero() {
            return None;
        }
        let outs: Vec<usize> = (0..n_out)
            .map(|o| b.dim_col(DimKind::Out, o))
            .filter(|&c| !row[c].is_zero())
            .collect();
        match outs[..] {
            // a_out·t + a_in·i + … = 0: t grows with i iff the signs differ.
            [c] => Some(if row[c].is_negative() == row[col].is_negative() {
                -1
            } else {
                1
            }),
            _ => None,
        }
    })
}

/// The unknowns of a group's rows: per statement, its iterator coefficients then its
/// constant.
struct Layout {
    offset: Vec<usize>,
    n_vars: usize,
}

impl Layout {
    fn new(dims: &[usize], group: &[usize]) -> Layout {
        let mut offset = Vec::with_capacity(group.len());
        let mut n = 0;
        for &s in group {
            offset.push(n);
            n += dims[s] + 1;
        }
        Layout { offset, n_vars: n }
    }

    fn constant(&self, g: usize, dims: &[usize], group: &[usize]) -> usize {
        self.offset[g] + dims[group[g]]
    }
}
