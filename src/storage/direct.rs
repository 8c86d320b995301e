//! SQLite reads without sqlx's worker thread (issue 33): sqlx-sqlite runs every statement on a
//! thread of its own per connection, so each statement and each of its rows crosses between
//! threads. The streamed answers' reads on an SQLite file ([`super::stream`]) run instead on a
//! `rusqlite` connection, on one blocking thread of the runtime taken once per answer, through
//! the same `sql!` statements, bound values and `FromRow` types: a statement's arguments are
//! sqlx's [`AnyArguments`] and its rows are made into sqlx's [`AnyRow`], which the types read
//! as they read sqlx-sqlite's.
//!
//! A read that SQLite ends within [`QUICK`] runs without crossing any thread at all
//! ([`DirectConnection::quick`]): it is tried on the request's own thread first, and only a read
//! that would take longer, or wait for a lock, goes to a blocking thread.
//!
//! `rusqlite` links the `libsqlite3-sys` sqlx-sqlite links (0.37, bundled), so both drivers
//! are one SQLite, with one build of it and one set of compile-time options.

use std::{
    borrow::Cow,
    path::PathBuf,
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, Ordering},
    },
    time::Duration,
};

use rusqlite::{
    OpenFlags,
    types::{ToSqlOutput, ValueRef},
};
use sqlx::{
    Any, Execute, FromRow,
    any::{AnyArguments, AnyRow, AnyTypeInfo, AnyTypeInfoKind, AnyValue},
    error::{DatabaseError, ErrorKind},
    query::QueryAs,
};
use sqlx_core::{
    any::{AnyColumn, AnyValueKind},
    ext::ustr::UStr,
};

/// Statements a connection keeps prepared: every streamed read's, with room to spare.
const PREPARED: usize = 64;

/// How long SQLite may run a read on the runtime's own thread ([`DirectConnection::quick`]):
/// every small listing ends well within it, and the other requests of that thread wait no longer
/// than the writing of a small answer takes.
pub(crate) const QUICK: Duration = Duration::from_micros(500);

/// Instructions of SQLite's virtual machine between two looks at the clock during a quick read.
const STEPS: std::ffi::c_int = 1_000;

/// Where direct read connections come from: the SQLite file, opened read-only with the read
/// pool's settings, and the connections not in use.
#[derive(Debug)]
pub(crate) struct Direct {
    /// The SQLite file.
    path: PathBuf,
    /// How long a statement waits for a lock (SQLite's `busy_timeout`), as the pools do.
    busy: Duration,
    /// The connections opened and not in use.
    idle: Mutex<Vec<rusqlite::Connection>>,
    /// Set once the database is closed: a connection given back then is closed.
    closed: AtomicBool,
}

impl Direct {
    /// Direct reads of the SQLite file at `path`; no connection is opened before the first read.
    pub(crate) fn new(path: PathBuf, busy: Duration) -> Direct {
        Direct {
            path,
            busy,
            idle: Mutex::new(Vec::new()),
            closed: AtomicBool::new(false),
        }
    }

    /// A connection not in use, or a new one; it comes back when dropped. None once the
    /// database is closed, as from a closed pool.
    pub(crate) fn connection(self: &Arc<Self>) -> Result<DirectConnection, sqlx::Error> {
        if self.closed.load(Ordering::Acquire) {
            return Err(sqlx::Error::PoolClosed);
        }
        let idle = self.idle.lock().ok().and_then(|mut idle| idle.pop());
        let connection = match idle {
            Some(connection) => connection,
            None => self.open().map_err(failure)?,
        };
        Ok(DirectConnection {
            connection: Some(connection),
            home: Arc::clone(self),
        })
    }

    /// Closes the connections not in use: SQLite removes a file's write-ahead log when its
    /// last connection closes ([`super::Database::close`]).
    pub(crate) fn close(&self) {
        self.closed.store(true, Ordering::Release);
        if let Ok(mut idle) = self.idle.lock() {
            idle.clear();
        }
    }

