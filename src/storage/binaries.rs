//! The SQL of asset binaries: versions and previews found by their identities, and their bytes in
//! chunks of [`CHUNK`] (migration 0005), written from any reader and streamed chunk by chunk, so
//! that neither an import nor a download holds a binary whole.

use std::io::Read;

use bytes::Bytes;
use core_api_support::ByteSource;
use futures_util::stream;
use poem::Body;
use sha2::{Digest, Sha256};
use sqlx::{AnyConnection, AnyPool};

use super::{Database, read, records::Identity};

/// The size of a stored chunk: 1 MiB.
pub(crate) const CHUNK: usize = 1 << 20;

/// The `format` of a version's own binary among its chunks.
pub(crate) const ORIGINAL: &str = "";

/// How much of a binary a write stored.
#[derive(Debug)]
pub(crate) struct Written {
    /// The length in bytes.
    pub(crate) size: i64,
    /// The SHA-256 of the bytes, in hex.
    pub(crate) etag: String,
}

/// Replaces the chunks of a version's binary (`format` [`ORIGINAL`]) or of one of its previews
/// with the bytes `reader` gives, reading one chunk at a time.
pub(crate) async fn write(
    connection: &mut AnyConnection,
    version: i64,
    format: &str,
    reader: &mut dyn Read,
) -> Result<Written, WriteError> {
    sqlx::query(sql!(
        "DELETE FROM binary_chunks WHERE version_id = $1 AND format = $2"
    ))
    .bind(version)
    .bind(format.to_string())
    .execute(&mut *connection)
    .await?;
    let mut hash = Sha256::new();
    let mut size: i64 = 0;
    let mut buffer = vec![0; CHUNK];
    for seq in 0.. {
        let filled = fill(reader, &mut buffer)?;
        if filled == 0 {
            break;
        }
        let data = &buffer[..filled];
        hash.update(data);
        size += filled as i64;
        sqlx::query(sql!(
            "INSERT INTO binary_chunks (version_id, format, seq, data) VALUES ($1, $2, $3, $4)"
        ))
        .bind(version)
        .bind(format.to_string())
        .bind(seq as i64)
        .bind(data.to_vec())
        .execute(&mut *connection)
        .await?;
        if filled < CHUNK {
            break;
        }
    }
    Ok(Written {
        size,
        etag: hex::encode(hash.finalize()),
    })
}

/// Reads until the buffer is full or the reader ends; the number of bytes read.
fn fill(reader: &mut dyn Read, buffer: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buffer.len() {
        match reader.read(&mut buffer[filled..]) {
            Ok(0) => break,
            Ok(read) => filled += read,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
            Err(error) => return Err(error),
        }
    }
    Ok(filled)
}

