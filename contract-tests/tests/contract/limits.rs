//! The bounds of D-37 as a client meets them: the rate limit (429), a database that does not
//! answer in time (503) or has no room left (507), and the bounds of lists inside an item (400)
//! and of what an answer holds.

use contract_tests::{TestServer, exchange::records, issue_item};
use core_api::operations::{
    CHANNELS_PERSIST, KEYWORDS_PERSIST, KEYWORDS_RETRIEVE, LOCALES_RETRIEVE,
};
use core_server::settings::RateLimit;
use serde_json::{Value, json};

/// A caller beyond its burst gets 429 with `Retry-After` and the documented body; another
/// token, and the health check, are not held back; a request without a valid token is counted
/// by its address.
async fn a_caller_beyond_the_rate_limit_gets_429() {
    let server = TestServer::start_with(|settings| {
        settings.rate_limit = RateLimit {
            per_second: 1,
            burst: 3,
        };
    })
    .await;
    let locales = || server.call(&LOCALES_RETRIEVE).json(&json!({"mode": "ALL"}));
    for _ in 0..3 {
        assert_eq!(locales().send().await.status, 200);
    }
    let refused = locales().send().await;
    assert_eq!(refused.status, 429, "{}", refused.text);
    let retry = refused
        .headers
        .get("retry-after")
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse::<u64>().ok());
    assert_eq!(retry, Some(1));
    let body = refused.json();
    assert_eq!(body["description"], "Too many requests");
    assert_eq!(issue_item(&body, "code"), Some("1015"));
    assert_eq!(
        issue_item(&body, "errorMessage"),
        Some("this caller sent more than 1 requests a second; retry in 1 s")
    );
    // Another caller has a limit of its own.
    let other = core_server::auth::issue(&server.database, "other", &["admin".to_string()])
        .await
        .expect("a token");
    assert_eq!(locales().token(&other).send().await.status, 200);
    // Requests without a token count for the address: refused as unauthorized, then limited.
    let statuses: Vec<u16> = futures_statuses(&server, 5).await;
    assert_eq!(statuses[..3], [401, 401, 401], "{statuses:?}");
    assert_eq!(statuses[3..], [429, 429], "{statuses:?}");
    let health = server
        .client()
        .get(server.url("/healthz"))
        .send()
        .await
        .expect("an answer");
    assert_eq!(health.status().as_u16(), 200);
    server.stop().await;
}

/// The statuses of `count` locales retrieves sent one after the other without a token.
async fn futures_statuses(server: &TestServer, count: usize) -> Vec<u16> {
    let mut statuses = Vec::new();
    for _ in 0..count {
        let answer = server
            .call(&LOCALES_RETRIEVE)
            .authorization(None)
            .json(&json!({"mode": "ALL"}))
            .send()
            .await;
        statuses.push(answer.status);
    }
    statuses
}

/// The root keywords, read (and answered 200) whatever the database is doing.
async fn roots(server: &TestServer) -> Value {
    let read = server
        .call(&KEYWORDS_RETRIEVE)
        .json(&json!({"path": "/"}))
        .send()
        .await;
    assert_eq!(read.status, 200, "{}", read.text);
    read.json()["kwds"]["kwd"].clone()
}

