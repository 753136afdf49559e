//! Statement text and regions as the emitters copy them.
//!
//! A statement's C text may span several lines and hold comments; the emitters print it
//! on one line (inside a macro definition or a kernel), where a `//` comment would
//! swallow the rest. [`statement_text`] drops the comments (outside string and character
//! literals), joins the lines and removes the final `;`; nothing else changes.
//! [`indentation`] finds the indentation the generated code of a region is printed at.

/// The statement's C text as one line: without its final `;`, comments removed and line
/// breaks (with the whitespace around them) replaced by one space.
pub fn statement_text(body: &str) -> String {
    let text = strip_comments(body);
    let text = join_lines(&text);
    let text = text.trim();
    let text = text.strip_suffix(';').unwrap_or(text);
    text.trim_end().to_string()
}

/// The indentation of the region's first line of code after the `#pragma scop` line
/// (that of the pragma line itself when there is none).
pub fn indentation(region: &str) -> String {
    let leading = |line: &str| -> String {
        line.chars()
            .take_while(|c| *c == ' ' || *c == '\t')
            .collect()
    };
    let mut lines = region.lines();
    let first = lines.next().unwrap_or("");
    lines
        .find(|l| {
            let t = l.trim();
            !t.is_empty() && !t.starts_with('#')
        })
        .map_or_else(|| leading(first), leading)
}

/// The text with every comment replaced by a line break (a `//` comment by the one
/// that ends it), string and character literals
/// left alone.
fn strip_comments(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut k = 0;
    while k < chars.len() {
        let c = chars[k];
        let next = chars.get(k + 1).copied();
        if c == '/' && next == Some('*') {
            k += 2;
            while k < chars.len() && !(chars[k] == '*' && chars.get(k + 1) == Some(&'/')) {
                k += 1;
            }
            k += 2;
            // A line break, so that the whitespace around the comment becomes one space.
            out.push('\n');
        } else if c == '/' && next == Some('/') {
            while k < chars.len() && chars[k] != '\n' {
                k += 1;
            }
        } else if c == '"' || c == '\'' {
            k = copy_literal(&chars, k, &mut out);
        } else {
            out.push(c);
            k += 1;
        }
    }
    out
}

/// Copies the string or character literal starting at `start` (escapes included) and
/// returns the index after it.
fn copy_literal(chars: &[char], start: usize, out: &mut String) -> usize {
    let quote = chars[start];
    out.push(quote);
    let mut k = start + 1;
    while k < chars.len() {
        let c = chars[k];
        out.push(c);
        k += 1;
        if c == '\\' {
            if let Some(&escaped) = chars.get(k) {
                out.push(escaped);
                k += 1;
            }
        } else if c == quote || c == '\n' {
            break;
        }
    }
    k
}

/// Line continuations removed, and every run of whitespace that holds a line break
/// replaced by one space.
fn join_lines(text: &str) -> String {
    let text = text.replace("\\\r\n", "").replace("\\\n", "");
    let mut out = String::with_capacity(text.len());
    let mut run = String::new();
    for c in text.chars() {
        if c.is_whitespace() {
            run.push(c);
            continue;
        }
        flush_whitespace(&mut out, &mut run);
        out.push(c);
    }
    flush_whitespace(&mut out, &mut run);
    out
}

/// Appends a whitespace run as is, or as one space if it holds a line break.
fn flush_whitespace(out: &mut String, run: &mut String) {
    if run.contains('\n') || run.contains('\r') {
        out.push(' ');
    } else {
        out.push_str(run);
    }
    run.clear();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(body: &str, expected: &str) {
        assert_eq!(statement_text(body), expected);
    }

    #[test]
    fn single_line_bodies_are_kept() {
        check("C[i][j] *= beta;", "C[i][j] *= beta");
        check(
            "x = SCALAR_VAL(0.5) * (DATA_TYPE)n ;",
            "x = SCALAR_VAL(0.5) * (DATA_TYPE)n",
        );
    }

    #[test]
    fn lines_are_joined_and_comments_dropped() {
        check(
            "A[i] = B[i] // first\n      + C[i]; /* done */",
            "A[i] = B[i] + C[i]",
        );
        check("A[i] = /* a\n b */ 1;", "A[i] = 1");
        check("A[i] = \\\n  2;", "A[i] =   2");
    }

    #[test]
    fn literals_keep_comment_markers() {
        check("s = \"/* x */ // y\";", "s = \"/* x */ // y\"");
        check("c = '\\'' ;", "c = '\\''");
    }

    #[test]
    fn indentation_of_the_first_line_of_code() {
        assert_eq!(
            indentation("  #pragma scop\n\n    # x\n\tfor (;;);\n"),
            "\t"
        );
        assert_eq!(indentation("   #pragma scop\n"), "   ");
        assert_eq!(indentation(""), "");
    }
}
