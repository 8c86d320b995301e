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
//!
//! On an SQLite file, [`rows`] and [`pages`] read on a direct connection (`storage::direct`) on
//! a blocking thread of the runtime, taken once per answer, instead of crossing to sqlx's
//! worker thread for each statement and row: the same statements, bounds and places. A read
//! SQLite ends within `direct::QUICK` (a listing of one page) is read whole on the request's own
//! thread first (`storage::read::quick`), crossing no thread at all; it holds no place, since
//! it holds no connection or snapshot once the call returns.

use std::{future::Future, sync::Arc, time::Duration};

use futures_util::{StreamExt, stream::BoxStream};
use sqlx::{
    Any, Connection, FromRow,
    any::{AnyArguments, AnyRow},
    pool::PoolConnection,
    query::QueryAs,
};
use tokio::{
    sync::{OwnedSemaphorePermit, Semaphore, mpsc::Sender},
    time::{Instant, timeout, timeout_at},
};

use super::{
    Backend, Database,
    direct::{Direct, DirectConnection},
    read::quick,
};

/// How a direct read hands a row to its answer: `Ok(true)` taken, `Ok(false)` the answer is
/// gone (the read ends), an error past the stream timeout.
pub(crate) type Deliver<'a, R> = dyn Fn(Result<R, sqlx::Error>) -> Result<bool, sqlx::Error> + 'a;

/// How many rows wait between the statement and the answer: a row may be a chunk of an answer's
/// items (keywords: 512 of them).
const WAITING: usize = 4;

