//! Vector accumulators: a reduction over outer loops kept in vector registers.
//!
//! A loop `L` whose body leads, through loops and guards only (a *chain*: each body is
//! one loop or one `if` without `else`), to an innermost vectorisable loop `V` of
//! statement instances, as in a convolution or a matrix product
//! ```text
//!   for (c ...) for (kh ...) for (kw ...)        (L and the chain)
//!     for (w = lo; w <= hi; w++)                  (V)
//!       Y[k][h][w] += P[c][h + kh][w + kw] * Wt[k][c][kh][kw];
//! ```
//! is printed, with [`crate::EmitOptions::vector_registers`], as strips of `V`'s
//! iterations moved outside the chain, each strip's elements of the written arrays
//! held in variables of a vector type across the whole chain:
//! ```text
//!   for (s = lo; s <= hi - (M·N - 1); s += M·N) {      (M vectors of N elements)
//!     acc_m = Y[k][h][s + m·N .. s + m·N + N - 1]       (loaded once)
//!     for (c ...) for (kh ...) for (kw ...)
//!       acc_m += P[c][h + kh][s + m·N + kw ..] * Wt[k][c][kh][kw];
//!     Y[k][h][s + m·N ..] = acc_m                       (stored once)
//!   }
//!   the same with M = 1, then the original nest for the last iterations of V
//! ```
//! The vector type is GCC's `vector_size` extension (gcc and clang), unaligned
//! (`aligned(sizeof(T))`) and `may_alias`, so that its loads and stores are plain
//! element accesses. A chain qualifies when
//! - `V` has stride 1 and bounds that no loop of the chain moves; the loops of the chain
//!   and its guards run the same way for every iteration of `L` (their conditions do
//!   not depend on the chain's iterators, or always hold: a constant, or a consequence
//!   of the bounds and guards above them that the caller's [`Apart::implied`] proves,
//!   as `r <= min(1, 2 - 2q)` under `0 <= q <= 1`), so that one guard before the
//!   strips says whether any instance runs, and an element is loaded only when the
//!   chain certainly updates it;
//! - every statement instance of `V` is `R op E` with `op` one of `=`, `+=`, `-=`,
//!   `*=`, `/=`, and `E` made of array references, `+ - * /` (binary, and unary `-`,
//!   `+`), parentheses, literals of the element type (`0.5f` for `float`, `0.5` for
//!   `double`, or a decimal integer that the type holds exactly: no literal widens the
//!   arithmetic; none for a type of unknown size such as `DATA_TYPE`) and *selects*: a
//!   call of a select macro ([`scan::select_macros`]: `MAX_FUN(a, b)` as
//!   `((a) > (b) ? (a) : (b))`, `MIN_FUN`, a macro of the file of that form) or a
//!   conditional expression `P op Q ? X : Y` with `op` one of `> < >= <=` and `X`, `Y`
//!   each token for token `P` or `Q` (both are read by the comparison, so reading them
//!   unconditionally reads nothing new); no other call, comparison or conditional
//!   expression; every array referenced has the element type of `R`'s;
//! - every reference to an array written in `V` (the *accumulators*) has subscripts
//!   that no loop of the chain moves, its last subscript `w + e` (`w` being `V`'s
//!   iterator, with coefficient 1) and the others independent of `w`; two accumulators
//!   of one array differ by a non-zero constant in a subscript other than the last, so
//!   that their strips never overlap;
//! - every other reference either does not depend on `w` (a scalar, broadcast to every
//!   element) or has the others independent of `w` and its last subscript `w + e` (a
//!   vector load), `s·w + e` with `s` in `2..=4` (deinterleaved, below) or `a·w + e`
//!   with another constant `a` (a vector gathered element by element in a GNU statement
//!   expression); every right-hand side holds a vector operand.
//!
//! A select with a vector operand is printed as a statement expression that evaluates
//! `P` and `Q` once (a scalar one copied to every lane), computes the mask `P op Q` (gcc's
//! and clang's vector comparison: a signed integer vector of the lanes' size, all bits set
//! where the comparison holds, none where it does not, a NaN operand included) and
//! selects on the bits, `(X & mask) | (Y & ~mask)` through casts to the mask's type: each
//! lane is exactly the value of the scalar conditional expression, which is `Y` whenever
//! the comparison is false (a NaN in `a` of `MAX_FUN(a, b)` gives `b`). C has no `?:` on
//! vectors. Selects of scalar operands stay as written.
//!
//! A deinterleaved operand with stride `s` reads, for `n` lanes, the elements `e`,
//! `e + s`, ..., `e + s·(n - 1)` of one row; the program reads all of them, so the
//! elements between the first and the last lie in the array too. [`deinterleave`] loads
//! at most `s` vectors inside that span (the last one ends at the last lane's element:
//! nothing beyond it is read) and puts the lanes together with `pollen_shuffle`
//! ([`crate::SHUFFLE_DEFINITION`]: `__builtin_shufflevector` under clang,
//! `__builtin_shuffle` under gcc), whose constant indices need the number of lanes when
//! printing: the vector's bytes ([`crate::EmitOptions::vector_bytes`], 32 by default)
//! over the element's for an element type of known size ([`element_bytes`]), else the
//! vector type is declared with as many elements as [`FALLBACK_ELEMENT_BYTES`] ones
//! fill (`vector_size(8 * sizeof(DATA_TYPE))` for 32 bytes). The loaded values are
//! copied, not computed: the operand's lanes are the elements themselves.
//!
//! # Why the values are the same
//! The written arrays are only accessed through the accumulators, whose element in
//! lane `j` of a strip is the one of `V`'s iteration `s + j`; the other arrays are only
//! read. So the instances of different iterations of `V` never touch a common written
//! element, and each element sees exactly the operations it saw before, in the same
//! order (the chain's iterations in order, the instances in order), each evaluated
//! lane by lane as before: `acc += a * b` is `acc = acc + (a * b)` element by element,
//! a select is the scalar one lane by lane (above), a literal or scalar operand is the
//! same value in every lane, converted to the element type as the scalar arithmetic
//! converts it.
//! Only the interleaving of different elements' operations changes, and no value
//! depends on it. Distinct arrays never alias (the model's assumption).

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use pollen_codegen::apart::{affine, Apart};
use pollen_codegen::{Ast, Cond, Expr, Loop};
use pollen_scop::{AccessKind, Scop};

use crate::scalar::{declarable, distinct, element_type, instances_only, subscripts, Instance};
use crate::scan::{self, SelectMacro};

/// The bytes of one vector by default (eight `float`s, four `double`s: AVX's
/// registers); [`crate::EmitOptions::vector_bytes`] sets another width.
pub(crate) const VECTOR_BYTES: usize = 32;

/// The most vector variables a strip holds (registers left for the operands), with
/// vectors of fewer than [`WIDE_BYTES`] bytes (AVX's sixteen registers).
pub(crate) const MAX_VARIABLES: usize = 12;

