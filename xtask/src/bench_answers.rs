//! The answers of `cargo xtask bench presburger`: isl's runner prints the result of every
//! operation of the corpus once, after timing it, and this module computes Pollen's and
//! compares them:
//! - yes/no questions (`is_empty`, `is_subset`, `is_equal`) by their printed answer;
//! - sets and maps by `is_equal` on isl's result read back with Pollen's parser;
//! - transitive closures by the exactness rules of `cargo xtask closure`: equal when both
//!   claim exactness, the exact one contained in the other's over-approximation when one
//!   does, not compared when neither does;
//! - counts (`card`, barvinok's) by evaluation at many parameter points, as
//!   `cargo xtask barvinok` does.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use pollen_presburger::text::{parse_object, Parsed};
use pollen_presburger::Map;

/// How Pollen's answer to one entry compares with isl's.
#[derive(Debug, PartialEq)]
pub(crate) enum Agreement {
    /// The same answer.
    Same,
    /// A different answer, or one side could not answer (the message says which).
    Differs(String),
    /// No comparison is possible (two over-approximations of a closure).
    NotCompared(String),
}

/// A set or map of the text, as a map (a set is a map without input tuple).
fn read(text: &str) -> Result<Map, String> {
    match parse_object(text).map_err(|e| e.to_string())? {
        Parsed::Set(s) => Ok(s.into_map()),
        Parsed::Map(m) => Ok(m),
        Parsed::UnionSet(_) | Parsed::UnionMap(_) => {
            Err("a union over several spaces is not compared".into())
        }
    }
}

/// Compares Pollen's answer to `operation` on `operands` with isl's printed answer.
pub(crate) fn compare(operation: &str, operands: &[String], theirs: &str) -> Agreement {
    match answer(operation, operands, theirs) {
        Ok(agreement) => agreement,
        Err(message) => Agreement::Differs(message),
    }
}

fn answer(operation: &str, operands: &[String], theirs: &str) -> Result<Agreement, String> {
    if operation == "card" {
        let set = operands.first().ok_or("no operand")?;
        return crate::barvinok::compare(set, Some(theirs)).map(|_| Agreement::Same);
    }
    let maps = operands
        .iter()
        .map(|t| read(t).map_err(|e| format!("Pollen cannot read an operand: {e}")))
        .collect::<Result<Vec<Map>, String>>()?;
    let a = maps.first().ok_or("no operand")?;
    let b = || {
        maps.get(1)
            .ok_or(format!("`{operation}` needs two operands"))
    };
    let lib = |e: pollen_presburger::Error| format!("Pollen fails: {e}");
    let yes_no = |v: bool| if v { "True" } else { "False" };
    let ours: Map = match operation {
        "is_empty" | "is_subset" | "is_equal" => {
            let v = match operation {
                "is_empty" => a.is_empty(),
                "is_subset" => a.is_subset(b()?),
                _ => a.is_equal(b()?),
            }
            .map_err(lib)?;
            return Ok(if yes_no(v) == theirs {
                Agreement::Same
            } else {
                Agreement::Differs(format!("Pollen {}, isl {theirs}", yes_no(v)))
            });
        }
        "transitive_closure" => {
            let (map, exact) = a.transitive_closure().map_err(lib)?;
            let (isl_exact, text) = match theirs.split_once(' ') {
                Some(("exact", text)) => (true, text),
                Some(("approximate", text)) => (false, text),
                _ => return Err(format!("unexpected closure answer `{theirs}`")),
            };
            let isl = read(text).map_err(|e| format!("Pollen cannot read isl's answer: {e}"))?;
            let holds = |v: Result<bool, pollen_presburger::Error>, what: &str| match v {
                Ok(true) => Ok(Agreement::Same),
                Ok(false) => Ok(Agreement::Differs(format!(
                    "{what}: Pollen {map}, isl {isl}"
                ))),
                Err(e) => Err(lib(e)),
            };
            return match (exact, isl_exact) {
                (true, true) => holds(map.is_equal(&isl), "both exact, not equal"),
                (true, false) => holds(map.is_subset(&isl), "Pollen's exact closure not in isl's"),
                (false, true) => holds(isl.is_subset(&map), "isl's exact closure not in Pollen's"),
                (false, false) => Ok(Agreement::NotCompared(
                    "both closures are over-approximations".into(),
                )),
            };
        }
        "apply_range" => a.apply_range(b()?),
        "intersect" => a.intersect(b()?),
        "union" => a.union(b()?),
        "subtract" => a.subtract(b()?),
        "complement" => a.complement(),
        "compute_divs" => a.compute_divs(),
        "coalesce" => a.coalesce(),
        "deltas" => a.deltas(),
        "lexmin" => a.lexmin(),
        "lexmax" => a.lexmax(),
        other => return Err(format!("no comparison for `{other}`")),
    }
    .map_err(lib)?;
    let isl = read(theirs).map_err(|e| format!("Pollen cannot read isl's answer: {e}"))?;
    Ok(match ours.is_equal(&isl) {
        Ok(true) => Agreement::Same,
        Ok(false) => Agreement::Differs(format!("Pollen {ours}, isl {isl}")),
        Err(e) => Agreement::Differs(format!("not comparable ({e}): Pollen {ours}, isl {isl}")),
    })
}

