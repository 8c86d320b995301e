//! The SQL of keywords: a subtree by its parent links, the localized names and asset links of a
//! subtree, and the writes of keywords persist.
//!
//! A subtree is read from the parent index, one generation after the other down to the level a
//! request asks (a recursive statement): its cost is the answer's size, whatever the size of the
//! tree around it (D-37). The whole tree at every level is the whole table, read as stored. Paths are stored whole, so a keyword is found by its path in one index
//! lookup.
//!
//! Several instances write to one PostgreSQL at once, so the writes that depend on a path lock
//! what they read (`FOR SHARE`, `FOR UPDATE`): a keyword created under a parent that another
//! request is renaming waits for the rename and takes the parent's new path; a rename locks the
//! keyword and its subtree before it moves their paths, so that no child is created under the
//! old path meanwhile (D-15). SQLite has one writer at a time and needs no locks.

use serde::{Deserialize, de::DeserializeOwned};
use sqlx::{AnyConnection, AnyPool};

use super::{Backend, Database, json_rows};

/// A stored keyword, as a subtree is read.
#[derive(Debug, Deserialize)]
pub(crate) struct Keyword {
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
}

/// A localized name of a keyword.
#[derive(Debug, Deserialize)]
pub(crate) struct Name {
    /// The keyword.
    pub(crate) keyword_id: i64,
    /// The locale's tid.
    pub(crate) loc: String,
    /// The name.
    pub(crate) name: String,
}

/// An asset linked to a keyword, once per role it is restricted to (`role` none: unrestricted).
#[derive(Debug, sqlx::FromRow)]
pub(crate) struct AssetLink {
    /// The keyword.
    pub(crate) keyword_id: i64,
    /// The asset's tid.
    pub(crate) tid: String,
    /// A role the asset is restricted to.
    pub(crate) role: Option<String>,
}

/// Where a subtree starts, and how deep it is read.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Subtree {
    /// The keyword below which it is read; none: below the root (the root keywords and theirs).
    pub(crate) base: Option<i64>,
    /// How many generations below `base` are read.
    pub(crate) generations: i32,
}

/// The deepest a subtree is read: a path of at most 1,024 characters has at most 512 segments.
pub(crate) const DEEPEST: i32 = 512;

/// A statement over the subtree `sub (id, depth)`: the generations below keyword `$2` (`below`)
/// or below the root (`roots`), down to depth `$1`, each read through the parent index. `CROSS
/// JOIN` keeps SQLite's planner to that order (the subtree first, then each keyword by its key);
/// to PostgreSQL it is an inner join like any other.
macro_rules! subtree {
    (roots, $select:literal) => {
        concat!(
            "WITH RECURSIVE sub (id, depth) AS (SELECT id, 1 FROM keywords WHERE parent_id IS NULL \
             UNION ALL SELECT k.id, s.depth + 1 FROM sub s CROSS JOIN keywords k \
             WHERE k.parent_id = s.id AND s.depth < $1) ",
            $select
        )
    };
    (below, $select:literal) => {
        concat!(
            "WITH RECURSIVE sub (id, depth) AS (SELECT id, 1 FROM keywords WHERE parent_id = $2 \
             UNION ALL SELECT k.id, s.depth + 1 FROM sub s CROSS JOIN keywords k \
             WHERE k.parent_id = s.id AND s.depth < $1) ",
            $select
        )
    };
}

/// One statement in its three forms: below the root, below a keyword, and every keyword (the
/// whole tree at every level is the whole table, read as it is stored, without walking it).
struct Forms {
    roots: &'static str,
    below: &'static str,
    every: &'static str,
}

/// Declares the [`Forms`] of a statement over a subtree, registered for one backend or both:
/// `$select` over `sub`, and `$every` over the whole table (its alias `every`).
macro_rules! forms {
    ($($backend:ident:)? $select:literal, $every:literal) => {
        Forms {
            roots: sql!($($backend:)? subtree!(roots, $select)),
            below: sql!($($backend:)? subtree!(below, $select)),
            every: sql!($($backend:)? $every),
        }
    };
}

