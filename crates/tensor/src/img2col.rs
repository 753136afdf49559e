//! Convolutions as matrix products: img2col and the fractal GEMM layout (AKG §4.5).
//!
//! A convolution `Y[n, k, h, w] = Σ_{c, kh, kw} P[n, c, s_h h + kh + o_h, s_w w + kw +
//! o_w] · Wt[k, c, kh, kw]` is the matrix product `Z[n] = X[n] × Wmat` with
//! `M = Ho · Wo` rows (output pixels), `K = C · KH · KW` columns (the patch of one
//! pixel) and `N = Co` output channels: img2col builds `X[n][m][kk]` from the patches
//! (consecutive patches overlap), the weights are `Wt` read as a `Co × K` matrix, and
//! `Z` is `Y` read as `N × Co × M`. The GEMM runs on `f × f` fractal blocks: `X` as
//! `[N][Mo][Ko][Mi][Ki]` (row `m = Mo·f + Mi`, column `kk = Ko·f + Ki`), padded with
//! zeros to whole blocks.
//!
//! - [`FractalShape::index_map`] is the paper's equation (1) in its multiplicative form,
//!   an exact Presburger map from the fractal `X[n, Mo, Ko, Mi, Ki]` to the input in the
//!   `A[N, C1, Hi, Wi, C0]` layout (channels split as `C1 × C0`, `C0 = f` innermost);
//!   [`FractalShape::nchw_map`] is the same for an `NCHW` input with columns ordered
//!   `(c, kh, kw)`, the order the tensor language sums in.
//! - [`conv_stage`] recognises a convolution stage of a [`Program`]; [`to_c_img2col`]
//!   prints the program's C (as [`crate::to_c`]) with that stage computed through
//!   img2col and a fractal GEMM in the `(c, kh, kw)` column order, so that every output
//!   is the same sum of the same products in the same order as the direct
//!   convolution's (the padded columns add zeros, which leave a sum unchanged).

use std::fmt;
use std::fmt::Write as _;

use pollen_presburger::Map;

use crate::expr::{Binary, ExprKind, ReduceOp};
use crate::{Affine, DType, Program, Stage};

/// Why a program or shape has no img2col form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Img2colError {
    /// No stage of the program is a convolution (the message says what was expected).
    NotAConvolution(String),
    /// A shape that is not a convolution's: a size below 1, a negative padding, an
    /// empty output.
    InvalidShape(String),
    /// A size too large for the arithmetic.
    Overflow,
    /// A Presburger operation failed.
    Presburger(pollen_presburger::Error),
}

impl fmt::Display for Img2colError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Img2colError::NotAConvolution(m) => write!(f, "no convolution: {m}"),
            Img2colError::InvalidShape(m) => write!(f, "invalid convolution shape: {m}"),
            Img2colError::Overflow => write!(f, "convolution sizes overflow"),
            Img2colError::Presburger(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for Img2colError {}

impl From<pollen_presburger::Error> for Img2colError {
    fn from(e: pollen_presburger::Error) -> Img2colError {
        Img2colError::Presburger(e)
    }
}

/// The shape of a convolution with concrete sizes, and its fractal block size `f`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FractalShape {
    /// Batch.
    pub n: i64,
    /// Input channel blocks (`C = C1 · C0`).
    pub c1: i64,
    /// Input channels per block.
    pub c0: i64,
    /// Input height and width (before padding).
    pub hi: i64,
    /// Input width.
    pub wi: i64,
    /// Kernel height.
    pub kh: i64,
    /// Kernel width.
    pub kw: i64,
    /// Strides.
    pub stride_h: i64,
    /// Horizontal stride.
    pub stride_w: i64,
    /// Paddings (before and after).
    pub pad_h: i64,
    /// Horizontal padding.
    pub pad_w: i64,
    /// The fractal block size.
    pub f: i64,
}

