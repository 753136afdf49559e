//! The private Python virtual environments of the benches (islpy, barvinok, Halide,
//! TVM): created under `target/` on first use, never a dependency of any crate.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::bench_polybench::compile;

/// A private virtual environment: where it lives, what pip installs into it, and the
/// Python code that succeeds once what the bench needs imports.
pub(crate) struct Venv<'a> {
    /// The environment's directory.
    pub dir: PathBuf,
    /// The packages pip installs (pinned versions included).
    pub packages: &'a [&'a str],
    /// Python code run with `-c`; it exits 0 when the environment is ready.
    pub check: &'a str,
    /// Who installs, for the progress line (`bench`, `barvinok`).
    pub by: &'a str,
}

impl Venv<'_> {
    /// The environment's Python, after creating and filling the environment when it is
    /// not ready; with `install` false, an error instead.
    pub(crate) fn python(&self, install: bool) -> Result<PathBuf, String> {
        let python = self.dir.join("bin").join("python");
        if python.exists() && self.ready(&python) {
            return Ok(python);
        }
        let packages = self.packages.join(" ");
        if !install {
            return Err(format!(
                "--no-install given and no {packages} in {}",
                self.dir.display()
            ));
        }
        println!(
            "{}: installing {packages} into {}",
            self.by,
            self.dir.display()
        );
        let mut create = Command::new("python3");
        create.args(["-m", "venv"]).arg(&self.dir);
        compile(
            create,
            "python3 -m venv (Debian: apt-get install python3-venv)",
        )?;
        let mut pip = Command::new(&python);
        pip.args(["-m", "pip", "install", "--quiet"])
            .args(self.packages);
        compile(pip, &format!("pip install {packages}"))?;
        if !self.ready(&python) {
            return Err(format!(
                "{packages} still missing from {}",
                self.dir.display()
            ));
        }
        Ok(python)
    }

    fn ready(&self, python: &Path) -> bool {
        Command::new(python)
            .args(["-c", self.check])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    }
}
