//! Every operation of the document through the generated `progenitor`
//! client, against a server with the demo catalogue: the client an integrator generates from the
//! document talks to this server in JSON and reads its answers into its own types.

use contract_tests::TestServer;
use core_api::messages as msg;
use core_client::{Client, types};
use core_conformance::bodies::{actions, delete};
use core_server::bootstrap;
use serde_json::{Value, json};

/// A client type from its JSON form, as an integrator would build it from the document.
pub(crate) fn from<T: serde::de::DeserializeOwned>(value: Value) -> T {
    serde_json::from_value(value).expect("a value of the client's type")
}

/// A fresh `Idempotency-Key`, as a careful integrator sends with every batch (D-14).
fn key() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// A record as [`statuses`] shows it: its status, then its description.
pub(crate) fn said(status: &str, description: &str) -> String {
    format!("{status} {description}")
}

pub(crate) fn statuses(responses: Option<types::Responses>) -> Vec<String> {
    responses
        .map(|responses| responses.response)
        .unwrap_or_default()
        .iter()
        .map(|record| {
            format!(
                "{:?} {}",
                record.status,
                record.description.clone().unwrap_or_default()
            )
        })
        .collect()
}

async fn every_common_operation_through_the_generated_client() {
    let server = TestServer::start().await;
    let demo = bootstrap::demo().expect("the demo document");
    bootstrap::load(&server.database, &demo, std::path::Path::new("."))
        .await
        .expect("the demo loads");
    let client = Client::new_with_client(&server.url(""), server.client());

    let message: types::ServiceType =
        from(json!({"kwds": {"kwd": [{"id": 7, "path": "/Season"}]}}));
    let transformed = client
        .transform(&message)
        .await
        .expect("transformed")
        .into_inner();
    assert_eq!(transformed.0.kwds.expect("kwds").kwd[0].id, Some(7));

    let locales = client
        .locales_retrieve(&from(
            json!({"mode": "TID", "tids": ["de_DE"], "exportConfig": true}),
        ))
        .await
        .expect("locales")
        .into_inner();
    let locale = &locales.locales.expect("locales").locale[0];
    assert_eq!(locale.name.as_deref(), Some("Deutsch (Deutschland)"));
    assert!(locale.config.is_some());

    let components = client
        .components_retrieve(&types::ComponentsRequest {})
        .await
        .expect("components")
        .into_inner();
    assert_eq!(
        components.0.get("PIM").map(ToString::to_string).as_deref(),
        Some("ACTIVE")
    );

    let persisted = client
        .keywords_persist(Some(&key()), &from(json!({"kwds": {"kwd": [{"parentPath": "/Season", "name": {"itm": [{"value": "Autumn"}]}}]}})))
        .await
        .expect("persisted")
        .into_inner();
    assert_eq!(
        statuses(persisted.responses),
        [said(
            "Success",
            msg::THE_KEYWORD_HAS_BEEN_CREATED_SUCCESSFULLY
        )]
    );
    let keywords = client
        .keywords_retrieve(&from(json!({"path": "/Season", "retrieveLinks": true})))
        .await
        .expect("keywords")
        .into_inner();
    let paths: Vec<String> = keywords
        .0
        .kwds
        .expect("kwds")
        .kwd
        .into_iter()
        .filter_map(|kwd| kwd.path)
        .collect();
    assert_eq!(
        paths,
        ["/Season/Summer", "/Season/Winter", "/Season/Autumn"]
    );

    let entries = client
        .glossary_entries_persist(Some(&key()), &from(json!({"glossaryEntries": {"glossaryEntry": [
            {"parentTid": "GL-TEXTILES", "loc": "en_GB", "type": "term", "meta": {"itm": [{"key": "value", "value": "wool"}]}},
            {"tid": "GE-LINEN", "meta": {"itm": [{"key": "value", "value": "linen cloth"}]}}
        ]}})))
        .await
        .expect("entries persisted")
        .into_inner();
    assert_eq!(
        statuses(entries.responses),
        [
            said(
                "Success",
                msg::THE_GLOSSARY_ENTRY_HAS_BEEN_CREATED_SUCCESSFULLY
            ),
            said(
                "Success",
                msg::THE_GLOSSARY_ENTRY_HAS_BEEN_UPDATED_SUCCESSFULLY
            )
        ]
    );
    let performed = client
        .glossary_entries_perform(Some(&key()), &from(json!({"actions": {"action": [
            {"dataType": "glossaryEntry", "type": "moveToGlossary", "tid": "GE-LINEN", "meta": {"itm": [{"key": "glossaryId", "value": "2"}]}},
            delete("glossaryEntry", json!({"tid": "GE-404"}))
        ]}})))
        .await
        .expect("performed")
        .into_inner();
    assert_eq!(
        statuses(performed.0.responses),
        [
            said(
                "Success",
                msg::THE_GLOSSARY_ENTRY_HAS_BEEN_MOVED_SUCCESSFULLY
            ),
            said(
                "Error",
                msg::THERE_IS_NO_GLOSSARY_ENTRY_WITH_THE_GIVEN_TID_IDENTITY
            )
        ]
    );

    let sent = client
        .messages_persist(
            Some(&key()),
            &from(json!({"messages": [{"subject": "Hello", "recipientRole": "editor"}]})),
        )
        .await
        .expect("sent")
        .into_inner();
    assert_eq!(
        statuses(sent.responses),
        [said("Success", msg::THE_MESSAGE_HAS_BEEN_SENT_SUCCESSFULLY)]
    );

    let links = client
        .links_persist(Some(&key()), &from(json!({"links": {"itms": [{"type": "assetToKeyword", "itms": [
            {"itm": [{"key": "keywordPath", "value": "/Season/Autumn"}, {"key": "assetTid", "value": "A-1003"}]}
        ]}]}})))
        .await
        .expect("linked")
        .into_inner();
    assert_eq!(
        statuses(links.responses),
        [said("Success", msg::THE_LINK_HAS_BEEN_SAVED_SUCCESSFULLY)]
    );

    let peo_links = client
        .peos_links_persist(Some(&key()), &from(json!({"links": {"itms": [{"type": "peoToProject", "itms": [
            {"itm": [{"key": "peoTid", "value": "PEO-200-CAT"}, {"key": "projectTid", "value": "WEB-SHOP"}]}
        ]}]}})))
        .await
        .expect("PEO linked")
        .into_inner();
    assert_eq!(
        statuses(peo_links.responses),
        [said("Success", msg::THE_LINK_HAS_BEEN_SAVED_SUCCESSFULLY)]
    );
    server.stop().await;
}

