//! The database: SQLite (a file, the default) or PostgreSQL, behind one `sqlx` `AnyPool`, and
//! the SQL of each resource (one module each: typed rows, queries with a placeholder per value;
//! `records` finds any record by its identity). Modules hold the rules, storage the SQL.
//!
//! The pool is opened at start (creating the SQLite file and its folder) and the migrations of
//! the backend (`migrations/sqlite`, `migrations/postgres`: one schema in two dialects) are run.
//! Nothing the service needs lives in the process: every instance sharing a PostgreSQL database
//! sees the same users, tokens and data, and ids come from the database.

#[macro_use]
mod sql;

pub(crate) mod access;
pub(crate) mod attributes;
pub mod backup;
pub(crate) mod binaries;
pub(crate) mod briefings;
pub(crate) mod channels;
pub(crate) mod classifications;
pub(crate) mod components;
pub(crate) mod definitions;
mod direct;
pub(crate) mod export;
pub(crate) mod flag;
pub(crate) mod glossary;
pub(crate) mod idempotency;
pub(crate) mod import;
pub(crate) mod keywords;
pub(crate) mod links;
pub(crate) mod locales;
pub(crate) mod messages;
pub(crate) mod nodes;
pub(crate) mod peos;
mod pools;
pub(crate) mod read;
pub(crate) mod records;
pub(crate) mod stream;
pub mod testing;
pub mod transfer;
pub(crate) mod trees;
pub mod url;
pub(crate) mod values;

use std::{sync::Arc, time::Duration};

use sqlx::{
    Any, AnyPool, Encode, FromRow, Transaction, Type,
    any::{AnyArguments, AnyRow},
    query::QueryAs,
};

use direct::Direct;
use pools::{Role, SQLITE_MMAP, pool_options, pool_sizes};

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
    /// The database was migrated by a newer core-server: it holds a migration this one does not
    /// know, whose schema this one was not written for.
    #[error(
        "the database holds migration {applied}, and this core-server knows migrations up to \
         {known}: a newer core-server migrated it; run that version or a newer one"
    )]
    Newer {
        /// The migration the database holds that this core-server does not know.
        applied: i64,
        /// The last migration this core-server knows.
        known: i64,
    },
}

/// The key of PostgreSQL's advisory lock between batches ("corebtch" in ASCII).
const BATCH_LOCK: i64 = 0x636f_7265_6274_6368;

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

/// Which database a connection talks to, for the few statements whose text differs.
pub(crate) fn backend_of(connection: &sqlx::AnyConnection) -> Backend {
    if connection.backend_name() == "PostgreSQL" {
        Backend::Postgres
    } else {
        Backend::Sqlite
    }
}

/// How the database is used besides its URL.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// How long a request waits for a connection (and on SQLite for the write lock) before the
    /// database counts as unavailable (D-37).
    pub timeout: Duration,
    /// The most connections to PostgreSQL, half for reads and half for writes (at least one
    /// each); SQLite has its own fixed pools.
    pub postgres_connections: u32,
    /// The most pages an SQLite file may grow to (`PRAGMA max_page_count`): a full disk, for
    /// tests.
    pub sqlite_max_pages: Option<u64>,
    /// How long a streamed answer may keep reading its statement (D-59).
    pub stream_timeout: Duration,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            timeout: Duration::from_secs(crate::settings::DEFAULT_DATABASE_TIMEOUT_SECONDS),
            postgres_connections: crate::settings::DEFAULT_DATABASE_CONNECTIONS,
            sqlite_max_pages: None,
            stream_timeout: Duration::from_secs(crate::settings::DEFAULT_STREAM_TIMEOUT_SECONDS),
        }
    }
}

