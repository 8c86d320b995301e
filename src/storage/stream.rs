//! Rows read while an answer is written (D-59): one statement on one read connection, so the
//! answer is one snapshot, its rows handed over through a bounded channel as the answer takes
//! them, so that memory stays bounded whatever the answer's size.
//!
//! A task owns the connection and the statement. A client that reads slowly fills the channel,
//! and the statement waits: it keeps its snapshot open (on SQLite a reader holds back the
//! checkpoint of the write-ahead log, on PostgreSQL the vacuum of the rows it may still see), so
//! the read is bounded by `--stream-timeout`; past it the rows end in an error and the answer is
//! cut off. An answer dropped early (the client left, or was cut off by `--send-timeout`) ends
//! the statement at the next row. At most half the read connections stream at once, so that
//! slow clients of long answers never hold every reader the other requests need.

use futures_util::{StreamExt, stream::BoxStream};
use sqlx::{Any, FromRow, any::AnyRow, query::QueryAs};

use super::Database;

/// How many rows wait between the statement and the answer: a row may be a chunk of an answer's
/// items (keywords: 512 of them).
const WAITING: usize = 4;

/// The rows of `query`, read on a read connection of `database` for at most its stream
/// timeout. At most half the read connections stream at once (`Database::streams`); a stream
/// waits for its place as long as for a connection.
pub(crate) fn rows<R>(
    database: &Database,
    query: QueryAs<'static, Any, R, sqlx::any::AnyArguments>,
) -> BoxStream<'static, Result<R, sqlx::Error>>
where
    R: for<'r> FromRow<'r, AnyRow> + Send + Unpin + 'static,
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
            let mut connection = pool.acquire().await?;
            let mut rows = query.fetch(&mut *connection);
            while let Some(row) = rows.next().await {
                if sender.send(row).await.is_err() {
                    break;
                }
            }
            Ok::<(), sqlx::Error>(())
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
