//! Liveness by explicit state, as TLC and SPIN check it: a liveness violation of a finite system
//! is a lasso, a path from the initial state to a cycle that can repeat forever.
//! [`Graph::explore`] builds the reachable graph breadth first. [`Graph::find_lasso`] keeps the
//! states and transitions a [`Query`] allows, splits them into strongly connected components
//! (Tarjan, iterative), and takes the first component with a `busy` internal transition where
//! each weakly fair process (TLC's `WF`, SPIN's weak fairness: a process enabled forever
//! eventually moves) has an internal transition or a state where it is disabled. This is exact: a
//! closed walk through every edge of such a component is a fair cycle, and the component holding a
//! fair cycle passes. The lasso: a shortest prefix to the component's first state, then a cycle
//! through one witness of each condition.

use std::collections::{HashMap, VecDeque};
use std::fmt::Debug;
use std::hash::Hash;

/// A finite transition system: processes take labelled transitions between states.
pub trait System {
    type State: Clone + Eq + Hash + Debug;
    type Action: Clone + Debug;
    fn initial(&self) -> Self::State;
    /// Every transition enabled in `s`, as (process, action, successor). A process may have several
    /// (nondeterminism); a process with none is disabled in `s`.
    fn successors(&self, s: &Self::State) -> Vec<(usize, Self::Action, Self::State)>;
}

/// No index (an unvisited state, a state outside every component).
const NONE: usize = usize::MAX;

/// A transition of the graph: the process, its action, the target's index.
struct Edge<A> {
    process: usize,
    action: A,
    target: usize,
}

/// The reachable graph of a system. States are numbered in BFS order; 0 is the initial state.
pub struct Graph<S, A> {
    states: Vec<S>,
    /// Each state's number, to number successors while exploring.
    index: HashMap<S, usize>,
    /// Per state, its transitions in the order `System::successors` gave them.
    edges: Vec<Vec<Edge<A>>>,
    /// Per state, the (state, edge number) BFS first reached it by: a tree of shortest paths.
    parent: Vec<Option<(usize, usize)>>,
}

impl<S: Clone + Eq + Hash + Debug, A: Clone + Debug> Graph<S, A> {
    /// Breadth-first exploration from the initial state. Err (with a clear message naming the limit)
    /// if more than `max_states` states are reachable: never a silent partial graph.
    pub fn explore<Y: System<State = S, Action = A>>(system: &Y, max_states: usize) -> Result<Self, String> {
        let mut graph = Graph { states: Vec::new(), index: HashMap::new(), edges: Vec::new(), parent: Vec::new() };
        graph.add(system.initial(), None, max_states)?;
        // The state vector is the BFS queue: state `next` is expanded once all before it are.
        let mut next = 0;
        while next < graph.states.len() {
            let mut out = Vec::new();
            for (process, action, to) in system.successors(&graph.states[next]) {
                let target = match graph.index.get(&to) {
                    Some(&target) => target,
                    None => graph.add(to, Some((next, out.len())), max_states)?,
                };
                out.push(Edge { process, action, target });
            }
            graph.edges.push(out);
            next += 1;
        }
        Ok(graph)
    }

    /// Number `s`, reached by `parent`; Err if that makes more than `max_states`.
    fn add(&mut self, s: S, parent: Option<(usize, usize)>, max_states: usize) -> Result<usize, String> {
        if self.states.len() == max_states {
            return Err(format!(
                "more than max_states = {max_states} states are reachable: raise the limit or shrink the model"
            ));
        }
        self.index.insert(s.clone(), self.states.len());
        self.states.push(s);
        self.parent.push(parent);
        Ok(self.states.len() - 1)
    }

    pub fn states(&self) -> usize {
        self.states.len()
    }

    pub fn transitions(&self) -> usize {
        self.edges.iter().map(Vec::len).sum()
    }

    pub fn state(&self, i: usize) -> &S {
        &self.states[i]
    }

