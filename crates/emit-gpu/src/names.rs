//! Names of the generated code: the identifiers of the user's file, and fresh names for
//! the generated iterators, kernel arguments, kernels and host variables that none of
//! them shadows.
//!
//! Statement bodies are printed inside the kernels where the generated iterators and
//! arguments are in scope, and the host code lives inside the user's function: a
//! generated name equal to a variable of a statement body (PolyBench's deriche has
//! scalars `c1` and `c2`) or to a macro of the file would capture it. So every generated
//! name is checked against every identifier-like word of the whole file (comments and
//! strings included, which only makes the check stricter) and the parameters, and a
//! prefix is added to all of a group when one collides.

pub(crate) use pollen_emit_text::{fresh_prefix, is_identifier, words};

/// The prefixes tried, in order, for the names that appear in kernels (iterators,
/// kernel arguments, kernels).
pub(crate) const KERNEL_PREFIXES: [&str; 4] = ["", "p_", "pollen_", "pollen_gen_"];

/// The prefixes tried, in order, for the host variables of the generated code.
pub(crate) const HOST_PREFIXES: [&str; 3] = ["pollen_", "pollen_gen_", "pollen_host_"];
