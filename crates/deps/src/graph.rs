//! The dependence graph: statements as nodes, one edge per dependence relation, and its
//! strongly connected components in a topological order.
//!
//! # Algorithm
//! Tarjan's algorithm (*Depth-first search and linear graph algorithms*, SIAM J. Comput.
//! 1972), iterative, finds the components; they are then ordered by Kahn's topological
//! sort of the condensation, always taking next the ready component whose first
//! statement comes first in the scop. The order is thus deterministic and keeps the
//! textual order wherever the dependences allow it.
//!
//! # Invariants
//! - every edge `s -> t` of the graph goes from a component to itself or to a later one
//!   in [`DependenceGraph::sccs`];
//! - each component lists its statements in increasing order.

use crate::{DepKind, Dependences};

/// One edge of the dependence graph: a dependence relation between two statements.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edge {
    /// The source statement's index (scop order).
    pub source: usize,
    /// The target statement's index.
    pub target: usize,
    /// The dependence's kind.
    pub kind: DepKind,
    /// The array through which the statements depend.
    pub array: String,
    /// The relation's index in [`Dependences::as_slice`].
    pub dependence: usize,
}

/// The statements of a scop and the dependences between them.
#[derive(Clone, Debug)]
pub struct DependenceGraph {
    statements: Vec<String>,
    edges: Vec<Edge>,
    sccs: Vec<Vec<usize>>,
    /// Per statement, the position of its component in `sccs`.
    scc_of: Vec<usize>,
}

impl DependenceGraph {
    /// The graph of a set of dependences.
    pub fn new(deps: &Dependences) -> DependenceGraph {
        let statements = deps.statements().to_vec();
        let index = |name: &str| {
            statements
                .iter()
                .position(|s| s == name)
                .expect("Dependences::new checked the statement names")
        };
        let edges: Vec<Edge> = deps
            .iter()
            .enumerate()
            .map(|(k, d)| Edge {
                source: index(&d.source),
                target: index(&d.target),
                kind: d.kind,
                array: d.array.clone(),
                dependence: k,
            })
            .collect();
        let successors = successor_lists(statements.len(), &edges);
        let components = tarjan(&successors);
        let sccs = topological_order(components, &successors);
        let mut scc_of = vec![0; statements.len()];
        for (k, c) in sccs.iter().enumerate() {
            for &s in c {
                scc_of[s] = k;
            }
        }
        DependenceGraph {
            statements,
            edges,
            sccs,
            scc_of,
        }
    }

    /// The statement names, in scop order (node `k` is `statements()[k]`).
    pub fn statements(&self) -> &[String] {
        &self.statements
    }

    /// Number of statements.
    pub fn n_statements(&self) -> usize {
        self.statements.len()
    }

    /// The index of a statement, by name.
    pub fn statement_index(&self, name: &str) -> Option<usize> {
        self.statements.iter().position(|s| s == name)
    }

    /// Every edge, in the order of the dependences.
    pub fn edges(&self) -> &[Edge] {
        &self.edges
    }

    /// The strongly connected components in a topological order (every edge goes from a
    /// component to itself or to a later one), each as increasing statement indices.
    pub fn sccs(&self) -> &[Vec<usize>] {
        &self.sccs
    }

    /// The position in [`DependenceGraph::sccs`] of the component holding a statement.
    pub fn scc_of(&self, statement: usize) -> usize {
        self.scc_of[statement]
    }

    /// The edges from a statement of component `from` to a statement of component `to`
    /// (positions in [`DependenceGraph::sccs`]).
    pub fn edges_between_sccs(&self, from: usize, to: usize) -> impl Iterator<Item = &Edge> {
        self.edges
            .iter()
            .filter(move |e| self.scc_of[e.source] == from && self.scc_of[e.target] == to)
    }

    /// The edges from statement `source` to statement `target`.
    pub fn edges_between(&self, source: usize, target: usize) -> impl Iterator<Item = &Edge> {
        self.edges
            .iter()
            .filter(move |e| e.source == source && e.target == target)
    }

    /// Whether some instance of the statement depends on another instance of it.
    pub fn has_self_dependence(&self, statement: usize) -> bool {
        self.edges
            .iter()
            .any(|e| e.source == statement && e.target == statement)
    }

    /// The statements that directly depend on `statement`, increasing, without repeats.
    pub fn successors(&self, statement: usize) -> Vec<usize> {
        let mut out: Vec<usize> = self
            .edges
            .iter()
            .filter(|e| e.source == statement)
            .map(|e| e.target)
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// Per node, its successors in increasing order without repeats.
fn successor_lists(n: usize, edges: &[Edge]) -> Vec<Vec<usize>> {
    let mut succ = vec![Vec::new(); n];
    for e in edges {
        succ[e.source].push(e.target);
    }
    for s in &mut succ {
        s.sort_unstable();
        s.dedup();
    }
    succ
}

/// Tarjan's strongly connected components (iterative), each sorted increasingly, in the
/// order the algorithm completes them.
fn tarjan(successors: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let n = successors.len();
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut components = Vec::new();
    let mut next = 0;
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        // Each frame: a node and how many of its successors were visited.
        let mut frames = vec![(root, 0)];
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(frame) = frames.last_mut() {
            let v = frame.0;
            if let Some(&w) = successors[v].get(frame.1) {
                frame.1 += 1;
                if index[w] == usize::MAX {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    frames.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            frames.pop();
            if let Some(&(parent, _)) = frames.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut component = Vec::new();
                loop {
                    let w = stack.pop().expect("v is on the stack");
                    on_stack[w] = false;
                    component.push(w);
                    if w == v {
                        break;
                    }
                }
                component.sort_unstable();
                components.push(component);
            }
        }
    }
    components
}

/// The components in a topological order of the condensation, the ready component with
/// the smallest first statement first.
fn topological_order(components: Vec<Vec<usize>>, successors: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let mut component_of = vec![0; successors.len()];
    for (k, c) in components.iter().enumerate() {
        for &s in c {
            component_of[s] = k;
        }
    }
    let m = components.len();
    let mut after = vec![Vec::new(); m];
    let mut n_before = vec![0usize; m];
    for (v, succ) in successors.iter().enumerate() {
        for &w in succ {
            let (a, b) = (component_of[v], component_of[w]);
            if a != b && !after[a].contains(&b) {
                after[a].push(b);
                n_before[b] += 1;
            }
        }
    }
    let mut ready: std::collections::BTreeSet<(usize, usize)> = (0..m)
        .filter(|&c| n_before[c] == 0)
        .map(|c| (components[c][0], c))
        .collect();
    let mut order = Vec::with_capacity(m);
    while let Some((_, c)) = ready.pop_first() {
        order.push(c);
        for &b in &after[c] {
            n_before[b] -= 1;
            if n_before[b] == 0 {
                ready.insert((components[b][0], b));
            }
        }
    }
    debug_assert_eq!(order.len(), m, "the condensation of a graph is acyclic");
    let mut slots: Vec<Option<Vec<usize>>> = components.into_iter().map(Some).collect();
    order
        .into_iter()
        .map(|c| slots[c].take().expect("each component once"))
        .collect()
}
