//! The benchmark's tables, and `--report`: `docs/benchmarks.md` written from what this run
//! measured, the large answers and the import (`cargo bench --bench keywords` and `--bench
//! import`, whose tables are taken as they print them) and the machine it ran on. Nothing in the
//! file is typed by hand.

use std::{
    fmt::Write as _,
    path::{Path, PathBuf},
    process::{Command, Stdio},
};

use anyhow::{Context, Result, bail};

use super::{
    Measured, Options, postgres,
    scenarios::Scenario,
    wrk::{CONNECTIONS, Run, spread},
};

/// The load benchmark's tables: one per target against the floor, then the medians per instance
/// count when several were measured.
pub fn http(
    options: &Options,
    scenarios: &[Scenario],
    measured: &[Measured],
    floor: &[Vec<Run>],
) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "core-server against the floor (a bare poem handler answering the same bytes): {} rounds of {} s, {CONNECTIONS} connections, wrk pinned to core 1, core-server instances to core 0 (PostgreSQL's own processes are not pinned). \"failed\" counts answers other than 2xx and socket errors (timeouts, after 2 s) over the rounds; a run where more than 1% fail stops the benchmark.",
        options.rounds, options.seconds
    );
    if options.postgres.is_some() {
        let _ = writeln!(
            out,
            "PostgreSQL's instances (readers on one schema, writers on another, {} connections each) all share core 0: on a machine of few cores the instance counts show what spreading the load costs, not added capacity, which needs cores of their own.",
            postgres::CONNECTIONS
        );
    }
    for target in measured {
        let _ = writeln!(
            out,
            "\n### {}\n\n| scenario | rps min / median / max | p50 | p99 | floor rps min / median / max | floor p50 | floor p99 | ratio | failed |\n|---|---|---|---|---|---|---|---|---|",
            target.label
        );
        for ((scenario, ours), floor) in scenarios.iter().zip(&target.runs).zip(floor) {
            let (rps, floor_rps) = (spread(ours, |run| run.rps), spread(floor, |run| run.rps));
            let _ = writeln!(
                out,
                "| {} | {:.0} / {:.0} / {:.0} | {:.2} ms | {:.2} ms | {:.0} / {:.0} / {:.0} | {:.2} ms | {:.2} ms | {:.3} | {} of {} |",
                scenario.name,
                rps.0,
                rps.1,
                rps.2,
                spread(ours, |run| run.p50_ms).1,
                spread(ours, |run| run.p99_ms).1,
                floor_rps.0,
                floor_rps.1,
                floor_rps.2,
                spread(floor, |run| run.p50_ms).1,
                spread(floor, |run| run.p99_ms).1,
                rps.1 / floor_rps.1,
                ours.iter().map(|run| run.errors).sum::<u64>(),
                ours.iter().map(|run| run.requests).sum::<u64>(),
            );
        }
    }
    let scaled: Vec<&Measured> = measured
        .iter()
        .filter(|target| target.label.starts_with("PostgreSQL"))
        .collect();
    if scaled.len() > 1 {
        let labels: Vec<&str> = scaled.iter().map(|target| target.label.as_str()).collect();
        let _ = writeln!(
            out,
            "\n### PostgreSQL by instance count (median rps, p50 / p99)\n\n| scenario | {} |\n|---|{}",
            labels.join(" | "),
            "---|".repeat(labels.len())
        );
        for (at, scenario) in scenarios.iter().enumerate() {
            let cells: Vec<String> = scaled
                .iter()
                .map(|target| {
                    let runs = &target.runs[at];
                    format!(
                        "{:.0} ({:.2} / {:.2} ms)",
                        spread(runs, |run| run.rps).1,
                        spread(runs, |run| run.p50_ms).1,
                        spread(runs, |run| run.p99_ms).1
                    )
                })
                .collect();
            let _ = writeln!(out, "| {} | {} |", scenario.name, cells.join(" | "));
        }
    }
    out
}

/// What a report takes from the checkout before its first measurement: the commit, and the
/// benches' executables built from it, so that editing the checkout while the report runs
/// changes neither what its later parts run nor the commit it names.
pub struct Prepared {
    /// The commit, and whether the tree had uncommitted changes.
    commit: String,
    /// `cargo bench --bench keywords`'s executable.
    keywords: PathBuf,
    /// `cargo bench --bench import`'s executable.
    import: PathBuf,
}

/// Notes the commit, then builds the benches of the report (`cargo bench --no-run`).
pub fn prepare(root: &Path) -> Result<Prepared> {
    let commit = commit(root);
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let output = Command::new(cargo)
        .args(["bench", "--no-run", "--quiet", "--message-format=json"])
        .args([
            "-p",
            "core-server",
            "--bench",
            "keywords",
            "--bench",
            "import",
        ])
        .current_dir(root)
        .stderr(Stdio::inherit())
        .output()
        .context("cargo bench --no-run")?;
    if !output.status.success() {
        bail!("cargo bench --no-run failed ({})", output.status);
    }
    let messages = String::from_utf8_lossy(&output.stdout);
    let executable = |name: &str| {
        messages
            .lines()
            .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
            .filter(|message| message["reason"] == "compiler-artifact")
            .filter(|message| message["target"]["name"] == name)
            .find_map(|message| message["executable"].as_str().map(PathBuf::from))
            .with_context(|| format!("cargo bench --no-run named no executable of bench {name}"))
    };
    Ok(Prepared {
        keywords: executable("keywords")?,
        import: executable("import")?,
        commit,
    })
}

