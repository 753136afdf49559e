//! From schedule rows to a schedule tree, with exact coincidence and wavefronts.
//!
//! Statements are grouped by the values of the scalar rows: a scalar row that gives the
//! statements of a group different values becomes a sequence of filters (in increasing
//! value); consecutive loop rows of one band become a band node over the statements of
//! the group. A band member that is the same constant for every statement of the group
//! orders nothing and is left out. The scheduler ends a band for every statement at once;
//! a group whose dependences are all non-negative on the next band's rows too (and that
//! no scalar row in between splits) keeps one band across both, so that, e.g., a matrix
//! product cut off from its neighbours still gets one 3-deep tilable band.
//!
//! **Coincidence** is decided exactly per group: a member is coincident when every
//! dependence between statements of the group has distance exactly zero on it for all
//! its pairs not already strictly ordered by the outer rows (the dependence's residual
//! before the member is contained in `φ_T = φ_S`).
//!
//! **Wavefront** (pipelined parallelism, `Options::wavefront`): in a band of at least two
//! members whose first member is not coincident, the first member is replaced by the sum
//! of the first two; if that does not make the second member coincident, by the sum of
//! all members (which makes every other member coincident whenever every dependence has
//! a positive distance on the sum); if neither helps, the band is kept. Both are
//! unimodular changes of the band's rows, so the band stays permutable and legal.
//!
//! # Invariants
//! Every band schedule maps each statement of its group to `coincident.len()` values.

use pollen_arith::Int;
use pollen_presburger::{BasicMap, Budget, Map, Space, Tuple, UnionMap, UnionSet};
use pollen_scop::{Band, Node, ScheduleTree};

use crate::error::Result;
use crate::model::{Distance, Model, Row, RowKind};

/// Builds the schedule tree of `rows`.
pub fn build_tree(
    model: &Model,
    rows: &[Row],
    wavefront: bool,
    budget: &mut Budget,
) -> Result<ScheduleTree> {
    let residuals = residual_chains(model, rows, budget)?;
    let mut builder = Builder {
        model,
        rows,
        residuals,
        wavefront,
        budget,
    };
    let all: Vec<usize> = (0..model.stmts.len()).collect();
    let child = builder.node(&all, 0)?;
    let mut domain = UnionSet::empty(param_names(model));
    for s in &model.stmts {
        domain.add_set(s.domain.clone())?;
    }
    Ok(ScheduleTree {
        root: Node::Domain {
            domain,
            child: Box::new(child),
        },
    })
}

fn param_names(model: &Model) -> Vec<String> {
    model
        .stmts
        .first()
        .map(|s| s.domain.space().param_names().to_vec())
        .unwrap_or_default()
}

/// Per edge, the residual before every row (`rows.len() + 1` entries).
fn residual_chains(model: &Model, rows: &[Row], budget: &mut Budget) -> Result<Vec<Vec<Map>>> {
    let mut all = Vec::with_capacity(model.edges.len());
    for e in &model.edges {
        let mut chain = vec![e.relation.clone()];
        let mut current = e.relation.clone();
        for row in rows {
            if !current.basic_maps().is_empty() {
                current = model.restrict(e, &current, row, Distance::Zero)?;
                current = current.remove_empty_parts(budget)?;
            }
            chain.push(current.clone());
        }
        all.push(chain);
    }
    Ok(all)
}

struct Builder<'a, 'b> {
    model: &'a Model,
    rows: &'a [Row],
    residuals: Vec<Vec<Map>>,
    wavefront: bool,
    budget: &'b mut Budget,
}

