//! The names of the generated loop iterators.
//!
//! Iterators are called `<prefix><depth>` (`c0`, `c1`, ...). Statement bodies are
//! emitted as macros whose text mentions the scop's parameters, arrays, scalars and
//! whatever else the C code names, so the prefix is chosen such that no identifier of
//! the scop (parameters, arrays, statement names and every identifier of a statement
//! body) has the form `<prefix><digits>`.

use std::collections::BTreeSet;

use pollen_scop::Scop;

/// The prefixes tried in order before numbered fallbacks.
const CANDIDATES: [&str; 6] = ["c", "t", "k", "cc", "it", "_c"];

/// The identifiers a scop's generated code must not shadow.
fn reserved(scop: &Scop) -> BTreeSet<String> {
    let mut names: BTreeSet<String> = scop.params.iter().cloned().collect();
    names.extend(scop.arrays.iter().map(|a| a.name.clone()));
    for s in &scop.statements {
        names.insert(s.name.clone());
        names.extend(identifiers(&s.body));
    }
    names
}

/// The C identifiers of a text (maximal runs of letters, digits and underscores that do
/// not start with a digit).
fn identifiers(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| w.chars().next().is_some_and(|c| !c.is_ascii_digit()))
        .map(str::to_string)
}

/// Whether `name` is `prefix` followed by one or more digits.
fn clashes(name: &str, prefix: &str) -> bool {
    name.strip_prefix(prefix)
        .is_some_and(|rest| !rest.is_empty() && rest.chars().all(|c| c.is_ascii_digit()))
}

/// A prefix such that `<prefix><n>` names nothing of the scop for any `n`.
pub(crate) fn iterator_prefix(scop: &Scop) -> String {
    let names = reserved(scop);
    let free = |p: &str| !names.iter().any(|n| clashes(n, p));
    if let Some(p) = CANDIDATES.iter().find(|p| free(p)) {
        return (*p).to_string();
    }
    (0usize..)
        .map(|k| format!("c{k}_"))
        .find(|p| free(p))
        .unwrap_or_else(|| "c_".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clashes_need_digits() {
        assert!(clashes("c0", "c"));
        assert!(clashes("c12", "c"));
        assert!(!clashes("c", "c"));
        assert!(!clashes("cx1", "c"));
        assert!(!clashes("d0", "c"));
    }

    #[test]
    fn identifiers_of_bodies() {
        let ids: Vec<String> = identifiers("c1[i][j] += 2.0 * sqrt(c0) + 1e3;").collect();
        assert_eq!(ids, vec!["c1", "i", "j", "sqrt", "c0"]);
    }
}