/// The most vector variables a strip holds with vectors of [`WIDE_BYTES`] bytes or more
/// (AVX-512's thirty-two registers).
pub(crate) const MAX_WIDE_VARIABLES: usize = 24;

/// The vector bytes from which the target is taken to have twice the registers.
pub(crate) const WIDE_BYTES: usize = 64;

/// The most vectors per accumulator in a strip: three (six accumulators with the two
/// jammed copies, and registers left for the operands). Three measured faster than
/// four on the tensor operators of the benchmark (convolutions 4–12%, matrix products
/// even): their rows (28, 56 elements) leave fewer and fuller strips.
const MAX_GROUPS: usize = 3;

/// The number of iterations of an enclosing loop run side by side (copies of the
/// chain's statements with independent accumulators) when the vector operands move with
/// that loop's iterator (a convolution's rows: each copy loads its own).
pub(crate) const JAM: usize = 2;

/// The number of iterations run side by side of an enclosing loop that no vector
/// operand mentions (a convolution's output channels, a matrix product's rows): every
/// vector loaded serves all copies, which differ only in their broadcast scalars. Four
/// copies of three vectors fill the twelve variables; measured against two on the
/// benchmark's 3×3 convolution (2.6× faster, as fast as TVM's tuned schedule). Twice as
/// many with twice the variables ([`MAX_WIDE_VARIABLES`]).
pub(crate) const JAM_SHARED: usize = 4;

/// One node between `L` and `V`: a loop or a guard.
pub(crate) enum Link<'a> {
    For(&'a Loop),
    If(&'a Cond),
}

/// The chain from `l` down to its innermost vectorisable loop, when `l`'s body is one.
pub(crate) fn chain(l: &Loop) -> Option<(Vec<Link<'_>>, &Loop)> {
    let mut links = vec![Link::For(l)];
    let mut at: &Ast = &l.body;
    loop {
        match unwrap(at) {
            Ast::For(inner) => {
                let mut users = Vec::new();
                if instances_only(&inner.body, &mut users) {
                    return (inner.vectorizable && !users.is_empty()).then_some((links, inner));
                }
                links.push(Link::For(inner));
                at = &inner.body;
            }
            Ast::If {
                cond,
                then,
                otherwise: None,
            } => {
                links.push(Link::If(cond));
                at = then;
            }
            _ => return None,
        }
    }
}

/// The iterators of the chain's loops.
pub(crate) fn iterators<'a>(links: &[Link<'a>]) -> Vec<&'a str> {
    links
        .iter()
        .filter_map(|k| match k {
            Link::For(l) => Some(l.iterator.as_str()),
            Link::If(_) => None,
        })
        .collect()
}

/// The condition under which every iteration of the chain reaches `v` (the chain's
/// loops run and its guards hold), or `None` when the chain does not qualify (see the
/// module documentation).
pub(crate) fn guard(links: &[Link], v: &Loop, apart: &dyn Apart) -> Option<Cond> {
    let its = iterators(links);
    if !v.stride.is_one()
        || its
            .iter()
            .any(|it| v.lower.mentions(it) || v.upper.mentions(it))
    {
        return None;
    }
    let mut conds = Vec::new();
    // What the links above the current one say of the iterators: each expression >= 0.
    let mut context: Vec<Expr> = Vec::new();
    for link in links {
        let c = match link {
            Link::For(l) => {
                if !l.stride.is_positive() {
                    return None;
                }
                runs(l)
            }
            Link::If(c) => (*c).clone(),
        };
        if its.iter().any(|it| c.mentions(it)) {
            let proved = match link {
                Link::For(l) => always(&c) || always_runs(l, &context, apart),
                Link::If(c) => always(c) || implied_cond(c, &context, apart),
            };
            if !proved {
                return None;
            }
        } else {
            conds.push(c);
        }
        match link {
            Link::For(l) => context.extend(bounds(l)),
            Link::If(c) => context.extend(nonnegative_parts(c)),
        }
    }
    Some(Cond::And(conds))
}

/// `-e`.
fn negative(e: &Expr) -> Expr {
    Expr::Mul(-pollen_arith::Int::one(), Box::new(e.clone()))
}

/// `a - b`.
fn difference(a: &Expr, b: &Expr) -> Expr {
    Expr::Add(vec![a.clone(), negative(b)])
}

/// The operands of a maximum (of a minimum), or the expression itself.
fn operands(e: &Expr) -> Vec<&Expr> {
    match e {
        Expr::Max(v) | Expr::Min(v) => v.iter().collect(),
        _ => vec![e],
    }
}

/// `d · x` for a positive constant `d`.
fn scaled(d: &pollen_arith::Int, x: &Expr) -> Expr {
    Expr::Mul(d.clone(), Box::new(x.clone()))
}

/// What loop `l`'s bounds say of its iterator, as expressions `>= 0`: `it - lo` for each
/// operand of a lower bound (`d·it - e` for `ceil(e / d)`), `hi - it` for each of an
/// upper bound (`e - d·it` for `floor(e / d)`); the operands of other shapes are left
/// out (a weaker context).
fn bounds(l: &Loop) -> Vec<Expr> {
    let it = Expr::var(&l.iterator);
    let lower = operands(&l.lower).into_iter().filter_map(|lo| match lo {
        Expr::CeilDiv(e, d) => Some(difference(&scaled(d, &it), e)),
        e => affine(e).map(|_| difference(&it, e)),
    });
    let upper = operands(&l.upper).into_iter().filter_map(|hi| match hi {
        Expr::FloorDiv(e, d) => Some(difference(e, &scaled(d, &it))),
        e => affine(e).map(|_| difference(e, &it)),
    });
    lower.chain(upper).collect()
}

/// The conjuncts of `c` of the form `e >= 0` (`e = 0` as `e >= 0` and `-e >= 0`).
fn nonnegative_parts(c: &Cond) -> Vec<Expr> {
    match c {
        Cond::NonNegative(e) => vec![e.clone()],
        Cond::Zero(e) => vec![e.clone(), negative(e)],
        Cond::And(v) => v.iter().flat_map(nonnegative_parts).collect(),
        Cond::Or(_) => Vec::new(),
    }
}

/// Whether `apart` proves that loop `l` runs at least once wherever `context` holds:
/// every operand of its upper bound is at least every operand of its lower bound
/// (`floor(e / d) >= lo` as `e - d·lo >= 0`, `hi >= ceil(e / d)` as `d·hi - e >= 0`).
fn always_runs(l: &Loop, context: &[Expr], apart: &dyn Apart) -> bool {
    operands(&l.lower).into_iter().all(|lo| {
        operands(&l.upper).into_iter().all(|hi| {
            let goal = match (lo, hi) {
                (
                    Expr::CeilDiv(..) | Expr::FloorDiv(..),
                    Expr::CeilDiv(..) | Expr::FloorDiv(..),
                ) => return false,
                (lo, Expr::FloorDiv(e, d)) => difference(e, &scaled(d, lo)),
                (Expr::CeilDiv(e, d), hi) => difference(&scaled(d, hi), e),
                (lo, hi) => difference(hi, lo),
            };
            apart.implied(context, &goal)
        })
    })
}

