//! A deterministic generator of random affine C programs, for testing the optimizer on
//! more shapes than the example kernels have.
//!
//! A program is one function `static void prog_<seed>(int n)` that declares its arrays
//! (1-D arrays of `n + 4` elements, 2-D arrays of `(n + 4) × (n + 4)`, a scalar `s0` and
//! a one-element array `r0`), initialises them deterministically, runs a `#pragma scop`
//! region and prints a checksum of every array (`%a`, exact). The region holds several
//! loop nests of depth 1 to 3 with rectangular and triangular bounds (`j <= i`,
//! `j = i + 1 .. n - 1`, ...), imperfectly nested statements, shifted accesses
//! (`A0[i + 3]`, `B0[j][i + 1]`) and scalar reductions (`s0 += ...`, `r0[0] += ...`).
//!
//! # Invariants
//! - Every loop iterator stays in `0 .. n - 1` and every subscript is an iterator plus an
//!   offset in `0 ..= 4` (or a constant in that range), so every access is in bounds.
//! - Array statements write convex combinations of what they read (coefficients summing
//!   to less than one), so values stay bounded whatever the order; reductions add
//!   bounded values, so they grow at most polynomially in `n`. No value becomes
//!   infinite or NaN, and outputs can be compared exactly.
//! - The same seed and size give the same text on every platform: the generator has its
//!   own PRNG (SplitMix64).

use std::fmt::Write;

/// SplitMix64 (Steele, Lea and Flood, OOPSLA 2014): a small, fast, seedable PRNG.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator started from `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0 .. bound` (`bound > 0`).
    pub fn below(&mut self, bound: usize) -> usize {
        (self.next_u64() % bound as u64) as usize
    }

    /// A number in `lo ..= hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    /// True with probability `percent / 100`.
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    /// One element of a non-empty slice.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// The shape limits of generated programs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Size {
    /// The largest number of loop nests in the region (at least one).
    pub max_nests: usize,
    /// The deepest nest (1 to 3).
    pub max_depth: usize,
    /// The largest value of the parameter `n` the program is run with (at least 4).
    pub max_n: usize,
    /// Whether statements access the 2-D arrays too (otherwise only the 1-D arrays and
    /// the scalars: more dependences between the nests).
    pub two_d: bool,
}

impl Default for Size {
    /// Up to four nests of depth up to 3, `n` up to 10, 1-D and 2-D arrays.
    fn default() -> Size {
        Size {
            max_nests: 4,
            max_depth: 3,
            max_n: 10,
            two_d: true,
        }
    }
}

/// One generated program, as a function and the call that runs it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    /// The function's name, `prog_<seed>`.
    pub name: String,
    /// The function's definition, preceded by a `/* begin prog_<seed> */` line and
    /// followed by an `/* end prog_<seed> */` line (see [`function_of`]).
    pub function: String,
    /// The statement that runs it from `main`, e.g. `prog_17(9);`.
    pub call: String,
}

impl Program {
    /// A complete C file: `stdio.h`, the function and a `main` that calls it.
    pub fn file(&self) -> String {
        batch_file(std::slice::from_ref(self))
    }
}

/// The names of the arrays a program declares: 1-D, 2-D, the one-element array and the
/// scalar.
const ONE_D: [&str; 3] = ["A0", "A1", "A2"];
const TWO_D: [&str; 2] = ["B0", "B1"];
const ITERATORS: [&str; 3] = ["i", "j", "k"];
/// Convex coefficients of the right-hand sides.
const WEIGHTS: [&str; 4] = ["0.5", "0.25", "0.125", "0.375"];

/// The random program of a seed.
pub fn random_program(seed: u64, size: Size) -> Program {
    let mut rng = Rng::new(seed ^ 0x5eed_0f90_11e4);
    let name = format!("prog_{seed}");
    let n = rng.range(4, size.max_n.max(4));
    let mut gen = Generator {
        rng,
        two_d: size.two_d,
        region: String::new(),
    };
    let nests = gen.rng.range(1, size.max_nests.max(1));
    for _ in 0..nests {
        let depth = gen.rng.range(1, size.max_depth.clamp(1, 3));
        gen.nest(0, depth, &mut Vec::new());
    }
    let mut f = String::new();
    let _ = writeln!(f, "/* begin {name} */");
    let _ = writeln!(f, "static void {name}(int n)");
    f.push_str("{\n  int i, j, k;\n  double s0;\n  double r0[1];\n");
    for a in ONE_D {
        let _ = writeln!(f, "  double {a}[n + 4];");
    }
    for b in TWO_D {
        let _ = writeln!(f, "  double {b}[n + 4][n + 4];");
    }
    f.push_str(&init_code());
    f.push_str("#pragma scop\n");
    f.push_str(&gen.region);
    f.push_str("#pragma endscop\n");
    f.push_str(&checksum_code(&name));
    f.push_str("}\n");
    let _ = writeln!(f, "/* end {name} */");
    Program {
        call: format!("{name}({n});"),
        name,
        function: f,
    }
}

