//! Bulk writes of `core-server import`: many records in one statement, their rows passed as
//! bound values on SQLite (`BOUND_ROWS` at a time) and as one JSON array on PostgreSQL
//! (`json_to_recordset`; lists of ids as a JSON array on both), so that a statement's text is
//! the same for any number of rows and its plan is checked like every other.

use std::collections::HashMap;

use serde::Serialize;
use sqlx::{Any, any::AnyArguments, query::Query};

use super::Load;
use crate::storage::{Backend, backend_of, json_rows, json_text};

/// Rows per bulk statement: large enough that a statement's round trip is spread thin, small
/// enough that its JSON stays a few hundred kilobytes.
pub(crate) const BULK_ROWS: usize = 4096;

/// Rows of one bound SQLite statement. SQLite takes rows as bound values (`VALUES (?, ?), …`),
/// which it reads without parsing: a JSON array's rows cost a parse of each row's text per
/// field, half the time of a names insert. The text is fixed, so a shorter list is padded with
/// rows of NULLs, which the statement skips; 1024 rows of four values stay well within
/// SQLite's 32,766 parameters.
const BOUND_ROWS: usize = 1024;

/// [`BOUND_ROWS`] copies of a row of placeholders, comma-separated.
macro_rules! bound_rows {
    ($row:literal) => {
        twice!(twice!(twice!(twice!(twice!(twice!(twice!(twice!(
            twice!(twice!($row))
        ))))))))
    };
}

/// A list written twice, comma-separated.
macro_rules! twice {
    ($($list:tt)*) => {
        concat!($($list)*, ",", $($list)*)
    };
}

/// A keyword to store unless its path is stored (written as `{"p", "n", "path", "x", "o",
/// "c"}`).
#[derive(Debug, Clone, Copy, Serialize)]
pub(crate) struct KeywordRow<'d> {
    /// The id it keeps; none: the next one.
    #[serde(rename = "x")]
    pub id: Option<i64>,
    /// Its order number among its siblings; none: after the last.
    #[serde(rename = "o")]
    pub order_number: Option<i64>,
    /// When it was created; none: now.
    #[serde(rename = "c")]
    pub created_at: Option<&'d str>,
    /// Its parent's id; none for a root.
    #[serde(rename = "p")]
    pub parent_id: Option<i64>,
    /// Its default name (the last segment of its path).
    #[serde(rename = "n")]
    pub name: &'d str,
    /// Its path.
    pub path: &'d str,
}

/// A keyword the statement stores (its row's fields and `"i"`): a [`KeywordRow`] whose path
/// is not stored, with its rank among the new siblings.
#[derive(Debug, Clone, Copy, Serialize)]
struct NewKeyword<'d> {
    #[serde(flatten)]
    row: KeywordRow<'d>,
    /// Its place among the new keywords of its parent in this statement (1 for the first): a
    /// keyword without an order number goes that far after the parent's last stored child.
    #[serde(rename = "i")]
    rank: i64,
}

/// A localized name of a keyword (written as `{"k", "l", "n"}`).
#[derive(Debug, Clone, Copy, Serialize)]
pub(crate) struct KeywordName<'d> {
    /// The keyword's id.
    #[serde(rename = "k")]
    pub keyword_id: i64,
    /// The locale's tid.
    #[serde(rename = "l")]
    pub loc: &'d str,
    /// The name.
    #[serde(rename = "n")]
    pub name: &'d str,
}

/// An asset link of a keyword, by the asset's tid (written as `{"k", "a"}`; nothing is linked
/// when no such asset is stored).
#[derive(Debug, Clone, Copy, Serialize)]
pub(crate) struct KeywordAsset<'d> {
    /// The keyword's id.
    #[serde(rename = "k")]
    pub keyword_id: i64,
    /// The asset's tid.
    #[serde(rename = "a")]
    pub asset: &'d str,
}