    /// Opens a read-only connection with the read pool's settings (`storage::pool_options`).
    fn open(&self) -> rusqlite::Result<rusqlite::Connection> {
        let connection = rusqlite::Connection::open_with_flags(
            &self.path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        connection.busy_timeout(self.busy)?;
        for pragma in [super::SQLITE_MMAP, "PRAGMA query_only = 1"] {
            let mut statement = connection.prepare(pragma)?;
            let mut rows = statement.raw_query();
            while rows.next()?.is_some() {}
        }
        connection.set_prepared_statement_cache_capacity(PREPARED);
        Ok(connection)
    }
}

/// A statement read on a direct connection, with its values bound, its rows read as `R`.
pub(crate) type Read<'q, R> = QueryAs<'q, Any, R, AnyArguments>;

/// A direct read connection, taken from [`Direct`] and given back when dropped; a read
/// transaction left open is ended first (a connection that cannot end it is closed).
#[derive(Debug)]
pub(crate) struct DirectConnection {
    /// The connection; taken out only when dropped.
    connection: Option<rusqlite::Connection>,
    /// Where it goes back.
    home: Arc<Direct>,
}

impl Drop for DirectConnection {
    fn drop(&mut self) {
        let Some(connection) = self.connection.take() else {
            return;
        };
        if self.home.closed.load(Ordering::Acquire)
            || (!connection.is_autocommit() && connection.execute_batch("ROLLBACK").is_err())
        {
            return;
        }
        if let Ok(mut idle) = self.home.idle.lock() {
            idle.push(connection);
        }
    }
}

impl DirectConnection {
    /// Runs a statement that takes no values and answers no rows (`BEGIN`, `ROLLBACK`).
    pub(crate) fn run(&mut self, text: &str) -> Result<(), sqlx::Error> {
        self.inner()?.execute_batch(text).map_err(failure)
    }

