//! The evaluator's pieces that need no compiler: the candidates of a space, the
//! comparison of outputs and the program timers.

use pollen_driver::Strategy;
use pollen_presburger::Budget;
use pollen_search::Limits;
use pollen_tune::evaluate::{
    by_key, candidates, compare, compare_within, neighbours, output_without_timer, program_timer,
    space_of, Agreement, Inner, Knobs, Local, SpaceError, Timer, TimerLine, Toolchain, Walk,
    TILE_SIZES,
};

const ATAX: &str = "void f(int M, int N, double A[M][N], double x[N], double y[N], double tmp[M]) {
  int i, j;
#pragma scop
  for (i = 0; i < N; i++)
    y[i] = 0;
  for (i = 0; i < M; i++) {
    tmp[i] = 0.0;
    for (j = 0; j < N; j++)
      tmp[i] = tmp[i] + A[i][j] * x[j];
    for (j = 0; j < N; j++)
      y[j] = y[j] + A[i][j] * tmp[i];
  }
#pragma endscop
}
";

#[test]
fn atax_has_the_default_its_neighbours_and_three_candidates_per_structure() {
    let s = space_of(ATAX, 0, &Limits::default(), &mut Budget::unlimited()).unwrap();
    assert_eq!(s.structures().len(), 16);
    // The default, vector registers alone (also with wide vectors) and in five
    // combinations, the default's 12 other neighbours, then three candidates per
    // structure.
    let all = candidates(&s);
    assert_eq!(all.len(), 1 + 14 + 5 + 3 * 16);
    assert!(all[0].structure.is_none() && all[0].is_default());
    assert_eq!(all[0].key(), "default");
    assert!(all.iter().enumerate().all(|(k, c)| c.id == k));
    let first: Vec<String> = all[1..8].iter().map(|c| c.key()).collect();
    assert_eq!(
        first,
        [
            "default vector-registers",
            "default vector-registers wide-vectors",
            "default no-tiling vector-registers",
            "default no-tiling vector-registers wide-vectors",
            "default no-unroll-and-jam vector-registers",
            "default no-unroll-and-jam vector-registers wide-vectors",
            "default strategy=akg no-tiling vector-registers",
        ]
    );
    let variants: Vec<String> = all[8..20].iter().map(|c| c.key()).collect();
    assert_eq!(
        variants,
        [
            "default no-unroll-and-jam",
            "default sequential",
            "default tiles=16",
            "default tiles=32",
            "default tiles=64",
            "default tiles=128",
            "default tiles=32,256",
            "default tiles=64,512",
            "default no-tiling",
            "default strategy=basteln",
            "default strategy=polymage",
            "default strategy=akg",
        ]
    );
    assert!(all[1..20]
        .iter()
        .all(|c| c.structure.is_none() && !c.is_default()));
    assert_eq!(all[20].inner, Inner::Tiled);
    assert_eq!(all[22].inner, Inner::Original);
    assert!(all[20..].iter().all(|c| c.knobs == Knobs::default()));
    let keys: std::collections::BTreeSet<String> = all.iter().map(|c| c.key()).collect();
    assert_eq!(keys.len(), all.len(), "keys are unique");
}

#[test]
fn space_errors_name_the_region() {
    let err = space_of(ATAX, 1, &Limits::default(), &mut Budget::unlimited()).unwrap_err();
    assert!(matches!(
        err,
        SpaceError::NoRegion {
            region: 1,
            count: 1
        }
    ));
    assert_eq!(err.to_string(), "region 2 asked for, the file has 1");
    let err = space_of("int x;", 0, &Limits::default(), &mut Budget::unlimited()).unwrap_err();
    assert!(matches!(err, SpaceError::Frontend(_)));
    let err = space_of(ATAX, 0, &Limits::default(), &mut Budget::new(100)).unwrap_err();
    assert!(
        matches!(
            err,
            SpaceError::Space(pollen_search::Error::LimitExceeded)
                | SpaceError::Frontend(pollen_frontend::Error::Presburger { .. })
        ),
        "{err:?}"
    );
}

