//! `core-server migrate --from URL --to URL`: every row of one database copied into another, of
//! either backend (SQLite to PostgreSQL when one machine is no longer enough, and back), ids
//! and sequences kept, so that integrators' stored ids stay valid.
//!
//! The source is read in one snapshot (one read transaction: a server may keep serving it, but
//! writes after the start are not carried); the target is written in one transaction under the
//! batch lock and must be empty, so a failed or refused migrate leaves it as it was. Where the
//! target's role may, its foreign keys are checked once after the copy rather than per row
//! ([`import::ReferenceChecks`]). Rows are streamed table by table ([`TABLES`], each after the
//! tables it refers to) and written [`BATCH_ROWS`] at a time as one JSON array, the next batch
//! read while the last is written, so memory stays bounded whatever the size.
//! Each sequence continues after the greater of the source's position and the largest id
//! copied: an id a deleted record had is not handed out again. On PostgreSQL every table is
//! analyzed before the commit ([`analyze`]), so that the instances plan their first requests
//! on the tables' real sizes rather than on empty ones.

mod tables;

use std::io::Write;

use futures_util::TryStreamExt;
use sqlx::{Any, AnyConnection, Connection, Row, any::AnyRow};

pub use tables::{Column, Kind, LeftOut, NOT_COPIED, TABLES, Table};

use super::{Backend, Database, backend_of, import, stream};
use crate::bootstrap::progress::Progress;

/// Rows written by one statement at most.
const BATCH_ROWS: usize = 4096;

/// Bytes of JSON written by one statement at most, once a row is in (a binary chunk is 1 MiB,
/// 2 MiB as hexadecimal).
const BATCH_BYTES: usize = 8 << 20;

/// Why nothing was migrated.
#[derive(Debug, thiserror::Error)]
pub enum TransferError {
    /// The target holds rows: migrate writes into an empty database only.
    #[error(
        "the target database is not empty (its table {table} holds rows): migrate writes into an empty database only; nothing was written"
    )]
    NotEmpty {
        /// The first table found holding rows.
        table: &'static str,
    },
    /// A database failed; the target was rolled back.
    #[error("database error: {0}; nothing was written")]
    Database(#[from] sqlx::Error),
}

/// What a migrate copied.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Transferred {
    /// Tables that held rows.
    pub tables: usize,
    /// Rows copied.
    pub rows: u64,
    /// How the target's foreign keys were checked.
    pub references: References,
}

/// How a load's references were checked (D-60): a copy's, which `migrate`'s last line says, or
/// an import's keywords' and names', which `import`'s last line says.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub enum References {
    /// By SQLite, in each statement.
    #[default]
    InEachStatement,
    /// By PostgreSQL, row by row: the role may not set `session_replication_role`.
    RowByRow,
    /// By the load itself, with PostgreSQL's checks off while it writes: once after a copy,
    /// chunk by chunk of keywords and names in an import.
    Deferred,
}

impl References {
    /// How a load into `backend` checks its references, as `checks` says.
    pub(crate) fn of(checks: import::ReferenceChecks, backend: Backend) -> References {
        match (checks, backend) {
            (import::ReferenceChecks::Deferred, _) => References::Deferred,
            (import::ReferenceChecks::PerRow, Backend::Postgres) => References::RowByRow,
            (import::ReferenceChecks::PerRow, Backend::Sqlite) => References::InEachStatement,
        }
    }

    /// What `migrate`'s last line adds about a copy's (nothing on SQLite).
    pub fn note(self) -> &'static str {
        match self {
            References::InEachStatement => "",
            References::RowByRow => {
                "; references checked row by row, since the target's role may not set \
                 session_replication_role: see Moving to PostgreSQL in the README"
            }
            References::Deferred => "; references checked once, after the copy",
        }
    }

    /// What `import`'s last line adds about its keywords' and names' (nothing on SQLite).
    pub fn import_note(self) -> &'static str {
        match self {
            References::InEachStatement => "",
            References::RowByRow => {
                "; keywords and names checked row by row, since the database role may not set \
                 session_replication_role: see Reference data in the README"
            }
            References::Deferred => "; keywords and names checked chunk by chunk",
        }
    }
}

