//! The SQL of PEOs: their links to channels, PEOs whole or by name only in one statement, and
//! PEO query in one statement.

use sqlx::AnyConnection;

use super::{Backend, Database, channels, flag::Flag, json_rows, json_text, read, values};

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

/// A PEO as retrieval shows it (read from a JSON array in this field order).
#[derive(Debug, serde::Deserialize)]
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

/// A PEO with what decides who sees it: the roles it and its product are restricted to (empty:
/// unrestricted), then its nodes and values (read from a JSON array in this field order, which
/// `peo_json!` writes).
#[derive(Debug, serde::Deserialize)]
pub(crate) struct Stored {
    /// The PEO.
    pub(crate) peo: Peo,
    /// The roles the PEO is restricted to.
    pub(crate) roles: Vec<String>,
    /// The roles its product is restricted to.
    pub(crate) product_roles: Vec<String>,
    /// Its node identifiers, by position (none read for names only).
    pub(crate) nodes: Vec<String>,
    /// Its value items, by row (none read for names only).
    pub(crate) vals: Vec<values::Item>,
}

/// The PEOs PEO retrieve names: by id, or by tid.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Named<'a> {
    /// PEOs by id.
    Ids(&'a [i64]),
    /// PEOs by tid.
    Tids(&'a [String]),
}

/// The statement of PEO retrieve on SQLite, joining the listed values (`json_each($1)`) by
/// `$join`: each PEO as `peo_json!` (`$form`) writes it, in the order of the list, as one JSON
/// text.
macro_rules! sqlite_retrieve {
    ($form:ident, $join:literal) => {
        concat!(
            "SELECT json_group_array(",
            peo_json!(sqlite, $form),
            " ORDER BY j.key) AS peos FROM json_each($1) j JOIN peos e ON ",
            $join,
            " LEFT JOIN products pr ON pr.id = e.product_id"
        )
    };
}

/// The statement of PEO retrieve on PostgreSQL: [`sqlite_retrieve!`] in its functions.
macro_rules! postgres_retrieve {
    ($form:ident, $join:literal) => {
        concat!(
            "SELECT json_agg(",
            peo_json!(postgres, $form),
            " ORDER BY j.place)::text AS peos \
             FROM json_array_elements_text($1::json) WITH ORDINALITY j(value, place) \
             JOIN peos e ON ",
            $join,
            " LEFT JOIN products pr ON pr.id = e.product_id"
        )
    };
}

/// The statements of PEO retrieve on one backend: whole or names only, by id or by tid.
struct Retrieve {
    whole_by_ids: &'static str,
    whole_by_tids: &'static str,
    names_by_ids: &'static str,
    names_by_tids: &'static str,
}

const SQLITE: Retrieve = Retrieve {
    whole_by_ids: sql!(sqlite: sqlite_retrieve!(whole, "e.id = j.value")),
    whole_by_tids: sql!(sqlite: sqlite_retrieve!(whole, "e.tid = j.value")),
    names_by_ids: sql!(sqlite: sqlite_retrieve!(names, "e.id = j.value")),
    names_by_tids: sql!(sqlite: sqlite_retrieve!(names, "e.tid = j.value")),
};

const POSTGRES: Retrieve = Retrieve {
    whole_by_ids: sql!(postgres: postgres_retrieve!(whole, "e.id = j.value::bigint")),
    whole_by_tids: sql!(postgres: postgres_retrieve!(whole, "e.tid = j.value")),
    names_by_ids: sql!(postgres: postgres_retrieve!(names, "e.id = j.value::bigint")),
    names_by_tids: sql!(postgres: postgres_retrieve!(names, "e.tid = j.value")),
};

/// The PEOs `named` in the order the list names them (a name the store does not hold is
/// skipped, a name listed twice is read twice), whole or (`names_only`) without nodes and
/// values: one statement whatever the list's length.
pub(crate) async fn retrieve(
    database: &Database,
    named: Named<'_>,
    names_only: bool,
) -> Result<Vec<Stored>, sqlx::Error> {
    let statements = match database.backend() {
        Backend::Sqlite => &SQLITE,
        Backend::Postgres => &POSTGRES,
    };
    let (statement, list) = match (named, names_only) {
        (Named::Ids(ids), false) => (statements.whole_by_ids, json_text(ids)?),
        (Named::Tids(tids), false) => (statements.whole_by_tids, json_text(tids)?),
        (Named::Ids(ids), true) => (statements.names_by_ids, json_text(ids)?),
        (Named::Tids(tids), true) => (statements.names_by_tids, json_text(tids)?),
    };
    let (text,): (Option<String>,) =
        read::one(database, || sqlx::query_as(statement).bind(list.as_str())).await?;
    json_rows(text)
}

/// A PEO that PEO query may answer with: what its criteria compare, once per role it and its
/// product are restricted to (the caller's rights are applied to what is read).
#[derive(Debug, sqlx::FromRow)]
pub(crate) struct Candidate {
    /// Its id.
    pub(crate) id: i64,
    /// Its tid.
    pub(crate) tid: String,
    /// Its name.
    pub(crate) name: Option<String>,
    /// When it was last changed (UTC, as stored).
    pub(crate) modified_at: String,
    /// A role the PEO is restricted to (none: unrestricted).
    pub(crate) role: Option<String>,
    /// A role its product is restricted to (none: unrestricted, or no product).
    pub(crate) product_role: Option<String>,
}

/// A row of a PEO query statement: a candidate (`part` 'peo'), or the product the query names
/// ('product': its id, tid and a role it is restricted to as `product_role`, a row per role),
/// or its project ('project': the channel's id and tid), when found.
#[derive(Debug, sqlx::FromRow)]
struct QueryRow {
    /// What the row is of.
    part: String,
    /// Its columns.
    #[sqlx(flatten)]
    candidate: Candidate,
}

/// The candidate rows of a statement: the columns of [`QueryRow`] from `peos e` with the roles
/// it and its product are restricted to, where `$condition`.
macro_rules! candidates {
    ($condition:literal) => {
        concat!(
            "SELECT 'peo' AS part, e.id, e.tid, e.name, e.modified_at, \
             r.name AS role, pr.name AS product_role FROM peos e \
             LEFT JOIN access_restrictions ar ON ar.kind = 'peo' AND ar.record_id = e.id \
             LEFT JOIN roles r ON r.id = ar.role_id \
             LEFT JOIN access_restrictions ap ON ap.kind = 'product' \
               AND ap.record_id = e.product_id \
             LEFT JOIN roles pr ON pr.id = ap.role_id ",
            $condition
        )
    };
}

/// The row of the product whose tid is `$tid`, a row per role it is restricted to.
macro_rules! product_row {
    ($tid:literal) => {
        concat!(
            "SELECT 'product' AS part, p.id, p.tid, NULL AS name, '' AS modified_at, \
             NULL AS role, r.name AS product_role FROM products p \
             LEFT JOIN access_restrictions ap ON ap.kind = 'product' AND ap.record_id = p.id \
             LEFT JOIN roles r ON r.id = ap.role_id WHERE p.tid = ",
            $tid
        )
    };
}

/// The row of the project at the root of `tree` ([`channel_tree!`]).
macro_rules! project_row {
    () => {
        "SELECT 'project' AS part, t.id, t.tid, NULL AS name, '' AS modified_at, \
         NULL AS role, NULL AS product_role FROM tree t WHERE t.depth = 0"
    };
}

/// The PEOs linked to a channel of `tree` ([`channel_tree!`]), read from the tree's channels
/// (SQLite takes `CROSS JOIN` as that order; it would rather read every link).
macro_rules! linked {
    () => {
        "e.id IN (SELECT pc.peo_id FROM tree t CROSS JOIN peo_channels pc \
         WHERE pc.channel_id = t.id)"
    };
}

/// The project PEO query names: a channel by tid, with its subtree down to `level` generations
/// (`None`: all, `Some(0)`: the channel alone).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Project<'a> {
    /// The channel's tid.
    pub(crate) tid: &'a str,
    /// The generations below it whose links count.
    pub(crate) level: Option<i64>,
}

