//! The server over HTTP: every operation answers at its documented method and path (501 naming
//! the operation until it is implemented), the document is served, and requests no operation
//! takes get documented error bodies.

use contract_tests::{
    Example, IMPLEMENTED, TestServer, document, document_text, examples, issue_item,
};
use core_api_support::{Method, Operation, Representation};
use serde_json::Value;

/// A request that the operation's input accepts: its first documented request example (JSON
/// where listed), or its documented parameter examples as the query.
fn documented_request(
    document: &Value,
    operation: &Operation,
) -> (String, Option<(String, Vec<u8>)>) {
    let mut query = String::new();
    if let Some(parameters) =
        document["paths"][operation.path][method(operation)]["parameters"].as_array()
    {
        let pairs: Vec<String> = parameters
            .iter()
            .filter_map(|parameter| {
                let reference = parameter["$ref"].as_str()?.trim_start_matches('#');
                let parameter = document.pointer(reference)?;
                // assetId with versionNumber: one documented combination.
                let name = parameter["name"].as_str()?;
                matches!(name, "assetId" | "versionNumber")
                    .then(|| format!("{name}={}", parameter["example"]))
            })
            .collect();
        query = format!("?{}", pairs.join("&"));
    }
    let place = format!("{} request", operation.id);
    let candidates: Vec<Example> = examples(document)
        .into_iter()
        .filter(|example| example.place == place)
        .collect();
    let body = candidates
        .iter()
        .find(|example| example.representation() == Representation::Json)
        .or_else(|| candidates.first())
        .map(|example| (example.media.clone(), example.bytes()));
    (query, body)
}

fn method(operation: &Operation) -> &'static str {
    match operation.method {
        Method::Get => "get",
        Method::Post => "post",
    }
}

async fn call(
    client: &reqwest::Client,
    server: &TestServer,
    operation: &Operation,
    path: &str,
    query: &str,
    body: &Option<(String, Vec<u8>)>,
) -> reqwest::Response {
    let url = server.url(&format!("{path}{query}"));
    let mut request = match operation.method {
        Method::Get => client.get(url),
        Method::Post => client.post(url),
    };
    if let Some((media, bytes)) = body {
        request = request
            .header("content-type", media.as_str())
            .body(bytes.clone());
    }
    request.send().await.expect("the server answers")
}

#[tokio::test]
async fn every_operation_answers_at_its_documented_method_and_path() {
    let server = TestServer::start().await;
    // The demo catalogue, so that the documented requests find what they ask for.
    let demo = core_server::bootstrap::demo().expect("the demo document");
    core_server::bootstrap::load(&server.database, &demo, std::path::Path::new("."))
        .await
        .expect("the demo loads");
    let client = server.client();
    let document = document();
    assert_eq!(core_api::operations::ALL.len(), 27);
    for operation in core_api::operations::ALL {
        let (query, body) = documented_request(&document, operation);
        for path in std::iter::once(&operation.path).chain(operation.aliases) {
            let response = call(&client, &server, operation, path, &query, &body).await;
            let label = format!("{} {path}", operation.id);
            if IMPLEMENTED.contains(&operation.id) {
                assert_eq!(response.status().as_u16(), 200, "{label}");
                let media = response.headers()["content-type"]
                    .to_str()
                    .unwrap_or_default()
                    .to_string();
                assert!(
                    operation
                        .response
                        .media
                        .iter()
                        .any(|listed| listed.name == media),
                    "{label}: {media}"
                );
                continue;
            }
            assert_eq!(response.status().as_u16(), 501, "{label}");
            assert_eq!(
                response.headers()["content-type"],
                "application/json",
                "{label}"
            );
            let body: Value = response.json().await.expect("a JSON error body");
            assert_eq!(body["status"], "ERROR", "{label}");
            assert_eq!(issue_item(&body, "code"), Some("1011"), "{label}");
            let message = issue_item(&body, "errorMessage").unwrap_or_default();
            assert!(
                message.contains(&format!("'{}'", operation.id)),
                "{label}: {message}"
            );
        }
    }
    server.stop().await;
}