impl FractalShape {
    /// Checks the sizes: all at least 1, paddings at least 0, a non-empty output.
    pub fn validate(&self) -> Result<(), Img2colError> {
        let positive = [
            ("N", self.n),
            ("C1", self.c1),
            ("C0", self.c0),
            ("Hi", self.hi),
            ("Wi", self.wi),
            ("KH", self.kh),
            ("KW", self.kw),
            ("stride_h", self.stride_h),
            ("stride_w", self.stride_w),
            ("f", self.f),
        ];
        for (name, v) in positive {
            if v < 1 {
                return Err(Img2colError::InvalidShape(format!("{name} = {v} < 1")));
            }
        }
        if self.pad_h < 0 || self.pad_w < 0 {
            return Err(Img2colError::InvalidShape("negative padding".into()));
        }
        if self.ho()? < 1 || self.wo()? < 1 {
            return Err(Img2colError::InvalidShape(
                "the kernel does not fit the padded input".into(),
            ));
        }
        Ok(())
    }

    /// The output height `(Hi + 2 pad_h - KH) / s_h + 1`.
    pub fn ho(&self) -> Result<i64, Img2colError> {
        out_size(self.hi, self.pad_h, self.kh, self.stride_h)
    }

    /// The output width.
    pub fn wo(&self) -> Result<i64, Img2colError> {
        out_size(self.wi, self.pad_w, self.kw, self.stride_w)
    }

    /// The GEMM's `(M, K)`: `M = Ho · Wo` rows, `K = C1 · KH · KW · C0` columns (its
    /// `N` is the number of output channels).
    pub fn gemm(&self) -> Result<(i64, i64), Img2colError> {
        let m = self.ho()?.checked_mul(self.wo()?);
        let k = self
            .c1
            .checked_mul(self.kh)
            .and_then(|x| x.checked_mul(self.kw))
            .and_then(|x| x.checked_mul(self.c0));
        m.zip(k).ok_or(Img2colError::Overflow)
    }

    /// Equation (1): `{ X[i'0, i'1, i'2, i'3, i'4] -> A[i0, i1, i2, i3, i4] }` over the
    /// fractal matrix's rows `i'1 · f + i'3 < M` and columns `i'2 < C1 · KH · KW`,
    /// `i'4 < C0`, with
    /// `i0 = i'0`, `i1 = ⌊i'2 / (KH·KW)⌋`, `i4 = i'4`,
    /// `i2 = ⌊(i'1·f + i'3) / Wo⌋ · s_h + (⌊i'2 / KW⌋ mod KH) − pad_h`,
    /// `i3 = ((i'1·f + i'3) mod Wo) · s_w + (i'2 mod KW) − pad_w`.
    /// Positions in the padding (outside `0 <= i2 < Hi`, `0 <= i3 < Wi`) are kept: they
    /// read zeros ([`FractalShape::reads`] leaves them out).
    pub fn index_map(&self) -> Result<Map, Img2colError> {
        self.validate()?;
        let (m, _) = self.gemm()?;
        let wo = self.wo()?;
        let FractalShape {
            n,
            c1,
            c0,
            kh,
            kw,
            stride_h,
            stride_w,
            pad_h,
            pad_w,
            f,
            ..
        } = *self;
        let taps = kh.checked_mul(kw).ok_or(Img2colError::Overflow)?;
        let ko = c1.checked_mul(taps).ok_or(Img2colError::Overflow)?;
        let mo = blocks(m, f)?;
        let text = format!(
            "{{ X[a0, a1, a2, a3, a4] -> A[i0, i1, i2, i3, i4] : \
             0 <= a0 < {n} and 0 <= a1 < {mo} and 0 <= a3 < {f} and {f}a1 + a3 < {m} \
             and 0 <= a2 < {ko} and 0 <= a4 < {c0} \
             and i0 = a0 and i1 = floor(a2 / {taps}) and i4 = a4 \
             and i2 = {stride_h}*floor(({f}a1 + a3) / {wo}) + (floor(a2 / {kw}) mod {kh}) - {pad_h} \
             and i3 = {stride_w}*(({f}a1 + a3) mod {wo}) + (a2 mod {kw}) - {pad_w} }}"
        );
        Ok(pollen_presburger::text::parse_map(&text)?)
    }

