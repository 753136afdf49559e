//! Tests of the text form of scops and schedule trees: round trips of hand-built scops,
//! error positions, and parsing arbitrary or mutated text without panicking.

use pollen_presburger::{Map, Set, UnionMap, UnionSet};
use pollen_scop::text::{parse, parse_schedule_tree, print};
use pollen_scop::{Access, AccessKind, Array, Band, Error, Node, ScheduleTree, Scop, Statement};
use quickcheck::{Gen, QuickCheck, TestResult};

// ---------------------------------------------------------------------------------------
// Building scops by hand
// ---------------------------------------------------------------------------------------

fn set(text: &str) -> Set {
    text.parse().expect("test set")
}

fn map(text: &str) -> Map {
    text.parse().expect("test map")
}

fn uset(text: &str) -> UnionSet {
    pollen_presburger::text::parse_union_set(text).expect("test union set")
}

fn umap(text: &str) -> UnionMap {
    pollen_presburger::text::parse_union_map(text).expect("test union map")
}

fn array(name: &str, element_type: &str, extents: &[&str]) -> Array {
    Array {
        name: name.into(),
        element_type: element_type.into(),
        extents: extents.iter().map(|e| e.to_string()).collect(),
        local: false,
    }
}

fn access(kind: AccessKind, relation: &str) -> Access {
    let relation = map(relation);
    let array = relation
        .space()
        .range_tuple()
        .and_then(|t| t.name())
        .expect("named array")
        .to_string();
    Access {
        kind,
        array,
        relation,
    }
}

fn read(relation: &str) -> Access {
    access(AccessKind::Read, relation)
}

fn write(relation: &str) -> Access {
    access(AccessKind::Write, relation)
}

fn statement(
    name: &str,
    iterators: &[&str],
    domain: &str,
    body: &str,
    accesses: Vec<Access>,
) -> Statement {
    Statement {
        name: name.into(),
        domain: set(domain),
        iterators: iterators.iter().map(|i| i.to_string()).collect(),
        accesses,
        body: body.into(),
    }
}

fn band(schedule: &str, permutable: bool, coincident: &[bool], child: Node) -> Node {
    Node::Band(Band {
        schedule: umap(schedule),
        permutable,
        coincident: coincident.to_vec(),
        child: Box::new(child),
    })
}

fn filter(filter: &str, child: Node) -> Node {
    Node::filter(uset(filter), child)
}

fn domain(domain: &str, child: Node) -> ScheduleTree {
    ScheduleTree {
        root: Node::Domain {
            domain: uset(domain),
            child: Box::new(child),
        },
    }
}

