//! Evaluation of `pollen calc` expressions over the `pollen-presburger` library.
//!
//! Values are sets, maps, union sets, union maps, booleans and integers. Every operator
//! is one or two library calls; this module only decides which, from the operands'
//! kinds:
//!
//! - a set and a map in one space stay a [`Set`]/[`Map`] when both operands live in the
//!   same tuples; operands in different tuples, or a union operand, promote both sides to
//!   [`UnionSet`]/[`UnionMap`] (as iscc, whose values are all unions, would compute);
//! - sets never mix with maps, except on the left of `.` (the image of a set) and on
//!   the right of `*` (`map * set` restricts the map's domain, as in iscc);
//! - an operator applied to the wrong kind (`dom` of a set, `^-1` of a set, `card` of a
//!   boolean, ...) is an error located at the operator.
//!
//! Every statement runs under a fresh budget of the script's `--budget` steps, and every
//! operator that calls the integer solver spends it (the library's `_with` variants); an
//! operator that runs out is a resource-limit error naming it.
//!
//! # Invariants
//! - A [`Value::Set`] or [`Value::UnionSet`] never holds a map space, and a
//!   [`Value::Map`] always holds a map space (the library's newtypes enforce the first;
//!   [`Value::from_map`] the second).

use std::collections::HashMap;
use std::fmt;

use pollen_presburger::text::{parse_object_at, Parsed};
use pollen_presburger::{
    Budget, DimKind, Error, Extended, Int, Map, PwQPolynomial, Set, Space, UnionMap,
    UnionPwQPolynomial, UnionSet,
};

use super::lexer::Span;
use super::parser::{BinaryOp, Expr, ExprKind, Stmt, UnaryOp};
use crate::budget::{LimitError, Steps};

/// The value of an expression.
#[derive(Clone, Debug)]
pub enum Value {
    /// A set in one space.
    Set(Set),
    /// A map in one space.
    Map(Map),
    /// Sets in several spaces.
    UnionSet(UnionSet),
    /// Maps in several spaces.
    UnionMap(UnionMap),
    /// The answer of a comparison or of `is_empty`.
    Bool(bool),
    /// A number of points.
    Int(Int),
    /// The number of points of a parametric or unbounded set, or of the range points of
    /// a map per domain point: a piecewise quasi-polynomial, printed as iscc does
    /// (`[N] -> { ((1/2) * N + (1/2) * N^2) : N >= 1 }`,
    /// `[N] -> { (1 + floor((N)/2)) : N >= 0 }`, `{ [i] -> i : 1 <= i <= 9 }`,
    /// `{ infty }`).
    Count(PwQPolynomial),
    /// The range points per domain point of a union map over several domain spaces:
    /// one piecewise quasi-polynomial per space in one pair of braces, as iscc prints
    /// it (`[N] -> { A[i] -> i : 0 < i < N; C[i] -> N : 0 <= i < N }`).
    UnionCount(UnionPwQPolynomial),
    /// A value with an exactness flag (`A^+`, `A^*`), printed `(value, True)` as iscc
    /// does.
    Pair(Box<Value>, bool),
}

impl Value {
    /// A set or a map, whichever the space of `m` is.
    pub fn from_map(m: Map) -> Value {
        if m.space().is_map() {
            Value::Map(m)
        } else {
            Value::Set(Set::from_map(m).expect("a map without a map space is a set"))
        }
    }

    /// What the value is, for error messages.
    pub fn kind_name(&self) -> &'static str {
        match self {
            Value::Set(_) => "a set",
            Value::Map(_) => "a map",
            Value::UnionSet(_) => "a union set",
            Value::UnionMap(_) => "a union map",
            Value::Bool(_) => "a boolean",
            Value::Int(_) => "an integer",
            Value::Count(_) => "a piecewise quasi-polynomial",
            Value::UnionCount(_) => "a union piecewise quasi-polynomial",
            Value::Pair(..) => "a pair",
        }
    }
}

impl fmt::Display for Value {
    /// isl syntax for sets and maps, `True`/`False` for booleans, decimal integers.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Set(s) => write!(f, "{s}"),
            Value::Map(m) => write!(f, "{m}"),
            Value::UnionSet(u) => write!(f, "{u}"),
            Value::UnionMap(u) => write!(f, "{u}"),
            Value::Bool(true) => write!(f, "True"),
            Value::Bool(false) => write!(f, "False"),
            Value::Int(n) => write!(f, "{n}"),
            Value::Count(c) => write!(f, "{c}"),
            Value::UnionCount(c) => write!(f, "{c}"),
            Value::Pair(v, exact) => {
                write!(f, "({v}, {})", if *exact { "True" } else { "False" })
            }
        }
    }
}

