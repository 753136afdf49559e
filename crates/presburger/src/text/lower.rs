//! Lowering of the syntax tree to maps: name resolution, affine expressions with floor
//! divisions, and formulas in disjunctive normal form.
//!
//! Every piece of an object gets a [`Space`] from its tuples and a lowering context whose
//! columns are those of a [`BasicMap`]: `[const | params | in | out | locals]`. Floor
//! divisions (`floor`, `ceil`, `mod`, `floord`, `//`) become *known* locals shared by the
//! whole piece (identical definitions are reused); `exists` variables become existential
//! locals. A formula is turned into a disjunction of conjunctions of constraints:
//!
//! - `not` is pushed down to the comparisons by De Morgan's laws and negated exactly over
//!   the integers (`¬(a ≥ b) ⇔ a ≤ b − 1`, `¬(a = b) ⇔ a < b ∨ a > b`); floor divisions
//!   are functions of the variables, so they stay under a negation unchanged;
//! - a negated `exists` cannot be pushed down: its formula is lowered on its own (with
//!   the existential variables of enclosing formulas as extra dimensions) and subtracted
//!   from the universe ([`Map::subtract`]);
//! - `min`/`max` in a comparison are expanded exactly: in a monotone position
//!   (`x ≤ min(a, b)`) into a conjunction or disjunction of the alternatives, elsewhere by
//!   splitting on which argument is the extreme one;
//! - comparison chains and lists (`0 ≤ i, j < N`) become the conjunction of every adjacent
//!   pair; lexicographic comparisons (`<<`, `<<=`, `>>`, `>>=`) expand into their
//!   definition.
//!
//! # Invariants
//! - every constraint row is over the columns known when it was built (shorter rows are
//!   padded with zeros); every local's definition only uses earlier columns;
//! - the normal form never holds more than [`MAX_DISJUNCTS`] conjunctions, and the whole
//!   lowering creates at most [`MAX_WORK`] constraints: larger inputs are refused with
//!   an error instead of exhausting memory.

use pollen_arith::{gcd_slice, Int};

use super::ast::{CmpOp, Expr, ExprKind, Formula, FormulaKind, Object, Piece, TupleAst, TupleBody};
use super::lexer::Pos;
use crate::bmap::{normalize_div, BasicMap, DivDef};
use crate::error::{Error, Result};
use crate::map::Map;
use crate::space::{Space, Tuple, Tuples};

/// Most conjunctions a formula may expand to.
pub(crate) const MAX_DISJUNCTS: usize = 2048;
/// Most constraints and conjunctions the lowering of one object may create.
pub(crate) const MAX_WORK: usize = 200_000;
/// Most nested `min`/`max` expansions in one comparison.
const MAX_EXPANSIONS: u32 = 48;

/// A rational affine expression `num / den` over the columns; `den > 0`.
#[derive(Clone, Debug)]
struct Lin {
    num: Vec<Int>,
    den: Int,
}

impl Lin {
    fn constant(v: Int) -> Lin {
        Lin {
            num: vec![v],
            den: Int::one(),
        }
    }

    fn column(c: usize) -> Lin {
        let mut num = vec![Int::zero(); c + 1];
        num[c] = Int::one();
        Lin {
            num,
            den: Int::one(),
        }
    }

    fn is_constant(&self) -> bool {
        self.num[1..].iter().all(Int::is_zero)
    }

    /// `self + sign · other`.
    fn add(&self, other: &Lin, subtract: bool) -> Lin {
        let n = self.num.len().max(other.num.len());
        let mut num = Vec::with_capacity(n);
        for i in 0..n {
            let a = self.num.get(i).map_or_else(Int::zero, |v| v * &other.den);
            let b = other.num.get(i).map_or_else(Int::zero, |v| v * &self.den);
            num.push(if subtract { a - b } else { a + b });
        }
        Lin {
            num,
            den: &self.den * &other.den,
        }
        .reduced()
    }

    fn scale(&self, f: &Int) -> Lin {
        Lin {
            num: self.num.iter().map(|v| v * f).collect(),
            den: self.den.clone(),
        }
        .reduced()
    }

    fn negate(&self) -> Lin {
        self.scale(&-Int::one())
    }

    /// Division by a non-zero constant.
    fn divide(&self, d: &Int) -> Lin {
        let (num, den) = if d.is_negative() {
            (self.num.iter().map(|v| -v).collect(), &self.den * &-d)
        } else {
            (self.num.clone(), &self.den * d)
        };
        Lin { num, den }.reduced()
    }