/// PolyBench's gemm: `C[i][j] *= beta` then `C[i][j] += alpha * A[i][k] * B[k][j]` over k,
/// with the scalars `alpha` and `beta`.
fn gemm() -> Scop {
    let p = "[NI, NJ, NK] -> ";
    let d0 = format!("{p}{{ S0[i, j] : 0 <= i < NI and 0 <= j < NJ }}");
    let d1 = format!("{p}{{ S1[i, j, k] : 0 <= i < NI and 0 <= j < NJ and 0 <= k < NK }}");
    let s0 = statement(
        "S0",
        &["i", "j"],
        &d0,
        "C[i][j] *= beta;",
        vec![
            read(&format!("{p}{{ S0[i, j] -> C[i, j] }}")),
            read(&format!("{p}{{ S0[i, j] -> beta[] }}")),
            write(&format!("{p}{{ S0[i, j] -> C[i, j] }}")),
        ],
    );
    let s1 = statement(
        "S1",
        &["i", "j", "k"],
        &d1,
        "C[i][j] += alpha * A[i][k] * B[k][j];",
        vec![
            read(&format!("{p}{{ S1[i, j, k] -> C[i, j] }}")),
            read(&format!("{p}{{ S1[i, j, k] -> alpha[] }}")),
            read(&format!("{p}{{ S1[i, j, k] -> A[i, k] }}")),
            read(&format!("{p}{{ S1[i, j, k] -> B[k, j] }}")),
            write(&format!("{p}{{ S1[i, j, k] -> C[i, j] }}")),
        ],
    );
    let inner = Node::Sequence(vec![
        filter(&format!("{p}{{ S0[i, j] }}"), Node::Leaf),
        filter(
            &format!("{p}{{ S1[i, j, k] }}"),
            band(
                &format!("{p}{{ S1[i, j, k] -> [k] }}"),
                false,
                &[false],
                Node::Leaf,
            ),
        ),
    ]);
    let tree = domain(
        &format!("{p}{{ S0[i, j] : 0 <= i < NI and 0 <= j < NJ; S1[i, j, k] : 0 <= i < NI and 0 <= j < NJ and 0 <= k < NK }}"),
        band(
            &format!("{p}{{ S0[i, j] -> [i, j]; S1[i, j, k] -> [i, j] }}"),
            true,
            &[true, true],
            inner,
        ),
    );
    Scop {
        params: vec!["NI".into(), "NJ".into(), "NK".into()],
        context: set(&format!("{p}{{ : NI >= 1 and NJ >= 1 and NK >= 1 }}")),
        arrays: vec![
            array("C", "DATA_TYPE", &["NI", "NJ"]),
            array("A", "DATA_TYPE", &["NI", "NK"]),
            array("B", "DATA_TYPE", &["NK", "NJ"]),
            array("alpha", "DATA_TYPE", &[]),
            array("beta", "DATA_TYPE", &[]),
        ],
        statements: vec![s0, s1],
        schedule: tree,
    }
}

/// A guarded statement whose body and extents need quoting, and a parameter-free scalar
/// statement.
fn guarded() -> Scop {
    let p = "[N] -> ";
    let s0 = statement(
        "S0",
        &["i"],
        &format!("{p}{{ S0[i] : 0 <= i < N and i mod 3 = 1 and 2i >= N }}"),
        "if (x[i] > 0)\n\tprintf(\"%d\\n\", x[i]); /* \"q\" \\ */",
        vec![read(&format!("{p}{{ S0[i] -> x[i + 1] }}"))],
    );
    let s1 = statement(
        "S1",
        &[],
        &format!("{p}{{ S1[] }}"),
        "s = 0;",
        vec![write(&format!("{p}{{ S1[] -> s[] }}"))],
    );
    let tree = domain(
        &format!("{p}{{ S0[i] : 0 <= i < N and i mod 3 = 1 and 2i >= N; S1[] }}"),
        Node::Sequence(vec![
            filter(&format!("{p}{{ S1[] }}"), Node::Leaf),
            filter(
                &format!("{p}{{ S0[i] }}"),
                band(&format!("{p}{{ S0[i] -> [i] }}"), true, &[true], Node::Leaf),
            ),
        ]),
    );
    Scop {
        params: vec!["N".into()],
        context: set(&format!("{p}{{ : N >= 0 }}")),
        arrays: vec![
            array("x", "unsigned long", &["N + 1"]),
            array("w", "char", &["(N, 2)[0]", "", " padded "]),
            array("s", "struct \"odd\" t", &[]),
        ],
        statements: vec![s1, s0],
        schedule: tree,
    }
}

/// A loop that runs backwards: `for (i = N - 1; i >= 0; i--)`, scheduled by `[-i]`.
fn decreasing() -> Scop {
    let p = "[N] -> ";
    let s0 = statement(
        "S0",
        &["i"],
        &format!("{p}{{ S0[i] : 0 <= i < N }}"),
        "A[i] = A[i + 1];",
        vec![
            read(&format!("{p}{{ S0[i] -> A[i + 1] }}")),
            write(&format!("{p}{{ S0[i] -> A[i] }}")),
        ],
    );
    let tree = domain(
        &format!("{p}{{ S0[i] : 0 <= i < N }}"),
        band(
            &format!("{p}{{ S0[i] -> [-i] }}"),
            false,
            &[false],
            Node::Leaf,
        ),
    );
    Scop {
        params: vec!["N".into()],
        context: set(&format!("{p}{{ : N >= 1 }}")),
        arrays: vec![array("A", "float", &["N + 1"])],
        statements: vec![s0],
        schedule: tree,
    }
}

