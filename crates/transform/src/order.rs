//! The intra-tile loop order: which member of a point band goes innermost so that the
//! innermost loop walks memory with stride 1 (and, preferably, can be vectorised).
//!
//! For a band member `m` and an access `A[a(i)]` of a statement with band schedule
//! `f(i)`, the *step* of the access along `m` is the set of differences
//! `a(i') - a(i)` over the instances with `f(i') = f(i) + e_m` (one step along `m`, the
//! other members fixed). It is computed exactly on the relations: the composition
//! `a ∘ f⁻¹ ; (+e_m) ; f ∘ a⁻¹`, then its deltas. The access is
//! - **invariant** along `m` when the only step is `0`;
//! - **unit-stride** when the only step is `±1` on the last subscript and `0` on the others
//!   (consecutive elements of a row-major array);
//! - **strided** otherwise (another subscript moves, the step is larger, or it depends on
//!   dimensions the band does not fix).
//!
//! A member's score is its number of unit-stride accesses minus its number of strided
//! ones, over every access of every statement of the band. The innermost member is a
//! member of positive score, preferably one with no strided access at all, then one that
//! is coincident (vectorisable), then the highest score; ties keep the later member, so
//! an innermost member that is already best stays.
//! The other members keep their order. Any order of the members of a permutable band is
//! legal, so the choice needs no dependence test.
//!
//! Every query has a `_with` variant whose emptiness and equality tests spend a caller's
//! [`Budget`]; the plain one runs unlimited.

use std::collections::BTreeMap;

use pollen_arith::Int;
use pollen_presburger::{Budget, DimKind, Map, Set};
use pollen_scop::{Access, AccessKind, Band, Scop, Statement};

use crate::error::Result;
use crate::maps::{anonymous_range, unit_step_map};

/// How an access moves along one band member.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// The accessed element does not change.
    Invariant,
    /// The last subscript moves by one, the others stay.
    Unit,
    /// Anything else.
    Strided,
}

/// The step of `access` (`{ S[i] -> A[a] }`) along member `member` of the band schedule
/// `schedule` (`{ S[i] -> [f] }`).
pub fn access_step(schedule: &Map, access: &Map, member: usize) -> Result<Step> {
    access_step_with(schedule, access, member, &mut Budget::unlimited())
}

/// [`access_step`] within `budget`.
pub fn access_step_with(
    schedule: &Map,
    access: &Map,
    member: usize,
    budget: &mut Budget,
) -> Result<Step> {
    let steps = step_deltas(schedule, access, member)?;
    let rank = steps.n_dims();
    if steps.is_empty_with(budget)? {
        return Ok(Step::Strided);
    }
    if steps.is_equal_with(&single_point(&steps, &vec![0; rank])?, budget)? {
        return Ok(Step::Invariant);
    }
    if rank == 0 {
        return Ok(Step::Strided);
    }
    for last in [1, -1] {
        let mut unit = vec![0; rank];
        unit[rank - 1] = last;
        if steps.is_equal_with(&single_point(&steps, &unit)?, budget)? {
            return Ok(Step::Unit);
        }
    }
    Ok(Step::Strided)
}

/// The differences `a(i') - a(i)` of `access` over the instance pairs one step apart
/// along `member` of `schedule`, the other members equal (empty when no two instances
/// are one step apart).
pub fn step_deltas(schedule: &Map, access: &Map, member: usize) -> Result<Set> {
    let n = schedule.space().n_out();
    let by_schedule = anonymous_range(schedule).reverse().apply_range(access)?;
    let pairs = by_schedule
        .reverse()
        .apply_range(&unit_step_map(n, member))?
        .apply_range(&by_schedule)?;
    Ok(pairs.deltas_set()?)
}

/// The set holding only `point`, in the space of `like`.
fn single_point(like: &Set, point: &[i64]) -> Result<Set> {
    let mut s = Set::universe(like.space().clone());
    for (k, &v) in point.iter().enumerate() {
        s = s.fix_val(DimKind::Out, k, &Int::from(v))?;
    }
    Ok(s)
}

