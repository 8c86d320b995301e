//! Every documented example of the implemented operations, over HTTP: each request example, sent
//! in every request media type the operation lists, is answered in every response media type
//! with the documented response example of the same name, up to the values the server generates
//! (ids, timestamps), which are redacted on both sides. On SQLite and, when
//! `CORE_TEST_POSTGRES_URL` is set, PostgreSQL.

use contract_tests::{Example, TestServer, backends, document, examples};
use core_server::bootstrap::{self, Bootstrap};
use serde_json::{Value, json};

/// Operations whose examples are checked: those implemented so far.
const OPERATIONS: &[&str] = &[
    "localesRetrieve",
    "keywordsRetrieve",
    "keywordsPersist",
    "componentsRetrieve",
    "messagesPersist",
    "glossaryEntriesPersist",
    "glossaryEntriesPerform",
    "linksPersist",
];

/// What the examples read: the specification's locales (ids 1 to 3), keywords, glossaries (ids
/// 1 and 2) and a product already linked to an asset.
fn fixture() -> Bootstrap {
    serde_json::from_value(json!({
        "locales": [
            {"tid": "de_DE", "language": "de", "country": "DE", "name": "German (Germany)",
             "contentLocale": true, "defaultContentLocale": true, "frontendLocale": true,
             "defaultFrontendLocale": true},
            {"tid": "en_GB", "language": "en", "country": "GB", "name": "English (United Kingdom)"},
            {"tid": "fr_FR", "language": "fr", "country": "FR", "name": "French (France)",
             "frontendLocale": true, "customDateFormatsEnabled": true}
        ],
        "components": {"PIM": "ACTIVE", "CM": "ACTIVE", "DAM": "ACTIVE", "PEO": "ACTIVE"},
        "assets": [{"tid": "A-1001"}, {"tid": "A-1002"}],
        "attributeDefinitions": [{"tid": "Main_Image", "type": "ref", "cardinality": 3}],
        "products": [{"tid": "PR-4711", "assets": [{"asset": "A-1002", "linkType": "Main_Image"}]}],
        "glossaries": [
            {"tid": "GL-1", "name": "Clothing", "entries": [
                {"tid": "GE-1", "type": "term", "loc": "de_DE", "value": "Hose"}
            ]},
            {"tid": "GL-2", "name": "Archive"}
        ],
        "keywords": [
            {"path": "/Season", "names": {"de_DE": "Jahreszeit"}},
            {"path": "/Season/Summer", "names": {"de_DE": "Sommer"}, "assets": ["A-1001"]}
        ]
    }))
    .expect("the fixture is a bootstrap document")
}

/// Item keys whose text the server generates.
const GENERATED_ITEMS: [&str; 4] = ["messageTime", "creationDate", "newId", "newTid"];

/// Whether a value is generated: a number under `id`/`parentId`, a UUID under `tid`.
fn generated_attribute(name: &str, value: &str) -> bool {
    match name {
        "id" | "parentId" => true,
        "tid" => value.len() == 36 && value.matches('-').count() == 4,
        _ => false,
    }
}

