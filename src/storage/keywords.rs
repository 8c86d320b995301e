//! The SQL of keywords: a subtree by its parent links, the localized names and asset links of a
//! subtree, and the writes of keywords persist.
//!
//! A subtree is read from the parent index, one generation after the other down to the level a
//! request asks (a recursive statement): its cost is the answer's size, whatever the size of the
//! tree around it (D-37). It is one statement with the names and links of each keyword, in
//! depth-first pre-order, read while the answer is written (D-59). Paths are stored whole, so a
//! keyword is found by its path in one index lookup.
//!
//! Several instances write to one PostgreSQL at once, so the writes that depend on a path lock
//! what they read (`FOR SHARE`, `FOR UPDATE`): a keyword created under a parent that another
//! request is renaming waits for the rename and takes the parent's new path; a rename locks the
//! keyword and its subtree before it moves their paths, so that no child is created under the
//! old path meanwhile (D-15). SQLite has one writer at a time and needs no locks.

use futures_util::{StreamExt, stream::BoxStream};
use serde::Deserialize;
use sqlx::{Any, AnyConnection, any::AnyArguments, query::QueryAs};

use super::{Backend, Database, json_rows};

/// A keyword of a subtree, as a retrieve reads it: with its names and asset links (read from
/// a JSON array, in this order).
#[derive(Debug, Deserialize)]
pub(crate) struct Listed {
    /// Its id.
    pub(crate) id: i64,
    /// Its parent (none for a root).
    pub(crate) parent_id: Option<i64>,
    /// Its default name: the last segment of its path.
    pub(crate) name: String,
    /// Its path.
    pub(crate) path: String,
    /// Its place among its siblings.
    pub(crate) order_number: i64,
    /// When it was created.
    pub(crate) created_at: String,
    /// Its localized names, `(locale tid, name)` ordered by locale.
    pub(crate) names: Vec<(String, String)>,
    /// With links asked: its linked assets, `(asset tid, role)` ordered by tid, once per role an
    /// asset is restricted to (`role` none: unrestricted).
    pub(crate) links: Option<Vec<(String, Option<String>)>>,
}

/// Where a subtree starts, and how deep it is read.
#[derive(Debug, Clone)]
pub(crate) struct Subtree {
    /// The path of the keyword below which it is read; none: below the root (the root keywords
    /// and theirs).
    pub(crate) base: Option<String>,
    /// How many generations below `base` are read.
    pub(crate) generations: i32,
}

/// The deepest a subtree is read: a path of at most 1,024 characters has at most 512 segments.
pub(crate) const DEEPEST: i32 = 512;

/// Where a listing starts: the root keywords, or the children of the keyword at path `$2`.
macro_rules! start {
    (roots) => {
        "parent_id IS NULL"
    };
    (below) => {
        "parent_id = (SELECT id FROM keywords WHERE path = $2)"
    };
}

