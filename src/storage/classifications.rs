//! The SQL of classifications: the list with names, and the writes of classes persist and
//! perform (deleting one deletes its nodes, their names, attributes and product links by the
//! schema's cascades).

use std::collections::{BTreeSet, HashSet};

use sqlx::AnyConnection;

use super::{Backend, IN_LIST_CHUNK, backend_of, in_list_on};

/// A stored classification.
#[derive(Debug, Clone, sqlx::FromRow)]
pub(crate) struct Classification {
    /// Its id.
    pub(crate) id: i64,
    /// Its tid, which is also its name and its root node's identifier (D-23).
    pub(crate) tid: String,
}

/// A name of a classification: `loc` empty for the default name.
#[derive(Debug, sqlx::FromRow)]
pub(crate) struct Name {
    /// The classification.
    pub(crate) classification_id: i64,
    /// The locale tid, empty for the default name.
    pub(crate) loc: String,
    /// The name.
    pub(crate) name: String,
}

/// A classification with one of its names, as a selection reads them (no name: it has none).
#[derive(Debug, sqlx::FromRow)]
struct Named {
    /// The classification's id.
    id: i64,
    /// Its tid.
    tid: String,
    /// The name's locale tid, empty for the default name.
    loc: Option<String>,
    /// The name.
    name: Option<String>,
}

/// Classifications joined to their names, one row per name: every one (`every`), or those
/// whose `$column` is in a list (`in`, the statement's head up to the list).
macro_rules! named {
    (every) => {
        concat!(named!(joined), "ORDER BY c.id, n.loc")
    };
    (in $column:literal) => {
        concat!(named!(joined), "WHERE c.", $column, " IN (")
    };
    (joined) => {
        "SELECT c.id, c.tid, n.loc, n.name FROM classifications c \
         LEFT JOIN classification_names n ON n.classification_id = c.id "
    };
}

/// The classifications of `ids` and of `tids` (both empty: every one), by id, each once,
/// unknown ones skipped, with their names by classification and locale. Only the
/// classifications the answer holds are read, through the primary key and the tid index: one
/// statement for a list of ids or of tids (lists as placeholders, so that one id or tid is a
/// plain lookup), two when both are given.
pub(crate) async fn selected(
    connection: &mut AnyConnection,
    ids: &[i64],
    tids: &[String],
) -> Result<(Vec<Classification>, Vec<Name>), sqlx::Error> {
    if ids.is_empty() && tids.is_empty() {
        let rows = sqlx::query_as(sql!(named!(every)))
            .fetch_all(connection)
            .await?;
        return Ok(split(rows));
    }
    // Each classification once: the lists without repeats, and one named by both lists read
    // once. A classification's rows stay in the order the database gave its names.
    let (ids, tids) = (distinct(ids), distinct(tids));
    let mut rows: Vec<Named> = Vec::new();
    if !ids.is_empty() {
        let list = sql_in!(named!(in "id"), ") ORDER BY c.id, n.loc");
        rows.extend(in_list_on(&mut *connection, list, &ids).await?);
    }
    if !tids.is_empty() {
        let list = sql_in!(named!(in "tid"), ") ORDER BY c.id, n.loc");
        let by_id: HashSet<i64> = rows.iter().map(|row| row.id).collect();
        let named: Vec<Named> = in_list_on(&mut *connection, list, &tids).await?;
        rows.extend(named.into_iter().filter(|row| !by_id.contains(&row.id)));
    }
    rows.sort_by_key(|row| row.id);
    Ok(split(rows))
}

/// The values of `list`, each once.
fn distinct<T: Ord + Clone>(list: &[T]) -> Vec<T> {
    list.iter()
        .cloned()
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect()
}

/// Whether [`selected`] reads these lists in one statement, which is one snapshot by itself:
/// not both lists, and none longer than a chunk of a listed statement.
pub(crate) fn read_at_once(ids: &[i64], tids: &[String]) -> bool {
    (ids.is_empty() || tids.is_empty()) && ids.len().max(tids.len()) <= IN_LIST_CHUNK
}

