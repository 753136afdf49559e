//! Spaces: the named parameters and tuples that sets and maps live in.
//!
//! A [`Space`] is isl's `isl_space`: a list of parameter names and either no tuple
//! (a parameter domain), one tuple (a set) or two tuples (a map). Tuples carry an
//! optional name (`S` in `S[i, j]`), optional dimension names (for printing only) and may be
//! *wrapped* pairs (`[[i] -> [j]]`), which is how isl nests a map inside a set.
//!
//! # Invariants
//! - a wrapped tuple's dimension count is the sum of its two halves' counts;
//! - parameter names are distinct.
//!
//! Two spaces are compatible (`==`) when their parameters, tuple names, arities and
//! nesting agree; dimension names are ignored, as in isl.

use std::fmt;
use std::sync::Arc;

/// One tuple of a space, e.g. `S[i, j]` or the wrapped `[[i] -> [j]]`.
#[derive(Clone, Debug)]
pub struct Tuple {
    name: Option<String>,
    dim_names: Vec<Option<String>>,
    nested: Option<Box<(Tuple, Tuple)>>,
}

impl Tuple {
    /// An unnamed tuple of `n` anonymous dimensions.
    pub fn anonymous(n: usize) -> Tuple {
        Tuple {
            name: None,
            dim_names: vec![None; n],
            nested: None,
        }
    }

    /// A tuple with the given name and dimension names.
    pub fn new(name: Option<&str>, dims: &[&str]) -> Tuple {
        Tuple {
            name: name.map(str::to_string),
            dim_names: dims.iter().map(|d| Some(d.to_string())).collect(),
            nested: None,
        }
    }

    /// A tuple with an optional name and possibly anonymous dimensions.
    pub fn with_names(name: Option<String>, dim_names: Vec<Option<String>>) -> Tuple {
        Tuple {
            name,
            dim_names,
            nested: None,
        }
    }

    /// The wrapped pair `[domain -> range]`, optionally named.
    pub fn wrapped(name: Option<String>, domain: Tuple, range: Tuple) -> Tuple {
        let dim_names = domain
            .dim_names
            .iter()
            .chain(range.dim_names.iter())
            .cloned()
            .collect();
        Tuple {
            name,
            dim_names,
            nested: Some(Box::new((domain, range))),
        }
    }

    /// The tuple's name, if any.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// Renames the tuple.
    pub fn set_name(&mut self, name: Option<String>) {
        self.name = name;
    }

    /// Number of dimensions.
    pub fn n_dims(&self) -> usize {
        self.dim_names.len()
    }

    /// Name of dimension `i`, if it has one.
    pub fn dim_name(&self, i: usize) -> Option<&str> {
        self.dim_names.get(i).and_then(|n| n.as_deref())
    }

    /// All dimension names.
    pub fn dim_names(&self) -> &[Option<String>] {
        &self.dim_names
    }

    /// Sets the name of dimension `i`.
    pub fn set_dim_name(&mut self, i: usize, name: Option<String>) {
        self.dim_names[i] = name.clone();
        if let Some(pair) = &mut self.nested {
            let n_dom = pair.0.n_dims();
            if i < n_dom {
                pair.0.set_dim_name(i, name);
            } else {
                pair.1.set_dim_name(i - n_dom, name);
            }
        }
    }

    /// The two halves of a wrapped tuple.
    pub fn nested(&self) -> Option<(&Tuple, &Tuple)> {
        self.nested.as_ref().map(|p| (&p.0, &p.1))
    }

    /// The same tuple with all dimension names removed.
    pub fn without_dim_names(&self) -> Tuple {
        Tuple {
            name: self.name.clone(),
            dim_names: vec![None; self.dim_names.len()],
            nested: self
                .nested
                .as_ref()
                .map(|p| Box::new((p.0.without_dim_names(), p.1.without_dim_names()))),
        }
    }

    /// A key identifying the tuple up to dimension names (name, arity, nesting).
    pub fn key(&self) -> String {
        let mut s = String::new();
        self.write_key(&mut s);
        s
    }

    fn write_key(&self, out: &mut String) {
        if let Some(n) = &self.name {
            out.push_str(n);
        }
        match &self.nested {
            Some(p) => {
                out.push('[');
                p.0.write_key(out);
                out.push_str("->");
                p.1.write_key(out);
                out.push(']');
            }
            None => {
                out.push('[');
                out.push_str(&self.n_dims().to_string());
                out.push(']');
            }
        }
    }
}

impl PartialEq for Tuple {
    fn eq(&self, other: &Tuple) -> bool {
        self.name == other.name
            && self.n_dims() == other.n_dims()
            && match (&self.nested, &other.nested) {
                (None, None) => true,
                (Some(a), Some(b)) => a.0 == b.0 && a.1 == b.1,
                _ => false,
            }
    }
}

