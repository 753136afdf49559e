//! Wrong programs the checker must refuse: a loop carrying a dependence spread over
//! threads, a missing barrier, a barrier that threads reach unequally, a block loop run
//! by every block, a missing launch, a written value, shared-memory copies without a
//! barrier, too small, divergent or of a written array; and its errors.

use pollen_deps::Dependence;
use pollen_gpu::{
    check, check_with_limit, map, ArrayKind, Error, GpuOptions, GpuProgram, KernelAst, Mapping,
    Violation,
};
use pollen_scop::Scop;

use crate::common::{ast, scheduled, tiled};

/// A kernel's program for the Pluto schedule of an example kernel (untiled).
fn program(name: &str) -> (Scop, Vec<Dependence>, GpuProgram) {
    let (scop, deps, tree) = scheduled(name);
    let program = map(&scop, &ast(&scop, &tree), &GpuOptions::default()).expect("map");
    (scop, deps, program)
}

fn values(scop: &Scop, v: i64) -> Vec<(String, i64)> {
    scop.params.iter().map(|p| (p.clone(), v)).collect()
}

/// Applies `f` to every loop of the kernel code, outermost first.
fn each_loop(a: &mut KernelAst, f: &mut dyn FnMut(&mut pollen_gpu::KernelLoop)) {
    match a {
        KernelAst::Block(v) => v.iter_mut().for_each(|c| each_loop(c, f)),
        KernelAst::For(l) => {
            f(l);
            each_loop(&mut l.body, f);
        }
        KernelAst::If {
            then, otherwise, ..
        } => {
            each_loop(then, f);
            if let Some(o) = otherwise {
                each_loop(o, f);
            }
        }
        KernelAst::SingleThread(b) | KernelAst::Shared { body: b, .. } => each_loop(b, f),
        KernelAst::User { .. } | KernelAst::Barrier | KernelAst::Copy { .. } => {}
    }
}

/// Removes the first barrier of the kernel code; whether one was found.
fn remove_first_barrier(a: &mut KernelAst) -> bool {
    match a {
        KernelAst::Block(v) => {
            if let Some(k) = v.iter().position(|c| matches!(c, KernelAst::Barrier)) {
                v.remove(k);
                return true;
            }
            v.iter_mut().any(remove_first_barrier)
        }
        KernelAst::For(l) => remove_first_barrier(&mut l.body),
        KernelAst::If {
            then, otherwise, ..
        } => {
            remove_first_barrier(then) || otherwise.as_deref_mut().is_some_and(remove_first_barrier)
        }
        KernelAst::SingleThread(b) | KernelAst::Shared { body: b, .. } => remove_first_barrier(b),
        KernelAst::User { .. } | KernelAst::Barrier | KernelAst::Copy { .. } => false,
    }
}

fn races(violations: &[Violation]) -> usize {
    violations
        .iter()
        .filter(|v| matches!(v, Violation::Race { .. }))
        .count()
}

#[test]
fn the_mapped_programs_pass() {
    for name in ["gemm", "2mm"] {
        let (scop, deps, p) = program(name);
        let report = check(&scop, &deps, &p, &values(&scop, 5)).expect("check");
        assert!(report.is_ok(), "{name}: {report:?}");
        assert!(report.dependence_pairs > 0 && report.launches > 0);
    }
}

#[test]
fn a_reduction_loop_on_threads_is_a_race() {
    // gemm's second kernel: block x over i, thread x over j, k sequential in each
    // thread. Spreading k over thread dimension y breaks the reduction's order.
    let (scop, deps, mut p) = program("gemm");
    let k = &mut p.kernels[1];
    k.block = vec![4, 2];
    let mut changed = 0;
    each_loop(&mut k.body, &mut |l| {
        if l.mapping == Mapping::Sequential {
            l.mapping = Mapping::Thread(1);
            changed += 1;
        }
    });
    assert_eq!(changed, 1);
    let report = check(&scop, &deps, &p, &values(&scop, 5)).expect("check");
    assert!(!report.is_ok());
    assert!(races(&report.violations) > 0, "{report:?}");
    // Every instance still runs once: only the order is wrong.
    assert!(report
        .violations
        .iter()
        .all(|v| matches!(v, Violation::Race { .. })));
}

