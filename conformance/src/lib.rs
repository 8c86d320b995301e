//! The checks of the Core Interface v1, runnable against any deployment: every operation of the
//! document, its rules and item messages, each representation it lists, its error bodies and 401
//! without a valid token. The `core-conformance` binary runs them against a base URL; the
//! contract tests run the same checks against the servers they start (one source).
//!
//! A run needs the fixture ([`FIXTURE`], `core-conformance fixture`) loaded into the server under
//! test. Checks that write name their records with the run's unique prefix ([`Target::unique`])
//! and delete them again where the interface can (see `checks::scenarios`). Request bodies are built
//! from [`bodies`], which the contract tests share.

pub mod bodies;
pub mod checks;
pub mod exchange;
pub mod judge;
pub mod report;
pub mod said;
pub mod xml_schema;

use std::{
    sync::{
        Arc, Mutex,
        atomic::{AtomicU64, Ordering},
    },
    time::{Duration, Instant},
};

use core_api_support::Operation;
use futures_util::future::BoxFuture;

pub use exchange::{Answer, Call};
use xml_schema::{XmlBody, XmlSchema};

/// The fixture the checks read: a bootstrap document (`core-server import`), every record named
/// with the prefix `CF-` or under `/core-conformance`, plus the roles `core-conformance-limited`
/// and `core-conformance-insiders`. Loading it again restores what a run deleted.
pub const FIXTURE: &str = include_str!("../fixture.json");

/// The role of the limited caller (`--limited-token`): it may call the Common, PEO and DAM
/// operations only, and sees no record restricted to `core-conformance-insiders`.
pub const LIMITED_ROLE: &str = "core-conformance-limited";

/// The server under test and how to reach it.
pub struct Target {
    base: String,
    token: String,
    limited: Option<String>,
    glossary: Option<i64>,
    rate_limited: bool,
    client: reqwest::Client,
    run: String,
    counter: AtomicU64,
    xml_schema: Option<XmlSchema>,
    /// The XML bodies of the running check, for the schema.
    exchanged: Mutex<Vec<XmlBody>>,
    /// How many XML bodies the schema held so far.
    xml_checked: AtomicU64,
}

impl Target {
    /// A target at a base URL (`http://host:port`, without `/api/core/v1`), called with a token
    /// that may call every operation and see every record, and optionally a token of
    /// [`LIMITED_ROLE`].
    pub fn new(base_url: &str, token: &str, limited: Option<&str>) -> Result<Target, TargetError> {
        let client = reqwest::Client::builder()
            .timeout(Duration::from_secs(60))
            .build()
            .map_err(|error| TargetError(error.to_string()))?;
        let base = base_url.trim_end_matches('/').to_string();
        if !(base.starts_with("http://") || base.starts_with("https://")) {
            return Err(TargetError(format!(
                "the base URL must start with http:// or https://, not {base_url:?}"
            )));
        }
        let run = uuid::Uuid::new_v4().simple().to_string();
        Ok(Target {
            base,
            token: token.to_string(),
            limited: limited.map(str::to_string),
            glossary: None,
            rate_limited: false,
            client,
            run: format!("cf{}", &run[..10]),
            counter: AtomicU64::new(0),
            xml_schema: None,
            exchanged: Mutex::new(Vec::new()),
            xml_checked: AtomicU64::new(0),
        })
    }

    /// A name no other run and no other check of this run uses: `cf<10 hex>-<n>`.
    pub fn unique(&self) -> String {
        format!(
            "{}-{}",
            self.run,
            self.counter.fetch_add(1, Ordering::Relaxed)
        )
    }

    /// The URL of a path.
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// Gives the numeric id of the fixture's glossary `CF-GL-2` on the server under test (the
    /// interface has no operation that reveals it), for the copy and move checks.
    pub fn with_glossary_id(mut self, id: Option<i64>) -> Target {
        self.glossary = id;
        self
    }

    /// Says that the deployment limits the requests of a caller (`--rate-limited`), so that the
    /// check of 429 runs.
    pub fn with_rate_limit(mut self, limited: bool) -> Target {
        self.rate_limited = limited;
        self
    }

    /// Holds every XML body a check exchanges (the requests the server took, every answer) to
    /// the XML Schema: a body it refuses fails the check.
    pub fn with_xml_schema(mut self, schema: XmlSchema) -> Target {
        self.xml_schema = Some(schema);
        self
    }

    /// How many XML bodies the checks run so far exchanged and the XML Schema held; `None`
    /// without a schema.
    pub fn xml_checked(&self) -> Option<u64> {
        self.xml_schema
            .as_ref()
            .map(|_| self.xml_checked.load(Ordering::Relaxed))
    }

    /// Keeps an XML body of the running check for the schema, when there is one.
    pub(crate) fn exchanged(&self, body: XmlBody) {
        if self.xml_schema.is_some()
            && let Ok(mut exchanged) = self.exchanged.lock()
        {
            exchanged.push(body);
        }
    }