    fn reduced(mut self) -> Lin {
        while self.num.len() > 1 && self.num.last().is_some_and(Int::is_zero) {
            self.num.pop();
        }
        let g = gcd_slice(&self.num).gcd(&self.den);
        if !g.is_zero() && !g.is_one() {
            for v in self.num.iter_mut() {
                *v = v.exact_div(&g);
            }
            self.den = self.den.exact_div(&g);
        }
        self
    }
}

/// A constraint over the columns: `row ≥ 0` or `row = 0`, trailing zeros trimmed.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Atom {
    Ge(Vec<Int>),
    Eq(Vec<Int>),
}

/// A map to intersect with a conjunction (the complement of a quantified formula), over
/// the piece's dimensions followed by some of the conjunction's existential locals.
#[derive(Clone, Debug)]
struct Lifted {
    map: Map,
    /// For each dimension of `map`, the variable (0-based over dimensions and locals) of
    /// the conjunction's basic map it stands for.
    targets: Vec<usize>,
}

/// One conjunction: constraints plus lifted maps to intersect.
#[derive(Clone, Debug, Default)]
struct Conj {
    atoms: Vec<Atom>,
    maps: Vec<Lifted>,
}

/// A disjunction of conjunctions; `[]` is false and `[Conj::default()]` is true.
type Dnf = Vec<Conj>;

fn dnf_true() -> Dnf {
    vec![Conj::default()]
}

fn trim(mut row: Vec<Int>) -> Vec<Int> {
    while row.len() > 1 && row.last().is_some_and(Int::is_zero) {
        row.pop();
    }
    row
}

/// `row ≥ 0` normalised (gcd-tightened), or a constant truth value.
fn ge_atom(row: Vec<Int>) -> Dnf {
    let mut row = trim(row);
    let g = gcd_slice(&row[1..]);
    if g.is_zero() {
        return if row[0].is_negative() {
            Vec::new()
        } else {
            dnf_true()
        };
    }
    if !g.is_one() {
        row[0] = row[0].floor_div(&g);
        for v in row[1..].iter_mut() {
            *v = v.exact_div(&g);
        }
    }
    vec![Conj {
        atoms: vec![Atom::Ge(row)],
        maps: Vec::new(),
    }]
}

/// `row = 0` normalised, or a constant truth value.
fn eq_atom(row: Vec<Int>) -> Dnf {
    let mut row = trim(row);
    let g = gcd_slice(&row[1..]);
    if g.is_zero() {
        return if row[0].is_zero() {
            dnf_true()
        } else {
            Vec::new()
        };
    }
    if !g.divides(&row[0]) {
        return Vec::new();
    }
    if !g.is_one() {
        for v in row.iter_mut() {
            *v = v.exact_div(&g);
        }
    }
    vec![Conj {
        atoms: vec![Atom::Eq(row)],
        maps: Vec::new(),
    }]
}

/// Whether the linear parts of two trimmed rows are equal (`same`) or opposite.
fn linear_parts_match(a: &[Int], b: &[Int], same: bool) -> bool {
    a.len() == b.len()
        && a[1..]
            .iter()
            .zip(&b[1..])
            .all(|(x, y)| if same { x == y } else { *x == -y })
}

/// Whether two constraints obviously contradict each other.
fn contradict(a: &Atom, b: &Atom) -> bool {
    match (a, b) {
        (Atom::Ge(r), Atom::Ge(s)) => {
            linear_parts_match(r, s, false) && (&r[0] + &s[0]).is_negative()
        }
        (Atom::Eq(r), Atom::Eq(s)) => {
            (linear_parts_match(r, s, true) && r[0] != s[0])
                || (linear_parts_match(r, s, false) && r[0] != -&s[0])
        }
        (Atom::Eq(e), Atom::Ge(g)) | (Atom::Ge(g), Atom::Eq(e)) => {
            (linear_parts_match(g, e, true) && (&g[0] - &e[0]).is_negative())
                || (linear_parts_match(g, e, false) && (&g[0] + &e[0]).is_negative())
        }
    }
}

/// A name and the column it refers to.
#[derive(Clone, Debug)]
struct Binding {
    name: String,
    col: usize,
}

/// The lowering state of one piece.
struct Ctx<'w> {
    space: Space,
    n_dims: usize,
    /// Local variables: `Some` for known floor divisions, `None` for existentials.
    locals: Vec<Option<DivDef>>,
    scope: Vec<Binding>,
    work: &'w mut usize,
    expansions: u32,
}

