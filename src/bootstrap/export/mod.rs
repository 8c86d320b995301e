//! The export: what the database holds, written as a bootstrap document that `import` reads
//! back, every record with its id and times, so that an import into an empty database answers
//! as the exported one did (issue 34).
//!
//! The document is written as a stream, one record per line, each kind read in keyset chunks
//! (`storage::export`) inside one read transaction: one snapshot, in bounded memory. Not every
//! kind is carried yet: [`CARRIED`] lists the tables whose rows the document holds, and an
//! export of a database with rows in any other table (but [`NOT_EXPORTED`]) is refused before
//! anything is written, naming the table, so that an export never leaves data behind silently.

mod kinds;

use std::io::Write;

use serde::Serialize;
use sqlx::{AnyConnection, Connection};

use super::{FORMAT_VERSION, progress::Progress};
use crate::storage::{
    Database,
    export::{self, Chunked, Owned, OwnedRow},
    stream,
    transfer::{self, TABLES},
};

/// The tables whose rows an export carries.
pub const CARRIED: &[&str] = &[
    "users",
    "roles",
    "role_grants",
    "tokens",
    "token_roles",
    "token_uses",
    "locales",
    "keywords",
    "keyword_names",
    "messages",
    "components",
    "attribute_definitions",
    "channel_types",
    "channel_attributes",
];

/// The tables an export leaves out on purpose, and why.
pub const NOT_EXPORTED: &[(&str, &str)] = &[
    (
        "idempotency_keys",
        "answers kept for retries of batches, for a day at most: a retry after a move is a new request",
    ),
    (
        "database_origin",
        "which command made the database: the importing database has its own",
    ),
];

/// Why nothing (or not everything) was exported.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The database holds records of a kind the export does not carry yet.
    #[error(
        "the database holds rows of {table}, which export does not carry yet; nothing was \
         exported (core-server migrate copies every table)"
    )]
    NotCarried {
        /// The first such table.
        table: &'static str,
    },
    /// The file exists, and `--force` was not given.
    #[error("{path} exists; give --force to replace it (nothing was exported)")]
    Exists {
        /// The file.
        path: String,
    },
    /// Writing the document failed.
    #[error("cannot write the document: {0}")]
    Write(#[from] std::io::Error),
    /// The database failed.
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
}

/// What an export wrote.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Exported {
    /// Records written.
    pub records: u64,
}

/// Writes the export to `path` (refused when it exists, unless `force`): into a file of its own
/// beside it first, renamed to `path` once whole, so that a failed export leaves nothing.
pub async fn export_file(
    database: &Database,
    path: &std::path::Path,
    force: bool,
    progress: &mut dyn Progress,
) -> Result<Exported, ExportError> {
    if path.exists() && !force {
        return Err(ExportError::Exists {
            path: path.display().to_string(),
        });
    }
    let mut partial = path.as_os_str().to_owned();
    partial.push(".partial");
    let partial = std::path::PathBuf::from(partial);
    let file = std::fs::File::create(&partial)?;
    let mut out = std::io::BufWriter::new(file);
    let exported = export(database, &mut out, progress).await;
    let finished = exported.and_then(|exported| {
        out.into_inner()
            .map_err(std::io::IntoInnerError::into_error)?
            .sync_all()?;
        std::fs::rename(&partial, path)?;
        Ok(exported)
    });
    if finished.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    finished
}

/// Writes everything `database` holds to `out` as a bootstrap document, reporting each kind
/// to `progress`.
pub async fn export(
    database: &Database,
    out: &mut dyn Write,
    progress: &mut dyn Progress,
) -> Result<Exported, ExportError> {
    let mut connection = database.reads().acquire().await?;
    let mut snapshot = connection
        .begin_with(stream::snapshot(database.backend()))
        .await?;
    for table in TABLES {
        let carried = CARRIED.contains(&table.name)
            || NOT_EXPORTED.iter().any(|(name, _)| *name == table.name);
        if !carried && transfer::count(&mut snapshot, table).await? > 0 {
            return Err(ExportError::NotCarried { table: table.name });
        }
    }
    let mut document = Document {
        out,
        records: 0,
        in_kind: 0,
    };
    write!(document.out, "{{\"formatVersion\":{FORMAT_VERSION}")?;
    Kinds {
        connection: &mut snapshot,
        document: &mut document,
        progress,
    }
    .write()
    .await?;
    writeln!(document.out, "\n}}")?;
    document.out.flush()?;
    snapshot.rollback().await?;
    Ok(Exported {
        records: document.records,
    })
}