/// The flattened schedule of the bands enclosing a band, by statement name (the
/// enclosing bands' members, outermost first). The queries hold these dimensions fixed
/// besides the band's other members: one step along a member of an inner band is a step
/// within one iteration of the loops around it.
pub type Prefix = BTreeMap<String, Map>;

/// `prefix` extended with the members of `band` (the prefix of the band's children).
pub fn extend_prefix(prefix: &Prefix, band: &Band) -> Result<Prefix> {
    let mut out = prefix.clone();
    for (name, schedule, _) in in_context(band, prefix)? {
        out.insert(name, schedule);
    }
    Ok(out)
}

/// Per statement of `band`: its name, its schedule down to the band (prefix and band
/// members, anonymous range) and the position of the band's first member in it.
fn in_context(band: &Band, prefix: &Prefix) -> Result<Vec<(String, Map, usize)>> {
    let mut out = Vec::new();
    for m in band.schedule.maps() {
        let Some(name) = m.space().domain_tuple().and_then(|t| t.name()) else {
            continue;
        };
        let own = anonymous_range(m);
        let (schedule, first) = match prefix.get(name) {
            Some(outer) => (outer.flat_range_product(&own)?, outer.space().n_out()),
            None => (own, 0),
        };
        out.push((name.to_string(), schedule, first));
    }
    Ok(out)
}

/// A statement of a band, with its schedule down to the band (see [`in_context`]).
struct Placed<'a> {
    statement: &'a Statement,
    schedule: Map,
    first: usize,
}

impl Placed<'_> {
    /// The step of one of the statement's accesses along member `member` of the band.
    fn step(&self, access: &Access, member: usize, budget: &mut Budget) -> Result<Step> {
        access_step_with(
            &self.schedule,
            &access.relation,
            self.first + member,
            budget,
        )
    }

    /// Whether the statement has two instances one step apart along `member` (the
    /// others equal): false for `S[i] -> [i, i]` along the second member.
    fn steps_along(&self, access: &Access, member: usize, budget: &mut Budget) -> Result<bool> {
        let steps = step_deltas(&self.schedule, &access.relation, self.first + member)?;
        Ok(!steps.is_empty_with(budget)?)
    }
}

/// The statements of `band` that `scop` holds, placed below the bands of `prefix`.
fn placed<'a>(scop: &'a Scop, band: &Band, prefix: &Prefix) -> Result<Vec<Placed<'a>>> {
    Ok(in_context(band, prefix)?
        .into_iter()
        .filter_map(|(name, schedule, first)| {
            scop.statement(&name).map(|statement| Placed {
                statement,
                schedule,
                first,
            })
        })
        .collect())
}

/// Per member of `band`: unit-stride accesses minus strided accesses, over every access
/// of every statement the band schedules.
pub fn member_scores(scop: &Scop, band: &Band) -> Result<Vec<i64>> {
    Ok(member_steps_with(scop, band, &mut Budget::unlimited())?
        .into_iter()
        .map(|(unit, strided)| unit - strided)
        .collect())
}

/// Per member of `band`: the numbers of unit-stride and of strided accesses, over every
/// access of every statement the band schedules.
pub fn member_steps(scop: &Scop, band: &Band) -> Result<Vec<(i64, i64)>> {
    member_steps_with(scop, band, &mut Budget::unlimited())
}

/// [`member_steps`] within `budget`.
pub fn member_steps_with(scop: &Scop, band: &Band, budget: &mut Budget) -> Result<Vec<(i64, i64)>> {
    member_steps_in(scop, band, &Prefix::new(), budget)
}

/// [`member_steps`] of a band below the bands of `prefix`, within `budget`.
pub fn member_steps_in(
    scop: &Scop,
    band: &Band,
    prefix: &Prefix,
    budget: &mut Budget,
) -> Result<Vec<(i64, i64)>> {
    let n = band.n_members();
    let mut steps = vec![(0i64, 0i64); n];
    for p in placed(scop, band, prefix)? {
        for access in &p.statement.accesses {
            for (member, (unit, strided)) in steps.iter_mut().enumerate() {
                match p.step(access, member, budget)? {
                    Step::Unit => *unit += 1,
                    Step::Strided => *strided += 1,
                    Step::Invariant => {}
                }
            }
        }
    }
    Ok(steps)
}

