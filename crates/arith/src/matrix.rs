//! Small dense integer matrices: products, Hermite normal form, unimodular inverse, rank,
//! integer null-space bases and determinants.
//!
//! The Hermite normal form follows the classical column-reduction algorithm (see H. Cohen,
//! *A Course in Computational Algebraic Number Theory*, §2.4.2): rows are processed top to
//! bottom and the entries right of the current pivot are cleared with unimodular 2×2
//! extended-gcd transformations. It is implemented as row operations on the transpose,
//! which keeps every operation on contiguous memory.
//!
//! # Invariants
//!
//! An [`IntMatrix`] stores `rows * cols` entries in row-major order.

use crate::int::{ext_gcd, gcd_slice, Int};

/// Dense row-major integer matrix.
///
/// # Invariants
///
/// `data.len() == rows * cols`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IntMatrix {
    rows: usize,
    cols: usize,
    data: Vec<Int>,
}

impl IntMatrix {
    /// The `rows × cols` zero matrix.
    pub fn zeros(rows: usize, cols: usize) -> IntMatrix {
        IntMatrix {
            rows,
            cols,
            data: vec![Int::zero(); rows * cols],
        }
    }

    /// The `n × n` identity matrix.
    pub fn identity(n: usize) -> IntMatrix {
        let mut m = IntMatrix::zeros(n, n);
        for i in 0..n {
            m.data[i * n + i] = Int::one();
        }
        m
    }

    /// The matrix with the given rows; the column count is the length of the first row
    /// (an empty `rows` gives the `0 × 0` matrix; use [`IntMatrix::zeros`] for `0 × n`).
    ///
    /// # Panics
    ///
    /// Panics if the rows do not all have the same length.
    pub fn from_rows(rows: Vec<Vec<Int>>) -> IntMatrix {
        let n_rows = rows.len();
        let cols = rows.first().map_or(0, Vec::len);
        let mut data = Vec::with_capacity(n_rows * cols);
        for row in rows {
            assert_eq!(row.len(), cols, "IntMatrix::from_rows: ragged rows");
            data.extend(row);
        }
        IntMatrix {
            rows: n_rows,
            cols,
            data,
        }
    }

    /// Number of rows.
    #[inline]
    pub fn n_rows(&self) -> usize {
        self.rows
    }

    /// Number of columns.
    #[inline]
    pub fn n_cols(&self) -> usize {
        self.cols
    }

    /// The entry at row `r`, column `c`.
    ///
    /// # Panics
    ///
    /// Panics if the position is out of bounds.
    #[inline]
    pub fn get(&self, r: usize, c: usize) -> &Int {
        assert!(
            r < self.rows && c < self.cols,
            "IntMatrix::get out of bounds"
        );
        &self.data[r * self.cols + c]
    }

    /// Sets the entry at row `r`, column `c`.
    ///
    /// # Panics
    ///
    /// Panics if the position is out of bounds.
    #[inline]
    pub fn set(&mut self, r: usize, c: usize, v: Int) {
        assert!(
            r < self.rows && c < self.cols,
            "IntMatrix::set out of bounds"
        );
        self.data[r * self.cols + c] = v;
    }

    /// Row `r` as a slice.
    ///
    /// # Panics
    ///
    /// Panics if `r` is out of bounds.
    #[inline]
    pub fn row(&self, r: usize) -> &[Int] {
        assert!(r < self.rows, "IntMatrix::row out of bounds");
        &self.data[r * self.cols..(r + 1) * self.cols]
    }

    /// Row `r` as a mutable slice.
    ///
    /// # Panics
    ///
    /// Panics if `r` is out of bounds.
    #[inline]
    pub fn row_mut(&mut self, r: usize) -> &mut [Int] {
        assert!(r < self.rows, "IntMatrix::row_mut out of bounds");
        &mut self.data[r * self.cols..(r + 1) * self.cols]
    }

    /// The rows as vectors.
    pub fn to_rows(&self) -> Vec<Vec<Int>> {
        (0..self.rows).map(|r| self.row(r).to_vec()).collect()
    }

    /// The transposed matrix.
    pub fn transpose(&self) -> IntMatrix {
        let mut data = Vec::with_capacity(self.data.len());
        for c in 0..self.cols {
            for r in 0..self.rows {
                data.push(self.data[r * self.cols + c].clone());
            }
        }
        IntMatrix {
            rows: self.cols,
            cols: self.rows,
            data,
        }
    }

