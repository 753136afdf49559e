//! `pollen explain`: one self-contained HTML page (inline SVG, a little CSS, no script)
//! that shows what the optimizer did to a C file's loops, drawn by `pollen-draw`.
//!
//! Per region: the source with its statements highlighted; per statement its domain in
//! isl syntax and its picture; the dependences; the original and the new schedule
//! (execution order on the points, and the points in the new schedule's space); the
//! tiles; the generated code beside the original; the driver's report of every decision.
//! `--svg DIR` also writes every picture to its own file. A picture that cannot be drawn
//! (too many points, a budget run out) is replaced by the reason, and the page is still
//! written. The page is well-formed XML as well as HTML, so that the tests can parse it.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use pollen_deps::{Analysis, Dependence};
use pollen_draw::{svg::escape, Slice, View};
use pollen_driver::{Options, RegionReport, TileSizes, Tiling};
use pollen_scop::Scop;

use crate::budget::{BudgetArg, Steps};
use crate::program;

/// The long help of `pollen explain`.
pub const EXPLAIN_HELP: &str = "\
Write one self-contained HTML page (inline SVG pictures, no script, no network) that
explains what `pollen opt` does to the `#pragma scop` regions of a C file: the source with
the statements highlighted; each statement's iteration domain in isl syntax and as a
picture; the dependences as arrows (flow red, anti blue, output green); the execution
order of the original and of the new schedule, numbered on the points, and the points
placed in the new schedule's space (skewed axes); the tiles, shaded and numbered in
execution order; the generated code beside the original; and the driver's report of every
decision.

