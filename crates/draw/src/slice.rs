//! [`Slice`]: the points of one or more statements' domains in a 2-D slice, enumerated
//! exactly, and what the pictures compute on them (schedule vectors, dependence pairs).

use std::collections::BTreeMap;

use pollen_arith::Int;
use pollen_deps::{DepKind, Dependence};
use pollen_presburger::{Budget, DimKind, Map, Set, UnionMap};
use pollen_scop::Scop;

use crate::{Error, Result, View};

/// The drawn points of some statements.
#[derive(Clone, Debug)]
pub struct Slice {
    /// One entry per statement, in scop order.
    pub statements: Vec<SliceStatement>,
    /// The names of the horizontal and vertical axes.
    pub axes: (String, String),
}

/// The drawn points of one statement.
#[derive(Clone, Debug)]
pub struct SliceStatement {
    /// The statement's (tuple's) name.
    pub name: String,
    /// The statement's place among the domains the slice was made of (its colour in
    /// every picture, also in a [`Slice::select`]ion).
    pub index: usize,
    /// The dimension drawn horizontally and vertically (`None`: the statement has fewer
    /// dimensions; drawn at 0).
    pub axes: (Option<usize>, Option<usize>),
    /// The values of the dimensions that are not drawn, by name.
    pub fixed: Vec<(String, i64)>,
    /// The points (all coordinates), in lexicographic order.
    pub points: Vec<Vec<i64>>,
    /// The slice as a set without parameters.
    set: Set,
}

/// A dependence between two drawn points: `(statement, point)` indices.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pair {
    /// Flow, anti or output.
    pub kind: DepKind,
    /// The source instance.
    pub source: (usize, usize),
    /// The target instance.
    pub target: (usize, usize),
}

impl SliceStatement {
    /// Where a point of this statement is drawn.
    pub fn place(&self, point: &[i64]) -> (i64, i64) {
        let at = |d: Option<usize>| d.and_then(|d| point.get(d).copied()).unwrap_or(0);
        (at(self.axes.0), at(self.axes.1))
    }

    /// The images of the points under a map from this statement (a schedule), in point
    /// order; a point without image gets an empty vector.
    pub(crate) fn images(
        &self,
        map: &Map,
        view: &View,
        budget: &mut Budget,
    ) -> Result<Vec<Vec<i64>>> {
        let map = fix_params(map, view)?.intersect_domain(self.set.as_map())?;
        let n = self.set.n_dims();
        let mut images: BTreeMap<Vec<i64>, Vec<i64>> = BTreeMap::new();
        let mut error = None;
        map.foreach_point_with(
            |p| {
                match to_i64(p) {
                    Ok(p) => {
                        images
                            .entry(p[..n].to_vec())
                            .or_insert_with(|| p[n..].to_vec());
                    }
                    Err(e) => error = Some(e),
                }
                Ok(())
            },
            budget,
        )?;
        if let Some(e) = error {
            return Err(e);
        }
        Ok(self
            .points
            .iter()
            .map(|p| images.get(p).cloned().unwrap_or_default())
            .collect())
    }
}

impl Slice {
    /// The slice of one set (its tuple's dimension names name the axes).
    pub fn of_set(set: &Set, view: &View) -> Result<Slice> {
        let space = set.space();
        let names = (0..set.n_dims())
            .map(|i| {
                space
                    .dim_name(space.n_params() + i)
                    .map_or_else(|| format!("d{i}"), str::to_string)
            })
            .collect::<Vec<_>>();
        let name = space
            .range_tuple()
            .and_then(|t| t.name())
            .unwrap_or("")
            .to_string();
        Slice::of_domains(&[(name, set.clone(), names)], view)
    }

    /// The slice of every statement of a scop (iterator names name the dimensions).
    pub fn of_scop(scop: &Scop, view: &View) -> Result<Slice> {
        let domains = scop
            .statements
            .iter()
            .map(|s| (s.name.clone(), s.domain.clone(), s.iterators.clone()))
            .collect::<Vec<_>>();
        Slice::of_domains(&domains, view)
    }