/// The connections: a pool for reads and authentication, whose connections cannot write, and
/// a pool for writes, so that writers waiting for the write lock (SQLite's, or PostgreSQL's
/// batch lock) never hold the connections readers need (D-37).
#[derive(Debug, Clone)]
pub struct Database {
    reads: AnyPool,
    writes: AnyPool,
    backend: Backend,
    stream_timeout: Duration,
    /// The read connections streamed answers may hold at once: at most half of them, so that a
    /// client slow to take a long answer never holds every reader (D-59).
    streams: Arc<tokio::sync::Semaphore>,
    /// On an SQLite file, the connections streamed answers read on, without sqlx's worker
    /// thread (`storage::direct`); none on PostgreSQL and in-memory SQLite.
    direct: Option<Arc<Direct>>,
}

impl Database {
    /// Opens the database with the default [`Options`], creating an SQLite file (and its folder)
    /// when missing.
    pub async fn connect(url: &str) -> Result<Database, StorageError> {
        Database::connect_with(url, Options::default()).await
    }

    /// Opens the database, creating an SQLite file (and its folder) when missing, and brings its
    /// schema up to date.
    pub async fn connect_with(url: &str, options: Options) -> Result<Database, StorageError> {
        sqlx::any::install_default_drivers();
        let (backend, url) = url::prepare(url)?;
        let (readers, writers) = pool_sizes(backend, &options);
        let database = if backend == Backend::Sqlite && url.contains(":memory:") {
            let pool = pool_options(backend, options, Role::Shared, 1)
                .connect(&url)
                .await?;
            Database {
                reads: pool.clone(),
                writes: pool,
                backend,
                stream_timeout: options.stream_timeout,
                streams: Arc::new(tokio::sync::Semaphore::new((readers / 2).max(1) as usize)),
                direct: None,
            }
        } else {
            // The write pool first: it creates an SQLite file and turns its write-ahead log on,
            // which lets the readers read beside the writer.
            let writes = pool_options(backend, options, Role::Writes, writers)
                .connect(&url)
                .await?;
            if backend == Backend::Sqlite {
                sqlx::query("PRAGMA journal_mode = WAL")
                    .execute(&writes)
                    .await?;
            }
            let reads = pool_options(backend, options, Role::Reads, readers)
                .connect(&url)
                .await?;
            Database {
                reads,
                writes,
                backend,
                stream_timeout: options.stream_timeout,
                streams: Arc::new(tokio::sync::Semaphore::new((readers / 2).max(1) as usize)),
                direct: url::sqlite_file(&url)
                    .map(|file| Arc::new(Direct::new(file, options.timeout))),
            }
        };
        let migrations = match backend {
            Backend::Sqlite => &SQLITE_MIGRATIONS,
            Backend::Postgres => &POSTGRES_MIGRATIONS,
        };
        let known = migrations.iter().map(|migration| migration.version).max();
        migrations
            .run(&database.writes)
            .await
            .map_err(|error| match (error, known) {
                (sqlx::migrate::MigrateError::VersionMissing(applied), Some(known))
                    if applied > known =>
                {
                    StorageError::Newer { applied, known }
                }
                (other, _) => StorageError::Migrate(other),
            })?;
        Ok(database)
    }

    /// The pool of reads and authentication. Its connections cannot write (SQLite
    /// `query_only`, PostgreSQL read-only transactions).
    pub fn reads(&self) -> &AnyPool {
        &self.reads
    }

    /// The pool of writes outside a batch's transaction (commands, tests); a batch takes its
    /// transaction with [`Database::write`].
    pub fn writes(&self) -> &AnyPool {
        &self.writes
    }

