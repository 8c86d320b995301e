//! The PIM module over HTTP (D-21 to D-28, D-49, D-51, D-52), on SQLite and, when
//! `CORE_TEST_POSTGRES_URL` is set, on PostgreSQL: what classes and attributes persist write,
//! retrieve and query return in all three representations; what perform deletes is gone
//! (a deleted classification takes its nodes' attributes with it); bad input is a 400 or an
//! item ERROR, never a 500 or a half-written classification.

use contract_tests::{
    TestServer, backends,
    coverage::{self, said, status_and_description},
    fixture, issue_item, post_json, records,
};
use core_api::operations::{
    ATTRIBUTE_DEFINITIONS_PERFORM as DEFINITIONS_PERFORM,
    ATTRIBUTE_DEFINITIONS_QUERY as DEFINITIONS_QUERY, ATTRIBUTES_PERFORM, ATTRIBUTES_PERSIST,
    ATTRIBUTES_QUERY, ATTRIBUTES_RETRIEVE, CLASSES_PERFORM, CLASSES_PERSIST, CLASSES_RETRIEVE,
    GET_CLASSES,
};
use core_api_support::{
    Operation,
    Representation::{Compact, Json, Xml},
};
use core_server::bootstrap::Bootstrap;
use serde_json::{Value, json};

/// A token of the role `reader`, which may call PIM but not see the restricted product.
const READER: &str = "ab12ab12ab12ab12.ab12ab12ab12ab12ab12ab12ab12ab12ab12";

/// A classification `Apparel` (`/Apparel` → `/Apparel/Shirts` → `/Apparel/Shirts/Polo`) whose
/// root has a visible and a hidden attribute, two products classified under its nodes (one
/// restricted to a role), and a definition used by nothing.
fn catalogue() -> Bootstrap {
    let attribute = |key: &str, inheritance: &str| json!({"key": key, "level": "p", "inheritance": inheritance, "restriction": "optional"});
    fixture(json!({
        "locales": [
            {"tid": "de_DE", "language": "de", "country": "DE", "name": "Deutsch"},
            {"tid": "en_GB", "language": "en", "country": "GB", "name": "English"}
        ],
        "attributeDefinitions": [
            {"tid": "Color", "type": "text"},
            {"tid": "Secret", "type": "text"},
            {"tid": "Weight", "type": "number"},
            {"tid": "Launch", "type": "date"},
            {"tid": "Unused", "type": "boolean"}
        ],
        "products": [
            {"tid": "PR-1"},
            {"tid": "PR-R", "restrictedTo": ["secret"]}
        ],
        "classifications": [{"tid": "Apparel", "names": {"": "Apparel", "de_DE": "Bekleidung"}, "nodes": [
            {"path": "/Apparel", "attributes": [attribute("Color", "visible"), attribute("Secret", "not_visible")]},
            {"path": "/Apparel/Shirts", "names": {"": "Shirts", "de_DE": "Hemden"},
             "attributes": [attribute("Weight", "visible")], "products": ["PR-1", "PR-R"]},
            {"path": "/Apparel/Shirts/Polo"}
        ]}],
        "roles": [{"name": "reader", "modules": ["PIM"]}, {"name": "secret"}],
        "tokens": [{"user": "reader", "roles": ["reader"], "token": READER}]
    }))
}

async fn server(url: &str) -> TestServer {
    let server = TestServer::start_on(url).await;
    server.load(&catalogue()).await;
    server
}

async fn post(server: &TestServer, operation: &'static Operation, body: &Value) -> (u16, Value) {
    post_json(server, &server.token, operation, body).await
}

/// Posts a batch with the admin token and expects 200; answers the records.
async fn batch(server: &TestServer, operation: &'static Operation, body: &Value) -> Vec<Value> {
    records(server, &server.token, operation, body).await
}

/// The integers of an answer's `ids`.
fn ids(answer: &Value) -> Vec<i64> {
    answer["ids"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_i64)
        .collect()
}

/// Posts and expects 200; answers the body.
async fn ok(server: &TestServer, operation: &'static Operation, body: Value) -> Value {
    let (status, answer) = post(server, operation, &body).await;
    assert_eq!(status, 200, "{} {body}: {answer}", operation.id);
    answer
}

