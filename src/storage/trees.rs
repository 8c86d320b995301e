//! A whole classification tree in three statements of one row each: its nodes, their names and
//! their attributes, each aggregated by the database into one JSON array.
//!
//! Why: `sqlx` hands over a result row by row through its driver (on SQLite from a worker
//! thread), at about 3 µs a row plus about 0.5 µs a column on the build machine. A tree of
//! 100,000 nodes has 100,000 node rows, as many names and 300,000 attributes: 2.7 s of row
//! handling for 0.6 s of SQL. Aggregated, the same data crosses the driver as three texts and
//! `serde_json` reads them at hundreds of MB/s. The statements differ per backend only in the
//! names of the JSON functions.

use serde::Deserialize;
use sqlx::AnyPool;

use super::{Backend, Database, json_rows};

/// A node of the tree (read from a JSON array in this field order, like the other rows here).
#[derive(Debug, Deserialize)]
pub(crate) struct TreeNode {
    /// Its id.
    pub(crate) id: i64,
    /// Its parent (none for the root).
    pub(crate) parent_id: Option<i64>,
    /// Its path.
    pub(crate) path: String,
    /// Its place among the classification's nodes.
    pub(crate) position: i64,
}

/// A name of a node.
#[derive(Debug, Deserialize)]
pub(crate) struct TreeName {
    /// The node.
    pub(crate) node_id: i64,
    /// The locale (empty for the default name).
    pub(crate) loc: String,
    /// The name.
    pub(crate) name: String,
}

/// An attribute of a node, with its definition's tid (its `key`).
#[derive(Debug, Deserialize)]
pub(crate) struct TreeAttribute {
    /// Its id.
    pub(crate) id: i64,
    /// Its node.
    pub(crate) node_id: i64,
    /// Its definition's tid.
    pub(crate) key: String,
    /// `level`.
    pub(crate) level: Option<String>,
    /// `inheritance`.
    pub(crate) inheritance: Option<String>,
    /// `restriction`.
    pub(crate) restriction: Option<String>,
    /// `localized`.
    pub(crate) localized: JsonFlag,
}

/// A boolean as the database writes it into JSON: `true`/`false` (PostgreSQL) or `1`/`0`
/// (SQLite, which stores booleans as integers).
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(untagged)]
pub(crate) enum JsonFlag {
    /// A JSON boolean.
    Bool(bool),
    /// An integer, true unless 0.
    Int(i64),
}

impl From<JsonFlag> for bool {
    fn from(flag: JsonFlag) -> bool {
        match flag {
            JsonFlag::Bool(value) => value,
            JsonFlag::Int(value) => value != 0,
        }
    }
}

/// A classification's tree, unordered: callers order it.
#[derive(Debug, Default)]
pub(crate) struct Tree {
    /// Its nodes.
    pub(crate) nodes: Vec<TreeNode>,
    /// Their names.
    pub(crate) names: Vec<TreeName>,
    /// Their attributes.
    pub(crate) attributes: Vec<TreeAttribute>,
}

/// The statements of one backend: nodes, names, attributes, each of one classification (`$1`).
struct Statements {
    nodes: &'static str,
    names: &'static str,
    attributes: &'static str,
}

const SQLITE: Statements = Statements {
    nodes: sql!(sqlite: "SELECT json_group_array(json_array(id, parent_id, path, position)) \
            FROM classification_nodes WHERE classification_id = $1"),
    names: sql!(sqlite: "SELECT json_group_array(json_array(nn.node_id, nn.loc, nn.name)) \
            FROM node_names nn JOIN classification_nodes n ON n.id = nn.node_id \
            WHERE n.classification_id = $1"),
    attributes: sql!(sqlite: "SELECT json_group_array(json_array(a.id, a.node_id, d.tid, \
                 a.level, a.inheritance, a.restriction, a.localized)) FROM node_attributes a \
                 JOIN classification_nodes n ON n.id = a.node_id \
                 JOIN attribute_definitions d ON d.id = a.attribute_definition_id \
                 WHERE n.classification_id = $1"),
};

const POSTGRES: Statements = Statements {
    nodes: sql!(postgres: "SELECT COALESCE(json_agg(json_build_array(id, parent_id, path, \
            position)), '[]')::text FROM classification_nodes WHERE classification_id = $1"),
    names: sql!(postgres: "SELECT COALESCE(json_agg(json_build_array(nn.node_id, nn.loc, \
            nn.name)), '[]')::text FROM node_names nn \
            JOIN classification_nodes n ON n.id = nn.node_id WHERE n.classification_id = $1"),
    attributes: sql!(postgres: "SELECT COALESCE(json_agg(json_build_array(a.id, a.node_id, d.tid, \
                 a.level, a.inheritance, a.restriction, a.localized)), '[]')::text \
                 FROM node_attributes a JOIN classification_nodes n ON n.id = a.node_id \
                 JOIN attribute_definitions d ON d.id = a.attribute_definition_id \
                 WHERE n.classification_id = $1"),
};

/// Reads a classification's nodes, names and attributes.
pub(crate) async fn of_classification(
    database: &Database,
    classification: i64,
) -> Result<Tree, sqlx::Error> {
    let statements = match database.backend() {
        Backend::Sqlite => &SQLITE,
        Backend::Postgres => &POSTGRES,
    };
    let pool = database.reads();
    Ok(Tree {
        nodes: aggregate(pool, statements.nodes, classification).await?,
        names: aggregate(pool, statements.names, classification).await?,
        attributes: aggregate(pool, statements.attributes, classification).await?,
    })
}

/// The rows one aggregating statement answers, read from its JSON text.
async fn aggregate<T: for<'de> Deserialize<'de>>(
    pool: &AnyPool,
    statement: &'static str,
    classification: i64,
) -> Result<Vec<T>, sqlx::Error> {
    let text = sqlx::query_scalar(statement)
        .bind(classification)
        .fetch_one(pool)
        .await?;
    json_rows(text)
}
