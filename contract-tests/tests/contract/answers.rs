//! `insta` snapshots (in `snapshots/`) of the answers of every implemented operation over HTTP,
//! on the demo catalogue, on SQLite and (when `CORE_TEST_POSTGRES_URL` is set) PostgreSQL alike:
//! scenarios that make each operation say its item-level messages, in every representation the
//! operation answers in. An implemented operation without a scenario fails the test. Generated
//! ids, tids and timestamps are redacted (`[generated]`); the server never fakes them.

use contract_tests::{
    TestServer, backends, coverage, fixture, operations, redact_json, redact_xml, snapshot_dir,
};
use core_api::operations::{
    ASSETS_VERSIONS_BIN, ATTRIBUTE_DEFINITIONS_PERFORM, ATTRIBUTE_DEFINITIONS_QUERY,
    ATTRIBUTES_PERFORM, ATTRIBUTES_PERSIST, ATTRIBUTES_QUERY, ATTRIBUTES_RETRIEVE,
    CHANNELS_PERSIST, CHANNELS_QUERY, CHANNELS_RETRIEVE, CLASSES_PERFORM, CLASSES_PERSIST,
    CLASSES_RETRIEVE, COMPONENTS_RETRIEVE, GET_CLASSES, GLOSSARY_ENTRIES_PERFORM,
    GLOSSARY_ENTRIES_PERSIST, KEYWORDS_PERSIST, KEYWORDS_RETRIEVE, LINKS_PERSIST, LOCALES_RETRIEVE,
    MESSAGES_PERSIST, PEOS_LINKS_PERSIST, PEOS_QUERY, PEOS_RETRIEVE, RETRIEVE_CHANNEL_BRIEFINGS,
    TRANSFORM,
};
use core_api_support::{Operation, Representation};
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

/// A node attribute to create: `key` with every required property.
fn attribute(key: &str) -> Value {
    json!({"key": key, "level": "p", "inheritance": "visible", "restriction": "optional", "localized": false})
}

/// A `delete` action of a data type on the item `identity` names.
fn delete(data_type: &str, identity: Value) -> Value {
    let mut action = json!({"dataType": data_type, "type": "delete"});
    if let (Some(action), Some(identity)) = (action.as_object_mut(), identity.as_object()) {
        action.extend(identity.clone());
    }
    action
}

