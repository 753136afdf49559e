//! Strongly connected components of the graph of unsatisfied dependences, numbered in a
//! topological order.
//!
//! The components are found with Tarjan's algorithm (Tarjan 1972); they are then numbered
//! by Kahn's topological sort of the component graph, always taking the ready component
//! holding the textually first statement, so that independent components keep the
//! program's order. Every edge goes from a component to the same or a later one.
//!
//! # Invariants
//! `scc_of[s] < n_sccs` for every statement, and `scc_of[source] <= scc_of[target]` for
//! every edge given.

use std::collections::BTreeSet;

/// The components of a graph.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sccs {
    /// The component of every node, numbered topologically.
    pub scc_of: Vec<usize>,
    /// The number of components.
    pub n_sccs: usize,
}

impl Sccs {
    /// The components of the graph on `n` nodes with the given edges.
    pub fn new(n: usize, edges: &[(usize, usize)]) -> Sccs {
        let mut succ = vec![Vec::new(); n];
        for &(a, b) in edges {
            succ[a].push(b);
        }
        let raw = tarjan(n, &succ);
        let n_raw = raw.iter().copied().max().map_or(0, |m| m + 1);
        // Component graph and the smallest node of every component.
        let mut first = vec![usize::MAX; n_raw];
        for (v, &c) in raw.iter().enumerate() {
            first[c] = first[c].min(v);
        }
        let mut indegree = vec![0usize; n_raw];
        let mut csucc = vec![BTreeSet::new(); n_raw];
        for &(a, b) in edges {
            let (ca, cb) = (raw[a], raw[b]);
            if ca != cb && csucc[ca].insert(cb) {
                indegree[cb] += 1;
            }
        }
        let mut ready: BTreeSet<(usize, usize)> = (0..n_raw)
            .filter(|&c| indegree[c] == 0)
            .map(|c| (first[c], c))
            .collect();
        let mut number = vec![0usize; n_raw];
        let mut next = 0;
        while let Some(&(f, c)) = ready.iter().next() {
            ready.remove(&(f, c));
            number[c] = next;
            next += 1;
            for &d in &csucc[c] {
                indegree[d] -= 1;
                if indegree[d] == 0 {
                    ready.insert((first[d], d));
                }
            }
        }
        Sccs {
            scc_of: raw.iter().map(|&c| number[c]).collect(),
            n_sccs: n_raw,
        }
    }
}

/// Tarjan's algorithm (iterative): a component index for every node.
fn tarjan(n: usize, succ: &[Vec<usize>]) -> Vec<usize> {
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0usize; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut comp = vec![usize::MAX; n];
    let mut next_index = 0;
    let mut n_comp = 0;
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        // (node, next successor position)
        let mut work = vec![(root, 0usize)];
        index[root] = next_index;
        low[root] = next_index;
        next_index += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut pos)) = work.last_mut() {
            if *pos < succ[v].len() {
                let w = succ[v][*pos];
                *pos += 1;
                if index[w] == usize::MAX {
                    index[w] = next_index;
                    low[w] = next_index;
                    next_index += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
            } else {
                work.pop();
                if let Some(&(parent, _)) = work.last() {
                    low[parent] = low[parent].min(low[v]);
                }
                if low[v] == index[v] {
                    while let Some(w) = stack.pop() {
                        on_stack[w] = false;
                        comp[w] = n_comp;
                        if w == v {
                            break;
                        }
                    }
                    n_comp += 1;
                }
            }
        }
    }
    comp
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chain_and_cycle() {
        // 0 -> 1 <-> 2 -> 3, and 4 alone.
        let s = Sccs::new(5, &[(0, 1), (1, 2), (2, 1), (2, 3)]);
        assert_eq!(s.n_sccs, 4);
        assert_eq!(s.scc_of, vec![0, 1, 1, 2, 3]);
    }

    #[test]
    fn topological_against_text_order() {
        // 1 -> 0: 1 must come first.
        let s = Sccs::new(3, &[(1, 0)]);
        assert_eq!(s.scc_of, vec![1, 0, 2]);
    }
}
