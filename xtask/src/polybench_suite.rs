//! PolyBench/C 4.2.1 on disk, shared by `cargo xtask bench polybench --polybench` and
//! `cargo xtask bench search`: where the copy is (`--polybench DIR` or
//! `$POLLEN_POLYBENCH`; it is never part of the repository), its kernels
//! (`<category>/.../NAME/NAME.c`), its dataset sizes and the values a kernel's header
//! defines for one of them.

use std::path::{Path, PathBuf};

use anyhow::{bail, Result};

/// The environment variable that gives the PolyBench/C directory when `--polybench` does
/// not.
pub(crate) const ENV: &str = "POLLEN_POLYBENCH";

/// `$POLLEN_POLYBENCH`, when it is set.
pub(crate) fn from_env() -> Option<PathBuf> {
    std::env::var_os(ENV).map(PathBuf::from)
}

/// Fails unless `dir` looks like PolyBench/C (it has `utilities/polybench.c`).
pub(crate) fn check_dir(dir: &Path) -> Result<()> {
    if !dir.join("utilities/polybench.c").exists() {
        bail!(
            "{} does not look like PolyBench/C (no utilities/polybench.c)",
            dir.display()
        );
    }
    Ok(())
}

/// A dataset size of PolyBench, chosen with `-D<SIZE>_DATASET`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Size {
    Mini,
    Small,
    Medium,
    Large,
    ExtraLarge,
}

impl Size {
    const ALL: [Size; 5] = [
        Size::Mini,
        Size::Small,
        Size::Medium,
        Size::Large,
        Size::ExtraLarge,
    ];

    /// The name on the command line.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Size::Mini => "mini",
            Size::Small => "small",
            Size::Medium => "medium",
            Size::Large => "large",
            Size::ExtraLarge => "extralarge",
        }
    }

    /// The macro that selects it, e.g. `LARGE_DATASET`.
    pub(crate) fn dataset(self) -> &'static str {
        match self {
            Size::Mini => "MINI_DATASET",
            Size::Small => "SMALL_DATASET",
            Size::Medium => "MEDIUM_DATASET",
            Size::Large => "LARGE_DATASET",
            Size::ExtraLarge => "EXTRALARGE_DATASET",
        }
    }

    /// The size named `text` (any case).
    pub(crate) fn parse(text: &str) -> Result<Size> {
        let lower = text.to_ascii_lowercase();
        match Size::ALL.into_iter().find(|s| s.name() == lower) {
            Some(size) => Ok(size),
            None => bail!(
                "unknown PolyBench size `{text}` (known: {})",
                Size::ALL.map(Size::name).join(", ")
            ),
        }
    }
}

/// The kernels of the suite in PolyBench's order, each with its C file: the lines of
/// `utilities/benchmark_list` when it exists, else every `NAME/NAME.c` under `dir`
/// sorted by path.
pub(crate) fn kernels(dir: &Path) -> Result<Vec<(String, PathBuf)>> {
    let list = dir.join("utilities/benchmark_list");
    let mut kernels = match std::fs::read_to_string(&list) {
        Ok(text) => benchmark_list(&text)
            .into_iter()
            .map(|(name, path)| (name, dir.join(path)))
            .collect(),
        Err(_) => {
            let mut files = kernel_files(dir);
            files.sort_by(|a, b| a.1.cmp(&b.1));
            files
        }
    };
    kernels.retain(|(_, file)| file.exists());
    if kernels.is_empty() {
        bail!("no kernel NAME/NAME.c found under {}", dir.display());
    }
    Ok(kernels)
}

/// The kernels of `utilities/benchmark_list` (lines `./<category>/.../NAME/NAME.c`): each
/// name and its path relative to the PolyBench directory.
fn benchmark_list(text: &str) -> Vec<(String, PathBuf)> {
    text.lines()
        .map(str::trim)
        .filter(|l| l.ends_with(".c"))
        .filter_map(|l| {
            let path = PathBuf::from(l.strip_prefix("./").unwrap_or(l));
            let name = path.file_stem()?.to_str()?.to_string();
            Some((name, path))
        })
        .collect()
}

/// The file `NAME/NAME.c` under `dir`.
pub(crate) fn find_kernel(dir: &Path, name: &str) -> Option<PathBuf> {
    kernel_files(dir)
        .into_iter()
        .find(|(n, _)| n == name)
        .map(|(_, file)| file)
}

/// Every file `NAME/NAME.c` under `dir`, with its name.
fn kernel_files(dir: &Path) -> Vec<(String, PathBuf)> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let name = path
                .file_name()
                .and_then(|f| f.to_str()?.strip_suffix(".c"))
                .map(str::to_string);
            let parent = path.parent().and_then(Path::file_name);
            if let Some(name) = name {
                if parent.is_some_and(|p| p == name.as_str()) {
                    found.push((name, path));
                }
            }
        }
    }
    found
}

/// The `#define NAME value` lines (integer values) inside the `#ifdef <dataset>` block
/// of a PolyBench header, e.g. gemm's `NI`, `NJ`, `NK` for `LARGE_DATASET`.
pub(crate) fn size_defines(header: &str, dataset: &str) -> Vec<(String, u64)> {
    let mut inside = false;
    let mut defines = Vec::new();
    for line in header.lines() {
        let Some(directive) = line.trim().strip_prefix('#') else {
            continue;
        };
        let words: Vec<&str> = directive.split_whitespace().collect();
        match words[..] {
            ["ifdef", name] => inside = name == dataset,
            ["endif", ..] => inside = false,
            ["define", name, value] if inside => {
                if let Ok(value) = value.parse() {
                    defines.push((name.to_string(), value));
                }
            }
            _ => {}
        }
    }
    defines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_read_by_name() {
        assert_eq!(Size::parse("large").expect("known"), Size::Large);
        assert_eq!(Size::parse("MEDIUM").expect("known"), Size::Medium);
        assert_eq!(
            Size::parse("extralarge").expect("known").dataset(),
            "EXTRALARGE_DATASET"
        );
        let e = Size::parse("huge").expect_err("unknown");
        assert!(e
            .to_string()
            .contains("mini, small, medium, large, extralarge"));
    }

    #[test]
    fn the_benchmark_list_gives_names_and_paths() {
        let text = "./datamining/correlation/correlation.c\n./medley/nussinov/nussinov.c\n\n";
        let k = benchmark_list(text);
        assert_eq!(k.len(), 2);
        assert_eq!(k[0].0, "correlation");
        assert_eq!(k[0].1, Path::new("datamining/correlation/correlation.c"));
        assert_eq!(k[1].0, "nussinov");
    }

    #[test]
    fn a_headers_sizes_are_read_for_one_dataset() {
        let header = "# if !defined(NI) && !defined(NJ) && !defined(NK)\n\
            #  ifdef MINI_DATASET\n#   define NI 20\n#   define NJ 25\n#   define NK 30\n#  endif\n\
            #  ifdef LARGE_DATASET\n#   define NI 1000\n#   define NJ 1100\n#   define NK 1200\n#  endif\n\
            #endif\n# define _PB_NI POLYBENCH_LOOP_BOUND(NI,ni)\n#  define DATA_TYPE double\n";
        let large = size_defines(header, "LARGE_DATASET");
        assert_eq!(
            large,
            [
                ("NI".to_string(), 1000),
                ("NJ".to_string(), 1100),
                ("NK".to_string(), 1200)
            ]
        );
        assert_eq!(size_defines(header, "MINI_DATASET")[2].1, 30);
        assert!(size_defines(header, "SMALL_DATASET").is_empty());
    }
}