/// Measures the large answers and the import, and writes `docs/benchmarks.md`.
pub fn write(root: &Path, prepared: &Prepared, postgres_url: &str, http: &str) -> Result<()> {
    eprintln!("bench-http: large answers (cargo bench --bench keywords, 100k and 1M keywords)");
    let large = bench(
        root,
        &prepared.keywords,
        &[
            ("CORE_BENCH_KEYWORD_SIZES", "100000,1000000"),
            ("CORE_BENCH_WARM", "3"),
        ],
    )?;
    eprintln!("bench-http: import (cargo bench --bench import, 100k and 1M keywords)");
    let import = bench(
        root,
        &prepared.import,
        &[
            ("CORE_BENCH_IMPORT_SIZES", "100000,1000000"),
            ("CORE_TEST_POSTGRES_URL", postgres_url),
        ],
    )?;
    let mut page = String::new();
    let _ = writeln!(
        page,
        "# Benchmarks\n\nWritten by `cargo xtask bench-http --report`; run it again to bring the figures up to date, never edit them by hand.\n\n## The machine\n\n{}\n## Requests under load (`cargo xtask bench-http`)\n\n{http}\n## Large answers (`cargo bench --bench keywords`)\n\n{large}\n## Import (`cargo bench --bench import`)\n\n{import}",
        machine(root, &prepared.commit, postgres_url)
    );
    let path = root.join("docs/benchmarks.md");
    std::fs::create_dir_all(root.join("docs"))?;
    std::fs::write(&path, page.trim_end().to_string() + "\n")?;
    eprintln!("bench-http: wrote {}", path.display());
    Ok(())
}

/// Runs a bench's executable with `variables`, as `cargo bench` would; answers what it printed
/// on stdout (its table), its progress going to stderr as it comes.
fn bench(root: &Path, executable: &Path, variables: &[(&str, &str)]) -> Result<String> {
    let output = Command::new(executable)
        .arg("--bench")
        .envs(variables.iter().copied())
        .current_dir(root)
        .stderr(Stdio::inherit())
        .output()
        .with_context(|| format!("{}", executable.display()))?;
    if !output.status.success() {
        bail!("{} failed ({})", executable.display(), output.status);
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// The machine, the toolchain, the databases and `commit` (from [`Prepared`]), as a list.
fn machine(root: &Path, commit: &str, postgres_url: &str) -> String {
    let read = |path: &str| std::fs::read_to_string(path).unwrap_or_default();
    let cpuinfo = read("/proc/cpuinfo");
    let model = cpuinfo
        .lines()
        .find_map(|line| line.strip_prefix("model name"))
        .map(|rest| rest.trim_start_matches([' ', '\t', ':']).to_string())
        .unwrap_or_else(|| "unknown".into());
    let cores = cpuinfo
        .lines()
        .filter(|line| line.starts_with("processor"))
        .count();
    let memory = read("/proc/meminfo")
        .lines()
        .find_map(|line| line.strip_prefix("MemTotal:"))
        .and_then(|rest| rest.trim().trim_end_matches(" kB").parse::<f64>().ok())
        .map_or_else(
            || "unknown".into(),
            |kib| format!("{:.1} GiB", kib / 1024.0 / 1024.0),
        );
    format!(
        "- processor: {model}, {cores} cores; memory: {memory}; kernel: {}\n- toolchain: {}; release profile of the workspace (fat LTO)\n- PostgreSQL {} on the same machine; SQLite as bundled by sqlx\n- commit: {commit}; measured on {}\n",
        printed(root, "uname", &["-sr"]),
        printed(root, "rustc", &["-V"]),
        postgres::version(postgres_url).unwrap_or_else(|_| "unknown".into()),
        printed(root, "date", &["-u", "+%Y-%m-%d %H:%M UTC"]),
    )
}

/// The checkout's commit, and whether its tracked files have changes not committed.
fn commit(root: &Path) -> String {
    let dirty = !printed(
        root,
        "git",
        &["status", "--porcelain", "--untracked-files=no"],
    )
    .is_empty();
    format!(
        "{}{}",
        printed(root, "git", &["rev-parse", "--short", "HEAD"]),
        if dirty {
            " with uncommitted changes"
        } else {
            ""
        }
    )
}

/// What a command printed, trimmed; "unknown" when it could not run or failed.
fn printed(root: &Path, program: &str, arguments: &[&str]) -> String {
    Command::new(program)
        .args(arguments)
        .current_dir(root)
        .output()
        .ok()
        .filter(|output| output.status.success())
        .map(|output| String::from_utf8_lossy(&output.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".into())
}
