//! Keywords persist in batches of 1,000 new keywords under one parent, over HTTP against the
//! release server: ten batches in a row, each timed, on a SQLite file and, when
//! `CORE_TEST_POSTGRES_URL` is set, on a fresh PostgreSQL schema. It prints the items per second
//! of each batch and of all ten: flat means a parent's growing number of children costs nothing.
//!
//! `cargo bench --bench batches`. Goals (issue 18): flat from the first batch to the tenth, and
//! PostgreSQL within 2× of SQLite, at 5,000 items/s or more on SQLite. A batch is one transaction
//! (D-14), so a batch costs one durable commit, not one per item, and up to 32 successful items
//! share a savepoint, so an item costs about one exchange with the database.

mod support;

use std::time::Instant;

use serde_json::{Value, json};
use support::TOKEN;

/// Items per batch: the most one request may carry.
const ITEMS: usize = 1000;

/// Batches in a row.
const BATCHES: usize = 10;

fn main() {
    let folder = support::scratch("batches");
    let sqlite = support::import(&folder, &document());
    let mut results = vec![("SQLite", run(&sqlite))];
    if let Ok(base) = std::env::var("CORE_TEST_POSTGRES_URL") {
        let runtime = tokio::runtime::Runtime::new().expect("a runtime");
        let url = runtime
            .block_on(core_server::testing::fresh_postgres_schema(&base))
            .expect("a fresh schema");
        support::import_to(&folder, &url, &document());
        results.push(("PostgreSQL", run(&url)));
        let database = runtime
            .block_on(core_server::storage::Database::connect(&url))
            .expect("opens");
        let _ = runtime.block_on(core_server::testing::drop_postgres_schema(&database));
    } else {
        eprintln!("CORE_TEST_POSTGRES_URL is not set: SQLite only");
    }
    let _ = std::fs::remove_dir_all(&folder);
    println!(
        "keywords persist, {BATCHES} batches of {ITEMS} new keywords under one parent (items/s):"
    );
    println!(
        "| database | batch 1 | batch {BATCHES} | slowest | fastest | all |\n|---|---|---|---|---|---|"
    );
    for (name, rates) in results {
        let (per_batch, all) = rates;
        let slowest = per_batch.iter().copied().fold(f64::INFINITY, f64::min);
        let fastest = per_batch.iter().copied().fold(0.0, f64::max);
        println!(
            "| {name} | {:.0} | {:.0} | {slowest:.0} | {fastest:.0} | {all:.0} |",
            per_batch[0],
            per_batch[BATCHES - 1]
        );
    }
}

/// The parent, the locale of the names, and the benchmark's token.
fn document() -> Value {
    json!({
        "locales": [{"tid": "de_DE", "language": "de", "country": "DE", "name": "Deutsch"}],
        "keywords": [{"path": "/Bench"}],
        "tokens": [{"user": "bench", "roles": ["admin"], "token": TOKEN}]
    })
}

/// Serves the database and sends the batches: items/s of each, and of all.
fn run(database: &str) -> (Vec<f64>, f64) {
    let (child, port) = support::serve(database);
    let mut rates = Vec::new();
    let started = Instant::now();
    for batch in 0..BATCHES {
        let kwd: Vec<Value> = (0..ITEMS)
            .map(|item| {
                json!({"parentPath": "/Bench", "name": {"itm": [
                    {"value": format!("b{batch}-{item}")},
                    {"value": format!("b{batch}-{item} de"), "loc": "de_DE"}
                ]}})
            })
            .collect();
        let body = json!({"kwds": {"kwd": kwd}}).to_string();
        let sent = Instant::now();
        let answer = support::post(
            port,
            "/api/core/v1/common/keywords/persist",
            &body,
            "application/json",
            true,
        );
        let time = sent.elapsed();
        assert_eq!(answer.status, 200);
        let records: Value = serde_json::from_slice(&answer.body).expect("JSON");
        let records = records["responses"]["response"]
            .as_array()
            .expect("records");
        assert!(
            records.len() == ITEMS && records.iter().all(|record| record["status"] == "SUCCESS"),
            "every item is stored"
        );
        let rate = ITEMS as f64 / time.as_secs_f64();
        eprintln!("{database}: batch {}: {rate:.0} items/s", batch + 1);
        rates.push(rate);
    }
    let all = (ITEMS * BATCHES) as f64 / started.elapsed().as_secs_f64();
    support::end(child);
    (rates, all)
}