/// A C file running several programs in order: `stdio.h`, the functions and `main`.
pub fn batch_file(programs: &[Program]) -> String {
    let mut out = String::from("#include <stdio.h>\n\n");
    for p in programs {
        out.push_str(&p.function);
        out.push('\n');
    }
    out.push_str("int main(void)\n{\n");
    for p in programs {
        let _ = writeln!(out, "  {}", p.call);
    }
    out.push_str("  return 0;\n}\n");
    out
}

/// The text of the function `name` in a file written by [`Program::file`] and then
/// rewritten outside its markers' lines only (as `pollen opt` rewrites the scop region):
/// from the `/* begin name */` line to the `/* end name */` line, both included.
pub fn function_of(file: &str, name: &str) -> Option<String> {
    let begin = format!("/* begin {name} */");
    let end = format!("/* end {name} */\n");
    let start = file.find(&begin)?;
    let stop = start + file[start..].find(&end)? + end.len();
    Some(file[start..stop].to_string())
}

/// The deterministic initialisation of every array.
fn init_code() -> String {
    let mut s = String::from("  s0 = 0.25;\n  r0[0] = 0.5;\n");
    for (k, a) in ONE_D.iter().enumerate() {
        let _ = writeln!(
            s,
            "  for (i = 0; i < n + 4; i++)\n    {a}[i] = (double) ((i * {} + {}) % 13) / 13;",
            3 + 2 * k,
            k + 1
        );
    }
    for (k, b) in TWO_D.iter().enumerate() {
        let _ = writeln!(
            s,
            "  for (i = 0; i < n + 4; i++)\n    for (j = 0; j < n + 4; j++)\n      {b}[i][j] = (double) ((i * {} + j * {} + {}) % 17) / 17;",
            5 + k,
            3 + 2 * k,
            k + 2
        );
    }
    s
}

/// Prints a weighted sum of every array, exactly (`%a`).
fn checksum_code(name: &str) -> String {
    let mut s = String::from("  {\n    double c;\n");
    let _ = writeln!(
        s,
        "    printf(\"{name} s0 %a\\n\", s0);\n    printf(\"{name} r0 %a\\n\", r0[0]);"
    );
    for a in ONE_D {
        let _ = writeln!(
            s,
            "    c = 0;\n    for (i = 0; i < n + 4; i++)\n      c += {a}[i] * (i % 7 + 1);\n    printf(\"{name} {a} %a\\n\", c);"
        );
    }
    for b in TWO_D {
        let _ = writeln!(
            s,
            "    c = 0;\n    for (i = 0; i < n + 4; i++)\n      for (j = 0; j < n + 4; j++)\n        c += {b}[i][j] * ((i * 3 + j) % 11 + 1);\n    printf(\"{name} {b} %a\\n\", c);"
        );
    }
    s.push_str("  }\n");
    s
}

/// The state of one program's generation.
struct Generator {
    rng: Rng,
    two_d: bool,
    region: String,
}

impl Generator {
    /// Appends a loop at `level` with `depth` levels inside it (itself included); the
    /// enclosing iterators are `outer`.
    fn nest(&mut self, level: usize, depth: usize, outer: &mut Vec<&'static str>) {
        let indent = "  ".repeat(level + 1);
        let v = ITERATORS[level];
        let header = self.bounds(v, outer);
        let _ = writeln!(self.region, "{indent}for ({header}) {{");
        outer.push(v);
        let inner_indent = "  ".repeat(level + 2);
        if depth > 1 {
            if self.rng.chance(30) {
                let st = self.statement(outer);
                let _ = writeln!(self.region, "{inner_indent}{st}");
            }
            self.nest(level + 1, depth - 1, outer);
            if self.rng.chance(30) {
                let st = self.statement(outer);
                let _ = writeln!(self.region, "{inner_indent}{st}");
            }
        } else {
            for _ in 0..self.rng.range(1, 2) {
                let st = self.statement(outer);
                let _ = writeln!(self.region, "{inner_indent}{st}");
            }
        }
        outer.pop();
        let _ = writeln!(self.region, "{indent}}}");
    }

