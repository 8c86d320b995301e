//! The conformance runner's checks (`core-conformance`, one source with this suite) against a
//! server with the runner's fixture, on SQLite and, when `CORE_TEST_POSTGRES_URL` is set,
//! PostgreSQL, every XML body held to the XML Schema; and the proof that the runner catches a
//! deviation: a server made deliberately wrong (`Settings::deviation`) fails exactly the checks
//! the deviation breaks.

use std::{collections::BTreeSet, sync::Arc};

use contract_tests::{TestServer, backends, coverage, fixture, xml_checked};
use core_conformance::{Fail, Kind, LIMITED_ROLE, Outcome, Target, checks, judge, report};
use core_server::{auth, settings::Deviation};

/// Loads the runner's fixture into a server, issues the limited caller's token, runs every
/// check, and records what passed as coverage evidence of this suite.
async fn run(server: &TestServer) -> Vec<Outcome> {
    server
        .load(&fixture(
            serde_json::from_str(core_conformance::FIXTURE).expect("the fixture is JSON"),
        ))
        .await;
    let limited = auth::issue(
        &server.database,
        "core-conformance",
        &[LIMITED_ROLE.to_string()],
    )
    .await
    .expect("a token of the limited role");
    let glossary: i64 = sqlx::query_scalar("SELECT id FROM glossaries WHERE tid = 'CF-GL-2'")
        .fetch_one(server.database.reads())
        .await
        .expect("the fixture's glossary CF-GL-2");
    let mut target = Target::new(&server.url(""), &server.token, Some(&limited))
        .expect("a target")
        .with_glossary_id(Some(glossary));
    if let Some(schema) = xml_checked::schema(&server.xml_namespace) {
        target = target.with_xml_schema(schema);
    }
    let target = Arc::new(target);
    let outcomes = core_conformance::run(target.clone(), &checks::all(), |_| {}).await;
    if let Some(checked) = target.xml_checked() {
        eprintln!(
            "xmllint: the runner's checks exchanged {checked} XML bodies, held to the XML Schema"
        );
    }
    coverage::conformance(&outcomes);
    outcomes
}

/// The name of the check of 429, which runs against a deployment that limits its callers.
const RATE_LIMIT_CHECK: &str =
    "localesRetrieve: 429 with Retry-After beyond the caller's rate limit, then answered again";

fn failed(outcomes: &[Outcome]) -> BTreeSet<String> {
    outcomes
        .iter()
        .filter(|outcome| matches!(outcome.result, Err(Fail::Failed(_))))
        .map(|outcome| outcome.name.clone())
        .collect()
}

async fn every_conformance_check_passes_against_the_fixture() {
    for url in backends("conformance checks").await {
        let server = TestServer::start_on(&url).await;
        let outcomes = run(&server).await;
        let summary = report::summary(&outcomes, judge::published());
        eprintln!("{summary}");
        let (_, whole) = report::tally(&outcomes, judge::published());
        assert_eq!(whole.failed, 0, "{summary}");
        // Only the check of 429: this server sets no rate limit (the next test turns it on).
        let skipped: Vec<&str> = outcomes
            .iter()
            .filter(|outcome| matches!(outcome.result, Err(Fail::Skipped(_))))
            .map(|outcome| outcome.name.as_str())
            .collect();
        assert_eq!(skipped, [RATE_LIMIT_CHECK], "{summary}");
        assert_eq!(
            whole.operations_passed,
            core_api::operations::ALL.len(),
            "{summary}"
        );
        // Every item message a description states is asserted by a passing check.
        assert_eq!(whole.messages_asserted, whole.messages, "{summary}");
        // A second run on the same data passes too: checks write under names of their own run.
        let again = run(&server).await;
        assert!(failed(&again).is_empty(), "{:?}", failed(&again));
        server.stop().await;
    }
}

/// Against a server that limits its callers, the check of 429 passes (and the checks after it
/// are not held up: it waits the limit out).
async fn the_rate_limit_check_passes_against_a_limited_server() {
    let server = TestServer::start_with(|settings| {
        settings.rate_limit = core_server::settings::RateLimit {
            per_second: 20,
            burst: 40,
        };
    })
    .await;
    let target = Target::new(&server.url(""), &server.token, None)
        .expect("a target")
        .with_rate_limit(true);
    let checks: Vec<_> = checks::all()
        .into_iter()
        .filter(|check| check.kind == Kind::Limits)
        .collect();
    assert_eq!(checks.len(), 1);
    let outcomes = core_conformance::run(Arc::new(target), &checks, |_| {}).await;
    assert!(
        outcomes.iter().all(|outcome| outcome.result.is_ok()),
        "{:?}",
        outcomes
            .iter()
            .map(|outcome| &outcome.result)
            .collect::<Vec<_>>()
    );
    assert_eq!(outcomes[0].name, RATE_LIMIT_CHECK);
    server.stop().await;
}

async fn the_runner_fails_exactly_the_checks_a_deviation_breaks() {
    let all = checks::all();
    let envelope: BTreeSet<String> = all
        .iter()
        .filter(|check| check.kind == Kind::Envelope)
        .map(|check| check.name.clone())
        .collect();
    assert_eq!(
        envelope.len(),
        19,
        "one envelope check per operation answering a message"
    );
    let headers: BTreeSet<String> = all
        .iter()
        .filter(|check| check.kind == Kind::Headers)
        .map(|check| check.name.clone())
        .collect();
    assert_eq!(headers.len(), core_api::operations::ALL.len());
    // Only the XML Schema sees this one: every other check reads XML in any order.
    let xml_schema = match xml_checked::default_schema() {
        Some(_) => BTreeSet::from([
            "localesRetrieve: answers in application/xml; charset=UTF-8".to_string()
        ]),
        None => BTreeSet::new(),
    };
    let deviations = [
        (Deviation::DropMeta, envelope),
        (Deviation::XmlOutOfOrder, xml_schema),
        (Deviation::Sniffable, headers),
        (
            Deviation::WrongSuccessText,
            BTreeSet::from([
                "keywordsPersist: creates a keyword".to_string(),
                "keywordsPersist: refuses a path longer than 1024 characters".to_string(),
            ]),
        ),
    ];
    for (deviation, expected) in deviations {
        let server = TestServer::start_with(|settings| settings.deviation = Some(deviation)).await;
        let outcomes = run(&server).await;
        assert_eq!(failed(&outcomes), expected, "{deviation:?}");
        if deviation == Deviation::XmlOutOfOrder {
            let reasons: Vec<&Result<(), Fail>> = outcomes
                .iter()
                .map(|outcome| &outcome.result)
                .filter(|result| matches!(result, Err(Fail::Failed(_))))
                .collect();
            assert!(
                reasons
                    .iter()
                    .all(|result| matches!(result, Err(Fail::Failed(reason))
                    if reason.contains(core_api::document::XSD_NAME) && reason.contains("meta"))),
                "{reasons:?}"
            );
        }
        server.stop().await;
    }
}

contract_tests::trials!(
    every_conformance_check_passes_against_the_fixture,
    the_rate_limit_check_passes_against_a_limited_server,
    the_runner_fails_exactly_the_checks_a_deviation_breaks,
);