/// Which PEOs PEO query reads, by the most selective criterion it has (each served by an
/// index); the others are compared with what is read.
#[derive(Debug)]
pub(crate) enum Selection<'a> {
    /// The PEOs of the product with this tid, linked to the project when one is given.
    Product(&'a str, Option<Project<'a>>),
    /// The PEOs linked to the project.
    Project(Project<'a>),
    /// The PEOs with these names.
    Names(&'a [&'a str]),
    /// The PEOs changed within the bounds (UTC as stored, inclusive; open ends absent).
    Modified(Option<&'a str>, Option<&'a str>),
    /// Every PEO: the answer of a query without criteria.
    All,
}

/// What PEO query read: the product and the project it names (when it names them and they are
/// found), and the candidates, unordered, a row per role (`Candidate`).
#[derive(Debug, Default)]
pub(crate) struct Queried {
    /// The roles the product is restricted to (empty: unrestricted), when it was found.
    pub(crate) product: Option<Vec<String>>,
    /// Whether the project was found.
    pub(crate) project: bool,
    /// The candidates the selection reads.
    pub(crate) candidates: Vec<Candidate>,
}

/// The statements of PEO query by names on each backend, the list as one JSON text.
const NAMES_SQLITE: &str =
    sql!(sqlite: candidates!("WHERE e.name IN (SELECT value FROM json_each($1))"));
