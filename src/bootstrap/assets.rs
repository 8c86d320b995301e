//! Assets with their versions (binaries) and previews, and access restrictions.

use std::path::{Component, Path, PathBuf};

use base64::Engine;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Bootstrap, BootstrapError, Checks, Loader, given, identifier, invalid, non_empty};
use crate::storage::{
    binaries,
    import::{self, AssetRow, Lookup, VersionRow},
};

/// An asset.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Asset {
    /// The id it keeps when new (an export gives it); absent: the next one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub id: Option<i64>,
    /// The identifier.
    pub tid: String,
    /// The name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Its path (shown as the text of a channel's asset link).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// When it was created (UTC text), kept when new; absent: the time of the import.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<String>,
    /// When it was last changed (UTC text); absent: the time of the import.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modified_at: Option<String>,
    /// Roles it is restricted to (none: everybody).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub restricted_to: Vec<String>,
    /// Its versions, by `versionNumber`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub versions: Vec<AssetVersion>,
}

/// A version of an asset, with its binary and previews.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AssetVersion {
    /// The id it keeps when new (an export gives it); absent: the next one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub id: Option<i64>,
    /// The version number.
    pub version_number: i64,
    /// The version's own identifier.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tid: Option<String>,
    /// The media type of the binary.
    pub media_type: String,
    /// The file name offered with the binary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_name: Option<String>,
    /// When it was created (UTC text), kept when new; absent: the time of the import.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<String>,
    /// The binary.
    pub content: Content,
    /// Previews, by `format`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub previews: Vec<Preview>,
}

/// A preview of an asset version.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Preview {
    /// The preview type, as asked for by `format`.
    pub format: String,
    /// The media type.
    pub media_type: String,
    /// The binary.
    pub content: Content,
}

/// Binary content: a file next to the document, or inline base64.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub enum Content {
    /// A path relative to the document's folder, inside it: no absolute path, no `..`, no
    /// symbolic link leading out of it.
    File(String),
    /// Standard base64.
    Base64(String),
}

/// Checks each asset: identity, restrictions, unique version numbers and version tids.
pub(super) fn check<'d>(
    document: &'d Bootstrap,
    checks: &mut Checks<'d>,
) -> Result<(), BootstrapError> {
    for (index, asset) in document.assets.iter().enumerate() {
        let record = format!("assets[{index}] ({})", asset.tid);
        non_empty(&record, "tid", &asset.tid)?;
        identifier(&record, "tid", &asset.tid)?;
        checks.unique("assets", &asset.tid, record.clone())?;
        given(
            &record,
            asset.id,
            &[
                ("createdAt", asset.created_at.as_deref()),
                ("modifiedAt", asset.modified_at.as_deref()),
            ],
        )?;
        checks.known_roles(&record, &asset.restricted_to)?;
        let mut numbers = std::collections::HashSet::new();
        for (version_index, version) in asset.versions.iter().enumerate() {
            let record = format!("{record}.versions[{version_index}]");
            given(
                &record,
                version.id,
                &[("createdAt", version.created_at.as_deref())],
            )?;
            if version.version_number < 1 || !numbers.insert(version.version_number) {
                return Err(invalid(
                    record,
                    "versionNumber",
                    "must be unique and at least 1",
                ));
            }
            if let Some(tid) = &version.tid {
                identifier(&record, "tid", tid)?;
                checks.unique("asset versions", tid, record)?;
            }
        }
    }
    Ok(())
}

/// The bytes of one binary of the document: inline ones decoded, a file checked readable now
/// and read chunk by chunk while it is written, so that a large binary is never held whole.
#[derive(Debug)]
pub(super) enum Binary {
    /// Decoded base64.
    Bytes(Vec<u8>),
    /// A file beside the document.
    File(PathBuf),
}

impl Binary {
    /// A reader of the bytes.
    fn reader(&self) -> std::io::Result<Box<dyn std::io::Read + '_>> {
        Ok(match self {
            Binary::Bytes(bytes) => Box::new(bytes.as_slice()),
            Binary::File(path) => Box::new(std::fs::File::open(path)?),
        })
    }
}

/// The binaries of the document in order (version, then its previews), checked before the
/// transaction begins.
pub(super) fn read_binaries(
    document: &Bootstrap,
    folder: &Path,
) -> Result<Vec<Binary>, BootstrapError> {
    let mut binaries = Vec::new();
    for (index, asset) in document.assets.iter().enumerate() {
        for (version_index, version) in asset.versions.iter().enumerate() {
            let record = format!("assets[{index}] ({}).versions[{version_index}]", asset.tid);
            binaries.push(read_content(&version.content, folder, &record)?);
            for (preview_index, preview) in version.previews.iter().enumerate() {
                let record = format!("{record}.previews[{preview_index}]");
                binaries.push(read_content(&preview.content, folder, &record)?);
            }
        }
    }
    Ok(binaries)
}