/// Whether `apart` proves guard `c` wherever `context` holds (a conjunction of
/// `e >= 0` and `e = 0`; nothing else is proved).
fn implied_cond(c: &Cond, context: &[Expr], apart: &dyn Apart) -> bool {
    match c {
        Cond::NonNegative(e) => apart.implied(context, e),
        Cond::Zero(e) => apart.implied(context, e) && apart.implied(context, &negative(e)),
        Cond::And(v) => v.iter().all(|c| implied_cond(c, context, apart)),
        Cond::Or(_) => false,
    }
}

/// `l` runs at least once: `upper - lower >= 0`.
pub(crate) fn runs(l: &Loop) -> Cond {
    Cond::NonNegative(difference(&l.upper, &l.lower))
}

/// Whether a condition holds whatever the values of its names (its affine forms are
/// constants).
fn always(c: &Cond) -> bool {
    match c {
        Cond::NonNegative(e) => matches!(affine(e), Some((k, t)) if t.is_empty() && k >= 0),
        Cond::Zero(e) => matches!(affine(e), Some((0, t)) if t.is_empty()),
        Cond::And(v) => v.iter().all(always),
        Cond::Or(v) => v.iter().any(always),
    }
}

fn unwrap(ast: &Ast) -> &Ast {
    match ast {
        Ast::Block(children) if children.len() == 1 => unwrap(&children[0]),
        _ => ast,
    }
}

/// What a reference of `V`'s body becomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Operand {
    /// The vector variable of accumulator `k`.
    Accumulator(usize),
    /// A vector loaded from the strip's elements.
    Lane,
    /// A vector gathered element by element: the last subscript moves by a constant
    /// other than 1 with `V`'s iterator, outside `2..=MAX_DEINTERLEAVE`.
    Gather,
    /// A vector whose last subscript moves by the given constant `s` in
    /// `2..=MAX_DEINTERLEAVE` with `V`'s iterator (a strided convolution's input): loaded
    /// as up to `s` vectors within the elements from the first lane's to the last
    /// lane's, and deinterleaved by shuffles ([`deinterleave`]).
    Deinterleave(usize),
    /// The same element in every lane.
    Scalar,
}

/// A select of an instance's right-hand side that is printed with vector comparisons:
/// `P op Q ? X : Y` with `X` and `Y` each `P` or `Q` (a `MAX_FUN(P, Q)` call, `P > Q ? P :
/// Q`), of which `P` or `Q` holds a vector operand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Select {
    /// The tokens of the whole select (the macro call, or the conditional expression).
    pub range: Range<usize>,
    /// The comparison: `>`, `<`, `>=` or `<=`.
    pub op: &'static str,
    /// The tokens of the compared operands.
    pub p: Range<usize>,
    pub q: Range<usize>,
    /// Whether the value when the comparison holds is `P` (else `Q`), and the same
    /// when it does not.
    pub if_true_p: bool,
    pub if_false_p: bool,
}

/// How the instances of `V` are printed with vector accumulators.
pub(crate) struct Analysis {
    /// The element type of every array referenced.
    pub element_type: String,
    /// The bytes of one element, when the element type says it ([`element_bytes`]).
    pub element_bytes: Option<usize>,
    /// The bytes of a full vector ([`crate::EmitOptions::vector_bytes`]).
    pub vector_bytes: usize,
    /// The distinct accumulators: the instance and token range of the first reference
    /// to each.
    pub accumulators: Vec<(usize, Range<usize>)>,
    /// Each accumulator's array and subscripts.
    pub elements: Vec<(String, Vec<Expr>)>,
    /// Per instance, its references in order with what each becomes.
    pub operands: Vec<Vec<(Range<usize>, Operand)>>,
    /// Per instance, its selects with a vector operand, in the order of their first
    /// tokens (nested ones after the ones holding them).
    pub selects: Vec<Vec<Select>>,
    /// The subscripts of every operand loaded as a vector (not an accumulator, not a
    /// scalar).
    pub vector_reads: Vec<Vec<Expr>>,
}

impl Analysis {
    /// The number of vectors per accumulator in a full strip, with `copies` copies of
    /// each accumulator.
    pub fn groups(&self, copies: usize) -> usize {
        (self.variables() / (self.accumulators.len() * copies)).clamp(1, MAX_GROUPS)
    }

    /// The most vector variables a strip holds: [`MAX_VARIABLES`], or
    /// [`MAX_WIDE_VARIABLES`] with vectors of [`WIDE_BYTES`] bytes.
    pub fn variables(&self) -> usize {
        variables(self.vector_bytes)
    }

    /// The copies of a jam whose copies share their vector operands: [`JAM_SHARED`],
    /// doubled with twice the variables.
    pub fn shared_copies(&self) -> usize {
        JAM_SHARED * self.variables() / MAX_VARIABLES
    }

    /// Whether some vector operand's subscripts mention `iterator`: copies of the chain
    /// for consecutive values of it would each load their own vectors.
    pub fn reads_move_with(&self, iterator: &str) -> bool {
        self.vector_reads
            .iter()
            .flatten()
            .any(|e| e.mentions(iterator))
    }

    /// Whether some operand is deinterleaved.
    pub fn deinterleaves(&self) -> bool {
        self.operands
            .iter()
            .flatten()
            .any(|(_, o)| matches!(o, Operand::Deinterleave(_)))
    }

    /// The number of elements of a full vector and the `vector_size` argument that
    /// gives it: the vector's bytes for an element type of known size; for another type
    /// (a macro such as `DATA_TYPE`), as many elements as [`FALLBACK_ELEMENT_BYTES`]
    /// ones fill when an operand is deinterleaved (its shuffles need the number when
    /// printed), else the vector's bytes whatever the number.
    pub fn full_vector(&self) -> (Option<usize>, String) {
        let bytes = self.vector_bytes;
        match self.element_bytes {
            Some(b) => (Some((bytes / b).max(1)), bytes.to_string()),
            None if self.deinterleaves() => {
                let lanes = (bytes / FALLBACK_ELEMENT_BYTES).max(1);
                (
                    Some(lanes),
                    format!("{lanes} * sizeof({})", self.element_type),
                )
            }
            None => (None, bytes.to_string()),
        }
    }
}

/// The most vector variables of a strip with vectors of `bytes` bytes.
fn variables(bytes: usize) -> usize {
    if bytes >= WIDE_BYTES {
        MAX_WIDE_VARIABLES
    } else {
        MAX_VARIABLES
    }
}