/// Copies every row of `from` into `to`, which must be empty, reporting each table as it goes.
pub async fn copy(
    from: &Database,
    to: &Database,
    progress: &mut dyn Progress,
) -> Result<Transferred, TransferError> {
    let mut source = from.reads().acquire().await?;
    let mut snapshot = source.begin_with(stream::snapshot(from.backend())).await?;
    let mut target = to.write().await?;
    to.lock_batches(&mut target, true).await?;
    for table in TABLES {
        if count(&mut target, table).await? > 0 {
            return Err(TransferError::NotEmpty { table: table.name });
        }
    }
    import::widen_cache(&mut target).await?;
    // The target is empty and locked: every row it will hold is written here, so the copy's
    // references can be checked once at its end rather than row by row (D-60).
    let checks = import::ReferenceChecks::of(&mut target).await?;
    checks.suspend(&mut target).await?;
    let mut transferred = Transferred {
        references: References::of(checks, to.backend()),
        ..Transferred::default()
    };
    for table in TABLES {
        let total = count(&mut snapshot, table).await?;
        progress.start(table.name, total);
        let largest = copy_table(&mut snapshot, &mut target, table, progress).await?;
        if table.identity {
            let position = sequence(&mut snapshot, table).await?.max(largest);
            continue_sequence(&mut target, table, position).await?;
        }
        progress.finish();
        if total > 0 {
            transferred.tables += 1;
            transferred.rows += total;
        }
    }
    checks.resume_all(&mut target).await?;
    analyze(&mut target).await?;
    import::narrow_cache(&mut target).await?;
    target.commit().await?;
    snapshot.rollback().await?;
    Ok(transferred)
}

/// Gathers PostgreSQL's statistics of every table (nothing on SQLite, whose plans the service
/// does not leave to statistics): after a load of many records, so that the first requests
/// are planned on the tables' new sizes rather than on what autovacuum last saw. In the
/// writer's transaction, the statistics count its own rows and take effect with its commit.
pub(crate) async fn analyze(connection: &mut AnyConnection) -> Result<(), sqlx::Error> {
    if backend_of(connection) == Backend::Postgres {
        for table in TABLES {
            sqlx::query(table.analyze).execute(&mut *connection).await?;
        }
    }
    Ok(())
}

/// Sets every sequence after the largest id of its table, when that is past it: an import of
/// records with their ids (an export) writes ids no sequence handed out. SQLite's
/// `AUTOINCREMENT` does it by itself; on PostgreSQL the function of migration 0015 does it.
pub(crate) async fn continue_after_ids(connection: &mut AnyConnection) -> Result<(), sqlx::Error> {
    if backend_of(connection) == Backend::Postgres {
        for table in TABLES.iter().filter(|table| table.identity) {
            sqlx::query(sql!(postgres: "SELECT continue_sequence($1)"))
                .bind(table.name)
                .execute(&mut *connection)
                .await?;
        }
    }
    Ok(())
}

/// The rows of a table.
pub(crate) async fn count(
    connection: &mut AnyConnection,
    table: &Table,
) -> Result<u64, sqlx::Error> {
    let count: i64 = sqlx::query_scalar(table.count)
        .fetch_one(connection)
        .await?;
    Ok(u64::try_from(count).unwrap_or(0))
}

/// Streams a table's rows from `source` into `target`, a batch at a time, reading the next
/// batch while the last one is written (the source's reads and the target's writes overlap, at
/// most two batches held); the largest `id` copied (0 when none, or its ids come from no
/// sequence).
async fn copy_table(
    source: &mut AnyConnection,
    target: &mut AnyConnection,
    table: &Table,
    progress: &mut dyn Progress,
) -> Result<i64, sqlx::Error> {
    let insert = match backend_of(target) {
        Backend::Sqlite => table.insert_sqlite,
        Backend::Postgres => table.insert_postgres,
    };
    let mut rows = sqlx::query(table.select).fetch(source);
    let (mut largest, mut ended) = (0, false);
    let mut read = Batch::default();
    loop {
        let mut next = Batch::default();
        let reading = async {
            while !ended && !next.is_full() {
                match rows.try_next().await? {
                    Some(row) => largest = largest.max(next.push(table, &row)?),
                    None => ended = true,
                }
            }
            Ok::<_, sqlx::Error>(())
        };
        let (written, ()) = futures_util::try_join!(read.write(insert, target), reading)?;
        progress.advance(written);
        if next.rows == 0 {
            return Ok(largest);
        }
        read = next;
    }
}

/// Rows read and not yet written: a JSON array of objects, one per row, keyed by column.
#[derive(Default)]
struct Batch {
    /// The array's text so far, without its closing bracket.
    json: Vec<u8>,
    /// Rows in it.
    rows: usize,
}

