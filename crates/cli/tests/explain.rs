//! `pollen explain`: the page of jacobi-1d parses as XML and as HTML5 (without a parse
//! error) with the expected pictures, the `--svg` files match them, bad options are
//! errors, and the page of every example kernel is generated and parses both ways.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use pollen_testkit::{all_kernel_names, kernels_dir};

fn pollen(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pollen"))
        .args(args)
        .output()
        .expect("run pollen")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pollen-explain-{}-{name}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).expect("create a scratch directory");
    dir
}

/// The number of `<svg>` elements of a well-formed XML text; panics on malformed XML.
fn count_svg_elements(text: &str) -> usize {
    let mut reader = quick_xml::Reader::from_str(text);
    let mut count = 0;
    loop {
        match reader.read_event() {
            Ok(quick_xml::events::Event::Start(e)) if e.name().as_ref() == b"svg" => count += 1,
            Ok(quick_xml::events::Event::Eof) => return count,
            Ok(_) => {}
            Err(e) => panic!("malformed page at byte {}: {e}", reader.buffer_position()),
        }
    }
}

/// The number of `<svg>` elements an HTML5 parser (html5ever, through `scraper`) finds in
/// a page; panics when the parser reports a parse error.
fn html5_svg_elements(text: &str) -> usize {
    let page = scraper::Html::parse_document(text);
    assert!(
        page.errors.is_empty(),
        "HTML5 parse errors: {:?}",
        page.errors
    );
    let svg = scraper::Selector::parse("svg").expect("a selector");
    page.select(&svg).count()
}

fn kernel(name: &str) -> String {
    kernels_dir()
        .join(format!("{name}.c"))
        .display()
        .to_string()
}

#[test]
fn jacobi_1d_page_and_svg_files() {
    let dir = scratch("jacobi");
    let page = dir.join("report.html");
    let svg_dir = dir.join("svg");
    let out = pollen(&[
        "explain",
        &kernel("jacobi-1d"),
        "-o",
        page.to_str().unwrap(),
        "--tile-sizes",
        "4",
        "--params",
        "_PB_TSTEPS=4,_PB_N=10",
        "--svg",
        svg_dir.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let html = fs::read_to_string(&page).unwrap();
    // Two domains, the dependences, two schedules, the schedule space, the tiles in the
    // original and in the schedule space.
    assert_eq!(count_svg_elements(&html), 8);
    assert_eq!(html5_svg_elements(&html), 8);
    assert!(html.contains("_PB_TSTEPS = 4, _PB_N = 10"));
    assert!(html.contains("{ S0[t, i] : 0 &lt;= t &lt; _PB_TSTEPS and 1 &lt;= i &lt; _PB_N - 1 }"));
    assert!(html.contains("<span class=\"s0\" title=\"S0\">"));
    assert!(html.contains("#pragma omp"), "the generated code is shown");
    assert!(html.contains("Tile sizes: 4 (given)"));
    let mut files: Vec<String> = fs::read_dir(&svg_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            "dependences.svg",
            "domain-S0.svg",
            "domain-S1.svg",
            "schedule-new.svg",
            "schedule-original.svg",
            "schedule-space.svg",
            "tiles-1-space.svg",
            "tiles-1.svg"
        ]
    );
    for file in &files {
        let svg = fs::read_to_string(svg_dir.join(file)).unwrap();
        assert_eq!(count_svg_elements(&svg), 1, "{file}");
        assert!(html.contains(&svg), "{file} is the page's picture");
    }
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn dims_and_limits() {
    let gemm = kernel("gemm");
    let out = pollen(&["explain", &gemm, "--dims", "i,j", "--fix", "k=3"]);
    assert!(out.status.success());
    let html = String::from_utf8(out.stdout).unwrap();
    assert!(html.contains("S1: k = 3"));
    // A picture past the limit is replaced by the reason; the page is still written.
    let out = pollen(&[
        "explain",
        &gemm,
        "--max-points",
        "10",
        "--params",
        "_PB_NI=8",
    ]);
    assert!(out.status.success());
    let html = String::from_utf8(out.stdout).unwrap();
    assert!(html.contains("not drawn: the picture has more than 10 points"));
    assert_eq!(count_svg_elements(&html), 0);
    let out = pollen(&["explain", &gemm, "--params", "N"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("expected NAME=VALUE"));
    let out = pollen(&["explain", &gemm, "--dims", "i"]);
    assert_eq!(out.status.code(), Some(2));
    let out = pollen(&["explain", &gemm, "--dims", "i,q"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("no statement has a dimension `q`"));
}

#[test]
fn every_kernel_has_a_page() {
    let dir = scratch("kernels");
    for name in all_kernel_names() {
        let page = dir.join(format!("{name}.html"));
        let out = pollen(&["explain", &kernel(&name), "-o", page.to_str().unwrap()]);
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let html = fs::read_to_string(&page).unwrap();
        let pictures = count_svg_elements(&html);
        assert_eq!(html5_svg_elements(&html), pictures, "{name}");
        assert!(pictures >= 5, "{name}: {pictures} pictures");
        assert!(!html.contains("not drawn"), "{name}: a picture is missing");
    }
    let _ = fs::remove_dir_all(Path::new(&dir));
}

/// The HTML5 check rejects a page with a parse error (a stray end tag), so that its
/// acceptance of the pages above means something.
#[test]
fn the_html5_check_rejects_a_malformed_page() {
    let bad = "<!DOCTYPE html><html><head><title>t</title></head><body><p>x</div></body></html>";
    let caught = std::panic::catch_unwind(|| html5_svg_elements(bad));
    assert!(caught.is_err(), "a stray end tag passed the HTML5 check");
    let good = "<!DOCTYPE html><html><head><title>t</title></head><body><svg></svg></body></html>";
    assert_eq!(html5_svg_elements(good), 1);
}
