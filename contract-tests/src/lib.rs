//! Shared helpers of the contract tests: the document, its examples, a server started for a
//! test, exchanges addressed by operation ([`exchange`]), the evidence of what the tests prove
//! ([`coverage`]) and the harness that runs them ([`harness`]).

pub mod coverage;
pub mod exchange;
pub mod harness;
pub mod operations;
pub mod xml_checked;

pub use exchange::{Answer, Call, codec, media, post_json, records, streamed, streamed_alike};

use std::{
    net::SocketAddr,
    path::{Path, PathBuf},
};

use core_api_support::{Representation, Schema};
use core_server::{
    auth,
    bootstrap::Bootstrap,
    server::{RunningServer, start},
    settings::Settings,
    storage::Database,
};
use serde_json::{Value, json};

/// The workspace root.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// The authored document's text.
pub fn document_text() -> String {
    std::fs::read_to_string(workspace_root().join("openapi/core-v1.yaml"))
        .expect("openapi/core-v1.yaml is readable")
}

/// The document as a JSON tree, in document order.
pub fn document() -> Value {
    serde_yaml::from_str(&document_text()).expect("the document is YAML")
}

/// The published document's text (`generated/core-api/openapi.yaml`): the authored one with the
/// compact-JSON schemas derived by `cargo xtask codegen`; what the server serves.
pub fn published_text() -> String {
    std::fs::read_to_string(workspace_root().join("generated/core-api/openapi.yaml"))
        .expect("generated/core-api/openapi.yaml is readable")
}

/// The published document as a JSON tree, in document order.
pub fn published() -> Value {
    serde_yaml::from_str(&published_text()).expect("the published document is YAML")
}

/// A JSON Schema validator (draft 4, as OpenAPI 3.0) of one component schema of a document.
pub fn validator(document: &Value, name: &str) -> Result<jsonschema::Validator, String> {
    let root = json!({
        "$ref": format!("#/components/schemas/{name}"),
        "components": {"schemas": document["components"]["schemas"].clone()},
    });
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft4)
        .build(&root)
        .map_err(|error| format!("schema {name} does not compile: {error}"))
}

/// The table of a component schema.
pub fn table(name: &str) -> &'static Schema {
    core_api::tables::ALL
        .iter()
        .copied()
        .find(|schema| schema.name == name)
        .unwrap_or_else(|| panic!("no table for schema {name}"))
}

/// One example of the document.
#[derive(Debug, Clone)]
pub struct Example {
    /// Where it is: `keywordsPersist request`, `keywordsPersist 200`, `responses/BadRequest`.
    pub place: String,
    /// The example's name.
    pub name: String,
    /// The media type it is given for.
    pub media: String,
    /// The component schema of the media type.
    pub schema: Option<String>,
    /// The example value (a string for XML and binary).
    pub value: Value,
}

impl Example {
    /// The representation of its media type.
    pub fn representation(&self) -> Representation {
        match self.media.split(';').next().unwrap_or_default().trim() {
            "application/xml" => Representation::Xml,
            "application/json" => Representation::Json,
            "application/json+compact" => Representation::Compact,
            _ => Representation::Binary,
        }
    }

    /// The example as a body.
    pub fn bytes(&self) -> Vec<u8> {
        match &self.value {
            Value::String(text) if self.representation() != Representation::Json => {
                text.clone().into_bytes()
            }
            value => serde_json::to_vec(value).unwrap_or_default(),
        }
    }

    /// A label for assertion messages.
    pub fn label(&self) -> String {
        format!("{} {} [{}]", self.place, self.name, self.media)
    }
}