    /// The product `self * other`.
    ///
    /// # Panics
    ///
    /// Panics if `self.n_cols() != other.n_rows()`.
    pub fn mul(&self, other: &IntMatrix) -> IntMatrix {
        assert_eq!(self.cols, other.rows, "IntMatrix::mul: dimension mismatch");
        let mut out = IntMatrix::zeros(self.rows, other.cols);
        for r in 0..self.rows {
            for (k, a) in self.row(r).iter().enumerate() {
                if a.is_zero() {
                    continue;
                }
                let b_row = &other.data[k * other.cols..(k + 1) * other.cols];
                let out_row = &mut out.data[r * other.cols..(r + 1) * other.cols];
                for (o, b) in out_row.iter_mut().zip(b_row) {
                    if !b.is_zero() {
                        *o += a * b;
                    }
                }
            }
        }
        out
    }

    /// The matrix-vector product `self * v`.
    ///
    /// # Panics
    ///
    /// Panics if `v.len() != self.n_cols()`.
    pub fn mul_vec(&self, v: &[Int]) -> Vec<Int> {
        assert_eq!(self.cols, v.len(), "IntMatrix::mul_vec: dimension mismatch");
        (0..self.rows)
            .map(|r| self.row(r).iter().zip(v).map(|(a, b)| a * b).sum())
            .collect()
    }

    /// Swaps rows `a` and `b`.
    ///
    /// # Panics
    ///
    /// Panics if either index is out of bounds.
    pub fn swap_rows(&mut self, a: usize, b: usize) {
        assert!(
            a < self.rows && b < self.rows,
            "IntMatrix::swap_rows out of bounds"
        );
        if a == b {
            return;
        }
        let (lo, hi) = (a.min(b), a.max(b));
        let (head, tail) = self.data.split_at_mut(hi * self.cols);
        head[lo * self.cols..(lo + 1) * self.cols].swap_with_slice(&mut tail[..self.cols]);
    }

    /// Swaps columns `a` and `b`.
    ///
    /// # Panics
    ///
    /// Panics if either index is out of bounds.
    pub fn swap_cols(&mut self, a: usize, b: usize) {
        assert!(
            a < self.cols && b < self.cols,
            "IntMatrix::swap_cols out of bounds"
        );
        for r in 0..self.rows {
            self.data.swap(r * self.cols + a, r * self.cols + b);
        }
    }

    /// Column-style Hermite normal form: returns `(H, U, rank)` with `self * U = H`, `U`
    /// unimodular (determinant ±1), and `H` lower triangular in column-echelon form: the
    /// first `rank` columns carry pivots at strictly increasing rows, each pivot is positive,
    /// the entries left of a pivot in its row are reduced to `[0, pivot)`, and the remaining
    /// columns are zero.
    pub fn hermite_normal_form(&self) -> (IntMatrix, IntMatrix, usize) {
        let (m, n) = (self.rows, self.cols);
        // Row operations on T = [selfᵀ | I] (n × (m + n)); then H = Tᵀ[..m], U = Tᵀ[m..].
        let width = m + n;
        let mut t = IntMatrix::zeros(n, width);
        for r in 0..m {
            for c in 0..n {
                t.data[c * width + r] = self.data[r * n + c].clone();
            }
        }
        for i in 0..n {
            t.data[i * width + m + i] = Int::one();
        }
        let mut rank = 0;
        for col in 0..m {
            if rank == n {
                break;
            }
            if hnf_pivot(&mut t, col, rank) {
                rank += 1;
            }
        }
        let mut h = IntMatrix::zeros(m, n);
        let mut u = IntMatrix::zeros(n, n);
        for (c, trow) in t.data.chunks(width.max(1)).take(n).enumerate() {
            let (h_part, u_part) = trow.split_at(m);
            for (r, v) in h_part.iter().enumerate() {
                h.data[r * n + c] = v.clone();
            }
            for (r, v) in u_part.iter().enumerate() {
                u.data[r * n + c] = v.clone();
            }
        }
        debug_assert_eq!(self.mul(&u), h, "HNF: self * U != H");
        (h, u, rank)
    }

    /// Inverse of a unimodular matrix, exact over the integers; `None` if the matrix is not
    /// square or its determinant is not ±1.
    pub fn unimodular_inverse(&self) -> Option<IntMatrix> {
        if self.rows != self.cols {
            return None;
        }
        // For a unimodular A the HNF is the identity, so A * U = I.
        let (h, u, _) = self.hermite_normal_form();
        (h == IntMatrix::identity(self.rows)).then_some(u)
    }

