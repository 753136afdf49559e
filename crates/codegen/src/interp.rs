//! An interpreter of the loop AST: the sequence of statement instances a generated
//! program executes for given parameter values.
//!
//! Arithmetic is exact ([`Int`]); the values handed back must fit in 64 bits. Every loop
//! iteration, every test and every statement instance is one step; a run stops with
//! [`Error::StepLimit`] once the limit is passed, so that a wrong bound cannot make a
//! test hang.

use std::collections::BTreeMap;

use pollen_arith::Int;

use crate::ast::{Ast, Cond, Expr, Loop};
use crate::error::{Error, Result};

/// The step limit of [`interpret`].
pub const DEFAULT_STEP_LIMIT: u64 = 50_000_000;

/// One executed statement instance: the statement's name and its iterators' values.
pub type Instance = (String, Vec<i64>);

/// The statement instances `ast` executes, in order, for the given parameter values,
/// within [`DEFAULT_STEP_LIMIT`] steps.
pub fn interpret(ast: &Ast, params: &[(String, i64)]) -> Result<Vec<Instance>> {
    interpret_with_limit(ast, params, DEFAULT_STEP_LIMIT)
}

/// [`interpret`] with an explicit step limit.
pub fn interpret_with_limit(
    ast: &Ast,
    params: &[(String, i64)],
    limit: u64,
) -> Result<Vec<Instance>> {
    let mut run = Run {
        env: params
            .iter()
            .map(|(n, v)| (n.clone(), vec![Int::from(*v)]))
            .collect(),
        steps: 0,
        limit,
        trace: Vec::new(),
    };
    run.exec(ast)?;
    Ok(run.trace)
}

/// The state of one interpretation.
struct Run {
    /// Each name's bindings, innermost last (loops may shadow parameters).
    env: BTreeMap<String, Vec<Int>>,
    steps: u64,
    limit: u64,
    trace: Vec<Instance>,
}

impl Run {
    fn step(&mut self) -> Result<()> {
        self.steps += 1;
        if self.steps > self.limit {
            return Err(Error::StepLimit(self.limit));
        }
        Ok(())
    }

    fn exec(&mut self, ast: &Ast) -> Result<()> {
        match ast {
            Ast::Block(children) => children.iter().try_for_each(|c| self.exec(c)),
            Ast::For(l) => self.exec_loop(l),
            Ast::If {
                cond,
                then,
                otherwise,
            } => {
                self.step()?;
                if self.test(cond)? {
                    self.exec(then)
                } else if let Some(o) = otherwise {
                    self.exec(o)
                } else {
                    Ok(())
                }
            }
            Ast::User { statement, args } => {
                self.step()?;
                let values = args
                    .iter()
                    .map(|a| self.eval(a)?.to_i64().ok_or(Error::Overflow))
                    .collect::<Result<Vec<i64>>>()?;
                self.trace.push((statement.clone(), values));
                Ok(())
            }
        }
    }

    fn exec_loop(&mut self, l: &Loop) -> Result<()> {
        if !l.stride.is_positive() {
            return Err(Error::InvalidAst(format!(
                "loop {} has stride {}",
                l.iterator, l.stride
            )));
        }
        let mut value = self.eval(&l.lower)?;
        let upper = self.eval(&l.upper)?;
        self.env
            .entry(l.iterator.clone())
            .or_default()
            .push(Int::zero());
        let result = (|| {
            while value <= upper {
                self.step()?;
                if let Some(slot) = self.env.get_mut(&l.iterator).and_then(|v| v.last_mut()) {
                    *slot = value.clone();
                }
                self.exec(&l.body)?;
                value = &value + &l.stride;
            }
            Ok(())
        })();
        if let Some(v) = self.env.get_mut(&l.iterator) {
            v.pop();
        }
        result
    }

    fn test(&mut self, c: &Cond) -> Result<bool> {
        Ok(match c {
            Cond::NonNegative(e) => !self.eval(e)?.is_negative(),
            Cond::Zero(e) => self.eval(e)?.is_zero(),
            Cond::And(v) => {
                for x in v {
                    if !self.test(x)? {
                        return Ok(false);
                    }
                }
                true
            }
            Cond::Or(v) => {
                for x in v {
                    if self.test(x)? {
                        return Ok(true);
                    }
                }
                false
            }
        })
    }