#[test]
fn outputs_compare_exactly_or_within_the_tolerance() {
    assert_eq!(compare("a 1.5\n", "a 1.5\n"), Ok(Agreement::Equal));
    assert_eq!(
        compare("a 1.0000000001\n", "a 1.0000000002\n"),
        Ok(Agreement::Close)
    );
    assert!(compare("a 1.0\n", "a 1.1\n").is_err());
    assert!(compare("a 1.0\n", "b 1.0\n").is_err());
    assert!(compare("a 1.0\n", "a 1.0 2.0\n").is_err());
    let difference = compare("x 1 2 3", "x 1 2 4").unwrap_err();
    assert!(difference.contains("word 4"), "{difference}");
}

#[test]
fn outputs_compare_within_a_share_of_their_lines_magnitude() {
    // A checksum that cancels, next to the checksum of the magnitudes.
    let original = "Y -3.25 40960.5\nZ 1 2\n";
    assert_eq!(
        compare_within(original, original, 1e-5),
        Ok(Agreement::Equal)
    );
    assert_eq!(
        compare_within(original, "Y -3.26 40960.5\nZ 1 2\n", 1e-5),
        Ok(Agreement::Close)
    );
    // The same difference is too much for `compare`, and for a tighter tolerance.
    assert!(compare(original, "Y -3.26 40960.5\nZ 1 2\n").is_err());
    assert!(compare_within(original, "Y -3.26 40960.5\nZ 1 2\n", 1e-7).is_err());
    // Each line has its own scale: the first line's magnitude does not cover the second.
    let difference = compare_within(original, "Y -3.25 40960.5\nZ 1 2.01\n", 1e-5).unwrap_err();
    assert!(difference.contains("word 6"), "{difference}");
    // Words and line counts must agree; a NaN is never close.
    assert!(compare_within(original, "W -3.25 40960.5\nZ 1 2\n", 1e-5).is_err());
    assert!(compare_within(original, "Y -3.25 40960.5 Z 1 2\n", 1e-5).is_err());
    assert!(compare_within("a nan\n", "a 1\n", 1.0).is_err());
}

#[test]
fn timers_are_found_and_left_out_of_the_output() {
    // Pollen's kernels: `time` lines on standard error.
    assert_eq!(
        program_timer("sum 1\n", "time 0.5\ntime 0.25\n"),
        Some((0.25, TimerLine::Stderr))
    );
    // The tensor operators time every run of their kernel: the fastest counts.
    assert_eq!(
        program_timer(
            "Y 1\n",
            "POLLEN_TIME 0.003\nPOLLEN_TIME 0.002\nPOLLEN_TIME 0.004\n"
        ),
        Some((0.002, TimerLine::Stderr))
    );
    assert_eq!(
        output_without_timer("Y 1\n", "POLLEN_TIME 0.003\nnote\n", true),
        "Y 1\n--- stderr ---\nnote\n"
    );
    // PolyBench: the last line of standard output.
    assert_eq!(
        program_timer("0.012345\n\n", ""),
        Some((0.012345, TimerLine::StdoutLast))
    );
    assert_eq!(program_timer("sum 1\n", ""), None);
    assert_eq!(
        output_without_timer("sum 1\n", "time 0.5\nnote\n", true),
        "sum 1\n--- stderr ---\nnote\n"
    );
    assert_eq!(
        output_without_timer("a\n0.5\n", "", true),
        "a\n--- stderr ---\n\n"
    );
    assert_eq!(
        output_without_timer("a\n0.5\n", "", false),
        "a\n0.5\n--- stderr ---\n\n"
    );
}

