//! `core-server export` (`bootstrap::export`), read back by `import`: a database made from a
//! fixture and changed through the API (keywords, messages) is exported, imported into an
//! empty database, and every read of what it holds answers the same there, byte for byte in
//! every representation, ids and times included; the operator's commands list the same tokens
//! and messages; the next record created gets the same id on both; exporting the copy gives
//! the same document. SQLite → SQLite, and where `CORE_TEST_POSTGRES_URL` is set SQLite →
//! PostgreSQL and PostgreSQL → SQLite. A database holding a kind the export does not carry yet
//! (the demo's assets) is refused, and nothing is written.

use contract_tests::{TestServer, backends, fixture};
use core_api::operations::{
    ATTRIBUTE_DEFINITIONS_QUERY, KEYWORDS_PERSIST, KEYWORDS_RETRIEVE, LOCALES_RETRIEVE,
    MESSAGES_PERSIST,
};
use core_api_support::Operation;
use core_server::{
    bootstrap::{
        self,
        export::{self, ExportError},
        progress::Silent,
    },
    storage::Database,
};
use serde_json::{Value, json};

use crate::migrate::{empty_database, operator_view, representations, shown};

contract_tests::trials!(
    an_exported_database_imports_answering_the_same,
    an_export_refuses_kinds_it_does_not_carry
);

async fn an_exported_database_imports_answering_the_same() {
    let urls = backends("export").await;
    let mut pairs = vec![(urls[0].clone(), urls[0].clone())];
    if let Some(postgres) = urls.get(1) {
        pairs.push((urls[0].clone(), postgres.clone()));
        pairs.push((postgres.clone(), urls[0].clone()));
    }
    for (from, to) in pairs {
        export_and_compare(&from, &to).await;
    }
}

/// One export from a database on `from`, its import into one on `to`, and the comparison.
async fn export_and_compare(from: &str, to: &str) {
    let source = TestServer::start_on(from).await;
    source.load(&fixture(catalogue())).await;
    change(&source).await;
    let document = exported(&source.database).await;
    let folder = folder();
    let file = folder.join("export.json");
    std::fs::write(&file, &document).expect("the export is written");
    let target_url = empty_database(to).await;
    let target = Database::connect(&target_url)
        .await
        .expect("the target opens");
    bootstrap::load_file(&target, &file)
        .await
        .expect("the export imports");
    assert_eq!(
        document,
        exported(&target).await,
        "{from} → {to}: exporting the copy gives the same document"
    );
    assert_eq!(
        operator_view(&source.database).await,
        operator_view(&target).await,
        "{from} → {to}: tokens and messages"
    );
    target.close().await;
    let copy = TestServer::start_existing(&target_url, &source.token).await;
    let (before, after) = (reads(&source).await, reads(&copy).await);
    assert_eq!(before.len(), after.len());
    for ((label, original), (_, imported)) in before.iter().zip(&after) {
        assert_eq!(original, imported, "{from} → {to}: {label}");
    }
    assert_eq!(
        created(&source).await,
        created(&copy).await,
        "{from} → {to}: the next id follows the largest one imported"
    );
    copy.stop().await;
    source.stop().await;
}

/// The fixture: every kind the export carries that the API does not create.
fn catalogue() -> Value {
    json!({
        "locales": [
            {"tid": "de_DE", "language": "de", "country": "DE", "name": "Deutsch",
             "contentLocale": true, "defaultContentLocale": true, "dateFormat": "dd.MM.yyyy"},
            {"tid": "en_US", "language": "en", "country": "US", "name": "English",
             "frontendLocale": true, "defaultFrontendLocale": true}
        ],
        "components": {"PIM": "ACTIVE", "DAM": "INACTIVE"},
        "attributeDefinitions": [
            {"tid": "color", "type": "text"}, {"tid": "manual", "type": "ref", "cardinality": 2}
        ],
        "channelTypes": ["print", "web"],
        "channelAttributes": ["color"],
        "keywords": [
            {"path": "/Materials", "names": {"de_DE": "Materialien"}},
            {"path": "/Materials/Cotton"},
            {"path": "/Seasons"}
        ],
        "users": ["ann"],
        "roles": [{"name": "editor", "modules": ["PIM"], "operations": ["keywordsRetrieve"]}],
        "tokens": [{"user": "ann", "roles": ["editor"], "expiresAt": "2099-01-31T00:00:00.000Z",
                    "token": "0123456789abcdef.0123456789abcdef0123456789abcdef"}]
    })
}

