//! `cargo xtask bench-http [--rounds N] [--seconds S] [--prism]`: the load benchmark of the request
//! path.
//! It builds core-server and the floor (`crates/bench-floor`, a bare poem server answering the
//! same bodies) in release, starts core-server on the demo catalogue (a second one on its own
//! database for the persist scenario, which grows its data) and the floor with the answers
//! core-server gave, pins the servers to core 0 and the load generator (wrk, installed from
//! Debian's packages when missing) to core 1 where `taskset` exists, and runs each scenario
//! against each server in interleaved rounds. It prints, per scenario, requests per second
//! (min/median/max over the rounds), the median p50 and p99 latencies, and the ratio of
//! core-server's median to the floor's. With `--prism` it also runs the keyword retrieve against a
//! Stoplight Prism mock of the document (npm `@stoplight/prism-cli`, installed under
//! `target/bench-http-prism`), the reference the issue compares with.

use std::{
    io::{Read, Write},
    net::TcpStream,
    path::{Path, PathBuf},
    process::{Command, Stdio},
};

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};

use crate::server::{self, Running, free_address, wait_listening};

/// Connections wrk keeps open.
const CONNECTIONS: u32 = 64;

/// One exchange measured.
struct Scenario {
    name: &'static str,
    path: &'static str,
    content_type: &'static str,
    accept: &'static str,
    body: String,
    /// The body grows a data set (persist): sent to the second core-server, with a unique name
    /// per request made by wrk's script.
    persists: bool,
}

fn scenarios() -> Vec<Scenario> {
    let kwd: Vec<Value> = (0..24)
        .map(|at| json!({"id": at, "path": format!("/Season/Keyword{at:02}"), "name": {"itm": [{"value": format!("Keyword {at:02}")}, {"value": format!("Schlagwort {at:02}"), "loc": "de_DE"}]}}))
        .collect();
    let transform =
        json!({"meta": {"itm": [{"key": "sourceEnv", "value": "bench"}]}, "kwds": {"kwd": kwd}});
    let persist: Vec<Value> = (0..10)
        .map(|at| json!({"parentPath": "/Season", "name": {"itm": [{"value": format!("NAME-{at}")}]}}))
        .collect();
    vec![
        Scenario {
            name: "keywords retrieve, JSON",
            path: "/api/core/v1/common/keywords/retrieve",
            content_type: "application/json",
            accept: "application/json",
            body: r#"{"path":"/","level":-1}"#.to_string(),
            persists: false,
        },
        Scenario {
            name: "keywords retrieve, XML",
            path: "/api/core/v1/common/keywords/retrieve",
            content_type: "application/json",
            accept: "application/xml",
            body: r#"{"path":"/","level":-1}"#.to_string(),
            persists: false,
        },
        Scenario {
            name: "transform 2 KB JSON → XML",
            path: "/api/core/v1/common/transform",
            content_type: "application/json",
            accept: "application/xml",
            body: transform.to_string(),
            persists: false,
        },
        Scenario {
            name: "locales retrieve",
            path: "/api/core/v1/common/locales/retrieve",
            content_type: "application/json",
            accept: "application/json",
            body: r#"{"mode":"ALL"}"#.to_string(),
            persists: false,
        },
        Scenario {
            name: "keywords persist, 10 items",
            path: "/api/core/v1/common/keywords/persist",
            content_type: "application/json",
            accept: "application/json",
            body: json!({"kwds": {"kwd": persist}}).to_string(),
            persists: true,
        },
        Scenario {
            name: "classes retrieve with nodes",
            path: "/api/core/v1/pim/classes/retrieve",
            content_type: "application/json",
            accept: "application/json",
            body: r#"{"tids":["Apparel"],"withNodes":true}"#.to_string(),
            persists: false,
        },
        Scenario {
            name: "channels retrieve",
            path: "/api/core/v1/cm/channels/retrieve",
            content_type: "application/json",
            accept: "application/json",
            body: r#"{"tids":["CAT-2027","CAT-2027-SHIRTS-P1","WEB-SHOP"]}"#.to_string(),
            persists: false,
        },
    ]
}

