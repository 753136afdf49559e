//! Clean-up of a generated AST: nested and empty blocks disappear, guards move out of
//! the loops they do not depend on, and adjacent guards with the same condition merge.
//!
//! Every rewrite preserves the sequence of executed statement instances:
//! - `for (c...) if (a && b) X` with `a` free of `c` (and of nothing bound in the loop)
//!   becomes `if (a) for (c...) if (b) X` — evaluating `a` once instead of in every
//!   iteration is the same, and when `a` fails no iteration executes anything;
//! - `if (a) if (b) X` becomes `if (a && b) X`, and `if (a) X; if (a) Y` becomes
//!   `if (a) { X; Y }` when neither `X` nor `Y` changes a variable of `a` (loops only
//!   bind their own iterators, which are local to them).

use crate::ast::{Ast, Cond};

/// The tidied AST.
pub(crate) fn tidy(ast: Ast) -> Ast {
    match ast {
        Ast::Block(children) => {
            let mut out: Vec<Ast> = Vec::new();
            for c in children {
                match tidy(c) {
                    Ast::Block(inner) => out.extend(inner),
                    c => out.push(c),
                }
            }
            merge_adjacent_guards(out)
        }
        Ast::For(mut l) => {
            let body = tidy(*l.body);
            if is_nothing(&body) {
                return Ast::Block(Vec::new());
            }
            if let Ast::If {
                cond,
                then,
                otherwise: None,
            } = body
            {
                let (outer, inner) = split_invariant(cond, &l.iterator);
                l.body = Box::new(guarded(inner, *then));
                let lp = Ast::For(l);
                return guarded(outer, lp);
            }
            l.body = Box::new(body);
            Ast::For(l)
        }
        Ast::If {
            cond,
            then,
            otherwise,
        } => {
            let then = tidy(*then);
            let otherwise = otherwise.map(|o| tidy(*o)).filter(|o| !is_nothing(o));
            match otherwise {
                None => {
                    if is_nothing(&then) {
                        return Ast::Block(Vec::new());
                    }
                    if let Ast::If {
                        cond: inner,
                        then: body,
                        otherwise: None,
                    } = then
                    {
                        return guarded(conjuncts(vec![cond, inner]), *body);
                    }
                    guarded(conjuncts(vec![cond]), then)
                }
                Some(o) => Ast::If {
                    cond,
                    then: Box::new(then),
                    otherwise: Some(Box::new(o)),
                },
            }
        }
        user => user,
    }
}

/// Whether the AST is an empty block.
fn is_nothing(ast: &Ast) -> bool {
    matches!(ast, Ast::Block(v) if v.is_empty())
}

/// The conjuncts of some conditions, nested conjunctions flattened.
fn conjuncts(conds: Vec<Cond>) -> Vec<Cond> {
    let mut out = Vec::new();
    for c in conds {
        match c {
            Cond::And(v) => out.extend(conjuncts(v)),
            c => {
                if !out.contains(&c) {
                    out.push(c);
                }
            }
        }
    }
    out
}

/// `if (conjuncts) body`, or `body` when there are none.
fn guarded(conds: Vec<Cond>, body: Ast) -> Ast {
    let mut conds = conjuncts(conds);
    match conds.len() {
        0 => body,
        1 => Ast::If {
            cond: conds.pop().unwrap_or(Cond::And(Vec::new())),
            then: Box::new(body),
            otherwise: None,
        },
        _ => Ast::If {
            cond: Cond::And(conds),
            then: Box::new(body),
            otherwise: None,
        },
    }
}

/// The conjuncts of `cond` that do not mention `iterator`, and the others.
fn split_invariant(cond: Cond, iterator: &str) -> (Vec<Cond>, Vec<Cond>) {
    conjuncts(vec![cond])
        .into_iter()
        .partition(|c| !c.mentions(iterator))
}

/// Merges consecutive guards with equal conditions (and no `else`).
fn merge_adjacent_guards(children: Vec<Ast>) -> Ast {
    let mut out: Vec<Ast> = Vec::new();
    for c in children {
        if let (
            Some(Ast::If {
                cond: previous,
                then: body,
                otherwise: None,
            }),
            Ast::If {
                cond,
                then,
                otherwise: None,
            },
        ) = (out.last_mut(), &c)
        {
            if *previous == *cond {
                let merged = match std::mem::replace(body.as_mut(), Ast::Block(Vec::new())) {
                    Ast::Block(mut v) => {
                        v.push((**then).clone());
                        Ast::Block(v)
                    }
                    other => Ast::Block(vec![other, (**then).clone()]),
                };
                **body = merged;
                continue;
            }
        }
        out.push(c);
    }
    match out.len() {
        1 => out.pop().unwrap_or(Ast::Block(Vec::new())),
        _ => Ast::Block(out),
    }
}
