//! Project chores for core-server, as a library so that tests can run them too.
//!
//! * [`codegen`] turns `openapi/core-v1.yaml` into the files under `generated/`.
//! * [`diff`] reports what a change of the document breaks, per operation and representation.
//! * [`release`] keeps released versions of the document and checks the current one against them.
//! * [`document`] loads the document in the two forms the generators need.
//! * [`fuzz`] seeds the fuzz corpora with the document's examples.
//! * [`validate`] runs `openapi-spec-validator` from a private Python environment ([`python`]),
//!   and the linters Spectral and Redocly from npm ([`lint`]).
//! * [`schemathesis`] runs Schemathesis against a server it starts.
//! * [`browser`] checks the docs pages in headless Chromium.
//! * [`clients`] generates Python and TypeScript clients from a served document, and Python XML
//!   bindings from the served XML Schema, and runs a scenario with each.
//! * [`debian`] finds or installs the Debian tools chores run (Chromium, wrk, xmllint).
//! * [`tools`] installs every pinned tool of the outside checks ahead of them.

pub mod bench_http;
pub mod browser;
pub mod clients;
pub mod codegen;
pub mod conformance;
pub mod debian;
pub mod diff;
pub mod document;
pub mod fuzz;
pub mod lint;
pub mod python;
pub mod release;
pub mod schemathesis;
pub mod server;
pub mod tidy;
pub mod tools;
pub mod validate;

use std::path::{Path, PathBuf};

/// The workspace root (the parent of this crate's folder).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// The authored document, relative to the workspace root.
pub const DOCUMENT_PATH: &str = "openapi/core-v1.yaml";
