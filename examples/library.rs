//! The library example of the README: dependence distances and a count, on sets and
//! maps written in isl syntax. `crates/cli/tests/library_example.rs` runs it and checks
//! that the README shows this code unchanged.

use pollen_presburger::{Int, Map, Set};

/// Dependence distances and a count, on sets and maps written in isl syntax.
pub fn main() -> pollen_presburger::Result<()> {
    let domain: Set = "[N] -> { S[i, j] : 0 <= i < N and 0 <= j < N }".parse()?;
    let dependence: Map = "[N] -> { S[i, j] -> S[i + 1, j - 1] }".parse()?;

    // Keep the pairs whose both ends are in the domain.
    let dependence = dependence
        .intersect_domain(domain.as_map())?
        .intersect_range(domain.as_map())?;
    let distances = dependence.deltas_set()?;
    let expected: Set = "[N] -> { S[1, -1] : N >= 2 }".parse()?;
    assert!(distances.is_equal(&expected)?);
    println!("{distances}");

    // Bounded sets without parameters can be counted.
    let triangle: Set = "{ [i, j] : 0 <= j <= i < 10 }".parse()?;
    assert_eq!(triangle.card()?, Int::from(55));
    Ok(())
}