/// The keywords of a subtree as one JSON array (see `storage::trees` for why).
const KEYWORDS_SQLITE: Forms = forms!(sqlite:
    "SELECT json_group_array(json_array(k.id, k.parent_id, k.name, k.path, k.order_number, \
     k.created_at)) FROM sub s CROSS JOIN keywords k WHERE k.id = s.id",
    "SELECT json_group_array(json_array(every.id, every.parent_id, every.name, every.path, \
     every.order_number, every.created_at)) FROM keywords every"
);
const KEYWORDS_POSTGRES: Forms = forms!(postgres:
    "SELECT COALESCE(json_agg(json_build_array(k.id, k.parent_id, k.name, k.path, \
     k.order_number, k.created_at)), '[]')::text FROM sub s CROSS JOIN keywords k \
     WHERE k.id = s.id",
    "SELECT COALESCE(json_agg(json_build_array(every.id, every.parent_id, every.name, \
     every.path, every.order_number, every.created_at)), '[]')::text FROM keywords every"
);
/// The localized names of a subtree as one JSON array.
const NAMES_SQLITE: Forms = forms!(sqlite:
    "SELECT json_group_array(json_array(n.keyword_id, n.loc, n.name)) \
     FROM sub s CROSS JOIN keyword_names n WHERE n.keyword_id = s.id",
    "SELECT json_group_array(json_array(every.keyword_id, every.loc, every.name)) \
     FROM keyword_names every"
);
const NAMES_POSTGRES: Forms = forms!(postgres:
    "SELECT COALESCE(json_agg(json_build_array(n.keyword_id, n.loc, n.name)), '[]')::text \
     FROM sub s CROSS JOIN keyword_names n WHERE n.keyword_id = s.id",
    "SELECT COALESCE(json_agg(json_build_array(every.keyword_id, every.loc, every.name)), \
     '[]')::text FROM keyword_names every"
);
/// The asset links of a subtree, by keyword and asset tid.
const LINKS: Forms = forms!(
    "SELECT l.keyword_id, a.tid, r.name AS role FROM sub s \
     CROSS JOIN keyword_assets l JOIN assets a ON a.id = l.asset_id \
     LEFT JOIN access_restrictions ar ON ar.kind = 'asset' AND ar.record_id = a.id \
     LEFT JOIN roles r ON r.id = ar.role_id WHERE l.keyword_id = s.id \
     ORDER BY l.keyword_id, a.tid",
    "SELECT every.keyword_id, a.tid, r.name AS role FROM keyword_assets every \
     JOIN assets a ON a.id = every.asset_id \
     LEFT JOIN access_restrictions ar ON ar.kind = 'asset' AND ar.record_id = a.id \
     LEFT JOIN roles r ON r.id = ar.role_id ORDER BY every.keyword_id, a.tid"
);

/// The keywords of a subtree, unordered.
pub(crate) async fn below(
    database: &Database,
    subtree: Subtree,
) -> Result<Vec<Keyword>, sqlx::Error> {
    let forms = match database.backend() {
        Backend::Sqlite => &KEYWORDS_SQLITE,
        Backend::Postgres => &KEYWORDS_POSTGRES,
    };
    aggregated(database, forms, subtree).await
}

/// The localized names of the keywords of a subtree, by keyword and locale.
pub(crate) async fn names_below(
    database: &Database,
    subtree: Subtree,
) -> Result<Vec<Name>, sqlx::Error> {
    let forms = match database.backend() {
        Backend::Sqlite => &NAMES_SQLITE,
        Backend::Postgres => &NAMES_POSTGRES,
    };
    let mut names: Vec<Name> = aggregated(database, forms, subtree).await?;
    names.sort_unstable_by(|a, b| (a.keyword_id, &a.loc).cmp(&(b.keyword_id, &b.loc)));
    Ok(names)
}

/// The rows of an aggregating statement over a subtree.
async fn aggregated<T: DeserializeOwned>(
    database: &Database,
    forms: &Forms,
    subtree: Subtree,
) -> Result<Vec<T>, sqlx::Error> {
    let query = match subtree.base {
        None if subtree.generations >= DEEPEST => sqlx::query_scalar(forms.every),
        None => sqlx::query_scalar(forms.roots).bind(subtree.generations),
        Some(base) => sqlx::query_scalar(forms.below)
            .bind(subtree.generations)
            .bind(base),
    };
    json_rows(query.fetch_one(database.reads()).await?)
}

/// The assets linked to the keywords of a subtree, by keyword and asset tid.
pub(crate) async fn asset_links_below(
    pool: &AnyPool,
    subtree: Subtree,
) -> Result<Vec<AssetLink>, sqlx::Error> {
    let query = match subtree.base {
        None if subtree.generations >= DEEPEST => sqlx::query_as(LINKS.every),
        None => sqlx::query_as(LINKS.roots).bind(subtree.generations),
        Some(base) => sqlx::query_as(LINKS.below)
            .bind(subtree.generations)
            .bind(base),
    };
    query.fetch_all(pool).await
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
