//! The DAM module of the specification: the binary of an asset version or of one of its previews
//! (D-36), streamed from its stored chunks; `http::binary` answers ranges and conditions.

use core_api::messages;
use core_api::{DamApi, types::AssetsVersionsBinQuery};
use core_api_support::Binary;
use core_api_support::fill;

use crate::{
    error::ApiError,
    service::{Context, Service},
    storage::{
        binaries::{self, Chunks, Selector},
        records::Identity,
    },
};

impl DamApi for Service {
    async fn assets_versions_bin(
        &self,
        context: &Context,
        input: AssetsVersionsBinQuery,
    ) -> Result<Binary, ApiError> {
        let selector = match named(&input)? {
            Named::Version(tid) => Selector::Tid(tid),
            Named::Asset(identity) => Selector::Asset(identity, input.version_number),
        };
        let format = input.format.as_deref();
        let rows = binaries::locate(&self.database, selector, format).await?;
        let roles: Vec<&str> = rows.iter().filter_map(|row| row.role.as_deref()).collect();
        let visible = context.caller.sees(&roles);
        // A version named by its own tid belongs to an asset the caller must be allowed to
        // see: it is not found otherwise.
        let Some(found) = rows.first().filter(|_| visible) else {
            return Err(ApiError::NotFound(match selector {
                Selector::Tid(_) => messages::ASSET_VERSION_NOT_FOUND.to_string(),
                Selector::Asset(..) => messages::ASSET_NOT_FOUND.to_string(),
            }));
        };
        let (Some(version), Some(size), Some(etag)) =
            (found.version_id, found.size, found.etag.clone())
        else {
            return Err(ApiError::NotFound(
                messages::ASSET_VERSION_NOT_FOUND.to_string(),
            ));
        };
        let file_name = found
            .file_name
            .clone()
            .unwrap_or_else(|| found.asset_tid.clone());
        let (length, etag, format, file_name) = match format {
            None => (size, etag, binaries::ORIGINAL.to_string(), file_name),
            Some(format) => {
                let (Some(size), Some(etag)) = (found.preview_size, found.preview_etag.clone())
                else {
                    return Err(ApiError::NotFound(fill(
                        messages::PREVIEW_FORMAT_NOT_FOUND,
                        &[&format],
                    )));
                };
                (
                    size,
                    etag,
                    format.to_string(),
                    format!("{format}_{file_name}"),
                )
            }
        };
        Ok(Binary {
            length: u64::try_from(length).unwrap_or_default(),
            file_name: Some(file_name),
            etag: Some(etag).filter(|etag| !etag.is_empty()),
            source: Box::new(Chunks {
                pool: self.database.reads().clone(),
                backend: self.database.backend(),
                version,
                format,
            }),
        })
    }
}

/// What the query parameters name: a version by its tid, or an asset (and its version by number).
enum Named<'a> {
    Version(&'a str),
    Asset(Identity<'a>),
}

/// What a query names: `versionTid` alone, or `assetId` or `assetTid` (with `versionNumber`).
fn named(input: &AssetsVersionsBinQuery) -> Result<Named<'_>, ApiError> {
    let given = (
        input.version_tid.as_deref(),
        input.asset_id,
        input.asset_tid.as_deref(),
    );
    let text = match given {
        (Some(tid), None, None) if input.version_number.is_none() => {
            return Ok(Named::Version(tid));
        }
        (None, Some(id), None) => return Ok(Named::Asset(Identity::Id(id))),
        (None, None, Some(tid)) => return Ok(Named::Asset(Identity::Key(tid))),
        (Some(_), ..) => {
            "versionTid names a version alone: leave out assetId, assetTid and versionNumber"
        }
        (None, Some(_), Some(_)) => "give assetId or assetTid, not both",
        (None, None, None) => "assetId, assetTid or versionTid must be given",
    };
    Err(ApiError::Rule(text.to_string()))
}