impl Eq for Tuple {}

/// The shape of a space: parameters only, a set, or a map.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tuples {
    /// A parameter domain `{ : ... }`.
    Params,
    /// A set `{ S[...] : ... }`.
    Set(Tuple),
    /// A map `{ A[...] -> B[...] : ... }`.
    Map(Tuple, Tuple),
}

/// The kind of a dimension of a space.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DimKind {
    /// A parameter.
    Param,
    /// An input (domain) dimension of a map.
    In,
    /// An output (range) dimension of a map, or a set dimension.
    Out,
}

/// Named parameters plus the tuples of a set or map.
#[derive(Clone, Debug, Eq)]
pub struct Space {
    // Shared: spaces are cloned with nearly every set and map, and change rarely.
    params: Arc<[String]>,
    tuples: Arc<Tuples>,
}

impl PartialEq for Space {
    fn eq(&self, other: &Space) -> bool {
        // Shared parts are equal without a look at their contents.
        (Arc::ptr_eq(&self.params, &other.params) || self.params == other.params)
            && (Arc::ptr_eq(&self.tuples, &other.tuples) || self.tuples == other.tuples)
    }
}

impl Space {
    /// A parameter-domain space.
    pub fn params(params: Vec<String>) -> Space {
        Space {
            params: params.into(),
            tuples: Arc::new(Tuples::Params),
        }
    }

    /// A set space.
    pub fn set(params: Vec<String>, tuple: Tuple) -> Space {
        Space {
            params: params.into(),
            tuples: Arc::new(Tuples::Set(tuple)),
        }
    }

    /// A map space.
    pub fn map(params: Vec<String>, domain: Tuple, range: Tuple) -> Space {
        Space {
            params: params.into(),
            tuples: Arc::new(Tuples::Map(domain, range)),
        }
    }

    /// An anonymous set space `{ [x0, ..., x(n-1)] }` without parameters.
    pub fn set_anonymous(n: usize) -> Space {
        Space::set(vec![], Tuple::anonymous(n))
    }

    /// The parameter names.
    pub fn param_names(&self) -> &[String] {
        &self.params
    }

    /// The shape of the space.
    pub fn tuples(&self) -> &Tuples {
        &self.tuples
    }

    /// Whether this is a parameter domain.
    pub fn is_params(&self) -> bool {
        matches!(*self.tuples, Tuples::Params)
    }

    /// Whether this is a set space.
    pub fn is_set(&self) -> bool {
        matches!(*self.tuples, Tuples::Set(_))
    }

    /// Whether this is a map space.
    pub fn is_map(&self) -> bool {
        matches!(*self.tuples, Tuples::Map(..))
    }

    /// Number of parameters.
    pub fn n_params(&self) -> usize {
        self.params.len()
    }

    /// Number of input dimensions (0 for sets).
    pub fn n_in(&self) -> usize {
        match &*self.tuples {
            Tuples::Map(d, _) => d.n_dims(),
            _ => 0,
        }
    }

    /// Number of output dimensions (the set dimensions for sets).
    pub fn n_out(&self) -> usize {
        match &*self.tuples {
            Tuples::Map(_, r) | Tuples::Set(r) => r.n_dims(),
            Tuples::Params => 0,
        }
    }

    /// Number of dimensions of the given kind.
    pub fn n(&self, kind: DimKind) -> usize {
        match kind {
            DimKind::Param => self.n_params(),
            DimKind::In => self.n_in(),
            DimKind::Out => self.n_out(),
        }
    }

    /// Total number of dimensions: params + in + out.
    pub fn n_dims(&self) -> usize {
        self.n_params() + self.n_in() + self.n_out()
    }

    /// Offset of the first dimension of `kind` among all dimensions (params first).
    pub fn offset(&self, kind: DimKind) -> usize {
        match kind {
            DimKind::Param => 0,
            DimKind::In => self.n_params(),
            DimKind::Out => self.n_params() + self.n_in(),
        }
    }

    /// The input tuple of a map.
    pub fn domain_tuple(&self) -> Option<&Tuple> {
        match &*self.tuples {
            Tuples::Map(d, _) => Some(d),
            _ => None,
        }
    }

    /// The output tuple of a map, or the tuple of a set.
    pub fn range_tuple(&self) -> Option<&Tuple> {
        match &*self.tuples {
            Tuples::Map(_, r) | Tuples::Set(r) => Some(r),
            Tuples::Params => None,
        }
    }

    /// Mutable access to the tuples.
    pub fn tuples_mut(&mut self) -> &mut Tuples {
        Arc::make_mut(&mut self.tuples)
    }

    /// The same parameters with other tuples.
    pub fn with_tuples(&self, tuples: Tuples) -> Space {
        Space {
            params: self.params.clone(),
            tuples: Arc::new(tuples),
        }
    }

