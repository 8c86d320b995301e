//! What the chores that drive a running server share: a free loopback address, a process
//! stopped when dropped, waiting for it to listen, and core-server started on the demo catalogue
//! with its token.

use std::{
    io::{BufRead, BufReader, Read, Write},
    net::{TcpListener, TcpStream},
    path::Path,
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use anyhow::{Context, Result, bail};

/// A started process and the address it serves, stopped when dropped.
pub struct Running {
    /// The process.
    pub child: Child,
    /// Its `host:port`.
    pub address: String,
}

impl Running {
    /// Spawns `command`, which serves `address`.
    pub fn start(command: &mut Command, address: String) -> Result<Running> {
        let child = command.spawn().context("starting a server")?;
        Ok(Running { child, address })
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A loopback address with a port free now.
pub fn free_address() -> Result<String> {
    let listener = TcpListener::bind("127.0.0.1:0")?;
    Ok(listener.local_addr()?.to_string())
}

/// Waits up to a minute for a server to accept connections.
pub fn wait_listening(address: &str) -> Result<()> {
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(60) {
        if TcpStream::connect(address).is_ok() {
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    bail!("nothing listens on {address}")
}

/// Waits up to a minute for `GET /healthz` to answer 200.
pub fn wait_until_healthy(address: &str) -> Result<()> {
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(60) {
        if get(address, "/healthz").is_ok_and(|answer| answer.starts_with("HTTP/1.1 200")) {
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    bail!("core-server did not answer /healthz on {address} within a minute")
}

/// `GET path` on a server: the whole answer, head and body.
pub fn get(address: &str, path: &str) -> Result<String> {
    let mut stream = TcpStream::connect(address)?;
    let request = format!("GET {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes())?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer)?;
    Ok(answer)
}

/// Starts `serve --demo` of the core-server `command` runs (a binary, or `taskset` pinning one)
/// over the database at `database_url` (a fresh SQLite file, or a PostgreSQL schema the demo
/// made or will make); answers the server, once healthy, and the demo's token.
pub fn demo(command: &mut Command, database_url: &str) -> Result<(Running, String)> {
    let address = free_address()?;
    let mut server = Running::start(
        command
            .args(["serve", "--demo", "--bind", &address])
            .args(["--database-url", database_url])
            .env("CORE_LOG", "warn")
            // The chores send requests as fast as they are answered (Schemathesis, the load
            // benchmark); the rate limit has tests of its own.
            .env("CORE_RATE_LIMIT", "0")
            .stdout(Stdio::piped())
            .stderr(Stdio::null()),
        address,
    )?;
    let mut token = String::new();
    BufReader::new(server.child.stdout.take().context("the server's stdout")?)
        .read_line(&mut token)
        .context("reading the demo token")?;
    wait_until_healthy(&server.address)?;
    Ok((server, token.trim().to_string()))
}

/// Builds (debug) the binaries the chores run, core-server and core-conformance among them, with
/// the features `cargo test --workspace` resolves: every package of the workspace selected, and
/// dev-dependencies in play (`--examples` needs them). So once the tests are built this compiles
/// nothing, where `--bin core-server` alone would compile most dependencies again with the fewer
/// features that one package asks for.
pub fn build_binaries(root: &Path) -> Result<()> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    crate::python::status(
        Command::new(cargo)
            .args(["build", "--quiet", "--workspace", "--bins", "--examples"])
            .current_dir(root),
        "cargo build --workspace --bins --examples",
    )
}

/// Builds core-server (debug), empties `target/<name>`, and starts `serve --demo` over a SQLite
/// file there: the server, its token, and the folder, for the chores that drive a demo server.
pub fn built_demo(root: &Path, name: &str) -> Result<(Running, String, std::path::PathBuf)> {
    build_binaries(root)?;
    let folder = root.join("target").join(name);
    if folder.exists() {
        std::fs::remove_dir_all(&folder)?;
    }
    std::fs::create_dir_all(&folder)?;
    let (server, token) = demo(
        &mut Command::new(root.join("target/debug/core-server")),
        &format!("sqlite://{}", folder.join("core.db").display()),
    )?;
    Ok((server, token, folder))
}