/// What wrk measured once.
#[derive(Debug, Clone, Copy)]
struct Run {
    rps: f64,
    p50_ms: f64,
    p99_ms: f64,
}

/// Runs the benchmark.
pub fn run(root: &Path, arguments: &[&str]) -> Result<()> {
    let mut rounds = 3usize;
    let mut seconds = 5u32;
    let mut prism = false;
    let mut rest = arguments.iter();
    while let Some(argument) = rest.next() {
        match *argument {
            "--rounds" => rounds = rest.next().context("--rounds N")?.parse()?,
            "--seconds" => seconds = rest.next().context("--seconds S")?.parse()?,
            "--prism" => prism = true,
            other => bail!("bench-http: unknown argument {other}"),
        }
    }
    let wrk = wrk()?;
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let built = Command::new(cargo)
        .args([
            "build",
            "--release",
            "--quiet",
            "-p",
            "core-server",
            "-p",
            "bench-floor",
        ])
        .current_dir(root)
        .status()
        .context("cargo build --release")?;
    if !built.success() {
        bail!("cargo build --release failed");
    }
    let taskset = Path::new("/usr/bin/taskset").exists();
    if !taskset {
        eprintln!("bench-http: taskset is missing; servers and wrk share the cores");
    }
    let folder = root.join("target/bench-http");
    if folder.exists() {
        std::fs::remove_dir_all(&folder)?;
    }
    std::fs::create_dir_all(&folder)?;
    let release = root.join("target/release");
    let core_server = || pinned(taskset, "0", &release.join("core-server"));
    let (reader, token) = server::demo(&mut core_server(), &folder.join("read.db"))?;
    let (writer, _) = server::demo(&mut core_server(), &folder.join("write.db"))?;
    let scenarios = scenarios();
    // The floor answers what core-server answered.
    let mut answers = Vec::new();
    for (at, scenario) in scenarios.iter().enumerate() {
        let server = if scenario.persists { &writer } else { &reader };
        let (status, body) = post(&server.address, &token, scenario)?;
        if status != 200 {
            bail!("{}: core-server answered {status}: {body}", scenario.name);
        }
        answers.push(
            json!({"path": format!("/floor/{at}"), "contentType": scenario.accept, "body": body}),
        );
    }
    let answers_file = folder.join("answers.json");
    std::fs::write(&answers_file, Value::Array(answers).to_string())?;
    let floor_address = free_address()?;
    let floor = Running::start(
        pinned(taskset, "0", &release.join("bench-floor"))
            .arg(&floor_address)
            .arg(&answers_file)
            .stdout(Stdio::null())
            .stderr(Stdio::null()),
        floor_address,
    )?;
    wait_listening(&floor.address)?;
    let mut results: Vec<(Vec<Run>, Vec<Run>)> = vec![(Vec::new(), Vec::new()); scenarios.len()];
    for round in 1..=rounds {
        eprintln!("bench-http: round {round} of {rounds}");
        for (at, scenario) in scenarios.iter().enumerate() {
            let server = if scenario.persists { &writer } else { &reader };
            let script = folder.join(format!("scenario-{at}.lua"));
            std::fs::write(&script, lua(scenario, &token))?;
            let ours = measure(
                &wrk,
                taskset,
                seconds,
                &script,
                &server.address,
                scenario.path,
            )?;
            let path = format!("/floor/{at}");
            let floor_run = measure(&wrk, taskset, seconds, &script, &floor.address, &path)?;
            results[at].0.push(ours);
            results[at].1.push(floor_run);
        }
    }
    println!(
        "core-server against the floor (a bare poem handler answering the same bytes): {rounds} rounds of {seconds} s, {CONNECTIONS} connections, wrk pinned to core 1, servers to core 0"
    );
    println!(
        "| scenario | core-server rps min / median / max | p50 | p99 | floor rps min / median / max | floor p50 | floor p99 | ratio |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for (scenario, (ours, floor)) in scenarios.iter().zip(&results) {
        let (ours_rps, floor_rps) = (spread(ours, |run| run.rps), spread(floor, |run| run.rps));
        println!(
            "| {} | {:.0} / {:.0} / {:.0} | {:.2} ms | {:.2} ms | {:.0} / {:.0} / {:.0} | {:.2} ms | {:.2} ms | {:.3} |",
            scenario.name,
            ours_rps.0,
            ours_rps.1,
            ours_rps.2,
            spread(ours, |run| run.p50_ms).1,
            spread(ours, |run| run.p99_ms).1,
            floor_rps.0,
            floor_rps.1,
            floor_rps.2,
            spread(floor, |run| run.p50_ms).1,
            spread(floor, |run| run.p99_ms).1,
            ours_rps.1 / floor_rps.1
        );
    }
    drop((reader, writer, floor));
    if prism {
        let keywords = &scenarios[0];
        let ours = spread(&results[0].0, |run| run.rps).1;
        let mock = prism_rps(
            root, &wrk, taskset, seconds, rounds, &folder, keywords, &token,
        )?;
        println!(
            "| {} against a Prism mock of the document | {ours:.0} | Prism {mock:.0} | {:.1}× Prism |",
            keywords.name,
            ours / mock
        );
    }
    Ok(())
}

