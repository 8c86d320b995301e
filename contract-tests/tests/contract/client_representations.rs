//! Every operation through the generated client in every representation it lists
//! (`core_client::representations`), against a server with the demo catalogue: each operation is
//! sent its documented request once per representation its request or answer lists, the server
//! must have answered in that representation where the operation lists it for answers (its
//! `/metrics`), and the typed results (or typed error bodies) must be the same in all of them.
//! Every XML body exchanged is held to the XML Schema with the suite's others.

use std::future::Future;

use contract_tests::{
    GENERATED_ITEMS, TestServer,
    operations::documented_request,
    xml_checked::{self, XmlBody},
};
use core_api_support::{Operation, Representation};
use core_client::{
    operations,
    representations::{Client, Error, Exchange},
};
use core_server::bootstrap;
use serde::{Serialize, de::DeserializeOwned};
use serde_json::{Value, json};

/// The representations an operation lists for its request or its answer.
fn listed(operation: &Operation) -> Vec<Representation> {
    let mut found = Vec::new();
    let request = operation.request.iter().flat_map(|body| body.media.iter());
    for media in request.chain(operation.response.media.iter()) {
        if !found.contains(&media.representation) {
            found.push(media.representation);
        }
    }
    found
}

/// The operation's documented request as the client's type.
fn example<T: DeserializeOwned>(document: &Value, operation: &'static Operation) -> T {
    let (_, body) = documented_request(document, operation);
    let (representation, bytes) = body.expect("a documented request");
    let schema = operation.request.as_ref().expect("a request").schema;
    let tree = core_conformance::judge::decode(representation, &bytes, schema)
        .unwrap_or_else(|fail| panic!("{}: {fail:?}", operation.id));
    serde_json::from_value(tree).unwrap_or_else(|error| panic!("{}: {error}", operation.id))
}

/// A typed result as compared: its JSON form, or the typed error body, without what differs
/// from call to call (the items the server generates, such as `messageTime` and an error's
/// `supportId`; the id and generated tid of a record a batch created).
fn seen<T: Serialize>(result: Result<T, Error>) -> Value {
    let mut value = match result {
        Ok(value) => json!({"answer": serde_json::to_value(value).expect("serializable")}),
        Err(Error::Answer { status, body, .. }) => {
            let body = match body {
                core_client::representations::ErrorBody::Response(body) => {
                    serde_json::to_value(body)
                }
                core_client::representations::ErrorBody::Responses(body) => {
                    serde_json::to_value(body)
                }
            };
            json!({"status": status, "error": body.expect("serializable")})
        }
        Err(other) => json!({"failed": other.to_string()}),
    };
    strip_varying(&mut value);
    value
}

fn strip_varying(value: &mut Value) {
    match value {
        Value::Object(object) => {
            if object
                .get("key")
                .and_then(Value::as_str)
                .is_some_and(|key| GENERATED_ITEMS.contains(&key))
            {
                object.insert("value".into(), json!("(varies)"));
            }
            if object.get("action").and_then(Value::as_str) == Some("create")
                && object.get("status").and_then(Value::as_str) == Some("SUCCESS")
            {
                object.insert("id".into(), json!("(new)"));
                object.insert("tid".into(), json!("(new)"));
            }
            object.values_mut().for_each(strip_varying);
        }
        Value::Array(items) => items.iter_mut().for_each(strip_varying),
        _ => {}
    }
}

