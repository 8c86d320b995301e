//! `keywords/persist` over HTTP: each item succeeds or fails alone, bad requests are refused
//! whole, the representations agree, and concurrent clients never share an id.

use core_conformance::bodies::name;
use std::collections::HashSet;

use contract_tests::{
    backends,
    coverage::{said, status_and_description},
    issue_item, media,
};
use core_api::messages as msg;
use core_api::operations as op;
use core_api::operations::{KEYWORDS_PERSIST as PERSIST, KEYWORDS_RETRIEVE as RETRIEVE};
use core_api_support::Representation::{Compact, Json, Xml};
use serde_json::{Value, json};

use super::{paths, persist, post, retrieve, server};
use crate::answers::{self, Scenario};

async fn persist_creates_updates_and_refuses_each_item_alone() {
    for url in backends("keywords persist").await {
        let server = server(&url).await;
        // The specification's example, in XML.
        let example = r#"<?xml version="1.0" encoding="UTF-8"?>
<pim xmlns="urn:core-interface:v1" schemaVersion="5.6.0">
  <meta><itm key="messageType">request</itm><itm key="messageTime">2024-03-01T09:15:00.000Z</itm><itm key="foo">ignored</itm></meta>
  <kwds>
    <kwd parentPath="/"><name><itm>Materials</itm><itm loc="de_DE">Materialien</itm></name></kwd>
    <kwd parentPath="/Materials"><name><itm>Cotton</itm><itm loc="de_DE">Baumwolle</itm></name></kwd>
  </kwds>
</pim>"#;
        let answer = server
            .call(&PERSIST)
            .body(Xml, example)
            .accept(Json)
            .send()
            .await;
        assert_eq!(answer.status, 200);
        let body = answer.json();
        let records = body["responses"]["response"].as_array().expect("records");
        assert_eq!(
            said(&PERSIST, records, status_and_description),
            [("SUCCESS", msg::THE_KEYWORD_HAS_BEEN_CREATED_SUCCESSFULLY); 2]
        );
        for (record, path) in records.iter().zip(["/Materials", "/Materials/Cotton"]) {
            assert_eq!(record["action"], "create");
            assert_eq!(record["dataType"], "keyword");
            assert_eq!(record["path"], path);
            assert!(record["id"].is_i64());
        }
        let meta = &body["meta"]["itm"];
        assert_eq!(meta[0], json!({"key": "messageType", "value": "request"}));
        assert_eq!(meta[1]["key"], "messageTime");
        assert_eq!(meta[2], json!({"key": "sourceEnv", "value": "web"}));
        assert_eq!(body["schemaVersion"], "5.6.0");
        let cotton = records[1]["id"].as_i64().expect("an id");
        let materials = records[0]["id"].as_i64().expect("an id");

        // One batch: each item alone, records in request order.
        let records = persist(
            &server,
            json!([
                {"name": name("Brand")},
                {"parentId": 999999, "name": name("Orphan")},
                {"parentPath": "/Nope", "name": name("Orphan")},
                {"parentPath": "/", "name": name("Materials")},
                {"parentId": materials, "name": name("Wool")},
                {"name": {"itm": [{"value": "Ohne", "loc": "de_DE"}]}},
                {"name": name("a/b")},
                {"name": name("")},
                {"id": 999999, "name": name("Ghost")},
                {"path": "/Ghost", "name": name("Ghost")},
                {"id": cotton, "parentPath": "/", "name": name("Cotton")},
                {"name": {"itm": [{"value": "Twice"}, {"value": "Again"}]}},
                {"name": {"itm": [{"value": "Twice"}, {"value": "X", "loc": "de_DE"}, {"value": "Y", "loc": "de_DE"}]}}
            ]),
        )
        .await;
        assert_eq!(
            said(&PERSIST, &records, status_and_description),
            [
                ("SUCCESS", msg::THE_KEYWORD_HAS_BEEN_CREATED_SUCCESSFULLY),
                ("ERROR", "Parent keyword with identity '999999' not found"),
                ("ERROR", "Parent keyword with path '/Nope' not found"),
                ("ERROR", "Keyword '/Materials' already exists"),
                ("SUCCESS", msg::THE_KEYWORD_HAS_BEEN_CREATED_SUCCESSFULLY),
                ("ERROR", msg::MISSING_REQUIRED_VALUE_NAME),
                (
                    "ERROR",
                    "Invalid keyword name 'a/b': a name must not contain '/'"
                ),
                ("ERROR", msg::MISSING_REQUIRED_VALUE_NAME),
                ("ERROR", "Keyword with identity '999999' not found"),
                ("ERROR", "Keyword with path '/Ghost' not found"),
                (
                    "ERROR",
                    "Keyword '/Materials/Cotton' cannot be moved to another parent"
                ),
                ("ERROR", msg::THE_DEFAULT_NAME_IS_GIVEN_MORE_THAN_ONCE),
                (
                    "ERROR",
                    "The name for locale 'de_DE' is given more than once"
                ),
            ]
        );
        assert_eq!(records[4]["path"], "/Materials/Wool");
        assert_eq!(records[8]["action"], "update");
        assert_eq!(records[8]["id"], 999999);
        assert_eq!(records[9]["path"], "/Ghost");
        // The failed items wrote nothing, the others everything.
        let all = retrieve(&server, json!({"path": "/", "level": -1})).await;
        assert_eq!(
            paths(&all),
            [
                "/Season",
                "/Season/Summer",
                "/Materials",
                "/Materials/Cotton",
                "/Materials/Wool",
                "/Brand"
            ]
        );

        // Rename by id: the path of the keyword and of its descendants follows, the id stays;
        // the listed locale is replaced and the others kept.
        persist(&server, json!([{"parentId": cotton, "name": name("Pima")}])).await;
        let records = persist(
            &server,
            json!([{"id": cotton, "name": {"itm": [{"value": "Organic Cotton"}]}}]),
        )
        .await;
        assert_eq!(
            said(&PERSIST, &records, status_and_description),
            [("SUCCESS", msg::THE_KEYWORD_HAS_BEEN_UPDATED_SUCCESSFULLY)]
        );
        assert_eq!(records[0]["action"], "update");
        assert_eq!(records[0]["id"], cotton);
        assert_eq!(records[0]["path"], "/Materials/Organic Cotton");
        let below = retrieve(&server, json!({"path": "/Materials", "level": -1})).await;
        assert_eq!(
            paths(&below),
            [
                "/Materials/Organic Cotton",
                "/Materials/Organic Cotton/Pima",
                "/Materials/Wool"
            ]
        );
        assert_eq!(below[0]["id"], cotton);
        assert_eq!(
            below[0]["name"]["itm"],
            json!([{"value": "Organic Cotton"}, {"value": "Baumwolle", "loc": "de_DE"}])
        );
        assert_eq!(below[1]["meta"]["itm"][2]["value"], "Organic Cotton");
        // The whole subtree below the renamed keyword is read by its new place (its sort key).
        let renamed = json!({"path": "/Materials/Organic Cotton", "level": -1});
        let renamed = retrieve(&server, renamed).await;
        assert_eq!(paths(&renamed), ["/Materials/Organic Cotton/Pima"]);
        let (status, _) = post(&server, &RETRIEVE, &json!({"path": "/Materials/Cotton"})).await;
        assert_eq!(status, 404);
        // Update by path, a localized name only; a rename onto a sibling is refused.
        let records = persist(
            &server,
            json!([
                {"path": "/Materials/Wool", "parentPath": "/Materials", "name": {"itm": [{"value": "Wolle", "loc": "de_DE"}]}},
                {"path": "/Materials/Wool", "name": name("Organic Cotton")}
            ]),
        )
        .await;
        assert_eq!(
            said(&PERSIST, &records, status_and_description),
            [
                ("SUCCESS", msg::THE_KEYWORD_HAS_BEEN_UPDATED_SUCCESSFULLY),
                (
                    "ERROR",
                    "Keyword '/Materials/Organic Cotton' already exists"
                ),
            ]
        );
        let wool = retrieve(&server, json!({"path": "/Materials"})).await;
        assert_eq!(
            wool[1]["name"]["itm"],
            json!([{"value": "Wool"}, {"value": "Wolle", "loc": "de_DE"}])
        );
        server.stop().await;
    }
}