    /// The slice of some domains, each with its name and its dimensions' names.
    pub fn of_domains(domains: &[(String, Set, Vec<String>)], view: &View) -> Result<Slice> {
        let mut budget = view.fresh_budget();
        if let Some((a, b)) = &view.dims {
            for name in [a, b] {
                if !domains.iter().any(|(_, _, names)| names.contains(name)) {
                    return Err(Error::UnknownDimension(name.clone()));
                }
            }
        }
        for (name, _) in &view.fixed {
            if !domains.iter().any(|(_, _, names)| names.contains(name)) {
                return Err(Error::UnknownDimension(name.clone()));
            }
        }
        let mut statements = Vec::with_capacity(domains.len());
        let mut total = 0;
        let mut axes: Option<(String, String)> = None;
        for (index, (name, set, names)) in domains.iter().enumerate() {
            let mut s = slice_statement(name, set, names, view, &mut budget, &mut total)?;
            s.index = index;
            if axes.is_none() && s.axes.0.is_some() {
                let axis =
                    |d: Option<usize>| d.map_or_else(|| "-".to_string(), |d| names[d].clone());
                axes = Some((axis(s.axes.0), axis(s.axes.1)));
            }
            statements.push(s);
        }
        Ok(Slice {
            statements,
            axes: axes.unwrap_or_else(|| ("-".to_string(), "-".to_string())),
        })
    }

    /// The same slice restricted to the statements named.
    pub fn select(&self, names: &[String]) -> Slice {
        Slice {
            statements: self
                .statements
                .iter()
                .filter(|s| names.contains(&s.name))
                .cloned()
                .collect(),
            axes: self.axes.clone(),
        }
    }

    /// The number of drawn points.
    pub fn len(&self) -> usize {
        self.statements.iter().map(|s| s.points.len()).sum()
    }

    /// Whether no point is drawn.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// `" (k = 0)"`: the fixed dimensions of the statements, for notes under pictures.
    pub fn fixed_note(&self) -> String {
        let mut parts = Vec::new();
        for s in &self.statements {
            if !s.fixed.is_empty() {
                let values = s
                    .fixed
                    .iter()
                    .map(|(n, v)| format!("{n} = {v}"))
                    .collect::<Vec<_>>()
                    .join(", ");
                parts.push(format!("{}: {values}", s.name));
            }
        }
        if parts.is_empty() {
            String::new()
        } else {
            format!(" (slice {})", parts.join("; "))
        }
    }

    /// The schedule vector of every point (statement by statement, in point order) under
    /// a union map with one map per statement; statements it does not schedule get empty
    /// vectors.
    pub fn schedule_vectors(
        &self,
        schedule: &UnionMap,
        view: &View,
        budget: &mut Budget,
    ) -> Result<Vec<Vec<Vec<i64>>>> {
        let mut out = Vec::with_capacity(self.statements.len());
        for s in &self.statements {
            match map_from(schedule, &s.name) {
                Some(map) => out.push(s.images(map, view, budget)?),
                None => out.push(vec![Vec::new(); s.points.len()]),
            }
        }
        Ok(out)
    }

    /// The dependences among drawn points, in the order of `deps` and of their pairs;
    /// with [`View::first_targets_only`], only the lexicographically first target of each
    /// source instance per relation.
    pub fn dependence_pairs(
        &self,
        deps: &[Dependence],
        view: &View,
        budget: &mut Budget,
    ) -> Result<Vec<Pair>> {
        let index: Vec<BTreeMap<&[i64], usize>> = self
            .statements
            .iter()
            .map(|s| {
                s.points
                    .iter()
                    .enumerate()
                    .map(|(i, p)| (p.as_slice(), i))
                    .collect()
            })
            .collect();
        let position = |name: &str| self.statements.iter().position(|s| s.name == name);
        let mut pairs = Vec::new();
        for d in deps {
            let (Some(src), Some(tgt)) = (position(&d.source), position(&d.target)) else {
                continue;
            };
            let (ss, ts) = (&self.statements[src], &self.statements[tgt]);
            let rel = fix_params(&d.relation, view)?
                .intersect_domain(ss.set.as_map())?
                .intersect_range(ts.set.as_map())?;
            let n = ss.set.n_dims();
            let mut error = None;
            let mut over = false;
            let mut last_source = None;
            let result = rel.foreach_point_with(
                |p| {
                    let p = match to_i64(p) {
                        Ok(p) => p,
                        Err(e) => {
                            error = Some(e);
                            return Ok(());
                        }
                    };
                    if let (Some(&a), Some(&b)) = (index[src].get(&p[..n]), index[tgt].get(&p[n..]))
                    {
                        // Pairs come source by source, targets in lexicographic order.
                        if view.first_targets_only && last_source == Some(a) {
                            return Ok(());
                        }
                        last_source = Some(a);
                        if pairs.len() >= view.max_arrows {
                            over = true;
                            return Err(pollen_presburger::Error::LimitExceeded);
                        }
                        pairs.push(Pair {
                            kind: d.kind,
                            source: (src, a),
                            target: (tgt, b),
                        });
                    }
                    Ok(())
                },
                budget,
            );
            if over {
                return Err(Error::TooManyPoints {
                    what: "dependence arrows",
                    limit: view.max_arrows,
                });
            }
            result?;
            if let Some(e) = error {
                return Err(e);
            }
        }
        Ok(pairs)
    }
}

