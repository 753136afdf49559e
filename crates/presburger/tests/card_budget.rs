//! Counting under a budget: boxes are counted in closed form whatever their size, and
//! the scan of a huge set that is not a box stops with `LimitExceeded` once its budget
//! is spent.

use pollen_presburger::text::{parse_set, parse_union_set};
use pollen_presburger::{Budget, Error, Int, Set};

fn set(text: &str) -> Set {
    parse_set(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn int(text: &str) -> Int {
    text.parse().unwrap_or_else(|e| panic!("{text}: {e:?}"))
}

#[test]
fn card_of_a_huge_box_is_exact() {
    let s = set("{ [i, j] : 0 <= i < 1000000000 and 0 <= j < 1000000000 }");
    let mut budget = Budget::new(100);
    assert_eq!(
        s.card_with(&mut budget).unwrap(),
        int("1000000000000000000")
    );
}

#[test]
fn card_of_boxes_beyond_i64_is_exact() {
    let s = set(
        "{ [i, j, k] : -1000000000 <= i <= 1000000000 and 0 <= j < 3000000000 \
                 and 5 <= 2k <= 4000000001 }",
    );
    // 2000000001 * 3000000000 * 1999999998
    let expected = int("2000000001") * int("3000000000") * int("1999999998");
    assert_eq!(s.card_with(&mut Budget::new(100)).unwrap(), expected);
}

#[test]
fn card_of_disjoint_boxes_adds_them_up() {
    let s = set("{ [i, j] : 0 <= i < 1000000000 and 0 <= j < 10; \
                 [i, j] : 0 <= i < 1000000000 and 20 <= j < 30 }");
    assert_eq!(
        s.card_with(&mut Budget::new(100)).unwrap(),
        int("20000000000")
    );
}

#[test]
fn card_of_boxes_agrees_with_the_scan() {
    for text in [
        "{ [i, j] : 0 <= i <= 4 and 2 <= j <= 3 }",
        "{ [i] : 3i = 6 }",
        "{ [i] : 2i = 1 }",
        "{ [i, j] : 5 <= i <= 4 and 0 <= j <= 3 }",
        "{ [i, j] : 0 <= 2i <= 7 and -3 <= 3j <= 4 }",
        "{ [i, j] : 0 <= i <= 4 and 0 <= j <= 3; [i, j] : 2 <= i <= 6 and 1 <= j <= 5 }",
        "{ [i] : 0 <= i <= 4; [i] : 10 <= i <= 12 }",
        "{ [i, j] : 0 <= i <= 4 and 0 <= j <= 3 and i + j >= -5 }",
        "{ [i, j] : 0 <= i <= 4 and 0 <= j <= 3 and i + j >= 2 }",
        "{ [i, j] : 0 <= i <= 6 and j = i }",
        "{ [i, j, k] : 0 <= i <= 3 and 0 <= j <= 2 and k = i + 2j - 1 }",
        "{ [i, j, k] : 0 <= i <= 3 and 0 <= j <= 2 and k = i + 2j and k <= 4 }",
        "{ [i, j, k] : 0 <= i <= 3 and 0 <= j <= 2 and 2k = i + 2j }",
        "{ [i, j] : 0 <= i <= 4 and j = i; [i, j] : 0 <= i <= 4 and j = i + 10 }",
    ] {
        let s = set(text);
        let scanned = Int::from(s.points().unwrap().len() as i64);
        assert_eq!(s.card().unwrap(), scanned, "{text}");
    }
}

#[test]
fn card_of_a_huge_box_up_to_redundancy_and_fixed_dimensions_is_exact() {
    let budget = || Budget::new(10_000);
    let s = set("{ [i, j] : 0 <= i < 1000000000 and 0 <= j < 1000000000 and i + j >= -5 }");
    assert_eq!(
        s.card_with(&mut budget()).unwrap(),
        int("1000000000000000000")
    );
    let s = set("{ [i, j] : 0 <= i < 1000000000 and i <= j <= i }");
    assert_eq!(s.card_with(&mut budget()).unwrap(), int("1000000000"));
    let s = set("{ [i, j, k] : 0 <= i < 1000000000 and 0 <= j < 1000000000 \
                 and k = 3i - j + 7 }");
    assert_eq!(
        s.card_with(&mut budget()).unwrap(),
        int("1000000000000000000")
    );
}

#[test]
fn card_of_an_unbounded_box_is_refused() {
    let s = set("{ [i, j] : 0 <= i and 0 <= j <= 3 }");
    assert_eq!(
        s.card_with(&mut Budget::new(1000)).unwrap_err(),
        Error::Unsupported("unbounded".into())
    );
}

#[test]
fn card_of_a_huge_non_box_exceeds_its_budget() {
    let s = set(
        "{ [i, j] : 0 <= i < 1000000000 and 0 <= j < 1000000000 and \
                 i + j <= 1500000000 }",
    );
    let mut budget = Budget::new(100_000);
    assert_eq!(s.card_with(&mut budget).unwrap_err(), Error::LimitExceeded);
    let s = set("{ [i, j] : 0 <= j <= i < 2000000000 }");
    assert_eq!(
        s.card_with(&mut Budget::new(100_000)).unwrap_err(),
        Error::LimitExceeded
    );
}

#[test]
fn points_of_a_huge_box_exceed_their_budget() {
    let s = set("{ [i, j] : 0 <= i < 1000000000 and 0 <= j < 1000000000 }");
    assert_eq!(
        s.points_with(&mut Budget::new(10_000)).unwrap_err(),
        Error::LimitExceeded
    );
}

#[test]
fn card_of_a_union_set_of_boxes() {
    let u =
        parse_union_set("{ A[i] : 0 <= i < 1000000000000; B[i, j] : 0 <= i, j < 1000 }").unwrap();
    let mut total = Int::zero();
    for m in u.as_union_map().maps() {
        total += Set::from_map(m.clone())
            .unwrap()
            .card_with(&mut Budget::new(10))
            .unwrap();
    }
    assert_eq!(total, int("1000001000000"));
}
