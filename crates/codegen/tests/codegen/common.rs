//! Shared helpers of the code generation tests: the example kernels (from
//! `pollen-testkit`) and checking a generated AST against the exact instance sets and the schedule's order.

use std::collections::BTreeMap;

use pollen_codegen::{interp, Ast};
use pollen_presburger::{DimKind, Int, Set};
use pollen_scop::{ScheduleTree, Scop};

pub use pollen_testkit::{kernel_names, kernel_scop as scop, pluto};

/// Parameter valuations to test: a few with every parameter in 4..7.
pub fn valuations(scop: &Scop) -> Vec<Vec<(String, i64)>> {
    let n = scop.params.len();
    let patterns: Vec<Vec<i64>> = vec![
        (0..n).map(|k| 4 + (k as i64 % 4)).collect(),
        (0..n).map(|k| 7 - (k as i64 % 4)).collect(),
        vec![5; n],
    ];
    patterns
        .into_iter()
        .map(|v| scop.params.iter().cloned().zip(v).collect())
        .collect()
}

/// Whether the valuation lies in the scop's context.
pub fn in_context(scop: &Scop, values: &[(String, i64)]) -> bool {
    let point: Vec<Int> = values.iter().map(|(_, v)| Int::from(*v)).collect();
    scop.context.contains_point(&point).expect("context test")
}

/// The instances of a set for fixed parameter values (iterator values only).
pub fn points(set: &Set, values: &[(String, i64)]) -> Vec<Vec<i64>> {
    let mut s = set.clone();
    for (k, (_, v)) in values.iter().enumerate() {
        s = s.fix_val(DimKind::Param, k, &Int::from(*v)).expect("fix");
    }
    let s = s
        .project_out(DimKind::Param, 0, values.len())
        .expect("projection");
    s.points()
        .expect("points")
        .into_iter()
        .map(|p| p.iter().map(|x| x.to_i64().expect("small")).collect())
        .collect()
}

/// Checks that `ast` executes every instance of the tree's domain exactly once and
/// nothing else, in an order that never decreases the tree's schedule.
pub fn check(tree: &ScheduleTree, ast: &Ast, values: &[(String, i64)]) -> Result<usize, String> {
    let trace = interp::interpret(ast, values).map_err(|e| format!("interpretation: {e}"))?;
    let domain = tree.domain().ok_or("no domain")?;
    let mut expected: BTreeMap<(String, Vec<i64>), usize> = BTreeMap::new();
    for set in domain.sets() {
        let name = set
            .space()
            .range_tuple()
            .and_then(|t| t.name())
            .unwrap_or_default()
            .to_string();
        for p in points(&set, values) {
            expected.insert((name.clone(), p), 0);
        }
    }
    for inst in &trace {
        match expected.get_mut(inst) {
            None => return Err(format!("executed {inst:?}, which is not in the domain")),
            Some(n) if *n > 0 => return Err(format!("executed {inst:?} twice")),
            Some(n) => *n += 1,
        }
    }
    if let Some((inst, _)) = expected.iter().find(|(_, n)| **n == 0) {
        return Err(format!("never executed {inst:?}"));
    }
    let schedule = tree.to_union_map().map_err(|e| e.to_string())?;
    let mut functions = BTreeMap::new();
    for m in schedule.maps() {
        let name = m
            .space()
            .domain_tuple()
            .and_then(|t| t.name())
            .unwrap_or_default()
            .to_string();
        let f = m.lexmin_pw().map_err(|e| e.to_string())?.optimum;
        functions.insert(name, f);
    }
    let mut previous: Option<Vec<Int>> = None;
    for (name, iters) in &trace {
        let f = functions.get(name).ok_or("statement without schedule")?;
        let point: Vec<Int> = values
            .iter()
            .map(|(_, v)| Int::from(*v))
            .chain(iters.iter().map(|v| Int::from(*v)))
            .collect();
        let t = f
            .eval(&point)
            .map_err(|e| e.to_string())?
            .ok_or_else(|| format!("no schedule value at {name}{iters:?}"))?;
        if let Some(p) = &previous {
            if t < *p {
                return Err(format!(
                    "{name}{iters:?} at {t:?} executes after an instance at {p:?}"
                ));
            }
        }
        previous = Some(t);
    }
    Ok(trace.len())
}

/// Counts of AST nodes: loops, guards, statement calls.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Shape {
    /// `for` loops.
    pub loops: usize,
    /// `if` nodes.
    pub guards: usize,
    /// Statement calls.
    pub calls: usize,
    /// Loops at the top level (outside any loop).
    pub top_loops: usize,
}

/// The shape of an AST.
pub fn shape(ast: &Ast) -> Shape {
    fn walk(a: &Ast, depth: usize, s: &mut Shape) {
        match a {
            Ast::Block(v) => v.iter().for_each(|x| walk(x, depth, s)),
            Ast::For(l) => {
                s.loops += 1;
                if depth == 0 {
                    s.top_loops += 1;
                }
                walk(&l.body, depth + 1, s);
            }
            Ast::If {
                then, otherwise, ..
            } => {
                s.guards += 1;
                walk(then, depth, s);
                if let Some(o) = otherwise {
                    walk(o, depth, s);
                }
            }
            Ast::User { .. } => s.calls += 1,
        }
    }
    let mut s = Shape::default();
    walk(ast, 0, &mut s);
    s
}
