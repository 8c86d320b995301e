//! The database away: PostgreSQL stopped under a running server, then started again.

use std::{
    process::Command,
    time::{Duration, Instant},
};

use super::{Case, Outcome, Served, Which, client};

const LOCALES: &str = "/api/core/v1/common/locales/retrieve";

/// Why the PostgreSQL case is skipped.
pub const SKIPPED: &str = "needs CORE_TEST_POSTGRES_URL and pg_ctlcluster";

/// The database URL of the PostgreSQL server, when there is one this bench may stop and start:
/// a fresh schema of `CORE_TEST_POSTGRES_URL`.
pub fn postgres_url() -> Option<String> {
    let url = std::env::var("CORE_TEST_POSTGRES_URL").ok()?;
    cluster()?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .ok()?;
    runtime
        .block_on(core_server::testing::fresh_postgres_schema(&url))
        .ok()
}

/// The version and name of the local cluster `pg_ctlcluster` controls.
fn cluster() -> Option<(String, String)> {
    let version = std::fs::read_dir("/etc/postgresql")
        .ok()?
        .filter_map(Result::ok)
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .next()?;
    Command::new("pg_ctlcluster").arg("--help").output().ok()?;
    Some((version, "main".to_string()))
}

fn control(action: &str) -> bool {
    let Some((version, name)) = cluster() else {
        return false;
    };
    Command::new("pg_ctlcluster")
        .args(["--skip-systemctl-redirect", &version, &name, action])
        .args(if action == "stop" {
            &["-m", "fast"][..]
        } else {
            &[][..]
        })
        .status()
        .is_ok_and(|status| status.success())
}

/// Starts the cluster again when dropped, whatever the case did.
struct Restart;

impl Drop for Restart {
    fn drop(&mut self) {
        control("start");
    }
}

/// The database cases.
pub fn cases() -> Vec<Case> {
    vec![Case::new(
        "PostgreSQL stopped under the server, then started",
        Which::Postgres,
        stopped,
    )]
}

/// One request and its time: status, or how it failed.
fn timed(server: &Served, path: &str) -> String {
    let started = Instant::now();
    let outcome = match client::Connection::open(&server.address, Duration::from_secs(40)) {
        Ok(mut connection) => {
            let token = format!("Bearer {}", server.token);
            let headers = [
                ("Authorization", token.as_str()),
                ("Content-Type", "application/json"),
            ];
            let reply = if path == LOCALES {
                connection.post(path, &headers, br#"{"mode":"ALL"}"#)
            } else {
                connection.get(path, &[])
            };
            match reply {
                Ok(reply) => {
                    let retry = reply
                        .header("retry-after")
                        .map(|seconds| format!(" Retry-After {seconds}"))
                        .unwrap_or_default();
                    format!("{}{retry}", reply.status)
                }
                Err(error) => format!("no answer ({:?})", error.kind()),
            }
        }
        Err(error) => format!("not connected ({:?})", error.kind()),
    };
    format!("{outcome} in {:.2} s", started.elapsed().as_secs_f64())
}

fn stopped(server: &Served) -> Outcome {
    let _restart = Restart;
    let warm = timed(server, LOCALES);
    if !control("stop") {
        return format!("warm {warm}; pg_ctlcluster could not stop the server");
    }
    let locales = timed(server, LOCALES);
    let health = timed(server, "/healthz");
    control("start");
    // The server is back when it answers a connection again.
    let back = Instant::now();
    while back.elapsed() < Duration::from_secs(30)
        && Command::new("pg_isready")
            .args(["-q", "-h", "127.0.0.1"])
            .status()
            .is_ok_and(|status| !status.success())
    {
        std::thread::sleep(Duration::from_millis(100));
    }
    let after = timed(server, LOCALES);
    format!(
        "warm {warm}; stopped: locales {locales}, /healthz {health}; started again: locales {after}"
    )
}