/// The keywords of a subtree with their names and, with `$links`, their asset links, in
/// depth-first pre-order, as one statement (D-59): the generations below `$start` down to depth
/// `$1`, each read through the parent index, each keyword with the sort key of its place (its
/// parent's key, then its `orderNumber` in 20 digits, its name and U+0001, which sorts before
/// every character a name holds, so a name ends before a longer one it starts). `CROSS JOIN`
/// keeps SQLite's planner to that order; to PostgreSQL it is an inner join like any other.
/// SQLite walks the tree with its queue ordered by that key, which yields the keywords in
/// pre-order as they are found, without sorting them all; PostgreSQL sorts by it.
/// Each row is a chunk of 512 keywords in order, as one JSON array of [`Listed`]: a row
/// crosses from the database to the answer at a cost (on SQLite a hop to sqlx's worker thread),
/// which a keyword alone would pay 100,000 times for 100,000 keywords.
macro_rules! listed {
    (sqlite, $start:expr, $links:literal) => {
        concat!(
            "WITH RECURSIVE sub (id, depth, sort) AS (SELECT id, 1, \
             printf('%020d', order_number) || name || char(1) FROM keywords WHERE ",
            $start,
            " UNION ALL SELECT k.id, s.depth + 1, \
             s.sort || printf('%020d', k.order_number) || k.name || char(1) \
             FROM sub s CROSS JOIN keywords k WHERE k.parent_id = s.id AND s.depth < $1 \
             ORDER BY 3), \
             listed (entry, sort, chunk) AS (SELECT json_array(k.id, k.parent_id, k.name, \
             k.path, k.order_number, k.created_at, json((SELECT json_group_array(\
             json_array(n.loc, n.name) ORDER BY n.loc) FROM keyword_names n \
             WHERE n.keyword_id = k.id)), ",
            $links,
            "), s.sort, (row_number() OVER () - 1) / 512 \
             FROM sub s CROSS JOIN keywords k WHERE k.id = s.id) \
             SELECT '[' || group_concat(entry, ',' ORDER BY sort) || ']' FROM listed \
             GROUP BY chunk ORDER BY chunk"
        )
    };
    (postgres, $start:expr, $links:literal) => {
        concat!(
            "WITH RECURSIVE sub (id, depth, sort) AS (SELECT id, 1, \
             lpad(order_number::text, 20, '0') || name || chr(1) FROM keywords WHERE ",
            $start,
            " UNION ALL SELECT k.id, s.depth + 1, \
             s.sort || lpad(k.order_number::text, 20, '0') || k.name || chr(1) \
             FROM sub s CROSS JOIN keywords k WHERE k.parent_id = s.id AND s.depth < $1), \
             listed (entry, sort, chunk) AS (SELECT json_build_array(k.id, k.parent_id, k.name, \
             k.path, k.order_number, k.created_at, COALESCE((SELECT json_agg(\
             json_build_array(n.loc, n.name) ORDER BY n.loc COLLATE \"C\") \
             FROM keyword_names n WHERE n.keyword_id = k.id), '[]'), ",
            $links,
            "), s.sort, (row_number() OVER (ORDER BY s.sort COLLATE \"C\") - 1) / 512 \
             FROM sub s CROSS JOIN keywords k WHERE k.id = s.id) \
             SELECT json_agg(entry ORDER BY sort COLLATE \"C\")::text FROM listed \
             GROUP BY chunk ORDER BY chunk"
        )
    };
}

/// The four forms of the listing for one backend: below the root or below the keyword at path
/// `$2` (found in the same statement), with or without links.
struct Listings {
    roots: &'static str,
    roots_linked: &'static str,
    below: &'static str,
    below_linked: &'static str,
}

/// Declares the [`Listings`] of one backend, `$links` the subquery of keyword `k`'s asset links
/// as [`Listed::links`] holds them.
macro_rules! listings {
    ($backend:ident, $links:literal) => {
        Listings {
            roots: sql!($backend: listed!($backend, start!(roots), "NULL")),
            roots_linked: sql!($backend: listed!($backend, start!(roots), $links)),
            below: sql!($backend: listed!($backend, start!(below), "NULL")),
            below_linked: sql!($backend: listed!($backend, start!(below), $links)),
        }
    };
}

const LISTINGS_SQLITE: Listings = listings!(
    sqlite,
    "json((SELECT json_group_array(json_array(a.tid, r.name) ORDER BY a.tid) \
     FROM keyword_assets ka JOIN assets a ON a.id = ka.asset_id \
     LEFT JOIN access_restrictions ar ON ar.kind = 'asset' AND ar.record_id = a.id \
     LEFT JOIN roles r ON r.id = ar.role_id WHERE ka.keyword_id = k.id))"
);
const LISTINGS_POSTGRES: Listings = listings!(
    postgres,
    "COALESCE((SELECT json_agg(json_build_array(a.tid, r.name) ORDER BY a.tid COLLATE \"C\") \
     FROM keyword_assets ka JOIN assets a ON a.id = ka.asset_id \
     LEFT JOIN access_restrictions ar ON ar.kind = 'asset' AND ar.record_id = a.id \
     LEFT JOIN roles r ON r.id = ar.role_id WHERE ka.keyword_id = k.id), '[]')"
);

