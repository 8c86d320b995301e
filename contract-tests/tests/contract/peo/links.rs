//! `peo/peos/links/persist` over HTTP (D-32): pairs by tid or by id, re-linking, every item
//! message including the PEO access right, in all three representations; on SQLite and, when
//! `CORE_TEST_POSTGRES_URL` is set, PostgreSQL. The demo catalogue is the fixture.

use contract_tests::{TestServer, backends, coverage, fixture, records};
use core_api::messages as msg;
use core_api::operations as op;
use core_api::operations::PEOS_LINKS_PERSIST as PERSIST;
use core_api_support::Representation::{Compact, Xml};
use core_conformance::bodies::itm;
use serde_json::{Value, json};
use sqlx::Row;

use crate::answers::{self, Scenario};

/// A token of the demo's role `editor`, which does not hold `marketing`.
const EDITOR: &str = "ed170ed170ed170e.ed170ed170ed170ed170ed170ed170ed1";

async fn server(url: &str) -> TestServer {
    let server = TestServer::start_with_demo(url).await;
    server
        .load(&fixture(json!({
            "roles": [{"name": "editor", "modules": ["Common", "PIM", "DAM", "PEO"]}],
            "tokens": [{"user": "editor", "roles": ["editor"], "token": EDITOR}]
        })))
        .await;
    server
}

fn pair(items: &[(&str, &str)]) -> Value {
    json!({"itm": items.iter().map(|(key, value)| json!({"key": key, "value": value})).collect::<Vec<_>>()})
}

async fn persist(server: &TestServer, token: &str, links: Value) -> Vec<Value> {
    records(server, token, &PERSIST, &json!({"links": {"itms": links}})).await
}

async fn linked(server: &TestServer, peo: &str) -> Vec<String> {
    sqlx::query(
        "SELECT c.tid FROM peo_channels l JOIN peos p ON p.id = l.peo_id \
         JOIN channels c ON c.id = l.channel_id WHERE p.tid = $1 ORDER BY c.tid",
    )
    .bind(peo)
    .fetch_all(server.database.reads())
    .await
    .expect("reads")
    .iter()
    .map(|row| row.get("tid"))
    .collect()
}

