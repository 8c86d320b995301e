//! The answer snapshots of every implemented operation over HTTP, on the demo catalogue, on SQLite
//! and (when `CORE_TEST_POSTGRES_URL` is set) PostgreSQL alike: each resource's test file lists
//! [`Scenario`]s that make its operations say their item-level messages, and [`take`] snapshots
//! each answer in every representation the operation answers in, in the `snapshots/` folder of
//! the operation's module (`pim/snapshots/`, …). A file registers its scenarios
//! ([`Scenarios`]); no list names the files. An implemented operation without a scenario
//! fails [`every_implemented_operation_has_answer_scenarios`]. Generated ids, tids and
//! timestamps are redacted (`[generated]`); the server never fakes them.

use std::path::PathBuf;

use contract_tests::{
    TestServer, backends, coverage, fixture, operations, redact_json, redact_xml,
};
use core_api_support::{Operation, Representation};
use serde_json::{Value, json};

/// A token of the demo's role `editor` (Common, PIM, DAM), which holds no restricted record.
pub(crate) const EDITOR: &str = "ed170ed170ed170e.ed170ed170ed170ed170ed170ed170ed1";

/// One exchange whose answer is snapshotted.
pub(crate) struct Scenario {
    /// The snapshot's name (with the module and the representation around it).
    name: &'static str,
    /// The operation called.
    operation: &'static Operation,
    /// The caller's token (`None`: admin).
    token: Option<&'static str>,
    /// The body, or for an operation taking query parameters, the query as a string.
    body: Value,
}

impl Scenario {
    /// An exchange of `operation` by the admin.
    pub(crate) fn new(name: &'static str, operation: &'static Operation, body: Value) -> Scenario {
        Scenario {
            name,
            operation,
            token: None,
            body,
        }
    }

    /// The same exchange by another caller.
    pub(crate) fn token(self, token: &'static str) -> Scenario {
        Scenario {
            token: Some(token),
            ..self
        }
    }
}

/// Where the snapshots of an operation's answers are: beside its module's tests.
fn snapshots(operation: &Operation) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/contract")
        .join(operation.module.to_ascii_lowercase())
        .join("snapshots")
}

/// Snapshots the answers of `scenarios`, each on a fresh demo catalogue, in every representation.
pub(crate) async fn take(scenarios: &[Scenario]) {
    let editor = fixture(json!({
        "roles": [{"name": "editor", "modules": ["Common", "PIM", "DAM", "PEO"]}],
        "tokens": [{"user": "editor", "roles": ["editor"], "token": EDITOR}]
    }));
    let mut taken = 0;
    // The same snapshots hold on every backend: what differs (ids, times) is redacted.
    for url in backends("answer snapshots").await {
        for Scenario {
            name: scenario,
            operation,
            token,
            body,
        } in scenarios
        {
            for media in operation.response.media {
                // A fresh catalogue per exchange: persist answers differ once the data is there.
                let server = TestServer::start_with_demo(&url).await;
                server.load(&editor).await;
                let mut call = server
                    .call(operation)
                    .token(token.unwrap_or(&server.token))
                    .accept(media.representation);
                if let Some(query) = body.as_str() {
                    call = call.query(query);
                } else if operation.request.is_some() {
                    call = call.json(body);
                }
                let answer = call.send().await;
                let header = |name: &str| {
                    answer
                        .headers
                        .get(name)
                        .and_then(|value| value.to_str().ok())
                        .unwrap_or_default()
                        .to_string()
                };
                let (suffix, shown, value) = match media.representation {
                    Representation::Xml => ("xml", redact_xml(&answer.text), None),
                    Representation::Binary => {
                        let shown = [
                            "content-length",
                            "content-disposition",
                            "etag",
                            "accept-ranges",
                        ]
                        .iter()
                        .map(|name| format!("{name}: {}", header(name)))
                        .chain(std::iter::once(format!("{} bytes", answer.bytes.len())))
                        .collect::<Vec<_>>()
                        .join("\n");
                        ("bin", shown, None)
                    }
                    representation => {
                        let mut value: Value = serde_json::from_str(&answer.text).expect("JSON");
                        redact_json(&mut value);
                        let pretty = serde_json::to_string_pretty(&value).expect("JSON");
                        let suffix = if representation == Representation::Compact {
                            "compact"
                        } else {
                            "json"
                        };
                        (suffix, pretty, Some(value))
                    }
                };
                let name = format!(
                    "{}__{scenario}__{suffix}",
                    operation.module.to_ascii_lowercase()
                );
                let folder = snapshots(operation);
                insta::with_settings!({snapshot_path => folder, prepend_module_to_snapshot => false, omit_expression => true}, {
                    insta::assert_snapshot!(name, format!("{} {}\n{shown}", answer.status, media.name));
                });
                if let Some(value) = &value {
                    coverage::snapshotted(operation, value);
                }
                taken += 1;
                server.stop().await;
            }
        }
    }
    eprintln!("{taken} snapshots of answers");
}

/// The answer scenarios of one resource's file, registered there with `inventory::submit!`: the
/// suite finds every file's scenarios without a list naming the files.
pub(crate) struct Scenarios(pub(crate) fn() -> Vec<Scenario>);

inventory::collect!(Scenarios);

/// Every scenario of every file.
fn all() -> Vec<Scenario> {
    inventory::iter::<Scenarios>
        .into_iter()
        .flat_map(|Scenarios(scenarios)| scenarios())
        .collect()
}

async fn every_implemented_operation_has_answer_scenarios() {
    let scenarios = all();
    // Every implemented operation has its scenarios: a new one fails here until it has.
    for operation in operations::implemented().await {
        assert!(
            scenarios
                .iter()
                .any(|scenario| std::ptr::eq(scenario.operation, operation)),
            "{} is implemented but has no snapshot scenario",
            operation.id
        );
    }
}

contract_tests::trials!(every_implemented_operation_has_answer_scenarios,);