    /// A shortest path (BFS) from the initial state to the first state (in BFS order) satisfying `pred`,
    /// as the transitions taken; None if no reachable state satisfies it.
    pub fn path_to(&self, pred: impl Fn(&S) -> bool) -> Option<Path<S, A>> {
        let target = self.states.iter().position(pred)?;
        Some(Path { start: self.states[0].clone(), steps: self.steps(&self.route(target)) })
    }

    /// A fair cycle matching `query`, with a shortest prefix leading to it; None if there is none.
    pub fn find_lasso(&self, query: &Query<'_, S, A>) -> Option<Lasso<S, A>> {
        let keep: Vec<bool> = self.states.iter().map(|s| (query.state)(s)).collect();
        let allowed = |u: usize, e: &Edge<A>| keep[u] && keep[e.target] && (query.edge)(e.process, &e.action);
        let components = self.components(&keep, &allowed);
        let mut component = vec![NONE; self.states.len()];
        for (c, members) in components.iter().enumerate() {
            for &u in members {
                component[u] = c;
            }
        }
        let internal = |u: usize, e: &Edge<A>| allowed(u, e) && component[u] == component[e.target];
        let members = components.iter().filter(|m| self.is_candidate(m, query, &internal)).min_by_key(|m| m[0])?;
        let start = members[0];
        Some(Lasso {
            initial: self.states[0].clone(),
            prefix: self.steps(&self.route(start)),
            loop_start: self.states[start].clone(),
            cycle: self.steps(&self.cycle(start, query, &internal)),
        })
    }

    /// The strongly connected components of the states in `keep` along `allowed` edges, each
    /// sorted. Tarjan's algorithm with an explicit call stack: graphs reach millions of states.
    fn components(&self, keep: &[bool], allowed: &dyn Fn(usize, &Edge<A>) -> bool) -> Vec<Vec<usize>> {
        let n = self.states.len();
        let (mut order, mut low, mut on_stack) = (vec![NONE; n], vec![NONE; n], vec![false; n]);
        let (mut stack, mut components, mut count) = (Vec::new(), Vec::new(), 0);
        // The recursion's frames: (state, number of its next edge).
        let mut calls: Vec<(usize, usize)> = Vec::new();
        for root in 0..n {
            if !keep[root] || order[root] != NONE {
                continue;
            }
            calls.push((root, 0));
            while let Some(&(u, k)) = calls.last() {
                if order[u] == NONE {
                    (order[u], low[u]) = (count, count);
                    count += 1;
                    stack.push(u);
                    on_stack[u] = true;
                }
                if let Some(e) = self.edges[u].get(k) {
                    let top = calls.len() - 1;
                    calls[top].1 += 1;
                    if allowed(u, e) {
                        if order[e.target] == NONE {
                            calls.push((e.target, 0));
                        } else if on_stack[e.target] {
                            low[u] = low[u].min(order[e.target]);
                        }
                    }
                    continue;
                }
                calls.pop();
                if let Some(&(caller, _)) = calls.last() {
                    low[caller] = low[caller].min(low[u]);
                }
                if low[u] == order[u] {
                    let mut members = Vec::new();
                    while let Some(v) = stack.pop() {
                        on_stack[v] = false;
                        members.push(v);
                        if v == u {
                            break;
                        }
                    }
                    members.sort_unstable();
                    components.push(members);
                }
            }
        }
        components
    }

    /// Whether a component holds a fair cycle: a busy internal edge (so a cycle at all), and each
    /// weakly fair process has an internal edge or is disabled at one of its states.
    fn is_candidate(
        &self,
        members: &[usize],
        query: &Query<'_, S, A>,
        internal: &dyn Fn(usize, &Edge<A>) -> bool,
    ) -> bool {
        let has_edge =
            |u: usize, pick: &dyn Fn(&Edge<A>) -> bool| self.edges[u].iter().any(|e| pick(e) && internal(u, e));
        members.iter().any(|&u| has_edge(u, &|e| (query.busy)(e.process, &e.action)))
            && query
                .weakly_fair
                .iter()
                .all(|&p| members.iter().any(|&u| self.disabled(u, p) || has_edge(u, &|e| e.process == p)))
    }

