//! Pictures of Pollen's polyhedral objects as self-contained SVG text: the points of a
//! statement's domain, dependences as arrows between them, the execution order of a
//! schedule (in the original space and in the space of the schedule's outer
//! dimensions), and the tiles of a tiled schedule tree.
//!
//! Every picture is a 2-D *slice*: the parameters take concrete values ([`View::params`],
//! [`View::default_param`] for the others), two dimensions of each statement are drawn
//! ([`View::dims`], by iterator name; the first two by default) and the others are fixed
//! ([`View::fixed`], by name; by default to their values at the statement's
//! lexicographically first point, so that the slice is never empty). The points are
//! enumerated exactly by `pollen-presburger` (never sampled), under a limit on their number
//! ([`View::max_points`], [`Error::TooManyPoints`] past it) and a budget of solver steps.
//!
//! Output is deterministic: coordinates are integer pixels, colours are fixed per
//! statement, dependence kind and tile number, and everything is emitted in the
//! lexicographic order of the points. The functions do no IO; the `pollen explain`
//! command writes what they return. [`Slice`] holds the enumerated points, so that the
//! pictures of one scop share one enumeration.
//!
//! # Example
//! ```
//! use pollen_draw::{domain_svg, View};
//!
//! let triangle = pollen_presburger::text::parse_set("[N] -> { S[i, j] : 0 <= j <= i < N }")?;
//! let view = View {
//!     params: vec![("N".to_string(), 6)],
//!     ..View::default()
//! };
//! let svg = domain_svg(&triangle, &view)?;
//! assert!(svg.starts_with("<svg"));
//! assert_eq!(svg.matches("<circle").count(), 21);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod slice;
pub mod svg;

use std::collections::BTreeMap;
use std::fmt;

use pollen_deps::{DepKind, Dependence};
use pollen_presburger::{Budget, Map, Set, UnionMap};
use pollen_scop::{Node, ScheduleTree};

pub use slice::{Slice, SliceStatement};
use svg::{Arrow, Cell, Dot, Plot, KIND_COLORS, STATEMENT_COLORS};

/// What to draw: parameter values, the pair of dimensions, the values of the others and
/// the limits.
#[derive(Clone, Debug)]
pub struct View {
    /// Parameter values by name.
    pub params: Vec<(String, i64)>,
    /// The value of every parameter not in `params`.
    pub default_param: i64,
    /// The horizontal and vertical dimensions, by name; statements without both names
    /// (and `None`) draw their first two dimensions.
    pub dims: Option<(String, String)>,
    /// Values of dimensions that are not drawn, by name; the others not drawn are fixed
    /// to their value at the statement's lexicographically first point.
    pub fixed: Vec<(String, i64)>,
    /// The most points one picture may enumerate (all statements together).
    pub max_points: usize,
    /// The most dependence arrows one picture may enumerate.
    pub max_arrows: usize,
    /// Solver steps per picture; `None` for no limit.
    pub budget: Option<u64>,
    /// Draw, of each dependence relation, only the first target (lexicographically) of
    /// each source instance: memory-based anti and output dependences relate an instance
    /// to every later access of the element, and the first one is what the eye needs.
    pub first_targets_only: bool,
}

impl Default for View {
    fn default() -> View {
        View {
            params: Vec::new(),
            default_param: 8,
            dims: None,
            fixed: Vec::new(),
            max_points: 2000,
            max_arrows: 5000,
            budget: Some(25_000_000),
            first_targets_only: true,
        }
    }
}

impl View {
    /// The value of parameter `name`.
    pub fn param(&self, name: &str) -> i64 {
        self.params
            .iter()
            .find(|(n, _)| n == name)
            .map_or(self.default_param, |(_, v)| *v)
    }

    /// A fresh budget for one picture.
    pub fn fresh_budget(&self) -> Budget {
        match self.budget {
            Some(steps) => Budget::new(steps),
            None => Budget::unlimited(),
        }
    }
}

