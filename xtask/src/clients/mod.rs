//! `cargo xtask clients`: clients in other languages, generated from the document a running
//! server serves, packaged (`package`: a Python wheel with a client from openapi-python-client and
//! dataclasses from xsdata for the XML representation, from the served XML Schema; an npm package
//! of openapi-typescript's types with openapi-fetch; every generator pinned), each installed into
//! a clean environment, and a short scenario with each installed package against the server (on
//! the demo catalogue). The scenarios are `xtask/clients/scenario.py`,
//! `xtask/clients/scenario.mts` (which tsc checks against the installed types before it runs) and
//! `xtask/clients/xml_scenario.py`.

pub mod package;

use std::{
    path::{Path, PathBuf},
    process::Command,
};

use anyhow::{Context, Result, ensure};

use crate::{DOCUMENT_PATH, diff, python, release, server};

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

/// The pinned version of one of the [`TYPESCRIPT`] packages.
fn pinned(package: &str) -> Result<&'static str> {
    TYPESCRIPT
        .iter()
        .find_map(|pin| pin.strip_prefix(package)?.strip_prefix('@'))
        .with_context(|| format!("{package} is not pinned"))
}

/// Where `cargo xtask clients --package` writes the packages unless told.
const PACKAGES: &str = "target/client-packages";

/// Starts a demo server, builds both packages from what it serves, installs each into a clean
/// environment, runs the scenarios from the installed packages, then builds the packages of the
/// latest other released contract and says what their clients lose.
pub fn run(root: &Path) -> Result<()> {
    let (server, token, folder) = server::built_demo(root, "xtask-clients")?;
    let base = format!("http://{}", server.address);
    let out = folder.join("packages");
    let packages = package::build(root, package::Source::Served(&server.address), &out)?;
    python_scenarios(root, &packages.wheel, &folder, &base, &token)?;
    typescript_scenario(root, &packages.npm, &folder, &base, &token)?;
    another_version(root, &packages, &out)?;

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

/// `cargo xtask clients --package`: the packages of the served document (a demo server is
/// started for it) or of `document`, into `out`.
pub fn package_only(root: &Path, document: Option<&str>, out: Option<PathBuf>) -> Result<()> {
    let out = out.unwrap_or_else(|| root.join(PACKAGES));
    match document {
        Some(given) => package::build(root, package::Source::Document(given), &out)?,
        None => {
            let (server, _token, _folder) = server::built_demo(root, "xtask-clients")?;
            package::build(root, package::Source::Served(&server.address), &out)?
        }
    };
    Ok(())
}

/// Installs the wheel into a new virtual environment (nothing else in it) and runs the JSON and
/// XML scenarios with its Python, which import the installed modules.
fn python_scenarios(
    root: &Path,
    wheel: &Path,
    folder: &Path,
    base: &str,
    token: &str,
) -> Result<()> {
    let venv = folder.join("installed-python");
    python::status(
        Command::new("python3").arg("-m").arg("venv").arg(&venv),
        "python3 -m venv",
    )?;
    let python = venv.join("bin/python");
    python::status(
        Command::new(&python)
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
            ])
            .arg(wheel),
        "pip install of the wheel",
    )?;
    eprintln!(
        "clients: {} installed into {}",
        wheel.display(),
        venv.display()
    );
    let scenarios = root.join("xtask/clients");
    for (script, what) in [
        ("scenario.py", "the Python client scenario"),
        ("xml_scenario.py", "the xsdata XML client scenario"),
    ] {
        python::status(
            Command::new(&python)
                .arg(scenarios.join(script))
                .args([base, token])
                .current_dir(folder),
            what,
        )?;
    }
    Ok(())
}

/// Installs the npm package into a new project (with TypeScript, pinned), checks the scenario
/// against the installed types with tsc and runs it.
fn typescript_scenario(
    root: &Path,
    tarball: &Path,
    folder: &Path,
    base: &str,
    token: &str,
) -> Result<()> {
    let project = folder.join("installed-npm");
    std::fs::create_dir_all(&project)?;
    std::fs::write(
        project.join("package.json"),
        "{\"private\": true, \"type\": \"module\"}\n",
    )?;
    let typescript = format!("typescript@{}", pinned("typescript")?);
    python::status(
        Command::new("npm")
            .current_dir(&project)
            .args(["install", "--no-audit", "--no-fund", "--loglevel", "error"])
            .arg(tarball)
            .arg(&typescript),
        "npm install of the package",
    )?;
    eprintln!(
        "clients: {} installed into {}",
        tarball.display(),
        project.display()
    );
    std::fs::copy(
        root.join("xtask/clients/scenario.mts"),
        project.join("scenario.mts"),
    )?;
    python::status(
        Command::new(project.join("node_modules/.bin/tsc"))
            .current_dir(&project)
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
            .arg(project.join("scenario.mjs"))
            .args([base, token]),
        "the TypeScript client scenario",
    )
}

/// Builds the packages of the newest released contract of another version than `current`, holds
/// them to that version, and prints what the clients of `current` lose against it.
fn another_version(root: &Path, current: &package::Packages, out: &Path) -> Result<()> {
    let Some((version, path)) = release::released(root)?
        .into_iter()
        .rev()
        .find(|(version, _)| *version != current.version)
    else {
        eprintln!(
            "clients: no release of another version than {}",
            current.version
        );
        return Ok(());
    };
    let other = package::build(
        root,
        package::Source::Document(&path.to_string_lossy()),
        out,
    )?;
    ensure!(
        other.version == version && other.wheel != current.wheel && other.npm != current.npm,
        "the packages of release {version} are not versioned {version}: {} and {}",
        other.wheel.display(),
        other.npm.display()
    );
    let changes = diff::changes(
        &diff::read(root, &path.to_string_lossy())?,
        &diff::read(root, DOCUMENT_PATH)?,
    );
    eprint!(
        "clients: release {version} packaged as {version}, the served contract as {}; from {version} \
         to {}, {}",
        current.version,
        current.version,
        diff::clients(&changes)
    );
    Ok(())
}