impl Batch {
    /// Adds a row; its `id` when the table's ids come from a sequence, else 0.
    fn push(&mut self, table: &Table, row: &AnyRow) -> Result<i64, sqlx::Error> {
        self.json.push(if self.rows == 0 { b'[' } else { b',' });
        let mut id = 0;
        for (index, column) in table.columns.iter().enumerate() {
            self.json.push(if index == 0 { b'{' } else { b',' });
            write!(self.json, "\"{}\":", column.name).map_err(encode)?;
            match column.kind {
                Kind::Int => match row.try_get::<Option<i64>, _>(index)? {
                    None => self.json.extend_from_slice(b"null"),
                    Some(value) => {
                        if index == 0 && table.identity {
                            id = value;
                        }
                        write!(self.json, "{value}").map_err(encode)?;
                    }
                },
                Kind::Flag => match row.try_get::<Option<i64>, _>(index)? {
                    None => self.json.extend_from_slice(b"null"),
                    Some(0) => self.json.extend_from_slice(b"false"),
                    Some(_) => self.json.extend_from_slice(b"true"),
                },
                Kind::Text => match row.try_get::<Option<&str>, _>(index)? {
                    None => self.json.extend_from_slice(b"null"),
                    Some(text) => serde_json::to_writer(&mut self.json, text).map_err(encode)?,
                },
                Kind::Bytes => match row.try_get::<Option<&[u8]>, _>(index)? {
                    None => self.json.extend_from_slice(b"null"),
                    Some(bytes) => {
                        self.json.push(b'"');
                        self.json.extend_from_slice(hex::encode(bytes).as_bytes());
                        self.json.push(b'"');
                    }
                },
            }
        }
        self.json.push(b'}');
        self.rows += 1;
        Ok(id)
    }

    /// Whether a statement's worth of rows is held.
    fn is_full(&self) -> bool {
        self.rows >= BATCH_ROWS || self.json.len() >= BATCH_BYTES
    }

    /// Writes the rows held, if any, and empties the batch; how many.
    async fn write(
        &mut self,
        insert: &'static str,
        target: &mut AnyConnection,
    ) -> Result<u64, sqlx::Error> {
        if self.rows == 0 {
            return Ok(0);
        }
        self.json.push(b']');
        let json = String::from_utf8(std::mem::take(&mut self.json)).map_err(encode)?;
        sqlx::query::<Any>(insert)
            .bind(json)
            .execute(target)
            .await?;
        Ok(std::mem::take(&mut self.rows) as u64)
    }
}

/// A row that could not be written as JSON (it cannot happen: the text is the rows' own).
fn encode(error: impl std::error::Error + Send + Sync + 'static) -> sqlx::Error {
    sqlx::Error::Encode(Box::new(error))
}

/// The last value a table's sequence handed out in the source (0: none).
async fn sequence(source: &mut AnyConnection, table: &Table) -> Result<i64, sqlx::Error> {
    let statement = match backend_of(source) {
        Backend::Sqlite => sql!(sqlite:
            "SELECT CAST(COALESCE(MAX(seq), 0) AS BIGINT) FROM sqlite_sequence WHERE name = $1"),
        Backend::Postgres => sql!(postgres:
            "SELECT COALESCE(pg_sequence_last_value(CAST(pg_get_serial_sequence($1, 'id') AS REGCLASS)), 0)"),
    };
    sqlx::query_scalar(statement)
        .bind(table.name)
        .fetch_one(source)
        .await
}

/// Sets a table's sequence in the target so that the next id follows `position`.
async fn continue_sequence(
    target: &mut AnyConnection,
    table: &Table,
    position: i64,
) -> Result<(), sqlx::Error> {
    if position < 1 {
        return Ok(());
    }
    match backend_of(target) {
        Backend::Sqlite => {
            sqlx::query(sql!(sqlite: "DELETE FROM sqlite_sequence WHERE name = $1"))
                .bind(table.name)
                .execute(&mut *target)
                .await?;
            sqlx::query(sql!(sqlite: "INSERT INTO sqlite_sequence (name, seq) VALUES ($1, $2)"))
                .bind(table.name)
                .bind(position)
                .execute(target)
                .await?;
        }
        Backend::Postgres => {
            sqlx::query(sql!(postgres:
                "SELECT setval(CAST(pg_get_serial_sequence($1, 'id') AS REGCLASS), $2)"))
            .bind(table.name)
            .bind(position)
            .execute(target)
            .await?;
        }
    }
    Ok(())
}
