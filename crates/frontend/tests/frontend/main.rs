//! Integration tests of the C frontend: extraction of snippets (domains, accesses,
//! arrays, parameters, context), exact C semantics checked by brute force, the order of
//! the schedule tree, every error with its position, robustness on garbage input, and
//! the repository's example kernels.

mod common;
mod errors;
mod extract;
mod kernels;
mod programs;
mod robustness;
mod semantics;
