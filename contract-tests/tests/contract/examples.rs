//! Every documented example of the implemented operations of every module, over HTTP: each
//! request example, sent in every request media type the operation lists, is answered in every
//! response media type with the documented response example of the same name, up to the values
//! the server generates (ids, timestamps), which are redacted on both sides. On SQLite and, when
//! `CORE_TEST_POSTGRES_URL` is set, PostgreSQL.

use contract_tests::{
    Example, TestServer, backends, coverage, document, examples, fixture, operations, redact_json,
    redact_xml,
};
use core_server::bootstrap::Bootstrap;
use serde_json::{Value, json};

/// What the examples read: the specification's locales (ids 1 to 3), keywords, glossaries (ids
/// 1 and 2), a product already linked to an asset, and the PEOs and channels of the PEO link
/// example (ids 7002 and 598801, given in [`place_documented_ids`]).
fn specification() -> Bootstrap {
    fixture(json!({
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
        ],
        "channelTypes": ["webshop"],
        "channels": [
            {"tid": "SS2025-Web", "type": "webshop", "name": "Spring/Summer 2025 web shop"},
            {"tid": "SS2025-Print", "type": "webshop", "name": "Spring/Summer 2025 print"}
        ],
        "peos": [
            {"tid": "PEO-AW", "product": "PR-4711", "name": "Autumn/winter"},
            {"tid": "PEO-SS", "product": "PR-4711", "name": "Spring/summer"}
        ]
    }))
}

/// Gives the records the documented examples address by number the ids they name: the PEO link
/// example links PEO 7002 to project 598801.
async fn place_documented_ids(server: &TestServer) {
    for statement in [
        "UPDATE peos SET id = 7002 WHERE tid = 'PEO-SS'",
        "UPDATE channels SET id = 598801 WHERE tid = 'SS2025-Print'",
    ] {
        sqlx::query(statement)
            .execute(server.database.pool())
            .await
            .expect("the documented ids are placed");
    }
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

async fn every_example_of_the_implemented_operations_is_answered_as_documented() {
    let document = document();
    let all = examples(&document);
    let mut checked = 0;
    let implemented = operations::implemented().await;
    for url in backends("documented examples").await {
        for &operation in &implemented {
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
                    server.load(&specification()).await;
                    place_documented_ids(&server).await;
                    let reply = server
                        .call(operation)
                        .body(request.representation(), request.bytes())
                        .accept(answer.representation)
                        .send()
                        .await;
                    let label = format!("{} → {}", request.label(), answer.name);
                    assert_eq!(reply.status, 200, "{label}: {}", reply.text);
                    assert_eq!(reply.content_type, answer.name, "{label}");
                    let text = reply.text;
                    match expected.value.as_str() {
                        Some(xml) => assert_eq!(redact_xml(&text), redact_xml(xml), "{label}"),
                        None => {
                            let mut got: Value = serde_json::from_str(&text).expect("JSON");
                            let mut want = expected.value.clone();
                            redact_json(&mut got);
                            redact_json(&mut want);
                            assert_eq!(got, want, "{label}");
                            coverage::snapshotted(operation, &got);
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

contract_tests::trials!(every_example_of_the_implemented_operations_is_answered_as_documented,);
