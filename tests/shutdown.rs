//! A server told to stop (SIGTERM) while a batch runs answers the batch in full, then closes its
//! database: on SQLite the write-ahead log is folded into the file and its `-wal` and `-shm`
//! files are gone once the process has exited (D-37).

mod support;

use std::{
    io::{Read, Write},
    net::TcpStream,
    path::Path,
    process::Command,
    time::{Duration, Instant},
};

use core_server::storage::Database;
use support::{BatchProbe, core_server, serve};

/// Items of the batch: the most one request may carry.
const ITEMS: usize = 1000;

fn batch() -> String {
    let kwd: Vec<serde_json::Value> = (0..ITEMS)
        .map(|n| {
            serde_json::json!({"name": {"itm": [
                {"value": format!("K{n:04}")},
                {"value": format!("K{n:04} de"), "loc": "de_DE"}
            ]}})
        })
        .collect();
    serde_json::json!({"kwds": {"kwd": kwd}}).to_string()
}

async fn keywords(url: &str) -> usize {
    let database = Database::connect(url).await.expect("opens");
    let count: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM keywords")
        .fetch_one(database.reads())
        .await
        .expect("a count");
    // Closed at once: a connection left open would keep the write-ahead log alive.
    database.close().await;
    count as usize
}

/// Sends a batch, stops the server with SIGTERM while it runs, and checks the answer
/// and the files left behind; answers `false` when the batch completed before the signal.
async fn terminate_during_batch(folder: &Path) -> bool {
    let _ = std::fs::remove_dir_all(folder);
    let url = format!("sqlite://{}/core.db", folder.display());
    let token = core_server(
        &["token", "issue", "--user", "ops", "--role", "admin"],
        &url,
    );
    assert!(token.status.success());
    let token = String::from_utf8(token.stdout)
        .expect("UTF-8")
        .trim()
        .to_string();
    let (mut server, address) = serve(&url);
    let body = batch();
    let mut stream = TcpStream::connect(&address).expect("connects");
    write!(
        stream,
        "POST /api/core/v1/common/keywords/persist HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n\
         Content-Type: application/json\r\nAccept: application/json\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    )
    .expect("sends the batch");
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut probe = BatchProbe::open(&url).await;
    let during = loop {
        if probe.well_into_a_batch().await {
            break true;
        }
        if keywords(&url).await == ITEMS {
            break false;
        }
        assert!(Instant::now() < deadline, "the batch never started");
        tokio::time::sleep(Duration::from_millis(1)).await;
    };
    // Closed before the server stops, so that only the server's connections hold the log.
    probe.close().await;
    let signalled = Command::new("sh")
        .arg("-c")
        .arg(format!("kill -TERM {}", server.0.id()))
        .status()
        .expect("sh runs");
    assert!(signalled.success(), "SIGTERM is sent");
    let mut answer = String::new();
    stream
        .read_to_string(&mut answer)
        .expect("the answer is read");
    let status = server.0.wait().expect("the server exits");
    assert!(
        status.success(),
        "a stopped server exits with success: {status}"
    );
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    let (_, json) = answer.split_once("\r\n\r\n").expect("a body");
    let answer: serde_json::Value = serde_json::from_str(json).expect("JSON");
    let records = answer["responses"]["response"].as_array().expect("records");
    assert_eq!(records.len(), ITEMS, "one record per item");
    assert!(
        records.iter().all(|record| record["status"] == "SUCCESS"),
        "every item is stored"
    );
    for leftover in ["core.db-wal", "core.db-shm"] {
        assert!(
            !folder.join(leftover).exists(),
            "{leftover} is left behind after a graceful stop"
        );
    }
    assert_eq!(keywords(&url).await, ITEMS, "every item is in the file");
    during
}

#[tokio::test]
async fn sigterm_lets_a_running_batch_finish_and_leaves_no_write_ahead_log() {
    let folder = std::env::temp_dir().join(format!("core-server-term-{}", std::process::id()));
    // A machine fast enough to finish the batch before the signal lands gets more tries.
    let mut during = false;
    for _ in 0..20 {
        if terminate_during_batch(&folder).await {
            during = true;
            break;
        }
    }
    let _ = std::fs::remove_dir_all(&folder);
    assert!(during, "the batch always completed before SIGTERM was sent");
}
