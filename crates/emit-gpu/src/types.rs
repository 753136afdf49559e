//! The type aliases of the user's file that kernels need.
//!
//! An OpenCL kernel is compiled apart from the host program: the host's macros reach it
//! through the stringizing of its source, but its `typedef`s do not (nussinov's
//! `typedef char base;` names its array's element type). So the simple top-level
//! `typedef`s before the region (`typedef <type words> <name>;`, without braces,
//! parentheses or brackets) are collected, and those that the kernels name, directly
//! or through another alias, are put in front of the kernels' source. CUDA kernels
//! live in the user's file and see them anyway.

use std::collections::BTreeSet;

use crate::names::words;

/// One alias: its name and its declaration, on one line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Alias {
    /// The name it declares.
    pub name: String,
    /// The declaration, `typedef ... name;`, comments and line breaks removed.
    pub declaration: String,
}

/// The simple top-level type aliases of `source` before byte `end`, in order.
pub(crate) fn aliases(source: &str, end: usize) -> Vec<Alias> {
    let bytes = source.as_bytes();
    let end = end.min(bytes.len());
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut line_start = true;
    // The start of the `typedef` being read, and whether it is still simple.
    let mut current: Option<(usize, bool)> = None;
    let mut k = 0;
    while k < end {
        let c = bytes[k];
        if c == b'\n' {
            line_start = true;
            k += 1;
            continue;
        }
        if line_start && c == b'#' {
            while k < end && bytes[k] != b'\n' {
                if bytes[k] == b'\\' && k + 1 < end {
                    k += 1;
                }
                k += 1;
            }
            continue;
        }
        if !c.is_ascii_whitespace() {
            line_start = false;
        }
        match c {
            b'/' if bytes.get(k + 1) == Some(&b'*') => {
                k += 2;
                while k < end && !(bytes[k] == b'*' && bytes.get(k + 1) == Some(&b'/')) {
                    k += 1;
                }
                k += 2;
                continue;
            }
            b'/' if bytes.get(k + 1) == Some(&b'/') => {
                while k < end && bytes[k] != b'\n' {
                    k += 1;
                }
                continue;
            }
            b'"' | b'\'' => {
                k += 1;
                while k < end && bytes[k] != c && bytes[k] != b'\n' {
                    if bytes[k] == b'\\' {
                        k += 1;
                    }
                    k += 1;
                }
            }
            b'{' => {
                depth += 1;
                current = current.map(|(s, _)| (s, false));
            }
            b'}' => depth = depth.saturating_sub(1),
            b'(' | b')' | b'[' | b']' => current = current.map(|(s, _)| (s, false)),
            b';' if depth == 0 => {
                if let Some((start, true)) = current {
                    if let Some(alias) = alias(&source[start..=k]) {
                        out.push(alias);
                    }
                }
                current = None;
            }
            c if depth == 0 && (c == b'_' || c.is_ascii_alphabetic()) => {
                let start = k;
                while k < end && (bytes[k] == b'_' || bytes[k].is_ascii_alphanumeric()) {
                    k += 1;
                }
                let before = start == 0
                    || !(bytes[start - 1] == b'_' || bytes[start - 1].is_ascii_alphanumeric());
                if before && &source[start..k] == "typedef" && current.is_none() {
                    current = Some((start, true));
                }
                continue;
            }
            _ => {}
        }
        k += 1;
    }
    out
}

/// The alias declared by the simple `typedef ... name;` text, if it is one.
fn alias(text: &str) -> Option<Alias> {
    let body = text.strip_prefix("typedef")?.strip_suffix(';')?;
    let mut parts: Vec<String> = Vec::new();
    let mut word = String::new();
    let mut in_comment = false;
    let chars: Vec<char> = body.chars().collect();
    let mut k = 0;
    while k < chars.len() {
        let c = chars[k];
        if in_comment {
            if c == '*' && chars.get(k + 1) == Some(&'/') {
                in_comment = false;
                k += 1;
            }
        } else if c == '/' && chars.get(k + 1) == Some(&'*') {
            in_comment = true;
            k += 1;
        } else if c == '/' && chars.get(k + 1) == Some(&'/') {
            while k < chars.len() && chars[k] != '\n' {
                k += 1;
            }
        } else if c.is_whitespace() {
            if !word.is_empty() {
                parts.push(std::mem::take(&mut word));
            }
        } else if c == '*' {
            if !word.is_empty() {
                parts.push(std::mem::take(&mut word));
            }
            parts.push("*".to_string());
        } else if c == '_' || c.is_ascii_alphanumeric() {
            word.push(c);
        } else {
            return None;
        }
        k += 1;
    }
    if !word.is_empty() {
        parts.push(word);
    }
    let name = parts.pop()?;
    if parts.is_empty() || name == "*" {
        return None;
    }
    Some(Alias {
        declaration: format!("typedef {} {name};", parts.join(" ")),
        name,
    })
}

/// The declarations of the aliases that `texts` name, directly or through other
/// aliases, in the source's order.
pub(crate) fn needed<'a>(aliases: &'a [Alias], texts: &[&str]) -> Vec<&'a Alias> {
    let mut named: BTreeSet<String> = BTreeSet::new();
    for t in texts {
        named.extend(words(t));
    }
    let mut used = vec![false; aliases.len()];
    // An alias may name an earlier one: walk back from the last.
    for k in (0..aliases.len()).rev() {
        if named.contains(&aliases[k].name) {
            used[k] = true;
            named.extend(words(&aliases[k].declaration));
        }
    }
    aliases
        .iter()
        .zip(used)
        .filter_map(|(a, u)| u.then_some(a))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simple_top_level_aliases_are_found() {
        let source = "typedef char base; /* typedef int no; */\n#define X typedef int neither;\ntypedef unsigned   long\n  /* wide */ word;\ntypedef struct { int a; } record;\ntypedef double (*f)(int);\ntypedef double vec[3];\ntypedef base *bases;\nvoid g(void) { typedef int local; }\ntypedef float late;\n";
        let end = source.find("typedef float late").unwrap();
        let found: Vec<(String, String)> = aliases(source, end)
            .into_iter()
            .map(|a| (a.name, a.declaration))
            .collect();
        assert_eq!(
            found,
            [
                ("base".to_string(), "typedef char base;".to_string()),
                (
                    "word".to_string(),
                    "typedef unsigned long word;".to_string()
                ),
                ("bases".to_string(), "typedef base * bases;".to_string()),
            ]
        );
    }

    #[test]
    fn needed_aliases_follow_their_uses() {
        let all = aliases(
            "typedef char base;\ntypedef base *bases;\ntypedef int other;\n",
            1000,
        );
        let names = |v: Vec<&Alias>| v.iter().map(|a| a.name.clone()).collect::<Vec<_>>();
        assert_eq!(names(needed(&all, &["bases x;"])), ["base", "bases"]);
        assert_eq!(names(needed(&all, &["(base) 1"])), ["base"]);
        assert!(needed(&all, &["int y;"]).is_empty());
    }
}
