//! The load generator: wrk (installed from Debian's packages when missing), its Lua script for a
//! scenario, one run, and the spread of a figure over the rounds.

use std::{
    path::{Path, PathBuf},
    process::Command,
};

use anyhow::{Context, Result, bail};

use super::scenarios::Scenario;

/// Connections wrk keeps open, spread over its threads.
pub const CONNECTIONS: u32 = 64;

/// What wrk measured once.
#[derive(Debug, Clone, Copy)]
pub struct Run {
    /// Requests per second.
    pub rps: f64,
    /// The median latency.
    pub p50_ms: f64,
    /// The 99th percentile latency.
    pub p99_ms: f64,
    /// Requests answered.
    pub requests: u64,
    /// Answers other than 2xx and 3xx, and socket errors (timeouts included).
    pub errors: u64,
}

/// The share of requests that failed, above which a run is refused as measuring something else.
const MOST_ERRORS: f64 = 0.01;

/// The minimum, median and maximum of a figure over the rounds.
pub fn spread(runs: &[Run], figure: impl Fn(&Run) -> f64) -> (f64, f64, f64) {
    let mut values: Vec<f64> = runs.iter().map(figure).collect();
    values.sort_by(f64::total_cmp);
    match values.as_slice() {
        [] => (f64::NAN, f64::NAN, f64::NAN),
        [first, ..] => (*first, values[values.len() / 2], values[values.len() - 1]),
    }
}

/// wrk: on the path, or installed from Debian's packages.
pub fn installed() -> Result<PathBuf> {
    crate::debian::Tool {
        path: "/usr/bin/wrk",
        package: "wrk",
    }
    .installed("bench-http")
}

/// A command run pinned to a core when `taskset` exists.
pub fn pinned(taskset: bool, core: &str, program: &Path) -> Command {
    if taskset {
        let mut command = Command::new("taskset");
        command.args(["-c", core]).arg(program);
        command
    } else {
        Command::new(program)
    }
}

/// wrk's script for a scenario: method, headers, body. Each thread is numbered (`setup`); with
/// several addresses, threads are given to them in turn (`thread.addr`), so one wrk measures every
/// instance at once. A persist scenario makes its names unique per request and thread.
pub fn script(scenario: &Scenario, token: &str, addresses: &[String]) -> String {
    let quoted = |text: &str| serde_json::to_string(text).unwrap_or_default();
    let mut script = format!(
        "wrk.method = \"POST\"\nwrk.headers[\"Authorization\"] = {}\nwrk.headers[\"Content-Type\"] = {}\nwrk.headers[\"Accept\"] = {}\n",
        quoted(&format!("Bearer {token}")),
        quoted(scenario.content_type),
        quoted(scenario.accept)
    );
    let ports: Vec<String> = addresses
        .iter()
        .map(|address| quoted(address.rsplit(':').next().unwrap_or_default()))
        .collect();
    let spread = if ports.len() > 1 {
        "  thread.addr = wrk.lookup(\"127.0.0.1\", ports[(threads - 1) % #ports + 1])[1]\n"
    } else {
        ""
    };
    script.push_str(&format!(
        "local ports = {{{}}}\nlocal threads = 0\nsetup = function(thread)\n  threads = threads + 1\n{spread}  thread:set(\"thread_id\", threads)\nend\n",
        ports.join(", ")
    ));
    if scenario.persists {
        script.push_str(&format!(
            "local body = {}\nlocal counter = 0\nlocal prefix = tostring(os.time())\nrequest = function()\n  counter = counter + 1\n  local unique = string.gsub(body, \"NAME%-\", \"n\" .. prefix .. \"-\" .. tostring(thread_id or 0) .. \"-\" .. counter .. \"-\")\n  return wrk.format(nil, nil, nil, unique)\nend\n",
            quoted(&scenario.body)
        ));
    } else {
        script.push_str(&format!("wrk.body = {}\n", quoted(&scenario.body)));
    }
    script
}

