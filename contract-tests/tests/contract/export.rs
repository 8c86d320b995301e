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
    ASSETS_VERSIONS_BIN, ATTRIBUTE_DEFINITIONS_QUERY, CLASSES_RETRIEVE, GLOSSARY_ENTRIES_PERSIST,
    KEYWORDS_PERSIST, KEYWORDS_RETRIEVE, LOCALES_RETRIEVE, MESSAGES_PERSIST,
};
use std::{collections::BTreeMap, path::Path};

use contract_tests::base64;
use core_api_support::Operation;
use core_server::{
    bootstrap::{
        self,
        export::{self, ExportError, Files},
        progress::Silent,
    },
    storage::{Backend, Database, transfer::TABLES},
};
use serde_json::{Value, json};

use crate::migrate::{self, answered, empty_database, operator_view};

contract_tests::trials!(
    an_exported_fixture_imports_answering_the_same,
    an_exported_demo_imports_answering_the_same,
    an_exported_catalogue_of_100k_records_imports_answering_the_same,
    the_export_carries_every_table,
    an_export_refuses_a_file_that_exists
);

/// What is exported: which database, changed how, and read how.
#[derive(Debug, Clone, Copy)]
enum Catalogue {
    /// A fixture of the reference kinds, changed through the API (keywords, messages, a
    /// glossary entry).
    Fixture,
    /// The demo, changed through the API by every documented batch request and a few more.
    Demo,
    /// A generated catalogue of 100,000 records ([`generated`]).
    Large,
}

async fn an_exported_fixture_imports_answering_the_same() {
    round_trips(Catalogue::Fixture).await;
}

async fn an_exported_demo_imports_answering_the_same() {
    round_trips(Catalogue::Demo).await;
}

async fn an_exported_catalogue_of_100k_records_imports_answering_the_same() {
    round_trips(Catalogue::Large).await;
}

/// SQLite → SQLite, and where PostgreSQL is tested SQLite → PostgreSQL and back.
async fn round_trips(catalogue: Catalogue) {
    let urls = backends("export").await;
    let mut pairs = vec![(urls[0].clone(), urls[0].clone())];
    if let Some(postgres) = urls.get(1) {
        pairs.push((urls[0].clone(), postgres.clone()));
        pairs.push((postgres.clone(), urls[0].clone()));
    }
    for (from, to) in pairs {
        export_and_compare(catalogue, &from, &to).await;
    }
}

/// The source of an export: a server on `from` with the catalogue, changed through the API.
async fn source(catalogue: Catalogue, from: &str) -> TestServer {
    match catalogue {
        Catalogue::Fixture => {
            let source = TestServer::start_on(from).await;
            source.load(&fixture(self::catalogue())).await;
            change(&source).await;
            source
        }
        Catalogue::Large => {
            let source = TestServer::start_on(from).await;
            source.load(&fixture(generated())).await;
            change(&source).await;
            source
        }
        Catalogue::Demo => {
            let source = TestServer::start_on(from).await;
            spread_sequences(&source.database).await;
            source
                .load(&core_server::bootstrap::demo().expect("the demo"))
                .await;
            migrate::change(&source).await;
            source
        }
    }
}

/// Moves every table's sequence to a start of its own (the n-th table's next id is n·1000 + 1,
/// past the records a test setup made), so that an import that handed out ids rather than
/// keeping them, or mixed up two tables' ids, answers differently.
async fn spread_sequences(database: &Database) {
    let mut transaction = database.write().await.expect("a transaction");
    let identities = TABLES.iter().filter(|table| table.identity);
    for (index, table) in identities.enumerate() {
        let start = (index as i64 + 1) * 1000;
        let statements = match database.backend() {
            Backend::Sqlite => vec![
                format!("DELETE FROM sqlite_sequence WHERE name = '{}'", table.name),
                format!(
                    "INSERT INTO sqlite_sequence (name, seq) SELECT '{0}', MAX({1}, COALESCE(MAX(id), 0)) FROM {0}",
                    table.name, start
                ),
            ],
            Backend::Postgres => vec![format!(
                "SELECT setval(pg_get_serial_sequence('{0}', 'id'), GREATEST({1}, (SELECT COALESCE(MAX(id), 0) FROM {0})))",
                table.name, start
            )],
        };
        for statement in statements {
            sqlx::raw_sql(sqlx::AssertSqlSafe(statement))
                .execute(&mut *transaction)
                .await
                .expect("the sequence moves");
        }
    }
    transaction.commit().await.expect("committed");
}

