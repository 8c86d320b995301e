//! The SQL of attribute definitions: ids by type, what uses a definition, and its deletion.

use sqlx::{AnyConnection, AnyPool};

use super::in_list;

/// The ids of the definitions of the given types, ascending.
pub(crate) async fn ids_of_types(
    pool: &AnyPool,
    types: &[String],
) -> Result<Vec<i64>, sqlx::Error> {
    let mut ids: Vec<(i64,)> = in_list(
        pool,
        "SELECT id FROM attribute_definitions WHERE type IN (",
        ")",
        types,
    )
    .await?;
    ids.sort_unstable();
    ids.dedup();
    Ok(ids.into_iter().map(|(id,)| id).collect())
}

/// Every definition's id and tid: the `key` of the attributes of a classification tree.
pub(crate) async fn keys(pool: &AnyPool) -> Result<Vec<(i64, String)>, sqlx::Error> {
    sqlx::query_as("SELECT id, tid FROM attribute_definitions")
        .fetch_all(pool)
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
        "SELECT \
         (SELECT COUNT(*) FROM node_attributes WHERE attribute_definition_id = $1) AS node_attributes, \
         (SELECT COUNT(*) FROM product_assets WHERE link_type_id = $1) AS product_links, \
         (SELECT COUNT(*) FROM attribute_values WHERE attribute_definition_id = $1) AS \"values\", \
         (SELECT COUNT(*) FROM channel_attributes WHERE attribute_definition_id = $1) AS channel_registrations",
    )
    .bind(id)
    .fetch_one(connection)
    .await
}

/// Deletes a definition.
pub(crate) async fn delete(connection: &mut AnyConnection, id: i64) -> Result<(), sqlx::Error> {
    sqlx::query("DELETE FROM attribute_definitions WHERE id = $1")
        .bind(id)
        .execute(connection)
        .await?;
    Ok(())
}
