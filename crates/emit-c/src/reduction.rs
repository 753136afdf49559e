//! Reassociated reductions: an innermost loop that only accumulates into variables,
//! printed as `#pragma omp simd reduction(...)` ([`crate::EmitOptions::reassociate`]).
//!
//! Scalar replacement ([`crate::scalar`]) holds the elements that an innermost loop
//! accumulates into in variables across the loop. When every statement instance of
//! the body updates one of those variables, as `v += e`, `v -= e`, `v *= e`,
//! `v = MAX(v, e)` or `v = MIN(v, e)` (a select macro of the maximum or the minimum,
//! [`crate::scan::select_macros`], with `v` as either argument), `e` mentions none of
//! the variables, and each variable is updated with one operator only, then the loop
//! writes nothing else: its iterations depend on each other only through these
//! updates. With the reduction clause
//! ```text
//!   float t0 = mean[b][s];
//!   #pragma omp simd reduction(+:t0)
//!   for (h = 0; h <= H - 1; h++)
//!     t0 += X[b][s][h];
//!   mean[b][s] = t0;
//! ```
//! the compiler keeps one partial result per vector lane and combines them after the
//! loop: the loop is vectorised, and the floating-point operations are performed in
//! another order, so results differ in rounding (a sum) or in which NaN or signed zero
//! comes out (a maximum or a minimum). That is why it is only done on request. A loop
//! that runs a constant number of times below [`MIN_TRIPS`] is left as it is.

use std::collections::BTreeMap;

/// The fewest iterations of a loop, when its trip count is a constant, for which a
/// reduction clause is printed: a shorter loop (a pooling window's 3) fills no vector,
/// and gcc's per-lane partial results then cost far more than they save (a 3×3 max
/// pooling ran 30 times slower with the clause on its window's rows).
pub(crate) const MIN_TRIPS: i64 = 16;

use pollen_emit_text::tokens;

use crate::scalar::Plan;
use crate::scan::SelectMacro;

/// The reduction clauses of the loop printed by `plan`, `(variable, operator)` in the
/// order of the plan's accumulators, with the operator as OpenMP spells it (`+`, `*`,
/// `max`, `min`); `None` when the loop does not qualify (module documentation).
pub(crate) fn reductions(
    plan: &Plan,
    macros: &BTreeMap<String, SelectMacro>,
) -> Option<Vec<(String, &'static str)>> {
    if plan.accumulators.is_empty() || !plan.held.is_empty() {
        return None;
    }
    let variables: Vec<&str> = plan.accumulators.iter().map(|a| a.name.as_str()).collect();
    let mut operators: BTreeMap<&str, &'static str> = BTreeMap::new();
    for text in &plan.instances {
        let text = text.as_deref()?;
        let (variable, operator) = update(text, &variables, macros)?;
        if *operators.entry(variable).or_insert(operator) != operator {
            return None;
        }
    }
    variables
        .iter()
        .map(|v| operators.get(v).map(|op| (v.to_string(), *op)))
        .collect()
}

/// The variable and reduction operator of one statement's text when it is an update of
/// one of `variables` whose operand mentions none of them.
fn update<'v>(
    text: &str,
    variables: &[&'v str],
    macros: &BTreeMap<String, SelectMacro>,
) -> Option<(&'v str, &'static str)> {
    let ts = tokens(text)?;
    let s: Vec<&str> = ts.iter().map(|t| &text[t.range.clone()]).collect();
    let [first, assign, .., ";"] = s[..] else {
        return None;
    };
    let variable = *variables.iter().find(|v| **v == first)?;
    let (operator, operand): (&'static str, &[&str]) = match assign {
        "+=" | "-=" => ("+", &s[2..s.len() - 1]),
        "*=" => ("*", &s[2..s.len() - 1]),
        "=" => select_update(&s[2..s.len() - 1], variable, macros)?,
        _ => return None,
    };
    if operand.is_empty() || operand.iter().any(|t| variables.contains(t)) {
        return None;
    }
    Some((variable, operator))
}