/// Every operation of the PIM module through the generated client, on the demo catalogue.
async fn every_pim_operation_through_the_generated_client() {
    let server = TestServer::start().await;
    let demo = bootstrap::demo().expect("the demo document");
    bootstrap::load(&server.database, &demo, std::path::Path::new("."))
        .await
        .expect("the demo loads");
    let client = Client::new_with_client(&server.url(""), server.client());

    let listing = client.get_classes().await.expect("classes").into_inner();
    let classes = listing.classes.expect("classes").class;
    assert_eq!(classes[0].tid.as_deref(), Some("Apparel"));

    let persisted = client
        .classes_persist(Some(&key()), &from(json!({
            "classes": {"class": [{"tid": "Footwear", "name": {"itm": [{"value": "Footwear"}]}}]},
            "nodes": {"node": [{"class": "Footwear", "path": "/Footwear"}, {"class": "Footwear", "path": "/Footwear/Sneakers"}]}
        })))
        .await
        .expect("classes persisted")
        .into_inner();
    assert_eq!(
        statuses(persisted.responses),
        [said(
            "Success",
            msg::THE_CLASSIFICATION_HAS_BEEN_CREATED_SUCCESSFULLY
        )]
    );
    let retrieved = client
        .classes_retrieve(&from(json!({"tids": ["Footwear"], "withNodes": true})))
        .await
        .expect("classes retrieved")
        .into_inner();
    let paths: Vec<String> = retrieved
        .nodes
        .expect("nodes")
        .node
        .into_iter()
        .filter_map(|node| node.path)
        .collect();
    assert_eq!(paths, ["/Footwear", "/Footwear/Sneakers"]);

    let attributes = client
        .attributes_persist(Some(&key()), &from(json!({"attrs": {"attr": [
            {"nodePath": "/Footwear/Sneakers", "key": "weight", "level": "p", "inheritance": "visible", "restriction": "optional", "localized": false}
        ]}})))
        .await
        .expect("attributes persisted")
        .into_inner();
    assert_eq!(
        statuses(attributes.responses),
        [said(
            "Success",
            msg::THE_ATTRIBUTE_HAS_BEEN_CREATED_SUCCESSFULLY
        )]
    );
    let retrieved = client
        .attributes_retrieve(&from(
            json!({"productTids": ["P-100"], "withDomainValues": true}),
        ))
        .await
        .expect("attributes retrieved")
        .into_inner();
    let keys: Vec<String> = retrieved
        .attrs
        .expect("attrs")
        .attr
        .into_iter()
        .filter_map(|attr| attr.key)
        .collect();
    assert_eq!(
        keys,
        [
            "description",
            "fabric",
            "organic",
            "sizeChart",
            "relatedProduct"
        ]
    );
    let queried = client
        .attributes_query(&from(json!({"nodePath": ["/Footwear/Sneakers"]})))
        .await
        .expect("attributes queried")
        .into_inner();
    assert_eq!(queried.ids.len(), 1);
    let performed = client
        .attributes_perform(
            Some(&key()),
            &from(actions([delete(
                "attribute",
                json!({"id": queried.ids[0]}),
            )])),
        )
        .await
        .expect("attributes performed")
        .into_inner();
    assert_eq!(
        statuses(performed.responses),
        [said(
            "Success",
            msg::THE_ATTRIBUTE_HAS_BEEN_DELETED_SUCCESSFULLY
        )]
    );

    let definitions = client
        .attribute_definitions_query(&from(json!({"types": ["text"]})))
        .await
        .expect("definitions queried")
        .into_inner();
    assert!(!definitions.all && !definitions.ids.is_empty());
    let deleted = client
        .attribute_definitions_perform(
            Some(&key()),
            &from(actions([delete(
                "attrDefinition",
                json!({"tid": "careInstructions"}),
            )])),
        )
        .await
        .expect("definitions performed")
        .into_inner();
    assert_eq!(
        statuses(deleted.responses),
        [said(
            "Success",
            msg::THE_ATTRIBUTE_DEFINITION_HAS_BEEN_DELETED_SUCCESSFULLY
        )]
    );
    let removed = client
        .classes_perform(
            Some(&key()),
            &from(actions([delete(
                "classification",
                json!({"tid": "Footwear"}),
            )])),
        )
        .await
        .expect("classes performed")
        .into_inner();
    assert_eq!(
        statuses(removed.responses),
        [said(
            "Success",
            msg::THE_CLASSIFICATION_HAS_BEEN_DELETED_SUCCESSFULLY
        )]
    );
    server.stop().await;
}

