//! The SQL of channels (`project`): a subtree in one recursive statement, the roots, the channels
//! channel retrieve answers (one statement a page, with everything each answer holds), and the
//! writes of channels persist. (PEO query reads the PEOs linked to a subtree: `peos::query`.)

use std::sync::Arc;

use futures_util::{StreamExt, stream::BoxStream};
use serde::Deserialize;
use sqlx::AnyConnection;

use super::{
    Backend, Database, json_rows, json_text, peos, read, records::Identity, stream, values,
};

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
    /// Its generation below the subtree's root (0: the root, and every root of [`roots`]).
    pub(crate) depth: i64,
}

/// The deepest a subtree is read, whatever `level` asks: a guard against a cycle that a
/// bootstrap document could write by re-parenting channels.
const DEEPEST: i64 = 4096;

/// The generations a subtree is read down to: `level` (`None`: all), within [`DEEPEST`].
pub(crate) fn depth(level: Option<i64>) -> i64 {
    level.unwrap_or(DEEPEST).min(DEEPEST)
}

/// A channel subtree's statement: its channels as [`Node`]s, from the channel whose `$column`
/// is `$1`, down to `$2` generations.
macro_rules! subtree {
    ($column:literal) => {
        sql!(concat!(
            channel_tree!($column, "$1", "$2"),
            "SELECT id, tid, parent_id, CAST(order_sequence AS BIGINT) AS order_sequence, \
             CAST(depth AS BIGINT) AS depth FROM tree"
        ))
    };
}

/// The channel `root` and its descendants down to `level` generations (`None`: all, within
/// [`DEEPEST`]), in one statement; none when no channel is `root`.
pub(crate) async fn subtree(
    database: &Database,
    root: Identity<'_>,
    level: Option<i64>,
) -> Result<Vec<Node>, sqlx::Error> {
    read::all(database, || {
        root.query_as(subtree!("id"), subtree!("tid"))
            .bind(depth(level))
    })
    .await
}

/// The channels without a parent.
pub(crate) async fn roots(database: &Database) -> Result<Vec<Node>, sqlx::Error> {
    read::all(database, || {
        sqlx::query_as(sql!(
            "SELECT id, tid, parent_id, CAST(order_sequence AS BIGINT) AS order_sequence, \
             CAST(0 AS BIGINT) AS depth FROM channels WHERE parent_id IS NULL"
        ))
    })
    .await
}

/// A channel as retrieval shows it (read from a JSON array in this field order).
#[derive(Debug, Deserialize)]
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

/// An asset linked to a channel, once per role it is restricted to (`role` none: unrestricted).
#[derive(Debug, Deserialize)]
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

/// A channel of channel retrieve with everything its answer holds, whoever asks: the caller's
/// rights are applied to what is read (each list in this field order of a JSON array).
#[derive(Debug, Deserialize)]
pub(crate) struct Retrieved {
    /// The channel.
    pub(crate) channel: Channel,
    /// Its value items, by row.
    pub(crate) vals: Vec<values::Item>,
    /// Its asset links, by asset tid.
    pub(crate) links: Vec<AssetLink>,
    /// The PEOs linked to it, unordered.
    pub(crate) peos: Vec<peos::Stored>,
}

/// What a page of channel retrieve names: a part of the request's ids, or of its tids.
#[derive(Debug)]
pub(crate) enum Named {
    /// Channels by id.
    Ids(Vec<i64>),
    /// Channels by tid.
    Tids(Vec<String>),
}

/// A page as the database answers it: its place among the pages (given to it, so that the next
/// page is known from this one) and its channels as one JSON array.
#[derive(Debug, sqlx::FromRow)]
struct PageText {
    at: i64,
    channels: Option<String>,
}

/// The page statement of SQLite, joining the listed values (`json_each($1)`) by `$join`: each
/// channel with its type, parent, values, asset links and PEOs, in the order of the list, as
/// one JSON text. Every list in it is a subquery by an index of its owner.
macro_rules! sqlite_page {
    ($join:literal) => {
        concat!(
            "SELECT CAST($2 AS INTEGER) AS at, json_group_array(json_array( \
               json_array(c.id, c.tid, c.parent_id, p.tid, t.name, c.order_sequence, c.name, \
                 c.html_icon, c.icon, c.allowed_functions, c.created_at, c.modified_at), \
               json((SELECT json_group_array(json_array(v.channel_id, ",
            value_columns!(),
            ") ORDER BY v.id) FROM attribute_values v \
                 JOIN attribute_definitions d ON d.id = v.attribute_definition_id \
                 WHERE v.channel_id = c.id)), \
               json((SELECT json_group_array(json_array(l.channel_id, a.tid, a.path, r.name) \
                 ORDER BY a.tid) FROM channel_assets l JOIN assets a ON a.id = l.asset_id \
                 LEFT JOIN access_restrictions ar ON ar.kind = 'asset' AND ar.record_id = a.id \
                 LEFT JOIN roles r ON r.id = ar.role_id WHERE l.channel_id = c.id)), \
               json((SELECT json_group_array(",
            peo_json!(sqlite, whole),
            ") \
                 FROM peo_channels pc JOIN peos e ON e.id = pc.peo_id \
                 LEFT JOIN products pr ON pr.id = e.product_id WHERE pc.channel_id = c.id)) \
             ) ORDER BY j.key) AS channels \
             FROM json_each($1) j JOIN channels c ON ",
            $join,
            " JOIN channel_types t ON t.id = c.type_id LEFT JOIN channels p ON p.id = c.parent_id"
        )
    };
}

