//! Assets with their versions and previews, each binary written as a file beside the document
//! ([`Files`]), read a stored chunk at a time.

use std::{collections::HashMap, io::Write, path::PathBuf};

use sqlx::AnyConnection;

use super::{ExportError, Kinds, by, span};
use crate::{
    bootstrap::{Asset, AssetVersion, Content, Preview},
    storage::{
        binaries,
        export::{self, AssetRow, Chunked, OwnedRow, PreviewRow, VersionRow},
    },
};

/// Where an export writes the binaries: a folder, named in the document by `reference` (a path
/// relative to the document's folder), made when the first binary is written.
#[derive(Debug)]
pub struct Files {
    folder: PathBuf,
    reference: String,
    made: bool,
}

impl Files {
    /// Binaries written into `folder`, which the document names `reference`.
    pub fn new(folder: PathBuf, reference: String) -> Files {
        Files {
            folder,
            reference,
            made: false,
        }
    }

    /// Whether a binary was written.
    pub fn made(&self) -> bool {
        self.made
    }

    /// Writes the binary of a version (`format` [`binaries::ORIGINAL`]) or of a preview into the
    /// file `name`; the content as the document states it.
    async fn write(
        &mut self,
        connection: &mut AnyConnection,
        version: i64,
        format: &str,
        name: &str,
    ) -> Result<Content, ExportError> {
        if !self.made {
            std::fs::create_dir_all(&self.folder)?;
            self.made = true;
        }
        let mut file = std::io::BufWriter::new(std::fs::File::create(self.folder.join(name))?);
        for seq in 0.. {
            match export::binary_chunk(connection, version, format, seq).await? {
                Some(data) => file.write_all(&data)?,
                None => break,
            }
        }
        file.into_inner()
            .map_err(std::io::IntoInnerError::into_error)?
            .sync_all()?;
        Ok(Content::File(format!("{}/{name}", self.reference)))
    }
}

/// What the assets of one chunk own.
struct Owned {
    versions: HashMap<i64, Vec<VersionRow>>,
    previews: HashMap<i64, Vec<PreviewRow>>,
    restrictions: HashMap<i64, Vec<OwnedRow>>,
}

impl Kinds<'_, '_> {
    pub(super) async fn assets(&mut self) -> Result<(), ExportError> {
        self.open("assets", "assets").await?;
        let mut after = 0;
        loop {
            let assets: Vec<AssetRow> =
                export::chunk(self.connection, Chunked::Assets, after).await?;
            let Some(last) = assets.last().map(|asset| asset.id) else {
                break;
            };
            let versions = export::versions(self.connection, after, last).await?;
            let (low, high) = span(versions.iter().map(|version| version.id));
            let previews = export::previews(self.connection, low, high).await?;
            let restrictions = export::owned(
                self.connection,
                export::Owned::AssetRestrictions,
                after,
                last,
            )
            .await?;
            let mut owned = Owned {
                versions: by(versions, |version| version.asset_id),
                previews: by(previews, |preview| preview.version_id),
                restrictions: by(restrictions, |role| role.owner),
            };
            self.progress
                .advance(u64::try_from(assets.len()).unwrap_or(u64::MAX));
            for asset in assets {
                let asset = self.asset(asset, &mut owned).await?;
                self.document.record(&asset)?;
            }
            after = last;
        }
        self.close()
    }

    /// One asset, its binaries written as files.
    async fn asset(&mut self, row: AssetRow, owned: &mut Owned) -> Result<Asset, ExportError> {
        let mut versions = Vec::new();
        for version in owned.versions.remove(&row.id).unwrap_or_default() {
            let id = version.id;
            let content = self
                .files
                .write(self.connection, id, binaries::ORIGINAL, &id.to_string())
                .await?;
            let mut previews = Vec::new();
            for (index, preview) in owned
                .previews
                .remove(&id)
                .unwrap_or_default()
                .into_iter()
                .enumerate()
            {
                let name = format!("{id}-preview-{index}");
                let content = self
                    .files
                    .write(self.connection, id, &preview.format, &name)
                    .await?;
                previews.push(Preview {
                    format: preview.format,
                    media_type: preview.media_type,
                    content,
                });
            }
            versions.push(AssetVersion {
                id: Some(id),
                version_number: version.version_number,
                tid: version.tid,
                media_type: version.media_type,
                file_name: version.file_name,
                created_at: Some(version.created_at),
                content,
                previews,
            });
        }
        let restricted_to = owned.restrictions.remove(&row.id).unwrap_or_default();
        Ok(Asset {
            id: Some(row.id),
            tid: row.tid,
            name: row.name,
            path: row.path,
            created_at: Some(row.created_at),
            modified_at: Some(row.modified_at),
            restricted_to: restricted_to.into_iter().map(|role| role.value).collect(),
            versions,
        })
    }
}
