//! Floods against the server with every default: many quick requests from one caller, with a
//! good token, an unknown one, many unknown ones, or none at all, and health checks.

use std::{
    collections::BTreeMap,
    time::{Duration, Instant},
};

use super::{Case, Outcome, Served, Which, client};

const LOCALES: &str = "/api/core/v1/common/locales/retrieve";

/// How many requests a flood sends.
const REQUESTS: usize = 2_000;
/// Over how many kept-alive connections.
const CONNECTIONS: usize = 8;

/// The flood cases.
pub fn cases() -> Vec<Case> {
    vec![
        Case::new(
            format!("{REQUESTS} requests from one token, {CONNECTIONS} connections"),
            Which::Defaults,
            |server| flood(server, |_| Some(server.token.clone()), LOCALES),
        ),
        Case::new(
            format!("{REQUESTS} requests with one unknown token"),
            Which::Defaults,
            |server| {
                flood(
                    server,
                    |_| Some("0000000000000000.00000000000000000000000000000000".into()),
                    LOCALES,
                )
            },
        ),
        Case::new(
            format!("{REQUESTS} requests with {REQUESTS} different unknown tokens"),
            Which::Defaults,
            |server| {
                flood(
                    server,
                    |index| Some(format!("{index:016x}.00000000000000000000000000000000")),
                    LOCALES,
                )
            },
        ),
        Case::new(
            format!("{REQUESTS} requests without a token"),
            Which::Defaults,
            |server| flood(server, |_| None, LOCALES),
        ),
        Case::new(
            format!("{REQUESTS} health checks"),
            Which::Defaults,
            |server| flood(server, |_| None, "/healthz"),
        ),
    ]
}

/// Sends [`REQUESTS`] requests over [`CONNECTIONS`] connections as fast as answers come, each
/// with the token `token(index)` gives; the statuses counted, and the requests per second.
fn flood(server: &Served, token: impl Fn(usize) -> Option<String>, path: &'static str) -> Outcome {
    let started = Instant::now();
    let per = REQUESTS / CONNECTIONS;
    let threads: Vec<_> = (0..CONNECTIONS)
        .map(|thread| {
            let address = server.address.clone();
            let tokens: Vec<Option<String>> =
                (thread * per..(thread + 1) * per).map(&token).collect();
            std::thread::spawn(move || -> (BTreeMap<String, usize>, Option<String>) {
                let mut statuses = BTreeMap::new();
                let mut retry_after = None;
                let mut connection = None;
                for token in tokens {
                    let open = match connection.take() {
                        Some(open) => Ok(open),
                        None => client::Connection::open(&address, Duration::from_secs(30)),
                    };
                    let Ok(mut open) = open else {
                        *statuses.entry("no connection".into()).or_insert(0) += 1;
                        continue;
                    };
                    let authorization = token.map(|token| format!("Bearer {token}"));
                    let mut headers = vec![("Content-Type", "application/json")];
                    if let Some(authorization) = &authorization {
                        headers.push(("Authorization", authorization));
                    }
                    let reply = if path == LOCALES {
                        open.post(path, &headers, br#"{"mode":"ALL"}"#)
                    } else {
                        open.get(path, &[])
                    };
                    match reply {
                        Ok(reply) => {
                            if reply.status == 429 {
                                retry_after = reply.header("retry-after").map(str::to_string);
                            }
                            *statuses.entry(reply.status.to_string()).or_insert(0) += 1;
                            if reply.header("connection") != Some("close") {
                                connection = Some(open);
                            }
                        }
                        Err(error) => {
                            *statuses.entry(format!("{:?}", error.kind())).or_insert(0) += 1;
                        }
                    }
                }
                (statuses, retry_after)
            })
        })
        .collect();
    let mut statuses: BTreeMap<String, usize> = BTreeMap::new();
    let mut retry_after = None;
    for thread in threads {
        if let Ok((counted, retry)) = thread.join() {
            for (status, count) in counted {
                *statuses.entry(status).or_insert(0) += count;
            }
            retry_after = retry_after.or(retry);
        }
    }
    let rate = REQUESTS as f64 / started.elapsed().as_secs_f64();
    let counts: Vec<String> = statuses
        .iter()
        .map(|(status, count)| format!("{count}×{status}"))
        .collect();
    let retry = retry_after
        .map(|seconds| format!(", Retry-After {seconds}"))
        .unwrap_or_default();
    format!("{}{retry}; {rate:.0} requests/s", counts.join(", "))
}
