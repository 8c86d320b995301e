//! `cargo xtask schemathesis [ST-ARGS…]`: runs Schemathesis (PyPI) with `--checks all` and the
//! phases examples, coverage and fuzzing against a core-server this chore builds and starts on the
//! demo catalogue over a fresh SQLite file, with the project's hooks (`xtask/schemathesis/`: JSON
//! request bodies only, see there why). It tests every operation of the document; further
//! arguments go to `st run` as they are (`--include-tag CM` narrows the run to one module).

use std::{
    io::{BufRead, BufReader, Read, Write},
    net::{TcpListener, TcpStream},
    path::Path,
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use anyhow::{Context, Result, bail};

use crate::python;

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
    let address = free_address()?;
    let mut server = Server(
        Command::new(root.join("target/debug/core-server"))
            .args(["serve", "--demo", "--bind", &address])
            .arg("--database-url")
            .arg(format!("sqlite://{}", folder.join("core.db").display()))
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .context("starting core-server")?,
    );
    let mut token = String::new();
    BufReader::new(server.0.stdout.take().context("the server's stdout")?)
        .read_line(&mut token)
        .context("reading the demo token")?;
    wait_until_healthy(&address)?;
    let base = format!("http://{address}");
    let mut command = Command::new(st);
    command
        .current_dir(&folder)
        .env("SCHEMATHESIS_HOOKS", "core_hooks")
        .env("PYTHONPATH", root.join("xtask/schemathesis"))
        .args(["run", &format!("{base}/openapi.yaml"), "--url", &base])
        .args(["-H", &format!("Authorization: Bearer {}", token.trim())])
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

/// The server process, stopped when dropped.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A loopback address with a port free now.
fn free_address() -> Result<String> {
    let listener = TcpListener::bind("127.0.0.1:0")?;
    Ok(listener.local_addr()?.to_string())
}

/// Waits up to a minute for `GET /healthz` to answer 200.
fn wait_until_healthy(address: &str) -> Result<()> {
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(60) {
        if let Ok(mut stream) = TcpStream::connect(address) {
            let request =
                format!("GET /healthz HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n");
            let mut answer = String::new();
            if stream.write_all(request.as_bytes()).is_ok()
                && stream.read_to_string(&mut answer).is_ok()
                && answer.starts_with("HTTP/1.1 200")
            {
                return Ok(());
            }
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    bail!("core-server did not answer /healthz on {address} within a minute")
}
