//! Channels over HTTP: `cm/channels/query`, `cm/channels/retrieve` and `cm/channels/persist`.

use contract_tests::{
    backends,
    coverage::{self, said, status_and_description},
    issue_item, post_json, records,
};
use core_api::messages as msg;
use core_api::operations as op;
use core_api::operations::{CHANNELS_PERSIST, CHANNELS_QUERY, CHANNELS_RETRIEVE};
use core_api_support::Representation::{Compact, Json, Xml};
use serde_json::json;

use super::{PIM_ONLY, READER, items, post, projects, server, tids, val};
use crate::answers::{self, Scenario};

/// A channel to create, in XML.
fn create_xml(tid: &str) -> String {
    format!(
        r#"<pim xmlns="urn:core-interface:v1" schemaVersion="5.6.0"><projects>
<project tid="{tid}" parentTid="ROOT-A" type="page"><name>Made in XML</name><vals>
<val attr="Headline" type="localized"><itm loc="de_DE">Hallo</itm><itm loc="en_GB">Hello</itm></val>
<val attr="Sizes" type="multiple"><itm pos="1">M</itm><itm pos="0">S</itm></val>
<val attr="Budget"><itm>5</itm></val>
</vals></project></projects></pim>"#
    )
}

/// The same channel in compact JSON.
fn create_compact(tid: &str) -> String {
    json!({"projects": {"entries": [{"tid": tid, "parentTid": "ROOT-A", "type": "page", "name": "Made in compact",
        "vals": {"entries": [
            {"attr": "Headline", "type": "localized", "value": [{"value": "Hallo", "loc": "de_DE"}, {"value": "Hello", "loc": "en_GB"}]},
            {"attr": "Sizes", "type": "multiple", "value": [{"value": "M", "pos": 1}, {"value": "S", "pos": 0}]},
            {"attr": "Budget", "value": "5"}
        ]}}]}})
    .to_string()
}

/// The same channel in default JSON.
fn create_json(tid: &str) -> String {
    json!({"projects": {"project": [{"tid": tid, "parentTid": "ROOT-A", "type": "page", "name": "Made in JSON",
        "vals": {"val": [
            {"attr": "Headline", "type": "localized", "itm": [{"value": "Hallo", "loc": "de_DE"}, {"value": "Hello", "loc": "en_GB"}]},
            {"attr": "Sizes", "type": "multiple", "itm": [{"value": "M", "pos": 1}, {"value": "S", "pos": 0}]},
            {"attr": "Budget", "itm": [{"value": "5"}]}
        ]}}]}})
    .to_string()
}

async fn channel_query_orders_a_subtree_depth_first_and_limits_its_levels() {
    for url in backends("channel query").await {
        let server = server(&url).await;
        let all = ["ROOT", "ROOT-B", "ROOT-B-1", "ROOT-A"];
        assert_eq!(tids(&server, json!({"tid": "ROOT"})).await, all);
        assert_eq!(
            tids(&server, json!({"tid": "ROOT", "level": -1})).await,
            all
        );
        assert_eq!(
            tids(&server, json!({"tid": "ROOT", "level": 0})).await,
            ["ROOT"]
        );
        assert_eq!(
            tids(&server, json!({"tid": "ROOT", "level": 1})).await,
            ["ROOT", "ROOT-B", "ROOT-A"]
        );
        assert_eq!(
            tids(&server, json!({"root": true})).await,
            ["ROOT", "OTHER"]
        );
        let id = projects(&server, &server.token, &["ROOT-B"]).await[0]["id"]
            .as_i64()
            .expect("an id");
        assert_eq!(
            tids(&server, json!({"id": id})).await,
            ["ROOT-B", "ROOT-B-1"]
        );
        for (body, message) in [
            (
                json!({"tid": "NOPE"}),
                "project by tid 'NOPE' not found".to_string(),
            ),
            (
                json!({"id": 999_999}),
                "project by id 999999 not found".to_string(),
            ),
        ] {
            let (status, answer) = post(&server, &CHANNELS_QUERY, &body).await;
            assert_eq!(status, 404, "{body}");
            assert_eq!(issue_item(&answer, "errorMessage"), Some(message.as_str()));
            assert_eq!(issue_item(&answer, "code"), Some("1006"));
        }
        for body in [
            json!({}),
            json!({"root": false}),
            json!({"tid": "ROOT", "root": true}),
            json!({"tid": "ROOT", "id": 1}),
            json!({"tid": "ROOT", "level": -2}),
            json!({"tid": 7}),
        ] {
            let (status, answer) = post(&server, &CHANNELS_QUERY, &body).await;
            assert_eq!(status, 400, "{body}: {answer}");
        }
        server.stop().await;
    }
}

