//! What the tests of the binary share: starting `core-server serve`, a minimal HTTP exchange,
//! running a subcommand.

#![allow(dead_code)]

use std::{
    io::{BufRead, BufReader, Read, Write},
    net::TcpStream,
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

/// A running `core-server serve`, killed when dropped; its standard output is piped.
pub struct Server(pub Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `core-server serve` on a free port and returns it with its address. The read end of
/// its stderr is closed once the address is known.
pub fn serve(database_url: &str) -> (Server, String) {
    serve_with(database_url, &[])
}

/// Starts `core-server serve` with more arguments; see [`serve`].
pub fn serve_with(database_url: &str, arguments: &[&str]) -> (Server, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_core-server"))
        .args([
            "serve",
            "--bind",
            "127.0.0.1:0",
            "--database-url",
            database_url,
        ])
        .args(arguments)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let stderr = child.stderr.take().expect("stderr");
    let server = Server(child);
    let deadline = Instant::now() + Duration::from_secs(30);
    for line in BufReader::new(stderr).lines() {
        let line = line.expect("a line");
        if let Some(address) = line.split("listening on http://").nth(1) {
            return (server, address.trim().to_string());
        }
        assert!(Instant::now() < deadline, "no 'listening on' line");
    }
    panic!("the server exited before listening");
}

/// A minimal HTTP/1.1 exchange, so the test needs no client library.
pub fn exchange(address: &str, request: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(address).expect("connects");
    stream.write_all(request.as_bytes()).expect("writes");
    let mut answer = String::new();
    stream.read_to_string(&mut answer).expect("reads");
    let status = answer
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or(0);
    let body = answer
        .split_once("\r\n\r\n")
        .map(|(_, body)| body.to_string())
        .unwrap_or_default();
    (status, body)
}

/// Runs a `core-server` subcommand on a database.
pub fn core_server(args: &[&str], database_url: &str) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_core-server"))
        .args(args)
        .args(["--database-url", database_url])
        .output()
        .expect("the binary runs")
}