/// The map of a union map whose domain is statement `name`'s.
fn map_from<'a>(umap: &'a UnionMap, name: &str) -> Option<&'a Map> {
    umap.maps()
        .find(|m| m.space().domain_tuple().and_then(|t| t.name()) == Some(name))
}

/// One statement's slice; `total` counts the points of the picture so far.
fn slice_statement(
    name: &str,
    set: &Set,
    names: &[String],
    view: &View,
    budget: &mut Budget,
    total: &mut usize,
) -> Result<SliceStatement> {
    let n = set.n_dims();
    let find = |dim: &str| names.iter().position(|x| x == dim).filter(|&d| d < n);
    let axes = match &view.dims {
        Some((a, b)) if find(a).is_some() && find(b).is_some() && a != b => (find(a), find(b)),
        _ => match n {
            0 => (None, None),
            1 => (Some(0), None),
            _ => (Some(0), Some(1)),
        },
    };
    let mut fixed_set = Set::from_map(fix_params(set.as_map(), view)?)?;
    let mut fixed = Vec::new();
    for (dim, value) in &view.fixed {
        if let Some(d) = find(dim) {
            if Some(d) != axes.0 && Some(d) != axes.1 {
                fixed_set = fixed_set.fix_val(DimKind::Out, d, &Int::from(*value))?;
            }
        }
    }
    let drawn = |d: usize| Some(d) == axes.0 || Some(d) == axes.1;
    if (0..n).any(|d| !drawn(d)) {
        if let Some(first) = first_point(&fixed_set, budget)? {
            for (d, value) in first.iter().enumerate() {
                if !drawn(d) {
                    fixed_set = fixed_set.fix_val(DimKind::Out, d, &Int::from(*value))?;
                    let dim = names.get(d).cloned().unwrap_or_else(|| format!("d{d}"));
                    fixed.push((dim, *value));
                }
            }
        }
    }
    let mut points = Vec::new();
    let mut over = false;
    let mut error = None;
    let result = fixed_set.foreach_point_with(
        |p| {
            if *total >= view.max_points {
                over = true;
                return Err(pollen_presburger::Error::LimitExceeded);
            }
            *total += 1;
            match to_i64(p) {
                Ok(p) => points.push(p),
                Err(e) => error = Some(e),
            }
            Ok(())
        },
        budget,
    );
    if over {
        return Err(Error::TooManyPoints {
            what: "points",
            limit: view.max_points,
        });
    }
    result?;
    if let Some(e) = error {
        return Err(e);
    }
    Ok(SliceStatement {
        name: name.to_string(),
        index: 0,
        axes,
        fixed,
        points,
        set: fixed_set,
    })
}

/// The lexicographically first point of a set without parameters.
fn first_point(set: &Set, budget: &mut Budget) -> Result<Option<Vec<i64>>> {
    let mut first = None;
    let result = set.foreach_point_with(
        |p| {
            first = Some(to_i64(p));
            Err(pollen_presburger::Error::LimitExceeded)
        },
        budget,
    );
    match first {
        Some(p) => Ok(Some(p?)),
        None => {
            result?;
            Ok(None)
        }
    }
}

/// A map with its parameters replaced by the view's values (and projected out).
pub(crate) fn fix_params(map: &Map, view: &View) -> Result<Map> {
    let params = map.space().param_names().to_vec();
    let mut fixed = map.clone();
    for (pos, name) in params.iter().enumerate() {
        fixed = fixed.fix_val(DimKind::Param, pos, &Int::from(view.param(name)))?;
    }
    Ok(fixed.project_out(DimKind::Param, 0, params.len())?)
}

/// Exact integers as `i64`.
fn to_i64(p: &[Int]) -> Result<Vec<i64>> {
    p.iter()
        .map(|v| v.to_i64().ok_or(Error::OutOfRange))
        .collect()
}