/// Per member of `band` (below the bands of `prefix`): whether the band's statements
/// write, and every written access moves with unit stride along the member (the member
/// walks consecutive elements of everything the band writes: the lanes of a vector
/// accumulator).
pub fn writes_unit_stride_in(
    scop: &Scop,
    band: &Band,
    prefix: &Prefix,
    budget: &mut Budget,
) -> Result<Vec<bool>> {
    let n = band.n_members();
    let mut unit = vec![true; n];
    let mut writes = false;
    for p in placed(scop, band, prefix)? {
        for access in p
            .statement
            .accesses
            .iter()
            .filter(|a| a.kind == AccessKind::Write)
        {
            writes = true;
            for (member, ok) in unit.iter_mut().enumerate() {
                if *ok && p.step(access, member, budget)? != Step::Unit {
                    *ok = false;
                }
            }
        }
    }
    Ok(if writes { unit } else { vec![false; n] })
}

/// `order` with the last coincident member whose writes all have unit stride
/// (`lanes`, [`writes_unit_stride_in`]) moved innermost, the others keeping their
/// order; `order` itself when there is none. Inside a permutable band every order is
/// legal.
pub fn lane_innermost(order: &[usize], lanes: &[bool], coincident: &[bool]) -> Vec<usize> {
    match (0..lanes.len()).rev().find(|&m| lanes[m] && coincident[m]) {
        Some(b) => order
            .iter()
            .copied()
            .filter(|&m| m != b)
            .chain([b])
            .collect(),
        None => order.to_vec(),
    }
}

/// The order of the point band's members (`order[k]` is the original member placed at
/// position `k`): the best member for the innermost loop moved there, the others in their
/// original order. The identity when no member has a positive score.
///
/// Among the members of positive score (`scores`, unit-stride minus strided accesses),
/// one without strided access (`strided`) comes first: an innermost loop that jumps
/// rows loses more in memory traffic than vectorisation gains; then a coincident one
/// (vectorisable); then the highest score; ties keep the later member.
pub fn intra_tile_order(scores: &[i64], strided: &[i64], coincident: &[bool]) -> Vec<usize> {
    let n = scores.len();
    let best = (0..n)
        .filter(|&m| scores[m] > 0)
        .max_by_key(|&m| (strided[m] == 0, coincident[m], scores[m], m));
    match best {
        Some(b) => (0..n).filter(|&m| m != b).chain([b]).collect(),
        None => (0..n).collect(),
    }
}

/// [`intra_tile_order`] for the point band of a tile: when no member has a positive
/// score and the innermost member is not coincident, a coincident member whose score is
/// at least the innermost one's goes innermost instead. Inside a tile, the accesses that
/// stride along it touch one cache line per row of the tile, and the next iteration of
/// the member that walks those rows reuses them, while the loop vectorises; in the full
/// loop the same lines would leave the cache before their reuse.
pub fn point_order(scores: &[i64], strided: &[i64], coincident: &[bool]) -> Vec<usize> {
    let n = scores.len();
    let order = intra_tile_order(scores, strided, coincident);
    let innermost = order[n - 1];
    if scores.iter().any(|&s| s > 0) || coincident[innermost] {
        return order;
    }
    let best = (0..n)
        .filter(|&m| coincident[m] && scores[m] >= scores[innermost])
        .max_by_key(|&m| (scores[m], m));
    match best {
        Some(b) => (0..n).filter(|&m| m != b).chain([b]).collect(),
        None => order,
    }
}

