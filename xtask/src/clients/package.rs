//! `cargo xtask clients --package`: the clients as packages people install, built from one
//! contract version (the document a server serves, or a document file or git revision), named
//! `core-interface-client` and versioned after its `info.version`:
//! * a Python wheel: the openapi-python-client JSON client as `core_interface_client`, with the
//!   xsdata bindings of the contract's XML Schema as `core_interface_client.xml_bindings`
//!   (built by poetry-core, pinned, without build isolation);
//! * an npm package: openapi-typescript's types as `schema.d.ts` and a default export that
//!   makes an openapi-fetch client typed by them (`xtask/clients/npm/`).

use std::{
    path::{Path, PathBuf},
    process::{Command, Stdio},
};

use anyhow::{Context, Result, bail, ensure};
use serde_json::{Value, json};

use super::{PYTHON_GENERATOR, TYPESCRIPT, XML_GENERATOR};
use crate::{codegen, diff, document::Document, lint, python, release, server};

/// The name of both packages.
pub const PROJECT: &str = "core-interface-client";

/// The Python module of the JSON client.
pub const MODULE: &str = "core_interface_client";

/// The Python module of the XML bindings, inside the JSON client's.
pub const XML_MODULE: &str = "core_interface_client.xml_bindings";

/// The pinned build backend of the wheel (what openapi-python-client's `pyproject.toml` names).
const WHEEL_BACKEND: &str = "poetry-core==2.5.0";

/// The XML bindings' runtime, a dependency of the wheel.
const XML_RUNTIME: &str = "xsdata = \">=26.10,<27\"";