    /// [`FractalShape::index_map`] restricted to positions inside the input.
    pub fn reads(&self) -> Result<Map, Img2colError> {
        let box_ = format!(
            "{{ A[i0, i1, i2, i3, i4] : 0 <= i2 < {} and 0 <= i3 < {} }}",
            self.hi, self.wi
        );
        let inside = pollen_presburger::text::parse_map(&box_)?;
        Ok(self.index_map()?.intersect_range(&inside)?)
    }

    /// The map of an `NCHW` input (`C = C1 · C0` channels, not split) with the columns
    /// ordered `(c, kh, kw)`: `{ X[n, Mo, Ko, Mi, Ki] -> P[n, c, h, w] }` with
    /// `m = Mo·f + Mi < M`, `kk = Ko·f + Ki < K`, `c = ⌊kk / (KH·KW)⌋`,
    /// `h = ⌊m / Wo⌋ · s_h + (⌊kk / KW⌋ mod KH) − pad_h`,
    /// `w = (m mod Wo) · s_w + (kk mod KW) − pad_w`.
    pub fn nchw_map(&self) -> Result<Map, Img2colError> {
        self.validate()?;
        let (m, k) = self.gemm()?;
        let wo = self.wo()?;
        let FractalShape {
            n,
            kh,
            kw,
            stride_h,
            stride_w,
            pad_h,
            pad_w,
            f,
            ..
        } = *self;
        let taps = kh.checked_mul(kw).ok_or(Img2colError::Overflow)?;
        let (mo, ko) = (blocks(m, f)?, blocks(k, f)?);
        let text = format!(
            "{{ X[a0, a1, a2, a3, a4] -> P[n, c, h, w] : \
             0 <= a0 < {n} and 0 <= a1 < {mo} and 0 <= a3 < {f} and {f}a1 + a3 < {m} \
             and 0 <= a2 < {ko} and 0 <= a4 < {f} and {f}a2 + a4 < {k} \
             and n = a0 and c = floor(({f}a2 + a4) / {taps}) \
             and h = {stride_h}*floor(({f}a1 + a3) / {wo}) + (floor(({f}a2 + a4) / {kw}) mod {kh}) - {pad_h} \
             and w = {stride_w}*(({f}a1 + a3) mod {wo}) + (({f}a2 + a4) mod {kw}) - {pad_w} }}"
        );
        Ok(pollen_presburger::text::parse_map(&text)?)
    }
}

/// The number of `f`-blocks covering `n` elements.
fn blocks(n: i64, f: i64) -> Result<i64, Img2colError> {
    Ok(n.checked_add(f - 1).ok_or(Img2colError::Overflow)? / f)
}

fn out_size(size: i64, pad: i64, kernel: i64, stride: i64) -> Result<i64, Img2colError> {
    let padded = size
        .checked_add(pad.checked_mul(2).ok_or(Img2colError::Overflow)?)
        .ok_or(Img2colError::Overflow)?;
    if padded < kernel {
        return Ok(0);
    }
    Ok((padded - kernel) / stride + 1)
}

/// A convolution stage: `output[n, k, h, w] = sum(c, [kh, kw], input[n, c, s_h h + kh
/// + o_h, s_w w + kw + o_w] * weights[k, c, [kh, kw]])`.
#[derive(Clone, Debug, PartialEq)]
pub struct ConvStage {
    /// The stage's position in the program.
    pub stage: usize,
    /// The tensor computed.
    pub output: String,
    /// The image read (a padded copy, or an input).
    pub input: String,
    /// The weights.
    pub weights: String,
    /// The output's iterators `n, k, h, w` and extents.
    pub axes: Vec<(String, Affine)>,
    /// The reduction axes `c[, kh, kw]` and extents.
    pub reduction: Vec<(String, Affine)>,
    /// The strides `(s_h, s_w)`.
    pub stride: (i64, i64),
    /// The constant offsets `(o_h, o_w)` of the image's row and column indices.
    pub offset: (i64, i64),
    /// The element type.
    pub dtype: DType,
}