async fn persist_refuses_bad_requests_whole() {
    for url in backends("keywords persist refusals").await {
        let server = server(&url).await;
        let many: Vec<Value> = (0..1001)
            .map(|n| json!({"name": name(&format!("K{n}"))}))
            .collect();
        for (request, message) in [
            (json!({}), "missing required value 'kwds'"),
            (
                json!({"meta": {"itm": [{"key": "messageTime", "value": "yesterday"}]}, "kwds": {}}),
                "'yesterday' is not an ISO 8601 timestamp",
            ),
            (
                json!({"schemaVersion": "6.0.0", "kwds": {}}),
                "unsupported schemaVersion '6.0.0'",
            ),
            (
                json!({"kwds": {"kwd": many}}),
                "1001 items exceed the limit of 1000",
            ),
            (
                json!({"kwds": {"kwd": [{"parentId": "x"}]}}),
                "kwds/kwd[1]/parentId: expected integer",
            ),
        ] {
            let (status, body) = post(&server, &PERSIST, &request).await;
            assert_eq!(status, 400, "{body}");
            let said = issue_item(&body, "errorMessage").unwrap_or_default();
            assert!(said.contains(message), "{said}");
        }
        // Nothing of them was written; an empty batch answers an empty `responses`.
        assert_eq!(retrieve(&server, json!({"path": "/"})).await.len(), 1);
        let (status, body) = post(
            &server,
            &PERSIST,
            &json!({"schemaVersion": "5.5.0", "kwds": {}}),
        )
        .await;
        assert_eq!(status, 200);
        assert_eq!(body["responses"], json!({"response": []}));
        server.stop().await;
    }
}