/// The keywords of a subtree in depth-first pre-order (siblings by `orderNumber`, then name),
/// with their names and, when `links`, their asset links: one statement, its base found by path
/// in it, read while the answer is written ([`stream::rows`](super::stream::rows)). No row: the
/// base has no children, or is not stored.
pub(crate) fn listed(
    database: &Database,
    subtree: Subtree,
    links: bool,
) -> BoxStream<'static, Result<Listed, sqlx::Error>> {
    let listings = match database.backend() {
        Backend::Sqlite => &LISTINGS_SQLITE,
        Backend::Postgres => &LISTINGS_POSTGRES,
    };
    let query: QueryAs<'static, Any, (String,), AnyArguments> = match (&subtree.base, links) {
        (None, false) => sqlx::query_as(listings.roots),
        (None, true) => sqlx::query_as(listings.roots_linked),
        (Some(_), false) => sqlx::query_as(listings.below),
        (Some(_), true) => sqlx::query_as(listings.below_linked),
    };
    let query = query.bind(subtree.generations);
    let query = match subtree.base {
        Some(base) => query.bind(base),
        None => query,
    };
    super::stream::rows(database, query)
        .flat_map(|chunk| {
            let listed: Vec<Result<Listed, sqlx::Error>> =
                match chunk.and_then(|(chunk,)| json_rows(Some(chunk))) {
                    Ok(listed) => listed.into_iter().map(Ok).collect(),
                    Err(error) => vec![Err(error)],
                };
            futures_util::stream::iter(listed)
        })
        .boxed()
}

/// The parent a new keyword is stored under, as the request names it.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Parent<'a> {
    /// None: a root keyword.
    Root,
    /// The keyword with this id.
    Id(i64),
    /// The keyword at this path.
    Path(&'a str),
}

/// The inserts of a new keyword after its parent's last sibling, its path made from the
/// parent's as the insert reads it, per way of naming the parent. With a parent: `$1` the parent
/// (id or path), `$2` the name, `$3` when; at the root `$1` the name, `$2` when. Each answers
/// the new id and path, or no row when the parent is not stored. The last sibling is read from
/// the (parent_id, order_number) index.
struct Inserts {
    by_id: &'static str,
    by_path: &'static str,
    root: &'static str,
}

/// The insert of a new keyword under the parent that `$condition` finds as `p`, locked with
/// `$lock`: its path made from the parent's, its place after the parent's last child.
macro_rules! under {
    ($condition:literal, $lock:literal) => {
        concat!(
            "INSERT INTO keywords (parent_id, name, path, order_number, created_at) \
             SELECT p.id, $2, p.path || '/' || $2, COALESCE((SELECT MAX(order_number) \
             FROM keywords WHERE parent_id = p.id), 0) + 1, $3 FROM keywords p WHERE ",
            $condition,
            $lock,
            " RETURNING id, path"
        )
    };
}

/// Writes the inserts of a new keyword for one backend: under a parent found by id or path
/// (locked with `$lock`), or at the root; `$with_names` wraps each so that one statement also
/// stores the names (PostgreSQL).
macro_rules! inserts {
    ($backend:ident, $with_names:ident, $lock:literal) => {
        Inserts {
            by_id: sql!($backend: $with_names!(4, under!("p.id = $1", $lock))),
            by_path: sql!($backend: $with_names!(4, under!("p.path = $1", $lock))),
            root: sql!($backend: $with_names!(
                3,
                "INSERT INTO keywords (parent_id, name, path, order_number, created_at) \
                 SELECT NULL, $1, '/' || $1, COALESCE(MAX(order_number), 0) + 1, $2 \
                 FROM keywords WHERE parent_id IS NULL RETURNING id, path"
            )),
        }
    };
}

/// SQLite: the insert alone; the names follow in a second statement ([`SQLITE_NAMES`]), since
/// SQLite has no writes inside `WITH`.
macro_rules! alone {
    ($names:literal, $($insert:tt)+) => {
        $($insert)+
    };
}

/// PostgreSQL: the insert and the names (`$N`, a JSON object from locale to name) in one
/// statement, one round trip to the server instead of two.
macro_rules! with_names {
    ($names:literal, $($insert:tt)+) => {
        concat!(
            "WITH k AS (",
            $($insert)+,
            "), n AS (INSERT INTO keyword_names (keyword_id, loc, name) \
             SELECT k.id, e.key, e.value FROM k, json_each_text(CAST($",
            $names,
            " AS JSON)) e) SELECT id, path FROM k"
        )
    };
}

const SQLITE_INSERTS: Inserts = inserts!(sqlite, alone, "");
const POSTGRES_INSERTS: Inserts = inserts!(postgres, with_names, " FOR SHARE OF p");