/// Calls an operation once in JSON (so that a batch has changed what it changes), then once per
/// representation it lists; answers the typed results of the latter, by representation.
async fn across<T, F, C>(
    server: &TestServer,
    operation: &'static Operation,
    call: C,
) -> Vec<(Representation, Value)>
where
    T: Serialize,
    F: Future<Output = Result<T, Error>>,
    C: Fn(Client) -> F,
{
    let inner = core_client::Client::new_with_client(&server.url(""), server.client());
    let _ = call(Client::new(inner.clone(), Representation::Json)).await;
    let mut results = Vec::new();
    for representation in listed(operation) {
        let client = Client::new(inner.clone(), representation).observed(kept(server));
        let before = answered(server, operation, representation).await;
        results.push((representation, seen(call(client).await)));
        let answers = operation.response.media.iter();
        if answers
            .map(|media| media.representation)
            .any(|listed| listed == representation && listed != Representation::Binary)
        {
            assert_eq!(
                answered(server, operation, representation).await,
                before + 1,
                "{}: the server did not answer in {representation:?}",
                operation.id
            );
        }
    }
    results
}

/// An observer keeping the XML bodies of every exchange for the XML Schema, as the suite's own
/// exchanges are (`contract_tests::xml_checked`).
fn kept(server: &TestServer) -> impl Fn(&Exchange<'_>) + Send + Sync + 'static {
    let namespace = server.xml_namespace.clone();
    move |exchange| {
        let bodies = XmlBody::of_exchange(
            exchange.operation,
            exchange.request,
            exchange.status,
            exchange.answer,
        );
        for body in bodies {
            xml_checked::keep(&namespace, body);
        }
    }
}

/// How many answers of the operation the server wrote in the representation (its `/metrics`).
async fn answered(
    server: &TestServer,
    operation: &Operation,
    representation: Representation,
) -> u64 {
    let label = match representation {
        Representation::Xml => "xml",
        Representation::Json => "json",
        Representation::Compact => "compact",
        Representation::Binary => "binary",
    };
    let text = server
        .client()
        .get(server.url("/metrics"))
        .send()
        .await
        .expect("/metrics")
        .text()
        .await
        .expect("its text");
    let (operation, representation) = (
        format!("operation=\"{}\"", operation.id),
        format!("representation=\"{label}\""),
    );
    text.lines()
        .filter(|line| line.starts_with("core_requests_total{"))
        .filter(|line| line.contains(&operation) && line.contains(&representation))
        .filter_map(|line| line.rsplit(' ').next()?.parse::<u64>().ok())
        .sum()
}

/// Holds the results of one operation equal across its representations, and says what ran.
fn same(operation: &'static Operation, results: &[(Representation, Value)]) -> usize {
    let (first, expected) = results.first().expect("a representation");
    assert!(
        expected.get("failed").is_none(),
        "{} in {first:?}: {expected}",
        operation.id
    );
    for (representation, value) in &results[1..] {
        assert_eq!(
            value, expected,
            "{}: {representation:?} against {first:?}",
            operation.id
        );
    }
    results.len()
}

/// Each operation with a body (its metadata `=>` its method), across its representations.
macro_rules! with_body {
    ($server:expr, $document:expr, $calls:expr; $($operation:ident => $method:ident,)*) => {$({
        let operation = &operations::$operation;
        let body = example($document, operation);
        let body = &body;
        let results = across($server, operation, |client| async move {
            client.$method(body).await
        })
        .await;
        $calls.push((operation.id, same(operation, &results)));
    })*};
}

async fn every_operation_in_every_representation_it_lists() {
    let server = TestServer::start().await;
    let demo = bootstrap::demo().expect("the demo document");
    bootstrap::load(&server.database, &demo, std::path::Path::new("."))
        .await
        .expect("the demo loads");
    let document = &contract_tests::document();
    let mut calls: Vec<(&str, usize)> = Vec::new();
    with_body!(&server, document, calls;
        TRANSFORM => transform,
        LOCALES_RETRIEVE => locales_retrieve,
        KEYWORDS_RETRIEVE => keywords_retrieve,
        KEYWORDS_PERSIST => keywords_persist,
        GLOSSARY_ENTRIES_PERSIST => glossary_entries_persist,
        GLOSSARY_ENTRIES_PERFORM => glossary_entries_perform,
        COMPONENTS_RETRIEVE => components_retrieve,
        MESSAGES_PERSIST => messages_persist,
        LINKS_PERSIST => links_persist,
        CHANNELS_QUERY => channels_query,
        CHANNELS_RETRIEVE => channels_retrieve,
        CHANNELS_PERSIST => channels_persist,
        RETRIEVE_CHANNEL_BRIEFINGS => retrieve_channel_briefings,
        CLASSES_RETRIEVE => classes_retrieve,
        CLASSES_PERSIST => classes_persist,
        CLASSES_PERFORM => classes_perform,
        ATTRIBUTES_RETRIEVE => attributes_retrieve,
        ATTRIBUTES_QUERY => attributes_query,
        ATTRIBUTES_PERSIST => attributes_persist,
        ATTRIBUTES_PERFORM => attributes_perform,
        ATTRIBUTE_DEFINITIONS_QUERY => attribute_definitions_query,
        ATTRIBUTE_DEFINITIONS_PERFORM => attribute_definitions_perform,
        PEOS_RETRIEVE => peos_retrieve,
        PEOS_QUERY => peos_query,
        PEOS_LINKS_PERSIST => peos_links_persist,
    );

    let classes = &operations::GET_CLASSES;
    let results = across(&server, classes, |client| async move {
        client.get_classes().await
    })
    .await;
    calls.push((classes.id, same(classes, &results)));

    let binary = &operations::ASSETS_VERSIONS_BIN;
    let (query, _) = documented_request(document, binary);
    let number = |name: &str| -> Option<i64> {
        query
            .split('&')
            .find_map(|pair| pair.strip_prefix(&format!("{name}=")))
            .and_then(|value| value.parse().ok())
    };
    let (asset, version) = (number("assetId"), number("versionNumber"));
    let version = version.map(|version| i32::try_from(version).expect("a version number"));
    let results = across(&server, binary, |client| async move {
        client
            .assets_versions_bin(asset, None, None, version, None)
            .await
            .map(|answer| (answer.status, answer.media_type, answer.bytes.to_vec()))
    })
    .await;
    calls.push((binary.id, same(binary, &results)));

    let covered: Vec<&str> = calls.iter().map(|(id, _)| *id).collect();
    for operation in operations::ALL {
        assert!(
            covered.contains(&operation.id),
            "{} is not called",
            operation.id
        );
    }
    let total: usize = calls.iter().map(|(_, count)| count).sum();
    eprintln!(
        "client matrix: {} operations, {total} operation × representation calls, the same typed result in each",
        calls.len()
    );
    server.stop().await;
}

/// An error answer reaches the client as its typed error body in the representation the client
/// asked for: keywords retrieve of an unknown path is a 404 in each.
async fn an_error_body_is_read_in_the_representation_it_came_in() {
    let server = TestServer::start().await;
    let inner = core_client::Client::new_with_client(&server.url(""), server.client());
    let body: core_client::types::KeywordRequest =
        serde_json::from_value(json!({"path": "/No/Such/Keyword"})).expect("a request");
    let mut bodies = Vec::new();
    for representation in [
        Representation::Xml,
        Representation::Json,
        Representation::Compact,
    ] {
        let result = Client::new(inner.clone(), representation)
            .observed(kept(&server))
            .keywords_retrieve(&body)
            .await;
        match &result {
            Err(Error::Answer {
                status,
                representation: came,
                ..
            }) => assert_eq!((*status, *came), (404, representation)),
            other => panic!("{representation:?}: {other:?}"),
        }
        bodies.push(seen(result));
    }
    assert!(bodies[0]["error"]["issues"].is_array(), "{}", bodies[0]);
    assert!(bodies.iter().all(|body| body == &bodies[0]), "{bodies:?}");
    server.stop().await;
}

contract_tests::trials!(
    every_operation_in_every_representation_it_lists,
    an_error_body_is_read_in_the_representation_it_came_in,
);