/// The exchanges: a name, the operation, the caller's token (`None`: admin), the body (for an
/// operation taking query parameters, the query as a string).
fn scenarios() -> Vec<(
    &'static str,
    &'static Operation,
    Option<&'static str>,
    Value,
)> {
    vec![
        (
            "transform",
            &TRANSFORM,
            None,
            json!({"meta": {"itm": [{"key": "sourceEnv", "value": "ci"}]},
                   "kwds": {"kwd": [{"id": 7, "path": "/Season", "name": name("Season")}]}}),
        ),
        (
            "keywords_retrieve",
            &KEYWORDS_RETRIEVE,
            None,
            json!({"path": "/Season", "level": -1, "retrieveLinks": true}),
        ),
        (
            "keywords_persist",
            &KEYWORDS_PERSIST,
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
            &LOCALES_RETRIEVE,
            None,
            json!({"mode": "CONTENT", "exportConfig": true}),
        ),
        ("components_retrieve", &COMPONENTS_RETRIEVE, None, json!({})),
        (
            "glossary_entries_persist",
            &GLOSSARY_ENTRIES_PERSIST,
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
            &GLOSSARY_ENTRIES_PERFORM,
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
            &MESSAGES_PERSIST,
            None,
            json!({"messages": [{"tid": "MSG-1", "subject": "Upload failed", "severity": "ERROR", "recipientUser": "editor"}]}),
        ),
        (
            "messages_persist_refused",
            &MESSAGES_PERSIST,
            None,
            json!({"messages": [{"tid": "MSG-1", "recipientUser": "editor"}, {"tid": "MSG-2"}]}),
        ),
        (
            "links_persist",
            &LINKS_PERSIST,
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
            &LINKS_PERSIST,
            Some(EDITOR),
            json!({"links": {"itms": [{"type": "assetToProduct", "itms": [
                {"type": "productImages", "itm": itm(&[("productTid", "P-300"), ("assetTid", "A-1003")])},
                {"type": "productImages", "itm": itm(&[("productTid", "P-200"), ("assetTid", "A-9001")])}
            ]}]}}),
        ),
        (
            "peos_links_persist",
            &PEOS_LINKS_PERSIST,
            None,
            json!({"links": {"itms": [
                {"type": "peoToProject", "itms": [
                    {"itm": itm(&[("peoTid", "PEO-100-WEB"), ("projectTid", "CAT-2027")])},
                    {"itm": itm(&[("peoTid", "PEO-404"), ("projectTid", "CAT-2027")])},
                    {"itm": itm(&[("peoTid", "PEO-100-WEB"), ("projectTid", "NOPE")])},
                    {"itm": itm(&[("peoTid", "PEO-100-WEB")])}
                ]},
                {"type": "peoToProduct", "itms": [{"itm": itm(&[("peoTid", "PEO-100-WEB"), ("projectTid", "CAT-2027")])}]}
            ]}}),
        ),
        ("get_classes", &GET_CLASSES, None, Value::Null),
        (
            "classes_retrieve",
            &CLASSES_RETRIEVE,
            None,
            json!({"tids": ["Apparel"], "withNodes": true, "flatNodes": false}),
        ),
        (
            "classes_persist",
            &CLASSES_PERSIST,
            None,
            json!({
                "classes": {"class": [
                    {"tid": "Footwear", "name": {"itm": [{"value": "Footwear"}, {"value": "Schuhe", "loc": "de_DE"}]}},
                    {"tid": "Apparel", "name": {"itm": [{"value": "Kleidung", "loc": "xx_XX"}, {"value": "Bekleidung", "loc": "de_DE"}]}},
                    {"tid": "Bags", "name": name("Bags")},
                    {"id": 999999, "name": name("x")},
                    {"id": 1, "tid": "Clothing"},
                    {"name": name("Anonymous")},
                    {"tid": "Kids", "name": {"itm": [{"value": "Kids"}, {"value": "Bekleidung", "loc": "de_DE"}]}}
                ]},
                "nodes": {"node": [
                    {"class": "Footwear", "path": "/Footwear"},
                    {"class": "Footwear", "path": "/Footwear/Sneakers", "parentPath": "/Footwear",
                     "name": {"itm": [{"value": "Sneakers"}, {"value": "Turnschuhe", "loc": "de_DE"}]},
                     "attr": [attribute("weight"), attribute("Nope")]},
                    {"class": "Footwear", "name": name("No path")},
                    {"class": "Footwear", "path": "/Shoes/Boots"},
                    {"class": "Footwear", "path": "/Footwear/Boots/Winter"},
                    {"class": "Footwear", "id": 999999, "path": "/Footwear/Sneakers"},
                    {"class": "Footwear", "path": "/Footwear/a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p"},
                    {"class": "Bags", "path": "/Bags/Totes"},
                    {"class": "Bags", "path": "/Bags"},
                    {"class": "Kids", "path": "/Kids"},
                    {"class": "Apparel", "path": "/Apparel/Tops/Polos", "name": {"itm": [{"value": "Polos", "loc": "xx_XX"}]}}
                ]}
            }),
        ),
        (
            "classes_perform",
            &CLASSES_PERFORM,
            None,
            json!({"actions": {"action": [
                delete("classification", json!({"tid": "Apparel", "id": 999999})),
                delete("classification", json!({"tid": "Nope"})),
                delete("classification", json!({"id": 999999})),
                {"dataType": "classification", "type": "copy", "tid": "Apparel"},
                delete("attribute", json!({"tid": "Apparel"})),
                delete("classification", json!({}))
            ]}}),
        ),
        (
            "attributes_retrieve",
            &ATTRIBUTES_RETRIEVE,
            None,
            json!({"productTids": ["P-100"], "withDomainValues": true, "withDefaultValues": true}),
        ),
        (
            "attributes_query",
            &ATTRIBUTES_QUERY,
            None,
            json!({"nodePath": ["/Apparel/Tops/Shirts"], "includeParentAttributes": true}),
        ),
        (
            "attributes_persist",
            &ATTRIBUTES_PERSIST,
            None,
            json!({"attrs": {"attr": [
                {"nodePath": "/Apparel/Tops/Shirts", "key": "headline", "level": "p", "inheritance": "visible",
                 "restriction": "optional", "localized": true,
                 "domainVals": {"allowNewValue": false, "sortDirection": "MANUAL", "mode": "FULL", "domainVal": [
                    {"tid": "SALE", "itm": [{"value": "Sale", "loc": "en_GB"}, {"value": "Angebot", "loc": "de_DE"}]}
                 ]},
                 "defaultVal": {"tid": "SALE"}},
                {"id": 1, "inheritance": "not_visible"},
                {"nodeId": 1, "key": "description", "localized": false},
                {"id": 999999, "inheritance": "visible"},
                {"nodeId": 999999, "key": "headline", "level": "p", "inheritance": "visible", "restriction": "optional", "localized": false},
                {"nodePath": "/Nope", "key": "headline", "level": "p", "inheritance": "visible", "restriction": "optional", "localized": false},
                {"nodeId": 1, "key": "Nope", "level": "p", "inheritance": "visible", "restriction": "optional", "localized": false},
                attribute("headline"),
                {"nodeId": 1, "key": "budget"},
                {"id": 1, "level": "x"},
                {"id": 3, "defaultVal": {"tid": "silk"}}
            ]}}),
        ),
        (
            "attributes_perform",
            &ATTRIBUTES_PERFORM,
            None,
            json!({"actions": {"action": [
                delete("attribute", json!({"id": 1})),
                delete("attribute", json!({"nodePath": "/Apparel/Tops", "key": "fabric"})),
                delete("attribute", json!({"id": 999999})),
                delete("attribute", json!({"nodeId": 999999, "key": "fabric"})),
                delete("attribute", json!({"nodePath": "/Nope", "key": "fabric"})),
                delete("attribute", json!({"nodePath": "/Apparel", "key": "fabric"})),
                delete("attribute", json!({})),
                {"dataType": "attribute", "type": "move", "id": 2},
                delete("attrDefinition", json!({"id": 2}))
            ]}}),
        ),
        (
            "attribute_definitions_query",
            &ATTRIBUTE_DEFINITIONS_QUERY,
            None,
            json!({"types": ["text", "number"]}),
        ),
        (
            "attribute_definitions_perform",
            &ATTRIBUTE_DEFINITIONS_PERFORM,
            None,
            json!({"actions": {"action": [
                delete("attrDefinition", json!({"tid": "careInstructions"})),
                delete("attrDefinition", json!({"tid": "weight"})),
                delete("attrDefinition", json!({"tid": "budget"})),
                delete("attrDefinition", json!({"tid": "productImages"})),
                delete("attrDefinition", json!({"tid": "Nope"})),
                delete("attrDefinition", json!({"tid": "weight", "id": 1})),
                {"dataType": "attrDefinition", "type": "copy", "tid": "weight"},
                delete("attribute", json!({"tid": "weight"}))
            ]}}),
        ),
        (
            "channels_query",
            &CHANNELS_QUERY,
            None,
            json!({"tid": "CAT-2027"}),
        ),
        (
            "channels_query_roots",
            &CHANNELS_QUERY,
            None,
            json!({"root": true}),
        ),
        (
            "channels_retrieve",
            &CHANNELS_RETRIEVE,
            None,
            json!({"tids": ["CAT-2027", "CAT-2027-SHIRTS-P1", "WEB-SHOP", "NOPE"]}),
        ),
        (
            "channels_retrieve_without_access",
            &CHANNELS_RETRIEVE,
            Some(EDITOR),
            json!({"tids": ["CAT-2027"]}),
        ),
        (
            "channels_persist",
            &CHANNELS_PERSIST,
            None,
            json!({"projects": {"project": [
                {"tid": "CAT-2027-SOCKS", "parentTid": "CAT-2027", "type": "chapter", "name": "Socks",
                 "vals": {"val": [
                    {"attr": "headline", "type": "localized", "itm": [{"value": "Socks", "loc": "en_GB"}, {"value": "Socken", "loc": "xx_XX"}]},
                    {"attr": "Nope", "itm": [{"value": "x"}]}
                 ]}},
                {"tid": "CAT-2027-SHIRTS", "name": "Shirts and tops", "parentTid": "WEB-SHOP"},
                {"id": 1, "vals": {"val": [{"attr": "budget", "itm": [{"value": "30000"}]}]}},
                {"id": 999999, "name": "Ghost"},
                {"id": 1, "tid": "WEB-SHOP"},
                {"tid": "NEW-1", "parentTid": "CAT-2027", "type": "brochure", "name": "x"},
                {"parentTid": "CAT-2027", "type": "page", "name": "x"},
                {"tid": "NEW-2", "parentTid": "CAT-2027", "name": "x"},
                {"tid": "NEW-3", "type": "page", "name": "x"},
                {"tid": "NEW-4", "parentTid": "NOPE", "type": "page", "name": "x"},
                {"tid": "NEW-5", "parentId": 1, "type": "page"},
                {"tid": "CAT-2027", "vals": {"val": [{"attr": "budget", "itm": [{"value": "1"}, {"value": "2"}]}]}},
                {"tid": "CAT-2027", "vals": {"val": [{"attr": "headline", "type": "multiple", "itm": [{"value": "a", "pos": 1}, {"value": "b", "pos": 1}]}]}},
                {"tid": "CAT-2027", "vals": {"val": [{"attr": "headline", "type": "localized", "itm": [{"value": "a"}]}]}}
            ]}}),
        ),
        (
            "channel_briefings",
            &RETRIEVE_CHANNEL_BRIEFINGS,
            None,
            json!({"tids": ["CAT-2027-SHIRTS-P1"], "briefingInfo": {"locale": "en_GB", "briefingModuleCfgTid": "BRIEFING-DEFAULT"}}),
        ),
        (
            "peos_retrieve",
            &PEOS_RETRIEVE,
            None,
            json!({"tids": ["PEO-100-WEB", "PEO-100-CAT", "PEO-300-DRAFT", "NOPE"], "withMetadata": true}),
        ),
        (
            "peos_retrieve_names_only",
            &PEOS_RETRIEVE,
            None,
            json!({"ids": [2, 1], "namesOnly": true}),
        ),
        (
            "peos_retrieve_access_rights",
            &PEOS_RETRIEVE,
            Some(EDITOR),
            json!({"tids": ["PEO-300-DRAFT", "PEO-200-CAT"]}),
        ),
        (
            "peos_query",
            &PEOS_QUERY,
            None,
            json!({"tidProject": "CAT-2027", "tidProduct": "P-100"}),
        ),
        (
            "assets_versions_bin",
            &ASSETS_VERSIONS_BIN,
            None,
            json!("assetTid=A-1001&versionNumber=1&format=thumbnail"),
        ),
        (
            "peos_links_persist_access_rights",
            &PEOS_LINKS_PERSIST,
            Some(EDITOR),
            json!({"links": {"itms": [{"type": "peoToProject", "itms": [
                {"itm": itm(&[("peoTid", "PEO-300-DRAFT"), ("projectTid", "WEB-SHOP")])}
            ]}]}}),
        ),
    ]
}

