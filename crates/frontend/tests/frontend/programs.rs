//! Random programs against their execution: loop nests with random quasi-affine bounds,
//! strides, decreasing loops, `if`/`else` with random conditions and random subscripts
//! are generated, printed as C, extracted, and executed by a small interpreter with C's
//! semantics. The instances in schedule order must be the executed trace, the domains
//! exactly the executed instances, and every write relation must map each executed
//! instance to the element the interpreter computed.

use pollen_scop::AccessKind;

use crate::common::{accesses_of, assert_trace_with, points, scop, wrap};

/// SplitMix64, so that every run tries the same programs.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as u64) as i64
    }
}

/// A quasi-affine expression over the enclosing iterators and `N`.
enum Aff {
    Const(i64),
    Iter(usize),
    N,
    Add(Box<Aff>, Box<Aff>),
    Sub(Box<Aff>, Box<Aff>),
    Scale(i64, Box<Aff>),
    Div(Box<Aff>, i64),
    Rem(Box<Aff>, i64),
    Min(Box<Aff>, Box<Aff>),
    Max(Box<Aff>, Box<Aff>),
    Floord(Box<Aff>, i64),
    Ceild(Box<Aff>, i64),
}

/// A condition.
enum Cond {
    Cmp(Aff, &'static str, Aff),
    Not(Box<Cond>),
    And(Box<Cond>, Box<Cond>),
    Or(Box<Cond>, Box<Cond>),
}

/// A statement of the generated program.
enum Item {
    Loop {
        depth: usize,
        init: Aff,
        bounds: Vec<(&'static str, Aff)>,
        step: i64,
        step_text: String,
        body: Vec<Item>,
    },
    If {
        cond: Cond,
        then: Vec<Item>,
        els: Option<Vec<Item>>,
    },
    Write {
        id: usize,
        subscript: Aff,
    },
}

struct Generator {
    rng: Rng,
    statements: usize,
}

impl Generator {
    fn aff(&mut self, depth: usize, size: u32) -> Aff {
        let leaf = size == 0 || self.rng.below(3) == 0;
        if leaf {
            return match self.rng.below(3) {
                0 => Aff::Const(self.rng.range(-4, 4)),
                1 if depth > 0 => Aff::Iter(self.rng.below(depth as u64) as usize),
                _ => Aff::N,
            };
        }
        let a = Box::new(self.aff(depth, size - 1));
        let divisor = [-3, -2, 2, 3, 4][self.rng.below(5) as usize];
        match self.rng.below(10) {
            0 => Aff::Add(a, Box::new(self.aff(depth, size - 1))),
            1 => Aff::Sub(a, Box::new(self.aff(depth, size - 1))),
            2 => Aff::Scale(self.rng.range(-2, 2), a),
            3 => Aff::Div(a, divisor),
            4 => Aff::Rem(a, divisor),
            5 => Aff::Min(a, Box::new(self.aff(depth, size - 1))),
            6 => Aff::Max(a, Box::new(self.aff(depth, size - 1))),
            7 => Aff::Floord(a, divisor.abs()),
            8 => Aff::Ceild(a, divisor.abs()),
            _ => Aff::Add(a, Box::new(Aff::Const(self.rng.range(-3, 3)))),
        }
    }

    fn cond(&mut self, depth: usize, size: u32) -> Cond {
        if size == 0 || self.rng.below(2) == 0 {
            let op = ["<", "<=", ">", ">=", "==", "!="][self.rng.below(6) as usize];
            return Cond::Cmp(self.aff(depth, 2), op, self.aff(depth, 2));
        }
        match self.rng.below(3) {
            0 => Cond::Not(Box::new(self.cond(depth, size - 1))),
            1 => Cond::And(
                Box::new(self.cond(depth, size - 1)),
                Box::new(self.cond(depth, size - 1)),
            ),
            _ => Cond::Or(
                Box::new(self.cond(depth, size - 1)),
                Box::new(self.cond(depth, size - 1)),
            ),
        }
    }

    fn items(&mut self, depth: usize) -> Vec<Item> {
        let n = 1 + self.rng.below(if depth == 0 { 3 } else { 2 });
        (0..n).map(|_| self.item(depth)).collect()
    }

