//! `core-server migrate` (`storage::transfer`) keeps everything: the demo catalogue, changed
//! through the API by every documented batch request and a few more (one of them deleted again,
//! so that a sequence stands past the largest id), is copied into an empty database, and every
//! read operation answers the same on the copy as on the original, byte for byte in every
//! representation it lists, ids and times included, when called with the original's token.
//! The operator's commands list the same tokens and messages on both, the next records created
//! on both get the same ids, and a second migrate into the copy is refused. SQLite → SQLite, and where `CORE_TEST_POSTGRES_URL` is set
//! SQLite → PostgreSQL and PostgreSQL → SQLite.

use contract_tests::{Answer, TestServer, backends, document, operations};
use core_api::operations::{
    ASSETS_VERSIONS_BIN, ATTRIBUTE_DEFINITIONS_QUERY, ATTRIBUTES_QUERY, ATTRIBUTES_RETRIEVE,
    CHANNELS_QUERY, CHANNELS_RETRIEVE, CLASSES_RETRIEVE, COMPONENTS_RETRIEVE, GET_CLASSES,
    GLOSSARY_ENTRIES_PERFORM, GLOSSARY_ENTRIES_PERSIST, KEYWORDS_PERSIST, KEYWORDS_RETRIEVE,
    LOCALES_RETRIEVE, PEOS_QUERY, PEOS_RETRIEVE, RETRIEVE_CHANNEL_BRIEFINGS,
};
use core_api_support::{Operation, Representation};
use core_server::{
    bootstrap::progress::Silent,
    storage::{
        Database,
        transfer::{self, TransferError},
    },
};
use serde_json::{Value, json};

contract_tests::trials!(a_migrated_database_answers_every_read_the_same);

async fn a_migrated_database_answers_every_read_the_same() {
    let urls = backends("migrate").await;
    let mut pairs = vec![(urls[0].clone(), urls[0].clone())];
    if let Some(postgres) = urls.get(1) {
        pairs.push((urls[0].clone(), postgres.clone()));
        pairs.push((postgres.clone(), urls[0].clone()));
    }
    for (from, to) in pairs {
        migrate_and_compare(&from, &to).await;
    }
}

/// One migrate from a database on `from` to one on `to`, and the comparison.
async fn migrate_and_compare(from: &str, to: &str) {
    let source = TestServer::start_with_demo(from).await;
    change(&source).await;
    // The source writes the last uses of tokens in the background (every `LAST_USE_FLUSH`): a
    // copy during which one was written is made again, into a new target, so that the
    // operator's view read around it is the one it holds.
    let (target_url, target, view) = loop {
        let view = operator_view(&source.database).await;
        let target_url = empty_database(to).await;
        let target = Database::connect(&target_url)
            .await
            .expect("the target opens");
        let copied = transfer::copy(&source.database, &target, &mut Silent)
            .await
            .expect("the database is migrated");
        assert!(copied.rows > 100, "{copied:?}");
        if operator_view(&source.database).await == view {
            break (target_url, target, view);
        }
        target.close().await;
    };
    assert_eq!(
        view,
        operator_view(&target).await,
        "{from} → {to}: tokens and messages"
    );
    let again = transfer::copy(&source.database, &target, &mut Silent).await;
    assert!(
        matches!(again, Err(TransferError::NotEmpty { table: "users" })),
        "{again:?}"
    );
    target.close().await;
    let copy = TestServer::start_existing(&target_url, &source.token).await;
    let (before, after) = (reads(&source).await, reads(&copy).await);
    assert_eq!(before.len(), after.len());
    for ((label, original), (_, migrated)) in before.iter().zip(&after) {
        assert_eq!(original, migrated, "{from} → {to}: {label}");
    }
    let (on_source, on_copy) = (created(&source).await, created(&copy).await);
    assert_eq!(
        on_source, on_copy,
        "{from} → {to}: the next id follows the source's sequence"
    );
    copy.stop().await;
    source.stop().await;
}

