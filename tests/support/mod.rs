//! What the tests of the binary share: starting `core-server serve`, a minimal HTTP exchange,
//! running a subcommand, watching for a batch's open transaction.

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

/// The binary the tests run: cargo's build, or the one `CORE_TEST_BINARY` names (to show that a
/// test fails on an older build).
pub fn binary() -> String {
    std::env::var("CORE_TEST_BINARY").unwrap_or_else(|_| env!("CARGO_BIN_EXE_core-server").into())
}

/// Starts `core-server serve` with more arguments; see [`serve`]. The rate limit is off unless
/// the arguments set it (tests send requests as fast as they are answered).
pub fn serve_with(database_url: &str, arguments: &[&str]) -> (Server, String) {
    let mut child = Command::new(binary())
        .env("CORE_RATE_LIMIT", "0")
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

/// A minimal HTTP/1.1 exchange, so the test needs no client library: the status and the body
/// (a chunked one put together; a streamed answer is chunked, D-59).
pub fn exchange(address: &str, request: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(address).expect("connects");
    stream.write_all(request.as_bytes()).expect("writes");
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).expect("reads");
    let answer = String::from_utf8(answer).expect("a UTF-8 answer");
    let status = answer
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or(0);
    let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
    if !head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        return (status, body.to_string());
    }
    let (payload, closed) = dechunk(body.as_bytes());
    assert!(closed, "a chunked answer ends with its closing chunk");
    (status, String::from_utf8(payload).expect("a UTF-8 body"))
}

/// The payload of a chunked body, and whether it ended with the closing chunk.
pub fn dechunk(mut body: &[u8]) -> (Vec<u8>, bool) {
    let mut payload = Vec::new();
    loop {
        let Some(line) = body.windows(2).position(|window| window == b"\r\n") else {
            return (payload, false);
        };
        let size = std::str::from_utf8(&body[..line])
            .ok()
            .and_then(|size| usize::from_str_radix(size.trim(), 16).ok());
        let Some(size) = size else {
            return (payload, false);
        };
        if size == 0 {
            return (payload, &body[line..] == b"\r\n\r\n");
        }
        let start = line + 2;
        if body.len() < start + size + 2 {
            payload.extend_from_slice(&body[start.min(body.len())..]);
            return (payload, false);
        }
        payload.extend_from_slice(&body[start..start + size]);
        body = &body[start + size + 2..];
    }
}

/// Runs a `core-server` subcommand on a database.
pub fn core_server(args: &[&str], database_url: &str) -> std::process::Output {
    Command::new(binary())
        .args(args)
        .args(["--database-url", database_url])
        .output()
        .expect("the binary runs")
}

/// Watches a database for a batch's open transaction, from a connection of its own: a batch is
/// one transaction (D-14), so what it stores is invisible until it ends.
pub struct BatchProbe {
    database: core_server::storage::Database,
    connection: sqlx::pool::PoolConnection<sqlx::Any>,
    sqlite: bool,
}

impl BatchProbe {
    /// Connects to the database at `url`.
    pub async fn open(url: &str) -> BatchProbe {
        let database = core_server::storage::Database::connect(url)
            .await
            .expect("opens");
        let mut connection = database.writes().acquire().await.expect("a connection");
        let sqlite = url.starts_with("sqlite");
        if sqlite {
            sqlx::query("PRAGMA busy_timeout = 0")
                .execute(&mut *connection)
                .await
                .expect("the probe does not wait");
        }
        BatchProbe {
            database,
            connection,
            sqlite,
        }
    }

    /// Whether another connection holds written, uncommitted work. On SQLite the write lock is
    /// taken (`BEGIN IMMEDIATE` without waiting fails); on PostgreSQL another backend of the
    /// database has a transaction id.
    pub async fn running(&mut self) -> bool {
        if self.sqlite {
            match sqlx::query("BEGIN IMMEDIATE")
                .execute(&mut *self.connection)
                .await
            {
                Ok(_) => {
                    sqlx::query("ROLLBACK")
                        .execute(&mut *self.connection)
                        .await
                        .expect("rolls back the probe");
                    false
                }
                Err(_) => true,
            }
        } else {
            let writing: i64 = sqlx::query_scalar(
                "SELECT COUNT(*) FROM pg_stat_activity WHERE datname = current_database() \
                 AND pid <> pg_backend_pid() AND backend_xid IS NOT NULL",
            )
            .fetch_one(&mut *self.connection)
            .await
            .expect("the activity");
            writing > 0
        }
    }

    /// Running, and still running a moment later (5 ms: a 1,000-item batch takes some tens of
    /// milliseconds since items share savepoints): well into a batch, when a design that
    /// committed item by item would have stored some of it.
    pub async fn well_into_a_batch(&mut self) -> bool {
        if !self.running().await {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
        self.running().await
    }

    /// Closes the probe's connections (an open SQLite connection keeps the write-ahead log).
    pub async fn close(self) {
        drop(self.connection);
        self.database.close().await;
    }
}