impl<'w> Ctx<'w> {
    fn new(space: Space, work: &'w mut usize) -> Ctx<'w> {
        let n_dims = space.n_dims();
        Ctx {
            space,
            n_dims,
            locals: Vec::new(),
            scope: Vec::new(),
            work,
            expansions: 0,
        }
    }

    fn width(&self) -> usize {
        1 + self.n_dims + self.locals.len()
    }

    fn tick(&mut self, n: usize, pos: Pos) -> Result<()> {
        *self.work += n;
        if *self.work > MAX_WORK {
            return Err(pos.error(format!(
                "formula too large: expanding it needs more than {MAX_WORK} constraints"
            )));
        }
        Ok(())
    }

    fn resolve(&self, name: &str, pos: Pos) -> Result<usize> {
        match self.scope.iter().rev().find(|b| b.name == name) {
            Some(b) => Ok(b.col),
            None => Err(pos.error(format!("unknown identifier '{name}'"))),
        }
    }

    // ----- expressions -----

    fn lin(&mut self, e: &Expr) -> Result<Lin> {
        Ok(match &e.kind {
            ExprKind::Int(v) => Lin::constant(v.clone()),
            ExprKind::Var(name) => Lin::column(self.resolve(name, e.pos)?),
            ExprKind::Col(c) => Lin::column(*c),
            ExprKind::Sum(terms) => {
                let mut acc = Lin::constant(Int::zero());
                for (sub, t) in terms {
                    let l = self.lin(t)?;
                    acc = acc.add(&l, *sub);
                }
                acc
            }
            ExprKind::Product(factors) => {
                let mut constant = Lin::constant(Int::one());
                let mut variable: Option<Lin> = None;
                for f in factors {
                    let l = self.lin(f)?;
                    if l.is_constant() {
                        constant = Lin {
                            num: vec![&constant.num[0] * &l.num[0]],
                            den: &constant.den * &l.den,
                        }
                        .reduced();
                    } else if variable.is_none() {
                        variable = Some(l);
                    } else {
                        return Err(e
                            .pos
                            .error("non-affine expression: product of two non-constant factors"));
                    }
                }
                match variable {
                    Some(v) => v.scale(&constant.num[0]).divide(&constant.den),
                    None => constant,
                }
            }
            ExprKind::Div(x, d) => self.lin(x)?.divide(d),
            ExprKind::Floor(x) => {
                let l = self.lin(x)?;
                self.floor(l)
            }
            ExprKind::Ceil(x) => {
                let l = self.lin(x)?.negate();
                self.floor(l).negate()
            }
            ExprKind::Mod(x, d) => {
                let l = self.lin(x)?;
                let q = self.floor(l.divide(d));
                l.add(&q.scale(d), true)
            }
            ExprKind::Min(_) | ExprKind::Max(_) => {
                return Err(e
                    .pos
                    .error("'min' and 'max' are only supported inside comparisons"));
            }
            ExprKind::Select(..) => {
                return Err(e.pos.error(
                    "conditional expressions ('?:') are only supported inside comparisons and tuple definitions",
                ));
            }
        })
    }

    /// `floor(l)`, introducing (or reusing) a known local when `l` is not integral.
    fn floor(&mut self, l: Lin) -> Lin {
        if l.den.is_one() {
            return l;
        }
        if l.is_constant() {
            return Lin::constant(l.num[0].floor_div(&l.den));
        }
        let mut num = l.num;
        num.resize(self.width(), Int::zero());
        let (num, den) = normalize_div(num, l.den);
        if den.is_one() {
            return Lin {
                num,
                den: Int::one(),
            }
            .reduced();
        }
        let first = 1 + self.n_dims;
        for (k, d) in self.locals.iter().enumerate() {
            if let Some(d) = d {
                if d.den == den && trim(d.num.clone()) == trim(num.clone()) {
                    return Lin::column(first + k);
                }
            }
        }
        let col = self.width();
        self.locals.push(Some(DivDef { num, den }));
        Lin::column(col)
    }

    // ----- formulas -----

    fn combine(&mut self, parts: Vec<Dnf>, conjunctive: bool, pos: Pos) -> Result<Dnf> {
        if !conjunctive {
            let out: Dnf = parts.into_iter().flatten().collect();
            if out.iter().any(|c| c.atoms.is_empty() && c.maps.is_empty()) {
                return Ok(dnf_true());
            }
            if out.len() > MAX_DISJUNCTS {
                return Err(too_many_disjuncts(pos));
            }
            return Ok(remove_subsumed(out));
        }
        let mut acc = dnf_true();
        for p in parts {
            acc = self.product(acc, p, pos)?;
            if acc.is_empty() {
                break;
            }
        }
        Ok(acc)
    }

    fn product(&mut self, a: Dnf, b: Dnf, pos: Pos) -> Result<Dnf> {
        if a.len() == 1 && a[0].atoms.is_empty() && a[0].maps.is_empty() {
            return Ok(b);
        }
        let mut out = Vec::new();
        for x in &a {
            for y in &b {
                if x.atoms
                    .iter()
                    .any(|p| y.atoms.iter().any(|q| contradict(p, q)))
                {
                    continue;
                }
                let mut c = x.clone();
                for q in &y.atoms {
                    if !c.atoms.contains(q) {
                        c.atoms.push(q.clone());
                    }
                }
                c.maps.extend(y.maps.iter().cloned());
                self.tick(1 + y.atoms.len(), pos)?;
                out.push(c);
                if out.len() > MAX_DISJUNCTS {
                    return Err(too_many_disjuncts(pos));
                }
            }
        }
        Ok(out)
    }

    fn lower(&mut self, f: &Formula, neg: bool) -> Result<Dnf> {
        self.tick(1, f.pos)?;
        match &f.kind {
            FormulaKind::True => Ok(if neg { Vec::new() } else { dnf_true() }),
            FormulaKind::False => Ok(if neg { dnf_true() } else { Vec::new() }),
            FormulaKind::Chain { lists, ops } => self.lower_chain(lists, ops, neg, f.pos),
            FormulaKind::Cmp(a, op, b) => self.lower_cmp(a, *op, b, neg, f.pos),
            FormulaKind::And(items) | FormulaKind::Or(items) => {
                let conjunctive = matches!(f.kind, FormulaKind::And(_)) != neg;
                let mut parts = Vec::with_capacity(items.len());
                for x in items {
                    let d = self.lower(x, neg)?;
                    if conjunctive && d.is_empty() {
                        return Ok(Vec::new());
                    }
                    parts.push(d);
                }
                self.combine(parts, conjunctive, f.pos)
            }
            FormulaKind::Not(x) => self.lower(x, !neg),
            FormulaKind::Implies(a, b) => {
                let parts = vec![self.lower(a, !neg)?, self.lower(b, neg)?];
                self.combine(parts, neg, f.pos)
            }
            FormulaKind::Exists { vars, body } => {
                if neg {
                    return self.complement(f, f.pos);
                }
                let saved = self.scope.len();
                let mut parts = Vec::new();
                for v in vars {
                    if self.scope.iter().any(|b| b.name == v.name) {
                        return Err(v.pos.error(format!(
                            "existential variable '{}' is already defined",
                            v.name
                        )));
                    }
                    let col = self.width();
                    self.locals.push(None);
                    self.scope.push(Binding {
                        name: v.name.clone(),
                        col,
                    });
                    if let Some(def) = &v.def {
                        let var = Expr::new(ExprKind::Col(col), v.pos);
                        parts.push(self.lower_cmp(&var, CmpOp::Eq, def, false, v.pos)?);
                    }
                }
                parts.push(self.lower(body, false)?);
                self.scope.truncate(saved);
                self.combine(parts, true, f.pos)
            }
        }
    }

    /// The complement of a quantified formula, through [`Map::subtract`].
    ///
    /// The formula is lowered on its own, in a space whose output tuple is extended by
    /// the existential variables of the enclosing formulas (they are free variables of
    /// the negated formula); its complement is then tied back to those locals.
    fn complement(&mut self, f: &Formula, pos: Pos) -> Result<Dnf> {
        let first_local = 1 + self.n_dims;
        let outer: Vec<usize> = self
            .scope
            .iter()
            .filter(|b| b.col >= first_local)
            .map(|b| b.col)
            .collect();
        let space = extended_space(&self.space, outer.len());
        let scope = self
            .scope
            .iter()
            .map(|b| match outer.iter().position(|&c| c == b.col) {
                Some(j) => Binding {
                    name: b.name.clone(),
                    col: first_local + j,
                },
                None => b.clone(),
            })
            .collect();
        let inner = {
            let mut sub = Ctx::new(space.clone(), &mut *self.work);
            sub.scope = scope;
            let d = sub.lower(f, false)?;
            sub.into_map(d, pos)?
        };
        let rest = Map::universe(space).subtract(&inner)?;
        let targets = (0..self.n_dims)
            .chain(outer.iter().map(|c| c - 1))
            .collect();
        Ok(vec![Conj {
            atoms: Vec::new(),
            maps: vec![Lifted { map: rest, targets }],
        }])
    }

    fn lower_chain(
        &mut self,
        lists: &[Vec<Expr>],
        ops: &[(CmpOp, Pos)],
        neg: bool,
        pos: Pos,
    ) -> Result<Dnf> {
        let mut parts = Vec::new();
        for (k, (op, opos)) in ops.iter().enumerate() {
            let (left, right) = (&lists[k], &lists[k + 1]);
            if op.is_lex() {
                if left.len() != right.len() {
                    return Err(opos.error(format!(
                        "lexicographic comparison of lists of different lengths ({} and {})",
                        left.len(),
                        right.len()
                    )));
                }
                let f = lex_formula(left, *op, right, *opos);
                parts.push(self.lower(&f, neg)?);
                continue;
            }
            for a in left {
                for b in right {
                    parts.push(self.lower_cmp(a, *op, b, neg, *opos)?);
                }
            }
        }
        self.combine(parts, !neg, pos)
    }

    fn lower_cmp(&mut self, a: &Expr, op: CmpOp, b: &Expr, neg: bool, pos: Pos) -> Result<Dnf> {
        if let Some(f) = self.expand_minmax(a, op, b, pos)? {
            self.expansions += 1;
            if self.expansions > MAX_EXPANSIONS {
                return Err(pos.error(format!(
                    "too many 'min'/'max' expressions in one comparison (more than {MAX_EXPANSIONS})"
                )));
            }
            let r = self.lower(&f, neg);
            self.expansions -= 1;
            return r;
        }
        self.tick(1, pos)?;
        let d = self.lin(a)?.add(&self.lin(b)?, true);
        // d = num / den with den > 0: the sign of d is the sign of num.
        let row = d.num;
        let op = if neg { negate_op(op) } else { op };
        let minus_one = |mut r: Vec<Int>| {
            r[0] = &r[0] - Int::one();
            r
        };
        let negated = |r: &[Int]| r.iter().map(|v| -v).collect::<Vec<Int>>();
        Ok(match op {
            CmpOp::Ge => ge_atom(row),
            CmpOp::Gt => ge_atom(minus_one(row)),
            CmpOp::Le => ge_atom(negated(&row)),
            CmpOp::Lt => ge_atom(minus_one(negated(&row))),
            CmpOp::Eq => eq_atom(row),
            CmpOp::Ne => {
                let mut out = ge_atom(minus_one(row.clone()));
                out.extend(ge_atom(minus_one(negated(&row))));
                out
            }
            CmpOp::LexLt | CmpOp::LexLe | CmpOp::LexGt | CmpOp::LexGe => {
                let f = lex_formula(std::slice::from_ref(a), op, std::slice::from_ref(b), pos);
                return self.lower(&f, false);
            }
        })
    }

    /// Rewrites a comparison containing `min`/`max` into an equivalent formula.
    fn expand_minmax(
        &mut self,
        a: &Expr,
        op: CmpOp,
        b: &Expr,
        pos: Pos,
    ) -> Result<Option<Formula>> {
        let (in_left, path, polarity) = match find_minmax(a) {
            Some((p, s)) => (true, p, s),
            None => match find_minmax(b) {
                Some((p, s)) => (false, p, s),
                None => return Ok(None),
            },
        };
        let cmp = |x: Expr, o: CmpOp, y: Expr| {
            Formula::new(FormulaKind::Cmp(Box::new(x), o, Box::new(y)), pos)
        };
        if polarity.is_some() && matches!(op, CmpOp::Eq | CmpOp::Ne) {
            let (o1, o2, conj) = if op == CmpOp::Eq {
                (CmpOp::Ge, CmpOp::Le, true)
            } else {
                (CmpOp::Gt, CmpOp::Lt, false)
            };
            let items = vec![cmp(a.clone(), o1, b.clone()), cmp(a.clone(), o2, b.clone())];
            let kind = if conj {
                FormulaKind::And(items)
            } else {
                FormulaKind::Or(items)
            };
            return Ok(Some(Formula::new(kind, pos)));
        }
        let node = node_at(if in_left { a } else { b }, &path);
        if let ExprKind::Select(condition, then, otherwise) = &node.kind {
            // (c and a[then] op b) or (not c and a[otherwise] op b).
            self.tick(2, pos)?;
            let with = |arg: &Expr| {
                if in_left {
                    cmp(replace_at(a, &path, arg), op, b.clone())
                } else {
                    cmp(a.clone(), op, replace_at(b, &path, arg))
                }
            };
            let negated = Formula::new(FormulaKind::Not(condition.clone()), condition.pos);
            let cases = vec![
                Formula::new(
                    FormulaKind::And(vec![(**condition).clone(), with(then)]),
                    pos,
                ),
                Formula::new(FormulaKind::And(vec![negated, with(otherwise)]), pos),
            ];
            return Ok(Some(Formula::new(FormulaKind::Or(cases), pos)));
        }
        let (args, is_min) = match &node.kind {
            ExprKind::Min(v) => (v.clone(), true),
            ExprKind::Max(v) => (v.clone(), false),
            _ => return Err(pos.error("internal error: min/max expected")),
        };
        self.tick(args.len(), pos)?;
        let substituted = |arg: &Expr| {
            if in_left {
                cmp(replace_at(a, &path, arg), op, b.clone())
            } else {
                cmp(a.clone(), op, replace_at(b, &path, arg))
            }
        };
        let kind = match polarity {
            Some(p) => {
                let side = match op {
                    CmpOp::Ge | CmpOp::Gt => 1,
                    _ => -1,
                };
                let increasing = p * side * if in_left { 1 } else { -1 } > 0;
                let items: Vec<Formula> = args.iter().map(substituted).collect();
                if is_min == increasing {
                    FormulaKind::And(items)
                } else {
                    FormulaKind::Or(items)
                }
            }
            None => {
                let order = if is_min { CmpOp::Le } else { CmpOp::Ge };
                let mut cases = Vec::new();
                for (i, x) in args.iter().enumerate() {
                    let mut items: Vec<Formula> = args
                        .iter()
                        .enumerate()
                        .filter(|(j, _)| *j != i)
                        .map(|(_, y)| cmp(x.clone(), order, y.clone()))
                        .collect();
                    items.push(substituted(x));
                    cases.push(Formula::new(FormulaKind::And(items), pos));
                }
                FormulaKind::Or(cases)
            }
        };
        Ok(Some(Formula::new(kind, pos)))
    }

    /// The map of the points satisfying `dnf`.
    fn into_map(self, dnf: Dnf, pos: Pos) -> Result<Map> {
        let mut m = Map::empty(self.space.clone());
        for conj in dnf {
            let mut b = BasicMap::universe(self.space.clone());
            for d in &self.locals {
                b.add_div(d.clone());
            }
            let n = b.n_cols();
            for atom in conj.atoms {
                match atom {
                    Atom::Ge(mut r) => {
                        r.resize(n, Int::zero());
                        b.add_ineq(r);
                    }
                    Atom::Eq(mut r) => {
                        r.resize(n, Int::zero());
                        b.add_eq(r);
                    }
                }
            }
            let mut parts = vec![b];
            for lifted in &conj.maps {
                let mut next = Vec::new();
                for p in &parts {
                    for c in lifted.map.basic_maps() {
                        let mut q = p.clone();
                        q.absorb(c, &lifted.targets);
                        let q = q.simplify();
                        if !q.is_obviously_empty() {
                            next.push(q);
                        }
                    }
                }
                if next.len() > MAX_DISJUNCTS {
                    return Err(too_many_disjuncts(pos));
                }
                parts = next;
            }
            for piece in parts {
                let piece = piece.simplify();
                if !piece.is_obviously_empty()
                    && !m.basic_maps().iter().any(|x| same_basic_map(x, &piece))
                {
                    m.push(piece);
                }
            }
        }
        Ok(m)
    }
}

/// The space with `k` more (anonymous) output or set dimensions; a parameter domain
/// becomes a set space of `k` dimensions.
fn extended_space(space: &Space, k: usize) -> Space {
    if k == 0 {
        return space.clone();
    }
    let params = space.param_names().to_vec();
    match space.tuples() {
        Tuples::Params => Space::set(params, Tuple::anonymous(k)),
        Tuples::Set(t) => Space::set(params, Tuple::anonymous(t.n_dims() + k)),
        Tuples::Map(d, r) => Space::map(params, d.clone(), Tuple::anonymous(r.n_dims() + k)),
    }
}

/// Drops the conjunctions whose constraints include all those of another one (they
/// describe subsets of it); only for moderately sized disjunctions.
fn remove_subsumed(dnf: Dnf) -> Dnf {
    if dnf.len() > 256 || dnf.len() < 2 {
        return dnf;
    }
    let implies = |small: &Conj, big: &Conj| {
        big.maps.is_empty()
            && small.maps.is_empty()
            && big.atoms.iter().all(|a| small.atoms.contains(a))
    };
    let mut keep = vec![true; dnf.len()];
    for i in 0..dnf.len() {
        for j in 0..dnf.len() {
            // Conjunction i is dropped when conjunction j is weaker (and, for equal
            // ones, when j comes first).
            if i != j
                && keep[j]
                && implies(&dnf[i], &dnf[j])
                && (j < i || !implies(&dnf[j], &dnf[i]))
            {
                keep[i] = false;
                break;
            }
        }
    }
    dnf.into_iter()
        .zip(keep)
        .filter_map(|(c, k)| k.then_some(c))
        .collect()
}

fn too_many_disjuncts(pos: Pos) -> Error {
    pos.error(format!(
        "formula too large: it expands to more than {MAX_DISJUNCTS} disjuncts"
    ))
}

/// Whether two (simplified) basic maps have identical constraints and locals.
fn same_basic_map(a: &BasicMap, b: &BasicMap) -> bool {
    a.divs() == b.divs() && a.eqs() == b.eqs() && a.ineqs() == b.ineqs()
}

fn negate_op(op: CmpOp) -> CmpOp {
    match op {
        CmpOp::Lt => CmpOp::Ge,
        CmpOp::Ge => CmpOp::Lt,
        CmpOp::Le => CmpOp::Gt,
        CmpOp::Gt => CmpOp::Le,
        CmpOp::Eq => CmpOp::Ne,
        CmpOp::Ne => CmpOp::Eq,
        CmpOp::LexLt => CmpOp::LexGe,
        CmpOp::LexGe => CmpOp::LexLt,
        CmpOp::LexLe => CmpOp::LexGt,
        CmpOp::LexGt => CmpOp::LexLe,
    }
}

/// `a ≺ b` (and the other lexicographic orders) as a formula over single comparisons.
fn lex_formula(a: &[Expr], op: CmpOp, b: &[Expr], pos: Pos) -> Formula {
    let (x, y, or_equal) = match op {
        CmpOp::LexLt => (a, b, false),
        CmpOp::LexLe => (a, b, true),
        CmpOp::LexGt => (b, a, false),
        _ => (b, a, true),
    };
    let cmp = |p: &Expr, o: CmpOp, q: &Expr| {
        Formula::new(
            FormulaKind::Cmp(Box::new(p.clone()), o, Box::new(q.clone())),
            pos,
        )
    };
    let mut cases = Vec::new();
    for k in 0..=x.len() {
        if k == x.len() && !or_equal {
            break;
        }
        let mut items: Vec<Formula> = (0..k).map(|j| cmp(&x[j], CmpOp::Eq, &y[j])).collect();
        if k < x.len() {
            items.push(cmp(&x[k], CmpOp::Lt, &y[k]));
        }
        cases.push(Formula::new(FormulaKind::And(items), pos));
    }
    Formula::new(FormulaKind::Or(cases), pos)
}

/// The first `min`/`max` or conditional node in pre-order: its path and, for `min` and
/// `max` when every node above it is monotone, the direction (`±1`) in which the whole
/// expression moves with it.
fn find_minmax(e: &Expr) -> Option<(Vec<usize>, Option<i32>)> {
    if matches!(e.kind, ExprKind::Min(_) | ExprKind::Max(_)) {
        return Some((Vec::new(), Some(1)));
    }
    if matches!(e.kind, ExprKind::Select(..)) {
        return Some((Vec::new(), None));
    }
    for (i, child) in e.kind.children().enumerate() {
        if let Some((mut path, pol)) = find_minmax(child) {
            path.insert(0, i);
            let step = child_polarity(e, i);
            let pol = match (pol, step) {
                (Some(p), Some(s)) => Some(p * s),
                _ => None,
            };
            return Some((path, pol));
        }
    }
    None
}

/// How `e` moves with its child `i` (`None` when not monotone).
fn child_polarity(e: &Expr, i: usize) -> Option<i32> {
    match &e.kind {
        ExprKind::Sum(terms) => Some(if terms[i].0 { -1 } else { 1 }),
        ExprKind::Floor(_) | ExprKind::Ceil(_) => Some(1),
        ExprKind::Div(_, d) => Some(if d.is_negative() { -1 } else { 1 }),
        ExprKind::Product(factors) => {
            let mut sign = 1;
            for (j, f) in factors.iter().enumerate() {
                if j == i {
                    continue;
                }
                match &f.kind {
                    ExprKind::Int(v) if v.is_negative() => sign = -sign,
                    ExprKind::Int(_) => {}
                    _ => return None,
                }
            }
            Some(sign)
        }
        _ => None,
    }
}

fn node_at<'e>(e: &'e Expr, path: &[usize]) -> &'e Expr {
    match path.split_first() {
        None => e,
        Some((i, rest)) => match e.kind.children().nth(*i) {
            Some(c) => node_at(c, rest),
            None => e,
        },
    }
}