/// Stores the keywords whose paths are not stored, each after the last of its siblings (new
/// siblings in the order given); answers the ids of all of them, stored before or now, in the
/// order of `rows`.
///
/// The stored ones are read first, so that the statement that stores the others is given each
/// one's rank among its new siblings instead of ranking them itself (a window over the rows:
/// on SQLite that sort took a third of the statement) and a load of records all stored runs
/// one statement per chunk.
pub(crate) async fn insert_keywords(
    load: Load<'_, '_>,
    rows: &[KeywordRow<'_>],
    known: i64,
    now: &str,
) -> Result<Vec<i64>, sqlx::Error> {
    let mut ids = stored_before(load, rows, known).await?;
    let backend = backend_of(load);
    // One statement stores the new keywords of BOUND_ROWS rows on SQLite, of the chunk on
    // PostgreSQL, ranked within it, as the window it replaced ranked them.
    let group = match backend {
        Backend::Sqlite => BOUND_ROWS,
        Backend::Postgres => rows.len().max(1),
    };
    for (start, rows) in (0..).step_by(group).zip(rows.chunks(group)) {
        let group = new_keywords(rows, &ids[start..start + rows.len()], start, backend);
        if !group.is_empty() {
            let stored: Vec<NewKeyword> = group.iter().map(|(_, keyword)| *keyword).collect();
            let new_ids = store_new_keywords(load, &stored, now).await?;
            for ((index, _), id) in group.iter().zip(new_ids) {
                ids[*index] = id;
            }
        }
    }
    complete(ids)
}

/// The ids of the keywords of `rows` stored before this statement, by row (none: not stored).
/// Keywords of ids above `known` were stored by this load: a keyword under one of them is new,
/// and its path is not looked up.
async fn stored_before(
    load: Load<'_, '_>,
    rows: &[KeywordRow<'_>],
    known: i64,
) -> Result<Vec<Option<i64>>, sqlx::Error> {
    let mut ids = vec![None; rows.len()];
    let maybe_stored: Vec<usize> = (0..rows.len())
        .filter(|&index| rows[index].parent_id.is_none_or(|parent| parent <= known))
        .collect();
    if !maybe_stored.is_empty() {
        let paths: Vec<&str> = maybe_stored.iter().map(|&index| rows[index].path).collect();
        let stored = keyword_ids(load, &paths).await?;
        for (&index, id) in maybe_stored.iter().zip(stored) {
            ids[index] = id;
        }
    }
    Ok(ids)
}

/// The rows of `rows` whose paths are not stored (`ids`: none), by their index (`start` plus
/// their place in `rows`), each ranked among the new rows of its parent in the order given;
/// in the order they are stored in. Ids are taken in that order: sibling by sibling, as the
/// ranking window this replaced gave them out (its partitions put roots first on SQLite and
/// last on PostgreSQL), so that a document loads to the same ids as before.
fn new_keywords<'d>(
    rows: &[KeywordRow<'d>],
    ids: &[Option<i64>],
    start: usize,
    backend: Backend,
) -> Vec<(usize, NewKeyword<'d>)> {
    let mut ranks: HashMap<Option<i64>, i64> = HashMap::new();
    let mut new: Vec<(usize, NewKeyword)> = rows
        .iter()
        .zip(ids)
        .enumerate()
        .filter(|(_, (_, id))| id.is_none())
        .map(|(index, (row, _))| {
            let rank = ranks.entry(row.parent_id).or_default();
            *rank += 1;
            let keyword = NewKeyword {
                row: *row,
                rank: *rank,
            };
            (start + index, keyword)
        })
        .collect();
    new.sort_by_key(|(index, keyword)| {
        let root_last = match backend {
            Backend::Sqlite => keyword.row.parent_id.is_some(),
            Backend::Postgres => keyword.row.parent_id.is_none(),
        };
        (root_last, keyword.row.parent_id, *index)
    });
    new
}

/// Every id of a chunk, or an error if a keyword was not stored.
fn complete(ids: Vec<Option<i64>>) -> Result<Vec<i64>, sqlx::Error> {
    ids.into_iter()
        .map(|id| id.ok_or(sqlx::Error::RowNotFound))
        .collect()
}

/// The ids of the keywords of these paths (none: not stored), in the order of the paths.
async fn keyword_ids(load: Load<'_, '_>, paths: &[&str]) -> Result<Vec<Option<i64>>, sqlx::Error> {
    // One row holding every id, in the order of the paths: rows one by one would each cross to
    // SQLite's worker thread. On PostgreSQL each lookup by path is a scalar subquery, run per
    // row on the unique index: written as a join, it was planned as a hash join over a
    // sequential scan of the whole table for every chunk, since the statistics lag a load (6k
    // rows estimated for 500k), which made each chunk slower than the last.
    let select = match backend_of(load) {
        Backend::Sqlite => sql!(sqlite:
            "SELECT json_group_array(k.id ORDER BY j.key) AS ids FROM json_each($1) j \
             LEFT JOIN keywords k ON k.path = j.value"
        ),
        Backend::Postgres => sql!(postgres:
            "SELECT CAST(COALESCE(json_agg((SELECT k.id FROM keywords k WHERE k.path = j.path) \
             ORDER BY j.i), '[]') AS TEXT) AS ids \
             FROM json_array_elements_text(CAST($1 AS JSON)) WITH ORDINALITY AS j(path, i)"
        ),
    };
    let ids: String = sqlx::query_scalar(select)
        .bind(json_text(paths)?)
        .fetch_one(&mut **load)
        .await?;
    json_rows(Some(ids))
}

/// Stores new keywords: a keyword without an order number goes its rank after the last stored
/// child of its parent; a keyword whose path is stored meanwhile is left (the load runs alone,
/// so none is). Answers the ids the rows' keywords were stored with, in the rows' order (none:
/// not stored).
async fn store_new_keywords(
    load: Load<'_, '_>,
    rows: &[NewKeyword<'_>],
    now: &str,
) -> Result<Vec<Option<i64>>, sqlx::Error> {
    match backend_of(load) {
        Backend::Sqlite => store_new_sqlite_keywords(load, rows, now).await,
        Backend::Postgres => {
            // A new keyword's id is taken here rather than by the trigger of migration 0015,
            // which would call PL/pgSQL for each row. A parent's sort key and last child are
            // read once per parent (`s`), not once per row: siblings share them (ten new rows
            // a parent in a tree of a million), and the lookups per row took half the
            // statement. The rows are numbered (`ord`) and stored in their order, so that ids
            // are taken in it whatever join the planner picks. The ids come back from the
            // insert itself (`RETURNING`), in the rows' order, instead of from a lookup of
            // their paths after it.
            let insert = sql!(postgres: concat!(
                "WITH r AS MATERIALIZED (SELECT * FROM ROWS FROM (json_to_recordset(CAST($1 AS JSON)) \
                 AS (p BIGINT, n TEXT, path TEXT, i BIGINT, x BIGINT, o BIGINT, c TEXT)) \
                 WITH ORDINALITY AS r(p, n, path, i, x, o, c, ord)), \
                 s AS MATERIALIZED (SELECT d.p, (SELECT k.sort_key FROM keywords k WHERE k.id = d.p) \
                 AS sort_key, CASE WHEN d.p IS NULL \
                 THEN (SELECT MAX(k.order_number) FROM keywords k WHERE k.parent_id IS NULL) \
                 ELSE (SELECT MAX(k.order_number) FROM keywords k WHERE k.parent_id = d.p) END AS last \
                 FROM (SELECT DISTINCT r.p FROM r) d), \
                 ins AS (INSERT INTO keywords (id, parent_id, name, path, order_number, created_at, sort_key) \
                 SELECT COALESCE(q.x, nextval('keywords_id_seq')), q.p, q.n, q.path, q.o, \
                 COALESCE(q.c, $2), COALESCE(q.sort_key, '') || ",
                segment!(postgres, "q.o", "q.n"),
                " FROM (SELECT r.ord, r.x, r.c, r.p, r.n, r.path, s.sort_key, \
                 COALESCE(r.o, COALESCE(s.last, 0) + r.i) AS o \
                 FROM r JOIN s ON COALESCE(s.p, 0) = COALESCE(r.p, 0)) q ORDER BY q.ord \
                 ON CONFLICT (path) DO NOTHING RETURNING id, path) \
                 SELECT CAST(COALESCE(json_agg(ins.id ORDER BY r.ord), '[]') AS TEXT) AS ids \
                 FROM r LEFT JOIN ins ON ins.path = r.path"
            ));
            let ids: String = sqlx::query_scalar(insert)
                .bind(json_text(rows)?)
                .bind(now)
                .fetch_one(&mut **load)
                .await?;
            json_rows(Some(ids))
        }
    }
}

/// [`store_new_keywords`] on SQLite: [`BOUND_ROWS`] rows a statement.
async fn store_new_sqlite_keywords(
    load: Load<'_, '_>,
    rows: &[NewKeyword<'_>],
    now: &str,
) -> Result<Vec<Option<i64>>, sqlx::Error> {
    // Each new keyword is given its id here, as AUTOINCREMENT would give it, so that
    // the ids are known without looking the paths up again after the insert (a
    // million lookups by path in a load of a million keywords).
    let ids = new_keyword_ids(rows, next_keyword_id(load).await?);
    let inserts = rows
        .chunks(BOUND_ROWS)
        .zip(ids.chunks(BOUND_ROWS))
        .map(|(rows, ids)| {
            let mut insert = sqlx::query(sql!(sqlite: concat!(
                "INSERT INTO keywords (id, parent_id, name, path, order_number, created_at, \
                 sort_key) SELECT q.x, q.p, q.n, q.path, q.o, COALESCE(q.c, ?), \
                 COALESCE((SELECT k.sort_key FROM keywords k WHERE k.id = q.p), '') || ",
                segment!(sqlite, "q.o", "q.n"),
                " FROM (SELECT column1 AS p, column2 AS n, column3 AS path, column5 AS x, \
                 column7 AS c, COALESCE(column6, COALESCE((SELECT MAX(k.order_number) FROM \
                 keywords k WHERE k.parent_id IS column1), 0) + column4) AS o FROM (VALUES ",
                bound_rows!("(?,?,?,?,?,?,?)"),
                ") WHERE column3 IS NOT NULL) q WHERE true ON CONFLICT (path) DO NOTHING"
            )))
            .bind(now);
            for (NewKeyword { row, rank }, id) in rows.iter().zip(ids) {
                insert = insert
                    .bind(row.parent_id)
                    .bind(row.name)
                    .bind(row.path)
                    .bind(rank)
                    .bind(id)
                    .bind(row.order_number)
                    .bind(row.created_at);
            }
            padded(insert, rows.len(), 7)
        });
    let stored = execute_in_turn(load, inserts).await?;
    if usize::try_from(stored).is_ok_and(|stored| stored == rows.len()) {
        return Ok(ids.into_iter().map(Some).collect());
    }
    // A row was left (its path stored meanwhile): each id is the one stored by path.
    let paths: Vec<&str> = rows.iter().map(|keyword| keyword.row.path).collect();
    keyword_ids(load, &paths).await
}

/// The id SQLite's AUTOINCREMENT gives the next keyword stored without one: one more than the
/// greatest id the table has held (`sqlite_sequence`, which outlives deleted keywords) or
/// holds.
async fn next_keyword_id(load: Load<'_, '_>) -> Result<i64, sqlx::Error> {
    sqlx::query_scalar(sql!(sqlite:
        "SELECT MAX(COALESCE((SELECT s.seq FROM sqlite_sequence s WHERE s.name = 'keywords'), 0), \
         COALESCE((SELECT MAX(k.id) FROM keywords k), 0)) + 1 AS id"
    ))
    .fetch_one(&mut **load)
    .await
}

/// The ids of new keywords stored in the order of `rows`, as AUTOINCREMENT gives them from
/// `next` on: a keyword keeps the id it is given, and one without takes one more than the
/// greatest id stored before it.
fn new_keyword_ids(rows: &[NewKeyword<'_>], mut next: i64) -> Vec<i64> {
    rows.iter()
        .map(|keyword| match keyword.row.id {
            Some(id) => {
                next = next.max(id.saturating_add(1));
                id
            }
            None => {
                let id = next;
                next = next.saturating_add(1);
                id
            }
        })
        .collect()
}

/// The greatest id of a stored keyword (0 when none is): keywords stored after it is read get
/// greater ids, and own nothing a later chunk must clear.
pub(crate) async fn last_keyword_id(load: Load<'_, '_>) -> Result<i64, sqlx::Error> {
    sqlx::query_scalar(sql!("SELECT COALESCE(MAX(id), 0) AS id FROM keywords"))
        .fetch_one(&mut **load)
        .await
}

/// Replaces the names of keywords: every name of the keywords listed (those stored before the
/// load) is removed, then the names given are stored.
pub(crate) async fn replace_keyword_names(
    load: Load<'_, '_>,
    keywords: &[i64],
    names: &[KeywordName<'_>],
) -> Result<(), sqlx::Error> {
    delete_owned(load, Owner::KeywordNames, keywords).await?;
    if names.is_empty() {
        return Ok(());
    }
    match backend_of(load) {
        Backend::Sqlite => {
            let inserts = names.chunks(BOUND_ROWS).map(|names| {
                let mut insert = sqlx::query(sql!(sqlite: concat!(
                    "INSERT INTO keyword_names (keyword_id, loc, name) SELECT column1, column2, \
                     column3 FROM (VALUES ",
                    bound_rows!("(?,?,?)"),
                    ") WHERE column1 IS NOT NULL"
                )));
                for name in names {
                    insert = insert.bind(name.keyword_id).bind(name.loc).bind(name.name);
                }
                padded(insert, names.len(), 3)
            });
            execute_in_turn(load, inserts).await?;
        }
        Backend::Postgres => {
            let insert = sql!(postgres:
                "INSERT INTO keyword_names (keyword_id, loc, name) SELECT r.k, r.l, r.n \
                 FROM json_to_recordset(CAST($1 AS JSON)) AS r(k BIGINT, l TEXT, n TEXT)"
            );
            sqlx::query(insert)
                .bind(json_text(names)?)
                .execute(&mut **load)
                .await?;
        }
    }
    Ok(())
}

/// Runs statements one after the other, each bound while the one before it runs on SQLite's
/// worker thread, which otherwise waits while the importing thread binds a statement's
/// thousands of values; answers the rows they changed.
async fn execute_in_turn<'q>(
    load: Load<'_, '_>,
    mut statements: impl Iterator<Item = Query<'q, Any, AnyArguments>>,
) -> Result<u64, sqlx::Error> {
    let mut changed = 0;
    let mut next = statements.next();
    while let Some(statement) = next {
        // `join!` polls the statement first, which hands it to the worker, then binds the next.
        let (done, following) =
            tokio::join!(statement.execute(&mut **load), async { statements.next() });
        changed += done?.rows_affected();
        next = following;
    }
    Ok(changed)
}

/// A bound statement's rows after the `filled` given, as NULLs (`width` values each).
fn padded(
    mut query: Query<'_, Any, AnyArguments>,
    filled: usize,
    width: usize,
) -> Query<'_, Any, AnyArguments> {
    for _ in filled * width..BOUND_ROWS * width {
        query = query.bind(None::<i64>);
    }
    query
}

/// Replaces the asset links of keywords: every link of the keywords listed (those stored before
/// the load) is removed, then the links given are stored (those to assets that are stored).
pub(crate) async fn replace_keyword_assets(
    load: Load<'_, '_>,
    keywords: &[i64],
    links: &[KeywordAsset<'_>],
) -> Result<(), sqlx::Error> {
    delete_owned(load, Owner::KeywordAssets, keywords).await?;
    if links.is_empty() {
        return Ok(());
    }
    let json = json_text(links)?;
    let insert = match backend_of(load) {
        Backend::Sqlite => sql!(sqlite:
            "INSERT INTO keyword_assets (keyword_id, asset_id) SELECT json_extract(j.value, '$.k'), \
             a.id FROM json_each($1) j JOIN assets a ON a.tid = json_extract(j.value, '$.a') \
             WHERE true ON CONFLICT DO NOTHING"
        ),
        Backend::Postgres => sql!(postgres:
            "INSERT INTO keyword_assets (keyword_id, asset_id) SELECT l.k, l.a FROM \
             (SELECT r.k, (SELECT s.id FROM assets s WHERE s.tid = r.a) AS a \
             FROM json_to_recordset(CAST($1 AS JSON)) AS r(k BIGINT, a TEXT)) l \
             WHERE l.a IS NOT NULL ON CONFLICT DO NOTHING"
        ),
    };
    sqlx::query(insert).bind(json).execute(&mut **load).await?;
    Ok(())
}

/// What [`delete_owned`] removes, by its owners' ids.
#[derive(Debug, Clone, Copy)]
enum Owner {
    /// Keywords' names.
    KeywordNames,
    /// Keywords' asset links.
    KeywordAssets,
}

/// Removes what the records listed own. On PostgreSQL the ids are an array, so that the index
/// is used however stale the statistics of a table a load is filling (a join with the JSON rows
/// was planned as a scan of the whole table for every chunk).
async fn delete_owned(load: Load<'_, '_>, owner: Owner, ids: &[i64]) -> Result<(), sqlx::Error> {
    if ids.is_empty() {
        return Ok(());
    }
    let json = json_text(ids)?;
    let delete = match (owner, backend_of(load)) {
        (Owner::KeywordNames, Backend::Sqlite) => sql!(sqlite:
            "DELETE FROM keyword_names WHERE keyword_id IN (SELECT value FROM json_each($1))"
        ),
        (Owner::KeywordNames, Backend::Postgres) => sql!(postgres:
            "DELETE FROM keyword_names WHERE keyword_id = ANY \
             (ARRAY(SELECT CAST(json_array_elements_text(CAST($1 AS JSON)) AS BIGINT)))"
        ),
        (Owner::KeywordAssets, Backend::Sqlite) => sql!(sqlite:
            "DELETE FROM keyword_assets WHERE keyword_id IN (SELECT value FROM json_each($1))"
        ),
        (Owner::KeywordAssets, Backend::Postgres) => sql!(postgres:
            "DELETE FROM keyword_assets WHERE keyword_id = ANY \
             (ARRAY(SELECT CAST(json_array_elements_text(CAST($1 AS JSON)) AS BIGINT)))"
        ),
    };
    sqlx::query(delete).bind(json).execute(&mut **load).await?;
    Ok(())
}

/// An SQLite page cache large enough for a bulk load's working set (up to 1 GiB, taken only as
/// the load's pages fill it; a million keywords with two names each take 270 MB): with the
/// default 2 MB, the pages of a growing index spill into the WAL mid-transaction and each later
/// read looks them up there, so a load slows as it grows. The file is not mapped meanwhile:
/// through the map, every page fetched is first looked for in the WAL and the map, though the
/// load's pages are in its cache (2.6% of the instructions of a load of 100k keywords). Nothing
/// on PostgreSQL.
pub(crate) async fn widen_cache(load: Load<'_, '_>) -> Result<(), sqlx::Error> {
    sqlite_pragma(load, sql!(sqlite: "PRAGMA cache_size = -1048576")).await?;
    sqlite_pragma(load, sql!(sqlite: "PRAGMA mmap_size = 0")).await
}

/// Gives the connection its default page cache and its map of the file back after a bulk load.
pub(crate) async fn narrow_cache(load: Load<'_, '_>) -> Result<(), sqlx::Error> {
    sqlite_pragma(load, sql!(sqlite: "PRAGMA cache_size = -2000")).await?;
    sqlite_pragma(load, crate::storage::SQLITE_MMAP).await
}

async fn sqlite_pragma(load: Load<'_, '_>, pragma: &'static str) -> Result<(), sqlx::Error> {
    if backend_of(load) == Backend::Sqlite {
        sqlx::query(pragma).execute(&mut **load).await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
