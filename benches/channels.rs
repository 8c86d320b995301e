//! Channels query and retrieve, and PEO retrieve whole against `namesOnly`, over HTTP against the
//! release server: a channel tree of 10,000 and one of 100,000 channels (branching 10, nine
//! value items per channel over six attributes: single, `multiple` and `localized`), each with
//! 1,000 PEOs linked to its channels, loaded with `core-server import` into its own SQLite file
//! and served by its own `core-server serve` process. Timed in interleaved rounds: the query of
//! the whole tree, the retrieve of 1,000 channels (JSON and XML), the retrieve of every channel in
//! requests of 1,000, and PEO retrieve of the 1,000 PEOs whole and `namesOnly`; it prints
//! medians, the 100k/10k ratios (linear is 10) and the server's peak resident memory.
//!
//! `cargo bench --bench channels`. Goals (issue 17): time(100k) / time(10k) ≤ 12 for the query
//! and for retrieving every channel; `namesOnly` measurably cheaper than the whole PEOs.

mod support;

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::TOKEN;

/// Timed rounds per scenario, after one untimed warm-up each.
const ROUNDS: usize = 5;

/// Children per channel.
const BRANCHING: usize = 10;

/// PEOs per tree.
const PEOS: usize = 1_000;

const QUERY: &str = "/api/core/v1/cm/channels/query";
const RETRIEVE: &str = "/api/core/v1/cm/channels/retrieve";
const PEO_RETRIEVE: &str = "/api/core/v1/peo/peos/retrieve";

/// One scenario: its name, and the requests it makes (path, body, accept).
struct Scenario {
    name: &'static str,
    requests: Vec<(&'static str, String, &'static str)>,
}

fn main() {
    let mut results: Vec<(usize, Vec<Duration>, u64)> = Vec::new();
    let mut names: Vec<&str> = Vec::new();
    for count in [10_000, 100_000] {
        let folder = support::scratch(&format!("channels-{count}"));
        let database = support::import(&folder, &tree(count));
        let (child, port) = support::serve(&database);
        let tids: Vec<String> = (0..count).map(tid).collect();
        // 1,000 channels spread over the tree.
        let spread: Vec<&String> = tids.iter().step_by(count / 1_000).take(1_000).collect();
        let peos: Vec<String> = (0..PEOS).map(|peo| format!("PEO-{peo}")).collect();
        let scenarios = [
            Scenario {
                name: "query, whole tree",
                requests: vec![(
                    QUERY,
                    json!({"tid": tid(0)}).to_string(),
                    "application/json",
                )],
            },
            Scenario {
                name: "retrieve 1,000, JSON",
                requests: vec![(
                    RETRIEVE,
                    json!({"tids": spread}).to_string(),
                    "application/json",
                )],
            },
            Scenario {
                name: "retrieve 1,000, XML",
                requests: vec![(
                    RETRIEVE,
                    json!({"tids": spread}).to_string(),
                    "application/xml",
                )],
            },
            Scenario {
                name: "retrieve all, by 1,000",
                requests: tids
                    .chunks(1_000)
                    .map(|chunk| {
                        (
                            RETRIEVE,
                            json!({"tids": chunk}).to_string(),
                            "application/json",
                        )
                    })
                    .collect(),
            },
            Scenario {
                name: "PEO retrieve 1,000, whole",
                requests: vec![(
                    PEO_RETRIEVE,
                    json!({"tids": peos}).to_string(),
                    "application/json",
                )],
            },
            Scenario {
                name: "PEO retrieve 1,000, namesOnly",
                requests: vec![(
                    PEO_RETRIEVE,
                    json!({"tids": peos, "namesOnly": true}).to_string(),
                    "application/json",
                )],
            },
        ];
        names = scenarios.iter().map(|scenario| scenario.name).collect();
        let run = |scenario: &Scenario| -> usize {
            scenario
                .requests
                .iter()
                .map(|(path, body, accept)| {
                    let answer = support::post(port, path, body, accept, false);
                    assert_eq!(answer.status, 200, "{}", scenario.name);
                    answer.length
                })
                .sum()
        };
        let sizes: Vec<usize> = scenarios.iter().map(run).collect();
        let mut times: Vec<Vec<Duration>> = vec![Vec::new(); scenarios.len()];
        for _ in 0..ROUNDS {
            for (at, scenario) in scenarios.iter().enumerate() {
                let started = Instant::now();
                assert_eq!(run(scenario), sizes[at], "{}", scenario.name);
                times[at].push(started.elapsed());
            }
        }
        let mut medians = Vec::new();
        for (at, scenario) in scenarios.iter().enumerate() {
            let (median, fastest) = support::median_and_fastest(&mut times[at]);
            eprintln!(
                "{count:>7} channels, {:<30}: median {:>8.1} ms, fastest {:>8.1} ms, {:>7.1} MB",
                scenario.name,
                median.as_secs_f64() * 1e3,
                fastest.as_secs_f64() * 1e3,
                sizes[at] as f64 / 1e6
            );
            medians.push(median);
        }
        let peak = support::peak_kib(child.id());
        support::stop(child, &folder);
        results.push((count, medians, peak));
    }
    println!("channels and PEOs, {ROUNDS} timed rounds each (median):");
    println!("| scenario | 10k channels | 100k channels | ratio |\n|---|---|---|---|");
    for (at, name) in names.iter().enumerate() {
        let small = results[0].1[at].as_secs_f64();
        let large = results[1].1[at].as_secs_f64();
        println!(
            "| {name} | {:.1} ms | {:.1} ms | {:.2} |",
            small * 1e3,
            large * 1e3,
            large / small
        );
    }
    println!(
        "server peak RSS: {:.1} MB (10k), {:.1} MB (100k)",
        results[0].2 as f64 / 1024.0,
        results[1].2 as f64 / 1024.0
    );
}