fn read_content(content: &Content, folder: &Path, record: &str) -> Result<Binary, BootstrapError> {
    match content {
        Content::File(file) => {
            let refused = |reason: String| invalid(record.to_string(), "content.file", reason);
            let path = confined(folder, file).map_err(refused)?;
            std::fs::File::open(&path)
                .and_then(|file| file.metadata())
                .and_then(|metadata| {
                    if metadata.is_file() {
                        Ok(())
                    } else {
                        Err(std::io::Error::other("not a file"))
                    }
                })
                .map_err(|error| refused(cannot_read(&path, &error)))?;
            Ok(Binary::File(path))
        }
        Content::Base64(text) => base64::engine::general_purpose::STANDARD
            .decode(text.trim())
            .map(Binary::Bytes)
            .map_err(|error| invalid(record.to_string(), "content.base64", error.to_string())),
    }
}

/// The file `file` names inside the document's folder: a relative path without `..`, which
/// (once symbolic links are followed) stays inside the folder, so that a document cannot make
/// the server import, and then serve, a file from elsewhere (`/proc/self/environ`, a key).
fn confined(folder: &Path, file: &str) -> Result<PathBuf, String> {
    let relative = Path::new(file);
    let plain = relative
        .components()
        .all(|part| matches!(part, Component::Normal(_) | Component::CurDir));
    if relative.is_absolute() || !plain {
        return Err(format!(
            "'{file}' is not inside the document's folder: give a relative path without '..'"
        ));
    }
    let folder = if folder.as_os_str().is_empty() {
        Path::new(".")
    } else {
        folder
    };
    let root = folder
        .canonicalize()
        .map_err(|error| cannot_read(folder, &error))?;
    let joined = root.join(relative);
    let path = joined
        .canonicalize()
        .map_err(|error| cannot_read(&joined, &error))?;
    if !path.starts_with(&root) {
        return Err(format!(
            "'{file}' leaves the document's folder through a symbolic link"
        ));
    }
    Ok(path)
}

/// Why a binary's file cannot be read, naming the file.
fn cannot_read(path: &Path, error: &std::io::Error) -> String {
    format!("cannot read {}: {error}", path.display())
}

impl Loader<'_, '_> {
    /// Upserts the assets with their versions and previews.
    pub(super) async fn assets(
        &mut self,
        document: &Bootstrap,
        binaries: &mut std::vec::IntoIter<Binary>,
    ) -> Result<(), BootstrapError> {
        for (index, asset) in document.assets.iter().enumerate() {
            self.progress.advance(1);
            self.asset(asset, binaries)
                .await
                .map_err(|error| error.within(|| format!("assets[{index}] ({})", asset.tid)))?;
        }
        Ok(())
    }

    async fn asset(
        &mut self,
        asset: &Asset,
        binaries: &mut std::vec::IntoIter<Binary>,
    ) -> Result<(), BootstrapError> {
        let row = AssetRow {
            id: asset.id,
            tid: &asset.tid,
            name: asset.name.as_deref(),
            path: asset.path.as_deref(),
            created_at: asset.created_at.as_deref().unwrap_or(&self.now),
            modified_at: asset.modified_at.as_deref().unwrap_or(&self.now),
        };
        import::upsert_asset(self.transaction, &row).await?;
        self.loaded.records += 1;
        let asset_id = self.id(Lookup::Asset, &asset.tid).await?;
        self.restrict("asset", asset_id, &asset.restricted_to)
            .await?;
        for version in &asset.versions {
            let row = VersionRow {
                id: version.id,
                asset_id,
                version_number: version.version_number,
                tid: version.tid.as_deref(),
                media_type: &version.media_type,
                file_name: version.file_name.as_deref(),
                created_at: version.created_at.as_deref().unwrap_or(&self.now),
            };
            let version_id = import::upsert_version(self.transaction, &row).await?;
            let written = self
                .binary(binaries.next(), version_id, binaries::ORIGINAL)
                .await?;
            import::set_version_content(self.transaction, version_id, written.size, &written.etag)
                .await?;
            self.loaded.records += 1;
            for preview in &version.previews {
                let written = self
                    .binary(binaries.next(), version_id, &preview.format)
                    .await?;
                import::upsert_preview(
                    self.transaction,
                    version_id,
                    &preview.format,
                    &preview.media_type,
                    written.size,
                    &written.etag,
                )
                .await?;
                self.loaded.records += 1;
            }
        }
        Ok(())
    }

    /// Writes the next binary of the document as the chunks of a version or a preview.
    async fn binary(
        &mut self,
        binary: Option<Binary>,
        version: i64,
        format: &str,
    ) -> Result<binaries::Written, BootstrapError> {
        let binary = binary.unwrap_or(Binary::Bytes(Vec::new()));
        let cannot_read = |error: std::io::Error| {
            invalid(
                format!("asset version {version}"),
                "content",
                format!("cannot read the binary: {error}"),
            )
        };
        let mut reader = binary.reader().map_err(cannot_read)?;
        binaries::write(self.transaction, version, format, &mut *reader)
            .await
            .map_err(|error| match error {
                binaries::WriteError::Read(error) => cannot_read(error),
                binaries::WriteError::Database(error) => error.into(),
            })
    }
}
