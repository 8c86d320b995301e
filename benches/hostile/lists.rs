//! Long lists inside one item: request time against list length. The work must grow linearly
//! (10× the entries, at most 12× the time) up to the document's bound, and beyond it the request
//! is refused before any of it is applied.

use std::time::{Duration, Instant};

use super::{Case, Outcome, Served, Which, client};

const KEYWORDS: &str = "/api/core/v1/common/keywords/persist";
const ATTRIBUTES: &str = "/api/core/v1/pim/attributes/persist";
const CHANNELS: &str = "/api/core/v1/cm/channels/persist";

/// The list cases.
pub fn cases() -> Vec<Case> {
    let mut cases = Vec::new();
    // 999 names in locales and the default name are as many as a keyword holds.
    for count in [99, 999, 5_000, 20_000, 40_000] {
        cases.push(Case::new(
            format!("one keyword with {count} names in distinct locales"),
            Which::Bounded,
            move |server| timed(server, KEYWORDS, &names(count)),
        ));
    }
    for count in [1_000, 10_000, 20_000, 40_000] {
        cases.push(Case::new(
            format!("one attribute with {count} domain values"),
            Which::Bounded,
            move |server| timed(server, ATTRIBUTES, &domain_values(count)),
        ));
    }
    for count in [100, 1_000, 5_000, 20_000, 40_000] {
        cases.push(Case::new(
            format!("one channel with {count} values of unregistered attributes"),
            Which::Bounded,
            move |server| timed(server, CHANNELS, &vals(count)),
        ));
    }
    cases
}

/// Posts the body; the answer's status (and the first record's status) and the request time.
fn timed(server: &Served, path: &str, body: &str) -> Outcome {
    let mut connection = match client::Connection::open(&server.address, Duration::from_secs(600)) {
        Ok(connection) => connection,
        Err(error) => return format!("not connected ({})", error.kind()),
    };
    let token = format!("Bearer {}", server.token);
    let started = Instant::now();
    let reply = connection.post(
        path,
        &[
            ("Authorization", &token),
            ("Content-Type", "application/json"),
            ("Accept", "application/json"),
        ],
        body.as_bytes(),
    );
    let took = started.elapsed();
    match reply {
        Ok(reply) => {
            let text = String::from_utf8_lossy(&reply.body);
            let record = ["SUCCESS", "WARNING", "ERROR"]
                .into_iter()
                .find(|status| text.contains(&format!("\"status\":\"{status}\"")))
                .unwrap_or("-");
            format!(
                "{} ({record}), {:.0} ms, body {:.1} MB",
                reply.status,
                took.as_secs_f64() * 1000.0,
                body.len() as f64 / 1e6
            )
        }
        Err(error) => format!("no answer ({})", error.kind()),
    }
}

/// A run-unique suffix, so that a case can be run twice on one database.
fn unique() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|since| since.as_nanos())
        .unwrap_or_default()
}

fn names(count: usize) -> String {
    let mut itm = vec![format!(r#"{{"value":"Names{count}-{}"}}"#, unique())];
    itm.extend((0..count).map(|index| format!(r#"{{"loc":"x{index:06}","value":"n{index}"}}"#)));
    format!(
        r#"{{"kwds":{{"kwd":[{{"parentPath":"/","name":{{"itm":[{}]}}}}]}}}}"#,
        itm.join(",")
    )
}

fn domain_values(count: usize) -> String {
    let values: Vec<String> = (0..count)
        .map(|index| {
            format!(r#"{{"tid":"v{index}","itm":[{{"loc":"en_GB","value":"V{index}"}}]}}"#)
        })
        .collect();
    format!(
        r#"{{"attrs":{{"attr":[{{"nodePath":"/Apparel/Bottoms","key":"fabric","level":"p","inheritance":"visible","restriction":"optional","localized":false,"domainVals":{{"mode":"FULL","domainVal":[{}]}}}}]}}}}"#,
        values.join(",")
    )
}

fn vals(count: usize) -> String {
    let vals: Vec<String> = (0..count)
        .map(|index| format!(r#"{{"attr":"unregistered{index}","itm":[{{"value":"x"}}]}}"#))
        .collect();
    format!(
        r#"{{"projects":{{"project":[{{"tid":"CAT-2027","vals":{{"val":[{}]}}}}]}}}}"#,
        vals.join(",")
    )
}
