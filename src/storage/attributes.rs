//! The SQL of node attributes: the selection of attributes retrieve and query in one
//! statement (by id, or by node or product with what ancestors pass down, and their domain
//! values), and the writes of attributes persist and perform (and of the `attr` entries of
//! classes persist).

use sqlx::{AnyConnection, Row, any::AnyRow};

use super::{Backend, Database, backend_of, flag::Flag, json_rows, json_text, nodes, read};

/// A stored node attribute with its node and the tid of its definition.
#[derive(Debug, Clone, sqlx::FromRow)]
pub(crate) struct Attribute {
    /// Its id.
    pub(crate) id: i64,
    /// Its node.
    pub(crate) node_id: i64,
    /// Its node's path.
    pub(crate) node_path: String,
    /// Its definition.
    pub(crate) definition_id: i64,
    /// Its definition's tid (`key`).
    pub(crate) key: String,
    /// `level`.
    pub(crate) level: Option<String>,
    /// `inheritance`.
    pub(crate) inheritance: Option<String>,
    /// `restriction`.
    pub(crate) restriction: Option<String>,
    /// `localized`.
    pub(crate) localized: Flag,
    /// `domainVals@allowNewValue`.
    pub(crate) allow_new_value: Option<Flag>,
    /// `domainVals@sortDirection`.
    pub(crate) sort_direction: Option<String>,
    /// `domainVals@mode`.
    pub(crate) mode: Option<String>,
    /// `defaultVal@tid`.
    pub(crate) default_value: Option<String>,
}

/// One text of a domain value as attributes retrieve reads it (`loc` none: a value without
/// texts; empty: the text without a locale; read from a JSON array in this field order).
#[derive(Debug, serde::Deserialize)]
pub(crate) struct DomainValue {
    /// The value's tid.
    pub(crate) tid: String,
    /// The locale of the text.
    pub(crate) loc: Option<String>,
    /// The text.
    pub(crate) value: Option<String>,
}

/// The columns of [`Attribute`] (`a` the attribute, `n` its node, `d` its definition).
macro_rules! attribute_columns {
    () => {
        "a.id, a.node_id, n.path AS node_path, a.attribute_definition_id AS definition_id, \
         d.tid AS key, a.level, a.inheritance, a.restriction, \
         CAST(a.localized AS INTEGER) AS localized, \
         CAST(a.allow_new_value AS INTEGER) AS allow_new_value, a.sort_direction, a.mode, \
         a.default_value_tid AS default_value"
    };
}

/// The columns of [`Attribute`], from `node_attributes a` with its node and definition.
macro_rules! attribute_query {
    ($($rest:literal),*) => {
        concat!(
            "SELECT ",
            attribute_columns!(),
            " FROM node_attributes a \
             JOIN classification_nodes n ON n.id = a.node_id \
             JOIN attribute_definitions d ON d.id = a.attribute_definition_id ",
            $($rest),*
        )
    };
}

