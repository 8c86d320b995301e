//! The SQL of node attributes: attributes by id and by node, their domain
//! values, and the writes of attributes persist and perform (and of the `attr` entries of classes
//! persist).

use sqlx::{AnyConnection, AnyPool};

use super::{Backend, backend_of, flag::Flag, in_list};

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

/// A domain value of an attribute with one of its texts (`loc` none: a value without texts;
/// empty: the text without a locale).
#[derive(Debug, sqlx::FromRow)]
pub(crate) struct DomainValue {
    /// The attribute.
    pub(crate) attribute_id: i64,
    /// The value's tid.
    pub(crate) tid: String,
    /// The locale of the text.
    pub(crate) loc: Option<String>,
    /// The text.
    pub(crate) value: Option<String>,
}

/// The columns of [`Attribute`], from `node_attributes a` with its node and definition.
macro_rules! attribute_query {
    ($($rest:literal),*) => {
        concat!(
            "SELECT a.id, a.node_id, n.path AS node_path, a.attribute_definition_id AS definition_id, \
             d.tid AS key, a.level, a.inheritance, a.restriction, \
             CAST(a.localized AS INTEGER) AS localized, \
             CAST(a.allow_new_value AS INTEGER) AS allow_new_value, a.sort_direction, a.mode, \
             a.default_value_tid AS default_value FROM node_attributes a \
             JOIN classification_nodes n ON n.id = a.node_id \
             JOIN attribute_definitions d ON d.id = a.attribute_definition_id ",
            $($rest),*
        )
    };
}

/// The attributes with the given ids (unknown ones left out).
pub(crate) async fn by_ids(pool: &AnyPool, ids: &[i64]) -> Result<Vec<Attribute>, sqlx::Error> {
    in_list(pool, sql_in!(attribute_query!("WHERE a.id IN ("), ")"), ids).await
}

/// The attributes of the given nodes.
pub(crate) async fn of_nodes(pool: &AnyPool, nodes: &[i64]) -> Result<Vec<Attribute>, sqlx::Error> {
    in_list(
        pool,
        sql_in!(attribute_query!("WHERE a.node_id IN ("), ")"),
        nodes,
    )
    .await
}

/// The domain values of the given attributes with their texts, each attribute's in order.
pub(crate) async fn domain_values(
    pool: &AnyPool,
    attributes: &[i64],
) -> Result<Vec<DomainValue>, sqlx::Error> {
    in_list(
        pool,
        sql_in!("SELECT v.node_attribute_id AS attribute_id, v.tid, t.loc, t.value FROM domain_values v \
         LEFT JOIN domain_value_names t ON t.domain_value_id = v.id \
         WHERE v.node_attribute_id IN (", ") ORDER BY v.node_attribute_id, v.position, t.loc"),
        attributes,
    )
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