#[test]
fn neighbours_change_one_parameter_and_tile_sizes_only_where_tiled() {
    let tiled = Knobs::default().neighbours(true);
    assert_eq!(tiled.len(), TILE_SIZES.len() + 4);
    let untiled = Knobs::default().neighbours(false);
    assert_eq!(
        untiled,
        [
            Knobs {
                vector_registers: true,
                ..Knobs::default()
            },
            Knobs {
                vector_registers: true,
                wide_vectors: true,
                ..Knobs::default()
            },
            Knobs {
                parallel: false,
                ..Knobs::default()
            }
        ]
    );
    // From a changed point, the model's sizes are a neighbour again, and every
    // neighbour differs in exactly one parameter (vector registers turned on with
    // wide vectors counting as one).
    let at64 = Knobs {
        tile_sizes: Some(vec![64]),
        ..Knobs::default()
    };
    let n = at64.neighbours(true);
    assert_eq!(n.len(), TILE_SIZES.len() + 4);
    assert!(n.iter().any(|k| k.tile_sizes.is_none()));
    for k in &n {
        let changed = usize::from(k.tile_sizes != at64.tile_sizes)
            + usize::from(k.unroll_and_jam != at64.unroll_and_jam)
            + usize::from(k.parallel != at64.parallel)
            + usize::from(k.vector_registers != at64.vector_registers);
        assert_eq!(changed, 1, "{k:?}");
        assert!(k.tiling && k.strategy == Strategy::Pluto, "{k:?}");
    }
    // Given sizes walk member by member: each member doubled or halved, the others kept.
    let shaped = Knobs {
        tile_sizes: Some(vec![32, 1024]),
        ..Knobs::default()
    };
    let sizes: Vec<Vec<i64>> = shaped
        .neighbours(true)
        .into_iter()
        .filter(|k| k.tile_sizes != shaped.tile_sizes)
        .filter_map(|k| k.tile_sizes)
        .filter(|s| !TILE_SIZES.contains(&s.as_slice()))
        .collect();
    assert_eq!(sizes, [vec![64, 1024], vec![16, 1024], vec![32, 512]]);
    // Spelled out over four members, a cube walks each member on its own; trailing
    // members that repeat the one before are left out of the sizes.
    let cube = Knobs {
        tile_sizes: Some(vec![32]),
        ..Knobs::default()
    };
    let walked: Vec<Vec<i64>> = cube
        .neighbours_in(
            true,
            &Walk {
                members: 4,
                reassociating: false,
            },
        )
        .into_iter()
        .filter_map(|k| k.tile_sizes)
        .filter(|s| !TILE_SIZES.contains(&s.as_slice()))
        .collect();
    assert_eq!(
        walked,
        [
            vec![64, 32],
            vec![16, 32],
            vec![32, 64, 32],
            vec![32, 16, 32],
            vec![32, 32, 64, 32],
            vec![32, 32, 16, 32],
            vec![32, 32, 32, 64],
            vec![32, 32, 32, 16],
        ]
    );
    let one = Walk {
        members: 1,
        reassociating: false,
    };
    assert_eq!(
        cube.neighbours_in(true, &one),
        cube.neighbours(true),
        "one member: the walk of the sizes as given"
    );
    // Where the search reassociates, keeping a candidate's reductions in order is the
    // first neighbour, and its key reads back.
    let reassociating = Walk {
        members: 0,
        reassociating: true,
    };
    let first = &Knobs::default().neighbours_in(false, &reassociating)[0];
    assert!(first.in_order, "{first:?}");
    let s = space_of(ATAX, 0, &Limits::default(), &mut Budget::unlimited()).unwrap();
    let all = candidates(&s);
    let walked = pollen_tune::evaluate::neighbours_in(&all[3], &reassociating);
    assert_eq!(
        walked[0].key(),
        "default no-tiling vector-registers in-order"
    );
    assert_eq!(
        by_key(&all, &walked[0].key()).unwrap().knobs,
        walked[0].knobs
    );
    assert!(by_key(&all, "default in-order vector-registers").is_none());
    // A size read from a key may be any positive number: doubling it saturates (a
    // wrapping product would panic here, in a debug build), and sizes beyond the walk's
    // range are no neighbours.
    let huge = Knobs {
        tile_sizes: Some(vec![i64::MAX]),
        ..Knobs::default()
    };
    let walked: Vec<Vec<i64>> = huge
        .neighbours(true)
        .into_iter()
        .filter_map(|k| k.tile_sizes)
        .filter(|s| !TILE_SIZES.contains(&s.as_slice()) && *s != [i64::MAX])
        .collect();
    assert_eq!(walked, Vec::<Vec<i64>>::new());

    let s = space_of(ATAX, 0, &Limits::default(), &mut Budget::unlimited()).unwrap();
    let all = candidates(&s);
    let untiled = all.iter().find(|c| c.inner == Inner::Untiled).unwrap();
    let keys: Vec<String> = neighbours(untiled).iter().map(|c| c.key()).collect();
    assert_eq!(
        keys,
        [
            format!("{} vector-registers", untiled.key()),
            format!("{} vector-registers wide-vectors", untiled.key()),
            format!("{} sequential", untiled.key())
        ]
    );
    // The default pipeline's neighbours also turn tiling off and change the strategy;
    // untiled, it has no tile sizes to change, and each key names its candidate.
    let keys: Vec<String> = neighbours(&all[0]).iter().map(|c| c.key()).collect();
    assert!(keys.contains(&"default no-tiling".to_string()), "{keys:?}");
    assert!(
        keys.contains(&"default strategy=akg".to_string()),
        "{keys:?}"
    );
    let untiled_default = by_key(&all, "default strategy=akg no-tiling").unwrap();
    assert!(!untiled_default.tiled());
    assert_eq!(untiled_default.knobs.strategy, Strategy::Akg);
    let keys: Vec<String> = neighbours(&untiled_default)
        .iter()
        .map(|c| c.key())
        .collect();
    assert_eq!(
        keys,
        [
            "default strategy=akg no-tiling vector-registers",
            "default strategy=akg no-tiling vector-registers wide-vectors",
            "default strategy=akg no-tiling sequential",
            "default no-tiling",
            "default strategy=basteln no-tiling",
            "default strategy=polymage no-tiling",
        ]
    );
    for key in &keys {
        assert_eq!(by_key(&all, key).map(|c| c.key()).as_ref(), Some(key));
    }
    // At given tile sizes the default pipeline keeps its strategy and its tiling.
    let sized = by_key(&all, "default tiles=64").unwrap();
    let keys: Vec<String> = neighbours(&sized).iter().map(|c| c.key()).collect();
    assert!(
        keys.iter()
            .all(|k| !k.contains("strategy=") && !k.contains("no-tiling")),
        "{keys:?}"
    );
    // Strategies and `no-tiling` belong to the default pipeline only.
    let structure = format!("{} strategy=akg", untiled.key());
    assert!(by_key(&all, &structure).is_none());
    assert!(by_key(&all, "default no-tiling tiles=32").is_none());
}

