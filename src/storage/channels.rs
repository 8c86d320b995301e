//! The SQL of channels (`project`): a subtree in one recursive statement, the roots, channels by
//! ids or tids with their type and parent, their asset links and PEOs, and the writes of channels
//! persist. Lists are read with `in_list`, a few statements whatever their length.

use sqlx::{AnyConnection, AnyPool};

use super::in_list_on;

/// A channel of a subtree, as channel query orders it.
#[derive(Debug, sqlx::FromRow)]
pub(crate) struct Node {
    /// Its id.
    pub(crate) id: i64,
    /// Its tid.
    pub(crate) tid: String,
    /// Its parent (none for a root).
    pub(crate) parent_id: Option<i64>,
    /// Its place among its siblings.
    pub(crate) order_sequence: Option<i64>,
}

/// The deepest a subtree is read, whatever `level` asks: a guard against a cycle that a
/// bootstrap document could write by re-parenting channels.
const DEEPEST: i64 = 4096;

/// The channel `root` and its descendants down to `level` generations (`None`: all).
pub(crate) async fn subtree(
    pool: &AnyPool,
    root: i64,
    level: Option<i64>,
) -> Result<Vec<Node>, sqlx::Error> {
    sqlx::query_as(sql!(
        "WITH RECURSIVE tree (id, tid, parent_id, order_sequence, depth) AS ( \
           SELECT id, tid, parent_id, order_sequence, 0 FROM channels WHERE id = $1 \
           UNION ALL \
           SELECT c.id, c.tid, c.parent_id, c.order_sequence, t.depth + 1 \
           FROM channels c JOIN tree t ON c.parent_id = t.id WHERE t.depth < $2 \
         ) SELECT id, tid, parent_id, CAST(order_sequence AS BIGINT) AS order_sequence FROM tree"
    ))
    .bind(root)
    .bind(level.unwrap_or(DEEPEST).min(DEEPEST))
    .fetch_all(pool)
    .await
}

/// The channels without a parent.
pub(crate) async fn roots(pool: &AnyPool) -> Result<Vec<Node>, sqlx::Error> {
    sqlx::query_as(sql!(
        "SELECT id, tid, parent_id, CAST(order_sequence AS BIGINT) AS order_sequence \
         FROM channels WHERE parent_id IS NULL"
    ))
    .fetch_all(pool)
    .await
}

/// A channel as retrieval shows it.
#[derive(Debug, sqlx::FromRow)]
pub(crate) struct Channel {
    /// Its id.
    pub(crate) id: i64,
    /// Its tid.
    pub(crate) tid: String,
    /// Its parent's id.
    pub(crate) parent_id: Option<i64>,
    /// Its parent's tid.
    pub(crate) parent_tid: Option<String>,
    /// The name of its type.
    pub(crate) type_name: String,
    /// Its place among its siblings.
    pub(crate) order_sequence: Option<i64>,
    /// Its name.
    pub(crate) name: Option<String>,
    /// `meta` `htmlIcon`.
    pub(crate) html_icon: Option<String>,
    /// `meta` `icon`.
    pub(crate) icon: Option<String>,
    /// `meta` `allowedFunctions`.
    pub(crate) allowed_functions: Option<String>,
    /// When it was created.
    pub(crate) created_at: String,
    /// When it was last changed.
    pub(crate) modified_at: String,
}

/// The statement reading channels, ending with `condition`.
macro_rules! channels_where {
    ($condition:literal) => {
        concat!(
            "SELECT c.id, c.tid, c.parent_id, p.tid AS parent_tid, t.name AS type_name, \
             CAST(c.order_sequence AS BIGINT) AS order_sequence, c.name, c.html_icon, c.icon, \
             c.allowed_functions, c.created_at, c.modified_at \
             FROM channels c JOIN channel_types t ON t.id = c.type_id \
             LEFT JOIN channels p ON p.id = c.parent_id WHERE ",
            $condition
        )
    };
}

/// The channels whose ids are listed.
pub(crate) async fn by_ids(
    connection: &mut AnyConnection,
    ids: &[i64],
) -> Result<Vec<Channel>, sqlx::Error> {
    in_list_on(connection, sql_in!(channels_where!("c.id IN ("), ")"), ids).await
}

/// The channels whose tids are listed.
pub(crate) async fn by_tids(
    connection: &mut AnyConnection,
    tids: &[String],
) -> Result<Vec<Channel>, sqlx::Error> {
    in_list_on(
        connection,
        sql_in!(channels_where!("c.tid IN ("), ")"),
        tids,
    )
    .await
}

