//! A memory hierarchy described as data, and the promotion of a tile's data into its
//! buffers (AKG §4.4).
//!
//! A [`Hierarchy`] is a list of [`Level`]s, each with a capacity in bytes, the level
//! its data is copied from (`None`: global memory) and the [`Role`]s of the operands it
//! may hold. Two descriptions come with the crate:
//! - [`Hierarchy::cpu`], a cache hierarchy (L1, L2 from a [`CacheInfo`]): every role
//!   fits every level, and a tile's data goes to the innermost level it fits;
//! - [`Hierarchy::npu`], the DaVinci core of AKG's Ascend 910: L1 (1 MiB) and UB
//!   (256 KiB) fed from global memory, L0A and L0B (64 KiB each) fed from L1 and L0C
//!   (256 KiB) for the Cube unit. Scratchpads hold what the roles say: the Vector unit's
//!   operands in UB, the Cube unit's inputs in L1, then the GEMM `Z += X × Y`'s `X` in
//!   L0A, `Y` in L0B and `Z` in L0C, every one of those levels. [`Hierarchy::parse`]
//!   reads the same description from AKG's specification language ([`NPU_SPEC`]).
//!
//! [`promote`] takes the instances of one tile (`{ [o] -> S[i] }`) and the role of each
//! tensor they access, and gives per (tensor, level) a buffer: the box of constant
//! extents around the tile's footprint (its origin affine in the tile coordinates, as
//! basteln's windows), its bytes, and the copy statements that fill it before the tile
//! and write it back after it. The footprints of one level must fit its capacity
//! (half of it when the hierarchy double-buffers, as AKG's tiling requires), else
//! [`Error::CapacityExceeded`].

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use pollen_presburger::{Budget, Map, UnionMap};
use pollen_scop::{AccessKind, Scop};

use super::fusion::{is_dot_product, Unit};
use super::reverse::statement;
use crate::error::{Error, Result};
use crate::fused::build::{element_bytes, origin};
use crate::fused::window::window;
use crate::fused::Linear;
use crate::sizes::CacheInfo;

/// What an operand is to the computation that uses it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Role {
    /// An operand of the Vector unit (elementwise operations, non-dot-product
    /// reductions).
    Vector,
    /// An input of a convolution or matrix product on the Cube unit.
    CubeInput,
    /// The left factor `X` of the GEMM `Z += X × Y`.
    GemmLeft,
    /// The right factor `Y`.
    GemmRight,
    /// The accumulator `Z`.
    GemmResult,
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Role::Vector => "vector operand",
            Role::CubeInput => "cube input",
            Role::GemmLeft => "GEMM left factor",
            Role::GemmRight => "GEMM right factor",
            Role::GemmResult => "GEMM accumulator",
        })
    }
}

/// How a hierarchy's levels are used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    /// Caches: each tensor goes to the innermost level that holds its role and has room.
    Cache,
    /// Scratchpads: each tensor goes to every level that holds its role.
    Scratchpad,
}

/// One memory level.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Level {
    /// Its name (a buffer prefix: `A_UB`).
    pub name: String,
    /// Its capacity in bytes.
    pub capacity: u64,
    /// The level its data is copied from; `None` for global memory.
    pub parent: Option<String>,
    /// The roles of the operands it may hold.
    pub holds: Vec<Role>,
}

/// A memory hierarchy: levels from the outermost (nearest to global memory) inwards.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hierarchy {
    /// The levels.
    pub levels: Vec<Level>,
    /// How they are used.
    pub policy: Policy,
    /// Whether every buffer is double-buffered: the footprints of a level may then take
    /// half its capacity.
    pub double_buffer: bool,
}

const ALL_ROLES: [Role; 5] = [
    Role::Vector,
    Role::CubeInput,
    Role::GemmLeft,
    Role::GemmRight,
    Role::GemmResult,
];

impl Hierarchy {
    /// The cache hierarchy of a CPU: L2 then L1, each holding everything.
    pub fn cpu(cache: &CacheInfo) -> Hierarchy {
        Hierarchy {
            levels: vec![
                Level {
                    name: "L2".into(),
                    capacity: cache.l2_bytes,
                    parent: None,
                    holds: ALL_ROLES.to_vec(),
                },
                Level {
                    name: "L1".into(),
                    capacity: cache.l1_bytes,
                    parent: Some("L2".into()),
                    holds: ALL_ROLES.to_vec(),
                },
            ],
            policy: Policy::Cache,
            double_buffer: false,
        }
    }