/// Replaces generated values: ids, generated tids and timestamps.
fn redact_json(value: &mut Value) {
    match value {
        Value::Object(object) => {
            let generated_item = object
                .get("key")
                .and_then(Value::as_str)
                .is_some_and(|key| GENERATED_ITEMS.contains(&key));
            for (key, value) in object.iter_mut() {
                let text = match value {
                    Value::Number(number) => number.to_string(),
                    Value::String(text) => text.clone(),
                    _ => String::new(),
                };
                if (!text.is_empty() && generated_attribute(key, &text))
                    || (generated_item && key == "value")
                    || (GENERATED_ITEMS.contains(&key.as_str()) && value.is_string())
                {
                    *value = json!("[generated]");
                } else {
                    redact_json(value);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(redact_json),
        _ => {}
    }
}

/// The XML form of [`redact_json`].
fn redact_xml(text: &str) -> String {
    let mut out = text.to_string();
    let mut replace = |open: String, close: char, generated: &dyn Fn(&str) -> bool| {
        let mut result = String::with_capacity(out.len());
        let mut rest = out.as_str();
        while let Some(at) = rest.find(&open) {
            let start = at + open.len();
            let end = rest[start..]
                .find(close)
                .map_or(rest.len(), |end| start + end);
            result.push_str(&rest[..start]);
            let value = &rest[start..end];
            result.push_str(if generated(value) {
                "[generated]"
            } else {
                value
            });
            rest = &rest[end..];
        }
        result.push_str(rest);
        out = result;
    };
    for name in ["id", "parentId", "tid"] {
        replace(format!(" {name}=\""), '"', &|value| {
            generated_attribute(name, value)
        });
    }
    for key in GENERATED_ITEMS {
        replace(format!("<itm key=\"{key}\">"), '<', &|_| true);
    }
    out
}

fn example_named<'a>(
    all: &'a [Example],
    place: &str,
    name: &str,
    media: &str,
) -> Option<&'a Example> {
    all.iter()
        .find(|example| example.place == place && example.name == name && example.media == media)
}

#[tokio::test]
async fn every_example_of_the_implemented_operations_is_answered_as_documented() {
    let document = document();
    let all = examples(&document);
    let mut checked = 0;
    for url in backends("documented examples").await {
        for operation in core_api::operations::ALL
            .iter()
            .filter(|operation| OPERATIONS.contains(&operation.id))
        {
            let requests: Vec<&Example> = all
                .iter()
                .filter(|example| example.place == format!("{} request", operation.id))
                .collect();
            assert!(
                !requests.is_empty(),
                "{} has a request example",
                operation.id
            );
            for request in requests {
                for answer in operation.response.media {
                    let Some(expected) = example_named(
                        &all,
                        &format!("{} 200", operation.id),
                        &request.name,
                        answer.name,
                    ) else {
                        panic!(
                            "{}: no 200 example named {} in {}",
                            operation.id, request.name, answer.name
                        );
                    };
                    // A fresh database per exchange: persist examples create what they name.
                    let server = TestServer::start_on(&url).await;
                    bootstrap::load(&server.database, &fixture(), std::path::Path::new("."))
                        .await
                        .expect("the fixture loads");
                    let reply = server
                        .client()
                        .post(server.url(operation.path))
                        .header("Content-Type", request.media.as_str())
                        .header("Accept", answer.name)
                        .body(request.bytes())
                        .send()
                        .await
                        .expect("answers");
                    let label = format!("{} → {}", request.label(), answer.name);
                    assert_eq!(reply.status().as_u16(), 200, "{label}");
                    assert_eq!(reply.headers()["content-type"], answer.name, "{label}");
                    let text = reply.text().await.expect("a body");
                    match expected.value.as_str() {
                        Some(xml) => assert_eq!(redact_xml(&text), redact_xml(xml), "{label}"),
                        None => {
                            let mut got: Value = serde_json::from_str(&text).expect("JSON");
                            let mut want = expected.value.clone();
                            redact_json(&mut got);
                            redact_json(&mut want);
                            assert_eq!(got, want, "{label}");
                        }
                    }
                    checked += 1;
                    server.stop().await;
                }
            }
        }
    }
    eprintln!("{checked} documented exchanges answered as documented");
}

#[test]
fn redaction_replaces_only_generated_values() {
    assert_eq!(
        redact_xml(
            r#"<kwd id="4" path="/a" parentId="3"><meta><itm key="creationDate">2024</itm><itm key="orderNumber">1</itm></meta>"#
        ),
        r#"<kwd id="[generated]" path="/a" parentId="[generated]"><meta><itm key="creationDate">[generated]</itm><itm key="orderNumber">1</itm></meta>"#
    );
    assert_eq!(
        redact_xml(
            r#"<response tid="GE-1"/><response tid="5b0d6c2e-7c1a-4c55-9a53-2f0e1f8b9d11"/>"#
        ),
        r#"<response tid="GE-1"/><response tid="[generated]"/>"#
    );
    let mut value = json!({"id": 4, "meta": {"itm": [{"key": "messageTime", "value": "x"}, {"key": "k", "value": "v"}]}, "m": {"messageTime": "x"}});
    redact_json(&mut value);
    assert_eq!(
        value,
        json!({"id": "[generated]", "meta": {"itm": [{"key": "messageTime", "value": "[generated]"}, {"key": "k", "value": "v"}]}, "m": {"messageTime": "[generated]"}})
    );
}
