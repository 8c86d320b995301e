//! The format's version: a document of a newer version than this core-server reads is refused
//! whole, naming the version, before any record of it is read.

use serde::Deserialize;

use super::{Bootstrap, BootstrapError, invalid};

/// The version of the format this core-server reads and writes: a document of a newer version is
/// refused whole, before any of it is read, since its records may mean what this version cannot
/// say.
pub const FORMAT_VERSION: u32 = 1;

/// Refuses a document of a newer format version before it is read as this version's (its new
/// fields would otherwise be refused as unknown, which says less).
pub(super) fn newer(text: &str, path: &str) -> Result<(), BootstrapError> {
    /// The one field every version of the format keeps.
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Versioned {
        #[serde(default)]
        format_version: Option<serde_json::Value>,
    }
    let version = serde_json::from_str::<Versioned>(text)
        .ok()
        .and_then(|versioned| versioned.format_version)
        .and_then(|version| version.as_u64());
    match version {
        Some(version) if version > u64::from(FORMAT_VERSION) => Err(BootstrapError::NewerFormat {
            path: path.to_string(),
            version,
        }),
        _ => Ok(()),
    }
}

/// Refuses a version below 1 or newer than [`FORMAT_VERSION`] in a document read already.
pub(super) fn check(document: &Bootstrap) -> Result<(), BootstrapError> {
    match document.format_version {
        Some(0) => Err(invalid(
            "document".to_string(),
            "formatVersion",
            "must be 1 or more",
        )),
        Some(version) if version > FORMAT_VERSION => Err(BootstrapError::NewerFormat {
            path: "document".to_string(),
            version: u64::from(version),
        }),
        _ => Ok(()),
    }
}