const NAMES_POSTGRES: &str =
    sql!(postgres: candidates!("WHERE e.name IN (SELECT json_array_elements_text($1::json))"));

/// The PEOs a selection reads, with the product and project it names: one statement.
pub(crate) async fn query(
    database: &Database,
    selection: Selection<'_>,
) -> Result<Queried, sqlx::Error> {
    let rows: Vec<QueryRow> = match selection {
        Selection::Product(tid, None) => {
            read::all(database, || {
                sqlx::query_as(sql!(concat!(
                    product_row!("$1"),
                    " UNION ALL ",
                    candidates!("WHERE e.product_id = (SELECT id FROM products WHERE tid = $1)")
                )))
                .bind(tid)
            })
            .await?
        }
        Selection::Product(tid, Some(project)) => {
            read::all(database, || {
                sqlx::query_as(sql!(concat!(
                    channel_tree!("tid", "$1", "$2"),
                    project_row!(),
                    " UNION ALL ",
                    product_row!("$3"),
                    " UNION ALL ",
                    candidates!(
                        "WHERE e.product_id = (SELECT id FROM products WHERE tid = $3) AND "
                    ),
                    linked!()
                )))
                .bind(project.tid)
                .bind(channels::depth(project.level))
                .bind(tid)
            })
            .await?
        }
        Selection::Project(project) => {
            read::all(database, || {
                sqlx::query_as(sql!(concat!(
                    channel_tree!("tid", "$1", "$2"),
                    project_row!(),
                    " UNION ALL ",
                    candidates!("WHERE "),
                    linked!()
                )))
                .bind(project.tid)
                .bind(channels::depth(project.level))
            })
            .await?
        }
        Selection::Names(names) => {
            let statement = match database.backend() {
                Backend::Sqlite => NAMES_SQLITE,
                Backend::Postgres => NAMES_POSTGRES,
            };
            let names = json_text(names)?;
            read::all(database, || sqlx::query_as(statement).bind(names.as_str())).await?
        }
        Selection::Modified(from, until) => {
            // Timestamps are ISO 8601 text of one width, so open ends are the empty text and
            // the last instant that text can write.
            read::all(database, || {
                sqlx::query_as(sql!(candidates!(
                    "WHERE e.modified_at >= $1 AND e.modified_at <= $2"
                )))
                .bind(from.unwrap_or(""))
                .bind(until.unwrap_or("9999-12-31T23:59:59.999Z"))
            })
            .await?
        }
        Selection::All => {
            read::all(database, || {
                sqlx::query_as(sql!(candidates!("ORDER BY e.tid")))
            })
            .await?
        }
    };
    queried(rows)
}

/// The rows of a PEO query statement, sorted by what they are of.
fn queried(rows: Vec<QueryRow>) -> Result<Queried, sqlx::Error> {
    let mut queried = Queried::default();
    for row in rows {
        let candidate = row.candidate;
        match row.part.as_str() {
            "peo" => queried.candidates.push(candidate),
            "project" => queried.project = true,
            "product" => {
                let roles = queried.product.get_or_insert_with(Vec::new);
                roles.extend(candidate.product_role);
            }
            other => {
                return Err(sqlx::Error::Decode(
                    format!("a PEO query row of an unknown part '{other}'").into(),
                ));
            }
        }
    }
    Ok(queried)
}