impl Builder<'_, '_> {
    /// The subtree scheduling the statements `group` from row `r` on.
    fn node(&mut self, group: &[usize], mut r: usize) -> Result<Node> {
        while r < self.rows.len() {
            match self.rows[r].kind {
                RowKind::Scalar => {
                    let parts = self.partition(group, r);
                    if parts.len() > 1 {
                        return self.sequence(&parts, r + 1);
                    }
                    r += 1;
                }
                RowKind::Loop { band } => {
                    let mut end = self.band_end(r, band);
                    let mut members: Vec<usize> =
                        (r..end).filter(|&k| !self.is_trivial(group, k)).collect();
                    while let Some((next, next_end)) = self.mergeable_band(group, r, end)? {
                        members.extend((next..next_end).filter(|&k| !self.is_trivial(group, k)));
                        end = next_end;
                    }
                    if members.is_empty() {
                        r = end;
                        continue;
                    }
                    return self.band(group, r, &members, end);
                }
            }
        }
        Ok(Node::Leaf)
    }

    /// The end of the band `band` whose first row is `r`.
    fn band_end(&self, r: usize, band: usize) -> usize {
        let mut end = r;
        while end < self.rows.len() && self.rows[end].kind == (RowKind::Loop { band }) {
            end += 1;
        }
        end
    }

    /// The rows `next..next_end` of the band that follows the rows `start..end` for the
    /// statements of `group`, when it can join them in one permutable band.
    ///
    /// The scheduler ends a band for all statements at once, often because of a cut
    /// between other statements; for this group the next band continues the current one
    /// when only scalar rows that order nothing within the group lie between them and
    /// every dependence of the group still unordered at `start` has a non-negative
    /// distance on each of the next band's rows (the condition of permutability).
    fn mergeable_band(
        &mut self,
        group: &[usize],
        start: usize,
        end: usize,
    ) -> Result<Option<(usize, usize)>> {
        let mut next = end;
        while next < self.rows.len()
            && self.rows[next].kind == RowKind::Scalar
            && self.partition(group, next).len() == 1
        {
            next += 1;
        }
        let Some(RowKind::Loop { band }) = self.rows.get(next).map(|row| row.kind) else {
            return Ok(None);
        };
        let next_end = self.band_end(next, band);
        for (k, e) in self.model.edges.iter().enumerate() {
            if !group.contains(&e.source) || !group.contains(&e.target) {
                continue;
            }
            let current = &self.residuals[k][start];
            if current.basic_maps().is_empty() {
                continue;
            }
            for row in &self.rows[next..next_end] {
                let negative = self
                    .model
                    .restrict(e, current, row, Distance::AtMostMinusOne)?;
                if !negative.is_empty_with(self.budget)? {
                    return Ok(None);
                }
            }
        }
        Ok(Some((next, next_end)))
    }

    /// The statements of `group` split by their value on scalar row `r`, in increasing
    /// value.
    fn partition(&self, group: &[usize], r: usize) -> Vec<Vec<usize>> {
        let mut parts: std::collections::BTreeMap<Int, Vec<usize>> = Default::default();
        for &s in group {
            let c = self.rows[r].coeffs[s].last().cloned().unwrap_or_default();
            parts.entry(c).or_default().push(s);
        }
        parts.into_values().collect()
    }

    fn sequence(&mut self, parts: &[Vec<usize>], next: usize) -> Result<Node> {
        let mut children = Vec::new();
        for part in parts {
            let mut filter = UnionSet::empty(param_names(self.model));
            for &s in part {
                filter.add_set(self.model.stmts[s].domain.clone())?;
            }
            children.push(Node::filter(filter, self.node(part, next)?));
        }
        Ok(Node::Sequence(children))
    }

    /// Whether row `k` is the same constant for every statement of `group`.
    fn is_trivial(&self, group: &[usize], k: usize) -> bool {
        let row = &self.rows[k];
        let first = row.coeffs[group[0]].last();
        group
            .iter()
            .all(|&s| row.is_constant_for(s) && row.coeffs[s].last() == first)
    }

