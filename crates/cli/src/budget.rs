//! The work budget of every command: `--budget N` (solver steps, as counted by
//! [`pollen_presburger::Budget`]) or `--budget unlimited`, and the typed error a stage
//! reports when it runs out.
//!
//! Each stage (dependence analysis, scheduling, tiling, code generation; one statement
//! of a `calc` script) gets a budget of its own of the chosen size, so that the message
//! can name the stage that ran out and the number the user raises is the same
//! whichever stage that is.

use std::fmt;
use std::str::FromStr;

use pollen_presburger::Budget;

/// The default budget of a stage, in solver steps: the driver's
/// ([`pollen_driver::DEFAULT_BUDGET`]).
///
/// The most any stage of the example kernels (`examples/kernels`, at their sizes) or a
/// statement of the calc golden scripts needs is about 1/20 of this (see
/// ARCHITECTURE.md, "Budgets"); a pathological input runs out within seconds.
pub const DEFAULT_STEPS: u64 = pollen_driver::DEFAULT_BUDGET;

/// The exit status of a command stopped by its budget (other errors exit with 1 or 2).
pub const LIMIT_EXIT_CODE: u8 = 3;

/// The `--budget` value: a number of steps per stage, or no limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Steps {
    /// At most this many steps per stage.
    Limited(u64),
    /// No limit.
    Unlimited,
}

impl Default for Steps {
    fn default() -> Self {
        Steps::Limited(DEFAULT_STEPS)
    }
}

impl Steps {
    /// A fresh budget of this size.
    pub fn budget(self) -> Budget {
        match self {
            Steps::Limited(n) => Budget::new(n),
            Steps::Unlimited => Budget::unlimited(),
        }
    }
}

impl FromStr for Steps {
    type Err = String;

    fn from_str(s: &str) -> Result<Steps, String> {
        if s == "unlimited" {
            return Ok(Steps::Unlimited);
        }
        let digits: String = s.chars().filter(|&c| c != '_').collect();
        digits
            .parse::<u64>()
            .map(Steps::Limited)
            .map_err(|_| format!("expected a number of steps or `unlimited`, found `{s}`"))
    }
}

impl fmt::Display for Steps {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Steps::Limited(n) => write!(f, "{n}"),
            Steps::Unlimited => write!(f, "unlimited"),
        }
    }
}

/// The `--budget` option, shared by every subcommand.
#[derive(clap::Args, Clone, Copy, Debug)]
pub struct BudgetArg {
    /// The work each stage may do, in solver steps, or `unlimited`; a stage that needs
    /// more stops with a resource-limit error (exit status 3).
    #[arg(long, value_name = "N|unlimited", default_value_t = Steps::default())]
    pub budget: Steps,
}

/// A stage stopped by its budget: `resource limit: <stage> exceeded its budget of N
/// steps (raise it with --budget)`.
#[derive(Debug)]
pub struct LimitError {
    /// What ran out, e.g. `dependence analysis`.
    pub stage: String,
    /// The budget it had.
    pub steps: Steps,
    /// The option that raises it (`--budget`, or `--steps` for `pollen search`).
    pub flag: &'static str,
}

impl LimitError {
    /// The error of `stage` under `steps`.
    pub fn new(stage: impl Into<String>, steps: Steps) -> LimitError {
        LimitError {
            stage: stage.into(),
            steps,
            flag: "--budget",
        }
    }

    /// The same error, raised by another option.
    pub fn raised_by(self, flag: &'static str) -> LimitError {
        LimitError { flag, ..self }
    }
}

impl fmt::Display for LimitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "resource limit: {} exceeded its budget of {} steps (raise it with {})",
            self.stage, self.steps, self.flag
        )
    }
}

impl std::error::Error for LimitError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_parse_numbers_and_unlimited() {
        assert_eq!("1000".parse::<Steps>(), Ok(Steps::Limited(1000)));
        assert_eq!("1_000".parse::<Steps>(), Ok(Steps::Limited(1000)));
        assert_eq!("unlimited".parse::<Steps>(), Ok(Steps::Unlimited));
        assert!("-1".parse::<Steps>().is_err());
        assert!("many".parse::<Steps>().is_err());
    }

    #[test]
    fn the_message_names_the_stage_and_the_budget() {
        let e = LimitError::new("dependence analysis", Steps::Limited(10));
        assert_eq!(
            e.to_string(),
            "resource limit: dependence analysis exceeded its budget of 10 steps \
             (raise it with --budget)"
        );
    }
}
