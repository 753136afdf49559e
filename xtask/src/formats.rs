//! The CSV and JSON pieces that the benchmark reports write (`bench gpu`,
//! `bench polybench`, `bench pipelines`): quoted CSV fields, JSON strings and numbers,
//! and the three report files.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result};

/// A CSV field, quoted when it needs to be.
pub(crate) fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

/// A JSON string literal.
pub(crate) fn json_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A JSON number, or `null`.
pub(crate) fn json_number(value: Option<f64>) -> String {
    value
        .filter(|v| v.is_finite())
        .map_or("null".to_string(), |v| format!("{v}"))
}

/// Writes `report.txt`, `results.csv` and `results.json` into `out` and says so.
pub(crate) fn write_reports(out: &Path, text: &str, csv: String, json: String) -> Result<()> {
    let files = [
        ("report.txt", text.to_string()),
        ("results.csv", csv),
        ("results.json", json),
    ];
    for (name, contents) in files {
        let path = out.join(name);
        std::fs::write(&path, contents)
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    println!(
        "bench: report written to {} (report.txt, results.csv, results.json)",
        out.display()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_strings_and_numbers() {
        assert_eq!(json_string("a\"b\\c\nd\u{1}"), "\"a\\\"b\\\\c\\nd\\u0001\"");
        assert_eq!(csv_field("a,\"b\""), "\"a,\"\"b\"\"\"");
        assert_eq!(csv_field("plain"), "plain");
        assert_eq!(json_number(Some(0.5)), "0.5");
        assert_eq!(json_number(Some(f64::NAN)), "null");
        assert_eq!(json_number(None), "null");
    }
}
