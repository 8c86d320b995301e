//! `locales/retrieve` over HTTP (D-45): the modes, the rules tying `ids` and `tids` to them, and
//! `exportConfig`; on SQLite and, when `CORE_TEST_POSTGRES_URL` is set, PostgreSQL.

use contract_tests::{TestServer, backends, fixture, issue_item};
use core_api::operations as op;
use core_api::operations::{COMPONENTS_RETRIEVE, LOCALES_RETRIEVE as RETRIEVE};
use core_api_support::Representation::{self, Compact, Json, Xml};
use serde_json::{Value, json};

use crate::answers::{self, Scenario};

async fn server(url: &str) -> TestServer {
    let server = TestServer::start_on(url).await;
    let locales = fixture(json!({"locales": [
        {"tid": "en_GB", "language": "en", "country": "GB", "name": "English", "contentLocale": true,
         "defaultContentLocale": true, "frontendLocale": true, "defaultFrontendLocale": true},
        {"tid": "de_DE", "language": "de", "country": "DE", "name": "Deutsch", "contentLocale": true,
         "customDateFormatsEnabled": true},
        {"tid": "it_IT", "language": "it", "country": "IT", "name": "Italiano", "frontendLocale": true}
    ]}));
    server.load(&locales).await;
    server
}

async fn post(server: &TestServer, accept: Representation, body: Value) -> (u16, String) {
    let answer = server
        .call(&RETRIEVE)
        .json(&body)
        .accept(accept)
        .send()
        .await;
    (answer.status, answer.text)
}

async fn tids(server: &TestServer, body: Value) -> Vec<String> {
    let (status, text) = post(server, Json, body).await;
    assert_eq!(status, 200, "{text}");
    let value: Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(value["locales"]["mode"], "delta");
    value["locales"]["locale"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|locale| locale["tid"].as_str().map(str::to_string))
        .collect()
}

async fn modes_select_and_rules_refuse() {
    for url in backends("locales retrieve").await {
        let server = server(&url).await;
        assert_eq!(
            tids(&server, json!({"mode": "ALL"})).await,
            ["en_GB", "de_DE", "it_IT"]
        );
        assert_eq!(
            tids(&server, json!({"mode": "CONTENT"})).await,
            ["en_GB", "de_DE"]
        );
        assert_eq!(
            tids(&server, json!({"mode": "FRONTEND"})).await,
            ["en_GB", "it_IT"]
        );
        assert_eq!(
            tids(
                &server,
                json!({"mode": "TID", "tids": ["it_IT", "xx_XX", "en_GB"]})
            )
            .await,
            ["en_GB", "it_IT"],
            "ordered by id, unknown tids skipped"
        );
        assert_eq!(
            tids(&server, json!({"mode": "ID", "ids": [2, 99]})).await,
            ["de_DE"]
        );
        for (body, message) in [
            (
                json!({"mode": "ALL", "ids": [1]}),
                "when ids is set, mode must be ID",
            ),
            (
                json!({"mode": "ID", "tids": ["en_GB"]}),
                "when tids is set, mode must be TID",
            ),
            (json!({"mode": "ID"}), "mode ID needs a non-empty ids"),
            (
                json!({"mode": "TID", "tids": []}),
                "mode TID needs a non-empty tids",
            ),
            (json!({}), "missing required value 'mode'"),
            (json!({"mode": "SOME"}), "mode"),
            (
                json!({"mode": "ALL", "exportConfig": "yes"}),
                "exportConfig: expected boolean",
            ),
        ] {
            let (status, text) = post(&server, Json, body.clone()).await;
            assert_eq!(status, 400, "{body}: {text}");
            let value: Value = serde_json::from_str(&text).expect("JSON");
            let said = issue_item(&value, "errorMessage").unwrap_or_default();
            assert!(said.contains(message), "{body}: {said}");
        }
        // `config` only with exportConfig; meta with the four flags; all three representations.
        let (_, text) = post(&server, Json, json!({"mode": "ID", "ids": [2]})).await;
        let plain: Value = serde_json::from_str(&text).expect("JSON");
        assert!(plain["locales"]["locale"][0].get("config").is_none());
        assert_eq!(
            plain["locales"]["locale"][0]["meta"]["itm"],
            json!([
                {"key": "contentLocale", "value": "true"},
                {"key": "defaultContentLocale", "value": "false"},
                {"key": "defaultFrontendLocale", "value": "false"},
                {"key": "frontendLocale", "value": "false"}
            ])
        );
        assert_eq!(
            plain["meta"]["itm"][3],
            json!({"key": "itemInformationType", "value": "locale"})
        );
        let request = json!({"mode": "ID", "ids": [2], "exportConfig": true});
        let (_, xml) = post(&server, Xml, request.clone()).await;
        assert!(
            xml.contains(r#"<itms mode="delta" type="dateFormat">"#)
                && xml.contains(r#"<itm key="customDateFormatsEnabled">true</itm>"#),
            "{xml}"
        );
        let (_, compact) = post(&server, Compact, request).await;
        let compact: Value = serde_json::from_str(&compact).expect("JSON");
        assert_eq!(compact["locales"]["mode"], "delta");
        assert_eq!(
            compact["locales"]["entries"][0]["meta"]["contentLocale"],
            "true"
        );
        server.stop().await;
    }
}

async fn components_answer_the_configured_map_or_404() {
    for url in backends("components retrieve").await {
        let server = TestServer::start_on(&url).await;
        let answer = server.call(&COMPONENTS_RETRIEVE).send().await;
        assert_eq!(answer.status, 404);
        server
            .load(&fixture(
                json!({"components": {"PIM": "ACTIVE", "CM": "INACTIVE"}}),
            ))
            .await;
        for body in [None, Some("{}")] {
            let mut call = server.call(&COMPONENTS_RETRIEVE);
            if let Some(body) = body {
                call = call.body(Json, body);
            }
            let answer = call.send().await;
            assert_eq!(answer.status, 200);
            assert_eq!(answer.text, r#"{"CM":"INACTIVE","PIM":"ACTIVE"}"#);
        }
        server.stop().await;
    }
}

/// The exchanges whose answers are snapshotted in every representation (`answers`).
fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario::new(
            "locales_retrieve",
            &op::LOCALES_RETRIEVE,
            json!({"mode": "CONTENT", "exportConfig": true}),
        ),
        Scenario::new("components_retrieve", &op::COMPONENTS_RETRIEVE, json!({})),
    ]
}

async fn answers_in_every_representation() {
    answers::take(&scenarios()).await;
}

inventory::submit!(answers::Scenarios(scenarios));

contract_tests::trials!(
    modes_select_and_rules_refuse,
    components_answer_the_configured_map_or_404,
    answers_in_every_representation,
);
