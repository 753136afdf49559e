//! Strongly connected components of the graph of unsatisfied dependences, numbered in a
//! topological order.
//!
//! The components and their numbering are those of Pluto's `ddg_compute_scc`
//! (Kosaraju's algorithm): a depth-first search of the graph from the statements in
//! textual order (successors in textual order) gives finish times; a depth-first search
//! of the transposed graph from the statements in decreasing finish time discovers the
//! components in a topological order, numbered as discovered. Every edge goes from a
//! component to the same or a later one. The numbering matters: Pluto's fusion
//! heuristics cut between consecutive components.
//!
//! # Invariants
//! `scc_of[s] < n_sccs` for every statement, and `scc_of[source] <= scc_of[target]` for
//! every edge given.

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
        let mut pred = vec![Vec::new(); n];
        for &(a, b) in edges {
            succ[a].push(b);
            pred[b].push(a);
        }
        for list in succ.iter_mut().chain(pred.iter_mut()) {
            list.sort_unstable();
            list.dedup();
        }
        // First search: nodes in increasing finish time.
        let mut visited = vec![false; n];
        let mut finished = Vec::with_capacity(n);
        for root in 0..n {
            if !visited[root] {
                search(root, &succ, &mut visited, |v| finished.push(v));
            }
        }
        // Second search on the transposed graph, in decreasing finish time.
        let mut scc_of = vec![usize::MAX; n];
        let mut visited = vec![false; n];
        let mut n_sccs = 0;
        for &root in finished.iter().rev() {
            if visited[root] {
                continue;
            }
            search(root, &pred, &mut visited, |v| scc_of[v] = n_sccs);
            n_sccs += 1;
        }
        Sccs { scc_of, n_sccs }
    }
}

/// Iterative depth-first search from `root` over unvisited nodes, successors in the
/// given order; `finish` is called on every node when all its successors are done.
fn search(root: usize, succ: &[Vec<usize>], visited: &mut [bool], mut finish: impl FnMut(usize)) {
    visited[root] = true;
    let mut stack = vec![(root, 0usize)];
    while let Some((v, pos)) = stack.last_mut() {
        let v = *v;
        if let Some(&w) = succ[v].get(*pos) {
            *pos += 1;
            if !visited[w] {
                visited[w] = true;
                stack.push((w, 0));
            }
        } else {
            stack.pop();
            finish(v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chain_and_cycle() {
        // 0 -> 1 <-> 2 -> 3, and 4 alone (it finishes last, so comes first).
        let s = Sccs::new(5, &[(0, 1), (1, 2), (2, 1), (2, 3)]);
        assert_eq!(s.n_sccs, 4);
        assert_eq!(s.scc_of, vec![1, 2, 2, 3, 0]);
    }

    #[test]
    fn topological_against_text_order() {
        // 1 -> 0: 1 must come before 0; the unconnected 2 finishes last, so Kosaraju
        // discovers it first.
        let s = Sccs::new(3, &[(1, 0)]);
        assert_eq!(s.scc_of, vec![2, 1, 0]);
    }

    #[test]
    fn pluto_order_of_2mm() {
        // 2mm: S0 -> S1 -> S3 <- S2 (with self loops on S1, S3): Pluto numbers S2, S0,
        // S1, S3.
        let s = Sccs::new(4, &[(0, 1), (1, 1), (1, 3), (2, 3), (3, 3)]);
        assert_eq!(s.scc_of, vec![1, 2, 0, 3]);
    }
}