/// An evaluation error, located in the script.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EvalError {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// What went wrong.
    pub message: String,
    /// Whether the statement ran out of its budget.
    pub limit: bool,
}

impl EvalError {
    /// An error at byte `offset` of `src`.
    pub fn at(src: &str, offset: usize, message: String) -> EvalError {
        let (line, column) = super::line_column(src, offset);
        EvalError {
            line,
            column,
            message,
            limit: false,
        }
    }

    /// The error of an operator at byte `offset` of `src`.
    fn of_operator(src: &str, offset: usize, spelling: &str, e: OpError, steps: Steps) -> Self {
        match e {
            OpError::Message(message) => EvalError::at(src, offset, message),
            OpError::Limit => EvalError {
                limit: true,
                ..EvalError::at(
                    src,
                    offset,
                    LimitError::new(format!("`{spelling}`"), steps).to_string(),
                )
            },
        }
    }
}

type EResult<T> = Result<T, EvalError>;

/// The variables of a running script and the budget of each statement.
/// `Env::default()` has the default budget per statement.
#[derive(Default)]
pub struct Env {
    vars: HashMap<String, Value>,
    steps: Steps,
}

impl Env {
    /// An environment without variables whose statements each get `steps`.
    pub fn with_steps(steps: Steps) -> Env {
        Env {
            vars: HashMap::new(),
            steps,
        }
    }

    /// Runs one statement within a fresh budget; returns the value to print, if the
    /// statement prints one.
    pub fn exec(&mut self, src: &str, stmt: &Stmt) -> EResult<Option<Value>> {
        let mut budget = self.steps.budget();
        match stmt {
            Stmt::Assign { name, expr } => {
                let value = self.eval(src, expr, &mut budget)?;
                self.vars.insert(name.clone(), value);
                Ok(None)
            }
            Stmt::Print(expr) => Ok(Some(self.eval(src, expr, &mut budget)?)),
        }
    }

    /// Evaluates an expression within `budget`; `src` is the script, for locating
    /// errors.
    pub fn eval(&self, src: &str, expr: &Expr, budget: &mut Budget) -> EResult<Value> {
        let error = |message| EvalError::at(src, expr.span.start, message);
        let op_error = |spelling: &str, e| {
            EvalError::of_operator(src, expr.span.start, spelling, e, self.steps)
        };
        match &expr.kind {
            ExprKind::Literal(text) => literal(src, text, expr.span),
            ExprKind::Var(name) => self
                .vars
                .get(name)
                .cloned()
                .ok_or_else(|| error(format!("undefined variable `{name}`"))),
            ExprKind::Unary(op, operand) => {
                let value = self.eval(src, operand, budget)?;
                unary(*op, value, budget).map_err(|e| op_error(op.spelling(), e))
            }
            ExprKind::Binary(op, left, right) => {
                let left = self.eval(src, left, budget)?;
                let right = self.eval(src, right, budget)?;
                binary(*op, left, right, budget).map_err(|e| op_error(op.spelling(), e))
            }
        }
    }
}

/// Parses a literal; the parser reports its errors in script coordinates.
fn literal(src: &str, text: &str, span: Span) -> EResult<Value> {
    let (line, column) = super::line_column(src, span.start);
    match parse_object_at(text, line, column) {
        Ok(Parsed::Set(s)) => Ok(Value::Set(s)),
        Ok(Parsed::Map(m)) => Ok(Value::Map(m)),
        Ok(Parsed::UnionSet(u)) => Ok(Value::UnionSet(u)),
        Ok(Parsed::UnionMap(u)) => Ok(Value::UnionMap(u)),
        Err(Error::Parse {
            line,
            column,
            message,
        }) => Err(EvalError {
            line,
            column,
            message,
            limit: false,
        }),
        Err(Error::UnsupportedSyntax {
            line,
            column,
            construct,
        }) => Err(EvalError {
            line,
            column,
            message: format!("unsupported: {construct}"),
            limit: false,
        }),
        Err(other) => Err(EvalError {
            line,
            column,
            message: other.to_string(),
            limit: false,
        }),
    }
}

/// Why an operator failed: a message, or its budget ran out.
#[derive(Debug)]
enum OpError {
    Message(String),
    Limit,
}

