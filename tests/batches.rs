//! Batches survive a killed server: a batch is one transaction, each item in it stored whole or
//! not at all, so after a `SIGKILL` in the middle of a large batch nothing of it is stored (the
//! client got no answer), the restarted server serves exactly that, and the batch sent again is
//! stored whole, every item with all its names (D-14). On SQLite always, on PostgreSQL too when
//! `CORE_TEST_POSTGRES_URL` is set.

mod support;

use std::{
    io::Write,
    net::TcpStream,
    time::{Duration, Instant},
};

use core_server::storage::Database;
use sqlx::Row;
use support::{BatchProbe, core_server, exchange, serve};

/// Items of the batch: the most one request may carry.
const ITEMS: usize = 1000;
/// Localized names of each keyword: an item is complete when all are stored.
const LOCALES: [&str; 3] = ["de_DE", "fr_FR", "it_IT"];

fn batch() -> String {
    let kwd: Vec<serde_json::Value> = (0..ITEMS)
        .map(|n| {
            let mut itm = vec![serde_json::json!({"value": format!("K{n:04}")})];
            itm.extend(
                LOCALES
                    .iter()
                    .map(|loc| serde_json::json!({"value": format!("K{n:04} {loc}"), "loc": loc})),
            );
            serde_json::json!({"name": {"itm": itm}})
        })
        .collect();
    serde_json::json!({"kwds": {"kwd": kwd}}).to_string()
}

fn request(path: &str, token: &str, body: &str) -> String {
    format!(
        "POST {path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
}

/// Keywords stored, and how many of them lack a localized name.
async fn stored(database: &Database) -> (usize, i64) {
    let row = sqlx::query(
        "SELECT COUNT(*) AS keywords, \
         COALESCE(SUM(CASE WHEN (SELECT COUNT(*) FROM keyword_names n WHERE n.keyword_id = k.id) = 3 \
         THEN 0 ELSE 1 END), 0) AS incomplete FROM keywords k",
    )
    .fetch_one(database.reads())
    .await
    .expect("counts");
    let keywords: i64 = row.try_get("keywords").expect("a count");
    (
        keywords as usize,
        row.try_get("incomplete").expect("a count"),
    )
}

/// Kills the server while the batch's transaction is open; answers `false` when the batch
/// completed before the kill could land.
async fn kill_during_batch(url: &str) -> bool {
    let token = core_server(&["token", "issue", "--user", "ops", "--role", "admin"], url);
    assert!(
        token.status.success(),
        "{}",
        String::from_utf8_lossy(&token.stderr)
    );
    let token = String::from_utf8(token.stdout)
        .expect("UTF-8")
        .trim()
        .to_string();
    let database = Database::connect(url).await.expect("opens");
    let mut probe = BatchProbe::open(url).await;
    let (mut server, address) = serve(url);
    let mut stream = TcpStream::connect(&address).expect("connects");
    stream
        .write_all(request("/api/core/v1/common/keywords/persist", &token, &batch()).as_bytes())
        .expect("sends the batch");
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if probe.well_into_a_batch().await {
            break;
        }
        if stored(&database).await.0 == ITEMS {
            probe.close().await;
            server.0.kill().expect("kills the server");
            server.0.wait().expect("the server is gone");
            return false;
        }
        assert!(Instant::now() < deadline, "the batch never started");
        tokio::time::sleep(Duration::from_micros(200)).await;
    }
    server.0.kill().expect("kills the server");
    server.0.wait().expect("the server is gone");
    drop(stream);
    probe.close().await;
    let (count, _) = stored(&database).await;
    assert_eq!(
        count, 0,
        "nothing of a batch killed before its commit is stored"
    );

    // Restarted, the server serves exactly that; the batch sent again is stored whole.
    let (_server, address) = serve(url);
    let retrieve = || {
        let (status, body) = exchange(
            &address,
            &request(
                "/api/core/v1/common/keywords/retrieve",
                &token,
                r#"{"path": "/"}"#,
            ),
        );
        assert_eq!(status, 200, "{body}");
        let body: serde_json::Value = serde_json::from_str(&body).expect("JSON");
        body["kwds"]["kwd"].as_array().cloned().unwrap_or_default()
    };
    assert!(retrieve().is_empty());
    let (status, body) = exchange(
        &address,
        &request("/api/core/v1/common/keywords/persist", &token, &batch()),
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(stored(&database).await, (ITEMS, 0), "every item whole");
    let kwds = retrieve();
    assert_eq!(kwds.len(), ITEMS);
    assert!(
        kwds.iter()
            .all(|kwd| kwd["name"]["itm"].as_array().map(Vec::len) == Some(4))
    );
    database.close().await;
    true
}

async fn nothing_of_a_killed_batch_is_stored(url: impl Fn() -> String) {
    // A machine fast enough to finish the batch before the kill lands gets more tries.
    for _ in 0..20 {
        if kill_during_batch(&url()).await {
            eprintln!("killed during a batch of {ITEMS} items: none stored; sent again, all whole");
            return;
        }
    }
    panic!("the batch always completed before the server was killed");
}

#[tokio::test]
async fn sqlite_stores_nothing_of_a_batch_killed_before_its_commit() {
    let folder = std::env::temp_dir().join(format!("core-server-kill-{}", std::process::id()));
    let attempt = std::sync::atomic::AtomicU32::new(0);
    nothing_of_a_killed_batch_is_stored(|| {
        let n = attempt.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let _ = std::fs::remove_dir_all(folder.join(n.to_string()));
        format!("sqlite://{}/{n}/core.db", folder.display())
    })
    .await;
    let _ = std::fs::remove_dir_all(&folder);
}

#[tokio::test]
async fn postgres_stores_nothing_of_a_batch_killed_before_its_commit() {
    let Ok(base) = std::env::var("CORE_TEST_POSTGRES_URL") else {
        eprintln!("CORE_TEST_POSTGRES_URL is not set: the kill test ran on SQLite only");
        return;
    };
    let mut urls = Vec::new();
    for _ in 0..20 {
        urls.push(
            core_server::testing::fresh_postgres_schema(&base)
                .await
                .expect("a fresh schema"),
        );
    }
    let next = std::sync::Mutex::new(urls.into_iter());
    nothing_of_a_killed_batch_is_stored(|| {
        next.lock()
            .ok()
            .and_then(|mut urls| urls.next())
            .expect("a schema per try")
    })
    .await;
}