/// The unroll-and-jam requests (register tiling) for a point band: `(member, factor)`
/// pairs, outermost member first; empty when jamming brings no reuse.
///
/// Jamming member `m` into the innermost loop makes the copies share every access that
/// does not move along `m` but does move along the innermost member (in a matrix
/// product `C[i][j] += A[i][k] * B[k][j]` with `j` innermost: `B[k][j]` along `i`,
/// `C[i][j]` along `k`); an access invariant along the innermost member is loaded once
/// per innermost loop anyway. When the innermost member is coincident, the jammed loop
/// is the vector loop; when it is not (a reduction, `C[i][j] += A[i][k] * A[j][k]` with
/// `k` innermost), the copies are independent chains of the reduction that run side by
/// side instead of one latency-bound chain. Those chains need their accumulators in
/// registers, so such a band is jammed only when every access to an array its
/// statements write is invariant along the innermost member, or is a read that never
/// reaches an element its statement writes in the same instance (Cholesky's `A[i][j] -=
/// A[i][k] * A[j][k]` reads its own row along `k < j`; the emitter holds the
/// accumulators in registers where it proves the jammed copies' reads apart from
/// them). Statements with no two instances along the innermost member (`S[i] -> [i, i]`)
/// do not count. The members
/// with such shared accesses are jammed, the outermost four times and the next one four
/// times below a vector loop, twice below a reduction (sixteen vectors or eight scalar
/// chains at most), which keeps the innermost loop's working set within the registers
/// of common vector units (32 with AVX-512: the 16 copies' 4 written vectors, 4 shared
/// loads and 16 broadcast factors).
pub fn register_tiling(scop: &Scop, band: &Band) -> Result<Vec<(usize, u32)>> {
    register_tiling_with(scop, band, &mut Budget::unlimited())
}

/// [`register_tiling`] within `budget`.
pub fn register_tiling_with(
    scop: &Scop,
    band: &Band,
    budget: &mut Budget,
) -> Result<Vec<(usize, u32)>> {
    register_tiling_in(scop, band, &Prefix::new(), budget)
}

/// [`register_tiling`] of a band below the bands of `prefix`, within `budget`.
pub fn register_tiling_in(
    scop: &Scop,
    band: &Band,
    prefix: &Prefix,
    budget: &mut Budget,
) -> Result<Vec<(usize, u32)>> {
    let n = band.n_members();
    if n < 2 {
        return Ok(Vec::new());
    }
    let innermost = n - 1;
    let placed = placed(scop, band, prefix)?;
    if !band.coincident[innermost] {
        let written: Vec<&str> = placed
            .iter()
            .flat_map(|p| &p.statement.accesses)
            .filter(|a| a.kind == AccessKind::Write)
            .map(|a| a.array.as_str())
            .collect();
        for p in &placed {
            for access in &p.statement.accesses {
                if written.contains(&access.array.as_str())
                    && p.step(access, innermost, budget)? != Step::Invariant
                    && p.steps_along(access, innermost, budget)?
                    && !read_apart_from_writes(p.statement, access, budget)?
                {
                    return Ok(Vec::new());
                }
            }
        }
    }
    let mut shared = vec![0usize; innermost];
    for p in placed {
        for access in &p.statement.accesses {
            if p.step(access, innermost, budget)? == Step::Invariant {
                continue;
            }
            for (member, count) in shared.iter_mut().enumerate() {
                if p.step(access, member, budget)? == Step::Invariant {
                    *count += 1;
                }
            }
        }
    }
    // A vector loop's copies keep 4 x 4 vectors of the written array in registers (and
    // the loads each shares); a reduction's copies are chains of scalars, 4 x 2 of them.
    let factors = if band.coincident[innermost] {
        [4, 4]
    } else {
        [4, 2]
    };
    Ok((0..innermost)
        .filter(|&m| shared[m] > 0)
        .zip(factors)
        .collect())
}