type OpResult = Result<Value, OpError>;

/// An operator error with `message`.
fn fail<T>(message: String) -> Result<T, OpError> {
    Err(OpError::Message(message))
}

/// Turns a library error into an operator error.
fn lib<T>(r: pollen_presburger::Result<T>) -> Result<T, OpError> {
    r.map_err(|e| match e {
        Error::LimitExceeded => OpError::Limit,
        e => OpError::Message(e.to_string()),
    })
}

/// A set-like or map-like operand in one space or several.
enum Rel {
    One(Map),
    Union(UnionMap),
}

/// Splits a value into its relation and whether it is a set; `None` for numbers and
/// booleans.
fn rel(value: Value) -> Option<(bool, Rel)> {
    match value {
        Value::Set(s) => Some((true, Rel::One(s.into_map()))),
        Value::Map(m) => Some((false, Rel::One(m))),
        Value::UnionSet(u) => Some((true, Rel::Union(u.as_union_map().clone()))),
        Value::UnionMap(u) => Some((false, Rel::Union(u))),
        Value::Bool(_)
        | Value::Int(_)
        | Value::Count(_)
        | Value::UnionCount(_)
        | Value::Pair(..) => None,
    }
}

impl Rel {
    fn into_union(self) -> UnionMap {
        match self {
            Rel::One(m) => UnionMap::from_map(m),
            Rel::Union(u) => u,
        }
    }
}

/// Rebuilds a value from a relation of the given kind.
fn unrel(is_set: bool, r: Rel) -> Value {
    match r {
        Rel::One(m) => Value::from_map(m),
        Rel::Union(u) if is_set => Value::UnionSet(as_union_set(u)),
        Rel::Union(u) => Value::UnionMap(u),
    }
}

fn as_union_set(u: UnionMap) -> UnionSet {
    u.into_union_set()
        .expect("operations on union sets yield union sets")
}

fn binary(op: BinaryOp, left: Value, right: Value, budget: &mut Budget) -> OpResult {
    match (op, &left, &right) {
        (BinaryOp::Equal, Value::Bool(a), Value::Bool(b)) => return Ok(Value::Bool(a == b)),
        (BinaryOp::Equal, Value::Int(a), Value::Int(b)) => return Ok(Value::Bool(a == b)),
        _ => {}
    }
    let (left_kind, right_kind) = (left.kind_name(), right.kind_name());
    let (Some((left_set, a)), Some((right_set, b))) = (rel(left), rel(right)) else {
        return fail(format!(
            "`{}` needs sets or maps, found {left_kind} and {right_kind}",
            op.spelling()
        ));
    };
    if op == BinaryOp::Compose {
        return compose(left_set, a, right_set, b, left_kind, right_kind);
    }
    if op == BinaryOp::Intersect && !left_set && right_set {
        return intersect_domain(a, b);
    }
    if left_set != right_set {
        return fail(format!(
            "`{}` needs two sets or two maps, found {left_kind} and {right_kind}",
            op.spelling()
        ));
    }
    match (a, b) {
        (Rel::One(a), Rel::One(b)) if a.space().tuples_match(b.space()) => {
            one_space(op, &a, &b, budget)
        }
        (Rel::One(a), Rel::One(b))
            if op == BinaryOp::Intersect && (a.space().is_params() || b.space().is_params()) =>
        {
            let (params, other) = if a.space().is_params() {
                (a, b)
            } else {
                (b, a)
            };
            Ok(Value::from_map(lib(other.intersect_params(&params))?))
        }
        (Rel::One(a), Rel::One(b)) if a.space().is_params() || b.space().is_params() => {
            fail(format!(
                "`{}` cannot combine a parameter domain with a set (`*` restricts a set to \
                 a parameter domain)",
                op.spelling()
            ))
        }
        (a, b) => {
            let (a, b) = (a.into_union(), b.into_union());
            several_spaces(op, left_set, &a, &b, budget)
        }
    }
}

/// A binary set operation on two operands with the same tuples.
fn one_space(op: BinaryOp, a: &Map, b: &Map, budget: &mut Budget) -> OpResult {
    Ok(match op {
        BinaryOp::Union => Value::from_map(lib(a.union(b))?),
        BinaryOp::Intersect => Value::from_map(lib(a.intersect(b))?),
        BinaryOp::Subtract => Value::from_map(lib(a.subtract_with(b, budget))?),
        BinaryOp::Equal => Value::Bool(lib(a.is_equal_with(b, budget))?),
        BinaryOp::Subset => Value::Bool(lib(a.is_subset_with(b, budget))?),
        BinaryOp::StrictSubset => Value::Bool(lib(a.is_strict_subset_with(b, budget))?),
        BinaryOp::Compose => unreachable!("composition is dispatched by `compose`"),
    })
}