/// SQLite: the names of a new keyword (`$2`, a JSON object from locale to name).
const SQLITE_NAMES: &str = sql!(sqlite:
    "INSERT INTO keyword_names (keyword_id, loc, name) SELECT $1, key, value FROM json_each($2)"
);

/// A keyword as a write finds it: its id and path.
#[derive(Debug, sqlx::FromRow)]
pub(crate) struct Located {
    /// Its id.
    pub(crate) id: i64,
    /// Its path.
    pub(crate) path: String,
}

/// Stores a new keyword named `name` after the last child of `parent`, with its localized
/// `names`: its id and path, or none when the parent is not stored. A path taken already is a
/// uniqueness violation.
pub(crate) async fn create(
    connection: &mut AnyConnection,
    backend: Backend,
    parent: Parent<'_>,
    name: &str,
    names: &[(&str, &str)],
    now: &str,
) -> Result<Option<Located>, sqlx::Error> {
    let inserts = match backend {
        Backend::Sqlite => &SQLITE_INSERTS,
        Backend::Postgres => &POSTGRES_INSERTS,
    };
    let names_json = serde_json::Value::Object(
        names
            .iter()
            .map(|(loc, name)| (loc.to_string(), serde_json::Value::from(*name)))
            .collect(),
    )
    .to_string();
    let query = match parent {
        Parent::Root => sqlx::query_as(inserts.root),
        Parent::Id(id) => sqlx::query_as(inserts.by_id).bind(id),
        Parent::Path(parent) => sqlx::query_as(inserts.by_path).bind(parent),
    }
    .bind(name)
    .bind(now);
    let query = match backend {
        Backend::Postgres => query.bind(names_json.as_str()),
        Backend::Sqlite => query,
    };
    let Some(created) = query.fetch_optional(&mut *connection).await? else {
        return Ok(None);
    };
    let created: Located = created;
    if backend == Backend::Sqlite && !names.is_empty() {
        sqlx::query(SQLITE_NAMES)
            .bind(created.id)
            .bind(names_json.as_str())
            .execute(connection)
            .await?;
    }
    Ok(Some(created))
}

/// The statements finding a keyword to change it: by id and by path; on PostgreSQL they lock it
/// until the transaction ends.
struct Finds {
    by_id: &'static str,
    by_path: &'static str,
}

const SQLITE_FINDS: Finds = Finds {
    by_id: sql!(sqlite: "SELECT id, path FROM keywords WHERE id = $1"),
    by_path: sql!(sqlite: "SELECT id, path FROM keywords WHERE path = $1"),
};
const POSTGRES_FINDS: Finds = Finds {
    by_id: sql!(postgres: "SELECT id, path FROM keywords WHERE id = $1 FOR UPDATE"),
    by_path: sql!(postgres: "SELECT id, path FROM keywords WHERE path = $1 FOR UPDATE"),
};

/// Finds a keyword to change it, by id or path, locking it on PostgreSQL: a concurrent rename
/// of it or of an ancestor has then either ended (and its path is the new one) or waits.
pub(crate) async fn lock(
    connection: &mut AnyConnection,
    backend: Backend,
    identity: super::records::Identity<'_>,
) -> Result<Option<Located>, sqlx::Error> {
    let finds = match backend {
        Backend::Sqlite => &SQLITE_FINDS,
        Backend::Postgres => &POSTGRES_FINDS,
    };
    let query = match identity {
        super::records::Identity::Id(id) => sqlx::query_as(finds.by_id).bind(id),
        super::records::Identity::Key(path) => sqlx::query_as(finds.by_path).bind(path),
    };
    query.fetch_optional(connection).await
}

/// The parent of a stored keyword.
pub(crate) async fn parent_of(
    connection: &mut AnyConnection,
    id: i64,
) -> Result<Option<i64>, sqlx::Error> {
    sqlx::query_scalar(sql!("SELECT parent_id FROM keywords WHERE id = $1"))
        .bind(id)
        .fetch_one(connection)
        .await
}

/// The descendants of keyword `$1`, as `sub (id)`, through the parent index.
macro_rules! descendants {
    ($statement:literal) => {
        concat!(
            "WITH RECURSIVE sub (id) AS (SELECT id FROM keywords WHERE parent_id = $1 \
             UNION ALL SELECT k.id FROM sub s CROSS JOIN keywords k WHERE k.parent_id = s.id) ",
            $statement
        )
    };
}

