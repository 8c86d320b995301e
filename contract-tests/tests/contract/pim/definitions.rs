//! Attribute definitions over HTTP: `attribute-definitions/query` and
//! `attribute-definitions/perform`.

use contract_tests::{
    backends,
    coverage::{self, said, status_and_description},
    issue_item,
};
use core_api::messages as msg;
use core_api::operations as op;
use core_api::operations::{
    ATTRIBUTE_DEFINITIONS_PERFORM as DEFINITIONS_PERFORM,
    ATTRIBUTE_DEFINITIONS_QUERY as DEFINITIONS_QUERY, ATTRIBUTES_PERFORM, ATTRIBUTES_RETRIEVE,
};
use core_conformance::bodies::{actions, delete};
use serde_json::json;

use super::{batch, id_of, ids, ok, post, server};
use crate::answers::{self, Scenario};

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
            &actions([
                delete("attrDefinition", json!({"tid": "Unused"})),
                delete("attrDefinition", json!({"id": text_ids[0]})),
            ]),
        )
        .await;
        assert_eq!(status, 400);
        assert!(coverage::contains(
            &DEFINITIONS_PERFORM,
            issue_item(&body, "errorMessage").unwrap_or_default(),
            msg::ALL_ACTIONS_OF_ONE_REQUEST_MUST_USE_THE_SAME_KIND_OF_IDENTIFIER
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
            &actions([
                delete("attrDefinition", json!({"id": color})),
                delete("attrDefinition", json!({"id": 999999})),
                delete("attrDefinition", json!({})),
            ]),
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
                    msg::THERE_IS_NO_ATTRIBUTE_DEFINITION_WITH_THE_GIVEN_TID_OR_ID
                ),
                (
                    "ERROR",
                    msg::THERE_IS_NO_ATTRIBUTE_DEFINITION_WITH_THE_GIVEN_TID_OR_ID
                )
            ]
        );
        let deleted = batch(
            &server,
            &DEFINITIONS_PERFORM,
            &actions([delete("attrDefinition", json!({"tid": "Unused"}))]),
        )
        .await;
        assert_eq!(
            said(&DEFINITIONS_PERFORM, &deleted, status_and_description),
            [(
                "SUCCESS",
                msg::THE_ATTRIBUTE_DEFINITION_HAS_BEEN_DELETED_SUCCESSFULLY
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
        batch(
            &server,
            &ATTRIBUTES_PERFORM,
            &actions([delete("attribute", json!({"id": attribute}))]),
        )
        .await;
        let gone = batch(
            &server,
            &DEFINITIONS_PERFORM,
            &actions([delete("attrDefinition", json!({"id": color}))]),
        )
        .await;
        assert_eq!(gone[0]["status"], "SUCCESS", "{gone:?}");
        let text = ok(&server, &DEFINITIONS_QUERY, json!({"types": ["text"]})).await;
        assert!(!ids(&text).contains(&color));
        server.stop().await;
    }
}

/// The exchanges whose answers are snapshotted in every representation (`answers`).
fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario::new(
            "attribute_definitions_query",
            &op::ATTRIBUTE_DEFINITIONS_QUERY,
            json!({"types": ["text", "number"]}),
        ),
        Scenario::new(
            "attribute_definitions_perform",
            &op::ATTRIBUTE_DEFINITIONS_PERFORM,
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
    ]
}

async fn answers_in_every_representation() {
    answers::take(&scenarios()).await;
}

inventory::submit!(answers::Scenarios(scenarios));

contract_tests::trials!(
    attribute_definitions_are_queried_by_type_and_deleted_when_unused,
    answers_in_every_representation,
);
