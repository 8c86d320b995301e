//! Every documented example of the implemented operations, over HTTP: each request example, sent
//! in every request media type the operation lists, is answered in every response media type
//! with the documented response example of the same name, up to the values the server generates
//! (ids, timestamps), which are redacted on both sides. On SQLite and, when
//! `CORE_TEST_POSTGRES_URL` is set, PostgreSQL.

use contract_tests::{
    Example, IMPLEMENTED, TestServer, backends, document, examples, redact_json, redact_xml,
};
use core_server::bootstrap::{self, Bootstrap};
use serde_json::{Value, json};

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
            .filter(|operation| operation.module == "Common" && IMPLEMENTED.contains(&operation.id))
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
