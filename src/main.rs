//! `core-server`: the command line of the service.

use std::{io::Write, net::SocketAddr, process::ExitCode, time::Duration};

use clap::{Parser, Subcommand};
use core_server::{
    auth::{self, Grant, Revoke, commands::Lifetime},
    bootstrap,
    repr::Limits,
    server,
    settings::{
        DEFAULT_BIND, DEFAULT_BODY_TIMEOUT_SECONDS, DEFAULT_DATABASE_CONNECTIONS,
        DEFAULT_DATABASE_TIMEOUT_SECONDS, DEFAULT_DATABASE_URL, DEFAULT_DEMO_DATABASE_URL,
        DEFAULT_HEADER_TIMEOUT_SECONDS, DEFAULT_IDEMPOTENCY_RETENTION_SECONDS,
        DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_IN_FLIGHT, DEFAULT_RATE_BURST,
        DEFAULT_RATE_LIMIT, DEFAULT_SEND_TIMEOUT_SECONDS, DEFAULT_SHUTDOWN_GRACE_SECONDS,
        DEFAULT_SOURCE_ENV, DEFAULT_STREAM_TIMEOUT_SECONDS, RateLimit, Settings,
    },
    storage::Database,
};

#[global_allocator]
static ALLOCATOR: core_server::Allocator = core_server::Allocator;

/// The Core Interface v1 service (PIM, DAM, channel management, product export options).
#[derive(Parser)]
#[command(name = "core-server", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// How log lines are written on standard error: `text` for people, `json` (one object per
    /// line, with the request's id) for log collectors.
    #[arg(long, global = true, env = "CORE_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    log_format: LogFormat,
}

/// How log lines are written.
#[derive(Clone, Copy, clap::ValueEnum)]
enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object per line.
    Json,
}

#[derive(Subcommand)]
enum Command {
    /// Issues and revokes bearer tokens.
    Token {
        #[command(subcommand)]
        command: TokenCommand,
        #[command(flatten)]
        database: DatabaseArg,
    },
    /// Loads a bootstrap document (reference data; all or nothing, idempotent by tid).
    Import {
        /// The JSON document (format: openapi/bootstrap.schema.json).
        file: std::path::PathBuf,
        #[command(flatten)]
        database: DatabaseArg,
    },
    /// Writes what the database holds as a bootstrap document that `import` reads back, ids and
    /// times kept (a database holding kinds it does not carry yet is refused, naming them).
    Export {
        /// The document to write (refused when it exists, unless --force).
        file: std::path::PathBuf,
        /// Replace the file when it exists.
        #[arg(long)]
        force: bool,
        #[command(flatten)]
        database: DatabaseArg,
    },
    /// Sets what a role grants.
    Role {
        #[command(subcommand)]
        command: RoleCommand,
        #[command(flatten)]
        database: DatabaseArg,
    },
    /// Copies an SQLite database into a new file while it serves: one consistent snapshot,
    /// restored by serving the copy (PostgreSQL: use pg_dump).
    Backup {
        /// The file to write (refused when it exists, unless --force).
        file: std::path::PathBuf,
        /// Replace the file when it exists.
        #[arg(long)]
        force: bool,
        #[command(flatten)]
        database: DatabaseArg,
    },
    /// Copies every record of one database into another, empty one (SQLite to PostgreSQL, or
    /// back): ids, tokens and sequences kept, in one snapshot of the source and all or nothing.
    Migrate {
        /// The database to copy: `sqlite://<file>` or `postgres://…`.
        #[arg(long)]
        from: String,
        /// The empty database to copy into (its schema is made first).
        #[arg(long)]
        to: String,
    },
    /// Reads the messages sent with `messages/persist` (beyond the specification, D-44).
    Messages {
        #[command(subcommand)]
        command: MessagesCommand,
        #[command(flatten)]
        database: DatabaseArg,
    },
    /// Serves the Core Interface over HTTP.
    Serve(ServeArgs),
}

