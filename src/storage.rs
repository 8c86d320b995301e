//! The database: SQLite (a file, the default) or PostgreSQL, behind one `sqlx` `AnyPool`.
//!
//! The schema and its migrations arrive with the storage issue; for now the pool is opened at
//! start (creating the SQLite file and its folder) and answers the health check.

use std::path::Path;

use sqlx::{AnyPool, any::AnyPoolOptions};

/// Why the database could not be used.
#[derive(Debug, thiserror::Error)]
pub enum StorageError {
    /// The URL names no supported database.
    #[error("unsupported database URL '{0}': use sqlite:<file> or postgres://…")]
    UnsupportedUrl(String),
    /// The folder of the SQLite file could not be created.
    #[error("cannot create the folder of {path}: {source}")]
    CreateFolder {
        /// The folder.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
    /// The database answered with an error.
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
}

/// Which database a URL names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// An SQLite file.
    Sqlite,
    /// A PostgreSQL server.
    Postgres,
}

/// The connection pool.
#[derive(Debug, Clone)]
pub struct Database {
    pool: AnyPool,
    backend: Backend,
}

impl Database {
    /// Opens the database, creating an SQLite file (and its folder) when missing.
    pub async fn connect(url: &str) -> Result<Database, StorageError> {
        sqlx::any::install_default_drivers();
        let (backend, url) = prepare(url)?;
        // An in-memory SQLite database exists per connection, so it gets exactly one.
        let options = AnyPoolOptions::new().max_connections(match backend {
            Backend::Sqlite if url.contains(":memory:") => 1,
            Backend::Sqlite => 4,
            Backend::Postgres => 16,
        });
        let pool = options.connect(&url).await?;
        if backend == Backend::Sqlite {
            sqlx::query("PRAGMA journal_mode = WAL")
                .execute(&pool)
                .await?;
        }
        Ok(Database { pool, backend })
    }

    /// Which database this is.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Checks that the database answers.
    pub async fn ping(&self) -> Result<(), StorageError> {
        sqlx::query("SELECT 1").execute(&self.pool).await?;
        Ok(())
    }
}

/// Recognises the backend and, for SQLite, creates the file's folder and asks for the file to be
/// created.
fn prepare(url: &str) -> Result<(Backend, String), StorageError> {
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        return Ok((Backend::Postgres, url.to_string()));
    }
    let Some(rest) = url.strip_prefix("sqlite:") else {
        return Err(StorageError::UnsupportedUrl(url.to_string()));
    };
    let rest = rest.strip_prefix("//").unwrap_or(rest);
    let (file, query) = rest.split_once('?').unwrap_or((rest, ""));
    if file.is_empty() {
        return Err(StorageError::UnsupportedUrl(url.to_string()));
    }
    if file == ":memory:" {
        return Ok((Backend::Sqlite, "sqlite::memory:".to_string()));
    }
    if let Some(folder) = Path::new(file)
        .parent()
        .filter(|folder| !folder.as_os_str().is_empty())
    {
        std::fs::create_dir_all(folder).map_err(|source| StorageError::CreateFolder {
            path: file.to_string(),
            source,
        })?;
    }
    let mut options: Vec<&str> = query
        .split('&')
        .filter(|option| !option.is_empty())
        .collect();
    if !options.iter().any(|option| option.starts_with("mode=")) {
        options.push("mode=rwc");
    }
    Ok((
        Backend::Sqlite,
        format!("sqlite:{file}?{}", options.join("&")),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_urls() {
        assert_eq!(
            prepare("postgres://u@h/db").map(|(b, _)| b).ok(),
            Some(Backend::Postgres)
        );
        assert_eq!(
            prepare("sqlite::memory:").map(|(_, u)| u).ok().as_deref(),
            Some("sqlite::memory:")
        );
        assert_eq!(
            prepare("sqlite://data/a.db")
                .map(|(_, u)| u)
                .ok()
                .as_deref(),
            Some("sqlite:data/a.db?mode=rwc")
        );
        assert!(matches!(
            prepare("mysql://h/db"),
            Err(StorageError::UnsupportedUrl(_))
        ));
        assert!(matches!(
            prepare("sqlite:"),
            Err(StorageError::UnsupportedUrl(_))
        ));
    }
}
