//! The loop-nest fragments of `examples/fragments` (regions without declarations, in the
//! style of Pluto's and PPCG's test inputs) and the harness that turns a region into a
//! complete C program.
//!
//! [`fragment_program`] declares what the region needs around it: every parameter value
//! given as a `#define`, every array with extents just large enough for the elements its
//! statements access at those values (computed from the scop's access relations by
//! enumeration), every scalar, and the loop iterators; it initialises the data
//! deterministically, runs the region once and prints one checksum line per array and
//! scalar. The region's text is a separate argument so that one harness wraps the
//! original region and any code that replaces it (`pollen opt`'s output for the
//! program, say): both print the same lines when they compute the same values.

use std::path::PathBuf;

use pollen_presburger::{DimKind, Int, Map};
use pollen_scop::Scop;

/// One fragment of the manifest: its name and its test values (parameters and other
/// symbolic constants), in the manifest's order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fragment {
    /// The file name without `.c`.
    pub name: String,
    /// `(name, value)` pairs: every parameter of the fragment, and any other constant the
    /// region reads.
    pub values: Vec<(String, i64)>,
}

impl Fragment {
    /// The values as the `&str` pairs [`fragment_program`] takes.
    pub fn value_refs(&self) -> Vec<(&str, i64)> {
        self.values.iter().map(|(n, v)| (n.as_str(), *v)).collect()
    }

    /// The values of the scop's parameters, in [`Scop::params`] order.
    ///
    /// # Panics
    /// When the manifest gives no value for one of them.
    pub fn param_values(&self, scop: &Scop) -> Vec<i64> {
        scop.params
            .iter()
            .map(|p| {
                self.values
                    .iter()
                    .find(|(n, _)| n == p)
                    .map(|(_, v)| *v)
                    .unwrap_or_else(|| panic!("{}: no value for the parameter {p}", self.name))
            })
            .collect()
    }
}

/// The directory of the fragments, `examples/fragments` at the repository's root.
pub fn fragments_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/fragments")
}

/// Every fragment of `examples/fragments/manifest.txt`, in the manifest's order, or only
/// `$FRAGMENT` when that is set.
///
/// # Panics
/// On a malformed manifest line.
pub fn fragments() -> Vec<Fragment> {
    let path = fragments_dir().join("manifest.txt");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{e}: {path:?}"));
    let mut all: Vec<Fragment> = text.lines().filter_map(parse_manifest_line).collect();
    if let Ok(only) = std::env::var("FRAGMENT") {
        all.retain(|f| f.name == only);
    }
    all
}

/// One manifest line (`name values # comment`), `None` for comments and blank lines.
fn parse_manifest_line(line: &str) -> Option<Fragment> {
    let code = line.split('#').next().unwrap_or("").trim();
    if code.is_empty() {
        return None;
    }
    let fields: Vec<&str> = code.split_whitespace().collect();
    let [name, values] = fields.as_slice() else {
        panic!("manifest line `{line}`: expected `name values`");
    };
    let values = if *values == "-" {
        Vec::new()
    } else {
        values
            .split(',')
            .map(|pair| {
                let (n, v) = pair.split_once('=').unwrap_or_else(|| {
                    panic!("manifest line `{line}`: `{pair}` is not NAME=value")
                });
                let v = v
                    .parse()
                    .unwrap_or_else(|_| panic!("manifest line `{line}`: bad value `{v}`"));
                (n.to_string(), v)
            })
            .collect()
    };
    Some(Fragment {
        name: name.to_string(),
        values,
    })
}

