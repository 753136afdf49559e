//! Set-algebra operations that need the integer solver: subtraction and complement,
//! comparisons, coalescing, gist, hulls.

mod subtract;
