//! The SQL of keywords: a subtree by path, the localized names and asset links of a subtree, and
//! the writes of keywords persist. Paths are stored whole, so a subtree is a path prefix.

use serde::{Deserialize, de::DeserializeOwned};
use sqlx::{AnyConnection, AnyPool};

use super::{Backend, Database, json_rows};

/// A stored keyword: id, parent id (none for a root), default name (the last segment of its
/// path), path, place among its siblings, and when it was created.
#[derive(Debug, Deserialize)]
pub(crate) struct Keyword(
    pub(crate) i64,
    pub(crate) Option<i64>,
    pub(crate) String,
    pub(crate) String,
    pub(crate) i64,
    pub(crate) String,
);

/// A localized name of a keyword: keyword, locale tid, name.
#[derive(Debug, Deserialize)]
pub(crate) struct Name(pub(crate) i64, pub(crate) String, pub(crate) String);

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

/// The statements of one backend reading a subtree (`$1` the length of the prefix, `$2` the
/// prefix), each aggregated into one JSON array (see `storage::trees` for why).
struct Statements {
    keywords: &'static str,
    names: &'static str,
}

const SQLITE: Statements = Statements {
    keywords: "SELECT json_group_array(json_array(id, parent_id, name, path, order_number, \
               created_at)) FROM keywords WHERE substr(path, 1, $1) = $2",
    names: "SELECT json_group_array(json_array(n.keyword_id, n.loc, n.name)) \
            FROM keyword_names n JOIN keywords k ON k.id = n.keyword_id \
            WHERE substr(k.path, 1, $1) = $2",
};

const POSTGRES: Statements = Statements {
    keywords: "SELECT COALESCE(json_agg(json_build_array(id, parent_id, name, path, \
               order_number, created_at)), '[]')::text FROM keywords \
               WHERE substr(path, 1, $1) = $2",
    names: "SELECT COALESCE(json_agg(json_build_array(n.keyword_id, n.loc, n.name)), '[]')::text \
            FROM keyword_names n JOIN keywords k ON k.id = n.keyword_id \
            WHERE substr(k.path, 1, $1) = $2",
};

/// The keywords whose paths start with `prefix` (`/` for all), unordered.
pub(crate) async fn below(database: &Database, prefix: &str) -> Result<Vec<Keyword>, sqlx::Error> {
    subtree(database, statements(database).keywords, prefix).await
}

/// The localized names of the keywords whose paths start with `prefix`, by keyword and locale.
pub(crate) async fn names_below(
    database: &Database,
    prefix: &str,
) -> Result<Vec<Name>, sqlx::Error> {
    let mut names: Vec<Name> = subtree(database, statements(database).names, prefix).await?;
    names.sort_unstable_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
    Ok(names)
}

fn statements(database: &Database) -> &'static Statements {
    match database.backend() {
        Backend::Sqlite => &SQLITE,
        Backend::Postgres => &POSTGRES,
    }
}

async fn subtree<T: DeserializeOwned>(
    database: &Database,
    statement: &'static str,
    prefix: &str,
) -> Result<Vec<T>, sqlx::Error> {
    let text = sqlx::query_scalar(statement)
        .bind(length(prefix))
        .bind(prefix)
        .fetch_one(database.pool())
        .await?;
    json_rows(text)
}