/// The first convolution stage of `program`.
pub fn conv_stage(program: &Program) -> Result<ConvStage, Img2colError> {
    let mut why = String::from("no compute stage");
    for (k, stage) in program.stages().iter().enumerate() {
        let Stage::Compute(c) = stage else {
            continue;
        };
        match recognise(program, k, c) {
            Ok(conv) => return Ok(conv),
            Err(e) => why = format!("{}: {e}", c.tensor),
        }
    }
    Err(Img2colError::NotAConvolution(why))
}

fn recognise(program: &Program, k: usize, c: &crate::Compute) -> Result<ConvStage, String> {
    if c.axes.len() != 4 {
        return Err("not a four-dimensional output".into());
    }
    let ExprKind::Reduce(r) = &c.body.kind else {
        return Err("not a reduction".into());
    };
    if r.op != ReduceOp::Sum || !(r.axes.len() == 1 || r.axes.len() == 3) {
        return Err("not a sum over (c) or (c, kh, kw)".into());
    }
    let ExprKind::Binary(Binary::Mul, a, b) = &r.body.kind else {
        return Err("not a sum of products".into());
    };
    let (
        ExprKind::Access {
            tensor: input,
            indices: image,
        },
        ExprKind::Access {
            tensor: weights,
            indices: wt,
        },
    ) = (&a.kind, &b.kind)
    else {
        return Err("not a product of two tensor elements".into());
    };
    let reduction: Vec<(String, Affine)> = r
        .axes
        .iter()
        .map(|x| {
            (
                x.name.text.clone(),
                x.extent.clone().unwrap_or_else(|| Affine::constant(0)),
            )
        })
        .collect();
    let axis = |i: usize| c.axes[i].0.as_str();
    let red = |i: usize| reduction.get(i).map(|x| x.0.as_str());
    let is_var = |e: &Affine, v: &str| e.as_var() == Some(v);
    if image.len() != 4
        || !is_var(&image[0].0, axis(0))
        || !is_var(&image[1].0, red(0).unwrap_or(""))
    {
        return Err("the image is not indexed [n, c, .., ..]".into());
    }
    // s * h [+ kh] + o, with nothing else.
    let spatial = |e: &Affine, out: &str, tap: Option<&str>| -> Option<(i64, i64)> {
        let s = e.coefficient(out);
        if s < 1 {
            return None;
        }
        for (name, coef) in e.terms() {
            let ok = name == out || (Some(name) == tap && coef == 1);
            if !ok {
                return None;
            }
        }
        if let Some(t) = tap {
            if e.coefficient(t) != 1 {
                return None;
            }
        }
        Some((s, e.constant_term()))
    };
    let (Some((sh, oh)), Some((sw, ow))) = (
        spatial(&image[2].0, axis(2), red(1)),
        spatial(&image[3].0, axis(3), red(2)),
    ) else {
        return Err("the image's rows and columns are not s * h + kh + o".into());
    };
    if wt.len() != 1 + reduction.len()
        || !is_var(&wt[0].0, axis(1))
        || wt[1..]
            .iter()
            .zip(&reduction)
            .any(|((e, _), (r, _))| !is_var(e, r))
    {
        return Err("the weights are not indexed [k, c, kh, kw]".into());
    }
    let dtype = program
        .tensor(&c.tensor)
        .map(|t| t.dtype)
        .ok_or("the output has no declaration")?;
    Ok(ConvStage {
        stage: k,
        output: c.tensor.clone(),
        input: input.clone(),
        weights: weights.clone(),
        axes: c.axes.clone(),
        reduction,
        stride: (sh, sw),
        offset: (oh, ow),
        dtype,
    })
}

