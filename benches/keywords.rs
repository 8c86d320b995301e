//! Keywords retrieve of a 100,000-keyword tree (`CORE_BENCH_KEYWORD_SIZES`, a list, sets the
//! sizes) over HTTP against the release server, in each representation: the time of the first
//! (cold) and of the warm requests (`CORE_BENCH_WARM`, 5 by default, at the largest size; a
//! smaller tree is asked as many times more as it is smaller, up to 5× `WARM`, so that the
//! median of its short requests is as steady as that of the long ones), and how much memory the
//! server takes for the answer and gives back after it.
//!
//! The tree (ten roots, ten children each, five levels, cut at 100,000; every keyword named in
//! two locales) is loaded with `core-server import` into a SQLite file. Each representation gets
//! a fresh `core-server serve`: one small request, then the whole tree (`{"path":"/","level":-1}`)
//! once cold, then warm. While a request runs, a sampler reads the server's anonymous
//! resident memory (`RssAnon` of `/proc/<pid>/status`, every millisecond): the pages the
//! server allocated, without the database file it maps. Peak growth is the highest sample above
//! the level before the first request; "after" is the level after two idle seconds and one more
//! small request.
//!
//! `cargo bench --bench keywords`. Goals (issue 18): peak growth ≤ 3× the answer, the warm
//! retrieve ≤ 500 ms, and the memory given back after the answer; (issue 33) peak growth ≤ 1.5×
//! the answer, and 1M keywords in ≤ 11× the time of 100k.

mod support;

use std::{
    sync::{
        Arc,
        atomic::{AtomicBool, AtomicU64, Ordering},
    },
    time::{Duration, Instant},
};

/// What one representation measured on one tree.
struct Measured {
    form: &'static str,
    keywords: usize,
    size: usize,
    cold: Duration,
    warm: Duration,
    /// How many warm requests `warm` is the median of.
    asked: usize,
    growth: f64,
    before_kib: u64,
    after_kib: u64,
}

/// The representations measured: name and `Accept`.
const FORMS: [(&str, &str); 3] = [
    ("JSON", "application/json"),
    ("XML", "application/xml"),
    ("compact JSON", "application/json+compact"),
];

const RETRIEVE: &str = "/api/core/v1/common/keywords/retrieve";

fn main() {
    let sizes = support::sizes("CORE_BENCH_KEYWORD_SIZES", "100000");
    let warm: usize = std::env::var("CORE_BENCH_WARM")
        .ok()
        .and_then(|count| count.parse().ok())
        .unwrap_or(5)
        .max(1);
    let largest = sizes.iter().copied().max().unwrap_or(1);
    let mut rows = Vec::new();
    for &keywords in &sizes {
        let folder = support::scratch(&format!("keywords-{keywords}"));
        let database = support::import(&folder, &support::keyword_tree(keywords));
        let repeats = (warm * largest / keywords.max(1)).clamp(warm, 5 * warm);
        for (form, accept) in FORMS {
            rows.push(measure(&database, keywords, form, accept, repeats));
        }
        let _ = std::fs::remove_dir_all(&folder);
    }
    println!(
        "keywords retrieve of the whole tree, median of {warm} warm requests at {largest} \
         keywords, up to {} at smaller sizes:",
        5 * warm
    );
    println!(
        "| keywords | representation | answer | cold | warm (median of) | peak growth | × answer | anon before → after |\n\
         |---|---|---|---|---|---|---|---|"
    );
    for row in &rows {
        println!(
            "| {} | {} | {:.1} MB | {:.0} ms | {:.0} ms ({}) | {:.1} MB | {:.2} | {:.1} → {:.1} MB |",
            row.keywords,
            row.form,
            row.size as f64 / 1e6,
            row.cold.as_secs_f64() * 1e3,
            row.warm.as_secs_f64() * 1e3,
            row.asked,
            row.growth / 1e6,
            row.growth / row.size as f64,
            row.before_kib as f64 / 1024.0,
            row.after_kib as f64 / 1024.0
        );
    }
    if let (Some(&least), Some(&most)) = (sizes.iter().min(), sizes.iter().max())
        && least < most
    {
        for (form, _) in FORMS {
            let warm_of = |keywords| {
                rows.iter()
                    .find(|row| row.form == form && row.keywords == keywords)
                    .map_or(f64::NAN, |row| row.warm.as_secs_f64())
            };
            println!(
                "\n{form}: {most} keywords took {:.1}× the time of {least} ({:.0}× the keywords)",
                warm_of(most) / warm_of(least),
                most as f64 / least as f64
            );
        }
    }
}

/// One representation on one tree: a fresh server, a small request, the whole tree cold, then
/// `warm` times.
fn measure(
    database: &str,
    keywords: usize,
    form: &'static str,
    accept: &str,
    warm: usize,
) -> Measured {
    let (child, port) = support::serve(database);
    let pid = child.id();
    small(port);
    let before = support::anon_kib(pid);
    let (cold, size, cold_peak) = sampled(pid, || whole(port, accept));
    let mut times = Vec::new();
    let mut peak = cold_peak;
    for _ in 0..warm {
        let (time, length, high) = sampled(pid, || whole(port, accept));
        assert_eq!(length, size, "{form}: every answer is the same");
        times.push(time);
        peak = peak.max(high);
    }
    std::thread::sleep(Duration::from_secs(2));
    small(port);
    let after = support::anon_kib(pid);
    let (median, fastest) = support::median_and_fastest(&mut times);
    let growth = peak.saturating_sub(before) as f64 * 1024.0;
    eprintln!(
        "{keywords} keywords, {form:<12}: {:.1} MB answer, cold {:.0} ms, warm median {:.0} ms \
         (fastest {:.0}), anon {:.1} MB before, peak growth {:.1} MB, {:.1} MB after",
        size as f64 / 1e6,
        cold.as_secs_f64() * 1e3,
        median.as_secs_f64() * 1e3,
        fastest.as_secs_f64() * 1e3,
        before as f64 / 1024.0,
        growth / 1e6,
        after as f64 / 1024.0
    );
    support::end(child);
    Measured {
        form,
        keywords,
        size,
        cold,
        warm: median,
        asked: warm,
        growth,
        before_kib: before,
        after_kib: after,
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
