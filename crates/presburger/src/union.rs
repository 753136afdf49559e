//! Union sets and union maps: sets and maps in several spaces, keyed by their tuples.
//!
//! [`UnionMap`] is isl's `isl_union_map`: a map per distinct pair of tuples (name,
//! arity, nesting), all over one parameter list. Iteration and printing follow the
//! tuples' keys, so output is deterministic.

use std::collections::BTreeMap;

use crate::error::Result;
use crate::map::{merged_params, Map};
use crate::set::Set;
use crate::space::Space;

/// Maps in several spaces, keyed by tuple names.
#[derive(Clone, Debug, Default)]
pub struct UnionMap {
    params: Vec<String>,
    maps: BTreeMap<String, Map>,
}

/// Sets in several spaces, keyed by tuple names.
#[derive(Clone, Debug, Default)]
pub struct UnionSet(UnionMap);

impl UnionMap {
    /// The empty union over the given parameters.
    pub fn empty(params: Vec<String>) -> UnionMap {
        UnionMap {
            params,
            maps: BTreeMap::new(),
        }
    }

    /// The parameters.
    pub fn param_names(&self) -> &[String] {
        &self.params
    }

    /// Adds a map (a set or a map), uniting it with the one of the same tuples.
    pub fn add_map(&mut self, m: Map) -> Result<()> {
        let params = merged_params(&self.params, m.space().param_names());
        if params != self.params {
            self.realign(&params)?;
        }
        let m = m.align_params(&self.params)?;
        let key = m.space().tuples_key();
        let merged = match self.maps.remove(&key) {
            Some(old) => old.union(&m)?,
            None => m,
        };
        self.maps.insert(key, merged);
        Ok(())
    }

    fn realign(&mut self, params: &[String]) -> Result<()> {
        for m in self.maps.values_mut() {
            *m = m.align_params(params)?;
        }
        self.params = params.to_vec();
        Ok(())
    }

    /// The union of one map.
    pub fn from_map(m: Map) -> UnionMap {
        let mut u = UnionMap::empty(m.space().param_names().to_vec());
        let key = m.space().tuples_key();
        u.maps.insert(key, m);
        u
    }

    /// The maps, in key order.
    pub fn maps(&self) -> impl Iterator<Item = &Map> {
        self.maps.values()
    }

    /// Number of spaces.
    pub fn n_maps(&self) -> usize {
        self.maps.len()
    }

    /// The map with the same tuples as the given key, if any.
    pub fn get(&self, key: &str) -> Option<&Map> {
        self.maps.get(key)
    }

    /// Union.
    pub fn union(&self, other: &UnionMap) -> Result<UnionMap> {
        let mut u = self.clone();
        for m in other.maps() {
            u.add_map(m.clone())?;
        }
        Ok(u)
    }

    /// Intersection (per space).
    pub fn intersect(&self, other: &UnionMap) -> Result<UnionMap> {
        let params = merged_params(&self.params, &other.params);
        let mut u = UnionMap::empty(params);
        for (k, m) in &self.maps {
            if let Some(o) = other.maps.get(k) {
                u.add_map(m.intersect(o)?)?;
            }
        }
        Ok(u)
    }

