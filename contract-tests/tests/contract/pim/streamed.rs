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

/// The paths of each classification of an answer, by tid, in the order they are written:
/// nested in each `class`, or flat (a node's classification is its path's first step).
fn paths_by_class(answer: &Value) -> Vec<(String, Vec<String>)> {
    let classes = answer["classes"]["class"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let mut by_class: Vec<(String, Vec<String>)> = classes
        .iter()
        .map(|class| {
            let mut paths = Vec::new();
            nested_paths(&class["nodes"], &mut paths);
            (class["tid"].as_str().unwrap_or_default().to_string(), paths)
        })
        .collect();
    let flat = answer["nodes"]["node"].as_array().into_iter().flatten();
    for path in flat.filter_map(|node| node["path"].as_str()) {
        let tid = path
            .trim_start_matches('/')
            .split('/')
            .next()
            .unwrap_or_default();
        match by_class.last_mut() {
            Some((last, paths)) if last == tid => paths.push(path.to_string()),
            _ => by_class.push((tid.to_string(), vec![path.to_string()])),
        }
    }
    by_class.retain(|(_, paths)| !paths.is_empty());
    by_class
}

async fn a_long_classification_is_streamed_in_pre_order_as_the_whole_answer() {
    let created = created();
    assert!(created.len() > 512, "the tree spans pages");
    let expected = pre_order(&created);
    for url in backends("classes retrieve streamed").await {
        let server = server(&url).await;
        persist(&server, &created).await;
        // A small tree after the long one: its pages come after the long one's last.
        let tail = json!({
            "classes": {"class": [{"tid": "Tail", "name": name("Tail")}]},
            "nodes": {"node": [
                {"class": "Tail", "path": "/Tail", "name": name("/Tail")},
                {"class": "Tail", "path": "/Tail/t", "parentPath": "/Tail", "name": name("t")}
            ]}
        });
        let records = batch(&server, &CLASSES_PERSIST, &tail).await;
        assert_eq!(records[0]["status"], "SUCCESS", "{records:?}");
        let nested = json!({"tids": ["Long"], "withNodes": true, "flatNodes": false});
        let flat = json!({"tids": ["Long"], "withNodes": true});
        for body in [nested, flat] {
            let answer = streamed_alike(&server, &CLASSES_RETRIEVE, &body).await;
            if answer.get("nodes").is_some() {
                assert!(answer["classes"]["class"][0].get("nodes").is_none());
            }
            let paths = paths_by_class(&answer);
            assert_eq!(
                paths,
                [("Long".to_string(), expected.clone())],
                "{body}: pre-order"
            );
        }
        // Every classification: the catalogue's small tree(s), the long one, then `Tail`, each
        // with its own nodes whichever page holds them.
        let nested = json!({"withNodes": true, "flatNodes": false});
        let flat = json!({"withNodes": true});
        for body in [nested, flat] {
            let answer = streamed_alike(&server, &CLASSES_RETRIEVE, &body).await;
            let paths = paths_by_class(&answer);
            let tids: Vec<&str> = paths.iter().map(|(tid, _)| tid.as_str()).collect();
            assert!(tids.len() >= 3, "{body}: a catalogue tree first: {tids:?}");
            assert_eq!(tids[tids.len() - 2..], ["Long", "Tail"], "{body}: by id");
            for (tid, paths) in &paths {
                let root = format!("/{tid}");
                assert!(
                    paths.iter().all(|path| path.starts_with(&root)),
                    "{body}: {tid} holds its own nodes: {paths:?}"
                );
            }
            assert_eq!(paths[tids.len() - 2].1, expected, "{body}: pre-order");
            assert_eq!(paths[tids.len() - 1].1, ["/Tail", "/Tail/t"], "{body}");
        }
        server.stop().await;
    }
}

contract_tests::trials!(a_long_classification_is_streamed_in_pre_order_as_the_whole_answer,);
