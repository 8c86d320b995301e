//! The SQL of keywords: a subtree by its parent links, the localized names and asset links of a
//! subtree, and the writes of keywords persist.
//!
//! Each keyword stores its place in depth-first pre-order (its sort key, migration 0013), so a
//! whole subtree is a range of the sort-key index, read in chunks in one read transaction; a
//! subtree down to a level is read from the parent index, one generation after the other (a
//! recursive statement). Either way its cost is the answer's size, whatever the size of the tree
//! around it (D-37), and it is read, with the names and links of each keyword, while the answer
//! is written (D-59). Paths are stored whole, so a keyword is found by its path in one index
//! lookup.
//!
//! Several instances write to one PostgreSQL at once, so the writes that depend on a path lock
//! what they read (`FOR SHARE`, `FOR UPDATE`): a keyword created under a parent that another
//! request is renaming waits for the rename and takes the parent's new path; a rename locks the
//! keyword and its subtree before it moves their paths, so that no child is created under the
//! old path meanwhile (D-15). SQLite has one writer at a time and needs no locks.

use sqlx::AnyConnection;

use super::Backend;

mod listing;

pub(crate) use listing::{DEEPEST, Listed, Subtree, listed};

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
/// `$lock`: its path made from the parent's, its place after the parent's last child, its sort
/// key the parent's followed by its own segment.
macro_rules! under {
    ($backend:ident, $condition:literal, $lock:literal) => {
        concat!(
            "INSERT INTO keywords (parent_id, name, path, order_number, created_at, sort_key) \
             SELECT q.id, $2, q.path || '/' || $2, q.o, $3, q.sort_key || ",
            segment!($backend, "q.o", "$2"),
            " FROM (SELECT p.id, p.path, p.sort_key, COALESCE((SELECT MAX(order_number) \
             FROM keywords WHERE parent_id = p.id), 0) + 1 AS o FROM keywords p WHERE ",
            $condition,
            $lock,
            ") q RETURNING id, path"
        )
    };
}

/// Writes the inserts of a new keyword for one backend: under a parent found by id or path
/// (locked with `$lock`), or at the root; `$with_names` wraps each so that one statement also
/// stores the names (PostgreSQL).
macro_rules! inserts {
    ($backend:ident, $with_names:ident, $lock:literal) => {
        Inserts {
            by_id: sql!($backend: $with_names!(4, under!($backend, "p.id = $1", $lock))),
            by_path: sql!($backend: $with_names!(4, under!($backend, "p.path = $1", $lock))),
            root: sql!($backend: $with_names!(
                3,
                concat!(
                    "INSERT INTO keywords (parent_id, name, path, order_number, created_at, \
                     sort_key) SELECT NULL, $1, '/' || $1, q.o, $2, ",
                    segment!($backend, "q.o", "$1"),
                    " FROM (SELECT COALESCE(MAX(order_number), 0) + 1 AS o FROM keywords \
                     WHERE parent_id IS NULL) q RETURNING id, path"
                )
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
    identity
        .query_as(finds.by_id, finds.by_path)
        .fetch_optional(connection)
        .await
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
/// paths and sort keys of its descendants along. On PostgreSQL the descendants are locked first,
/// so that a child being created under one of them is either there before the paths move or
/// waits and takes its parent's new path and key. A path taken already is a uniqueness
/// violation.
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
    let key: String = sqlx::query_scalar(sql!("SELECT sort_key FROM keywords WHERE id = $1"))
        .bind(id)
        .fetch_one(&mut *connection)
        .await?;
    let new_key = renamed_key(&key, path, name);
    sqlx::query(sql!(descendants!(
        "UPDATE keywords SET path = $2 || substr(path, $3), sort_key = $4 || substr(sort_key, $5) \
         WHERE id IN (SELECT id FROM sub)"
    )))
    .bind(id)
    .bind(new_path)
    .bind(length(path) + 1)
    .bind(new_key.as_str())
    .bind(length(&key) + 1)
    .execute(&mut *connection)
    .await?;
    sqlx::query(sql!(
        "UPDATE keywords SET path = $1, name = $2, sort_key = $3 WHERE id = $4"
    ))
    .bind(new_path)
    .bind(name)
    .bind(new_key.as_str())
    .bind(id)
    .execute(connection)
    .await?;
    Ok(())
}

/// The sort key of a keyword at `path` with sort key `key` once renamed to `name`: its segment's
/// name (the last of `path`) replaced.
fn renamed_key(key: &str, path: &str, name: &str) -> String {
    let old_name = path.rsplit('/').next().unwrap_or_default();
    let stem = key
        .strip_suffix('\u{1}')
        .and_then(|key| key.strip_suffix(old_name))
        .unwrap_or(key);
    format!("{stem}{name}\u{1}")
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

#[cfg(test)]
mod tests {
    use super::renamed_key;

    #[test]
    fn a_renamed_key_keeps_its_parents_part_and_order_number() {
        let key = "11Materials\u{1}12Cotton\u{1}";
        assert_eq!(
            renamed_key(key, "/Materials/Cotton", "Organic Cotton"),
            "11Materials\u{1}12Organic Cotton\u{1}"
        );
        assert_eq!(renamed_key("13a\u{1}", "/a", "b"), "13b\u{1}");
    }
}