/// A tree with a context, a mark, an extension, a set node and a zero-member band.
fn annotated() -> Scop {
    let p = "[N] -> ";
    let s0 = statement(
        "S0",
        &["i"],
        &format!("{p}{{ S0[i] : 0 <= i < N }}"),
        "A[i] = 0;",
        vec![write(&format!("{p}{{ S0[i] -> A[i] }}"))],
    );
    let s1 = statement(
        "S1",
        &["i"],
        &format!("{p}{{ S1[i] : 0 <= i < N }}"),
        "B[i] = 1;",
        vec![write(&format!("{p}{{ S1[i] -> B[i] }}"))],
    );
    let set_node = Node::Set(vec![
        filter(&format!("{p}{{ S0[i] }}"), Node::Leaf),
        filter(
            &format!("{p}{{ S1[i]; C[t, i] }}"),
            band(
                &format!("{p}{{ S1[i] -> []; C[t, i] -> [] }}"),
                false,
                &[],
                Node::Leaf,
            ),
        ),
    ]);
    let extension = Node::Extension {
        extension: umap(&format!(
            "{p}{{ [t] -> C[t, i] : 0 <= i < 4 and 0 <= t < N }}"
        )),
        child: Box::new(set_node),
    };
    let mark = Node::Mark {
        name: "tile \"loop\"".into(),
        child: Box::new(band(
            &format!("{p}{{ S0[i] -> [floor(i/32)]; S1[i] -> [floor(i/32)] }}"),
            true,
            &[true],
            extension,
        )),
    };
    let context = Node::Context {
        context: set(&format!("{p}{{ : N <= 1000 }}")),
        child: Box::new(mark),
    };
    Scop {
        params: vec!["N".into()],
        context: set(&format!("{p}{{ : N >= 1 }}")),
        arrays: vec![array("A", "int", &["N"]), array("B", "int", &["N"])],
        statements: vec![s0, s1],
        schedule: domain(
            &format!("{p}{{ S0[i] : 0 <= i < N; S1[i] : 0 <= i < N }}"),
            context,
        ),
    }
}

/// A scop without parameters, arrays or accesses.
fn bare() -> Scop {
    Scop {
        params: Vec::new(),
        context: set("{ : }"),
        arrays: Vec::new(),
        statements: vec![statement("S0", &[], "{ S0[] }", "", Vec::new())],
        schedule: domain("{ S0[] }", Node::Leaf),
    }
}

// ---------------------------------------------------------------------------------------
// Semantic comparison
// ---------------------------------------------------------------------------------------

fn assert_sets(a: &Set, b: &Set, what: &str) {
    assert!(a.is_equal(b).expect("comparable"), "{what}: {a} != {b}");
}

fn assert_maps(a: &Map, b: &Map, what: &str) {
    assert!(a.is_equal(b).expect("comparable"), "{what}: {a} != {b}");
}

fn assert_union_sets(a: &UnionSet, b: &UnionSet, what: &str) {
    assert!(a.is_equal(b).expect("comparable"), "{what}: {a} != {b}");
}

fn assert_union_maps(a: &UnionMap, b: &UnionMap, what: &str) {
    assert!(a.is_equal(b).expect("comparable"), "{what}: {a} != {b}");
}

