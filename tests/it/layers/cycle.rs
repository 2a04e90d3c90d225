//! Finding a cycle in a graph, to name it.

use std::collections::{BTreeMap, BTreeSet};

/// A cycle of `graph` as the nodes on it in order, the first not repeated at the end
/// (`a -> b -> a` is `[a, b]`), or `None` when there is none. The same graph always
/// gives the same cycle: nodes are visited in their order.
pub fn find_cycle<N: Ord + Clone>(graph: &BTreeMap<N, BTreeSet<N>>) -> Option<Vec<N>> {
    #[derive(PartialEq)]
    enum Visit {
        OnPath,
        Done,
    }
    fn walk<N: Ord + Clone>(
        graph: &BTreeMap<N, BTreeSet<N>>,
        node: &N,
        visits: &mut BTreeMap<N, Visit>,
        path: &mut Vec<N>,
    ) -> Option<Vec<N>> {
        visits.insert(node.clone(), Visit::OnPath);
        path.push(node.clone());
        for next in graph.get(node).into_iter().flatten() {
            match visits.get(next) {
                Some(Visit::OnPath) => {
                    let from = path.iter().position(|n| n == next)?;
                    return Some(path[from..].to_vec());
                }
                Some(Visit::Done) => {}
                None => {
                    if let Some(cycle) = walk(graph, next, visits, path) {
                        return Some(cycle);
                    }
                }
            }
        }
        path.pop();
        visits.insert(node.clone(), Visit::Done);
        None
    }
    let mut visits = BTreeMap::new();
    for node in graph.keys() {
        if !visits.contains_key(node) {
            if let Some(cycle) = walk(graph, node, &mut visits, &mut Vec::new()) {
                return Some(cycle);
            }
        }
    }
    None
}