    /// The buffers of an Ascend 910 (DaVinci) AI core, double-buffered.
    pub fn npu() -> Hierarchy {
        let level = |name: &str, capacity: u64, parent: Option<&str>, holds: &[Role]| Level {
            name: name.into(),
            capacity,
            parent: parent.map(str::to_string),
            holds: holds.to_vec(),
        };
        Hierarchy {
            levels: vec![
                level("L1", 1 << 20, None, &[Role::CubeInput]),
                level("UB", 256 << 10, None, &[Role::Vector]),
                level("L0A", 64 << 10, Some("L1"), &[Role::GemmLeft]),
                level("L0B", 64 << 10, Some("L1"), &[Role::GemmRight]),
                level("L0C", 256 << 10, None, &[Role::GemmResult]),
            ],
            policy: Policy::Scratchpad,
            double_buffer: true,
        }
    }

    /// Checks the description: unique non-empty names, positive capacities, parents
    /// that are earlier levels.
    pub fn validate(&self) -> Result<()> {
        let mut seen = BTreeSet::new();
        for l in &self.levels {
            if l.name.is_empty()
                || !l
                    .name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_')
            {
                return Err(Error::InvalidHierarchy(format!(
                    "level name {:?} is not an identifier",
                    l.name
                )));
            }
            if l.capacity == 0 {
                return Err(Error::InvalidHierarchy(format!(
                    "level {} has no capacity",
                    l.name
                )));
            }
            if let Some(p) = &l.parent {
                if !seen.contains(p.as_str()) {
                    return Err(Error::InvalidHierarchy(format!(
                        "the parent {p} of level {} is not an earlier level",
                        l.name
                    )));
                }
            }
            if !seen.insert(l.name.as_str()) {
                return Err(Error::InvalidHierarchy(format!(
                    "level {} is declared twice",
                    l.name
                )));
            }
        }
        Ok(())
    }

    /// The bytes a level offers to promotion: its capacity, or half of it when
    /// double-buffered.
    pub fn available(&self, level: &Level) -> u64 {
        if self.double_buffer {
            level.capacity / 2
        } else {
            level.capacity
        }
    }

    /// The levels that may hold `role`, outermost first.
    pub fn levels_for(&self, role: Role) -> Vec<&Level> {
        self.levels
            .iter()
            .filter(|l| l.holds.contains(&role))
            .collect()
    }
}

/// A copy between a buffer and the memory it is filled from.
#[derive(Clone, Debug)]
pub struct Copy {
    /// The copy statement's name.
    pub name: String,
    /// Its instances: `{ [o] -> A[x] }`, one per element of the tile's footprint.
    pub elements: Map,
    /// Its text, over the element's subscripts `x0, x1, ...` and the tile coordinates
    /// `o0, o1, ...`: `A_UB[x0 - (32*o0)][x1 - (32*o1)] = A[x0][x1];`.
    pub body: String,
}

/// A tensor's tile promoted into a buffer of one level.
#[derive(Clone, Debug)]
pub struct Promotion {
    /// The tensor.
    pub tensor: String,
    /// Why it is there.
    pub role: Role,
    /// The level.
    pub level: String,
    /// The buffer's name (`<tensor>_<level>`).
    pub buffer: String,
    /// The buffer's extents.
    pub extents: Vec<i64>,
    /// Per dimension, the buffer's origin in the tensor, affine in the tile coordinates
    /// `o0, o1, ...` and the parameters.
    pub origin: Vec<Linear>,
    /// Its size in bytes.
    pub bytes: u64,
    /// The copy filling it before the tile (from global memory or the parent level),
    /// when the tile reads values it does not compute first.
    pub copy_in: Option<Copy>,
    /// The copy writing it back after the tile, when the tensor is live-out.
    pub copy_out: Option<Copy>,
}

