//! Piecewise quasi-polynomials on several domain spaces (isl's
//! `isl_union_pw_qpolynomial`): what iscc's `card` of a union map over several domain
//! spaces gives, `[N] -> { A[i] -> i : 0 < i < N; C[i] -> N : 0 <= i < N }`.
//!
//! # Invariants
//! - every member has the union's parameters, in its order;
//! - no two members have the same domain tuple (name, arity and nesting; dimension
//!   names aside).

use std::fmt;

use super::quasi::{params_prefix, parse_tuple, top_level_arrow};
use super::{split_top, PwQPolynomial};
use crate::error::{Budget, Error, Result};
use crate::space::Space;

/// A piecewise quasi-polynomial on each of several domain spaces that share their
/// parameters.
#[derive(Clone, Debug)]
pub struct UnionPwQPolynomial {
    params: Vec<String>,
    members: Vec<PwQPolynomial>,
}

impl UnionPwQPolynomial {
    /// The function on no domain space at all, over the parameters `params`.
    pub fn empty(params: Vec<String>) -> UnionPwQPolynomial {
        UnionPwQPolynomial {
            params,
            members: Vec::new(),
        }
    }

    /// The parameters.
    pub fn params(&self) -> &[String] {
        &self.params
    }

    /// One function per domain space, in the order they were added.
    pub fn members(&self) -> &[PwQPolynomial] {
        &self.members
    }

    /// The member on the domain tuple of `space` (dimension names aside), if any.
    pub fn member(&self, space: &Space) -> Option<&PwQPolynomial> {
        self.members.iter().find(|m| same_domain(m.space(), space))
    }

    /// `self + f`: added to the member on `f`'s domain tuple (renamed to that member's
    /// dimension names), or a new member. `f` must have the union's parameters.
    pub fn add_with(&self, f: &PwQPolynomial, budget: &mut Budget) -> Result<UnionPwQPolynomial> {
        if f.params() != self.params.as_slice() {
            return Err(Error::Unsupported(format!(
                "adding a function of the parameters [{}] to a union over [{}]",
                f.params().join(", "),
                self.params.join(", ")
            )));
        }
        let mut out = self.clone();
        match out
            .members
            .iter_mut()
            .find(|m| same_domain(m.space(), f.space()))
        {
            Some(m) => {
                let renamed = f.clone().on_space(m.space().clone())?;
                *m = m.add_with(&renamed, budget)?;
            }
            None => out.members.push(f.clone()),
        }
        Ok(out)
    }
}

/// Whether two function spaces have the same parameters and domain tuple, dimension
/// names aside.
fn same_domain(a: &Space, b: &Space) -> bool {
    a.param_names() == b.param_names()
        && match (a.range_tuple(), b.range_tuple()) {
            (Some(x), Some(y)) => x.key() == y.key(),
            (None, None) => true,
            _ => false,
        }
}

impl fmt::Display for UnionPwQPolynomial {
    /// iscc's form: the members' pieces in one pair of braces after the shared
    /// parameters, `[N] -> { A[i] -> i : 0 < i < N; C[i] -> N : 0 <= i < N }`; a
    /// single member prints as it does alone, and no member as `{ 0 }`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut entries = Vec::new();
        for m in &self.members {
            entries.extend(m.entries().map_err(|_| fmt::Error)?);
        }
        if entries.is_empty() {
            entries.push("0".to_string());
        }
        write!(
            f,
            "{}{{ {} }}",
            params_prefix(&self.params),
            entries.join("; ")
        )
    }
}

impl std::str::FromStr for UnionPwQPolynomial {
    type Err = Error;

    /// Reads iscc's form, as printed: the pieces of every domain tuple are read as
    /// one [`PwQPolynomial`] (see its reader: within one domain tuple, where pieces
    /// overlap the first holds). Errors are positioned in `text`.
    fn from_str(text: &str) -> Result<UnionPwQPolynomial> {
        // Without a pair of braces, the reader of one function reports the error.
        let (Some(open), Some(close)) = (text.find('{'), text.rfind('}')) else {
            return single(text);
        };
        if close < open {
            return single(text);
        }
        // The pieces (byte ranges in `text`), grouped by their domain tuple's key.
        let body = &text[open + 1..close];
        let mut groups: Vec<(String, Vec<(usize, usize)>)> = Vec::new();
        for (k, (start, piece)) in split_top(body, ';').into_iter().enumerate() {
            if piece.trim().is_empty() {
                continue;
            }
            let value = split_top(piece, ':')[0].1;
            let key = match top_level_arrow(value) {
                Some(arrow) => match parse_tuple(&value[..arrow], &[]) {
                    Ok(t) => t.key(),
                    // Its own group: the reader reports the error in place.
                    Err(_) => format!("unreadable piece {k}"),
                },
                None => String::new(),
            };
            let range = (open + 1 + start, open + 1 + start + piece.len());
            match groups.iter_mut().find(|(g, _)| *g == key) {
                Some((_, ranges)) => ranges.push(range),
                None => groups.push((key, vec![range])),
            }
        }
        if groups.len() <= 1 {
            return single(text);
        }
        let mut members = Vec::with_capacity(groups.len());
        for (_, ranges) in &groups {
            // The text with the other groups' pieces blanked out: every position stays
            // where it is, so errors point into `text`.
            let mut own = String::with_capacity(text.len());
            own.push_str(&text[..=open]);
            let mut kept_to = open + 1;
            for &(s, e) in ranges {
                blank_into(&mut own, &text[kept_to..s]);
                own.push_str(&text[s..e]);
                kept_to = e;
            }
            blank_into(&mut own, &text[kept_to..close]);
            own.push_str(&text[close..]);
            members.push(own.parse::<PwQPolynomial>()?);
        }
        let params = members[0].params().to_vec();
        Ok(UnionPwQPolynomial { params, members })
    }
}

/// `text` read as one function, the union of it alone.
fn single(text: &str) -> Result<UnionPwQPolynomial> {
    let one: PwQPolynomial = text.parse()?;
    Ok(UnionPwQPolynomial {
        params: one.params().to_vec(),
        members: vec![one],
    })
}

/// Appends `text` blanked out: separators and line breaks stay, every other character
/// becomes as many spaces as it has bytes, so that later positions do not move.
fn blank_into(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            ';' | '\n' => out.push(c),
            _ => out.extend(std::iter::repeat_n(' ', c.len_utf8())),
        }
    }
}