    /// The running check's XML bodies checked against the schema: a failure naming those it
    /// refuses.
    fn check_exchanged(&self) -> Checked {
        let bodies = match self.exchanged.lock() {
            Ok(mut exchanged) => std::mem::take(&mut *exchanged),
            Err(_) => return Ok(()),
        };
        let Some(schema) = &self.xml_schema else {
            return Ok(());
        };
        self.xml_checked
            .fetch_add(bodies.len() as u64, Ordering::Relaxed);
        let invalid = schema
            .check(&bodies)
            .map_err(|error| Fail::because(format!("the XML Schema check did not run: {error}")))?;
        match invalid.first() {
            None => Ok(()),
            Some(first) => Err(Fail::because(format!(
                "{} XML bodies are not valid against {}; the first, {}:{}",
                invalid.len(),
                core_api::document::XSD_NAME,
                first.what,
                first.errors
            ))),
        }
    }

    /// Nothing when the deployment limits requests, else why the check of 429 is skipped.
    pub fn rate_limited(&self) -> Result<(), Fail> {
        if self.rate_limited {
            Ok(())
        } else {
            Err(Fail::Skipped(
                "needs --rate-limited (the deployment limits each caller's requests)".into(),
            ))
        }
    }

    /// The id of `CF-GL-2`, or why a check needing it is skipped.
    pub fn glossary_id(&self) -> Result<i64, Fail> {
        self.glossary.ok_or_else(|| {
            Fail::Skipped(
                "needs --glossary-id (the numeric id of the fixture's glossary CF-GL-2 on the server)"
                    .into(),
            )
        })
    }

    /// The token of the limited caller, or why a check needing it is skipped.
    pub fn limited(&self) -> Result<&str, Fail> {
        self.limited.as_deref().ok_or_else(|| {
            Fail::Skipped(
                "needs --limited-token (a token of the role core-conformance-limited)".into(),
            )
        })
    }
}

/// A target that cannot be used.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct TargetError(pub String);

/// Why a check did not pass.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fail {
    /// The server did not behave as the document says.
    Failed(String),
    /// The check could not run here (what it needs is missing).
    Skipped(String),
}

impl Fail {
    /// A failure with a reason.
    pub fn because(reason: impl Into<String>) -> Fail {
        Fail::Failed(reason.into())
    }
}

/// What a check's body returns.
pub type Checked = Result<(), Fail>;

/// The body of a check: run once against a target.
pub type Body = Box<dyn Fn(Arc<Target>) -> BoxFuture<'static, Checked> + Send + Sync>;

/// What a check looks at, for the summary and for choosing checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// 401 without a valid token, 403 to a caller without access.
    Access,
    /// An answer in each representation the operation lists, a request in each it reads.
    Representations,
    /// The envelope of a message answer: `schemaVersion` and `meta`.
    Envelope,
    /// Error answers: status and body for malformed input and unlisted media types.
    Errors,
    /// A rule or an item message the operation's description states.
    Messages,
    /// Headers every answer carries (`X-Content-Type-Options: nosniff`).
    Headers,
    /// Safe retries: an `Idempotency-Key` replay, the key reused for another request.
    Retries,
    /// The deployment's bounds: 429 with `Retry-After` beyond the rate limit.
    Limits,
}

/// One check of one operation.
pub struct Check {
    /// `operationId: what is checked`, unique among the checks.
    pub name: String,
    /// The operation it checks.
    pub operation: &'static Operation,
    /// What it looks at.
    pub kind: Kind,
    /// The item messages of the operation's description it asserts (templates, as stated).
    pub says: Vec<&'static str>,
    body: Body,
}

impl Check {
    /// A check named `<operationId>: <what>`.
    pub fn new(
        operation: &'static Operation,
        kind: Kind,
        what: impl AsRef<str>,
        body: impl Fn(Arc<Target>) -> BoxFuture<'static, Checked> + Send + Sync + 'static,
    ) -> Check {
        Check {
            name: format!("{}: {}", operation.id, what.as_ref()),
            operation,
            kind,
            says: Vec::new(),
            body: Box::new(body),
        }
    }

    /// Declares the item messages it asserts.
    pub fn says(mut self, messages: &[&'static str]) -> Check {
        self.says.extend_from_slice(messages);
        self
    }

    /// The specification module of its operation (`Common`, `CM`, `PIM`, `PEO`, `DAM`).
    pub fn module(&self) -> &'static str {
        self.operation.module
    }
}

/// The outcome of one check.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The check's name.
    pub name: String,
    /// Its operation.
    pub operation: &'static Operation,
    /// What it looked at.
    pub kind: Kind,
    /// The messages it asserted (counted when it passed).
    pub says: Vec<&'static str>,
    /// `Ok` when it passed.
    pub result: Checked,
    /// How long it took.
    pub took: Duration,
}

/// Runs checks one after another (a check may depend on records it wrote, never on another
/// check), calling `each` with every outcome as it comes.
pub async fn run(
    target: Arc<Target>,
    checks: &[Check],
    mut each: impl FnMut(&Outcome),
) -> Vec<Outcome> {
    let mut outcomes = Vec::with_capacity(checks.len());
    for check in checks {
        let started = Instant::now();
        let result = (check.body)(target.clone()).await;
        let schema = target.check_exchanged();
        let result = if result.is_ok() { schema } else { result };
        let outcome = Outcome {
            name: check.name.clone(),
            operation: check.operation,
            kind: check.kind,
            says: check.says.clone(),
            result,
            took: started.elapsed(),
        };
        each(&outcome);
        outcomes.push(outcome);
    }
    outcomes
}