/// A binary set operation on unions.
fn several_spaces(
    op: BinaryOp,
    is_set: bool,
    a: &UnionMap,
    b: &UnionMap,
    budget: &mut Budget,
) -> OpResult {
    let r = match op {
        BinaryOp::Union => lib(a.union(b))?,
        BinaryOp::Intersect => lib(a.intersect(b))?,
        BinaryOp::Subtract => lib(a.subtract_with(b, budget))?,
        BinaryOp::Equal => return Ok(Value::Bool(lib(a.is_equal_with(b, budget))?)),
        BinaryOp::Subset => return Ok(Value::Bool(lib(a.is_subset_with(b, budget))?)),
        BinaryOp::StrictSubset => {
            let strict = lib(a.is_subset_with(b, budget))? && !lib(b.is_subset_with(a, budget))?;
            return Ok(Value::Bool(strict));
        }
        BinaryOp::Compose => unreachable!("composition is dispatched by `compose`"),
    };
    Ok(unrel(is_set, Rel::Union(r)))
}

/// `map * set`: the map restricted to the domain points in the set (or to the parameter
/// values of a parameter domain), as in iscc.
fn intersect_domain(map: Rel, set: Rel) -> OpResult {
    match (map, set) {
        (Rel::One(m), Rel::One(s)) if s.space().is_params() => {
            Ok(Value::from_map(lib(m.intersect_params(&s))?))
        }
        (Rel::One(m), Rel::One(s)) if m.space().domain_tuple() == s.space().range_tuple() => {
            Ok(Value::from_map(lib(m.intersect_domain(&s))?))
        }
        (m, s) => {
            let (m, s) = (m.into_union(), as_union_set(s.into_union()));
            Ok(Value::UnionMap(lib(m.intersect_domain(&s))?))
        }
    }
}

/// `a . b`: the composition of two maps, or the image of a set under a map.
fn compose(
    left_set: bool,
    a: Rel,
    right_set: bool,
    b: Rel,
    left_kind: &str,
    right_kind: &str,
) -> OpResult {
    if right_set {
        return fail(format!(
            "`.` needs a map on its right, found {left_kind} and {right_kind}"
        ));
    }
    // The tuple of a set, or the range tuple of a map, against the map's domain tuple.
    let matching = |a: &Map, b: &Map| {
        let middle = a.space().range_tuple();
        middle.is_some() && middle == b.space().domain_tuple()
    };
    match (a, b) {
        (Rel::One(a), Rel::One(b)) if matching(&a, &b) => {
            if left_set {
                Ok(Value::from_map(lib(b.apply_to_set(&a))?))
            } else {
                Ok(Value::from_map(lib(a.apply_range(&b))?))
            }
        }
        (a, b) => {
            let (a, b) = (a.into_union(), b.into_union());
            if left_set {
                let image = lib(b.apply_to(&as_union_set(a)))?;
                Ok(Value::UnionSet(image))
            } else {
                Ok(Value::UnionMap(lib(a.apply_range(&b))?))
            }
        }
    }
}

