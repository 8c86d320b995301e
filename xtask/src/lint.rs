//! The linters of `cargo xtask validate`: Spectral (`spectral:oas`) and Redocly
//! (`recommended-strict`), installed from npm under `target/`, run on the published document
//! with their configurations in `xtask/lint/`. Either finding anything (error or warning) fails.

use std::{
    path::{Path, PathBuf},
    process::Command,
};

use anyhow::{Context, Result};
use serde_json::Value;

use crate::{codegen::PUBLISHED_PATH, python};

/// The pinned Spectral command line.
pub const SPECTRAL: &str = "@stoplight/spectral-cli@6.16.3";
/// The pinned Redocly command line.
pub const REDOCLY: &str = "@redocly/cli@2.77.0";

/// Installs both linters where missing; answers the `.bin` that holds their commands.
pub fn tools(root: &Path) -> Result<PathBuf> {
    install(root, &[SPECTRAL, REDOCLY])
}

/// Lints the published document with both linters.
pub fn run(root: &Path) -> Result<()> {
    let tools = tools(root)?;
    let document = root.join(PUBLISHED_PATH);
    python::status(
        Command::new(tools.join("spectral"))
            .args(["lint", "--fail-severity", "warn", "--ruleset"])
            .arg(root.join("xtask/lint/spectral.mjs"))
            .arg(&document),
        "spectral lint",
    )?;

    // Redocly reads its lint-ignore file from the folder of its configuration: both go to target/.
    let folder = root.join("target/xtask-lint");
    std::fs::create_dir_all(&folder)?;
    std::fs::copy(
        root.join("xtask/lint/redocly.yaml"),
        folder.join("redocly.yaml"),
    )?;
    let published: Value = serde_yaml::from_str(
        &std::fs::read_to_string(&document)
            .with_context(|| format!("reading {}", document.display()))?,
    )?;
    let exempt = xml_example_values(&published);
    let mut ignore = format!(
        "# Written by `cargo xtask validate`: the XML example values of the published document \
         (see xtask/lint/redocly.yaml).\n{}:\n  no-invalid-media-type-examples:\n",
        document.display()
    );
    for pointer in &exempt {
        ignore.push_str(&format!("    - '{}'\n", pointer.replace('\'', "''")));
    }
    std::fs::write(folder.join(".redocly.lint-ignore.yaml"), ignore)?;
    eprintln!(
        "xtask: redocly: {} XML example values exempt from no-invalid-media-type-examples",
        exempt.len()
    );
    python::status(
        Command::new(tools.join("redocly"))
            .args(["lint", "--max-problems", "1000", "--config"])
            .arg(folder.join("redocly.yaml"))
            .arg(&document),
        "redocly lint",
    )
}

/// Installs npm packages (pinned) under `target/xtask-npm` on first use; returns its `.bin`.
pub fn install(root: &Path, packages: &[&str]) -> Result<PathBuf> {
    let folder = root.join("target/xtask-npm");
    let marker = folder.join(format!(
        ".installed-{}",
        packages.join("+").replace('/', "_")
    ));
    if !marker.exists() {
        std::fs::create_dir_all(&folder)?;
        eprintln!(
            "xtask: installing {} into {}",
            packages.join(", "),
            folder.display()
        );
        python::status(
            Command::new("npm")
                .args([
                    "install",
                    "--no-audit",
                    "--no-fund",
                    "--loglevel",
                    "error",
                    "--prefix",
                ])
                .arg(&folder)
                .args(packages),
            "npm install",
        )?;
        std::fs::write(&marker, "")?;
    }
    Ok(folder.join("node_modules/.bin"))
}

/// The JSON pointers of every example value of an XML media type, in document order.
fn xml_example_values(document: &Value) -> Vec<String> {
    let mut found = Vec::new();
    walk(document, &mut String::from("#"), &mut found);
    found
}

fn walk(value: &Value, pointer: &mut String, found: &mut Vec<String>) {
    match value {
        Value::Object(object) => {
            for (key, child) in object {
                let length = pointer.len();
                pointer.push('/');
                pointer.push_str(&key.replace('~', "~0").replace('/', "~1"));
                if key.starts_with("application/xml")
                    && let Some(examples) = child.get("examples").and_then(Value::as_object)
                {
                    for name in examples.keys() {
                        found.push(format!("{pointer}/examples/{name}/value"));
                    }
                } else {
                    walk(child, pointer, found);
                }
                pointer.truncate(length);
            }
        }
        Value::Array(items) => {
            for (index, child) in items.iter().enumerate() {
                let length = pointer.len();
                pointer.push_str(&format!("/{index}"));
                walk(child, pointer, found);
                pointer.truncate(length);
            }
        }
        _ => {}
    }
}
