//! The small maps that tiling composes with band schedules: floor divisions by tile sizes,
//! permutations and skews of band members.
//!
//! Every map here goes between anonymous tuples without parameters; band schedules are
//! given an anonymous range ([`anonymous_range`]) before composition so that the tuples
//! match.

use pollen_arith::Int;
use pollen_presburger::{BasicMap, Map, Space, Tuple};

use crate::error::Result;

/// `{ [x_0, ..., x_{n-1}] -> [floor(x_0 / s_0), ..., floor(x_{n-1} / s_{n-1})] }`, with the
/// floor divisions as known local variables (a size of 1 is the identity on its member).
///
/// `sizes` must be positive (checked by the caller).
pub fn tile_map(sizes: &[i64]) -> Map {
    let n = sizes.len();
    let space = Space::map(Vec::new(), Tuple::anonymous(n), Tuple::anonymous(n));
    let mut b = BasicMap::universe(space);
    for (k, &s) in sizes.iter().enumerate() {
        let x = 1 + k;
        let y = 1 + n + k;
        let mut eq = b.zero_row();
        if s == 1 {
            eq[y] = Int::one();
            eq[x] = -Int::one();
        } else {
            let mut num = b.zero_row();
            num[x] = Int::one();
            let div = b.add_known_div(num, Int::from(s));
            eq = b.zero_row();
            eq[y] = Int::one();
            eq[div] = -Int::one();
        }
        b.add_eq(eq);
    }
    Map::from_basic(b)
}

/// The linear map `{ [x] -> [M·x] }` of an integer matrix with `rows.len()` output and
/// `n_in` input dimensions.
pub fn linear_map(rows: &[Vec<i64>], n_in: usize) -> Map {
    let n_out = rows.len();
    let space = Space::map(Vec::new(), Tuple::anonymous(n_in), Tuple::anonymous(n_out));
    let mut b = BasicMap::universe(space);
    for (k, row) in rows.iter().enumerate() {
        let mut eq = b.zero_row();
        eq[1 + n_in + k] = Int::one();
        for (j, &c) in row.iter().enumerate() {
            eq[1 + j] = -Int::from(c);
        }
        b.add_eq(eq);
    }
    Map::from_basic(b)
}

/// `{ [x_0, ..., x_{n-1}] -> [x_{order[0]}, ..., x_{order[n-1]}] }`.
pub fn permutation_map(order: &[usize]) -> Map {
    let n = order.len();
    let rows: Vec<Vec<i64>> = order
        .iter()
        .map(|&from| (0..n).map(|j| i64::from(j == from)).collect())
        .collect();
    linear_map(&rows, n)
}

/// `{ [y_0, y_1, y_2, ...] -> [y_0 + y_1, y_1, y_2, ...] }`: the wavefront skew of a band of
/// at least two members.
pub fn wavefront_map(n: usize) -> Map {
    let rows: Vec<Vec<i64>> = (0..n)
        .map(|k| {
            (0..n)
                .map(|j| i64::from(j == k || (k == 0 && j == 1)))
                .collect()
        })
        .collect();
    linear_map(&rows, n)
}

/// `{ [x] -> [x + e_member] }` on `n` dimensions: one step along one band member.
pub fn unit_step_map(n: usize, member: usize) -> Map {
    let space = Space::map(Vec::new(), Tuple::anonymous(n), Tuple::anonymous(n));
    let mut b = BasicMap::universe(space);
    for k in 0..n {
        let mut eq = b.zero_row();
        eq[1 + n + k] = Int::one();
        eq[1 + k] = -Int::one();
        if k == member {
            eq[0] = -Int::one();
        }
        b.add_eq(eq);
    }
    Map::from_basic(b)
}

/// The map with its range tuple replaced by an anonymous one of the same arity.
pub fn anonymous_range(m: &Map) -> Map {
    let space = m.space();
    let domain = space
        .domain_tuple()
        .cloned()
        .unwrap_or_else(|| Tuple::anonymous(0));
    let anonymous = Space::map(
        space.param_names().to_vec(),
        domain,
        Tuple::anonymous(space.n_out()),
    );
    m.clone().with_space(anonymous)
}

/// Composes a band schedule `{ S[i] -> [f] }` with `{ [f] -> [g] }`.
pub fn compose(schedule: &Map, then: &Map) -> Result<Map> {
    Ok(anonymous_range(schedule).apply_range(then)?)
}