/// How wrk is run: where it is, where it runs, its threads and the duration of a run.
pub struct Load<'a> {
    /// The wrk binary.
    pub wrk: &'a Path,
    /// Whether to pin wrk to core 1.
    pub taskset: bool,
    /// wrk's threads (`-t`).
    pub threads: usize,
    /// The duration of the run.
    pub seconds: u32,
}

impl Load<'_> {
    /// Runs wrk once against `address` + `path` with `script`.
    pub fn measure(&self, script: &Path, address: &str, path: &str) -> Result<Run> {
        let output = pinned(self.taskset, "1", self.wrk)
            .args(["-t", &self.threads.to_string()])
            .args(["-c", &CONNECTIONS.to_string()])
            .args(["-d", &format!("{}s", self.seconds), "--latency", "-s"])
            .arg(script)
            .arg(format!("http://{address}{path}"))
            .output()
            .context("running wrk")?;
        let text = String::from_utf8_lossy(&output.stdout);
        if !output.status.success() {
            bail!("wrk against {address}{path}: {text}");
        }
        let run =
            parse(&text).with_context(|| format!("wrk against {address}{path} printed: {text}"))?;
        if run.errors > 0 {
            eprintln!(
                "bench-http: {} of {} requests failed: {text}",
                run.errors, run.requests
            );
        }
        if run.errors as f64 > run.requests as f64 * MOST_ERRORS {
            bail!("wrk against {address}{path}: more than 1% of the requests failed: {text}");
        }
        Ok(run)
    }
}

/// The figures of wrk's `--latency` output.
fn parse(text: &str) -> Result<Run> {
    let field = |prefix: &str| -> Option<&str> {
        text.lines()
            .map(str::trim)
            .find_map(|line| line.strip_prefix(prefix))
            .map(str::trim)
    };
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
    let count = |value: &str| value.trim_end_matches(',').parse::<u64>().ok();
    let requests = text
        .lines()
        .find_map(|line| line.trim().split_once(" requests in "))
        .and_then(|(number, _)| count(number))
        .context("no request count")?;
    // "Socket errors: connect 0, read 0, write 0, timeout 1"
    let socket: u64 =
        field("Socket errors:").map_or(0, |line| line.split_whitespace().filter_map(count).sum());
    let refused = field("Non-2xx or 3xx responses:")
        .and_then(count)
        .unwrap_or(0);
    Ok(Run {
        rps: field("Requests/sec:")
            .and_then(|value| value.parse().ok())
            .context("no Requests/sec")?,
        p50_ms: field("50%").and_then(millis).context("no p50")?,
        p99_ms: field("99%").and_then(millis).context("no p99")?,
        requests,
        errors: socket + refused,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_figures_of_wrk() {
        let text = "  Latency Distribution\n     50%    1.50ms\n     75%    2.00ms\n     90%    3.00ms\n     99%  120.00us\n  4615 requests in 5.06s, 9.07MB read\n  Socket errors: connect 0, read 1, write 0, timeout 2\n  Non-2xx or 3xx responses: 3\nRequests/sec:  12345.67\n";
        let run = parse(text).map_err(|error| error.to_string());
        let run = run
            .as_ref()
            .map(|run| (run.rps, run.p50_ms, run.p99_ms, run.requests, run.errors));
        assert_eq!(run, Ok((12345.67, 1.5, 0.12, 4615, 6)));
    }

    #[test]
    fn gives_threads_to_every_instance() {
        let scenario = &super::super::scenarios::all()[5];
        let addresses = ["127.0.0.1:4001".to_string(), "127.0.0.1:4002".to_string()];
        let script = script(scenario, "t.s", &addresses);
        assert!(
            script.contains("local ports = {\"4001\", \"4002\"}"),
            "{script}"
        );
        assert!(script.contains("thread.addr"), "{script}");
        let one = super::script(scenario, "t.s", &addresses[..1]);
        assert!(one.contains("thread:set(\"thread_id\", threads)"), "{one}");
        assert!(!one.contains("thread.addr"), "{one}");
    }
}