async fn channels_persist_then_retrieve_agree_in_every_representation() {
    for url in backends("channel persist and retrieve").await {
        let server = server(&url).await;
        for (order, (tid, representation, body)) in [
            ("NEW-XML", Xml, create_xml("NEW-XML")),
            ("NEW-JSON", Json, create_json("NEW-JSON")),
            ("NEW-COMPACT", Compact, create_compact("NEW-COMPACT")),
        ]
        .into_iter()
        .enumerate()
        {
            let answer = server
                .call(&CHANNELS_PERSIST)
                .body(representation, body)
                .accept(representation)
                .send()
                .await;
            assert_eq!(answer.status, 200, "{tid}: {}", answer.text);
            assert!(
                coverage::contains(
                    &CHANNELS_PERSIST,
                    &answer.text,
                    msg::THE_PROJECT_HAS_BEEN_CREATED_SUCCESSFULLY
                ),
                "{tid}: {}",
                answer.text
            );
            for accept in [Xml, Json, Compact] {
                let answer = server
                    .call(&CHANNELS_RETRIEVE)
                    .json(&json!({"tids": [tid]}))
                    .accept(accept)
                    .send()
                    .await;
                assert_eq!(answer.status, 200, "{tid} {accept:?}");
                let text = &answer.text;
                for shown in ["Hallo", "Hello", "ROOT-A", "page", "dataType"] {
                    assert!(text.contains(shown), "{tid} {accept:?}: {shown} in {text}");
                }
            }
            let project = &projects(&server, &server.token, &[tid]).await[0];
            assert_eq!(project["parentTid"], "ROOT-A");
            assert_eq!(project["type"], "page");
            assert_eq!(project["orderSequence"], order + 1, "after its siblings");
            assert_eq!(
                items(val(project, "Headline")),
                ["de_DE=Hallo", "en_GB=Hello"]
            );
            assert_eq!(items(val(project, "Sizes")), ["0=S", "1=M"]);
            assert_eq!(items(val(project, "Budget")), ["=5"]);
            assert_eq!(
                val(project, "Budget").expect("Budget")["dataType"],
                "number"
            );
        }
        // Query agrees with retrieve: the new channels are ROOT-A's children, in the order
        // they were created.
        assert_eq!(
            tids(&server, json!({"tid": "ROOT-A"})).await,
            ["ROOT-A", "NEW-XML", "NEW-JSON", "NEW-COMPACT"]
        );
        // An update changes only what it supplies: one locale of Headline, a renamed channel.
        let saved = records(
            &server,
            &server.token,
            &CHANNELS_PERSIST,
            &json!({"projects": {"project": [{"tid": "NEW-JSON", "name": "Renamed", "vals": {"val": [
                {"attr": "Headline", "type": "localized", "itm": [{"value": "Servus", "loc": "de_DE"}]}
            ]}}]}}),
        )
        .await;
        assert_eq!(
            said(&CHANNELS_PERSIST, &saved, status_and_description),
            [("SUCCESS", msg::THE_PROJECT_HAS_BEEN_SAVED_SUCCESSFULLY)]
        );
        assert_eq!(saved[0]["action"], "update");
        assert_eq!(saved[0]["tid"], "NEW-JSON");
        let project = &projects(&server, &server.token, &["NEW-JSON"]).await[0];
        assert_eq!(project["name"], "Renamed");
        assert_eq!(
            items(val(project, "Headline")),
            ["de_DE=Servus", "en_GB=Hello"]
        );
        assert_eq!(items(val(project, "Sizes")), ["0=S", "1=M"]);
        assert_eq!(items(val(project, "Budget")), ["=5"]);
        // A val without items clears the attribute; by id works alike.
        let id = project["id"].as_i64().expect("an id");
        records(
            &server,
            &server.token,
            &CHANNELS_PERSIST,
            &json!({"projects": {"project": [{"id": id, "vals": {"val": [{"attr": "Sizes", "type": "multiple"}]}}]}}),
        )
        .await;
        let project = &projects(&server, &server.token, &["NEW-JSON"]).await[0];
        assert!(val(project, "Sizes").is_none(), "{project}");
        assert_eq!(items(val(project, "Budget")), ["=5"]);
        server.stop().await;
    }
}

