//! The SQL of classification nodes: a node by id or path, and the writes of classes persist. A
//! node's path is stored whole (`/<class>/…`), so its ancestors are the prefixes of its path.

use sqlx::AnyConnection;

/// How deep a node may be: the root is level 1 (D-23). The nested answer of classes retrieve
/// stays within the nesting depth every reader accepts (D-37).
pub(crate) const MAX_DEPTH: usize = 16;

/// A stored node: what attributes and their requests need of it. (A whole tree is read by
/// `trees`.)
#[derive(Debug, Clone, sqlx::FromRow)]
pub(crate) struct Node {
    /// Its id.
    pub(crate) id: i64,
    /// Its path, `/<class>/…`.
    pub(crate) path: String,
}

/// The columns of [`Node`], from `classification_nodes n`.
macro_rules! node_query {
    ($($rest:literal),*) => {
        concat!("SELECT n.id, n.path FROM classification_nodes n ", $($rest),*)
    };
}

/// The node of a classification at a path, in a transaction.
pub(crate) async fn find(
    connection: &mut AnyConnection,
    classification: i64,
    path: &str,
) -> Result<Option<Node>, sqlx::Error> {
    sqlx::query_as(sql!(node_query!(
        "WHERE n.classification_id = $1 AND n.path = $2"
    )))
    .bind(classification)
    .bind(path)
    .fetch_optional(connection)
    .await
}

/// A node by id, in a transaction.
pub(crate) async fn find_id(
    connection: &mut AnyConnection,
    id: i64,
) -> Result<Option<Node>, sqlx::Error> {
    sqlx::query_as(sql!(node_query!("WHERE n.id = $1")))
        .bind(id)
        .fetch_optional(connection)
        .await
}

/// A node by path, in a transaction.
pub(crate) async fn find_path(
    connection: &mut AnyConnection,
    path: &str,
) -> Result<Option<Node>, sqlx::Error> {
    sqlx::query_as(sql!(node_query!("WHERE n.path = $1")))
        .bind(path)
        .fetch_optional(connection)
        .await
}

/// The place after the last node of a classification: new nodes are appended in request order.
pub(crate) async fn next_position(
    connection: &mut AnyConnection,
    classification: i64,
) -> Result<i64, sqlx::Error> {
    sqlx::query_scalar(sql!(
        "SELECT CAST(COALESCE(MAX(position) + 1, 0) AS BIGINT) FROM classification_nodes \
         WHERE classification_id = $1"
    ))
    .bind(classification)
    .fetch_one(connection)
    .await
}

/// Stores a new node; answers its id.
pub(crate) async fn create(
    connection: &mut AnyConnection,
    classification: i64,
    parent: Option<i64>,
    path: &str,
    position: i64,
) -> Result<i64, sqlx::Error> {
    let identifier = path.rsplit('/').next().unwrap_or_default();
    sqlx::query_scalar(
        sql!("INSERT INTO classification_nodes (classification_id, parent_id, identifier, path, position) \
         VALUES ($1, $2, $3, $4, $5) RETURNING id"),
    )
    .bind(classification)
    .bind(parent)
    .bind(identifier)
    .bind(path)
    .bind(position)
    .fetch_one(connection)
    .await
}

/// Sets a node's name in a locale (`loc` empty: its default name).
pub(crate) async fn set_name(
    connection: &mut AnyConnection,
    node: i64,
    loc: &str,
    name: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query(sql!(
        "INSERT INTO node_names (node_id, loc, name) VALUES ($1, $2, $3) \
         ON CONFLICT (node_id, loc) DO UPDATE SET name = excluded.name"
    ))
    .bind(node)
    .bind(loc)
    .bind(name)
    .execute(connection)
    .await?;
    Ok(())
}

/// Locks a node until the transaction ends (PostgreSQL; SQLite has one writer at a time), so
/// that concurrent writes of its attributes run one after the other.
pub(crate) async fn lock(connection: &mut AnyConnection, id: i64) -> Result<(), sqlx::Error> {
    if super::backend_of(connection) == super::Backend::Postgres {
        sqlx::query(sql!(postgres:
            "SELECT id FROM classification_nodes WHERE id = $1 FOR NO KEY UPDATE"
        ))
        .bind(id)
        .execute(connection)
        .await?;
    }
    Ok(())
}
