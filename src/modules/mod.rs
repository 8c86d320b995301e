//! One module per specification module, each implementing the generated trait of its operations,
//! and what their messages share.

mod cm;
mod common;
mod dam;
mod peo;
mod pim;

use core_api::{document::SCHEMA_VERSION, types::SchemaVersion};

use crate::error::ApiError;

/// Checks a request's `schemaVersion` (D-09): absent or of the same major version as the one
/// this service speaks.
pub(crate) fn accept_schema_version(version: Option<&SchemaVersion>) -> Result<(), ApiError> {
    let Some(version) = version else {
        return Ok(());
    };
    let major = |text: &str| text.split('.').next().map(str::to_string);
    if major(version) == major(SCHEMA_VERSION) {
        Ok(())
    } else {
        Err(ApiError::Rule(format!(
            "schemaVersion: unsupported schemaVersion '{}' (this service speaks {SCHEMA_VERSION})",
            version.as_str()
        )))
    }
}

/// The `schemaVersion` every answer carries.
pub(crate) fn answer_schema_version() -> Option<SchemaVersion> {
    SCHEMA_VERSION.parse().ok()
}