/// Every operation of the CM, PEO and DAM modules through the generated client, on the demo
/// catalogue; the briefing and the binary arrive as byte streams.
async fn every_cm_peo_and_dam_operation_through_the_generated_client() {
    use futures_util::TryStreamExt;
    let server = TestServer::start().await;
    let demo = bootstrap::demo().expect("the demo document");
    bootstrap::load(&server.database, &demo, std::path::Path::new("."))
        .await
        .expect("the demo loads");
    let client = Client::new_with_client(&server.url(""), server.client());
    let bytes = |stream: core_client::ByteStream| async move {
        stream
            .into_inner()
            .try_fold(Vec::new(), |mut all, chunk| async move {
                all.extend_from_slice(&chunk);
                Ok(all)
            })
            .await
            .expect("the bytes")
    };

    let subtree = client
        .channels_query(&from(json!({"tid": "CAT-2027", "level": 1})))
        .await
        .expect("channels queried")
        .into_inner();
    assert_eq!(
        subtree.tids,
        ["CAT-2027", "CAT-2027-SHIRTS", "CAT-2027-TROUSERS"]
    );
    let persisted = client
        .channels_persist(Some(&key()), &from(json!({"projects": {"project": [
            {"tid": "CAT-2027-SOCKS", "parentTid": "CAT-2027", "type": "chapter", "name": "Socks",
             "vals": {"val": [{"attr": "budget", "itm": [{"value": "800"}]}]}}
        ]}})))
        .await
        .expect("channels persisted")
        .into_inner();
    assert_eq!(
        statuses(persisted.responses),
        [said(
            "Success",
            msg::THE_PROJECT_HAS_BEEN_CREATED_SUCCESSFULLY
        )]
    );
    let retrieved = client
        .channels_retrieve(&from(json!({"tids": ["CAT-2027-SOCKS"]})))
        .await
        .expect("channels retrieved")
        .into_inner();
    let project = &retrieved.projects.expect("projects").project[0];
    assert_eq!(project.parent_tid.as_deref(), Some("CAT-2027"));
    assert_eq!(
        project.vals.as_ref().expect("vals").val[0].itm[0].value,
        "800"
    );
    let briefing = client
        .retrieve_channel_briefings(&from(json!({"tids": ["CAT-2027-SHIRTS-P1"],
            "briefingInfo": {"locale": "en_GB", "briefingModuleCfgTid": "BRIEFING-DEFAULT"}})))
        .await
        .expect("briefing retrieved")
        .into_inner();
    let briefing = String::from_utf8(bytes(briefing).await).expect("XML");
    assert!(briefing.contains("<patch-briefing>"), "{briefing}");

    let peos = client
        .peos_retrieve(&from(
            json!({"tids": ["PEO-100-WEB"], "withMetadata": true}),
        ))
        .await
        .expect("PEOs retrieved")
        .into_inner();
    let peo = &peos.peos.expect("peos").peo[0];
    assert_eq!(peo.product.as_deref(), Some("P-100"));
    assert!(peo.meta.is_some());
    let queried = client
        .peos_query(&from(json!({"tidProject": "CAT-2027"})))
        .await
        .expect("PEOs queried")
        .into_inner();
    assert_eq!(queried.tids, ["PEO-100-CAT", "PEO-200-CAT"]);

    let binary = client
        .assets_versions_bin(None, Some("A-1001"), None, Some(1), None)
        .await
        .expect("the binary")
        .into_inner();
    assert!(bytes(binary).await.starts_with(b"\x89PNG"));
    server.stop().await;
}