/// Why a picture could not be drawn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// An operation of the integer set library failed (the budget ran out: `LimitExceeded`;
    /// a slice with infinitely many points: `Unsupported("unbounded")`).
    Presburger(pollen_presburger::Error),
    /// A schedule tree could not be flattened.
    Scop(pollen_scop::Error),
    /// More points (or arrows) than the view allows.
    TooManyPoints {
        /// Points or arrows.
        what: &'static str,
        /// The limit.
        limit: usize,
    },
    /// A dimension named in [`View::dims`] or [`View::fixed`] exists in no statement.
    UnknownDimension(String),
    /// A coordinate does not fit in 64 bits.
    OutOfRange,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Presburger(e) => write!(f, "{e}"),
            Error::Scop(e) => write!(f, "{e}"),
            Error::TooManyPoints { what, limit } => write!(
                f,
                "the picture has more than {limit} {what}: choose smaller parameter values or raise the limit"
            ),
            Error::UnknownDimension(name) => write!(f, "no statement has a dimension `{name}`"),
            Error::OutOfRange => write!(f, "a coordinate does not fit in 64 bits"),
        }
    }
}

impl std::error::Error for Error {}

impl From<pollen_presburger::Error> for Error {
    fn from(e: pollen_presburger::Error) -> Error {
        Error::Presburger(e)
    }
}

impl From<pollen_scop::Error> for Error {
    fn from(e: pollen_scop::Error) -> Error {
        Error::Scop(e)
    }
}

/// The result of this crate's functions.
pub type Result<T> = std::result::Result<T, Error>;

/// The points of a set (one statement's domain, or any set), as dots on a grid.
pub fn domain_svg(set: &Set, view: &View) -> Result<String> {
    let slice = Slice::of_set(set, view)?;
    let title = match &slice.statements[..] {
        [s] => format!("{} domain", s.name),
        _ => "domain".to_string(),
    };
    Ok(slice_svg(&slice, &title))
}

/// The points of a slice, every statement in its own colour.
pub fn slice_svg(slice: &Slice, title: &str) -> String {
    let mut plot = base_plot(slice, title);
    for (k, s) in slice.statements.iter().enumerate() {
        for p in &s.points {
            plot.dots.push(Dot {
                at: s.place(p),
                slot: k,
                color: s.index,
                label: None,
            });
        }
    }
    plot.note = format!("{} points{}", slice.len(), slice.fixed_note());
    plot.render()
}

/// The dependences among the points of a slice, as arrows from source to target coloured
/// by kind (flow, anti, output). Dependences with an end outside the slice, and those
/// whose ends fall on the same place of the picture, are not drawn; see
/// [`View::first_targets_only`].
pub fn dependences_svg(slice: &Slice, deps: &[Dependence], view: &View) -> Result<String> {
    let pairs = slice.dependence_pairs(deps, view, &mut view.fresh_budget())?;
    let mut plot = base_plot(slice, "dependences");
    add_dots(
        &mut plot,
        slice,
        |k, i| slice.statements[k].place(&slice.statements[k].points[i]),
        None,
    );
    let mut shown = [false; 3];
    for pair in &pairs {
        let (s, t) = (
            &slice.statements[pair.source.0],
            &slice.statements[pair.target.0],
        );
        plot.arrows.push(Arrow {
            from: (s.place(&s.points[pair.source.1]), pair.source.0),
            to: (t.place(&t.points[pair.target.1]), pair.target.0),
            kind: kind_index(pair.kind),
        });
        shown[kind_index(pair.kind)] = true;
    }
    add_kind_legend(&mut plot, shown);
    let which = if view.first_targets_only {
        "first target of each source per relation"
    } else {
        "all pairs"
    };
    plot.note = format!(
        "{} dependence arrows ({which}){}",
        pairs.len(),
        slice.fixed_note()
    );
    Ok(plot.render())
}

/// A relation between instances (`{ S[i, j] -> T[i', j'] }`, e.g. a dependence given in
/// isl syntax) as arrows of one kind between the points of its domain and range.
pub fn relation_svg(map: &Map, kind: DepKind, view: &View) -> Result<String> {
    let space = map.space();
    let tuple_name =
        |t: Option<&pollen_presburger::Tuple>| t.and_then(|t| t.name()).unwrap_or("").to_string();
    let (source, target) = (
        tuple_name(space.domain_tuple()),
        tuple_name(space.range_tuple()),
    );
    let domain = Set::from_map(map.domain())?;
    let range = Set::from_map(map.range())?;
    let names = |set: &Set| -> Vec<String> {
        let sp = set.space();
        (0..set.n_dims())
            .map(|i| {
                sp.dim_name(sp.n_params() + i)
                    .map_or_else(|| format!("d{i}"), str::to_string)
            })
            .collect()
    };
    let domains = if source == target && domain.n_dims() == range.n_dims() {
        let both = domain.union(&range)?;
        vec![(source.clone(), both.clone(), names(&both))]
    } else {
        vec![
            (source.clone(), domain.clone(), names(&domain)),
            (target.clone(), range.clone(), names(&range)),
        ]
    };
    let slice = Slice::of_domains(&domains, view)?;
    let dependence = Dependence {
        kind,
        array: String::new(),
        source,
        target,
        relation: map.clone(),
    };
    dependences_svg(&slice, &[dependence], view)
}