/// Every example of the document: request bodies and answers of every operation, and the shared
/// answers of `components.responses` (each once).
pub fn examples(document: &Value) -> Vec<Example> {
    let mut out = Vec::new();
    let content = |place: String, content: &Value, out: &mut Vec<Example>| {
        for (media, entry) in content.as_object().into_iter().flatten() {
            let schema = entry
                .pointer("/schema/$ref")
                .and_then(Value::as_str)
                .and_then(|reference| reference.strip_prefix("#/components/schemas/"))
                .map(str::to_string);
            for (name, example) in entry
                .get("examples")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
            {
                out.push(Example {
                    place: place.clone(),
                    name: name.clone(),
                    media: media.clone(),
                    schema: schema.clone(),
                    value: example.get("value").cloned().unwrap_or(Value::Null),
                });
            }
        }
    };
    for item in document["paths"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(_, item)| item)
    {
        for operation in item
            .as_object()
            .into_iter()
            .flatten()
            .map(|(_, operation)| operation)
        {
            let id = operation["operationId"].as_str().unwrap_or_default();
            if let Some(body) = operation.pointer("/requestBody/content") {
                content(format!("{id} request"), body, &mut out);
            }
            for (status, answer) in operation["responses"].as_object().into_iter().flatten() {
                if let Some(body) = answer.get("content") {
                    content(format!("{id} {status}"), body, &mut out);
                }
            }
        }
    }
    for (name, answer) in document
        .pointer("/components/responses")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        if let Some(body) = answer.get("content") {
            content(format!("responses/{name}"), body, &mut out);
        }
    }
    out
}

/// A server started on a free port over a fresh in-memory SQLite database, for one test, with an
/// `admin` token issued for it.
pub struct TestServer {
    running: Option<RunningServer>,
    /// Its address.
    pub address: SocketAddr,
    /// Its database.
    pub database: Database,
    /// A token of the role `admin`.
    pub token: String,
    /// The namespace of its XML messages (`xml_namespace`).
    pub xml_namespace: String,
    /// The database's URL (on PostgreSQL, with its schema).
    database_url: String,
    /// Whether stopping it drops its PostgreSQL schema (not for a server [`beside`](Self::beside)
    /// another).
    owns_schema: bool,
}

impl TestServer {
    /// Starts a server.
    pub async fn start() -> TestServer {
        TestServer::start_with(|_| {}).await
    }

    /// Starts a server on a database: a URL of [`backends`].
    pub async fn start_on(database_url: &str) -> TestServer {
        TestServer::start_on_with(database_url, |_| {}).await
    }

    /// Starts a server with adjusted settings.
    pub async fn start_with(adjust: impl FnOnce(&mut Settings)) -> TestServer {
        TestServer::start_on_with("sqlite::memory:", adjust).await
    }

    /// Starts a server on a database with adjusted settings.
    pub async fn start_on_with(
        database_url: &str,
        adjust: impl FnOnce(&mut Settings),
    ) -> TestServer {
        let database_url = if database_url.starts_with("postgres") {
            core_server::testing::fresh_postgres_schema(database_url)
                .await
                .expect("a fresh PostgreSQL schema")
        } else {
            database_url.to_string()
        };
        let mut settings = Settings::new("127.0.0.1:0".parse().expect("an address"), &database_url);
        // The suite sends requests as fast as they are answered; the rate limit has tests of
        // its own, which turn it on.
        settings.rate_limit = core_server::settings::RateLimit::OFF;
        adjust(&mut settings);
        let xml_namespace = settings.xml_namespace.clone();
        let running = start(settings).await.expect("the server starts");
        let token = auth::issue(&running.database, "tester", &[auth::ADMIN.to_string()])
            .await
            .expect("a token");
        TestServer {
            address: running.address,
            database: running.database.clone(),
            running: Some(running),
            token,
            xml_namespace,
            database_url,
            owns_schema: true,
        }
    }

    /// A second instance on this server's database (a PostgreSQL schema, or an SQLite file),
    /// with the same `admin` token; stop it before this one.
    pub async fn beside(&self) -> TestServer {
        TestServer::serving(&self.database_url, &self.token, false).await
    }

    /// Starts a server on a database made before (a migrated copy: an SQLite file, or a
    /// PostgreSQL URL with its schema), calling it with a token that database holds; stopping it
    /// drops its PostgreSQL schema.
    pub async fn start_existing(database_url: &str, token: &str) -> TestServer {
        TestServer::serving(database_url, token, true).await
    }

    /// A server on a database as it is, called with `token`, the rate limit off.
    async fn serving(database_url: &str, token: &str, owns_schema: bool) -> TestServer {
        let mut settings = Settings::new("127.0.0.1:0".parse().expect("an address"), database_url);
        settings.rate_limit = core_server::settings::RateLimit::OFF;
        let xml_namespace = settings.xml_namespace.clone();
        let running = start(settings).await.expect("the server starts");
        TestServer {
            address: running.address,
            database: running.database.clone(),
            running: Some(running),
            token: token.to_string(),
            xml_namespace,
            database_url: database_url.to_string(),
            owns_schema,
        }
    }