/// What attributes retrieve and query name (the document's one list; products by id and by
/// tid together).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Chosen<'a> {
    /// Attributes by id.
    Ids(&'a [i64]),
    /// The attributes of the nodes of products, by id then by tid.
    Products(&'a [i64], &'a [String]),
    /// The attributes of nodes by id.
    NodeIds(&'a [i64]),
    /// The attributes of nodes by path.
    NodePaths(&'a [String]),
}

/// A row of a selection: the product it comes from (none: a node or an attribute named), a
/// role that product is restricted to, and an attribute with its domain values when asked
/// (none: a product or node named that has none).
#[derive(Debug)]
pub(crate) struct Selected {
    /// The product named (none: a node or an attribute named).
    pub(crate) product_id: Option<i64>,
    /// A role that product is restricted to.
    pub(crate) role: Option<String>,
    /// An attribute of that node or, inherited, of an ancestor (none: neither has one).
    pub(crate) attribute: Option<Attribute>,
    /// Its domain values, each text a row, in order (read when asked).
    pub(crate) domain: Vec<DomainValue>,
}

impl<'r> sqlx::FromRow<'r, AnyRow> for Selected {
    fn from_row(row: &'r AnyRow) -> Result<Selected, sqlx::Error> {
        let attribute = match row.try_get::<Option<i64>, _>("id")? {
            Some(_) => Some(Attribute::from_row(row)?),
            None => None,
        };
        Ok(Selected {
            product_id: row.try_get("product_id")?,
            role: row.try_get("role")?,
            attribute,
            domain: json_rows(row.try_get("domain")?)?,
        })
    }
}

/// The domain values of attribute `a` as one JSON text, `[[tid, loc, text], …]` by position
/// and locale, when `$flag` is 1 (else NULL).
macro_rules! domain_json {
    (sqlite, $flag:literal) => {
        concat!(
            "CASE WHEN ",
            $flag,
            " = 1 THEN (SELECT json_group_array(json_array(v.tid, t.loc, \
             t.value) ORDER BY v.position, t.loc) FROM domain_values v \
             LEFT JOIN domain_value_names t ON t.domain_value_id = v.id \
             WHERE v.node_attribute_id = a.id) END AS domain"
        )
    };
    (postgres, $flag:literal) => {
        concat!(
            "CASE WHEN ",
            $flag,
            " = 1 THEN (SELECT json_agg(json_build_array(v.tid, t.loc, \
             t.value) ORDER BY v.position, t.loc)::text FROM domain_values v \
             LEFT JOIN domain_value_names t ON t.domain_value_id = v.id \
             WHERE v.node_attribute_id = a.id) END AS domain"
        )
    };
}

/// A JSON list bound as `$n`, read as a table `j` of `value` and its place in the list
/// (`json_each` on SQLite, its PostgreSQL counterpart); `place` and `id` name the place and the
/// value as an id.
macro_rules! json_list {
    (sqlite, $n:literal) => {
        concat!("json_each(", $n, ") j")
    };
    (postgres, $n:literal) => {
        concat!(
            "json_array_elements_text(CAST(",
            $n,
            " AS JSON)) WITH ORDINALITY j(value, place)"
        )
    };
    (sqlite, place) => {
        "j.key"
    };
    (postgres, place) => {
        "j.place"
    };
    (sqlite, id) => {
        "j.value"
    };
    (postgres, id) => {
        "CAST(j.value AS BIGINT)"
    };
}

/// The statement of a selection by nodes: `$1` product ids, `$2` product tids, `$3` node ids,
/// `$4` node paths (JSON lists), `$5` how many generations of ancestors pass their attributes
/// down, `$6` whether domain values are read. Each chosen node is climbed through its parents;
/// a row is one of its attributes or a visible one of an ancestor's, in the order of the list,
/// of the request, of the product's nodes, from the root down, then by attribute.
macro_rules! by_nodes {
    ($dialect:ident) => {
        concat!(
            "WITH RECURSIVE chosen (list, place, product_id, node_id, position) AS ( \
               SELECT 0, ",
            json_list!($dialect, place),
            ", p.id, pn.node_id, pn.position \
                 FROM ",
            json_list!($dialect, "$1"),
            " JOIN products p ON p.id = ",
            json_list!($dialect, id),
            " LEFT JOIN product_nodes pn ON pn.product_id = p.id \
               UNION ALL SELECT 1, ",
            json_list!($dialect, place),
            ", p.id, pn.node_id, \
                 pn.position FROM ",
            json_list!($dialect, "$2"),
            " JOIN products p ON p.tid = j.value \
                 LEFT JOIN product_nodes pn ON pn.product_id = p.id \
               UNION ALL SELECT 2, ",
            json_list!($dialect, place),
            ", NULL, n.id, 0 \
                 FROM ",
            json_list!($dialect, "$3"),
            " JOIN classification_nodes n ON n.id = ",
            json_list!($dialect, id),
            " UNION ALL SELECT 3, ",
            json_list!($dialect, place),
            ", NULL, n.id, 0 \
                 FROM ",
            json_list!($dialect, "$4"),
            " JOIN classification_nodes n ON n.path = j.value), \
             up (list, place, product_id, position, node_id, source_id, depth) AS ( \
               SELECT list, place, product_id, position, node_id, node_id, 0 FROM chosen \
               UNION ALL SELECT u.list, u.place, u.product_id, u.position, u.node_id, \
                 p.parent_id, u.depth + 1 FROM up u \
                 JOIN classification_nodes p ON p.id = u.source_id \
                 WHERE p.parent_id IS NOT NULL AND u.depth < $5) \
             SELECT CAST(u.product_id AS BIGINT) AS product_id, r.name AS role, ",
            attribute_columns!(),
            ", ",
            domain_json!($dialect, "$6"),
            " FROM up u \
             LEFT JOIN access_restrictions ar ON ar.kind = 'product' \
               AND ar.record_id = u.product_id \
             LEFT JOIN roles r ON r.id = ar.role_id \
             LEFT JOIN node_attributes a ON a.node_id = u.source_id \
               AND (u.depth = 0 OR a.inheritance = 'visible') \
             LEFT JOIN classification_nodes n ON n.id = a.node_id \
             LEFT JOIN attribute_definitions d ON d.id = a.attribute_definition_id \
             ORDER BY u.list, u.place, u.position, u.depth DESC, a.id, r.name"
        )
    };
}

/// The statement of a selection by attribute id: `$1` the ids (a JSON list), `$2` whether
/// domain values are read; in the list's order.
macro_rules! by_ids {
    ($dialect:ident) => {
        concat!(
            "SELECT CAST(NULL AS BIGINT) AS product_id, CAST(NULL AS TEXT) AS role, ",
            attribute_columns!(),
            ", ",
            domain_json!($dialect, "$2"),
            " FROM ",
            json_list!($dialect, "$1"),
            " JOIN node_attributes a ON a.id = ",
            json_list!($dialect, id),
            " JOIN classification_nodes n ON n.id = a.node_id \
             JOIN attribute_definitions d ON d.id = a.attribute_definition_id ORDER BY ",
            json_list!($dialect, place)
        )
    };
}

/// The selection statements of one backend.
struct Selections {
    by_nodes: &'static str,
    by_ids: &'static str,
}

const SQLITE: Selections = Selections {
    by_nodes: sql!(sqlite: by_nodes!(sqlite)),
    by_ids: sql!(sqlite: by_ids!(sqlite)),
};

const POSTGRES: Selections = Selections {
    by_nodes: sql!(postgres: by_nodes!(postgres)),
    by_ids: sql!(postgres: by_ids!(postgres)),
};

/// The rows of what `chosen` names, in answer order before the caller's rights and repeats are
/// applied (`inherit`: whether nodes named pass down their ancestors' visible attributes;
/// products' nodes always do): one statement whatever the request holds.
pub(crate) async fn select(
    database: &Database,
    chosen: Chosen<'_>,
    inherit: bool,
    with_domain_values: bool,
) -> Result<Vec<Selected>, sqlx::Error> {
    let statements = match database.backend() {
        Backend::Sqlite => &SQLITE,
        Backend::Postgres => &POSTGRES,
    };
    let domain = i64::from(with_domain_values);
    let (product_ids, product_tids, node_ids, node_paths, inherit) = match chosen {
        Chosen::Ids(ids) => {
            let ids = json_text(ids)?;
            return read::all(database, || {
                sqlx::query_as(statements.by_ids)
                    .bind(ids.as_str())
                    .bind(domain)
            })
            .await;
        }
        Chosen::Products(ids, tids) => (ids, tids, &[][..], &[][..], true),
        Chosen::NodeIds(ids) => (&[][..], &[][..], ids, &[][..], inherit),
        Chosen::NodePaths(paths) => (&[][..], &[][..], &[][..], paths, inherit),
    };
    let generations = if inherit { nodes::MAX_DEPTH as i64 } else { 0 };
    let (product_ids, product_tids) = (json_text(product_ids)?, json_text(product_tids)?);
    let (node_ids, node_paths) = (json_text(node_ids)?, json_text(node_paths)?);
    read::all(database, || {
        sqlx::query_as(statements.by_nodes)
            .bind(product_ids.as_str())
            .bind(product_tids.as_str())
            .bind(node_ids.as_str())
            .bind(node_paths.as_str())
            .bind(generations)
            .bind(domain)
    })
    .await
}

/// An attribute by id, in a transaction.
pub(crate) async fn find_id(
    connection: &mut AnyConnection,
    id: i64,
) -> Result<Option<Attribute>, sqlx::Error> {
    sqlx::query_as(sql!(attribute_query!("WHERE a.id = $1")))
        .bind(id)
        .fetch_optional(connection)
        .await
}

/// The attribute of a definition on a node, in a transaction.
pub(crate) async fn find_on(
    connection: &mut AnyConnection,
    node: i64,
    definition: i64,
) -> Result<Option<Attribute>, sqlx::Error> {
    sqlx::query_as(sql!(attribute_query!(
        "WHERE a.node_id = $1 AND a.attribute_definition_id = $2"
    )))
    .bind(node)
    .bind(definition)
    .fetch_optional(connection)
    .await
}

/// The tids of an attribute's domain values, in order.
pub(crate) async fn domain_value_tids(
    connection: &mut AnyConnection,
    attribute: i64,
) -> Result<Vec<String>, sqlx::Error> {
    sqlx::query_scalar(sql!(
        "SELECT tid FROM domain_values WHERE node_attribute_id = $1 ORDER BY position"
    ))
    .bind(attribute)
    .fetch_all(connection)
    .await
}

/// How many attributes a node has.
pub(crate) async fn count_on_node(
    connection: &mut AnyConnection,
    node: i64,
) -> Result<i64, sqlx::Error> {
    sqlx::query_scalar(sql!(
        "SELECT CAST(COUNT(*) AS BIGINT) FROM node_attributes WHERE node_id = $1"
    ))
    .bind(node)
    .fetch_one(connection)
    .await
}

/// Stores an attribute as given (a new one when `attribute.id` is 0); answers its id.
pub(crate) async fn save(
    connection: &mut AnyConnection,
    attribute: &Attribute,
) -> Result<i64, sqlx::Error> {
    let query = if attribute.id == 0 {
        sqlx::query_scalar(sql!(
            "INSERT INTO node_attributes (node_id, attribute_definition_id, level, inheritance, \
             restriction, localized, allow_new_value, sort_direction, mode, default_value_tid) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id"
        ))
        .bind(attribute.node_id)
        .bind(attribute.definition_id)
    } else {
        sqlx::query_scalar(sql!(
            "UPDATE node_attributes SET level = $3, inheritance = $4, restriction = $5, \
             localized = $6, allow_new_value = $7, sort_direction = $8, mode = $9, \
             default_value_tid = $10 WHERE id = $1 AND attribute_definition_id = $2 RETURNING id"
        ))
        .bind(attribute.id)
        .bind(attribute.definition_id)
    };
    query
        .bind(attribute.level.clone())
        .bind(attribute.inheritance.clone())
        .bind(attribute.restriction.clone())
        .bind(attribute.localized.0)
        .bind(attribute.allow_new_value.map(|flag| flag.0))
        .bind(attribute.sort_direction.clone())
        .bind(attribute.mode.clone())
        .bind(attribute.default_value.clone())
        .fetch_one(connection)
        .await
}

/// A domain value to store: its `tid` and its texts.
#[derive(Debug)]
pub(crate) struct NewDomainValue {
    /// The identifier.
    pub(crate) tid: String,
    /// Its texts, one per locale.
    pub(crate) texts: Vec<DomainText>,
}

/// One text of a domain value.
#[derive(Debug)]
pub(crate) struct DomainText {
    /// The locale (`""`: a text without one).
    pub(crate) loc: String,
    /// The text.
    pub(crate) value: String,
}

/// Replaces an attribute's domain values: each tid with its texts by locale (`""`: no locale).
/// The list crosses to the database as one JSON text and is written by two statements whatever
/// its length (a statement per value costs an exchange with the database each, D-37).
pub(crate) async fn replace_domain_values(
    connection: &mut AnyConnection,
    attribute: i64,
    values: &[NewDomainValue],
) -> Result<(), sqlx::Error> {
    sqlx::query(sql!(
        "DELETE FROM domain_values WHERE node_attribute_id = $1"
    ))
    .bind(attribute)
    .execute(&mut *connection)
    .await?;
    if values.is_empty() {
        return Ok(());
    }
    // `[[tid, {loc: text, …}], …]`, in order.
    let list = serde_json::Value::Array(
        values
            .iter()
            .map(|value| {
                let texts: serde_json::Map<String, serde_json::Value> = value
                    .texts
                    .iter()
                    .map(|text| {
                        (
                            text.loc.clone(),
                            serde_json::Value::from(text.value.as_str()),
                        )
                    })
                    .collect();
                serde_json::json!([value.tid, texts])
            })
            .collect(),
    )
    .to_string();
    let statements = match backend_of(connection) {
        Backend::Sqlite => &SQLITE_DOMAIN,
        Backend::Postgres => &POSTGRES_DOMAIN,
    };
    for statement in [statements.values, statements.texts] {
        sqlx::query(statement)
            .bind(attribute)
            .bind(list.as_str())
            .execute(&mut *connection)
            .await?;
    }
    Ok(())
}

/// The writes of a domain value list (`$1` the attribute, `$2` the list as JSON): the values
/// with their places, then their texts.
struct DomainWrites {
    values: &'static str,
    texts: &'static str,
}

const SQLITE_DOMAIN: DomainWrites = DomainWrites {
    values: sql!(sqlite:
        "INSERT INTO domain_values (node_attribute_id, tid, position) \
         SELECT $1, json_extract(j.value, '$[0]'), j.key FROM json_each($2) j"
    ),
    texts: sql!(sqlite:
        "INSERT INTO domain_value_names (domain_value_id, loc, value) \
         SELECT v.id, n.key, n.value FROM json_each($2) j \
         CROSS JOIN domain_values v CROSS JOIN json_each(j.value, '$[1]') n \
         WHERE v.node_attribute_id = $1 AND v.tid = json_extract(j.value, '$[0]')"
    ),
};

const POSTGRES_DOMAIN: DomainWrites = DomainWrites {
    values: sql!(postgres:
        "INSERT INTO domain_values (node_attribute_id, tid, position) \
         SELECT $1, j.value->>0, j.position - 1 \
         FROM json_array_elements(CAST($2 AS JSON)) WITH ORDINALITY AS j(value, position)"
    ),
    texts: sql!(postgres:
        "INSERT INTO domain_value_names (domain_value_id, loc, value) \
         SELECT v.id, n.key, n.value FROM json_array_elements(CAST($2 AS JSON)) AS j(value) \
         JOIN domain_values v ON v.node_attribute_id = $1 AND v.tid = j.value->>0 \
         CROSS JOIN LATERAL json_each_text(j.value->1) AS n"
    ),
};

/// Deletes an attribute with its domain values.
pub(crate) async fn delete(connection: &mut AnyConnection, id: i64) -> Result<(), sqlx::Error> {
    sqlx::query(sql!("DELETE FROM node_attributes WHERE id = $1"))
        .bind(id)
        .execute(connection)
        .await?;
    Ok(())
}
