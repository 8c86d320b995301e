//! The sqlx pools of a [`super::Database`]: how many connections each opens and how each
//! connection is set up (D-37).

use std::time::Duration;

use sqlx::{Connection, any::AnyPoolOptions};

use super::{Backend, Options};

/// How much of an SQLite file each connection maps into memory: the most SQLite's build allows
/// (`SQLITE_MAX_MMAP_SIZE`, 2 GiB less 64 KiB). Mapped pages are the system's page cache, shared
/// by every connection and given back under pressure; a page beyond the map is read into the
/// connection's own cache, heap memory that a large answer fills (with a 256 MiB map, the whole
/// tree of the bench's 1M keywords, a 272 MB file, grew the server by 5.1–7.0 MB, against
/// 3.4–4.7 MB with the file mapped whole and 3.3–5.1 MB for 100k: `cargo bench --bench keywords`).
pub(super) const SQLITE_MMAP: &str = "PRAGMA mmap_size = 2147418112";

/// How long a PostgreSQL connection may have been idle in the pool before it is pinged when
/// taken out again.
const IDLE_PING: Duration = Duration::from_secs(1);

/// How many connections each pool opens at most: (reads, writes). SQLite has one writer at a
/// time, so writers queue for its one write connection; in-memory SQLite exists per connection,
/// so it has exactly one, shared.
pub(super) fn pool_sizes(backend: Backend, options: &Options) -> (u32, u32) {
    match backend {
        Backend::Sqlite => (4, 1),
        Backend::Postgres => {
            let readers = (options.postgres_connections / 2).max(1);
            (
                readers,
                options.postgres_connections.saturating_sub(readers).max(1),
            )
        }
    }
}

/// What a pool is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Role {
    /// Reads and authentication: its connections cannot write.
    Reads,
    /// Writes.
    Writes,
    /// Both (in-memory SQLite, one connection).
    Shared,
}

/// The options of one pool.
pub(super) fn pool_options(
    backend: Backend,
    options: Options,
    role: Role,
    size: u32,
) -> AnyPoolOptions {
    // A request that cannot get a connection within the timeout is answered 503 (D-37).
    let mut pool = AnyPoolOptions::new()
        .max_connections(size)
        .acquire_timeout(options.timeout);
    // sqlx pings a connection each time it leaves the pool, besides each time it comes back:
    // an exchange with SQLite's worker thread or the PostgreSQL server more per statement,
    // about a third of a small read's time. An SQLite connection lives in the process and
    // cannot be lost; a PostgreSQL one is pinged only when it has been idle long enough for
    // the server to have gone away since it was last used (`IDLE_PING`).
    pool = pool.test_before_acquire(false);
    match backend {
        Backend::Postgres => {
            pool = pool.before_acquire(|connection, metadata| {
                Box::pin(async move {
                    if metadata.idle_for >= IDLE_PING {
                        connection.ping().await?;
                    }
                    Ok(true)
                })
            });
            if role == Role::Reads {
                // No JIT compilation for reads: every statement is served by an index (D-37),
                // and on a table whose statistics are stale (after a bulk load, before the next
                // analyze) a page of classes retrieve was estimated costly enough to be
                // compiled, 23 ms a statement for a 7 ms statement.
                pool = pool.after_connect(|connection, _| {
                    Box::pin(async move {
                        sqlx::query("SET default_transaction_read_only = on")
                            .execute(&mut *connection)
                            .await?;
                        sqlx::query("SET jit = off").execute(connection).await?;
                        Ok(())
                    })
                });
            }
        }
        Backend::Sqlite => {
            // Pages read through a memory map of the file, shared by every connection, instead
            // of one `pread` per page into each connection's 2 MB cache: a 100,000-node
            // classification is read about 40% faster (`cargo bench --bench classes`). A writer
            // waits for the write lock (another process's) as long as for a connection.
            let busy = format!("PRAGMA busy_timeout = {}", options.timeout.as_millis());
            let limit = options
                .sqlite_max_pages
                .map(|pages| format!("PRAGMA max_page_count = {pages}"));
            pool = pool.after_connect(move |connection, _| {
                let busy = busy.clone();
                let limit = limit.clone();
                Box::pin(async move {
                    sqlx::query(SQLITE_MMAP).execute(&mut *connection).await?;
                    sqlx::query(sqlx::AssertSqlSafe(busy))
                        .execute(&mut *connection)
                        .await?;
                    if role == Role::Reads {
                        sqlx::query("PRAGMA query_only = 1")
                            .execute(&mut *connection)
                            .await?;
                    }
                    if let Some(limit) = limit {
                        sqlx::query(sqlx::AssertSqlSafe(limit))
                            .execute(&mut *connection)
                            .await?;
                    }
                    Ok(())
                })
            });
        }
    }
    pool
}
