//! `cargo xtask validate`: checks the document with `openapi-spec-validator` (PyPI), installed
//! into a private virtual environment under `target/` so that nothing on the machine is assumed.

use std::{path::Path, process::Command};

use anyhow::{Context, Result, bail};

/// The pinned validator version.
pub const VALIDATOR: &str = "openapi-spec-validator==0.9.0";

/// Installs the validator if needed and runs it on the document.
pub fn run(root: &Path) -> Result<()> {
    let venv = root.join("target/xtask-venv");
    let python = venv.join("bin/python");
    let validator = venv.join("bin/openapi-spec-validator");
    if !validator.exists() {
        eprintln!("xtask: installing {VALIDATOR} into {}", venv.display());
        status(
            Command::new("python3").arg("-m").arg("venv").arg(&venv),
            "python3 -m venv",
        )?;
        status(
            Command::new(&python).args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                VALIDATOR,
            ]),
            "pip install",
        )?;
    }
    status(
        Command::new(&validator).arg(root.join(crate::DOCUMENT_PATH)),
        "openapi-spec-validator",
    )
}

fn status(command: &mut Command, what: &str) -> Result<()> {
    let status = command
        .status()
        .with_context(|| format!("running {what}"))?;
    if !status.success() {
        bail!("{what} failed ({status})");
    }
    Ok(())
}
