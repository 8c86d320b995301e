//! Every documented example of the implemented operations of every module, over HTTP: each
//! request example, sent in every request media type the operation lists, is answered in every
//! response media type with the documented response example of the same name, up to the values
//! the server generates (ids, timestamps), which are redacted on both sides. On SQLite and, when
//! `CORE_TEST_POSTGRES_URL` is set, PostgreSQL.

use contract_tests::{
    Example, TestServer, backends, base64, coverage, document, examples, fixture, operations,
    redact_json, redact_xml,
};
use core_server::{bootstrap::Bootstrap, storage::Backend};
use serde_json::{Value, json};

/// What the examples read: the specification's locales (ids 1 to 3), keywords, glossaries (ids
/// 1 and 2), assets (1001 on, with the versions and preview the downloads name) and a product
/// already linked to an asset; the asset ids are placed by [`place_next_ids`] before the load.
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
        "assets": [
            {"tid": "A-1001", "path": "/catalog/2025/cover.jpg", "versions": [
                {"versionNumber": 1, "tid": "V-1001-1", "mediaType": "image/jpeg", "fileName": "cover.jpg",
                 "content": {"base64": base64("<binary content of /catalog/2025/cover.jpg>")}},
                {"versionNumber": 2, "tid": "V-1001-2", "mediaType": "image/jpeg", "fileName": "cover.jpg",
                 "content": {"base64": base64("<binary content of version 2 of /catalog/2025/cover.jpg>")},
                 "previews": [{"format": "thumbnail", "mediaType": "image/jpeg",
                   "content": {"base64": base64("<thumbnail of version 2 of /catalog/2025/cover.jpg>")}}]}
            ]},
            {"tid": "A-1002"}
        ],
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
}

