//! Several `core-server serve` processes on one PostgreSQL database, as a user who outgrows one
//! machine runs them behind a load balancer: 16 writers spread over three instances create
//! keywords (many of them racing for the same paths); no item is lost, no id or path is stored
//! twice, every record agrees with what retrieve shows on every instance, and a token revoked
//! beside them is refused by every instance within the bound of D-02; an instance opens no more
//! connections than `--database-connections` says. Runs when `CORE_TEST_POSTGRES_URL` is set.

mod support;

use std::{
    collections::{BTreeMap, BTreeSet},
    time::{Duration, Instant},
};

use core_server::auth::REVISION_CHECK;
use serde_json::{Value, json};
use support::{core_server, exchange, serve};

const WRITERS: usize = 16;
const BATCHES: usize = 5;
const ITEMS: usize = 20;
const RETRIEVE: &str = "/api/core/v1/common/keywords/retrieve";
const PERSIST: &str = "/api/core/v1/common/keywords/persist";

fn request(path: &str, token: &str, body: &str) -> String {
    format!(
        "POST {path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\n\
         Accept: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
}

fn issue(url: &str, user: &str) -> String {
    let issued = core_server(&["token", "issue", "--user", user, "--role", "admin"], url);
    assert!(
        issued.status.success(),
        "{}",
        String::from_utf8_lossy(&issued.stderr)
    );
    String::from_utf8(issued.stdout)
        .expect("UTF-8")
        .trim()
        .to_string()
}

/// Every keyword one instance retrieves: path → id.
fn retrieved(address: &str, token: &str) -> BTreeMap<String, i64> {
    let (status, body) = exchange(
        address,
        &request(RETRIEVE, token, r#"{"path":"/","level":-1}"#),
    );
    assert_eq!(status, 200, "{body}");
    let body: Value = serde_json::from_str(&body).expect("JSON");
    body["kwds"]["kwd"]
        .as_array()
        .expect("keywords")
        .iter()
        .map(|kwd| {
            (
                kwd["path"].as_str().expect("a path").to_string(),
                kwd["id"].as_i64().expect("an id"),
            )
        })
        .collect()
}

#[tokio::test]
async fn three_instances_on_one_postgresql_agree() {
    let Some(url) =
        core_server::testing::configured_postgres_schema("the several-instances test did not run")
            .await
            .expect("a fresh schema")
    else {
        return;
    };
    let token = issue(&url, "writer");
    // Started together: each runs the migrations, which the advisory lock serializes.
    let instances: Vec<_> = (0..3).map(|_| serve(&url)).collect();
    let addresses: Vec<String> = instances
        .iter()
        .map(|(_, address)| address.clone())
        .collect();
    let (status, body) = exchange(
        &addresses[0],
        &request(
            PERSIST,
            &token,
            r#"{"kwds":{"kwd":[{"name":{"itm":[{"value":"Shared"}]}}]}}"#,
        ),
    );
    assert_eq!(status, 200, "{body}");

    // Each writer creates keywords of its own and, racing the others, the same shared ones.
    let writers: Vec<_> = (0..WRITERS)
        .map(|writer| {
            let address = addresses[writer % addresses.len()].clone();
            let token = token.clone();
            std::thread::spawn(move || {
                let mut records = Vec::new();
                for batch in 0..BATCHES {
                    let kwd: Vec<Value> = (0..ITEMS)
                        .map(|item| {
                            if item % 2 == 0 {
                                json!({"parentPath": "/Shared", "name": {"itm": [{"value": format!("S{batch}-{item}")}]}})
                            } else {
                                json!({"name": {"itm": [{"value": format!("W{writer}-{batch}-{item}")}]}})
                            }
                        })
                        .collect();
                    let body = json!({"kwds": {"kwd": kwd}}).to_string();
                    let (status, answer) = exchange(&address, &request(PERSIST, &token, &body));
                    assert_eq!(status, 200, "{answer}");
                    let answer: Value = serde_json::from_str(&answer).expect("JSON");
                    records.extend(answer["responses"]["response"].as_array().expect("records").clone());
                }
                records
            })
        })
        .collect();
    let records: Vec<Value> = writers
        .into_iter()
        .flat_map(|writer| writer.join().expect("a writer"))
        .collect();
    assert_eq!(
        records.len(),
        WRITERS * BATCHES * ITEMS,
        "one record per item"
    );

    // Every success names a distinct id and path; every refusal is a lost race for a shared
    // path, which one writer won.
    let mut stored: BTreeMap<String, i64> = BTreeMap::new();
    let mut lost = BTreeSet::new();
    for record in &records {
        match record["status"].as_str() {
            Some("SUCCESS") => {
                let path = record["path"].as_str().expect("a path").to_string();
                let id = record["id"].as_i64().expect("an id");
                assert!(
                    stored.insert(path.clone(), id).is_none(),
                    "{path} stored twice"
                );
            }
            _ => {
                let description = record["description"].as_str().unwrap_or_default();
                let path = description
                    .strip_prefix("Keyword '")
                    .and_then(|rest| rest.strip_suffix("' already exists"))
                    .unwrap_or_else(|| panic!("an unexpected refusal: {record}"));
                lost.insert(path.to_string());
            }
        }
    }
    let ids: BTreeSet<i64> = stored.values().copied().collect();
    assert_eq!(ids.len(), stored.len(), "no id is given twice");
    let shared = BATCHES * ITEMS / 2;
    let own = WRITERS * BATCHES * ITEMS / 2;
    assert_eq!(
        stored.len(),
        shared + own,
        "each shared path once, every own keyword"
    );
    assert!(
        lost.iter().all(|path| stored.contains_key(path)),
        "a lost race was won by another writer"
    );
    eprintln!(
        "{} records: {} keywords stored, {} creates lost a race for a shared path",
        records.len(),
        stored.len(),
        records.len() - stored.len()
    );

    // Every instance shows exactly what the records say.
    for address in &addresses {
        let mut shown = retrieved(address, &token);
        assert!(shown.remove("/Shared").is_some(), "the parent is shown");
        assert_eq!(shown, stored, "{address} shows what the records say");
    }

    // A token revoked beside the instances is refused by each within the bound.
    let doomed = issue(&url, "doomed");
    for address in &addresses {
        assert_eq!(
            exchange(address, &request(RETRIEVE, &doomed, r#"{"path":"/"}"#)).0,
            200
        );
    }
    let revoked = core_server(&["token", "revoke", &doomed], &url);
    assert!(
        revoked.status.success(),
        "{}",
        String::from_utf8_lossy(&revoked.stderr)
    );
    let since = Instant::now();
    let mut refused_after = Vec::new();
    for address in &addresses {
        loop {
            let (status, _) = exchange(address, &request(RETRIEVE, &doomed, r#"{"path":"/"}"#));
            if status == 401 {
                refused_after.push(since.elapsed());
                break;
            }
            assert!(
                since.elapsed() < REVISION_CHECK * 4,
                "{address} still takes the revoked token after {:?}",
                since.elapsed()
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }
    eprintln!("the revoked token was refused after {refused_after:?} (bound {REVISION_CHECK:?})");
    drop(instances);
    let database = core_server::storage::Database::connect(&url)
        .await
        .expect("opens");
    let _ = core_server::testing::drop_postgres_schema(&database).await;
}

/// Deadlocks PostgreSQL has broken in the database so far (its statistics).
async fn deadlocks(database: &core_server::storage::Database) -> i64 {
    // PostgreSQL 15 and later flush a session's statistics on demand; earlier ones in time.
    sqlx::query("SELECT pg_stat_force_next_flush()")
        .execute(database.writes())
        .await
        .ok();
    sqlx::query_scalar("SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()")
        .fetch_one(database.reads())
        .await
        .expect("the statistics")
}

/// Two batches on two instances create the same keywords in opposite orders, so each soon waits
/// for a keyword the other holds: PostgreSQL breaks the deadlock by failing one, which is rolled
/// back whole and run again once the other has committed (D-14). Every keyword is stored once,
/// every record is a SUCCESS or, for the batch run again, "already exists", none reports the
/// conflict, and nothing is stored twice or half.
#[tokio::test]
async fn crossing_batches_on_two_instances_deadlock_and_are_run_again() {
    let Ok(base) = std::env::var("CORE_TEST_POSTGRES_URL") else {
        eprintln!("CORE_TEST_POSTGRES_URL is not set: the deadlock test did not run");
        return;
    };
    const CROSSING: usize = 200;
    let url = core_server::testing::fresh_postgres_schema(&base)
        .await
        .expect("a fresh schema");
    let database = core_server::storage::Database::connect(&url)
        .await
        .expect("opens");
    let token = issue(&url, "writer");
    let instances: Vec<_> = (0..2).map(|_| serve(&url)).collect();
    let mut seen = false;
    for round in 0..5 {
        let before = deadlocks(&database).await;
        let names: Vec<String> = (0..CROSSING).map(|n| format!("C{round}-{n:03}")).collect();
        let barrier = std::sync::Arc::new(std::sync::Barrier::new(2));
        let writers: Vec<_> = instances
            .iter()
            .enumerate()
            .map(|(writer, (_, address))| {
                let mut names = names.clone();
                if writer == 1 {
                    names.reverse();
                }
                let kwd: Vec<Value> = names
                    .iter()
                    .map(|name| json!({"name": {"itm": [{"value": name}]}}))
                    .collect();
                let body = json!({"kwds": {"kwd": kwd}}).to_string();
                let (address, token, barrier) = (address.clone(), token.clone(), barrier.clone());
                std::thread::spawn(move || {
                    barrier.wait();
                    let (status, answer) = exchange(&address, &request(PERSIST, &token, &body));
                    assert_eq!(status, 200, "{answer}");
                    let answer: Value = serde_json::from_str(&answer).expect("JSON");
                    answer["responses"]["response"]
                        .as_array()
                        .expect("records")
                        .clone()
                })
            })
            .collect();
        let records: Vec<Value> = writers
            .into_iter()
            .flat_map(|writer| writer.join().expect("a writer"))
            .collect();
        let mut stored = BTreeSet::new();
        for record in &records {
            match record["status"].as_str() {
                Some("SUCCESS") => assert!(
                    stored.insert(record["path"].as_str().expect("a path").to_string()),
                    "stored twice: {record}"
                ),
                _ => assert!(
                    record["description"]
                        .as_str()
                        .is_some_and(|text| text.ends_with("' already exists")),
                    "an unexpected refusal: {record}"
                ),
            }
        }
        assert_eq!(stored.len(), CROSSING, "each keyword stored once");
        let shown = retrieved(&instances[0].1, &token);
        assert!(
            names
                .iter()
                .all(|name| shown.contains_key(&format!("/{name}")))
        );
        // The statistics reach the view shortly after the transaction ends.
        let deadline = Instant::now() + Duration::from_secs(5);
        while deadlocks(&database).await == before && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        if deadlocks(&database).await > before {
            eprintln!("round {round}: the crossing batches deadlocked; both answered in full");
            seen = true;
            break;
        }
    }
    drop(instances);
    let _ = core_server::testing::drop_postgres_schema(&database).await;
    assert!(seen, "the crossing batches never deadlocked");
}

/// `--database-connections` bounds the connections an instance opens to PostgreSQL, so that the
/// instances on one server can be kept below its `max_connections` (D-37): `/metrics` states the
/// pools' most, 16 by default.
#[tokio::test]
async fn an_instance_opens_at_most_its_database_connections() {
    let Some(url) =
        core_server::testing::configured_postgres_schema("the connections test did not run")
            .await
            .expect("a fresh schema")
    else {
        return;
    };
    let scrape = "GET /metrics HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";
    for (arguments, most) in [(&[][..], 16.0), (&["--database-connections", "4"][..], 4.0)] {
        let (server, address) = support::serve_with(&url, arguments);
        let (status, body) = exchange(&address, scrape);
        assert_eq!(status, 200, "{body}");
        let stated: Option<f64> = body.lines().find_map(|line| {
            line.strip_prefix(r#"core_database_connections{state="max"}"#)?
                .trim()
                .parse()
                .ok()
        });
        assert_eq!(stated, Some(most), "{arguments:?}: {body}");
        drop(server);
    }
    let database = core_server::storage::Database::connect(&url)
        .await
        .expect("opens");
    let _ = core_server::testing::drop_postgres_schema(&database).await;
}