/// The roles of the tensors that the statements of a tile access, by AKG's placement
/// rules: the operands of a dot product `Z += X × Y` are the Cube unit's (X and Y cube
/// inputs and GEMM factors in their order of reading, Z the accumulator, also for the
/// statements that initialise it), every tensor a Vector-unit statement accesses is a
/// vector operand.
pub fn roles(scop: &Scop, statements: &[String]) -> Result<BTreeMap<String, BTreeSet<Role>>> {
    let units = super::fusion::units(scop, statements)?;
    let mut out: BTreeMap<String, BTreeSet<Role>> = BTreeMap::new();
    for (name, unit) in statements.iter().zip(&units) {
        let s = statement(scop, name)?;
        let write = s.accesses.iter().find(|a| a.kind == AccessKind::Write);
        match unit {
            Unit::Vector => {
                for a in &s.accesses {
                    out.entry(a.array.clone()).or_default().insert(Role::Vector);
                }
            }
            Unit::Cube if is_dot_product(s)? => {
                let z = write.map(|w| w.array.clone()).unwrap_or_default();
                let mut factors = Vec::new();
                for r in s.accesses.iter().filter(|a| a.kind == AccessKind::Read) {
                    if r.array != z && !factors.contains(&r.array) {
                        factors.push(r.array.clone());
                    }
                }
                for (k, f) in factors.iter().enumerate() {
                    let e = out.entry(f.clone()).or_default();
                    e.insert(Role::CubeInput);
                    e.insert(if k == 0 {
                        Role::GemmLeft
                    } else {
                        Role::GemmRight
                    });
                }
                out.entry(z).or_default().insert(Role::GemmResult);
            }
            Unit::Cube => {
                if let Some(w) = write {
                    out.entry(w.array.clone())
                        .or_default()
                        .insert(Role::GemmResult);
                }
            }
        }
    }
    Ok(out)
}

/// The footprints of a tile's instances on each tensor: `(reads, writes)`.
type Footprints = BTreeMap<String, (Option<Map>, Option<Map>)>;

fn footprints(scop: &Scop, tile: &UnionMap, budget: &mut Budget) -> Result<Footprints> {
    let mut out: Footprints = BTreeMap::new();
    for m in tile.maps() {
        let name = m
            .space()
            .range_tuple()
            .and_then(|t| t.name())
            .ok_or_else(|| Error::UnsupportedTree("a tile instance map has no name".into()))?;
        let s = statement(scop, name)?;
        for a in &s.accesses {
            let f = m.apply_range(&a.relation)?;
            if f.is_empty_with(budget)? {
                continue;
            }
            let entry = out.entry(a.array.clone()).or_default();
            let slot = if a.kind == AccessKind::Read {
                &mut entry.0
            } else {
                &mut entry.1
            };
            *slot = Some(match slot.take() {
                Some(old) => old.union(&f)?.coalesce_with(budget)?,
                None => f.coalesce_with(budget)?,
            });
        }
    }
    Ok(out)
}