/// A copy of `e` with the node at `path` replaced by `with`.
fn replace_at(e: &Expr, path: &[usize], with: &Expr) -> Expr {
    let Some((&i, rest)) = path.split_first() else {
        return with.clone();
    };
    let r = |x: &Expr| replace_at(x, rest, with);
    let kind = match &e.kind {
        ExprKind::Sum(terms) => ExprKind::Sum(
            terms
                .iter()
                .enumerate()
                .map(|(j, (s, t))| (*s, if j == i { r(t) } else { t.clone() }))
                .collect(),
        ),
        ExprKind::Product(v) => ExprKind::Product(
            v.iter()
                .enumerate()
                .map(|(j, t)| if j == i { r(t) } else { t.clone() })
                .collect(),
        ),
        ExprKind::Min(v) => ExprKind::Min(
            v.iter()
                .enumerate()
                .map(|(j, t)| if j == i { r(t) } else { t.clone() })
                .collect(),
        ),
        ExprKind::Max(v) => ExprKind::Max(
            v.iter()
                .enumerate()
                .map(|(j, t)| if j == i { r(t) } else { t.clone() })
                .collect(),
        ),
        ExprKind::Div(x, d) => ExprKind::Div(Box::new(r(x)), d.clone()),
        ExprKind::Floor(x) => ExprKind::Floor(Box::new(r(x))),
        ExprKind::Ceil(x) => ExprKind::Ceil(Box::new(r(x))),
        ExprKind::Mod(x, d) => ExprKind::Mod(Box::new(r(x)), d.clone()),
        ExprKind::Select(c, x, y) => {
            if i == 0 {
                ExprKind::Select(c.clone(), Box::new(r(x)), y.clone())
            } else {
                ExprKind::Select(c.clone(), x.clone(), Box::new(r(y)))
            }
        }
        other => other.clone(),
    };
    Expr::new(kind, e.pos)
}