    /// Whether process `p` has no transition at all in state `u` (in the full system).
    fn disabled(&self, u: usize, p: usize) -> bool {
        self.edges[u].iter().all(|e| e.process != p)
    }

    /// A closed walk from `start` along `internal` edges of its component, through a busy edge
    /// and, for each weakly fair process, one of its edges or a state where it is disabled.
    fn cycle(
        &self,
        start: usize,
        query: &Query<'_, S, A>,
        internal: &dyn Fn(usize, &Edge<A>) -> bool,
    ) -> Vec<(usize, usize)> {
        let (mut walk, mut at) = (Vec::new(), start);
        self.leg(&mut walk, &mut at, internal, &|_| false, &|e| (query.busy)(e.process, &e.action));
        for &p in query.weakly_fair {
            // The walk's sources are the states it visited, except `at`, which the leg checks.
            let met = walk.iter().any(|&(u, k)| self.edges[u][k].process == p || self.disabled(u, p));
            if !met {
                self.leg(&mut walk, &mut at, internal, &|u| self.disabled(u, p), &|e| e.process == p);
            }
        }
        self.leg(&mut walk, &mut at, internal, &|u| u == start, &|_| false);
        walk
    }

    /// Extend `walk` from `at` by a shortest path along `internal` edges to a state satisfying
    /// `to_state` or through an edge satisfying `through`, and move `at` to its end.
    fn leg(
        &self,
        walk: &mut Vec<(usize, usize)>,
        at: &mut usize,
        internal: &dyn Fn(usize, &Edge<A>) -> bool,
        to_state: &dyn Fn(usize) -> bool,
        through: &dyn Fn(&Edge<A>) -> bool,
    ) {
        let mut reached: HashMap<usize, Option<(usize, usize)>> = HashMap::from([(*at, None)]);
        let mut queue = VecDeque::from([*at]);
        while let Some(u) = queue.pop_front() {
            let last = if to_state(u) {
                None
            } else if let Some(k) = self.edges[u].iter().position(|e| through(e) && internal(u, e)) {
                Some((u, k))
            } else {
                for (k, e) in self.edges[u].iter().enumerate() {
                    if internal(u, e) && !reached.contains_key(&e.target) {
                        reached.insert(e.target, Some((u, k)));
                        queue.push_back(e.target);
                    }
                }
                continue;
            };
            let mut path: Vec<(usize, usize)> = last.into_iter().collect();
            let mut v = u;
            while let Some((from, k)) = reached[&v] {
                path.push((from, k));
                v = from;
            }
            path.reverse();
            walk.extend(path);
            *at = last.map_or(u, |(u, k)| self.edges[u][k].target);
            return;
        }
        panic!("liveness: a goal the component check found is unreachable inside the component");
    }

    /// The BFS tree's edges from the initial state to `target`, as (state, edge number) pairs.
    fn route(&self, target: usize) -> Vec<(usize, usize)> {
        let mut route = Vec::new();
        let mut at = target;
        while let Some((from, k)) = self.parent[at] {
            route.push((from, k));
            at = from;
        }
        route.reverse();
        route
    }

    fn steps(&self, edges: &[(usize, usize)]) -> Vec<Step<S, A>> {
        edges
            .iter()
            .map(|&(from, k)| {
                let e = &self.edges[from][k];
                Step { process: e.process, action: e.action.clone(), to: self.states[e.target].clone() }
            })
            .collect()
    }
}

/// One transition of a path: the process, its action, and the state it leads to.
#[derive(Debug, Clone)]
pub struct Step<S, A> {
    pub process: usize,
    pub action: A,
    pub to: S,
}

/// A path from `start`, the initial state.
#[derive(Debug, Clone)]
pub struct Path<S, A> {
    pub start: S,
    pub steps: Vec<Step<S, A>>,
}

/// A lasso: `prefix` leads from the initial state to `loop_start`; `cycle` leads from `loop_start`
/// back to `loop_start` (non-empty).
#[derive(Debug, Clone)]
pub struct Lasso<S, A> {
    pub initial: S,
    pub prefix: Vec<Step<S, A>>,
    pub loop_start: S,
    pub cycle: Vec<Step<S, A>>,
}

