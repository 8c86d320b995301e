//! `cargo xtask schemathesis [ST-ARGS…]`: runs Schemathesis (PyPI) with `--checks all` and every
//! phase (examples, coverage, fuzzing, stateful) against a core-server this chore builds and
//! starts on the demo catalogue over a fresh SQLite file, with the project's hooks and settings
//! (`xtask/schemathesis/`: request bodies and answers in all three representations, and 400
//! expected where a rule the schema language cannot state refuses a schema-valid request; see
//! there why). `.ci/run` runs it. It tests every operation of the published document; further
//! arguments go to `st run` as they are (`--include-tag CM` narrows the run to one module).

use std::{path::Path, process::Command};

use anyhow::Result;

use crate::{python, server};

/// The pinned Schemathesis version (the latest on PyPI when this chore was written).
pub const SCHEMATHESIS: &str = "schemathesis==4.32.5";

/// Builds and starts the server, runs Schemathesis against it, stops the server.
pub fn run(root: &Path, arguments: &[&str]) -> Result<()> {
    let st = python::tool(root, SCHEMATHESIS, "st")?;
    let (server, token, folder) = server::built_demo(root, "schemathesis")?;
    let address = &server.address;
    let base = format!("http://{address}");
    let mut command = Command::new(st);
    command
        .current_dir(&folder)
        .env("SCHEMATHESIS_HOOKS", "core_hooks")
        .env("PYTHONPATH", root.join("xtask/schemathesis"))
        .arg("--config-file")
        .arg(root.join("xtask/schemathesis/schemathesis.toml"))
        .args(["run", &format!("{base}/openapi.yaml"), "--url", &base])
        .args(["-H", &format!("Authorization: Bearer {token}")])
        .args([
            "--checks",
            "all",
            "--phases",
            "examples,coverage,fuzzing,stateful",
        ])
        .args([
            "--max-examples",
            "50",
            "--workers",
            "2",
            "--continue-on-failure",
        ])
        // Hypothesis's `too_slow` health check times the generation of test data, not the
        // server: transform's request (the whole message) generated too slowly once on a busy
        // two-core machine and failed the run with every check passing. Every check stays on.
        .args(["--suppress-health-check", "too_slow"]);
    command.args(arguments);
    python::status(&mut command, "schemathesis")
}
