//! Classifications over HTTP: `getClasses`, `classes/retrieve`, `classes/persist` and
//! `classes/perform`.

use contract_tests::{
    backends,
    coverage::{said, status_and_description},
};
use core_api::messages as msg;
use core_api::operations as op;
use core_api::operations::{
    ATTRIBUTES_RETRIEVE, CLASSES_PERFORM, CLASSES_PERSIST, CLASSES_RETRIEVE, GET_CLASSES,
};
use core_api_support::Representation::{Compact, Json, Xml};
use core_conformance::bodies::{attribute, delete, name};
use serde_json::{Value, json};

use super::{batch, footwear, id_of, keys, ok, paths, post, server};
use crate::answers::{self, Scenario};

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
                    msg::THE_CLASSIFICATION_HAS_BEEN_CREATED_SUCCESSFULLY
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
            [(
                "SUCCESS",
                msg::THE_CLASSIFICATION_HAS_BEEN_SAVED_SUCCESSFULLY
            )]
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
        // An empty list selects nothing by itself: beside a list with entries, those answer.
        let footwear = ok(
            &server,
            &CLASSES_RETRIEVE,
            json!({"ids": [], "tids": ["Footwear"]}),
        )
        .await;
        assert_eq!(footwear["classes"]["class"][0]["tid"], "Footwear");
        assert_eq!(
            footwear["classes"]["class"].as_array().map(Vec::len),
            Some(1)
        );
        // The listing is retrieve with an empty body.
        let listing = server.call(&GET_CLASSES).accept(Json).send().await;
        assert_eq!(listing.status, 200);
        assert_eq!(listing.json()["classes"], all["classes"]);
        let apparel = all["classes"]["class"][0]["id"].clone();
        let union = ok(
            &server,
            &CLASSES_RETRIEVE,
            json!({"ids": [apparel, apparel], "tids": ["Apparel", "Footwear", "Nope", "Footwear"]}),
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
                delete("classification", json!({"tid": "Footwear", "id": apparel})),
                delete("classification", json!({"id": apparel})),
                delete("classification", json!({"tid": "Footwear"})),
                {"dataType": "classification", "type": "copy", "tid": "Apparel"}
            ]}}),
        )
        .await;
        assert_eq!(
            said(&CLASSES_PERFORM, &answer, status_and_description),
            [
                (
                    "SUCCESS",
                    msg::THE_CLASSIFICATION_HAS_BEEN_DELETED_SUCCESSFULLY
                ),
                (
                    "SUCCESS",
                    msg::THE_CLASSIFICATION_HAS_BEEN_DELETED_SUCCESSFULLY
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

/// The exchanges whose answers are snapshotted in every representation (`answers`).
fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario::new("get_classes", &op::GET_CLASSES, Value::Null),
        Scenario::new(
            "classes_retrieve",
            &op::CLASSES_RETRIEVE,
            json!({"tids": ["Apparel"], "withNodes": true, "flatNodes": false}),
        ),
        Scenario::new(
            "classes_persist",
            &op::CLASSES_PERSIST,
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
        Scenario::new(
            "classes_perform",
            &op::CLASSES_PERFORM,
            json!({"actions": {"action": [
                delete("classification", json!({"tid": "Apparel", "id": 999999})),
                delete("classification", json!({"tid": "Nope"})),
                delete("classification", json!({"id": 999999})),
                {"dataType": "classification", "type": "copy", "tid": "Apparel"},
                delete("attribute", json!({"tid": "Apparel"})),
                delete("classification", json!({}))
            ]}}),
        ),
    ]
}

async fn answers_in_every_representation() {
    answers::take(&scenarios()).await;
}

inventory::submit!(answers::Scenarios(scenarios));

contract_tests::trials!(
    classes_persist_creates_saves_and_retrieve_returns_it_in_every_representation,
    classes_retrieve_selects_by_ids_and_tids_flat_or_nested,
    classes_persist_applies_the_rules_of_the_specification,
    classes_perform_deletes_the_classification_with_its_nodes_and_attributes,
    answers_in_every_representation,
);