/// The tid of the channel numbered `at` (0 is the root).
fn tid(at: usize) -> String {
    format!("CH-{at}")
}

/// A bootstrap document: `count` channels, channel `n`'s parent `(n - 1) / BRANCHING` (so
/// parents come first), nine value items each, and `PEOS` PEOs with nodes and values, each linked
/// to a channel.
fn tree(count: usize) -> Value {
    let values = json!([
        {"attr": "v0", "items": [{"value": "single value zero"}]},
        {"attr": "v1", "items": [{"value": "12.50"}]},
        {"attr": "v2", "items": [{"value": "2027-03-01"}]},
        {"attr": "v3", "type": "multiple", "items": [{"value": "S", "pos": 0}, {"value": "M", "pos": 1}, {"value": "L", "pos": 2}]},
        {"attr": "v4", "type": "localized", "items": [{"value": "Summer", "loc": "en_GB"}, {"value": "Sommer", "loc": "de_DE"}]},
        {"attr": "v5", "items": [{"value": "single value five"}]}
    ]);
    let channels: Vec<Value> = (0..count)
        .map(|at| {
            let mut channel = json!({"tid": tid(at), "type": "page", "name": format!("Channel {at}"),
                "orderSequence": at % BRANCHING, "icon": "/icons/page.svg",
                "allowedFunctions": ["edit", "export"], "values": values});
            if at > 0 {
                channel["parent"] = json!(tid((at - 1) / BRANCHING));
            }
            channel
        })
        .collect();
    let peos: Vec<Value> = (0..PEOS)
        .map(|peo| {
            json!({"tid": format!("PEO-{peo}"), "product": "P-1", "template": "web", "name": format!("PEO {peo}"),
                "nodes": [tid(peo * (count / PEOS)), tid(0)], "channels": [tid(peo * (count / PEOS))],
                "values": [values[0], values[3], values[4]]})
        })
        .collect();
    json!({
        "locales": [
            {"tid": "en_GB", "language": "en", "country": "GB", "name": "English"},
            {"tid": "de_DE", "language": "de", "country": "DE", "name": "Deutsch"}
        ],
        "attributeDefinitions": (0..6).map(|at| json!({"tid": format!("v{at}"), "type": "text"})).collect::<Vec<_>>(),
        "channelTypes": ["page"],
        "channelAttributes": ["v0", "v1", "v2", "v3", "v4", "v5"],
        "products": [{"tid": "P-1"}],
        "channels": channels,
        "peos": peos,
        "tokens": [{"user": "bench", "roles": ["admin"], "token": TOKEN}]
    })
}