Pictures are 2-D slices: parameters take the values of --params (the others a small
common value, at most 8, chosen so that a picture has about 200 points or fewer), two
dimensions are drawn (--dims, by iterator name; the first two of each statement by
default) and the others are fixed (--fix, or their value at the statement's first point).
Points are enumerated exactly; --max-points bounds their number per picture.

The optimizer runs with `pollen opt`'s defaults; tiles at the cache model's sizes are
often larger than a small picture: --tile-sizes 4 shows several.

Examples:
  pollen explain examples/kernels/jacobi-1d.c -o jacobi-1d.html --tile-sizes 4
  pollen explain examples/kernels/gemm.c --dims i,j --params _PB_NI=8 --svg pictures/";

/// The arguments of `pollen explain`.
#[derive(clap::Args, Debug)]
pub struct ExplainArgs {
    /// The C file.
    pub file: PathBuf,
    /// Where to write the HTML page (standard output when absent or `-`).
    #[arg(short, long, value_name = "REPORT.html")]
    pub output: Option<PathBuf>,
    /// Parameter values of the pictures, e.g. `N=10,M=8`.
    #[arg(long, value_delimiter = ',', value_name = "NAME=VALUE,...")]
    pub params: Vec<String>,
    /// The two dimensions drawn, by iterator name, e.g. `i,j`.
    #[arg(long, value_delimiter = ',', value_name = "X,Y")]
    pub dims: Option<Vec<String>>,
    /// Values of dimensions that are not drawn, e.g. `k=0`.
    #[arg(long, value_delimiter = ',', value_name = "NAME=VALUE,...")]
    pub fix: Vec<String>,
    /// The most points (and dependence arrows) one picture may show.
    #[arg(long, default_value_t = 2000)]
    pub max_points: usize,
    /// Also write every picture as an SVG file in this directory.
    #[arg(long, value_name = "DIR")]
    pub svg: Option<PathBuf>,
    /// Tile sizes of the optimizer (default: from the machine's cache sizes).
    #[arg(long, value_delimiter = ',', value_name = "S1,S2,...")]
    pub tile_sizes: Option<Vec<i64>>,
    #[command(flatten)]
    pub budget: BudgetArg,
}

/// A picture of the page: its file name (for `--svg`) and its SVG text or the reason
/// it could not be drawn.
struct Picture {
    file: String,
    svg: std::result::Result<String, String>,
}

/// Runs `pollen explain`.
pub fn run(args: &ExplainArgs) -> Result<ExitCode> {
    let path = args.file.as_path();
    let source =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let view = base_view(args)?;
    let options = Options {
        tiling: match &args.tile_sizes {
            Some(sizes) => Tiling::Sizes(sizes.clone()),
            None => Tiling::FromCache,
        },
        cache: crate::opt::machine_cache(),
        budget: match args.budget.budget {
            Steps::Limited(n) => Some(n),
            Steps::Unlimited => None,
        },
        ..Options::default()
    };
    let extracted = pollen_frontend::extract_all_with(&source, &mut args.budget.budget.budget())
        .map_err(|e| {
            program::driver_error(path, pollen_driver::Error::Frontend(e), args.budget.budget)
        })?;
    let optimized = match pollen_driver::optimize_source(&source, &options) {
        Ok(optimized) => optimized,
        Err(e) => return Err(program::driver_error(path, e, args.budget.budget)),
    };
    let name = path.display().to_string();
    let mut pictures = Vec::new();
    let mut body = String::new();
    let regions = &optimized.report.regions;
    for (k, (region, report)) in extracted.iter().zip(regions).enumerate() {
        let deps = pollen_deps::analyze_with(
            &region.scop,
            Analysis::ValueBased,
            &mut args.budget.budget.budget(),
        )
        .map_err(|e| anyhow::anyhow!("dependence analysis: {e}"))?;
        let code = generated_code(&source, &optimized.text, &extracted, k);
        let prefix = if regions.len() > 1 {
            format!("region{}-", k + 1)
        } else {
            String::new()
        };
        body.push_str(&region_section(
            &source,
            region,
            report,
            deps.as_slice(),
            code,
            &view,
            &prefix,
            regions.len() > 1,
            &mut pictures,
        ));
    }
    let mut report = optimized.report.clone();
    report.name = Some(name.clone());
    let page = page(&name, &body, &report.to_string());
    if let Some(dir) = &args.svg {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        for picture in &pictures {
            if let Ok(svg) = &picture.svg {
                let file = dir.join(&picture.file);
                std::fs::write(&file, svg)
                    .with_context(|| format!("cannot write {}", file.display()))?;
            }
        }
    }
    match &args.output {
        Some(out) if out.as_os_str() != "-" => {
            std::fs::write(out, &page).with_context(|| format!("cannot write {}", out.display()))?
        }
        _ => {
            let stdout = std::io::stdout();
            let mut out = stdout.lock();
            out.write_all(page.as_bytes())?;
            out.flush()?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `NAME=VALUE` pairs.
fn assignments(items: &[String], what: &str) -> Result<Vec<(String, i64)>> {
    let mut out = Vec::new();
    for item in items.iter().filter(|i| !i.trim().is_empty()) {
        let Some((name, value)) = item.split_once('=') else {
            bail!("{what}: expected NAME=VALUE, found `{item}`");
        };
        let value: i64 = value
            .trim()
            .parse()
            .with_context(|| format!("{what}: `{value}` is not an integer"))?;
        out.push((name.trim().to_string(), value));
    }
    Ok(out)
}

/// The view of the command line (the default parameter value is chosen per region).
fn base_view(args: &ExplainArgs) -> Result<View> {
    let dims = match &args.dims {
        None => None,
        Some(d) if d.len() == 2 => Some((d[0].trim().to_string(), d[1].trim().to_string())),
        Some(_) => bail!("--dims: expected two names, e.g. --dims i,j"),
    };
    Ok(View {
        params: assignments(&args.params, "--params")?,
        dims,
        fixed: assignments(&args.fix, "--fix")?,
        max_points: args.max_points,
        max_arrows: args.max_points.saturating_mul(4),
        budget: match args.budget.budget {
            Steps::Limited(n) => Some(n),
            Steps::Unlimited => None,
        },
        ..View::default()
    })
}

/// The largest default parameter value from 8 down to 2 whose slice has at most 200
/// points (2 when none has).
fn choose_default_param(scop: &Scop, view: &View) -> i64 {
    for value in (2..=8).rev() {
        let trial = View {
            default_param: value,
            ..view.clone()
        };
        if Slice::of_scop(scop, &trial).is_ok_and(|s| s.len() <= 200) {
            return value;
        }
    }
    2
}

/// The generated code of region `k` in the optimized text: the text between the
/// regions is kept byte for byte, which delimits it.
fn generated_code<'a>(
    source: &str,
    optimized: &'a str,
    extracted: &[pollen_frontend::Extracted],
    k: usize,
) -> &'a str {
    // Where region k starts in the optimized text: after the previous region's code and
    // the kept text between them.
    let mut start = extracted[0].region.start;
    for j in 0..k {
        let between = &source[extracted[j].region.end..extracted[j + 1].region.start];
        let Some(found) = optimized[start..].find(between) else {
            return "";
        };
        start += found + between.len();
    }
    let end = match extracted.get(k + 1) {
        Some(next) => {
            let between = &source[extracted[k].region.end..next.region.start];
            optimized[start..]
                .find(between)
                .map_or(optimized.len(), |i| start + i)
        }
        None => optimized
            .len()
            .saturating_sub(source.len() - extracted[k].region.end)
            .max(start),
    };
    optimized.get(start..end).unwrap_or("")
}

/// Adds a picture and returns its HTML (the SVG inline, or the reason in a note).
fn figure(
    pictures: &mut Vec<Picture>,
    file: String,
    caption: &str,
    svg: std::result::Result<String, pollen_draw::Error>,
) -> String {
    let svg = svg.map_err(|e| e.to_string());
    let html = match &svg {
        Ok(svg) => format!(
            "<figure>{svg}<figcaption>{}</figcaption></figure>\n",
            escape(caption)
        ),
        Err(e) => format!(
            "<p class=\"note\">{}: not drawn: {}</p>\n",
            escape(caption),
            escape(e)
        ),
    };
    pictures.push(Picture { file, svg });
    html
}

/// The section of one region.
#[allow(clippy::too_many_arguments)] // One call site; the pieces of a region's page.
fn region_section(
    source: &str,
    region: &pollen_frontend::Extracted,
    report: &RegionReport,
    deps: &[Dependence],
    code: &str,
    view: &View,
    prefix: &str,
    several: bool,
    pictures: &mut Vec<Picture>,
) -> String {
    let scop = &region.scop;
    let view = View {
        default_param: choose_default_param(scop, view),
        ..view.clone()
    };
    let mut h = String::new();
    if several {
        let _ = writeln!(
            h,
            "<h2>Region {} (line {})</h2>",
            report.index + 1,
            report.line
        );
    }
    let params = scop
        .params
        .iter()
        .map(|p| format!("{p} = {}", view.param(p)))
        .collect::<Vec<_>>()
        .join(", ");
    let _ = writeln!(
        h,
        "<p>Pictures drawn with {}.</p>",
        escape(if params.is_empty() {
            "no parameters"
        } else {
            &params
        })
    );

    // The source, statements highlighted.
    h.push_str("<h3>Source</h3>\n");
    h.push_str(&highlighted(&source[region.region.clone()], scop));

    // Statements.
    h.push_str("<h3>Statements</h3>\n");
    let slice = Slice::of_scop(scop, &view);
    for (k, s) in scop.statements.iter().enumerate() {
        let _ = writeln!(
            h,
            "<div class=\"stmt\"><h4><span class=\"s{}\">{}</span>: <code>{}</code></h4>\n\
             <p>domain: <code>{}</code></p>",
            k % 6,
            escape(&s.name),
            escape(&s.body),
            escape(&s.domain.to_string())
        );
        let svg = slice.clone().map(|slice| {
            pollen_draw::slice_svg(
                &slice.select(std::slice::from_ref(&s.name)),
                &format!("{} domain", s.name),
            )
        });
        h.push_str(&figure(
            pictures,
            format!("{prefix}domain-{}.svg", s.name),
            &format!("the instances of {}", s.name),
            svg,
        ));
        h.push_str("</div>\n");
    }

    // Dependences.
    h.push_str("<h3>Dependences</h3>\n<ul>\n");
    for d in deps {
        let _ = writeln!(
            h,
            "<li>{:?} through <code>{}</code>: <code>{}</code></li>",
            d.kind,
            escape(&d.array),
            escape(&d.relation.to_string())
        );
    }
    if deps.is_empty() {
        h.push_str("<li>none</li>\n");
    }
    h.push_str("</ul>\n");
    let svg = slice
        .clone()
        .and_then(|slice| pollen_draw::dependences_svg(&slice, deps, &view));
    h.push_str(&figure(
        pictures,
        format!("{prefix}dependences.svg"),
        "dependences between the drawn instances (value-based flow, anti, output)",
        svg,
    ));

    // Schedules.
    h.push_str("<h3>Schedules</h3>\n<div class=\"row\">\n");
    let original = scop
        .schedule
        .to_union_map()
        .map_err(pollen_draw::Error::Scop);
    let new = report
        .scop
        .schedule
        .to_union_map()
        .map_err(pollen_draw::Error::Scop);
    for (label, file, map) in [
        ("original schedule", "schedule-original.svg", &original),
        ("new schedule", "schedule-new.svg", &new),
    ] {
        let map_text = map
            .as_ref()
            .map_or_else(|e| e.to_string(), |m| m.to_string());
        let svg = match (&slice, map) {
            (Ok(slice), Ok(map)) => pollen_draw::schedule_svg(slice, map, label, &view),
            (Err(e), _) | (_, Err(e)) => Err(e.clone()),
        };
        let _ = writeln!(
            h,
            "<div><p>{}: <code>{}</code></p>",
            escape(label),
            escape(&map_text)
        );
        h.push_str(&figure(
            pictures,
            format!("{prefix}{file}"),
            &format!("{label}: the execution order of the drawn instances"),
            svg,
        ));
        h.push_str("</div>\n");
    }
    h.push_str("</div>\n");
    let svg = match (&slice, &new) {
        (Ok(slice), Ok(map)) => {
            pollen_draw::scheduled_space_svg(slice, map, deps, "new schedule space", &view)
        }
        (Err(e), _) | (_, Err(e)) => Err(e.clone()),
    };
    h.push_str(&figure(
        pictures,
        format!("{prefix}schedule-space.svg"),
        "the instances at their coordinates in the new schedule, with the dependences",
        svg,
    ));
    let _ = writeln!(
        h,
        "<p>The new schedule tree:</p>\n<pre>{}</pre>",
        escape(&report.scop.schedule.to_string())
    );

    // Tiles.
    h.push_str("<h3>Tiles</h3>\n");
    let _ = writeln!(
        h,
        "<p>Tile sizes: {}.</p>",
        escape(&tile_sizes_text(&report.scop.tile_sizes))
    );
    match &report.scop.tiled {
        None => h.push_str("<p>Nothing was tiled.</p>\n"),
        Some(tiled) => {
            let groups = pollen_draw::band_groups(tiled);
            for (g, group) in groups.iter().enumerate() {
                let names = group.join(", ");
                let svg = slice
                    .clone()
                    .and_then(|s| pollen_draw::tiles_svg(&s.select(group), tiled, None, &view));
                h.push_str(&figure(
                    pictures,
                    format!("{prefix}tiles-{}.svg", g + 1),
                    &format!("the tiles of {names}, in the original space"),
                    svg,
                ));
                let svg = match (&slice, &new) {
                    (Ok(s), Ok(map)) => {
                        pollen_draw::tiles_svg(&s.select(group), tiled, Some(map), &view)
                    }
                    (Err(e), _) | (_, Err(e)) => Err(e.clone()),
                };
                h.push_str(&figure(
                    pictures,
                    format!("{prefix}tiles-{}-space.svg", g + 1),
                    &format!("the tiles of {names}, in the new schedule's space"),
                    svg,
                ));
            }
            let _ = writeln!(
                h,
                "<p>The tiled tree:</p>\n<pre>{}</pre>",
                escape(&tiled.to_string())
            );
        }
    }

    // Code.
    h.push_str("<h3>Code</h3>\n<div class=\"row\">\n");
    let _ = writeln!(
        h,
        "<div><p>original</p><pre>{}</pre></div>\n<div><p>generated</p><pre>{}</pre></div>",
        escape(&source[region.region.clone()]),
        escape(code)
    );
    h.push_str("</div>\n");

    // Decisions.
    h.push_str("<h3>Decisions</h3>\n");
    let _ = writeln!(h, "<pre>{}</pre>", escape(&report.scop.to_string()));
    h
}

/// The tile sizes and their origin, in words.
fn tile_sizes_text(sizes: &TileSizes) -> String {
    match sizes {
        TileSizes::Off => "no tiling".to_string(),
        TileSizes::Given(sizes) => format!(
            "{} (given), the last one repeated for further band members",
            sizes
                .iter()
                .map(i64::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
        TileSizes::FromCache {
            l1_bytes,
            l2_bytes,
            element_bytes,
            by_depth,
            triangular_by_depth,
        } => {
            let list = |sizes: &[(usize, i64)]| {
                sizes
                    .iter()
                    .map(|(depth, size)| format!("{size} for bands of {depth} members"))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            format!(
                "from the cache model (L1 {} KiB, L2 {} KiB, {element_bytes}-byte elements): {}; for triangular bands {}",
                l1_bytes >> 10,
                l2_bytes >> 10,
                list(by_depth),
                list(triangular_by_depth)
            )
        }
        TileSizes::Gpu(size) => format!("{size} for every band member (GPU target)"),
    }
}

/// The region's text with every statement's body highlighted (in statement order; a
/// body not found verbatim is left plain).
fn highlighted(text: &str, scop: &Scop) -> String {
    let mut out = String::from("<pre class=\"source\">");
    let mut at = 0;
    for (k, s) in scop.statements.iter().enumerate() {
        let body = s.body.trim();
        if body.is_empty() {
            continue;
        }
        if let Some(found) = text[at..].find(body) {
            let start = at + found;
            out.push_str(&escape(&text[at..start]));
            let _ = write!(
                out,
                "<span class=\"s{}\" title=\"{}\">{}</span>",
                k % 6,
                escape(&s.name),
                escape(body)
            );
            at = start + body.len();
        }
    }
    out.push_str(&escape(&text[at..]));
    out.push_str("</pre>\n");
    out
}

/// The whole page.
fn page(name: &str, body: &str, report: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n\
         <title>pollen explain: {title}</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n\
         <h1>What Pollen does to <code>{title}</code></h1>\n{body}\
         <h2>The optimizer's report</h2>\n<pre>{report}</pre>\n</body>\n</html>\n",
        title = escape(name),
        report = escape(report),
    )
}

/// The page's style sheet.
const STYLE: &str = "\
body { font-family: sans-serif; margin: 1em 2em; max-width: 1400px; }
pre { background: #f6f6f6; padding: 0.5em; overflow-x: auto; font-size: 12px; }
code { font-size: 12px; }
figure { display: inline-block; margin: 0.5em; vertical-align: top; }
.stmt { display: inline-block; vertical-align: top; margin-right: 2em; max-width: 520px; }
.stmt h4, .stmt p { margin: 0.3em 0; }
figcaption { font-size: 12px; color: #555; }
.row { display: flex; flex-wrap: wrap; gap: 1em; }
.row > div { flex: 1; min-width: 400px; }
.note { color: #a00; }
.s0 { background: #e0e0e0; } .s1 { background: #e8dcf5; } .s2 { background: #eddcd5; }
.s3 { background: #f9dcef; } .s4 { background: #d5f3f6; } .s5 { background: #f1f2c8; }
";
