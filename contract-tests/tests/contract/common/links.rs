//! `links/persist` over HTTP (D-33): product and keyword links, every item message of the error
//! table, access rights per item, and links read back through keywords retrieve; on SQLite and,
//! when `CORE_TEST_POSTGRES_URL` is set, PostgreSQL.

use contract_tests::{TestServer, backends, coverage, fixture, post_json, records};
use core_api::messages as msg;
use core_api::operations as op;
use core_api::operations::{KEYWORDS_RETRIEVE, LINKS_PERSIST as PERSIST};
use core_conformance::bodies::itm;
use serde_json::{Value, json};

use crate::answers::{self, Scenario};

/// A token of the role `reader`, which may call the Common module but not see restricted records.
const READER: &str = "0123456789abcdef.0123456789abcdef0123456789abcdef";

async fn server(url: &str) -> TestServer {
    let server = TestServer::start_on(url).await;
    let links = fixture(json!({
        "assets": [{"tid": "A-1"}, {"tid": "A-2"}, {"tid": "A-3"}, {"tid": "A-4"},
                   {"tid": "A-SECRET", "restrictedTo": ["secret"]}],
        "attributeDefinitions": [
            {"tid": "Main_Image", "type": "ref", "cardinality": 2},
            {"tid": "Gallery", "type": "ref"}
        ],
        "products": [
            {"tid": "PR-1", "assets": [{"asset": "A-1", "linkType": "Main_Image"}]},
            {"tid": "PR-SECRET", "restrictedTo": ["secret"]}
        ],
        "keywords": [{"path": "/Season"}],
        "roles": [{"name": "reader", "modules": ["Common"]}, {"name": "secret"}],
        "tokens": [{"user": "reader", "roles": ["reader"], "token": READER}]
    }));
    server.load(&links).await;
    server
}

fn product(link_type: Option<&str>, items: &[(&str, &str)]) -> Value {
    let mut group = json!({"itm": items.iter().map(|(key, value)| json!({"key": key, "value": value})).collect::<Vec<_>>()});
    if let Some(link_type) = link_type {
        group["type"] = json!(link_type);
    }
    group
}

async fn persist(server: &TestServer, token: &str, links: Value) -> Vec<Value> {
    records(server, token, &PERSIST, &json!({"links": {"itms": links}})).await
}

/// What the records say (status and description), each a link record.
fn said(records: &[Value]) -> coverage::Said<Vec<(&str, &str)>> {
    coverage::said(&PERSIST, records, |record| {
        assert_eq!(record["dataType"], "link");
        assert_eq!(record["action"], "create");
        coverage::status_and_description(record)
    })
}