/// The C program of [`crate::to_c`] with the first convolution computed through img2col
/// and a GEMM over `f × f` fractal blocks (see the module docs).
pub fn to_c_img2col(program: &Program, name: &str, f: i64) -> Result<String, Img2colError> {
    if f < 1 {
        return Err(Img2colError::InvalidShape(format!("fractal size {f} < 1")));
    }
    let conv = conv_stage(program)?;
    let text = crate::to_c(program, name);
    let block = gemm_block(program, &conv, f);
    splice(&text, &conv.output, &block).ok_or_else(|| {
        Img2colError::NotAConvolution(format!(
            "the loop nest of {} was not found in the C program",
            conv.output
        ))
    })
}

/// `text` with the top-level loop nest of the scop region that accumulates into
/// `output` replaced by `block`.
fn splice(text: &str, output: &str, block: &str) -> Option<String> {
    let start = text.find("#pragma scop\n")? + "#pragma scop\n".len();
    let end = text[start..].find("#pragma endscop")? + start;
    let region = &text[start..end];
    // Top-level nests start with a two-space indented `for`.
    let mut nests: Vec<(usize, usize)> = Vec::new();
    let mut offset = 0;
    for line in region.split_inclusive('\n') {
        if line.starts_with("  for (") {
            nests.push((offset, offset));
        }
        offset += line.len();
        if let Some(last) = nests.last_mut() {
            last.1 = offset;
        }
    }
    let target = format!("{output}[");
    let (a, b) = nests.into_iter().find(|&(a, b)| {
        let nest = &region[a..b];
        nest.lines()
            .any(|l| l.trim_start().starts_with(&target) && l.contains(" += "))
    })?;
    let mut out = String::with_capacity(text.len() + block.len());
    out.push_str(&text[..start + a]);
    out.push_str(block);
    out.push_str(&text[start + b..]);
    Some(out)
}

