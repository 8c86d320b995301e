//! Classes retrieve with nodes on large classification trees, over HTTP against the release
//! server: one classification of 10,000 and one of 100,000 nodes (depth 8, three attributes per
//! node), each loaded with `core-server import` into its own SQLite file and served by its own
//! `core-server serve` process. For each size and form (flat and nested, JSON and XML), timed in
//! interleaved rounds, it prints the median and fastest of the timed requests, the answer's
//! size, the ratio of the 100k time to the 10k time (linear is 10), and the server's peak
//! resident memory (`VmHWM`).
//!
//! `cargo bench --bench classes`. Goals (issue 16): time(100k) / time(10k) ≤ 12 for every form,
//! and the 100k nested JSON retrieve under 2 s on the 2-core build machine.

mod support;

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::TOKEN;

/// The depth of the generated trees (the root is level 1).
const DEPTH: u32 = 8;

/// Timed requests per form (in interleaved rounds), after one untimed warm-up request each.
const ROUNDS: usize = 9;

/// The forms measured: name, request body, `Accept`.
const FORMS: [(&str, &str, &str); 3] = [
    (
        "flat JSON",
        r#"{"tids": ["Bench"], "withNodes": true}"#,
        "application/json",
    ),
    (
        "nested JSON",
        r#"{"tids": ["Bench"], "withNodes": true, "flatNodes": false}"#,
        "application/json",
    ),
    (
        "nested XML",
        r#"{"tids": ["Bench"], "withNodes": true, "flatNodes": false}"#,
        "application/xml",
    ),
];

/// One size's figures: its node count, per form (median, fastest, answer bytes), peak RSS KiB.
type Measured = (usize, Vec<(Duration, Duration, usize)>, u64);

fn main() {
    let mut results: Vec<Measured> = Vec::new();
    for nodes in [10_000, 100_000] {
        let folder = support::scratch(&format!("classes-{nodes}"));
        let database = support::import(&folder, &tree(nodes));
        let (child, port) = support::serve(&database);
        // One warm-up request per form, then rounds that take each form in turn, so that every
        // form meets the same state of the server (its heap, the file's pages).
        let sizes: Vec<usize> = FORMS
            .iter()
            .map(|(_, body, accept)| request(port, body, accept).0)
            .collect();
        let mut times: Vec<Vec<Duration>> = vec![Vec::new(); FORMS.len()];
        for _ in 0..ROUNDS {
            for (at, (form, body, accept)) in FORMS.iter().enumerate() {
                let started = Instant::now();
                let (length, status) = request(port, body, accept);
                assert_eq!((status, length), (200, sizes[at]), "{form}");
                times[at].push(started.elapsed());
            }
        }
        let mut timings = Vec::new();
        for (at, (form, _, _)) in FORMS.iter().enumerate() {
            let times = &mut times[at];
            times.sort();
            eprintln!(
                "{nodes:>7} nodes, {form:<11}: median {:>7.1} ms, fastest {:>7.1} ms, {:>6.1} MB",
                times[ROUNDS / 2].as_secs_f64() * 1e3,
                times[0].as_secs_f64() * 1e3,
                sizes[at] as f64 / 1e6
            );
            timings.push((times[ROUNDS / 2], times[0], sizes[at]));
        }
        let peak = support::peak_kib(child.id());
        eprintln!(
            "{nodes:>7} nodes: server peak RSS {:.1} MB",
            peak as f64 / 1024.0
        );
        support::stop(child, &folder);
        results.push((nodes, timings, peak));
    }
    println!("classes retrieve with nodes, {ROUNDS} timed requests each (median):");
    println!("| form | 10k nodes | 100k nodes | ratio | 100k answer |\n|---|---|---|---|---|");
    for (at, (form, _, _)) in FORMS.iter().enumerate() {
        let small = results[0].1[at].0.as_secs_f64();
        let large = results[1].1[at].0.as_secs_f64();
        println!(
            "| {form} | {:.1} ms | {:.1} ms | {:.2} | {:.1} MB |",
            small * 1e3,
            large * 1e3,
            large / small,
            results[1].1[at].2 as f64 / 1e6
        );
    }
    println!(
        "server peak RSS: {:.1} MB (10k), {:.1} MB (100k)",
        results[0].2 as f64 / 1024.0,
        results[1].2 as f64 / 1024.0
    );
}

/// A bootstrap document with one classification `Bench` of `count` nodes, `DEPTH` levels deep
/// (breadth first, so every parent comes before its children), three visible attributes per
/// node, and the benchmark's token.
fn tree(count: usize) -> Value {
    let mut branching = 2usize;
    while (0..DEPTH).map(|level| branching.pow(level)).sum::<usize>() < count {
        branching += 1;
    }
    let attributes: Vec<Value> = (0..3)
        .map(|key| {
            json!({"key": format!("a{key}"), "level": "p", "inheritance": "visible",
                   "restriction": "optional", "localized": false})
        })
        .collect();
    let mut paths = vec!["/Bench".to_string()];
    let mut parent = 0;
    while paths.len() < count {
        let depth = paths[parent].matches('/').count() as u32;
        if depth < DEPTH {
            for child in 0..branching {
                if paths.len() == count {
                    break;
                }
                let path = format!("{}/n{child}", paths[parent]);
                paths.push(path);
            }
        }
        parent += 1;
    }
    let nodes: Vec<Value> = paths
        .into_iter()
        .map(|path| {
            let name = path.rsplit('/').next().unwrap_or_default().to_string();
            json!({"path": path, "names": {"": name}, "attributes": attributes})
        })
        .collect();
    json!({
        "locales": [{"tid": "en_GB", "language": "en", "country": "GB", "name": "English"}],
        "attributeDefinitions": [
            {"tid": "a0", "type": "text"}, {"tid": "a1", "type": "number"}, {"tid": "a2", "type": "date"}
        ],
        "classifications": [{"tid": "Bench", "names": {"": "Bench"}, "nodes": nodes}],
        "tokens": [{"user": "bench", "roles": ["admin"], "token": TOKEN}]
    })
}

/// Posts a classes retrieve and reads the whole answer: its body length and status.
fn request(port: u16, body: &str, accept: &str) -> (usize, u16) {
    let answer = support::post(
        port,
        "/api/core/v1/pim/classes/retrieve",
        body,
        accept,
        false,
    );
    (answer.length, answer.status)
}
