//! The server's settings, from the command line and the environment.

use std::{net::SocketAddr, time::Duration};

use crate::{local_time::TimeZone, repr::Limits};

/// Everything `core-server serve` is configured with.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The address to listen on.
    pub bind: SocketAddr,
    /// Where the data lives: a `sqlite:` file or a `postgres://` server.
    pub database_url: String,
    /// The XML namespace of message roots (`{xml_namespace}`, D-53).
    pub xml_namespace: String,
    /// The largest request body accepted, in bytes (D-37).
    pub max_body_bytes: usize,
    /// Decoding limits.
    pub limits: Limits,
    /// A bootstrap document loaded before serving (`--bootstrap`).
    pub bootstrap: Option<std::path::PathBuf>,
    /// Whether the demo catalogue is loaded before serving (`--demo`).
    pub demo: bool,
    /// The `sourceEnv` every answer's `meta` carries (D-11).
    pub source_env: String,
    /// The time zone local timestamps of requests are read in (D-31).
    pub time_zone: TimeZone,
    /// How long requests running when the server is told to stop may take to finish (D-37).
    pub shutdown_grace: Duration,
    /// How long the head of a request may take to arrive, and a keep-alive connection may stay
    /// idle (D-37).
    pub header_timeout: Duration,
    /// How long a request's body may take to arrive once its head has (D-37).
    pub body_timeout: Duration,
    /// How many requests the server takes at once; beyond them it answers 503 (D-37).
    pub max_in_flight: usize,
    /// How long an answer may make no progress because the client does not take it (D-37).
    pub send_timeout: Duration,
    /// How many connections the server keeps open at once; beyond them it closes new ones as
    /// soon as they are accepted (D-37).
    pub max_connections: usize,
    /// How many requests a caller may send (D-37).
    pub rate_limit: RateLimit,
    /// How long a request waits for the database before it is answered 503 (D-37).
    pub database_timeout: Duration,
    /// The most connections the server opens to PostgreSQL, reads and writes together (D-37).
    pub database_connections: u32,
    /// How long a streamed answer may keep reading its one statement (D-59).
    pub stream_timeout: Duration,
    /// The most pages an SQLite database file may grow to, so that tests can fill it like a full
    /// disk. Only code sets it; no flag does.
    pub sqlite_max_pages: Option<u64>,
    /// Who may read `GET /metrics`.
    pub metrics_access: MetricsAccess,
    /// How long the answer of a batch sent with an `Idempotency-Key` is kept to answer a retry
    /// (D-14).
    pub idempotency_retention: Duration,
    /// A deliberate deviation from the document, for the conformance runner's own test (it must
    /// fail on exactly the checks the deviation breaks). Only code sets it; no flag does.
    pub deviation: Option<Deviation>,
}

/// A deliberate deviation from the document ([`Settings::deviation`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Deviation {
    /// Answers carry no `meta` (D-11 says they carry `messageType`, `messageTime`, `sourceEnv`).
    DropMeta,
    /// A keyword create says "The keyword was created" instead of the documented text
    /// ([`THE_KEYWORD_HAS_BEEN_CREATED_SUCCESSFULLY`](core_api::messages::THE_KEYWORD_HAS_BEEN_CREATED_SUCCESSFULLY)).
    WrongSuccessText,
    /// Answers do not say `X-Content-Type-Options: nosniff` (the document says every one does).
    Sniffable,
    /// XML answers of locales retrieve put the envelope's `meta` after `locales` (the document
    /// orders child elements as the schema's properties): the codecs read any order, so only the
    /// XML Schema (`/core-v1.xsd`) sees it.
    XmlOutOfOrder,
}

/// How many requests a caller may send (`--rate-limit`, `--rate-burst`, D-37): on average
/// `per_second` a second, and `burst` at once after a pause. Callers are counted by token, and
/// requests without a valid token by the peer's address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimit {
    /// Requests a second a caller may send on average; 0 turns the limit off.
    pub per_second: u32,
    /// Requests a caller may send at once after a pause (at least 1).
    pub burst: u32,
}

impl RateLimit {
    /// No limit.
    pub const OFF: RateLimit = RateLimit {
        per_second: 0,
        burst: 0,
    };

    /// Whether the limit is on.
    pub fn is_on(&self) -> bool {
        self.per_second > 0
    }
}

impl Default for RateLimit {
    fn default() -> RateLimit {
        RateLimit {
            per_second: DEFAULT_RATE_LIMIT,
            burst: DEFAULT_RATE_BURST,
        }
    }
}

/// Who may read `GET /metrics` (`--metrics-access`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum MetricsAccess {
    /// Clients on the same machine only (the default): a scraper beside the server, or a
    /// reverse proxy that keeps `/metrics` to itself. Others get 404.
    #[default]
    Loopback,
    /// Callers with a valid bearer token, whatever their roles; others get 401.
    Token,
    /// Everybody.
    Open,
}