async fn product_and_keyword_links_say_every_item_message() {
    for url in backends("links persist").await {
        let server = server(&url).await;
        let token = server.token.clone();
        let records = persist(
            &server,
            &token,
            json!([
                {"type": "assetToProduct", "itms": [
                    product(Some("Main_Image"), &[("productTid", "PR-1"), ("assetTid", "A-2")]),
                    product(Some("Main_Image"), &[("productTid", "PR-1"), ("assetTid", "A-1")]),
                    product(Some("Main_Image"), &[("productTid", "PR-1"), ("assetTid", "A-3")]),
                    product(Some("Gallery"), &[("productTid", "PR-1"), ("assetTid", "A-3"), ("assetTid", "A-4")]),
                    product(Some("Main_Image"), &[("productTid", "PR-404"), ("assetTid", "A-3")]),
                    product(Some("Main_Image"), &[("productTid", "PR-1"), ("assetTid", "A-404")]),
                    product(Some("Nope"), &[("productTid", "PR-1"), ("assetTid", "A-3")]),
                    product(None, &[("productTid", "PR-1"), ("assetTid", "A-3")]),
                    product(Some("Gallery"), &[("productId", "x"), ("assetTid", "A-3")]),
                    product(Some("Gallery"), &[("productTid", "PR-1")]),
                    product(Some("Gallery"), &[("productTid", "PR-1"), ("productId", "1"), ("assetTid", "A-3")])
                ]},
                {"type": "assetToKeyword", "itms": [
                    product(None, &[("keywordPath", "/Season"), ("assetTid", "A-2")]),
                    product(None, &[("keywordPath", "/Season"), ("assetTid", "A-2")]),
                    product(None, &[("keywordPath", "/Nope"), ("assetTid", "A-2")])
                ]},
                {"type": "assetToChannel", "itms": [product(None, &[("assetTid", "A-2")])]}
            ]),
        )
        .await;
        assert_eq!(
            said(&records),
            [
                ("SUCCESS", msg::THE_LINK_HAS_BEEN_SAVED_SUCCESSFULLY),
                ("ERROR", msg::ASSET_HAS_BEEN_ALREADY_LINKED_TO_THE_PRODUCT),
                (
                    "ERROR",
                    msg::PRODUCT_ATTRIBUTE_CARDINALITY_HAS_BEEN_EXCEEDED
                ),
                ("SUCCESS", msg::THE_LINK_HAS_BEEN_SAVED_SUCCESSFULLY),
                ("ERROR", msg::PRODUCT_NOT_FOUND),
                ("ERROR", msg::ASSET_NOT_FOUND),
                ("ERROR", msg::ATTRIBUTE_NOT_FOUND),
                ("ERROR", msg::ATTRIBUTE_NOT_FOUND),
                ("ERROR", "Invalid value 'x' for 'productId'"),
                ("ERROR", "Missing required value 'assetTid'"),
                ("ERROR", "Give one 'productTid' or one 'productId'"),
                ("SUCCESS", msg::THE_LINK_HAS_BEEN_SAVED_SUCCESSFULLY),
                ("ERROR", msg::ASSET_HAS_BEEN_ALREADY_LINKED_TO_THE_KEYWORD),
                ("ERROR", "Keyword with path '/Nope' not found"),
                ("ERROR", "Unsupported link type 'assetToChannel'"),
            ]
        );
        assert_eq!(
            records[1]["details"],
            json!({"itm": [{"key": "productTid", "value": "PR-1"}, {"key": "linkType", "value": "Main_Image"}],
                   "itms": [{"key": "assetTid", "itm": [{"value": "A-1"}]}]})
        );
        assert_eq!(
            records[11]["details"],
            json!({"itm": [{"key": "keywordPath", "value": "/Season"}],
                   "itms": [{"key": "assetTid", "itm": [{"value": "A-2"}]}]})
        );
        // A keyword by id: an unknown one is named by its identity.
        assert_eq!(
            said(
                &persist(
                    &server,
                    &token,
                    json!([{"type": "assetToKeyword", "itms": [
                        product(None, &[("keywordId", "999999"), ("assetTid", "A-2")])
                    ]}]),
                )
                .await
            ),
            [("ERROR", "Keyword with identity '999999' not found")]
        );
        // Access rights per item: the reader may not see restricted records; admin may.
        let restricted = json!([{"type": "assetToProduct", "itms": [
            product(Some("Gallery"), &[("productTid", "PR-SECRET"), ("assetTid", "A-2")]),
            product(Some("Gallery"), &[("productTid", "PR-1"), ("assetTid", "A-SECRET")])
        ]}]);
        assert_eq!(
            said(&persist(&server, READER, restricted.clone()).await),
            [
                ("ERROR", msg::PRODUCT_IS_NOT_AVAILABLE_BY_ACCESS_RIGHTS),
                ("ERROR", msg::ASSET_IS_NOT_AVAILABLE_BY_ACCESS_RIGHTS),
            ]
        );
        assert_eq!(
            said(&persist(&server, &token, restricted).await),
            [
                ("SUCCESS", msg::THE_LINK_HAS_BEEN_SAVED_SUCCESSFULLY),
                ("SUCCESS", msg::THE_LINK_HAS_BEEN_SAVED_SUCCESSFULLY),
            ]
        );
        // Keyword links are read back through keywords retrieve.
        let (_, body) = post_json(
            &server,
            &token,
            &KEYWORDS_RETRIEVE,
            &json!({"path": "/", "retrieveLinks": true}),
        )
        .await;
        assert_eq!(
            body["kwds"]["kwd"][0]["links"],
            json!({"itms": [{"type": "asset", "itm": [{"value": "A-2"}]}]})
        );
        server.stop().await;
    }
}

/// The exchanges whose answers are snapshotted in every representation (`answers`).
fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario::new("links_persist", &op::LINKS_PERSIST, json!({"links": {"itms": [
                {"type": "assetToProduct", "itms": [
                    {"type": "productImages", "itm": itm(&[("productTid", "P-200"), ("assetTid", "A-1002")])},
                    {"type": "productImages", "itm": itm(&[("productTid", "P-100"), ("assetTid", "A-1001")])},
                    {"type": "productManual", "itm": itm(&[("productTid", "P-200"), ("assetTid", "A-2001"), ("assetTid", "A-1003")])},
                    {"type": "productImages", "itm": itm(&[("productTid", "P-404"), ("assetTid", "A-1001")])},
                    {"type": "productImages", "itm": itm(&[("productTid", "P-200"), ("assetTid", "A-404")])},
                    {"type": "Nope", "itm": itm(&[("productTid", "P-200"), ("assetTid", "A-1001")])}
                ]},
                {"type": "assetToKeyword", "itms": [
                    {"itm": itm(&[("keywordPath", "/Materials"), ("assetTid", "A-1003")])},
                    {"itm": itm(&[("keywordPath", "/Materials/Cotton"), ("assetTid", "A-1001")])}
                ]}
            ]}})),
        Scenario::new("links_persist_access_rights", &op::LINKS_PERSIST, json!({"links": {"itms": [{"type": "assetToProduct", "itms": [
                {"type": "productImages", "itm": itm(&[("productTid", "P-300"), ("assetTid", "A-1003")])},
                {"type": "productImages", "itm": itm(&[("productTid", "P-200"), ("assetTid", "A-9001")])}
            ]}]}}))
            .token(answers::EDITOR),
    ]
}

async fn answers_in_every_representation() {
    answers::take(&scenarios()).await;
}

inventory::submit!(answers::Scenarios(scenarios));

contract_tests::trials!(
    product_and_keyword_links_say_every_item_message,
    answers_in_every_representation,
);