async fn pairs_link_and_every_item_message_is_said() {
    for url in backends("PEO links persist").await {
        let server = server(&url).await;
        let admin = server.token.clone();
        let ids = sqlx::query("SELECT (SELECT id FROM peos WHERE tid = 'PEO-200-CAT') AS peo, (SELECT id FROM channels WHERE tid = 'WEB-SHOP') AS channel")
            .fetch_one(server.database.reads())
            .await
            .expect("ids");
        let (peo_id, channel_id): (i64, i64) = (ids.get("peo"), ids.get("channel"));
        let records = persist(
            &server,
            &admin,
            json!([
                {"type": "peoToProject", "itms": [
                    pair(&[("peoTid", "PEO-100-WEB"), ("projectTid", "CAT-2027")]),
                    pair(&[("peoId", &peo_id.to_string()), ("projectId", &channel_id.to_string())]),
                    pair(&[("peoTid", "PEO-100-WEB"), ("projectTid", "WEB-SHOP")]),
                    pair(&[("peoTid", "PEO-404"), ("projectTid", "WEB-SHOP")]),
                    pair(&[("peoTid", "PEO-100-WEB"), ("projectTid", "NOPE")]),
                    pair(&[("peoTid", "PEO-100-WEB"), ("projectId", "1")]),
                    pair(&[("peoTid", "PEO-100-WEB")]),
                    pair(&[("peoId", "x"), ("projectId", "1")])
                ]},
                {"type": "peoToProduct", "itms": [pair(&[("peoTid", "PEO-100-WEB"), ("projectTid", "WEB-SHOP")])]}
            ]),
        )
        .await;
        let said = coverage::said(&PERSIST, &records, |record| {
            assert_eq!(record["action"], "link");
            assert_eq!(record["dataType"], "peoToProjectLink");
            assert_eq!(record["details"]["mode"], "delta");
            coverage::status_and_description(record)
        });
        assert_eq!(
            said,
            [
                ("SUCCESS", msg::THE_LINK_HAS_BEEN_SAVED_SUCCESSFULLY),
                ("SUCCESS", msg::THE_LINK_HAS_BEEN_SAVED_SUCCESSFULLY),
                ("SUCCESS", msg::THE_LINK_HAS_BEEN_SAVED_SUCCESSFULLY),
                ("ERROR", msg::PEO_NOT_FOUND),
                ("ERROR", msg::PROJECT_NOT_FOUND),
                ("ERROR", msg::INVALID_LINK_DEFINITION),
                ("ERROR", msg::INVALID_LINK_DEFINITION),
                ("ERROR", msg::INVALID_LINK_DEFINITION),
                ("ERROR", "Unsupported link type 'peoToProduct'"),
            ]
        );
        assert_eq!(
            records[0]["details"]["itm"],
            json!([{"key": "peoTid", "value": "PEO-100-WEB"}, {"key": "projectTid", "value": "CAT-2027"}])
        );
        assert_eq!(
            linked(&server, "PEO-100-WEB").await,
            ["CAT-2027", "WEB-SHOP"],
            "re-linking adds nothing"
        );
        assert_eq!(
            linked(&server, "PEO-200-CAT").await,
            ["CAT-2027-TROUSERS", "WEB-SHOP"]
        );
        // PEO-300-DRAFT is restricted to `marketing`: the editor may not link it, admin may.
        let restricted = json!([{"type": "peoToProject", "itms": [pair(&[("peoTid", "PEO-300-DRAFT"), ("projectTid", "WEB-SHOP")])]}]);
        let records = persist(&server, EDITOR, restricted.clone()).await;
        assert_eq!(
            coverage::said(&PERSIST, &records, |record| record["description"].as_str()),
            [Some(msg::PEO_IS_NOT_AVAILABLE_BY_ACCESS_RIGHTS)]
        );
        assert!(linked(&server, "PEO-300-DRAFT").await.is_empty());
        let records = persist(&server, &admin, restricted).await;
        assert_eq!(records[0]["status"], "SUCCESS");
        // The same pair in XML and compact JSON, answered in each representation.
        for (representation, media, body) in [
            (Xml, "application/xml", r#"<pim xmlns="urn:core-interface:v1"><links><itms type="peoToProject"><itms><itm key="peoTid">PEO-200-CAT</itm><itm key="projectTid">CAT-2027</itm></itms></itms></links></pim>"#.to_string()),
            (Compact, "application/json+compact", json!({"links": {"entries": [{"type": "peoToProject", "itms": [pair(&[("peoTid", "PEO-200-CAT"), ("projectTid", "CAT-2027")])]}]}}).to_string()),
        ] {
            let answer = server
                .call(&PERSIST)
                .raw(media, body)
                .accept_raw(media)
                .send()
                .await;
            assert_eq!(answer.status, 200, "{representation:?}");
            assert!(
                coverage::contains(&PERSIST, &answer.text, msg::THE_LINK_HAS_BEEN_SAVED_SUCCESSFULLY),
                "{}",
                answer.text
            );
        }
        server.stop().await;
    }
}

/// The exchanges whose answers are snapshotted in every representation (`answers`).
fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario::new(
            "peos_links_persist",
            &op::PEOS_LINKS_PERSIST,
            json!({"links": {"itms": [
                {"type": "peoToProject", "itms": [
                    {"itm": itm(&[("peoTid", "PEO-100-WEB"), ("projectTid", "CAT-2027")])},
                    {"itm": itm(&[("peoTid", "PEO-404"), ("projectTid", "CAT-2027")])},
                    {"itm": itm(&[("peoTid", "PEO-100-WEB"), ("projectTid", "NOPE")])},
                    {"itm": itm(&[("peoTid", "PEO-100-WEB")])}
                ]},
                {"type": "peoToProduct", "itms": [{"itm": itm(&[("peoTid", "PEO-100-WEB"), ("projectTid", "CAT-2027")])}]}
            ]}}),
        ),
        Scenario::new(
            "peos_links_persist_access_rights",
            &op::PEOS_LINKS_PERSIST,
            json!({"links": {"itms": [{"type": "peoToProject", "itms": [
                {"itm": itm(&[("peoTid", "PEO-300-DRAFT"), ("projectTid", "WEB-SHOP")])}
            ]}]}}),
        )
        .token(answers::EDITOR),
    ]
}

async fn answers_in_every_representation() {
    answers::take(&scenarios()).await;
}

inventory::submit!(answers::Scenarios(scenarios));

contract_tests::trials!(
    pairs_link_and_every_item_message_is_said,
    answers_in_every_representation,
);