fn name(value: &str) -> Value {
    json!({"itm": [{"value": value}]})
}

fn attribute(key: &str) -> Value {
    json!({"key": key, "level": "p", "inheritance": "visible", "restriction": "optional", "localized": false})
}

/// The paths of the flat `nodes` of a classes answer.
fn paths(answer: &Value) -> Vec<String> {
    answer["nodes"]["node"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|node| node["path"].as_str().map(str::to_string))
        .collect()
}

/// The keys of the `attr` of an attributes answer.
fn keys(answer: &Value) -> Vec<&str> {
    answer["attrs"]["attr"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|attr| attr["key"].as_str())
        .collect()
}

/// The id of the attribute with `key` in an attributes answer.
fn id_of(answer: &Value, key: &str) -> i64 {
    answer["attrs"]["attr"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|attr| attr["key"] == key)
        .and_then(|attr| attr["id"].as_i64())
        .unwrap_or_else(|| panic!("no attribute {key} in {answer}"))
}

/// Specification example 2 (Footwear), optionally with another German name.
fn footwear(german: &str) -> Value {
    json!({
        "classes": {"class": [{"tid": "Footwear", "name": {"itm": [
            {"value": "Footwear"}, {"value": german, "loc": "de_DE"}, {"value": "Footwear", "loc": "en_GB"}
        ]}}]},
        "nodes": {"node": [
            {"class": "Footwear", "path": "/Footwear", "name": name("Footwear")},
            {"class": "Footwear", "path": "/Footwear/Sneakers", "parentPath": "/Footwear",
             "name": {"itm": [{"value": "Sneakers"}, {"value": "Turnschuhe", "loc": "de_DE"}]},
             "attr": [attribute("Color")]}
        ]}
    })
}