/// Why a binary could not be written.
#[derive(Debug, thiserror::Error)]
pub(crate) enum WriteError {
    /// The bytes could not be read.
    #[error("cannot read the binary: {0}")]
    Read(#[from] std::io::Error),
    /// The database failed.
    #[error(transparent)]
    Database(#[from] sqlx::Error),
}

/// What a download finds of the binary it names, a row per role the asset is restricted to:
/// the asset, the version (none: no such version) and, when a format is named, its preview
/// (none: no such preview).
#[derive(Debug, sqlx::FromRow)]
pub(crate) struct Located {
    /// The asset's tid (the file name of a version without one).
    pub(crate) asset_tid: String,
    /// A role the asset is restricted to (none: unrestricted).
    pub(crate) role: Option<String>,
    /// The version's id.
    pub(crate) version_id: Option<i64>,
    /// The file name of the version's binary.
    pub(crate) file_name: Option<String>,
    /// The length of the version's binary.
    pub(crate) size: Option<i64>,
    /// Its validator.
    pub(crate) etag: Option<String>,
    /// The length of the preview.
    pub(crate) preview_size: Option<i64>,
    /// The preview's validator.
    pub(crate) preview_etag: Option<String>,
}

/// The statement finding a binary: `$from` joins the asset `a` and its version `v`, `$format`
/// names the preview's format, `$condition` the asset or version.
macro_rules! located {
    ($from:expr, $format:literal, $condition:literal) => {
        concat!(
            "SELECT a.tid AS asset_tid, r.name AS role, v.id AS version_id, v.file_name, \
             CAST(v.size AS BIGINT) AS size, v.etag, CAST(p.size AS BIGINT) AS preview_size, \
             p.etag AS preview_etag ",
            $from,
            " LEFT JOIN asset_previews p ON p.version_id = v.id AND p.format = ",
            $format,
            " LEFT JOIN access_restrictions ar ON ar.kind = 'asset' AND ar.record_id = a.id \
             LEFT JOIN roles r ON r.id = ar.role_id WHERE ",
            $condition,
            " ORDER BY r.name"
        )
    };
}

/// An asset's version by number (`$3`; the latest when NULL), as [`located!`] joins it.
macro_rules! asset_version {
    () => {
        "FROM assets a LEFT JOIN asset_versions v ON v.id = (SELECT w.id FROM asset_versions w \
         WHERE w.asset_id = a.id AND (w.version_number = $3 OR $3 IS NULL) \
         ORDER BY w.version_number DESC LIMIT 1)"
    };
}

/// How a download names a version.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Selector<'a> {
    /// By its own tid.
    Tid(&'a str),
    /// By its asset and number; the latest version when no number is given.
    Asset(Identity<'a>, Option<i32>),
}

/// The asset, version and preview (`format`; none: the version's own binary) a download names,
/// with the asset's roles, in one statement; none when no asset (or version named by tid) is.
pub(crate) async fn locate(
    database: &Database,
    selector: Selector<'_>,
    format: Option<&str>,
) -> Result<Vec<Located>, sqlx::Error> {
    let format = format.map(str::to_string);
    read::all(database, || match selector {
        Selector::Tid(tid) => sqlx::query_as(sql!(located!(
            "FROM asset_versions v JOIN assets a ON a.id = v.asset_id",
            "$2",
            "v.tid = $1"
        )))
        .bind(tid.to_string())
        .bind(format.clone()),
        Selector::Asset(asset, number) => asset
            .query_as(
                sql!(located!(asset_version!(), "$2", "a.id = $1")),
                sql!(located!(asset_version!(), "$2", "a.tid = $1")),
            )
            .bind(format.clone())
            .bind(number),
    })
    .await
}

/// The stored chunks of one binary, read on demand: the source of a download.
pub(crate) struct Chunks {
    /// The pool each chunk is read from (a download holds no connection between chunks).
    pub(crate) pool: AnyPool,
    /// Which database it is: the statements reading part of a chunk differ.
    pub(crate) backend: super::Backend,
    /// The version.
    pub(crate) version: i64,
    /// [`ORIGINAL`] or a preview's format.
    pub(crate) format: String,
}

/// The part of a chunk a download sends, `$4` bytes from byte `$5` (1-based): a range reads only
/// what it sends.
const PART_SQLITE: &str = sql!(sqlite:
    "SELECT substr(data, $5, $4) FROM binary_chunks WHERE version_id = $1 AND format = $2 AND seq = $3"
);
const PART_POSTGRES: &str = sql!(postgres:
    "SELECT substring(data FROM $5 FOR $4) FROM binary_chunks \
     WHERE version_id = $1 AND format = $2 AND seq = $3"
);

impl ByteSource for Chunks {
    fn open(self: Box<Self>, start: u64, end: u64) -> Body {
        let chunk = CHUNK as u64;
        let first = start / chunk;
        let state = (*self, first, start, end);
        let chunks = stream::unfold(state, move |(source, seq, at, end)| async move {
            if at >= end {
                return None;
            }
            // The bytes of this chunk within the range.
            let base = seq * chunk;
            let from = at - base;
            let length = end.min(base + chunk) - at;
            let statement = match source.backend {
                super::Backend::Sqlite => PART_SQLITE,
                super::Backend::Postgres => PART_POSTGRES,
            };
            let read: Result<Option<Vec<u8>>, sqlx::Error> = sqlx::query_scalar(statement)
                .bind(source.version)
                .bind(source.format.clone())
                .bind(seq as i64)
                .bind(i32::try_from(length).unwrap_or(i32::MAX))
                .bind(i32::try_from(from + 1).unwrap_or(i32::MAX))
                .fetch_optional(&source.pool)
                .await;
            let data = match read {
                Ok(Some(data)) if data.len() as u64 == length => data,
                Ok(_) => {
                    let error = std::io::Error::other(format!(
                        "chunk {seq} of version {} '{}' is missing or short",
                        source.version, source.format
                    ));
                    tracing::error!(%error, "a binary is shorter than its size");
                    return Some((Err(error), (source, seq + 1, end, end)));
                }
                Err(error) => {
                    tracing::error!(%error, "a binary chunk could not be read");
                    let error = std::io::Error::other(error);
                    return Some((Err(error), (source, seq + 1, end, end)));
                }
            };
            Some((Ok(Bytes::from(data)), (source, seq + 1, base + chunk, end)))
        });
        Body::from_bytes_stream(chunks)
    }
}
