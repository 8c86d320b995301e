//! Node attributes over HTTP: `attributes/retrieve`, `attributes/query`, `attributes/persist` and
//! `attributes/perform`.

use contract_tests::{
    backends,
    coverage::{said, status_and_description},
    post_json,
};
use core_api::messages as msg;
use core_api::operations as op;
use core_api::operations::{
    ATTRIBUTES_PERFORM, ATTRIBUTES_PERSIST, ATTRIBUTES_QUERY, ATTRIBUTES_RETRIEVE,
};
use core_api_support::Representation::{Compact, Json, Xml};
use core_conformance::bodies::{actions, attribute, delete};
use serde_json::json;

use super::{READER, batch, id_of, keys, ok, post, server};
use crate::answers::{self, Scenario};

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
                ("SUCCESS", msg::THE_ATTRIBUTE_HAS_BEEN_CREATED_SUCCESSFULLY),
                ("SUCCESS", msg::THE_ATTRIBUTE_HAS_BEEN_SAVED_SUCCESSFULLY),
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
        let deleted = batch(
            &server,
            &ATTRIBUTES_PERFORM,
            &actions([
                delete("attribute", json!({"id": launch})),
                delete(
                    "attribute",
                    json!({"nodePath": "/Apparel/Shirts", "key": "Launch"}),
                ),
            ]),
        )
        .await;
        assert_eq!(
            said(&ATTRIBUTES_PERFORM, &deleted, status_and_description),
            [
                ("SUCCESS", msg::THE_ATTRIBUTE_HAS_BEEN_DELETED_SUCCESSFULLY),
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

/// The exchanges whose answers are snapshotted in every representation (`answers`).
fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario::new(
            "attributes_retrieve",
            &op::ATTRIBUTES_RETRIEVE,
            json!({"productTids": ["P-100"], "withDomainValues": true, "withDefaultValues": true}),
        ),
        Scenario::new(
            "attributes_query",
            &op::ATTRIBUTES_QUERY,
            json!({"nodePath": ["/Apparel/Tops/Shirts"], "includeParentAttributes": true}),
        ),
        Scenario::new(
            "attributes_persist",
            &op::ATTRIBUTES_PERSIST,
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
        Scenario::new(
            "attributes_perform",
            &op::ATTRIBUTES_PERFORM,
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
    ]
}

async fn answers_in_every_representation() {
    answers::take(&scenarios()).await;
}

inventory::submit!(answers::Scenarios(scenarios));

contract_tests::trials!(
    attributes_retrieve_and_query_select_the_same_attributes,
    attributes_persist_and_perform_write_what_retrieve_returns,
    answers_in_every_representation,
);