fn unary(op: UnaryOp, value: Value, budget: &mut Budget) -> OpResult {
    let kind = value.kind_name();
    let spelling = op.spelling();
    let Some((is_set, r)) = rel(value) else {
        return fail(format!("`{spelling}` needs a set or a map, found {kind}"));
    };
    let needs_map = || fail(format!("`{spelling}` needs a map, found {kind}"));
    match (op, r) {
        (UnaryOp::IsEmpty, Rel::One(m)) => Ok(Value::Bool(lib(m.is_empty_with(budget))?)),
        (UnaryOp::IsEmpty, Rel::Union(u)) => {
            for m in u.maps() {
                if !lib(m.is_empty_with(budget))? {
                    return Ok(Value::Bool(false));
                }
            }
            Ok(Value::Bool(true))
        }
        (
            UnaryOp::Domain
            | UnaryOp::Range
            | UnaryOp::Deltas
            | UnaryOp::Reverse
            | UnaryOp::TransitiveClosure
            | UnaryOp::ReflexiveClosure,
            _,
        ) if is_set => needs_map(),
        (UnaryOp::TransitiveClosure | UnaryOp::ReflexiveClosure, r) => closure(op, r, budget),
        (UnaryOp::Domain, Rel::One(m)) => Ok(Value::Set(m.domain_set())),
        (UnaryOp::Domain, Rel::Union(u)) => Ok(Value::UnionSet(u.domain())),
        (UnaryOp::Range, Rel::One(m)) => Ok(Value::Set(m.range_set())),
        (UnaryOp::Range, Rel::Union(u)) => Ok(Value::UnionSet(u.range())),
        (UnaryOp::Deltas, Rel::One(m)) => Ok(Value::Set(lib(m.deltas_set())?)),
        (UnaryOp::Deltas, Rel::Union(u)) => Ok(Value::UnionSet(lib(u.deltas())?)),
        (UnaryOp::Reverse, Rel::One(m)) => Ok(Value::Map(m.reverse())),
        (UnaryOp::Reverse, Rel::Union(u)) => Ok(Value::UnionMap(u.reverse())),
        (UnaryOp::Lexmin, r) => each(is_set, r, budget, Map::lexmin_with),
        (UnaryOp::Lexmax, r) => each(is_set, r, budget, Map::lexmax_with),
        (UnaryOp::Coalesce, r) => each(is_set, r, budget, Map::coalesce_with),
        (UnaryOp::Complement, Rel::One(m)) => Ok(Value::from_map(lib(m.complement_with(budget))?)),
        (UnaryOp::Complement, Rel::Union(_)) => fail(format!(
            "`complement` needs a set or a map in one space, found {kind}"
        )),
        (UnaryOp::Params, Rel::One(m)) => Ok(Value::Set(m.params_set())),
        (UnaryOp::Params, Rel::Union(u)) => union_params(&u),
        (UnaryOp::Sample, r) => sample(r, budget),
        (UnaryOp::Card, r) if is_set => card(r, budget),
        (UnaryOp::Card, r) => card_of_map(r, budget),
    }
}

/// `A^+` or `A^*` of a map in one space (a union map of a single space included), with
/// its exactness flag.
fn closure(op: UnaryOp, r: Rel, budget: &mut Budget) -> OpResult {
    let m = match r {
        Rel::One(m) => m,
        Rel::Union(u) if u.maps().count() == 1 => u.maps().next().cloned().expect("one map"),
        Rel::Union(_) => {
            return fail(format!(
                "`{}` needs a map in one space, found a union map of several spaces",
                op.spelling()
            ))
        }
    };
    let (result, exact) = if op == UnaryOp::TransitiveClosure {
        lib(m.transitive_closure_with(budget))?
    } else {
        lib(m.reflexive_transitive_closure_with(budget))?
    };
    Ok(Value::Pair(Box::new(Value::Map(result)), exact))
}

/// Applies a per-space operation to a value in one space or to each space of a union,
/// within one budget.
fn each(
    is_set: bool,
    r: Rel,
    budget: &mut Budget,
    f: impl Fn(&Map, &mut Budget) -> pollen_presburger::Result<Map>,
) -> OpResult {
    let r = match r {
        Rel::One(m) => Rel::One(lib(f(&m, budget))?),
        Rel::Union(u) => {
            let mut out = UnionMap::empty(u.param_names().to_vec());
            for m in u.maps() {
                lib(out.add_map(lib(f(m, budget))?))?;
            }
            Rel::Union(out)
        }
    };
    Ok(unrel(is_set, r))
}

/// The parameter domain of a union: the union of its members' parameter domains.
fn union_params(u: &UnionMap) -> OpResult {
    let mut params = Set::empty(pollen_presburger::Space::params(u.param_names().to_vec()));
    for m in u.maps() {
        params = lib(params.union(&m.params_set()))?;
    }
    Ok(Value::Set(params))
}

/// One point of the operand, as a set or map of one point; the empty set or map of the
/// operand's space (the empty union for a union) when there is none.
fn sample(r: Rel, budget: &mut Budget) -> OpResult {
    let members: Vec<Map> = match r {
        Rel::One(m) => vec![m],
        Rel::Union(u) => {
            let members: Vec<Map> = u.maps().cloned().collect();
            if members.is_empty() {
                return Ok(unrel(true, Rel::Union(u)));
            }
            members
        }
    };
    for m in &members {
        if let Some(point) = lib(m.sample_with(budget))? {
            return Ok(Value::from_map(lib(single_point(m, &point))?));
        }
    }
    Ok(Value::from_map(Map::empty(members[0].space().clone())))
}

