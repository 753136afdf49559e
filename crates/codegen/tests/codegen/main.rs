//! Tests of code generation: every example kernel under its original and its Pluto
//! schedule, hand-built trees, and the printed shape of some ASTs.

mod common;
mod hand;
mod jammed;
mod kernels;
mod shapes;
mod tiled;
mod transformed;