/// The execution order of a schedule (`{ S[i] -> [t...] }`, e.g. a tree's
/// [`ScheduleTree::to_union_map`]) on the points of a slice: each point numbered by its
/// rank among the drawn points, in the original space.
pub fn schedule_svg(
    slice: &Slice,
    schedule: &UnionMap,
    title: &str,
    view: &View,
) -> Result<String> {
    let times = slice.schedule_vectors(schedule, view, &mut view.fresh_budget())?;
    let ranks = ranks(&times);
    let mut plot = base_plot(slice, title);
    add_dots(
        &mut plot,
        slice,
        |k, i| slice.statements[k].place(&slice.statements[k].points[i]),
        Some(&ranks),
    );
    plot.note = format!(
        "numbers: the execution order of the {} drawn points{}",
        slice.len(),
        slice.fixed_note()
    );
    Ok(plot.render())
}

/// The points of a slice mapped through a schedule: placed at the values of the first two
/// schedule dimensions that vary among a statement's drawn points (loop dimensions; skewed
/// axes for a skewed schedule),
/// numbered by execution order, with the dependences among them as arrows.
pub fn scheduled_space_svg(
    slice: &Slice,
    schedule: &UnionMap,
    deps: &[Dependence],
    title: &str,
    view: &View,
) -> Result<String> {
    let mut budget = view.fresh_budget();
    let times = slice.schedule_vectors(schedule, view, &mut budget)?;
    let pairs = slice.dependence_pairs(deps, view, &mut budget)?;
    let ranks = ranks(&times);
    let (a, b) = varying_dims(&times);
    let place = |k: usize, i: usize| -> (i64, i64) {
        let t = &times[k][i];
        (a.map_or(0, |a| t[a]), b.map_or(0, |b| t[b]))
    };
    let mut plot = base_plot(slice, title);
    plot.x_label = a.map_or("-".to_string(), |a| format!("schedule dimension {a}"));
    plot.y_label = b.map_or("-".to_string(), |b| format!("schedule dimension {b}"));
    add_dots(&mut plot, slice, place, Some(&ranks));
    let mut shown = [false; 3];
    for pair in &pairs {
        plot.arrows.push(Arrow {
            from: (place(pair.source.0, pair.source.1), pair.source.0),
            to: (place(pair.target.0, pair.target.1), pair.target.0),
            kind: kind_index(pair.kind),
        });
        shown[kind_index(pair.kind)] = true;
    }
    add_kind_legend(&mut plot, shown);
    plot.note = format!(
        "points at their schedule coordinates; numbers: execution order{}",
        slice.fixed_note()
    );
    Ok(plot.render())
}

