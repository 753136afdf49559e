//! Parametric lexicographic optimisation.
