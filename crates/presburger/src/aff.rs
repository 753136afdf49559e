//! Quasi-affine functions and their piecewise forms.
