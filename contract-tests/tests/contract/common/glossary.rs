//! `glossaryEntries/persist` and `glossaryEntries/perform` over HTTP (D-38, D-39): every item
//! message of the error table and of the decisions, what is stored, copies and moves; on SQLite
//! and, when `CORE_TEST_POSTGRES_URL` is set, PostgreSQL. The interface has no operation that
//! reads glossary entries, so state is checked through later items and in the database.

use contract_tests::{TestServer, backends, coverage, fixture, issue_item, post_json, records};
use core_api::messages as msg;
use core_api::operations as op;
use core_api::operations::{
    GLOSSARY_ENTRIES_PERFORM as PERFORM, GLOSSARY_ENTRIES_PERSIST as PERSIST,
};
use core_api_support::Operation;
use core_conformance::bodies::{delete, itm};
use serde_json::{Value, json};
use sqlx::Row;

use crate::answers::{self, Scenario};

async fn server(url: &str) -> TestServer {
    let server = TestServer::start_on(url).await;
    let glossaries = fixture(json!({
        "locales": [
            {"tid": "en_GB", "language": "en", "country": "GB", "name": "English"},
            {"tid": "de_DE", "language": "de", "country": "DE", "name": "Deutsch"},
            {"tid": "fr_FR", "language": "fr", "country": "FR", "name": "Français"}
        ],
        "glossaries": [
            {"tid": "GL-1", "name": "Clothing", "entries": [
                {"tid": "GE-1", "type": "term", "loc": "en_GB", "value": "trousers",
                 "translations": [{"loc": "de_DE", "value": "Hose", "similarity": 90},
                                  {"loc": "fr_FR", "value": "pantalon", "similarity": 100}]}
            ]},
            {"tid": "GL-2", "name": "Archive"}
        ]
    }));
    server.load(&glossaries).await;
    server
}

async fn post(server: &TestServer, operation: &'static Operation, body: Value) -> (u16, Value) {
    post_json(server, &server.token, operation, &body).await
}

async fn exchange(server: &TestServer, operation: &'static Operation, body: Value) -> Vec<Value> {
    records(server, &server.token, operation, &body).await
}

/// What the records of an operation say: status, action and description.
fn said<'r>(
    operation: &'static Operation,
    records: &'r [Value],
) -> coverage::Said<Vec<(&'r str, &'r str, &'r str)>> {
    coverage::said(operation, records, |record| {
        (
            record["status"].as_str().unwrap_or_default(),
            record["action"].as_str().unwrap_or_default(),
            record["description"].as_str().unwrap_or_default(),
        )
    })
}

fn meta(items: &[(&str, &str)]) -> Value {
    json!({"itm": items.iter().map(|(key, value)| json!({"key": key, "value": value})).collect::<Vec<_>>()})
}

/// An entry as stored: (glossary tid, loc, type, value, forbidden, editor, translations).
async fn stored(
    server: &TestServer,
    tid: &str,
) -> Option<(
    String,
    String,
    String,
    Option<String>,
    bool,
    Option<String>,
    Vec<(String, Option<String>, Option<i64>)>,
)> {
    let pool = server.database.reads();
    let row = sqlx::query(
        "SELECT e.id, g.tid AS glossary, e.loc, e.type, e.value, \
         CASE WHEN e.forbidden THEN 1 ELSE 0 END AS forbidden, e.last_edited_username \
         FROM glossary_entries e JOIN glossaries g ON g.id = e.glossary_id WHERE e.tid = $1",
    )
    .bind(tid)
    .fetch_optional(pool)
    .await
    .expect("reads")?;
    let id: i64 = row.get("id");
    let translations = sqlx::query(
        "SELECT loc, value, similarity FROM glossary_translations WHERE entry_id = $1 ORDER BY loc",
    )
    .bind(id)
    .fetch_all(pool)
    .await
    .expect("reads")
    .iter()
    .map(|row| (row.get("loc"), row.get("value"), row.get("similarity")))
    .collect();
    Some((
        row.get("glossary"),
        row.get("loc"),
        row.get("type"),
        row.get("value"),
        row.get::<i64, _>("forbidden") != 0,
        row.get("last_edited_username"),
        translations,
    ))
}

