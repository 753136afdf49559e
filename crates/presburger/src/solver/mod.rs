//! Integer and rational solvers over plain constraint systems.
