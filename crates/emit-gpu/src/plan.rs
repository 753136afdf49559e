//! The checks and names shared by both emitters: every array, kernel and launch of the
//! program validated against the scop, and the generated names chosen.

use std::collections::{BTreeMap, BTreeSet};

use pollen_gpu::{ArrayKind, DeviceArray, GpuProgram, Host, Kernel, KernelAst, Mapping};
use pollen_scop::Scop;

use crate::error::{Error, Result};
use crate::names::{self, HOST_PREFIXES, KERNEL_PREFIXES};

/// The names that the preludes define, which the source may not use otherwise.
pub(crate) const RESERVED: [&str; 9] = [
    "pollen_cl_check",
    "pollen_cl_device",
    "pollen_cl_open",
    "pollen_cuda_check",
    "pollen_lanes",
    "pollen_raw",
    "pollen_raw32",
    "pollen_raw64",
    "pollen_vst",
];

/// The guards of the preludes: a source holding one already has that prelude.
pub(crate) const GUARDS: [&str; 2] = ["POLLEN_OPENCL_PRELUDE", "POLLEN_CUDA_PRELUDE"];

/// One argument of a kernel, in order.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Arg<'a> {
    /// An array or scalar of the program (buffer, one-element buffer or value).
    Array(&'a DeviceArray),
    /// Extent `d` (at least 1) of a buffer, as a `long`.
    Extent(&'a DeviceArray, usize),
    /// A parameter's value, as a `long`.
    Param(&'a str),
    /// A host iterator's value, as a `long`.
    HostIterator(&'a str),
}

/// A validated program with its generated names.
pub(crate) struct Plan<'a> {
    pub scop: &'a Scop,
    pub program: &'a GpuProgram,
    /// The arrays of the program by name.
    pub arrays: BTreeMap<&'a str, &'a DeviceArray>,
    /// The prefix of the names that kernels see (iterators, arguments, kernels).
    kernel_prefix: String,
    /// The prefix of the host's variables.
    host_prefix: String,
}

impl<'a> Plan<'a> {
    /// Checks `program` against `scop` and chooses names that no word of `source`
    /// shadows.
    pub fn new(source: &str, scop: &'a Scop, program: &'a GpuProgram) -> Result<Plan<'a>> {
        let mut arrays = BTreeMap::new();
        for a in &program.arrays {
            check_array(a)?;
            if arrays.insert(a.name.as_str(), a).is_some() {
                return Err(Error::DuplicateName(a.name.clone()));
            }
        }
        for p in &scop.params {
            identifier(p)?;
        }
        let mut iterators = BTreeSet::new();
        host_iterators(&program.host, program.kernels.len(), &mut iterators)?;
        let host_loops = iterators.clone();
        for k in &program.kernels {
            identifier(&k.name)?;
            check_geometry(k)?;
            for a in &k.arrays {
                if !arrays.contains_key(a.as_str()) {
                    return Err(Error::UnknownArray(a.clone()));
                }
            }
            for h in &k.host_iterators {
                if !host_loops.contains(h) {
                    return Err(Error::UnknownName(h.clone()));
                }
            }
            let mut own = BTreeSet::new();
            kernel_iterators(&k.body, &mut own)?;
            if let Some(both) = k.host_iterators.iter().find(|h| own.contains(*h)) {
                return Err(Error::DuplicateName(both.clone()));
            }
            iterators.extend(own);
        }

        let mut generated: Vec<String> = iterators.iter().cloned().collect();
        generated.extend(scop.params.iter().map(|p| format!("p_{p}")));
        for a in &program.arrays {
            generated.extend((1..a.extents.len()).map(|d| format!("{}_d{d}", a.name)));
        }
        generated.extend(program.kernels.iter().map(|k| k.name.clone()));
        // Shared arrays (one name may serve several kernels) and the copies' variables.
        let mut shared = BTreeSet::new();
        let mut copy_dims = 0;
        for k in &program.kernels {
            for a in &k.shared {
                identifier(&a.name)?;
                shared.insert(a.name.clone());
                copy_dims = copy_dims.max(a.sizes.len());
            }
        }
        generated.extend(shared);
        if copy_dims > 0 {
            generated.push("copy_t".to_string());
            for d in 0..copy_dims {
                generated.push(format!("copy_n{d}"));
                generated.push(format!("copy_x{d}"));
            }
        }
        // A lane loop's scalar iterator and vector variables (at most one per array
        // reference of a statement).
        if program.kernels.iter().any(|k| has_lanes(&k.body)) {
            generated.push("lane".to_string());
            let most = scop
                .statements
                .iter()
                .map(|s| s.body.matches('[').count())
                .max()
                .unwrap_or(0);
            generated.extend((0..most).map(|j| format!("lane_v{j}")));
        }
        let mut distinct = BTreeSet::new();
        if let Some(twice) = generated.iter().find(|g| !distinct.insert(g.as_str())) {
            return Err(Error::DuplicateName(twice.clone()));
        }

        let mut taken = names::words(source);
        let ours = GUARDS.iter().any(|g| taken.contains(*g));
        if let Some(r) = RESERVED.iter().find(|r| taken.contains(**r)) {
            if !ours {
                return Err(Error::ReservedName(r.to_string()));
            }
        }
        taken.extend(scop.params.iter().cloned());
        taken.extend(program.arrays.iter().map(|a| a.name.clone()));
        taken.extend(RESERVED.iter().map(|r| r.to_string()));
        let kernel_prefix = names::fresh_prefix(&generated, &taken, &KERNEL_PREFIXES);
        taken.extend(generated.iter().map(|g| format!("{kernel_prefix}{g}")));
        let host_names = host_names(program);
        let host_prefix = names::fresh_prefix(&host_names, &taken, &HOST_PREFIXES);
        Ok(Plan {
            scop,
            program,
            arrays,
            kernel_prefix,
            host_prefix,
        })
    }

    /// The printed name of a kernel or host loop iterator.
    pub fn iterator(&self, name: &str) -> String {
        format!("{}{name}", self.kernel_prefix)
    }

    /// The kernel argument (and host variable) holding a parameter's value.
    pub fn param(&self, name: &str) -> String {
        format!("{}p_{name}", self.kernel_prefix)
    }

    /// The kernel argument (and host variable) holding extent `d` of an array.
    pub fn extent(&self, array: &str, d: usize) -> String {
        format!("{}{array}_d{d}", self.kernel_prefix)
    }

    /// The printed name of a shared array, or of a copy's variable (`copy_t`,
    /// `copy_n0`, `copy_x0`, ...).
    pub fn shared(&self, name: &str) -> String {
        format!("{}{name}", self.kernel_prefix)
    }

    /// The printed name of a kernel.
    pub fn kernel(&self, kernel: &Kernel) -> String {
        format!("{}{}", self.kernel_prefix, kernel.name)
    }

    /// A host variable of the generated code.
    pub fn host(&self, what: &str) -> String {
        format!("{}{what}", self.host_prefix)
    }

    /// The arguments of a kernel, in order: its arrays (each buffer followed by its
    /// extents after the first; private scalars are no argument), the parameters, the
    /// host iterators.
    pub fn args(&self, kernel: &'a Kernel) -> Vec<Arg<'a>> {
        let mut out = Vec::new();
        for name in &kernel.arrays {
            let Some(a) = self.arrays.get(name.as_str()) else {
                continue;
            };
            match a.kind {
                ArrayKind::Private => {}
                ArrayKind::Buffer => {
                    out.push(Arg::Array(a));
                    out.extend((1..a.extents.len()).map(|d| Arg::Extent(a, d)));
                }
                ArrayKind::Value | ArrayKind::ScalarBuffer => out.push(Arg::Array(a)),
            }
        }
        out.extend(self.scop.params.iter().map(|p| Arg::Param(p)));
        out.extend(kernel.host_iterators.iter().map(|h| Arg::HostIterator(h)));
        out
    }

    /// The fixed names of the host's expressions: the parameters, as written (the host
    /// loops' iterators come into scope as their loops are printed).
    pub fn host_fixed(&self) -> BTreeMap<String, String> {
        self.scop
            .params
            .iter()
            .map(|p| (p.clone(), p.clone()))
            .collect()
    }

    /// The fixed names of a kernel's expressions: parameters and host iterators, as the
    /// kernel's arguments.
    pub fn kernel_fixed(&self, kernel: &Kernel) -> BTreeMap<String, String> {
        let mut fixed: BTreeMap<String, String> = self
            .scop
            .params
            .iter()
            .map(|p| (p.clone(), self.param(p)))
            .collect();
        for h in &kernel.host_iterators {
            fixed.insert(h.clone(), self.iterator(h));
        }
        fixed
    }
}

/// An error unless `name` is a C identifier.
fn identifier(name: &str) -> Result<()> {
    if names::is_identifier(name) {
        Ok(())
    } else {
        Err(Error::NotAnIdentifier(name.to_string()))
    }
}

/// Checks an array's name, type, extents and kind.
fn check_array(a: &DeviceArray) -> Result<()> {
    identifier(&a.name)?;
    if a.element_type.trim().is_empty() {
        return Err(Error::UnknownElementType(a.name.clone()));
    }
    let scalar = a.extents.is_empty();
    if scalar != (a.kind != ArrayKind::Buffer) {
        return Err(Error::KindMismatch(a.name.clone()));
    }
    if a.extents.iter().any(|e| e.trim().is_empty()) {
        return Err(Error::UnknownExtent(a.name.clone()));
    }
    Ok(())
}

/// Checks a kernel's grid, block and mapped dimensions.
fn check_geometry(k: &Kernel) -> Result<()> {
    let product: u64 = k.block.iter().map(|&b| u64::from(b)).product();
    let ok = (1..=3).contains(&k.grid.len())
        && (1..=3).contains(&k.block.len())
        && k.block.iter().all(|&b| b > 0)
        && product <= 1024
        && mapped_dimensions_below(&k.body, 3);
    if ok {
        Ok(())
    } else {
        Err(Error::InvalidGeometry(k.name.clone()))
    }
}

/// Whether every mapped loop of `ast` uses a dimension below `limit`.
fn mapped_dimensions_below(ast: &KernelAst, limit: u8) -> bool {
    match ast {
        KernelAst::Block(children) => children.iter().all(|c| mapped_dimensions_below(c, limit)),
        KernelAst::For(l) => {
            let d = match l.mapping {
                Mapping::Sequential => 0,
                Mapping::Block(d) | Mapping::Thread(d) | Mapping::Global(d) => d,
            };
            d < limit && mapped_dimensions_below(&l.body, limit)
        }
        KernelAst::If {
            then, otherwise, ..
        } => {
            mapped_dimensions_below(then, limit)
                && otherwise
                    .as_ref()
                    .is_none_or(|o| mapped_dimensions_below(o, limit))
        }
        KernelAst::SingleThread(inner) | KernelAst::Shared { body: inner, .. } => {
            mapped_dimensions_below(inner, limit)
        }
        KernelAst::User { .. } | KernelAst::Barrier | KernelAst::Copy { .. } => true,
    }
}

/// Collects the host loops' iterators and checks the launches' indices.
fn host_iterators(host: &Host, kernels: usize, out: &mut BTreeSet<String>) -> Result<()> {
    match host {
        Host::Block(children) => {
            for c in children {
                host_iterators(c, kernels, out)?;
            }
            Ok(())
        }
        Host::For { iterator, body, .. } => {
            identifier(iterator)?;
            out.insert(iterator.clone());
            host_iterators(body, kernels, out)
        }
        Host::If {
            then, otherwise, ..
        } => {
            host_iterators(then, kernels, out)?;
            match otherwise {
                Some(o) => host_iterators(o, kernels, out),
                None => Ok(()),
            }
        }
        Host::Launch(k) if *k < kernels => Ok(()),
        Host::Launch(k) => Err(Error::UnknownKernel(*k)),
    }
}

/// Collects a kernel's loop iterators and checks that they and the statement names are
/// identifiers.
pub(crate) fn kernel_iterators(ast: &KernelAst, out: &mut BTreeSet<String>) -> Result<()> {
    match ast {
        KernelAst::Block(children) => {
            for c in children {
                kernel_iterators(c, out)?;
            }
            Ok(())
        }
        KernelAst::For(l) => {
            identifier(&l.iterator)?;
            out.insert(l.iterator.clone());
            kernel_iterators(&l.body, out)
        }
        KernelAst::If {
            then, otherwise, ..
        } => {
            kernel_iterators(then, out)?;
            match otherwise {
                Some(o) => kernel_iterators(o, out),
                None => Ok(()),
            }
        }
        KernelAst::SingleThread(inner) | KernelAst::Shared { body: inner, .. } => {
            kernel_iterators(inner, out)
        }
        KernelAst::User { .. } | KernelAst::Barrier | KernelAst::Copy { .. } => Ok(()),
    }
}

/// The host variables' names before the prefix.
fn host_names(program: &GpuProgram) -> Vec<String> {
    let mut out: Vec<String> = [
        "source", "context", "queue", "program", "status", "global", "local",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for a in &program.arrays {
        out.push(format!("d_{}", a.name));
        out.push(format!("v_{}", a.name));
        out.push(format!("size_{}", a.name));
    }
    out.extend(program.kernels.iter().map(|k| format!("k_{}", k.name)));
    out
}

/// Whether `ast` holds a loop run in lane groups.
pub(crate) fn has_lanes(ast: &KernelAst) -> bool {
    match ast {
        KernelAst::Block(v) => v.iter().any(has_lanes),
        KernelAst::For(l) => l.lanes.is_some() || has_lanes(&l.body),
        KernelAst::If {
            then, otherwise, ..
        } => has_lanes(then) || otherwise.as_deref().is_some_and(has_lanes),
        KernelAst::SingleThread(b) | KernelAst::Shared { body: b, .. } => has_lanes(b),
        KernelAst::User { .. } | KernelAst::Barrier | KernelAst::Copy { .. } => false,
    }
}