/// The most elements between two lanes of a deinterleaved operand.
pub(crate) const MAX_DEINTERLEAVE: i128 = 4;

/// The element size assumed for an element type of no known size, when the printed
/// shuffles need a number of lanes: a `float`'s (eight lanes in a 32-byte vector).
pub(crate) const FALLBACK_ELEMENT_BYTES: usize = 4;

/// The bytes of an element of a C type named by `ty`, for the common arithmetic types
/// whose size the usual ABIs agree on (`float`, `double`, `int`, `long long`, the
/// `<stdint.h>` types); `None` for others (`long`, a macro such as `DATA_TYPE`).
pub(crate) fn element_bytes(ty: &str) -> Option<usize> {
    let ty = ty.split_whitespace().collect::<Vec<_>>().join(" ");
    Some(match ty.as_str() {
        "char" | "signed char" | "unsigned char" | "int8_t" | "uint8_t" => 1,
        "short" | "unsigned short" | "short int" | "int16_t" | "uint16_t" => 2,
        "float" | "int" | "signed" | "signed int" | "unsigned" | "unsigned int" | "int32_t"
        | "uint32_t" => 4,
        "double" | "long long" | "unsigned long long" | "int64_t" | "uint64_t" => 8,
        _ => return None,
    })
}

/// A signed integer type of the size of the elements of type `ty` (of `bytes` bytes when
/// known): the element type of a shuffle mask. For a type of unknown size, gcc's
/// `__builtin_choose_expr` picks it by `sizeof` when compiling.
pub(crate) fn mask_element(ty: &str, bytes: Option<usize>) -> String {
    match bytes {
        Some(1) => "signed char".into(),
        Some(2) => "short".into(),
        Some(8) => "long long".into(),
        Some(_) => "int".into(),
        None => format!(
            "__typeof__(__builtin_choose_expr(sizeof({ty}) == 8, (long long) 0, __builtin_choose_expr(sizeof({ty}) == 2, (short) 0, __builtin_choose_expr(sizeof({ty}) == 1, (signed char) 0, 0))))"
        ),
    }
}

/// How lanes `0..n` of a vector whose lane `j` is element `s·j` (counted from the first
/// lane's element) are loaded and put together: the offsets of the vectors loaded, in
/// increasing order, each within `0..=s·(n - 1)` with its last element too (so that only
/// elements between two that the program reads are loaded), and the shuffles that put
/// them together: the first shuffle takes vectors 0 and 1 (0 and 0 when there is one),
/// each next one the previous result and the next vector; an index below `n` takes that
/// lane of the first operand, `n + k` lane `k` of the second. Every lane of the last
/// result is its element: lane `j` is taken from the vector that starts at
/// `min(⌊s·j / n⌋·n, (s - 1)·(n - 1))`, which holds element `s·j`.
pub(crate) fn deinterleave(s: usize, n: usize) -> (Vec<usize>, Vec<Vec<usize>>) {
    assert!(s >= 1 && n >= 1);
    let last = (s - 1) * (n - 1);
    let start = |j: usize| ((s * j / n) * n).min(last);
    let mut starts: Vec<usize> = (0..n).map(start).collect();
    starts.dedup();
    let sources: Vec<(usize, usize)> = (0..n)
        .map(|j| {
            let b = start(j);
            (
                starts.iter().position(|&x| x == b).expect("a start"),
                s * j - b,
            )
        })
        .collect();
    let source = |j: usize| sources[j];
    if starts.len() == 1 {
        return (starts, vec![(0..n).map(|j| source(j).1).collect()]);
    }
    let mut shuffles = Vec::new();
    for k in 1..starts.len() {
        shuffles.push(
            (0..n)
                .map(|j| {
                    let (v, lane) = source(j);
                    if v == k {
                        n + lane
                    } else if k == 1 && v == 0 {
                        lane
                    } else if v < k {
                        j
                    } else {
                        0
                    }
                })
                .collect(),
        );
    }
    (starts, shuffles)
}

/// An accumulator found: its first reference's instance and tokens, its element, its
/// array and subscripts.
type Found = (usize, Range<usize>, String, String, Vec<Expr>);

