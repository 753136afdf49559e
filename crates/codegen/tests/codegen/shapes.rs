//! The printed shape of generated code for a few kernels: exact text for original
//! schedules (fixed by the frontend), loop, guard and bound counts for Pluto's and the
//! tiled schedules.

use pollen_codegen::{generate, Ast, Options};
use pollen_scop::ScheduleTree;

use crate::common::{pluto, scop, shape};
use crate::tiled::tiled;

fn generated(name: &str, which: &str) -> Ast {
    let s = scop(name);
    let tree = match which {
        "original" => s.schedule.clone(),
        "pluto" => pluto(&s),
        _ => ScheduleTree {
            root: tiled(&pluto(&s).root, &s.params, 32),
        },
    };
    generate(&s, &tree, &Options::default()).expect("generation")
}

#[test]
fn gemm_original_is_one_nest_of_two_nests() {
    let ast = generated("gemm", "original");
    let expected = "\
for (c0 = 0; c0 <= _PB_NI - 1; c0++) {
  for (c1 = 0; c1 <= _PB_NJ - 1; c1++) {
    S0(c0, c1);
  }
  for (c1 = 0; c1 <= _PB_NK - 1; c1++) {
    for (c2 = 0; c2 <= _PB_NJ - 1; c2++) {
      S1(c0, c1, c2);
    }
  }
}
";
    assert_eq!(ast.to_string(), expected);
}

#[test]
fn gemm_pluto_is_two_parallel_nests_without_guards() {
    let ast = generated("gemm", "pluto");
    let s = shape(&ast);
    assert_eq!((s.top_loops, s.guards, s.calls), (2, 0, 2), "{ast}");
    let Ast::Block(nests) = &ast else {
        panic!("two nests expected:\n{ast}")
    };
    for nest in nests {
        let Ast::For(outer) = nest else {
            panic!("a loop nest expected:\n{ast}")
        };
        assert!(outer.parallel && !outer.vectorizable, "{ast}");
    }
}

#[test]
fn lu_is_triangular_without_guards() {
    let expected = "\
for (c0 = 1; c0 <= _PB_N - 1; c0++) {
  for (c1 = 0; c1 <= c0 - 1; c1++) {
    for (c2 = 0; c2 <= c1 - 1; c2++) {
      S0(c0, c1, c2);
    }
    S1(c0, c1);
  }
  for (c1 = c0; c1 <= _PB_N - 1; c1++) {
    for (c2 = 0; c2 <= c0 - 1; c2++) {
      S2(c0, c1, c2);
    }
  }
}
";
    assert_eq!(generated("lu", "original").to_string(), expected);
    let pluto = generated("lu", "pluto");
    assert_eq!(shape(&pluto).guards, 0, "{pluto}");
}

/// Whether some loop bound of the AST contains a `min` or `max`.
fn has_extremum_bound(ast: &Ast) -> bool {
    match ast {
        Ast::Block(v) => v.iter().any(has_extremum_bound),
        Ast::For(l) => {
            let bounds = format!("{} {}", l.lower, l.upper);
            bounds.contains("min(") || bounds.contains("max(") || has_extremum_bound(&l.body)
        }
        Ast::If {
            then, otherwise, ..
        } => has_extremum_bound(then) || otherwise.as_deref().is_some_and(has_extremum_bound),
        Ast::User { .. } => false,
    }
}

/// The number of guards inside loops.
fn inner_guards(ast: &Ast, in_loop: bool) -> usize {
    match ast {
        Ast::Block(v) => v.iter().map(|x| inner_guards(x, in_loop)).sum(),
        Ast::For(l) => inner_guards(&l.body, true),
        Ast::If {
            then, otherwise, ..
        } => {
            usize::from(in_loop)
                + inner_guards(then, in_loop)
                + otherwise.as_deref().map_or(0, |o| inner_guards(o, in_loop))
        }
        Ast::User { .. } => 0,
    }
}

#[test]
fn jacobi_1d_skewed_needs_no_guard_in_its_loops() {
    let ast = generated("jacobi-1d", "pluto");
    assert_eq!(inner_guards(&ast, false), 0, "{ast}");
    assert_eq!(shape(&ast).loops, 2, "{ast}");
    let tiled = generated("jacobi-1d", "tiled");
    assert!(has_extremum_bound(&tiled), "{tiled}");
}

#[test]
fn original_schedules_need_no_guards() {
    for name in [
        "2mm",
        "3mm",
        "atax",
        "bicg",
        "cholesky",
        "doitgen",
        "gemver",
        "lu",
        "ludcmp",
        "nussinov",
        "seidel-2d",
        "symm",
        "trmm",
    ] {
        let ast = generated(name, "original");
        assert_eq!(shape(&ast).guards, 0, "{name}\n{ast}");
    }
}

#[test]
fn tiles_are_scanned_by_point_loops_with_min_bounds() {
    let ast = generated("gemm", "tiled");
    let text = ast.to_string();
    assert_eq!(shape(&ast).guards, 0, "{text}");
    assert!(text.contains("<= floord(_PB_NI - 1, 32)"), "{text}");
    assert!(text.contains("= 32 * c0;"), "{text}");
    assert!(text.contains("min(_PB_NI - 1, 32 * c0 + 31)"), "{text}");
}