/// The document being written: kinds as arrays of one record per line.
struct Document<'w> {
    out: &'w mut dyn Write,
    records: u64,
    /// Records written in the kind open now.
    in_kind: u64,
}

impl Document<'_> {
    /// Opens the array of a kind.
    fn open(&mut self, kind: &str) -> Result<(), ExportError> {
        write!(self.out, ",\n\"{kind}\":[")?;
        self.in_kind = 0;
        Ok(())
    }

    /// Writes a kind whole, as one value (a few records).
    fn whole<T: Serialize>(&mut self, kind: &str, value: &T) -> Result<(), ExportError> {
        write!(self.out, ",\n\"{kind}\":")?;
        serde_json::to_writer(&mut *self.out, value).map_err(std::io::Error::from)?;
        Ok(())
    }

    /// Writes a record of the kind open.
    fn record<T: Serialize>(&mut self, record: &T) -> Result<(), ExportError> {
        self.out
            .write_all(if self.in_kind == 0 { b"\n" } else { b",\n" })?;
        serde_json::to_writer(&mut *self.out, record).map_err(std::io::Error::from)?;
        self.in_kind += 1;
        self.records += 1;
        Ok(())
    }

    /// Closes the array of the kind open.
    fn close(&mut self) -> Result<(), ExportError> {
        self.out
            .write_all(if self.in_kind == 0 { b"]" } else { b"\n]" })?;
        Ok(())
    }
}

/// The kinds, read from one snapshot and written in the order `import` loads them.
struct Kinds<'a, 'w> {
    connection: &'a mut AnyConnection,
    document: &'a mut Document<'w>,
    progress: &'a mut dyn Progress,
}

impl Kinds<'_, '_> {
    async fn write(&mut self) -> Result<(), ExportError> {
        self.locales().await?;
        self.components().await?;
        self.definitions().await?;
        self.channel_types().await?;
        self.channel_attributes().await?;
        self.keywords().await?;
        self.users().await?;
        self.roles().await?;
        self.tokens().await?;
        self.messages().await
    }

    /// Reads a kind chunk by chunk, writing each record `make` makes of a row and what it owns.
    async fn chunked<R, T>(
        &mut self,
        kind: Chunked,
        owned: Option<Owned>,
        id: impl Fn(&R) -> i64,
        make: impl Fn(R, &mut Vec<OwnedRow>) -> T,
    ) -> Result<(), ExportError>
    where
        R: for<'r> sqlx::FromRow<'r, sqlx::any::AnyRow> + Send + Unpin,
        T: Serialize,
    {
        let mut after = 0;
        loop {
            let rows: Vec<R> = export::chunk(self.connection, kind, after).await?;
            let Some(last) = rows.last().map(&id) else {
                return Ok(());
            };
            let mut children = match owned {
                Some(owned) => export::owned(self.connection, owned, after, last).await?,
                None => Vec::new(),
            };
            // Owned rows come by owner, ascending: each record takes its own off the front.
            children.reverse();
            self.progress
                .advance(u64::try_from(rows.len()).unwrap_or(u64::MAX));
            for row in rows {
                let owner = id(&row);
                let mut own = Vec::new();
                while children.last().is_some_and(|child| child.owner == owner) {
                    own.extend(children.pop());
                }
                self.document.record(&make(row, &mut own))?;
            }
            after = last;
        }
    }

    /// Opens a kind, whose records are the rows of `table`.
    async fn open(&mut self, kind: &'static str, table: &str) -> Result<(), ExportError> {
        let mut total = 0;
        if let Some(table) = TABLES.iter().find(|listed| listed.name == table) {
            total = transfer::count(self.connection, table).await?;
        }
        self.progress.start(kind, total);
        self.document.open(kind)
    }

    /// Closes the kind open.
    fn close(&mut self) -> Result<(), ExportError> {
        self.progress.finish();
        self.document.close()
    }
}
