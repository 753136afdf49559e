//! Names of the generated code: the identifiers of a C text, and fresh prefixes that keep
//! the generated names from shadowing them.
//!
//! Generated code lives inside the user's function and around the statements' C text: a
//! generated name equal to a variable of a statement body (PolyBench's deriche has
//! scalars `c1` and `c2`) or to a macro of the file would capture it. The emitters check
//! every generated name against every identifier-like word of the whole file
//! ([`words`]: comments and strings included, which only makes the check stricter) and
//! put a prefix ([`fresh_prefix`]) before all of a group when one collides.

use std::collections::BTreeSet;

/// Whether `word` is a C identifier (letters, digits and `_`, not starting with a digit).
pub fn is_identifier(word: &str) -> bool {
    let mut chars = word.chars();
    matches!(chars.next(), Some(c) if c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

/// Every identifier-like word of a C text.
pub fn words(text: &str) -> BTreeSet<String> {
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

/// The first of `prefixes` that, put before every name of `names`, collides with no word
/// of `taken`. When all collide, the last candidate (`pollen_` when there is none) is
/// lengthened with `_` until it collides with none.
pub fn fresh_prefix(names: &[String], taken: &BTreeSet<String>, prefixes: &[&str]) -> String {
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

    /// The prefixes the C emitter tries for its iterators.
    const PREFIXES: [&str; 4] = ["", "p_", "pollen_", "pollen_gen_"];

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
        assert_eq!(fresh_prefix(&names, &taken, &PREFIXES), "pollen_");
        assert_eq!(fresh_prefix(&names, &BTreeSet::new(), &PREFIXES), "");
        let all: BTreeSet<String> = ["pollen_c0", "pollen_gen_c0", "pollen_host_c0"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let host = ["pollen_", "pollen_gen_", "pollen_host_"];
        assert_eq!(fresh_prefix(&names, &all, &host), "pollen_host__");
        // With no candidate, `pollen_` is made unique.
        assert_eq!(fresh_prefix(&names, &taken, &[]), "pollen_");
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
