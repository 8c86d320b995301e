//! PostgreSQL stopped under a running server, then started again (D-37): requests are answered
//! 503 with `Retry-After` and the documented body within the database timeout, not 500 after
//! half a minute; the health check answers 503 within a second; once PostgreSQL is back the next
//! request succeeds.
//!
//! It stops the local cluster, so it runs only where `CORE_TEST_POSTGRES_CLUSTER` names one
//! (`<version> <name>`, as `pg_ctlcluster` takes them; `.ci/run` sets it) besides
//! `CORE_TEST_POSTGRES_URL`, and it is a test binary of its own: cargo runs test binaries one
//! after the other, so no other test uses PostgreSQL meanwhile. The cluster is started again
//! whatever happens.

mod support;

use std::{
    io::{Read, Write},
    net::TcpStream,
    process::Command,
    time::{Duration, Instant},
};

/// The cluster to stop and start: version and name.
fn cluster() -> Option<(String, String)> {
    let named = std::env::var("CORE_TEST_POSTGRES_CLUSTER").ok()?;
    let (version, name) = named.trim().split_once(' ')?;
    Some((version.to_string(), name.to_string()))
}

fn control(action: &str) {
    let Some((version, name)) = cluster() else {
        return;
    };
    let mut command = Command::new("pg_ctlcluster");
    command.args(["--skip-systemctl-redirect", &version, &name, action]);
    if action == "stop" {
        command.args(["-m", "fast"]);
    }
    let status = command.status().expect("pg_ctlcluster runs");
    assert!(status.success(), "pg_ctlcluster {action}: {status}");
}

/// Starts the cluster again when dropped, and waits until it answers.
struct Restart;

impl Drop for Restart {
    fn drop(&mut self) {
        let _ = std::panic::catch_unwind(|| control("start"));
        let waited = Instant::now();
        while waited.elapsed() < Duration::from_secs(30)
            && TcpStream::connect("127.0.0.1:5432").is_err()
        {
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

/// One request: its status, `Retry-After` and body, and how long it took.
fn request(address: &str, head: &str) -> (u16, Option<String>, String, Duration) {
    let started = Instant::now();
    let mut stream = TcpStream::connect(address).expect("connects");
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .expect("a timeout");
    stream.write_all(head.as_bytes()).expect("sent");
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or(0);
    let retry = head.lines().find_map(|line| {
        line.to_ascii_lowercase()
            .strip_prefix("retry-after: ")
            .map(str::to_string)
    });
    (status, retry, body.to_string(), started.elapsed())
}

#[tokio::test(flavor = "multi_thread")]
async fn postgres_stopped_under_the_server_is_503_then_the_server_recovers() {
    let (Ok(base), Some(_)) = (std::env::var("CORE_TEST_POSTGRES_URL"), cluster()) else {
        eprintln!(
            "skipped: CORE_TEST_POSTGRES_URL and CORE_TEST_POSTGRES_CLUSTER are needed to stop PostgreSQL"
        );
        return;
    };
    let url = core_server::testing::fresh_postgres_schema(&base)
        .await
        .expect("a fresh schema");
    let (server, address) = support::serve_with(&url, &["--demo", "--database-timeout", "2"]);
    let mut server = server;
    let mut token = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(server.0.stdout.take().expect("stdout")),
        &mut token,
    )
    .expect("the demo token");
    let body = r#"{"mode":"ALL"}"#;
    let locales = format!(
        "POST /api/core/v1/common/locales/retrieve HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        token.trim(),
        body.len()
    );
    let health = "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    assert_eq!(request(&address, &locales).0, 200);
    let restart = Restart;
    control("stop");
    let (status, retry, text, took) = request(&address, &locales);
    assert_eq!(status, 503, "{text}");
    assert_eq!(retry.as_deref(), Some("5"));
    assert!(text.contains(r#""value":"1016""#), "{text}");
    assert!(took < Duration::from_secs(5), "answered after {took:?}");
    // The health check's answer is reused for a second: ask once it has run out.
    std::thread::sleep(Duration::from_millis(1100));
    let (status, _, text, took) = request(&address, health);
    assert_eq!(status, 503, "{text}");
    assert!(took < Duration::from_secs(1), "answered after {took:?}");
    drop(restart);
    // Back: the next request (after the pool has found its way) succeeds.
    let back = Instant::now();
    loop {
        let (status, _, text, _) = request(&address, &locales);
        if status == 200 {
            break;
        }
        assert!(
            back.elapsed() < Duration::from_secs(20),
            "still {status} after PostgreSQL is back: {text}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    drop(server);
}
