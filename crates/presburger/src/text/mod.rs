//! The isl text syntax: parser and printer.
//!
//! Reading: [`parse_object`] reads any object (`[N] -> { S[i] -> T[j] : … ; … }`) and
//! returns the most specific kind ([`Parsed`]); [`parse_map`], [`parse_set`],
//! [`parse_basic_map`], [`parse_basic_set`], [`parse_union_map`] and [`parse_union_set`]
//! (and the matching [`FromStr`] implementations) ask for one kind. Errors are
//! [`Error::Parse`] with the 1-based line and column of the offending token;
//! [`parse_object_at`] shifts them for text embedded in a larger file.
//!
//! Writing: every set and map type implements [`Display`](std::fmt::Display) in canonical
//! isl syntax (see `printer.rs`); [`affine_to_string`], [`constraint_to_string`],
//! [`constraints_to_strings`], [`column_names`] and [`space_dim_names`] expose the pieces.
//!
//! The stages are: `lexer.rs` (characters → tokens), `parser.rs` (tokens → syntax tree,
//! `ast.rs`), `lower.rs` (syntax tree → maps, through a disjunctive normal form with floor
//! divisions as known locals and `exists` variables as existential locals) and
//! `printer.rs`. The source of the grammar is isl's reader (`isl_input.c`); its
//! behaviour is followed where the two could differ: a tuple element naming a variable
//! already in scope is an expression (`{ [i, i] }` is the diagonal, `[N] -> { [N] }` the
//! point at `N`), undeclared identifiers are errors, `not` binds tighter than `and`, which
//! binds tighter than `or`, which binds tighter than `implies`, and `exists x: …` without
//! parentheses extends as far as possible. Also as in isl: `[e]` is `floor(e)` (a
//! tuple's first element `[..]` opens a wrapped pair only when `->` follows its closing
//! bracket); `(c ? a : b)` is `a` where the formula `c` holds and `b` elsewhere (inside
//! comparisons and tuple definitions, which split into the two cases); a parameter may
//! be defined in the list by the parameters before it (`[N, M = 2N] -> …`, a constraint
//! of every piece).
//!
//! Not supported: isl's rational sets (`rat:` before an object or a piece, an
//! [`Error::UnsupportedSyntax`] at `rat`), `infty`/`NaN` (which only
//! [`PwQPolynomial`](crate::PwQPolynomial)'s reader takes), schedules, `Sym = …`, and a union mixing parameter domains with
//! sets or sets with maps.
//!
//! # Invariants
//! - parsing never panics, whatever the input: bad input is an [`Error::Parse`] (or, for
//!   valid syntax that needs an unfinished operation, the operation's error);
//! - `parse(print(x))` describes the same integer points as `x`, in the same space;
//! - printing is deterministic, and a fixed point: `print(parse(print(x))) == print(x)`
//!   for any number of divisions (a map whose pieces have two divisions or more is read
//!   back and printed again until its text no longer changes, since the reader numbers
//!   the locals in the order it meets them).

mod ast;
mod lexer;
mod lower;
mod parser;
mod printer;
#[cfg(test)]
mod tests;

use std::fmt;
use std::str::FromStr;

use crate::bmap::BasicMap;
use crate::error::{Error, Result};
use crate::map::Map;
use crate::set::{BasicSet, Set};
use crate::union::{UnionMap, UnionSet};

pub use printer::{
    affine_to_string, column_names, constraint_to_string, constraints_to_strings, space_dim_names,
};

use lexer::Pos;

/// Whether `word` is a keyword of the notation (`and`, `or`, `mod`, `min`, ..., in any
/// case), which this parser, like isl's, never reads as a name: a parameter so named
/// cannot be written down.
pub fn is_keyword(word: &str) -> bool {
    lexer::KEYWORDS.contains(&word.to_ascii_lowercase().as_str())
}

