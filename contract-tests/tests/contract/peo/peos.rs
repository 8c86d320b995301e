//! PEO retrieve and query over HTTP (D-29 to D-31), on SQLite and, when `CORE_TEST_POSTGRES_URL`
//! is set, PostgreSQL: retrieve whole or by name only, in request order, at both paths; query
//! by project (with or without children), product, names and modification bounds in the
//! configured time zone; restricted PEOs left out for callers without rights.

use contract_tests::{TestServer, backends, coverage, fixture, issue_item, post_json};
use core_api::messages as msg;
use core_api::operations as op;
use core_api::operations::{PEOS_QUERY, PEOS_RETRIEVE};
use core_api_support::Representation::{Compact, Json, Xml};
use core_server::{bootstrap::Bootstrap, storage::Database};
use serde_json::{Value, json};

use crate::answers::{self, Scenario};

/// A token of the role `reader` (PEO), which sees no restricted PEO or product.
const READER: &str = "9a9a9a9a9a9a9a9a.9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a";

/// A channel tree ROOT → CHILD, PEOs linked to each, one restricted, one of a restricted
/// product, and one linked to nothing.
fn catalogue() -> Bootstrap {
    fixture(json!({
        "locales": [{"tid": "en_GB", "language": "en", "country": "GB", "name": "English"}],
        "attributeDefinitions": [{"tid": "Price", "type": "number"}],
        "channelTypes": ["catalog"],
        "channelAttributes": ["Price"],
        "roles": [{"name": "reader", "modules": ["PEO"]}, {"name": "secret"}],
        "tokens": [{"user": "reader", "roles": ["reader"], "token": READER}],
        "products": [{"tid": "P-1"}, {"tid": "P-R", "restrictedTo": ["secret"]}],
        "channels": [
            {"tid": "ROOT", "type": "catalog", "name": "Root"},
            {"tid": "CHILD", "type": "catalog", "parent": "ROOT", "name": "Child"}
        ],
        "peos": [
            {"tid": "PEO-ROOT", "product": "P-1", "template": "print", "name": "Root prices",
             "nodes": ["ROOT"], "channels": ["ROOT"],
             "values": [{"attr": "Price", "items": [{"value": "9.99"}]}]},
            {"tid": "PEO-CHILD", "product": "P-1", "default": true, "name": "Child prices",
             "nodes": ["CHILD", "ROOT"], "channels": ["CHILD"]},
            {"tid": "PEO-SECRET", "product": "P-1", "name": "Secret", "channels": ["CHILD"], "restrictedTo": ["secret"]},
            {"tid": "PEO-R", "product": "P-R", "name": "Of a restricted product"},
            {"tid": "PEO-LOOSE", "name": "Root prices"}
        ]
    }))
}

async fn server(url: &str) -> TestServer {
    let server = TestServer::start_on(url).await;
    server.load(&catalogue()).await;
    server
}

/// The tids of the `peo` of an answer.
fn peo_tids(answer: &Value) -> Vec<&str> {
    answer["peos"]["peo"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|peo| peo["tid"].as_str())
        .collect()
}

/// The tids a PEO query answers, expecting 200.
async fn query(server: &TestServer, token: &str, body: Value) -> Vec<String> {
    let (status, answer) = post_json(server, token, &PEOS_QUERY, &body).await;
    assert_eq!(status, 200, "{body}: {answer}");
    answer["tids"]
        .as_array()
        .expect("tids")
        .iter()
        .filter_map(|tid| tid.as_str().map(str::to_string))
        .collect()
}

/// Sets when a PEO was last modified.
async fn modified(database: &Database, tid: &str, at: &str) {
    sqlx::query("UPDATE peos SET modified_at = $1 WHERE tid = $2")
        .bind(at.to_string())
        .bind(tid.to_string())
        .execute(database.writes())
        .await
        .expect("updated");
}

