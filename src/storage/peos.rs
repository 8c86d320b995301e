//! The SQL of PEOs: their links to channels, PEOs whole or by name only (`namesOnly` reads no
//! other table), their nodes, and the candidates of PEO query.

use sqlx::{AnyConnection, AnyPool};

use super::{flag::Flag, in_list, in_list_on};

/// Links a PEO to a channel; linking it again changes nothing.
pub(crate) async fn link_channel(
    connection: &mut AnyConnection,
    peo: i64,
    channel: i64,
) -> Result<(), sqlx::Error> {
    sqlx::query(sql!(
        "INSERT INTO peo_channels (peo_id, channel_id) VALUES ($1, $2) ON CONFLICT DO NOTHING"
    ))
    .bind(peo)
    .bind(channel)
    .execute(connection)
    .await?;
    Ok(())
}

/// The id of a PEO's product (none when it names none).
pub(crate) async fn product_of(
    connection: &mut AnyConnection,
    peo: i64,
) -> Result<Option<i64>, sqlx::Error> {
    sqlx::query_scalar(sql!("SELECT product_id FROM peos WHERE id = $1"))
        .bind(peo)
        .fetch_one(connection)
        .await
}

/// A PEO as retrieval shows it (a row, or a JSON array in this field order).
#[derive(Debug, sqlx::FromRow, serde::Deserialize)]
pub(crate) struct Peo {
    /// Its id.
    pub(crate) id: i64,
    /// Its tid.
    pub(crate) tid: String,
    /// Its product's tid.
    pub(crate) product: Option<String>,
    /// Its product's id (whose access rights the PEO shares, D-58).
    pub(crate) product_id: Option<i64>,
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
            "SELECT p.id, p.tid, pr.tid AS product, p.product_id, p.template, \
             CAST(p.is_default AS INTEGER) AS is_default, p.name, p.created_at, p.modified_at \
             FROM peos p LEFT JOIN products pr ON pr.id = p.product_id WHERE ",
            $condition
        )
    };
}

/// The PEOs whose ids are listed.
pub(crate) async fn by_ids(
    connection: &mut AnyConnection,
    ids: &[i64],
) -> Result<Vec<Peo>, sqlx::Error> {
    in_list_on(connection, sql_in!(peos_where!("p.id IN ("), ")"), ids).await
}

/// The PEOs whose tids are listed.
pub(crate) async fn by_tids(
    connection: &mut AnyConnection,
    tids: &[String],
) -> Result<Vec<Peo>, sqlx::Error> {
    in_list_on(connection, sql_in!(peos_where!("p.tid IN ("), ")"), tids).await
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
    /// Its product's id (whose access rights the PEO shares, D-58).
    pub(crate) product_id: Option<i64>,
    /// When it was created.
    pub(crate) created_at: String,
    /// When it was last changed.
    pub(crate) modified_at: String,
}

/// The names of the PEOs whose ids are listed.
pub(crate) async fn names_by_ids(pool: &AnyPool, ids: &[i64]) -> Result<Vec<Named>, sqlx::Error> {
    in_list(
        pool,
        sql_in!(
            "SELECT id, tid, name, product_id, created_at, modified_at FROM peos WHERE id IN (",
            ")"
        ),
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
        sql_in!(
            "SELECT id, tid, name, product_id, created_at, modified_at FROM peos WHERE tid IN (",
            ")"
        ),
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
pub(crate) async fn nodes(
    connection: &mut AnyConnection,
    ids: &[i64],
) -> Result<Vec<NodeRow>, sqlx::Error> {
    in_list_on(
        connection,
        sql_in!(
            "SELECT peo_id, node FROM peo_nodes WHERE peo_id IN (",
            ") ORDER BY peo_id, position"
        ),
        ids,
    )
    .await
}

/// A PEO that PEO query may answer with: what its criteria compare.
#[derive(Debug, sqlx::FromRow)]
pub(crate) struct Candidate {
    /// Its id.
    pub(crate) id: i64,
    /// Its tid.
    pub(crate) tid: String,
    /// Its name.
    pub(crate) name: Option<String>,
    /// Its product.
    pub(crate) product_id: Option<i64>,
    /// When it was last changed (UTC, as stored).
    pub(crate) modified_at: String,
}

/// The columns of [`Candidate`], from `peos`.
macro_rules! candidates {
    ($condition:literal) => {
        concat!(
            "SELECT id, tid, name, product_id, modified_at FROM peos ",
            $condition
        )
    };
}

/// Which PEOs PEO query reads, by the most selective criterion it has (each served by an
/// index); the others are compared with what is read.
#[derive(Debug)]
pub(crate) enum Selection<'a> {
    /// The PEOs of a product.
    Product(i64),
    /// The PEOs with these ids (those linked to a project).
    Ids(&'a [i64]),
    /// The PEOs with these names.
    Names(&'a [&'a str]),
    /// The PEOs changed within the bounds (UTC as stored, inclusive; open ends absent).
    Modified(Option<&'a str>, Option<&'a str>),
    /// Every PEO: the answer of a query without criteria.
    All,
}

/// The PEOs a selection reads, unordered.
pub(crate) async fn candidates(
    pool: &AnyPool,
    selection: Selection<'_>,
) -> Result<Vec<Candidate>, sqlx::Error> {
    match selection {
        Selection::Product(product) => {
            sqlx::query_as(sql!(candidates!("WHERE product_id = $1")))
                .bind(product)
                .fetch_all(pool)
                .await
        }
        Selection::Ids(ids) => in_list(pool, sql_in!(candidates!("WHERE id IN ("), ")"), ids).await,
        Selection::Names(names) => {
            let names: Vec<String> = names.iter().map(|name| name.to_string()).collect();
            in_list(pool, sql_in!(candidates!("WHERE name IN ("), ")"), &names).await
        }
        Selection::Modified(from, until) => {
            // Timestamps are ISO 8601 text of one width, so open ends are the empty text and
            // the last instant that text can write.
            sqlx::query_as(sql!(candidates!(
                "WHERE modified_at >= $1 AND modified_at <= $2"
            )))
            .bind(from.unwrap_or("").to_string())
            .bind(until.unwrap_or("9999-12-31T23:59:59.999Z").to_string())
            .fetch_all(pool)
            .await
        }
        Selection::All => {
            sqlx::query_as(sql!(candidates!("ORDER BY tid")))
                .fetch_all(pool)
                .await
        }
    }
}