/// What every read operation answers of a catalogue.
async fn read(catalogue: Catalogue, server: &TestServer) -> Vec<(String, String)> {
    match catalogue {
        Catalogue::Fixture => reads(server).await,
        Catalogue::Large => sample(server).await,
        Catalogue::Demo => migrate::reads(server).await,
    }
}

/// One export from a database on `from`, its import into one on `to`, and the comparison.
async fn export_and_compare(catalogue: Catalogue, from: &str, to: &str) {
    let source = source(catalogue, from).await;
    // The source writes the last uses of tokens in the background (every `LAST_USE_FLUSH`): an
    // export during which one was written is taken again, so that the operator's view read
    // around it is the one it holds.
    let (folder, document, view) = loop {
        let view = operator_view(&source.database).await;
        let folder = folder();
        let document = exported(&source.database, &folder).await;
        if operator_view(&source.database).await == view {
            break (folder, document, view);
        }
    };
    let file = folder.join("export.json");
    std::fs::write(&file, &document).expect("the export is written");
    let target_url = empty_database(to).await;
    let target = Database::connect(&target_url)
        .await
        .expect("the target opens");
    bootstrap::load_file(&target, &file)
        .await
        .expect("the export imports");
    let again = self::folder();
    assert_eq!(
        document,
        exported(&target, &again).await,
        "{catalogue:?} {from} → {to}: exporting the copy gives the same document"
    );
    assert_eq!(
        binaries(&folder),
        binaries(&again),
        "{catalogue:?} {from} → {to}: and the same binaries"
    );
    assert_eq!(
        view,
        operator_view(&target).await,
        "{catalogue:?} {from} → {to}: tokens and messages"
    );
    target.close().await;
    let copy = TestServer::start_existing(&target_url, &source.token).await;
    let (before, after) = (read(catalogue, &source).await, read(catalogue, &copy).await);
    assert_eq!(before.len(), after.len());
    for ((label, original), (_, imported)) in before.iter().zip(&after) {
        assert_eq!(original, imported, "{catalogue:?} {from} → {to}: {label}");
    }
    assert_eq!(
        created(&source).await,
        created(&copy).await,
        "{catalogue:?} {from} → {to}: the next id follows the largest one imported"
    );
    copy.stop().await;
    source.stop().await;
    let _ = std::fs::remove_dir_all(&folder);
    let _ = std::fs::remove_dir_all(&again);
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
        "glossaries": [{"tid": "GL-1", "name": "Textiles", "languages": ["de_DE", "en_US"],
            "entries": [
                {"tid": "E-1", "type": "term", "loc": "de_DE", "value": "Baumwolle",
                 "translations": [{"loc": "en_US", "value": "cotton", "similarity": 90}]},
                {"tid": "E-2", "type": "sentence", "loc": "de_DE", "value": "Nicht bügeln",
                 "forbidden": true}
            ]}],
        "assets": [
            {"tid": "A-1", "name": "Label", "path": "/labels/a1.png", "restrictedTo": ["editor"],
             "versions": [
                {"versionNumber": 1, "mediaType": "image/png", "fileName": "a1.png",
                 "content": {"base64": base64(b"first version")},
                 "previews": [{"format": "thumbnail", "mediaType": "image/png",
                               "content": {"base64": base64(b"small")}}]},
                {"versionNumber": 2, "mediaType": "image/png",
                 "content": {"base64": base64(vec![7u8; 3 << 20])}}
             ]},
            {"tid": "A-2", "versions": []}
        ],
        "keywords": [
            {"path": "/Materials", "names": {"de_DE": "Materialien"}, "assets": ["A-1", "A-2"]},
            {"path": "/Materials/Cotton"},
            {"path": "/Seasons"}
        ],
        "users": ["ann"],
        "roles": [{"name": "editor", "modules": ["PIM"], "operations": ["keywordsRetrieve"]}],
        "tokens": [{"user": "ann", "roles": ["editor"], "expiresAt": "2099-01-31T00:00:00.000Z",
                    "token": "0123456789abcdef.0123456789abcdef0123456789abcdef"}]
    })
}