async fn peo_retrieve_answers_whole_or_by_name_in_request_order() {
    for url in backends("PEO retrieve").await {
        let server = server(&url).await;
        let token = server.token.clone();
        let (status, whole) = post_json(
            &server,
            &token,
            &PEOS_RETRIEVE,
            &json!({"tids": ["PEO-CHILD", "NOPE", "PEO-ROOT", "PEO-CHILD"], "ids": [999], "withMetadata": true}),
        )
        .await;
        assert_eq!(status, 200, "{whole}");
        assert_eq!(peo_tids(&whole), ["PEO-CHILD", "PEO-ROOT"]);
        let child = &whole["peos"]["peo"][0];
        assert_eq!(child["product"], "P-1");
        assert_eq!(child["default"], true);
        assert_eq!(child["nodes"]["node"], json!(["CHILD", "ROOT"]));
        let keys: Vec<&str> = child["meta"]["itm"]
            .as_array()
            .expect("meta")
            .iter()
            .filter_map(|itm| itm["key"].as_str())
            .collect();
        assert_eq!(keys, ["id", "creationDate", "modificationDate"]);
        let root = &whole["peos"]["peo"][1];
        assert_eq!(root["default"], false);
        assert_eq!(root["template"], "print");
        assert_eq!(
            root["vals"]["val"],
            json!([{"attr": "Price", "dataType": "number", "itm": [{"value": "9.99"}]}])
        );
        let id = child["meta"]["itm"][0]["value"]
            .as_str()
            .and_then(|id| id.parse::<i64>().ok())
            .expect("an id");
        let (_, names) = post_json(
            &server,
            &token,
            &PEOS_RETRIEVE,
            &json!({"ids": [id], "namesOnly": true}),
        )
        .await;
        assert_eq!(
            names["peos"]["peo"],
            json!([{"tid": "PEO-CHILD", "name": "Child prices"}])
        );
        let (_, names) = post_json(
            &server,
            &token,
            &PEOS_RETRIEVE,
            &json!({"ids": [id], "namesOnly": true, "withMetadata": true}),
        )
        .await;
        assert_eq!(
            names["peos"]["peo"][0]["meta"]["itm"]
                .as_array()
                .map(Vec::len),
            Some(3)
        );
        // The deprecated alias answers alike; every representation carries the PEO.
        for accept in [Xml, Json, Compact] {
            for path in [
                "/api/core/v1/peo/peos/retrieve",
                "/api/core/v1/pim/peos/retrieve",
            ] {
                let answer = server
                    .call(&PEOS_RETRIEVE)
                    .at(path)
                    .json(&json!({"tids": ["PEO-ROOT"]}))
                    .accept(accept)
                    .send()
                    .await;
                assert_eq!(answer.status, 200, "{path} {accept:?}");
                assert!(answer.text.contains("Root prices") && answer.text.contains("9.99"));
            }
        }
        // Restricted PEOs are left out for a caller without rights; none left is 404.
        let (_, seen) = post_json(
            &server,
            READER,
            &PEOS_RETRIEVE,
            &json!({"tids": ["PEO-SECRET", "PEO-ROOT"]}),
        )
        .await;
        assert_eq!(peo_tids(&seen), ["PEO-ROOT"]);
        // So is a PEO of a product the caller may not see, whole or by name only (D-58).
        for names_only in [false, true] {
            let body = json!({"tids": ["PEO-R", "PEO-ROOT"], "namesOnly": names_only});
            let (_, seen) = post_json(&server, READER, &PEOS_RETRIEVE, &body).await;
            assert_eq!(peo_tids(&seen), ["PEO-ROOT"], "{body}");
            let (_, all) = post_json(&server, &token, &PEOS_RETRIEVE, &body).await;
            assert_eq!(peo_tids(&all), ["PEO-R", "PEO-ROOT"], "{body}");
        }
        for (token, body) in [
            (READER, json!({"tids": ["PEO-SECRET"]})),
            (READER, json!({"tids": ["PEO-R"]})),
            (token.as_str(), json!({"tids": ["NOPE"]})),
            (token.as_str(), json!({"ids": [999_999]})),
        ] {
            let (status, answer) = post_json(&server, token, &PEOS_RETRIEVE, &body).await;
            assert_eq!(status, 404, "{body}");
            assert!(coverage::contains(
                &PEOS_RETRIEVE,
                issue_item(&answer, "errorMessage").unwrap_or_default(),
                msg::NONE_OF_THE_REQUESTED_PEOS_WAS_FOUND
            ));
        }
        for body in [
            json!({}),
            json!({"ids": [], "tids": []}),
            json!({"withMetadata": true}),
            json!({"tids": ["x"], "namesOnly": "yes"}),
        ] {
            let (status, answer) = post_json(&server, &token, &PEOS_RETRIEVE, &body).await;
            assert_eq!(status, 400, "{body}: {answer}");
        }
        server.stop().await;
    }
}