#[test]
fn the_vector_width_is_a_neighbour_of_vector_registers_only() {
    // Without vector registers, wide vectors come only with them turned on.
    let n = Knobs::default().neighbours(true);
    assert!(n.iter().all(|k| k.vector_registers || !k.wide_vectors));
    assert!(n.iter().any(|k| k.vector_registers && k.wide_vectors));
    let vectors = Knobs {
        vector_registers: true,
        ..Knobs::default()
    };
    // First among the neighbours; turning vector registers off turns it off.
    let n = vectors.neighbours(false);
    assert_eq!(
        n[0],
        Knobs {
            wide_vectors: true,
            ..vectors.clone()
        }
    );
    let wide = n[0].clone();
    assert!(wide
        .neighbours(true)
        .iter()
        .all(|k| k.vector_registers || !k.wide_vectors));
    let s = space_of(ATAX, 0, &Limits::default(), &mut Budget::unlimited()).unwrap();
    let all = candidates(&s);
    let key = "default no-tiling vector-registers wide-vectors";
    let c = by_key(&all, key).unwrap();
    assert!(c.knobs.wide_vectors && c.knobs.vector_registers && !c.knobs.tiling);
    assert_eq!(c.key(), key);
    // The width means nothing without vector registers, and the words keep their order.
    assert!(by_key(&all, "default wide-vectors").is_none());
    assert!(by_key(&all, "default wide-vectors vector-registers").is_none());
}

