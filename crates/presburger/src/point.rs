//! Points: one integer tuple of a set space, with values for its parameters.
//!
//! A [`Point`] is isl's `isl_point`. Its coordinates are the parameter values followed by
//! the set dimensions, the column order of every set of the space.
//!
//! # Invariants
//! `coords.len() == space.n_dims()` and the space is a set space or a parameter domain.

use std::fmt;

use pollen_arith::Int;

use crate::error::{Error, Result};
use crate::set::Set;
use crate::space::{DimKind, Space};

/// An integer point of a set space.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Point {
    space: Space,
    coords: Vec<Int>,
}

impl Point {
    /// The point of `space` with the given coordinates (parameters first).
    pub fn new(space: Space, coords: Vec<Int>) -> Result<Point> {
        if space.is_map() {
            return Err(Error::Unsupported("a point lives in a set space".into()));
        }
        if coords.len() != space.n_dims() {
            return Err(Error::Unsupported(format!(
                "a point of {space} needs {} coordinates, found {}",
                space.n_dims(),
                coords.len()
            )));
        }
        Ok(Point { space, coords })
    }

    /// The space.
    pub fn space(&self) -> &Space {
        &self.space
    }

    /// All coordinates: parameter values, then set dimensions.
    pub fn coords(&self) -> &[Int] {
        &self.coords
    }

    /// The value of the parameter or set dimension `pos` of `kind`.
    pub fn coord(&self, kind: DimKind, pos: usize) -> Option<&Int> {
        (pos < self.space.n(kind)).then(|| &self.coords[self.space.offset(kind) + pos])
    }

    /// The set holding just this point (with its parameters fixed).
    pub fn to_set(&self) -> Set {
        let mut set = Set::universe(self.space.clone());
        let np = self.space.n_params();
        for (i, v) in self.coords.iter().enumerate() {
            let (kind, pos) = if i < np {
                (DimKind::Param, i)
            } else {
                (DimKind::Out, i - np)
            };
            set = set
                .fix_val(kind, pos, v)
                .expect("coordinates match the space");
        }
        set
    }
}

impl fmt::Display for Point {
    /// The point as the isl set holding just it, e.g. `[N] -> { [1, 2] : N = 3 }`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.to_set())
    }
}

impl Set {
    /// A point of the set, if it has one.
    pub fn sample_point(&self) -> Result<Option<Point>> {
        match self.sample()? {
            Some(coords) => Ok(Some(Point::new(self.space().clone(), coords)?)),
            None => Ok(None),
        }
    }

    /// Whether the point belongs to the set (its space must match the set's).
    pub fn contains(&self, point: &Point) -> Result<bool> {
        if !self.space().tuples_match(point.space())
            || self.space().param_names() != point.space().param_names()
        {
            return Err(crate::map::mismatch(
                "contains",
                self.space(),
                point.space(),
            ));
        }
        self.contains_point(point.coords())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::parse_set;

    #[test]
    fn sample_points_belong_to_their_set_and_print_as_one_point_sets() {
        let set = parse_set("[N] -> { S[i, j] : 0 <= i < j < N and N = 4 }").unwrap();
        let p = set.sample_point().unwrap().expect("non-empty");
        assert!(set.contains(&p).unwrap());
        assert_eq!(p.coord(DimKind::Param, 0), Some(&Int::from(4)));
        let back = parse_set(&p.to_string()).unwrap();
        assert!(back.is_equal(&p.to_set()).unwrap());
        assert!(back.is_subset(&set).unwrap());
        let empty = parse_set("{ [x, y] : 27 <= 11x + 13y <= 45 and -10 <= 7x - 9y <= 4 }");
        assert!(empty.unwrap().sample_point().unwrap().is_none());
    }

    #[test]
    fn malformed_points_are_errors() {
        let space = Space::set_anonymous(2);
        assert!(Point::new(space.clone(), vec![Int::from(1)]).is_err());
        let p = Point::new(space, vec![Int::from(1), Int::from(2)]).unwrap();
        let other = parse_set("{ [i] : i >= 0 }").unwrap();
        assert!(other.contains(&p).is_err());
        let same = parse_set("{ [i, j] : i < j }").unwrap();
        assert!(same.contains(&p).unwrap());
    }
}
