//! The CM module over HTTP (D-17 to D-20, D-42), on SQLite and, when `CORE_TEST_POSTGRES_URL` is
//! set, PostgreSQL: channel query orders a subtree depth-first and limits its levels; what
//! channels persist writes, retrieve returns in all three representations, and query agrees;
//! values not supplied stay; a refused channel writes nothing; retrieval shows only what the
//! caller may see; the briefing is the documented XML.
//!
//! One file per resource: [`channels`] and [`briefings`]; the catalogue and the helpers they
//! share are here.

mod briefings;
mod channels;
mod streamed;

use contract_tests::{TestServer, fixture, post_json};
use core_api::operations::{CHANNELS_QUERY, CHANNELS_RETRIEVE};
use core_api_support::Operation;
use core_server::bootstrap::Bootstrap;
use serde_json::{Value, json};

/// A token of the role `reader` (CM and PEO), which sees no restricted asset or PEO.
const READER: &str = "cd34cd34cd34cd34.cd34cd34cd34cd34cd34cd34cd34cd34cd34";

/// A token of the role `pim` (PIM only).
const PIM_ONLY: &str = "ef56ef56ef56ef56.ef56ef56ef56ef56ef56ef56ef56ef56ef56";

/// Two root channels; ROOT has two children (ROOT-B before ROOT-A by `orderSequence`) and a
/// grandchild; ROOT links a plain and a restricted asset, ROOT-B a plain and a restricted PEO;
/// ROOT-B and ROOT-A have briefing layouts (ROOT-A's without boxes).
fn catalogue() -> Bootstrap {
    fixture(json!({
        "locales": [
            {"tid": "de_DE", "language": "de", "country": "DE", "name": "Deutsch"},
            {"tid": "en_GB", "language": "en", "country": "GB", "name": "English"}
        ],
        "attributeDefinitions": [
            {"tid": "Headline", "type": "text"},
            {"tid": "Sizes", "type": "text"},
            {"tid": "Budget", "type": "number"},
            {"tid": "Unregistered", "type": "text"}
        ],
        "channelTypes": ["catalog", "page"],
        "channelAttributes": ["Headline", "Sizes", "Budget"],
        "roles": [{"name": "reader", "modules": ["CM", "PEO"]}, {"name": "pim", "modules": ["PIM"]}, {"name": "secret"}],
        "tokens": [
            {"user": "reader", "roles": ["reader"], "token": READER},
            {"user": "pim", "roles": ["pim"], "token": PIM_ONLY}
        ],
        "assets": [
            {"tid": "A-1", "path": "/images/a.jpg"},
            {"tid": "A-R", "path": "/images/secret.jpg", "restrictedTo": ["secret"]}
        ],
        "products": [{"tid": "P-1"}, {"tid": "P-HIDDEN", "restrictedTo": ["secret"]}],
        "channels": [
            {"tid": "ROOT", "type": "catalog", "name": "Root", "orderSequence": 1,
             "icon": "/icons/root.svg", "allowedFunctions": ["edit", "export"],
             "values": [{"attr": "Budget", "items": [{"value": "100"}]}],
             "assets": ["A-1", "A-R"]},
            {"tid": "ROOT-A", "type": "page", "parent": "ROOT", "name": "A", "orderSequence": 2},
            {"tid": "ROOT-B", "type": "page", "parent": "ROOT", "name": "B", "orderSequence": 1},
            {"tid": "ROOT-B-1", "type": "page", "parent": "ROOT-B", "name": "B1"},
            {"tid": "OTHER", "type": "catalog", "name": "Other", "orderSequence": 2}
        ],
        "peos": [
            {"tid": "PEO-1", "product": "P-1", "template": "web", "default": true, "name": "One",
             "nodes": ["ROOT-B"], "channels": ["ROOT-B"],
             "values": [{"attr": "Headline", "type": "localized", "items": [{"value": "One", "loc": "en_GB"}]}]},
            {"tid": "PEO-R", "product": "P-1", "name": "Secret", "channels": ["ROOT-B"], "restrictedTo": ["secret"]},
            {"tid": "PEO-S", "product": "P-HIDDEN", "name": "Of a hidden product", "channels": ["ROOT-B"]}
        ],
        "briefings": [
            {"channel": "ROOT-B", "moduleCfg": "BRF", "locale": "en_GB", "layout": 10, "name": "B layout",
             "attributes": {"width": "210.0", "height": "297.0"},
             "boxes": [{"id": 3, "layer": "1", "name": "Hero", "type": "image",
                "attributes": {"width": "100.0", "content_width": "50.0%", "text_article": "P-1"},
                "images": [{"type": "origin", "attributes": {"image_path": "/images/a.jpg", "image_scale": "1.0"}}]}]},
            {"channel": "ROOT-A", "moduleCfg": "BRF", "locale": "en_GB", "layout": 11, "name": "A layout",
             "attributes": {"width": "100.0", "height": "100.0"}}
        ]
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

/// The tids a channel query answers, expecting 200.
async fn tids(server: &TestServer, body: Value) -> Vec<String> {
    let (status, answer) = post(server, &CHANNELS_QUERY, &body).await;
    assert_eq!(status, 200, "{body}: {answer}");
    answer["tids"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|tid| tid.as_str().map(str::to_string))
        .collect()
}

/// The projects a channel retrieve by tids answers in JSON, expecting 200.
async fn projects(server: &TestServer, token: &str, tids: &[&str]) -> Vec<Value> {
    let (status, answer) =
        post_json(server, token, &CHANNELS_RETRIEVE, &json!({"tids": tids})).await;
    assert_eq!(status, 200, "{answer}");
    answer["projects"]["project"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// The `val` of an attribute in a project.
fn val<'p>(project: &'p Value, attr: &str) -> Option<&'p Value> {
    project["vals"]["val"]
        .as_array()?
        .iter()
        .find(|val| val["attr"] == attr)
}

/// The texts of a `val`'s items, with their `loc` or `pos`.
fn items(val: Option<&Value>) -> Vec<String> {
    val.and_then(|val| val["itm"].as_array())
        .into_iter()
        .flatten()
        .map(|itm| {
            let place = itm["loc"]
                .as_str()
                .map(str::to_string)
                .or_else(|| itm["pos"].as_i64().map(|pos| pos.to_string()))
                .unwrap_or_default();
            format!("{place}={}", itm["value"].as_str().unwrap_or_default())
        })
        .collect()
}
