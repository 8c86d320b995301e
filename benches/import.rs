//! `core-server import` of a keyword tree (every keyword named in two locales) into an empty
//! database, then the same document again (every record matched by its path and updated): the
//! time, the rate and the importing process's peak resident memory, on SQLite and, when
//! `CORE_TEST_POSTGRES_URL` is set, on PostgreSQL (a schema of its own, dropped afterwards).
//!
//! `cargo bench --bench import`; `CORE_BENCH_IMPORT_SIZES=100000,1000000` (the default) sets the
//! tree sizes. Goals (issue 33): ≥ 100k records/s on SQLite, ≥ 50k/s on PostgreSQL, linear from
//! 100k to 1M.

mod support;

use std::{
    path::Path,
    process::{Command, Stdio},
    time::{Duration, Instant},
};

/// One import: how long it took and the importer's peak resident memory (KiB).
struct Imported {
    time: Duration,
    peak_kib: u64,
}

fn main() {
    let sizes = support::sizes("CORE_BENCH_IMPORT_SIZES", "100000,1000000");
    let postgres = std::env::var("CORE_TEST_POSTGRES_URL").ok();
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let mut rows = Vec::new();
    for size in sizes {
        let folder = support::scratch(&format!("import-{size}"));
        let file = folder.join("keywords.json");
        std::fs::write(&file, support::keyword_tree(size).to_string()).expect("the document");
        let sqlite = format!("sqlite://{}/import.db", folder.display());
        rows.push(("SQLite", size, twice(&sqlite, &file)));
        if let Some(base) = &postgres {
            let url = runtime
                .block_on(core_server::testing::fresh_postgres_schema(base))
                .expect("a fresh schema");
            rows.push(("PostgreSQL", size, twice(&url, &file)));
            runtime.block_on(async {
                if let Ok(database) = core_server::storage::Database::connect(&url).await {
                    let _ = core_server::testing::drop_postgres_schema(&database).await;
                    database.close().await;
                }
            });
        }
        let _ = std::fs::remove_dir_all(&folder);
    }
    println!(
        "core-server import of a keyword tree (two names each), into an empty database, then again:"
    );
    println!(
        "| database | keywords | first import | records/s | peak RSS | again | records/s |\n\
         |---|---|---|---|---|---|---|"
    );
    for (database, size, [first, again]) in rows {
        let rate = |import: &Imported| size as f64 / import.time.as_secs_f64();
        println!(
            "| {database} | {size} | {:.1} s | {:.0} | {:.0} MB | {:.1} s | {:.0} |",
            first.time.as_secs_f64(),
            rate(&first),
            first.peak_kib as f64 / 1024.0,
            again.time.as_secs_f64(),
            rate(&again),
        );
    }
}

/// Imports the document into an empty database, then again.
fn twice(database: &str, file: &Path) -> [Imported; 2] {
    let first = import(database, file);
    let again = import(database, file);
    [first, again]
}

/// Runs `core-server import`, measuring its time and peak memory.
fn import(database: &str, file: &Path) -> Imported {
    let started = Instant::now();
    let mut child = Command::new(support::binary())
        .args(["import", "--database-url", database])
        .arg(file)
        .stdout(Stdio::null())
        .spawn()
        .expect("core-server import runs");
    // `VmHWM` of the running process: a child's `ru_maxrss` would count this process's memory,
    // which the child held between fork and exec.
    let mut peak_kib = 0;
    let status = loop {
        peak_kib = peak_kib.max(support::peak_kib(child.id()));
        if let Some(status) = child.try_wait().expect("the import is waited for") {
            break status;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let time = started.elapsed();
    assert!(status.success(), "the import into {database} failed");
    eprintln!(
        "{database}: imported in {:.1} s, peak {peak_kib} KiB",
        time.as_secs_f64()
    );
    Imported { time, peak_kib }
}
