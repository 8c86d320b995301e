//! The reads of keywords retrieve: a subtree in depth-first pre-order with the names and links
//! of each keyword, read while the answer is written (D-59). A whole subtree is a range of the
//! sort-key index, read in keyset chunks in one read transaction; a subtree down to a level is
//! walked through the parent index, one generation after the other, in one statement.

use futures_util::{StreamExt, stream::BoxStream};
use serde::Deserialize;
use sqlx::{Any, any::AnyArguments, query::QueryAs};

use crate::storage::{Backend, Database, json_rows};

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

impl Listed {
    /// The keyword with its names in locale order and its links in asset tid order (bytewise,
    /// as SQLite's `BINARY` and PostgreSQL's `"C"` order them). They are ordered here, not by
    /// the statement: on SQLite an `ORDER BY` inside an aggregate sorts through a temporary
    /// b-tree for each keyword, an eighth of the demo's six-keyword statement.
    fn ordered(mut self) -> Self {
        self.names.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        if let Some(links) = &mut self.links {
            links.sort_by(|a, b| a.0.cmp(&b.0));
        }
        self
    }
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

/// Where a walked listing starts: the root keywords, or the children of the keyword at path `$2`.
macro_rules! start {
    (roots) => {
        "parent_id IS NULL"
    };
    (below) => {
        "parent_id = (SELECT id FROM keywords WHERE path = $2)"
    };
}

/// The entry of keyword `k` in a chunk, as one JSON array of [`Listed`], `$links` its links.
macro_rules! entry {
    (sqlite, $links:literal) => {
        concat!(
            "json_array(k.id, k.parent_id, k.name, k.path, k.order_number, k.created_at, \
             json((SELECT json_group_array(json_array(n.loc, n.name)) \
             FROM keyword_names n WHERE n.keyword_id = k.id)), ",
            $links,
            ")"
        )
    };
    (postgres, $links:literal) => {
        concat!(
            "json_build_array(k.id, k.parent_id, k.name, k.path, k.order_number, k.created_at, \
             COALESCE((SELECT json_agg(json_build_array(n.loc, n.name)) \
             FROM keyword_names n WHERE n.keyword_id = k.id), '[]'), ",
            $links,
            ")"
        )
    };
}

/// The keywords of a subtree down to depth `$1` below `$start`, with their names and, with
/// `$links`, their asset links, in depth-first pre-order, as one statement (D-59): the
/// generations read one after the other through the parent index, so that a shallow read of a
/// large tree costs its answer (D-37). `CROSS JOIN` keeps SQLite's planner to that order; to
/// PostgreSQL it is an inner join like any other. SQLite walks the tree with its queue ordered
/// by the stored sort key, which yields the keywords in pre-order as they are found; PostgreSQL
/// sorts by it. Each row is a chunk of 512 keywords in order, as one JSON array of [`Listed`]:
/// a row crosses from the database to the answer at a cost (on SQLite a hop to sqlx's worker
/// thread), which a keyword alone would pay 100,000 times for 100,000 keywords.
macro_rules! walked {
    (sqlite, $start:expr, $links:literal) => {
        concat!(
            "WITH RECURSIVE sub (id, depth, sort) AS (SELECT id, 1, sort_key FROM keywords \
             WHERE ",
            $start,
            " UNION ALL SELECT k.id, s.depth + 1, k.sort_key \
             FROM sub s CROSS JOIN keywords k WHERE k.parent_id = s.id AND s.depth < $1 \
             ORDER BY 3), \
             listed (entry, sort, chunk) AS (SELECT ",
            entry!(sqlite, $links),
            ", s.sort, (row_number() OVER () - 1) / 512 \
             FROM sub s CROSS JOIN keywords k WHERE k.id = s.id) \
             SELECT '[' || group_concat(entry, ',' ORDER BY sort) || ']' FROM listed \
             GROUP BY chunk ORDER BY chunk"
        )
    };
    (postgres, $start:expr, $links:literal) => {
        concat!(
            "WITH RECURSIVE sub (id, depth, sort) AS (SELECT id, 1, sort_key FROM keywords \
             WHERE ",
            $start,
            " UNION ALL SELECT k.id, s.depth + 1, k.sort_key \
             FROM sub s CROSS JOIN keywords k WHERE k.parent_id = s.id AND s.depth < $1), \
             listed (entry, sort, chunk) AS (SELECT ",
            entry!(postgres, $links),
            ", s.sort, (row_number() OVER (ORDER BY s.sort COLLATE \"C\") - 1) / 512 \
             FROM sub s CROSS JOIN keywords k WHERE k.id = s.id) \
             SELECT json_agg(entry ORDER BY sort COLLATE \"C\")::text FROM listed \
             GROUP BY chunk ORDER BY chunk"
        )
    };
}

/// Where a chunk of a whole subtree starts (`lo`) and ends (`hi`), as two expressions: every
/// keyword (all keys start with a character from '1' to ':'), the subtree below the keyword at
/// path `$1` (the keys its key starts, which end before its key with U+0002 for its last
/// U+0001; both none when it is not stored), or the rest of a range after the key `$1`, up to
/// `$2`. Expressions, not a table joined to the keywords: SQLite then reads the range in the
/// index's order, with no temporary b-tree to sort it.
macro_rules! range {
    ($backend:ident, every, lo) => {
        "''"
    };
    ($backend:ident, every, hi) => {
        "';'"
    };
    ($backend:ident, below, lo) => {
        "(SELECT sort_key FROM keywords WHERE path = $1)"
    };
    (sqlite, below, hi) => {
        "(SELECT substr(sort_key, 1, length(sort_key) - 1) || char(2) FROM keywords \
         WHERE path = $1)"
    };
    (postgres, below, hi) => {
        "(SELECT substr(sort_key, 1, length(sort_key) - 1) || chr(2) FROM keywords \
         WHERE path = $1)"
    };
    ($backend:ident, after, lo) => {
        "CAST($1 AS TEXT)"
    };
    ($backend:ident, after, hi) => {
        "CAST($2 AS TEXT)"
    };
}

/// A chunk of a whole subtree in depth-first pre-order (D-59): the next 512 keywords of the
/// range `$range` of [`range!`], read in order from the sort-key index, as one JSON
/// array of [`Listed`] with the last key read, how many were read and where the range ends
/// ([`Chunk`]). The next chunk starts after that key, in the same read transaction: no walk, no
/// sort.
macro_rules! chunk {
    (sqlite, $range:ident, $links:literal) => {
        concat!(
            "SELECT '[' || group_concat(entry, ',' ORDER BY sort_key) || ']' AS chunk, \
             max(sort_key) AS last, CAST(count(*) AS BIGINT) AS count, ",
            range!(sqlite, $range, hi),
            " AS hi FROM (SELECT ",
            entry!(sqlite, $links),
            " AS entry, k.sort_key FROM keywords k WHERE k.sort_key > ",
            range!(sqlite, $range, lo),
            " AND k.sort_key < ",
            range!(sqlite, $range, hi),
            " ORDER BY k.sort_key LIMIT 512)"
        )
    };
    (postgres, $range:ident, $links:literal) => {
        concat!(
            "SELECT json_agg(entry ORDER BY sort_key)::text AS chunk, \
             max(sort_key) AS last, count(*)::bigint AS count, ",
            range!(postgres, $range, hi),
            " AS hi FROM (SELECT ",
            entry!(postgres, $links),
            " AS entry, k.sort_key FROM keywords k WHERE k.sort_key > ",
            range!(postgres, $range, lo),
            " AND k.sort_key < ",
            range!(postgres, $range, hi),
            " ORDER BY k.sort_key LIMIT 512) c"
        )
    };
}

/// How many keywords a chunk of a whole subtree holds at most (the `LIMIT` of [`chunk!`]).
const CHUNK: i64 = 512;

/// A chunk of a whole subtree, as [`chunk!`] reads it.
#[derive(Debug, sqlx::FromRow)]
struct Chunk {
    /// Its keywords, as one JSON array of [`Listed`]; none when it holds none.
    chunk: Option<String>,
    /// The sort key of its last keyword.
    last: Option<String>,
    /// How many keywords it holds.
    count: i64,
    /// Where the range ends; none when the subtree's base is not stored.
    hi: Option<String>,
}

/// A listing's forms with and without links.
struct Linked {
    plain: &'static str,
    linked: &'static str,
}

/// The listings of one backend: walked down to a depth (below the root or below a path), and
/// read as a range of sort keys in chunks (every keyword, below a path, and after a key).
struct Listings {
    roots: Linked,
    below: Linked,
    every: Linked,
    range_below: Linked,
    after: Linked,
}

/// Declares the [`Listings`] of one backend, `$links` the subquery of keyword `k`'s asset links
/// as [`Listed::links`] holds them.
macro_rules! listings {
    ($backend:ident, $links:literal) => {
        Listings {
            roots: Linked {
                plain: sql!($backend: walked!($backend, start!(roots), "NULL")),
                linked: sql!($backend: walked!($backend, start!(roots), $links)),
            },
            below: Linked {
                plain: sql!($backend: walked!($backend, start!(below), "NULL")),
                linked: sql!($backend: walked!($backend, start!(below), $links)),
            },
            every: Linked {
                plain: sql!($backend: chunk!($backend, every, "NULL")),
                linked: sql!($backend: chunk!($backend, every, $links)),
            },
            range_below: Linked {
                plain: sql!($backend: chunk!($backend, below, "NULL")),
                linked: sql!($backend: chunk!($backend, below, $links)),
            },
            after: Linked {
                plain: sql!($backend: chunk!($backend, after, "NULL")),
                linked: sql!($backend: chunk!($backend, after, $links)),
            },
        }
    };
}

const LISTINGS_SQLITE: Listings = listings!(
    sqlite,
    "json((SELECT json_group_array(json_array(a.tid, r.name)) \
     FROM keyword_assets ka JOIN assets a ON a.id = ka.asset_id \
     LEFT JOIN access_restrictions ar ON ar.kind = 'asset' AND ar.record_id = a.id \
     LEFT JOIN roles r ON r.id = ar.role_id WHERE ka.keyword_id = k.id))"
);
const LISTINGS_POSTGRES: Listings = listings!(
    postgres,
    "COALESCE((SELECT json_agg(json_build_array(a.tid, r.name)) \
     FROM keyword_assets ka JOIN assets a ON a.id = ka.asset_id \
     LEFT JOIN access_restrictions ar ON ar.kind = 'asset' AND ar.record_id = a.id \
     LEFT JOIN roles r ON r.id = ar.role_id WHERE ka.keyword_id = k.id), '[]')"
);

/// The keywords of a subtree in depth-first pre-order (siblings by `orderNumber`, then name),
/// with their names and, when `links`, their asset links, read while the answer is written
/// ([`stream`](crate::storage::stream)), its base found by path in the first statement. A whole subtree
/// is read from the sort-key index in chunks in one read transaction; a shallower one is walked
/// down in one statement. No row: the base has no children, or is not stored.
pub(crate) fn listed(
    database: &Database,
    subtree: Subtree,
    links: bool,
) -> BoxStream<'static, Result<Listed, sqlx::Error>> {
    let listings = match database.backend() {
        Backend::Sqlite => &LISTINGS_SQLITE,
        Backend::Postgres => &LISTINGS_POSTGRES,
    };
    let form = |linked: &Linked| if links { linked.linked } else { linked.plain };
    let chunks = if subtree.generations >= DEEPEST {
        let (statement, base) = match subtree.base {
            None => (form(&listings.every), None),
            Some(base) => (form(&listings.range_below), Some(base)),
        };
        let first = move || -> QueryAs<'static, Any, Chunk, AnyArguments> {
            match &base {
                None => sqlx::query_as(statement),
                Some(base) => sqlx::query_as(statement).bind(base.clone()),
            }
        };
        let after = form(&listings.after);
        crate::storage::stream::pages(database, first, move |read: &Chunk| {
            let (Some(last), Some(hi)) = (&read.last, &read.hi) else {
                return None;
            };
            (read.count >= CHUNK).then(|| sqlx::query_as(after).bind(last.clone()).bind(hi.clone()))
        })
        .map(|read| read.map(|read| read.chunk))
        .boxed()
    } else {
        let statement = match &subtree.base {
            None => form(&listings.roots),
            Some(_) => form(&listings.below),
        };
        let (generations, base) = (subtree.generations, subtree.base);
        let query = move || -> QueryAs<'static, Any, (String,), AnyArguments> {
            let query = sqlx::query_as(statement).bind(generations);
            match &base {
                Some(base) => query.bind(base.clone()),
                None => query,
            }
        };
        crate::storage::stream::rows(database, query)
            .map(|read| read.map(|(chunk,)| Some(chunk)))
            .boxed()
    };
    chunks
        .flat_map(|chunk| {
            let listed: Vec<Result<Listed, sqlx::Error>> = match chunk.and_then(json_rows) {
                Ok(listed) => listed.into_iter().map(Listed::ordered).map(Ok).collect(),
                Err(error) => vec![Err(error)],
            };
            futures_util::stream::iter(listed)
        })
        .boxed()
}
