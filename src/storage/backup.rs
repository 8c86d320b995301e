//! A consistent copy of an SQLite database while it serves (`core-server backup`): `VACUUM INTO`
//! reads one snapshot (a read transaction, which in write-ahead-log mode neither waits for a
//! writer nor holds one up) and writes it to a new file, compacted. PostgreSQL is backed up with
//! its own tools (`pg_dump`).

use std::path::Path;

use super::{Backend, Database};

/// Why a backup was not made.
#[derive(Debug, thiserror::Error)]
pub enum BackupError {
    /// The database is PostgreSQL.
    #[error(
        "core-server backup copies SQLite databases; back up PostgreSQL with pg_dump (see the README, \"Backups\")"
    )]
    Postgres,
    /// The target exists and `--force` was not given.
    #[error("{0} exists; give another file, or --force to replace it")]
    Exists(String),
    /// The target could not be replaced or written.
    #[error("cannot write {path}: {source}")]
    Io {
        /// The target.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The database failed.
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
}

/// Copies the database into `target` as one consistent snapshot; an existing `target` is
/// replaced only with `force` (and only once the copy is whole: it is written beside it first).
pub async fn copy(database: &Database, target: &Path, force: bool) -> Result<u64, BackupError> {
    if database.backend() != Backend::Sqlite {
        return Err(BackupError::Postgres);
    }
    let shown = target.display().to_string();
    if target.exists() && !force {
        return Err(BackupError::Exists(shown));
    }
    let io = |source| BackupError::Io {
        path: shown.clone(),
        source,
    };
    let partial = target.with_extension("partial");
    if partial.exists() {
        std::fs::remove_file(&partial).map_err(io)?;
    }
    sqlx::query(sql!(sqlite: "VACUUM INTO $1"))
        .bind(partial.to_string_lossy().to_string())
        .execute(database.writes())
        .await?;
    std::fs::rename(&partial, target).map_err(io)?;
    Ok(std::fs::metadata(target).map_err(io)?.len())
}
