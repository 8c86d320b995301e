//! Classes retrieve written as it is read (D-59): an answer longer than its first 64 KiB comes in
//! chunked transfer, nodes in depth-first pre-order across pages of 512, and its bytes are those
//! of the same answer written whole, in each form and representation.

use contract_tests::{TestServer, backends, streamed_alike};
use core_api::operations::{CLASSES_PERSIST, CLASSES_RETRIEVE};
use core_conformance::bodies::{attribute, name};
use serde_json::{Value, json};

use super::{batch, server};

/// Children per node below the root.
const BRANCHING: usize = 8;

/// Levels below the root.
const LEVELS: u32 = 3;

/// The paths of the classification `Long` in the order they are created: breadth first, each
/// node's children created from the last name to the first, so that creation order is not the
/// order of names.
fn created() -> Vec<String> {
    let mut paths = vec!["/Long".to_string()];
    let mut level = paths.clone();
    for _ in 0..LEVELS {
        let mut next = Vec::new();
        for parent in &level {
            next.extend(
                (0..BRANCHING)
                    .rev()
                    .map(|child| format!("{parent}/n{child}")),
            );
        }
        paths.extend(next.iter().cloned());
        level = next;
    }
    paths
}

/// The same paths in depth-first pre-order, siblings in creation order.
fn pre_order(created: &[String]) -> Vec<String> {
    let mut order = Vec::new();
    let mut stack = vec![created[0].clone()];
    while let Some(path) = stack.pop() {
        let prefix = format!("{path}/");
        let children = created.iter().filter(|child| {
            child
                .strip_prefix(&prefix)
                .is_some_and(|rest| !rest.contains('/'))
        });
        stack.extend(children.rev().cloned());
        order.push(path);
    }
    order
}

/// Persists `Long`, each node named after its path and holding one attribute.
async fn persist(server: &TestServer, paths: &[String]) {
    let nodes: Vec<Value> = paths
        .iter()
        .map(|path| {
            let mut node = json!({"class": "Long", "path": path, "name": name(path),
                                  "attr": [attribute("Color")]});
            if let Some((parent, _)) = path
                .rsplit_once('/')
                .filter(|(parent, _)| !parent.is_empty())
            {
                node["parentPath"] = json!(parent);
            }
            node
        })
        .collect();
    let request = json!({
        "classes": {"class": [{"tid": "Long", "name": name("Long")}]},
        "nodes": {"node": nodes}
    });
    let records = batch(server, &CLASSES_PERSIST, &request).await;
    assert_eq!(records[0]["status"], "SUCCESS", "{records:?}");
}

/// The paths of a nested answer's nodes, in the order they are written.
fn nested_paths(nodes: &Value, into: &mut Vec<String>) {
    for node in nodes["node"].as_array().into_iter().flatten() {
        into.extend(node["path"].as_str().map(str::to_string));
        nested_paths(&node["nodes"], into);
    }
}

async fn a_long_classification_is_streamed_in_pre_order_as_the_whole_answer() {
    let created = created();
    assert!(created.len() > 512, "the tree spans pages");
    let expected = pre_order(&created);
    for url in backends("classes retrieve streamed").await {
        let server = server(&url).await;
        persist(&server, &created).await;
        let nested = json!({"tids": ["Long"], "withNodes": true, "flatNodes": false});
        let flat = json!({"tids": ["Long"], "withNodes": true});
        for body in [nested, flat] {
            let answer = streamed_alike(&server, &CLASSES_RETRIEVE, &body).await;
            let mut paths = Vec::new();
            match answer.get("nodes") {
                Some(nodes) => {
                    assert!(answer["classes"]["class"][0].get("nodes").is_none());
                    paths.extend(
                        nodes["node"]
                            .as_array()
                            .into_iter()
                            .flatten()
                            .filter_map(|node| node["path"].as_str().map(str::to_string)),
                    );
                }
                None => nested_paths(&answer["classes"]["class"][0]["nodes"], &mut paths),
            }
            assert_eq!(paths, expected, "{body}: depth-first pre-order");
        }
        server.stop().await;
    }
}

contract_tests::trials!(a_long_classification_is_streamed_in_pre_order_as_the_whole_answer,);
