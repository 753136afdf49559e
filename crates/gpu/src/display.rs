//! A readable pseudo-code of a mapped program, for tests and `--explain`: the device
//! arrays, the host's control with its launches (`launch kernel0<<<grid, block>>>;`),
//! then each kernel with its loops annotated by their mapping (`// block x`,
//! `// thread y`, `// global x`; sequential loops carry no comment).

use std::fmt::{self, Write};

use pollen_codegen::Expr;

use crate::program::{ArrayKind, GpuProgram, Host, Kernel, KernelAst, Mapping, SharedArray};

impl fmt::Display for GpuProgram {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        out.push_str("arrays:\n");
        for a in &self.arrays {
            let kind = match a.kind {
                ArrayKind::Buffer => "buffer",
                ArrayKind::Value => "value",
                ArrayKind::ScalarBuffer => "scalar buffer",
                ArrayKind::Private => "private",
            };
            write!(out, "  {} {}", a.element_type, a.name)?;
            for e in &a.extents {
                write!(out, "[{e}]")?;
            }
            write!(out, ": {kind}")?;
            match (a.copy_in, a.copy_out) {
                (true, true) => out.push_str(", copy in and out"),
                (true, false) => out.push_str(", copy in"),
                (false, true) => out.push_str(", copy out"),
                (false, false) => {}
            }
            out.push('\n');
        }
        out.push_str("host:\n");
        write_host(&mut out, &self.host, &self.kernels, 1)?;
        for k in &self.kernels {
            writeln!(
                out,
                "{}{}({}):",
                k.name,
                launch_sizes(k),
                k.host_iterators
                    .iter()
                    .chain(k.arrays.iter())
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", ")
            )?;
            for a in &k.shared {
                let sizes: Vec<String> = a.sizes.iter().map(|s| format!("[{s}]")).collect();
                writeln!(
                    out,
                    "  shared {} {}{}; // of {}",
                    a.element_type,
                    a.name,
                    sizes.concat(),
                    a.array
                )?;
            }
            write_kernel(&mut out, &k.body, 1, &k.shared)?;
        }
        f.write_str(&out)
    }
}

/// `<<<grid, block>>>`, each a tuple when it has several dimensions.
fn launch_sizes(k: &Kernel) -> String {
    let grid: Vec<String> = k.grid.iter().map(Expr::to_string).collect();
    let block: Vec<String> = k.block.iter().map(u32::to_string).collect();
    let tuple = |v: Vec<String>| {
        if v.len() == 1 {
            v.join("")
        } else {
            format!("({})", v.join(", "))
        }
    };
    format!("<<<{}, {}>>>", tuple(grid), tuple(block))
}

fn indent(out: &mut String, depth: usize) {
    for _ in 0..depth {
        out.push_str("  ");
    }
}

fn write_loop_head(
    out: &mut String,
    iterator: &str,
    lower: &Expr,
    upper: &Expr,
    stride: &pollen_arith::Int,
) -> fmt::Result {
    let step = if stride.is_one() {
        format!("{iterator}++")
    } else {
        format!("{iterator} += {stride}")
    };
    write!(
        out,
        "for ({iterator} = {lower}; {iterator} <= {upper}; {step}) {{"
    )
}

fn write_host(out: &mut String, h: &Host, kernels: &[Kernel], depth: usize) -> fmt::Result {
    match h {
        Host::Block(v) => {
            for c in v {
                write_host(out, c, kernels, depth)?;
            }
        }
        Host::For {
            iterator,
            lower,
            upper,
            stride,
            body,
        } => {
            indent(out, depth);
            write_loop_head(out, iterator, lower, upper, stride)?;
            out.push('\n');
            write_host(out, body, kernels, depth + 1)?;
            indent(out, depth);
            out.push_str("}\n");
        }
        Host::If {
            cond,
            then,
            otherwise,
        } => {
            indent(out, depth);
            writeln!(out, "if ({cond}) {{")?;
            write_host(out, then, kernels, depth + 1)?;
            indent(out, depth);
            match otherwise {
                Some(o) => {
                    out.push_str("} else {\n");
                    write_host(out, o, kernels, depth + 1)?;
                    indent(out, depth);
                    out.push_str("}\n");
                }
                None => out.push_str("}\n"),
            }
        }
        Host::Launch(k) => {
            indent(out, depth);
            match kernels.get(*k) {
                Some(kernel) => writeln!(out, "launch {}{};", kernel.name, launch_sizes(kernel))?,
                None => writeln!(out, "launch <missing kernel {k}>;")?,
            }
        }
    }
    Ok(())
}

