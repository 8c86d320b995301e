//! `cargo xtask bench-http [--rounds N] [--seconds S] [--database sqlite|postgres]
//! [--postgres-url URL] [--prism] [--report]`: the load benchmark of the request path.
//!
//! It builds core-server and the floor (`crates/bench-floor`, a bare poem server answering the
//! same bodies) in release, starts core-server on the demo catalogue and the floor with the
//! answers core-server gave, pins the servers to core 0 and the load generator (wrk, installed
//! from Debian's packages when missing) to core 1 where `taskset` exists, and runs each scenario
//! against each target in interleaved rounds.
//! On SQLite a target is one instance (and a second one on its own database for the persist
//! scenario, which grows its data); on PostgreSQL (`--database postgres`, the server of
//! `--postgres-url` or `CORE_TEST_POSTGRES_URL`) it is 1, 2 and 4 instances on one database
//! (readers on one schema, writers on another), wrk's four threads given to them in turn.
//! It prints, per target and scenario, requests per second (min/median/max over the rounds), the
//! median p50 and p99 latencies, and the ratio of core-server's median to the floor's.
//! `--report` measures both databases, then the large answers and the import (`cargo bench
//! --bench keywords` and `--bench import` at 100k and 1M keywords), and writes
//! `docs/benchmarks.md` with the machine it ran on (`report.rs`). It notes the commit and builds
//! those two benches before the first measurement, so that editing the checkout meanwhile does
//! not change what it measures (building core-server in release meanwhile still would).
//! With `--prism` it also runs the keyword retrieve against a Stoplight Prism mock of the
//! document (`prism.rs`).

mod postgres;
mod prism;
mod report;
mod scenarios;
mod wrk;

use std::{
    path::{Path, PathBuf},
    process::{Command, Stdio},
};

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};

use crate::server::{self, Running, free_address, wait_listening};
use scenarios::Scenario;
use wrk::{Load, Run, pinned};

/// The instance counts measured on PostgreSQL.
const INSTANCES: [usize; 3] = [1, 2, 4];

/// wrk's threads against PostgreSQL instances: one or more per instance, whatever their count.
const POSTGRES_THREADS: usize = 4;

/// What the chore was asked.
struct Options {
    rounds: usize,
    seconds: u32,
    sqlite: bool,
    postgres: Option<String>,
    prism: bool,
    report: bool,
}

impl Options {
    fn parse(arguments: &[&str]) -> Result<Options> {
        let mut options = Options {
            rounds: 3,
            seconds: 5,
            sqlite: true,
            postgres: None,
            prism: false,
            report: false,
        };
        let mut url = std::env::var("CORE_TEST_POSTGRES_URL").ok();
        let mut database = "sqlite";
        let mut rest = arguments.iter();
        while let Some(argument) = rest.next() {
            match *argument {
                "--rounds" => options.rounds = rest.next().context("--rounds N")?.parse()?,
                "--seconds" => options.seconds = rest.next().context("--seconds S")?.parse()?,
                "--database" => database = rest.next().context("--database sqlite|postgres")?,
                "--postgres-url" => {
                    url = Some(rest.next().context("--postgres-url URL")?.to_string())
                }
                "--prism" => options.prism = true,
                "--report" => options.report = true,
                other => bail!("bench-http: unknown argument {other}"),
            }
        }
        if options.rounds == 0 {
            bail!("bench-http: --rounds must be 1 or more");
        }
        match (database, options.report) {
            ("sqlite", false) => {}
            ("postgres", _) | ("sqlite", true) => {
                options.sqlite = database == "sqlite" || options.report;
                options.postgres = Some(url.context(
                    "bench-http: PostgreSQL needs --postgres-url URL or CORE_TEST_POSTGRES_URL (the report covers both databases)",
                )?);
            }
            (other, _) => bail!("bench-http: --database {other}: sqlite or postgres"),
        }
        Ok(options)
    }
}

/// Servers measured together: where reads and writes go, and wrk's threads against them.
struct Target {
    label: String,
    reads: Vec<String>,
    writes: Vec<String>,
    threads: usize,
}

/// What a target measured: per scenario, one run per round.
pub struct Measured {
    /// The target, as the tables name it.
    pub label: String,
    /// Per scenario, in the order of `scenarios::all`.
    pub runs: Vec<Vec<Run>>,
}

/// The servers a run started, the targets they make and the demo's token.
struct Started {
    /// Kept running until the measurements end.
    servers: Vec<Running>,
    targets: Vec<Target>,
    token: String,
}

