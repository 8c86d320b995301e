//! Reads answered whole, one statement each (locales, components, messages, briefings, channel
//! trees, downloads, attributes, PEOs, tokens): through the read pool, or on an SQLite file
//! first on the request's own thread, when SQLite ends the statement within `direct::QUICK`
//! (`DirectConnection::quick`), so that they cross no thread either, as streamed listings do
//! (`storage::stream`). A read that takes longer, waits for a lock or fails is read again
//! through the pool, which words its failure.
//!
//! A statement is made by a function rather than given, because a `QueryAs` is used up by the
//! first read: the pool's read, when it comes, needs one of its own.

use std::sync::Arc;

use sqlx::{
    Any, FromRow,
    any::{AnyArguments, AnyRow},
    query::QueryAs,
};

use super::{
    Database,
    direct::{Direct, DirectConnection},
};

/// The rows of the statement `query` makes.
pub(crate) async fn all<'q, R, Q>(database: &Database, query: Q) -> Result<Vec<R>, sqlx::Error>
where
    R: for<'r> FromRow<'r, AnyRow> + Send + Unpin,
    Q: Fn() -> QueryAs<'q, Any, R, AnyArguments>,
{
    let whole = database.direct().and_then(|direct| {
        quick(&direct, |connection| {
            let mut rows = Vec::new();
            connection.each(query(), |row| {
                rows.push(row);
                Ok(true)
            })?;
            Ok(rows)
        })
    });
    match whole {
        Some(rows) => Ok(rows),
        None => query().fetch_all(database.reads()).await,
    }
}

/// The first row of the statement `query` makes, if any.
pub(crate) async fn optional<'q, R, Q>(
    database: &Database,
    query: Q,
) -> Result<Option<R>, sqlx::Error>
where
    R: for<'r> FromRow<'r, AnyRow> + Send + Unpin,
    Q: Fn() -> QueryAs<'q, Any, R, AnyArguments>,
{
    let first = database
        .direct()
        .and_then(|direct| quick(&direct, |connection| connection.fetch_optional(query())));
    match first {
        Some(first) => Ok(first),
        None => query().fetch_optional(database.reads()).await,
    }
}

/// The first row of the statement `query` makes; `RowNotFound` when it makes none.
pub(crate) async fn one<'q, R, Q>(database: &Database, query: Q) -> Result<R, sqlx::Error>
where
    R: for<'r> FromRow<'r, AnyRow> + Send + Unpin,
    Q: Fn() -> QueryAs<'q, Any, R, AnyArguments>,
{
    optional(database, query)
        .await?
        .ok_or(sqlx::Error::RowNotFound)
}

/// A read of an SQLite file done on the request's own thread when SQLite ends it within
/// `direct::QUICK` (`DirectConnection::quick`): then no thread is crossed, no stream's place is
/// taken and no snapshot outlives the call, since what it read is whole. `None`: read it
/// another way.
pub(crate) fn quick<T>(
    direct: &Arc<Direct>,
    read: impl FnOnce(&mut DirectConnection) -> Result<T, sqlx::Error>,
) -> Option<T> {
    direct.connection().ok()?.quick(read)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Probes of the reads, not statements of the service's data (which `sql!` registers).
    const COUNTED: &str = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n \
                           WHERE i < ?) SELECT i FROM n";
    // Far longer than `QUICK` on any machine before its one row: a million rows counted.
    const LONG: &str = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n \
                        WHERE i < 1000000) SELECT count(*) FROM n";
    const NONE: &str = "SELECT 1 WHERE false";
    const MISSING: &str = "SELECT id FROM nowhere";

    fn counted(to: i64) -> impl Fn() -> QueryAs<'static, Any, (i64,), AnyArguments> {
        move || sqlx::query_as(COUNTED).bind(to)
    }

    #[tokio::test]
    async fn a_quick_read_needs_no_pool_and_a_long_one_is_read_through_it() {
        let (database, path) = crate::storage::direct::scratch("whole").await;
        let nine: Vec<i64> = (1..=9).collect();
        let read = all(&database, counted(9)).await.expect("reads");
        assert_eq!(read.into_iter().map(|(i,)| i).collect::<Vec<_>>(), nine);
        // A thread descheduled past the bound reads through the pool, which is right; so the
        // quick read is shown with the pool closed: of many tries, most end on this thread.
        database.reads().close().await;
        let quick = (0..100).find_map(|_| {
            futures_util::FutureExt::now_or_never(all(&database, counted(9))).and_then(Result::ok)
        });
        assert_eq!(
            quick.map(|rows| rows.len()),
            Some(9),
            "read on this thread, without the pool"
        );
        let long = one(&database, || sqlx::query_as::<_, (i64,)>(LONG)).await;
        assert!(
            matches!(long, Err(sqlx::Error::PoolClosed)),
            "a read longer than QUICK goes to the pool: {long:?}"
        );
        database.close().await;
        let _ = std::fs::remove_file(&path);
    }

    #[tokio::test]
    async fn reads_answer_alike_with_or_without_direct_connections() {
        let (file, path) = crate::storage::direct::scratch("alike").await;
        let memory = Database::connect("sqlite::memory:").await.expect("opens");
        assert!(memory.direct().is_none());
        for database in [&file, &memory] {
            let long = all(database, counted(100_000))
                .await
                .expect("reads to its end");
            assert_eq!(long.len(), 100_000);
            assert_eq!(long.last(), Some(&(100_000,)));
            let first = optional(database, counted(3)).await.expect("reads");
            assert_eq!(first, Some((1,)));
            let none = optional(database, || sqlx::query_as::<_, (i64,)>(NONE)).await;
            assert!(matches!(none, Ok(None)), "{none:?}");
            let not_found = one(database, || sqlx::query_as::<_, (i64,)>(NONE)).await;
            assert!(matches!(not_found, Err(sqlx::Error::RowNotFound)));
            let failed = all(database, || sqlx::query_as::<_, (i64,)>(MISSING)).await;
            assert!(
                matches!(&failed, Err(sqlx::Error::Database(error)) if error.message().contains("nowhere")),
                "the pool words a failure: {failed:?}"
            );
        }
        file.close().await;
        memory.close().await;
        let _ = std::fs::remove_file(&path);
    }
}
