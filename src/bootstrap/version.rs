//! The format's version: a document of a newer version than this core-server reads is refused
//! whole, naming the version, before any record of it is written.

use serde::Deserialize;

use super::{Bootstrap, BootstrapError, invalid};

/// The version of the format this core-server reads and writes: a document of a newer version is
/// refused whole, before any of it is written, since its records may mean what this version
/// cannot say.
pub const FORMAT_VERSION: u32 = 2;

/// Reads a document's text. A newer version is refused naming the file, also when the document
/// is not this version's shape (its new fields would otherwise be refused as unknown, which says
/// less); the text is read leniently for its version only when the strict reading fails.
pub(super) fn read(text: &str, path: &str) -> Result<Bootstrap, BootstrapError> {
    match serde_json::from_str::<Bootstrap>(text) {
        Ok(document) => {
            refuse_newer(document.format_version.map(u64::from), path)?;
            Ok(document)
        }
        Err(error) => {
            refuse_newer(lenient(text), path)?;
            Err(BootstrapError::Format {
                path: path.to_string(),
                message: error.to_string(),
            })
        }
    }
}

/// The `formatVersion` of a text that may not be this version's document.
fn lenient(text: &str) -> Option<u64> {
    /// The one field every version of the format keeps.
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Versioned {
        #[serde(default)]
        format_version: Option<serde_json::Value>,
    }
    serde_json::from_str::<Versioned>(text)
        .ok()?
        .format_version?
        .as_u64()
}

/// Refuses a version newer than [`FORMAT_VERSION`].
fn refuse_newer(version: Option<u64>, path: &str) -> Result<(), BootstrapError> {
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
    if document.format_version == Some(0) {
        return Err(invalid(
            "document".to_string(),
            "formatVersion",
            "must be 1 or more",
        ));
    }
    refuse_newer(document.format_version.map(u64::from), "document")
}