/// The length in characters of the longest path below keyword `id` (its descendants'), if any.
pub(crate) async fn longest_below(
    connection: &mut AnyConnection,
    id: i64,
) -> Result<Option<i64>, sqlx::Error> {
    sqlx::query_scalar(sql!(descendants!(
        "SELECT CAST(MAX(length(k.path)) AS BIGINT) FROM sub s CROSS JOIN keywords k \
         WHERE k.id = s.id"
    )))
    .bind(id)
    .fetch_one(connection)
    .await
}

/// Renames keyword `id` from `path` to `new_path` (its default name becoming `name`), moving the
/// paths of its descendants along. On PostgreSQL the descendants are locked first, so that a
/// child being created under one of them is either there before the paths move or waits and
/// takes its parent's new path. A path taken already is a uniqueness violation.
pub(crate) async fn rename(
    connection: &mut AnyConnection,
    backend: Backend,
    id: i64,
    (path, new_path): (&str, &str),
    name: &str,
) -> Result<(), sqlx::Error> {
    if backend == Backend::Postgres {
        sqlx::query(sql!(postgres: descendants!(
            "SELECT k.id FROM sub s CROSS JOIN keywords k WHERE k.id = s.id FOR UPDATE OF k"
        )))
        .bind(id)
        .execute(&mut *connection)
        .await?;
    }
    sqlx::query(sql!(descendants!(
        "UPDATE keywords SET path = $2 || substr(path, $3) WHERE id IN (SELECT id FROM sub)"
    )))
    .bind(id)
    .bind(new_path)
    .bind(length(path) + 1)
    .execute(&mut *connection)
    .await?;
    sqlx::query(sql!(
        "UPDATE keywords SET path = $1, name = $2 WHERE id = $3"
    ))
    .bind(new_path)
    .bind(name)
    .bind(id)
    .execute(connection)
    .await?;
    Ok(())
}

/// Replaces the names of the given locales; the others stay.
pub(crate) async fn set_names(
    connection: &mut AnyConnection,
    id: i64,
    names: &[(&str, &str)],
) -> Result<(), sqlx::Error> {
    for (loc, _) in names {
        sqlx::query(sql!(
            "DELETE FROM keyword_names WHERE keyword_id = $1 AND loc = $2"
        ))
        .bind(id)
        .bind(loc)
        .execute(&mut *connection)
        .await?;
    }
    add_names(connection, id, names).await
}

/// How many localized names a keyword has.
pub(crate) async fn count_names(
    connection: &mut AnyConnection,
    id: i64,
) -> Result<i64, sqlx::Error> {
    sqlx::query_scalar(sql!(
        "SELECT CAST(COUNT(*) AS BIGINT) FROM keyword_names WHERE keyword_id = $1"
    ))
    .bind(id)
    .fetch_one(connection)
    .await
}

/// Stores the names of a keyword that has none in those locales (one just created).
pub(crate) async fn add_names(
    connection: &mut AnyConnection,
    id: i64,
    names: &[(&str, &str)],
) -> Result<(), sqlx::Error> {
    for (loc, name) in names {
        sqlx::query(sql!(
            "INSERT INTO keyword_names (keyword_id, loc, name) VALUES ($1, $2, $3)"
        ))
        .bind(id)
        .bind(loc)
        .bind(name)
        .execute(&mut *connection)
        .await?;
    }
    Ok(())
}

/// Links an asset to a keyword; linking it again is a uniqueness violation.
pub(crate) async fn link_asset(
    connection: &mut AnyConnection,
    keyword: i64,
    asset: i64,
) -> Result<(), sqlx::Error> {
    sqlx::query(sql!(
        "INSERT INTO keyword_assets (keyword_id, asset_id) VALUES ($1, $2)"
    ))
    .bind(keyword)
    .bind(asset)
    .execute(connection)
    .await?;
    Ok(())
}

/// The length of a text in characters, as SQL's `substr` counts (bound as a 32-bit integer, the
/// type PostgreSQL's `substr` takes).
fn length(text: &str) -> i32 {
    i32::try_from(text.chars().count()).unwrap_or(i32::MAX - 1)
}