/// The options of `core-server serve`.
#[derive(clap::Args)]
struct ServeArgs {
    /// The address to listen on.
    #[arg(long, env = "CORE_BIND", default_value = DEFAULT_BIND)]
    bind: SocketAddr,
    #[command(flatten)]
    database: DatabaseArg,
    /// The XML namespace of message roots (`{xml_namespace}`).
    #[arg(long, env = "CORE_XML_NAMESPACE", default_value = core_api::document::XML_NAMESPACE_DEFAULT)]
    xml_namespace: String,
    /// The largest request body accepted, in bytes.
    #[arg(long, env = "CORE_MAX_BODY_BYTES", default_value_t = DEFAULT_MAX_BODY_BYTES)]
    max_body_bytes: usize,
    /// A bootstrap document to load before serving (as `import` does).
    #[arg(long)]
    bootstrap: Option<std::path::PathBuf>,
    /// Serves the demo catalogue (demo/demo.json, loaded into a database of the demo's own the
    /// first time) and prints its public token, alone, on standard output. The database is
    /// `sqlite://data/core-server-demo.db` unless one is given; one that another command made is
    /// refused, and only a server running `--demo` accepts the demo token.
    #[arg(long)]
    demo: bool,
    /// The `sourceEnv` that answers carry in their `meta`.
    #[arg(long, env = "CORE_SOURCE_ENV", default_value = DEFAULT_SOURCE_ENV)]
    source_env: String,
    /// The time zone local timestamps of requests are read in (PEO query): `UTC` or an
    /// offset such as `+01:00`.
    #[arg(long, env = "CORE_TIME_ZONE", default_value = "UTC")]
    time_zone: core_server::local_time::TimeZone,
    /// Seconds that requests running at SIGTERM or SIGINT get to finish before they are
    /// cut off; the server then closes the database (on SQLite, folding its write-ahead log
    /// into the file).
    #[arg(long, env = "CORE_SHUTDOWN_GRACE", default_value_t = DEFAULT_SHUTDOWN_GRACE_SECONDS)]
    shutdown_grace: u64,
    /// Seconds the head of a request may take to arrive; a keep-alive connection idle that
    /// long is closed too.
    #[arg(long, env = "CORE_HEADER_TIMEOUT", default_value_t = DEFAULT_HEADER_TIMEOUT_SECONDS)]
    header_timeout: u64,
    /// Seconds the body of a request may take to arrive once its head has (408 beyond).
    #[arg(long, env = "CORE_BODY_TIMEOUT", default_value_t = DEFAULT_BODY_TIMEOUT_SECONDS)]
    body_timeout: u64,
    /// How many requests the server takes at once; beyond them it answers 503 with
    /// `Retry-After`.
    #[arg(long, env = "CORE_MAX_IN_FLIGHT", default_value_t = DEFAULT_MAX_IN_FLIGHT, value_parser = clap::value_parser!(u32).range(1..))]
    max_in_flight: u32,
    /// Seconds an answer may make no progress because the client does not take it; the
    /// connection is then closed.
    #[arg(long, env = "CORE_SEND_TIMEOUT", default_value_t = DEFAULT_SEND_TIMEOUT_SECONDS, value_parser = clap::value_parser!(u64).range(1..))]
    send_timeout: u64,
    /// How many connections the server keeps open at once; one more is closed as soon as it
    /// is accepted.
    #[arg(long, env = "CORE_MAX_CONNECTIONS", default_value_t = DEFAULT_MAX_CONNECTIONS, value_parser = clap::value_parser!(u32).range(1..))]
    max_connections: u32,
    /// Requests a second a caller (a token; without a valid token, an address) may send on
    /// average; beyond, 429 with `Retry-After`. 0 turns the limit off.
    #[arg(long, env = "CORE_RATE_LIMIT", default_value_t = DEFAULT_RATE_LIMIT)]
    rate_limit: u32,
    /// Requests a caller may send at once after a pause.
    #[arg(long, env = "CORE_RATE_BURST", default_value_t = DEFAULT_RATE_BURST, value_parser = clap::value_parser!(u32).range(1..))]
    rate_burst: u32,
    /// Seconds a request waits for the database (a connection, SQLite's write lock) before
    /// it is answered 503 with `Retry-After`.
    #[arg(long, env = "CORE_DATABASE_TIMEOUT", default_value_t = DEFAULT_DATABASE_TIMEOUT_SECONDS, value_parser = clap::value_parser!(u64).range(1..))]
    database_timeout: u64,
    /// The most connections the server opens to PostgreSQL, half for reads and half for
    /// writes; several instances together must stay below the server's `max_connections`.
    /// SQLite always has four readers and one writer.
    #[arg(long, env = "CORE_DATABASE_CONNECTIONS", default_value_t = DEFAULT_DATABASE_CONNECTIONS, value_parser = clap::value_parser!(u32).range(2..=10_000))]
    database_connections: u32,
    /// Seconds a streamed answer (keywords, classes and channel retrieve) may keep reading;
    /// a client that takes it more slowly is cut off, so that no reader holds a snapshot open
    /// longer (it delays SQLite's checkpoints and PostgreSQL's vacuum).
    #[arg(long, env = "CORE_STREAM_TIMEOUT", default_value_t = DEFAULT_STREAM_TIMEOUT_SECONDS, value_parser = clap::value_parser!(u64).range(1..))]
    stream_timeout: u64,
    /// Who may read `GET /metrics`: `loopback` (clients on this machine; the default),
    /// `token` (any valid bearer token) or `open`.
    #[arg(long, env = "CORE_METRICS_ACCESS", default_value = "loopback")]
    metrics_access: core_server::settings::MetricsAccess,
    /// Seconds the answer of a batch sent with an `Idempotency-Key` is kept: a retry with the
    /// same key and items within them gets that answer again, nothing applied twice.
    #[arg(long, env = "CORE_IDEMPOTENCY_RETENTION", default_value_t = DEFAULT_IDEMPOTENCY_RETENTION_SECONDS, value_parser = clap::value_parser!(u64).range(1..))]
    idempotency_retention: u64,
}

