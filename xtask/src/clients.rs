//! `cargo xtask clients`: clients in other languages, generated from the document a running
//! server serves, and a short scenario with each against it (on the demo catalogue): a Python
//! client from openapi-python-client (PyPI) and a TypeScript one from openapi-typescript's types
//! with openapi-fetch (npm), both pinned; and Python dataclasses from xsdata (PyPI, pinned) for the
//! XML representation, generated from the served XML Schema. The scenarios are
//! `xtask/clients/scenario.py`, `xtask/clients/scenario.mts` (which tsc checks against the
//! generated types before it runs) and `xtask/clients/xml_scenario.py`.

use std::{path::Path, process::Command};

use anyhow::{Context, Result};

use crate::{codegen::xsd, lint, python, server};

/// The pinned Python client generator.
const PYTHON_GENERATOR: &str = "openapi-python-client==0.29.1";

/// The pinned XML binding generator, and the formatter it runs on what it writes.
const XML_GENERATOR: [&str; 2] = ["xsdata[cli]==26.10", "ruff==0.17.6"];

/// The pinned TypeScript packages: the type generator, the fetch client, the compiler.
const TYPESCRIPT: [&str; 3] = [
    "openapi-typescript@7.13.0",
    "openapi-fetch@0.17.0",
    "typescript@5.9.3",
];

/// Starts a demo server, generates both clients from its `/openapi.json`, runs both scenarios.
pub fn run(root: &Path) -> Result<()> {
    let generator = python::tool(root, PYTHON_GENERATOR, "openapi-python-client")?;
    let bin = lint::install(root, &TYPESCRIPT)?;
    let (server, token, folder) = server::built_demo(root, "xtask-clients")?;
    let base = format!("http://{}", server.address);
    let document = format!("{base}/openapi.json");

    let python_client = folder.join("python");
    // Its warnings (media types it leaves out, each printed with the whole operation) go to a log.
    let log = folder.join("openapi-python-client.log");
    python::status(
        Command::new(&generator)
            .args([
                "generate",
                "--url",
                &document,
                "--overwrite",
                "--output-path",
            ])
            .arg(&python_client)
            .stdout(std::fs::File::create(&log)?)
            .stderr(std::fs::File::create(
                folder.join("openapi-python-client.err"),
            )?),
        "openapi-python-client generate",
    )?;
    eprintln!(
        "clients: the Python client is in {}; the generator's warnings in {}",
        python_client.display(),
        log.display()
    );
    python::status(
        Command::new(root.join("target/xtask-venv/bin/python"))
            .arg(root.join("xtask/clients/scenario.py"))
            .args([&base, &token])
            .arg(&python_client),
        "the Python client scenario",
    )?;

    // Inside the npm prefix, so that node and tsc find openapi-fetch in its node_modules.
    let typescript = bin
        .parent()
        .and_then(Path::parent)
        .context("the npm prefix")?
        .join("clients");
    std::fs::create_dir_all(&typescript)?;
    python::status(
        Command::new(bin.join("openapi-typescript"))
            .arg(&document)
            .args(["--default-non-nullable", "false", "--output"])
            .arg(typescript.join("schema.ts")),
        "openapi-typescript",
    )?;
    std::fs::copy(
        root.join("xtask/clients/scenario.mts"),
        typescript.join("scenario.mts"),
    )?;
    python::status(
        Command::new(bin.join("tsc"))
            .current_dir(&typescript)
            .args(["--strict", "--target", "es2022", "--module", "nodenext"])
            .args([
                "--moduleResolution",
                "nodenext",
                "--skipLibCheck",
                "scenario.mts",
            ]),
        "tsc on the TypeScript client scenario",
    )?;
    python::status(
        Command::new("node")
            .arg(typescript.join("scenario.mjs"))
            .args([&base, &token]),
        "the TypeScript client scenario",
    )?;

    xml_client(root, &server.address, &token, &folder)?;

    // What the server counted of the scenarios.
    let answer = server::get(&server.address, "/metrics")?;
    let metrics = answer.split_once("\r\n\r\n").map_or("", |(_, body)| body);
    std::fs::write(folder.join("metrics.txt"), metrics)?;
    eprintln!(
        "clients: /metrics after the scenarios (all of it in {}):",
        folder.join("metrics.txt").display()
    );
    for line in metrics.lines().filter(|line| {
        line.starts_with("core_requests_total{") || line.starts_with("core_batch_items_total{")
    }) {
        eprintln!("  {line}");
    }
    Ok(())
}

/// Generates the xsdata bindings from the served XML Schema (both of its documents, as a client
/// downloads them) and runs the XML scenario with them.
fn xml_client(root: &Path, address: &str, token: &str, folder: &Path) -> Result<()> {
    let xsdata = python::tool(root, XML_GENERATOR[0], "xsdata")?;
    python::tool(root, XML_GENERATOR[1], "ruff")?;
    let bin = xsdata.parent().context("the environment's bin")?;
    let bindings = folder.join("xml-python");
    if bindings.exists() {
        std::fs::remove_dir_all(&bindings)?;
    }
    std::fs::create_dir_all(&bindings)?;
    let main = xsd::file_name(xsd::XSD_PATH);
    for name in [main, xsd::file_name(xsd::UNQUALIFIED_XSD_PATH)] {
        let answer = server::get(address, &format!("/{name}"))?;
        let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
        anyhow::ensure!(head.starts_with("HTTP/1.1 200"), "GET /{name}: {head}");
        std::fs::write(bindings.join(name), body)?;
    }
    // xsdata runs ruff on what it writes: the environment's, first on the PATH.
    let path = std::env::join_paths(std::iter::once(bin.to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))?;
    python::status(
        Command::new(&xsdata)
            .current_dir(&bindings)
            .args(["generate", main, "--package", "core_xml"])
            .env("PATH", &path)
            .stdout(std::fs::File::create(folder.join("xsdata.log"))?)
            .stderr(std::fs::File::create(folder.join("xsdata.err"))?),
        "xsdata generate",
    )?;
    eprintln!(
        "clients: the xsdata bindings are in {}; its output in {}",
        bindings.display(),
        folder.join("xsdata.err").display()
    );
    python::status(
        Command::new(bin.join("python"))
            .arg(root.join("xtask/clients/xml_scenario.py"))
            .args([&format!("http://{address}"), token])
            .arg(&bindings),
        "the xsdata XML client scenario",
    )
}
