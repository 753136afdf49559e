//! The results of a search as a table, as CSV (which a later search resumes from) and
//! as JSON.
//!
//! CSV columns: `id,key,status,seconds,runs,speedup_original,speedup_default,detail`.
//! `key` is [`Candidate::key`](crate::evaluate::Candidate::key); `runs` lists every
//! timed run's seconds separated by `;`; `detail` is the first difference of a
//! mismatch, the failure of a failed candidate, the stop time of a slow one. Fields
//! are quoted as RFC 4180 says.

use std::collections::HashMap;
use std::fmt::Write as _;

use crate::evaluate::{Agreement, Failure, Step};
use crate::tuner::{Outcome, Results, Status};

/// The CSV header line.
pub const CSV_HEADER: &str = "id,key,status,seconds,runs,speedup_original,speedup_default,detail";

/// The speedups of an outcome over the original and over the default.
fn speedups(results: &Results, outcome: &Outcome) -> (Option<f64>, Option<f64>) {
    let Some(s) = outcome.status.seconds() else {
        return (None, None);
    };
    let default = results.default_outcome().and_then(|d| d.status.seconds());
    (Some(results.baseline.seconds / s), default.map(|d| d / s))
}

/// Every timed run's seconds, joined by `separator` (empty for an untimed status).
fn runs_text(status: &Status, separator: &str) -> String {
    match status {
        Status::Timed { runs, .. } => runs
            .iter()
            .map(|r| format!("{r:.6}"))
            .collect::<Vec<_>>()
            .join(separator),
        _ => String::new(),
    }
}

/// The detail column.
fn detail(status: &Status) -> String {
    match status {
        Status::Timed { .. } => String::new(),
        Status::Slow { after, .. } => format!("stopped after {after:.3} s"),
        Status::Mismatch(d) => d.clone(),
        Status::Failed(f) => f.to_string(),
    }
}

/// The outcomes ordered by id.
fn by_id(results: &Results) -> Vec<&Outcome> {
    let mut rows: Vec<&Outcome> = results.outcomes.iter().collect();
    rows.sort_by_key(|o| o.candidate.id);
    rows
}

/// The results as CSV, one row per candidate evaluated, by id.
pub fn to_csv(results: &Results) -> String {
    let mut out = format!("{CSV_HEADER}\n");
    for o in by_id(results) {
        let (orig, def) = speedups(results, o);
        let runs = runs_text(&o.status, ";");
        let fields = [
            o.candidate.id.to_string(),
            o.candidate.key(),
            o.status.name().to_string(),
            o.status
                .seconds()
                .map_or(String::new(), |s| format!("{s:.6}")),
            runs,
            orig.map_or(String::new(), |v| format!("{v:.3}")),
            def.map_or(String::new(), |v| format!("{v:.3}")),
            detail(&o.status),
        ];
        let quoted: Vec<String> = fields.iter().map(|f| csv_field(f)).collect();
        let _ = writeln!(out, "{}", quoted.join(","));
    }
    out
}

/// A CSV field, quoted when it holds a comma, a quote or a line break.
fn csv_field(field: &str) -> String {
    if field.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", field.replace('"', "\"\""))
    } else {
        field.to_string()
    }
}

/// The records of a CSV text (RFC 4180 quoting).
fn csv_records(text: &str) -> Vec<Vec<String>> {
    let mut records = Vec::new();
    let mut record = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => field.push(c),
            (false, '"') if field.is_empty() => quoted = true,
            (false, ',') => record.push(std::mem::take(&mut field)),
            (false, '\r') => {}
            (false, '\n') => {
                record.push(std::mem::take(&mut field));
                records.push(std::mem::take(&mut record));
            }
            (false, c) => field.push(c),
        }
    }
    if !field.is_empty() || !record.is_empty() {
        record.push(field);
        records.push(record);
    }
    records
}

/// The statuses of a CSV written by [`to_csv`], by key, for a resumed search. Rows of
/// slow candidates are not resumed (the cutoff depends on the best time, which may
/// differ). Fails on a text that is not such a CSV.
pub fn from_csv(text: &str) -> Result<HashMap<String, Status>, String> {
    let records = csv_records(text);
    let Some((header, rows)) = records.split_first() else {
        return Err("an empty CSV".to_string());
    };
    if header.join(",") != CSV_HEADER {
        return Err(format!(
            "not a search's CSV (header `{}`)",
            header.join(",")
        ));
    }
    let mut out = HashMap::new();
    for (line, row) in rows.iter().enumerate() {
        let bad = || format!("line {}: malformed row", line + 2);
        if row.len() != 8 {
            return Err(bad());
        }
        let runs: Vec<f64> = row[4]
            .split(';')
            .filter(|r| !r.is_empty())
            .map(|r| r.parse::<f64>().map_err(|_| bad()))
            .collect::<Result<_, _>>()?;
        let status = match row[2].as_str() {
            "ok" | "close" => {
                let seconds = row[3].parse::<f64>().map_err(|_| bad())?;
                Status::Timed {
                    agreement: if row[2] == "ok" {
                        Agreement::Equal
                    } else {
                        Agreement::Close
                    },
                    seconds,
                    runs,
                }
            }
            "mismatch" => Status::Mismatch(row[7].clone()),
            "failed" => Status::Failed(Failure::new(Step::Generate, row[7].clone())),
            "slow" => continue,
            _ => return Err(bad()),
        };
        out.insert(row[1].clone(), status);
    }
    Ok(out)
}

