//! The SQL of PEOs: their links to channels, PEOs whole or by name only (`namesOnly` reads no
//! other table), their nodes, and the candidates of PEO query.

use sqlx::{AnyConnection, AnyPool};

use super::{flag::Flag, in_list};

/// Links a PEO to a channel; linking it again changes nothing.
pub(crate) async fn link_channel(
    connection: &mut AnyConnection,
    peo: i64,
    channel: i64,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO peo_channels (peo_id, channel_id) VALUES ($1, $2) ON CONFLICT DO NOTHING",
    )
    .bind(peo)
    .bind(channel)
    .execute(connection)
    .await?;
    Ok(())
}

/// A PEO as retrieval shows it.
#[derive(Debug, sqlx::FromRow)]
pub(crate) struct Peo {
    /// Its id.
    pub(crate) id: i64,
    /// Its tid.
    pub(crate) tid: String,
    /// Its product's tid.
    pub(crate) product: Option<String>,
    /// Its template.
    pub(crate) template: Option<String>,
    /// The default PEO flag.
    pub(crate) is_default: Flag,
    /// Its name.
    pub(crate) name: Option<String>,
    /// When it was created.
    pub(crate) created_at: String,
    /// When it was last changed.
    pub(crate) modified_at: String,
}

/// The statement reading PEOs whole, ending with `condition`.
macro_rules! peos_where {
    ($condition:literal) => {
        concat!(
            "SELECT p.id, p.tid, pr.tid AS product, p.template, \
             CAST(p.is_default AS INTEGER) AS is_default, p.name, p.created_at, p.modified_at \
             FROM peos p LEFT JOIN products pr ON pr.id = p.product_id WHERE ",
            $condition
        )
    };
}

/// The PEOs whose ids are listed.
pub(crate) async fn by_ids(pool: &AnyPool, ids: &[i64]) -> Result<Vec<Peo>, sqlx::Error> {
    in_list(pool, peos_where!("p.id IN ("), ")", ids).await
}

/// The PEOs whose tids are listed.
pub(crate) async fn by_tids(pool: &AnyPool, tids: &[String]) -> Result<Vec<Peo>, sqlx::Error> {
    in_list(pool, peos_where!("p.tid IN ("), ")", tids).await
}

/// A PEO as `namesOnly` shows it: read from its own row alone.
#[derive(Debug, sqlx::FromRow)]
pub(crate) struct Named {
    /// Its id.
    pub(crate) id: i64,
    /// Its tid.
    pub(crate) tid: String,
    /// Its name.
    pub(crate) name: Option<String>,
    /// When it was created.
    pub(crate) created_at: String,
    /// When it was last changed.
    pub(crate) modified_at: String,
}

/// The names of the PEOs whose ids are listed.
pub(crate) async fn names_by_ids(pool: &AnyPool, ids: &[i64]) -> Result<Vec<Named>, sqlx::Error> {
    in_list(
        pool,
        "SELECT id, tid, name, created_at, modified_at FROM peos WHERE id IN (",
        ")",
        ids,
    )
    .await
}

/// The names of the PEOs whose tids are listed.
pub(crate) async fn names_by_tids(
    pool: &AnyPool,
    tids: &[String],
) -> Result<Vec<Named>, sqlx::Error> {
    in_list(
        pool,
        "SELECT id, tid, name, created_at, modified_at FROM peos WHERE tid IN (",
        ")",
        tids,
    )
    .await
}

/// A node identifier of a PEO.
#[derive(Debug, sqlx::FromRow)]
pub(crate) struct NodeRow {
    /// The PEO.
    pub(crate) peo_id: i64,
    /// The node identifier.
    pub(crate) node: String,
}

/// The nodes of the listed PEOs, by PEO and position.
pub(crate) async fn nodes(pool: &AnyPool, ids: &[i64]) -> Result<Vec<NodeRow>, sqlx::Error> {
    in_list(
        pool,
        "SELECT peo_id, node FROM peo_nodes WHERE peo_id IN (",
        ") ORDER BY peo_id, position",
        ids,
    )
    .await
}

/// A PEO that PEO query may answer with: its id and tid, and its name to match `names`.
#[derive(Debug, sqlx::FromRow)]
pub(crate) struct Candidate {
    /// Its id.
    pub(crate) id: i64,
    /// Its tid.
    pub(crate) tid: String,
    /// Its name.
    pub(crate) name: Option<String>,
}

/// The PEOs of a product (any when `None`) modified within the bounds (UTC timestamps as
/// stored, inclusive; open when `None`), by tid.
pub(crate) async fn matching(
    pool: &AnyPool,
    product: Option<i64>,
    from: Option<&str>,
    until: Option<&str>,
) -> Result<Vec<Candidate>, sqlx::Error> {
    sqlx::query_as(
        "SELECT id, tid, name FROM peos WHERE ($1 IS NULL OR product_id = $1) \
         AND ($2 IS NULL OR modified_at >= $2) AND ($3 IS NULL OR modified_at <= $3) ORDER BY tid",
    )
    .bind(product)
    .bind(from.map(str::to_string))
    .bind(until.map(str::to_string))
    .fetch_all(pool)
    .await
}
