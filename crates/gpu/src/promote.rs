//! Promotion of reused or transposed tiles of read-only arrays to the block's shared
//! memory (see the crate documentation for the rules).

use std::collections::{BTreeMap, BTreeSet};

use pollen_arith::Int;
use pollen_codegen::{Cond, Expr};
use pollen_presburger::{DimKind, Map};
use pollen_scop::{AccessKind, Scop};

use crate::extent::{constant_trip, constant_window, expr_vars};
use crate::program::{KernelAst, KernelLoop, Mapping, SharedArray};

/// An affine expression over named variables.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Affine {
    pub(crate) constant: Int,
    pub(crate) terms: BTreeMap<String, Int>,
}

impl Affine {
    fn constant(c: Int) -> Affine {
        Affine {
            constant: c,
            terms: BTreeMap::new(),
        }
    }

    fn var(name: &str) -> Affine {
        let mut a = Affine::default();
        a.terms.insert(name.to_string(), Int::one());
        a
    }

    /// `e` when it is affine (constants, variables, sums and constant multiples).
    pub(crate) fn of(e: &Expr) -> Option<Affine> {
        Some(match e {
            Expr::Int(c) => Affine::constant(c.clone()),
            Expr::Var(v) => Affine::var(v),
            Expr::Add(v) => {
                let mut a = Affine::default();
                for x in v {
                    a.add_scaled(&Affine::of(x)?, &Int::one());
                }
                a
            }
            Expr::Mul(c, x) => {
                let mut a = Affine::default();
                a.add_scaled(&Affine::of(x)?, c);
                a
            }
            _ => return None,
        })
    }

    /// Adds `k · other`.
    fn add_scaled(&mut self, other: &Affine, k: &Int) {
        self.constant = &self.constant + &(&other.constant * k);
        for (v, c) in &other.terms {
            let slot = self.terms.entry(v.clone()).or_insert_with(Int::zero);
            *slot = &*slot + &(c * k);
        }
        self.terms.retain(|_, c| !c.is_zero());
    }

    fn to_expr(&self) -> Expr {
        let mut parts: Vec<Expr> = self
            .terms
            .iter()
            .map(|(v, c)| {
                if c.is_one() {
                    Expr::var(v)
                } else {
                    Expr::Mul(c.clone(), Box::new(Expr::var(v)))
                }
            })
            .collect();
        if !self.constant.is_zero() || parts.is_empty() {
            parts.push(Expr::Int(self.constant.clone()));
        }
        sum(parts)
    }
}

/// The sum of `parts` (zero constants dropped, one part as itself).
fn sum(parts: Vec<Expr>) -> Expr {
    let mut parts: Vec<Expr> = parts
        .into_iter()
        .filter(|p| !matches!(p, Expr::Int(c) if c.is_zero()))
        .collect();
    match parts.len() {
        0 => Expr::int(0),
        1 => parts.remove(0),
        _ => Expr::Add(parts),
    }
}

/// `k · e`.
fn times(k: i64, e: &Expr) -> Expr {
    if k == 1 {
        e.clone()
    } else {
        Expr::Mul(Int::from(k), Box::new(e.clone()))
    }
}

