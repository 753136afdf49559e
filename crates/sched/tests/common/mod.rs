//! Test helpers: hand-built scops, a small memory-based dependence analysis (independent
//! of `pollen-deps`), the legality check, and accessors for the bands of a tree.

use pollen_deps::{DepKind, Dependence};
use pollen_presburger::text::parse_union_map;
use pollen_presburger::{Map, Set, UnionMap, UnionSet};
use pollen_scop::{Access, AccessKind, Array, Band, Node, ScheduleTree, Scop, Statement};

/// One statement of a hand-built scop: name, domain, original schedule (all of the same
/// length), accesses as `(is_write, relation)`.
pub struct Stmt<'a> {
    pub domain: &'a str,
    pub schedule: &'a str,
    pub accesses: &'a [(bool, &'a str)],
}

/// A scop from statements (names are taken from the domains' tuples).
pub fn scop(params: &[&str], context: &str, stmts: &[Stmt]) -> Scop {
    let params: Vec<String> = params.iter().map(|p| p.to_string()).collect();
    let context: Set = context.parse().expect("context");
    let mut arrays: Vec<Array> = Vec::new();
    let mut statements = Vec::new();
    let mut sched = UnionMap::empty(params.clone());
    let mut domains = UnionSet::empty(params.clone());
    let mut n_out = 0;
    for st in stmts {
        let domain: Set = st.domain.parse().expect("domain");
        let domain = domain.align_params(&params).expect("params");
        let name = domain
            .space()
            .range_tuple()
            .and_then(|t| t.name())
            .expect("named domain")
            .to_string();
        let iterators = (0..domain.n_dims()).map(|k| format!("i{k}")).collect();
        let mut accesses = Vec::new();
        for (write, text) in st.accesses {
            let relation: Map = text.parse().expect("access");
            let relation = relation.align_params(&params).expect("params");
            let array = relation
                .space()
                .range_tuple()
                .and_then(|t| t.name())
                .expect("named array")
                .to_string();
            let n = relation.space().n_out();
            if !arrays.iter().any(|a| a.name == array) {
                arrays.push(Array {
                    name: array.clone(),
                    element_type: "double".into(),
                    extents: vec!["N".into(); n],
                    local: false,
                });
            }
            accesses.push(Access {
                kind: if *write {
                    AccessKind::Write
                } else {
                    AccessKind::Read
                },
                array,
                relation,
            });
        }
        let s: Map = st.schedule.parse().expect("schedule");
        n_out = s.space().n_out();
        sched
            .add_map(s.align_params(&params).expect("params"))
            .expect("add");
        domains.add_set(domain.clone()).expect("add");
        statements.push(Statement {
            name,
            domain,
            iterators,
            accesses,
            body: String::new(),
        });
    }
    let schedule = ScheduleTree {
        root: Node::Domain {
            domain: domains,
            child: Box::new(Node::Band(Band {
                schedule: sched,
                permutable: false,
                coincident: vec![false; n_out],
                child: Box::new(Node::Leaf),
            })),
        },
    };
    Scop {
        params,
        context,
        arrays,
        statements,
        schedule,
    }
}

/// The original schedule map of a statement (from the scop's single band).
fn original(scop: &Scop, name: &str) -> Map {
    let Node::Domain { child, .. } = &scop.schedule.root else {
        panic!("no domain")
    };
    let Node::Band(b) = &**child else {
        panic!("no band")
    };
    b.schedule
        .maps()
        .find(|m| m.space().domain_tuple().and_then(|t| t.name()) == Some(name))
        .expect("scheduled")
        .clone()
}

/// Memory-based dependences: every pair of accesses to one element, at least one a
/// write, the source first in the original schedule.
pub fn memory_deps(scop: &Scop) -> Vec<Dependence> {
    let mut out = Vec::new();
    for s in &scop.statements {
        for t in &scop.statements {
            let (ts, tt) = (original(scop, &s.name), original(scop, &t.name));
            let space = ts.range().space().clone();
            let before = ts
                .apply_range(&Map::lex_lt(&space, true))
                .and_then(|m| m.apply_range(&tt.reverse()))
                .expect("order");
            for a in &s.accesses {
                for b in &t.accesses {
                    if a.array != b.array
                        || (a.kind == AccessKind::Read && b.kind == AccessKind::Read)
                    {
                        continue;
                    }
                    let kind = match (a.kind, b.kind) {
                        (AccessKind::Write, AccessKind::Read) => DepKind::Flow,
                        (AccessKind::Read, AccessKind::Write) => DepKind::Anti,
                        _ => DepKind::Output,
                    };
                    let ra = a.relation.intersect_domain(s.domain.as_map()).expect("dom");
                    let rb = b.relation.intersect_domain(t.domain.as_map()).expect("dom");
                    let same = ra.apply_range(&rb.reverse()).expect("same element");
                    let rel = same.intersect(&before).expect("ordered");
                    let rel = rel
                        .intersect_params(scop.context.as_map())
                        .expect("context")
                        .coalesce()
                        .expect("coalesce");
                    if rel.is_empty().expect("empty") {
                        continue;
                    }
                    out.push(Dependence {
                        kind,
                        array: a.array.clone(),
                        source: s.name.clone(),
                        target: t.name.clone(),
                        relation: rel,
                    });
                }
            }
        }
    }
    out
}

/// Whether the tree passes the independent legality checker (dependences and band
/// annotations); violations are printed.
pub fn is_legal(tree: &ScheduleTree, deps: &[Dependence]) -> bool {
    let report = pollen_sched::legality::check(deps, tree).expect("legality check");
    for v in &report.violations {
        eprintln!("violation: {v:?}");
    }
    report.is_legal()
}

pub use pollen_testkit::bands;

/// Whether a band's schedule equals the union map given in text.
pub fn band_is(band: &Band, text: &str) -> bool {
    let want = parse_union_map(text).expect("union map");
    band.schedule.is_equal(&want).expect("compare")
}

/// A short structural description of a tree: `B3(ttf)` for a band of three members
/// (coincidence per member), `Q[..]` for a sequence, `F{S0,S1}` for filters.
pub fn shape(tree: &ScheduleTree) -> String {
    fn visit(n: &Node) -> String {
        match n {
            Node::Domain { child, .. } => visit(child),
            Node::Band(b) => {
                let flags: String = b
                    .coincident
                    .iter()
                    .map(|&c| if c { 't' } else { 'f' })
                    .collect();
                let child = visit(&b.child);
                if child.is_empty() {
                    format!("B{}({flags})", b.n_members())
                } else {
                    format!("B{}({flags}) {child}", b.n_members())
                }
            }
            Node::Sequence(cs) => {
                let parts: Vec<String> = cs.iter().map(visit).collect();
                format!("Q[{}]", parts.join(" | "))
            }
            Node::Filter { filter, child } => {
                let mut names: Vec<String> = filter
                    .sets()
                    .map(|s| {
                        s.space()
                            .range_tuple()
                            .and_then(|t| t.name())
                            .unwrap_or("?")
                            .to_string()
                    })
                    .collect();
                names.sort();
                let inner = visit(child);
                if inner.is_empty() {
                    format!("{{{}}}", names.join(","))
                } else {
                    format!("{{{}}} {inner}", names.join(","))
                }
            }
            Node::Leaf => String::new(),
            other => format!("<{}>", other.kind_name()),
        }
    }
    visit(&tree.root)
}
