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
];

/// What the examples read: the specification's locales (ids 1 to 3) and keywords.
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
        "assets": [{"tid": "A-1001"}],
        "keywords": [
            {"path": "/Season", "names": {"de_DE": "Jahreszeit"}},
            {"path": "/Season/Summer", "names": {"de_DE": "Sommer"}, "assets": ["A-1001"]}
        ]
    }))
    .expect("the fixture is a bootstrap document")
}

/// Replaces generated values: ids and timestamps.
fn redact_json(value: &mut Value) {
    match value {
        Value::Object(object) => {
            let timestamp = object
                .get("key")
                .and_then(Value::as_str)
                .is_some_and(is_generated_key);
            for (key, value) in object.iter_mut() {
                if (key == "id" || key == "parentId") && value.is_i64() {
                    *value = json!("[id]");
                } else if (timestamp && key == "value")
                    || (is_generated_key(key) && value.is_string())
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

fn is_generated_key(key: &str) -> bool {
    matches!(key, "messageTime" | "creationDate")
}

/// The XML form of [`redact_json`]: `id`/`parentId` attributes and the text of timestamp items.
fn redact_xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while !rest.is_empty() {
        let attribute = [" id=\"", " parentId=\""]
            .iter()
            .filter_map(|name| rest.find(name).map(|at| (at, name.len())))
            .min();
        let item = ["<itm key=\"messageTime\">", "<itm key=\"creationDate\">"]
            .iter()
            .filter_map(|open| rest.find(open).map(|at| (at, open.len())))
            .min();
        let (at, length, closing) = match (attribute, item) {
            (Some(a), Some(i)) if a.0 < i.0 => (a.0, a.1, '"'),
            (Some(a), None) => (a.0, a.1, '"'),
            (_, Some(i)) => (i.0, i.1, '<'),
            (None, None) => break,
        };
        out.push_str(&rest[..at + length]);
        rest = &rest[at + length..];
        let end = rest.find(closing).unwrap_or(rest.len());
        out.push_str("[generated]");
        rest = &rest[end..];
    }
    out.push_str(rest);
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
    let mut value = json!({"id": 4, "meta": {"itm": [{"key": "messageTime", "value": "x"}, {"key": "k", "value": "v"}]}, "m": {"messageTime": "x"}});
    redact_json(&mut value);
    assert_eq!(
        value,
        json!({"id": "[id]", "meta": {"itm": [{"key": "messageTime", "value": "[generated]"}, {"key": "k", "value": "v"}]}, "m": {"messageTime": "[generated]"}})
    );
}