async fn persist_creates_updates_and_says_every_item_message() {
    for url in backends("glossary entries persist").await {
        let server = server(&url).await;
        let translation = json!({"itms": [{"loc": "de_DE", "mode": "delta", "type": "translation", "itm": [
            {"key": "similarity", "value": "80"}, {"key": "value", "value": "Hemd"}
        ]}]});
        let records = exchange(
            &server,
            &PERSIST,
            json!({"glossaryEntries": {"glossaryEntry": [
                {"parentTid": "GL-1", "loc": "en_GB", "type": "term",
                 "meta": meta(&[("value", "shirt"), ("forbidden", "true")]), "links": translation},
                {"parentId": 1, "loc": "en_GB", "type": "phrase"},
                {"tid": "GE-404", "meta": meta(&[("value", "x")])},
                {"id": 999999},
                {"loc": "en_GB", "type": "term"},
                {"parentTid": "GL-404", "loc": "en_GB", "type": "term"},
                {"parentId": 999999, "loc": "en_GB", "type": "term"},
                {"parentId": 1, "type": "term"},
                {"parentId": 1, "loc": "en_GB"},
                {"parentId": 1, "loc": "xx_XX", "type": "term"},
                {"parentId": 1, "loc": "en_GB", "type": "term", "meta": meta(&[("forbidden", "maybe")])},
                {"tid": "GE-1", "meta": meta(&[("value", "pants")]),
                 "links": {"itms": [{"loc": "de_DE", "itm": [{"key": "value", "value": "Hosen"}, {"key": "similarity", "value": "101"}]}]}},
                {"tid": "GE-1", "meta": meta(&[("value", "pants"), ("lastEditedUsername", "bob")]),
                 "links": {"itms": [{"loc": "de_DE", "itm": [{"key": "value", "value": "Hosen"}, {"key": "similarity", "value": "95"}]}]}}
            ]}}),
        )
        .await;
        assert_eq!(
            said(&PERSIST, &records),
            [
                (
                    "SUCCESS",
                    "create",
                    msg::THE_GLOSSARY_ENTRY_HAS_BEEN_CREATED_SUCCESSFULLY
                ),
                ("ERROR", "create", "Unknown translation entry type 'phrase'"),
                (
                    "ERROR",
                    "update",
                    "Sentence with identity 'GE-404' not found."
                ),
                (
                    "ERROR",
                    "update",
                    "Sentence with identity '999999' not found."
                ),
                (
                    "ERROR",
                    "create",
                    msg::GLOSSARY_ENTRY_DOES_NOT_CONTAIN_A_LINK_TO_A_GLOSSARY
                ),
                (
                    "ERROR",
                    "create",
                    msg::THERE_IS_NO_GLOSSARY_WITH_THE_GIVEN_IDENTITY
                ),
                (
                    "ERROR",
                    "create",
                    msg::THERE_IS_NO_GLOSSARY_WITH_THE_GIVEN_IDENTITY
                ),
                ("ERROR", "create", "Missing required value 'loc'"),
                ("ERROR", "create", "Missing required value 'type'"),
                ("ERROR", "create", "Unknown locale 'xx_XX'"),
                ("ERROR", "create", "Invalid value 'maybe' for 'forbidden'"),
                ("ERROR", "update", "Invalid value '101' for 'similarity'"),
                (
                    "SUCCESS",
                    "update",
                    msg::THE_GLOSSARY_ENTRY_HAS_BEEN_UPDATED_SUCCESSFULLY
                ),
            ]
        );
        assert_eq!(records[0]["dataType"], "glossaryEntry");
        assert!(records[0]["id"].is_i64());
        let created = records[0]["tid"]
            .as_str()
            .expect("a generated tid")
            .to_string();
        assert_eq!(created.len(), 36);
        assert_eq!(records[12]["tid"], "GE-1");
        let shirt = stored(&server, &created).await.expect("stored");
        assert_eq!(
            shirt,
            (
                "GL-1".to_string(),
                "en_GB".to_string(),
                "term".to_string(),
                Some("shirt".to_string()),
                true,
                Some("tester".to_string()),
                vec![("de_DE".to_string(), Some("Hemd".to_string()), Some(80))]
            )
        );
        // The update replaced the de_DE translation and kept fr_FR; the refused one wrote nothing.
        let trousers = stored(&server, "GE-1").await.expect("stored");
        assert_eq!(trousers.3.as_deref(), Some("pants"));
        // The token's user is the editor, not the `lastEditedUsername` the message gave (D-39).
        assert_eq!(trousers.5.as_deref(), Some("tester"));
        assert_eq!(
            trousers.6,
            [
                ("de_DE".to_string(), Some("Hosen".to_string()), Some(95)),
                ("fr_FR".to_string(), Some("pantalon".to_string()), Some(100))
            ]
        );
        server.stop().await;
    }
}