async fn persist_answers_alike_in_every_representation() {
    let server = server("sqlite::memory:").await;
    let bodies = [
        (Xml, r#"<pim xmlns="urn:core-interface:v1"><kwds><kwd><name><itm>X1</itm></name></kwd></kwds></pim>"#.to_string()),
        (Json, json!({"kwds": {"kwd": [{"name": name("X2")}]}}).to_string()),
        (Compact, json!({"kwds": {"entries": [{"name": name("X3")}]}}).to_string()),
    ];
    for (request, body) in &bodies {
        for (accept, records_at) in [
            (Xml, None),
            (Json, Some("/responses/response")),
            (Compact, Some("/responses/entries")),
        ] {
            let answer = server
                .call(&PERSIST)
                .body(*request, body.clone())
                .accept(accept)
                .send()
                .await;
            assert_eq!(answer.status, 200);
            assert_eq!(answer.content_type, media(&PERSIST, accept));
            let text = answer.text;
            let created = match records_at {
                None => {
                    text.contains(r#"action="create" dataType="keyword""#)
                        && text.contains("<status>SUCCESS</status>")
                }
                Some(pointer) => {
                    let value: Value = serde_json::from_str(&text).expect("JSON");
                    value
                        .pointer(pointer)
                        .and_then(|records| records.get(0))
                        .is_some_and(|record| {
                            record["status"] == "SUCCESS"
                                && record["action"] == "create"
                                && record["dataType"] == "keyword"
                        })
                }
            };
            // The first exchange creates; the others find the keyword there already.
            let refused = text.contains("already exists");
            assert!(created || refused, "{request:?} → {accept:?}: {text}");
        }
    }
    let roots = retrieve(&server, json!({"path": "/"})).await;
    assert_eq!(paths(&roots), ["/Season", "/X1", "/X2", "/X3"]);
    server.stop().await;
}

/// Sixteen clients persist keywords at once: every keyword is stored once, under its own id, and
/// of sixteen attempts to create the same keyword exactly one succeeds.
async fn sixteen_clients_persist_at_once_without_sharing_an_id() {
    const CLIENTS: usize = 16;
    const BATCHES: usize = 10;
    const PER_BATCH: usize = 5;
    let mut urls = backends("keywords concurrency").await;
    // A file, so that SQLite serves the clients on several connections (memory has one).
    let folder = std::env::temp_dir().join(format!("core-keywords-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    urls[0] = format!("sqlite://{}/core.db", folder.display());
    for url in urls {
        let server = std::sync::Arc::new(server(&url).await);
        let mut tasks = Vec::new();
        for client in 0..CLIENTS {
            let server = server.clone();
            tasks.push(tokio::spawn(async move {
                let mut records = Vec::new();
                for batch in 0..BATCHES {
                    let mut kwd: Vec<Value> = (0..PER_BATCH)
                        .map(|n| json!({"parentPath": "/Season", "name": name(&format!("C{client}-B{batch}-{n}"))}))
                        .collect();
                    kwd.push(json!({"name": name(&format!("Shared{batch}"))}));
                    records.extend(persist(&server, Value::Array(kwd)).await);
                }
                records
            }));
        }
        let mut ids = HashSet::new();
        let mut created = 0;
        let mut shared_created = 0;
        for task in tasks {
            for record in task.await.expect("a client finishes") {
                let shared = record["path"]
                    .as_str()
                    .is_none_or(|path| path.starts_with("/Shared"));
                match record["status"].as_str() {
                    Some("SUCCESS") => {
                        assert!(
                            ids.insert(record["id"].as_i64().expect("an id")),
                            "{record}"
                        );
                        created += 1;
                        shared_created += usize::from(shared);
                    }
                    _ => assert!(
                        shared
                            && record["description"]
                                .as_str()
                                .is_some_and(|text| text.ends_with("already exists")),
                        "{record}"
                    ),
                }
            }
        }
        assert_eq!(
            shared_created, BATCHES,
            "each shared keyword is created once"
        );
        assert_eq!(created, CLIENTS * BATCHES * PER_BATCH + BATCHES);
        let below = retrieve(&server, json!({"path": "/Season"})).await;
        assert_eq!(below.len(), CLIENTS * BATCHES * PER_BATCH + 1);
        let roots = retrieve(&server, json!({"path": "/"})).await;
        assert_eq!(roots.len(), 1 + BATCHES);
        let stored: HashSet<i64> = below
            .iter()
            .chain(&roots)
            .filter_map(|kwd| kwd["id"].as_i64())
            .collect();
        assert!(ids.is_subset(&stored));
        if let Ok(server) = std::sync::Arc::try_unwrap(server) {
            server.stop().await;
        }
    }
    let _ = std::fs::remove_dir_all(&folder);
}

/// A keyword path has at most the document's `maxLength` (D-56): a keyword whose path would be
/// longer is refused, on create and on a rename that would lengthen its descendants' paths.
async fn paths_longer_than_the_document_allows_are_refused() {
    for url in backends("keyword path lengths").await {
        let server = server(&url).await;
        let long = |letter: char| letter.to_string().repeat(255);
        let (a, b, c) = (long('a'), long('b'), long('c'));
        let deepest = "d".repeat(253);
        let records = persist(
            &server,
            json!([
                {"parentPath": "/", "name": name("r")},
                {"parentPath": "/r", "name": name(&a)},
                {"parentPath": format!("/r/{a}"), "name": name(&b)},
                {"parentPath": format!("/r/{a}/{b}"), "name": name(&c)},
                {"parentPath": format!("/r/{a}/{b}/{c}"), "name": name(&deepest)},
                {"parentPath": format!("/r/{a}/{b}/{c}"), "name": name(&format!("{deepest}x"))}
            ]),
        )
        .await;
        assert_eq!(
            said(&PERSIST, &records[..5], |record| record["status"].as_str()),
            [Some("SUCCESS"); 5],
            "{records:?}"
        );
        let full = format!("/r/{a}/{b}/{c}/{deepest}");
        assert_eq!(full.chars().count(), 1024);
        assert_eq!(
            said(&PERSIST, &records[5..], status_and_description),
            [(
                "ERROR",
                "A keyword path has at most 1024 characters; this one would have 1025"
            )]
        );
        // Renaming the root lengthens every path below it: refused, nothing renamed.
        let records = persist(&server, json!([{"path": "/r", "name": name("rr")}])).await;
        assert_eq!(
            said(&PERSIST, &records, status_and_description),
            [(
                "ERROR",
                "A keyword path has at most 1024 characters; this one would have 1025"
            )]
        );
        let paths = paths(&retrieve(&server, json!({"path": "/", "level": -1})).await)
            .iter()
            .map(|path| path.to_string())
            .collect::<Vec<_>>();
        assert!(paths.contains(&full), "{paths:?}");
        // The refused keywords were not stored, nor were their descendants' paths lengthened.
        assert!(
            paths.iter().all(|path| path.chars().count() <= 1024),
            "{paths:?}"
        );
        // Renaming to a name of the same length is fine.
        let records = persist(&server, json!([{"path": "/r", "name": name("s")}])).await;
        assert_eq!(records[0]["status"], "SUCCESS");
        server.stop().await;
    }
}

/// Successful items share a savepoint (D-14); an item failing among them, before or after its
/// writes, leaves out only itself: the others are stored whole, with the ids their records give,
/// whether it comes first, inside a group, at its end, after another failure, or last.
async fn failing_items_inside_groups_leave_out_only_themselves() {
    for url in backends("keyword batch groups").await {
        let server = server(&url).await;
        // Already exists (a unique path, after the write), a `/` in the name (before any
        // write), an unknown parent (the insert finds none).
        let failing = |index: usize| match index % 3 {
            0 => json!({"parentPath": "/G", "name": name("n3")}),
            1 => json!({"parentPath": "/G", "name": name("a/b")}),
            _ => json!({"parentPath": "/Nope", "name": name("x")}),
        };
        let fails = [1, 2, 31, 32, 33, 40, 64, 65, 66, 67, 100, 149];
        let kwd: Vec<Value> = (0..150)
            .map(|index| match index {
                0 => json!({"name": name("G")}),
                _ if fails.contains(&index) => failing(index),
                _ => json!({"parentPath": "/G", "name": {"itm": [
                    {"value": format!("n{index}")},
                    {"value": format!("n{index} de"), "loc": "de_DE"}
                ]}}),
            })
            .collect();
        let records = persist(&server, Value::Array(kwd)).await;
        assert_eq!(records.len(), 150);
        let mut created = Vec::new();
        for (index, record) in records.iter().enumerate() {
            if fails.contains(&index) {
                assert_eq!(record["status"], "ERROR", "{index}: {record}");
            } else {
                assert_eq!(record["status"], "SUCCESS", "{index}: {record}");
                created.push((record["id"].clone(), record["path"].clone()));
            }
        }
        let stored = retrieve(&server, json!({"path": "/G", "level": -1})).await;
        let mut found: Vec<(Value, Value)> = vec![(records[0]["id"].clone(), json!("/G"))];
        found.extend(
            stored
                .iter()
                .map(|kwd| (kwd["id"].clone(), kwd["path"].clone())),
        );
        assert_eq!(found, created);
        for kwd in &stored {
            let path = kwd["path"].as_str().unwrap_or_default();
            let own = path.rsplit('/').next().unwrap_or_default();
            assert_eq!(
                kwd["name"]["itm"],
                json!([{"value": own}, {"value": format!("{own} de"), "loc": "de_DE"}])
            );
        }
        server.stop().await;
    }
}

/// The exchanges whose answers are snapshotted in every representation (`answers`).
fn scenarios() -> Vec<Scenario> {
    vec![Scenario::new(
        "keywords_persist",
        &op::KEYWORDS_PERSIST,
        json!({"kwds": {"kwd": [
            {"parentPath": "/Season", "name": {"itm": [{"value": "Autumn"}, {"value": "Herbst", "loc": "de_DE"}]}},
            {"path": "/Season/Winter", "name": name("Cold Season")},
            {"parentId": 999999, "name": name("Orphan")},
            {"parentPath": "/Nope", "name": name("Orphan")},
            {"parentPath": "/", "name": name("Season")},
            {"name": {"itm": [{"value": "Ohne", "loc": "de_DE"}]}},
            {"name": name("a/b")},
            {"id": 999999, "name": name("Ghost")},
            {"path": "/Ghost", "name": name("Ghost")},
            {"path": "/Materials/Cotton", "parentPath": "/Season"},
            {"name": {"itm": [{"value": "Twice"}, {"value": "Again"}]}},
            {"name": {"itm": [{"value": "Twice"}, {"value": "X", "loc": "de_DE"}, {"value": "Y", "loc": "de_DE"}]}}
        ]}}),
    )]
}

async fn answers_in_every_representation() {
    answers::take(&scenarios()).await;
}

inventory::submit!(answers::Scenarios(scenarios));

contract_tests::trials!(
    persist_creates_updates_and_refuses_each_item_alone,
    persist_refuses_bad_requests_whole,
    persist_answers_alike_in_every_representation,
    sixteen_clients_persist_at_once_without_sharing_an_id,
    paths_longer_than_the_document_allows_are_refused,
    failing_items_inside_groups_leave_out_only_themselves,
    answers_in_every_representation,
);