/// The classifications of `rows` (each once, in their order) and their names.
fn split(rows: Vec<Named>) -> (Vec<Classification>, Vec<Name>) {
    let mut classifications: Vec<Classification> = Vec::new();
    let mut names = Vec::with_capacity(rows.len());
    for row in rows {
        if classifications.last().is_none_or(|last| last.id != row.id) {
            classifications.push(Classification {
                id: row.id,
                tid: row.tid,
            });
        }
        if let (Some(loc), Some(name)) = (row.loc, row.name) {
            names.push(Name {
                classification_id: row.id,
                loc,
                name,
            });
        }
    }
    (classifications, names)
}

/// Stores a new classification; answers its id.
pub(crate) async fn create(
    connection: &mut AnyConnection,
    tid: &str,
    now: &str,
) -> Result<i64, sqlx::Error> {
    sqlx::query_scalar(sql!(
        "INSERT INTO classifications (tid, created_at, modified_at) VALUES ($1, $2, $2) \
         RETURNING id"
    ))
    .bind(tid)
    .bind(now)
    .fetch_one(connection)
    .await
}

/// Records that a classification was saved.
pub(crate) async fn touch(
    connection: &mut AnyConnection,
    id: i64,
    now: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query(sql!(
        "UPDATE classifications SET modified_at = $2 WHERE id = $1"
    ))
    .bind(id)
    .bind(now)
    .execute(connection)
    .await?;
    Ok(())
}

/// Keeps other writers of the classification `tid` waiting until the transaction ends
/// (PostgreSQL; SQLite has one writer at a time): of two requests creating one classification,
/// the second finds the first's and saves it, and the nodes of a classification are written by
/// one request at a time (D-24).
pub(crate) async fn lock_tid(connection: &mut AnyConnection, tid: &str) -> Result<(), sqlx::Error> {
    advisory(connection, 1, tid).await
}

/// Keeps other writers of the localized classification name `name` in `loc` waiting until the
/// transaction ends (PostgreSQL), so that two classifications cannot take it at once (D-24).
pub(crate) async fn lock_name(
    connection: &mut AnyConnection,
    loc: &str,
    name: &str,
) -> Result<(), sqlx::Error> {
    advisory(connection, 2, &format!("{loc}\u{1}{name}")).await
}

/// A transaction's advisory lock on a text in a key space of its own (PostgreSQL).
async fn advisory(
    connection: &mut AnyConnection,
    space: i32,
    text: &str,
) -> Result<(), sqlx::Error> {
    if backend_of(connection) == Backend::Postgres {
        sqlx::query(sql!(postgres: "SELECT pg_advisory_xact_lock($1, hashtext($2))::text"))
            .bind(space)
            .bind(text)
            .execute(connection)
            .await?;
    }
    Ok(())
}

/// Whether another classification has `name` in locale `loc`.
pub(crate) async fn name_taken(
    connection: &mut AnyConnection,
    id: i64,
    loc: &str,
    name: &str,
) -> Result<bool, sqlx::Error> {
    let other: Option<i64> = sqlx::query_scalar(sql!(
        "SELECT classification_id FROM classification_names \
         WHERE loc = $1 AND name = $2 AND classification_id <> $3 LIMIT 1"
    ))
    .bind(loc)
    .bind(name)
    .bind(id)
    .fetch_optional(connection)
    .await?;
    Ok(other.is_some())
}

/// Sets a classification's name in a locale (`loc` empty: its default name).
pub(crate) async fn set_name(
    connection: &mut AnyConnection,
    id: i64,
    loc: &str,
    name: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query(sql!(
        "INSERT INTO classification_names (classification_id, loc, name) VALUES ($1, $2, $3) \
         ON CONFLICT (classification_id, loc) DO UPDATE SET name = excluded.name"
    ))
    .bind(id)
    .bind(loc)
    .bind(name)
    .execute(connection)
    .await?;
    Ok(())
}

/// Deletes a classification with its nodes and everything hanging on them.
pub(crate) async fn delete(connection: &mut AnyConnection, id: i64) -> Result<(), sqlx::Error> {
    sqlx::query(sql!("DELETE FROM classifications WHERE id = $1"))
        .bind(id)
        .execute(connection)
        .await?;
    Ok(())
}
