//! The server over HTTP: every operation answers at its documented method and path (501 naming
//! the operation until it is implemented), the document is served, and requests no operation
//! takes get documented error bodies.

use contract_tests::{
    TestServer, coverage, document, issue_item, operations::send_documented, published,
    published_text,
};
use core_api::operations::{KEYWORDS_PERSIST, TRANSFORM};
use core_api_support::Representation::{Json, Xml};
use serde_json::Value;

/// Every operation of the document answers its documented request at its path and every alias,
/// never 501 (every operation is implemented; each is recorded as such for the coverage report),
/// in a documented status below 500 and media type (on the demo catalogue an example may name a
/// record the demo lacks: 404; `examples.rs` sends every example to the records it names).
async fn every_operation_answers_at_its_documented_method_and_path() {
    let server = TestServer::start_with_demo("sqlite::memory:").await;
    let document = document();
    assert_eq!(core_api::operations::ALL.len(), 27);
    for operation in core_api::operations::ALL {
        for path in std::iter::once(&operation.path).chain(operation.aliases) {
            let answer = send_documented(&server, &document, operation, path).await;
            let label = format!("{} {path}", operation.id);
            // Every operation of the document is implemented, at every path: none answers 501.
            assert_ne!(answer.status, 501, "{label}: {}", answer.text);
            assert!(
                operation
                    .responses
                    .iter()
                    .any(|listed| listed.status == answer.status)
                    && answer.status < 500,
                "{label}: {} {}",
                answer.status,
                answer.text
            );
            // A success in the operation's media types, an error body in the error ones.
            let media = if answer.status < 300 {
                operation.response.media
            } else {
                core_api::document::ERROR_MEDIA
            };
            assert!(
                media
                    .iter()
                    .any(|listed| listed.name == answer.content_type),
                "{label}: {}",
                answer.content_type
            );
        }
        coverage::implemented(operation, true);
    }
    server.stop().await;
}

