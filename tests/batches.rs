//! Batches survive a killed server: each item is written in its own transaction, so after a
//! `SIGKILL` in the middle of a large batch every item is either fully present or absent, and the
//! restarted server serves exactly what was committed (D-14). On SQLite always, on PostgreSQL too
//! when `CORE_TEST_POSTGRES_URL` is set.

mod support;

use std::{
    io::Write,
    net::TcpStream,
    time::{Duration, Instant},
};

use core_server::storage::Database;
use sqlx::Row;
use support::{core_server, exchange, serve};

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
    .fetch_one(database.pool())
    .await
    .expect("counts");
    let keywords: i64 = row.try_get("keywords").expect("a count");
    (
        keywords as usize,
        row.try_get("incomplete").expect("a count"),
    )
}

/// Kills the server once part of the batch is stored; answers how many were stored by then, or
/// `None` when the batch completed first.
async fn kill_during_batch(url: &str) -> Option<usize> {
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
    let (mut server, address) = serve(url);
    let mut stream = TcpStream::connect(&address).expect("connects");
    stream
        .write_all(request("/api/core/v1/common/keywords/persist", &token, &batch()).as_bytes())
        .expect("sends the batch");
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let (count, _) = stored(&database).await;
        if count >= ITEMS / 4 {
            break;
        }
        assert!(Instant::now() < deadline, "the batch never started");
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    server.0.kill().expect("kills the server");
    server.0.wait().expect("the server is gone");
    drop(stream);
    let (count, incomplete) = stored(&database).await;
    assert_eq!(incomplete, 0, "every stored keyword has all its names");
    if count == ITEMS {
        return None;
    }
    // Items are processed in order: what is stored is the batch's first `count` items.
    let names: Vec<String> = sqlx::query("SELECT name FROM keywords ORDER BY name")
        .fetch_all(database.pool())
        .await
        .expect("names")
        .iter()
        .map(|row| row.try_get("name").expect("a name"))
        .collect();
    let expected: Vec<String> = (0..count).map(|n| format!("K{n:04}")).collect();
    assert_eq!(names, expected);
    database.pool().close().await;

    // Restarted, the server serves exactly what was stored.
    let (_server, address) = serve(url);
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
    let kwds = body["kwds"]["kwd"].as_array().expect("keywords");
    assert_eq!(kwds.len(), count);
    assert!(
        kwds.iter()
            .all(|kwd| kwd["name"]["itm"].as_array().map(Vec::len) == Some(4))
    );
    Some(count)
}

async fn each_item_whole_after_a_kill(url: impl Fn() -> String) {
    // A machine fast enough to finish the batch before the kill lands gets more tries.
    for _ in 0..5 {
        if let Some(count) = kill_during_batch(&url()).await {
            eprintln!("killed after {count} of {ITEMS} items: each stored item is whole");
            return;
        }
    }
    panic!("the batch always completed before the server was killed");
}

#[tokio::test]
async fn sqlite_keeps_each_item_whole_when_the_server_is_killed() {
    let folder = std::env::temp_dir().join(format!("core-server-kill-{}", std::process::id()));
    let attempt = std::sync::atomic::AtomicU32::new(0);
    each_item_whole_after_a_kill(|| {
        let n = attempt.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let _ = std::fs::remove_dir_all(folder.join(n.to_string()));
        format!("sqlite://{}/{n}/core.db", folder.display())
    })
    .await;
    let _ = std::fs::remove_dir_all(&folder);
}

#[tokio::test]
async fn postgres_keeps_each_item_whole_when_the_server_is_killed() {
    let Ok(base) = std::env::var("CORE_TEST_POSTGRES_URL") else {
        eprintln!("CORE_TEST_POSTGRES_URL is not set: the kill test ran on SQLite only");
        return;
    };
    let mut urls = Vec::new();
    for _ in 0..5 {
        urls.push(
            core_server::testing::fresh_postgres_schema(&base)
                .await
                .expect("a fresh schema"),
        );
    }
    let next = std::sync::Mutex::new(urls.into_iter());
    each_item_whole_after_a_kill(|| {
        next.lock()
            .ok()
            .and_then(|mut urls| urls.next())
            .expect("a schema per try")
    })
    .await;
}