async fn peo_query_combines_its_criteria() {
    for url in backends("PEO query").await {
        let server = server(&url).await;
        let token = server.token.clone();
        let all = ["PEO-CHILD", "PEO-LOOSE", "PEO-R", "PEO-ROOT", "PEO-SECRET"];
        assert_eq!(query(&server, &token, json!({})).await, all);
        // A PEO of a product the caller may not see is left out like a restricted one (D-58).
        assert_eq!(
            query(&server, READER, json!({})).await,
            ["PEO-CHILD", "PEO-LOOSE", "PEO-ROOT"]
        );
        assert_eq!(
            query(&server, &token, json!({"tidProject": "ROOT"})).await,
            ["PEO-CHILD", "PEO-ROOT", "PEO-SECRET"]
        );
        assert_eq!(
            query(
                &server,
                &token,
                json!({"tidProject": "ROOT", "withChildren": false})
            )
            .await,
            ["PEO-ROOT"]
        );
        assert_eq!(
            query(&server, &token, json!({"names": ["Root prices"]})).await,
            ["PEO-LOOSE", "PEO-ROOT"]
        );
        assert_eq!(
            query(
                &server,
                &token,
                json!({"names": ["Root prices"], "tidProduct": "P-1"})
            )
            .await,
            ["PEO-ROOT"]
        );
        modified(&server.database, "PEO-ROOT", "2024-01-31T23:30:00.000Z").await;
        modified(&server.database, "PEO-CHILD", "2024-03-01T00:00:00.000Z").await;
        let bounds = json!({"tidProject": "ROOT", "modifiedFrom": "2024-01-01T00:00:00.000", "modifiedUntil": "2024-02-29T23:59:59.999"});
        assert_eq!(query(&server, &token, bounds.clone()).await, ["PEO-ROOT"]);
        assert_eq!(
            query(&server, &token, json!({"modifiedFrom": "2024-03-01T00:00:00.000", "modifiedUntil": "2024-03-01T00:00:00.000"})).await,
            ["PEO-CHILD"],
            "bounds are inclusive"
        );
        // Product and project together: the product's PEOs linked to the subtree.
        assert_eq!(
            query(
                &server,
                &token,
                json!({"tidProduct": "P-1", "tidProject": "ROOT"})
            )
            .await,
            ["PEO-CHILD", "PEO-ROOT", "PEO-SECRET"]
        );
        assert_eq!(
            query(
                &server,
                &token,
                json!({"tidProduct": "P-1", "tidProject": "CHILD", "withChildren": false})
            )
            .await,
            ["PEO-CHILD", "PEO-SECRET"]
        );
        assert_eq!(
            query(
                &server,
                READER,
                json!({"tidProduct": "P-1", "tidProject": "ROOT"})
            )
            .await,
            ["PEO-CHILD", "PEO-ROOT"]
        );
        let empty: [&str; 0] = [];
        assert_eq!(
            query(
                &server,
                &token,
                json!({"tidProduct": "P-R", "tidProject": "ROOT"})
            )
            .await,
            empty,
            "a product none of whose PEOs is linked to the project"
        );
        assert_eq!(
            query(
                &server,
                &token,
                json!({"tidProject": "ROOT", "names": ["Root prices"]})
            )
            .await,
            ["PEO-ROOT"]
        );
        for (body, message) in [
            (json!({"tidProject": "NOPE"}), "Project 'NOPE' not found"),
            (json!({"tidProduct": "NOPE"}), "Product 'NOPE' not found"),
            (
                json!({"tidProduct": "NOPE", "tidProject": "NOPE"}),
                "Product 'NOPE' not found",
            ),
            (
                json!({"tidProduct": "P-1", "tidProject": "NOPE"}),
                "Project 'NOPE' not found",
            ),
            (
                json!({"tidProduct": "NOPE", "tidProject": "ROOT"}),
                "Product 'NOPE' not found",
            ),
        ] {
            let (status, answer) = post_json(&server, &token, &PEOS_QUERY, &body).await;
            assert_eq!(status, 404, "{body}");
            assert!(coverage::contains(
                &PEOS_QUERY,
                issue_item(&answer, "errorMessage").unwrap_or_default(),
                message
            ));
        }
        for body in [
            json!({"tidProduct": "P-R"}),
            json!({"tidProduct": "P-R", "tidProject": "ROOT"}),
        ] {
            let (status, _) = post_json(&server, READER, &PEOS_QUERY, &body).await;
            assert_eq!(status, 404, "a product the caller may not see: {body}");
        }
        for body in [
            json!({"modifiedFrom": "2024-01-01T00:00:00.000Z"}),
            json!({"modifiedFrom": "2024-01-01"}),
            json!({"modifiedUntil": "2024-02-30T00:00:00.000"}),
            json!({"names": "Root prices"}),
            json!({"withChildren": "no"}),
        ] {
            let (status, answer) = post_json(&server, &token, &PEOS_QUERY, &body).await;
            assert_eq!(status, 400, "{body}: {answer}");
        }
        // Nor may the caller link a PEO of a product it may not see (D-58); nothing is linked.
        let links = json!({"links": {"itms": [{"type": "peoToProject", "itms": [{"itm": [
            {"key": "peoTid", "value": "PEO-R"}, {"key": "projectTid", "value": "ROOT"}]}]}]}});
        let records =
            contract_tests::records(&server, READER, &op::PEOS_LINKS_PERSIST, &links).await;
        assert_eq!(records[0]["status"], "ERROR");
        assert_eq!(
            records[0]["description"],
            msg::PEO_IS_NOT_AVAILABLE_BY_ACCESS_RIGHTS
        );
        assert_eq!(
            query(&server, &token, json!({"tidProject": "ROOT"})).await,
            ["PEO-CHILD", "PEO-ROOT", "PEO-SECRET"]
        );
        server.stop().await;
        // In another time zone the same local bounds are other instants.
        let shifted = TestServer::start_on_with(&url, |settings| {
            settings.time_zone = "+01:00".parse().expect("an offset");
        })
        .await;
        shifted.load(&catalogue()).await;
        modified(&shifted.database, "PEO-ROOT", "2024-01-31T23:30:00.000Z").await;
        let (status, answer) = post_json(
            &shifted,
            &shifted.token,
            &PEOS_QUERY,
            &json!({"modifiedFrom": "2024-02-01T00:00:00.000", "modifiedUntil": "2024-02-01T00:30:00.000"}),
        )
        .await;
        assert_eq!((status, &answer["tids"]), (200, &json!(["PEO-ROOT"])));
        shifted.stop().await;
    }
}

/// The exchanges whose answers are snapshotted in every representation (`answers`).
fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario::new(
            "peos_retrieve",
            &op::PEOS_RETRIEVE,
            json!({"tids": ["PEO-100-WEB", "PEO-100-CAT", "PEO-300-DRAFT", "NOPE"], "withMetadata": true}),
        ),
        Scenario::new(
            "peos_retrieve_names_only",
            &op::PEOS_RETRIEVE,
            json!({"ids": [2, 1], "namesOnly": true}),
        ),
        Scenario::new(
            "peos_retrieve_access_rights",
            &op::PEOS_RETRIEVE,
            json!({"tids": ["PEO-300-DRAFT", "PEO-200-CAT"]}),
        )
        .token(answers::EDITOR),
        Scenario::new(
            "peos_query",
            &op::PEOS_QUERY,
            json!({"tidProject": "CAT-2027", "tidProduct": "P-100"}),
        ),
    ]
}

async fn answers_in_every_representation() {
    answers::take(&scenarios()).await;
}

inventory::submit!(answers::Scenarios(scenarios));

contract_tests::trials!(
    peo_retrieve_answers_whole_or_by_name_in_request_order,
    peo_query_combines_its_criteria,
    answers_in_every_representation,
);
