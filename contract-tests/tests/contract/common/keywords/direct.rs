//! `keywords/retrieve` on an SQLite file, whose streamed reads run on `rusqlite` without sqlx's
//! worker thread (`storage::direct`), answers what the pooled reader of in-memory SQLite
//! answers: every level, links, a base, a missing base, both callers, each representation, and a
//! whole tree of several pages (one read transaction).

use contract_tests::{TestServer, codec, fixture};
use core_api_support::Representation;
use serde_json::{Value, json};

use super::{READER, RETRIEVE, server};

/// Keywords enough for a whole-tree retrieve to read several pages (512 keywords each).
fn many() -> core_server::bootstrap::Bootstrap {
    let mut keywords = vec![json!({"path": "/Many"})];
    keywords.extend((0..1100).map(|at| json!({"path": format!("/Many/K{at:04}")})));
    fixture(json!({ "keywords": keywords }))
}

/// The status and the answer's tree without `meta` (its message time differs between answers)
/// and with the keywords' creation dates blank (each server stored them when it loaded them).
/// `reader`: called with the token of the role `reader`, else the server's `admin` token.
async fn answer(
    server: &TestServer,
    reader: bool,
    body: &Value,
    representation: Representation,
) -> (u16, Value) {
    let answer = server
        .call(&RETRIEVE)
        .token(if reader { READER } else { &server.token })
        .json(body)
        .accept(representation)
        .send()
        .await;
    let schema = match answer.status {
        200 => RETRIEVE.response.schema.expect("a message answer"),
        // An error's support id differs between answers: its media type and what it says.
        _ => {
            let said = answer.text.contains("Keyword with path '/Nope' not found");
            return (answer.status, json!([answer.content_type, said]));
        }
    };
    let mut tree = codec()
        .decode(representation, &answer.bytes, schema)
        .expect("the answer decodes");
    tree["meta"] = Value::Null;
    undated(&mut tree);
    (answer.status, tree)
}

/// Blanks the value of every `creationDate` item.
fn undated(tree: &mut Value) {
    match tree {
        Value::Object(object) => {
            if object.get("key").and_then(Value::as_str) == Some("creationDate") {
                object.insert("value".to_string(), Value::Null);
            }
            object.values_mut().for_each(undated);
        }
        Value::Array(items) => items.iter_mut().for_each(undated),
        _ => {}
    }
}

async fn the_direct_reader_answers_what_the_pooled_reader_answers() {
    let folder = std::env::temp_dir().join(format!("core-direct-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    std::fs::create_dir_all(&folder).expect("a folder");
    let pooled = server("sqlite::memory:").await;
    let direct = server(&format!("sqlite:{}", folder.join("core.db").display())).await;
    for server in [&pooled, &direct] {
        server.load(&many()).await;
    }
    let bodies = [
        json!({"path": "/"}),
        json!({"path": "/", "level": -1}),
        json!({"path": "/", "level": 2, "retrieveLinks": true}),
        json!({"path": "/Season", "level": -1, "retrieveLinks": true}),
        json!({"path": "/Many", "level": -1}),
        json!({"path": "/Nope", "level": -1}),
    ];
    let mut pages = 0;
    for body in &bodies {
        for reader in [false, true] {
            for representation in [
                Representation::Json,
                Representation::Xml,
                Representation::Compact,
            ] {
                let expected = answer(&pooled, reader, body, representation).await;
                let read = answer(&direct, reader, body, representation).await;
                let items =
                    |answer: &(u16, Value)| answer.1["kwds"]["kwd"].as_array().map_or(0, Vec::len);
                assert!(
                    read == expected,
                    "{body} {representation:?}: the direct reader answered {} with {} keywords, \
                     the pooled reader {} with {}",
                    read.0,
                    items(&read),
                    expected.0,
                    items(&expected)
                );
                pages = pages.max(items(&read).div_ceil(512));
            }
        }
    }
    assert!(pages >= 3, "a whole tree of several pages was read");
    pooled.stop().await;
    direct.stop().await;
    let _ = std::fs::remove_dir_all(&folder);
}

contract_tests::trials!(the_direct_reader_answers_what_the_pooled_reader_answers);