/// The assets linked to the keywords whose paths start with `prefix`, by keyword and asset tid.
pub(crate) async fn asset_links_below(
    pool: &AnyPool,
    prefix: &str,
) -> Result<Vec<AssetLink>, sqlx::Error> {
    sqlx::query_as(
        "SELECT l.keyword_id, a.tid, r.name AS role FROM keyword_assets l \
         JOIN keywords k ON k.id = l.keyword_id JOIN assets a ON a.id = l.asset_id \
         LEFT JOIN access_restrictions ar ON ar.kind = 'asset' AND ar.record_id = a.id \
         LEFT JOIN roles r ON r.id = ar.role_id \
         WHERE substr(k.path, 1, $1) = $2 ORDER BY l.keyword_id, a.tid",
    )
    .bind(length(prefix))
    .bind(prefix)
    .fetch_all(pool)
    .await
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

/// The inserts of a new keyword after its parent's last sibling, per way of naming the parent.
/// With a parent: `$1` the parent (id or path), `$2` the name, `$3` the path, `$4` when; at the
/// root `$1` the name, `$2` the path, `$3` when. Each answers the new id, or no row when the
/// parent is not stored. The last sibling is read from the (parent_id, order_number) index.
struct Inserts {
    by_id: &'static str,
    by_path: &'static str,
    root: &'static str,
}

/// Writes the insert of a new keyword: under the parent that `$where` finds as `p`, or at the
/// root; `$with_names` wraps it so that one statement also stores the names (PostgreSQL).
macro_rules! inserts {
    ($with_names:ident) => {
        Inserts {
            by_id: $with_names!(
                5,
                "INSERT INTO keywords (parent_id, name, path, order_number, created_at) \
                 SELECT p.id, $2, $3, COALESCE((SELECT MAX(order_number) FROM keywords \
                 WHERE parent_id = p.id), 0) + 1, $4 FROM keywords p WHERE p.id = $1 RETURNING id"
            ),
            by_path: $with_names!(
                5,
                "INSERT INTO keywords (parent_id, name, path, order_number, created_at) \
                 SELECT p.id, $2, $3, COALESCE((SELECT MAX(order_number) FROM keywords \
                 WHERE parent_id = p.id), 0) + 1, $4 FROM keywords p WHERE p.path = $1 \
                 RETURNING id"
            ),
            root: $with_names!(
                4,
                "INSERT INTO keywords (parent_id, name, path, order_number, created_at) \
                 SELECT NULL, $1, $2, COALESCE(MAX(order_number), 0) + 1, $3 FROM keywords \
                 WHERE parent_id IS NULL RETURNING id"
            ),
        }
    };
}

/// SQLite: the insert alone; the names follow in a second statement ([`SQLITE_NAMES`]), since
/// SQLite has no writes inside `WITH`.
macro_rules! alone {
    ($names:literal, $insert:literal) => {
        $insert
    };
}

/// PostgreSQL: the insert and the names (`$N`, a JSON object from locale to name) in one
/// statement, one round trip to the server instead of two.
macro_rules! with_names {
    ($names:literal, $insert:literal) => {
        concat!(
            "WITH k AS (",
            $insert,
            "), n AS (INSERT INTO keyword_names (keyword_id, loc, name) \
             SELECT k.id, e.key, e.value FROM k, json_each_text(CAST($",
            $names,
            " AS JSON)) e) SELECT id FROM k"
        )
    };
}

const SQLITE_INSERTS: Inserts = inserts!(alone);
const POSTGRES_INSERTS: Inserts = inserts!(with_names);

/// SQLite: the names of a new keyword (`$2`, a JSON object from locale to name).
const SQLITE_NAMES: &str =
    "INSERT INTO keyword_names (keyword_id, loc, name) SELECT $1, key, value FROM json_each($2)";

/// Stores a new keyword at `path`, named `name`, after the last child of `parent`, with its
/// localized `names`: its id, or none when the parent is not stored. A path taken already is a
/// uniqueness violation.
pub(crate) async fn create(
    connection: &mut AnyConnection,
    backend: Backend,
    parent: Parent<'_>,
    (name, path): (&str, &str),
    names: &[(&str, &str)],
    now: &str,
) -> Result<Option<i64>, sqlx::Error> {
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
        Parent::Root => sqlx::query_scalar(inserts.root),
        Parent::Id(id) => sqlx::query_scalar(inserts.by_id).bind(id),
        Parent::Path(parent) => sqlx::query_scalar(inserts.by_path).bind(parent),
    }
    .bind(name)
    .bind(path)
    .bind(now);
    let query = match backend {
        Backend::Postgres => query.bind(names_json.as_str()),
        Backend::Sqlite => query,
    };
    let Some(id) = query.fetch_optional(&mut *connection).await? else {
        return Ok(None);
    };
    if backend == Backend::Sqlite && !names.is_empty() {
        sqlx::query(SQLITE_NAMES)
            .bind(id)
            .bind(names_json.as_str())
            .execute(connection)
            .await?;
    }
    Ok(Some(id))
}

/// The parent of a stored keyword.
pub(crate) async fn parent_of(
    connection: &mut AnyConnection,
    id: i64,
) -> Result<Option<i64>, sqlx::Error> {
    sqlx::query_scalar("SELECT parent_id FROM keywords WHERE id = $1")
        .bind(id)
        .fetch_one(connection)
        .await
}

/// The length in characters of the longest path below `path` (its descendants'), if any.
pub(crate) async fn longest_below(
    connection: &mut AnyConnection,
    path: &str,
) -> Result<Option<i64>, sqlx::Error> {
    let prefix = format!("{path}/");
    sqlx::query_scalar(
        "SELECT CAST(MAX(length(path)) AS BIGINT) FROM keywords WHERE substr(path, 1, $1) = $2",
    )
    .bind(length(&prefix))
    .bind(&prefix)
    .fetch_one(connection)
    .await
}

/// Renames keyword `id` from `path` to `new_path` (its default name becoming `name`), moving the
/// paths of its descendants along. A path taken already is a uniqueness violation.
pub(crate) async fn rename(
    connection: &mut AnyConnection,
    id: i64,
    path: &str,
    new_path: &str,
    name: &str,
) -> Result<(), sqlx::Error> {
    // The keyword and every descendant: their paths start with the old path and '/'.
    sqlx::query(
        "UPDATE keywords SET path = $1 || substr(path, $2), \
         name = CASE WHEN id = $3 THEN $4 ELSE name END \
         WHERE id = $3 OR substr(path, 1, $5) = $6",
    )
    .bind(new_path)
    .bind(length(path) + 1)
    .bind(id)
    .bind(name)
    .bind(length(path) + 1)
    .bind(format!("{path}/"))
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
        sqlx::query("DELETE FROM keyword_names WHERE keyword_id = $1 AND loc = $2")
            .bind(id)
            .bind(loc)
            .execute(&mut *connection)
            .await?;
    }
    add_names(connection, id, names).await
}

/// Stores the names of a keyword that has none in those locales (one just created).
pub(crate) async fn add_names(
    connection: &mut AnyConnection,
    id: i64,
    names: &[(&str, &str)],
) -> Result<(), sqlx::Error> {
    for (loc, name) in names {
        sqlx::query("INSERT INTO keyword_names (keyword_id, loc, name) VALUES ($1, $2, $3)")
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
    sqlx::query("INSERT INTO keyword_assets (keyword_id, asset_id) VALUES ($1, $2)")
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