    /// The first row of `query`, as sqlx's `fetch_one` answers it (`RowNotFound` when none).
    pub(crate) fn fetch_one<R>(&mut self, query: Read<'_, R>) -> Result<R, sqlx::Error>
    where
        R: for<'r> FromRow<'r, AnyRow> + Send,
    {
        self.fetch_optional(query)?.ok_or(sqlx::Error::RowNotFound)
    }

    /// The first row of `query`, if any, as sqlx's `fetch_optional` answers it.
    pub(crate) fn fetch_optional<R>(&mut self, query: Read<'_, R>) -> Result<Option<R>, sqlx::Error>
    where
        R: for<'r> FromRow<'r, AnyRow> + Send,
    {
        let mut first = None;
        self.each(query, |row| {
            first = Some(row);
            Ok(false)
        })?;
        Ok(first)
    }

    /// Runs `query` and hands its rows to `each` one at a time, as they are stepped, until it
    /// answers `false`: a long answer is never held whole.
    pub(crate) fn each<R>(
        &mut self,
        mut query: Read<'_, R>,
        mut each: impl FnMut(R) -> Result<bool, sqlx::Error>,
    ) -> Result<(), sqlx::Error>
    where
        R: for<'r> FromRow<'r, AnyRow> + Send,
    {
        let arguments = query.take_arguments().map_err(sqlx::Error::Encode)?;
        let text = query.sql();
        let connection = self.inner()?;
        let mut statement = connection.prepare_cached(text.as_str()).map_err(failure)?;
        bind(&mut statement, arguments)?;
        let names: Vec<UStr> = statement
            .column_names()
            .into_iter()
            .map(UStr::new)
            .collect();
        let columns = Arc::new(
            names
                .iter()
                .enumerate()
                .map(|(at, name)| (name.clone(), at))
                .collect::<sqlx_core::HashMap<UStr, usize>>(),
        );
        let mut rows = statement.raw_query();
        while let Some(row) = rows.next().map_err(failure)? {
            let row = any_row(row, &names, &columns)?;
            if !each(R::from_row(&row)?)? {
                break;
            }
        }
        Ok(())
    }

    /// Runs `read` on the calling thread, bounded: `Some` of its answer when SQLite ends it
    /// within [`QUICK`] without waiting for a lock; `None` when SQLite interrupts it at
    /// [`QUICK`], a lock is held, or it fails (whoever reads it again words that failure).
    /// An interrupted read leaves nothing behind: it only reads.
    pub(crate) fn quick<T>(
        &mut self,
        read: impl FnOnce(&mut DirectConnection) -> Result<T, sqlx::Error>,
    ) -> Option<T> {
        let deadline = std::time::Instant::now() + QUICK;
        let connection = self.inner().ok()?;
        let bounded = connection
            .progress_handler(STEPS, Some(move || std::time::Instant::now() >= deadline))
            .and_then(|()| connection.busy_timeout(Duration::ZERO));
        let answer = bounded.ok().and_then(|()| read(self).ok());
        let busy = self.home.busy;
        let restored = self.inner().is_ok_and(|connection| {
            connection
                .progress_handler(0, None::<fn() -> bool>)
                .and_then(|()| connection.busy_timeout(busy))
                .is_ok()
        });
        if !restored {
            // Not given back with a bound that would cut or hurry a later read.
            self.connection = None;
        }
        answer
    }

    fn inner(&self) -> Result<&rusqlite::Connection, sqlx::Error> {
        self.connection.as_ref().ok_or(sqlx::Error::PoolClosed)
    }
}

/// Binds sqlx's arguments as sqlx-sqlite does: a numbered parameter (`$1`, `?1`) takes the
/// value of its number, each anonymous one (`?`) the next value in order.
fn bind(
    statement: &mut rusqlite::Statement<'_>,
    arguments: Option<AnyArguments>,
) -> Result<(), sqlx::Error> {
    let values = arguments
        .map(|arguments| arguments.values.0)
        .unwrap_or_default();
    let mut anonymous = 0;
    for index in 1..=statement.parameter_count() {
        let number = match statement.parameter_name(index) {
            Some(name) => name
                .get(1..)
                .and_then(|number| number.parse::<usize>().ok())
                .ok_or_else(|| {
                    sqlx::Error::Protocol(format!("the parameter {name} is not numbered"))
                })?,
            None => {
                anonymous += 1;
                anonymous
            }
        };
        let value = number
            .checked_sub(1)
            .and_then(|at| values.get(at))
            .ok_or_else(|| sqlx::Error::Protocol(format!("no value is bound to ${number}")))?;
        statement
            .raw_bind_parameter(index, sql_value(value))
            .map_err(failure)?;
    }
    Ok(())
}

/// A bound value as SQLite stores it, as sqlx-sqlite binds it.
fn sql_value(value: &AnyValueKind) -> ToSqlOutput<'_> {
    ToSqlOutput::Borrowed(match value {
        AnyValueKind::Bool(flag) => ValueRef::Integer(i64::from(*flag)),
        AnyValueKind::SmallInt(number) => ValueRef::Integer(i64::from(*number)),
        AnyValueKind::Integer(number) => ValueRef::Integer(i64::from(*number)),
        AnyValueKind::BigInt(number) => ValueRef::Integer(*number),
        AnyValueKind::Real(number) => ValueRef::Real(f64::from(*number)),
        AnyValueKind::Double(number) => ValueRef::Real(*number),
        AnyValueKind::Text(text) => ValueRef::Text(text.as_bytes()),
        AnyValueKind::TextSlice(text) => ValueRef::Text(text.as_bytes()),
        AnyValueKind::Blob(bytes) => ValueRef::Blob(bytes),
        _ => ValueRef::Null,
    })
}

/// A stepped row as sqlx's [`AnyRow`], each value of its stored type (an integer `BigInt`, a
/// real `Double`), as sqlx-sqlite gives them to `Any`.
fn any_row(
    row: &rusqlite::Row<'_>,
    names: &[UStr],
    columns: &Arc<sqlx_core::HashMap<UStr, usize>>,
) -> Result<AnyRow, sqlx::Error> {
    let mut values = Vec::with_capacity(names.len());
    let mut described = Vec::with_capacity(names.len());
    for (at, name) in names.iter().enumerate() {
        let kind = match row.get_ref(at).map_err(failure)? {
            ValueRef::Null => AnyValueKind::Null(AnyTypeInfoKind::Null),
            ValueRef::Integer(number) => AnyValueKind::BigInt(number),
            ValueRef::Real(number) => AnyValueKind::Double(number),
            ValueRef::Text(text) => AnyValueKind::Text(Arc::new(
                String::from_utf8(text.to_vec())
                    .map_err(|error| sqlx::Error::Decode(Box::new(error)))?,
            )),
            ValueRef::Blob(bytes) => AnyValueKind::Blob(Arc::new(bytes.to_vec())),
        };
        described.push(AnyColumn {
            ordinal: at,
            name: name.clone(),
            type_info: AnyTypeInfo {
                kind: type_of(&kind),
            },
        });
        values.push(AnyValue { kind });
    }
    Ok(AnyRow {
        column_names: Arc::clone(columns),
        columns: described,
        values,
    })
}

/// The type a value read from SQLite is described with.
fn type_of(kind: &AnyValueKind) -> AnyTypeInfoKind {
    match kind {
        AnyValueKind::BigInt(_) => AnyTypeInfoKind::BigInt,
        AnyValueKind::Double(_) => AnyTypeInfoKind::Double,
        AnyValueKind::Text(_) => AnyTypeInfoKind::Text,
        AnyValueKind::Blob(_) => AnyTypeInfoKind::Blob,
        _ => AnyTypeInfoKind::Null,
    }
}

/// A `rusqlite` error as the sqlx error `storage::outage` and the callers read: SQLite's own
/// errors keep their extended result code.
fn failure(error: rusqlite::Error) -> sqlx::Error {
    match error {
        rusqlite::Error::SqliteFailure(code, message) => {
            sqlx::Error::Database(Box::new(SqliteFailure {
                extended: code.extended_code,
                message: message.unwrap_or_else(|| code.to_string()),
            }))
        }
        other => sqlx::Error::Protocol(other.to_string()),
    }
}

/// An error SQLite answered a direct read with.
#[derive(Debug, thiserror::Error)]
#[error("{message} (SQLite code {extended})")]
struct SqliteFailure {
    /// SQLite's extended result code.
    extended: i32,
    /// What SQLite said.
    message: String,
}

impl DatabaseError for SqliteFailure {
    fn message(&self) -> &str {
        &self.message
    }

