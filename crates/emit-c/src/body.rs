//! Statement bodies as function-like macros.
//!
//! A statement `S0` with iterators `i, j` and body `C[i][j] *= beta;` becomes
//! `#define S0(i, j) C[i][j] *= beta`: the generated loops call `S0(c0, c1);` and the
//! preprocessor puts the values in place of the original iterators, so the body's text is
//! kept as written (macros, casts and all). A body written over several lines is joined
//! into one line and its comments are dropped ([`statement_text`]: a `//` comment would
//! otherwise swallow the rest of the macro); nothing else changes.

use pollen_emit_text::statement_text;

/// The `#define` line of a statement (with its line break).
pub(crate) fn definition(name: &str, iterators: &[String], body: &str) -> String {
    format!(
        "#define {name}({}) {}\n",
        iterators.join(", "),
        statement_text(body)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn definitions() {
        assert_eq!(
            definition("S0", &["i".into(), "j".into()], "C[i][j] *= beta;"),
            "#define S0(i, j) C[i][j] *= beta\n"
        );
        assert_eq!(definition("S1", &[], "x = 0;"), "#define S1() x = 0\n");
    }
}