/// Promotes the data of one tile (its instances `{ [o] -> S[i] }`, run in program
/// order) into `hierarchy`, the tensors' roles given by `roles`
/// (see [`roles`]); `live_out` names the tensors copied back. `shape` fixes parameters
/// to the values the kernel is compiled for (AKG compiles one shape at a time): a
/// buffer needs constant extents, and a tile's halo usually depends on a kernel size. Tensors without a role
/// stay in global memory. A tensor is copied in unless the tile first writes every
/// element it reads with statements that read nothing of it (an initialisation before
/// its reduction).
pub fn promote(
    scop: &Scop,
    hierarchy: &Hierarchy,
    tile: &UnionMap,
    roles: &BTreeMap<String, BTreeSet<Role>>,
    live_out: &BTreeSet<String>,
    shape: &[(&str, i64)],
    budget: &mut Budget,
) -> Result<Vec<Promotion>> {
    hierarchy.validate()?;
    let tile = &tile.map_each(|m| fix_params(m, shape))?;
    let prints = footprints(scop, tile, budget)?;
    let overwritten = first_written(scop, tile, budget)?;
    let mut used: BTreeMap<String, u64> = BTreeMap::new();
    let mut out = Vec::new();
    for (tensor, tensor_roles) in roles {
        let Some((reads, writes)) = prints.get(tensor) else {
            continue;
        };
        let whole = match (reads, writes) {
            (Some(r), Some(w)) => r.union(w)?.coalesce_with(budget)?,
            (Some(r), None) => r.clone(),
            (None, Some(w)) => w.clone(),
            (None, None) => continue,
        };
        let element_type = scop
            .array(tensor)
            .map(|a| a.element_type.clone())
            .unwrap_or_default();
        let Some(extents) = window(&whole, budget)? else {
            return Err(Error::UnboundedFootprint {
                tensor: tensor.clone(),
            });
        };
        let sizes: Vec<i64> = extents.iter().map(|e| e.extent).collect();
        let elements = sizes
            .iter()
            .try_fold(1u64, |acc, &e| acc.checked_mul(u64::try_from(e).ok()?));
        let bytes = elements
            .and_then(|n| n.checked_mul(element_bytes(&element_type)))
            .ok_or(Error::TileSizeOverflow)?;
        let k = whole.space().n_in();
        let tiles: Vec<String> = (0..k).map(|j| format!("o{j}")).collect();
        let origins: Vec<Linear> = extents
            .iter()
            .map(|e| origin(e, &scop.params, &tiles))
            .collect();
        let needs_in = match reads {
            Some(r) => match overwritten.get(tensor) {
                Some(w) => !r.is_subset_with(w, budget)?,
                None => true,
            },
            None => false,
        };
        for &role in tensor_roles {
            let candidates = hierarchy.levels_for(role);
            if candidates.is_empty() {
                return Err(Error::NoPlacement {
                    tensor: tensor.clone(),
                    role: role.to_string(),
                });
            }
            let chosen: Vec<&Level> = match hierarchy.policy {
                Policy::Scratchpad => candidates,
                Policy::Cache => {
                    // The innermost level with room, else the outermost (which fails).
                    let fits = candidates.iter().rev().find(|l| {
                        used.get(&l.name)
                            .copied()
                            .unwrap_or(0)
                            .saturating_add(bytes)
                            <= hierarchy.available(l)
                    });
                    vec![fits.copied().unwrap_or(candidates[0])]
                }
            };
            for level in chosen {
                if out
                    .iter()
                    .any(|p: &Promotion| p.tensor == *tensor && p.level == level.name)
                {
                    continue;
                }
                let total = used.entry(level.name.clone()).or_insert(0);
                *total = total.saturating_add(bytes);
                if *total > hierarchy.available(level) {
                    return Err(Error::CapacityExceeded {
                        level: level.name.clone(),
                        tensor: tensor.clone(),
                        needed: *total,
                        available: hierarchy.available(level),
                    });
                }
                let buffer = format!("{tensor}_{}", level.name);
                let source = match &level.parent {
                    Some(p) => format!("{tensor}_{p}"),
                    None => tensor.clone(),
                };
                let source_origin = level
                    .parent
                    .as_ref()
                    .and_then(|p| out.iter().find(|q| q.tensor == *tensor && q.level == *p))
                    .map(|q| q.origin.clone());
                let local = reference(&buffer, &origins);
                let global = match &source_origin {
                    Some(o) => reference(&source, o),
                    None => reference(&source, &vec![zero(); origins.len()]),
                };
                let copy_in = needs_in.then(|| Copy {
                    name: format!("copy_in_{buffer}"),
                    elements: reads.clone().unwrap_or_else(|| whole.clone()),
                    body: format!("{local} = {global};"),
                });
                let copy_out = match writes {
                    Some(w) if live_out.contains(tensor) => Some(Copy {
                        name: format!("copy_out_{buffer}"),
                        elements: w.clone(),
                        body: format!("{global} = {local};"),
                    }),
                    _ => None,
                };
                out.push(Promotion {
                    tensor: tensor.clone(),
                    role,
                    level: level.name.clone(),
                    buffer,
                    extents: sizes.clone(),
                    origin: origins.clone(),
                    bytes,
                    copy_in,
                    copy_out,
                });
            }
        }
    }
    Ok(out)
}