async fn a_refused_channel_writes_nothing_and_warnings_save_the_rest() {
    for url in backends("channel persist refusals").await {
        let server = server(&url).await;
        let records = records(
            &server,
            &server.token,
            &CHANNELS_PERSIST,
            &json!({"projects": {"project": [
                {"tid": "HALF", "parentTid": "ROOT", "type": "page", "name": "Half", "vals": {"val": [
                    {"attr": "Budget", "itm": [{"value": "1"}]},
                    {"attr": "Sizes", "type": "multiple", "itm": [{"value": "a", "pos": 0}, {"value": "b", "pos": 0}]}
                ]}},
                {"tid": "ROOT", "name": "Renamed", "vals": {"val": [{"attr": "Budget", "itm": [{"value": "1"}, {"value": "2"}]}]}},
                {"tid": "WARNED", "parentTid": "ROOT", "type": "page", "name": "Warned", "vals": {"val": [
                    {"attr": "Unregistered", "itm": [{"value": "x"}]},
                    {"attr": "Headline", "type": "localized", "itm": [{"value": "Hi", "loc": "en_GB"}, {"value": "?", "loc": "xx_XX"}]}
                ]}},
                {"tid": "ROOT-B", "parentTid": "OTHER"}
            ]}}),
        )
        .await;
        assert_eq!(
            said(&CHANNELS_PERSIST, &records, status_and_description),
            [
                ("ERROR", "Position 0 of attribute 'Sizes' is given twice"),
                ("ERROR", "Attribute 'Budget' holds one value, not 2"),
                (
                    "WARNING",
                    "The project has been created successfully|Attribute 'Unregistered' is not registered|Cannot find language id with code 'xx_XX'."
                ),
                (
                    "WARNING",
                    "The project has been saved successfully|Changing the parent is not supported"
                ),
            ]
        );
        assert!(projects(&server, &server.token, &["HALF"]).await.is_empty());
        let root = &projects(&server, &server.token, &["ROOT"]).await[0];
        assert_eq!(root["name"], "Root", "the refused rename is not saved");
        assert_eq!(items(val(root, "Budget")), ["=100"]);
        let warned = &projects(&server, &server.token, &["WARNED"]).await[0];
        assert_eq!(items(val(warned, "Headline")), ["en_GB=Hi"]);
        assert!(val(warned, "Unregistered").is_none());
        let b = &projects(&server, &server.token, &["ROOT-B"]).await[0];
        assert_eq!(b["parentTid"], "ROOT");
        // Bad input is 400 before anything is applied.
        for body in [
            json!({"projects": {"project": [{"tid": 5}]}}),
            json!({"projects": {"project": [{"tid": "X", "vals": {"val": [{"attr": "Sizes", "type": "several"}]}}]}}),
            json!({"kwds": {"kwd": []}}),
            json!({}),
        ] {
            let (status, answer) = post(&server, &CHANNELS_PERSIST, &body).await;
            assert_eq!(status, 400, "{body}: {answer}");
        }
        server.stop().await;
    }
}

async fn channel_retrieve_shows_what_the_caller_may_see() {
    for url in backends("channel retrieve").await {
        let server = server(&url).await;
        let all = projects(&server, &server.token, &["ROOT-B", "ROOT", "NOPE", "ROOT"]).await;
        let shown: Vec<&str> = all.iter().filter_map(|p| p["tid"].as_str()).collect();
        assert_eq!(
            shown,
            ["ROOT-B", "ROOT"],
            "request order, each once, unknown skipped"
        );
        let root = &all[1];
        assert!(root.get("parentId").is_none() && root.get("parentTid").is_none());
        let meta: Vec<&str> = root["meta"]["itm"]
            .as_array()
            .expect("meta")
            .iter()
            .filter_map(|itm| itm["key"].as_str())
            .collect();
        assert_eq!(
            meta,
            [
                "id",
                "creationDate",
                "modificationDate",
                "icon",
                "allowedFunctions"
            ]
        );
        assert_eq!(
            root["links"]["itm"],
            json!([{"key": "A-1", "value": "/images/a.jpg"}, {"key": "A-R", "value": "/images/secret.jpg"}])
        );
        let peos: Vec<&str> = all[0]["peos"]["peo"]
            .as_array()
            .expect("peos")
            .iter()
            .filter_map(|peo| peo["tid"].as_str())
            .collect();
        assert_eq!(peos, ["PEO-1", "PEO-R", "PEO-S"]);
        assert_eq!(all[0]["peos"]["peo"][0]["nodes"]["node"], json!(["ROOT-B"]));
        assert_eq!(all[0]["peos"]["peo"][0]["default"], true);
        // Ids first, then tids; a channel named twice, or by both lists, is shown once, where
        // its id names it.
        let id = root["id"].as_i64().expect("an id");
        let (status, answer) = post(
            &server,
            &CHANNELS_RETRIEVE,
            &json!({"tids": ["ROOT-B", "ROOT", "ROOT-B"], "ids": [id, id]}),
        )
        .await;
        let shown: Vec<&str> = answer["projects"]["project"]
            .as_array()
            .expect("projects")
            .iter()
            .filter_map(|p| p["tid"].as_str())
            .collect();
        assert_eq!((status, shown), (200, vec!["ROOT", "ROOT-B"]));
        let reader = projects(&server, READER, &["ROOT", "ROOT-B"]).await;
        assert_eq!(
            reader[0]["links"]["itm"],
            json!([{"key": "A-1", "value": "/images/a.jpg"}])
        );
        // Neither the restricted PEO nor the PEO of a hidden product (D-58) is embedded.
        let seen: Vec<&str> = reader[1]["peos"]["peo"]
            .as_array()
            .expect("peos")
            .iter()
            .filter_map(|peo| peo["tid"].as_str())
            .collect();
        assert_eq!(seen, ["PEO-1"]);
        let (status, _) = post_json(
            &server,
            PIM_ONLY,
            &CHANNELS_RETRIEVE,
            &json!({"tids": ["ROOT"]}),
        )
        .await;
        assert_eq!(status, 403);
        let (status, answer) = post(
            &server,
            &CHANNELS_RETRIEVE,
            &json!({"tids": ["NOPE"], "ids": []}),
        )
        .await;
        assert_eq!((status, &answer["projects"]["project"]), (200, &json!([])));
        for body in [json!({}), json!({"tids": "ROOT"}), json!({"ids": ["x"]})] {
            let (status, answer) = post(&server, &CHANNELS_RETRIEVE, &body).await;
            assert_eq!(status, 400, "{body}: {answer}");
        }
        server.stop().await;
    }
}

