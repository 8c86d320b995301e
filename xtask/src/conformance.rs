//! `cargo xtask conformance`: the conformance runner against core-server as an operator would
//! run it, on SQLite and (when `CORE_TEST_POSTGRES_URL` is set) PostgreSQL: the fixture printed
//! by `core-conformance fixture` and loaded with `core-server import`, tokens issued with
//! `core-server token issue`, `serve`, then `core-conformance` with JUnit output under
//! `target/xtask-conformance/`, every XML body held to the XML Schema with xmllint (Debian's,
//! installed when missing; without it the chore skips that part, except under `CI=true`). On PostgreSQL the database is used as it is, as a shared staging
//! server would be: the checks name what they write by run, so runs can follow one another.

use std::{
    path::Path,
    process::{Command, Stdio},
};

use anyhow::{Context, Result, bail};

use crate::{
    debian::XMLLINT,
    python::status,
    server::{Running, free_address, wait_until_healthy},
};

/// Runs the chore.
pub fn run(root: &Path) -> Result<()> {
    crate::server::build_binaries(root)?;
    // Every XML body the checks exchange is held to the XML Schema where xmllint can be had.
    let xmllint = XMLLINT.installed_or_skip("conformance: the XML Schema checks")?;
    let folder = root.join("target/xtask-conformance");
    if folder.exists() {
        std::fs::remove_dir_all(&folder)?;
    }
    std::fs::create_dir_all(&folder)?;
    let server = root.join("target/debug/core-server");
    let runner = root.join("target/debug/core-conformance");
    let fixture = folder.join("fixture.json");
    let printed = Command::new(&runner)
        .arg("fixture")
        .output()
        .context("core-conformance fixture")?;
    if !printed.status.success() {
        bail!("core-conformance fixture failed ({})", printed.status);
    }
    std::fs::write(&fixture, &printed.stdout)?;
    let mut backends = vec![(
        "sqlite",
        format!("sqlite://{}", folder.join("core.db").display()),
    )];
    match std::env::var("CORE_TEST_POSTGRES_URL") {
        Ok(url) => backends.push(("postgres", url)),
        Err(_) => {
            eprintln!("xtask: conformance on SQLite only (CORE_TEST_POSTGRES_URL is not set)")
        }
    }
    for (name, url) in backends {
        eprintln!("xtask: conformance of core-server on {name}");
        status(
            Command::new(&server)
                .arg("import")
                .arg(&fixture)
                .args(["--database-url", &url])
                .stdout(Stdio::null()),
            "core-server import (the fixture)",
        )?;
        let token = issue(&server, &url, "core-conformance-admin", "admin")?;
        let limited = issue(
            &server,
            &url,
            "core-conformance",
            "core-conformance-limited",
        )?;
        let address = free_address()?;
        let _running = Running::start(
            Command::new(&server)
                .args(["serve", "--bind", &address, "--database-url", &url])
                .env("CORE_LOG", "warn")
                .stdout(Stdio::null()),
            address.clone(),
        )?;
        wait_until_healthy(&address)?;
        let junit = folder.join(format!("{name}.junit.xml"));
        let mut command = Command::new(&runner);
        command
            .args(["--base-url", &format!("http://{address}")])
            .args(["--token", &token, "--limited-token", &limited])
            // The server keeps its default rate limit: the check of 429 runs.
            .arg("--rate-limited")
            .arg("--junit")
            .arg(&junit);
        match &xmllint {
            Some(xmllint) => command
                .args(["--xml-schema", "required"])
                .env("XMLLINT", xmllint),
            None => command.args(["--xml-schema", "off"]),
        };
        match glossary_id(name, &url) {
            Some(id) => command.args(["--glossary-id", &id]),
            None => {
                eprintln!(
                    "xtask: the id of CF-GL-2 is unknown here (no psql): copy and move are skipped"
                );
                &mut command
            }
        };
        let outcome = status(&mut command, "core-conformance");
        for user in ["core-conformance-admin", "core-conformance"] {
            status(
                Command::new(&server)
                    .args(["token", "revoke", "--user", user, "--database-url", &url])
                    .stdout(Stdio::null()),
                "core-server token revoke",
            )?;
        }
        outcome?;
        eprintln!("xtask: JUnit report: {}", junit.display());
    }
    Ok(())
}

/// The id of the fixture's glossary `CF-GL-2`, which no operation reveals: on the fresh SQLite
/// file this chore made, the fixture's second glossary is the second row (2); on PostgreSQL it is
/// asked of `psql` when installed.
fn glossary_id(backend: &str, url: &str) -> Option<String> {
    if backend == "sqlite" {
        return Some("2".into());
    }
    let output = Command::new("psql")
        .args([
            url,
            "-Atc",
            "SELECT id FROM glossaries WHERE tid = 'CF-GL-2'",
        ])
        .output()
        .ok()?;
    let id = String::from_utf8_lossy(&output.stdout).trim().to_string();
    (output.status.success() && !id.is_empty()).then_some(id)
}

/// Issues a token of one role with `core-server token issue`.
fn issue(server: &Path, url: &str, user: &str, role: &str) -> Result<String> {
    let output = Command::new(server)
        .args([
            "token",
            "issue",
            "--user",
            user,
            "--role",
            role,
            "--database-url",
            url,
        ])
        .stderr(Stdio::inherit())
        .output()
        .context("core-server token issue")?;
    if !output.status.success() {
        bail!("core-server token issue failed ({})", output.status);
    }
    Ok(String::from_utf8_lossy(&output.stdout).trim().to_string())
}