/// The database every subcommand works on.
#[derive(clap::Args)]
struct DatabaseArg {
    /// The database: `sqlite://<file>` (created with its folder) or `postgres://…`
    /// [default: sqlite://data/core-server.db; with `serve --demo`: sqlite://data/core-server-demo.db]
    #[arg(long, env = "CORE_DATABASE_URL", global = true)]
    database_url: Option<String>,
}

impl DatabaseArg {
    /// The database given, or the default one.
    fn url(&self) -> &str {
        self.database_url.as_deref().unwrap_or(DEFAULT_DATABASE_URL)
    }
}

#[derive(Subcommand)]
enum TokenCommand {
    /// Issues a token and prints it, alone, on standard output: it is shown only this once.
    Issue {
        /// The user the token acts for (created if new).
        #[arg(long)]
        user: String,
        /// A role of the token (created if new); `admin` grants every operation.
        #[arg(long = "role")]
        roles: Vec<String>,
        /// How long the token lives: a number and s, m, h or d (`12h`, `90d`), or `never`.
        #[arg(long, env = "CORE_TOKEN_EXPIRES_IN", default_value = auth::commands::DEFAULT_LIFETIME)]
        expires_in: Lifetime,
    },
    /// Prints every token, oldest first, one JSON object per line on standard output: id, user,
    /// roles, created, expires, lastUsed, revoked (never a secret or its hash).
    List,
    /// Revokes a token (given whole, or by the id `token list` shows), or every token of a user.
    Revoke {
        /// The token to revoke.
        #[arg(required_unless_present_any = ["user", "id"], conflicts_with_all = ["user", "id"])]
        token: Option<String>,
        /// Revoke the token with this id instead.
        #[arg(long, conflicts_with = "user")]
        id: Option<i64>,
        /// Revoke every token of this user instead.
        #[arg(long)]
        user: Option<String>,
    },
}

#[derive(Subcommand)]
enum MessagesCommand {
    /// Prints the stored messages, oldest first, one JSON object per line on standard output.
    List {
        /// Only the messages for this user.
        #[arg(long)]
        user: Option<String>,
        /// Only the messages for this role.
        #[arg(long)]
        role: Option<String>,
    },
}

#[derive(Subcommand)]
enum RoleCommand {
    /// Lets a role (created if new) call every operation of modules, or single operations.
    Grant(RoleGrants),
    /// Removes grants from a role: modules or single operations it granted.
    Revoke(RoleGrants),
}

/// A role and the modules and operations a `role` command grants or revokes.
#[derive(clap::Args)]
struct RoleGrants {
    /// The role.
    role: String,
    /// A module: `Common`, `CM`, `PIM`, `PEO` or `DAM`.
    #[arg(long = "module")]
    modules: Vec<String>,
    /// An operation, by its operation id (`transform`, `channelsRetrieve`, …).
    #[arg(long = "operation")]
    operations: Vec<String>,
}