    /// Starts a server on a database with the demo catalogue loaded.
    pub async fn start_with_demo(database_url: &str) -> TestServer {
        let server = TestServer::start_on(database_url).await;
        server
            .load(&core_server::bootstrap::demo().expect("the demo document"))
            .await;
        server
    }

    /// Loads a bootstrap document (reference data, a test's fixture) into the server's database.
    pub async fn load(&self, document: &Bootstrap) {
        core_server::bootstrap::load(&self.database, document, Path::new("."))
            .await
            .expect("the fixture loads");
    }

    /// A client that sends the `admin` token with every request.
    pub fn client(&self) -> reqwest::Client {
        self.client_with(&self.token)
    }

    /// A client that sends `Authorization: Bearer <token>` with every request.
    pub fn client_with(&self, token: &str) -> reqwest::Client {
        let mut headers = reqwest::header::HeaderMap::new();
        if let Ok(value) = reqwest::header::HeaderValue::from_str(&format!("Bearer {token}")) {
            headers.insert(reqwest::header::AUTHORIZATION, value);
        }
        reqwest::Client::builder()
            .default_headers(headers)
            .build()
            .expect("a client")
    }

    /// The URL of a path.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.address)
    }

    /// Drops its PostgreSQL schema and stops the server, which closes the database the two
    /// share (no request runs by then).
    pub async fn stop(mut self) {
        if self.owns_schema {
            core_server::testing::drop_postgres_schema(&self.database)
                .await
                .expect("the schema is dropped");
        }
        if let Some(running) = self.running.take() {
            running.stop().await.expect("the server stops cleanly");
        }
    }
}

/// Bytes in standard base64, as a fixture's binary content (`{"base64": …}`) takes them.
pub fn base64(bytes: impl AsRef<[u8]>) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// A bootstrap document written as JSON, for a test's fixture.
pub fn fixture(document: Value) -> Bootstrap {
    serde_json::from_value(document).expect("the fixture is a bootstrap document")
}

/// The databases a test runs on: in-memory SQLite always, and the PostgreSQL database
/// `CORE_TEST_POSTGRES_URL` names when it is set. Every [`TestServer`] started on one of them
/// gets an empty database of its own (on PostgreSQL a new schema, dropped when it stops). Prints
/// which ones, so a run shows what it tested.
pub async fn backends(test: &str) -> Vec<String> {
    let mut urls = vec!["sqlite::memory:".to_string()];
    match std::env::var("CORE_TEST_POSTGRES_URL") {
        Ok(url) => {
            urls.push(url);
            eprintln!("{test}: SQLite and PostgreSQL");
        }
        Err(_) => eprintln!("{test}: SQLite only (CORE_TEST_POSTGRES_URL is not set)"),
    }
    urls
}

pub use core_conformance::judge::{
    GENERATED_ITEMS, generated_attribute, issue_item, redact_json, redact_xml,
};

/// Runs `$body` with `$t` naming the generated type of the schema named `$schema`; an error
/// for a schema not listed.
#[macro_export]
macro_rules! with_type {
    ($schema:expr, |$t:ident| $body:expr) => {
        $crate::with_type!(@arms $schema, $t, $body;
            PimType, ServiceType, ResponsesType, ResponseType, LocaleRequest, KeywordRequest,
            ComponentsRequest, Components, MessagesPersistRequest, KeywordsPersistRequest,
            GlossaryEntriesPersistRequest, ActionsRequest, ClassesPersistRequest,
            AttrsPersistRequest, ProjectsPersistRequest, LinksRequest, ChannelQueryDto,
            ChannelRequest, ChannelRequestDto, BriefingRequest, PatchBriefing,
            ClassificationRequest, AttributesRetrieveRequest, AttributesQueryRequest,
            AttributesQueryResponse, AttributeDefinitionsQuery, AttributeDefinitionsRequest,
            PeoRequest, PeoQueryResponse, PeoQuery)
    };
    (@arms $schema:expr, $t:ident, $body:expr; $($name:ident),*) => {
        match $schema {
            $(stringify!($name) => {
                type $t = ::core_api::types::$name;
                $body
            })*
            other => Err(format!("no generated type for schema {other}; add it to `with_type`")),
        }
    };
}