/// The subset of `m`'s space holding only `point` (params, then in, then out).
fn single_point(m: &Map, point: &[Int]) -> pollen_presburger::Result<Map> {
    let space = m.space();
    let mut result = Map::universe(space.clone());
    let mut values = point.iter();
    for kind in [DimKind::Param, DimKind::In, DimKind::Out] {
        for pos in 0..space.n(kind) {
            if let Some(v) = values.next() {
                result = result.fix_val(kind, pos, v)?;
            }
        }
    }
    Ok(result)
}

/// The number of points of a set (or union set): an integer for a bounded set
/// without parameters (by summation, or by enumeration for the sets the summation
/// refuses), else a piecewise quasi-polynomial in the parameters, `{ infty }` where
/// the set is unbounded.
fn card(r: Rel, budget: &mut Budget) -> OpResult {
    let members: Vec<Map> = match r {
        Rel::One(m) => vec![m],
        Rel::Union(u) => u.maps().cloned().collect(),
    };
    if members.iter().any(|m| m.space().n_params() > 0) {
        let mut total: Option<PwQPolynomial> = None;
        for m in members {
            let set = lib(Set::from_map(m))?;
            let count = lib(set.card_parametric_with(budget))?;
            total = Some(match total {
                None => count,
                Some(t) => lib(t.add_with(&count, budget))?,
            });
        }
        return Ok(Value::Count(
            total.expect("a union with parameters has a member"),
        ));
    }
    // Counted symbolically where the summation covers the set (never enumerating),
    // point by point otherwise.
    let mut total = Int::zero();
    for m in members {
        let set = lib(Set::from_map(m))?;
        let count = match set.card_parametric_with(budget) {
            Ok(count) => lib(count.eval(&[]))?,
            Err(Error::Unsupported(_)) => Extended::Finite(lib(set.card_with(budget))?),
            Err(e) => lib(Err(e))?,
        };
        match count {
            Extended::Finite(n) => total += n,
            Extended::Infinity => {
                let infinite = PwQPolynomial::infinity_on(Space::params(Vec::new()));
                return Ok(Value::Count(lib(infinite)?));
            }
        }
    }
    Ok(Value::Int(total))
}

