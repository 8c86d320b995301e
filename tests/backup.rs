//! `core-server backup`: a consistent copy of an SQLite database taken while the server runs a
//! batch holds whole records only (the batch entirely or not at all), and serving the copy
//! restores the catalogue; an existing file is kept unless `--force`; PostgreSQL is refused with
//! the way to back it up.

mod support;

use std::{
    io::Write,
    net::TcpStream,
    time::{Duration, Instant},
};

use core_server::storage::Database;
use sqlx::Row;
use support::{BatchProbe, core_server, exchange, serve};

/// Items of a batch: the most one request may carry.
const ITEMS: usize = 1000;
/// Localized names of each keyword: an item is whole when all are stored.
const LOCALES: [&str; 2] = ["de_DE", "fr_FR"];

/// A batch creating `ITEMS` root keywords named `<prefix><n>`, each with localized names.
fn batch(prefix: &str) -> String {
    let kwd: Vec<serde_json::Value> = (0..ITEMS)
        .map(|n| {
            let mut itm = vec![serde_json::json!({"value": format!("{prefix}{n:04}")})];
            itm.extend(LOCALES.iter().map(
                |loc| serde_json::json!({"value": format!("{prefix}{n:04} {loc}"), "loc": loc}),
            ));
            serde_json::json!({"name": {"itm": itm}})
        })
        .collect();
    serde_json::json!({"kwds": {"kwd": kwd}}).to_string()
}

fn request(path: &str, token: &str, body: &str) -> String {
    format!(
        "POST {path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
}

/// Keywords stored, and how many of them lack a localized name.
async fn stored(url: &str) -> (usize, i64) {
    let database = Database::connect(url).await.expect("opens");
    // A keyword's localized names are rows of their own (its default name is on the keyword).
    let row = sqlx::query(
        "SELECT COUNT(*) AS keywords, \
         COALESCE(SUM(CASE WHEN (SELECT COUNT(*) FROM keyword_names n WHERE n.keyword_id = k.id) = $1 \
         THEN 0 ELSE 1 END), 0) AS incomplete FROM keywords k",
    )
    .bind(LOCALES.len() as i64)
    .fetch_one(database.reads())
    .await
    .expect("counts");
    let integrity: String = sqlx::query_scalar("PRAGMA integrity_check")
        .fetch_one(database.reads())
        .await
        .expect("an integrity check");
    assert_eq!(integrity, "ok");
    let counts = (
        row.try_get::<i64, _>("keywords").expect("a count") as usize,
        row.try_get("incomplete").expect("a count"),
    );
    database.close().await;
    counts
}

#[tokio::test]
async fn a_backup_taken_during_a_batch_restores_whole_records() {
    let folder = std::env::temp_dir().join(format!("core-server-backup-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    let url = format!("sqlite://{}/core.db", folder.display());
    let issued = core_server(
        &["token", "issue", "--user", "ops", "--role", "admin"],
        &url,
    );
    assert!(issued.status.success(), "{issued:?}");
    let token = String::from_utf8(issued.stdout)
        .expect("UTF-8")
        .trim()
        .to_string();
    let (server, address) = serve(&url);
    let persist = "/api/core/v1/common/keywords/persist";
    let (status, body) = exchange(&address, &request(persist, &token, &batch("A")));
    assert_eq!(status, 200, "{body}");
    // A second batch, and the backup while its transaction is open.
    let mut probe = BatchProbe::open(&url).await;
    let mut stream = TcpStream::connect(&address).expect("connects");
    stream
        .write_all(request(persist, &token, &batch("B")).as_bytes())
        .expect("sends the batch");
    let copy = folder.join("copy.db");
    let deadline = Instant::now() + Duration::from_secs(60);
    let during = loop {
        if probe.well_into_a_batch().await {
            break true;
        }
        if Instant::now() > deadline {
            break false;
        }
        tokio::time::sleep(Duration::from_micros(200)).await;
    };
    let backup = core_server(&["backup", &copy.to_string_lossy()], &url);
    assert!(backup.status.success(), "{backup:?}");
    eprintln!("backed up while the batch ran: {during}");
    probe.close().await;
    drop(stream);
    let copied = format!("sqlite://{}", copy.display());
    let (keywords, incomplete) = stored(&copied).await;
    assert_eq!(incomplete, 0, "every record whole");
    assert!(
        keywords == ITEMS || keywords == 2 * ITEMS,
        "{keywords}: batches whole"
    );
    // An existing file stays unless --force.
    let before = std::fs::read(&copy).expect("the copy");
    let again = core_server(&["backup", &copy.to_string_lossy()], &url);
    assert!(!again.status.success());
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("--force"),
        "{again:?}"
    );
    assert_eq!(std::fs::read(&copy).expect("the copy"), before);
    let forced = core_server(&["backup", "--force", &copy.to_string_lossy()], &url);
    assert!(forced.status.success(), "{forced:?}");
    assert_eq!(
        stored(&copied).await,
        (2 * ITEMS, 0),
        "the batch has ended by now"
    );
    drop(server);
    // Restored: the copy served answers the catalogue.
    let (_restored, address) = serve(&copied);
    let retrieve = request(
        "/api/core/v1/common/keywords/retrieve",
        &token,
        r#"{"path": "/"}"#,
    );
    let (status, body) = exchange(&address, &retrieve);
    assert_eq!(status, 200, "{body}");
    let body: serde_json::Value = serde_json::from_str(&body).expect("JSON");
    assert_eq!(
        body["kwds"]["kwd"].as_array().map(Vec::len),
        Some(2 * ITEMS)
    );
    let _ = std::fs::remove_dir_all(&folder);
}

#[test]
fn postgres_is_backed_up_with_its_own_tools() {
    let Ok(url) = std::env::var("CORE_TEST_POSTGRES_URL") else {
        eprintln!("skipped: CORE_TEST_POSTGRES_URL is not set");
        return;
    };
    let file = std::env::temp_dir().join(format!("core-server-pg-backup-{}", std::process::id()));
    let refused = core_server(&["backup", &file.to_string_lossy()], &url);
    assert!(!refused.status.success());
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("pg_dump"),
        "{refused:?}"
    );
    assert!(!file.exists());
}