/// Per tensor, the elements the tile writes with statements that read nothing of the
/// tensor and come before every statement reading it in program order (the order of
/// a fused tile: producers, then the live-out statements).
fn first_written(
    scop: &Scop,
    tile: &UnionMap,
    budget: &mut Budget,
) -> Result<BTreeMap<String, Map>> {
    let mut out: BTreeMap<String, Map> = BTreeMap::new();
    let mut read_so_far: BTreeSet<String> = BTreeSet::new();
    for s in &scop.statements {
        let Some(m) = tile
            .maps()
            .find(|m| m.space().range_tuple().and_then(|t| t.name()) == Some(s.name.as_str()))
        else {
            continue;
        };
        let reads: BTreeSet<&str> = s
            .accesses
            .iter()
            .filter(|a| a.kind == AccessKind::Read)
            .map(|a| a.array.as_str())
            .collect();
        for w in s.accesses.iter().filter(|a| a.kind == AccessKind::Write) {
            if reads.contains(w.array.as_str()) || read_so_far.contains(&w.array) {
                continue;
            }
            let f = m.apply_range(&w.relation)?;
            let joined = match out.remove(&w.array) {
                Some(old) => old.union(&f)?.coalesce_with(budget)?,
                None => f,
            };
            out.insert(w.array.clone(), joined);
        }
        read_so_far.extend(reads.into_iter().map(str::to_string));
    }
    Ok(out)
}

fn zero() -> Linear {
    Linear {
        constant: pollen_arith::Int::zero(),
        terms: Vec::new(),
    }
}

/// `name[x0 - (origin0)][x1 - (origin1)]...`.
fn reference(name: &str, origins: &[Linear]) -> String {
    let mut s = name.to_string();
    for (d, o) in origins.iter().enumerate() {
        let printed = print_linear(o);
        if printed == "0" {
            s.push_str(&format!("[x{d}]"));
        } else {
            s.push_str(&format!("[x{d} - ({printed})]"));
        }
    }
    s
}

/// `constant + Σ coefficient*name`, the way C reads it.
pub fn print_linear(l: &Linear) -> String {
    let mut parts: Vec<String> = Vec::new();
    for (name, c) in &l.terms {
        parts.push(if c.is_one() {
            name.clone()
        } else {
            format!("{c}*{name}")
        });
    }
    if !l.constant.is_zero() || parts.is_empty() {
        parts.push(l.constant.to_string());
    }
    parts.join(" + ").replace("+ -", "- ")
}

/// `m` with the parameters named in `shape` fixed to their values (kept as parameters).
fn fix_params(m: &Map, shape: &[(&str, i64)]) -> pollen_presburger::Result<Map> {
    let mut out = m.clone();
    for (k, name) in m.space().param_names().iter().enumerate() {
        if let Some((_, v)) = shape.iter().find(|(n, _)| n == name) {
            out = out.fix_val(
                pollen_presburger::DimKind::Param,
                k,
                &pollen_arith::Int::from(*v),
            )?;
        }
    }
    Ok(out)
}

/// The NPU's description in the specification language of [`Hierarchy::parse`].
pub const NPU_SPEC: &str = "\
buf L1 (1048576)
buf UB (262144)
buf L0A (65536)
buf L0B (65536)
buf L0C (262144)
dataflow (L1 -> L0A, 1, 32)
dataflow (L1 -> L0B, 1, 32)
vector (UB -> UB, 128, 32)
cube (L0A L0B -> L0C, 4096, 16)
";