/// The median rps of a Stoplight Prism mock of the document answering a scenario, over the
/// rounds (npm installs Prism under `target/bench-http-prism` on first use).
#[allow(clippy::too_many_arguments)]
fn prism_rps(
    root: &Path,
    wrk: &Path,
    taskset: bool,
    seconds: u32,
    rounds: usize,
    folder: &Path,
    scenario: &Scenario,
    token: &str,
) -> Result<f64> {
    let prefix = root.join("target/bench-http-prism");
    let binary = prefix.join("node_modules/.bin/prism");
    if !binary.exists() {
        eprintln!("bench-http: installing @stoplight/prism-cli@5 with npm");
        let installed = Command::new("npm")
            .args(["install", "--no-audit", "--no-fund", "--prefix"])
            .arg(&prefix)
            .arg("@stoplight/prism-cli@5")
            .status()
            .context("npm (Node.js) is needed for --prism")?;
        if !installed.success() {
            bail!("npm install @stoplight/prism-cli@5 failed");
        }
    }
    let address = free_address()?;
    let port = address.rsplit(':').next().unwrap_or_default().to_string();
    let mock = Running::start(
        pinned(taskset, "0", &binary)
            .args(["mock", "--host", "127.0.0.1", "--port", &port])
            .arg(root.join(crate::DOCUMENT_PATH))
            .stdout(Stdio::null())
            .stderr(Stdio::null()),
        address,
    )?;
    wait_listening(&mock.address)?;
    let script = folder.join("prism.lua");
    std::fs::write(&script, lua(scenario, token))?;
    let mut runs = Vec::new();
    for _ in 0..rounds {
        runs.push(measure(
            wrk,
            taskset,
            seconds,
            &script,
            &mock.address,
            scenario.path,
        )?);
    }
    Ok(spread(&runs, |run| run.rps).1)
}

/// The minimum, median and maximum of a figure over the rounds.
fn spread(runs: &[Run], figure: impl Fn(&Run) -> f64) -> (f64, f64, f64) {
    let mut values: Vec<f64> = runs.iter().map(figure).collect();
    values.sort_by(f64::total_cmp);
    (
        values[0],
        values[values.len() / 2],
        values[values.len() - 1],
    )
}

/// wrk: on the path, or installed from Debian's packages.
fn wrk() -> Result<PathBuf> {
    let found = Path::new("/usr/bin/wrk");
    if found.exists() {
        return Ok(found.to_path_buf());
    }
    eprintln!("bench-http: installing wrk (apt-get install wrk)");
    let installed = Command::new("apt-get")
        .args(["install", "-y", "--no-install-recommends", "wrk"])
        .env("DEBIAN_FRONTEND", "noninteractive")
        .status();
    match installed {
        Ok(status) if status.success() && found.exists() => Ok(found.to_path_buf()),
        _ => bail!(
            "wrk is missing and could not be installed (apt-get install wrk, as root, with Debian's package registry reachable)"
        ),
    }
}

