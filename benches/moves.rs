//! Moving a catalogue out and in (issue 34): `core-server export` of a keyword tree (every
//! keyword named in two locales) from SQLite, `import` of that export into an empty SQLite
//! database and, when `CORE_TEST_POSTGRES_URL` is set, into an empty PostgreSQL schema, the
//! export of that schema, and `migrate` from the SQLite file into another empty schema: each
//! command's time and peak resident memory, and the export's size.
//!
//! `cargo bench --bench moves`; `CORE_BENCH_MOVE_SIZES=100000,1000000` (the default) sets the
//! tree sizes.

mod support;

use std::{
    path::Path,
    process::{Command, Stdio},
    time::{Duration, Instant},
};

/// One command's run: how long it took and its peak resident memory (KiB).
struct Run {
    step: String,
    size: usize,
    time: Duration,
    peak_kib: u64,
}

fn main() {
    let sizes = support::sizes("CORE_BENCH_MOVE_SIZES", "100000,1000000");
    let postgres = std::env::var("CORE_TEST_POSTGRES_URL").ok();
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let mut runs = Vec::new();
    for size in sizes {
        let folder = support::scratch(&format!("moves-{size}"));
        let source = support::import(&folder, &support::keyword_tree(size));
        let export = folder.join("export.json");
        runs.push(run(
            "export SQLite",
            size,
            &["export", "--database-url", &source],
            &export,
        ));
        let bytes = std::fs::metadata(&export).map_or(0, |metadata| metadata.len());
        eprintln!("export of {size} keywords: {bytes} bytes");
        let copy = format!("sqlite://{}/copy.db", folder.display());
        runs.push(run(
            "import into SQLite",
            size,
            &["import", "--database-url", &copy],
            &export,
        ));
        if let Some(base) = &postgres {
            let fresh = || {
                runtime
                    .block_on(core_server::testing::fresh_postgres_schema(base))
                    .expect("a fresh schema")
            };
            let target = fresh();
            let args = ["import", "--database-url", target.as_str()];
            runs.push(run("import into PostgreSQL", size, &args, &export));
            let again = folder.join("again.json");
            let args = ["export", "--database-url", target.as_str()];
            runs.push(run("export PostgreSQL", size, &args, &again));
            let migrated = fresh();
            let args = [
                "migrate",
                "--from",
                source.as_str(),
                "--to",
                migrated.as_str(),
            ];
            runs.push(run_plain("migrate SQLite → PostgreSQL", size, &args));
            for url in [target, migrated] {
                drop_schema(&runtime, &url);
            }
        }
        let _ = std::fs::remove_dir_all(&folder);
    }
    println!("moving a keyword tree (two names each, the records below count keywords):");
    println!("| step | keywords | time | keywords/s | peak RSS |\n|---|---|---|---|---|");
    for run in runs {
        println!(
            "| {} | {} | {:.1} s | {:.0} | {:.0} MB |",
            run.step,
            run.size,
            run.time.as_secs_f64(),
            run.size as f64 / run.time.as_secs_f64(),
            run.peak_kib as f64 / 1024.0,
        );
    }
}

/// Runs a command that takes a file last.
fn run(step: &str, size: usize, args: &[&str], file: &Path) -> Run {
    let mut command = Command::new(support::binary());
    command.args(args).arg(file);
    measure(step, size, command)
}

/// Runs a command that takes no file.
fn run_plain(step: &str, size: usize, args: &[&str]) -> Run {
    let mut command = Command::new(support::binary());
    command.args(args);
    measure(step, size, command)
}

/// Runs a command to its end, measuring its time and peak memory (`VmHWM`, polled).
fn measure(step: &str, size: usize, mut command: Command) -> Run {
    let started = Instant::now();
    let mut child = command
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("core-server runs");
    let mut peak_kib = 0;
    let status = loop {
        peak_kib = peak_kib.max(support::peak_kib(child.id()));
        if let Some(status) = child.try_wait().expect("the command is waited for") {
            break status;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let time = started.elapsed();
    assert!(status.success(), "{step} of {size} failed");
    eprintln!(
        "{step}, {size}: {:.1} s, peak {peak_kib} KiB",
        time.as_secs_f64()
    );
    Run {
        step: step.to_string(),
        size,
        time,
        peak_kib,
    }
}

/// Drops a schema a step made.
fn drop_schema(runtime: &tokio::runtime::Runtime, url: &str) {
    runtime.block_on(async {
        if let Ok(database) = core_server::storage::Database::connect(url).await {
            let _ = core_server::testing::drop_postgres_schema(&database).await;
            database.close().await;
        }
    });
}
