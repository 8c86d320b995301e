//! The database: SQLite (a file, the default) or PostgreSQL, behind one `sqlx` `AnyPool`, and
//! the SQL of each resource (one module each: typed rows, queries with a placeholder per value;
//! `records` finds any record by its identity). Modules hold the rules, storage the SQL.
//!
//! The pool is opened at start (creating the SQLite file and its folder) and the migrations of
//! the backend (`migrations/sqlite`, `migrations/postgres`: one schema in two dialects) are run.
//! Nothing the service needs lives in the process: every instance sharing a PostgreSQL database
//! sees the same users, tokens and data, and ids come from the database.

pub(crate) mod attributes;
pub(crate) mod binaries;
pub(crate) mod briefings;
pub(crate) mod channels;
pub(crate) mod classifications;
pub(crate) mod components;
pub(crate) mod definitions;
pub(crate) mod flag;
pub(crate) mod glossary;
pub(crate) mod keywords;
pub(crate) mod links;
pub(crate) mod locales;
pub(crate) mod messages;
pub(crate) mod nodes;
pub(crate) mod peos;
pub(crate) mod records;
pub(crate) mod trees;
pub(crate) mod values;

use std::path::Path;

use sqlx::{
    Any, AnyPool, Connection, Encode, FromRow, Transaction, Type,
    any::{AnyPoolOptions, AnyRow},
};

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
    /// The schema could not be brought up to date.
    #[error("cannot migrate the database: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
}

/// How much of an SQLite file each connection maps into memory (256 MiB).
const SQLITE_MMAP: &str = "PRAGMA mmap_size = 268435456";

/// How long a PostgreSQL connection may have been idle in the pool before it is pinged when
/// taken out again.
const IDLE_PING: std::time::Duration = std::time::Duration::from_secs(1);

/// The key of PostgreSQL's advisory lock between batches ("corebtch" in ASCII).
const BATCH_LOCK: i64 = 0x636f_7265_6274_6368;

/// How long a writer waits for SQLite's one write lock, which a batch holds while it runs (D-14).
const SQLITE_BUSY_TIMEOUT: &str = "PRAGMA busy_timeout = 30000";

static SQLITE_MIGRATIONS: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/sqlite");
static POSTGRES_MIGRATIONS: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/postgres");

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
        let mut options = AnyPoolOptions::new().max_connections(match backend {
            Backend::Sqlite if url.contains(":memory:") => 1,
            Backend::Sqlite => 4,
            Backend::Postgres => 16,
        });
        // sqlx pings a connection each time it leaves the pool, besides each time it comes back:
        // an exchange with SQLite's worker thread or the PostgreSQL server more per statement,
        // about a third of a small read's time. An SQLite connection lives in the process and
        // cannot be lost; a PostgreSQL one is pinged only when it has been idle long enough
        // for the server to have gone away since it was last used (`IDLE_PING`).
        options = options.test_before_acquire(false);
        if backend == Backend::Postgres {
            options = options.before_acquire(|connection, metadata| {
                Box::pin(async move {
                    if metadata.idle_for >= IDLE_PING {
                        connection.ping().await?;
                    }
                    Ok(true)
                })
            });
        }
        if backend == Backend::Sqlite {
            // Pages read through a memory map of the file, shared by every connection, instead
            // of one `pread` per page into each connection's 2 MB cache: a 100,000-node
            // classification is read about 40% faster (`cargo bench --bench classes`).
            options = options.after_connect(|connection, _| {
                Box::pin(async move {
                    sqlx::query(SQLITE_MMAP).execute(&mut *connection).await?;
                    sqlx::query(SQLITE_BUSY_TIMEOUT).execute(connection).await?;
                    Ok(())
                })
            });
        }
        let pool = options.connect(&url).await?;
        let migrations = match backend {
            Backend::Sqlite => {
                sqlx::query("PRAGMA journal_mode = WAL")
                    .execute(&pool)
                    .await?;
                &SQLITE_MIGRATIONS
            }
            Backend::Postgres => &POSTGRES_MIGRATIONS,
        };
        migrations.run(&pool).await?;
        Ok(Database { pool, backend })
    }

    /// The pool, for the modules' queries.
    pub fn pool(&self) -> &AnyPool {
        &self.pool
    }

    /// Begins a write transaction. On SQLite it takes the write lock at once (`BEGIN IMMEDIATE`),
    /// so concurrent writers queue on the busy timeout instead of failing when a transaction that
    /// has read turns into one that writes.
    pub async fn write(&self) -> Result<Transaction<'static, Any>, sqlx::Error> {
        match self.backend {
            Backend::Sqlite => self.pool.begin_with("BEGIN IMMEDIATE").await,
            Backend::Postgres => self.pool.begin().await,
        }
    }

    /// Takes the batch lock in a batch's transaction (D-14). SQLite lets one writer in at a
    /// time already; on PostgreSQL batches run together under a shared advisory lock, and a
    /// batch run again after a deadlock takes it exclusively, so that it waits for the batches
    /// running and runs alone, where it cannot deadlock again.
    pub async fn lock_batches(
        &self,
        transaction: &mut Transaction<'static, Any>,
        alone: bool,
    ) -> Result<(), sqlx::Error> {
        if self.backend == Backend::Sqlite {
            return Ok(());
        }
        let statement = if alone {
            "SELECT pg_advisory_xact_lock($1)::text"
        } else {
            "SELECT pg_advisory_xact_lock_shared($1)::text"
        };
        sqlx::query(statement)
            .bind(BATCH_LOCK)
            .execute(&mut **transaction)
            .await?;
        Ok(())
    }

    /// The pool's connections for the metrics: open, idle, and the most it opens.
    pub fn connections(&self) -> [(&'static str, u64); 3] {
        [
            ("open", u64::from(self.pool.size())),
            ("idle", self.pool.num_idle() as u64),
            ("max", u64::from(self.pool.options().get_max_connections())),
        ]
    }

    /// Which database this is.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Closes every connection, waiting for the ones in use. On SQLite the write-ahead log is
    /// first checkpointed into the database file; when the last connection closes, SQLite
    /// removes the `-wal` and `-shm` files.
    pub async fn close(&self) {
        if self.backend == Backend::Sqlite
            && let Err(error) = sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)")
                .execute(&self.pool)
                .await
        {
            tracing::warn!(%error, "the write-ahead log could not be checkpointed");
        }
        self.pool.close().await;
    }

    /// Checks that the database answers.
    pub async fn ping(&self) -> Result<(), StorageError> {
        sqlx::query("SELECT 1").execute(&self.pool).await?;
        Ok(())
    }
}