/// A command run pinned to a core when `taskset` exists.
fn pinned(taskset: bool, core: &str, program: &Path) -> Command {
    if taskset {
        let mut command = Command::new("taskset");
        command.args(["-c", core]).arg(program);
        command
    } else {
        Command::new(program)
    }
}

/// One request of a scenario to core-server: the status and the body.
fn post(address: &str, token: &str, scenario: &Scenario) -> Result<(u16, String)> {
    let mut stream = TcpStream::connect(address)?;
    write!(
        stream,
        "POST {} HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {token}\r\nContent-Type: {}\r\n\
         Accept: {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{}",
        scenario.path,
        scenario.content_type,
        scenario.accept,
        scenario.body.len(),
        scenario.body
    )?;
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer)?;
    let end = answer
        .windows(4)
        .position(|window| window == b"\r\n\r\n")
        .context("an HTTP head")?;
    let head = String::from_utf8_lossy(&answer[..end]).to_ascii_lowercase();
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|status| status.parse().ok())
        .unwrap_or(0);
    if head.contains("transfer-encoding: chunked") {
        bail!(
            "{}: a chunked answer; the floor needs the whole body",
            scenario.name
        );
    }
    Ok((
        status,
        String::from_utf8_lossy(&answer[end + 4..]).into_owned(),
    ))
}

/// wrk's script for a scenario: method, headers, body; a persist scenario makes its names unique
/// per request.
fn lua(scenario: &Scenario, token: &str) -> String {
    let quoted = |text: &str| serde_json::to_string(text).unwrap_or_default();
    let headers = format!(
        "wrk.method = \"POST\"\nwrk.headers[\"Authorization\"] = {}\nwrk.headers[\"Content-Type\"] = {}\nwrk.headers[\"Accept\"] = {}\n",
        quoted(&format!("Bearer {token}")),
        quoted(scenario.content_type),
        quoted(scenario.accept)
    );
    if scenario.persists {
        format!(
            "{headers}local body = {}\nlocal counter = 0\nlocal prefix = tostring(os.time())\nrequest = function()\n  counter = counter + 1\n  local unique = string.gsub(body, \"NAME%-\", \"n\" .. prefix .. \"-\" .. counter .. \"-\")\n  return wrk.format(nil, nil, nil, unique)\nend\n",
            quoted(&scenario.body)
        )
    } else {
        format!("{headers}wrk.body = {}\n", quoted(&scenario.body))
    }
}

/// Runs wrk once against `address` + `path`.
fn measure(
    wrk: &Path,
    taskset: bool,
    seconds: u32,
    script: &Path,
    address: &str,
    path: &str,
) -> Result<Run> {
    let output = pinned(taskset, "1", wrk)
        .args([
            "-t",
            "1",
            "-c",
            &CONNECTIONS.to_string(),
            "-d",
            &format!("{seconds}s"),
            "--latency",
            "-s",
        ])
        .arg(script)
        .arg(format!("http://{address}{path}"))
        .output()
        .context("running wrk")?;
    let text = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() || text.contains("Non-2xx") {
        bail!("wrk against {address}{path}: {text}");
    }
    let field = |prefix: &str| -> Option<&str> {
        text.lines()
            .map(str::trim)
            .find_map(|line| line.strip_prefix(prefix))
            .map(str::trim)
    };
    let rps = field("Requests/sec:")
        .and_then(|value| value.parse().ok())
        .context("wrk printed no Requests/sec")?;
    let millis = |value: &str| -> Option<f64> {
        let (number, unit) = value.split_at(value.find(|c: char| c.is_ascii_alphabetic())?);
        let number: f64 = number.parse().ok()?;
        Some(match unit {
            "us" => number / 1e3,
            "ms" => number,
            "s" => number * 1e3,
            _ => return None,
        })
    };
    let p50 = field("50%")
        .and_then(millis)
        .context("wrk printed no p50")?;
    let p99 = field("99%")
        .and_then(millis)
        .context("wrk printed no p99")?;
    Ok(Run {
        rps,
        p50_ms: p50,
        p99_ms: p99,
    })
}
