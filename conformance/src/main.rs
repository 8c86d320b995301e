//! `core-conformance`: runs the Core Interface v1 checks against a deployment and says, per
//! module, what passed; `core-conformance fixture` prints the fixture to load first.

use std::{io::Write, path::PathBuf, process::ExitCode, sync::Arc};

use clap::{Parser, Subcommand};
use core_api::document::XML_NAMESPACE_DEFAULT;
use core_conformance::{Fail, Target, checks, judge, report, xml_schema::XmlSchema};

/// Checks a deployment of the Core Interface v1 against its document.
#[derive(Debug, Parser)]
#[command(version, about, long_about = None, args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// The server's base URL (`http://host:port`, without `/api/core/v1`).
    #[arg(long, env = "CORE_CONFORMANCE_BASE_URL")]
    base_url: Option<String>,
    /// A bearer token that may call every operation and see every record (role `admin` on
    /// core-server).
    #[arg(long, env = "CORE_CONFORMANCE_TOKEN", hide_env_values = true)]
    token: Option<String>,
    /// A bearer token of the fixture's role `core-conformance-limited`, for the checks of 403 and
    /// of per-item access rights; without it they are skipped.
    #[arg(long, env = "CORE_CONFORMANCE_LIMITED_TOKEN", hide_env_values = true)]
    limited_token: Option<String>,
    /// The numeric id of the fixture's glossary `CF-GL-2` on the server (no operation reveals
    /// it), for the checks of glossary entry copy and move; without it they are skipped.
    #[arg(long, env = "CORE_CONFORMANCE_GLOSSARY_ID")]
    glossary_id: Option<i64>,
    /// The deployment limits each caller's requests (core-server does by default): the check of
    /// 429 with `Retry-After` runs; without it that check is skipped.
    #[arg(long)]
    rate_limited: bool,
    /// Writes the results as JUnit XML to this file.
    #[arg(long)]
    junit: Option<PathBuf>,
    /// Runs only the checks whose name contains this text (an operation id, `401`, …).
    #[arg(long)]
    only: Option<String>,
    /// Whether every XML body a check exchanges is held to the XML Schema (`/core-v1.xsd`) with
    /// xmllint (`XMLLINT`, else the one on the PATH): `auto` when xmllint is found, `required`
    /// (a run without xmllint stops), or `off`.
    #[arg(long, value_enum, default_value_t = XmlSchemaUse::Auto)]
    xml_schema: XmlSchemaUse,
}

/// When to check XML bodies against the XML Schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum XmlSchemaUse {
    /// When xmllint is found.
    Auto,
    /// Always; without xmllint the run stops.
    Required,
    /// Never.
    Off,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Prints the fixture (a core-server bootstrap document) to load into the server first.
    Fixture,
    /// Lists the checks, one name per line.
    List,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Some(Command::Fixture) => {
            let mut out = std::io::stdout().lock();
            let _ = out.write_all(core_conformance::FIXTURE.as_bytes());
            return ExitCode::SUCCESS;
        }
        Some(Command::List) => {
            let mut out = std::io::stdout().lock();
            for check in checks::all() {
                let _ = writeln!(out, "{}", check.name);
            }
            return ExitCode::SUCCESS;
        }
        None => {}
    }
    let (Some(base_url), Some(token)) = (cli.base_url.as_deref(), cli.token.as_deref()) else {
        eprintln!("core-conformance: --base-url and --token are required (see --help)");
        return ExitCode::from(2);
    };
    let target = match Target::new(base_url, token, cli.limited_token.as_deref()) {
        Ok(target) => target
            .with_glossary_id(cli.glossary_id)
            .with_rate_limit(cli.rate_limited),
        Err(error) => {
            eprintln!("core-conformance: {error}");
            return ExitCode::from(2);
        }
    };
    let target = match (cli.xml_schema, XmlSchema::new(XML_NAMESPACE_DEFAULT)) {
        (XmlSchemaUse::Off, _) => target,
        (_, Ok(schema)) => target.with_xml_schema(schema),
        (XmlSchemaUse::Auto, Err(error)) => {
            eprintln!(
                "core-conformance: XML bodies are not checked against the XML Schema: {error}"
            );
            target
        }
        (XmlSchemaUse::Required, Err(error)) => {
            eprintln!("core-conformance: --xml-schema required: {error}");
            return ExitCode::from(2);
        }
    };
    let target = Arc::new(target);
    let mut all = checks::all();
    if let Some(only) = &cli.only {
        all.retain(|check| check.name.contains(only.as_str()));
        if all.is_empty() {
            eprintln!(
                "core-conformance: no check's name contains {only:?} (see `core-conformance list`)"
            );
            return ExitCode::from(2);
        }
    }
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("core-conformance: no runtime: {error}");
            return ExitCode::from(2);
        }
    };
    eprintln!("core-conformance: {} checks against {base_url}", all.len());
    let outcomes = runtime.block_on(core_conformance::run(target.clone(), &all, |outcome| {
        if let Err(Fail::Failed(_)) = outcome.result {
            eprintln!("  failed: {}", outcome.name);
        }
    }));
    let document = judge::published();
    print!("{}", report::summary(&outcomes, document));
    if let Some(checked) = target.xml_checked() {
        println!(
            "XML Schema: {checked} XML bodies exchanged were held to {} (xmllint)",
            core_api::document::XSD_NAME
        );
    }
    if let Some(path) = &cli.junit
        && let Err(error) = std::fs::write(path, report::junit(&outcomes, document))
    {
        eprintln!("core-conformance: cannot write {}: {error}", path.display());
        return ExitCode::from(2);
    }
    let failed = outcomes
        .iter()
        .any(|outcome| matches!(outcome.result, Err(Fail::Failed(_))));
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