/// The plan for the instances of `V` (iterator `v`) under a chain with iterators
/// `chain`, or `None` when they do not qualify (see the module documentation). The
/// instances must have been built with `v` printed as one name.
pub(crate) fn analyse(
    scop: &Scop,
    instances: &[Instance],
    chain: &[&str],
    v: &str,
    macros: &BTreeMap<String, SelectMacro>,
    vector_bytes: usize,
) -> Option<Analysis> {
    let written: BTreeSet<&str> = instances
        .iter()
        .flat_map(|i| &i.statement.accesses)
        .filter(|a| a.kind == AccessKind::Write)
        .map(|a| a.array.as_str())
        .collect();
    let moves = |e: &Expr| chain.iter().any(|it| e.mentions(it));
    // The last subscript is `v + e` with `e` free of `v` and of the chain.
    let lane_subscript =
        |e: &Expr| matches!(affine(e), Some((_, terms)) if terms.get(v) == Some(&1)) && !moves(e);
    let mut element: Option<String> = None;
    let mut accumulators: Vec<Found> = Vec::new();
    let mut operands = Vec::new();
    let mut selects = Vec::new();
    let mut vector_reads = Vec::new();
    for (k, inst) in instances.iter().enumerate() {
        let (tokens, _) = inst.scanned.as_ref()?;
        let references = all_references(scop, &inst.text, tokens, macros)?;
        let text = |t: usize| &inst.text[tokens[t].range.clone()];
        let lhs = references.first()?;
        if lhs.1.start != 0 {
            return None;
        }
        let op = lhs.1.end;
        if op >= tokens.len() || !["=", "+=", "-=", "*=", "/="].contains(&text(op)) {
            return None;
        }
        let starts: BTreeMap<usize, usize> = references
            .iter()
            .skip(1)
            .map(|(_, r)| (r.start, r.end))
            .collect();
        let target_type = element_type(scop, &lhs.0);
        let literal = |t: usize| literal_fits(text(t), target_type);
        let mut parser = Parser {
            text: &inst.text,
            tokens,
            references: &starts,
            macros,
            literal: &literal,
            at: op + 1,
            selects: Vec::new(),
        };
        let rhs = parser.conditional()?;
        if parser.at != tokens.len() || rhs.compare.is_some() {
            return None;
        }
        let found_selects = parser.selects;
        let mut vector_operand = false;
        let mut classified = Vec::new();
        for (position, (array, range)) in references.iter().enumerate() {
            let decl = scop.array(array)?;
            let ty = element_type(scop, array);
            if !declarable(ty) || ty.contains("const") {
                return None;
            }
            match &element {
                Some(e) if e != ty => return None,
                Some(_) => {}
                None => element = Some(ty.to_string()),
            }
            let dims = decl.extents.len();
            let subs = if dims == 0 {
                Vec::new()
            } else {
                subscripts(inst, tokens, range, dims)?
            };
            let operand = if written.contains(array.as_str()) {
                let (last, rest) = subs.split_last()?;
                if !lane_subscript(last) || rest.iter().any(|e| e.mentions(v) || moves(e)) {
                    return None;
                }
                let key = scan::key(
                    &inst.text,
                    tokens,
                    range.clone(),
                    &inst.statement.iterators,
                    &inst.values,
                );
                let index = match accumulators.iter().position(|a| a.2 == key) {
                    Some(index) => index,
                    None => {
                        let apart = accumulators
                            .iter()
                            .filter(|a| a.3 == *array)
                            .all(|a| distinct(&a.4[..dims - 1], rest));
                        if !apart {
                            return None;
                        }
                        accumulators.push((k, range.clone(), key, array.clone(), subs.clone()));
                        accumulators.len() - 1
                    }
                };
                Operand::Accumulator(index)
            } else if subs.iter().all(|e| !e.mentions(v)) {
                Operand::Scalar
            } else {
                let (last, rest) = subs.split_last()?;
                if rest.iter().any(|e| e.mentions(v)) {
                    return None;
                }
                match affine(last).and_then(|(_, terms)| terms.get(v).copied()) {
                    Some(1) => Operand::Lane,
                    Some(a) if (2..=MAX_DEINTERLEAVE).contains(&a) => {
                        Operand::Deinterleave(a as usize)
                    }
                    Some(_) => Operand::Gather,
                    None => return None,
                }
            };
            if position == 0 && !matches!(operand, Operand::Accumulator(_)) {
                return None;
            }
            if position > 0 && operand != Operand::Scalar {
                vector_operand = true;
            }
            if !matches!(operand, Operand::Scalar | Operand::Accumulator(_)) {
                vector_reads.push(subs);
            }
            classified.push((range.clone(), operand));
        }
        if !vector_operand {
            return None;
        }
        // The selects of vector operands, printed with vector comparisons; the others
        // stay scalar expressions.
        let vector_in = |r: &Range<usize>| {
            classified
                .iter()
                .any(|(t, o)| *o != Operand::Scalar && r.start <= t.start && t.end <= r.end)
        };
        let mut vector_selects: Vec<Select> = found_selects
            .into_iter()
            .filter(|s| vector_in(&s.p) || vector_in(&s.q))
            .collect();
        vector_selects.sort_by_key(|s| s.range.start);
        selects.push(vector_selects);
        operands.push(classified);
    }
    if accumulators.is_empty() || accumulators.len() > variables(vector_bytes) {
        return None;
    }
    let element_type = element?;
    Some(Analysis {
        element_bytes: element_bytes(&element_type),
        vector_bytes,
        element_type,
        elements: accumulators
            .iter()
            .map(|(_, _, _, array, subs)| (array.clone(), subs.clone()))
            .collect(),
        accumulators: accumulators
            .into_iter()
            .map(|(k, range, _, _, _)| (k, range))
            .collect(),
        operands,
        selects,
        vector_reads,
    })
}

/// Whether the accumulators of `copies` consecutive iterations of the loop over
/// `iterator` (its value `p + r` in copy `r`) are pairwise distinct elements whatever the
/// iterations of the loops `between` it and the chain: for any two of them of one array,
/// some subscript other than the last differs by a non-zero constant, the loops between
/// taking independent values in the two copies. The copies then share no written
/// element, and each element keeps its operations in their order whatever the
/// interleaving of the copies.
pub(crate) fn copies_apart(
    analysis: &Analysis,
    iterator: &str,
    copies: usize,
    between: &[&str],
) -> bool {
    let shifted: Vec<(usize, &str, Vec<Expr>)> = (0..copies)
        .flat_map(|r| {
            analysis.elements.iter().map(move |(array, subs)| {
                let subs = subs
                    .iter()
                    .map(|e| shift(e, iterator, r as i64))
                    .collect::<Vec<_>>();
                (r, array.as_str(), subs)
            })
        })
        .collect();
    shifted.iter().enumerate().all(|(i, (ri, ai, si))| {
        shifted[i + 1..].iter().all(|(rj, aj, sj)| {
            ai != aj || {
                let n = si.len() - 1;
                // The other copy's iterations of the loops between, under other names.
                let sj: Vec<Expr> = sj[..n]
                    .iter()
                    .map(|e| {
                        between
                            .iter()
                            .fold(e.clone(), |e, b| renamed(&e, b, &format!("{b}'")))
                    })
                    .collect();
                // Two accumulators of one copy were already proved apart.
                (ri == rj) || distinct(&si[..n], &sj)
            }
        })
    })
}

/// Whether no two iterations of the loop over `iterator` write a common element,
/// whatever the iterations of the loops `between` it and the chain: for every array
/// written, some subscript other than the last is the same expression in all its
/// accumulators, moves with `iterator` and mentions none of `between`, so that two
/// values of `iterator` give two values of it. The iterations of the loop may then run
/// in any order relative to the loops between (each keeps its own order).
pub(crate) fn apart_across(analysis: &Analysis, iterator: &str, between: &[&str]) -> bool {
    let arrays: BTreeSet<&str> = analysis.elements.iter().map(|(a, _)| a.as_str()).collect();
    arrays.into_iter().all(|array| {
        let subs: Vec<&Vec<Expr>> = analysis
            .elements
            .iter()
            .filter(|(a, _)| a == array)
            .map(|(_, s)| s)
            .collect();
        let n = subs[0].len().saturating_sub(1);
        (0..n).any(|i| {
            let e = &subs[0][i];
            subs.iter().all(|s| s.len() == subs[0].len() && s[i] == *e)
                && matches!(affine(e), Some((_, terms)) if terms.get(iterator).is_some_and(|&c| c != 0))
                && !between.iter().any(|b| e.mentions(b))
        })
    })
}

/// `e` with the variable `from` named `to`.
fn renamed(e: &Expr, from: &str, to: &str) -> Expr {
    let r = |x: &Expr| renamed(x, from, to);
    match e {
        Expr::Var(v) if v == from => Expr::Var(to.to_string()),
        Expr::Var(_) | Expr::Int(_) => e.clone(),
        Expr::Add(terms) => Expr::Add(terms.iter().map(r).collect()),
        Expr::Mul(k, inner) => Expr::Mul(k.clone(), Box::new(r(inner))),
        Expr::FloorDiv(inner, d) => Expr::FloorDiv(Box::new(r(inner)), d.clone()),
        Expr::CeilDiv(inner, d) => Expr::CeilDiv(Box::new(r(inner)), d.clone()),
        Expr::Mod(inner, d) => Expr::Mod(Box::new(r(inner)), d.clone()),
        Expr::Min(terms) => Expr::Min(terms.iter().map(r).collect()),
        Expr::Max(terms) => Expr::Max(terms.iter().map(r).collect()),
    }
}

