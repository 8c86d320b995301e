//! `cargo xtask validate`: checks the document with `openapi-spec-validator` (PyPI), installed
//! into the private Python environment of the chores.

use std::{path::Path, process::Command};

use anyhow::Result;

use crate::python;

/// The pinned validator version.
pub const VALIDATOR: &str = "openapi-spec-validator==0.9.0";

/// Installs the validator if needed and runs it on the document.
pub fn run(root: &Path) -> Result<()> {
    let validator = python::tool(root, VALIDATOR, "openapi-spec-validator")?;
    python::status(
        Command::new(&validator).arg(root.join(crate::DOCUMENT_PATH)),
        "openapi-spec-validator",
    )
}