/// A catalogue of 100,000 records on the fixture's reference data: 80,000 keywords (a tree ten
/// wide, every tenth with a name), a glossary of 10,000 entries (every other one translated),
/// 5,000 products, each classified under one of 5,000 classification nodes.
fn generated() -> Value {
    let mut document = catalogue();
    let mut keywords = document["keywords"].as_array().cloned().unwrap_or_default();
    keywords.extend((0..80_000).map(|index: u32| {
        let mut path = String::new();
        let mut rest = index;
        loop {
            path = format!("/K{}{path}", rest % 10);
            if rest < 10 {
                break;
            }
            rest = rest / 10 - 1;
        }
        if index.is_multiple_of(10) {
            json!({"path": path, "names": {"de_DE": format!("Schlagwort {index}")}})
        } else {
            json!({"path": path})
        }
    }));
    let entries: Vec<Value> = (0..10_000)
        .map(|index: u32| {
            let mut entry = json!({"tid": format!("GE-{index}"), "type": "term", "loc": "de_DE",
                "value": format!("Begriff {index}")});
            if index.is_multiple_of(2) {
                entry["translations"] = json!([{"loc": "en_US", "value": format!("term {index}")}]);
            }
            entry
        })
        .collect();
    let products: Vec<Value> = (0..5_000)
        .map(|index| json!({"tid": format!("P-{index}"), "name": format!("Product {index}")}))
        .collect();
    let mut nodes = vec![json!({"path": "/CL"})];
    for index in 0..50 {
        nodes.push(json!({"path": format!("/CL/N{index}"),
            "names": {"de_DE": format!("Knoten {index}")}, "products": [format!("P-{index}")]}));
    }
    for index in 0..4_949 {
        nodes.push(json!({"path": format!("/CL/N{}/M{index}", index % 50),
            "products": [format!("P-{}", index + 50)]}));
    }
    document["keywords"] = Value::Array(keywords);
    if let Some(glossaries) = document["glossaries"].as_array_mut() {
        glossaries.push(json!({"tid": "GL-LARGE", "name": "Large", "entries": entries}));
    }
    document["products"] = Value::Array(products);
    document["classifications"] = json!([{"tid": "CL", "nodes": nodes}]);
    document
}

