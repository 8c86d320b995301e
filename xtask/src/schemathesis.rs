//! `cargo xtask schemathesis [ST-ARGS…]`: runs Schemathesis (PyPI) with `--checks all` and the
//! phases examples, coverage and fuzzing against a core-server this chore builds and starts on the
//! demo catalogue over a fresh SQLite file, with the project's hooks (`xtask/schemathesis/`: JSON
//! request bodies only, see there why). It tests every operation of the document; further
//! arguments go to `st run` as they are (`--include-tag CM` narrows the run to one module).

use std::{path::Path, process::Command};

use anyhow::Result;

use crate::{python, server};

/// The pinned Schemathesis version (the latest on PyPI when this chore was written).
pub const SCHEMATHESIS: &str = "schemathesis==4.32.5";

/// Builds and starts the server, runs Schemathesis against it, stops the server.
pub fn run(root: &Path, arguments: &[&str]) -> Result<()> {
    let st = python::tool(root, SCHEMATHESIS, "st")?;
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    python::status(
        Command::new(cargo)
            .args(["build", "--quiet", "--bin", "core-server"])
            .current_dir(root),
        "cargo build --bin core-server",
    )?;
    let folder = root.join("target/schemathesis");
    if folder.exists() {
        std::fs::remove_dir_all(&folder)?;
    }
    std::fs::create_dir_all(&folder)?;
    let (server, token) = server::demo(
        &mut Command::new(root.join("target/debug/core-server")),
        &folder.join("core.db"),
    )?;
    let address = &server.address;
    let base = format!("http://{address}");
    let mut command = Command::new(st);
    command
        .current_dir(&folder)
        .env("SCHEMATHESIS_HOOKS", "core_hooks")
        .env("PYTHONPATH", root.join("xtask/schemathesis"))
        .args(["run", &format!("{base}/openapi.yaml"), "--url", &base])
        .args(["-H", &format!("Authorization: Bearer {token}")])
        .args(["--checks", "all", "--phases", "examples,coverage,fuzzing"])
        .args([
            "--max-examples",
            "50",
            "--workers",
            "2",
            "--continue-on-failure",
        ]);
    command.args(arguments);
    python::status(&mut command, "schemathesis")
}