    /// The same tuples with other parameters.
    pub fn with_params(&self, params: Vec<String>) -> Space {
        Space {
            params: params.into(),
            tuples: self.tuples.clone(),
        }
    }

    /// The set space of the domain of a map (a set space stays itself).
    pub fn domain_space(&self) -> Space {
        match &*self.tuples {
            Tuples::Map(d, _) => self.with_tuples(Tuples::Set(d.clone())),
            _ => self.clone(),
        }
    }

    /// The set space of the range of a map (a set space stays itself).
    pub fn range_space(&self) -> Space {
        match &*self.tuples {
            Tuples::Map(_, r) => self.with_tuples(Tuples::Set(r.clone())),
            _ => self.clone(),
        }
    }

    /// The parameter space.
    pub fn params_space(&self) -> Space {
        self.with_tuples(Tuples::Params)
    }

    /// The map space `domain -> range` from two set spaces (their parameters must agree).
    pub fn map_from(domain: &Space, range: &Space) -> Space {
        let d = domain
            .range_tuple()
            .cloned()
            .unwrap_or_else(|| Tuple::anonymous(0));
        let r = range
            .range_tuple()
            .cloned()
            .unwrap_or_else(|| Tuple::anonymous(0));
        Space::map(domain.params.to_vec(), d, r)
    }

    /// The reversed map space.
    pub fn reverse(&self) -> Space {
        match &*self.tuples {
            Tuples::Map(d, r) => self.with_tuples(Tuples::Map(r.clone(), d.clone())),
            _ => self.clone(),
        }
    }

    /// The set space wrapping this map space: `{ [A -> B] }`.
    pub fn wrap(&self) -> Space {
        match &*self.tuples {
            Tuples::Map(d, r) => {
                self.with_tuples(Tuples::Set(Tuple::wrapped(None, d.clone(), r.clone())))
            }
            _ => self.clone(),
        }
    }

    /// The map space wrapped in a set space, if its tuple is a wrapped pair.
    pub fn unwrap(&self) -> Option<Space> {
        match &*self.tuples {
            Tuples::Set(t) => t
                .nested()
                .map(|(d, r)| self.with_tuples(Tuples::Map(d.clone(), r.clone()))),
            _ => None,
        }
    }

    /// Index of the parameter named `name`.
    pub fn find_param(&self, name: &str) -> Option<usize> {
        self.params.iter().position(|p| p == name)
    }

    /// A printable name for dimension `i` (over all dims, params first).
    pub fn dim_name(&self, i: usize) -> Option<&str> {
        let np = self.n_params();
        if i < np {
            return Some(&self.params[i]);
        }
        let i = i - np;
        match &*self.tuples {
            Tuples::Map(d, r) => {
                if i < d.n_dims() {
                    d.dim_name(i)
                } else {
                    r.dim_name(i - d.n_dims())
                }
            }
            Tuples::Set(t) => t.dim_name(i),
            Tuples::Params => None,
        }
    }

    /// The same space with all tuple dimension names removed.
    pub fn without_dim_names(&self) -> Space {
        let tuples = match &*self.tuples {
            Tuples::Params => Tuples::Params,
            Tuples::Set(t) => Tuples::Set(t.without_dim_names()),
            Tuples::Map(d, r) => Tuples::Map(d.without_dim_names(), r.without_dim_names()),
        };
        self.with_tuples(tuples)
    }

    /// Whether the tuples agree (parameters are not compared).
    pub fn tuples_match(&self, other: &Space) -> bool {
        self.tuples == other.tuples
    }

    /// A key identifying the tuples (not the parameters), used to key union maps.
    pub fn tuples_key(&self) -> String {
        match &*self.tuples {
            Tuples::Params => String::new(),
            Tuples::Set(t) => t.key(),
            Tuples::Map(d, r) => format!("{}->{}", d.key(), r.key()),
        }
    }
}

impl fmt::Display for Tuple {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(n) = &self.name {
            write!(f, "{n}")?;
        }
        match &self.nested {
            Some(p) => write!(f, "[{} -> {}]", p.0, p.1),
            None => {
                write!(f, "[")?;
                for i in 0..self.n_dims() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    match self.dim_name(i) {
                        Some(n) => write!(f, "{n}")?,
                        None => write!(f, "i{i}")?,
                    }
                }
                write!(f, "]")
            }
        }
    }
}

impl fmt::Display for Space {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.params.is_empty() {
            write!(f, "[{}] -> ", self.params.join(", "))?;
        }
        match &*self.tuples {
            Tuples::Params => write!(f, "{{ : }}"),
            Tuples::Set(t) => write!(f, "{{ {t} }}"),
            Tuples::Map(d, r) => write!(f, "{{ {d} -> {r} }}"),
        }
    }
}