/// The subscripts of the access relation `relation` (one basic map without local
/// variables, each output fixed by an equality with coefficient ±1 on it and none on
/// the other outputs) at the statement instance whose iterators are `args`.
pub(crate) fn subscripts(relation: &Map, args: &[Affine]) -> Option<Vec<Affine>> {
    let [b] = relation.basic_maps() else {
        return None;
    };
    let space = relation.space();
    if b.n_div() != 0 || space.n_in() != args.len() {
        return None;
    }
    let n_out = space.n_out();
    let mut out = Vec::with_capacity(n_out);
    for o in 0..n_out {
        let col = b.dim_col(DimKind::Out, o);
        let row = b.eqs().iter().find(|r| {
            (r[col].is_one() || (-&r[col]).is_one())
                && (0..n_out).all(|x| x == o || r[b.dim_col(DimKind::Out, x)].is_zero())
        })?;
        // r[col] · o + rest = 0, so o = -r[col] · rest (r[col] = ±1).
        let k = -&row[col];
        let mut a = Affine::constant(&row[0] * &k);
        for (p, name) in space.param_names().iter().enumerate() {
            a.add_scaled(
                &Affine::var(name),
                &(&row[b.dim_col(DimKind::Param, p)] * &k),
            );
        }
        for (i, arg) in args.iter().enumerate() {
            a.add_scaled(arg, &(&row[b.dim_col(DimKind::In, i)] * &k));
        }
        out.push(a);
    }
    Some(out)
}

/// A statement instance below the promotion point, with the loops around it there.
struct Site<'k> {
    statement: &'k str,
    args: &'k [Expr],
    path: Vec<&'k KernelLoop>,
    /// Whether a guard lies between the promotion point and the statement.
    guarded: bool,
}

fn sites<'k>(
    ast: &'k KernelAst,
    path: &mut Vec<&'k KernelLoop>,
    guarded: bool,
    out: &mut Vec<Site<'k>>,
) {
    match ast {
        KernelAst::Block(v) => v.iter().for_each(|c| sites(c, path, guarded, out)),
        KernelAst::For(l) => {
            path.push(l);
            sites(&l.body, path, guarded, out);
            path.pop();
        }
        KernelAst::If {
            then, otherwise, ..
        } => {
            sites(then, path, true, out);
            if let Some(o) = otherwise {
                sites(o, path, true, out);
            }
        }
        KernelAst::User { statement, args } => out.push(Site {
            statement,
            args,
            path: path.clone(),
            guarded,
        }),
        KernelAst::SingleThread(b) => sites(b, path, guarded, out),
        KernelAst::Shared { body, .. } => sites(body, path, guarded, out),
        KernelAst::Barrier | KernelAst::Copy { .. } => {}
    }
}

/// One subscript dimension of a reference: the loop whose iterator occurs (with its
/// sign) and the rest, block-uniform.
struct Dim<'k> {
    var: Option<(&'k KernelLoop, bool)>,
    rest: Affine,
}

/// The state of the promotion in one kernel.
pub(crate) struct Promoter<'a> {
    pub scop: &'a Scop,
    /// The bytes of shared memory left for the kernel.
    pub bytes_left: u64,
    /// Whether transposed tiles without reuse are promoted.
    pub transposed_tiles: bool,
    /// The arrays some statement of the kernel writes.
    pub written: BTreeSet<String>,
    /// The shared arrays so far.
    pub shared: Vec<SharedArray>,
    /// Names in use.
    pub taken: &'a mut BTreeSet<String>,
}