async fn answers_in_every_representation() {
    let scenarios = scenarios();
    // Every implemented operation has its scenarios: a new one fails here until it has.
    let implemented = operations::implemented().await;
    for operation in &implemented {
        assert!(
            scenarios
                .iter()
                .any(|(_, scenario, _, _)| std::ptr::eq(*scenario, *operation)),
            "{} is implemented but has no snapshot scenario",
            operation.id
        );
    }
    let editor = fixture(json!({
        "roles": [{"name": "editor", "modules": ["Common", "PIM", "DAM", "PEO"]}],
        "tokens": [{"user": "editor", "roles": ["editor"], "token": EDITOR}]
    }));
    let mut taken = 0;
    // The same snapshots hold on every backend: what differs (ids, times) is redacted.
    for url in backends("answer snapshots").await {
        for (scenario, operation, token, body) in &scenarios {
            for media in operation.response.media {
                // A fresh catalogue per exchange: persist answers differ once the data is there.
                let server = TestServer::start_with_demo(&url).await;
                server.load(&editor).await;
                let mut call = server
                    .call(operation)
                    .token(token.unwrap_or(&server.token))
                    .accept(media.representation);
                if let Some(query) = body.as_str() {
                    call = call.query(query);
                } else if operation.request.is_some() {
                    call = call.json(body);
                }
                let answer = call.send().await;
                let header = |name: &str| {
                    answer
                        .headers
                        .get(name)
                        .and_then(|value| value.to_str().ok())
                        .unwrap_or_default()
                        .to_string()
                };
                let (suffix, shown, value) = match media.representation {
                    Representation::Xml => ("xml", redact_xml(&answer.text), None),
                    Representation::Binary => {
                        let shown = [
                            "content-length",
                            "content-disposition",
                            "etag",
                            "accept-ranges",
                        ]
                        .iter()
                        .map(|name| format!("{name}: {}", header(name)))
                        .chain(std::iter::once(format!("{} bytes", answer.bytes.len())))
                        .collect::<Vec<_>>()
                        .join("\n");
                        ("bin", shown, None)
                    }
                    representation => {
                        let mut value: Value = serde_json::from_str(&answer.text).expect("JSON");
                        redact_json(&mut value);
                        let pretty = serde_json::to_string_pretty(&value).expect("JSON");
                        let suffix = if representation == Representation::Compact {
                            "compact"
                        } else {
                            "json"
                        };
                        (suffix, pretty, Some(value))
                    }
                };
                let name = format!(
                    "{}__{scenario}__{suffix}",
                    operation.module.to_ascii_lowercase()
                );
                insta::with_settings!({snapshot_path => snapshot_dir(), prepend_module_to_snapshot => false, omit_expression => true}, {
                    insta::assert_snapshot!(name, format!("{} {}\n{shown}", answer.status, media.name));
                });
                if let Some(value) = &value {
                    coverage::snapshotted(operation, value);
                }
                taken += 1;
                server.stop().await;
            }
        }
    }
    eprintln!("{taken} snapshots of the implemented operations' answers");
}

contract_tests::trials!(answers_in_every_representation,);
