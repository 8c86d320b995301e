//! `cargo xtask tools`: installs every pinned tool the outside checks run (from PyPI, npm and
//! Debian's packages, each where the chore that runs it keeps it, under `target/`) and runs none.
//! `.ci/run` runs it in the background while the tests run, so that no later stage waits for the
//! network. Each chore installs what it misses itself: this only does it earlier.

use std::path::Path;

use anyhow::Result;

use crate::{browser, clients, schemathesis, validate};

/// Installs the tools of `validate`, `browser`, `clients` and `schemathesis`.
pub fn run(root: &Path) -> Result<()> {
    validate::install(root)?;
    browser::install(root)?;
    clients::package::install(root)?;
    schemathesis::install(root)?;
    eprintln!(
        "xtask: the pinned tools of validate, browser, clients and schemathesis are installed"
    );
    Ok(())
}