    /// The header of a loop over `v` inside the iterators `outer`: rectangular, or
    /// triangular in one of them; `v` always stays in `0 .. n - 1`.
    fn bounds(&mut self, v: &str, outer: &[&str]) -> String {
        if outer.is_empty() || self.rng.chance(35) {
            return match self.rng.below(3) {
                0 => format!("{v} = 0; {v} < n; {v}++"),
                1 => format!("{v} = 1; {v} < n; {v}++"),
                _ => format!("{v} = 0; {v} < n - 1; {v}++"),
            };
        }
        // Mostly the innermost enclosing iterator, sometimes an outer one.
        let o = if self.rng.chance(70) {
            outer[outer.len() - 1]
        } else {
            *self.rng.pick(outer)
        };
        match self.rng.below(4) {
            0 => format!("{v} = 0; {v} <= {o}; {v}++"),
            1 => format!("{v} = {o} + 1; {v} < n; {v}++"),
            2 => format!("{v} = {o}; {v} < n; {v}++"),
            _ => format!("{v} = 0; {v} < {o}; {v}++"),
        }
    }

    /// A subscript: an iterator plus an offset in `0 ..= 4`, or a constant.
    fn subscript(&mut self, iters: &[&str]) -> String {
        if iters.is_empty() || self.rng.chance(5) {
            return format!("{}", self.rng.below(5));
        }
        let v = self.rng.pick(iters);
        match self.rng.below(5) {
            0 => v.to_string(),
            off => format!("{v} + {off}"),
        }
    }

    /// An array element (1-D or 2-D) with random subscripts.
    fn element(&mut self, iters: &[&str]) -> String {
        if !self.two_d || self.rng.chance(65) {
            let a = self.rng.pick(&ONE_D);
            let s = self.subscript(iters);
            format!("{a}[{s}]")
        } else {
            let b = self.rng.pick(&TWO_D);
            let s = self.subscript(iters);
            let t = self.subscript(iters);
            format!("{b}[{s}][{t}]")
        }
    }

    /// A read: an array element, or now and then one of the scalars.
    fn read(&mut self, iters: &[&str]) -> String {
        match self.rng.below(12) {
            0 => "s0".to_string(),
            1 => "r0[0]".to_string(),
            _ => self.element(iters),
        }
    }

    /// A statement inside the iterators `iters`.
    fn statement(&mut self, iters: &[&str]) -> String {
        if self.rng.chance(20) {
            let target = if self.rng.chance(50) { "s0" } else { "r0[0]" };
            let w = self.rng.pick(&WEIGHTS);
            let r = self.element(iters);
            return format!("{target} += {w} * {r};");
        }
        let target = self.element(iters);
        let w1 = self.rng.pick(&WEIGHTS);
        let w2 = self.rng.pick(&WEIGHTS);
        let r1 = if self.rng.chance(25) {
            target.clone()
        } else {
            self.read(iters)
        };
        if self.rng.chance(30) {
            return format!("{target} = {w1} * {r1};");
        }
        let r2 = self.read(iters);
        format!("{target} = {w1} * {r1} + {w2} * {r2};")
    }
}

/// The programs whose checksum lines differ between two outputs of a batch (each line
/// starts with its program's name), in order of first difference.
pub fn differing(expected: &str, actual: &str) -> Vec<String> {
    let (e, a): (Vec<&str>, Vec<&str>) = (expected.lines().collect(), actual.lines().collect());
    let mut names: Vec<String> = Vec::new();
    for k in 0..e.len().max(a.len()) {
        let (x, y) = (e.get(k), a.get(k));
        if x != y {
            let name = x.or(y).and_then(|l| l.split(' ').next()).unwrap_or("?");
            if !names.iter().any(|n| n == name) {
                names.push(name.to_string());
            }
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic() {
        let a = random_program(7, Size::default());
        let b = random_program(7, Size::default());
        assert_eq!(a, b);
        assert_ne!(a.function, random_program(8, Size::default()).function);
    }

    #[test]
    fn function_markers_round_trip() {
        let p = random_program(3, Size::default());
        let file = p.file();
        assert_eq!(function_of(&file, &p.name), Some(p.function.clone()));
        assert!(file.contains("int main(void)"));
    }

    #[test]
    fn the_frontend_reads_every_program() {
        for seed in 0..200 {
            let p = random_program(seed, Size::default());
            let file = p.file();
            if let Err(e) = pollen_frontend::extract(&file) {
                panic!("seed {seed}: {e}\n{file}");
            }
        }
    }
}
