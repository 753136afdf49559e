//! Whatever loops are marked parallel, the mapped program runs every instance exactly
//! once and its barriers are reached uniformly: only the dependences can be broken by
//! wrong flags. Every example kernel's tiled AST, with its flags redrawn at random
//! (a fixed seed), is mapped with random block sizes and lane groups and checked.

use pollen_codegen::Ast;
use pollen_gpu::{check, map, GpuOptions, Violation};

use crate::common::{ast, kernel_names, scheduled, tiled, valuations};

/// SplitMix64.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn redraw(a: &mut Ast, rng: &mut Rng) {
    match a {
        Ast::Block(v) => v.iter_mut().for_each(|c| redraw(c, rng)),
        Ast::For(l) => {
            l.parallel = rng.below(2) == 0;
            redraw(&mut l.body, rng);
        }
        Ast::If {
            then, otherwise, ..
        } => {
            redraw(then, rng);
            if let Some(o) = otherwise {
                redraw(o, rng);
            }
        }
        Ast::User { .. } => {}
    }
}

#[test]
fn any_flags_run_every_instance_once() {
    let mut rng = Rng(0x5eed);
    let mut failures = Vec::new();
    for name in kernel_names() {
        let (scop, deps, tree) = scheduled(&name);
        let base = ast(&scop, &tiled(&scop, &deps, &tree, 3));
        let Some(values) = valuations(&scop).into_iter().next() else {
            failures.push(format!("{name}: no valuation"));
            continue;
        };
        for round in 0..3 {
            let mut a = base.clone();
            redraw(&mut a, &mut rng);
            let dims = 1 + rng.below(3) as usize;
            let block: Vec<u32> = (0..dims).map(|_| 1 + rng.below(3) as u32).collect();
            let options = GpuOptions {
                block: (rng.below(2) == 0).then_some(block),
                max_grid: 1 + rng.below(3) as u32,
                default_grid: 1 + rng.below(2) as u32,
                shared_memory: rng.below(4) != 0,
                transposed_tiles: rng.below(3) != 0,
                shared_memory_bytes: 48 * 1024,
                // Lane groups along a random iterator of every statement.
                lanes: scop
                    .statements
                    .iter()
                    .map(|s| {
                        let n = s.iterators.len().max(1) as u64;
                        (s.name.clone(), rng.below(n) as usize)
                    })
                    .collect(),
                lane_width: [2, 4, 8][rng.below(3) as usize],
                lane_jam: rng.below(2) == 0,
            };
            let program = match map(&scop, &a, &options) {
                Ok(p) => p,
                Err(e) => {
                    failures.push(format!("{name} round {round}: {e}"));
                    continue;
                }
            };
            match check(&scop, &deps, &program, &values) {
                Ok(r) => {
                    let other: Vec<&Violation> = r
                        .violations
                        .iter()
                        .filter(|v| !matches!(v, Violation::Race { .. }))
                        .collect();
                    if !other.is_empty() {
                        failures.push(format!(
                            "{name} round {round}: {:?}\n{program}",
                            other.first()
                        ));
                    }
                }
                Err(e) => failures.push(format!("{name} round {round}: {e}")),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