/// The exchanges whose answers are snapshotted in every representation (`answers`).
fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario::new(
            "channels_query",
            &op::CHANNELS_QUERY,
            json!({"tid": "CAT-2027"}),
        ),
        Scenario::new(
            "channels_query_roots",
            &op::CHANNELS_QUERY,
            json!({"root": true}),
        ),
        Scenario::new(
            "channels_retrieve",
            &op::CHANNELS_RETRIEVE,
            json!({"tids": ["CAT-2027", "CAT-2027-SHIRTS-P1", "WEB-SHOP", "NOPE"]}),
        ),
        Scenario::new(
            "channels_retrieve_without_access",
            &op::CHANNELS_RETRIEVE,
            json!({"tids": ["CAT-2027"]}),
        )
        .token(answers::EDITOR),
        Scenario::new(
            "channels_persist",
            &op::CHANNELS_PERSIST,
            json!({"projects": {"project": [
                {"tid": "CAT-2027-SOCKS", "parentTid": "CAT-2027", "type": "chapter", "name": "Socks",
                 "vals": {"val": [
                    {"attr": "headline", "type": "localized", "itm": [{"value": "Socks", "loc": "en_GB"}, {"value": "Socken", "loc": "xx_XX"}]},
                    {"attr": "Nope", "itm": [{"value": "x"}]}
                 ]}},
                {"tid": "CAT-2027-SHIRTS", "name": "Shirts and tops", "parentTid": "WEB-SHOP"},
                {"id": 1, "vals": {"val": [{"attr": "budget", "itm": [{"value": "30000"}]}]}},
                {"id": 999999, "name": "Ghost"},
                {"id": 1, "tid": "WEB-SHOP"},
                {"tid": "NEW-1", "parentTid": "CAT-2027", "type": "brochure", "name": "x"},
                {"parentTid": "CAT-2027", "type": "page", "name": "x"},
                {"tid": "NEW-2", "parentTid": "CAT-2027", "name": "x"},
                {"tid": "NEW-3", "type": "page", "name": "x"},
                {"tid": "NEW-4", "parentTid": "NOPE", "type": "page", "name": "x"},
                {"tid": "NEW-5", "parentId": 1, "type": "page"},
                {"tid": "CAT-2027", "vals": {"val": [{"attr": "budget", "itm": [{"value": "1"}, {"value": "2"}]}]}},
                {"tid": "CAT-2027", "vals": {"val": [{"attr": "headline", "type": "multiple", "itm": [{"value": "a", "pos": 1}, {"value": "b", "pos": 1}]}]}},
                {"tid": "CAT-2027", "vals": {"val": [{"attr": "headline", "type": "localized", "itm": [{"value": "a"}]}]}}
            ]}}),
        ),
    ]
}

async fn answers_in_every_representation() {
    answers::take(&scenarios()).await;
}

inventory::submit!(answers::Scenarios(scenarios));

contract_tests::trials!(
    channel_query_orders_a_subtree_depth_first_and_limits_its_levels,
    channels_persist_then_retrieve_agree_in_every_representation,
    a_refused_channel_writes_nothing_and_warnings_save_the_rest,
    channel_retrieve_shows_what_the_caller_may_see,
    answers_in_every_representation,
);
