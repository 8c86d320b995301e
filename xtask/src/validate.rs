//! `cargo xtask validate`: checks the authored and the published document with
//! `openapi-spec-validator` (PyPI, in the private Python environment of the chores), then lints
//! the published one with Spectral and Redocly ([`crate::lint`]): 0 errors and 0 warnings.

use std::{path::Path, process::Command};

use anyhow::Result;

use crate::{codegen::PUBLISHED_PATH, lint, python};

/// The pinned validator version.
pub const VALIDATOR: &str = "openapi-spec-validator==0.9.0";

/// Installs the validator and the linters where missing; answers the validator's command.
pub fn install(root: &Path) -> Result<std::path::PathBuf> {
    lint::tools(root)?;
    python::tool(root, VALIDATOR, "openapi-spec-validator")
}

/// Installs the tools if needed and runs them on the documents.
pub fn run(root: &Path) -> Result<()> {
    let validator = install(root)?;
    python::status(
        Command::new(&validator)
            .arg(root.join(crate::DOCUMENT_PATH))
            .arg(root.join(PUBLISHED_PATH)),
        "openapi-spec-validator",
    )?;
    lint::run(root)
}