/// What cycle to look for.
pub struct Query<'a, S, A> {
    /// Every state of the cycle satisfies this (e.g. "a kicked page is still dirty").
    pub state: &'a dyn Fn(&S) -> bool,
    /// Every transition of the cycle satisfies this.
    pub edge: &'a dyn Fn(usize, &A) -> bool,
    /// At least one transition of the cycle satisfies this (e.g. "the flusher runs").
    pub busy: &'a dyn Fn(usize, &A) -> bool,
    /// Processes under weak fairness: on the cycle each either takes a transition, or is disabled
    /// (has no enabled transition in the FULL system, not just among `edge`-allowed ones) in at least
    /// one state of the cycle.
    pub weakly_fair: &'a [usize],
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    /// A system given by its table: per state, its transitions (process, action, target).
    struct Table(Vec<Vec<(usize, char, usize)>>);

    impl System for Table {
        type State = usize;
        type Action = char;
        fn initial(&self) -> usize {
            0
        }
        fn successors(&self, s: &usize) -> Vec<(usize, char, usize)> {
            self.0[*s].clone()
        }
    }

    const A: usize = 0;
    const B: usize = 1;

    fn any_state<S>(_: &S) -> bool {
        true
    }
    fn any_edge<T>(_: usize, _: &T) -> bool {
        true
    }
    fn by_a<T>(p: usize, _: &T) -> bool {
        p == A
    }

    fn query<'a, S, T>(busy: &'a dyn Fn(usize, &T) -> bool, weakly_fair: &'a [usize]) -> Query<'a, S, T> {
        Query { state: &any_state, edge: &any_edge, busy, weakly_fair }
    }

    fn lasso<Y: System>(system: &Y, query: &Query<'_, Y::State, Y::Action>) -> Option<Lasso<Y::State, Y::Action>>
    where
        Y::Action: PartialEq,
    {
        let graph = Graph::explore(system, 1000).expect("small test system");
        let lasso = graph.find_lasso(query);
        if let Some(lasso) = &lasso {
            check(system, &graph, query, lasso);
        }
        lasso
    }

    /// Check a lasso against the system itself (not the graph): every step is a transition of
    /// `System::successors`, the prefix is shortest, and the cycle closes and meets `query`.
    fn check<Y: System>(
        system: &Y,
        graph: &Graph<Y::State, Y::Action>,
        query: &Query<'_, Y::State, Y::Action>,
        lasso: &Lasso<Y::State, Y::Action>,
    ) where
        Y::Action: PartialEq,
    {
        let follows = |from: &Y::State, step: &Step<Y::State, Y::Action>| {
            system.successors(from).into_iter().any(|(p, a, to)| p == step.process && a == step.action && to == step.to)
        };
        assert_eq!(lasso.initial, system.initial());
        let mut at = &lasso.initial;
        for step in &lasso.prefix {
            assert!(follows(at, step), "prefix step {step:?} from {at:?} is no transition");
            at = &step.to;
        }
        assert_eq!(*at, lasso.loop_start, "the prefix ends at loop_start");
        let shortest = graph.path_to(|s| *s == lasso.loop_start).expect("loop_start is reachable");
        assert_eq!(lasso.prefix.len(), shortest.steps.len(), "the prefix is a shortest path");
        assert!(!lasso.cycle.is_empty());
        let mut visited = vec![&lasso.loop_start];
        for step in &lasso.cycle {
            let at = visited[visited.len() - 1];
            assert!(follows(at, step), "cycle step {step:?} from {at:?} is no transition");
            assert!((query.edge)(step.process, &step.action), "cycle step {step:?} is not allowed");
            visited.push(&step.to);
        }
        assert_eq!(*visited[visited.len() - 1], lasso.loop_start, "the cycle closes");
        assert!(visited.iter().all(|s| (query.state)(s)), "a cycle state is not allowed");
        assert!(lasso.cycle.iter().any(|step| (query.busy)(step.process, &step.action)), "no busy step");
        for &p in query.weakly_fair {
            let moves = lasso.cycle.iter().any(|step| step.process == p);
            let disabled = visited.iter().any(|s| system.successors(s).iter().all(|(q, _, _)| *q != p));
            assert!(moves || disabled, "process {p} is enabled throughout the cycle and never moves");
        }
    }

    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    struct Flush {
        pending: bool,
        written: u8,
        writer_done: bool,
    }

    #[derive(Debug, Clone, PartialEq)]
    enum Act {
        Dirty,
        Write,
        Requeue,
        Finish,
    }

    const WRITER: usize = 0;
    const FLUSHER: usize = 1;

    /// A writer dirties one page and queues the flusher; the flusher writes it, then with nothing
    /// left to write it requeues itself (`spins`) or goes idle.
    struct Flusher {
        spins: bool,
    }

    impl System for Flusher {
        type State = Flush;
        type Action = Act;
        fn initial(&self) -> Flush {
            Flush { pending: false, written: 0, writer_done: false }
        }
        fn successors(&self, s: &Flush) -> Vec<(usize, Act, Flush)> {
            let mut out = Vec::new();
            if !s.writer_done {
                out.push((WRITER, Act::Dirty, Flush { pending: true, writer_done: true, ..s.clone() }));
            }
            if s.pending {
                if s.written < u8::from(s.writer_done) {
                    out.push((FLUSHER, Act::Write, Flush { written: s.written + 1, ..s.clone() }));
                } else if self.spins {
                    out.push((FLUSHER, Act::Requeue, s.clone()));
                } else {
                    out.push((FLUSHER, Act::Finish, Flush { pending: false, ..s.clone() }));
                }
            }
            out
        }
    }

    fn by_flusher(p: usize, _: &Act) -> bool {
        p == FLUSHER
    }

    #[test]
    fn a_spinning_flusher_is_a_lasso() {
        let system = Flusher { spins: true };
        let graph = Graph::explore(&system, 100).expect("three states");
        assert_eq!((graph.states(), graph.transitions()), (3, 3));
        let found = lasso(&system, &query(&by_flusher, &[])).expect("the flusher spins");
        assert_eq!(found.loop_start, Flush { pending: true, written: 1, writer_done: true });
        let prefix: Vec<_> = found.prefix.iter().map(|s| (s.process, s.action.clone())).collect();
        assert_eq!(prefix, [(WRITER, Act::Dirty), (FLUSHER, Act::Write)]);
        let cycle: Vec<_> = found.cycle.iter().map(|s| (s.process, s.action.clone())).collect();
        assert_eq!(cycle, [(FLUSHER, Act::Requeue)]);
        // The writer is disabled once done, so weak fairness for both keeps the spin.
        assert!(lasso(&system, &query(&by_flusher, &[WRITER, FLUSHER])).is_some());
        // It spins with the page already written: "the page stays dirty" has no lasso.
        let dirty = |s: &Flush| s.written < u8::from(s.writer_done);
        let q = Query { state: &dirty, ..query(&by_flusher, &[]) };
        assert!(lasso(&system, &q).is_none());
    }

    #[test]
    fn a_terminating_flusher_has_no_lasso() {
        let system = Flusher { spins: false };
        let graph = Graph::explore(&system, 100).expect("four states");
        assert_eq!((graph.states(), graph.transitions()), (4, 3));
        assert!(graph.find_lasso(&query(&any_edge, &[])).is_none());
    }

    #[test]
    fn weak_fairness_excludes_a_cycle_that_starves_an_enabled_process() {
        // A loops between 0 and 1; B is enabled in both and leaves the loop.
        let system = Table(vec![vec![(A, 't', 1), (B, 'w', 2)], vec![(A, 't', 0), (B, 'w', 2)], vec![]]);
        assert!(lasso(&system, &query(&by_a, &[B])).is_none());
        assert!(lasso(&system, &query(&by_a, &[])).is_some());
        assert!(lasso(&system, &query(&by_a, &[A])).is_some());
    }

    #[test]
    fn weak_fairness_is_met_by_a_state_where_the_process_is_disabled() {
        // B is enabled in 0 only; the shortest busy cycle (A's self-loop on 0) starves it, so the
        // cycle must detour through 1.
        let system = Table(vec![vec![(A, 's', 0), (A, 't', 1), (B, 'w', 2)], vec![(A, 't', 0)], vec![]]);
        let found = lasso(&system, &query(&by_a, &[B])).expect("B is disabled in 1");
        assert!(found.cycle.iter().any(|step| step.to == 1));
        assert!(lasso(&system, &query(&|p, _: &char| p == B, &[B])).is_none(), "B never moves on a cycle");
    }

    #[test]
    fn the_state_restriction_cuts_cycles() {
        let system = Table(vec![vec![(A, 'r', 1)], vec![(A, 'r', 2)], vec![(A, 'r', 0)]]);
        assert!(lasso(&system, &Query { state: &|s: &usize| *s != 2, ..query(&any_edge, &[]) }).is_none());
        assert!(lasso(&system, &query(&any_edge, &[])).is_some());
    }

    #[test]
    fn the_edge_restriction_cuts_cycles_but_not_enabledness() {
        let system = Table(vec![vec![(A, 't', 1)], vec![(A, 'b', 0)]]);
        assert!(lasso(&system, &Query { edge: &|_, a: &char| *a != 'b', ..query(&any_edge, &[]) }).is_none());
        assert!(lasso(&system, &query(&any_edge, &[])).is_some());
        // B is enabled in 0 and 1 only through transitions the query excludes: still enabled.
        let system = Table(vec![vec![(A, 't', 1), (B, 'x', 2)], vec![(A, 't', 0), (B, 'x', 2)], vec![]]);
        assert!(lasso(&system, &Query { edge: &by_a, ..query(&by_a, &[B]) }).is_none());
        assert!(lasso(&system, &Query { edge: &by_a, ..query(&by_a, &[]) }).is_some());
        // Without B's transition in 1 it is disabled there: the cycle is fair.
        let system = Table(vec![vec![(A, 't', 1), (B, 'x', 2)], vec![(A, 't', 0)], vec![]]);
        assert!(lasso(&system, &Query { edge: &by_a, ..query(&by_a, &[B]) }).is_some());
    }

    /// A counter modulo `modulus` (0: unbounded).
    struct Counter {
        modulus: u64,
    }

    impl System for Counter {
        type State = u64;
        type Action = ();
        fn initial(&self) -> u64 {
            0
        }
        fn successors(&self, s: &u64) -> Vec<(usize, (), u64)> {
            let next = s + 1;
            vec![(0, (), if self.modulus == 0 { next } else { next % self.modulus })]
        }
    }

    #[test]
    fn explore_refuses_more_states_than_the_limit() {
        let err = Graph::explore(&Counter { modulus: 0 }, 100).err().expect("an unbounded counter");
        assert!(err.contains("max_states = 100"), "{err}");
        let graph = Graph::explore(&Counter { modulus: 5 }, 5).expect("exactly five states");
        assert_eq!((graph.states(), graph.transitions(), *graph.state(4)), (5, 5, 4));
        assert!(Graph::explore(&Counter { modulus: 5 }, 4).is_err());
    }

    #[test]
    fn path_to_takes_a_shortest_path() {
        // 0 -> 1 -> 2 -> 3 -> 4 and 0 -> 5 -> 4; 6 is unreachable.
        let system = Table(vec![
            vec![(A, 'a', 1), (A, 'b', 5)],
            vec![(A, 'c', 2)],
            vec![(A, 'd', 3)],
            vec![(A, 'e', 4)],
            vec![],
            vec![(B, 'f', 4)],
            vec![(A, 'g', 0)],
        ]);
        let graph = Graph::explore(&system, 100).expect("six states");
        assert_eq!(graph.states(), 6);
        let path = graph.path_to(|s| *s == 4).expect("4 is reachable");
        assert_eq!(path.start, 0);
        let steps: Vec<_> = path.steps.iter().map(|s| (s.process, s.action, s.to)).collect();
        assert_eq!(steps, [(A, 'b', 5), (B, 'f', 4)]);
        assert!(graph.path_to(|s| *s == 0).expect("the initial state").steps.is_empty());
        assert!(graph.path_to(|s| *s == 6).is_none());
    }

    /// Whether a fair closed walk exists, straight from the definition and without components:
    /// from every reachable allowed state `v`, search the pairs (state, conditions met so far)
    /// reachable by allowed steps for `v` with all conditions met.
    fn brute(system: &Table, q: &Query<'_, usize, char>) -> bool {
        let table = &system.0;
        let full = (2u32 << q.weakly_fair.len()) - 1;
        // Bit 0: a busy step; bit 1 + i: fair process i moved or was disabled.
        let disabled = |s: usize| -> u32 {
            let fair = q.weakly_fair.iter().enumerate();
            fair.filter(|&(_, &p)| table[s].iter().all(|e| e.0 != p)).map(|(i, _)| 2 << i).sum()
        };
        let moved = |p: usize, a: char| -> u32 {
            let fair = q.weakly_fair.iter().enumerate();
            u32::from((q.busy)(p, &a)) | fair.filter(|&(_, &f)| f == p).map(|(i, _)| 2 << i).sum::<u32>()
        };
        let mut reachable = vec![false; table.len()];
        reachable[0] = true;
        let mut todo = vec![0];
        while let Some(s) = todo.pop() {
            for &(_, _, t) in &table[s] {
                if !reachable[t] {
                    reachable[t] = true;
                    todo.push(t);
                }
            }
        }
        (0..table.len()).filter(|&v| reachable[v] && (q.state)(&v)).any(|v| {
            let mut seen = HashSet::new();
            let mut todo = vec![(v, disabled(v))];
            while let Some((s, met)) = todo.pop() {
                for &(p, a, t) in &table[s] {
                    if (q.edge)(p, &a) && (q.state)(&t) {
                        let met = met | moved(p, a) | disabled(t);
                        if t == v && met == full {
                            return true;
                        }
                        if seen.insert((t, met)) {
                            todo.push((t, met));
                        }
                    }
                }
            }
            false
        })
    }

    /// xorshift64, for deterministic pseudo-random systems.
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % n as u64) as usize
        }
    }

    #[test]
    fn find_lasso_agrees_with_brute_force_on_small_random_systems() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let label = |p: usize, a: char| 2 * p + usize::from(a == 'y');
        let (mut found, mut none) = (0, 0);
        for case in 0..3000 {
            let n = 1 + rng.below(7);
            let table = (0..n)
                .map(|_| {
                    let mut out = Vec::new();
                    for p in 0..3 {
                        for _ in 0..rng.below(3) {
                            out.push((p, ['x', 'y'][rng.below(2)], rng.below(n)));
                        }
                    }
                    out
                })
                .collect();
            let system = Table(table);
            let bad: Vec<bool> = (0..n).map(|_| rng.below(6) == 0).collect();
            let forbidden: Vec<bool> = (0..6).map(|_| rng.below(6) == 0).collect();
            let busy: Vec<bool> = (0..6).map(|_| rng.below(2) == 0).collect();
            let fair: Vec<usize> = (0..3).filter(|_| rng.below(2) == 0).collect();
            let q = Query {
                state: &|s: &usize| !bad[*s],
                edge: &|p, a: &char| !forbidden[label(p, *a)],
                busy: &|p, a: &char| busy[label(p, *a)],
                weakly_fair: &fair,
            };
            let expected = brute(&system, &q);
            let got = lasso(&system, &q);
            assert_eq!(got.is_some(), expected, "case {case}: {:?} with fair {fair:?}", system.0);
            if expected {
                found += 1;
            } else {
                none += 1;
            }
        }
        // Both answers are common, so the comparison tests something either way.
        assert!(found > 500 && none > 500, "found {found}, none {none}");
    }
}