#[test]
fn a_missing_barrier_is_a_race() {
    // 2mm's second kernel runs tmp[i][j] += ... in one thread, then D[i][l] += tmp[i][j]
    // * C[j][l] on the threads: the barrier between them orders the flow through tmp.
    let (scop, deps, mut p) = program("2mm");
    let k = p
        .kernels
        .iter_mut()
        .find(|k| {
            let mut single = false;
            fn has_single(a: &KernelAst, out: &mut bool) {
                match a {
                    KernelAst::SingleThread(_) => *out = true,
                    KernelAst::Block(v) => v.iter().for_each(|c| has_single(c, out)),
                    KernelAst::For(l) => has_single(&l.body, out),
                    KernelAst::Shared { body, .. } => has_single(body, out),
                    KernelAst::If {
                        then, otherwise, ..
                    } => {
                        has_single(then, out);
                        if let Some(o) = otherwise {
                            has_single(o, out);
                        }
                    }
                    KernelAst::User { .. } | KernelAst::Barrier | KernelAst::Copy { .. } => {}
                }
            }
            has_single(&k.body, &mut single);
            single
        })
        .expect("a kernel with a single-thread part");
    assert!(remove_first_barrier(&mut k.body));
    let report = check(&scop, &deps, &p, &values(&scop, 5)).expect("check");
    assert!(races(&report.violations) > 0, "{report:?}\n{p}");
}

#[test]
fn a_barrier_inside_a_thread_loop_diverges() {
    let (scop, deps, mut p) = program("gemm");
    let k = &mut p.kernels[0];
    k.block = vec![2];
    each_loop(&mut k.body, &mut |l| {
        if l.mapping == Mapping::Thread(0) {
            let body = std::mem::replace(&mut *l.body, KernelAst::Barrier);
            *l.body = KernelAst::Block(vec![body, KernelAst::Barrier]);
        }
    });
    // Five iterations over two threads: three barriers in one, two in the other.
    let report = check(&scop, &deps, &p, &values(&scop, 5)).expect("check");
    assert!(
        report.violations.iter().any(|v| matches!(
            v,
            Violation::DivergentBarriers {
                fewest: 2,
                most: 3,
                ..
            }
        )),
        "{report:?}"
    );
}

#[test]
fn duplicated_and_missing_instances() {
    // A block loop turned sequential runs every iteration in every block.
    let (scop, deps, mut p) = program("gemm");
    each_loop(&mut p.kernels[0].body, &mut |l| {
        if l.mapping == Mapping::Block(0) {
            l.mapping = Mapping::Sequential;
        }
    });
    let report = check(&scop, &deps, &p, &values(&scop, 5)).expect("check");
    assert!(report
        .violations
        .iter()
        .any(|v| matches!(v, Violation::Duplicate { .. })));
    // No launch at all: every instance is missing.
    let (scop, deps, mut p) = program("gemm");
    p.host = pollen_gpu::Host::Block(vec![]);
    let report = check(&scop, &deps, &p, &values(&scop, 5)).expect("check");
    assert_eq!(report.instances, 0);
    assert_eq!(report.violation_count, 5 * 5 + 5 * 5 * 5);
    assert!(report.violations.len() <= pollen_gpu::MAX_LISTED_VIOLATIONS);
    assert!(report
        .violations
        .iter()
        .all(|v| matches!(v, Violation::Missing(_))));
}

#[test]
fn arrays_the_kernels_write_are_not_values() {
    let (scop, deps, mut p) = program("gemm");
    if let Some(c) = p.arrays.iter_mut().find(|a| a.name == "C") {
        c.kind = ArrayKind::Value;
    }
    p.kernels[1].arrays.retain(|a| a != "A");
    let report = check(&scop, &deps, &p, &values(&scop, 4)).expect("check");
    assert!(report
        .violations
        .contains(&Violation::ValueWritten("C".into())));
    assert!(report.violations.contains(&Violation::ArrayNotInKernel {
        kernel: "kernel1".into(),
        array: "A".into()
    }));
}

