//! Exact bounds checks of accesses with the Presburger library.
//!
//! For one access `T[f(x)]` of a statement whose iterators `x` range over the box
//! `D = { x : 0 <= x_d < E_d }`, the image `f(D)` must be a subset of `T`'s box
//! `{ y : 0 <= y_d < S_d }` for every parameter value in the context: independent
//! parameters `>= 1`, derived ones equal to their (quasi-affine) definitions. Names are
//! renamed (`p0`, `i0`, ...) in the set texts, so that any identifier of the language is
//! safe in isl syntax. When the subset test fails, a point of
//! `{ x in D : f(x) outside the box }` is the counterexample.

use pollen_presburger::{Budget, Map, Set};

use crate::affine::Affine;
use crate::error::{Error, ErrorKind, Pos, Result};
use crate::program::{Param, ParamDef, Tensor};

/// The steps of the integer solver each access may take.
pub(crate) const ACCESS_BUDGET: u64 = 2_000_000;

/// Names of the sets' columns: parameters `p0..`, iterators `i0..`.
struct Names<'a> {
    params: &'a [Param],
    iterators: &'a [(String, Affine)],
}

impl Names<'_> {
    fn rename(&self, name: &str) -> String {
        if let Some(k) = self.iterators.iter().position(|(n, _)| n == name) {
            format!("i{k}")
        } else if let Some(k) = self.params.iter().position(|p| p.name == name) {
            format!("p{k}")
        } else {
            // Unreachable for checked names; a fresh name keeps the text well-formed.
            format!("unknown_{name}")
        }
    }

    fn affine(&self, a: &Affine) -> String {
        a.display_with(&|n| self.rename(n)).to_string()
    }

    fn header(&self) -> String {
        if self.params.is_empty() {
            String::new()
        } else {
            let names: Vec<String> = (0..self.params.len()).map(|k| format!("p{k}")).collect();
            format!("[{}] -> ", names.join(", "))
        }
    }

    /// The parameters' constraints.
    fn context(&self) -> Vec<String> {
        self.params
            .iter()
            .enumerate()
            .map(|(k, p)| match &p.def {
                ParamDef::Value(_) => format!("p{k} >= 1"),
                ParamDef::Derived(e) => format!("p{k} = {}", e.print(&|n| self.rename(n), true)),
            })
            .collect()
    }
}

fn set_text(header: &str, dims: &[String], constraints: &[String]) -> String {
    if constraints.is_empty() {
        format!("{header}{{ [{}] }}", dims.join(", "))
    } else {
        format!(
            "{header}{{ [{}] : {} }}",
            dims.join(", "),
            constraints.join(" and ")
        )
    }
}

fn presburger(pos: Option<Pos>, what: &str, e: pollen_presburger::Error) -> Error {
    match e {
        pollen_presburger::Error::LimitExceeded => Error::new(
            ErrorKind::Limit,
            pos,
            format!("proving {what} within bounds exceeded the solver's budget"),
        ),
        e => Error::new(
            ErrorKind::Limit,
            pos,
            format!("proving {what} within bounds failed: {e}"),
        ),
    }
}

/// Checks that `tensor[indices]`, read at `pos` by a statement with `iterators`, stays in
/// the tensor's box.
pub(crate) fn check_access(
    params: &[Param],
    iterators: &[(String, Affine)],
    tensor: &Tensor,
    indices: &[Affine],
    pos: Option<Pos>,
) -> Result<()> {
    let names = Names { params, iterators };
    let header = names.header();
    let context = names.context();
    let dims: Vec<String> = (0..iterators.len()).map(|k| format!("i{k}")).collect();
    let mut domain = context.clone();
    for (k, (_, extent)) in iterators.iter().enumerate() {
        domain.push(format!("0 <= i{k} < {}", names.affine(extent)));
    }
    let outs: Vec<String> = indices.iter().map(|a| names.affine(a)).collect();
    let elems: Vec<String> = (0..tensor.rank()).map(|k| format!("a{k}")).collect();
    let mut bounds = context.clone();
    for (k, extent) in tensor.shape.iter().enumerate() {
        bounds.push(format!("0 <= a{k} < {}", names.affine(extent)));
    }
    let text = |a: &Affine| a.display_with(&|n| n.to_string()).to_string();
    let access_text = format!(
        "`{}[{}]`",
        tensor.name,
        indices.iter().map(text).collect::<Vec<_>>().join(", ")
    );
    let fail = |e| presburger(pos, &access_text, e);

    let domain_set: Set = set_text(&header, &dims, &domain).parse().map_err(fail)?;
    let map: Map = format!(
        "{header}{{ [{}] -> [{}] }}",
        dims.join(", "),
        outs.join(", ")
    )
    .parse()
    .map_err(fail)?;
    let tensor_box: Set = set_text(&header, &elems, &bounds).parse().map_err(fail)?;
    let mut budget = Budget::new(ACCESS_BUDGET);
    let image = domain_set.apply(&map).map_err(fail)?;
    if image
        .is_subset_with(&tensor_box, &mut budget)
        .map_err(fail)?
    {
        return Ok(());
    }

    // A counterexample: an iteration whose element lies outside the box.
    let mut outside = Vec::new();
    for (k, extent) in tensor.shape.iter().enumerate() {
        outside.push(format!("{} < 0", outs[k]));
        outside.push(format!("{} >= {}", outs[k], names.affine(extent)));
    }
    let mut bad = domain.clone();
    bad.push(format!("({})", outside.join(" or ")));
    let bad_set: Set = set_text(&header, &dims, &bad).parse().map_err(fail)?;
    let shape = tensor.shape.iter().map(text).collect::<Vec<_>>().join(", ");
    let mut message = format!(
        "out-of-bounds access: {access_text} can read outside the shape [{shape}] of `{}`",
        tensor.name
    );
    if let Some(point) = bad_set.sample_with(&mut budget).map_err(fail)? {
        let values: Vec<i64> = point
            .iter()
            .map(|v| v.to_string().parse().unwrap_or(0))
            .collect();
        let param_values: Vec<String> = params
            .iter()
            .zip(&values)
            .map(|(p, v)| format!("{} = {v}", p.name))
            .collect();
        let iter_values: Vec<(String, i64)> = iterators
            .iter()
            .zip(values.iter().skip(params.len()))
            .map(|((n, _), v)| (n.clone(), *v))
            .collect();
        let lookup = |n: &str| {
            iter_values
                .iter()
                .find(|(m, _)| m == n)
                .map(|(_, v)| *v)
                .or_else(|| {
                    params
                        .iter()
                        .position(|p| p.name == n)
                        .and_then(|k| values.get(k).copied())
                })
        };
        let element: Vec<String> = indices
            .iter()
            .map(|a| a.eval(&lookup).map_or("?".to_string(), |v| v.to_string()))
            .collect();
        let at: Vec<String> = iter_values
            .iter()
            .map(|(n, v)| format!("{n} = {v}"))
            .collect();
        message.push_str(&format!(
            ": with {}, at {} it reads {}[{}]",
            if param_values.is_empty() {
                "no parameters".to_string()
            } else {
                param_values.join(", ")
            },
            at.join(", "),
            tensor.name,
            element.join(", ")
        ));
    }
    Err(Error::new(ErrorKind::OutOfBounds, pos, message))
}
