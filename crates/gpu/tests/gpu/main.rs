//! The tests of the GPU mapping and of its checker, one binary: the example kernels
//! mapped and checked, the shapes of typical mappings, and wrong programs the checker
//! must refuse.

mod checker;
mod common;
mod flags;
mod kernels;
mod shapes;