/// An object read from text, of the most specific kind its text allows.
#[derive(Clone, Debug)]
pub enum Parsed {
    /// One set space (or a parameter domain).
    Set(Set),
    /// One map space.
    Map(Map),
    /// Several set spaces (or none: `{ }`).
    UnionSet(UnionSet),
    /// Several map spaces.
    UnionMap(UnionMap),
}

impl fmt::Display for Parsed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Parsed::Set(s) => s.fmt(f),
            Parsed::Map(m) => m.fmt(f),
            Parsed::UnionSet(u) => u.fmt(f),
            Parsed::UnionMap(u) => u.fmt(f),
        }
    }
}

/// The pieces of an object, lowered, with the parameter list and piece positions.
struct Pieces {
    params: Vec<String>,
    pieces: Vec<(Pos, Map)>,
    start: Pos,
}

fn read_pieces(text: &str, line: usize, column: usize) -> Result<Pieces> {
    let tokens = lexer::lex(text, line, column)?;
    let start = tokens[0].pos;
    let object = parser::Parser::new(tokens).parse_object()?;
    let pieces = lower::lower_object(&object)?;
    Ok(Pieces {
        params: object.params,
        pieces,
        start,
    })
}

/// Groups the pieces by space: one map per distinct tuple key, in order of appearance.
fn group(pieces: Vec<(Pos, Map)>) -> Result<Vec<(Pos, Map)>> {
    let mut groups: Vec<(Pos, Map)> = Vec::new();
    for (pos, m) in pieces {
        if let Some((first_pos, first)) = groups.first() {
            if first.space().is_map() != m.space().is_map() {
                return Err(pos.error(format!(
                    "cannot combine a set and a map in one object (the first piece, at {}:{}, is a {})",
                    first_pos.line,
                    first_pos.col,
                    if first.space().is_map() { "map" } else { "set" }
                )));
            }
            if first.space().is_params() != m.space().is_params() {
                return Err(pos.error("cannot combine a parameter domain with a set in one object"));
            }
        }
        let key = m.space().tuples_key();
        match groups
            .iter_mut()
            .find(|(_, g)| g.space().tuples_key() == key && g.space().tuples_match(m.space()))
        {
            Some((_, g)) => *g = g.union(&m)?,
            None => groups.push((pos, m)),
        }
    }
    Ok(groups)
}

/// The object's pieces grouped by space (with the position of each group's first piece),
/// its parameters and the position of its first token.
struct Groups {
    params: Vec<String>,
    groups: Vec<(Pos, Map)>,
    start: Pos,
}

fn read_groups(text: &str, line: usize, column: usize) -> Result<Groups> {
    let p = read_pieces(text, line, column)?;
    Ok(Groups {
        params: p.params,
        groups: group(p.pieces)?,
        start: p.start,
    })
}

/// Reads an object whose text starts at line `line`, column `column` of a larger text;
/// error positions are reported in that larger text.
pub fn parse_object_at(text: &str, line: usize, column: usize) -> Result<Parsed> {
    let Groups { params, groups, .. } = read_groups(text, line, column)?;
    let all_maps = groups.iter().all(|(_, m)| m.space().is_map());
    match groups.len() {
        0 => Ok(Parsed::UnionSet(UnionSet::empty(params))),
        1 => {
            let (_, m) = groups.into_iter().next().expect("one group");
            if m.space().is_map() {
                Ok(Parsed::Map(m))
            } else {
                Ok(Parsed::Set(Set::from_map(m)?))
            }
        }
        _ => {
            let mut u = UnionMap::empty(params);
            for (_, m) in groups {
                u.add_map(m)?;
            }
            if all_maps {
                Ok(Parsed::UnionMap(u))
            } else {
                u.into_union_set()
                    .map(Parsed::UnionSet)
                    .ok_or_else(|| Error::Unsupported("a union of sets and maps".into()))
            }
        }
    }
}

/// Reads an object (a set, map or union of them) and returns its most specific kind.
pub fn parse_object(text: &str) -> Result<Parsed> {
    parse_object_at(text, 1, 1)
}