/// `e` with `iterator` replaced by `iterator + r`.
fn shift(e: &Expr, iterator: &str, r: i64) -> Expr {
    match e {
        Expr::Var(v) if v == iterator => Expr::Add(vec![
            Expr::Var(v.clone()),
            Expr::Int(pollen_arith::Int::from(r)),
        ]),
        Expr::Var(_) | Expr::Int(_) => e.clone(),
        Expr::Add(terms) => Expr::Add(terms.iter().map(|t| shift(t, iterator, r)).collect()),
        Expr::Mul(k, inner) => Expr::Mul(k.clone(), Box::new(shift(inner, iterator, r))),
        Expr::FloorDiv(inner, d) => Expr::FloorDiv(Box::new(shift(inner, iterator, r)), d.clone()),
        Expr::CeilDiv(inner, d) => Expr::CeilDiv(Box::new(shift(inner, iterator, r)), d.clone()),
        Expr::Mod(inner, d) => Expr::Mod(Box::new(shift(inner, iterator, r)), d.clone()),
        Expr::Min(terms) => Expr::Min(terms.iter().map(|t| shift(t, iterator, r)).collect()),
        Expr::Max(terms) => Expr::Max(terms.iter().map(|t| shift(t, iterator, r)).collect()),
    }
}

/// Every reference of the tokenised `text` to an array or scalar of the scop, in order:
/// an array's element references ([`scan::element_references`], assignment targets
/// included) and a scalar's name; `None` when a name of the scop occurs otherwise.
fn all_references(
    scop: &Scop,
    text: &str,
    tokens: &[scan::Token],
    macros: &BTreeMap<String, SelectMacro>,
) -> Option<Vec<(String, Range<usize>)>> {
    let selects: BTreeSet<String> = macros.keys().cloned().collect();
    let names: BTreeSet<&str> = tokens
        .iter()
        .filter(|t| t.kind == scan::TokenKind::Identifier)
        .map(|t| &text[t.range.clone()])
        .collect();
    let mut out = Vec::new();
    for array in &scop.arrays {
        if !names.contains(array.name.as_str()) {
            continue;
        }
        let dims = array.extents.len();
        if dims == 0 {
            for (k, t) in tokens.iter().enumerate() {
                if t.kind == scan::TokenKind::Identifier && text[t.range.clone()] == array.name {
                    out.push((array.name.clone(), k..k + 1));
                }
            }
            continue;
        }
        // A reference inside a select macro's arguments or after `?` is marked
        // conditional: the parser of the right-hand side accepts it only in a select,
        // whose comparison reads both operands.
        let found = scan::element_references(text, tokens, &array.name, dims, &selects)?;
        for r in found {
            out.push((array.name.clone(), r.tokens));
        }
    }
    out.sort_by_key(|(_, r)| r.start);
    Some(out)
}

/// Whether the number token `t` keeps its meaning as an operand of vector arithmetic on
/// elements of type `ty`: of that type already (`0.5f` for `float`, `0.5` for `double`),
/// or a decimal integer that the type represents exactly (converted to it as the scalar
/// arithmetic does). Element types of unknown size take none.
fn literal_fits(t: &str, ty: &str) -> bool {
    let ty = ty.split_whitespace().collect::<Vec<_>>().join(" ");
    let integer =
        !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) && !t.starts_with('0') || t == "0";
    let small = |limit: u64| integer && t.parse::<u64>().is_ok_and(|n| n <= limit);
    let floating = |body: &str| {
        !body.is_empty()
            && body
                .bytes()
                .next()
                .is_some_and(|b| b.is_ascii_digit() || b == b'.')
            && body.bytes().any(|b| matches!(b, b'.' | b'e' | b'E'))
            && body
                .bytes()
                .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'))
            && !body.starts_with("0x")
    };
    match ty.as_str() {
        "float" => small(1 << 24) || t.strip_suffix(['f', 'F']).is_some_and(&floating),
        "double" => small(1 << 53) || floating(t),
        "int" | "signed" | "signed int" | "int32_t" => small(i32::MAX as u64),
        "long long" | "int64_t" => small(i64::MAX as u64),
        _ => false,
    }
}

/// What the parser of a right-hand side gives for an expression: its tokens, and the
/// operands and operator when it is a comparison.
struct Parsed {
    range: Range<usize>,
    compare: Option<(Range<usize>, &'static str, Range<usize>)>,
}

/// A recursive-descent parser of a right-hand side made of the references (given by
/// their first and end tokens), literals that [`Parser::literal`] accepts, `+ - * /`
/// (binary and unary `-`, `+`), parentheses and selects: a call of a select macro, or
/// `P op Q ? X : Y` with `op` one of `> < >= <=` and `X`, `Y` each token for token `P`
/// or `Q` (so that both are read whatever the comparison gives). Anything else fails.
struct Parser<'a> {
    text: &'a str,
    tokens: &'a [scan::Token],
    references: &'a BTreeMap<usize, usize>,
    macros: &'a BTreeMap<String, SelectMacro>,
    literal: &'a dyn Fn(usize) -> bool,
    at: usize,
    selects: Vec<Select>,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&str> {
        self.tokens
            .get(self.at)
            .map(|t| &self.text[t.range.clone()])
    }

    fn expect(&mut self, s: &str) -> Option<()> {
        (self.peek() == Some(s)).then(|| self.at += 1)
    }

    /// The spellings of a token range.
    fn spelled(&self, r: &Range<usize>) -> Vec<&str> {
        self.tokens[r.clone()]
            .iter()
            .map(|t| &self.text[t.range.clone()])
            .collect()
    }

    /// An expression that is no comparison.
    fn value(&mut self) -> Option<Range<usize>> {
        let p = self.conditional()?;
        p.compare.is_none().then_some(p.range)
    }

    fn conditional(&mut self) -> Option<Parsed> {
        let c = self.comparison()?;
        if self.peek() != Some("?") {
            return Some(c);
        }
        let (p, op, q) = c.compare?;
        self.at += 1;
        let x = self.value()?;
        self.expect(":")?;
        let y = self.value()?;
        let is_p = |r: &Range<usize>| {
            let s = self.spelled(r);
            if s == self.spelled(&p) {
                Some(true)
            } else if s == self.spelled(&q) {
                Some(false)
            } else {
                None
            }
        };
        let (if_true_p, if_false_p) = (is_p(&x)?, is_p(&y)?);
        let range = c.range.start..y.end;
        self.selects.push(Select {
            range: range.clone(),
            op,
            p,
            q,
            if_true_p,
            if_false_p,
        });
        Some(Parsed {
            range,
            compare: None,
        })
    }