/// Where a contract version comes from.
#[derive(Debug, Clone, Copy)]
pub enum Source<'a> {
    /// The server at this address: its `/openapi.json` and XML Schema documents.
    Served(&'a str),
    /// A document file, or a git revision of `openapi/core-v1.yaml` (as `cargo xtask diff`
    /// reads them); its XML Schema is generated as `cargo xtask codegen` does.
    Document(&'a str),
}

/// The packages of one contract version.
#[derive(Debug, Clone)]
pub struct Packages {
    /// The contract's `info.version`, which both packages carry.
    pub version: release::Version,
    /// The Python wheel.
    pub wheel: PathBuf,
    /// The npm package (`npm pack`'s tarball).
    pub npm: PathBuf,
}

/// One contract version as the generators read it.
struct Contract {
    /// The document, as JSON.
    document: Value,
    /// The XML Schema documents: file name and text, the main one first.
    schemas: Vec<(String, String)>,
}

/// Builds both packages of the contract `source` gives into `out` (created when missing).
pub fn build(root: &Path, source: Source<'_>, out: &Path) -> Result<Packages> {
    let contract = contract(root, source)?;
    let version = release::version_of(&contract.document)?;
    std::fs::create_dir_all(out)?;
    let work = out.join(format!("build-{version}"));
    if work.exists() {
        std::fs::remove_dir_all(&work)?;
    }
    std::fs::create_dir_all(work.join("xsd"))?;
    let document = work.join("openapi.json");
    std::fs::write(&document, serde_json::to_vec_pretty(&contract.document)?)?;
    for (name, text) in &contract.schemas {
        std::fs::write(work.join("xsd").join(name), text)?;
    }
    let tools = install(root)?;
    let wheel = wheel(&tools, &work, &contract, version, out)?;
    let npm = npm(root, &tools, &work, &contract.document, version, out)?;
    eprintln!(
        "clients: packages of contract {version}: {} and {}",
        wheel.display(),
        npm.display()
    );
    Ok(Packages {
        version,
        wheel,
        npm,
    })
}

fn contract(root: &Path, source: Source<'_>) -> Result<Contract> {
    match source {
        Source::Served(address) => {
            let document = serde_json::from_str(&served(address, "/openapi.json")?)
                .context("the served /openapi.json")?;
            let mut schemas = Vec::new();
            for path in [codegen::xsd::XSD_PATH, codegen::xsd::UNQUALIFIED_XSD_PATH] {
                let name = codegen::xsd::file_name(path);
                schemas.push((name.to_string(), served(address, &format!("/{name}"))?));
            }
            Ok(Contract { document, schemas })
        }
        Source::Document(given) => {
            let document = diff::read(root, given)?;
            let parsed = Document::parse(&serde_json::to_string(&document)?)
                .with_context(|| format!("{given} as the generators read it"))?;
            let schemas = codegen::xsd::generate(&parsed, codegen::XML_HEADER)?
                .into_iter()
                .map(|(path, text)| (codegen::xsd::file_name(path).to_string(), text))
                .collect();
            Ok(Contract { document, schemas })
        }
    }
}

/// The body of a `GET` the server must answer 200.
fn served(address: &str, path: &str) -> Result<String> {
    let answer = server::get(address, path)?;
    let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
    ensure!(head.starts_with("HTTP/1.1 200"), "GET {path}: {head}");
    ensure!(
        !head.to_ascii_lowercase().contains("transfer-encoding"),
        "GET {path} answered in chunks, which this reader does not join"
    );
    Ok(body.to_string())
}

/// The generators of both packages, installed when missing (pinned; `cargo xtask tools` too).
pub struct Generators {
    /// openapi-python-client's command.
    python: PathBuf,
    /// xsdata's command (ruff and the wheel's build backend beside it).
    xsdata: PathBuf,
    /// The `.bin` of the npm packages (openapi-typescript, openapi-fetch, typescript).
    npm: PathBuf,
}

/// Installs the generators of both packages where missing.
pub fn install(root: &Path) -> Result<Generators> {
    let python = python::tool(root, PYTHON_GENERATOR, "openapi-python-client")?;
    let xsdata = python::tool(root, XML_GENERATOR[0], "xsdata")?;
    python::tool(root, XML_GENERATOR[1], "ruff")?;
    python::tool(root, WHEEL_BACKEND, "python")?;
    let npm = lint::install(root, &TYPESCRIPT)?;
    Ok(Generators {
        python,
        xsdata,
        npm,
    })
}

/// The Python project: the JSON client, the XML bindings inside it, one wheel.
fn wheel(
    tools: &Generators,
    work: &Path,
    contract: &Contract,
    version: release::Version,
    out: &Path,
) -> Result<PathBuf> {
    let (generator, xsdata) = (&tools.python, &tools.xsdata);
    let config = work.join("openapi-python-client.yaml");
    std::fs::write(
        &config,
        format!("project_name_override: {PROJECT}\npackage_name_override: {MODULE}\n"),
    )?;
    let project = work.join("python");
    // Its warnings (media types it leaves out, each printed with the whole operation) go to a log.
    python::status(
        Command::new(generator)
            .arg("generate")
            .arg("--path")
            .arg(work.join("openapi.json"))
            .arg("--config")
            .arg(&config)
            .args(["--overwrite", "--output-path"])
            .arg(&project)
            .stdout(std::fs::File::create(
                work.join("openapi-python-client.log"),
            )?)
            .stderr(std::fs::File::create(
                work.join("openapi-python-client.err"),
            )?),
        "openapi-python-client generate",
    )?;
    pyproject(&project.join("pyproject.toml"), version)?;
    // xsdata runs ruff on what it writes: the environment's, first on the PATH.
    let bin = xsdata.parent().context("the environment's bin")?;
    let path = python::path_first(bin)?;
    let main = &contract.schemas.first().context("no XML Schema")?.0;
    python::status(
        Command::new(xsdata)
            .current_dir(&project)
            .arg("generate")
            .arg(work.join("xsd").join(main))
            .args(["--package", XML_MODULE])
            .env("PATH", &path)
            .stdout(std::fs::File::create(work.join("xsdata.log"))?)
            .stderr(std::fs::File::create(work.join("xsdata.err"))?),
        "xsdata generate",
    )?;
    python::status(
        Command::new(bin.join("python"))
            .args([
                "-m",
                "pip",
                "wheel",
                "--quiet",
                "--disable-pip-version-check",
            ])
            .args(["--no-deps", "--no-build-isolation", "--wheel-dir"])
            .arg(out)
            .arg(&project),
        "pip wheel",
    )?;
    let wheel = out.join(format!("{MODULE}-{version}-py3-none-any.whl"));
    ensure!(wheel.is_file(), "pip wheel wrote no {}", wheel.display());
    Ok(wheel)
}

/// Holds the generated `pyproject.toml` to the contract's version and adds the XML bindings'
/// runtime to its dependencies.
fn pyproject(path: &Path, version: release::Version) -> Result<()> {
    let text = std::fs::read_to_string(path)?;
    let stated = format!("version = \"{version}\"");
    ensure!(
        text.lines().any(|line| line == stated),
        "{} does not state {stated}",
        path.display()
    );
    let Some(at) = text.find("\n[tool.poetry.dependencies]\n") else {
        bail!("{} has no [tool.poetry.dependencies]", path.display());
    };
    let at = at + "\n[tool.poetry.dependencies]\n".len();
    std::fs::write(
        path,
        format!("{}{XML_RUNTIME}\n{}", &text[..at], &text[at..]),
    )?;
    Ok(())
}

/// The npm package: the types, the typed client factory, a `package.json` of the version.
fn npm(
    root: &Path,
    tools: &Generators,
    work: &Path,
    document: &Value,
    version: release::Version,
    out: &Path,
) -> Result<PathBuf> {
    let bin = &tools.npm;
    let package = work.join("npm");
    std::fs::create_dir_all(&package)?;
    python::status(
        Command::new(bin.join("openapi-typescript"))
            .arg(work.join("openapi.json"))
            .args(["--default-non-nullable", "false", "--output"])
            .arg(package.join("schema.d.ts"))
            .stdout(Stdio::null()),
        "openapi-typescript",
    )?;
    for file in ["index.js", "index.d.ts", "README.md"] {
        std::fs::copy(
            root.join("xtask/clients/npm").join(file),
            package.join(file),
        )?;
    }
    let fetch = super::pinned("openapi-fetch")?;
    let manifest = json!({
        "name": PROJECT,
        "version": version.to_string(),
        "description": format!("TypeScript client of the {} (JSON), from openapi-typescript and openapi-fetch", document["info"]["title"].as_str().unwrap_or("contract")),
        "license": document["info"]["license"]["name"],
        "type": "module",
        "main": "index.js",
        "types": "index.d.ts",
        "exports": {".": {"types": "./index.d.ts", "default": "./index.js"}},
        "files": ["index.js", "index.d.ts", "schema.d.ts", "README.md"],
        "dependencies": {"openapi-fetch": fetch},
    });
    std::fs::write(
        package.join("package.json"),
        serde_json::to_vec_pretty(&manifest)?,
    )?;
    python::status(
        Command::new("npm")
            .current_dir(&package)
            .args(["pack", "--quiet", "--pack-destination"])
            .arg(out)
            .stdout(Stdio::null()),
        "npm pack",
    )?;
    let tarball = out.join(format!("{PROJECT}-{version}.tgz"));
    ensure!(tarball.is_file(), "npm pack wrote no {}", tarball.display());
    Ok(tarball)
}