    /// Begins a write transaction. On SQLite it takes the write lock at once (`BEGIN IMMEDIATE`),
    /// so concurrent writers queue instead of failing when a transaction that has read turns
    /// into one that writes.
    pub async fn write(&self) -> Result<Transaction<'static, Any>, sqlx::Error> {
        match self.backend {
            Backend::Sqlite => self.writes.begin_with("BEGIN IMMEDIATE").await,
            Backend::Postgres => self.writes.begin().await,
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
            sql!(postgres: "SELECT pg_advisory_xact_lock($1)::text")
        } else {
            sql!(postgres: "SELECT pg_advisory_xact_lock_shared($1)::text")
        };
        sqlx::query(statement)
            .bind(BATCH_LOCK)
            .execute(&mut **transaction)
            .await?;
        Ok(())
    }

    /// The pools' connections for the metrics: open, idle, and the most they open.
    pub fn connections(&self) -> [(&'static str, u64); 3] {
        // In-memory SQLite has one pool for both.
        let pools: &[&AnyPool] = if std::ptr::eq(self.reads.options(), self.writes.options()) {
            &[&self.reads]
        } else {
            &[&self.reads, &self.writes]
        };
        let sum = |count: &dyn Fn(&AnyPool) -> u64| pools.iter().map(|pool| count(pool)).sum();
        [
            ("open", sum(&|pool| u64::from(pool.size()))),
            ("idle", sum(&|pool| pool.num_idle() as u64)),
            (
                "max",
                sum(&|pool| u64::from(pool.options().get_max_connections())),
            ),
        ]
    }

    /// Which database this is.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// How long a streamed answer may keep reading its statement (D-59).
    pub fn stream_timeout(&self) -> Duration {
        self.stream_timeout
    }

    /// The places of streamed answers among the read connections (D-59).
    pub(crate) fn streams(&self) -> Arc<tokio::sync::Semaphore> {
        Arc::clone(&self.streams)
    }

    /// The direct read connections of an SQLite file (`storage::direct`).
    pub(crate) fn direct(&self) -> Option<Arc<Direct>> {
        self.direct.clone()
    }

    /// How long a request waits for the database (a connection, a place to stream).
    pub(crate) fn timeout(&self) -> Duration {
        self.reads.options().get_acquire_timeout()
    }

    /// Closes every connection, waiting for the ones in use. On SQLite the write-ahead log is
    /// first checkpointed into the database file; when the last connection closes, SQLite
    /// removes the `-wal` and `-shm` files.
    pub async fn close(&self) {
        if let Some(direct) = &self.direct {
            direct.close();
        }
        self.reads.close().await;
        if self.backend == Backend::Sqlite
            && let Err(error) = sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)")
                .execute(&self.writes)
                .await
        {
            tracing::warn!(%error, "the write-ahead log could not be checkpointed");
        }
        self.writes.close().await;
    }

    /// Checks that the database answers a read.
    pub async fn ping(&self) -> Result<(), StorageError> {
        sqlx::query("SELECT 1").execute(&self.reads).await?;
        Ok(())
    }
}

/// Why the database cannot serve a request at all, as opposed to refusing one statement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outage {
    /// It does not answer in time, or the connection to it is lost (503).
    Unavailable,
    /// It has no room left to write (507).
    Full,
}

/// Whether a database error means the database is away or full, rather than a fault of the
/// statement: pool timeouts, lost connections, SQLite's busy and I/O errors, PostgreSQL's
/// connection, shutdown and resource errors.
pub fn outage(error: &sqlx::Error) -> Option<Outage> {
    match error {
        sqlx::Error::PoolTimedOut | sqlx::Error::PoolClosed | sqlx::Error::Io(_) => {
            Some(Outage::Unavailable)
        }
        sqlx::Error::Tls(_) | sqlx::Error::WorkerCrashed => Some(Outage::Unavailable),
        sqlx::Error::Database(error) => {
            let code = error.code()?;
            if let Ok(extended) = code.parse::<i32>() {
                // SQLite: the primary result code is the low byte of the extended one.
                return match extended & 0xff {
                    13 => Some(Outage::Full),
                    5 | 6 | 10 | 14 => Some(Outage::Unavailable),
                    _ => None,
                };
            }
            match code.as_ref() {
                "53100" => Some(Outage::Full),
                "53000" | "53200" | "53300" | "57P01" | "57P02" | "57P03" | "57014" => {
                    Some(Outage::Unavailable)
                }
                class if class.starts_with("08") => Some(Outage::Unavailable),
                _ => None,
            }
        }
        _ => None,
    }
}

/// How many values one `IN (…)` list binds at most: far below every backend's limit on bound
/// values (SQLite 32,766, PostgreSQL 65,535), so any list is read in a few statements.
const IN_LIST_CHUNK: usize = 500;