async fn classes_persist_creates_saves_and_retrieve_returns_it_in_every_representation() {
    for url in backends("classes persist and retrieve").await {
        let server = server(&url).await;
        let created = batch(&server, &CLASSES_PERSIST, &footwear("Schuhe")).await;
        assert_eq!(
            said(&CLASSES_PERSIST, &created, |record| (
                record["dataType"].as_str(),
                record["action"].as_str(),
                record["tid"].as_str(),
                status_and_description(record)
            )),
            [(
                Some("classification"),
                Some("create"),
                Some("Footwear"),
                (
                    "SUCCESS",
                    "The classification has been created successfully"
                )
            )]
        );
        // What persist wrote, retrieve returns: the root without a parent, then its child.
        let flat = ok(
            &server,
            &CLASSES_RETRIEVE,
            json!({"tids": ["Footwear"], "withNodes": true}),
        )
        .await;
        assert_eq!(paths(&flat), ["/Footwear", "/Footwear/Sneakers"]);
        let root = &flat["nodes"]["node"][0];
        assert!(
            root.get("parentId").is_none() && root.get("parentPath").is_none(),
            "{root}"
        );
        let child = &flat["nodes"]["node"][1];
        assert_eq!(child["parentId"], root["id"]);
        assert_eq!(child["attr"][0]["key"], "Color");
        assert_eq!(child["attr"][0]["nodePath"], "/Footwear/Sneakers");
        assert_eq!(
            flat["classes"]["class"][0]["name"]["itm"],
            json!([{"value": "Footwear"}, {"value": "Schuhe", "loc": "de_DE"}, {"value": "Footwear", "loc": "en_GB"}])
        );
        // Resent with another German name: saved, and the name is the new one.
        let saved = batch(&server, &CLASSES_PERSIST, &footwear("Schuhwerk")).await;
        assert_eq!(
            said(&CLASSES_PERSIST, &saved, status_and_description),
            [("SUCCESS", "The classification has been saved successfully")]
        );
        assert_eq!(saved[0]["action"], "update");
        // The same in XML and compact JSON.
        let xml = server
            .call(&CLASSES_RETRIEVE)
            .json(&json!({"tids": ["Footwear"], "withNodes": true, "flatNodes": false}))
            .accept(Xml)
            .send()
            .await;
        assert_eq!(xml.status, 200, "{}", xml.text);
        assert!(
            xml.text.contains(r#"<itm loc="de_DE">Schuhwerk</itm>"#),
            "{}",
            xml.text
        );
        let nested_child = xml
            .text
            .find(r#"path="/Footwear/Sneakers""#)
            .expect("the child node");
        let root_at = xml.text.find(r#"path="/Footwear""#).expect("the root node");
        let class_at = xml.text.find("<class ").expect("the class");
        assert!(class_at < root_at && root_at < nested_child, "{}", xml.text);
        let compact = server
            .call(&CLASSES_RETRIEVE)
            .json(&json!({"tids": ["Footwear"], "withNodes": true}))
            .accept(Compact)
            .send()
            .await
            .json();
        assert_eq!(compact["classes"]["entries"][0]["tid"], "Footwear");
        assert_eq!(compact["nodes"]["entries"][1]["path"], "/Footwear/Sneakers");
        server.stop().await;
    }
}

async fn classes_retrieve_selects_by_ids_and_tids_flat_or_nested() {
    for url in backends("classes retrieve").await {
        let server = server(&url).await;
        batch(&server, &CLASSES_PERSIST, &footwear("Schuhe")).await;
        let all = ok(&server, &CLASSES_RETRIEVE, json!({})).await;
        let tids: Vec<&str> = all["classes"]["class"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|class| class["tid"].as_str())
            .collect();
        assert_eq!(tids, ["Apparel", "Footwear"]);
        assert!(all.get("nodes").is_none() && all["classes"]["class"][0].get("nodes").is_none());
        for empty in [json!({"ids": []}), json!({"tids": []})] {
            assert_eq!(
                ok(&server, &CLASSES_RETRIEVE, empty).await["classes"],
                all["classes"]
            );
        }
        // The listing is retrieve with an empty body.
        let listing = server.call(&GET_CLASSES).accept(Json).send().await;
        assert_eq!(listing.status, 200);
        assert_eq!(listing.json()["classes"], all["classes"]);
        let apparel = all["classes"]["class"][0]["id"].clone();
        let union = ok(
            &server,
            &CLASSES_RETRIEVE,
            json!({"ids": [apparel], "tids": ["Footwear", "Nope"]}),
        )
        .await;
        assert_eq!(union["classes"], all["classes"]);
        let (status, _) = post(&server, &CLASSES_RETRIEVE, &json!({"tids": ["Nope"]})).await;
        assert_eq!(status, 404);
        let (status, body) = post(&server, &CLASSES_RETRIEVE, &json!({"ids": ["x"]})).await;
        assert_eq!(status, 400, "{body}");
        // Nested: the root in its class, each child inside its parent, in pre-order.
        let nested = ok(
            &server,
            &CLASSES_RETRIEVE,
            json!({"tids": ["Apparel"], "withNodes": true, "flatNodes": false}),
        )
        .await;
        assert!(nested.get("nodes").is_none());
        let root = &nested["classes"]["class"][0]["nodes"]["node"][0];
        assert_eq!(root["path"], "/Apparel");
        assert_eq!(root["attr"].as_array().map(Vec::len), Some(2));
        let shirts = &root["nodes"]["node"][0];
        assert_eq!(shirts["path"], "/Apparel/Shirts");
        assert_eq!(shirts["nodes"]["node"][0]["path"], "/Apparel/Shirts/Polo");
        let flat = ok(
            &server,
            &CLASSES_RETRIEVE,
            json!({"tids": ["Apparel"], "withNodes": true}),
        )
        .await;
        assert_eq!(
            paths(&flat),
            ["/Apparel", "/Apparel/Shirts", "/Apparel/Shirts/Polo"]
        );
        server.stop().await;
    }
}

async fn classes_persist_applies_the_rules_of_the_specification() {
    for url in backends("classes persist rules").await {
        let server = server(&url).await;
        let answer = batch(
            &server,
            &CLASSES_PERSIST,
            &json!({
                "classes": {"class": [
                    {"tid": "Bags", "name": name("Bags")},
                    {"tid": "Shoes", "name": name("Shoes")},
                    {"tid": "Apparel", "name": {"itm": [{"value": "Kleidung", "loc": "xx_XX"}]}},
                    {"tid": "Kids", "name": {"itm": [{"value": "Bekleidung", "loc": "de_DE"}]}},
                    {"id": 999999, "name": name("x")}
                ]},
                "nodes": {"node": [
                    {"class": "Bags", "path": "/Bags/Totes"},
                    {"class": "Bags", "path": "/Bags"},
                    {"class": "Shoes", "path": "/Boots"},
                    {"class": "Apparel", "path": "/Apparel/Trousers/Jeans"},
                    {"class": "Apparel", "path": "/Apparel/Trousers", "attr": [attribute("Nope")]},
                    {"class": "Kids", "path": "/Kids"}
                ]}
            }),
        )
        .await;
        assert_eq!(
            said(&CLASSES_PERSIST, &answer, status_and_description),
            [
                (
                    "ERROR",
                    "Unable to create the root node '/Bags/Totes' of classification 'Bags'"
                ),
                (
                    "ERROR",
                    "Unable to create the root node '/Boots' of classification 'Shoes'"
                ),
                (
                    "WARNING",
                    "The classification has been saved successfully|Cannot find language id with \
                     code 'xx_XX'.|Parent node with path '/Apparel/Trousers' not found for node \
                     '/Apparel/Trousers/Jeans'|Attribute definition: 'Nope' cannot be found"
                ),
                (
                    "WARNING",
                    "The classification has been created successfully|Unable to create new \
                     classification name 'Bekleidung' for language 'de_DE', because it already exist."
                ),
                (
                    "ERROR",
                    "There is no classification with the given identity '999999'"
                )
            ]
        );
        // Nodes in request order: the child listed before its parent was not created, the
        // parent was; refused classifications wrote nothing.
        let apparel = ok(
            &server,
            &CLASSES_RETRIEVE,
            json!({"tids": ["Apparel"], "withNodes": true}),
        )
        .await;
        assert_eq!(
            paths(&apparel),
            [
                "/Apparel",
                "/Apparel/Shirts",
                "/Apparel/Shirts/Polo",
                "/Apparel/Trousers"
            ]
        );
        let (status, _) = post(
            &server,
            &CLASSES_RETRIEVE,
            &json!({"tids": ["Bags", "Shoes"]}),
        )
        .await;
        assert_eq!(status, 404);
        // A node naming no class of the request refuses the request.
        let (status, body) = post(
            &server,
            &CLASSES_PERSIST,
            &json!({"classes": {"class": [{"tid": "Apparel"}]}, "nodes": {"node": [{"class": "Other", "path": "/Other"}]}}),
        )
        .await;
        assert_eq!(status, 400, "{body}");
        // An XML body with an unknown element is 400.
        let xml = server
            .call(&CLASSES_PERSIST)
            .body(
                Xml,
                r#"<pim xmlns="urn:core-interface:v1"><classes><class tid="X"><colour/></class></classes></pim>"#,
            )
            .accept(Json)
            .send()
            .await;
        assert_eq!(xml.status, 400, "{}", xml.text);
        server.stop().await;
    }
}

async fn classes_perform_deletes_the_classification_with_its_nodes_and_attributes() {
    for url in backends("classes perform").await {
        let server = server(&url).await;
        batch(&server, &CLASSES_PERSIST, &footwear("Schuhe")).await;
        let attributes = ok(
            &server,
            &ATTRIBUTES_RETRIEVE,
            json!({"nodePaths": ["/Apparel"]}),
        )
        .await;
        let color = id_of(&attributes, "Color");
        let apparel = ok(&server, &CLASSES_RETRIEVE, json!({"tids": ["Apparel"]})).await;
        let apparel = apparel["classes"]["class"][0]["id"]
            .as_i64()
            .unwrap_or_default();
        let answer = batch(
            &server,
            &CLASSES_PERFORM,
            &json!({"actions": {"action": [
                {"dataType": "classification", "type": "delete", "tid": "Footwear", "id": apparel},
                {"dataType": "classification", "type": "delete", "id": apparel},
                {"dataType": "classification", "type": "delete", "tid": "Footwear"},
                {"dataType": "classification", "type": "copy", "tid": "Apparel"}
            ]}}),
        )
        .await;
        assert_eq!(
            said(&CLASSES_PERFORM, &answer, status_and_description),
            [
                (
                    "SUCCESS",
                    "The classification has been deleted successfully"
                ),
                (
                    "SUCCESS",
                    "The classification has been deleted successfully"
                ),
                (
                    "ERROR",
                    "There is no classification with the given identity 'Footwear'"
                ),
                ("ERROR", "Unsupported action type 'copy'")
            ]
        );
        assert_eq!(answer[0]["tid"], "Footwear");
        assert_eq!(answer[1]["tid"], "Apparel");
        // Gone, with their nodes and attributes.
        for request in [json!({"tids": ["Footwear"]}), json!({"ids": [apparel]})] {
            let (status, _) = post(&server, &CLASSES_RETRIEVE, &request).await;
            assert_eq!(status, 404);
        }
        for request in [
            json!({"ids": [color]}),
            json!({"nodePaths": ["/Apparel"]}),
            json!({"productTids": ["PR-1"]}),
        ] {
            let (status, body) = post(&server, &ATTRIBUTES_RETRIEVE, &request).await;
            if request.get("productTids").is_some() {
                // The product stays; it is classified under no node any more.
                assert_eq!((status, keys(&body).len()), (200, 0), "{body}");
            } else {
                assert_eq!(status, 404, "{request}: {body}");
            }
        }
        server.stop().await;
    }
}

async fn attributes_retrieve_and_query_select_the_same_attributes() {
    for url in backends("attributes retrieve and query").await {
        let server = server(&url).await;
        let shirts = ok(
            &server,
            &ATTRIBUTES_RETRIEVE,
            json!({"nodePaths": ["/Apparel/Shirts"]}),
        )
        .await;
        assert_eq!(keys(&shirts), ["Weight"]);
        let node = shirts["attrs"]["attr"][0]["nodeId"].clone();
        let cases = [
            (
                json!({"nodeIds": [node]}),
                json!({"nodeId": [node]}),
                vec!["Weight"],
            ),
            (
                json!({"nodeIds": [node], "includeParentAttributes": true}),
                json!({"nodeId": [node], "includeParentAttributes": true}),
                // The hidden attribute of the root is not inherited.
                vec!["Color", "Weight"],
            ),
            (
                json!({"nodePaths": ["/Apparel/Shirts/Polo"], "includeParentAttributes": true}),
                json!({"nodePath": ["/Apparel/Shirts/Polo"], "includeParentAttributes": true}),
                vec!["Color", "Weight"],
            ),
            (
                json!({"productTids": ["PR-1"]}),
                json!({"productTid": ["PR-1"]}),
                vec!["Color", "Weight"],
            ),
            (
                json!({"productTids": ["PR-1"], "includeParentAttributes": false}),
                json!({"productTid": ["PR-1"], "includeParentAttributes": false}),
                vec!["Color", "Weight"],
            ),
            (
                json!({"nodePaths": ["/Apparel", "/Nope"]}),
                json!({"nodePath": ["/Apparel", "/Nope"]}),
                vec!["Color", "Secret"],
            ),
        ];
        for (retrieve, query, expected) in cases {
            let retrieved = ok(&server, &ATTRIBUTES_RETRIEVE, retrieve.clone()).await;
            assert_eq!(keys(&retrieved), expected, "{retrieve}");
            let ids: Vec<i64> = retrieved["attrs"]["attr"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|attr| attr["id"].as_i64())
                .collect();
            let queried = ok(&server, &ATTRIBUTES_QUERY, query.clone()).await;
            assert_eq!(queried, json!({"ids": ids}), "{query}");
        }
        let products = ok(
            &server,
            &ATTRIBUTES_RETRIEVE,
            json!({"productTids": ["PR-1"]}),
        )
        .await;
        let product_id = {
            let by_tid = ok(&server, &ATTRIBUTES_QUERY, json!({"productTid": ["PR-1"]})).await;
            assert_eq!(by_tid["ids"].as_array().map(Vec::len), Some(2));
            products["attrs"]["attr"][0]["id"]
                .as_i64()
                .unwrap_or_default()
        };
        // By ids, in request order; unknown ones skipped.
        let weight = id_of(&products, "Weight");
        let by_ids = ok(
            &server,
            &ATTRIBUTES_RETRIEVE,
            json!({"ids": [weight, product_id, 999999]}),
        )
        .await;
        assert_eq!(keys(&by_ids), ["Weight", "Color"]);
        // Domain and default values only when asked; in every representation.
        assert!(by_ids["attrs"]["attr"][0].get("domainVals").is_none());
        let compact = server
            .call(&ATTRIBUTES_RETRIEVE)
            .json(&json!({"ids": [weight], "withDomainValues": true}))
            .accept(Compact)
            .send()
            .await
            .json();
        assert_eq!(
            compact["attrs"]["entries"][0]["domainVals"],
            json!({"entries": []})
        );
        // The restricted product is unknown to a caller without its role.
        let (status, _) = post_json(
            &server,
            READER,
            &ATTRIBUTES_RETRIEVE,
            &json!({"productTids": ["PR-R"]}),
        )
        .await;
        assert_eq!(status, 404);
        let (status, body) = post_json(
            &server,
            READER,
            &ATTRIBUTES_QUERY,
            &json!({"productTid": ["PR-1", "PR-R"]}),
        )
        .await;
        assert_eq!(
            (status, body["ids"].as_array().map(Vec::len)),
            (200, Some(2))
        );
        // Selectors: none, several, a scalar → 400; all unknown (or none given) → 404.
        for bad in [
            json!({}),
            json!({"ids": [1], "nodeIds": [1]}),
            json!({"nodeIds": 1}),
        ] {
            let (status, body) = post(&server, &ATTRIBUTES_RETRIEVE, &bad).await;
            assert_eq!(status, 400, "{bad}: {body}");
        }
        for bad in [
            json!({}),
            json!({"nodeId": 401}),
            json!({"nodeId": [1], "productTid": ["PR-1"]}),
        ] {
            let (status, body) = post(&server, &ATTRIBUTES_QUERY, &bad).await;
            assert_eq!(status, 400, "{bad}: {body}");
        }
        for unknown in [
            json!({"nodeIds": [999999]}),
            json!({"ids": []}),
            json!({"productTids": ["Nope"]}),
        ] {
            let (status, _) = post(&server, &ATTRIBUTES_RETRIEVE, &unknown).await;
            assert_eq!(status, 404, "{unknown}");
        }
        let (status, _) = post(&server, &ATTRIBUTES_QUERY, &json!({"nodeId": [999999]})).await;
        assert_eq!(status, 404);
        server.stop().await;
    }
}

async fn attributes_persist_and_perform_write_what_retrieve_returns() {
    for url in backends("attributes persist and perform").await {
        let server = server(&url).await;
        let created = batch(&server, &ATTRIBUTES_PERSIST, &json!({"attrs": {"attr": [
                {"nodePath": "/Apparel/Shirts", "key": "Launch", "level": "p", "inheritance": "visible",
                 "restriction": "optional", "localized": false,
                 "domainVals": {"allowNewValue": false, "sortDirection": "MANUAL", "mode": "FULL", "domainVal": [
                     {"tid": "Q1", "itm": [{"value": "Q1", "loc": "de_DE"}]},
                     {"tid": "Q2", "itm": [{"value": "Q2", "loc": "en_GB"}]}
                 ]},
                 "defaultVal": {"tid": "Q2"}},
                {"nodePath": "/Apparel/Shirts", "key": "Launch", "localized": true},
                {"nodePath": "/Apparel/Shirts", "key": "Color", "level": "p", "inheritance": "sideways",
                 "restriction": "optional", "localized": false},
                {"nodePath": "/Apparel/Shirts", "key": "Color"},
                {"nodePath": "/Apparel/Shirts", "key": "Color", "level": "p", "inheritance": "visible",
                 "restriction": "optional", "localized": false,
                 "domainVals": {"domainVal": [{"tid": "RED", "itm": [{"value": "Rot", "loc": "xx_XX"}]}]}}
            ]}}),
        )
        .await;
        assert_eq!(
            said(&ATTRIBUTES_PERSIST, &created, status_and_description),
            [
                ("SUCCESS", "The attribute has been created successfully"),
                ("SUCCESS", "The attribute has been saved successfully"),
                ("ERROR", "Invalid value 'sideways' for 'inheritance'"),
                ("ERROR", "Missing required value 'level'"),
                ("ERROR", "Invalid value 'xx_XX' for 'loc'")
            ]
        );
        assert_eq!(
            (created[1]["action"].as_str(), created[1]["id"].as_i64()),
            (Some("update"), created[0]["id"].as_i64())
        );
        let launch = created[0]["id"].clone();
        for representation in [Json, Xml, Compact] {
            let answer = server
                .call(&ATTRIBUTES_RETRIEVE)
                .json(
                    &json!({"ids": [launch], "withDomainValues": true, "withDefaultValues": true}),
                )
                .accept(representation)
                .send()
                .await;
            assert_eq!(answer.status, 200, "{}", answer.text);
            for text in ["Q1", "Q2", "de_DE", "en_GB", "MANUAL"] {
                assert!(
                    answer.text.contains(text),
                    "{representation:?}: {}",
                    answer.text
                );
            }
        }
        let launched = ok(
            &server,
            &ATTRIBUTES_RETRIEVE,
            json!({"ids": [launch], "withDefaultValues": true}),
        )
        .await;
        let attr = &launched["attrs"]["attr"][0];
        assert_eq!(
            (attr["localized"].as_bool(), &attr["defaultVal"]),
            (Some(true), &json!({"tid": "Q2"}))
        );
        // A FULL list replaces the whole list; the former default, not in it, is dropped.
        batch(&server, &ATTRIBUTES_PERSIST, &json!({"attrs": {"attr": [{"id": launch, "domainVals": {"mode": "FULL", "domainVal": [{"tid": "Q3"}]}}]}}),
        )
        .await;
        let replaced = ok(
            &server,
            &ATTRIBUTES_RETRIEVE,
            json!({"ids": [launch], "withDomainValues": true, "withDefaultValues": true}),
        )
        .await;
        let attr = &replaced["attrs"]["attr"][0];
        assert_eq!(attr["domainVals"]["domainVal"], json!([{"tid": "Q3"}]));
        assert!(attr.get("defaultVal").is_none(), "{attr}");
        // An update by id changes only what it supplies.
        let updated = batch(
            &server,
            &ATTRIBUTES_PERSIST,
            &json!({"attrs": {"attr": [{"id": launch, "inheritance": "not_visible"}]}}),
        )
        .await;
        assert_eq!(updated[0]["status"], "SUCCESS", "{updated:?}");
        let after = ok(&server, &ATTRIBUTES_RETRIEVE, json!({"ids": [launch]})).await;
        let attr = &after["attrs"]["attr"][0];
        assert_eq!(
            (
                attr["inheritance"].as_str(),
                attr["localized"].as_bool(),
                attr["level"].as_str()
            ),
            (Some("not_visible"), Some(true), Some("p"))
        );
        // Perform deletes it; retrieve no longer finds it.
        let deleted = batch(&server, &ATTRIBUTES_PERFORM, &json!({"actions": {"action": [
                {"dataType": "attribute", "type": "delete", "id": launch},
                {"dataType": "attribute", "type": "delete", "nodePath": "/Apparel/Shirts", "key": "Launch"}
            ]}}),
        )
        .await;
        assert_eq!(
            said(&ATTRIBUTES_PERFORM, &deleted, status_and_description),
            [
                ("SUCCESS", "The attribute has been deleted successfully"),
                (
                    "ERROR",
                    "Attribute 'Launch' was not found on node /Apparel/Shirts"
                )
            ]
        );
        let (status, _) = post(&server, &ATTRIBUTES_RETRIEVE, &json!({"ids": [launch]})).await;
        assert_eq!(status, 404);
        // An attribute carrying `vals` is invalid input (ATP-07).
        let (status, body) = post(
            &server,
            &ATTRIBUTES_PERSIST,
            &json!({"attrs": {"attr": [{"id": 1, "vals": {}}]}}),
        )
        .await;
        assert_eq!(status, 400, "{body}");
        server.stop().await;
    }
}

async fn attribute_definitions_are_queried_by_type_and_deleted_when_unused() {
    for url in backends("attribute definitions").await {
        let server = server(&url).await;
        let text = ok(&server, &DEFINITIONS_QUERY, json!({"types": ["text"]})).await;
        let text_ids = ids(&text);
        assert_eq!((text_ids.len(), &text["all"]), (2, &json!(false)), "{text}");
        assert!(text_ids.windows(2).all(|pair| pair[0] < pair[1]));
        for empty in [json!({"types": []}), json!({})] {
            assert_eq!(
                ok(&server, &DEFINITIONS_QUERY, empty).await,
                json!({"all": false})
            );
        }
        let (status, _) = post(&server, &DEFINITIONS_QUERY, &json!({"types": ["color"]})).await;
        assert_eq!(status, 400);
        let both = ok(
            &server,
            &DEFINITIONS_QUERY,
            json!({"types": ["number", "date", "boolean"]}),
        )
        .await;
        assert_eq!(both["ids"].as_array().map(Vec::len), Some(3));
        // Mixed kinds of identifier: 400, and nothing is deleted.
        let (status, body) = post(
            &server,
            &DEFINITIONS_PERFORM,
            &json!({"actions": {"action": [
                {"dataType": "attrDefinition", "type": "delete", "tid": "Unused"},
                {"dataType": "attrDefinition", "type": "delete", "id": text_ids[0]}
            ]}}),
        )
        .await;
        assert_eq!(status, 400);
        assert!(coverage::contains(
            &DEFINITIONS_PERFORM,
            issue_item(&body, "errorMessage").unwrap_or_default(),
            "All actions of one request must use the same kind of identifier"
        ));
        assert_eq!(
            ok(&server, &DEFINITIONS_QUERY, json!({"types": ["boolean"]})).await["ids"]
                .as_array()
                .map(Vec::len),
            Some(1)
        );
        let color = text_ids[0];
        let answer = batch(
            &server,
            &DEFINITIONS_PERFORM,
            &json!({"actions": {"action": [
                {"dataType": "attrDefinition", "type": "delete", "id": color},
                {"dataType": "attrDefinition", "type": "delete", "id": 999999},
                {"dataType": "attrDefinition", "type": "delete"}
            ]}}),
        )
        .await;
        assert_eq!(
            said(&DEFINITIONS_PERFORM, &answer, status_and_description),
            [
                (
                    "ERROR",
                    "The attribute definition could not be deleted. Reason: it is used by 1 node attribute"
                ),
                (
                    "ERROR",
                    "There is no attribute definition with the given tid or id"
                ),
                (
                    "ERROR",
                    "There is no attribute definition with the given tid or id"
                )
            ]
        );
        let deleted = batch(&server, &DEFINITIONS_PERFORM, &json!({"actions": {"action": [{"dataType": "attrDefinition", "type": "delete", "tid": "Unused"}]}}),
        )
        .await;
        assert_eq!(
            said(&DEFINITIONS_PERFORM, &deleted, status_and_description),
            [(
                "SUCCESS",
                "The attribute definition has been deleted successfully"
            )]
        );
        assert_eq!(deleted[0]["tid"], "Unused");
        // The refused one is still there; the deleted one is gone.
        let text = ok(&server, &DEFINITIONS_QUERY, json!({"types": ["text"]})).await;
        assert!(ids(&text).contains(&color));
        assert_eq!(
            ok(&server, &DEFINITIONS_QUERY, json!({"types": ["boolean"]})).await,
            json!({"all": false})
        );
        // Once its node attribute is deleted, the definition can go.
        let attributes = ok(
            &server,
            &ATTRIBUTES_RETRIEVE,
            json!({"nodePaths": ["/Apparel"]}),
        )
        .await;
        let attribute = id_of(&attributes, "Color");
        batch(&server, &ATTRIBUTES_PERFORM, &json!({"actions": {"action": [{"dataType": "attribute", "type": "delete", "id": attribute}]}}),
        )
        .await;
        let gone = batch(&server, &DEFINITIONS_PERFORM, &json!({"actions": {"action": [{"dataType": "attrDefinition", "type": "delete", "id": color}]}}),
        )
        .await;
        assert_eq!(gone[0]["status"], "SUCCESS", "{gone:?}");
        let text = ok(&server, &DEFINITIONS_QUERY, json!({"types": ["text"]})).await;
        assert!(!ids(&text).contains(&color));
        server.stop().await;
    }
}

contract_tests::trials!(
    classes_persist_creates_saves_and_retrieve_returns_it_in_every_representation,
    classes_retrieve_selects_by_ids_and_tids_flat_or_nested,
    classes_persist_applies_the_rules_of_the_specification,
    classes_perform_deletes_the_classification_with_its_nodes_and_attributes,
    attributes_retrieve_and_query_select_the_same_attributes,
    attributes_persist_and_perform_write_what_retrieve_returns,
    attribute_definitions_are_queried_by_type_and_deleted_when_unused,
);