    fn eval(&self, e: &Expr) -> Result<Int> {
        Ok(match e {
            Expr::Int(c) => c.clone(),
            Expr::Var(v) => self
                .env
                .get(v)
                .and_then(|b| b.last())
                .cloned()
                .ok_or_else(|| Error::UnboundVariable(v.clone()))?,
            Expr::Add(v) => {
                let mut s = Int::zero();
                for x in v {
                    s = &s + &self.eval(x)?;
                }
                s
            }
            Expr::Mul(c, x) => c * &self.eval(x)?,
            Expr::FloorDiv(x, d) => self.eval(x)?.floor_div(positive(d)?),
            Expr::CeilDiv(x, d) => self.eval(x)?.ceil_div(positive(d)?),
            Expr::Mod(x, d) => self.eval(x)?.mod_floor(positive(d)?),
            Expr::Min(v) | Expr::Max(v) => {
                let mut best: Option<Int> = None;
                for x in v {
                    let y = self.eval(x)?;
                    best = Some(match best {
                        None => y,
                        Some(b) if matches!(e, Expr::Min(_)) => b.min(y),
                        Some(b) => b.max(y),
                    });
                }
                best.ok_or_else(|| Error::InvalidAst("empty min or max".into()))?
            }
        })
    }
}

fn positive(d: &Int) -> Result<&Int> {
    if d.is_positive() {
        Ok(d)
    } else {
        Err(Error::InvalidAst(format!("division by {d}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn var(s: &str) -> Expr {
        Expr::Var(s.into())
    }

    fn int(v: i64) -> Expr {
        Expr::Int(Int::from(v))
    }

    fn for_loop(it: &str, lower: Expr, upper: Expr, stride: i64, body: Ast) -> Ast {
        Ast::For(Loop {
            iterator: it.into(),
            lower,
            upper,
            stride: Int::from(stride),
            body: Box::new(body),
            parallel: false,
            vectorizable: false,
        })
    }

    #[test]
    fn nested_loops_with_guard_and_stride() {
        // for (c0 = 0; c0 <= N - 1; c0++)
        //   for (c1 = c0; c1 <= N; c1 += 2)
        //     if (c1 mod 4 == 0) S(c0, floord(c1, 4)) else T(c1)
        let body = Ast::If {
            cond: Cond::Zero(Expr::Mod(Box::new(var("c1")), Int::from(4))),
            then: Box::new(Ast::User {
                statement: "S".into(),
                args: vec![var("c0"), Expr::FloorDiv(Box::new(var("c1")), Int::from(4))],
            }),
            otherwise: Some(Box::new(Ast::User {
                statement: "T".into(),
                args: vec![var("c1")],
            })),
        };
        let inner = for_loop("c1", var("c0"), var("N"), 2, body);
        let ast = for_loop("c0", int(0), Expr::Add(vec![var("N"), int(-1)]), 1, inner);
        let trace = interpret(&ast, &[("N".into(), 3)]).unwrap();
        let mut expected = Vec::new();
        for c0 in 0..3i64 {
            let mut c1 = c0;
            while c1 <= 3 {
                if c1 % 4 == 0 {
                    expected.push(("S".to_string(), vec![c0, c1 / 4]));
                } else {
                    expected.push(("T".to_string(), vec![c1]));
                }
                c1 += 2;
            }
        }
        assert_eq!(trace, expected);
    }

    #[test]
    fn errors_are_typed() {
        let user = Ast::User {
            statement: "S".into(),
            args: vec![var("x")],
        };
        assert_eq!(
            interpret(&user, &[]),
            Err(Error::UnboundVariable("x".into()))
        );
        let spin = for_loop("i", int(0), int(1_000_000), 1, Ast::Block(vec![]));
        assert_eq!(
            interpret_with_limit(&spin, &[], 100),
            Err(Error::StepLimit(100))
        );
        let bad = for_loop("i", int(0), int(1), 0, Ast::Block(vec![]));
        assert!(matches!(interpret(&bad, &[]), Err(Error::InvalidAst(_))));
        let floor = Ast::User {
            statement: "S".into(),
            args: vec![
                Expr::FloorDiv(Box::new(int(-7)), Int::from(2)),
                Expr::CeilDiv(Box::new(int(-7)), Int::from(2)),
                Expr::Mod(Box::new(int(-7)), Int::from(2)),
                Expr::Min(vec![int(3), int(-1)]),
                Expr::Max(vec![int(3), int(-1)]),
            ],
        };
        assert_eq!(
            interpret(&floor, &[]).unwrap(),
            vec![("S".to_string(), vec![-4, -3, 1, -1, 3])]
        );
    }
}
