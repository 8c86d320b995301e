//! The SQL of classifications' writes, for classes persist and perform (deleting one deletes
//! its nodes, their names, attributes and product links by the schema's cascades);
//! `storage::trees` reads them with their trees.

use sqlx::AnyConnection;

use super::{Backend, backend_of};

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
