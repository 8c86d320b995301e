//! The types and tables generated from the document with two fields added to PimType
//! (`fixtureNote`, an attribute, and `fixtureCount`, a child element; see `build.rs`). They are
//! what `generated/core-api` would hold after that edit and `cargo xtask codegen`; the test
//! `tests/new_field.rs` runs the unchanged representation engine on them.

/// How each schema of the fixture document maps to XML and compact JSON.
pub mod tables {
    include!(concat!(env!("OUT_DIR"), "/tables.rs"));
}

/// The request/response types of the fixture document (typify).
#[allow(clippy::all, missing_docs)]
pub mod types {
    include!(concat!(env!("OUT_DIR"), "/types.rs"));
}