/// The page statement of PostgreSQL: [`sqlite_page!`] in its functions.
macro_rules! postgres_page {
    ($join:literal) => {
        concat!(
            "SELECT CAST($2 AS BIGINT) AS at, COALESCE(json_agg(json_build_array( \
               json_build_array(c.id, c.tid, c.parent_id, p.tid, t.name, c.order_sequence, \
                 c.name, c.html_icon, c.icon, c.allowed_functions, c.created_at, c.modified_at), \
               (SELECT COALESCE(json_agg(json_build_array(v.channel_id, ",
            value_columns!(),
            ") ORDER BY v.id), '[]') FROM attribute_values v \
                 JOIN attribute_definitions d ON d.id = v.attribute_definition_id \
                 WHERE v.channel_id = c.id), \
               (SELECT COALESCE(json_agg(json_build_array(l.channel_id, a.tid, a.path, r.name) \
                 ORDER BY a.tid), '[]') FROM channel_assets l JOIN assets a ON a.id = l.asset_id \
                 LEFT JOIN access_restrictions ar ON ar.kind = 'asset' AND ar.record_id = a.id \
                 LEFT JOIN roles r ON r.id = ar.role_id WHERE l.channel_id = c.id), \
               (SELECT COALESCE(json_agg(",
            peo_json!(postgres, whole),
            "), '[]') \
                 FROM peo_channels pc JOIN peos e ON e.id = pc.peo_id \
                 LEFT JOIN products pr ON pr.id = e.product_id WHERE pc.channel_id = c.id) \
             ) ORDER BY j.place), '[]')::text AS channels \
             FROM json_array_elements_text($1::json) WITH ORDINALITY j(value, place) \
             JOIN channels c ON ",
            $join,
            " JOIN channel_types t ON t.id = c.type_id LEFT JOIN channels p ON p.id = c.parent_id"
        )
    };
}

/// The page statements of one backend: channels by id and by tid.
struct Pages {
    by_ids: &'static str,
    by_tids: &'static str,
}

const SQLITE: Pages = Pages {
    by_ids: sql!(sqlite: sqlite_page!("c.id = j.value")),
    by_tids: sql!(sqlite: sqlite_page!("c.tid = j.value")),
};

const POSTGRES: Pages = Pages {
    by_ids: sql!(postgres: postgres_page!("c.id = j.value::bigint")),
    by_tids: sql!(postgres: postgres_page!("c.tid = j.value")),
};

/// The channels `pages` name with everything their answer holds, page after page, each in the
/// order its list names them (a name the store does not hold is skipped): one statement a page,
/// all one snapshot read while the answer is written (`storage::stream`).
pub(crate) fn retrieve(
    database: &Database,
    pages: Vec<Named>,
) -> BoxStream<'static, Result<Vec<Retrieved>, sqlx::Error>> {
    let statements = match database.backend() {
        Backend::Sqlite => &SQLITE,
        Backend::Postgres => &POSTGRES,
    };
    let pages: Result<Vec<(&'static str, String)>, sqlx::Error> = pages
        .iter()
        .map(|page| match page {
            Named::Ids(ids) => Ok((statements.by_ids, json_text(ids)?)),
            Named::Tids(tids) => Ok((statements.by_tids, json_text(tids)?)),
        })
        .collect();
    let pages = match pages {
        Ok(pages) => Arc::new(pages),
        Err(error) => return futures_util::stream::once(async { Err(error) }).boxed(),
    };
    let Some((first, names)) = pages.first().cloned() else {
        return futures_util::stream::empty().boxed();
    };
    stream::pages(
        database,
        move || sqlx::query_as(first).bind(names.clone()).bind(0_i64),
        move |read: &PageText| {
            let at = usize::try_from(read.at).ok()?.checked_add(1)?;
            let (statement, names) = pages.get(at)?;
            Some(
                sqlx::query_as(*statement)
                    .bind(names.clone())
                    .bind(i64::try_from(at).ok()?),
            )
        },
    )
    .map(|read| read.and_then(|read| json_rows(read.channels)))
    .boxed()
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
