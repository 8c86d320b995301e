//! `keywords/retrieve` over HTTP: levels in pre-order with names, `meta` and links; bad levels
//! and paths refused.

use contract_tests::{
    backends,
    coverage::{self},
    issue_item, post_json,
};
use core_api::operations as op;
use core_api::operations::KEYWORDS_RETRIEVE as RETRIEVE;
use core_conformance::bodies::name;
use serde_json::json;

use super::{READER, paths, persist, post, retrieve, server};
use crate::answers::{self, Scenario};

async fn retrieval_walks_levels_in_pre_order_with_names_meta_and_links() {
    for url in backends("keywords retrieval").await {
        let server = server(&url).await;
        persist(
            &server,
            json!([
                {"parentPath": "/Season", "name": name("Winter")},
                {"parentPath": "/Season/Summer", "name": name("July")},
                {"name": name("Brand")}
            ]),
        )
        .await;
        // `/` and level 1: the roots only, siblings by orderNumber.
        let roots = retrieve(&server, json!({"path": "/"})).await;
        assert_eq!(paths(&roots), ["/Season", "/Brand"]);
        assert!(roots[0].get("parentId").is_none() && roots[0].get("links").is_none());
        // All levels, depth first.
        let all = retrieve(&server, json!({"path": "/", "level": -1})).await;
        assert_eq!(
            paths(&all),
            [
                "/Season",
                "/Season/Summer",
                "/Season/Summer/July",
                "/Season/Winter",
                "/Brand"
            ]
        );
        let summer = &all[1];
        assert_eq!(summer["parentId"], all[0]["id"]);
        assert_eq!(summer["parentPath"], "/Season");
        assert_eq!(
            summer["name"],
            json!({"itm": [{"value": "Summer"}, {"value": "Sommer", "loc": "de_DE"}]})
        );
        let meta: Vec<(&str, &str)> = summer["meta"]["itm"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|itm| {
                (
                    itm["key"].as_str().unwrap_or_default(),
                    itm["value"].as_str().unwrap_or_default(),
                )
            })
            .collect();
        assert_eq!(meta[0].0, "creationDate");
        assert!(
            meta[0].1.ends_with('Z') && meta[0].1.len() == 24,
            "{meta:?}"
        );
        assert_eq!(meta[1..], [("orderNumber", "1"), ("parent", "Season")]);
        // Two levels below `/`; a non-root path lists only what is below it.
        let two = retrieve(&server, json!({"path": "/", "level": 2})).await;
        assert_eq!(
            paths(&two),
            ["/Season", "/Season/Summer", "/Season/Winter", "/Brand"]
        );
        let below = retrieve(&server, json!({"path": "/Season", "level": 1})).await;
        assert_eq!(paths(&below), ["/Season/Summer", "/Season/Winter"]);
        // Links only when asked for, an empty `links` for a keyword without any, and restricted
        // assets only for callers holding their role (admin holds every one).
        let linked = retrieve(&server, json!({"path": "/Season", "retrieveLinks": true})).await;
        assert_eq!(
            linked[0]["links"],
            json!({"itms": [{"type": "asset", "itm": [{"value": "A-1001"}, {"value": "A-SECRET"}]}]})
        );
        assert_eq!(linked[1]["links"], json!({"itms": []}));
        let (_, body) = post_json(
            &server,
            READER,
            &RETRIEVE,
            &json!({"path": "/Season", "retrieveLinks": true}),
        )
        .await;
        assert_eq!(
            body["kwds"]["kwd"][0]["links"]["itms"][0]["itm"],
            json!([{"value": "A-1001"}])
        );
        server.stop().await;
    }
}

async fn retrieval_refuses_bad_levels_and_paths() {
    for url in backends("keywords retrieval refusals").await {
        let server = server(&url).await;
        for (request, status, message) in [
            (json!({"path": "/", "level": 0}), 400, "level: 0 is invalid"),
            (
                json!({"path": "/", "level": -2}),
                400,
                "level: -2 is invalid",
            ),
            (json!({}), 400, "missing required value 'path'"),
            (
                json!({"path": "/", "level": "one"}),
                400,
                "level: expected integer",
            ),
            (json!({"path": 5}), 400, "path: expected string"),
            (
                json!({"path": "/Nope"}),
                404,
                "Keyword with path '/Nope' not found",
            ),
        ] {
            let (answer, body) = post(&server, &RETRIEVE, &request).await;
            assert_eq!(answer, status, "{request}: {body}");
            let said = issue_item(&body, "errorMessage").unwrap_or_default();
            assert!(
                coverage::contains(&RETRIEVE, said, message),
                "{request}: {said}"
            );
        }
        server.stop().await;
    }
}

/// The exchanges whose answers are snapshotted in every representation (`answers`).
fn scenarios() -> Vec<Scenario> {
    vec![Scenario::new(
        "keywords_retrieve",
        &op::KEYWORDS_RETRIEVE,
        json!({"path": "/Season", "level": -1, "retrieveLinks": true}),
    )]
}

async fn answers_in_every_representation() {
    answers::take(&scenarios()).await;
}

inventory::submit!(answers::Scenarios(scenarios));

contract_tests::trials!(
    retrieval_walks_levels_in_pre_order_with_names_meta_and_links,
    retrieval_refuses_bad_levels_and_paths,
    answers_in_every_representation,
);