/// Whether two trees have the same shape, flags, names and equal sets and maps.
fn assert_same_node(a: &Node, b: &Node) {
    assert_eq!(a.kind_name(), b.kind_name());
    match (a, b) {
        (Node::Domain { domain: x, .. }, Node::Domain { domain: y, .. })
        | (Node::Filter { filter: x, .. }, Node::Filter { filter: y, .. }) => {
            assert_union_sets(x, y, a.kind_name())
        }
        (Node::Context { context: x, .. }, Node::Context { context: y, .. }) => {
            assert_sets(x, y, "context node")
        }
        (Node::Band(x), Node::Band(y)) => {
            assert_union_maps(&x.schedule, &y.schedule, "band");
            assert_eq!(x.permutable, y.permutable);
            assert_eq!(x.coincident, y.coincident);
        }
        (Node::Mark { name: x, .. }, Node::Mark { name: y, .. }) => assert_eq!(x, y),
        (Node::Extension { extension: x, .. }, Node::Extension { extension: y, .. }) => {
            assert_union_maps(x, y, "extension")
        }
        _ => {}
    }
    let (ca, cb) = (a.children(), b.children());
    assert_eq!(ca.len(), cb.len(), "children of a {}", a.kind_name());
    for (x, y) in ca.into_iter().zip(cb) {
        assert_same_node(x, y);
    }
}

fn assert_same_scop(a: &Scop, b: &Scop) {
    assert_eq!(a.params, b.params);
    assert_sets(&a.context, &b.context, "context");
    assert_eq!(
        a.context.space().param_names(),
        b.context.space().param_names()
    );
    assert_eq!(a.arrays, b.arrays);
    assert_eq!(a.statements.len(), b.statements.len());
    for (s, t) in a.statements.iter().zip(&b.statements) {
        assert_eq!(s.name, t.name);
        assert_eq!(s.iterators, t.iterators);
        assert_eq!(s.body, t.body);
        assert_sets(&s.domain, &t.domain, &s.name);
        assert_eq!(
            s.domain.space().param_names(),
            t.domain.space().param_names()
        );
        assert_eq!(s.accesses.len(), t.accesses.len());
        for (x, y) in s.accesses.iter().zip(&t.accesses) {
            assert_eq!(x.kind, y.kind);
            assert_eq!(x.array, y.array);
            assert_maps(&x.relation, &y.relation, &s.name);
        }
    }
    assert_same_node(&a.schedule.root, &b.schedule.root);
}

/// Prints, parses back, compares, and checks that printing is stable.
fn round_trip(scop: &Scop) -> String {
    scop.validate().expect("the hand-built scop is valid");
    let text = print(scop);
    let back = parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_same_scop(scop, &back);
    assert_eq!(print(&back), text);
    assert_eq!(back.to_string(), text);
    let again: Scop = text.parse().expect("FromStr");
    assert_same_scop(scop, &again);
    text
}

// ---------------------------------------------------------------------------------------
// Round trips
// ---------------------------------------------------------------------------------------

#[test]
fn gemm_round_trips() {
    let text = round_trip(&gemm());
    assert!(
        text.starts_with("# pollen scop\nparams: [NI, NJ, NK]\n"),
        "{text}"
    );
    assert!(
        text.contains("  - name: alpha\n    type: DATA_TYPE\n    extents: []\n"),
        "{text}"
    );
    assert!(
        text.contains("      - read: \"[NI, NJ, NK] -> { S0[i, j] -> beta[] }\"\n"),
        "{text}"
    );
    assert!(
        text.contains("    permutable: 1\n    coincident: [ 1, 1 ]\n"),
        "{text}"
    );
    assert!(text.contains("      sequence:\n      - filter: "), "{text}");
}