/// iscc's `card` of a map (or of a union map): the number of range points of each
/// domain point, a piecewise quasi-polynomial on the domain (`{ [i] -> i : 1 <= i <= 9
/// }`), infinite where a domain point has infinitely many; one per domain space, in
/// one union, when the union map has several.
fn card_of_map(r: Rel, budget: &mut Budget) -> OpResult {
    let members: Vec<Map> = match r {
        Rel::One(m) => vec![m],
        Rel::Union(u) => u.maps().cloned().collect(),
    };
    let mut total: Option<UnionPwQPolynomial> = None;
    for m in members {
        let count = lib(m.card_range_parametric_with(budget))?;
        let sum = total.unwrap_or_else(|| UnionPwQPolynomial::empty(count.params().to_vec()));
        total = Some(lib(sum.add_with(&count, budget))?);
    }
    match total {
        Some(total) if total.members().len() == 1 => Ok(Value::Count(total.members()[0].clone())),
        Some(total) => Ok(Value::UnionCount(total)),
        None => fail("`card` of an empty union map, which has no domain space".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calc::parser::parse_script;

    /// Runs every statement of `src` and returns the outcome of the last one.
    fn last(src: &str) -> EResult<Option<Value>> {
        let mut env = Env::default();
        let mut outcome = Ok(None);
        for statement in parse_script(src) {
            let statement = statement.expect("the script parses");
            outcome = env.exec(src, &statement);
        }
        outcome
    }

    fn value(src: &str) -> Value {
        last(src)
            .expect("evaluates")
            .expect("the last statement prints")
    }

    fn error(src: &str) -> EvalError {
        last(src).expect_err("fails")
    }

    #[test]
    fn values_keep_the_most_specific_kind() {
        let kind = |src: &str| value(src).kind_name();
        assert_eq!(kind("{ [i] } + { [i] : i > 0 };"), "a set");
        assert_eq!(kind("{ A[i] } + { B[i] };"), "a union set");
        assert_eq!(kind("{ [i] -> [j] } . { [j] -> [k] };"), "a map");
        assert_eq!(kind("{ A[i] -> B[i] } . { C[j] -> D[k] };"), "a union map");
        assert_eq!(kind("{ [i] : i >= 0 } . { [i] -> [i + 1] };"), "a set");
        assert_eq!(kind("{ A[i] } . { B[i] -> C[i] };"), "a union set");
        assert_eq!(kind("dom { [i] -> [j] };"), "a set");
        assert_eq!(
            kind("dom ({ A[i] -> B[i] } + { C[i] -> D[i] });"),
            "a union set"
        );
        assert_eq!(kind("{ [i] -> [j] } * { [i] : i > 0 };"), "a map");
        assert_eq!(kind("card { [i] : 0 <= i < 4 };"), "an integer");
        assert_eq!(kind("{ [i] } = { [i] };"), "a boolean");
        assert_eq!(kind("params { [i] -> [j] };"), "a set");
        assert_eq!(kind("sample { A[i] -> B[j] : i = j };"), "a map");
    }

    #[test]
    fn scalars_print_as_iscc_does() {
        assert_eq!(value("{ [i] } = { [i] };").to_string(), "True");
        assert_eq!(value("{ [i] } < { [i] };").to_string(), "False");
        assert_eq!(value("card { [i] : 0 <= i < 4 };").to_string(), "4");
        assert_eq!(
            value("card { [i] : 0 <= i < 4 } = card { [i] : 1 <= i <= 4 };").to_string(),
            "True"
        );
        assert_eq!(
            value("is_empty { [i] : 1 = 0 } = is_empty { [i] };").to_string(),
            "False"
        );
    }

    #[test]
    fn assignment_binds_and_prints_nothing() {
        assert!(last("A := { [i] : i = 3 };").expect("assigns").is_none());
        assert_eq!(
            value("A := { [i] : 0 <= i < 3 };\nB := A * A;\ncard B;").to_string(),
            "3"
        );
    }

    #[test]
    fn type_errors_point_at_the_operator() {
        let e = error("S := { [i] };\nM := { [i] -> [j] };\n  S + M;");
        assert_eq!((e.line, e.column), (3, 5));
        assert_eq!(
            e.message,
            "`+` needs two sets or two maps, found a set and a map"
        );

        let e = error("x := { [i] };\nran x;");
        assert_eq!((e.line, e.column), (2, 1));
        assert_eq!(e.message, "`ran` needs a map, found a set");

        let e = error("{ [i] }^-1;");
        assert_eq!((e.line, e.column), (1, 8));
        assert_eq!(e.message, "`^-1` needs a map, found a set");

        let e = error("deltas { [i] } . { [i] -> [i] };");
        assert_eq!((e.line, e.column), (1, 1));

        let e = error("card (is_empty { [i] });");
        assert_eq!(e.message, "`card` needs a set or a map, found a boolean");

        let e = error("(card { [i] : i = 0 }) + { [i] };");
        assert_eq!((e.line, e.column), (1, 24));
        assert_eq!(
            e.message,
            "`+` needs sets or maps, found an integer and a set"
        );

        let e = error("{ [i] -> [j] } . { [i] };");
        assert_eq!((e.line, e.column), (1, 16));
        assert_eq!(
            e.message,
            "`.` needs a map on its right, found a map and a set"
        );

        let e = error("dom (is_empty { [i] });");
        assert_eq!(e.message, "`dom` needs a set or a map, found a boolean");
    }

    #[test]
    fn undefined_variables_point_at_the_name() {
        let e = error("A := { [i] };\nA + \n   Missing;");
        assert_eq!((e.line, e.column), (3, 4));
        assert_eq!(e.message, "undefined variable `Missing`");
    }

    #[test]
    fn literal_errors_are_in_script_coordinates() {
        let e = error("A := { [i] };\n  B := [N] -> { [i] :\n    i < M };");
        assert_eq!((e.line, e.column), (3, 9), "{}", e.message);
        let e = error("{ [i] : i >= };");
        assert_eq!((e.line, e.column), (1, 14), "{}", e.message);
    }

    #[test]
    fn rational_sets_are_refused_at_rat() {
        for (src, at) in [
            ("rat: { [i] : 0 <= 2i <= 3 };", (1, 1)),
            (
                "A := { [i] };\ncard   rat: [N] -> { [i] : 0 <= 2i <= N };",
                (2, 8),
            ),
            ("{ [i] : i = 0; rat: [i] : 0 <= 2i <= 3 };", (1, 16)),
            ("[N] -> rat: { [i] };", (1, 8)),
        ] {
            let e = error(src);
            assert_eq!((e.line, e.column), at, "{src}: {}", e.message);
            assert_eq!(e.message, "unsupported: rational sets (`rat:`)", "{src}");
        }
        // `rat` is still a variable name.
        assert_eq!(
            value("rat := { [i] : 0 <= i < 2 };\ncard rat;").to_string(),
            "2"
        );
    }

    #[test]
    fn parametric_counts_are_piecewise_quasi_polynomials() {
        let v = value("card [N] -> { [i, j] : 0 <= j <= i < N };");
        assert_eq!(v.kind_name(), "a piecewise quasi-polynomial");
        assert_eq!(
            v.to_string(),
            "[N] -> { ((1/2) * N + (1/2) * N^2) : N >= 1 }"
        );
        // A union: the parts in each space added up.
        assert_eq!(
            value("card [N] -> { S[i] : 0 <= i < N; T[i] : 0 <= i < N };").to_string(),
            "[N] -> { 2 * N : N >= 1 }"
        );
        assert_eq!(
            value("card [N] -> { [i] : 0 <= i < N and N = 5 };").to_string(),
            "[N] -> { 5 : N = 5 }"
        );
        // Strides and non-unit coefficients: floors of the parameters.
        assert_eq!(
            value("card [N] -> { [i] : 0 <= 2i <= N };").to_string(),
            "[N] -> { (1 + floor((N)/2)) : N >= 0 }"
        );
        assert_eq!(
            value("card [N] -> { [i] : 0 <= i < N and i mod 3 = 0 };").to_string(),
            "[N] -> { floor((2 + N)/3) : N >= 1 }"
        );
    }

    #[test]
    fn maps_count_their_range_per_domain_point() {
        let count = |src: &str| value(src).to_string();
        assert_eq!(
            count("card { [i] -> [j] : 0 <= j < i < 10 };"),
            "{ [i] -> i : 1 <= i <= 9 }"
        );
        assert_eq!(
            count("card [N] -> { [i] -> [j] : 0 <= j < i < N };"),
            "[N] -> { [i] -> i : 1 <= i < N }"
        );
        assert_eq!(
            count("card { [i] -> [j] : exists e : j = 2e and 0 <= j <= i };"),
            "{ [i] -> (1 + floor((i)/2)) : i >= 0 }"
        );
        assert_eq!(count("card { S[i] -> [j] : 1 = 0 };"), "{ S[i] -> 0 }");
        // A union on one domain space adds up; on several, it is one function per space.
        assert_eq!(
            count("card ({ A[i] -> B[j] : 0 <= j < i < 3 } + { A[i] -> C[j] : 0 <= j < 2 });"),
            "{ A[i] -> (2 + i) : 1 <= i <= 2; A[i] -> 2 : i <= 0 or i >= 3 }"
        );
        let union = value("card ({ A[i] -> B[j] } + { C[i] -> B[j] });");
        assert_eq!(union.kind_name(), "a union piecewise quasi-polynomial");
        assert_eq!(union.to_string(), "{ A[i] -> infty; C[i] -> infty }");
        assert_eq!(
            value("card { [i] -> [j] : 0 <= j < i < 10 };").kind_name(),
            "a piecewise quasi-polynomial"
        );
    }

    #[test]
    fn unbounded_counts_are_infinite() {
        let count = |src: &str| value(src).to_string();
        assert_eq!(count("card { [i] : i >= 0 };"), "{ infty }");
        assert_eq!(count("card { [i, j] : 0 <= i < 5 };"), "{ infty }");
        assert_eq!(count("card { [i] : i < 0; [i, j] : i = j };"), "{ infty }");
        assert_eq!(count("card [N] -> { [i] : i >= N };"), "[N] -> { infty }");
        assert_eq!(
            count("card [N] -> { [i] : 0 <= i and (N <= 0 or i < N) };"),
            "[N] -> { N : N >= 1; infty : N <= 0 }"
        );
        assert_eq!(count("card { [i] -> [j] : j >= i };"), "{ [i] -> infty }");
    }

    #[test]
    fn library_errors_point_at_the_operator() {
        let e = error("A := [N] -> { [i, j] : 0 <= 9967i and 9967i <= 9973j <= N };\n card A;");
        assert_eq!((e.line, e.column), (2, 2));
        assert!(e.message.contains("residue classes"), "{}", e.message);
        let e = error("deltas { [i] -> [j, k] };");
        assert_eq!((e.line, e.column), (1, 1));
    }
}