/// The answers section of the report: per class how many of the compared answers are
/// the same, then every answer that differs or was not compared. `classes[i]` is entry `i`'s class.
pub(crate) fn report(classes: &[&str], agreements: &BTreeMap<usize, Agreement>) -> String {
    let mut per_class: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut notes = String::new();
    for (&i, agreement) in agreements {
        let class = classes.get(i).copied().unwrap_or("?");
        match agreement {
            Agreement::Same => {
                let counts = per_class.entry(class).or_default();
                counts.0 += 1;
                counts.1 += 1;
            }
            Agreement::Differs(m) => {
                per_class.entry(class).or_default().1 += 1;
                let _ = writeln!(notes, "  #{i} ({class}) DIFFERS: {m}");
            }
            Agreement::NotCompared(m) => {
                let _ = writeln!(notes, "  #{i} ({class}) not compared: {m}");
            }
        }
    }
    let mut out =
        String::from("\nanswers compared with isl's (barvinok's for `count`), per class:\n");
    for (class, (same, all)) in &per_class {
        let verdict = if same == all {
            "identical"
        } else {
            "NOT identical"
        };
        let _ = writeln!(out, "  {class:<16} {same} of {all} the same: {verdict}");
    }
    out.push_str(&notes);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ops(texts: &[&str]) -> Vec<String> {
        texts.iter().map(|t| t.to_string()).collect()
    }

    #[test]
    fn answers_are_compared_by_meaning() {
        let a = "[N] -> { [i] : 0 <= i < N }";
        let b = "[N] -> { [i] : 0 <= i < 2N }";
        assert_eq!(compare("is_subset", &ops(&[a, b]), "True"), Agreement::Same);
        assert!(matches!(
            compare("is_subset", &ops(&[b, a]), "True"),
            Agreement::Differs(_)
        ));
        // The same set written differently.
        assert_eq!(
            compare(
                "intersect",
                &ops(&[a, b]),
                "[N] -> { [i] : i >= 0 and N - i > 0 }"
            ),
            Agreement::Same
        );
        assert!(matches!(
            compare("intersect", &ops(&[a, b]), "[N] -> { [i] : 0 <= i <= N }"),
            Agreement::Differs(_)
        ));
        assert!(matches!(
            compare("union", &ops(&[a, b]), "not isl syntax"),
            Agreement::Differs(m) if m.contains("cannot read isl's answer")
        ));
    }

    #[test]
    fn closures_follow_the_exactness_rules() {
        let step = "{ [i] -> [i + 1] : 0 <= i < 10 }";
        let exact = "{ [i] -> [j] : 0 <= i < j <= 10 }";
        assert_eq!(
            compare(
                "transitive_closure",
                &ops(&[step]),
                &format!("exact {exact}")
            ),
            Agreement::Same
        );
        // Pollen's exact closure must lie in isl's over-approximation.
        assert_eq!(
            compare(
                "transitive_closure",
                &ops(&[step]),
                "approximate { [i] -> [j] : 0 <= i < j <= 11 }"
            ),
            Agreement::Same
        );
        assert!(matches!(
            compare(
                "transitive_closure",
                &ops(&[step]),
                "approximate { [i] -> [j] : 0 <= i < j <= 5 }"
            ),
            Agreement::Differs(_)
        ));
    }

    #[test]
    fn the_report_counts_and_lists() {
        let classes = ["a", "a", "b"];
        let agreements: BTreeMap<usize, Agreement> = [
            (0, Agreement::Same),
            (1, Agreement::Differs("boom".into())),
            (2, Agreement::NotCompared("both approximate".into())),
        ]
        .into_iter()
        .collect();
        let r = report(&classes, &agreements);
        assert!(
            r.contains("a                1 of 2 the same: NOT identical"),
            "{r}"
        );
        assert!(r.contains("#1 (a) DIFFERS: boom"), "{r}");
        assert!(r.contains("#2 (b) not compared: both approximate"), "{r}");
    }
}