/// The rows of the statement `query` makes, read on a read connection of `database` for at most
/// its stream timeout. At most half the read connections stream at once (`Database::streams`); a
/// stream waits for its place as long as for a connection. On an SQLite file a quick statement
/// is read whole right here instead (`read::quick`).
pub(crate) fn rows<R, Q>(
    database: &Database,
    query: Q,
) -> BoxStream<'static, Result<R, sqlx::Error>>
where
    R: for<'r> FromRow<'r, AnyRow> + Send + Unpin + 'static,
    Q: Fn() -> QueryAs<'static, Any, R, AnyArguments> + Send + 'static,
{
    if let Some(direct) = database.direct() {
        let whole = quick(&direct, |connection| {
            let mut rows = Vec::new();
            connection.each(query(), |row| {
                rows.push(Ok(row));
                Ok(true)
            })?;
            Ok(rows)
        });
        if let Some(rows) = whole {
            return futures_util::stream::iter(rows).boxed();
        }
        return read_direct(database, direct, move |connection, deliver| {
            connection.each(query(), |row| deliver(Ok(row)))
        });
    }
    read(database, move |mut connection, sender| async move {
        let mut rows = query().fetch(&mut *connection);
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
/// since the last): a page more for a long listing spares every short one two round trips. On an
/// SQLite file a listing of one quick page is read right here instead (`read::quick`).
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
    if let Some(direct) = database.direct() {
        let only = quick(&direct, |connection| {
            let page = connection.fetch_one(first())?;
            Ok(next(&page).is_none().then_some(page))
        });
        if let Some(Some(page)) = only {
            return futures_util::stream::iter([Ok(page)]).boxed();
        }
        // Read quickly and not the last: the pages are read in the transaction straight away.
        let long = only.is_some();
        return read_direct(database, direct, move |connection, deliver| {
            if !long {
                let page = connection.fetch_one(first())?;
                if next(&page).is_none() {
                    deliver(Ok(page))?;
                    return Ok(());
                }
            }
            connection.run(begin)?;
            let mut query = Some(first());
            while let Some(statement) = query.take() {
                let page = connection.fetch_one(statement)?;
                query = next(&page);
                if !deliver(Ok(page))? {
                    break;
                }
            }
            connection.run("ROLLBACK")
        });
    }
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
    let bounds = Bounds::of(database);
    tokio::spawn(async move {
        let read = async {
            let _place = bounds.place().await?;
            let connection = pool.acquire().await?;
            body(connection, sender.clone()).await
        };
        // The bound counts from the request: waiting for a place counts too.
        let failure = match timeout_at(bounds.deadline, read).await {
            Ok(Ok(())) => return,
            Ok(Err(error)) => error,
            Err(_) => bounds.timed_out(),
        };
        let _ = sender.send(Err(failure)).await;
    });
    answer(receiver)
}

/// Runs `body` on a direct connection (`storage::direct`) on a blocking thread of the runtime,
/// once a stream's place is free, bounded like [`read`]: each row it delivers waits for the
/// answer to take it until the stream timeout, and none is delivered past it.
fn read_direct<R, B>(
    database: &Database,
    direct: Arc<Direct>,
    body: B,
) -> BoxStream<'static, Result<R, sqlx::Error>>
where
    R: Send + 'static,
    B: FnOnce(&mut DirectConnection, &Deliver<'_, R>) -> Result<(), sqlx::Error> + Send + 'static,
{
    let (sender, receiver) = tokio::sync::mpsc::channel(WAITING);
    let bounds = Bounds::of(database);
    tokio::spawn(async move {
        let failure = match timeout_at(bounds.deadline, bounds.place()).await {
            Ok(Ok(place)) => {
                let (handle, rows) = (tokio::runtime::Handle::current(), sender.clone());
                let read = tokio::task::spawn_blocking(move || {
                    let _place = place;
                    let deliver = |row| {
                        if Instant::now() >= bounds.deadline {
                            return Err(bounds.timed_out());
                        }
                        match handle.block_on(timeout_at(bounds.deadline, rows.send(row))) {
                            Ok(sent) => Ok(sent.is_ok()),
                            Err(_) => Err(bounds.timed_out()),
                        }
                    };
                    body(&mut direct.connection()?, &deliver)
                });
                match read.await {
                    Ok(Ok(())) => return,
                    Ok(Err(error)) => error,
                    Err(_) => sqlx::Error::WorkerCrashed,
                }
            }
            Ok(Err(error)) => error,
            Err(_) => bounds.timed_out(),
        };
        let _ = sender.send(Err(failure)).await;
    });
    answer(receiver)
}

/// What bounds a streamed read: the places of streams, how long one is waited for, and the
/// stream timeout, counted from the request.
struct Bounds {
    streams: Arc<Semaphore>,
    wait: Duration,
    bound: Duration,
    deadline: Instant,
}

impl Bounds {
    fn of(database: &Database) -> Bounds {
        let bound = database.stream_timeout();
        Bounds {
            streams: database.streams(),
            wait: database.timeout(),
            bound,
            deadline: Instant::now() + bound,
        }
    }

    /// A stream's place, waited for as long as for a connection.
    async fn place(&self) -> Result<OwnedSemaphorePermit, sqlx::Error> {
        timeout(self.wait, Arc::clone(&self.streams).acquire_owned())
            .await
            .map_err(|_| sqlx::Error::PoolTimedOut)?
            .map_err(|_| sqlx::Error::PoolClosed)
    }

    /// The failure of a read past the stream timeout.
    fn timed_out(&self) -> sqlx::Error {
        sqlx::Error::Io(std::io::Error::new(
            std::io::ErrorKind::TimedOut,
            format!(
                "the answer was read for longer than the stream timeout ({} s)",
                self.bound.as_secs()
            ),
        ))
    }
}

/// The rows a read sends, as the answer's stream.
fn answer<R: Send + 'static>(
    receiver: tokio::sync::mpsc::Receiver<Result<R, sqlx::Error>>,
) -> BoxStream<'static, Result<R, sqlx::Error>> {
    futures_util::stream::unfold(receiver, |mut receiver| async move {
        receiver.recv().await.map(|row| (row, receiver))
    })
    .boxed()
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    // Probes of the paging, not statements of the service's data (which `sql!` registers).
    const FIRST: &str = "SELECT 1";
    const AFTER: &str = "SELECT ? + 1";

    #[tokio::test]
    async fn a_long_listing_read_quickly_reads_its_first_page_once_more_in_its_transaction() {
        let (database, path) = crate::storage::direct::scratch("pages").await;
        let firsts = Arc::new(AtomicUsize::new(0));
        let counted = Arc::clone(&firsts);
        let first = move || -> QueryAs<'static, Any, (i64,), AnyArguments> {
            counted.fetch_add(1, Ordering::Relaxed);
            sqlx::query_as(FIRST)
        };
        let next = |(page,): &(i64,)| (*page < 3).then(|| sqlx::query_as(AFTER).bind(*page));
        let read: Vec<i64> = pages(&database, first, next)
            .map(|page| page.expect("a page").0)
            .collect()
            .await;
        assert_eq!(read, [1, 2, 3]);
        // Read here (a statement of fewer than 1,000 steps is never interrupted), then once
        // more in the transaction.
        assert_eq!(firsts.load(Ordering::Relaxed), 2);
        database.close().await;
        let _ = std::fs::remove_file(&path);
    }
}
