//! Fuzz target `frontend`: the fuzzer's bytes are the body of a `#pragma scop` region in a
//! fixed C function. The frontend never panics; an extracted scop is valid, its text form
//! prints and parses back to the same text, and its dependences (both analyses) agree with
//! the trace oracle at small parameter values.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pollen_deps::oracle::{check_analyze, OracleError};

/// Declarations the region may use: parameters `N`, `M`, arrays and a scalar.
const PRELUDE: &str = "void f(int N, int M, double A[64][64], double B[64], double x)\n{\n  int i, j, k;\n#pragma scop\n";
const EPILOGUE: &str = "\n#pragma endscop\n}\n";

/// Whether every integer literal of `text` is small, so that enumerating the scop's
/// instances at small parameter values stays cheap.
fn small_constants(text: &str) -> bool {
    text.split(|c: char| !c.is_ascii_digit())
        .filter(|run| !run.is_empty())
        .all(|run| run.len() <= 2)
}

fuzz_target!(|data: &[u8]| {
    let Ok(body) = std::str::from_utf8(data) else {
        return;
    };
    if body.len() > 4000 {
        return;
    }
    let source = format!("{PRELUDE}{body}{EPILOGUE}");
    let Ok(extracted) = pollen_frontend::extract(&source) else {
        return;
    };
    let scop = &extracted.scop;
    if let Err(e) = scop.validate() {
        panic!("the frontend built an invalid scop: {e}\n{source}");
    }
    let text = pollen_scop::text::print(scop);
    let back = match pollen_scop::text::parse(&text) {
        Ok(back) => back,
        Err(e) => panic!("a printed scop does not parse: {e}\n{text}"),
    };
    assert_eq!(
        pollen_scop::text::print(&back),
        text,
        "print(parse(print)) differs"
    );
    if !small_constants(body) || scop.statements.len() > 8 {
        return;
    }
    for value in [0, 2, 3] {
        let params = vec![value; scop.params.len()];
        match check_analyze(scop, &[&params]) {
            Ok(_) | Err(OracleError::OutsideContext { .. }) => {}
            Err(
                e @ (OracleError::Mismatch(_)
                | OracleError::EmptyRelation { .. }
                | OracleError::ScheduleNotFunction { .. }
                | OracleError::ScheduleNotInjective { .. }),
            ) => {
                panic!("dependences disagree with the trace: {e:?}\n{source}")
            }
            Err(_) => {}
        }
    }
});
