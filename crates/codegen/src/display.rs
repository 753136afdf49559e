//! A C-like pseudo-code rendering of the loop AST, for debugging and tests.
//!
//! The real C printer is the emitter's; this one only has to be readable and stable:
//! `floord`, `ceild`, `mod`, `min` and `max` are written as functions, comparisons keep
//! the positive terms on the left, and loops carry a `// parallel` or
//! `// parallel vectorizable` comment after their opening brace.

use std::fmt::{self, Write};

use pollen_arith::Int;

use crate::ast::{Ast, Cond, Expr};
use crate::expr::Linear;

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expr::Int(c) => write!(f, "{c}"),
            Expr::Var(v) => write!(f, "{v}"),
            Expr::Add(v) => {
                for (k, x) in v.iter().enumerate() {
                    let (negative, magnitude) = signed(x);
                    match (k, negative) {
                        (0, true) => write!(f, "-{magnitude}")?,
                        (0, false) => write!(f, "{magnitude}")?,
                        (_, true) => write!(f, " - {magnitude}")?,
                        (_, false) => write!(f, " + {magnitude}")?,
                    }
                }
                Ok(())
            }
            Expr::Mul(c, x) => {
                if (-c).is_one() {
                    write!(f, "-{}", Factor(x))
                } else {
                    write!(f, "{c} * {}", Factor(x))
                }
            }
            Expr::FloorDiv(x, d) => write!(f, "floord({x}, {d})"),
            Expr::CeilDiv(x, d) => write!(f, "ceild({x}, {d})"),
            Expr::Mod(x, d) => write!(f, "mod({x}, {d})"),
            Expr::Min(v) => write_call(f, "min", v),
            Expr::Max(v) => write_call(f, "max", v),
        }
    }
}

/// A term of a sum as its sign and its magnitude's text.
fn signed(x: &Expr) -> (bool, String) {
    match x {
        Expr::Int(c) if c.is_negative() => (true, format!("{}", -c)),
        Expr::Mul(c, y) if c.is_negative() => {
            let m = -c;
            if m.is_one() {
                (true, format!("{}", Factor(y)))
            } else {
                (true, format!("{m} * {}", Factor(y)))
            }
        }
        _ => (false, format!("{x}")),
    }
}

/// An operand of a multiplication, parenthesised when it is a sum.
struct Factor<'a>(&'a Expr);

impl fmt::Display for Factor<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Expr::Add(_) | Expr::Mul(..) => write!(f, "({})", self.0),
            e => write!(f, "{e}"),
        }
    }
}

fn write_call(f: &mut fmt::Formatter<'_>, name: &str, v: &[Expr]) -> fmt::Result {
    write!(f, "{name}(")?;
    for (k, x) in v.iter().enumerate() {
        if k > 0 {
            write!(f, ", ")?;
        }
        write!(f, "{x}")?;
    }
    write!(f, ")")
}

/// `e >= 0` or `e == 0` written as `positive terms  op  the others`.
fn comparison(e: &Expr, op: &str) -> String {
    let l = Linear::of(e);
    let mut left = Linear::default();
    let mut right = Linear {
        constant: -&l.constant,
        terms: Vec::new(),
    };
    for (a, c) in &l.terms {
        if c.is_positive() {
            left.terms.push((a.clone(), c.clone()));
        } else {
            right.terms.push((a.clone(), -c));
        }
    }
    if left.terms.is_empty() {
        // Only negative terms: `-t + k >= 0` reads better as `t <= k`.
        let flipped = match op {
            ">=" => "<=",
            o => o,
        };
        let k = Linear {
            constant: l.constant.clone(),
            terms: Vec::new(),
        };
        let t = Linear {
            constant: Int::zero(),
            terms: right.terms,
        };
        return format!("{} {flipped} {}", t.to_expr(), k.to_expr());
    }
    format!("{} {op} {}", left.to_expr(), right.to_expr())
}

impl fmt::Display for Cond {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cond::NonNegative(e) => write!(f, "{}", comparison(e, ">=")),
            Cond::Zero(e) => write!(f, "{}", comparison(e, "==")),
            Cond::And(v) if v.is_empty() => write!(f, "1"),
            Cond::Or(v) if v.is_empty() => write!(f, "0"),
            Cond::And(v) => write_joined(f, v, " && "),
            Cond::Or(v) => write_joined(f, v, " || "),
        }
    }
}

fn write_joined(f: &mut fmt::Formatter<'_>, v: &[Cond], sep: &str) -> fmt::Result {
    for (k, c) in v.iter().enumerate() {
        if k > 0 {
            write!(f, "{sep}")?;
        }
        match c {
            Cond::And(w) | Cond::Or(w) if w.len() > 1 => write!(f, "({c})")?,
            c => write!(f, "{c}")?,
        }
    }
    Ok(())
}

impl fmt::Display for Ast {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        write_ast(&mut out, self, 0)?;
        f.write_str(&out)
    }
}

fn indent(out: &mut String, depth: usize) {
    for _ in 0..depth {
        out.push_str("  ");
    }
}

fn write_ast(out: &mut String, ast: &Ast, depth: usize) -> fmt::Result {
    match ast {
        Ast::Block(children) => {
            for c in children {
                write_ast(out, c, depth)?;
            }
        }
        Ast::For(l) => {
            indent(out, depth);
            let step = if l.stride.is_one() {
                format!("{}++", l.iterator)
            } else {
                format!("{} += {}", l.iterator, l.stride)
            };
            write!(
                out,
                "for ({it} = {lo}; {it} <= {up}; {step}) {{",
                it = l.iterator,
                lo = l.lower,
                up = l.upper
            )?;
            match (l.parallel, l.vectorizable) {
                (true, true) => out.push_str(" // parallel vectorizable"),
                (true, false) => out.push_str(" // parallel"),
                _ => {}
            }
            out.push('\n');
            write_ast(out, &l.body, depth + 1)?;
            indent(out, depth);
            out.push_str("}\n");
        }
        Ast::If {
            cond,
            then,
            otherwise,
        } => {
            indent(out, depth);
            writeln!(out, "if ({cond}) {{")?;
            write_ast(out, then, depth + 1)?;
            indent(out, depth);
            match otherwise {
                Some(e) => {
                    out.push_str("} else {\n");
                    write_ast(out, e, depth + 1)?;
                    indent(out, depth);
                    out.push_str("}\n");
                }
                None => out.push_str("}\n"),
            }
        }
        Ast::User { statement, args } => {
            indent(out, depth);
            write!(out, "{statement}(")?;
            for (k, a) in args.iter().enumerate() {
                if k > 0 {
                    out.push_str(", ");
                }
                write!(out, "{a}")?;
            }
            out.push_str(");\n");
        }
    }
    Ok(())
}