#[tokio::test]
async fn a_bad_body_is_refused_before_the_operation_runs() {
    let server = TestServer::start().await;
    let client = server.client();
    let response = client
        .post(server.url("/api/core/v1/common/keywords/persist"))
        .header("content-type", "application/xml; charset=UTF-8")
        .header("accept", "application/xml")
        .body(r#"<pim xmlns="urn:core-interface:v1" schemaVersion="5.6.0"><kwds><kwd/><kwd id="abc"/></kwds></pim>"#)
        .send()
        .await
        .expect("an answer");
    assert_eq!(response.status().as_u16(), 400);
    assert_eq!(
        response.headers()["content-type"],
        "application/xml; charset=UTF-8"
    );
    let text = response.text().await.expect("a body");
    assert!(text.contains(r#"<itm key="code">1003</itm>"#), "{text}");
    assert!(
        text.contains(r#"kwds/kwd[2]/id: expected integer, found "abc""#),
        "{text}"
    );

    let response = client
        .post(server.url("/api/core/v1/common/keywords/persist"))
        .header("content-type", "text/plain")
        .body("x")
        .send()
        .await
        .expect("an answer");
    assert_eq!(response.status().as_u16(), 415);

    let response = client
        .post(server.url("/api/core/v1/common/keywords/persist"))
        .header("content-type", "application/json")
        .header("accept", "text/csv")
        .body("{}")
        .send()
        .await
        .expect("an answer");
    assert_eq!(response.status().as_u16(), 406);
    server.stop().await;
}

#[tokio::test]
async fn transform_errors_use_the_documented_responses_type() {
    let server = TestServer::start().await;
    let response = server
        .client()
        .post(server.url("/api/core/v1/common/transform"))
        .header("content-type", "application/json")
        .body(r#"{"kwds":{"kwd":[{"id":"abc"}]}}"#)
        .send()
        .await
        .expect("an answer");
    assert_eq!(response.status().as_u16(), 400);
    let body: Value = response.json().await.expect("JSON");
    assert_eq!(body["schemaVersion"], "5.6.0");
    let record = &body["responses"]["response"][0];
    assert_eq!(record["status"], "ERROR");
    assert_eq!(
        issue_item(record, "errorMessage"),
        Some(r#"kwds/kwd[1]/id: expected integer, found "abc""#)
    );
    server.stop().await;
}

#[tokio::test]
async fn the_document_and_the_health_check_are_served() {
    let server = TestServer::start().await;
    let client = server.client();
    let yaml = client
        .get(server.url("/openapi.yaml"))
        .send()
        .await
        .expect("an answer");
    assert_eq!(yaml.status().as_u16(), 200);
    assert_eq!(yaml.text().await.expect("text"), document_text());
    let json: Value = client
        .get(server.url("/openapi.json"))
        .send()
        .await
        .expect("an answer")
        .json()
        .await
        .expect("JSON");
    assert_eq!(json, document());
    let health = client
        .get(server.url("/healthz"))
        .send()
        .await
        .expect("an answer");
    assert_eq!(health.status().as_u16(), 200);
    server.stop().await;
}

#[tokio::test]
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
#[tokio::test]
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
    let post = |body: &'static str| {
        client
            .post(server.url("/api/core/v1/common/keywords/persist"))
            .header("content-type", "application/xml")
            .body(body)
            .send()
    };
    let answer = post(r#"<pim xmlns="urn:example:catalogue"><kwds/></pim>"#)
        .await
        .expect("an answer");
    assert_eq!(
        answer.status().as_u16(),
        200,
        "the configured namespace is accepted"
    );
    let text = answer.text().await.expect("text");
    assert!(
        text.contains(r#"<pim xmlns="urn:example:catalogue" schemaVersion="5.6.0">"#),
        "{text}"
    );
    let answer = post(r#"<pim xmlns="urn:core-interface:v1"><kwds/></pim>"#)
        .await
        .expect("an answer");
    assert_eq!(
        answer.status().as_u16(),
        400,
        "the default namespace is no longer accepted"
    );
    server.stop().await;
}

/// A body over the configured limit is refused with 413 before it is decoded.
#[tokio::test]
async fn an_oversized_body_is_refused() {
    let server = TestServer::start_with(|settings| settings.max_body_bytes = 1024).await;
    let body = format!(
        r#"{{"kwds":{{"kwd":[{}]}}}}"#,
        vec![r#"{"path":"/x"}"#; 200].join(",")
    );
    let answer = server
        .client()
        .post(server.url("/api/core/v1/common/keywords/persist"))
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .expect("an answer");
    assert_eq!(answer.status().as_u16(), 413);
    let body: Value = answer.json().await.expect("JSON");
    assert_eq!(issue_item(&body, "code"), Some("1009"));
    server.stop().await;
}