impl Hierarchy {
    /// Reads a hierarchy from AKG's manual memory-hierarchy specification (Fig. 8):
    /// one statement per line (or separated by `;`), each
    /// - `buf NAME (BYTES)`: a buffer, a level of the hierarchy;
    /// - `dataflow (FROM -> TO, THROUGHPUT, ALIGNMENT)`: `TO` is filled from `FROM`
    ///   (its parent; a name that is not a buffer is global memory);
    /// - `vector (IN... -> OUT..., THROUGHPUT, ALIGNMENT)` or `scalar (...)`: the
    ///   buffers hold the Vector unit's operands;
    /// - `cube (X Y -> Z, THROUGHPUT, ALIGNMENT)`: the buffers of the GEMM's left factor,
    ///   right factor and accumulator, and the buffers feeding `X` and `Y` hold the
    ///   Cube unit's inputs.
    ///
    /// Levels keep the order of their `buf` statements, parents first; the result is a
    /// double-buffered scratchpad hierarchy, validated.
    pub fn parse(text: &str) -> Result<Hierarchy> {
        let bad = |line: usize, msg: &str| Error::InvalidHierarchy(format!("line {line}: {msg}"));
        let mut levels: Vec<Level> = Vec::new();
        let mut flows: Vec<(usize, String, String)> = Vec::new();
        let mut units: Vec<(usize, String, Vec<String>, Vec<String>)> = Vec::new();
        for (k, raw) in text.lines().enumerate() {
            let line = k + 1;
            for stmt in raw.split(';').map(str::trim).filter(|s| !s.is_empty()) {
                let (head, rest) = stmt
                    .split_once('(')
                    .ok_or_else(|| bad(line, "expected `(`"))?;
                let body = rest
                    .strip_suffix(')')
                    .ok_or_else(|| bad(line, "expected `)` at the end"))?;
                let words: Vec<&str> = head.split_whitespace().collect();
                match words.as_slice() {
                    ["buf", name] => {
                        let capacity: u64 = body
                            .trim()
                            .parse()
                            .map_err(|_| bad(line, "a buffer size is a non-negative integer"))?;
                        levels.push(Level {
                            name: name.to_string(),
                            capacity,
                            parent: None,
                            holds: Vec::new(),
                        });
                    }
                    [kind] => {
                        let parts: Vec<&str> = body.split(',').map(str::trim).collect();
                        let [flow, throughput, alignment] = parts.as_slice() else {
                            return Err(bad(line, "expected (IN -> OUT, THROUGHPUT, ALIGNMENT)"));
                        };
                        for n in [throughput, alignment] {
                            n.parse::<u64>()
                                .map_err(|_| bad(line, "throughput and alignment are integers"))?;
                        }
                        let (ins, outs) = flow
                            .split_once("->")
                            .ok_or_else(|| bad(line, "expected `->`"))?;
                        let ins: Vec<String> = ins.split_whitespace().map(str::to_string).collect();
                        let outs: Vec<String> =
                            outs.split_whitespace().map(str::to_string).collect();
                        if ins.is_empty() || outs.is_empty() {
                            return Err(bad(line, "a flow needs input and output buffers"));
                        }
                        match *kind {
                            "dataflow" => {
                                let ([from], [to]) = (ins.as_slice(), outs.as_slice()) else {
                                    return Err(bad(line, "a dataflow joins one buffer to one"));
                                };
                                flows.push((line, from.clone(), to.clone()));
                            }
                            "cube" | "vector" | "scalar" => {
                                units.push((line, kind.to_string(), ins, outs));
                            }
                            other => {
                                return Err(bad(line, &format!("unknown statement `{other}`")))
                            }
                        }
                    }
                    _ => return Err(bad(line, "expected `buf NAME (SIZE)` or `KIND (...)`")),
                }
            }
        }
        for (line, from, to) in &flows {
            let t = levels
                .iter()
                .position(|l| &l.name == to)
                .ok_or_else(|| bad(*line, &format!("no buffer {to}")))?;
            if levels.iter().any(|l| &l.name == from) {
                levels[t].parent = Some(from.clone());
            }
        }
        let grant = |levels: &mut Vec<Level>, name: &str, role: Role, line: usize| {
            let k = levels
                .iter()
                .position(|l| l.name == name)
                .ok_or_else(|| bad(line, &format!("no buffer {name}")))?;
            if !levels[k].holds.contains(&role) {
                levels[k].holds.push(role);
            }
            Ok::<(), Error>(())
        };
        for (line, kind, ins, outs) in &units {
            if kind == "cube" {
                let ([x, y], [z]) = (ins.as_slice(), outs.as_slice()) else {
                    return Err(bad(*line, "a cube unit reads two buffers and writes one"));
                };
                grant(&mut levels, x, Role::GemmLeft, *line)?;
                grant(&mut levels, y, Role::GemmRight, *line)?;
                grant(&mut levels, z, Role::GemmResult, *line)?;
                for operand in [x, y] {
                    let parent = levels
                        .iter()
                        .find(|l| &l.name == operand)
                        .and_then(|l| l.parent.clone());
                    if let Some(p) = parent {
                        grant(&mut levels, &p, Role::CubeInput, *line)?;
                    }
                }
            } else {
                for b in ins.iter().chain(outs) {
                    grant(&mut levels, b, Role::Vector, *line)?;
                }
            }
        }
        let h = Hierarchy {
            levels,
            policy: Policy::Scratchpad,
            double_buffer: true,
        };
        h.validate()?;
        Ok(h)
    }
}
