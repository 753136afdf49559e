//! Where the declarations go: right before the top-level definition that holds the
//! region; and where the OpenCL header goes: after the last `#include` line before
//! that definition.
//!
//! The source is scanned from its start to the region with a small C lexer that skips
//! comments, string and character literals and preprocessor lines. At brace depth zero,
//! every `;`, every `}` that closes a top-level brace and every preprocessor line ends a
//! top-level item; the definition holding the region starts after the last of them. The
//! declarations are inserted at the start of the line after that end when the rest of
//! its line is blank (whitespace or comments), otherwise right after it on a line of
//! their own. So a function's leading comment stays before the declarations, and
//! everything the file defines before the function (macros, types, includes) is in
//! scope for them.
//!
//! The OpenCL header goes after the file's own includes rather than at its very top:
//! a file that defines a feature-test macro (`_POSIX_C_SOURCE`, `_GNU_SOURCE`) before
//! its includes, or in its first header as PolyBench-style headers do, would lose it if
//! a system header came first; and after the includes, the macros that files usually
//! define next (sizes such as `N`) are not yet defined when the header is read.

use crate::error::{Error, Result};

/// Where the generated text goes for one region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Points {
    /// Where the declarations go.
    pub declarations: usize,
    /// Whether they must start with a line break (the point is inside a line).
    pub newline: bool,
    /// Where a header goes: the start of the line after the last top-level `#include`
    /// before the region, or 0.
    pub header: usize,
}

/// The insertion points for a region starting at byte `region_start`.
pub(crate) fn insertion_point(source: &str, region_start: usize) -> Result<Points> {
    let bytes = source.as_bytes();
    let end = region_start.min(bytes.len());
    let mut depth = 0usize;
    let mut boundary = 0usize;
    let mut header = 0usize;
    let mut line_start = true;
    let mut k = 0;
    while k < end {
        let c = bytes[k];
        if c == b'\n' {
            line_start = true;
            k += 1;
            continue;
        }
        if line_start && c == b'#' {
            // A preprocessor line, with its continuations.
            let directive = source[k + 1..end].trim_start_matches([' ', '\t']);
            let include = directive.starts_with("include");
            while k < end && bytes[k] != b'\n' {
                if bytes[k] == b'\\' && k + 1 < end && bytes[k + 1] == b'\n' {
                    k += 1;
                }
                k += 1;
            }
            if depth == 0 {
                boundary = (k + 1).min(end);
                if include {
                    header = boundary;
                }
            }
            continue;
        }
        if !c.is_ascii_whitespace() {
            line_start = false;
        }
        match c {
            b'/' if bytes.get(k + 1) == Some(&b'*') => {
                k += 2;
                while k < end && !(bytes[k] == b'*' && bytes.get(k + 1) == Some(&b'/')) {
                    k += 1;
                }
                k += 2;
                continue;
            }
            b'/' if bytes.get(k + 1) == Some(&b'/') => {
                while k < end && bytes[k] != b'\n' {
                    k += 1;
                }
                continue;
            }
            b'"' | b'\'' => {
                k += 1;
                while k < end && bytes[k] != c && bytes[k] != b'\n' {
                    if bytes[k] == b'\\' {
                        k += 1;
                    }
                    k += 1;
                }
            }
            b'{' => depth += 1,
            b'}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    boundary = k + 1;
                }
            }
            b';' if depth == 0 => boundary = k + 1,
            _ => {}
        }
        k += 1;
    }
    if depth == 0 {
        return Err(Error::NoEnclosingDefinition);
    }
    // The rest of the boundary's line: blank (or a comment) puts the declarations on
    // the next line.
    let rest_end = source[boundary..]
        .find('\n')
        .map_or(source.len(), |n| boundary + n);
    let rest = &source[boundary..rest_end];
    let blank = rest.trim().is_empty() || rest.trim_start().starts_with("//");
    let (declarations, newline) = if boundary == 0 || source[..boundary].ends_with('\n') {
        (boundary, false)
    } else if blank && rest_end < source.len() && rest_end < end {
        (rest_end + 1, false)
    } else {
        (boundary, true)
    };
    Ok(Points {
        declarations,
        newline,
        header,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(source: &str) -> (usize, bool) {
        let region = source.find("#pragma scop").expect("a region");
        let p = insertion_point(source, region).expect("inside a function");
        (p.declarations, p.newline)
    }

    fn header(source: &str) -> usize {
        let region = source.find("#pragma scop").expect("a region");
        insertion_point(source, region)
            .expect("inside a function")
            .header
    }

    #[test]
    fn the_header_goes_after_the_last_include() {
        let source = "#define _GNU_SOURCE\n#include <a.h>\n  # include \"b.h\"\n#define N 4\nvoid f(void) {\n#include \"inner.h\"\n#pragma scop\n#pragma endscop\n}\n";
        assert!(source[header(source)..].starts_with("#define N 4\n"));
        assert_eq!(
            header("void f(void) {\n#pragma scop\n#pragma endscop\n}\n"),
            0
        );
    }

    #[test]
    fn before_the_enclosing_function() {
        let source = "#include <x.h>\nint g;\n/* doc */\nstatic void f(int n)\n{\n  int a[3] = {1, 2, 3};\n#pragma scop\n  a[0] = 1;\n#pragma endscop\n}\n";
        let (at, newline) = point(source);
        assert!(!newline);
        assert!(source[at..].starts_with("/* doc */\nstatic void f"));
    }

    #[test]
    fn braces_in_comments_and_strings_do_not_count() {
        let source = "void g(void) { puts(\"}\"); /* } */ }\n// }\nvoid f(void) {\n  char c = '}';\n#pragma scop\n#pragma endscop\n}\n";
        let (at, _) = point(source);
        assert!(
            source[at..].starts_with("// }\nvoid f"),
            "{}",
            &source[at..]
        );
    }

    #[test]
    fn after_a_definition_on_the_same_line() {
        let source = "void g(void) { } void f(void) {\n#pragma scop\n#pragma endscop\n}\n";
        let (at, newline) = point(source);
        assert!(newline);
        assert_eq!(&source[at..at + 7], " void f");
        let source = "int x;\n#define N 10\nvoid f(void) {\n#pragma scop\n#pragma endscop\n}\n";
        let (at, newline) = point(source);
        assert!(!newline);
        assert!(source[at..].starts_with("void f"));
    }

    #[test]
    fn a_region_outside_functions_is_an_error() {
        let source = "#pragma scop\n#pragma endscop\n";
        assert_eq!(
            insertion_point(source, 0),
            Err(Error::NoEnclosingDefinition)
        );
    }
}