impl Promoter<'_> {
    /// Promotes what it can in the uniform code `items` of a kernel (below its block
    /// loops): at every uniform sequential loop that holds thread loops, or at `items`
    /// itself when there is none.
    pub fn kernel(&mut self, items: &mut Vec<KernelAst>) {
        let mut found = false;
        for item in items.iter_mut() {
            self.uniform(item, &BTreeSet::new(), &mut found);
        }
        if !found {
            let body = KernelAst::Block(std::mem::take(items));
            *items = match self.at(body, &BTreeSet::new()).0 {
                KernelAst::Block(v) => v,
                other => vec![other],
            };
        }
    }

    /// Visits the uniform code `ast`, promoting at its candidate loops; `done` holds
    /// the arrays promoted further out.
    fn uniform(&mut self, ast: &mut KernelAst, done: &BTreeSet<String>, found: &mut bool) {
        match ast {
            KernelAst::Block(v) => v.iter_mut().for_each(|c| self.uniform(c, done, found)),
            KernelAst::If {
                then, otherwise, ..
            } => {
                self.uniform(then, done, found);
                if let Some(o) = otherwise {
                    self.uniform(o, done, found);
                }
            }
            KernelAst::For(l) if l.mapping == Mapping::Sequential && has_thread_loop(&l.body) => {
                *found = true;
                let body = std::mem::replace(&mut *l.body, KernelAst::Barrier);
                let (mut new, promoted) = self.at(body, done);
                let mut inner = done.clone();
                inner.extend(promoted);
                self.uniform(&mut new, &inner, found);
                *l.body = new;
            }
            KernelAst::Shared { body, .. } => self.uniform(body, done, found),
            _ => {}
        }
    }

    /// `body` (one iteration of a candidate loop) with copies of the arrays it
    /// promotes at its start, and the names of those arrays.
    fn at(&mut self, body: KernelAst, done: &BTreeSet<String>) -> (KernelAst, Vec<String>) {
        let mut all = Vec::new();
        sites(&body, &mut Vec::new(), false, &mut all);
        let mut below = BTreeSet::new();
        loop_iterators(&body, &mut below);
        let mut copies = Vec::new();
        let mut promotions = Vec::new();
        let mut promoted = Vec::new();
        for array in &self.scop.arrays {
            if array.extents.is_empty()
                || array.element_type.trim().is_empty()
                || self.written.contains(&array.name)
                || done.contains(&array.name)
            {
                continue;
            }
            let Some(p) = self.plan(&array.name, &all, &below) else {
                continue;
            };
            let element: u64 = if array.element_type.trim() == "float" {
                4
            } else {
                8
            };
            let bytes = p
                .sizes
                .iter()
                .try_fold(element, |acc, &s| acc.checked_mul(s));
            let Some(bytes) = bytes.filter(|&b| b <= self.bytes_left) else {
                continue;
            };
            self.bytes_left -= bytes;
            let name = fresh(self.taken, &format!("shared_{}", array.name));
            self.taken.insert(name.clone());
            let index = self.shared.len();
            self.shared.push(SharedArray {
                name,
                array: array.name.clone(),
                element_type: array.element_type.clone(),
                sizes: p.sizes,
            });
            let copy = KernelAst::Copy {
                shared: index,
                offset: p.offset.clone(),
                lower: p.lower,
                upper: p.upper,
            };
            copies.push(match p.nonempty {
                Some(cond) => KernelAst::If {
                    cond,
                    then: Box::new(copy),
                    otherwise: None,
                },
                None => copy,
            });
            promotions.push((index, p.offset));
            promoted.push(array.name.clone());
        }
        if promotions.is_empty() {
            return (body, promoted);
        }
        copies.push(KernelAst::Barrier);
        // The next copy (the next iteration of the loop, or of the block loops around
        // the kernel's code) waits for the reads of this one.
        let last_barrier = ends_with_barrier(&body);
        copies.push(KernelAst::Shared {
            promotions,
            body: Box::new(body),
        });
        if !last_barrier {
            copies.push(KernelAst::Barrier);
        }
        (KernelAst::Block(copies), promoted)
    }

    /// The box of `array` that the sites read, when it qualifies.
    fn plan(&self, array: &str, all: &[Site<'_>], below: &BTreeSet<String>) -> Option<Plan> {
        let mut refs: Vec<(Vec<Dim<'_>>, &Site<'_>)> = Vec::new();
        for site in all {
            let stmt = self.scop.statement(site.statement)?;
            for a in stmt.accesses.iter().filter(|a| a.array == array) {
                if a.kind != AccessKind::Read || site.guarded {
                    return None;
                }
                let uniform = |e: &Expr| {
                    let mut vars = BTreeSet::new();
                    expr_vars(e, &mut vars);
                    vars.is_disjoint(below)
                };
                if !site
                    .path
                    .iter()
                    .all(|l| uniform(&l.lower) && uniform(&l.upper))
                {
                    return None;
                }
                let args = site
                    .args
                    .iter()
                    .map(Affine::of)
                    .collect::<Option<Vec<_>>>()?;
                let subs = subscripts(&a.relation, &args)?;
                let mut dims = Vec::new();
                for mut s in subs {
                    let inner: Vec<(String, Int)> = s
                        .terms
                        .iter()
                        .filter(|(v, _)| below.contains(*v))
                        .map(|(v, c)| (v.clone(), c.clone()))
                        .collect();
                    let var = match inner.as_slice() {
                        [] => None,
                        [(v, c)] if c.is_one() || (-c).is_one() => {
                            let l = site.path.iter().find(|l| &l.iterator == v)?;
                            if !l.stride.is_one() {
                                return None;
                            }
                            s.terms.remove(v);
                            Some((*l, c.is_one()))
                        }
                        _ => return None,
                    };
                    dims.push(Dim { var, rest: s });
                }
                refs.push((dims, site));
            }
        }
        let (first, _) = refs.first()?;
        // Reuse: a loop around some reference whose iterator its subscripts lack.
        let reuse = refs.iter().any(|(dims, site)| {
            site.path.iter().any(|l| {
                let used = dims
                    .iter()
                    .any(|d| d.var.is_some_and(|(v, _)| v.iterator == l.iterator));
                !used && !matches!(constant_trip(&l.lower, &l.upper, &l.stride), Some(c) if c <= Int::one())
            })
        });
        // Coalescing: a reference whose thread-`x` loop moves a subscript other than the
        // last, so that a warp's threads read elements far apart, while another loop
        // moves the last. The copy reads the box row by row instead, consecutive threads
        // taking consecutive elements (with rows of one element it would not).
        let transposed = self.transposed_tiles
            && refs.iter().any(|(dims, site)| {
                let Some(x) = site.path.iter().find(|l| l.mapping == Mapping::Thread(0)) else {
                    return false;
                };
                let moves = |d: &Dim<'_>| d.var.is_some_and(|(v, _)| v.iterator == x.iterator);
                dims.split_last().is_some_and(|(last, others)| {
                    last.var.is_some() && !moves(last) && others.iter().any(moves)
                })
            });
        if !reuse && !transposed {
            return None;
        }
        let mut plan = Plan {
            sizes: Vec::new(),
            offset: Vec::new(),
            lower: Vec::new(),
            upper: Vec::new(),
            nonempty: None,
        };
        for (d, dim) in first.iter().enumerate() {
            // The other references: translates by constants.
            let mut lo = Int::zero();
            let mut hi = Int::zero();
            for (dims, _) in &refs {
                let other = dims.get(d)?;
                match (dim.var, other.var) {
                    (None, None) => {}
                    (Some((a, sa)), Some((b, sb)))
                        if sa == sb && a.lower == b.lower && a.upper == b.upper => {}
                    _ => return None,
                }
                let mut diff = other.rest.clone();
                diff.add_scaled(&dim.rest, &-Int::one());
                if !diff.terms.is_empty() {
                    return None;
                }
                lo = lo.min(diff.constant.clone());
                hi = hi.max(diff.constant);
            }
            let rest = dim.rest.to_expr();
            let spread = &hi - &lo;
            let (size, offset, lower, upper) = match dim.var {
                None => (
                    &spread + &Int::one(),
                    sum(vec![rest.clone(), Expr::Int(lo.clone())]),
                    sum(vec![rest.clone(), Expr::Int(lo.clone())]),
                    sum(vec![rest, Expr::Int(hi)]),
                ),
                Some((l, positive)) => {
                    let (base, c) = constant_window(&l.lower, &l.upper)?;
                    if !c.is_positive() {
                        return None;
                    }
                    if positive {
                        (
                            &c + &spread,
                            sum(vec![base, rest.clone(), Expr::Int(lo.clone())]),
                            sum(vec![l.lower.clone(), rest.clone(), Expr::Int(lo)]),
                            sum(vec![l.upper.clone(), rest, Expr::Int(hi)]),
                        )
                    } else {
                        let last = &Int::one() - &c;
                        (
                            &c + &spread,
                            sum(vec![rest.clone(), Expr::Int(&lo + &last), times(-1, &base)]),
                            sum(vec![rest.clone(), Expr::Int(lo), times(-1, &l.upper)]),
                            sum(vec![rest, Expr::Int(hi), times(-1, &l.lower)]),
                        )
                    }
                }
            };
            plan.sizes
                .push(size.to_i64().and_then(|s| u64::try_from(s).ok())?);
            plan.offset.push(offset);
            plan.lower.push(lower);
            plan.upper.push(upper);
        }
        // The threads of a warp read a transposed box down a column: with rows of an
        // odd number of elements, those lie in different banks of shared memory.
        if transposed {
            if let Some(last) = plan.sizes.last_mut() {
                if *last % 2 == 0 {
                    *last += 1;
                }
            }
        }
        // The copy runs only when every loop around the references runs, so that the
        // first and last element of every dimension are read.
        let mut conds: Vec<Cond> = Vec::new();
        for (_, site) in &refs {
            for l in &site.path {
                let c = Cond::NonNegative(sum(vec![l.upper.clone(), times(-1, &l.lower)]));
                if !conds.contains(&c) {
                    conds.push(c);
                }
            }
        }
        plan.nonempty = match conds.len() {
            0 => None,
            1 => conds.pop(),
            _ => Some(Cond::And(conds)),
        };
        Some(plan)
    }
}