#[test]
fn errors_of_the_checker() {
    let (scop, deps, p) = program("gemm");
    assert_eq!(
        check_with_limit(&scop, &deps, &p, &values(&scop, 6), 100),
        Err(Error::StepLimit(100))
    );
    assert_eq!(
        check(&scop, &deps, &p, &values(&scop, 6)[1..]),
        Err(Error::MissingParameter(scop.params[0].clone()))
    );
    let mut bad = p.clone();
    bad.host = pollen_gpu::Host::Launch(7);
    assert!(matches!(
        check(&scop, &deps, &bad, &values(&scop, 6)),
        Err(Error::InvalidProgram(_))
    ));
    let mut bad = p;
    each_loop(&mut bad.kernels[0].body, &mut |l| {
        l.mapping = Mapping::Thread(3);
    });
    assert!(matches!(
        check(&scop, &deps, &bad, &values(&scop, 6)),
        Err(Error::InvalidProgram(_))
    ));
}

#[test]
fn kernels_see_only_the_host_iterators_they_list() {
    let scop = crate::common::kernel_scop("jacobi-1d");
    let deps = crate::common::value_deps(&scop);
    let tree = pollen_transform::parallelize(&deps, &scop.schedule, None).expect("flags");
    let mut p = map(&scop, &ast(&scop, &tree), &GpuOptions::default()).expect("map");
    let v = values(&scop, 5);
    assert!(check(&scop, &deps, &p, &v).expect("check").is_ok());
    let host = p.kernels[0].host_iterators.pop().expect("a host iterator");
    assert_eq!(
        check(&scop, &deps, &p, &v),
        Err(Error::UnboundVariable(host))
    );
}

/// Tiled gemm with its A and B tiles in shared memory (tiles of 4).
fn promoted_gemm() -> (Scop, Vec<Dependence>, GpuProgram) {
    let (scop, deps, tree) = scheduled("gemm");
    let tree = tiled(&scop, &deps, &tree, 4);
    let program = map(&scop, &ast(&scop, &tree), &GpuOptions::default()).expect("map");
    assert_eq!(program.kernels[1].shared.len(), 2, "{program}");
    let report = check(&scop, &deps, &program, &values(&scop, 6)).expect("check");
    assert!(report.is_ok(), "{report:?}\n{program}");
    (scop, deps, program)
}

/// Applies `f` to the items of every block of the kernel code.
fn each_block(a: &mut KernelAst, f: &mut dyn FnMut(&mut Vec<KernelAst>)) {
    match a {
        KernelAst::Block(v) => {
            f(v);
            v.iter_mut().for_each(|c| each_block(c, f));
        }
        KernelAst::For(l) => each_block(&mut l.body, f),
        KernelAst::If {
            then, otherwise, ..
        } => {
            each_block(then, f);
            if let Some(o) = otherwise {
                each_block(o, f);
            }
        }
        KernelAst::SingleThread(b) | KernelAst::Shared { body: b, .. } => each_block(b, f),
        KernelAst::User { .. } | KernelAst::Barrier | KernelAst::Copy { .. } => {}
    }
}

/// Applies `f` to every copy of the kernel code.
fn each_copy(a: &mut KernelAst, f: &mut dyn FnMut(&mut KernelAst)) {
    match a {
        KernelAst::Copy { .. } => f(a),
        KernelAst::Block(v) => v.iter_mut().for_each(|c| each_copy(c, f)),
        KernelAst::For(l) => each_copy(&mut l.body, f),
        KernelAst::If {
            then, otherwise, ..
        } => {
            each_copy(then, f);
            if let Some(o) = otherwise {
                each_copy(o, f);
            }
        }
        KernelAst::SingleThread(b) | KernelAst::Shared { body: b, .. } => each_copy(b, f),
        KernelAst::User { .. } | KernelAst::Barrier => {}
    }
}

fn count(violations: &[Violation], f: fn(&Violation) -> bool) -> usize {
    violations.iter().filter(|v| f(v)).count()
}