    /// Whether every map is empty.
    pub fn is_empty(&self) -> Result<bool> {
        for m in self.maps() {
            if !m.is_empty()? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The inverse of every map.
    pub fn reverse(&self) -> UnionMap {
        self.map_each(|m| Ok(m.reverse()))
            .expect("reverse cannot fail")
    }

    /// The union of the domains.
    pub fn domain(&self) -> UnionSet {
        UnionSet(
            self.map_each(|m| Ok(m.domain()))
                .expect("domain cannot fail"),
        )
    }

    /// The union of the ranges.
    pub fn range(&self) -> UnionSet {
        UnionSet(self.map_each(|m| Ok(m.range())).expect("range cannot fail"))
    }

    /// Applies `f` to every map and collects the results.
    pub fn map_each(&self, f: impl Fn(&Map) -> Result<Map>) -> Result<UnionMap> {
        let mut u = UnionMap::empty(self.params.clone());
        for m in self.maps() {
            u.add_map(f(m)?)?;
        }
        Ok(u)
    }

    /// Composition: for every pair of maps whose middle tuples agree.
    pub fn apply_range(&self, other: &UnionMap) -> Result<UnionMap> {
        let mut u = UnionMap::empty(merged_params(&self.params, &other.params));
        for a in self.maps() {
            for b in other.maps() {
                if a.space().is_map()
                    && b.space().is_map()
                    && a.space().range_tuple() == b.space().domain_tuple()
                {
                    u.add_map(a.apply_range(b)?)?;
                }
            }
        }
        Ok(u)
    }

    /// The image of a union set.
    pub fn apply_to(&self, set: &UnionSet) -> Result<UnionSet> {
        let mut u = UnionMap::empty(merged_params(&self.params, &set.0.params));
        for s in set.0.maps() {
            for m in self.maps() {
                if m.space().is_map() && m.space().domain_tuple() == s.space().range_tuple() {
                    u.add_map(m.apply_to_set(s)?)?;
                }
            }
        }
        Ok(UnionSet(u))
    }

    /// Intersection of the domains with a union set.
    pub fn intersect_domain(&self, set: &UnionSet) -> Result<UnionMap> {
        let mut u = UnionMap::empty(merged_params(&self.params, &set.0.params));
        for m in self.maps() {
            for s in set.0.maps() {
                if m.space().domain_tuple() == s.space().range_tuple() {
                    u.add_map(m.intersect_domain(s)?)?;
                }
            }
        }
        Ok(u)
    }

    /// Intersection of the ranges with a union set.
    pub fn intersect_range(&self, set: &UnionSet) -> Result<UnionMap> {
        let mut u = UnionMap::empty(merged_params(&self.params, &set.0.params));
        for m in self.maps() {
            for s in set.0.maps() {
                if m.space().range_tuple() == s.space().range_tuple() {
                    u.add_map(m.intersect_range(s)?)?;
                }
            }
        }
        Ok(u)
    }

    /// The deltas `{ y - x }` of the members whose domain and range are the same space
    /// (as isl, the other members are skipped).
    pub fn deltas(&self) -> Result<UnionSet> {
        let mut u = UnionMap::empty(self.params.clone());
        for m in self.maps() {
            if m.space().is_map() && m.space().domain_tuple() == m.space().range_tuple() {
                u.add_map(m.deltas()?)?;
            }
        }
        Ok(UnionSet(u))
    }

    /// Whether `self ⊆ other` and `self ≠ other`.
    pub fn is_strict_subset(&self, other: &UnionMap) -> Result<bool> {
        Ok(self.is_subset(other)? && !other.is_subset(self)?)
    }

    /// The parameter values for which some member is non-empty.
    pub fn params(&self) -> Result<Set> {
        let mut out = Set::empty(Space::params(self.params.clone()));
        for m in self.maps() {
            out = out.union(&m.params_set())?;
        }
        Ok(out)
    }

    /// Every member coalesced.
    pub fn coalesce(&self) -> Result<UnionMap> {
        self.map_each(|m| m.coalesce())
    }

    /// The lexicographic minimum of every member (per domain point for maps).
    pub fn lexmin(&self) -> Result<UnionMap> {
        self.map_each(|m| m.lexmin())
    }

    /// The lexicographic maximum of every member (per domain point for maps).
    pub fn lexmax(&self) -> Result<UnionMap> {
        self.map_each(|m| m.lexmax())
    }

    /// Views the union as a union set when every member is a set.
    pub fn into_union_set(self) -> Option<UnionSet> {
        if self.maps().all(|m| !m.space().is_map()) {
            Some(UnionSet(self))
        } else {
            None
        }
    }
}

impl UnionSet {
    /// The empty union set.
    pub fn empty(params: Vec<String>) -> UnionSet {
        UnionSet(UnionMap::empty(params))
    }

    /// The union of one set.
    pub fn from_set(s: Set) -> UnionSet {
        UnionSet(UnionMap::from_map(s.into_map()))
    }

    /// Adds a set.
    pub fn add_set(&mut self, s: Set) -> Result<()> {
        self.0.add_map(s.into_map())
    }

    /// The sets, in key order.
    pub fn sets(&self) -> impl Iterator<Item = Set> + '_ {
        self.0
            .maps()
            .map(|m| Set::from_map(m.clone()).expect("union set holds sets"))
    }

    /// The underlying union map.
    pub fn as_union_map(&self) -> &UnionMap {
        &self.0
    }

    /// Union.
    pub fn union(&self, other: &UnionSet) -> Result<UnionSet> {
        Ok(UnionSet(self.0.union(&other.0)?))
    }

    /// Intersection.
    pub fn intersect(&self, other: &UnionSet) -> Result<UnionSet> {
        Ok(UnionSet(self.0.intersect(&other.0)?))
    }

    /// Whether every set is empty.
    pub fn is_empty(&self) -> Result<bool> {
        self.0.is_empty()
    }

    /// The parameters.
    pub fn param_names(&self) -> &[String] {
        self.0.param_names()
    }

    /// Whether `self ⊆ other` and `self ≠ other`.
    pub fn is_strict_subset(&self, other: &UnionSet) -> Result<bool> {
        self.0.is_strict_subset(&other.0)
    }

    /// The parameter values for which some member is non-empty.
    pub fn params(&self) -> Result<Set> {
        self.0.params()
    }

    /// Every member coalesced.
    pub fn coalesce(&self) -> Result<UnionSet> {
        Ok(UnionSet(self.0.coalesce()?))
    }

    /// The lexicographic minimum of every member.
    pub fn lexmin(&self) -> Result<UnionSet> {
        Ok(UnionSet(self.0.lexmin()?))
    }

    /// The lexicographic maximum of every member.
    pub fn lexmax(&self) -> Result<UnionSet> {
        Ok(UnionSet(self.0.lexmax()?))
    }
}