/// `MAX(v, e)` or `MAX(v, e)`'s mirror `MAX(e, v)` for a select macro of the maximum or
/// the minimum: the operator and `e`.
fn select_update<'s>(
    s: &'s [&'s str],
    variable: &str,
    macros: &BTreeMap<String, SelectMacro>,
) -> Option<(&'static str, &'s [&'s str])> {
    let [name, "(", .., ")"] = s else {
        return None;
    };
    let m = macros.get(*name)?;
    if m.if_true == m.if_false {
        return None;
    }
    // The comparison's left operand wins when it holds: `>` then picks the larger.
    let larger = m.op.starts_with('>') == (m.if_true == m.p);
    let operator = if larger { "max" } else { "min" };
    // The two arguments: split at the comma outside every bracket.
    let inner = &s[2..s.len() - 1];
    let mut depth = 0i32;
    let mut comma = None;
    for (k, t) in inner.iter().enumerate() {
        match *t {
            "(" | "[" => depth += 1,
            ")" | "]" => depth -= 1,
            "," if depth == 0 => {
                if comma.is_some() {
                    return None;
                }
                comma = Some(k);
            }
            _ => {}
        }
        if depth < 0 {
            return None;
        }
    }
    let comma = comma?;
    let (a, b) = (&inner[..comma], &inner[comma + 1..]);
    match (a, b) {
        ([v], e) if *v == variable => Some((operator, e)),
        (e, [v]) if *v == variable => Some((operator, e)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scalar::Load;
    use crate::scan;

    fn plan(accumulators: &[&str], instances: &[Option<&str>]) -> Plan {
        let load = |name: &str| Load {
            name: name.to_string(),
            element_type: "float".to_string(),
            reference: format!("A[{name}]"),
        };
        Plan {
            hoisted: vec![load("c")],
            accumulators: accumulators.iter().map(|n| load(n)).collect(),
            shared: Vec::new(),
            held: Vec::new(),
            instances: instances.iter().map(|t| t.map(str::to_string)).collect(),
            replacements: vec![Vec::new(); instances.len()],
        }
    }

    fn clauses(accumulators: &[&str], instances: &[Option<&str>]) -> Option<Vec<String>> {
        let mut macros = scan::select_macros("#define BIG(a, b) ((a) < (b) ? (b) : (a))\n");
        macros.extend(scan::select_macros(""));
        reductions(&plan(accumulators, instances), &macros)
            .map(|r| r.into_iter().map(|(v, op)| format!("{op}:{v}")).collect())
    }

    #[test]
    fn updates_are_recognised() {
        let some = |v: &[&str]| Some(v.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(
            clauses(&["t0"], &[Some("t0 += X[i] * c;")]),
            some(&["+:t0"])
        );
        assert_eq!(
            clauses(
                &["t0", "t1"],
                &[Some("t1 = MAX_FUN(t1, X[i]);"), Some("t0 -= X[i];")]
            ),
            some(&["+:t0", "max:t1"])
        );
        assert_eq!(
            clauses(&["t0"], &[Some("t0 = MIN_FUN(X[i] + 1, t0);")]),
            some(&["min:t0"])
        );
        assert_eq!(
            clauses(&["t0"], &[Some("t0 = BIG(t0, X[i]);")]),
            some(&["max:t0"])
        );
        assert_eq!(
            clauses(&["t0"], &[Some("t0 *= X[i];"), Some("t0 *= 2;")]),
            some(&["*:t0"])
        );
    }

    #[test]
    fn other_loops_are_refused() {
        // A macro call, which writes what the plan does not see.
        assert_eq!(clauses(&["t0"], &[Some("t0 += X[i];"), None]), None);
        // Another operator on the same variable.
        assert_eq!(
            clauses(&["t0"], &[Some("t0 += X[i];"), Some("t0 *= 2;")]),
            None
        );
        // The operand reads a partial result.
        assert_eq!(
            clauses(&["t0", "t1"], &[Some("t0 += t1;"), Some("t1 += X[i];")]),
            None
        );
        assert_eq!(clauses(&["t0"], &[Some("t0 += t0 * X[i];")]), None);
        // A write elsewhere, an assignment, a division.
        assert_eq!(
            clauses(&["t0"], &[Some("t0 += X[i];"), Some("Y[i] = X[i];")]),
            None
        );
        assert_eq!(clauses(&["t0"], &[Some("t0 = X[i];")]), None);
        assert_eq!(clauses(&["t0"], &[Some("t0 /= X[i];")]), None);
        // Not a select of the variable and one operand.
        assert_eq!(
            clauses(&["t0"], &[Some("t0 = MAX_FUN(t0, X[i]) + 1;")]),
            None
        );
        assert_eq!(
            clauses(&["t0"], &[Some("t0 = MAX_FUN(X[i], X[i + 1]);")]),
            None
        );
        assert_eq!(clauses(&["t0"], &[Some("t0 = sqrtf(t0, X[i]);")]), None);
        // No accumulator at all.
        assert_eq!(clauses(&[], &[Some("Y[i] = X[i];")]), None);
    }
}