    fn comparison(&mut self) -> Option<Parsed> {
        let a = self.additive()?;
        let op = match self.peek() {
            Some(">") => ">",
            Some("<") => "<",
            Some(">=") => ">=",
            Some("<=") => "<=",
            _ => {
                return Some(Parsed {
                    range: a,
                    compare: None,
                })
            }
        };
        self.at += 1;
        let b = self.additive()?;
        Some(Parsed {
            range: a.start..b.end,
            compare: Some((a, op, b)),
        })
    }

    fn additive(&mut self) -> Option<Range<usize>> {
        let start = self.at;
        self.multiplicative()?;
        while matches!(self.peek(), Some("+" | "-")) {
            self.at += 1;
            self.multiplicative()?;
        }
        Some(start..self.at)
    }

    fn multiplicative(&mut self) -> Option<()> {
        self.unary()?;
        while matches!(self.peek(), Some("*" | "/")) {
            self.at += 1;
            self.unary()?;
        }
        Some(())
    }

    fn unary(&mut self) -> Option<()> {
        if matches!(self.peek(), Some("+" | "-")) {
            self.at += 1;
            return self.unary();
        }
        self.primary()
    }

    fn primary(&mut self) -> Option<()> {
        let start = self.at;
        if let Some(&end) = self.references.get(&start) {
            self.at = end;
            return Some(());
        }
        let token = self.tokens.get(start)?;
        let spelling = &self.text[token.range.clone()];
        match token.kind {
            scan::TokenKind::Number if (self.literal)(start) => {
                self.at += 1;
                Some(())
            }
            scan::TokenKind::Punctuator if spelling == "(" => {
                self.at += 1;
                self.value()?;
                self.expect(")")
            }
            scan::TokenKind::Identifier => {
                let m = *self.macros.get(spelling)?;
                self.at += 1;
                self.expect("(")?;
                let first = self.value()?;
                self.expect(",")?;
                let second = self.value()?;
                self.expect(")")?;
                let args = [first, second];
                self.selects.push(Select {
                    range: start..self.at,
                    op: m.op,
                    p: args[m.p].clone(),
                    q: args[1 - m.p].clone(),
                    if_true_p: m.if_true == m.p,
                    if_false_p: m.if_false == m.p,
                });
                Some(())
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An analysis whose only content is the accumulators' elements.
    fn accumulating(elements: Vec<(String, Vec<Expr>)>) -> Analysis {
        Analysis {
            element_type: "float".to_string(),
            element_bytes: Some(4),
            vector_bytes: VECTOR_BYTES,
            accumulators: elements.iter().map(|_| (0, 0..1)).collect(),
            elements,
            operands: Vec::new(),
            selects: Vec::new(),
            vector_reads: Vec::new(),
        }
    }

    #[test]
    fn copies_are_apart_when_a_subscript_free_of_the_loops_between_differs() {
        let (k, h, w) = (Expr::var("k"), Expr::var("h"), Expr::var("w"));
        // Y[k][h][w]: the copies of `k` differ in the first subscript whatever `h`.
        let rows = accumulating(vec![(
            "Y".to_string(),
            vec![k.clone(), h.clone(), w.clone()],
        )]);
        assert!(copies_apart(&rows, "k", 4, &["h"]));
        assert!(copies_apart(&rows, "h", 2, &[]));
        // Y[k + h][w]: copy 1 at `h` writes what copy 0 writes at `h + 1`, so `k` is not
        // jammed over `h`; with `h` fixed outside, the copies differ by one.
        let diagonal = accumulating(vec![(
            "Y".to_string(),
            vec![Expr::Add(vec![k.clone(), h.clone()]), w.clone()],
        )]);
        assert!(!copies_apart(&diagonal, "k", 2, &["h"]));
        assert!(copies_apart(&diagonal, "k", 2, &[]));
        // Y[h][w]: every copy of `k` writes the same elements.
        let shared = accumulating(vec![("Y".to_string(), vec![h.clone(), w.clone()])]);
        assert!(!copies_apart(&shared, "k", 2, &[]));
        // Two accumulators two channels apart: the second copy's first meets the
        // first copy's second only with three copies or more.
        let two = accumulating(vec![
            ("Y".to_string(), vec![k.clone(), w.clone()]),
            (
                "Y".to_string(),
                vec![
                    Expr::Add(vec![k.clone(), Expr::Int(pollen_arith::Int::from(2))]),
                    w,
                ],
            ),
        ]);
        assert!(copies_apart(&two, "k", 2, &[]));
        assert!(!copies_apart(&two, "k", 3, &[]));
    }

    #[test]
    fn iterations_are_apart_across_the_loops_between_when_one_subscript_holds_the_loop() {
        let (k, h, w) = (Expr::var("k"), Expr::var("h"), Expr::var("w"));
        let two_k = Expr::Mul(pollen_arith::Int::from(2), Box::new(k.clone()));
        // Y[k][h][w]: two channels never meet, whatever the rows.
        let rows = accumulating(vec![(
            "Y".to_string(),
            vec![k.clone(), h.clone(), w.clone()],
        )]);
        assert!(apart_across(&rows, "k", &["h"]));
        // Y[2k][h][w] and Y[2k][h + 1][w]: the first subscript is the same in both.
        let pair = accumulating(vec![
            ("Y".to_string(), vec![two_k.clone(), h.clone(), w.clone()]),
            (
                "Y".to_string(),
                vec![
                    two_k,
                    Expr::Add(vec![h.clone(), Expr::Int(pollen_arith::Int::from(1))]),
                    w.clone(),
                ],
            ),
        ]);
        assert!(apart_across(&pair, "k", &["h"]));
        // Y[k][w] and Y[k + 1][w]: channel k's second is channel k + 1's first.
        let shifted = accumulating(vec![
            ("Y".to_string(), vec![k.clone(), w.clone()]),
            (
                "Y".to_string(),
                vec![
                    Expr::Add(vec![k.clone(), Expr::Int(pollen_arith::Int::from(1))]),
                    w.clone(),
                ],
            ),
        ]);
        assert!(!apart_across(&shifted, "k", &["h"]));
        // Y[k + h][w]: channel k at row h + 1 is channel k + 1 at row h.
        let diagonal = accumulating(vec![(
            "Y".to_string(),
            vec![Expr::Add(vec![k.clone(), h.clone()]), w.clone()],
        )]);
        assert!(!apart_across(&diagonal, "k", &["h"]));
        // Y[h][w]: every channel writes the row.
        let row = accumulating(vec![("Y".to_string(), vec![h, w])]);
        assert!(!apart_across(&row, "k", &["h"]));
    }

    #[test]
    fn wide_vectors_hold_twice_the_variables_and_copies() {
        let mut a = accumulating(vec![("Y".to_string(), vec![Expr::var("w")])]);
        assert_eq!((a.variables(), a.shared_copies(), a.groups(4)), (12, 4, 3));
        a.vector_bytes = WIDE_BYTES;
        assert_eq!((a.variables(), a.shared_copies(), a.groups(8)), (24, 8, 3));
        a.vector_reads = vec![vec![
            Expr::var("c"),
            Expr::Add(vec![Expr::var("h"), Expr::var("w")]),
        ]];
        assert!(a.reads_move_with("h") && !a.reads_move_with("k"));
    }

    /// The lanes that [`deinterleave`]'s loads and shuffles give, simulated on the
    /// element offsets.
    fn simulate(s: usize, n: usize) -> Vec<usize> {
        let (starts, shuffles) = deinterleave(s, n);
        let loaded: Vec<Vec<usize>> = starts.iter().map(|&b| (b..b + n).collect()).collect();
        let mut result = loaded[0].clone();
        for (k, indices) in shuffles.iter().enumerate() {
            let first = if k == 0 { &loaded[0] } else { &result };
            let second = loaded.get(k + 1).unwrap_or(&loaded[0]);
            result = indices
                .iter()
                .map(|&i| if i < n { first[i] } else { second[i - n] })
                .collect();
        }
        result
    }

    #[test]
    fn deinterleaving_gives_every_lane_its_element_within_the_span() {
        for s in 1..=4 {
            for n in [1, 2, 4, 8, 16, 32] {
                assert_eq!(
                    simulate(s, n),
                    (0..n).map(|j| s * j).collect::<Vec<_>>(),
                    "stride {s}, {n} lanes"
                );
                let (starts, shuffles) = deinterleave(s, n);
                // Nothing after the last lane's element is loaded.
                assert!(starts.iter().all(|&b| b + n - 1 <= s * (n - 1)));
                assert!(starts.len() <= s.max(1) && shuffles.len() == starts.len().max(2) - 1);
            }
        }
        // Eight floats with stride 2: the first vector's even lanes, then the odd
        // lanes of the vector ending at element 14.
        assert_eq!(
            deinterleave(2, 8),
            (vec![0, 7], vec![vec![0, 2, 4, 6, 9, 11, 13, 15]])
        );
    }

    #[test]
    fn literals_keep_the_element_type() {
        assert!(literal_fits("0.5f", "float") && literal_fits("2", "float"));
        assert!(literal_fits("1e-3F", "float") && literal_fits("0", "float"));
        assert!(!literal_fits("0.5", "float") && !literal_fits("16777217", "float"));
        assert!(literal_fits("0.5", "double") && literal_fits("3", "double"));
        assert!(!literal_fits("0.5f", "double") && !literal_fits("0x10", "double"));
        assert!(literal_fits("7", "int") && !literal_fits("7u", "int"));
        assert!(!literal_fits("010", "int") && !literal_fits("1.0", "int"));
        assert!(!literal_fits("2", "DATA_TYPE") && !literal_fits("2", "long"));
    }

    /// A select as its tokens spelled: its whole, comparison, compared operands and
    /// which is the value when the comparison holds and when it does not.
    type Spelled = (String, &'static str, String, String, bool, bool);

    /// The selects of a right-hand side (from the token after `=`), or `None` when the
    /// parser refuses it; `A[...]`, `B[...]` and `c` are the references.
    fn parse(text: &str) -> Option<Vec<Spelled>> {
        let tokens = scan::tokens(text)?;
        let spelled = |r: &Range<usize>| {
            tokens[r.clone()]
                .iter()
                .map(|t| &text[t.range.clone()])
                .collect::<Vec<_>>()
                .join(" ")
        };
        let mut references = BTreeMap::new();
        let mut k = 0;
        while k < tokens.len() {
            match &text[tokens[k].range.clone()] {
                "A" | "B" => {
                    let close = (k..tokens.len()).find(|&t| &text[tokens[t].range.clone()] == "]");
                    let end = close? + 1;
                    references.insert(k, end);
                    k = end;
                }
                "c" => {
                    references.insert(k, k + 1);
                    k += 1;
                }
                _ => k += 1,
            }
        }
        let macros = scan::select_macros("");
        let literal = |t: usize| literal_fits(&text[tokens[t].range.clone()], "float");
        let op = tokens.iter().position(|t| &text[t.range.clone()] == "=")?;
        let mut parser = Parser {
            text,
            tokens: &tokens,
            references: &references,
            macros: &macros,
            literal: &literal,
            at: op + 1,
            selects: Vec::new(),
        };
        let parsed = parser.conditional()?;
        if parser.at != tokens.len() || parsed.compare.is_some() {
            return None;
        }
        Some(
            parser
                .selects
                .iter()
                .map(|s| {
                    (
                        spelled(&s.range),
                        s.op,
                        spelled(&s.p),
                        spelled(&s.q),
                        s.if_true_p,
                        s.if_false_p,
                    )
                })
                .collect(),
        )
    }

    #[test]
    fn right_hand_sides_parse_into_selects() {
        let s = |r: &str, op, p: &str, q: &str, t, f| (r.to_string(), op, p.into(), q.into(), t, f);
        assert_eq!(parse("A[i] = A[i] + B[j] * c - -B[j] / 2"), Some(vec![]));
        assert_eq!(
            parse("A[i] = MAX_FUN(A[i], B[2 * j])"),
            Some(vec![s(
                "MAX_FUN ( A [ i ] , B [ 2 * j ] )",
                ">",
                "A [ i ]",
                "B [ 2 * j ]",
                true,
                false
            )])
        );
        assert_eq!(
            parse("A[i] = (B[j] >= A[i] ? A[i] : B[j]) * 0.5f"),
            Some(vec![s(
                "B [ j ] >= A [ i ] ? A [ i ] : B [ j ]",
                ">=",
                "B [ j ]",
                "A [ i ]",
                false,
                true
            )])
        );
        // Nested: the outer select first.
        let nested = parse("A[i] = MIN_FUN(MAX_FUN(A[i], c), B[j])").expect("parses");
        assert_eq!(nested.len(), 2);
        assert_eq!(nested[0].1, ">");
        assert_eq!(nested[1].1, "<");
        assert_eq!(nested[1].2, "MAX_FUN ( A [ i ] , c )");
        // Refused: a branch that is not a compared operand (it might not be read), a
        // bare comparison, another call, a literal of another type, `&&`.
        for text in [
            "A[i] = A[i] > B[j] ? A[i] : B[j + 1]",
            "A[i] = A[i] > B[j]",
            "A[i] = A[i] + (A[i] > B[j])",
            "A[i] = fmaxf(A[i], B[j])",
            "A[i] = A[i] * 0.5",
            "A[i] = A[i] > c && c > B[j] ? A[i] : B[j]",
            "A[i] = MAX_FUN(A[i], B[j] > c)",
        ] {
            assert_eq!(parse(text), None, "{text}");
        }
    }
}
