//! The default tile-size model: table tests with sizes worked out by hand from the
//! model's rule (largest multiple of 8 in 8..=256 whose footprint `k · s^d` elements fits
//! in half of the cache, `d = max(k - 1, min(k, 2))`).

use pollen_transform::sizes::{default_triangular_tile_sizes, element_bytes, tile_footprint};
use pollen_transform::{default_tile_sizes, default_two_level_tile_sizes, CacheInfo};

const KIB: u64 = 1 << 10;
const MIB: u64 = 1 << 20;

fn cache(l1: u64, l2: u64) -> CacheInfo {
    CacheInfo {
        l1_bytes: l1,
        l2_bytes: l2,
        l3_bytes: Some(32 * MIB),
    }
}

#[test]
fn one_level_sizes_fill_half_of_l2() {
    let cases: &[(CacheInfo, u64, usize, i64)] = &[
        // 3 s² · 8 <= 512 KiB: s <= 147.8
        (cache(32 * KIB, MIB), 8, 3, 144),
        // 3 s² · 4 <= 512 KiB: s <= 209.0
        (cache(32 * KIB, MIB), 4, 3, 208),
        // 2 s² · 8 <= 512 KiB: s <= 181.0
        (cache(32 * KIB, MIB), 8, 2, 176),
        // s · 8 <= 512 KiB: clamped to 256
        (cache(32 * KIB, MIB), 8, 1, 256),
        // 4 s³ · 8 <= 512 KiB: s <= 25.4
        (cache(32 * KIB, MIB), 8, 4, 24),
        // 3 s² · 8 <= 1 MiB: s <= 209.0
        (cache(48 * KIB, 2 * MIB), 8, 3, 208),
        // 3 s² · 8 <= 256 KiB: s <= 104.5
        (cache(32 * KIB, 512 * KIB), 8, 3, 104),
        // Tiny caches: nothing fits, the smallest size.
        (cache(KIB, KIB), 8, 3, 8),
        // Huge caches: clamped.
        (cache(MIB, 256 * MIB), 8, 3, 256),
        // No L2: half of L1, 3 s² · 8 <= 16 KiB: s <= 26.1
        (cache(32 * KIB, 0), 8, 3, 24),
    ];
    for &(c, bytes, depth, side) in cases {
        assert_eq!(
            default_tile_sizes(&c, bytes, depth),
            vec![side; depth],
            "{c:?}, {bytes} bytes, depth {depth}"
        );
    }
}

#[test]
fn triangular_sizes_fill_an_eighth_of_l2() {
    let cases: &[(CacheInfo, u64, usize, i64)] = &[
        // 3 s² · 8 <= 128 KiB: s <= 73.9
        (cache(32 * KIB, MIB), 8, 3, 72),
        // 2 s² · 8 <= 128 KiB: s <= 90.5
        (cache(32 * KIB, MIB), 8, 2, 88),
        // 3 s² · 4 <= 128 KiB: s <= 104.5
        (cache(32 * KIB, MIB), 4, 3, 104),
        // Tiny caches: the smallest size.
        (cache(KIB, KIB), 8, 3, 8),
    ];
    for &(c, bytes, depth, side) in cases {
        assert_eq!(
            default_triangular_tile_sizes(&c, bytes, depth),
            vec![side; depth],
            "{c:?}, {bytes} bytes, depth {depth}"
        );
    }
}

#[test]
fn two_level_sizes_fill_l1_then_l2() {
    let cases: &[(CacheInfo, u64, usize, i64, i64)] = &[
        // L1: 3 s² · 8 <= 16 KiB: 24; L2: 144 = 6 · 24
        (cache(32 * KIB, MIB), 8, 3, 24, 6),
        // L1: 2 s² · 8 <= 16 KiB: 32; L2: 176 -> 5 tiles of 32
        (cache(32 * KIB, MIB), 8, 2, 32, 5),
        // L1: 3 s² · 8 <= 24 KiB: 32; L2: 208 -> 6 tiles of 32
        (cache(48 * KIB, 2 * MIB), 8, 3, 32, 6),
        // Both clamped: 256 / 256
        (cache(64 * MIB, 256 * MIB), 8, 3, 256, 1),
    ];
    for &(c, bytes, depth, inner, ratio) in cases {
        assert_eq!(
            default_two_level_tile_sizes(&c, bytes, depth),
            (vec![inner; depth], vec![ratio; depth]),
            "{c:?}, {bytes} bytes, depth {depth}"
        );
    }
}

#[test]
fn footprints() {
    assert_eq!(tile_footprint(32, 3, 8), 3 * 32 * 32 * 8);
    assert_eq!(tile_footprint(32, 2, 8), 2 * 32 * 32 * 8);
    assert_eq!(tile_footprint(32, 1, 4), 32 * 4);
    assert_eq!(tile_footprint(10, 5, 1), 5 * 10_000);
    assert_eq!(tile_footprint(u64::MAX, 3, 8), u64::MAX);
}

#[test]
fn element_sizes_of_c_types() {
    let cases = [
        ("double", 8),
        ("float", 4),
        ("int", 4),
        ("unsigned int", 4),
        ("unsigned", 4),
        ("const float", 4),
        ("long", 8),
        ("char", 1),
        ("unsigned char", 1),
        ("short", 2),
        ("DATA_TYPE", 8),
    ];
    for (ty, bytes) in cases {
        assert_eq!(element_bytes(ty), bytes, "{ty}");
    }
}
