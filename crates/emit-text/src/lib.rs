//! C text shared by the emitters (`pollen-emit-c` and `pollen-emit-gpu`).
//!
//! Both emitters print loop ASTs into the user's C file and copy the statements' C text
//! into what they print. The pieces of that work that do not depend on the target live
//! here:
//! - [`token`]: a C tokenizer for one line of statement text ([`tokens`]) and bracket
//!   matching;
//! - [`source`]: a statement's text as one line (comments removed, lines joined) and the
//!   indentation of a region;
//! - [`names`]: the identifiers of a text and fresh prefixes for generated names;
//! - [`relocate()`]: array references moved to a window array with shifted subscripts;
//! - [`expr`]: quasi-affine expressions and conditions printed as C, with the helper
//!   macros they call.
//!
//! Nothing here panics on its input: text that cannot be read is reported as `None`,
//! expressions that cannot be printed as an [`ExprError`].

pub mod expr;
pub mod names;
pub mod relocate;
pub mod source;
pub mod token;

pub use expr::{ExprError, ExprPrinter, Helper};
pub use names::{fresh_prefix, is_identifier, words};
pub use relocate::{relocate, Relocation};
pub use source::{indentation, statement_text};
pub use token::{matching_bracket, tokens, Token, TokenKind};
