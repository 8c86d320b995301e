//! `keywords/retrieve` and `keywords/persist` over HTTP (D-14, D-15, D-16), on SQLite and, when
//! `CORE_TEST_POSTGRES_URL` is set, on PostgreSQL: what persist writes, retrieve returns; each item
//! of a batch succeeds or fails alone; concurrent clients never share an id.
//!
//! One file per operation: [`retrieve`] and [`persist`]; the keywords and helpers they share are
//! here.

mod direct;
mod persist;
mod retrieve;

use contract_tests::{TestServer, fixture, post_json, records};
use core_api::operations::{KEYWORDS_PERSIST as PERSIST, KEYWORDS_RETRIEVE as RETRIEVE};
use core_api_support::Operation;
use core_server::bootstrap::Bootstrap;
use serde_json::{Value, json};

/// A token of the role `reader`, which may call the Common module but not see restricted assets.
const READER: &str = "0123456789abcdef.0123456789abcdef0123456789abcdef";

/// Keywords with asset links, one of the assets restricted to a role.
fn keywords() -> Bootstrap {
    fixture(json!({
        "locales": [{"tid": "de_DE", "language": "de", "country": "DE", "name": "Deutsch"}],
        "assets": [
            {"tid": "A-1001", "name": "summer.jpg"},
            {"tid": "A-SECRET", "name": "secret.jpg", "restrictedTo": ["secret"]}
        ],
        "keywords": [
            {"path": "/Season", "names": {"de_DE": "Jahreszeit"}},
            {"path": "/Season/Summer", "names": {"de_DE": "Sommer"}, "assets": ["A-1001", "A-SECRET"]}
        ],
        "roles": [{"name": "reader", "modules": ["Common"]}, {"name": "secret"}],
        "tokens": [{"user": "reader", "roles": ["reader"], "token": READER}]
    }))
}

async fn server(url: &str) -> TestServer {
    let server = TestServer::start_on(url).await;
    server.load(&keywords()).await;
    server
}

/// Posts a JSON body and answers status and JSON body.
async fn post(server: &TestServer, operation: &'static Operation, body: &Value) -> (u16, Value) {
    post_json(server, &server.token, operation, body).await
}

/// Persists keywords given as `kwd` objects; answers the records.
async fn persist(server: &TestServer, kwd: Value) -> Vec<Value> {
    records(
        server,
        &server.token,
        &PERSIST,
        &json!({"kwds": {"kwd": kwd}}),
    )
    .await
}

/// Retrieves keywords; answers the `kwd` list.
async fn retrieve(server: &TestServer, request: Value) -> Vec<Value> {
    let (status, body) = post(server, &RETRIEVE, &request).await;
    assert_eq!(status, 200, "{body}");
    body["kwds"]["kwd"].as_array().cloned().unwrap_or_default()
}

fn paths(kwds: &[Value]) -> Vec<&str> {
    kwds.iter().filter_map(|kwd| kwd["path"].as_str()).collect()
}
