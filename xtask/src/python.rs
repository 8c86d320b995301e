//! A private Python environment under `target/xtask-venv` for the PyPI tools the chores run, so
//! that nothing on the machine is assumed beyond `python3`.

use std::{
    path::{Path, PathBuf},
    process::Command,
};

use anyhow::{Context, Result, bail};

/// The path of a tool's command, installed from PyPI (`requirement`, pinned) on first use.
pub fn tool(root: &Path, requirement: &str, command: &str) -> Result<PathBuf> {
    let venv = root.join("target/xtask-venv");
    let python = venv.join("bin/python");
    if !python.exists() {
        status(
            Command::new("python3").arg("-m").arg("venv").arg(&venv),
            "python3 -m venv",
        )?;
    }
    // One marker per requirement: a changed pin installs again.
    let marker = venv.join(format!(".installed-{requirement}"));
    if !marker.exists() {
        eprintln!("xtask: installing {requirement} into {}", venv.display());
        status(
            Command::new(&python).args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                requirement,
            ]),
            "pip install",
        )?;
        std::fs::write(&marker, "")?;
    }
    Ok(venv.join("bin").join(command))
}

/// Runs a command to its end; fails unless it succeeds.
pub fn status(command: &mut Command, what: &str) -> Result<()> {
    let status = command
        .status()
        .with_context(|| format!("running {what}"))?;
    if !status.success() {
        bail!("{what} failed ({status})");
    }
    Ok(())
}

/// The `PATH` with `folder` first, so that a tool finds the commands installed beside it.
pub fn path_first(folder: &Path) -> Result<std::ffi::OsString> {
    let rest = std::env::var_os("PATH").unwrap_or_default();
    Ok(std::env::join_paths(
        std::iter::once(folder.to_path_buf()).chain(std::env::split_paths(&rest)),
    )?)
}