async fn perform_deletes_copies_and_moves() {
    for url in backends("glossary entries perform").await {
        let server = server(&url).await;
        let action = |kind: &str, tid: &str, target: Option<&str>| {
            let mut action = json!({"dataType": "glossaryEntry", "type": kind, "tid": tid});
            if let Some(target) = target {
                action["meta"] = meta(&[("glossaryId", target)]);
            }
            action
        };
        let records = exchange(
            &server,
            &PERFORM,
            json!({"actions": {"action": [
                action("copyToGlossary", "GE-1", Some("2")),
                action("copyToGlossary", "GE-404", Some("2")),
                action("moveToGlossary", "GE-1", Some("99")),
                action("moveToGlossary", "GE-1", None),
                action("archive", "GE-1", None),
                delete("keyword", json!({"tid": "GE-1"})),
            ]}}),
        )
        .await;
        assert_eq!(
            said(&PERFORM, &records),
            [
                (
                    "SUCCESS",
                    "copyToGlossary",
                    msg::THE_GLOSSARY_ENTRY_HAS_BEEN_COPIED_SUCCESSFULLY
                ),
                (
                    "ERROR",
                    "copyToGlossary",
                    msg::THERE_IS_NO_GLOSSARY_ENTRY_WITH_THE_GIVEN_TID_IDENTITY
                ),
                (
                    "ERROR",
                    "moveToGlossary",
                    msg::THERE_IS_NO_GLOSSARY_WITH_THE_GIVEN_IDENTITY
                ),
                (
                    "ERROR",
                    "moveToGlossary",
                    msg::MISSING_REQUIRED_VALUE_GLOSSARYID
                ),
                ("ERROR", "archive", "Unsupported action type 'archive'"),
                ("ERROR", "delete", "Unsupported data type 'keyword'"),
            ]
        );
        let details = &records[0]["details"]["itm"];
        assert_eq!(details[0]["key"], "newId");
        assert_eq!(details[1]["key"], "newTid");
        let copy = details[1]["value"].as_str().expect("a tid").to_string();
        // The copy is in GL-2 with the translations; the original stays in GL-1.
        let copied = stored(&server, &copy).await.expect("the copy");
        assert_eq!(copied.0, "GL-2");
        assert_eq!(copied.6.len(), 2);
        assert_eq!(
            stored(&server, "GE-1").await.expect("the original").0,
            "GL-1"
        );
        // A move keeps the tid; a delete removes the entry, and then nothing finds it.
        let id = records[0]["id"].as_i64().expect("an id");
        let records = exchange(
            &server,
            &PERFORM,
            json!({"actions": {"action": [
                {"dataType": "glossaryEntry", "type": "moveToGlossary", "id": id, "meta": meta(&[("glossaryId", "2")])},
                action("delete", &copy, None),
                action("delete", &copy, None),
            ]}}),
        )
        .await;
        assert_eq!(
            said(&PERFORM, &records),
            [
                (
                    "SUCCESS",
                    "moveToGlossary",
                    msg::THE_GLOSSARY_ENTRY_HAS_BEEN_MOVED_SUCCESSFULLY
                ),
                (
                    "SUCCESS",
                    "delete",
                    msg::THE_GLOSSARY_ENTRY_HAS_BEEN_DELETED_SUCCESSFULLY
                ),
                (
                    "ERROR",
                    "delete",
                    msg::THERE_IS_NO_GLOSSARY_ENTRY_WITH_THE_GIVEN_TID_IDENTITY
                ),
            ]
        );
        assert_eq!(stored(&server, "GE-1").await.expect("moved").0, "GL-2");
        assert!(stored(&server, &copy).await.is_none());
        let updated = exchange(
            &server,
            &PERSIST,
            json!({"glossaryEntries": {"glossaryEntry": [{"tid": copy}]}}),
        )
        .await;
        assert_eq!(
            coverage::said(&PERSIST, &updated, |record| record["description"].as_str()),
            [Some(
                format!("Sentence with identity '{copy}' not found.").as_str()
            )]
        );
        // A glossaryId that is not an integer is a wrong data type: 400, nothing applied.
        let (status, answer) = post(
            &server,
            &PERFORM,
            json!({"actions": {"action": [action("delete", "GE-1", None), action("copyToGlossary", "GE-1", Some("two"))]}}),
        )
        .await;
        assert_eq!(status, 400, "{answer}");
        assert_eq!(issue_item(&answer, "code"), Some("1003"));
        assert!(stored(&server, "GE-1").await.is_some());
        server.stop().await;
    }
}

