//! The μ/λ decomposition of a schedule row with non-negative coefficients.
//!
//! Pouchet et al., POPL 2011, §4.3 (digest `shared/digests/pouchet-popl11.md` §2.9):
//! a row `Θ = (θ_iterators, θ_params, θ_const)` with every coefficient in N splits as
//! `Θ = μ + λ`, `μ` a pure loop selector (one iterator coefficient 1, all else 0) and
//! `λ ∈ N` the rest (skewing, shifting, parametric shifting). By the paper's
//! convention μ selects the first non-null iterator coefficient, which makes the
//! decomposition unique.

use pollen_arith::Int;

/// A row split into its loop selector and the rest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decomposition {
    /// The selected iterator's position.
    pub selected: usize,
    /// μ: 1 at `selected`, 0 elsewhere, as long as the row.
    pub mu: Vec<Int>,
    /// λ = row − μ.
    pub lambda: Vec<Int>,
}

/// The decomposition of `row` (`n_iterators` iterator coefficients first, then the
/// parameters and the constant), or `None` when a coefficient is negative or the
/// iterator part is zero.
pub fn decompose(row: &[Int], n_iterators: usize) -> Option<Decomposition> {
    if row.len() < n_iterators || row.iter().any(Int::is_negative) {
        return None;
    }
    let selected = row[..n_iterators].iter().position(|c| !c.is_zero())?;
    let mut mu = vec![Int::zero(); row.len()];
    mu[selected] = Int::one();
    let lambda = row.iter().zip(&mu).map(|(r, m)| r - m).collect();
    Some(Decomposition {
        selected,
        mu,
        lambda,
    })
}