fn build_tuple(t: &TupleAst) -> Tuple {
    match &t.body {
        TupleBody::Flat(dims) => Tuple::with_names(
            t.name.clone(),
            dims.iter().map(|d| d.name.clone()).collect(),
        ),
        TupleBody::Nested(a, b) => Tuple::wrapped(t.name.clone(), build_tuple(a), build_tuple(b)),
    }
}

/// The space of a piece.
fn piece_space(params: &[String], piece: &Piece) -> Space {
    match (&piece.domain, &piece.range) {
        (Some(d), Some(r)) => Space::map(params.to_vec(), build_tuple(d), build_tuple(r)),
        (None, Some(r)) => Space::set(params.to_vec(), build_tuple(r)),
        _ => Space::params(params.to_vec()),
    }
}

/// Lowers one piece to a map in its space.
fn lower_piece(
    params: &[String],
    param_defs: &[Option<Expr>],
    piece: &Piece,
    work: &mut usize,
) -> Result<Map> {
    let space = piece_space(params, piece);
    let mut ctx = Ctx::new(space, work);
    for (i, p) in params.iter().enumerate() {
        ctx.scope.push(Binding {
            name: p.clone(),
            col: 1 + i,
        });
    }
    let mut dims = Vec::new();
    if let Some(d) = &piece.domain {
        dims.extend(d.dims());
    }
    if let Some(r) = &piece.range {
        dims.extend(r.dims());
    }
    let mut parts = Vec::new();
    for (i, def) in param_defs.iter().enumerate() {
        if let Some(def) = def {
            let var = Expr::new(ExprKind::Col(1 + i), def.pos);
            parts.push(ctx.lower_cmp(&var, CmpOp::Eq, def, false, def.pos)?);
        }
    }
    for (k, dim) in dims.iter().enumerate() {
        let col = 1 + params.len() + k;
        if let Some(def) = &dim.def {
            let var = Expr::new(ExprKind::Col(col), def.pos);
            parts.push(ctx.lower_cmp(&var, CmpOp::Eq, def, false, def.pos)?);
        }
        if let Some(name) = &dim.name {
            ctx.scope.push(Binding {
                name: name.clone(),
                col,
            });
        }
    }
    if let Some(f) = &piece.formula {
        parts.push(ctx.lower(f, false)?);
    }
    let dnf = ctx.combine(parts, true, piece.pos)?;
    ctx.into_map(dnf, piece.pos)
}

/// Lowers every piece of an object, each to a map in its own space.
pub(crate) fn lower_object(obj: &Object) -> Result<Vec<(Pos, Map)>> {
    let mut work = 0;
    obj.pieces
        .iter()
        .map(|p| {
            Ok((
                p.pos,
                lower_piece(&obj.params, &obj.param_defs, p, &mut work)?,
            ))
        })
        .collect()
}
