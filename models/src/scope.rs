//! Declared scopes: the configuration space a scenario's verdicts are about.
//!
//! A scenario declares its roles (each a class of in-tree kernel callers), how many threads of
//! each a configuration may have, which objects they may share, and the initial states; it then
//! enumerates every configuration within that scope, once per class of configurations that differ
//! only by renaming interchangeable threads or objects. loom runs each configuration
//! exhaustively (its CPU placements too); shuttle draws a configuration per execution; the oracle
//! runs each with every interleaving of whole calls. `wbcheck explain` prints the declaration.

use std::collections::BTreeSet;
use std::fmt::Write as _;

/// One kind of thread a configuration may contain.
#[derive(Debug, Clone)]
pub struct RoleDecl {
    pub name: &'static str,
    /// The kernel call sequence the thread runs.
    pub runs: &'static str,
    /// The in-tree callers the role stands for.
    pub callers: &'static str,
}

/// A scenario's configuration space and the bound each checker explores it at.
#[derive(Debug, Clone)]
pub struct ScopeDecl {
    pub roles: Vec<RoleDecl>,
    /// How many threads of which roles (the flusher and other fixed threads included).
    pub counts: &'static str,
    /// What the threads may share (inodes, folios, wbs ...).
    pub sharing: &'static str,
    /// The initial states enumerated.
    pub initial: &'static str,
    /// What is outside the scope, and why that cannot hide the bug class (or which scenario
    /// covers it).
    pub excluded: &'static str,
    /// Per checker and tier: how the scope is explored.
    pub bounds: &'static str,
    /// The configurations, by label (the count is what the JSON rows report).
    pub configurations: Vec<String>,
}

impl ScopeDecl {
    /// The declaration as Markdown, for `wbcheck explain`.
    pub fn render(&self) -> String {
        let mut out = String::from("## Scope\n\nRoles:\n\n| role | runs | in-tree callers |\n|---|---|---|\n");
        for r in &self.roles {
            let _ = writeln!(out, "| {} | {} | {} |", r.name, r.runs, r.callers);
        }
        let _ = write!(
            out,
            "\n- Threads: {}\n- Sharing: {}\n- Initial states: {}\n- Outside the scope: {}\n- Bounds: {}\n\n{} configurations:\n\n",
            self.counts,
            self.sharing,
            self.initial,
            self.excluded,
            self.bounds,
            self.configurations.len()
        );
        for (i, c) in self.configurations.iter().enumerate() {
            let _ = writeln!(out, "{:>3}. {c}", i + 1);
        }
        out
    }
}

/// Keep one configuration per class of configurations that differ only by renaming: `key` maps a
/// configuration to its canonical form (for example, its least renaming), and the first
/// configuration of each class is kept, in order.
pub fn canonical<T: Clone, K: Ord>(all: impl IntoIterator<Item = T>, key: impl Fn(&T) -> K) -> Vec<T> {
    let mut seen = BTreeSet::new();
    all.into_iter().filter(|c| seen.insert(key(c))).collect()
}

/// Every permutation of `0..n` (n is at most a handful here).
pub fn permutations(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![Vec::new()];
    }
    let mut out = Vec::new();
    for p in permutations(n - 1) {
        for i in 0..=p.len() {
            let mut q = p.clone();
            q.insert(i, n - 1);
            out.push(q);
        }
    }
    out
}

/// Every way to assign `n` items to groups, as restricted growth strings (item `i` joins a group
/// already used by items before it, or the next new one): each partition of the items exactly
/// once, groups numbered by first use.
pub fn set_partitions(n: usize) -> Vec<Vec<usize>> {
    fn go(n: usize, cur: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if cur.len() == n {
            out.push(cur.clone());
            return;
        }
        let next = cur.iter().copied().max().map_or(0, |m| m + 1);
        for g in 0..=next {
            cur.push(g);
            go(n, cur, out);
            cur.pop();
        }
    }
    let mut out = Vec::new();
    go(n, &mut Vec::new(), &mut out);
    out
}

/// Renumber group ids in order of first appearance (the canonical names of renamed objects).
pub fn renumber(ids: &[usize]) -> Vec<usize> {
    let mut map: Vec<(usize, usize)> = Vec::new();
    ids.iter()
        .map(|&id| match map.iter().find(|(from, _)| *from == id) {
            Some(&(_, to)) => to,
            None => {
                map.push((id, map.len()));
                map.len() - 1
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partitions_and_permutations_count() {
        assert_eq!(set_partitions(3).len(), 5); // Bell number
        assert_eq!(set_partitions(4).len(), 15);
        assert_eq!(permutations(3).len(), 6);
        assert_eq!(renumber(&[2, 0, 2, 1]), vec![0, 1, 0, 2]);
        assert_eq!(canonical([3, 1, 4, 1, 5], |x| x % 2), vec![3, 4]);
    }
}
