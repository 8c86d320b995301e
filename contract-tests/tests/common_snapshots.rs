//! `insta` snapshots (in `snapshots/`) of the Common module's answers over HTTP, on the demo
//! catalogue, on SQLite and (when `CORE_TEST_POSTGRES_URL` is set) PostgreSQL alike: every item-level message of its operations, in every representation the operation
//! answers in. Generated ids, tids and timestamps are redacted (`[generated]`); the server never
//! fakes them.

use contract_tests::{TestServer, backends, redact_json, redact_xml, snapshot_dir};
use core_api_support::Representation;
use core_server::bootstrap;
use serde_json::{Value, json};

/// A token of the demo's role `editor` (Common, PIM, DAM), which holds no restricted record.
const EDITOR: &str = "ed170ed170ed170e.ed170ed170ed170ed170ed170ed170ed1";

fn itm(items: &[(&str, &str)]) -> Value {
    json!(
        items
            .iter()
            .map(|(key, value)| json!({"key": key, "value": value}))
            .collect::<Vec<_>>()
    )
}

fn name(value: &str) -> Value {
    json!({"itm": [{"value": value}]})
}

/// The exchanges: a name, the operation's path, the caller's token (`None`: admin), the body.
fn scenarios() -> Vec<(&'static str, &'static str, Option<&'static str>, Value)> {
    vec![
        (
            "keywords_retrieve",
            "/api/core/v1/common/keywords/retrieve",
            None,
            json!({"path": "/Season", "level": -1, "retrieveLinks": true}),
        ),
        (
            "keywords_persist",
            "/api/core/v1/common/keywords/persist",
            None,
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
        ),
        (
            "locales_retrieve",
            "/api/core/v1/common/locales/retrieve",
            None,
            json!({"mode": "CONTENT", "exportConfig": true}),
        ),
        (
            "components_retrieve",
            "/api/core/v1/common/components/retrieve",
            None,
            json!({}),
        ),
        (
            "glossary_entries_persist",
            "/api/core/v1/common/glossaryEntries/persist",
            None,
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
        (
            "glossary_entries_perform",
            "/api/core/v1/common/glossaryEntries/perform",
            None,
            json!({"actions": {"action": [
                {"dataType": "glossaryEntry", "type": "copyToGlossary", "tid": "GE-COTTON", "meta": {"itm": itm(&[("glossaryId", "2")])}},
                {"dataType": "glossaryEntry", "type": "moveToGlossary", "tid": "GE-LINEN", "meta": {"itm": itm(&[("glossaryId", "2")])}},
                {"dataType": "glossaryEntry", "type": "delete", "tid": "GE-CARE"},
                {"dataType": "glossaryEntry", "type": "delete", "tid": "GE-404"},
                {"dataType": "glossaryEntry", "type": "moveToGlossary", "tid": "GE-SALE", "meta": {"itm": itm(&[("glossaryId", "99")])}},
                {"dataType": "glossaryEntry", "type": "copyToGlossary", "tid": "GE-SALE"},
                {"dataType": "glossaryEntry", "type": "archive", "tid": "GE-SALE"},
                {"dataType": "keyword", "type": "delete", "tid": "GE-SALE"}
            ]}}),
        ),
        (
            "messages_persist",
            "/api/core/v1/common/messages/persist",
            None,
            json!({"messages": [{"tid": "MSG-1", "subject": "Upload failed", "severity": "ERROR", "recipientUser": "editor"}]}),
        ),
        (
            "messages_persist_refused",
            "/api/core/v1/common/messages/persist",
            None,
            json!({"messages": [{"tid": "MSG-1", "recipientUser": "editor"}, {"tid": "MSG-2"}]}),
        ),
        (
            "links_persist",
            "/api/core/v1/common/links/persist",
            None,
            json!({"links": {"itms": [
                {"type": "assetToProduct", "itms": [
                    {"type": "productImages", "itm": itm(&[("productTid", "P-200"), ("assetTid", "A-1002")])},
                    {"type": "productImages", "itm": itm(&[("productTid", "P-100"), ("assetTid", "A-1001")])},
                    {"type": "productManual", "itm": itm(&[("productTid", "P-200"), ("assetTid", "A-2001"), ("assetTid", "A-1003")])},
                    {"type": "productImages", "itm": itm(&[("productTid", "P-404"), ("assetTid", "A-1001")])},
                    {"type": "productImages", "itm": itm(&[("productTid", "P-200"), ("assetTid", "A-404")])},
                    {"type": "Nope", "itm": itm(&[("productTid", "P-200"), ("assetTid", "A-1001")])}
                ]},
                {"type": "assetToKeyword", "itms": [
                    {"itm": itm(&[("keywordPath", "/Materials"), ("assetTid", "A-1003")])},
                    {"itm": itm(&[("keywordPath", "/Materials/Cotton"), ("assetTid", "A-1001")])}
                ]}
            ]}}),
        ),
        (
            "links_persist_access_rights",
            "/api/core/v1/common/links/persist",
            Some(EDITOR),
            json!({"links": {"itms": [{"type": "assetToProduct", "itms": [
                {"type": "productImages", "itm": itm(&[("productTid", "P-300"), ("assetTid", "A-1003")])},
                {"type": "productImages", "itm": itm(&[("productTid", "P-200"), ("assetTid", "A-9001")])}
            ]}]}}),
        ),
    ]
}

#[tokio::test]
async fn common_answers_in_every_representation() {
    let demo = bootstrap::demo().expect("the demo document");
    let editor = serde_json::from_value(
        json!({"tokens": [{"user": "editor", "roles": ["editor"], "token": EDITOR}]}),
    )
    .expect("a bootstrap document");
    let mut taken = 0;
    // The same snapshots hold on every backend: what differs (ids, times) is redacted.
    for url in backends("Common snapshots").await {
        for (scenario, path, token, body) in scenarios() {
            let operation = core_api::operations::ALL
                .iter()
                .find(|operation| operation.path == path)
                .expect("a documented operation");
            for media in operation.response.media {
                // A fresh catalogue per exchange: persist answers differ once the data is there.
                let server = TestServer::start_on(&url).await;
                for document in [&demo, &editor] {
                    bootstrap::load(&server.database, document, std::path::Path::new("."))
                        .await
                        .expect("the fixture loads");
                }
                let answer = server
                    .client_with(token.unwrap_or(&server.token))
                    .post(server.url(path))
                    .header("Content-Type", "application/json")
                    .header("Accept", media.name)
                    .body(body.to_string())
                    .send()
                    .await
                    .expect("answers");
                let status = answer.status().as_u16();
                let text = answer.text().await.expect("a body");
                let (suffix, shown) = match media.representation {
                    Representation::Xml => ("xml", redact_xml(&text)),
                    representation => {
                        let mut value: Value = serde_json::from_str(&text).expect("JSON");
                        redact_json(&mut value);
                        let pretty = serde_json::to_string_pretty(&value).expect("JSON");
                        (
                            if representation == Representation::Compact {
                                "compact"
                            } else {
                                "json"
                            },
                            pretty,
                        )
                    }
                };
                let name = format!("common__{scenario}__{suffix}");
                insta::with_settings!({snapshot_path => snapshot_dir(), prepend_module_to_snapshot => false, omit_expression => true}, {
                    insta::assert_snapshot!(name, format!("{status} {}\n{shown}", media.name));
                });
                taken += 1;
                server.stop().await;
            }
        }
    }
    eprintln!("{taken} snapshots of the Common module's answers");
}
