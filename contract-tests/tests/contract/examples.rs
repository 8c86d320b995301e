//! Every documented example of the implemented operations of every module, over HTTP: each
//! request example, sent in every request media type the operation lists, is answered in every
//! response media type with the documented response example of the same name, up to the values
//! the server generates (ids, timestamps), which are redacted on both sides. On SQLite and, when
//! `CORE_TEST_POSTGRES_URL` is set, PostgreSQL.

use contract_tests::{
    Example, TestServer, backends, coverage, document, examples, fixture, operations, redact_json,
    redact_xml,
};
use core_server::{bootstrap::Bootstrap, storage::Backend};
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

/// What the PIM examples read, loaded after [`specification`] with the ids they name
/// ([`place_next_ids`]): attribute definitions 501 to 504, the nodes `/Apparel` (400) and
/// `/Apparel/Shirts` (401), the attributes Color (700, with domain values) and Weight (701), and
/// a classification whose one attribute keeps the definition InUseDef in use.
fn pim() -> Bootstrap {
    let attribute = |key: &str| json!({"key": key, "level": "p", "inheritance": "visible", "restriction": "optional"});
    let mut color = attribute("Color");
    color["allowNewValue"] = json!(false);
    color["sortDirection"] = json!("MANUAL");
    color["mode"] = json!("FULL");
    color["defaultValue"] = json!("RED");
    color["domainValues"] = json!([
        {"tid": "RED", "names": {"de_DE": "Rot", "en_GB": "Red"}},
        {"tid": "BLUE", "names": {"de_DE": "Blau", "en_GB": "Blue"}}
    ]);
    fixture(json!({
        "attributeDefinitions": [
            {"tid": "Color", "type": "text"},
            {"tid": "Weight", "type": "number"},
            {"tid": "Launch", "type": "date"},
            {"tid": "InUseDef", "type": "text"}
        ],
        "classifications": [
            {"tid": "Apparel", "names": {"": "Apparel", "de_DE": "Bekleidung"}, "nodes": [
                {"path": "/Apparel", "names": {"": "Apparel"}, "attributes": [color]},
                {"path": "/Apparel/Shirts", "names": {"": "Shirts", "de_DE": "Hemden"},
                 "attributes": [attribute("Weight")], "products": ["PR-4711"]}
            ]},
            {"tid": "Accessories", "names": {"": "Accessories", "de_DE": "Accessoires"}, "nodes": [
                {"path": "/Accessories", "attributes": [attribute("InUseDef")]}
            ]}
        ]
    }))
}

/// Makes the next id the database gives a table's new record `last + 1`.
async fn place_next_ids(server: &TestServer, table: &str, last: i64) {
    let pool = server.database.pool();
    let placed = match server.database.backend() {
        Backend::Sqlite => {
            sqlx::query("DELETE FROM sqlite_sequence WHERE name = $1")
                .bind(table.to_string())
                .execute(pool)
                .await
                .expect("the sequence is cleared");
            sqlx::query("INSERT INTO sqlite_sequence (name, seq) VALUES ($1, $2)")
                .bind(table.to_string())
                .bind(last)
                .execute(pool)
                .await
        }
        Backend::Postgres => {
            sqlx::query("SELECT setval(pg_get_serial_sequence($1, 'id'), $2)")
                .bind(table.to_string())
                .bind(last)
                .execute(pool)
                .await
        }
    };
    placed.expect("the next id is placed");
}

/// Gives the records the documented examples address by number the ids they name: the PEO link
/// example links PEO 7002 to project 598801; the PIM records are loaded with theirs.
async fn place_documented_ids(server: &TestServer) {
    for (table, last) in [
        ("attribute_definitions", 500),
        ("classification_nodes", 399),
        ("node_attributes", 699),
    ] {
        place_next_ids(server, table, last).await;
    }
    server.load(&pim()).await;
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
            // An operation without a body (the classifications listing) is sent once per name of
            // its answer examples.
            let requests: Vec<&Example> = all
                .iter()
                .filter(|example| match operation.request {
                    Some(_) => example.place == format!("{} request", operation.id),
                    None => example.place == format!("{} 200", operation.id),
                })
                .fold(Vec::new(), |mut named, example| {
                    if !named
                        .iter()
                        .any(|seen: &&Example| seen.name == example.name)
                    {
                        named.push(example);
                    }
                    named
                });
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
                    let mut call = server.call(operation).accept(answer.representation);
                    if operation.request.is_some() {
                        call = call.body(request.representation(), request.bytes());
                    }
                    let reply = call.send().await;
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
