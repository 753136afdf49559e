//! Polyhedral code generation: a schedule tree and the statements' domains become a loop
//! [`ast::Ast`] that executes every statement instance once, in schedule order.

pub mod ast;

pub use ast::{Ast, Cond, Expr, Loop};