/// Whether `access` is a read that never reaches an element its statement writes in the
/// same instance (`x[j]` beside `x[i] -= L[i][j] * x[j]`, where `j < i`): the moving
/// read then never touches the element the reduction accumulates.
fn read_apart_from_writes(s: &Statement, access: &Access, budget: &mut Budget) -> Result<bool> {
    if access.kind != AccessKind::Read {
        return Ok(false);
    }
    let domain = s.domain.as_map();
    let read = access.relation.intersect_domain(domain)?;
    for w in s
        .accesses
        .iter()
        .filter(|w| w.kind == AccessKind::Write && w.array == access.array)
    {
        let write = w.relation.intersect_domain(domain)?;
        if !read.intersect(&write)?.is_empty_with(budget)? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Whether tiling `band` can bring data reuse closer: false only for a band that merely
/// permutes its statements' loops (no skew) and in which no access is reused across a
/// two-dimensional footprint.
///
/// An access invariant along member `m` is reused by every iteration of `m`; when it
/// moves along at least two other members, what it touches between two reuses is a
/// two-dimensional block (a matrix product's `B[k][j]` along `i`), which does not stay in
/// cache without tiling. An access that moves along one member only (a matrix-vector
/// product's `x[j]`) touches a vector between reuses, which caches hold anyway; and an
/// access that moves along every member (the matrix itself) is never reused. Such bands
/// run best as the original loops, streaming whole rows. Skewed bands (stencils) carry
/// their reuse in neighbouring elements, which steps do not see: they are kept tiled.
pub fn has_tiling_reuse(scop: &Scop, band: &Band) -> Result<bool> {
    has_tiling_reuse_with(scop, band, &mut Budget::unlimited())
}

/// [`has_tiling_reuse`] within `budget`.
pub fn has_tiling_reuse_with(scop: &Scop, band: &Band, budget: &mut Budget) -> Result<bool> {
    has_tiling_reuse_in(scop, band, &Prefix::new(), budget)
}

/// [`has_tiling_reuse`] of a band below the bands of `prefix`, within `budget`.
pub fn has_tiling_reuse_in(
    scop: &Scop,
    band: &Band,
    prefix: &Prefix,
    budget: &mut Budget,
) -> Result<bool> {
    let n = band.n_members();
    for (_, schedule, first) in in_context(band, prefix)? {
        let identity = Map::identity(&schedule.space().domain_space());
        for member in 0..n {
            if !moves_one_iterator(&schedule, &identity, first + member, budget)? {
                return Ok(true);
            }
        }
    }
    for p in placed(scop, band, prefix)? {
        for access in &p.statement.accesses {
            let mut invariant = 0;
            for member in 0..n {
                if p.step(access, member, budget)? == Step::Invariant {
                    invariant += 1;
                }
            }
            if invariant >= 1 && n - invariant >= 2 {
                return Ok(true);
            }
        }
    }
    Ok(false)
}

/// Whether the schedule down to the end of `band` (below the bands of `prefix`) is, for
/// every statement, its outermost iterators in order: the band is the statements'
/// shared outer loops, untouched.
pub fn keeps_outer_loops_in(band: &Band, prefix: &Prefix, budget: &mut Budget) -> Result<bool> {
    for (_, schedule, first) in in_context(band, prefix)? {
        let depth = first + band.n_members();
        if depth > schedule.space().n_in() {
            return Ok(false);
        }
        for d in 0..depth {
            let same = schedule.equate(DimKind::In, d, DimKind::Out, d)?;
            if !schedule.is_subset_with(&same, budget)? {
                return Ok(false);
            }
        }
    }
    Ok(true)
}

/// Whether the iterations of `band` (below the bands of `prefix`) form a non-rectangular
/// shape: for some statement, within one iteration of the enclosing loops, the range of
/// one member depends on another (`j <= i` in a triangle). Rectangular shapes are the
/// products of their members' ranges.
pub fn is_triangular_in(
    scop: &Scop,
    band: &Band,
    prefix: &Prefix,
    budget: &mut Budget,
) -> Result<bool> {
    let n = band.n_members();
    if n < 2 {
        return Ok(false);
    }
    for p in placed(scop, band, prefix)? {
        let schedule = p.schedule.intersect_domain(p.statement.domain.as_map())?;
        // { [outer] -> [members] } over the statement's instances.
        let outer = schedule.project_out(DimKind::Out, p.first, n)?;
        let members = schedule.project_out(DimKind::Out, 0, p.first)?;
        let shape = outer.reverse().apply_range(&members)?;
        let mut product: Option<Map> = None;
        for m in 0..n {
            let range = shape
                .project_out(DimKind::Out, m + 1, n - m - 1)?
                .project_out(DimKind::Out, 0, m)?;
            product = Some(match product {
                None => range,
                Some(p) => p.flat_range_product(&range)?,
            });
        }
        if let Some(product) = product {
            if !product.is_equal_with(&shape, budget)? {
                return Ok(true);
            }
        }
    }
    Ok(false)
}

/// Whether some access of `band` (below the bands of `prefix`) strides through memory
/// along `innermost` but walks consecutive elements along another member: the cache
/// lines one innermost loop brings in serve the next iterations of the other member
/// (`u[j][i]` in `for (i ...) for (j ...)`) only while they stay in cache, which tiles of
/// the innermost member ensure.
pub fn strided_with_spatial_reuse(
    scop: &Scop,
    band: &Band,
    prefix: &Prefix,
    innermost: usize,
    budget: &mut Budget,
) -> Result<bool> {
    for p in placed(scop, band, prefix)? {
        for access in &p.statement.accesses {
            if p.step(access, innermost, budget)? != Step::Strided {
                continue;
            }
            for member in (0..band.n_members()).filter(|&m| m != innermost) {
                if p.step(access, member, budget)? == Step::Unit {
                    return Ok(true);
                }
            }
        }
    }
    Ok(false)
}

/// Whether `member` of `band` (below the bands of `prefix`) carries a recurrence over
/// moving elements: it is not coincident, and some statement writes, along it, an element
/// that moves (`p[i][j] = -c / (a * p[i][j-1] + b)` along `j`). A loop over such a member
/// neither vectorises nor splits into independent chains (the written element is not an
/// accumulator); each iteration waits for the previous one.
pub fn carries_recurrence_in(
    scop: &Scop,
    band: &Band,
    prefix: &Prefix,
    member: usize,
    budget: &mut Budget,
) -> Result<bool> {
    if band.coincident[member] {
        return Ok(false);
    }
    for p in placed(scop, band, prefix)? {
        for access in p
            .statement
            .accesses
            .iter()
            .filter(|a| a.kind == AccessKind::Write)
        {
            if p.step(access, member, budget)? != Step::Invariant
                && p.steps_along(access, member, budget)?
            {
                return Ok(true);
            }
        }
    }
    Ok(false)
}

/// Whether a loop over `member` of `band` (below the bands of `prefix`) would read, at
/// every iteration, an element of an array that the loop writes at moving positions:
/// `path[i][k]` in `for (j ...) path[i][j] = min(path[i][j], path[i][k] + path[k][j])`.
/// A compiler cannot vectorise such a loop as a whole (the element is overwritten at one
/// iteration, `j = k`); tiles confine that iteration to one tile column, and the others
/// vectorise.
pub fn invariant_read_of_written_array(
    scop: &Scop,
    band: &Band,
    prefix: &Prefix,
    member: usize,
    budget: &mut Budget,
) -> Result<bool> {
    let mut invariant_reads = Vec::new();
    let mut moving_writes = Vec::new();
    for p in placed(scop, band, prefix)? {
        let identity = Map::identity(&p.schedule.space().domain_space());
        if step_deltas(&p.schedule, &identity, p.first + member)?.is_empty_with(budget)? {
            // The statement does not move along the member (it runs once per loop).
            continue;
        }
        for access in &p.statement.accesses {
            match (access.kind, p.step(access, member, budget)?) {
                (AccessKind::Read, Step::Invariant) => invariant_reads.push(&access.array),
                (AccessKind::Write, Step::Unit | Step::Strided) => {
                    moving_writes.push(&access.array)
                }
                _ => {}
            }
        }
    }
    Ok(invariant_reads.iter().any(|a| moving_writes.contains(a)))
}

/// Whether one step along `member` (the other members fixed) moves exactly one of the
/// statement's iterators, by one, or no two instances of the statement are one step
/// apart (`identity` is the statement's identity map).
fn moves_one_iterator(
    schedule: &Map,
    identity: &Map,
    member: usize,
    budget: &mut Budget,
) -> Result<bool> {
    let steps = step_deltas(schedule, identity, member)?;
    if steps.is_empty_with(budget)? {
        // The member does not move the statement (S2[i] -> [i, i] along the second).
        return Ok(true);
    }
    let rank = steps.n_dims();
    for k in 0..rank {
        let mut unit = vec![0; rank];
        unit[k] = 1;
        if steps.is_equal_with(&single_point(&steps, &unit)?, budget)? {
            return Ok(true);
        }
    }
    Ok(false)
}
