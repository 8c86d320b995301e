//! The load benchmark on PostgreSQL: a schema of its own for the readers and one for the writers
//! (made again on every run with `psql`), and several core-server instances on each.

use std::{path::Path, process::Command};

use anyhow::{Context, Result, bail};

use crate::server::{self, Running};

use super::wrk::pinned;

/// The schemas the benchmark makes, drops and makes again on every run.
const SCHEMAS: [&str; 2] = ["bench_http_read", "bench_http_write"];

/// The connections each instance opens to PostgreSQL (`--database-connections`).
pub const CONNECTIONS: u32 = 8;

/// The instances on one PostgreSQL database: readers on one schema, writers on another (the
/// persist scenario grows its data), started on the demo catalogue.
pub struct Instances {
    /// The reading instances, the first of them having loaded the demo.
    pub readers: Vec<Running>,
    /// The writing instances.
    pub writers: Vec<Running>,
    /// The demo's token.
    pub token: String,
}

/// Empties the benchmark's schemas on the server `base` names and starts `count` instances on
/// each, all pinned to core 0.
pub fn start(base: &str, core_server: &Path, taskset: bool, count: usize) -> Result<Instances> {
    let mut urls = Vec::new();
    for schema in SCHEMAS {
        psql(
            base,
            &format!("DROP SCHEMA IF EXISTS {schema} CASCADE; CREATE SCHEMA {schema};"),
        )?;
        let separator = if base.contains('?') { '&' } else { '?' };
        urls.push(format!("{base}{separator}options[search_path]={schema}"));
    }
    let mut token = String::new();
    let mut sets = Vec::new();
    for url in &urls {
        let mut set = Vec::new();
        // The first instance loads the demo; the others find it loaded.
        for _ in 0..count {
            let mut command = pinned(taskset, "0", core_server);
            // Eight processes at 16 connections each would pass PostgreSQL's default
            // `max_connections` (100): the last ones would answer 503.
            command.env("CORE_DATABASE_CONNECTIONS", CONNECTIONS.to_string());
            let (running, demo_token) = server::demo(&mut command, url)?;
            set.push(running);
            token = demo_token;
        }
        sets.push(set);
    }
    let writers = sets.pop().unwrap_or_default();
    let readers = sets.pop().unwrap_or_default();
    Ok(Instances {
        readers,
        writers,
        token,
    })
}

/// The server's version, for the report.
pub fn version(base: &str) -> Result<String> {
    psql(base, "SHOW server_version")
}

/// Runs `psql` on `base` with one command; answers what it printed.
fn psql(base: &str, command: &str) -> Result<String> {
    let output = Command::new("psql")
        .args([base, "-v", "ON_ERROR_STOP=1", "-qAtc", command])
        .output()
        .context("psql is needed for the PostgreSQL benchmark (Debian: postgresql-client)")?;
    if !output.status.success() {
        bail!(
            "psql {command}: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    Ok(String::from_utf8_lossy(&output.stdout).trim().to_string())
}