impl std::str::FromStr for MetricsAccess {
    type Err = String;

    fn from_str(text: &str) -> Result<MetricsAccess, String> {
        match text {
            "loopback" => Ok(MetricsAccess::Loopback),
            "token" => Ok(MetricsAccess::Token),
            "open" => Ok(MetricsAccess::Open),
            other => Err(format!(
                "'{other}' is not a metrics access: use loopback, token or open"
            )),
        }
    }
}

/// The default address.
pub const DEFAULT_BIND: &str = "127.0.0.1:8080";
/// The default database: a SQLite file under `./data/`, created on first start.
pub const DEFAULT_DATABASE_URL: &str = "sqlite://data/core-server.db";
/// The default database of `serve --demo`: a file of its own, so that the demo's public token
/// never lands in the service's database (D-02).
pub const DEFAULT_DEMO_DATABASE_URL: &str = "sqlite://data/core-server-demo.db";
/// The default `sourceEnv` of answers (D-11).
pub const DEFAULT_SOURCE_ENV: &str = "web";
/// The default body limit: 10 MiB (D-37).
pub const DEFAULT_MAX_BODY_BYTES: usize = 10 * 1024 * 1024;
/// The default time running requests get to finish at shutdown, in seconds: a batch of 1,000
/// items takes well under one (D-37).
pub const DEFAULT_SHUTDOWN_GRACE_SECONDS: u64 = 30;
/// The default time a request's head may take to arrive, in seconds (D-37).
pub const DEFAULT_HEADER_TIMEOUT_SECONDS: u64 = 10;
/// The default time a request's body may take to arrive, in seconds (D-37).
pub const DEFAULT_BODY_TIMEOUT_SECONDS: u64 = 30;
/// The default number of requests taken at once (D-37).
pub const DEFAULT_MAX_IN_FLIGHT: u32 = 512;
/// The default time an answer may make no progress, in seconds (D-37).
pub const DEFAULT_SEND_TIMEOUT_SECONDS: u64 = 30;
/// The default number of connections kept open at once (D-37).
pub const DEFAULT_MAX_CONNECTIONS: u32 = 4096;
/// The default requests a second a caller may send on average (D-37).
pub const DEFAULT_RATE_LIMIT: u32 = 100;
/// The default requests a caller may send at once after a pause (D-37).
pub const DEFAULT_RATE_BURST: u32 = 200;
/// The default time a request waits for the database, in seconds (D-37).
pub const DEFAULT_DATABASE_TIMEOUT_SECONDS: u64 = 5;
/// The default number of connections an instance opens to PostgreSQL: eight for reads, eight
/// for writes (D-37).
pub const DEFAULT_DATABASE_CONNECTIONS: u32 = 16;
/// The default time a streamed answer may keep reading its statement, in seconds (D-59).
pub const DEFAULT_STREAM_TIMEOUT_SECONDS: u64 = 300;
/// The default time an `Idempotency-Key`'s answer is kept, in seconds: 24 hours (D-14).
pub const DEFAULT_IDEMPOTENCY_RETENTION_SECONDS: u64 = 24 * 60 * 60;

impl Settings {
    /// Settings for tests and embedding: everything default but the address and database.
    pub fn new(bind: SocketAddr, database_url: impl Into<String>) -> Settings {
        Settings {
            bind,
            database_url: database_url.into(),
            xml_namespace: core_api::document::XML_NAMESPACE_DEFAULT.to_string(),
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            limits: Limits::default(),
            bootstrap: None,
            demo: false,
            source_env: DEFAULT_SOURCE_ENV.to_string(),
            time_zone: TimeZone::default(),
            shutdown_grace: Duration::from_secs(DEFAULT_SHUTDOWN_GRACE_SECONDS),
            header_timeout: Duration::from_secs(DEFAULT_HEADER_TIMEOUT_SECONDS),
            body_timeout: Duration::from_secs(DEFAULT_BODY_TIMEOUT_SECONDS),
            max_in_flight: DEFAULT_MAX_IN_FLIGHT as usize,
            send_timeout: Duration::from_secs(DEFAULT_SEND_TIMEOUT_SECONDS),
            max_connections: DEFAULT_MAX_CONNECTIONS as usize,
            rate_limit: RateLimit::default(),
            database_timeout: Duration::from_secs(DEFAULT_DATABASE_TIMEOUT_SECONDS),
            stream_timeout: Duration::from_secs(DEFAULT_STREAM_TIMEOUT_SECONDS),
            database_connections: DEFAULT_DATABASE_CONNECTIONS,
            sqlite_max_pages: None,
            metrics_access: MetricsAccess::default(),
            idempotency_retention: Duration::from_secs(DEFAULT_IDEMPOTENCY_RETENTION_SECONDS),
            deviation: None,
        }
    }
}