/// The name of grid or block dimension `d`.
fn axis(d: u8) -> String {
    match d {
        0 => "x".to_string(),
        1 => "y".to_string(),
        2 => "z".to_string(),
        d => format!("{d}"),
    }
}

fn write_kernel(
    out: &mut String,
    a: &KernelAst,
    depth: usize,
    shared: &[SharedArray],
) -> fmt::Result {
    match a {
        KernelAst::Block(v) => {
            for c in v {
                write_kernel(out, c, depth, shared)?;
            }
        }
        KernelAst::For(l) => {
            indent(out, depth);
            write_loop_head(out, &l.iterator, &l.lower, &l.upper, &l.stride)?;
            match l.mapping {
                Mapping::Sequential => {}
                Mapping::Block(d) => write!(out, " // block {}", axis(d))?,
                Mapping::Thread(d) => match &l.lanes {
                    Some(lanes) => write!(
                        out,
                        " // thread {}, lanes of {}: {}",
                        axis(d),
                        lanes.width,
                        lanes
                            .contiguous
                            .iter()
                            .map(|(s, a)| format!("{s}.{a}"))
                            .collect::<Vec<_>>()
                            .join(" ")
                    )?,
                    None => write!(out, " // thread {}", axis(d))?,
                },
                Mapping::Global(d) => write!(out, " // global {}", axis(d))?,
            }
            out.push('\n');
            write_kernel(out, &l.body, depth + 1, shared)?;
            indent(out, depth);
            out.push_str("}\n");
        }
        KernelAst::If {
            cond,
            then,
            otherwise,
        } => {
            indent(out, depth);
            writeln!(out, "if ({cond}) {{")?;
            write_kernel(out, then, depth + 1, shared)?;
            indent(out, depth);
            match otherwise {
                Some(o) => {
                    out.push_str("} else {\n");
                    write_kernel(out, o, depth + 1, shared)?;
                    indent(out, depth);
                    out.push_str("}\n");
                }
                None => out.push_str("}\n"),
            }
        }
        KernelAst::User { statement, args } => {
            indent(out, depth);
            let args: Vec<String> = args.iter().map(Expr::to_string).collect();
            writeln!(out, "{statement}({});", args.join(", "))?;
        }
        KernelAst::SingleThread(b) => {
            indent(out, depth);
            out.push_str("single thread {\n");
            write_kernel(out, b, depth + 1, shared)?;
            indent(out, depth);
            out.push_str("}\n");
        }
        KernelAst::Barrier => {
            indent(out, depth);
            out.push_str("barrier;\n");
        }
        KernelAst::Copy {
            shared: index,
            offset,
            lower,
            upper,
        } => {
            indent(out, depth);
            let name = shared
                .get(*index)
                .map_or("<missing shared array>", |a| &a.name);
            let array = shared.get(*index).map_or("?", |a| a.array.as_str());
            let join = |v: &[Expr]| v.iter().map(Expr::to_string).collect::<Vec<_>>().join(", ");
            writeln!(
                out,
                "copy {name}[x - ({})] = {array}[x] for x in ({}) .. ({}); // all threads",
                join(offset),
                join(lower),
                join(upper)
            )?;
        }
        KernelAst::Shared { promotions, body } => {
            indent(out, depth);
            let list: Vec<String> = promotions
                .iter()
                .map(|(index, offset)| {
                    let offset: Vec<String> = offset.iter().map(Expr::to_string).collect();
                    match shared.get(*index) {
                        Some(a) => {
                            format!("{} as {}[x - ({})]", a.array, a.name, offset.join(", "))
                        }
                        None => format!("<missing shared array {index}>"),
                    }
                })
                .collect();
            writeln!(out, "shared ({}) {{", list.join(", "))?;
            write_kernel(out, body, depth + 1, shared)?;
            indent(out, depth);
            out.push_str("}\n");
        }
    }
    Ok(())
}