/// The C source of a fragment.
pub fn fragment_source(name: &str) -> String {
    let path = fragments_dir().join(format!("{name}.c"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The text between the `#pragma scop` line and the `#pragma endscop` line of a source
/// (the region without its pragmas), or `None` when the source has no region.
pub fn region_text(source: &str) -> Option<&str> {
    let open = source.find("#pragma scop")?;
    let body = open + source[open..].find('\n')? + 1;
    let close = body + source[body..].find("#pragma endscop")?;
    let close = source[..close]
        .rfind('\n')
        .map_or(body, |p| (p + 1).max(body));
    Some(&source[body..close])
}

/// The inclusive range of each subscript of `array` over every access of the statements'
/// domains at the parameter values `params` (in [`Scop::params`] order); `None` per
/// dimension that no access reaches.
fn subscript_ranges(
    scop: &Scop,
    array: &str,
    params: &[i64],
) -> Result<Vec<Option<(i64, i64)>>, String> {
    let rank = scop.array(array).map_or(0, |a| a.extents.len());
    let mut ranges: Vec<Option<(i64, i64)>> = vec![None; rank];
    let fixed = |m: &Map| -> Result<Map, String> {
        let mut m = m.align_params(&scop.params).map_err(|e| e.to_string())?;
        for (k, v) in params.iter().enumerate() {
            m = m
                .fix_val(DimKind::Param, k, &Int::from(*v))
                .map_err(|e| e.to_string())?;
        }
        m.project_out(DimKind::Param, 0, scop.params.len())
            .map_err(|e| e.to_string())
    };
    for s in &scop.statements {
        let domain = fixed(s.domain.as_map())?;
        let n = s.iterators.len();
        for a in s.accesses.iter().filter(|a| a.array == array) {
            let relation = fixed(&a.relation)?
                .intersect_domain(&domain)
                .map_err(|e| e.to_string())?;
            for point in relation.points().map_err(|e| e.to_string())? {
                for (k, x) in point[n..].iter().enumerate() {
                    let x = x
                        .to_i64()
                        .ok_or_else(|| format!("{array}: subscript {x} out of range"))?;
                    let r = ranges[k].get_or_insert((x, x));
                    *r = (r.0.min(x), r.1.max(x));
                }
            }
        }
    }
    Ok(ranges)
}

/// A complete C program that runs `region` once on deterministic data and prints a
/// checksum line per array and scalar of `scop`.
///
/// `scop` is the model of the region (as extracted from the original fragment), `values`
/// the value of every parameter of the scop and of any other symbolic constant the region
/// reads (each becomes a `#define`). `region` is the code to run, placed between
/// `#pragma scop` and `#pragma endscop` lines in a function whose locals are the scop's
/// loop iterators (`int`), so that the program is itself a valid input of `pollen opt`.
/// Arrays are globals of the declared element type (`double` when unknown) whose extent
/// in each dimension is one more than the largest subscript the scop accesses there
/// (1 when none); scalars are globals of the declared type (`double` when unknown).
/// The scalars the region declares itself ([`Array::local`](pollen_scop::Array::local))
/// are left to it: they are neither declared nor printed.
/// Element `k` of the row-major order of an array is initialised to
/// `((7919 k + 104729 a) mod 1009 + 1) / 1009` converted to its type, for the array's
/// index `a` in the scop, plus the number of rows on the diagonal of a two-dimensional
/// array (so that the triangular solves and factorisations of the fragments divide by
/// no zero); a scalar to the same with `k = 0`. The output is one line `NAME CHECKSUM`
/// per array and scalar in the scop's order, the checksum being the sum of
/// `element k · (k mod 13 + 1)` printed with `%.12e`. The harness's own names start
/// with `pollen_`, and `<math.h>` is not included (`sqrt`, `pow`, `exp`, `log` and
/// `fabs` are declared) so that arrays may be named `y1` or `gamma`.
///
/// Errors (`Err` with the reason) when a parameter has no value, or an access reaches a
/// negative subscript at these values (the harness does not shift arrays).
pub fn fragment_program(
    region: &str,
    scop: &Scop,
    values: &[(&str, i64)],
) -> Result<String, String> {
    let params: Vec<i64> = scop
        .params
        .iter()
        .map(|p| {
            values
                .iter()
                .find(|(n, _)| n == p)
                .map(|(_, v)| *v)
                .ok_or_else(|| format!("no value for the parameter {p}"))
        })
        .collect::<Result<_, _>>()?;
    let mut out = String::new();
    out.push_str(PRELUDE);
    for (name, v) in values {
        out.push_str(&format!("#define {name} {v}\n"));
    }
    out.push_str(HELPERS);
    let mut checks = String::new();
    let mut inits = String::new();
    for (index, a) in scop.arrays.iter().enumerate().filter(|(_, a)| !a.local) {
        let ty = if a.element_type.trim().is_empty() {
            "double"
        } else {
            a.element_type.as_str()
        };
        let ranges = subscript_ranges(scop, &a.name, &params)?;
        let mut extents = Vec::new();
        for (k, r) in ranges.iter().enumerate() {
            match r {
                Some((lo, _)) if *lo < 0 => {
                    return Err(format!(
                        "{}: subscript {k} reaches {lo}; the harness does not shift arrays",
                        a.name
                    ))
                }
                Some((_, hi)) => extents.push(hi + 1),
                None => extents.push(1),
            }
        }
        let dims: String = extents.iter().map(|e| format!("[{e}]")).collect();
        let count: i64 = extents.iter().product();
        out.push_str(&format!("static {ty} {}{dims};\n", a.name));
        let pointer = if extents.is_empty() {
            format!("({ty} *)&{}", a.name)
        } else {
            format!("({ty} *){}", a.name)
        };
        let diagonal = match extents.as_slice() {
            [rows, columns] => {
                format!(" + (pollen_k / {columns} == pollen_k % {columns} ? {rows} : 0)")
            }
            _ => String::new(),
        };
        inits.push_str(&format!(
            "  for (pollen_k = 0; pollen_k < {count}; pollen_k++)\n    ({pointer})[pollen_k] = ({ty})(((pollen_k * 7919 + {index} * 104729) % 1009 + 1) / 1009.0{diagonal});\n"
        ));
        checks.push_str(&format!(
            "  pollen_c = 0;\n  for (pollen_k = 0; pollen_k < {count}; pollen_k++)\n    pollen_c += (double)({pointer})[pollen_k] * (double)(pollen_k % 13 + 1);\n  printf(\"{} %.12e\\n\", pollen_c);\n",
            a.name
        ));
    }
    let mut iterators: Vec<&str> = Vec::new();
    for s in &scop.statements {
        for it in &s.iterators {
            if !iterators.contains(&it.as_str()) {
                iterators.push(it);
            }
        }
    }
    out.push_str("\nstatic void init(void)\n{\n  long pollen_k;\n");
    out.push_str(&inits);
    out.push_str("}\n\nstatic void kernel(void)\n{\n");
    if !iterators.is_empty() {
        out.push_str(&format!("  int {};\n", iterators.join(", ")));
    }
    out.push_str("#pragma scop\n");
    out.push_str(region);
    if !region.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(
        "#pragma endscop\n}\n\nstatic void print(void)\n{\n  long pollen_k;\n  double pollen_c;\n",
    );
    out.push_str(&checks);
    out.push_str("}\n\nint main(void)\n{\n  init();\n  kernel();\n  print();\n  return 0;\n}\n");
    Ok(out)
}

/// The headers and declarations of the program: the integer types of iterators, `printf`
/// and the math functions regions call, declared one by one rather than through
/// `<math.h>` so that arrays may have the names of its other functions (`y1`, `gamma`).
const PRELUDE: &str = "#include <stddef.h>\n#include <stdint.h>\n#include <stdio.h>\n#include <sys/types.h>\n\ndouble sqrt(double);\ndouble pow(double, double);\ndouble exp(double);\ndouble log(double);\ndouble fabs(double);\n\n";

/// The helper macros the fragments use in bounds and right-hand sides, each defined
/// unless the program already has it.
const HELPERS: &str = "\n#ifndef min\n# define min(a, b) (((a) < (b)) ? (a) : (b))\n#endif\n#ifndef max\n# define max(a, b) (((a) > (b)) ? (a) : (b))\n#endif\n#ifndef floord\n# define floord(n, d) (((n) < 0) ? -((-(n) + (d) - 1) / (d)) : (n) / (d))\n#endif\n#ifndef ceild\n# define ceild(n, d) (((n) < 0) ? -((-(n)) / (d)) : ((n) + (d) - 1) / (d))\n#endif\n\n";