/// A documented error status reaches the client as its error body: no component is configured
/// on an empty database.
async fn a_documented_error_reaches_the_client_as_its_error_body() {
    let server = TestServer::start().await;
    let client = Client::new_with_client(&server.url(""), server.client());
    match client
        .components_retrieve(&types::ComponentsRequest {})
        .await
    {
        Err(core_client::Error::ErrorResponse(response)) => {
            assert_eq!(response.status().as_u16(), 404)
        }
        other => panic!("expected the 404 of no configured component, got {other:?}"),
    }
    server.stop().await;
}

/// The client crate's example (`generated/core-client/examples/retrieve_keywords.rs`), which its
/// README shows, prints the demo's locales and keywords; a wrong token makes it fail with the
/// error body. `cargo test --workspace` builds the example beside the test binaries.
async fn the_client_example_runs_against_the_demo() {
    let Some(example) = std::env::current_exe()
        .ok()
        .and_then(|test| Some(test.parent()?.parent()?.join("examples/retrieve_keywords")))
        .filter(|example| example.exists())
    else {
        assert!(
            std::env::var_os("CI").is_none(),
            "the example is not built: cargo test --workspace builds it"
        );
        eprintln!(
            "skipped: the example of core-client is not built (cargo test --workspace or cargo build -p core-client --examples builds it)"
        );
        return;
    };
    let server = TestServer::start().await;
    let demo = bootstrap::demo().expect("the demo document");
    bootstrap::load(&server.database, &demo, std::path::Path::new("."))
        .await
        .expect("the demo loads");
    let base = server.url("");
    let run = |token: String| {
        let (example, base) = (example.clone(), base.clone());
        tokio::task::spawn_blocking(move || {
            std::process::Command::new(example)
                .args([base, token])
                .output()
                .expect("the example runs")
        })
    };
    let output = run(server.token.clone()).await.expect("ran");
    let printed = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{printed}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        printed.contains("locale de_DE Deutsch (Deutschland)"),
        "{printed}"
    );
    assert!(
        printed.contains("keyword /Season/Summer Summer, de_DE: Sommer"),
        "{printed}"
    );
    for representation in ["Xml", "Compact"] {
        assert!(
            printed.contains(&format!(
                "keywords in {representation}: read as the same as in JSON"
            )),
            "{printed}"
        );
    }
    let output = run("0123456789abcdef.wrong".to_string())
        .await
        .expect("ran");
    assert!(!output.status.success());
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("401 Unauthorized"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    server.stop().await;
}

contract_tests::trials!(
    every_common_operation_through_the_generated_client,
    every_pim_operation_through_the_generated_client,
    every_cm_peo_and_dam_operation_through_the_generated_client,
    a_documented_error_reaches_the_client_as_its_error_body,
    the_client_example_runs_against_the_demo,
);
