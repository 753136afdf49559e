//! Names of the generated code: the identifiers of the user's file, and fresh names for
//! the generated iterators, kernel arguments, kernels and host variables that none of
//! them shadows.
//!
//! Statement bodies are printed inside the kernels where the generated iterators and
//! arguments are in scope, and the host code lives inside the user's function: a
//! generated name equal to a variable of a statement body (PolyBench's deriche has
//! scalars `c1` and `c2`) or to a macro of the file would capture it. So every generated
//! name is checked against every identifier-like word of the whole file (comments and
//! strings included, which only makes the check stricter) and the parameters, and a
//! prefix is added to all of a group when one collides.

use std::collections::BTreeSet;

/// The prefixes tried, in order, for the names that appear in kernels (iterators,
/// kernel arguments, kernels).
pub(crate) const KERNEL_PREFIXES: [&str; 4] = ["", "p_", "pollen_", "pollen_gen_"];

/// The prefixes tried, in order, for the host variables of the generated code.
pub(crate) const HOST_PREFIXES: [&str; 3] = ["pollen_", "pollen_gen_", "pollen_host_"];

/// Whether `word` is a C identifier (letters, digits and `_`, not starting with a digit).
pub(crate) fn is_identifier(word: &str) -> bool {
    let mut chars = word.chars();
    matches!(chars.next(), Some(c) if c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

/// Every identifier-like word of a C text.
pub(crate) fn words(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let bytes = text.as_bytes();
    let mut k = 0;
    while k < bytes.len() {
        let c = bytes[k];
        if c == b'_' || c.is_ascii_alphabetic() {
            let start = k;
            while k < bytes.len() && (bytes[k] == b'_' || bytes[k].is_ascii_alphanumeric()) {
                k += 1;
            }
            out.insert(text[start..k].to_string());
        } else if c.is_ascii_digit() {
            // A number such as `1e5` or `0x1f` is not an identifier.
            while k < bytes.len() && (bytes[k] == b'_' || bytes[k].is_ascii_alphanumeric()) {
                k += 1;
            }
        } else {
            k += 1;
        }
    }
    out
}

/// The first prefix that, put before every name of `names`, collides with no word of
/// `taken`. The last candidate is made unique by construction if all others collide.
pub(crate) fn fresh_prefix(
    names: &[String],
    taken: &BTreeSet<String>,
    prefixes: &[&str],
) -> String {
    for prefix in prefixes {
        if names
            .iter()
            .all(|n| !taken.contains(&format!("{prefix}{n}")))
        {
            return prefix.to_string();
        }
    }
    let mut prefix = prefixes.last().copied().unwrap_or("pollen_").to_string();
    while names
        .iter()
        .any(|n| taken.contains(&format!("{prefix}{n}")))
    {
        prefix.push('_');
    }
    prefix
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_skip_numbers() {
        let w = words("x1 = 1e5 + c1 * 0x1f; // y");
        let expected: BTreeSet<String> = ["x1", "c1", "y"].iter().map(|s| s.to_string()).collect();
        assert_eq!(w, expected);
    }

    #[test]
    fn prefix_avoids_collisions() {
        let names = vec!["c0".to_string(), "c1".to_string()];
        let taken: BTreeSet<String> = ["c1", "p_c0"].iter().map(|s| s.to_string()).collect();
        assert_eq!(fresh_prefix(&names, &taken, &KERNEL_PREFIXES), "pollen_");
        assert_eq!(fresh_prefix(&names, &BTreeSet::new(), &KERNEL_PREFIXES), "");
        let all: BTreeSet<String> = ["pollen_c0", "pollen_gen_c0", "pollen_host_c0"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(fresh_prefix(&names, &all, &HOST_PREFIXES), "pollen_host__");
    }

    #[test]
    fn identifiers() {
        assert!(is_identifier("_PB_N"));
        assert!(is_identifier("c0"));
        assert!(!is_identifier("0c"));
        assert!(!is_identifier(""));
        assert!(!is_identifier("a-b"));
    }
}