impl RoleGrants {
    /// The grants named, at least one.
    fn grants(&self) -> anyhow::Result<Vec<Grant<'_>>> {
        let grants = Grant::list(&self.modules, &self.operations);
        if grants.is_empty() {
            anyhow::bail!("give at least one --module or --operation");
        }
        Ok(grants)
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    init_logs(cli.log_format);
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(error) => {
            say(&format!("core-server: cannot start the runtime: {error}"));
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(async {
        match cli.command {
            Command::Token { command, database } => token(command, database.url()).await,
            Command::Role { command, database } => role(command, database.url()).await,
            Command::Messages { command, database } => messages(command, database.url()).await,
            Command::Import { file, database } => import(&file, database.url()).await,
            Command::Backup {
                file,
                force,
                database,
            } => backup(&file, force, database.url()).await,
            Command::Export {
                file,
                force,
                database,
            } => export(&file, force, database.url()).await,
            Command::Migrate { from, to } => migrate(&from, &to).await,
            Command::Serve(options) => Ok(serve(options.settings()).await?),
        }
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            say(&format!("core-server: {error}"));
            ExitCode::FAILURE
        }
    }
}

/// Writes log lines on standard error, in the format asked for.
fn init_logs(format: LogFormat) {
    let logs = tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("CORE_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        // A closed stderr must not stop the server: its default report of a failed write panics.
        .log_internal_errors(false);
    match format {
        LogFormat::Text => {
            let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
            logs.with_ansi(ansi)
                .with_writer(core_server::logs::Stderr { ansi })
                .init()
        }
        // The event's fields at the top level, the request's span (its id) under `span`.
        LogFormat::Json => logs
            .json()
            .flatten_event(true)
            .with_current_span(true)
            .with_span_list(false)
            .init(),
    }
}

impl ServeArgs {
    /// The server's settings from the options.
    fn settings(self) -> Settings {
        let default = if self.demo {
            DEFAULT_DEMO_DATABASE_URL
        } else {
            DEFAULT_DATABASE_URL
        };
        Settings {
            bind: self.bind,
            database_url: self.database.database_url.unwrap_or(default.to_string()),
            xml_namespace: self.xml_namespace,
            max_body_bytes: self.max_body_bytes,
            limits: Limits::default(),
            bootstrap: self.bootstrap,
            demo: self.demo,
            source_env: self.source_env,
            time_zone: self.time_zone,
            shutdown_grace: Duration::from_secs(self.shutdown_grace),
            header_timeout: Duration::from_secs(self.header_timeout),
            body_timeout: Duration::from_secs(self.body_timeout),
            max_in_flight: self.max_in_flight as usize,
            send_timeout: Duration::from_secs(self.send_timeout),
            max_connections: self.max_connections as usize,
            rate_limit: RateLimit {
                per_second: self.rate_limit,
                burst: self.rate_burst,
            },
            database_timeout: Duration::from_secs(self.database_timeout),
            database_connections: self.database_connections,
            stream_timeout: Duration::from_secs(self.stream_timeout),
            sqlite_max_pages: None,
            metrics_access: self.metrics_access,
            idempotency_retention: Duration::from_secs(self.idempotency_retention),
            deviation: None,
        }
    }
}

async fn token(command: TokenCommand, database_url: &str) -> anyhow::Result<()> {
    let database = open(database_url, "token").await?;
    match command {
        TokenCommand::Issue {
            user,
            roles,
            expires_in,
        } => {
            let token =
                auth::commands::issue_expiring(&database, &user, &roles, expires_in.0).await?;
            // Alone on standard output, so that scripts can capture it.
            println!("{token}");
            let lifetime = match expires_in.0 {
                Some(lifetime) => format!("expires in {} s", lifetime.as_secs()),
                None => "never expires".to_string(),
            };
            say(&format!(
                "core-server: issued a token for user '{user}' with roles [{}]; it {lifetime} and is not shown again",
                roles.join(", ")
            ));
        }
        TokenCommand::List => {
            let tokens = auth::list(&database).await?;
            let mut stdout = std::io::stdout().lock();
            for token in &tokens {
                writeln!(stdout, "{}", serde_json::to_string(token)?)?;
            }
            say(&format!("core-server: {} token(s)", tokens.len()));
        }
        TokenCommand::Revoke { token, id, user } => {
            let target = match (&token, id, &user) {
                (Some(token), _, _) => Revoke::Token(token),
                (None, Some(id), _) => Revoke::Id(id),
                (None, None, Some(user)) => Revoke::User(user),
                (None, None, None) => anyhow::bail!("give a token, --id or --user"),
            };
            let revoked = auth::revoke(&database, target).await?;
            say(&format!("core-server: revoked {revoked} token(s)"));
        }
    }
    Ok(())
}

async fn role(command: RoleCommand, database_url: &str) -> anyhow::Result<()> {
    let database = open(database_url, "role").await?;
    match command {
        RoleCommand::Grant(named) => {
            let grants = named.grants()?;
            auth::grant(&database, &named.role, &grants).await?;
            say(&format!(
                "core-server: role '{}' now grants {grants:?}",
                named.role
            ));
        }
        RoleCommand::Revoke(named) => {
            let grants = named.grants()?;
            let removed = auth::ungrant(&database, &named.role, &grants).await?;
            say(&format!(
                "core-server: role '{}' no longer grants {grants:?} ({removed} grant(s) removed)",
                named.role
            ));
        }
    }
    Ok(())
}

async fn messages(command: MessagesCommand, database_url: &str) -> anyhow::Result<()> {
    let database = open(database_url, "messages").await?;
    match command {
        MessagesCommand::List { user, role } => {
            let messages =
                core_server::modules::list_messages(&database, user.as_deref(), role.as_deref())
                    .await?;
            let mut stdout = std::io::stdout().lock();
            for message in &messages {
                let line = serde_json::to_string(message)?;
                writeln!(stdout, "{line}")?;
            }
            say(&format!("core-server: {} message(s)", messages.len()));
        }
    }
    Ok(())
}

async fn import(file: &std::path::Path, database_url: &str) -> anyhow::Result<()> {
    let database = open(database_url, "import").await?;
    let mut bars = bootstrap::progress::Bars::new();
    let loaded = bootstrap::load_file_reporting(&database, file, &mut bars)
        .await
        .map_err(|error| anyhow::anyhow!("nothing was imported: {error}"))?;
    say(&format!(
        "core-server: imported {} ({} records inserted or updated{})",
        file.display(),
        loaded.records,
        loaded.references.import_note()
    ));
    Ok(())
}

async fn export(file: &std::path::Path, force: bool, database_url: &str) -> anyhow::Result<()> {
    let database = Database::connect(database_url).await?;
    let mut bars = bootstrap::progress::Bars::new();
    let exported = bootstrap::export::export_file(&database, file, force, &mut bars).await;
    database.close().await;
    say(&format!(
        "core-server: exported {} records into {}",
        exported?.records,
        file.display()
    ));
    Ok(())
}

async fn backup(file: &std::path::Path, force: bool, database_url: &str) -> anyhow::Result<()> {
    let database = Database::connect(database_url).await?;
    let bytes = core_server::storage::backup::copy(&database, file, force).await;
    database.close().await;
    say(&format!(
        "core-server: backed up {} into {} ({} bytes)",
        core_server::storage::url::without_password(database_url),
        file.display(),
        bytes?
    ));
    Ok(())
}

async fn migrate(from: &str, to: &str) -> anyhow::Result<()> {
    let shown = |url| core_server::storage::url::without_password(url);
    let source = Database::connect(from).await?;
    let target = Database::connect(to).await?;
    let mut bars = bootstrap::progress::Bars::new();
    let copied = core_server::storage::transfer::copy(&source, &target, &mut bars).await;
    source.close().await;
    target.close().await;
    let copied = copied?;
    say(&format!(
        "core-server: migrated {} into {} ({} rows in {} tables{})",
        shown(from),
        shown(to),
        copied.rows,
        copied.tables,
        copied.references.note()
    ));
    Ok(())
}

/// Opens the database for a command, recording the command as its maker when it is new.
async fn open(database_url: &str, command: &str) -> anyhow::Result<Database> {
    let database = Database::connect(database_url).await?;
    auth::origin::claim(&database, command).await?;
    Ok(database)
}

async fn serve(settings: Settings) -> Result<(), server::ServeError> {
    let running = server::start(settings).await?;
    if let Some(token) = &running.demo_token {
        // Alone on standard output, so that scripts can capture it (a closed stream is ignored).
        let mut stdout = std::io::stdout();
        let _ = writeln!(stdout, "{token}").and_then(|()| stdout.flush());
        say(&format!(
            "core-server: demo catalogue loaded; try\n  curl -H 'Authorization: Bearer {token}' -H 'Content-Type: application/json' -d '{{\"path\": \"/\", \"level\": -1}}' http://{}/api/core/v1/common/keywords/retrieve",
            running.address
        ));
        if !running.address.ip().is_loopback() {
            say(
                "core-server: warning: the demo token is public; do not serve the demo beyond this machine",
            );
        }
    }
    // Tests and scripts read this line to find the port when 0 was asked for.
    say(&format!(
        "core-server listening on http://{}",
        running.address
    ));
    shutdown_signal().await;
    tracing::info!("shutting down");
    running.stop().await
}

/// Writes a line to standard error, ignoring a closed stream (unlike `eprintln!`, which panics).
fn say(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}

async fn shutdown_signal() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut terminate =
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(signal) => signal,
                Err(_) => {
                    let _ = interrupt.await;
                    return;
                }
            };
        tokio::select! {
            _ = interrupt => {},
            _ = terminate.recv() => {},
        }
    }
    #[cfg(not(unix))]
    {
        let _ = interrupt.await;
    }
}
