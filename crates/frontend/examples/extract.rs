//! Prints the scop the frontend extracts from each C file given on the command line:
//! `cargo run -p pollen-frontend --example extract -- [-v] file.c ...` (one summary line
//! per file; `-v` adds the context, arrays, domains, accesses and the flattened original
//! schedule). Exits with status 1 if some file does not extract.

use std::process::ExitCode;

use pollen_scop::Scop;

fn main() -> ExitCode {
    let mut verbose = false;
    let mut failed = false;
    for arg in std::env::args().skip(1) {
        if arg == "-v" {
            verbose = true;
            continue;
        }
        let source = match std::fs::read_to_string(&arg) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("{arg}: {e}");
                failed = true;
                continue;
            }
        };
        match pollen_frontend::extract(&source) {
            Ok(x) => {
                let s = &x.scop;
                println!(
                    "{arg}: {} statements, parameters [{}]",
                    s.statements.len(),
                    s.params.join(", ")
                );
                if let Err(e) = s.validate() {
                    println!("  invalid scop: {e}");
                    failed = true;
                }
                if verbose {
                    print_scop(s);
                }
            }
            Err(e) => {
                println!("{arg}:{e}");
                failed = true;
            }
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// The details of a scop, one item per line.
fn print_scop(s: &Scop) {
    println!("  context {}", s.context);
    for a in &s.arrays {
        println!(
            "  array {} {} [{}]",
            a.element_type,
            a.name,
            a.extents.join("][")
        );
    }
    for st in &s.statements {
        println!("  {}  {}", st.domain, st.body);
        for a in &st.accesses {
            println!("    {:?} {}", a.kind, a.relation);
        }
    }
    match s.schedule.to_union_map() {
        Ok(m) => println!("  schedule {m}"),
        Err(e) => println!("  schedule: {e}"),
    }
}