#[test]
fn a_candidates_knobs_reach_the_pipeline() {
    let s = space_of(ATAX, 0, &Limits::default(), &mut Budget::unlimited()).unwrap();
    let all = candidates(&s);
    let local = Local {
        source: ATAX.to_string(),
        region: 0,
        space: s,
        options: pollen_driver::Options::default(),
        candidate_budget: None,
        toolchain: Toolchain {
            compiler: vec!["cc".to_string()],
            extra: Vec::new(),
            defines: Vec::new(),
            check_defines: None,
            check_flags: Vec::new(),
            include: Vec::new(),
        },
        dir: std::env::temp_dir(),
        env: Vec::new(),
        timer: Timer::Auto,
        run_limit: std::time::Duration::from_secs(1),
    };
    // The maximal fusion, tiled, with 16x16 tiles and no parallel loops.
    let tiled = all
        .iter()
        .find(|c| c.inner == Inner::Tiled && c.structure.is_some())
        .unwrap();
    let mut variant = tiled.clone();
    variant.knobs = Knobs {
        tile_sizes: Some(vec![16]),
        unroll_and_jam: false,
        parallel: false,
        ..Knobs::default()
    };
    let options = local.driver_options(&variant);
    assert_eq!(options.tiling, pollen_driver::Tiling::Sizes(vec![16]));
    assert!(!options.parallel && !options.unroll_and_jam && !options.profitability);
    let sequential = local.optimize(&variant).unwrap().text;
    assert!(!sequential.contains("omp parallel"), "{sequential}");
    let parallel = local.optimize(tiled).unwrap().text;
    assert!(parallel.contains("omp parallel"), "{parallel}");
    // The vector accumulators reach the emitter: atax's `tmp[i]` sums over `j` in an
    // innermost loop, which holds no vector loop below a reduction, so the option is
    // passed on and the text stays the plain one.
    let mut vectors = tiled.clone();
    vectors.knobs.vector_registers = true;
    assert!(local.driver_options(&vectors).vector_registers);
    assert!(!local.driver_options(tiled).vector_registers);
    assert_eq!(local.driver_options(&vectors).vector_bytes, 32);
    vectors.knobs.wide_vectors = true;
    assert_eq!(
        local.driver_options(&vectors).vector_bytes,
        pollen_tune::evaluate::WIDE_VECTOR_BYTES
    );
    // Reductions stay in order for a candidate that says so, where the search
    // reassociates them; the others reassociate.
    let reassociating = Local {
        options: pollen_driver::Options {
            reassociate: true,
            ..pollen_driver::Options::default()
        },
        ..local
    };
    let mut in_order = tiled.clone();
    in_order.knobs.in_order = true;
    assert!(!reassociating.driver_options(&in_order).reassociate);
    assert!(reassociating.driver_options(tiled).reassociate);
    let local = reassociating;
    // The default's variants keep its profitability check.
    let default_variant = all.iter().find(|c| c.key() == "default tiles=32").unwrap();
    let options = local.driver_options(default_variant);
    assert!(options.profitability);
    assert_eq!(options.tiling, pollen_driver::Tiling::Sizes(vec![32]));
}

#[test]
fn keys_name_listed_candidates_and_their_variants() {
    let s = space_of(ATAX, 0, &Limits::default(), &mut Budget::unlimited()).unwrap();
    let all = candidates(&s);
    for c in &all {
        assert_eq!(by_key(&all, &c.key()).as_ref(), Some(c));
    }
    let tiled = all
        .iter()
        .find(|c| c.inner == Inner::Tiled && c.structure.is_some())
        .unwrap();
    let untiled = all.iter().find(|c| c.inner == Inner::Untiled).unwrap();
    // Every neighbour of every neighbour round-trips through its key.
    for c in [tiled, untiled, &all[0]] {
        for n in neighbours(c) {
            for m in neighbours(&n) {
                let found = by_key(&all, &m.key()).unwrap();
                assert_eq!(found.key(), m.key());
                assert_eq!(found.knobs, m.knobs);
                assert_eq!(found.structure, m.structure);
                let listed = all.iter().any(|c| c.key() == m.key());
                assert_eq!(found.id < all.len(), listed, "{}", m.key());
            }
        }
    }
    let bad = [
        format!("{} tiles=16", untiled.key()),
        format!("{} sequential tiles=16", tiled.key()),
        format!("{} tiles=0", tiled.key()),
        format!("{} tiles=16 tiles=32", tiled.key()),
        format!("{} sequential sequential", tiled.key()),
        "{S9} tiled sequential".to_string(),
        "nothing".to_string(),
    ];
    for key in bad {
        assert!(by_key(&all, &key).is_none(), "{key}");
    }
}