/// A sample of what the reads of the generated catalogue answer: one keyword subtree, the
/// classification's nodes and the node attributes, in every representation.
async fn sample(server: &TestServer) -> Vec<(String, String)> {
    let requests: [(&'static Operation, Value); 3] = [
        (
            &KEYWORDS_RETRIEVE,
            json!({"path": "/K3/K5", "level": -1, "retrieveLinks": true}),
        ),
        (
            &CLASSES_RETRIEVE,
            json!({"withNodes": true, "flatNodes": true}),
        ),
        (
            &LOCALES_RETRIEVE,
            json!({"mode": "ALL", "exportConfig": true}),
        ),
    ];
    let answers = answered(server, &requests).await;
    for (label, answer) in &answers {
        assert!(answer.starts_with("200 "), "{label}: {answer}");
    }
    answers
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
    let entry = json!({"glossaryEntries": {"glossaryEntry": [{
        "parentTid": "GL-1", "loc": "de_DE", "type": "term",
        "meta": {"itm": [{"key": "value", "loc": "de_DE", "value": "Wolle"}]}
    }]}});
    let answer = server
        .call(&GLOSSARY_ENTRIES_PERSIST)
        .json(&entry)
        .send()
        .await;
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

/// The export of a database, as text, its binaries written into `folder` as `export.json`
/// beside them would name them.
async fn exported(database: &Database, folder: &Path) -> String {
    let mut out = Vec::new();
    let mut files = Files::new(
        folder.join("export.json.files"),
        "export.json.files".to_string(),
    );
    export::export(database, &mut out, &mut files, &mut Silent)
        .await
        .expect("the database is exported");
    String::from_utf8(out).expect("UTF-8")
}

/// The binaries of an export, by file name.
fn binaries(folder: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(folder.join("export.json.files"))
        .expect("the binaries' folder")
        .map(|entry| {
            let path = entry.expect("an entry").path();
            let name = path
                .file_name()
                .expect("a name")
                .to_string_lossy()
                .into_owned();
            (name, std::fs::read(&path).expect("a binary"))
        })
        .collect()
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
        (
            &KEYWORDS_RETRIEVE,
            json!({"path": "/", "level": -1, "retrieveLinks": true}),
        ),
        (
            &ATTRIBUTE_DEFINITIONS_QUERY,
            json!({"types": ["text", "date", "number", "boolean", "ref", "table"]}),
        ),
    ];
    let mut answers = answered(server, &requests).await;
    for (label, answer) in &answers {
        assert!(answer.starts_with("200 "), "{label}: {answer}");
    }
    for query in [
        "assetTid=A-1&versionNumber=1",
        "assetTid=A-1&versionNumber=2",
    ] {
        let answer = server.call(&ASSETS_VERSIONS_BIN).query(query).send().await;
        answers.push((
            format!("bin {query}"),
            format!("{} {:?}", answer.status, answer.bytes),
        ));
    }
    answers
}

/// Every table of the schema is carried or left out on purpose: a migration that adds a table
/// fails here until the export carries it (and, until then, an export of a database with rows
/// in it is refused rather than leaving them behind).
async fn the_export_carries_every_table() {
    let mut listed: Vec<&str> = export::CARRIED
        .iter()
        .copied()
        .chain(export::NOT_EXPORTED.iter().map(|(table, _)| *table))
        .collect();
    listed.sort_unstable();
    let mut tables: Vec<&str> = TABLES.iter().map(|table| table.name).collect();
    tables.sort_unstable();
    assert_eq!(
        listed, tables,
        "export::CARRIED and NOT_EXPORTED are the tables"
    );
}

/// An existing file, or a binaries' folder that holds anything, is refused without `--force`
/// and left as it is; `--force` replaces both.
async fn an_export_refuses_a_file_that_exists() {
    let server = TestServer::start_with_demo("sqlite::memory:").await;
    let folder = folder();
    let file = folder.join("export.json");
    std::fs::write(&file, "kept").expect("a file");
    let refused = export::export_file(&server.database, &file, false, &mut Silent).await;
    assert!(
        matches!(refused, Err(ExportError::Exists { .. })),
        "{refused:?}"
    );
    assert_eq!(std::fs::read_to_string(&file).expect("the file"), "kept");
    std::fs::remove_file(&file).expect("removed");
    let binaries_folder = folder.join("export.json.files");
    std::fs::create_dir_all(&binaries_folder).expect("a folder");
    std::fs::write(binaries_folder.join("stray"), "kept").expect("a file");
    let refused = export::export_file(&server.database, &file, false, &mut Silent).await;
    assert!(
        matches!(refused, Err(ExportError::Exists { .. })),
        "{refused:?}"
    );
    assert!(!file.exists(), "nothing is written");
    export::export_file(&server.database, &file, true, &mut Silent)
        .await
        .expect("--force replaces them");
    assert!(
        !binaries_folder.join("stray").exists(),
        "the folder is replaced"
    );
    let document: Value =
        serde_json::from_str(&std::fs::read_to_string(&file).expect("the file")).expect("JSON");
    assert_eq!(document["formatVersion"], bootstrap::FORMAT_VERSION);
    let versions = document["assets"][0]["versions"][0]["content"]["file"]
        .as_str()
        .expect("a binary is a file beside the document");
    assert!(folder.join(versions).is_file(), "{versions}");
    let left: Vec<String> = std::fs::read_dir(&folder)
        .expect("the folder")
        .map(|entry| {
            entry
                .expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    assert_eq!(
        left.len(),
        2,
        "the document and its binaries, nothing partial: {left:?}"
    );
    server.stop().await;
    let _ = std::fs::remove_dir_all(&folder);
}