/// An asset linked to a channel, once per role it is restricted to (`role` none: unrestricted).
#[derive(Debug, sqlx::FromRow)]
pub(crate) struct AssetLink {
    /// The channel.
    pub(crate) channel_id: i64,
    /// The asset's tid.
    pub(crate) tid: String,
    /// The asset's path.
    pub(crate) path: Option<String>,
    /// A role the asset is restricted to.
    pub(crate) role: Option<String>,
}

/// The assets linked to the listed channels, by channel and asset tid.
pub(crate) async fn asset_links(
    connection: &mut AnyConnection,
    channels: &[i64],
) -> Result<Vec<AssetLink>, sqlx::Error> {
    in_list_on(
        connection,
        sql_in!(
            "SELECT l.channel_id, a.tid, a.path, r.name AS role FROM channel_assets l \
         JOIN assets a ON a.id = l.asset_id \
         LEFT JOIN access_restrictions ar ON ar.kind = 'asset' AND ar.record_id = a.id \
         LEFT JOIN roles r ON r.id = ar.role_id WHERE l.channel_id IN (",
            ") ORDER BY l.channel_id, a.tid"
        ),
        channels,
    )
    .await
}

/// A PEO linked to a channel.
#[derive(Debug, sqlx::FromRow)]
pub(crate) struct PeoLink {
    /// The channel.
    pub(crate) channel_id: i64,
    /// The PEO.
    pub(crate) peo_id: i64,
}

/// The PEOs linked to the listed channels.
pub(crate) async fn peo_links(
    connection: &mut AnyConnection,
    channels: &[i64],
) -> Result<Vec<PeoLink>, sqlx::Error> {
    in_list_on(
        connection,
        sql_in!(
            "SELECT channel_id, peo_id FROM peo_channels WHERE channel_id IN (",
            ")"
        ),
        channels,
    )
    .await
}

/// The id of a channel type by name.
pub(crate) async fn type_id(
    connection: &mut AnyConnection,
    name: &str,
) -> Result<Option<i64>, sqlx::Error> {
    sqlx::query_scalar(sql!("SELECT id FROM channel_types WHERE name = $1"))
        .bind(name.to_string())
        .fetch_optional(connection)
        .await
}

/// The parent of a stored channel.
pub(crate) async fn parent_of(
    connection: &mut AnyConnection,
    id: i64,
) -> Result<Option<i64>, sqlx::Error> {
    sqlx::query_scalar(sql!("SELECT parent_id FROM channels WHERE id = $1"))
        .bind(id)
        .fetch_one(connection)
        .await
}

/// What a new channel is stored with.
#[derive(Debug)]
pub(crate) struct New<'a> {
    /// Its tid.
    pub(crate) tid: &'a str,
    /// Its parent.
    pub(crate) parent_id: i64,
    /// Its type.
    pub(crate) type_id: i64,
    /// Its place among its siblings; after the last one when none is given.
    pub(crate) order_sequence: Option<i32>,
    /// Its name.
    pub(crate) name: &'a str,
}

/// Stores a new channel; its id. A tid taken already is a uniqueness violation.
pub(crate) async fn insert(
    connection: &mut AnyConnection,
    channel: &New<'_>,
    now: &str,
) -> Result<i64, sqlx::Error> {
    sqlx::query_scalar(
        sql!("INSERT INTO channels (tid, parent_id, type_id, order_sequence, name, created_at, modified_at) \
         SELECT $1, $2, $3, COALESCE($4, MAX(order_sequence) + 1, 1), $5, $6, $6 FROM channels \
         WHERE parent_id = $2 RETURNING id"),
    )
    .bind(channel.tid.to_string())
    .bind(channel.parent_id)
    .bind(channel.type_id)
    .bind(channel.order_sequence)
    .bind(channel.name.to_string())
    .bind(now.to_string())
    .fetch_one(connection)
    .await
}

/// What an update changes (`None`: unchanged).
#[derive(Debug, Default)]
pub(crate) struct Change<'a> {
    /// A new name.
    pub(crate) name: Option<&'a str>,
    /// A new type.
    pub(crate) type_id: Option<i64>,
    /// A new place among the siblings.
    pub(crate) order_sequence: Option<i32>,
}

/// Updates a channel: the fields given, and its modification date.
pub(crate) async fn update(
    connection: &mut AnyConnection,
    id: i64,
    change: &Change<'_>,
    now: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query(sql!(
        "UPDATE channels SET name = COALESCE($1, name), type_id = COALESCE($2, type_id), \
         order_sequence = COALESCE($3, order_sequence), modified_at = $4 WHERE id = $5"
    ))
    .bind(change.name.map(str::to_string))
    .bind(change.type_id)
    .bind(change.order_sequence)
    .bind(now.to_string())
    .bind(id)
    .execute(connection)
    .await?;
    Ok(())
}
