//! The SQL of attribute definitions: ids by type, what uses a definition, and its deletion.

use sqlx::AnyConnection;

use super::{Backend, Database, backend_of, in_list};

/// The ids of the definitions of the given types, ascending.
pub(crate) async fn ids_of_types(
    database: &Database,
    types: &[String],
) -> Result<Vec<i64>, sqlx::Error> {
    let mut ids: Vec<(i64,)> = in_list(
        database,
        sql_in!("SELECT id FROM attribute_definitions WHERE type IN (", ")"),
        types,
    )
    .await?;
    ids.sort_unstable();
    ids.dedup();
    Ok(ids.into_iter().map(|(id,)| id).collect())
}

/// Locks a definition that is about to be deleted (PostgreSQL; SQLite has one writer at a
/// time): a request saving an attribute, a value or a link of it waits for the delete and then
/// finds no definition, or holds it first, and the delete then sees what it saved (D-49).
pub(crate) async fn lock(connection: &mut AnyConnection, id: i64) -> Result<(), sqlx::Error> {
    if backend_of(connection) == Backend::Postgres {
        sqlx::query(sql!(postgres:
            "SELECT id FROM attribute_definitions WHERE id = $1 FOR UPDATE"
        ))
        .bind(id)
        .execute(connection)
        .await?;
    }
    Ok(())
}

/// Finds a definition by tid to save something of it, keeping it from being deleted until the
/// transaction ends (PostgreSQL): its id.
pub(crate) async fn hold(
    connection: &mut AnyConnection,
    tid: &str,
) -> Result<Option<i64>, sqlx::Error> {
    let statement = match backend_of(connection) {
        Backend::Sqlite => sql!(sqlite: "SELECT id FROM attribute_definitions WHERE tid = $1"),
        Backend::Postgres => sql!(postgres:
            "SELECT id FROM attribute_definitions WHERE tid = $1 FOR SHARE"
        ),
    };
    sqlx::query_scalar(statement)
        .bind(tid)
        .fetch_optional(connection)
        .await
}

/// What uses a definition; a definition in use is not deleted (D-49).
#[derive(Debug, Default, PartialEq, Eq, sqlx::FromRow)]
pub(crate) struct Uses {
    /// Node attributes of this definition.
    pub(crate) node_attributes: i64,
    /// Product asset links whose link type it is.
    pub(crate) product_links: i64,
    /// Values of channels and PEOs.
    pub(crate) values: i64,
    /// Whether it is registered for channel values (0 or 1).
    pub(crate) channel_registrations: i64,
}

/// What uses a definition.
pub(crate) async fn uses(connection: &mut AnyConnection, id: i64) -> Result<Uses, sqlx::Error> {
    sqlx::query_as(
        sql!("SELECT \
         (SELECT COUNT(*) FROM node_attributes WHERE attribute_definition_id = $1) AS node_attributes, \
         (SELECT COUNT(*) FROM product_assets WHERE link_type_id = $1) AS product_links, \
         (SELECT COUNT(*) FROM attribute_values WHERE attribute_definition_id = $1) AS \"values\", \
         (SELECT COUNT(*) FROM channel_attributes WHERE attribute_definition_id = $1) AS channel_registrations"),
    )
    .bind(id)
    .fetch_one(connection)
    .await
}

/// Deletes a definition.
pub(crate) async fn delete(connection: &mut AnyConnection, id: i64) -> Result<(), sqlx::Error> {
    sqlx::query(sql!("DELETE FROM attribute_definitions WHERE id = $1"))
        .bind(id)
        .execute(connection)
        .await?;
    Ok(())
}
