//! The SQL of product links: the assets linked to a product by link type, with their positions.

use sqlx::AnyConnection;

use super::{Backend, backend_of};

/// A link type: an attribute definition, with how many assets a product may link with it.
#[derive(Debug, sqlx::FromRow)]
pub(crate) struct LinkType {
    /// The attribute definition's id.
    pub(crate) id: i64,
    /// The most assets a product may link with it (none: no limit).
    pub(crate) cardinality: Option<i64>,
}

/// What a product links with a link type already: how many assets, and the last position.
#[derive(Debug, sqlx::FromRow)]
pub(crate) struct Linked {
    /// The assets linked.
    pub(crate) linked: i64,
    /// The last position taken (0 when none).
    pub(crate) last: i64,
}

/// The link type named by an attribute definition's tid, kept from being deleted until the
/// transaction ends (PostgreSQL: a concurrent delete of the definition waits, or has ended).
pub(crate) async fn link_type(
    connection: &mut AnyConnection,
    tid: &str,
) -> Result<Option<LinkType>, sqlx::Error> {
    let statement = match backend_of(connection) {
        Backend::Sqlite => sql!(sqlite:
            "SELECT id, cardinality FROM attribute_definitions WHERE tid = $1"
        ),
        Backend::Postgres => sql!(postgres:
            "SELECT id, cardinality FROM attribute_definitions WHERE tid = $1 FOR SHARE"
        ),
    };
    sqlx::query_as(statement)
        .bind(tid)
        .fetch_optional(connection)
        .await
}

/// Locks a product until the transaction ends (PostgreSQL; SQLite has one writer at a time), so
/// that concurrent links to it are counted one after the other against a cardinality.
pub(crate) async fn lock_product(
    connection: &mut AnyConnection,
    product: i64,
) -> Result<(), sqlx::Error> {
    if backend_of(connection) == Backend::Postgres {
        sqlx::query(sql!(postgres: "SELECT id FROM products WHERE id = $1 FOR NO KEY UPDATE"))
            .bind(product)
            .execute(connection)
            .await?;
    }
    Ok(())
}

/// Whether a product links an asset with a link type.
pub(crate) async fn is_linked(
    connection: &mut AnyConnection,
    product: i64,
    asset: i64,
    link_type: i64,
) -> Result<bool, sqlx::Error> {
    let found: Option<i64> = sqlx::query_scalar(sql!(
        "SELECT product_id FROM product_assets \
         WHERE product_id = $1 AND asset_id = $2 AND link_type_id = $3"
    ))
    .bind(product)
    .bind(asset)
    .bind(link_type)
    .fetch_optional(connection)
    .await?;
    Ok(found.is_some())
}

/// How many assets a product links with a link type, and the last position.
pub(crate) async fn linked(
    connection: &mut AnyConnection,
    product: i64,
    link_type: i64,
) -> Result<Linked, sqlx::Error> {
    sqlx::query_as(sql!(
        "SELECT COUNT(*) AS linked, COALESCE(MAX(position), 0) AS last FROM product_assets \
         WHERE product_id = $1 AND link_type_id = $2"
    ))
    .bind(product)
    .bind(link_type)
    .fetch_one(connection)
    .await
}

/// Links an asset to a product at a position; linking it again is a uniqueness violation.
pub(crate) async fn link(
    connection: &mut AnyConnection,
    product: i64,
    asset: i64,
    link_type: i64,
    position: i64,
) -> Result<(), sqlx::Error> {
    sqlx::query(sql!(
        "INSERT INTO product_assets (product_id, asset_id, link_type_id, position) \
         VALUES ($1, $2, $3, $4)"
    ))
    .bind(product)
    .bind(asset)
    .bind(link_type)
    .bind(position)
    .execute(connection)
    .await?;
    Ok(())
}