/// The C block computing the convolution through img2col and a fractal GEMM.
fn gemm_block(program: &Program, conv: &ConvStage, f: i64) -> String {
    let size = |a: &Affine| format!("({})", crate::c::affine_c(a, program));
    let ty = crate::c::c_type(conv.dtype);
    let (n, k, h, w) = (
        conv.axes[0].0.as_str(),
        conv.axes[1].0.as_str(),
        conv.axes[2].0.as_str(),
        conv.axes[3].0.as_str(),
    );
    let (nn, co, ho, wo) = (
        size(&conv.axes[0].1),
        size(&conv.axes[1].1),
        size(&conv.axes[2].1),
        size(&conv.axes[3].1),
    );
    let c = conv.reduction[0].0.as_str();
    let cc = size(&conv.reduction[0].1);
    let taps = conv.reduction.len() == 3;
    let (kh, kw, kkh, kkw) = if taps {
        (
            conv.reduction[1].0.as_str(),
            conv.reduction[2].0.as_str(),
            size(&conv.reduction[1].1),
            size(&conv.reduction[2].1),
        )
    } else {
        ("", "", "1".to_string(), "1".to_string())
    };
    let (sh, sw) = conv.stride;
    let (oh, ow) = conv.offset;
    let row = |s: i64, out: &str, tap: &str, o: i64| {
        let mut e = format!("{s} * {out}");
        if !tap.is_empty() {
            e.push_str(&format!(" + {tap}"));
        }
        if o != 0 {
            e.push_str(&format!(" + ({o})"));
        }
        e
    };
    let image = format!(
        "{}[{n}][{c}][{}][{}]",
        conv.input,
        row(sh, h, kh, oh),
        row(sw, w, kw, ow)
    );
    let weight = if taps {
        format!("{}[{k}][{c}][{kh}][{kw}]", conv.weights)
    } else {
        format!("{}[{k}][{c}]", conv.weights)
    };
    let decompose = if taps {
        format!(
            "          {c} = kk_ / ({kkh} * {kkw});\n          {kh} = (kk_ / {kkw}) % {kkh};\n          {kw} = kk_ % {kkw};\n"
        )
    } else {
        format!("          {c} = kk_;\n")
    };
    let out = &conv.output;
    let mut s = String::new();
    let _ = write!(
        s,
        "  {{
    /* {out} through img2col and a GEMM on {f} x {f} fractal blocks:
       X[{n}][m][kk] = {image}, m = {h} * WO + {w}, kk = ({c}, kh, kw);
       Z[{n}][m][{k}] = sum over kk of X[{n}][m][kk] * {weight}. */
    long M_ = (long) {ho} * {wo}, K_ = (long) {cc} * {kkh} * {kkw};
    long MO_ = (M_ + {f} - 1) / {f}, KO_ = (K_ + {f} - 1) / {f}, NO_ = ((long) {co} + {f} - 1) / {f};
    long m_, kk_, mo_, ko_, no_, mi_, ki_, ni_;
    {ty} *Xf_ = ({ty} *) calloc((size_t) ({nn} * MO_ * KO_ * {f} * {f}), sizeof({ty}));
    {ty} *Wf_ = ({ty} *) calloc((size_t) (KO_ * NO_ * {f} * {f}), sizeof({ty}));
    {ty} *Zf_ = ({ty} *) calloc((size_t) ({nn} * MO_ * NO_ * {f} * {f}), sizeof({ty}));

    /* img2col into the fractal layout X[{n}][Mo][Ko][Mi][Ki]. */
    for ({n} = 0; {n} < {nn}; {n}++)
      for (m_ = 0; m_ < M_; m_++)
        for (kk_ = 0; kk_ < K_; kk_++) {{
          {h} = m_ / {wo};
          {w} = m_ % {wo};
{decompose}          Xf_[(((({n} * MO_ + m_ / {f}) * KO_ + kk_ / {f}) * {f}) + m_ % {f}) * {f} + kk_ % {f}] = {image};
        }}
    /* The weights as a K x Co matrix, fractal [Ko][No][Ki][Ni]. */
    for ({k} = 0; {k} < {co}; {k}++)
      for (kk_ = 0; kk_ < K_; kk_++) {{
{decompose}          Wf_[(((kk_ / {f}) * NO_ + {k} / {f}) * {f} + kk_ % {f}) * {f} + {k} % {f}] = {weight};
        }}
    /* The fractal GEMM: each block of Z accumulates the blocks of X and W in the
       order of kk. */
    for ({n} = 0; {n} < {nn}; {n}++)
      for (mo_ = 0; mo_ < MO_; mo_++)
        for (no_ = 0; no_ < NO_; no_++)
          for (ko_ = 0; ko_ < KO_; ko_++)
            for (mi_ = 0; mi_ < {f}; mi_++)
              for (ni_ = 0; ni_ < {f}; ni_++)
                for (ki_ = 0; ki_ < {f}; ki_++)
                  Zf_[((({n} * MO_ + mo_) * NO_ + no_) * {f} + mi_) * {f} + ni_] +=
                    Xf_[((({n} * MO_ + mo_) * KO_ + ko_) * {f} + mi_) * {f} + ki_]
                    * Wf_[((ko_ * NO_ + no_) * {f} + ki_) * {f} + ni_];
    /* col2img: Z back into {out}[{n}][{k}][{h}][{w}]. */
    for ({n} = 0; {n} < {nn}; {n}++)
      for ({k} = 0; {k} < {co}; {k}++)
        for (m_ = 0; m_ < M_; m_++) {{
          {h} = m_ / {wo};
          {w} = m_ % {wo};
          {out}[{n}][{k}][{h}][{w}] = Zf_[((({n} * MO_ + m_ / {f}) * NO_ + {k} / {f}) * {f} + m_ % {f}) * {f} + {k} % {f}];
        }}
    free(Xf_);
    free(Wf_);
    free(Zf_);
  }}
"
    );
    s
}
