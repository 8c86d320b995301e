//! Keywords retrieve of a 100,000-keyword tree over HTTP against the release server, in each
//! representation: the time of the first (cold) and of the warm requests, and how much memory
//! the server takes for the answer and gives back after it.
//!
//! The tree (ten roots, ten children each, five levels, cut at 100,000; every keyword named in
//! two locales) is loaded with `core-server import` into a SQLite file. Each representation gets
//! a fresh `core-server serve`: one small request, then the whole tree (`{"path":"/","level":-1}`)
//! once cold and `WARM` times warm. While a request runs, a sampler reads the server's anonymous
//! resident memory (`RssAnon` of `/proc/<pid>/status`, every millisecond): the pages the
//! server allocated, without the database file it maps. Peak growth is the highest sample above
//! the level before the first request; "after" is the level after two idle seconds and one more
//! small request.
//!
//! `cargo bench --bench keywords`. Goals (issue 18): peak growth ≤ 3× the answer, the warm
//! retrieve ≤ 500 ms, and the memory given back after the answer.

mod support;

use std::{
    sync::{
        Arc,
        atomic::{AtomicBool, AtomicU64, Ordering},
    },
    time::{Duration, Instant},
};

/// Keywords in the tree.
const KEYWORDS: usize = 100_000;

/// Warm requests per representation, after the cold one.
const WARM: usize = 5;

/// The representations measured: name and `Accept`.
const FORMS: [(&str, &str); 3] = [
    ("JSON", "application/json"),
    ("XML", "application/xml"),
    ("compact JSON", "application/json+compact"),
];

const RETRIEVE: &str = "/api/core/v1/common/keywords/retrieve";

fn main() {
    let folder = support::scratch("keywords");
    let database = support::import(&folder, &support::keyword_tree(KEYWORDS));
    let mut rows = Vec::new();
    for (form, accept) in FORMS {
        let (child, port) = support::serve(&database);
        let pid = child.id();
        small(port);
        let before = support::anon_kib(pid);
        let (cold, size, cold_peak) = sampled(pid, || whole(port, accept));
        let mut warm = Vec::new();
        let mut peak = cold_peak;
        for _ in 0..WARM {
            let (time, length, high) = sampled(pid, || whole(port, accept));
            assert_eq!(length, size, "{form}: every answer is the same");
            warm.push(time);
            peak = peak.max(high);
        }
        std::thread::sleep(Duration::from_secs(2));
        small(port);
        let after = support::anon_kib(pid);
        let (median, fastest) = support::median_and_fastest(&mut warm);
        let growth = peak.saturating_sub(before) as f64 * 1024.0;
        eprintln!(
            "{form:<12}: {:.1} MB answer, cold {:.0} ms, warm median {:.0} ms (fastest {:.0}), \
             anon {:.1} MB before, peak growth {:.1} MB, {:.1} MB after",
            size as f64 / 1e6,
            cold.as_secs_f64() * 1e3,
            median.as_secs_f64() * 1e3,
            fastest.as_secs_f64() * 1e3,
            before as f64 / 1024.0,
            growth / 1e6,
            after as f64 / 1024.0
        );
        rows.push((form, size, cold, median, growth, before, after));
        support::end(child);
    }
    let _ = std::fs::remove_dir_all(&folder);
    println!("keywords retrieve of {KEYWORDS} keywords, {WARM} warm requests each (median):");
    println!(
        "| representation | answer | cold | warm | peak growth | × answer | anon before → after |\n\
         |---|---|---|---|---|---|---|"
    );
    for (form, size, cold, median, growth, before, after) in rows {
        println!(
            "| {form} | {:.1} MB | {:.0} ms | {:.0} ms | {:.1} MB | {:.2} | {:.1} → {:.1} MB |",
            size as f64 / 1e6,
            cold.as_secs_f64() * 1e3,
            median.as_secs_f64() * 1e3,
            growth / 1e6,
            growth / size as f64,
            before as f64 / 1024.0,
            after as f64 / 1024.0
        );
    }
}

/// The whole tree in one representation: the answer's length.
fn whole(port: u16, accept: &str) -> usize {
    let answer = support::post(port, RETRIEVE, r#"{"path":"/","level":-1}"#, accept, false);
    assert_eq!(answer.status, 200, "{accept}");
    answer.length
}

/// One small request (a root's children).
fn small(port: u16) {
    let answer = support::post(
        port,
        RETRIEVE,
        r#"{"path":"/k0","level":1}"#,
        "application/json",
        false,
    );
    assert_eq!(answer.status, 200);
}

/// Runs a request while sampling the server's anonymous memory: its time, its answer's
/// length, and the highest sample (KiB).
fn sampled(pid: u32, request: impl FnOnce() -> usize) -> (Duration, usize, u64) {
    let done = Arc::new(AtomicBool::new(false));
    let high = Arc::new(AtomicU64::new(support::anon_kib(pid)));
    let sampler = {
        let (done, high) = (done.clone(), high.clone());
        std::thread::spawn(move || {
            while !done.load(Ordering::Relaxed) {
                high.fetch_max(support::anon_kib(pid), Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(1));
            }
        })
    };
    let started = Instant::now();
    let length = request();
    let time = started.elapsed();
    done.store(true, Ordering::Relaxed);
    let _ = sampler.join();
    (
        time,
        length,
        high.load(Ordering::Relaxed).max(support::anon_kib(pid)),
    )
}