/// How many values one `IN (…)` list binds at most: far below every backend's limit on bound
/// values (SQLite 32,766, PostgreSQL 65,535), so any list is read in a few statements.
const IN_LIST_CHUNK: usize = 500;

/// Rows whose column is one of `values`: `head` ends with `IN (` and `tail` starts with `)`.
/// The list is read in chunks of [`IN_LIST_CHUNK`]; rows come chunk after chunk, each chunk in
/// the order `tail` gives. The statement's only variable part is its placeholders (`$1, $2, …`),
/// so it is safe text whatever the values.
pub(crate) async fn in_list<T, V>(
    pool: &AnyPool,
    head: &'static str,
    tail: &'static str,
    values: &[V],
) -> Result<Vec<T>, sqlx::Error>
where
    T: for<'r> FromRow<'r, AnyRow> + Send + Unpin,
    V: for<'q> Encode<'q, Any> + Type<Any> + Clone + Send + Sync + 'static,
{
    let mut rows = Vec::new();
    for chunk in values.chunks(IN_LIST_CHUNK) {
        let placeholders: Vec<String> = (1..=chunk.len()).map(|n| format!("${n}")).collect();
        let statement = format!("{head}{}{tail}", placeholders.join(", "));
        let mut query = sqlx::query_as::<_, T>(sqlx::AssertSqlSafe(statement));
        for value in chunk {
            query = query.bind(value.clone());
        }
        rows.extend(query.fetch_all(pool).await?);
    }
    Ok(rows)
}

/// The current time as the service stores and shows timestamps: ISO 8601 UTC with milliseconds
/// (`2024-01-10T08:00:00.000Z`).
pub fn now_utc() -> String {
    format_utc(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default(),
    )
}

/// Formats a time given as its distance from the Unix epoch (the calendar arithmetic is
/// `local_time`'s, which reads local timestamps into the same text).
fn format_utc(since: std::time::Duration) -> String {
    crate::local_time::format_millis(i64::try_from(since.as_millis()).unwrap_or(i64::MAX))
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

/// The rows of an aggregating statement, read from the JSON array it answers (none: no row).
/// Rows cross the driver one by one at a few microseconds each; one text crosses it once and
/// `serde_json` reads it at hundreds of MB/s (`storage::trees`, keywords retrieve).
pub(crate) fn json_rows<T: serde::de::DeserializeOwned>(
    text: Option<String>,
) -> Result<Vec<T>, sqlx::Error> {
    match text {
        None => Ok(Vec::new()),
        Some(text) => serde_json::from_str(&text).map_err(|error| sqlx::Error::ColumnDecode {
            index: "0".into(),
            source: Box::new(error),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_iso_8601_utc_with_milliseconds() {
        use std::time::Duration;
        assert_eq!(format_utc(Duration::ZERO), "1970-01-01T00:00:00.000Z");
        assert_eq!(
            format_utc(Duration::from_millis(1_704_873_600_123)),
            "2024-01-10T08:00:00.123Z"
        );
        assert_eq!(
            format_utc(Duration::from_secs(951_868_799)),
            "2000-02-29T23:59:59.000Z"
        );
        assert_eq!(now_utc().len(), 24);
    }

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