/// A statement of the service's SQL, where it is written: `sql!` and `sql_in!` register every
/// statement, so that the query-plan test (`tests/plans.rs`) can ask the database how it runs
/// each one.
#[derive(Debug)]
pub struct Statement {
    /// The text, with `$1, $2, …` placeholders (a list statement with a one-value list).
    pub text: &'static str,
    /// The one database it is written for, when it is not written for both.
    pub backend: Option<Backend>,
    /// The file it is written in.
    pub file: &'static str,
    /// Its line.
    pub line: u32,
}

inventory::collect!(Statement);

/// Every statement of the service's SQL.
pub fn statements() -> impl Iterator<Item = &'static Statement> {
    inventory::iter::<Statement>.into_iter()
}

/// A statement reading the rows whose column is one of a list: `head` ends with `IN (` and
/// `tail` starts with `)` (made with `sql_in!`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct InList {
    /// The statement up to the list.
    pub(crate) head: &'static str,
    /// The statement after it.
    pub(crate) tail: &'static str,
}

/// Rows whose column is one of `values`, by the statement `list`. The list is read in chunks of
/// [`IN_LIST_CHUNK`], each a read of its own (`read::all`); rows come chunk after chunk, each
/// chunk in the order `tail` gives. The statement's only variable part is its placeholders
/// (`$1, $2, …`), so it is safe text whatever the values.
pub(crate) async fn in_list<T, V>(
    database: &Database,
    list: InList,
    values: &[V],
) -> Result<Vec<T>, sqlx::Error>
where
    T: for<'r> FromRow<'r, AnyRow> + Send + Unpin,
    V: for<'q> Encode<'q, Any> + Type<Any> + Clone + Send + Sync + 'static,
{
    let mut rows = Vec::new();
    for chunk in values.chunks(IN_LIST_CHUNK) {
        rows.extend(read::all(database, || in_list_query(list, chunk)).await?);
    }
    Ok(rows)
}

/// The statement `list` with a placeholder for each of `values` (at most [`IN_LIST_CHUNK`]),
/// each bound.
fn in_list_query<T, V>(list: InList, values: &[V]) -> QueryAs<'static, Any, T, AnyArguments>
where
    T: for<'r> FromRow<'r, AnyRow>,
    V: for<'q> Encode<'q, Any> + Type<Any> + Clone + Send + Sync + 'static,
{
    let placeholders: Vec<String> = (1..=values.len()).map(|n| format!("${n}")).collect();
    let statement = format!("{}{}{}", list.head, placeholders.join(", "), list.tail);
    let mut query = sqlx::query_as::<_, T>(sqlx::AssertSqlSafe(statement));
    for value in values {
        query = query.bind(value.clone());
    }
    query
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

/// The current time plus `later`, in the same text as [`now_utc`] (a token's expiry).
pub fn utc_after(later: std::time::Duration) -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    format_utc(now.saturating_add(later))
}

/// Formats a time given as its distance from the Unix epoch (the calendar arithmetic is
/// `local_time`'s, which reads local timestamps into the same text).
fn format_utc(since: std::time::Duration) -> String {
    crate::local_time::format_millis(i64::try_from(since.as_millis()).unwrap_or(i64::MAX))
}

/// A value as the JSON text a statement reads it from (a list of ids, or of rows to write).
pub(crate) fn json_text<T: serde::Serialize + ?Sized>(value: &T) -> Result<String, sqlx::Error> {
    serde_json::to_string(value).map_err(|error| sqlx::Error::Encode(Box::new(error)))
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
    fn postgres_connections_are_shared_by_reads_and_writes() {
        let sizes = |connections| {
            let options = Options {
                postgres_connections: connections,
                ..Options::default()
            };
            pool_sizes(Backend::Postgres, &options)
        };
        assert_eq!(sizes(16), (8, 8));
        assert_eq!(sizes(5), (2, 3));
        assert_eq!(sizes(2), (1, 1));
        assert_eq!(sizes(1), (1, 1));
        assert_eq!(pool_sizes(Backend::Sqlite, &Options::default()), (4, 1));
    }
}
