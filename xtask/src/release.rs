//! Releases of the contract: `info.version` of `openapi/core-v1.yaml` follows semver, and every
//! released version is kept as `openapi/released/<version>.yaml`. `cargo xtask release` keeps
//! the current document under its version; `cargo xtask release-check` (run by `.ci/run`) fails
//! when the current document breaks the latest released one without a new major version, when it
//! changes it without a new version, or when the version goes backwards, printing the report of
//! `cargo xtask diff`.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde_json::Value;

use crate::diff;

/// Where released documents are kept.
pub const RELEASED: &str = "openapi/released";

/// A semver version `MAJOR.MINOR.PATCH`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Version(pub u64, pub u64, pub u64);

impl Version {
    /// Reads `MAJOR.MINOR.PATCH` (no pre-release or build part).
    pub fn parse(text: &str) -> Option<Version> {
        let mut parts = text.split('.').map(|part| part.parse::<u64>().ok());
        match (parts.next(), parts.next(), parts.next(), parts.next()) {
            (Some(Some(major)), Some(Some(minor)), Some(Some(patch)), None) => {
                Some(Version(major, minor, patch))
            }
            _ => None,
        }
    }
}

impl std::fmt::Display for Version {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(formatter, "{}.{}.{}", self.0, self.1, self.2)
    }
}

/// The version a document states in `info.version`.
pub fn version_of(document: &Value) -> Result<Version> {
    let text = document["info"]["version"]
        .as_str()
        .context("the document has no info.version")?;
    Version::parse(text).with_context(|| format!("info.version '{text}' is not MAJOR.MINOR.PATCH"))
}

/// Whether `current` may follow the `latest` release: the report of what changed, or why not.
pub fn verdict(
    latest: (Version, &Value),
    current: (Version, &Value),
) -> std::result::Result<String, String> {
    let changes = diff::changes(latest.1, current.1);
    let report = diff::report(&changes);
    let breaking = changes.iter().any(|change| change.breaking);
    let (released, now) = (latest.0, current.0);
    if now < released {
        return Err(format!(
            "info.version {now} is older than the latest release {released}"
        ));
    }
    if breaking && now.0 == released.0 {
        return Err(format!(
            "the document breaks release {released} without a new major version (info.version is {now}):\n{report}"
        ));
    }
    if now == released && !changes.is_empty() {
        return Err(format!(
            "the document changes release {released} without a new version (a minor one for these):\n{report}"
        ));
    }
    Ok(format!(
        "release check: {now} against the latest release {released}:\n{report}"
    ))
}

/// The released versions, oldest first.
pub fn released(root: &Path) -> Result<Vec<(Version, PathBuf)>> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(root.join(RELEASED)).context(RELEASED)? {
        let path = entry?.path();
        let version = path
            .file_name()
            .and_then(|name| name.to_str())
            .and_then(|name| name.strip_suffix(".yaml"))
            .and_then(Version::parse);
        if let Some(version) = version {
            found.push((version, path));
        }
    }
    found.sort();
    Ok(found)
}

fn read(path: &Path) -> Result<Value> {
    let text = std::fs::read_to_string(path).with_context(|| path.display().to_string())?;
    serde_yaml::from_str(&text).with_context(|| format!("{} is not YAML", path.display()))
}

/// `cargo xtask release-check`.
pub fn check(root: &Path) -> Result<()> {
    let current = read(&root.join(crate::DOCUMENT_PATH))?;
    let Some((latest, path)) = released(root)?.pop() else {
        bail!("no released document under {RELEASED}");
    };
    match verdict((latest, &read(&path)?), (version_of(&current)?, &current)) {
        Ok(report) => {
            eprint!("{report}");
            Ok(())
        }
        Err(reason) => bail!("{reason}"),
    }
}

/// `cargo xtask release`: keeps the current document as `openapi/released/<version>.yaml`.
pub fn release(root: &Path) -> Result<()> {
    check(root)?;
    let text = std::fs::read_to_string(root.join(crate::DOCUMENT_PATH))?;
    let version = version_of(&serde_yaml::from_str(&text)?)?;
    let target = root.join(RELEASED).join(format!("{version}.yaml"));
    if target.exists() {
        if std::fs::read_to_string(&target)? == text {
            eprintln!("release: {version} is kept already");
            return Ok(());
        }
        bail!(
            "{} exists and differs: a released version is never changed",
            target.display()
        );
    }
    std::fs::write(&target, text)?;
    eprintln!("release: kept {}", target.display());
    Ok(())
}