/// Changes the fixture through the API: a keyword tree (one of them created among existing
/// siblings) and messages.
async fn change(server: &TestServer) {
    let keywords = json!({"kwds": {"kwd": [
        {"parentPath": "/", "name": {"itm": [{"value": "Exported"}, {"value": "Exportiert", "loc": "de_DE"}]}},
        {"parentPath": "/Exported", "name": {"itm": [{"value": "Child"}]}},
        {"parentPath": "/Materials", "name": {"itm": [{"value": "Wool"}]}}
    ]}});
    let answer = server.call(&KEYWORDS_PERSIST).json(&keywords).send().await;
    assert_eq!(answer.status, 200, "{}", answer.text);
    let messages = json!({"messages": [
        {"tid": "M-1", "subject": "Moved", "body": "to a new home", "recipientUser": "ann"},
        {"subject": "Generated tid", "recipientRole": "editor"}
    ]});
    let answer = server.call(&MESSAGES_PERSIST).json(&messages).send().await;
    assert_eq!(answer.status, 200, "{}", answer.text);
}

/// An empty folder of the test's own.
fn folder() -> std::path::PathBuf {
    use std::sync::atomic::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let folder = std::env::temp_dir().join(format!(
        "core-export-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&folder);
    std::fs::create_dir_all(&folder).expect("a folder");
    folder
}

/// The export of a database, as text.
async fn exported(database: &Database) -> String {
    let mut out = Vec::new();
    export::export(database, &mut out, &mut Silent)
        .await
        .expect("the database is exported");
    String::from_utf8(out).expect("UTF-8")
}

/// The id of a root keyword created now.
async fn created(server: &TestServer) -> Value {
    let body =
        json!({"kwds": {"kwd": [{"parentPath": "/", "name": {"itm": [{"value": "Next"}]}}]}});
    let answer = server.call(&KEYWORDS_PERSIST).json(&body).send().await;
    assert_eq!(answer.status, 200, "{}", answer.text);
    answer.json()["responses"]["response"][0]["id"].clone()
}

/// What the read operations answer of the kinds exported, in every representation each lists.
async fn reads(server: &TestServer) -> Vec<(String, String)> {
    let requests: [(&'static Operation, Value); 3] = [
        (
            &LOCALES_RETRIEVE,
            json!({"mode": "ALL", "exportConfig": true}),
        ),
        (&KEYWORDS_RETRIEVE, json!({"path": "/", "level": -1})),
        (
            &ATTRIBUTE_DEFINITIONS_QUERY,
            json!({"types": ["text", "date", "number", "boolean", "ref", "table"]}),
        ),
    ];
    let mut answers = Vec::new();
    for (operation, body) in &requests {
        for representation in representations(operation) {
            let answer = server
                .call(operation)
                .json(body)
                .accept(representation)
                .send()
                .await;
            assert_eq!(answer.status, 200, "{}", answer.text);
            answers.push((
                format!("{} {body} {representation:?}", operation.id),
                shown(&answer),
            ));
        }
    }
    answers
}

async fn an_export_refuses_kinds_it_does_not_carry() {
    let server = TestServer::start_with_demo("sqlite::memory:").await;
    let folder = folder();
    let file = folder.join("export.json");
    let refused = export::export_file(&server.database, &file, false, &mut Silent).await;
    assert!(
        matches!(refused, Err(ExportError::NotCarried { table: "assets" })),
        "{refused:?}"
    );
    let left: Vec<_> = std::fs::read_dir(&folder).expect("the folder").collect();
    assert!(left.is_empty(), "nothing is written: {left:?}");
    std::fs::write(&file, "kept").expect("a file");
    let empty = TestServer::start().await;
    let refused = export::export_file(&empty.database, &file, false, &mut Silent).await;
    assert!(
        matches!(refused, Err(ExportError::Exists { .. })),
        "{refused:?}"
    );
    assert_eq!(std::fs::read_to_string(&file).expect("the file"), "kept");
    export::export_file(&empty.database, &file, true, &mut Silent)
        .await
        .expect("--force replaces it");
    let document: Value =
        serde_json::from_str(&std::fs::read_to_string(&file).expect("the file")).expect("JSON");
    assert_eq!(document["formatVersion"], bootstrap::FORMAT_VERSION);
    empty.stop().await;
    server.stop().await;
}