#[test]
fn a_copy_without_a_barrier_before_the_reads() {
    let (scop, deps, mut p) = promoted_gemm();
    // Drop the barrier between the copies and the shared scope.
    let mut removed = false;
    each_block(&mut p.kernels[1].body, &mut |v| {
        if let Some(k) = v.iter().position(|c| matches!(c, KernelAst::Shared { .. })) {
            if k > 0 && matches!(v[k - 1], KernelAst::Barrier) {
                v.remove(k - 1);
                removed = true;
            }
        }
    });
    assert!(removed);
    let report = check(&scop, &deps, &p, &values(&scop, 6)).expect("check");
    assert!(
        count(&report.violations, |v| matches!(
            v,
            Violation::SharedReadBeforeBarrier { .. }
        )) > 0,
        "{report:?}"
    );
    // Drop the barrier at the end of each iteration instead: the next copy overwrites
    // what the threads may still read.
    let (scop, deps, mut p) = promoted_gemm();
    each_block(&mut p.kernels[1].body, &mut |v| {
        if matches!(v.last(), Some(KernelAst::Barrier))
            && v.iter().any(|c| matches!(c, KernelAst::For(_)))
        {
            v.pop();
        }
    });
    let report = check(&scop, &deps, &p, &values(&scop, 6)).expect("check");
    assert!(
        count(&report.violations, |v| matches!(
            v,
            Violation::CopyOverwritesReads { .. }
        )) > 0,
        "{report:?}"
    );
}

#[test]
fn a_copy_too_small_misses_reads() {
    let (scop, deps, mut p) = promoted_gemm();
    // Copy one column fewer of every tile.
    each_copy(&mut p.kernels[1].body, &mut |c| {
        if let KernelAst::Copy { upper, .. } = c {
            let last = upper.len() - 1;
            upper[last] =
                pollen_codegen::Expr::Add(vec![upper[last].clone(), pollen_codegen::Expr::int(-1)]);
        }
    });
    let report = check(&scop, &deps, &p, &values(&scop, 6)).expect("check");
    assert!(
        count(&report.violations, |v| matches!(
            v,
            Violation::SharedNotCopied { .. }
        )) > 0,
        "{report:?}"
    );
    assert!(!report.violations.iter().any(|v| matches!(
        v,
        Violation::Race { .. } | Violation::SharedReadBeforeBarrier { .. }
    )));
    // A copy larger than its shared array.
    let (scop, deps, mut p) = promoted_gemm();
    p.kernels[1].shared[0].sizes[0] = 3;
    let report = check(&scop, &deps, &p, &values(&scop, 6)).expect("check");
    assert!(
        count(&report.violations, |v| matches!(
            v,
            Violation::CopyOutsideShared { .. }
        )) > 0,
        "{report:?}"
    );
}

#[test]
fn copies_must_be_uniform_and_of_read_only_arrays() {
    // A copy moved into the thread loop runs in some threads only.
    let (scop, deps, mut p) = promoted_gemm();
    let mut copy = None;
    each_block(&mut p.kernels[1].body, &mut |v| {
        if copy.is_none() {
            if let Some(k) = v.iter().position(|c| matches!(c, KernelAst::If { .. })) {
                copy = Some(v.remove(k));
            }
        }
    });
    let copy = copy.expect("a guarded copy");
    each_loop(&mut p.kernels[1].body, &mut |l| {
        if l.mapping == Mapping::Thread(0) {
            let body = std::mem::replace(&mut *l.body, KernelAst::Barrier);
            *l.body = KernelAst::Block(vec![copy.clone(), body]);
        }
    });
    let report = check(&scop, &deps, &p, &values(&scop, 6)).expect("check");
    assert!(
        count(&report.violations, |v| matches!(
            v,
            Violation::DivergentCopy { .. }
        )) > 0,
        "{report:?}"
    );
    // The shared array of A declared as one of C, which the kernel writes.
    let (scop, deps, mut p) = promoted_gemm();
    p.kernels[1].shared[0].array = "C".to_string();
    let report = check(&scop, &deps, &p, &values(&scop, 6)).expect("check");
    assert!(
        report
            .violations
            .contains(&Violation::PromotedArrayWritten {
                kernel: "kernel1".to_string(),
                array: "C".to_string(),
                statement: "S1".to_string(),
            }),
        "{report:?}"
    );
}