    /// A band node of the members `members` (rows of one band starting at `start`).
    fn band(
        &mut self,
        group: &[usize],
        start: usize,
        members: &[usize],
        end: usize,
    ) -> Result<Node> {
        let mut member_rows: Vec<Row> = members.iter().map(|&k| self.rows[k].clone()).collect();
        let mut coincident = self.coincidence(group, start, &member_rows)?;
        if self.wavefront && member_rows.len() >= 2 && !coincident[0] {
            if let Some((rows, flags)) = self.wavefront_rows(group, start, &member_rows)? {
                member_rows = rows;
                coincident = flags;
            }
        }
        let schedule = self.band_schedule(group, &member_rows)?;
        let child = self.node(group, end)?;
        Ok(Node::Band(Band {
            schedule,
            permutable: true,
            coincident,
            child: Box::new(child),
        }))
    }

    /// Coincidence of every member row, the band starting at global row `start`.
    fn coincidence(&mut self, group: &[usize], start: usize, members: &[Row]) -> Result<Vec<bool>> {
        let mut flags = vec![true; members.len()];
        for (k, e) in self.model.edges.iter().enumerate() {
            if !group.contains(&e.source) || !group.contains(&e.target) {
                continue;
            }
            let mut current = self.residuals[k][start].clone();
            for (m, row) in members.iter().enumerate() {
                if current.basic_maps().is_empty() {
                    break;
                }
                if flags[m] {
                    for side in [Distance::AtLeastOne, Distance::AtMostMinusOne] {
                        let off = self.model.restrict(e, &current, row, side)?;
                        if !off.is_empty_with(self.budget)? {
                            flags[m] = false;
                            break;
                        }
                    }
                }
                current = self.model.restrict(e, &current, row, Distance::Zero)?;
                current = current.remove_empty_parts(self.budget)?;
            }
        }
        Ok(flags)
    }

    /// The wavefront variants of a band's rows, if one makes a later member coincident.
    fn wavefront_rows(
        &mut self,
        group: &[usize],
        start: usize,
        members: &[Row],
    ) -> Result<Option<(Vec<Row>, Vec<bool>)>> {
        let mut candidates = vec![2];
        if members.len() > 2 {
            candidates.push(members.len());
        }
        for n in candidates {
            let mut rows = members.to_vec();
            rows[0] = sum_of(&members[..n]);
            let flags = self.coincidence(group, start, &rows)?;
            if flags[1..].iter().any(|&c| c) {
                return Ok(Some((rows, flags)));
            }
        }
        Ok(None)
    }

    /// `{ S[i] -> [members] }` for every statement of `group`.
    fn band_schedule(&self, group: &[usize], members: &[Row]) -> Result<UnionMap> {
        let mut schedule = UnionMap::empty(param_names(self.model));
        for &s in group {
            schedule.add_map(statement_map(self.model, s, members)?)?;
        }
        Ok(schedule)
    }
}

/// The row-wise sum of rows.
fn sum_of(rows: &[Row]) -> Row {
    let mut sum = rows[0].clone();
    for r in &rows[1..] {
        for (a, b) in sum.coeffs.iter_mut().zip(&r.coeffs) {
            for (x, y) in a.iter_mut().zip(b) {
                *x += y;
            }
        }
    }
    sum
}

/// `{ S[i] -> [φ_1(i), ..., φ_n(i)] }` for statement `s` and the rows `members`.
pub fn statement_map(model: &Model, s: usize, members: &[Row]) -> Result<Map> {
    let stmt = &model.stmts[s];
    let set_space = stmt.domain.space();
    let tuple = set_space
        .range_tuple()
        .cloned()
        .unwrap_or_else(|| Tuple::anonymous(stmt.dim));
    let params = set_space.param_names().to_vec();
    let n_params = params.len();
    let space = Space::map(params, tuple, Tuple::anonymous(members.len()));
    let mut b = BasicMap::universe(space);
    for (m, row) in members.iter().enumerate() {
        let c = &row.coeffs[s];
        let mut eq = b.zero_row();
        eq[1 + n_params + stmt.dim + m] = Int::one();
        for k in 0..stmt.dim {
            eq[1 + n_params + k] = -&c[k];
        }
        eq[0] = -&c[stmt.dim];
        b.add_eq(eq);
    }
    Ok(Map::from_basic(b))
}
