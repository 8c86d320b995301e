//! The PIM module over HTTP (D-21 to D-28, D-49, D-51, D-52), on SQLite and, when
//! `CORE_TEST_POSTGRES_URL` is set, on PostgreSQL: what classes and attributes persist write,
//! retrieve and query return in all three representations; what perform deletes is gone
//! (a deleted classification takes its nodes' attributes with it); bad input is a 400 or an
//! item ERROR, never a 500 or a half-written classification.
//!
//! One file per resource: [`classes`], [`attributes`], [`definitions`]; the catalogue and the
//! helpers they share are here.

mod attributes;
mod classes;
mod definitions;
mod streamed;

use contract_tests::{TestServer, fixture, post_json, records};
use core_api_support::Operation;
use core_conformance::bodies::{attribute, name};
use core_server::bootstrap::Bootstrap;
use serde_json::{Value, json};

/// A token of the role `reader`, which may call PIM but not see the restricted product.
const READER: &str = "ab12ab12ab12ab12.ab12ab12ab12ab12ab12ab12ab12ab12ab12";

/// A classification `Apparel` (`/Apparel` → `/Apparel/Shirts` → `/Apparel/Shirts/Polo`) whose
/// root has a visible and a hidden attribute, two products classified under its nodes (one
/// restricted to a role), and a definition used by nothing.
fn catalogue() -> Bootstrap {
    let attribute = |key: &str, inheritance: &str| json!({"key": key, "level": "p", "inheritance": inheritance, "restriction": "optional"});
    fixture(json!({
        "locales": [
            {"tid": "de_DE", "language": "de", "country": "DE", "name": "Deutsch"},
            {"tid": "en_GB", "language": "en", "country": "GB", "name": "English"}
        ],
        "attributeDefinitions": [
            {"tid": "Color", "type": "text"},
            {"tid": "Secret", "type": "text"},
            {"tid": "Weight", "type": "number"},
            {"tid": "Launch", "type": "date"},
            {"tid": "Unused", "type": "boolean"}
        ],
        "products": [
            {"tid": "PR-1"},
            {"tid": "PR-R", "restrictedTo": ["secret"]}
        ],
        "classifications": [{"tid": "Apparel", "names": {"": "Apparel", "de_DE": "Bekleidung"}, "nodes": [
            {"path": "/Apparel", "attributes": [attribute("Color", "visible"), attribute("Secret", "not_visible")]},
            {"path": "/Apparel/Shirts", "names": {"": "Shirts", "de_DE": "Hemden"},
             "attributes": [attribute("Weight", "visible")], "products": ["PR-1", "PR-R"]},
            {"path": "/Apparel/Shirts/Polo"}
        ]}],
        "roles": [{"name": "reader", "modules": ["PIM"]}, {"name": "secret"}],
        "tokens": [{"user": "reader", "roles": ["reader"], "token": READER}]
    }))
}

async fn server(url: &str) -> TestServer {
    let server = TestServer::start_on(url).await;
    server.load(&catalogue()).await;
    server
}

async fn post(server: &TestServer, operation: &'static Operation, body: &Value) -> (u16, Value) {
    post_json(server, &server.token, operation, body).await
}

/// Posts a batch with the admin token and expects 200; answers the records.
async fn batch(server: &TestServer, operation: &'static Operation, body: &Value) -> Vec<Value> {
    records(server, &server.token, operation, body).await
}

/// The integers of an answer's `ids`.
fn ids(answer: &Value) -> Vec<i64> {
    answer["ids"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_i64)
        .collect()
}

/// Posts and expects 200; answers the body.
async fn ok(server: &TestServer, operation: &'static Operation, body: Value) -> Value {
    let (status, answer) = post(server, operation, &body).await;
    assert_eq!(status, 200, "{} {body}: {answer}", operation.id);
    answer
}

/// The paths of the flat `nodes` of a classes answer.
fn paths(answer: &Value) -> Vec<String> {
    answer["nodes"]["node"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|node| node["path"].as_str().map(str::to_string))
        .collect()
}

/// The keys of the `attr` of an attributes answer.
fn keys(answer: &Value) -> Vec<&str> {
    answer["attrs"]["attr"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|attr| attr["key"].as_str())
        .collect()
}

/// The id of the attribute with `key` in an attributes answer.
fn id_of(answer: &Value, key: &str) -> i64 {
    answer["attrs"]["attr"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|attr| attr["key"] == key)
        .and_then(|attr| attr["id"].as_i64())
        .unwrap_or_else(|| panic!("no attribute {key} in {answer}"))
}

/// Specification example 2 (Footwear), optionally with another German name.
fn footwear(german: &str) -> Value {
    json!({
        "classes": {"class": [{"tid": "Footwear", "name": {"itm": [
            {"value": "Footwear"}, {"value": german, "loc": "de_DE"}, {"value": "Footwear", "loc": "en_GB"}
        ]}}]},
        "nodes": {"node": [
            {"class": "Footwear", "path": "/Footwear", "name": name("Footwear")},
            {"class": "Footwear", "path": "/Footwear/Sneakers", "parentPath": "/Footwear",
             "name": {"itm": [{"value": "Sneakers"}, {"value": "Turnschuhe", "loc": "de_DE"}]},
             "attr": [attribute("Color")]}
        ]}
    })
}