    /// Exact rank over the rationals.
    pub fn rank(&self) -> usize {
        let mut a = self.clone();
        let mut rank = 0;
        for c in 0..a.cols {
            if rank == a.rows {
                break;
            }
            let Some(p) = (rank..a.rows).find(|&r| !a.get(r, c).is_zero()) else {
                continue;
            };
            a.swap_rows(rank, p);
            let pivot_row = a.row(rank).to_vec();
            for r in rank + 1..a.rows {
                let f = a.get(r, c).clone();
                if f.is_zero() {
                    continue;
                }
                let row = a.row_mut(r);
                for (x, pv) in row.iter_mut().zip(&pivot_row).skip(c) {
                    *x = &*x * &pivot_row[c] - &f * pv;
                }
                let g = gcd_slice(row);
                if !g.is_zero() && !g.is_one() {
                    for x in row.iter_mut() {
                        *x = x.exact_div(&g);
                    }
                }
            }
            rank += 1;
        }
        rank
    }

    /// Integer basis of the rational null space of `self`, as column vectors.
    ///
    /// The vectors form a basis of the lattice `{x ∈ ℤⁿ : self · x = 0}` in column Hermite
    /// normal form (so the result is canonical), and each vector is primitive (gcd 1).
    /// There are `n_cols() - rank()` of them.
    pub fn null_space(&self) -> Vec<Vec<Int>> {
        let (_, u, rank) = self.hermite_normal_form();
        let n = self.cols;
        let k = n - rank;
        if k == 0 {
            return Vec::new();
        }
        let mut basis = IntMatrix::zeros(n, k);
        for r in 0..n {
            for c in 0..k {
                basis.data[r * k + c] = u.data[r * n + rank + c].clone();
            }
        }
        let (h, _, basis_rank) = basis.hermite_normal_form();
        debug_assert_eq!(basis_rank, k);
        let columns = h.transpose().to_rows();
        debug_assert!(columns.iter().all(|v| gcd_slice(v).is_one()));
        columns
    }

    /// Determinant of a square matrix (Bareiss fraction-free elimination); 1 for `0 × 0`.
    ///
    /// # Panics
    ///
    /// Panics if the matrix is not square.
    pub fn determinant(&self) -> Int {
        assert_eq!(self.rows, self.cols, "IntMatrix::determinant: not square");
        let n = self.rows;
        let mut a = self.clone();
        let mut prev = Int::one();
        let mut negate = false;
        for k in 0..n {
            let Some(p) = (k..n).find(|&r| !a.get(r, k).is_zero()) else {
                return Int::zero();
            };
            if p != k {
                a.swap_rows(k, p);
                negate = !negate;
            }
            let pivot = a.get(k, k).clone();
            for i in k + 1..n {
                for j in k + 1..n {
                    let v = &pivot * a.get(i, j) - a.get(i, k) * a.get(k, j);
                    a.data[i * n + j] = v.exact_div(&prev);
                }
                a.data[i * n + k] = Int::zero();
            }
            prev = pivot;
        }
        let det = if n == 0 {
            Int::one()
        } else {
            a.get(n - 1, n - 1).clone()
        };
        if negate {
            -det
        } else {
            det
        }
    }

    /// Replaces rows `k` and `j` by `(x·row_k + y·row_j, c·row_k + d·row_j)`.
    fn combine_rows(&mut self, k: usize, j: usize, x: &Int, y: &Int, c: &Int, d: &Int) {
        debug_assert!(k < j);
        let w = self.cols;
        let (head, tail) = self.data.split_at_mut(j * w);
        let rk = &mut head[k * w..(k + 1) * w];
        let rj = &mut tail[..w];
        for (a, b) in rk.iter_mut().zip(rj.iter_mut()) {
            if a.is_zero() && b.is_zero() {
                continue;
            }
            let na = x * &*a + y * &*b;
            let nb = c * &*a + d * &*b;
            *a = na;
            *b = nb;
        }
    }

    /// `row_j -= q · row_k`.
    fn sub_row_multiple(&mut self, j: usize, k: usize, q: &Int) {
        if q.is_zero() {
            return;
        }
        let w = self.cols;
        for c in 0..w {
            let v = &self.data[k * w + c];
            if !v.is_zero() {
                let d = q * v;
                self.data[j * w + c] -= d;
            }
        }
    }
}

