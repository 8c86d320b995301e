//! `--prism`: the keyword retrieve against a Stoplight Prism mock of the document (npm
//! `@stoplight/prism-cli`, installed under `target/bench-http-prism` on first use), the reference
//! an earlier issue compared with.

use std::{
    path::Path,
    process::{Command, Stdio},
};

use anyhow::{Context, Result, bail};

use crate::server::{Running, free_address, wait_listening};

use super::{
    scenarios::Scenario,
    wrk::{self, Load, pinned},
};

/// A table row: core-server's median rps on `scenario` (`ours`) against the mock's.
pub fn compare(
    root: &Path,
    load: &Load,
    rounds: usize,
    folder: &Path,
    scenario: &Scenario,
    token: &str,
    ours: f64,
) -> Result<String> {
    let prefix = root.join("target/bench-http-prism");
    let binary = prefix.join("node_modules/.bin/prism");
    if !binary.exists() {
        eprintln!("bench-http: installing @stoplight/prism-cli@5 with npm");
        let installed = Command::new("npm")
            .args(["install", "--no-audit", "--no-fund", "--prefix"])
            .arg(&prefix)
            .arg("@stoplight/prism-cli@5")
            .status()
            .context("npm (Node.js) is needed for --prism")?;
        if !installed.success() {
            bail!("npm install @stoplight/prism-cli@5 failed");
        }
    }
    let address = free_address()?;
    let port = address.rsplit(':').next().unwrap_or_default().to_string();
    let mock = Running::start(
        pinned(load.taskset, "0", &binary)
            .args(["mock", "--host", "127.0.0.1", "--port", &port])
            .arg(root.join(crate::DOCUMENT_PATH))
            .stdout(Stdio::null())
            .stderr(Stdio::null()),
        address,
    )?;
    wait_listening(&mock.address)?;
    let script = folder.join("prism.lua");
    std::fs::write(&script, wrk::script(scenario, token, &[]))?;
    let mut runs = Vec::new();
    for _ in 0..rounds {
        runs.push(load.measure(&script, &mock.address, scenario.path)?);
    }
    let mock = wrk::spread(&runs, |run| run.rps).1;
    Ok(format!(
        "| {} against a Prism mock of the document | {ours:.0} | Prism {mock:.0} | {:.1}× Prism |",
        scenario.name,
        ours / mock
    ))
}