/// The tiles of a tiled schedule tree on the points of a slice: each point's cell shaded
/// by its tile, each tile numbered by its place in the order of the tree's outermost
/// band (the tile band: tiles of a wavefront band are ordered by wavefront first). With
/// `schedule`, points are placed in that schedule's space as in [`scheduled_space_svg`]
/// (tiles of a skewed band are rectangles there); otherwise in the original space.
pub fn tiles_svg(
    slice: &Slice,
    tree: &ScheduleTree,
    schedule: Option<&UnionMap>,
    view: &View,
) -> Result<String> {
    let mut budget = view.fresh_budget();
    let bands = outermost_bands(tree);
    let mut keys: Vec<Vec<(usize, Vec<i64>)>> = Vec::new();
    for s in &slice.statements {
        let band = bands.iter().enumerate().find_map(|(b, map)| {
            map.maps()
                .find(|m| m.space().domain_tuple().and_then(|t| t.name()) == Some(s.name.as_str()))
                .map(|m| (b, m.clone()))
        });
        let mut of_points = Vec::with_capacity(s.points.len());
        match band {
            Some((b, map)) => {
                let coords = s.images(&map, view, &mut budget)?;
                for c in coords {
                    of_points.push((b, c));
                }
            }
            None => of_points.extend(s.points.iter().map(|_| (usize::MAX, Vec::new()))),
        }
        keys.push(of_points);
    }
    let mut numbers: BTreeMap<(usize, Vec<i64>), usize> = BTreeMap::new();
    for key in keys.iter().flatten() {
        numbers.entry(key.clone()).or_insert(0);
    }
    for (n, v) in numbers.values_mut().enumerate() {
        *v = n;
    }
    let times = match schedule {
        Some(m) => Some(slice.schedule_vectors(m, view, &mut budget)?),
        None => None,
    };
    let (a, b) = times.as_ref().map_or((None, None), |t| varying_dims(t));
    let place = |k: usize, i: usize| -> (i64, i64) {
        match &times {
            Some(t) => {
                let t = &t[k][i];
                (a.map_or(0, |a| t[a]), b.map_or(0, |b| t[b]))
            }
            None => slice.statements[k].place(&slice.statements[k].points[i]),
        }
    };
    let title = if schedule.is_some() {
        "tiles (schedule space)"
    } else {
        "tiles"
    };
    let mut plot = base_plot(slice, title);
    if schedule.is_some() {
        plot.x_label = a.map_or("-".to_string(), |a| format!("schedule dimension {a}"));
        plot.y_label = b.map_or("-".to_string(), |b| format!("schedule dimension {b}"));
    }
    let mut members: Vec<Vec<(i64, i64)>> = vec![Vec::new(); numbers.len()];
    for (k, of_points) in keys.iter().enumerate() {
        for (i, key) in of_points.iter().enumerate() {
            let n = numbers[key];
            let at = place(k, i);
            plot.cells.push(Cell { at, shade: n });
            members[n].push(at);
        }
    }
    for (n, places) in members.iter().enumerate() {
        if let Some(at) = central(places) {
            plot.cell_labels.push((at, (n + 1).to_string()));
        }
    }
    add_dots(&mut plot, slice, place, None);
    plot.note = format!(
        "{} tiles, numbered in execution order{}",
        numbers.len(),
        slice.fixed_note()
    );
    Ok(plot.render())
}

/// The statements of each outermost band of a tree, in tree order: the statements whose
/// tiles one picture of [`tiles_svg`] should show together (statements of different
/// bands have different tiles, which would overlap in the original space).
pub fn band_groups(tree: &ScheduleTree) -> Vec<Vec<String>> {
    outermost_bands(tree)
        .iter()
        .map(|band| {
            band.maps()
                .filter_map(|m| m.space().domain_tuple().and_then(|t| t.name()))
                .map(str::to_string)
                .collect()
        })
        .collect()
}

/// The schedule maps of the outermost bands of a tree, in tree order.
fn outermost_bands(tree: &ScheduleTree) -> Vec<UnionMap> {
    fn walk(node: &Node, out: &mut Vec<UnionMap>) {
        match node {
            Node::Band(band) => out.push(band.schedule.clone()),
            Node::Leaf => {}
            other => {
                for child in other.children() {
                    walk(child, out);
                }
            }
        }
    }
    let mut out = Vec::new();
    walk(&tree.root, &mut out);
    out
}

/// The place of a set of places nearest to their mean (the first one on ties).
fn central(places: &[(i64, i64)]) -> Option<(i64, i64)> {
    let n = i64::try_from(places.len()).ok().filter(|n| *n > 0)?;
    let (sx, sy) = places.iter().fold((0i64, 0i64), |(x, y), p| {
        (x.saturating_add(p.0), y.saturating_add(p.1))
    });
    let (mx, my) = (sx / n, sy / n);
    places
        .iter()
        .min_by_key(|p| {
            (p.0 - mx)
                .saturating_mul(p.0 - mx)
                .saturating_add((p.1 - my).saturating_mul(p.1 - my))
        })
        .copied()
}

/// The index of a kind in [`KIND_COLORS`].
fn kind_index(kind: DepKind) -> usize {
    match kind {
        DepKind::Flow => 0,
        DepKind::Anti => 1,
        DepKind::Output => 2,
    }
}