/// The results as JSON: the baseline, the best, and one object per candidate.
pub fn to_json(results: &Results) -> String {
    let best = results.best().map(|b| b.candidate.id);
    let mut out = String::from("{\n");
    let _ = writeln!(
        out,
        "  \"original_seconds\": {},",
        json_number(Some(results.baseline.seconds))
    );
    let _ = writeln!(
        out,
        "  \"default_seconds\": {},",
        json_number(results.default_outcome().and_then(|o| o.status.seconds()))
    );
    let _ = writeln!(
        out,
        "  \"best\": {},",
        best.map_or("null".to_string(), |b| b.to_string())
    );
    let _ = writeln!(out, "  \"not_reached\": {},", results.not_reached);
    let _ = writeln!(out, "  \"same_program\": {},", results.same_program);
    let _ = writeln!(
        out,
        "  \"elapsed_seconds\": {:.3},",
        results.elapsed.as_secs_f64()
    );
    out.push_str("  \"candidates\": [\n");
    let rows = by_id(results);
    for (k, o) in rows.iter().enumerate() {
        let (orig, def) = speedups(results, o);
        let runs = runs_text(&o.status, ", ");
        let _ = write!(
            out,
            "    {{\"id\": {}, \"key\": {}, \"status\": {}, \"seconds\": {}, \"runs\": [{}], \"speedup_original\": {}, \"speedup_default\": {}, \"detail\": {}, \"resumed\": {}}}",
            o.candidate.id,
            json_string(&o.candidate.key()),
            json_string(o.status.name()),
            json_number(o.status.seconds()),
            runs,
            json_number(orig),
            json_number(def),
            json_string(&detail(&o.status)),
            o.resumed
        );
        out.push_str(if k + 1 < rows.len() { ",\n" } else { "\n" });
    }
    out.push_str("  ]\n}\n");
    out
}

fn json_number(v: Option<f64>) -> String {
    match v {
        Some(v) if v.is_finite() => format!("{v:.6}"),
        _ => "null".to_string(),
    }
}

fn json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Seconds as the table prints them: four decimals from 10 ms on, six below, and
/// three significant digits below 0.1 ms, so that a sub-millisecond kernel's time
/// still tells its candidates apart (`0.0123`, `0.001234`, `4.560e-5`).
pub fn seconds_text(seconds: f64) -> String {
    if seconds >= 0.01 || seconds == 0.0 || !seconds.is_finite() {
        format!("{seconds:.4}")
    } else if seconds >= 1e-4 {
        format!("{seconds:.6}")
    } else {
        format!("{seconds:.3e}")
    }
}

/// The results as a text table, one row per candidate by id, the best marked `*`.
pub fn table(results: &Results) -> String {
    let best = results.best().map(|b| b.candidate.id);
    let rows = by_id(results);
    let width = rows
        .iter()
        .map(|o| o.candidate.key().chars().count())
        .max()
        .unwrap_or(9)
        .max(9);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:>4}  {:<width$}  {:<8}  {:>10}  {:>9}  {:>9}",
        "id", "candidate", "status", "time (s)", "vs orig", "vs default"
    );
    for o in rows {
        let (orig, def) = speedups(results, o);
        let mark = if Some(o.candidate.id) == best {
            "*"
        } else {
            " "
        };
        let _ = writeln!(
            out,
            "{:>3}{mark}  {:<width$}  {:<8}  {:>10}  {:>9}  {:>9}{}",
            o.candidate.id,
            o.candidate.key(),
            o.status.name(),
            o.status.seconds().map_or("-".to_string(), seconds_text),
            orig.map_or("-".to_string(), |v| format!("{v:.2}x")),
            def.map_or("-".to_string(), |v| format!("{v:.2}x")),
            match &o.status {
                Status::Timed { .. } => String::new(),
                other => format!("  {}", detail(other)),
            }
        );
    }
    out
}
