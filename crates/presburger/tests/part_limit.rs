//! Unions whose parts multiply: a composition or an intersection that would produce more
//! than `MAX_PARTS` parts fails with `LimitExceeded` instead of exhausting memory, and
//! the same operations under the limit give their results.

use pollen_presburger::text::parse_map;
use pollen_presburger::{Error, Map, MAX_PARTS};

/// `{ [i] -> [j] : j = i + k }` for each `k` below `n`, one part each.
fn shifts(n: usize) -> Map {
    let parts: Vec<String> = (0..n).map(|k| format!("j = i + {k}")).collect();
    parse_map(&format!("{{ [i] -> [j] : {} }}", parts.join(" or "))).unwrap()
}

/// `{ [i] -> [j] : i >= k and j >= k }` for each `k` below `n`, one part each.
fn quadrants(n: usize, offset: usize) -> Map {
    let parts: Vec<String> = (0..n)
        .map(|k| format!("i >= {} and j >= {}", k + offset, 2 * k))
        .collect();
    parse_map(&format!("{{ [i] -> [j] : {} }}", parts.join(" or "))).unwrap()
}

#[test]
fn compositions_and_intersections_past_the_limit_fail_typed() {
    let side = 300;
    assert!(side * side > MAX_PARTS);
    let a = shifts(side);
    assert_eq!(a.basic_maps().len(), side);
    assert_eq!(a.apply_range(&a).unwrap_err(), Error::LimitExceeded);
    let (x, y) = (quadrants(side, 0), quadrants(side, 1));
    assert_eq!(x.intersect(&y).unwrap_err(), Error::LimitExceeded);
    // Under the limit: the same operations with fewer parts succeed, with the right
    // answer (shifts by 0..20 composed are shifts by 0..38).
    let small = shifts(20);
    let composed = small.apply_range(&small).unwrap();
    assert!(composed.is_equal(&shifts(39)).unwrap());
    let met = quadrants(20, 0).intersect(&quadrants(20, 1)).unwrap();
    assert!(met.is_subset(&quadrants(20, 0)).unwrap());
    // A union past the limit: two maps of just over half as many parts each.
    let part = a.basic_maps()[0].clone();
    let half = Map::from_parts(a.space().clone(), vec![part; MAX_PARTS / 2 + 1]).unwrap();
    assert_eq!(half.union(&half).unwrap_err(), Error::LimitExceeded);
    assert!(shifts(3).union(&shifts(2)).is_ok());
}