/// Runs the benchmark.
pub fn run(root: &Path, arguments: &[&str]) -> Result<()> {
    let options = Options::parse(arguments)?;
    let wrk = wrk::installed()?;
    // The report's benches are built first, from the tree the load part measures.
    let prepared = options.report.then(|| report::prepare(root)).transpose()?;
    build(root)?;
    let taskset = Path::new("/usr/bin/taskset").exists();
    if !taskset {
        eprintln!("bench-http: taskset is missing; servers and wrk share the cores");
    }
    let folder = root.join("target/bench-http");
    if folder.exists() {
        std::fs::remove_dir_all(&folder)?;
    }
    std::fs::create_dir_all(&folder)?;
    let started = start(
        &options,
        &root.join("target/release/core-server"),
        &folder,
        taskset,
    )?;
    let scenarios = scenarios::all();
    let floor = floor(root, &folder, taskset, &started, &scenarios)?;
    let load = |threads| Load {
        wrk: &wrk,
        taskset,
        threads,
        seconds: options.seconds,
    };
    let mut measured: Vec<Measured> = started
        .targets
        .iter()
        .map(|target| Measured {
            label: target.label.clone(),
            runs: vec![Vec::new(); scenarios.len()],
        })
        .collect();
    let mut floor_runs = vec![Vec::new(); scenarios.len()];
    for round in 1..=options.rounds {
        eprintln!("bench-http: round {round} of {}", options.rounds);
        for (at, scenario) in scenarios.iter().enumerate() {
            for (target, into) in started.targets.iter().zip(&mut measured) {
                let addresses = target.addresses(scenario);
                let script = folder.join(format!("scenario-{at}.lua"));
                std::fs::write(&script, wrk::script(scenario, &started.token, addresses))?;
                let run = load(target.threads).measure(&script, &addresses[0], scenario.path)?;
                into.runs[at].push(run);
            }
            let script = folder.join(format!("floor-{at}.lua"));
            std::fs::write(&script, wrk::script(scenario, &started.token, &[]))?;
            let path = format!("/floor/{at}");
            floor_runs[at].push(load(1).measure(&script, &floor.address, &path)?);
        }
    }
    let token = started.token.clone();
    drop((started, floor));
    let table = report::http(&options, &scenarios, &measured, &floor_runs);
    println!("{table}");
    if options.prism {
        let ours = wrk::spread(&measured[0].runs[0], |run| run.rps).1;
        let rounds = options.rounds;
        let compared =
            prism::compare(root, &load(1), rounds, &folder, &scenarios[0], &token, ours)?;
        println!("{compared}");
    }
    if let Some(prepared) = &prepared {
        let base = options.postgres.as_deref().unwrap_or_default();
        report::write(root, prepared, base, &table)?;
    }
    Ok(())
}

impl Target {
    /// Where a scenario's requests go: the writers for a persist, the readers otherwise.
    fn addresses(&self, scenario: &Scenario) -> &[String] {
        if scenario.persists {
            &self.writes
        } else {
            &self.reads
        }
    }
}

/// Starts core-server on the demo: on SQLite a reader and a writer, each on a file of its own in
/// `folder`; on PostgreSQL the most instances measured of each, on schemas of their own.
fn start(options: &Options, core_server: &Path, folder: &Path, taskset: bool) -> Result<Started> {
    let mut started = Started {
        servers: Vec::new(),
        targets: Vec::new(),
        token: String::new(),
    };
    if options.sqlite {
        for name in ["read", "write"] {
            let url = format!("sqlite://{}", folder.join(format!("{name}.db")).display());
            let (running, token) = server::demo(&mut pinned(taskset, "0", core_server), &url)?;
            started.servers.push(running);
            started.token = token;
        }
        started.targets.push(Target {
            label: "SQLite, 1 instance".into(),
            reads: vec![started.servers[0].address.clone()],
            writes: vec![started.servers[1].address.clone()],
            threads: 1,
        });
    }
    if let Some(base) = &options.postgres {
        let most = INSTANCES[INSTANCES.len() - 1];
        let instances = postgres::start(base, core_server, taskset, most)?;
        let addresses = |set: &[Running], count| -> Vec<String> {
            set.iter()
                .take(count)
                .map(|running| running.address.clone())
                .collect()
        };
        for count in INSTANCES {
            started.targets.push(Target {
                label: format!(
                    "PostgreSQL, {count} instance{}",
                    if count == 1 { "" } else { "s" }
                ),
                reads: addresses(&instances.readers, count),
                writes: addresses(&instances.writers, count),
                threads: POSTGRES_THREADS,
            });
        }
        started.token = instances.token;
        started.servers.extend(instances.readers);
        started.servers.extend(instances.writers);
    }
    Ok(started)
}

/// Builds core-server and the floor in release.
fn build(root: &Path) -> Result<()> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    crate::python::status(
        Command::new(cargo)
            .args(["build", "--release", "--quiet", "-p", "core-server"])
            .args(["-p", "bench-floor"])
            .current_dir(root),
        "cargo build --release",
    )
}

/// Starts the floor answering, at `/floor/<n>`, what the first target answered scenario `n`.
fn floor(
    root: &Path,
    folder: &Path,
    taskset: bool,
    started: &Started,
    scenarios: &[Scenario],
) -> Result<Running> {
    let target = started.targets.first().context("no server to measure")?;
    let mut answers = Vec::new();
    for (at, scenario) in scenarios.iter().enumerate() {
        let (status, body) = scenario.send(&target.addresses(scenario)[0], &started.token)?;
        if status != 200 {
            bail!("{}: core-server answered {status}: {body}", scenario.name);
        }
        answers.push(
            json!({"path": format!("/floor/{at}"), "contentType": scenario.accept, "body": body}),
        );
    }
    let answers_file: PathBuf = folder.join("answers.json");
    std::fs::write(&answers_file, Value::Array(answers).to_string())?;
    let address = free_address()?;
    let floor = Running::start(
        pinned(taskset, "0", &root.join("target/release/bench-floor"))
            .arg(&address)
            .arg(&answers_file)
            .stdout(Stdio::null())
            .stderr(Stdio::null()),
        address,
    )?;
    wait_listening(&floor.address)?;
    Ok(floor)
}