    fn code(&self) -> Option<Cow<'_, str>> {
        Some(Cow::Owned(self.extended.to_string()))
    }

    fn as_error(&self) -> &(dyn std::error::Error + Send + Sync + 'static) {
        self
    }

    fn as_error_mut(&mut self) -> &mut (dyn std::error::Error + Send + Sync + 'static) {
        self
    }

    fn into_error(self: Box<Self>) -> Box<dyn std::error::Error + Send + Sync + 'static> {
        self
    }

    fn kind(&self) -> ErrorKind {
        ErrorKind::Other
    }
}

/// A new SQLite file named after `name` in the temporary folder, opened, and its path: what the
/// unit tests of direct and streamed reads read.
#[cfg(test)]
pub(crate) async fn scratch(name: &str) -> (super::Database, PathBuf) {
    let path = std::env::temp_dir().join(format!("core-direct-{name}-{}.db", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let database = super::Database::connect(&format!("sqlite:{}", path.display()))
        .await
        .expect("opens");
    (database, path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::Database;

    async fn database(name: &str) -> (Database, Arc<Direct>, PathBuf) {
        let (database, path) = scratch(name).await;
        let direct = database.direct().expect("an SQLite file is read directly");
        (database, direct, path)
    }

    #[derive(Debug, PartialEq, sqlx::FromRow)]
    struct Mixed {
        number: i64,
        small: i32,
        real: f64,
        text: String,
        absent: Option<String>,
        bytes: Vec<u8>,
    }

    // Probes of the driver, not statements of the service's data (which `sql!` registers).
    const PAIR: &str = "SELECT ? AS a, ? AS b";
    const MISSING: &str = "SELECT id FROM nowhere";
    const NONE: &str = "SELECT 1 WHERE false";
    const COUNT: &str = "SELECT count(*) FROM keywords";
    const COUNTED: &str = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n \
                           WHERE i < 9) SELECT i FROM n";
    // Far longer than `QUICK` on any machine: a million rows of a recursive statement.
    const LONG: &str = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n \
                        WHERE i < 1000000) SELECT count(*) FROM n";
    const BUSY: &str = "PRAGMA busy_timeout";
    const MIXED: &str = "SELECT $2 AS number, $1 AS small, 0.5 * $2 AS real, 'é' || $3 AS text, \
                         NULL AS absent, x'00ff' AS bytes";

    fn mixed() -> Read<'static, Mixed> {
        sqlx::query_as(MIXED).bind(7_i32).bind(40_i64).bind("x")
    }

    #[tokio::test]
    async fn a_row_read_directly_is_the_row_sqlx_reads() {
        let (database, direct, path) = database("rows").await;
        let read = mixed()
            .fetch_one(database.reads())
            .await
            .expect("sqlx reads");
        let direct_read: Mixed = direct
            .connection()
            .and_then(|mut connection| connection.fetch_one(mixed()))
            .expect("read directly");
        assert_eq!(direct_read, read);
        assert_eq!(direct_read.text, "éx");
        let pair: (i64, i64) = direct
            .connection()
            .and_then(|mut connection| {
                connection.fetch_one(sqlx::query_as(PAIR).bind(1_i64).bind(2_i64))
            })
            .expect("anonymous parameters are bound in order");
        assert_eq!(pair, (1, 2));
        database.close().await;
        let _ = std::fs::remove_file(&path);
    }

    #[tokio::test]
    async fn failures_keep_sqlite_codes_and_rows_end_when_refused() {
        let (database, direct, path) = database("failures").await;
        let mut connection = direct.connection().expect("a connection");
        let missing = connection.fetch_one::<(i64,)>(sqlx::query_as(MISSING));
        let code = match missing {
            Err(sqlx::Error::Database(error)) => error.code().map(|code| code.into_owned()),
            other => panic!("not a database error: {other:?}"),
        };
        assert_eq!(code.as_deref(), Some("1"));
        let written = connection.run("CREATE TABLE t (x INTEGER)");
        assert!(
            matches!(written, Err(sqlx::Error::Database(_))),
            "reads only"
        );
        let none = connection.fetch_one::<(i64,)>(sqlx::query_as(NONE));
        assert!(matches!(none, Err(sqlx::Error::RowNotFound)));
        let mut taken: Vec<i64> = Vec::new();
        connection
            .each(sqlx::query_as::<_, (i64,)>(COUNTED), |(i,)| {
                taken.push(i);
                Ok(i < 3)
            })
            .expect("reads");
        assert_eq!(taken, [1, 2, 3]);
        connection.run("BEGIN").expect("begins");
        let _: (i64,) = connection
            .fetch_one(sqlx::query_as(COUNT))
            .expect("reads in the transaction");
        drop(connection);
        let again = direct.connection().expect("the same connection again");
        assert!(
            again.inner().expect("open").is_autocommit(),
            "a connection comes back with its transaction ended"
        );
        drop(again);
        database.close().await;
        assert!(
            matches!(direct.connection(), Err(sqlx::Error::PoolClosed)),
            "no direct read once the database is closed"
        );
        let _ = std::fs::remove_file(&path);
    }

    #[tokio::test]
    async fn a_quick_read_ends_within_its_bound_and_leaves_none_behind() {
        let (database, direct, path) = database("quick").await;
        let mut connection = direct.connection().expect("a connection");
        let counted = |connection: &mut DirectConnection| {
            let mut taken: Vec<i64> = Vec::new();
            connection.each(sqlx::query_as::<_, (i64,)>(COUNTED), |(i,)| {
                taken.push(i);
                Ok(true)
            })?;
            let (busy,): (i64,) = connection.fetch_one(sqlx::query_as(BUSY))?;
            Ok((taken, busy))
        };
        // A thread descheduled past the bound reads it again elsewhere, which is right; of many
        // tries, most end here.
        let quick = (0..100)
            .find_map(|_| connection.quick(counted))
            .expect("a short read ends within QUICK");
        assert_eq!(quick, ((1..=9).collect(), 0), "no lock is waited for");
        let long =
            connection.quick(|connection| connection.fetch_one::<(i64,)>(sqlx::query_as(LONG)));
        assert_eq!(long, None, "SQLite interrupts it at QUICK");
        let failed =
            connection.quick(|connection| connection.fetch_one::<(i64,)>(sqlx::query_as(MISSING)));
        assert_eq!(failed, None, "a failure is read again, to be worded");
        let (counted,): (i64,) = connection
            .fetch_one(sqlx::query_as(LONG))
            .expect("once the quick read ends, a read runs to its end");
        assert_eq!(counted, 1_000_000);
        let (busy,): (i64,) = connection
            .fetch_one(sqlx::query_as(BUSY))
            .expect("reads the pragma");
        assert_eq!(u128::from(busy.unsigned_abs()), direct.busy.as_millis());
        drop(connection);
        database.close().await;
        let _ = std::fs::remove_file(&path);
    }
}
