//! Schedule trees implementing outer fusion structures, checked by the scheduler's
//! independent legality checker: every structure of F¹ gives a legal tree, and the
//! structures F¹ leaves out are refused.

use pollen_sched::legality;
use pollen_search::{
    embed_outer, optimize_outer, prune_outer, Error, FusionOptions, FusionStructure, Options,
};

use crate::common::{atax_c, bicg_c, doitgen_c, gemver_c, matvec_chain_c, parts, three_mat_mat_c};

#[test]
fn every_structure_of_f1_embeds_into_a_legal_tree() {
    for c in [
        matvec_chain_c(),
        three_mat_mat_c(),
        atax_c(),
        bicg_c(),
        gemver_c(),
        doitgen_c(),
    ] {
        let (scop, deps, problem) = parts(&c);
        let f1 = prune_outer(&problem, &Options::default()).unwrap();
        for s in f1.structures().unwrap() {
            let tree = embed_outer(&scop, &problem, &s, &FusionOptions::default()).unwrap();
            let report = legality::check(deps.as_slice(), &tree).unwrap();
            assert!(report.is_legal(), "{s}: {report:?}");
        }
    }
}

#[test]
fn gemver_fused_outer_rows_are_the_papers() {
    let (scop, _, problem) = parts(&gemver_c());
    let all = FusionStructure::from_ranks(&[0, 0, 0, 0], problem.names().to_vec()).unwrap();
    let rows = problem
        .fusing_rows(&[0, 1, 2, 3], &FusionOptions::default())
        .unwrap()
        .unwrap();
    // μ = (j, i, i, j), aligned.
    let firsts: Vec<usize> = rows
        .iter()
        .map(|r| r.iterators.iter().position(|c| !c.is_zero()).unwrap())
        .collect();
    assert_eq!(firsts, [1, 0, 0, 1]);
    assert!(embed_outer(&scop, &problem, &all, &FusionOptions::default()).is_ok());
}

#[test]
fn structures_outside_f1_are_refused() {
    let (scop, _, problem) = parts(&matvec_chain_c());
    let names = problem.names().to_vec();
    let fused = FusionStructure::from_ranks(&[0, 0, 0], names.clone()).unwrap();
    assert!(matches!(
        embed_outer(&scop, &problem, &fused, &FusionOptions::default()),
        Err(Error::NotFusable { .. })
    ));
    let backwards = FusionStructure::from_ranks(&[1, 0, 2], names).unwrap();
    assert!(matches!(
        embed_outer(&scop, &problem, &backwards, &FusionOptions::default()),
        Err(Error::Backward { .. })
    ));
}

#[test]
fn every_structure_of_f1_optimizes_into_a_legal_tree() {
    let sched = pollen_sched::Options {
        fuse: pollen_sched::Fuse::Max,
        ..pollen_sched::Options::default()
    };
    for c in [
        matvec_chain_c(),
        three_mat_mat_c(),
        atax_c(),
        gemver_c(),
        doitgen_c(),
    ] {
        let (scop, deps, problem) = parts(&c);
        let f1 = prune_outer(&problem, &Options::default()).unwrap();
        let mut any = false;
        for s in f1.structures().unwrap() {
            let got = optimize_outer(
                &scop,
                &deps,
                &problem,
                &s,
                &FusionOptions::default(),
                &sched,
            )
            .unwrap();
            assert_eq!(got.optimized.len(), s.classes().len());
            any |= got.optimized.iter().any(|&o| o);
            let report = legality::check(deps.as_slice(), &got.tree).unwrap();
            assert!(report.is_legal(), "{s}: {report:?}");
        }
        assert!(
            any,
            "the scheduler optimized no class of {:?}",
            problem.names()
        );
    }
}