/// An empty folder for an SQLite file of a test, and the file's URL.
fn sqlite_file(test: &str) -> (std::path::PathBuf, String) {
    let folder = std::env::temp_dir().join(format!("core-limits-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    let url = format!("sqlite://{}/core.db", folder.display());
    (folder, url)
}

/// While another process holds SQLite's write lock longer than the database timeout, reads are
/// answered at once and a write is answered 503 with `Retry-After: 5`, nothing of it saved.
async fn a_write_that_waits_too_long_for_the_database_gets_503_and_reads_go_on() {
    let (folder, url) = sqlite_file("lock");
    let server = TestServer::start_on_with(&url, |settings| {
        settings.database_timeout = std::time::Duration::from_secs(1);
    })
    .await;
    // Another process: its own connection to the file, holding the write lock.
    let other = core_server::storage::Database::connect(&url)
        .await
        .expect("a second connection");
    let holding = other.write().await.expect("the write lock");
    roots(&server).await;
    let write = server
        .call(&KEYWORDS_PERSIST)
        .json(&json!({"kwds": {"kwd": [{"name": {"itm": [{"value": "Waiting"}]}}]}}))
        .send()
        .await;
    assert_eq!(write.status, 503, "{}", write.text);
    assert_eq!(
        write
            .headers
            .get("retry-after")
            .and_then(|value| value.to_str().ok()),
        Some("5")
    );
    assert_eq!(issue_item(&write.json(), "code"), Some("1016"));
    drop(holding);
    other.close().await;
    assert_eq!(
        roots(&server).await,
        json!([]),
        "nothing of the write was saved"
    );
    server.stop().await;
    let _ = std::fs::remove_dir_all(&folder);
}

/// A database without room to write answers 507 (code 1017) and keeps nothing of the request;
/// reads go on.
async fn a_full_database_is_507_and_reads_go_on() {
    let (folder, url) = sqlite_file("full");
    // The file as the schema leaves it, then a server that may not grow it by more than a few
    // pages: a full disk.
    let pages: i64 = {
        let database = core_server::storage::Database::connect(&url)
            .await
            .expect("the database");
        let pages = sqlx::query_scalar("PRAGMA page_count")
            .fetch_one(database.writes())
            .await
            .expect("a page count");
        database.close().await;
        pages
    };
    let server = TestServer::start_on_with(&url, |settings| {
        settings.sqlite_max_pages = Some(pages as u64 + 2);
    })
    .await;
    let names: Vec<Value> = (0..500)
        .map(|index| json!({"loc": format!("l{index}"), "value": "x".repeat(200)}))
        .collect();
    let kwd = |name: usize| {
        let mut itm = vec![json!({"value": format!("Full{name}")})];
        itm.extend(names.iter().cloned());
        json!({"name": {"itm": itm}})
    };
    let kwds: Vec<Value> = (0..20).map(kwd).collect();
    let full = server
        .call(&KEYWORDS_PERSIST)
        .json(&json!({"kwds": {"kwd": kwds}}))
        .send()
        .await;
    assert_eq!(full.status, 507, "{}", full.text);
    let body = full.json();
    assert_eq!(body["description"], "Insufficient storage");
    assert_eq!(issue_item(&body, "code"), Some("1017"));
    assert_eq!(roots(&server).await, json!([]), "nothing was saved");
    server.stop().await;
    let _ = std::fs::remove_dir_all(&folder);
}

/// A list inside an item longer than its `maxItems` is refused with 400 naming its path; a
/// keyword whose names would add up to more than an answer may hold is refused; a WARNING's
/// reasons stay within the description's length.
async fn lists_inside_an_item_are_bounded() {
    let server = TestServer::start_with_demo("sqlite::memory:").await;
    let names = |count: usize, prefix: &str| -> Vec<Value> {
        (0..count)
            .map(|index| json!({"loc": format!("{prefix}{index}"), "value": "n"}))
            .collect()
    };
    let mut itm = vec![json!({"value": "Bounded"})];
    itm.extend(names(1000, "a"));
    let refused = server
        .call(&KEYWORDS_PERSIST)
        .json(&json!({"kwds": {"kwd": [{"name": {"itm": itm}}]}}))
        .send()
        .await;
    assert_eq!(refused.status, 400, "{}", refused.text);
    assert!(
        refused.text.contains("kwds/kwd[1]/name/itm"),
        "{}",
        refused.text
    );
    // 999 names in locales and the default name: as many as a keyword holds.
    let mut itm = vec![json!({"value": "Bounded"})];
    itm.extend(names(999, "a"));
    let created = records(
        &server,
        &server.token,
        &KEYWORDS_PERSIST,
        &json!({"kwds": {"kwd": [{"name": {"itm": itm}}]}}),
    )
    .await;
    assert_eq!(created[0]["status"], "SUCCESS", "{}", created[0]);
    let more = records(
        &server,
        &server.token,
        &KEYWORDS_PERSIST,
        &json!({"kwds": {"kwd": [{"path": "/Bounded", "name": {"itm": [{"loc": "b0", "value": "n"}]}}]}}),
    )
    .await;
    assert_eq!(more[0]["status"], "ERROR");
    assert_eq!(
        more[0]["description"],
        "A keyword has at most 1000 names; this one would have 1001"
    );
    // 1,000 unregistered attributes of 200 characters: each reason once, within 65,536
    // characters, the rest counted.
    let vals: Vec<Value> = (0..1000)
        .map(|index| json!({"attr": format!("{index:0>200}"), "itm": [{"value": "x"}]}))
        .collect();
    let saved = records(
        &server,
        &server.token,
        &CHANNELS_PERSIST,
        &json!({"projects": {"project": [{"tid": "CAT-2027", "vals": {"val": vals}}]}}),
    )
    .await;
    let description = saved[0]["description"].as_str().unwrap_or_default();
    assert_eq!(saved[0]["status"], "WARNING");
    assert!(
        description.chars().count() <= 65_536,
        "{}",
        description.len()
    );
    assert!(
        description.starts_with("The project has been saved successfully|Attribute '"),
        "{description}"
    );
    assert!(
        description.ends_with(" more warnings") && description.contains("|and "),
        "{}",
        &description[description.len() - 60..]
    );
    server.stop().await;
}

contract_tests::trials!(
    a_caller_beyond_the_rate_limit_gets_429,
    a_write_that_waits_too_long_for_the_database_gets_503_and_reads_go_on,
    a_full_database_is_507_and_reads_go_on,
    lists_inside_an_item_are_bounded,
);
