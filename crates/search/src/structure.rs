//! Fusion structures: per loop level, an ordered partition of the statements.
//!
//! A one-level statement interleaving is a total preorder of the statements (Pouchet et
//! al., *Loop Transformations: Convexity, Pruning and Optimization*, POPL 2011, Def. 4,
//! Def. 5 and Lemma 4; digest `shared/digests/pouchet-popl11.md` §2.3): its classes are
//! the statements fused under one loop at that level, in their execution order. A
//! multi-level [`Interleaving`] lists one [`FusionStructure`] per level, outermost
//! first, each refining the one above it (§2.5: statements distributed at level `k`
//! stay distributed, in the same order, at every deeper level).
//!
//! # Invariants
//! - the classes of a [`FusionStructure`] are non-empty, sorted, pairwise disjoint and
//!   cover `0..n`; `names` has `n` entries;
//! - level `k + 1` of an [`Interleaving`] refines level `k` and keeps its order.

use std::fmt;

use crate::error::{Error, Result};

/// One level of an interleaving: the statements (indices into `names`) grouped into
/// classes fused under a common loop, the classes in execution order.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FusionStructure {
    classes: Vec<Vec<usize>>,
    names: Vec<String>,
}

impl FusionStructure {
    /// The structure with the given classes over statements named `names`; fails with
    /// [`Error::NotAPartition`] unless the classes partition `0..names.len()`.
    pub fn new(mut classes: Vec<Vec<usize>>, names: Vec<String>) -> Result<FusionStructure> {
        let n = names.len();
        let mut seen = vec![false; n];
        for class in &mut classes {
            if class.is_empty() {
                return Err(Error::NotAPartition);
            }
            class.sort_unstable();
            for &s in class.iter() {
                if s >= n || seen[s] {
                    return Err(Error::NotAPartition);
                }
                seen[s] = true;
            }
        }
        if seen.iter().any(|s| !s) {
            return Err(Error::NotAPartition);
        }
        Ok(FusionStructure { classes, names })
    }

    /// The structure whose class of statement `s` is `ranks[s]` (dense ranks `0..k`).
    pub fn from_ranks(ranks: &[usize], names: Vec<String>) -> Result<FusionStructure> {
        let k = ranks.iter().map(|r| r + 1).max().unwrap_or(0);
        let mut classes = vec![Vec::new(); k];
        for (s, &r) in ranks.iter().enumerate() {
            classes[r].push(s);
        }
        FusionStructure::new(classes, names)
    }

    /// The classes, in execution order.
    pub fn classes(&self) -> &[Vec<usize>] {
        &self.classes
    }

    /// The statement names.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The number of statements.
    pub fn n_statements(&self) -> usize {
        self.names.len()
    }

    /// The position of each statement's class (dense ranks).
    pub fn ranks(&self) -> Vec<usize> {
        let mut ranks = vec![0; self.names.len()];
        for (r, class) in self.classes.iter().enumerate() {
            for &s in class {
                ranks[s] = r;
            }
        }
        ranks
    }

    /// Whether statements `a` and `b` are fused at this level.
    pub fn fused(&self, a: usize, b: usize) -> bool {
        let r = self.ranks();
        r.get(a).is_some() && r.get(a) == r.get(b)
    }

    /// Whether `self` refines `coarser` and keeps its order: every class of `self` lies
    /// in one class of `coarser`, and classes of `self` in different classes of
    /// `coarser` come in the same order.
    pub fn refines(&self, coarser: &FusionStructure) -> bool {
        if self.names.len() != coarser.names.len() {
            return false;
        }
        let outer = coarser.ranks();
        let mut last = 0;
        for class in &self.classes {
            let r = outer[class[0]];
            if class.iter().any(|&s| outer[s] != r) || r < last {
                return false;
            }
            last = r;
        }
        true
    }

    fn fmt_class(&self, class: &[usize], f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{{")?;
        for (k, &s) in class.iter().enumerate() {
            if k > 0 {
                write!(f, " ")?;
            }
            write!(f, "{}", self.names[s])?;
        }
        write!(f, "}}")
    }
}

/// Prints the classes in order, e.g. `{S0 S1} {S2}`.
impl fmt::Display for FusionStructure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (k, class) in self.classes.iter().enumerate() {
            if k > 0 {
                write!(f, " ")?;
            }
            self.fmt_class(class, f)?;
        }
        Ok(())
    }
}

/// A multi-level statement interleaving: one [`FusionStructure`] per loop level,
/// outermost first, each refining the previous one.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Interleaving {
    levels: Vec<FusionStructure>,
}

impl Interleaving {
    /// The interleaving with the given levels; fails with [`Error::NoLevel`] for no
    /// level and [`Error::NotAnInterleaving`] (naming the first offending level) when a
    /// level does not refine the level above it.
    pub fn new(levels: Vec<FusionStructure>) -> Result<Interleaving> {
        if levels.is_empty() {
            return Err(Error::NoLevel);
        }
        for (k, w) in levels.windows(2).enumerate() {
            if !w[1].refines(&w[0]) {
                return Err(Error::NotAnInterleaving { level: k + 1 });
            }
        }
        Ok(Interleaving { levels })
    }

    /// The levels, outermost first.
    pub fn levels(&self) -> &[FusionStructure] {
        &self.levels
    }

    /// The outermost level.
    pub fn outer(&self) -> &FusionStructure {
        &self.levels[0]
    }

    /// Prints the statements of `class` (a class of level `level`) grouped by their
    /// classes at the deeper levels.
    fn fmt_nested(&self, level: usize, class: &[usize], f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let structure = &self.levels[level];
        if level + 1 == self.levels.len() {
            return structure.fmt_class(class, f);
        }
        let inner = &self.levels[level + 1];
        if inner.classes().iter().any(|sub| sub.as_slice() == class) {
            // Not split at the next level: no extra braces.
            return self.fmt_nested(level + 1, class, f);
        }
        write!(f, "{{")?;
        let mut first = true;
        for sub in inner.classes() {
            if sub.iter().all(|s| class.contains(s)) {
                if !first {
                    write!(f, " ")?;
                }
                first = false;
                self.fmt_nested(level + 1, sub, f)?;
            }
        }
        write!(f, "}}")
    }
}

/// Prints the outer classes in order, each split at a deeper level with its classes
/// there nested in braces: `{{S0 S1} {S2}} {S3}` fuses S0, S1 and S2 at the outer level
/// and S0 with S1 at the second (and below); a class that is not split prints once. A
/// one-level interleaving prints as its [`FusionStructure`].
impl fmt::Display for Interleaving {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (k, class) in self.levels[0].classes().iter().enumerate() {
            if k > 0 {
                write!(f, " ")?;
            }
            self.fmt_nested(0, class, f)?;
        }
        Ok(())
    }
}

/// Whether `a` precedes `b` in the lexicographic order of the paper's footnote 1: some
/// position `i < min(len a, len b)` has `a[..i] == b[..i]` and `a[i] < b[i]`.
pub fn lex_precedes<T: Ord>(a: &[T], b: &[T]) -> bool {
    for (x, y) in a.iter().zip(b) {
        if x != y {
            return x < y;
        }
    }
    false
}