/// The box of one promoted array.
struct Plan {
    sizes: Vec<u64>,
    offset: Vec<Expr>,
    lower: Vec<Expr>,
    upper: Vec<Expr>,
    nonempty: Option<Cond>,
}

/// Whether `ast` ends with a barrier.
fn ends_with_barrier(ast: &KernelAst) -> bool {
    match ast {
        KernelAst::Barrier => true,
        KernelAst::Block(v) => v.last().is_some_and(ends_with_barrier),
        _ => false,
    }
}

/// Whether `ast` holds a loop mapped to threads.
fn has_thread_loop(ast: &KernelAst) -> bool {
    match ast {
        KernelAst::Block(v) => v.iter().any(has_thread_loop),
        KernelAst::For(l) => matches!(l.mapping, Mapping::Thread(_)) || has_thread_loop(&l.body),
        KernelAst::If {
            then, otherwise, ..
        } => has_thread_loop(then) || otherwise.as_deref().is_some_and(has_thread_loop),
        KernelAst::Shared { body, .. } => has_thread_loop(body),
        KernelAst::User { .. }
        | KernelAst::SingleThread(_)
        | KernelAst::Barrier
        | KernelAst::Copy { .. } => false,
    }
}

/// The iterators of the loops in `ast`.
fn loop_iterators(ast: &KernelAst, out: &mut BTreeSet<String>) {
    match ast {
        KernelAst::Block(v) => v.iter().for_each(|c| loop_iterators(c, out)),
        KernelAst::For(l) => {
            out.insert(l.iterator.clone());
            loop_iterators(&l.body, out);
        }
        KernelAst::If {
            then, otherwise, ..
        } => {
            loop_iterators(then, out);
            if let Some(o) = otherwise {
                loop_iterators(o, out);
            }
        }
        KernelAst::SingleThread(b) | KernelAst::Shared { body: b, .. } => loop_iterators(b, out),
        KernelAst::User { .. } | KernelAst::Barrier | KernelAst::Copy { .. } => {}
    }
}

/// A name not in `taken`, from `base`.
fn fresh(taken: &BTreeSet<String>, base: &str) -> String {
    let mut name = base.to_string();
    let mut k = 0;
    while taken.contains(&name) {
        k += 1;
        name = format!("{base}_{k}");
    }
    name
}