#[test]
fn guarded_statement_with_quoted_text_round_trips() {
    let text = round_trip(&guarded());
    assert!(
        text.contains(r#"body: "if (x[i] > 0)\n\tprintf(\"%d\\n\", x[i]); /* \"q\" \\ */""#),
        "{text}"
    );
    assert!(
        text.contains(r#"extents: ["(N, 2)[0]", "", " padded "]"#),
        "{text}"
    );
    assert!(text.contains(r#"type: "struct \"odd\" t""#), "{text}");
}

#[test]
fn arrays_of_unknown_type_and_extents_round_trip() {
    let mut scop = decreasing();
    scop.arrays = vec![array("A", "", &[""])];
    let text = round_trip(&scop);
    assert!(
        text.contains("  - name: A\n    type: \"\"\n    extents: [\"\"]\n"),
        "{text}"
    );
}

#[test]
fn local_scalars_round_trip() {
    let mut scop = gemm();
    let alpha = scop.arrays.iter_mut().find(|a| a.name == "alpha");
    alpha.expect("alpha").local = true;
    let text = round_trip(&scop);
    assert!(
        text.contains("  - name: alpha\n    type: DATA_TYPE\n    extents: []\n    local: 1\n"),
        "{text}"
    );
    let back = parse(&text).expect("parses");
    let locals: Vec<bool> = back.arrays.iter().map(|a| a.local).collect();
    let expected: Vec<bool> = scop.arrays.iter().map(|a| a.local).collect();
    assert_eq!(locals, expected);
}

#[test]
fn decreasing_loop_round_trips() {
    let text = round_trip(&decreasing());
    let back = parse(&text).expect("parses");
    let Node::Domain { child, .. } = &back.schedule.root else {
        panic!("domain root");
    };
    let Node::Band(b) = &**child else {
        panic!("band below the domain");
    };
    let expected = umap("[N] -> { S0[i] -> [-i] }");
    assert_union_maps(&b.schedule, &expected, "the band");
    let increasing = umap("[N] -> { S0[i] -> [i] }");
    assert!(!b.schedule.is_equal(&increasing).expect("comparable"));
}

#[test]
fn mark_extension_set_and_context_round_trip() {
    let text = round_trip(&annotated());
    assert!(text.contains("mark: \"tile \\\"loop\\\"\"\n"), "{text}");
    assert!(text.contains("set:\n"), "{text}");
    assert!(
        text.contains("extension: \"[N] -> { [t] -> C[t, i] : "),
        "{text}"
    );
    assert!(text.contains("coincident: [ ]\n"), "{text}");
}

#[test]
fn bare_scop_round_trips() {
    let text = round_trip(&bare());
    assert!(text.contains("params: []\n"), "{text}");
    assert!(text.contains("arrays: []\n"), "{text}");
    assert!(text.contains("accesses: []\n"), "{text}");
    assert!(text.contains("body: \"\"\n"), "{text}");
}

#[test]
fn access_to_a_renamed_array_keeps_its_array() {
    let mut scop = bare();
    scop.arrays.push(array("A", "int", &["4"]));
    scop.statements[0].accesses.push(Access {
        kind: AccessKind::Read,
        array: "A".into(),
        relation: map("{ S0[] -> A[2] }"),
    });
    let text = round_trip(&scop);
    assert!(!text.contains("array:"), "{text}");
    // An access whose relation names another tuple than its array (invalid for
    // `validate`) is still written faithfully.
    scop.statements[0].accesses[0].array = "B".into();
    let printed = print(&scop);
    assert!(printed.contains("        array: B\n"), "{printed}");
    assert!(
        matches!(parse(&printed), Err(Error::Invalid(_))),
        "{printed}"
    );
}

#[test]
fn schedule_trees_round_trip_alone() {
    for scop in [gemm(), guarded(), decreasing(), annotated(), bare()] {
        let text = scop.schedule.to_string();
        let back = parse_schedule_tree(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_same_node(&scop.schedule.root, &back.root);
        assert_eq!(back.to_string(), text);
        let again: ScheduleTree = text.parse().expect("FromStr");
        assert_same_node(&scop.schedule.root, &again.root);
    }
    let leaf: ScheduleTree = "leaf\n".parse().expect("a lone leaf");
    assert!(matches!(leaf.root, Node::Leaf));
    assert_eq!(leaf.to_string(), "leaf\n");
}

#[test]
fn tree_text_follows_isl_block_style() {
    let tree = domain(
        "[N] -> { S0[i, j] : 0 <= i < N and 0 <= j < N; S1[i] : 0 <= i < N }",
        Node::Sequence(vec![
            filter(
                "[N] -> { S0[i, j] }",
                band(
                    "[N] -> { S0[i, j] -> [i, j] }",
                    true,
                    &[true, false],
                    Node::Leaf,
                ),
            ),
            filter("{ S1[i] }", Node::Leaf),
        ]),
    );
    let expected = "\
domain: \"[N] -> { S0[i, j] : 0 <= i < N and 0 <= j < N; S1[i] : 0 <= i < N }\"
child:
  sequence:
  - filter: \"[N] -> { S0[i, j] }\"
    child:
      schedule: \"[N] -> { S0[i, j] -> [i, j] }\"
      permutable: 1
      coincident: [ 1, 0 ]
  - filter: \"{ S1[i] }\"
";
    assert_eq!(tree.to_string(), expected);
}

#[test]
fn hand_written_text_is_read() {
    let text = r#"
# gemm, written by hand, with comments and indented lists in both styles
params: [N]
context: "[N] -> { : N >= 1 }"

arrays:
- name: A
  type: double
  extents: [ N , "N" ]
statements:
    - name: S0
      iterators: [ i ]
      # a comment inside a block
      domain: "[N] -> { S0[i] : 0 <= i < N }"
      body: A[i][i] = 0;
      accesses:
      - write: "[N] -> { S0[i] -> A[i, i] }"
schedule:
  domain: "[N] -> { S0[i] : 0 <= i < N }"
  child:
    schedule: "[N] -> { S0[i] -> [i] }"
    coincident: [1]
"#;
    let scop = parse(text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        scop.arrays[0].extents,
        vec!["N".to_string(), "N".to_string()]
    );
    assert_eq!(scop.statements[0].body, "A[i][i] = 0;");
    assert_eq!(scop.statements[0].accesses[0].kind, AccessKind::Write);
    assert_eq!(scop.statements[0].accesses[0].array, "A");
    let Node::Domain { child, .. } = &scop.schedule.root else {
        panic!("domain root");
    };
    let Node::Band(b) = &**child else {
        panic!("band");
    };
    assert!(!b.permutable);
    assert_eq!(b.coincident, vec![true]);
}

// ---------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------

/// The 1-based line and column of the `nth` occurrence of `needle` in `text`, plus
/// `shift` characters.
fn position_of(text: &str, needle: &str, nth: usize, shift: usize) -> (usize, usize) {
    let offset = text
        .match_indices(needle)
        .nth(nth)
        .unwrap_or_else(|| panic!("{needle} occurs in the text"))
        .0;
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |k| k + 1);
    let column = text[line_start..offset].chars().count() + 1 + shift;
    (line, column)
}

fn parse_error(text: &str) -> (usize, usize, String) {
    match parse(text) {
        Err(Error::Parse {
            line,
            column,
            message,
        }) => (line, column, message),
        other => panic!("expected a parse error, got {other:?}\n{text}"),
    }
}

fn check_error(text: &str, needle: &str, nth: usize, shift: usize, message_part: &str) {
    let (line, column, message) = parse_error(text);
    assert_eq!(
        (line, column),
        position_of(text, needle, nth, shift),
        "{message}\n{text}"
    );
    assert!(message.contains(message_part), "{message}");
}

#[test]
fn isl_errors_point_into_the_whole_text() {
    let good = print(&decreasing());
    // `j` is not declared: the isl parser's position is moved into the text.
    let bad = good.replacen("S0[i] : 0 <= i < N", "S0[i] : 0 <= i < N and j >= 0", 1);
    check_error(&bad, "j >= 0", 0, 0, "");
    // Inside the schedule tree, in the band.
    let bad = good.replace("[-i]", "[-i +]");
    check_error(&bad, "+]", 0, 1, "");
}

#[test]
fn isl_errors_after_escapes_and_newlines() {
    let good = print(&decreasing());
    // An escaped newline splits the isl text over two lines; an escaped quote is a
    // character isl does not know: its error points at the backslash.
    let bad = good.replacen(
        "context: \"[N] -> { : N >= 1 }\"",
        "context: \"[N] -> {\\n : N >= 1 and \\\" }\"",
        1,
    );
    check_error(&bad, "\\\" }", 0, 0, "");
    let bad = good.replacen(
        "context: \"[N] -> { : N >= 1 }\"",
        "context: \"[N] -> {\\n : N >= 1 and M }\"",
        1,
    );
    check_error(&bad, "M }", 0, 2, "comparison");
}

#[test]
fn block_errors_point_at_the_offending_place() {
    let good = print(&gemm());
    // Unterminated string: at its opening quote.
    let bad = good.replacen("body: \"C[i][j] *= beta;\"", "body: \"C[i][j] *= beta;", 1);
    check_error(&bad, "\"C[i][j] *= beta;", 0, 0, "unterminated");
    // Unknown key.
    let bad = good.replacen("    iterators: [i, j]\n", "    iterator: [i, j]\n", 1);
    check_error(&bad, "iterator:", 0, 0, "unknown key");
    // A missing key is reported at the start of its block.
    let bad = good.replacen("    type: DATA_TYPE\n", "", 1);
    check_error(&bad, "name: C", 0, 0, "no 'type'");
    // Deeper indentation than the block's.
    let bad = good.replacen(
        "    body: \"C[i][j] *= beta;\"",
        "      body: \"C[i][j] *= beta;\"",
        1,
    );
    check_error(&bad, "body: \"C[i][j] *= beta;", 0, 0, "indentation");
    // Unknown escape.
    let bad = good.replacen("*= beta;", "*= \\q beta;", 1);
    check_error(&bad, "\\q", 0, 0, "escape");
    // Text after a quoted value.
    let bad = good.replacen("*= beta;\"", "*= beta;\" x", 1);
    check_error(&bad, "\" x", 0, 2, "unexpected text");
    // A bad flag.
    let bad = good.replacen("permutable: 1", "permutable: yes", 1);
    check_error(&bad, "yes", 0, 0, "0 or 1");
    // Coincident flags that do not match the band's dimensions.
    let bad = good.replacen("coincident: [ 1, 1 ]", "coincident: [ 1 ]", 1);
    check_error(&bad, "[ 1 ]", 0, 0, "coincident");
    // A set where a map is expected.
    let bad = good.replacen(
        "- write: \"[NI, NJ, NK] -> { S0[i, j] -> C[i, j] }\"",
        "- write: \"[NI, NJ, NK] -> { S0[i, j] }\"",
        1,
    );
    check_error(&bad, "\"[NI, NJ, NK] -> { S0[i, j] }\"", 0, 0, "map");
    // A sequence child that is not a filter.
    let bad = good.replacen(
        "    - filter: \"[NI, NJ, NK] -> { S0[i, j] }\"",
        "    - mark: \"m\"",
        1,
    );
    check_error(&bad, "mark", 0, 0, "filter");
    // The context over other parameters.
    let bad = good.replacen(
        "context: \"[NI, NJ, NK] -> { : ",
        "context: \"[NK, NJ, NI] -> { : ",
        1,
    );
    check_error(&bad, "context:", 0, 9, "parameters");
    // Unterminated list.
    let bad = good.replacen("params: [NI, NJ, NK]", "params: [NI, NJ, NK", 1);
    check_error(&bad, "params:", 0, 19, "']'");
    // Tabs in indentation.
    let bad = good.replacen("  - name: C", "\t- name: C", 1);
    check_error(&bad, "\t- name: C", 0, 0, "tab");
    // Empty text.
    assert_eq!(parse_error("").0, 1);
    assert_eq!(parse_error("# only a comment\n\n").0, 1);
}

#[test]
fn invalid_scops_are_refused_by_validate() {
    let good = print(&gemm());
    // The domain of S0 named after another statement.
    let bad = good.replacen(
        "domain: \"[NI, NJ, NK] -> { S0[i, j] :",
        "domain: \"[NI, NJ, NK] -> { S9[i, j] :",
        1,
    );
    assert!(matches!(parse(&bad), Err(Error::Invalid(_))), "{bad}");
    // An undeclared array.
    let bad = good.replacen("  - name: B\n", "  - name: Q\n", 1);
    assert!(matches!(parse(&bad), Err(Error::Invalid(_))), "{bad}");
    // More iterators than dimensions.
    let bad = good.replacen("iterators: [i, j]", "iterators: [i, j, k]", 1);
    assert!(matches!(parse(&bad), Err(Error::Invalid(_))), "{bad}");
    // A local array needs every extent (a scalar expansion's array has them).
    let local = good.replacen(
        "    extents: [NI, NK]\n",
        "    extents: [NI, NK]\n    local: 1\n",
        1,
    );
    assert!(local != good, "the gemm text has A's extents");
    assert!(parse(&local).is_ok(), "{local}");
    let bad = good.replacen(
        "    extents: [NI, NK]\n",
        "    extents: [NI, \"\"]\n    local: 1\n",
        1,
    );
    assert!(matches!(parse(&bad), Err(Error::Invalid(_))), "{bad}");
}

// ---------------------------------------------------------------------------------------
// Never panic
// ---------------------------------------------------------------------------------------

/// A runner with a fixed seed (`POLLEN_QC_SEED=<n>` explores others).
fn seeded(tests: u64) -> QuickCheck {
    let seed = std::env::var("POLLEN_QC_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x5eed_2024_u64);
    QuickCheck::new()
        .rng(Gen::from_size_and_seed(100, seed))
        .tests(tests)
        .max_tests(tests * 10)
}

fn parses_without_panic(text: String) -> TestResult {
    let _ = parse(&text);
    let _ = parse_schedule_tree(&text);
    TestResult::passed()
}

#[test]
fn arbitrary_strings_do_not_panic() {
    seeded(3000).quickcheck(parses_without_panic as fn(String) -> TestResult);
}

/// Characters that matter to the format, for mutations.
const SPECIAL: &[char] = &[
    ' ', '-', ':', '"', '\\', '[', ']', ',', '#', '\n', '\t', '{', '}', ';', '0', '1', 'x', 'é',
];

/// Applies one edit, chosen by `kind`, at the character position `at` of `text`.
fn mutate(text: &str, kind: u8, at: usize, pick: usize) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    let at = at % (chars.len() + 1);
    let c = SPECIAL[pick % SPECIAL.len()];
    match kind % 6 {
        0 if at < chars.len() => {
            chars.remove(at);
        }
        1 => chars.insert(at, c),
        2 if at < chars.len() => chars[at] = c,
        3 => {
            // Duplicate or drop a line.
            let mut lines: Vec<&str> = text.lines().collect();
            if !lines.is_empty() {
                let k = at % lines.len();
                if pick % 2 == 1 {
                    lines.remove(k);
                } else {
                    lines.insert(k, lines[k]);
                }
            }
            return lines.join("\n");
        }
        4 => {
            // Truncate.
            chars.truncate(at);
        }
        _ => {
            // Swap two lines.
            let mut lines: Vec<&str> = text.lines().collect();
            if lines.len() > 1 {
                let (a, b) = (at % lines.len(), pick % lines.len());
                lines.swap(a, b);
            }
            return lines.join("\n");
        }
    }
    chars.into_iter().collect()
}

fn mutated_text_parses_without_panic(edits: Vec<(u8, usize, usize)>) -> TestResult {
    let sources = [print(&gemm()), print(&annotated()), print(&guarded())];
    let mut text = sources[edits.len() % sources.len()].clone();
    for (kind, at, pick) in edits.iter().take(4) {
        text = mutate(&text, *kind, *at, *pick);
    }
    let _ = parse(&text);
    TestResult::passed()
}

#[test]
fn mutated_texts_do_not_panic() {
    seeded(1000)
        .quickcheck(mutated_text_parses_without_panic as fn(Vec<(u8, usize, usize)>) -> TestResult);
}