/// Reads the text of exactly one space: the single map (or set) it describes.
fn parse_single(text: &str) -> Result<(Pos, Map)> {
    let Groups {
        mut groups, start, ..
    } = read_groups(text, 1, 1)?;
    match groups.len() {
        1 => Ok(groups.pop().expect("one group")),
        0 => Err(start.error("expected a set or map with a tuple, found an empty union '{ }'")),
        n => Err(groups[1].0.error(format!(
            "expected a single space, found a union of {n} spaces"
        ))),
    }
}

/// Reads a map. A set (or parameter domain) is returned as a [`Map`] in its set space.
pub fn parse_map(text: &str) -> Result<Map> {
    Ok(parse_single(text)?.1)
}

/// Reads a set (or a parameter domain `[N] -> { : … }`).
pub fn parse_set(text: &str) -> Result<Set> {
    let (pos, m) = parse_single(text)?;
    if m.space().is_map() {
        return Err(pos.error("expected a set, found a map"));
    }
    Set::from_map(m)
}

fn parse_single_basic(text: &str) -> Result<(Pos, BasicMap)> {
    let (pos, m) = parse_single(text)?;
    let space = m.space().clone();
    let mut parts = m.into_basic_maps();
    match parts.len() {
        0 => Ok((pos, BasicMap::empty(space))),
        1 => Ok((pos, parts.pop().expect("one part"))),
        n => Err(pos.error(format!(
            "expected a basic set or map, found a union of {n} basic sets or maps"
        ))),
    }
}

/// Reads a basic map: a map whose formula needs no disjunction.
pub fn parse_basic_map(text: &str) -> Result<BasicMap> {
    Ok(parse_single_basic(text)?.1)
}

/// Reads a basic set.
pub fn parse_basic_set(text: &str) -> Result<BasicSet> {
    let (pos, b) = parse_single_basic(text)?;
    if b.space().is_map() {
        return Err(pos.error("expected a set, found a map"));
    }
    BasicSet::from_basic_map(b)
}

/// Reads a union map (sets are accepted too: a [`UnionMap`] may hold sets).
pub fn parse_union_map(text: &str) -> Result<UnionMap> {
    Ok(match parse_object(text)? {
        Parsed::Set(s) => UnionMap::from_map(s.into_map()),
        Parsed::Map(m) => UnionMap::from_map(m),
        Parsed::UnionSet(u) => u.as_union_map().clone(),
        Parsed::UnionMap(u) => u,
    })
}

/// Reads a union set.
pub fn parse_union_set(text: &str) -> Result<UnionSet> {
    let Groups { params, groups, .. } = read_groups(text, 1, 1)?;
    let mut u = UnionSet::empty(params);
    for (pos, m) in groups {
        if m.space().is_map() {
            return Err(pos.error("expected a set, found a map"));
        }
        u.add_set(Set::from_map(m)?)?;
    }
    Ok(u)
}

impl FromStr for Parsed {
    type Err = Error;
    fn from_str(s: &str) -> Result<Parsed> {
        parse_object(s)
    }
}

impl FromStr for Map {
    type Err = Error;
    fn from_str(s: &str) -> Result<Map> {
        parse_map(s)
    }
}

impl FromStr for Set {
    type Err = Error;
    fn from_str(s: &str) -> Result<Set> {
        parse_set(s)
    }
}

impl FromStr for BasicMap {
    type Err = Error;
    fn from_str(s: &str) -> Result<BasicMap> {
        parse_basic_map(s)
    }
}

impl FromStr for BasicSet {
    type Err = Error;
    fn from_str(s: &str) -> Result<BasicSet> {
        parse_basic_set(s)
    }
}

impl FromStr for UnionMap {
    type Err = Error;
    fn from_str(s: &str) -> Result<UnionMap> {
        parse_union_map(s)
    }
}

impl FromStr for UnionSet {
    type Err = Error;
    fn from_str(s: &str) -> Result<UnionSet> {
        parse_union_set(s)
    }
}