    fn item(&mut self, depth: usize) -> Item {
        match self.rng.below(5) {
            0 | 1 if depth < 3 => {
                let step = [1, 1, 1, 2, 3, -1, -1, -2][self.rng.below(8) as usize];
                let name = format!("i{depth}");
                let step_text = match (step, self.rng.below(3)) {
                    (1, 0) => format!("{name}++"),
                    (1, 1) => format!("++{name}"),
                    (-1, 0) => format!("{name}--"),
                    (-1, _) => format!("--{name}"),
                    (s, 2) if s > 0 => format!("{name} = {name} + {s}"),
                    (s, _) if s > 0 => format!("{name} += {s}"),
                    (s, _) => format!("{name} -= {}", -s),
                };
                let ops: [&str; 2] = if step > 0 { ["<", "<="] } else { [">", ">="] };
                let mut bounds = Vec::new();
                for _ in 0..1 + self.rng.below(2) {
                    bounds.push((ops[self.rng.below(2) as usize], self.aff(depth, 2)));
                }
                let init = self.aff(depth, 2);
                let body = self.items(depth + 1);
                Item::Loop {
                    depth,
                    init,
                    bounds,
                    step,
                    step_text,
                    body,
                }
            }
            2 => {
                let cond = self.cond(depth, 2);
                let then = self.items(depth);
                let els = if self.rng.below(2) == 0 {
                    Some(self.items(depth))
                } else {
                    None
                };
                Item::If { cond, then, els }
            }
            _ => {
                let id = self.statements;
                self.statements += 1;
                Item::Write {
                    id,
                    subscript: self.aff(depth, 3),
                }
            }
        }
    }
}

/// The C text of an expression (fully parenthesised).
fn aff_text(a: &Aff) -> String {
    match a {
        Aff::Const(c) if *c < 0 => format!("({c})"),
        Aff::Const(c) => c.to_string(),
        Aff::Iter(k) => format!("i{k}"),
        Aff::N => "N".to_string(),
        Aff::Add(a, b) => format!("({} + {})", aff_text(a), aff_text(b)),
        Aff::Sub(a, b) => format!("({} - {})", aff_text(a), aff_text(b)),
        Aff::Scale(c, a) => format!("({c} * {})", aff_text(a)),
        Aff::Div(a, d) => format!("({} / {d})", aff_text(a)),
        Aff::Rem(a, d) => format!("({} % {d})", aff_text(a)),
        Aff::Min(a, b) => format!("min({}, {})", aff_text(a), aff_text(b)),
        Aff::Max(a, b) => format!("max({}, {})", aff_text(a), aff_text(b)),
        Aff::Floord(a, d) => format!("floord({}, {d})", aff_text(a)),
        Aff::Ceild(a, d) => format!("ceild({}, {d})", aff_text(a)),
    }
}

fn cond_text(c: &Cond) -> String {
    match c {
        Cond::Cmp(a, op, b) => format!("{} {op} {}", aff_text(a), aff_text(b)),
        Cond::Not(c) => format!("!({})", cond_text(c)),
        Cond::And(a, b) => format!("({}) && ({})", cond_text(a), cond_text(b)),
        Cond::Or(a, b) => format!("({}) || ({})", cond_text(a), cond_text(b)),
    }
}

fn items_text(items: &[Item], indent: usize, out: &mut String) {
    let pad = "  ".repeat(indent);
    for it in items {
        match it {
            Item::Loop {
                depth,
                init,
                bounds,
                step_text,
                body,
                ..
            } => {
                let conds: Vec<String> = bounds
                    .iter()
                    .map(|(op, b)| format!("i{depth} {op} {}", aff_text(b)))
                    .collect();
                out.push_str(&format!(
                    "{pad}for (i{depth} = {}; {}; {step_text}) {{\n",
                    aff_text(init),
                    conds.join(" && ")
                ));
                items_text(body, indent + 1, out);
                out.push_str(&format!("{pad}}}\n"));
            }
            Item::If { cond, then, els } => {
                out.push_str(&format!("{pad}if ({}) {{\n", cond_text(cond)));
                items_text(then, indent + 1, out);
                match els {
                    Some(e) => {
                        out.push_str(&format!("{pad}}} else {{\n"));
                        items_text(e, indent + 1, out);
                        out.push_str(&format!("{pad}}}\n"));
                    }
                    None => out.push_str(&format!("{pad}}}\n")),
                }
            }
            Item::Write { subscript, .. } => {
                out.push_str(&format!("{pad}A[{}] = 0;\n", aff_text(subscript)));
            }
        }
    }
}

fn eval(a: &Aff, env: &[i64], n: i64) -> i64 {
    match a {
        Aff::Const(c) => *c,
        Aff::Iter(k) => env[*k],
        Aff::N => n,
        Aff::Add(a, b) => eval(a, env, n) + eval(b, env, n),
        Aff::Sub(a, b) => eval(a, env, n) - eval(b, env, n),
        Aff::Scale(c, a) => c * eval(a, env, n),
        Aff::Div(a, d) => eval(a, env, n) / d,
        Aff::Rem(a, d) => eval(a, env, n) % d,
        Aff::Min(a, b) => eval(a, env, n).min(eval(b, env, n)),
        Aff::Max(a, b) => eval(a, env, n).max(eval(b, env, n)),
        Aff::Floord(a, d) => eval(a, env, n).div_euclid(*d),
        Aff::Ceild(a, d) => -(-eval(a, env, n)).div_euclid(*d),
    }
}

fn holds(c: &Cond, env: &[i64], n: i64) -> bool {
    match c {
        Cond::Cmp(a, op, b) => {
            let (x, y) = (eval(a, env, n), eval(b, env, n));
            match *op {
                "<" => x < y,
                "<=" => x <= y,
                ">" => x > y,
                ">=" => x >= y,
                "==" => x == y,
                _ => x != y,
            }
        }
        Cond::Not(c) => !holds(c, env, n),
        Cond::And(a, b) => holds(a, env, n) && holds(b, env, n),
        Cond::Or(a, b) => holds(a, env, n) || holds(b, env, n),
    }
}

/// One executed write: statement, iterator values, element.
type Event = (usize, Vec<i64>, i64);

/// Runs the items; `false` once the trace, or the number of loop iterations counted in
/// `limit`, grows too large.
fn run(
    items: &[Item],
    env: &mut Vec<i64>,
    n: i64,
    trace: &mut Vec<Event>,
    limit: &mut usize,
) -> bool {
    for it in items {
        match it {
            Item::Loop {
                init,
                bounds,
                step,
                body,
                ..
            } => {
                let mut v = eval(init, env, n);
                loop {
                    env.push(v);
                    let go = bounds.iter().all(|(op, b)| {
                        let b = eval(b, env, n);
                        match *op {
                            "<" => v < b,
                            "<=" => v <= b,
                            ">" => v > b,
                            _ => v >= b,
                        }
                    });
                    let ok = !go || run(body, env, n, trace, limit);
                    env.pop();
                    if !go {
                        break;
                    }
                    if !ok || *limit == 0 {
                        return false;
                    }
                    *limit -= 1;
                    v += step;
                }
            }
            Item::If { cond, then, els } => {
                let branch = if holds(cond, env, n) {
                    Some(then)
                } else {
                    els.as_ref()
                };
                if let Some(b) = branch {
                    if !run(b, env, n, trace, limit) {
                        return false;
                    }
                }
            }
            Item::Write { id, subscript } => {
                trace.push((*id, env.clone(), eval(subscript, env, n)));
                if *limit == 0 {
                    return false;
                }
                *limit -= 1;
            }
        }
    }
    true
}

#[test]
fn random_programs_match_their_execution() {
    let mut checked = 0;
    let mut seed = 0;
    while checked < 30 {
        seed += 1;
        let mut g = Generator {
            rng: Rng(seed),
            statements: 0,
        };
        let items = g.items(0);
        if g.statements == 0 {
            continue;
        }
        let values: Vec<i64> = (-2..=5).collect();
        let mut traces = Vec::new();
        let small = values.iter().all(|&n| {
            let mut trace = Vec::new();
            let ok = run(&items, &mut Vec::new(), n, &mut trace, &mut 400);
            traces.push(trace);
            ok
        });
        if !small {
            continue;
        }
        let mut text = String::new();
        items_text(&items, 0, &mut text);
        let s = scop(&wrap("int i0, i1, i2; double A[1000];", &text));
        let schedule = s.schedule.to_union_map().expect("to_union_map");
        let uses_n = s.params == ["N"];
        assert!(uses_n || s.params.is_empty(), "parameters {:?}", s.params);
        for (&n, trace) in values.iter().zip(&traces) {
            let params = if uses_n { vec![n] } else { Vec::new() };
            let names: Vec<(String, Vec<i64>)> = trace
                .iter()
                .map(|(id, it, _)| (format!("S{id}"), it.clone()))
                .collect();
            let expected: Vec<(&str, Vec<i64>)> =
                names.iter().map(|(s, i)| (s.as_str(), i.clone())).collect();
            assert_trace_with(&s, &schedule, &params, &expected);
            for st in &s.statements {
                let writes = accesses_of(&s, &st.name, AccessKind::Write);
                let used = writes[0]
                    .1
                    .intersect_domain(st.domain.as_map())
                    .expect("intersect");
                let got = points(&used, &params);
                let mut want: Vec<Vec<i64>> = trace
                    .iter()
                    .filter(|(id, _, _)| format!("S{id}") == st.name)
                    .map(|(_, it, element)| {
                        let mut p = it.clone();
                        p.push(*element);
                        p
                    })
                    .collect();
                want.sort();
                assert_eq!(
                    got, want,
                    "elements written by {} at N = {n}\n{text}",
                    st.name
                );
            }
        }
        checked += 1;
    }
}