/// What the CM, PEO and DAM examples read besides [`specification`]: the channel tree under
/// SS2025 (598800 on) with its values, links, PEOs (7001 on) and briefing, and the attributes
/// registered for channels (loaded for those modules only, so that the PIM examples count the
/// attribute definitions they name).
fn channels() -> Bootstrap {
    let text = |value: &str| json!({"items": [{"value": value}]});
    let mut comment = text("Cover page");
    comment["attr"] = json!("Comment");
    let mut product_claim = text("Breathable cotton");
    product_claim["attr"] = json!("Product_Claim");
    product_claim["origin"] = json!("PRODUCT");
    product_claim["node"] = json!("/Apparel/Shirts");
    product_claim["dataType"] = json!("text");
    let mut price = text("19.99");
    price["attr"] = json!("Price");
    let attributes = |pairs: &[(&str, &str)]| {
        pairs
            .iter()
            .map(|(key, value)| ((*key).to_string(), json!(value)))
            .collect::<serde_json::Map<String, Value>>()
    };
    fixture(json!({
        "attributeDefinitions": [
            {"tid": "Comment", "type": "text"},
            {"tid": "Target_Sizes", "type": "text"},
            {"tid": "Claim", "type": "text"},
            {"tid": "Product_Claim", "type": "text"},
            {"tid": "Price", "type": "text"}
        ],
        "channelTypes": ["webshop", "Advertising media"],
        "channelAttributes": ["Comment", "Target_Sizes", "Claim", "Product_Claim", "Price"],
        "channels": [
            {"tid": "SS2025", "type": "Advertising media", "name": "Spring/Summer 2025", "orderSequence": 1},
            {"tid": "SS2025-Print", "type": "Advertising media", "parent": "SS2025",
             "name": "Spring/Summer 2025 print", "orderSequence": 1},
            {"tid": "SS2025-Print-P1", "type": "Advertising media", "parent": "SS2025-Print",
             "name": "Print page 1", "orderSequence": 1, "icon": "/icons/cm/page.png",
             "htmlIcon": "/icons/cm/page.svg", "allowedFunctions": ["edit", "briefing", "export"],
             "values": [
                comment,
                {"attr": "Target_Sizes", "type": "multiple", "items": [{"value": "S", "pos": 0}, {"value": "M", "pos": 1}]},
                {"attr": "Claim", "type": "localized", "items": [
                    {"value": "Sommer kommt", "loc": "de_DE"}, {"value": "Summer is coming", "loc": "en_GB"}]},
                product_claim
             ],
             "assets": ["A-1001"]},
            {"tid": "SS2025-Web", "type": "webshop", "parent": "SS2025",
             "name": "Spring/Summer 2025 web shop", "orderSequence": 2}
        ],
        "peos": [
            {"tid": "PEO-SS25-WEB", "product": "PR-4711", "template": "Web shop", "default": true,
             "name": "Web shop prices", "nodes": ["SS2025-Print-P1"], "channels": ["SS2025-Print-P1"],
             "values": [price]},
            {"tid": "PEO-SS", "product": "PR-4711", "name": "Spring/summer"},
            {"tid": "PEO-AW", "product": "PR-4711", "name": "Autumn/winter"}
        ],
        "briefings": [
            {"channel": "SS2025-Print-P1", "moduleCfg": "F.BriefingModule.ACC", "locale": "de_DE",
             "layout": 4711, "name": "Print page 1",
             "attributes": {"width": "210.0", "height": "297.0"},
             "boxes": [{"id": 1, "layer": "Default", "name": "Cover", "type": "image",
                "attributes": attributes(&[
                    ("width", "180.0"), ("height", "120.0"), ("xpos", "15.0"), ("ypos", "20.0"),
                    ("zpos", "1"), ("content_width", "100.0%"), ("content_height", "100.0%"),
                    ("content_xpos", "0.0"), ("content_ypos", "0.0"), ("content_rotate_angle", "0.0"),
                    ("content_reflection", "false"), ("order_name", "1"), ("dummy_width", "100.0%"),
                    ("dummy_height", "100.0%"), ("dummy_xpos", "0.0"), ("dummy_ypos", "0.0"),
                    ("dummy_rotate_angle", "0.0"), ("dummy_reflection", "false"),
                    ("text_article", "PR-4711")
                ]),
                "images": [{"type": "origin", "attributes": attributes(&[
                    ("image_path", "/catalog/2025/cover.jpg"), ("image_width", "1800"),
                    ("image_height", "1200"), ("image_offset_x", "0.0"), ("image_offset_y", "0.0"),
                    ("image_rotate_angle", "0.0"), ("flipped_horizontal", "false"),
                    ("flipped_vertical", "false"), ("image_scale", "100.0")
                ])}]}]}
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
    let pool = server.database.writes();
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

/// Gives the records the documented examples address by number the ids they name, loading the
/// fixtures: assets from 1001, channels from 598800 (SS2025-Print is 598801, SS2025-Print-P1
/// 598802, and a channel persist creates 598804), PEOs from 7001, and the PIM records with
/// theirs; PEO-SS25-WEB was last modified in the first quarter of 2024, as the PEO query
/// example asks.
async fn load_with_documented_ids(server: &TestServer, module: &str) {
    for (table, last) in [("assets", 1000), ("channels", 598_799), ("peos", 7000)] {
        place_next_ids(server, table, last).await;
    }
    server.load(&specification()).await;
    if matches!(module, "CM" | "PEO" | "DAM") {
        server.load(&channels()).await;
        sqlx::query(
            "UPDATE peos SET modified_at = '2024-02-01T10:00:00.000Z' WHERE tid = 'PEO-SS25-WEB'",
        )
        .execute(server.database.writes())
        .await
        .expect("the documented modification date is placed");
    }
    for (table, last) in [
        ("attribute_definitions", 500),
        ("classification_nodes", 399),
        ("node_attributes", 699),
    ] {
        place_next_ids(server, table, last).await;
    }
    server.load(&pim()).await;
}

/// The query of a documented exchange without a body: each parameter with an example of its
/// name.
fn query_of(document: &Value, operation: &str, name: &str) -> Option<String> {
    let parameters = document["paths"]
        .as_object()?
        .values()
        .filter_map(|item| item.get("post").or_else(|| item.get("get")))
        .find(|candidate| candidate["operationId"] == operation)?
        .get("parameters")?
        .as_array()?;
    let pairs: Vec<String> = parameters
        .iter()
        .filter_map(|parameter| {
            let reference = parameter["$ref"].as_str()?.strip_prefix("#/")?;
            let parameter = document.pointer(&format!("/{reference}"))?;
            let value = parameter.pointer(&format!("/examples/{name}/value"))?;
            let text = match value {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            };
            Some(format!("{}={text}", parameter["name"].as_str()?))
        })
        .collect();
    (!pairs.is_empty()).then(|| pairs.join("&"))
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
                    load_with_documented_ids(&server, operation.module).await;
                    let mut call = server.call(operation).accept(answer.representation);
                    if operation.request.is_some() {
                        call = call.body(request.representation(), request.bytes());
                    } else if let Some(query) = query_of(&document, operation.id, &request.name) {
                        call = call.query(&query);
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
