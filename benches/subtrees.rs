//! A small read in a large tree (D-37: a request costs what it reads): keywords retrieve of one
//! keyword's 50 children (`{"path": "/R1/C1", "level": 1}`) and of the roots
//! (`{"path": "/", "level": 1}`), in trees of about 4,000 and 1,000,000 keywords, over HTTP
//! against the release server on SQLite. Each tree is `/R<r>/C<c>/L<l>` with 50 leaves under
//! every `C`, loaded with `core-server import`.
//!
//! `cargo bench --bench subtrees` prints the median and fastest of 200 requests per read and
//! tree. Goal (issue 30): the 50-keyword read costs the same, within 2×, in both trees.
//! `CORE_BENCH_BINARY=<path>` measures another build (imported and served by it).

mod support;

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::TOKEN;

const RETRIEVE: &str = "/api/core/v1/common/keywords/retrieve";

/// Requests per read.
const REQUESTS: usize = 200;

/// The trees: name, roots, children of each root (each with 50 leaves).
const TREES: [(&str, usize, usize); 2] = [("4k", 2, 40), ("1M", 100, 200)];

/// The reads: name and body.
const READS: [(&str, &str); 2] = [
    ("50 children of /R1/C1", r#"{"path":"/R1/C1","level":1}"#),
    ("the roots", r#"{"path":"/","level":1}"#),
];

fn main() {
    let binary = std::env::var("CORE_BENCH_BINARY").unwrap_or_else(|_| support::binary().into());
    println!("keywords retrieve of a small part of a large tree ({binary}):");
    println!("| tree | keywords | read | answer | median | fastest |\n|---|---|---|---|---|---|");
    let mut medians: Vec<(&str, &str, Duration)> = Vec::new();
    for (name, roots, children) in TREES {
        let folder = support::scratch(&format!("subtrees-{name}"));
        let document = tree(roots, children);
        let count = document["keywords"].as_array().map_or(0, Vec::len);
        let database = format!("sqlite://{}/bench.db", folder.display());
        import(&binary, &folder, &database, &document);
        let (child, port) = serve(&binary, &database);
        for (read, body) in READS {
            // Warm: the pages the read needs are in memory, as on a serving machine.
            let first = support::post(port, RETRIEVE, body, "application/json", true);
            assert_eq!(first.status, 200, "{read} in {name}");
            let kwds = serde_json::from_slice::<Value>(&first.body)
                .ok()
                .and_then(|answer| answer["kwds"]["kwd"].as_array().map(Vec::len))
                .unwrap_or(0);
            let mut times: Vec<Duration> = (0..REQUESTS)
                .map(|_| {
                    let started = Instant::now();
                    let answer = support::post(port, RETRIEVE, body, "application/json", false);
                    assert_eq!(answer.status, 200);
                    started.elapsed()
                })
                .collect();
            let (median, fastest) = support::median_and_fastest(&mut times);
            println!(
                "| {name} | {count} | {read} | {kwds} keywords | {:.2} ms | {:.2} ms |",
                median.as_secs_f64() * 1e3,
                fastest.as_secs_f64() * 1e3
            );
            medians.push((name, read, median));
        }
        support::stop(child, &folder);
    }
    let small = |tree: &str| {
        medians
            .iter()
            .find(|(name, read, _)| *name == tree && read.starts_with("50"))
            .map(|(_, _, median)| median.as_secs_f64())
            .unwrap_or(0.0)
    };
    let ratio = small("1M") / small("4k");
    println!("the 50-keyword read: 1M tree / 4k tree = {ratio:.2} (goal ≤ 2)");
}

/// The keywords of a tree: `roots` roots with `children` children each, 50 leaves under every
/// child.
fn tree(roots: usize, children: usize) -> Value {
    let mut keywords = Vec::with_capacity(roots * children * 51 + roots);
    for root in 0..roots {
        keywords.push(json!({"path": format!("/R{root}")}));
        for child in 0..children {
            keywords.push(json!({"path": format!("/R{root}/C{child}")}));
            for leaf in 0..50 {
                keywords.push(json!({"path": format!("/R{root}/C{child}/L{leaf}"),
                    "names": {"de_DE": format!("L{leaf}")}}));
            }
        }
    }
    json!({
        "locales": [{"tid": "de_DE", "language": "de", "country": "DE", "name": "Deutsch"}],
        "keywords": keywords,
        "tokens": [{"user": "bench", "roles": ["admin"], "token": TOKEN}],
    })
}

/// Imports a document with `binary`.
fn import(binary: &str, folder: &std::path::Path, database: &str, document: &Value) {
    let file = folder.join("bench.json");
    std::fs::write(&file, document.to_string()).expect("the document is written");
    let started = Instant::now();
    let imported = std::process::Command::new(binary)
        .args(["import", "--database-url", database])
        .arg(&file)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .expect("core-server import runs");
    assert!(imported.success(), "the import into {database} failed");
    eprintln!(
        "{database}: imported in {:.1} s",
        started.elapsed().as_secs_f64()
    );
}

/// Serves `database` with `binary` on a free port, the rate limit off.
fn serve(binary: &str, database: &str) -> (std::process::Child, u16) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|address| address.port())
        .expect("a free port");
    let mut child = std::process::Command::new(binary)
        .env("CORE_RATE_LIMIT", "0")
        .args(["serve", "--database-url", database, "--bind"])
        .arg(format!("127.0.0.1:{port}"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("core-server serve starts");
    for _ in 0..600 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return (child, port);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
    panic!("core-server did not listen on {port}");
}
