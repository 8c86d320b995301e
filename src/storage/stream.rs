//! Rows read while an answer is written (D-59): one statement, or pages read in keyset order in
//! one read transaction, on one read connection, so the answer is one snapshot, its rows handed over through a bounded channel as the answer takes
//! them, so that memory stays bounded whatever the answer's size.
//!
//! A task owns the connection and the statement. A client that reads slowly fills the channel,
//! and the statement waits: it keeps its snapshot open (on SQLite a reader holds back the
//! checkpoint of the write-ahead log, on PostgreSQL the vacuum of the rows it may still see), so
//! the read is bounded by `--stream-timeout`; past it the rows end in an error and the answer is
//! cut off. An answer dropped early (the client left, or was cut off by `--send-timeout`) ends
//! the statement at the next row. At most half the read connections stream at once, so that
//! slow clients of long answers never hold every reader the other requests need.

use std::future::Future;

use futures_util::{StreamExt, stream::BoxStream};
use sqlx::{
    Any, Connection, FromRow,
    any::{AnyArguments, AnyRow},
    pool::PoolConnection,
    query::QueryAs,
};
use tokio::sync::mpsc::Sender;

use super::{Backend, Database};

/// How many rows wait between the statement and the answer: a row may be a chunk of an answer's
/// items (keywords: 512 of them).
const WAITING: usize = 4;

/// The rows of `query`, read on a read connection of `database` for at most its stream
/// timeout. At most half the read connections stream at once (`Database::streams`); a stream
/// waits for its place as long as for a connection.
pub(crate) fn rows<R>(
    database: &Database,
    query: QueryAs<'static, Any, R, AnyArguments>,
) -> BoxStream<'static, Result<R, sqlx::Error>>
where
    R: for<'r> FromRow<'r, AnyRow> + Send + Unpin + 'static,
{
    read(database, move |mut connection, sender| async move {
        let mut rows = query.fetch(&mut *connection);
        while let Some(row) = rows.next().await {
            if sender.send(row).await.is_err() {
                break;
            }
        }
        Ok(())
    })
}

/// The pages of a listing read in keyset order: the row of `first()`, then the row of the
/// statement `next` makes of each page read, until it makes none; all one snapshot, bounded like
/// [`rows`]. A listing of one page (most answers) is that one statement alone. When the first
/// page is not the last, it is read again in a read transaction with the pages after it (on
/// PostgreSQL `REPEATABLE READ`: a statement of `READ COMMITTED` would see the writes committed
/// since the last): a page more for a long listing spares every short one two round trips.
pub(crate) fn pages<R, F, N>(
    database: &Database,
    first: F,
    mut next: N,
) -> BoxStream<'static, Result<R, sqlx::Error>>
where
    R: for<'r> FromRow<'r, AnyRow> + Send + Unpin + 'static,
    F: Fn() -> QueryAs<'static, Any, R, AnyArguments> + Send + 'static,
    N: FnMut(&R) -> Option<QueryAs<'static, Any, R, AnyArguments>> + Send + 'static,
{
    let begin = snapshot(database.backend());
    read(database, move |mut connection, sender| async move {
        let page = first().fetch_one(&mut *connection).await?;
        if next(&page).is_none() {
            let _ = sender.send(Ok(page)).await;
            return Ok(());
        }
        let mut transaction = connection.begin_with(begin).await?;
        let mut query = Some(first());
        while let Some(statement) = query.take() {
            let page = statement.fetch_one(&mut *transaction).await?;
            query = next(&page);
            if sender.send(Ok(page)).await.is_err() {
                break;
            }
        }
        transaction.rollback().await
    })
}

/// The statement that begins a read transaction whose statements all see one snapshot (on
/// PostgreSQL `REPEATABLE READ`: a statement of `READ COMMITTED` would see the writes committed
/// since the last).
pub(crate) fn snapshot(backend: Backend) -> &'static str {
    match backend {
        Backend::Sqlite => "BEGIN",
        Backend::Postgres => "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY",
    }
}

/// Runs `body` on a read connection of `database` in a task, for at most its stream timeout,
/// once a stream's place is free; what it sends, and then its failure, are the stream's items.
pub(crate) fn read<R, B, F>(
    database: &Database,
    body: B,
) -> BoxStream<'static, Result<R, sqlx::Error>>
where
    R: Send + 'static,
    B: FnOnce(PoolConnection<Any>, Sender<Result<R, sqlx::Error>>) -> F + Send + 'static,
    F: Future<Output = Result<(), sqlx::Error>> + Send,
{
    let (sender, receiver) = tokio::sync::mpsc::channel(WAITING);
    let pool = database.reads().clone();
    let (streams, wait, bound) = (
        database.streams(),
        database.timeout(),
        database.stream_timeout(),
    );
    tokio::spawn(async move {
        let read = async {
            let _place = tokio::time::timeout(wait, streams.acquire_owned())
                .await
                .map_err(|_| sqlx::Error::PoolTimedOut)?
                .map_err(|_| sqlx::Error::PoolClosed)?;
            let connection = pool.acquire().await?;
            body(connection, sender.clone()).await
        };
        // The bound counts from the request: waiting for a place counts too.
        let failure = match tokio::time::timeout(bound, read).await {
            Ok(Ok(())) => return,
            Ok(Err(error)) => error,
            Err(_) => sqlx::Error::Io(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                format!(
                    "the answer was read for longer than the stream timeout ({} s)",
                    bound.as_secs()
                ),
            )),
        };
        let _ = sender.send(Err(failure)).await;
    });
    futures_util::stream::unfold(receiver, |mut receiver| async move {
        receiver.recv().await.map(|row| (row, receiver))
    })
    .boxed()
}