/// What no operation reads but the operator's commands print: every token (user, roles,
/// expiry, last use, revocation) and every message.
pub(crate) async fn operator_view(database: &Database) -> String {
    let tokens = core_server::auth::list(database).await.expect("the tokens");
    let messages = core_server::modules::list_messages(database, None, None)
        .await
        .expect("the messages");
    assert!(!messages.is_empty(), "the documented messages were stored");
    format!(
        "{}\n{}",
        serde_json::to_string(&tokens).expect("JSON"),
        serde_json::to_string(&messages).expect("JSON")
    )
}

/// A URL of an empty database on the backend `like` names (an SQLite file of its own).
pub(crate) async fn empty_database(like: &str) -> String {
    if like.starts_with("postgres") {
        core_server::testing::fresh_postgres_schema(like)
            .await
            .expect("a fresh schema")
    } else {
        use std::sync::atomic::{AtomicU32, Ordering};
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let file = std::env::temp_dir().join(format!(
            "core-migrate-{}-{}.db",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_file(&file);
        format!("sqlite://{}", file.display())
    }
}

/// Changes the demo through the API: every documented batch request, a keyword tree, and a
/// glossary entry created and deleted again.
pub(crate) async fn change(server: &TestServer) {
    let document = document();
    for operation in core_api::operations::ALL {
        if operation.batch.is_some() {
            operations::send_documented(server, &document, operation, operation.path).await;
        }
    }
    let keywords = json!({"kwds": {"kwd": [
        {"parentPath": "/", "name": {"itm": [{"value": "Migrated"}, {"value": "Umgezogen", "loc": "de_DE"}]}},
        {"parentPath": "/Migrated", "name": {"itm": [{"value": "Child"}]}}
    ]}});
    let answer = server.call(&KEYWORDS_PERSIST).json(&keywords).send().await;
    assert_eq!(answer.status, 200, "{}", answer.text);
    let id = create_entry(server, "Umzug").await;
    let delete = json!({"actions": {"action": [
        {"dataType": "glossaryEntry", "type": "delete", "id": id}
    ]}});
    let answer = server
        .call(&GLOSSARY_ENTRIES_PERFORM)
        .json(&delete)
        .send()
        .await;
    assert!(answer.text.contains("SUCCESS"), "{}", answer.text);
}

/// Creates a term in the first glossary; its id.
async fn create_entry(server: &TestServer, value: &str) -> i64 {
    let entry = json!({"glossaryEntries": {"glossaryEntry": [{
        "parentTid": "GL-TEXTILES", "loc": "de_DE", "type": "term",
        "meta": {"itm": [{"key": "value", "loc": "de_DE", "value": value}]}
    }]}});
    let answer = server
        .call(&GLOSSARY_ENTRIES_PERSIST)
        .json(&entry)
        .send()
        .await;
    let record = &answer.json()["responses"]["response"][0];
    record["id"]
        .as_i64()
        .or_else(|| record["id"].as_str().and_then(|id| id.parse().ok()))
        .unwrap_or_else(|| panic!("a created entry: {}", answer.text))
}

/// The id of a glossary entry created now.
async fn created(server: &TestServer) -> i64 {
    create_entry(server, "Neu").await
}

/// What every read operation answers: a label and the answer (status, media type, body) of each
/// request, in every response representation the operation lists.
pub(crate) async fn reads(server: &TestServer) -> Vec<(String, String)> {
    let mut requests: Vec<(&'static Operation, Value)> = vec![
        (
            &LOCALES_RETRIEVE,
            json!({"mode": "ALL", "exportConfig": true}),
        ),
        (
            &KEYWORDS_RETRIEVE,
            json!({"path": "/", "level": -1, "retrieveLinks": true}),
        ),
        (
            &CLASSES_RETRIEVE,
            json!({"withNodes": true, "flatNodes": true}),
        ),
        (
            &CLASSES_RETRIEVE,
            json!({"withNodes": true, "flatNodes": false}),
        ),
        (
            &ATTRIBUTE_DEFINITIONS_QUERY,
            json!({"types": ["text", "date", "number", "boolean", "ref", "table"]}),
        ),
        (&CHANNELS_QUERY, json!({"root": true})),
        (&PEOS_QUERY, json!({})),
    ];
    let roots = listed(server, &CHANNELS_QUERY, &json!({"root": true}), "tids").await;
    requests.push((&CHANNELS_RETRIEVE, json!({"tids": roots})));
    for root in roots.as_array().into_iter().flatten() {
        requests.push((&CHANNELS_QUERY, json!({"tid": root, "level": -1})));
    }
    let peos = listed(server, &PEOS_QUERY, &json!({}), "tids").await;
    requests.push((&PEOS_RETRIEVE, json!({"tids": peos, "withMetadata": true})));
    let nodes = node_ids(server).await;
    requests.push((
        &ATTRIBUTES_RETRIEVE,
        json!({"nodeIds": nodes, "withDomainValues": true, "withDefaultValues": true}),
    ));
    requests.push((&ATTRIBUTES_QUERY, json!({"nodeId": nodes})));
    let mut answers = answered(server, &requests).await;
    let document = document();
    for operation in [&COMPONENTS_RETRIEVE, &GET_CLASSES] {
        let answer =
            operations::send_documented(server, &document, operation, operation.path).await;
        answers.push((operation.id.to_string(), shown(&answer)));
    }
    let demo = core_server::bootstrap::demo().expect("the demo");
    for briefing in &demo.briefings {
        let body = json!({"tids": [briefing.channel], "briefingInfo":
            {"locale": briefing.locale, "briefingModuleCfgTid": briefing.module_cfg}});
        let answer = server
            .call(&RETRIEVE_CHANNEL_BRIEFINGS)
            .json(&body)
            .send()
            .await;
        assert_eq!(answer.status, 200, "{}", answer.text);
        answers.push((format!("briefing {body}"), shown(&answer)));
    }
    for asset in demo.assets {
        let query = format!("assetTid={}&versionNumber=1", asset.tid);
        let answer = server.call(&ASSETS_VERSIONS_BIN).query(&query).send().await;
        answers.push((
            format!("bin {query}"),
            format!("{} {:?}", answer.status, answer.bytes),
        ));
    }
    answers
}

/// What each request answers (labelled by operation, body and representation), in every
/// response representation its operation lists.
pub(crate) async fn answered(
    server: &TestServer,
    requests: &[(&'static Operation, Value)],
) -> Vec<(String, String)> {
    let mut answers = Vec::new();
    for (operation, body) in requests {
        for representation in representations(operation) {
            let answer = server
                .call(operation)
                .json(body)
                .accept(representation)
                .send()
                .await;
            answers.push((
                format!("{} {body} {representation:?}", operation.id),
                shown(&answer),
            ));
        }
    }
    answers
}

/// The representations an operation answers in (JSON alone for the JSON-only ones).
pub(crate) fn representations(operation: &Operation) -> Vec<Representation> {
    operation
        .response
        .media
        .iter()
        .map(|media| media.representation)
        .collect()
}

/// An answer as compared: status, media type and body, the time it was answered at
/// (`messageTime`) left out.
pub(crate) fn shown(answer: &Answer) -> String {
    let mut text = answer.text.clone();
    let mut from = 0;
    while let Some(found) = text[from..].find("messageTime") {
        let after = from + found + "messageTime".len();
        let Some(digit) = text[after..].find(|ch: char| ch.is_ascii_digit()) else {
            break;
        };
        let start = after + digit;
        let end = (start + "2024-01-01T00:00:00.000Z".len()).min(text.len());
        if text[start..end].ends_with('Z') {
            text.replace_range(start..end, "(answered at)");
        }
        from = start;
    }
    format!("{} {} {text}", answer.status, answer.content_type)
}

/// A list an operation answers in JSON.
async fn listed(
    server: &TestServer,
    operation: &'static Operation,
    body: &Value,
    key: &str,
) -> Value {
    let answer = server.call(operation).json(body).send().await;
    assert_eq!(answer.status, 200, "{}", answer.text);
    answer.json()[key].clone()
}

/// The ids of every classification node.
async fn node_ids(server: &TestServer) -> Vec<i64> {
    let answer = server
        .call(&CLASSES_RETRIEVE)
        .json(&json!({"withNodes": true, "flatNodes": true}))
        .accept(Representation::Json)
        .send()
        .await;
    answer.json()["nodes"]["node"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|node| node["id"].as_i64())
        .collect()
}
