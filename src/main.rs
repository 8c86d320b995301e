//! `core-server`: the command line of the service.

use std::{net::SocketAddr, process::ExitCode};

use clap::{Parser, Subcommand};
use core_server::{
    repr::Limits,
    server,
    settings::{DEFAULT_BIND, DEFAULT_DATABASE_URL, DEFAULT_MAX_BODY_BYTES, Settings},
};

#[global_allocator]
static ALLOCATOR: core_server::Allocator = core_server::Allocator;

/// The Core Interface v1 service (PIM, DAM, channel management, product export options).
#[derive(Parser)]
#[command(name = "core-server", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Serves the Core Interface over HTTP.
    Serve {
        /// The address to listen on.
        #[arg(long, env = "CORE_BIND", default_value = DEFAULT_BIND)]
        bind: SocketAddr,
        /// The database: `sqlite://<file>` (created with its folder) or `postgres://…`.
        #[arg(long, env = "CORE_DATABASE_URL", default_value = DEFAULT_DATABASE_URL)]
        database_url: String,
        /// The XML namespace of message roots (`{xml_namespace}`).
        #[arg(long, env = "CORE_XML_NAMESPACE", default_value = core_api::document::XML_NAMESPACE_DEFAULT)]
        xml_namespace: String,
        /// The largest request body accepted, in bytes.
        #[arg(long, env = "CORE_MAX_BODY_BYTES", default_value_t = DEFAULT_MAX_BODY_BYTES)]
        max_body_bytes: usize,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("CORE_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        // A closed stderr must not stop the server: its default report of a failed write panics.
        .log_internal_errors(false)
        .init();
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(error) => {
            say(&format!("core-server: cannot start the runtime: {error}"));
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(async {
        match cli.command {
            Command::Serve {
                bind,
                database_url,
                xml_namespace,
                max_body_bytes,
            } => {
                let settings = Settings {
                    bind,
                    database_url,
                    xml_namespace,
                    max_body_bytes,
                    limits: Limits::default(),
                };
                serve(settings).await
            }
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

async fn serve(settings: Settings) -> Result<(), server::ServeError> {
    let running = server::start(settings).await?;
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
    use std::io::Write;
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