/// One HNF step on the transposed work matrix `t`: makes `t[k][col]` the gcd of the column
/// entries at rows `k..`, clears the entries below it, makes it positive and reduces the
/// entries above it into `[0, pivot)`. Returns whether a pivot was found.
fn hnf_pivot(t: &mut IntMatrix, col: usize, k: usize) -> bool {
    let w = t.cols;
    for j in k + 1..t.rows {
        let b = t.data[j * w + col].clone();
        if b.is_zero() {
            continue;
        }
        let a = t.data[k * w + col].clone();
        if a.is_zero() {
            t.swap_rows(k, j);
        } else if a.divides(&b) {
            t.sub_row_multiple(j, k, &b.exact_div(&a));
        } else {
            let (g, x, y) = ext_gcd(&a, &b);
            // [x y; -b/g a/g] has determinant (a·x + b·y)/g = 1.
            let (c, d) = (-b.exact_div(&g), a.exact_div(&g));
            t.combine_rows(k, j, &x, &y, &c, &d);
        }
    }
    let pivot = t.data[k * w + col].clone();
    if pivot.is_zero() {
        return false;
    }
    if pivot.is_negative() {
        for v in t.row_mut(k) {
            *v = -&*v;
        }
    }
    let pivot = pivot.abs();
    for j in 0..k {
        let q = t.data[j * w + col].floor_div(&pivot);
        t.sub_row_multiple(j, k, &q);
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(rows: &[&[i64]]) -> IntMatrix {
        IntMatrix::from_rows(
            rows.iter()
                .map(|r| r.iter().map(|&v| Int::from(v)).collect())
                .collect(),
        )
    }

    #[test]
    fn basic_operations() {
        let a = m(&[&[1, 2, 3], &[4, 5, 6]]);
        assert_eq!(a.n_rows(), 2);
        assert_eq!(a.n_cols(), 3);
        assert_eq!(a.transpose(), m(&[&[1, 4], &[2, 5], &[3, 6]]));
        assert_eq!(a.mul(&a.transpose()), m(&[&[14, 32], &[32, 77]]));
        assert_eq!(
            a.mul_vec(&[Int::from(1), Int::from(0), Int::from(-1)]),
            vec![Int::from(-2), Int::from(-2)]
        );
        let mut b = a.clone();
        b.swap_rows(0, 1);
        b.swap_cols(0, 2);
        assert_eq!(b, m(&[&[6, 5, 4], &[3, 2, 1]]));
        b.set(0, 0, Int::from(9));
        assert_eq!(*b.get(0, 0), Int::from(9));
        b.row_mut(1)[1] = Int::from(7);
        assert_eq!(b.row(1), &[Int::from(3), Int::from(7), Int::from(1)]);
        assert_eq!(b.to_rows()[1][1], Int::from(7));
        assert_eq!(IntMatrix::from_rows(vec![]).n_cols(), 0);
        assert_eq!(IntMatrix::identity(2), m(&[&[1, 0], &[0, 1]]));
    }

    #[test]
    fn determinant_and_rank() {
        assert_eq!(
            m(&[&[2, 0, 1], &[1, 3, 2], &[1, 1, 2]]).determinant(),
            Int::from(6)
        );
        assert_eq!(m(&[&[0, 1], &[1, 0]]).determinant(), Int::from(-1));
        assert_eq!(m(&[&[1, 2], &[2, 4]]).determinant(), Int::zero());
        assert_eq!(IntMatrix::zeros(0, 0).determinant(), Int::one());
        assert_eq!(m(&[&[1, 2, 3], &[2, 4, 6], &[0, 0, 1]]).rank(), 2);
        assert_eq!(IntMatrix::zeros(3, 4).rank(), 0);
    }

    #[test]
    fn hermite_normal_form_example() {
        let a = m(&[&[2, 4, 6], &[1, 3, 5]]);
        let (h, u, rank) = a.hermite_normal_form();
        assert_eq!(rank, 2);
        assert_eq!(a.mul(&u), h);
        assert_eq!(h, m(&[&[2, 0, 0], &[0, 1, 0]]));
        assert_eq!(u.determinant().abs(), Int::one());
        let inv = u.unimodular_inverse().expect("U is unimodular");
        assert_eq!(u.mul(&inv), IntMatrix::identity(3));
        assert_eq!(m(&[&[2, 0], &[0, 1]]).unimodular_inverse(), None);
        assert_eq!(a.unimodular_inverse(), None);
    }

    #[test]
    fn null_space_example() {
        let a = m(&[&[2, 4, 6], &[1, 3, 5]]);
        let ns = a.null_space();
        assert_eq!(ns, vec![vec![Int::from(1), Int::from(-2), Int::from(1)]]);
        assert!(IntMatrix::identity(3).null_space().is_empty());
        assert_eq!(IntMatrix::zeros(0, 2).null_space().len(), 2);
    }
}