async fn a_bad_body_is_refused_before_the_operation_runs() {
    let server = TestServer::start().await;
    let answer = server
        .call(&KEYWORDS_PERSIST)
        .body(Xml, r#"<pim xmlns="urn:core-interface:v1" schemaVersion="5.6.0"><kwds><kwd/><kwd id="abc"/></kwds></pim>"#)
        .accept_raw("application/xml")
        .send()
        .await;
    assert_eq!(answer.status, 400);
    assert_eq!(answer.content_type, "application/xml; charset=UTF-8");
    let text = answer.text;
    assert!(text.contains(r#"<itm key="code">1003</itm>"#), "{text}");
    assert!(
        text.contains(r#"kwds/kwd[2]/id: expected integer, found "abc""#),
        "{text}"
    );
    let answer = server
        .call(&KEYWORDS_PERSIST)
        .raw("text/plain", "x")
        .send()
        .await;
    assert_eq!(answer.status, 415);
    let answer = server
        .call(&KEYWORDS_PERSIST)
        .body(Json, "{}")
        .accept_raw("text/csv")
        .send()
        .await;
    assert_eq!(answer.status, 406);
    server.stop().await;
}

async fn transform_errors_use_the_documented_responses_type() {
    let server = TestServer::start().await;
    let answer = server
        .call(&TRANSFORM)
        .body(Json, r#"{"kwds":{"kwd":[{"id":"abc"}]}}"#)
        .send()
        .await;
    assert_eq!(answer.status, 400);
    let body = answer.json();
    assert_eq!(body["schemaVersion"], "5.6.0");
    let record = &body["responses"]["response"][0];
    assert_eq!(record["status"], "ERROR");
    assert_eq!(
        issue_item(record, "errorMessage"),
        Some(r#"kwds/kwd[1]/id: expected integer, found "abc""#)
    );
    server.stop().await;
}

async fn the_document_and_the_health_check_are_served() {
    let server = TestServer::start().await;
    let client = server.client();
    let yaml = client
        .get(server.url("/openapi.yaml"))
        .send()
        .await
        .expect("an answer");
    assert_eq!(yaml.status().as_u16(), 200);
    assert_eq!(yaml.text().await.expect("text"), published_text());
    let json: Value = client
        .get(server.url("/openapi.json"))
        .send()
        .await
        .expect("an answer")
        .json()
        .await
        .expect("JSON");
    assert_eq!(json, published());
    for (name, text) in [
        (core_api::document::XSD_NAME, core_api::document::XSD),
        (
            core_api::document::XSD_UNQUALIFIED_NAME,
            core_api::document::XSD_UNQUALIFIED,
        ),
    ] {
        let answer = client
            .get(server.url(&format!("/{name}")))
            .send()
            .await
            .expect("an answer");
        assert_eq!(answer.status().as_u16(), 200, "{name}");
        assert_eq!(
            answer.headers().get("content-type").map(|v| v.as_bytes()),
            Some(&b"application/xml"[..]),
            "{name}"
        );
        assert_eq!(answer.text().await.expect("text"), text, "{name}");
    }
    assert!(core_api::document::XSD.contains(&format!(
        "<xs:import schemaLocation=\"{}\"/>",
        core_api::document::XSD_UNQUALIFIED_NAME
    )));
    let health = client
        .get(server.url("/healthz"))
        .send()
        .await
        .expect("an answer");
    assert_eq!(health.status().as_u16(), 200);
    server.stop().await;
}

async fn requests_no_operation_takes_get_error_bodies() {
    let server = TestServer::start().await;
    let client = server.client();
    for path in [
        "/api/core/v1/common/nope",
        "/api/core/v2/common/components/retrieve",
        "/common/components/retrieve",
    ] {
        let response = client
            .post(server.url(path))
            .send()
            .await
            .expect("an answer");
        assert_eq!(response.status().as_u16(), 404, "{path}");
        let body: Value = response.json().await.expect("JSON");
        assert_eq!(issue_item(&body, "code"), Some("1006"), "{path}");
    }
    let response = client
        .get(server.url("/api/core/v1/common/locales/retrieve"))
        .send()
        .await
        .expect("an answer");
    assert_eq!(response.status().as_u16(), 405);
    assert_eq!(response.headers()["allow"], "POST");
    let response = client
        .delete(server.url("/api/core/v1/pim/classes"))
        .send()
        .await
        .expect("an answer");
    assert_eq!(response.status().as_u16(), 405);
    assert_eq!(response.headers()["allow"], "GET");
    server.stop().await;
}

/// `{xml_namespace}` is a setting: messages use it, and the served document shows it (D-53).
async fn the_xml_namespace_is_a_server_setting() {
    let namespace = "urn:example:catalogue";
    let server =
        TestServer::start_with(|settings| settings.xml_namespace = namespace.to_string()).await;
    let client = server.client();
    let yaml = client
        .get(server.url("/openapi.yaml"))
        .send()
        .await
        .expect("an answer")
        .text()
        .await
        .expect("text");
    assert!(yaml.contains(&format!("namespace: {namespace}")));
    assert!(!yaml.contains(core_api::document::XML_NAMESPACE_DEFAULT));
    let xsd = client
        .get(server.url(&format!("/{}", core_api::document::XSD_NAME)))
        .send()
        .await
        .expect("an answer")
        .text()
        .await
        .expect("text");
    assert!(xsd.contains(&format!("targetNamespace=\"{namespace}\"")));
    assert!(!xsd.contains(core_api::document::XML_NAMESPACE_DEFAULT));
    let post = |body: &'static str| {
        server
            .call(&KEYWORDS_PERSIST)
            .raw("application/xml", body)
            .send()
    };
    let answer = post(r#"<pim xmlns="urn:example:catalogue"><kwds/></pim>"#).await;
    assert_eq!(answer.status, 200, "the configured namespace is accepted");
    let text = answer.text;
    assert!(
        text.contains(r#"<pim xmlns="urn:example:catalogue" schemaVersion="5.6.0">"#),
        "{text}"
    );
    let answer = post(r#"<pim xmlns="urn:core-interface:v1"><kwds/></pim>"#).await;
    assert_eq!(
        answer.status, 400,
        "the default namespace is no longer accepted"
    );
    server.stop().await;
}

/// A body over the configured limit is refused with 413 before it is decoded.
async fn an_oversized_body_is_refused() {
    let server = TestServer::start_with(|settings| settings.max_body_bytes = 1024).await;
    let body = format!(
        r#"{{"kwds":{{"kwd":[{}]}}}}"#,
        vec![r#"{"path":"/x"}"#; 200].join(",")
    );
    let answer = server.call(&KEYWORDS_PERSIST).body(Json, body).send().await;
    assert_eq!(answer.status, 413);
    let body = answer.json();
    assert_eq!(issue_item(&body, "code"), Some("1009"));
    server.stop().await;
}

contract_tests::trials!(
    every_operation_answers_at_its_documented_method_and_path,
    a_bad_body_is_refused_before_the_operation_runs,
    transform_errors_use_the_documented_responses_type,
    the_document_and_the_health_check_are_served,
    requests_no_operation_takes_get_error_bodies,
    the_xml_namespace_is_a_server_setting,
    an_oversized_body_is_refused,
);
