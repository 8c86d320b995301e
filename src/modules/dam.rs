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
        records::{self, ASSETS, Identity},
    },
};

impl DamApi for Service {
    async fn assets_versions_bin(
        &self,
        context: &Context,
        input: AssetsVersionsBinQuery,
    ) -> Result<Binary, ApiError> {
        let pool = self.database.reads();
        let asset = named(&input)?;
        let selector = match asset {
            Named::Version(tid) => Selector::Tid(tid),
            Named::Asset(identity) => {
                let mut connection = pool.acquire().await?;
                let (asset, _) = records::find_restricted(&mut connection, &ASSETS, identity)
                    .await?
                    .filter(|(_, roles)| context.caller.sees(roles))
                    .ok_or_else(|| ApiError::NotFound(messages::ASSET_NOT_FOUND.to_string()))?;
                Selector::Asset(asset, input.version_number)
            }
        };
        let version = binaries::version(pool, selector)
            .await?
            .ok_or_else(|| ApiError::NotFound(messages::ASSET_VERSION_NOT_FOUND.to_string()))?;
        // A version named by its own tid belongs to an asset the caller must be allowed to see.
        if let Selector::Tid(_) = selector {
            let mut connection = pool.acquire().await?;
            let visible =
                records::find_restricted(&mut connection, &ASSETS, Identity::Id(version.asset_id))
                    .await?
                    .is_some_and(|(_, roles)| context.caller.sees(&roles));
            if !visible {
                return Err(ApiError::NotFound(
                    messages::ASSET_VERSION_NOT_FOUND.to_string(),
                ));
            }
        }
        let file_name = version
            .file_name
            .clone()
            .unwrap_or_else(|| version.asset_tid.clone());
        let (length, etag, format, file_name) = match &input.format {
            None => (
                version.size,
                version.etag,
                binaries::ORIGINAL.to_string(),
                file_name,
            ),
            Some(format) => {
                let preview = binaries::preview(pool, version.id, format)
                    .await?
                    .ok_or_else(|| {
                        ApiError::NotFound(fill(messages::PREVIEW_FORMAT_NOT_FOUND, &[&format]))
                    })?;
                (
                    preview.size,
                    preview.etag,
                    format.clone(),
                    format!("{format}_{file_name}"),
                )
            }
        };
        Ok(Binary {
            length: u64::try_from(length).unwrap_or_default(),
            file_name: Some(file_name),
            etag: Some(etag).filter(|etag| !etag.is_empty()),
            source: Box::new(Chunks {
                pool: pool.clone(),
                backend: self.database.backend(),
                version: version.id,
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