/// The exchanges whose answers are snapshotted in every representation (`answers`).
fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario::new(
            "glossary_entries_persist",
            &op::GLOSSARY_ENTRIES_PERSIST,
            json!({"glossaryEntries": {"glossaryEntry": [
                {"parentTid": "GL-TEXTILES", "loc": "en_GB", "type": "term",
                 "meta": {"itm": itm(&[("value", "wool"), ("forbidden", "false"), ("lastEditedUsername", "editor"), ("lastEditedDate", "2026-01-12T10:00:00.000Z")])},
                 "links": {"itms": [{"loc": "de_DE", "mode": "delta", "type": "translation", "itm": itm(&[("similarity", "100"), ("value", "Wolle")])}]}},
                {"tid": "GE-LINEN", "meta": {"itm": itm(&[("value", "linen cloth"), ("lastEditedUsername", "editor"), ("lastEditedDate", "2026-01-12T10:00:00.000Z")])}},
                {"parentId": 1, "loc": "en_GB", "type": "phrase"},
                {"tid": "GE-404"},
                {"loc": "en_GB", "type": "term"},
                {"parentTid": "GL-404", "loc": "en_GB", "type": "term"},
                {"parentId": 1, "type": "term"},
                {"parentId": 1, "loc": "xx_XX", "type": "term"},
                {"parentId": 1, "loc": "en_GB", "type": "term", "meta": {"itm": itm(&[("forbidden", "maybe")])}}
            ]}}),
        ),
        Scenario::new(
            "glossary_entries_perform",
            &op::GLOSSARY_ENTRIES_PERFORM,
            json!({"actions": {"action": [
                {"dataType": "glossaryEntry", "type": "copyToGlossary", "tid": "GE-COTTON", "meta": {"itm": itm(&[("glossaryId", "2")])}},
                {"dataType": "glossaryEntry", "type": "moveToGlossary", "tid": "GE-LINEN", "meta": {"itm": itm(&[("glossaryId", "2")])}},
                delete("glossaryEntry", json!({"tid": "GE-CARE"})),
                delete("glossaryEntry", json!({"tid": "GE-404"})),
                {"dataType": "glossaryEntry", "type": "moveToGlossary", "tid": "GE-SALE", "meta": {"itm": itm(&[("glossaryId", "99")])}},
                {"dataType": "glossaryEntry", "type": "copyToGlossary", "tid": "GE-SALE"},
                {"dataType": "glossaryEntry", "type": "archive", "tid": "GE-SALE"},
                delete("keyword", json!({"tid": "GE-SALE"}))
            ]}}),
        ),
    ]
}

async fn answers_in_every_representation() {
    answers::take(&scenarios()).await;
}

inventory::submit!(answers::Scenarios(scenarios));

contract_tests::trials!(
    persist_creates_updates_and_says_every_item_message,
    perform_deletes_copies_and_moves,
    answers_in_every_representation,
);
