//! Which operations of the document are implemented, found by asking a server: each operation
//! is sent its first documented request, and an operation that answers other than 501 is
//! implemented. What is found is recorded as coverage evidence.

use core_api_support::{Method, Operation, Representation};
use serde_json::Value;

use crate::{Example, TestServer, coverage, document, examples};

/// A request that the operation's input accepts: its first documented request example (JSON
/// where listed), and its documented parameter examples as the query (`assetId` with
/// `versionNumber`, one documented combination).
pub fn documented_request(
    document: &Value,
    operation: &Operation,
) -> (String, Option<(Representation, Vec<u8>)>) {
    let method = match operation.method {
        Method::Get => "get",
        Method::Post => "post",
    };
    let mut query = String::new();
    if let Some(parameters) = document["paths"][operation.path][method]["parameters"].as_array() {
        let pairs: Vec<String> = parameters
            .iter()
            .filter_map(|parameter| {
                let reference = parameter["$ref"].as_str()?.trim_start_matches('#');
                let parameter = document.pointer(reference)?;
                let name = parameter["name"].as_str()?;
                matches!(name, "assetId" | "versionNumber")
                    .then(|| format!("{name}={}", parameter["example"]))
            })
            .collect();
        query = pairs.join("&");
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
        .map(|example| (example.representation(), example.bytes()));
    (query, body)
}

/// Sends an operation its documented request.
pub async fn send_documented(
    server: &TestServer,
    document: &Value,
    operation: &'static Operation,
    path: &'static str,
) -> crate::Answer {
    let (query, body) = documented_request(document, operation);
    let mut call = server.call(operation).at(path);
    if !query.is_empty() {
        call = call.query(&query);
    }
    if let Some((representation, bytes)) = body {
        call = call.body(representation, bytes);
    }
    call.send().await
}

/// The operations that answer their documented request other than 501, on a server with the
/// demo catalogue, in document order; recorded as coverage evidence.
pub async fn implemented() -> Vec<&'static Operation> {
    let server = TestServer::start_with_demo("sqlite::memory:").await;
    let document = document();
    let mut found = Vec::new();
    for operation in core_api::operations::ALL {
        let answer = send_documented(&server, &document, operation, operation.path).await;
        let implemented = answer.status != 501;
        coverage::implemented(operation, implemented);
        if implemented {
            found.push(*operation);
        }
    }
    server.stop().await;
    found
}
