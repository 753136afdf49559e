//! The cells of the benchmark tables that time builds against a reference program
//! (`bench pipelines`, `bench tensor`): how a build's checksums compare with the
//! reference's, and what became of the build.

use crate::formats::{json_number, json_string};

/// How a build's checksums compare with the reference program's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Check {
    /// The same checksums.
    Same,
    /// Every checksum within the table's tolerance; the largest difference.
    Close(f64),
    /// Different: the largest difference where the checksums could be compared.
    Wrong(Option<f64>),
}

impl Check {
    /// `same`, `close` or `wrong`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Check::Same => "same",
            Check::Close(_) => "close",
            Check::Wrong(_) => "wrong",
        }
    }

    /// The largest difference of the checksums, where known.
    pub(crate) fn difference(self) -> Option<f64> {
        match self {
            Check::Same => Some(0.0),
            Check::Close(d) => Some(d),
            Check::Wrong(d) => d,
        }
    }
}

/// What became of one build.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Cell {
    /// The fastest run in milliseconds and the checksums against the reference's.
    Timed(f64, Check),
    /// A step failed: the message.
    Failed(String),
    /// Not run: the reason.
    Skipped(String),
}

impl Cell {
    /// The cell as a JSON object, the checksums' largest difference under the key
    /// `difference`.
    pub(crate) fn json(&self, difference: &str) -> String {
        match self {
            Cell::Timed(ms, check) => format!(
                "{{\"status\": \"timed\", \"ms\": {}, \"check\": \"{}\", \"{difference}\": {}}}",
                json_number(Some(*ms)),
                check.name(),
                json_number(check.difference())
            ),
            Cell::Failed(e) => format!("{{\"status\": \"failed\", \"error\": {}}}", json_string(e)),
            Cell::Skipped(why) => format!(
                "{{\"status\": \"skipped\", \"reason\": {}}}",
                json_string(why)
            ),
        }
    }

    /// The milliseconds of a correct build.
    pub(crate) fn correct_ms(&self) -> Option<f64> {
        match self {
            Cell::Timed(ms, check) if !matches!(check, Check::Wrong(_)) && *ms > 0.0 => Some(*ms),
            _ => None,
        }
    }

    /// Milliseconds as `ms_text` prints them (with `!` after wrong checksums), `error`
    /// or `-`.
    pub(crate) fn text(&self, ms_text: impl Fn(f64) -> String) -> String {
        match self {
            Cell::Timed(ms, Check::Wrong(_)) => format!("{}!", ms_text(*ms)),
            Cell::Timed(ms, _) => ms_text(*ms),
            Cell::Failed(_) => "error".to_string(),
            Cell::Skipped(_) => "-".to_string(),
        }
    }
}

/// The largest relative difference of two lists of numbers (infinite for a non-finite
/// one).
pub(crate) fn largest_difference(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| {
            if x == y {
                0.0
            } else if x.is_finite() && y.is_finite() {
                (x - y).abs() / x.abs().max(y.abs())
            } else {
                f64::INFINITY
            }
        })
        .fold(0.0, f64::max)
}

/// The messages of the failed cells, separated by `; ` (a field of the CSV tables).
pub(crate) fn failures(cells: &[Cell]) -> String {
    let errors: Vec<&str> = cells
        .iter()
        .filter_map(|c| match c {
            Cell::Failed(e) => Some(e.as_str()),
            _ => None,
        })
        .collect();
    errors.join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_print_as_json_objects_and_failures_join() {
        let timed = Cell::Timed(1.5, Check::Close(0.25));
        assert_eq!(
            timed.json("difference"),
            r#"{"status": "timed", "ms": 1.5, "check": "close", "difference": 0.25}"#
        );
        let wrong = Cell::Timed(2.0, Check::Wrong(None));
        assert_eq!(
            wrong.json("relative_difference"),
            r#"{"status": "timed", "ms": 2, "check": "wrong", "relative_difference": null}"#
        );
        let failed = Cell::Failed("gcc: \"x\" failed".into());
        assert_eq!(
            failed.json("difference"),
            r#"{"status": "failed", "error": "gcc: \"x\" failed"}"#
        );
        let skipped = Cell::Skipped("no TVM".into());
        assert_eq!(
            skipped.json("difference"),
            r#"{"status": "skipped", "reason": "no TVM"}"#
        );
        let cells = [failed, timed, Cell::Failed("timeout".into()), skipped];
        assert_eq!(failures(&cells), "gcc: \"x\" failed; timeout");
        assert_eq!(failures(&[wrong]), "");
    }
}
