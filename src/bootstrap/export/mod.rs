//! The export: what the database holds, written as a bootstrap document that `import` reads
//! back, every record with its id and times, so that an import into an empty database answers
//! as the exported one did (issue 34).
//!
//! The document is written as a stream, one record per line, each kind read in keyset chunks
//! (`storage::export`) inside one read transaction: one snapshot, in bounded memory. Not every
//! kind is carried yet: [`CARRIED`] lists the tables whose rows the document holds, and an
//! export of a database with rows in any other table (but [`NOT_EXPORTED`]) is refused before
//! anything is written, naming the table, so that an export never leaves data behind silently.

mod assets;
mod briefings;
mod channels;
mod classifications;
mod glossaries;
mod kinds;

pub use assets::Files;

use std::{
    collections::HashMap,
    io::Write,
    path::{Path, PathBuf},
};

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
    "glossaries",
    "glossary_entries",
    "glossary_translations",
    "assets",
    "asset_versions",
    "asset_previews",
    "binary_chunks",
    "keywords",
    "keyword_names",
    "keyword_assets",
    "products",
    "product_assets",
    "channels",
    "channel_assets",
    "peos",
    "peo_nodes",
    "peo_channels",
    "attribute_values",
    "access_restrictions",
    "classifications",
    "classification_names",
    "classification_nodes",
    "node_names",
    "node_attributes",
    "domain_values",
    "domain_value_names",
    "product_nodes",
    "briefing_layouts",
    "briefing_boxes",
    "briefing_images",
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
    /// The file exists, or its binaries' folder holds files, and `--force` was not given.
    #[error("{path} exists; give --force to replace it (nothing was exported)")]
    Exists {
        /// The file.
        path: String,
    },
    /// A stored value is not what the service writes (a key that is not a number, text that is
    /// not the JSON it should be): exporting it would change it.
    #[error("{table} {id}: {problem}; nothing was exported")]
    Stored {
        /// The table.
        table: &'static str,
        /// The row's id.
        id: i64,
        /// What is wrong.
        problem: String,
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

/// Writes the export to `path` and its binaries into the folder `<path>.files` beside it
/// (refused when either holds anything, unless `force`): both written under names of their own
/// first (`.partial`), renamed once whole, so that a failed export leaves nothing.
pub async fn export_file(
    database: &Database,
    path: &Path,
    force: bool,
    progress: &mut dyn Progress,
) -> Result<Exported, ExportError> {
    let name = path
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .ok_or_else(|| std::io::Error::other("give the export a file name"))?;
    let folder = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let reference = format!("{name}.files");
    let binaries = folder.join(&reference);
    let holds_files =
        std::fs::read_dir(&binaries).is_ok_and(|mut entries| entries.next().is_some());
    if !force && (path.exists() || holds_files) {
        let taken = if path.exists() { path } else { &binaries };
        return Err(ExportError::Exists {
            path: taken.display().to_string(),
        });
    }
    let partial = folder.join(format!("{name}.partial"));
    let partial_files = folder.join(format!("{reference}.partial"));
    let _ = std::fs::remove_dir_all(&partial_files);
    let mut files = Files::new(partial_files.clone(), reference);
    let written = write_file(database, &partial, &mut files, progress).await;
    let finished = written.and_then(|exported| {
        if binaries.exists() {
            std::fs::remove_dir_all(&binaries)?;
        }
        if files.made() {
            std::fs::rename(&partial_files, &binaries)?;
        }
        std::fs::rename(&partial, path)?;
        Ok(exported)
    });
    if finished.is_err() {
        let _ = std::fs::remove_file(&partial);
        let _ = std::fs::remove_dir_all(&partial_files);
    }
    finished
}

/// Writes the export into the file `partial`, synced.
async fn write_file(
    database: &Database,
    partial: &Path,
    files: &mut Files,
    progress: &mut dyn Progress,
) -> Result<Exported, ExportError> {
    let mut out = std::io::BufWriter::new(std::fs::File::create(partial)?);
    let exported = export(database, &mut out, files, progress).await?;
    out.into_inner()
        .map_err(std::io::IntoInnerError::into_error)?
        .sync_all()?;
    Ok(exported)
}

/// Writes everything `database` holds to `out` as a bootstrap document, reporting each kind
/// to `progress`.
pub async fn export(
    database: &Database,
    out: &mut dyn Write,
    files: &mut Files,
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
        in_record: 0,
    };
    write!(document.out, "{{\"formatVersion\":{FORMAT_VERSION}")?;
    Kinds {
        connection: &mut snapshot,
        document: &mut document,
        files,
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

/// What a record owns, read for a range of owners.
pub(crate) trait OwnedBy {
    /// The owner's id.
    fn owner(&self) -> i64;
}

impl OwnedBy for OwnedRow {
    fn owner(&self) -> i64 {
        self.owner
    }
}

/// Takes the rows of `owner` off the end of `children` (read by owner ascending, then
/// reversed), dropping those of owners before it (of records the chunk does not hold).
fn take_own<C: OwnedBy>(children: &mut Vec<C>, owner: i64) -> Vec<C> {
    let mut own = Vec::new();
    while let Some(child) = children.pop_if(|child| child.owner() <= owner) {
        if child.owner() == owner {
            own.push(child);
        }
    }
    own
}

/// The range `(low, high]` that holds every id (empty when there are none): what the records
/// of a chunk own is read for it.
fn span(ids: impl Iterator<Item = i64>) -> (i64, i64) {
    let (low, high) = ids.fold((i64::MAX, 0), |(low, high), id| (low.min(id), high.max(id)));
    (low.saturating_sub(1).min(high), high)
}

/// Rows grouped by their owner, for owners whose ids the rows do not come ordered by.
fn by<R>(rows: Vec<R>, owner: impl Fn(&R) -> i64) -> HashMap<i64, Vec<R>> {
    let mut groups: HashMap<i64, Vec<R>> = HashMap::new();
    for row in rows {
        groups.entry(owner(&row)).or_default().push(row);
    }
    groups
}

/// The document being written: kinds as arrays of one record per line.
struct Document<'w> {
    out: &'w mut dyn Write,
    records: u64,
    /// Records written in the kind open now.
    in_kind: u64,
    /// Items written in the list of the record open now (see [`Document::open_record`]).
    in_record: u64,
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

    /// Opens a record of the kind open whose list `field` is long (a glossary's entries): its
    /// other fields, then the list, written item by item ([`Document::item`]).
    fn open_record<T: Serialize>(&mut self, header: &T, field: &str) -> Result<(), ExportError> {
        let mut text = serde_json::to_vec(header).map_err(std::io::Error::from)?;
        if text.pop() != Some(b'}') {
            return Err(std::io::Error::other("a record is written as an object").into());
        }
        self.out
            .write_all(if self.in_kind == 0 { b"\n" } else { b",\n" })?;
        self.out.write_all(&text)?;
        let separator = if text.len() > 1 { "," } else { "" };
        write!(self.out, "{separator}\"{field}\":[")?;
        self.in_kind += 1;
        self.records += 1;
        self.in_record = 0;
        Ok(())
    }

    /// Writes an item of the list of the record open.
    fn item<T: Serialize>(&mut self, item: &T) -> Result<(), ExportError> {
        self.out
            .write_all(if self.in_record == 0 { b"\n" } else { b",\n" })?;
        serde_json::to_writer(&mut *self.out, item).map_err(std::io::Error::from)?;
        self.in_record += 1;
        self.records += 1;
        Ok(())
    }

    /// Closes the record open.
    fn close_record(&mut self) -> Result<(), ExportError> {
        self.out
            .write_all(if self.in_record == 0 { b"]}" } else { b"\n]}" })?;
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
    files: &'a mut Files,
    progress: &'a mut dyn Progress,
}

impl Kinds<'_, '_> {
    async fn write(&mut self) -> Result<(), ExportError> {
        self.locales().await?;
        self.components().await?;
        self.definitions().await?;
        self.channel_types().await?;
        self.channel_attributes().await?;
        self.glossaries().await?;
        self.assets().await?;
        self.products().await?;
        self.keywords().await?;
        self.channels().await?;
        self.peos().await?;
        self.classifications().await?;
        self.briefings().await?;
        self.users().await?;
        self.roles().await?;
        self.tokens().await?;
        self.messages().await
    }

    /// Reads a kind chunk by chunk, writing each record `make` makes of a row and what it owns.
    async fn chunked<R, T>(
        &mut self,
        kind: Chunked,
        owned: &[Owned],
        id: impl Fn(&R) -> i64,
        make: impl Fn(R, Vec<Vec<OwnedRow>>) -> Result<T, ExportError>,
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
            let mut children = Vec::with_capacity(owned.len());
            for &owned in owned {
                let mut rows = export::owned(self.connection, owned, after, last).await?;
                rows.reverse();
                children.push(rows);
            }
            self.progress
                .advance(u64::try_from(rows.len()).unwrap_or(u64::MAX));
            for row in rows {
                let owner = id(&row);
                let own = children
                    .iter_mut()
                    .map(|rows| take_own(rows, owner))
                    .collect();
                self.document.record(&make(row, own)?)?;
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