/// A plot with the slice's axes and its statements in the legend.
fn base_plot(slice: &Slice, title: &str) -> Plot {
    Plot {
        title: title.to_string(),
        x_label: slice.axes.0.clone(),
        y_label: slice.axes.1.clone(),
        slots: slice.statements.len(),
        legend: slice
            .statements
            .iter()
            .map(|s| {
                (
                    STATEMENT_COLORS[s.index % STATEMENT_COLORS.len()].to_string(),
                    s.name.clone(),
                )
            })
            .collect(),
        ..Plot::default()
    }
}

/// Dots for every point of the slice at `place(statement, point)`, labelled with `ranks`.
fn add_dots(
    plot: &mut Plot,
    slice: &Slice,
    place: impl Fn(usize, usize) -> (i64, i64),
    ranks: Option<&Vec<Vec<usize>>>,
) {
    for (k, s) in slice.statements.iter().enumerate() {
        for i in 0..s.points.len() {
            plot.dots.push(Dot {
                at: place(k, i),
                slot: k,
                color: s.index,
                label: ranks.map(|r| (r[k][i] + 1).to_string()),
            });
        }
    }
}

/// The legend lines of the dependence kinds drawn.
fn add_kind_legend(plot: &mut Plot, shown: [bool; 3]) {
    for (k, name) in ["flow", "anti", "output"].iter().enumerate() {
        if shown[k] {
            plot.legend
                .push((KIND_COLORS[k].to_string(), format!("{name} dependence")));
        }
    }
}

/// Each point's rank in the lexicographic order of its schedule vector (ties by
/// statement, then point order).
fn ranks(times: &[Vec<Vec<i64>>]) -> Vec<Vec<usize>> {
    let mut all: Vec<(&Vec<i64>, usize, usize)> = Vec::new();
    for (k, ts) in times.iter().enumerate() {
        for (i, t) in ts.iter().enumerate() {
            all.push((t, k, i));
        }
    }
    all.sort();
    let mut out: Vec<Vec<usize>> = times.iter().map(|ts| vec![0; ts.len()]).collect();
    for (rank, (_, k, i)) in all.into_iter().enumerate() {
        out[k][i] = rank;
    }
    out
}

/// The first two schedule dimensions that vary among the points of some statement (loop
/// dimensions, not the positions of sequence children), completed by dimensions that vary
/// over all the points where there are fewer.
fn varying_dims(times: &[Vec<Vec<i64>>]) -> (Option<usize>, Option<usize>) {
    let n = times.iter().flatten().map(Vec::len).max().unwrap_or(0);
    let varies = |points: &mut dyn Iterator<Item = &Vec<i64>>, d: usize| {
        let mut values = points.map(|t| t.get(d).copied().unwrap_or(0));
        let first = values.next();
        values.any(|v| Some(v) != first)
    };
    let within: Vec<usize> = (0..n)
        .filter(|&d| times.iter().any(|ts| varies(&mut ts.iter(), d)))
        .collect();
    let across = (0..n).filter(|&d| !within.contains(&d) && varies(&mut times.iter().flatten(), d));
    let mut chosen: Vec<usize> = within.iter().copied().chain(across).take(2).collect();
    chosen.sort_unstable();
    (chosen.first().copied(), chosen.get(1).copied())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedule_axes_are_loop_dimensions() {
        // S0[i] -> [0, i, 0] and S1[i, j] -> [1, i, j]: the sequence position (dimension
        // 0) varies over the points but not within a statement.
        let times = vec![
            vec![vec![0, 0, 0], vec![0, 1, 0]],
            vec![vec![1, 0, 0], vec![1, 0, 1], vec![1, 1, 0]],
        ];
        assert_eq!(varying_dims(&times), (Some(1), Some(2)));
        // Only one loop dimension: the sequence position completes the pair.
        let times = vec![vec![vec![0, 0], vec![0, 1]], vec![vec![1, 0]]];
        assert_eq!(varying_dims(&times), (Some(0), Some(1)));
        assert_eq!(varying_dims(&[vec![vec![0]]]), (None, None));
    }

    #[test]
    fn ranks_follow_the_lexicographic_order() {
        let times = vec![vec![vec![0, 1], vec![1, 0]], vec![vec![0, 2]]];
        assert_eq!(ranks(&times), vec![vec![0, 2], vec![1]]);
    }
}
