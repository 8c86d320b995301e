//! Node attributes: `attributes/retrieve` and `attributes/query` (one selection, D-51, in
//! [`read`]), `attributes/persist` (D-26, D-52, in [`persist`]) and `attributes/perform` (D-27,
//! in [`perform`]). Saving one attribute is shared with the `attr` entries of classes persist
//! ([`save`]). This file holds what the operations share: the item faults and records.

mod perform;
mod persist;
mod read;

use core_api::messages;
use core_api::types::{Attr, ResponseType};
use core_api_support::fill;
use sqlx::AnyConnection;

pub(crate) use self::{
    perform::Perform,
    persist::{Persist, save},
    read::{Selection, answer, select},
};
use super::super::batch::{self, ItemError};
use crate::storage::{
    attributes::Attribute,
    nodes::{self, Node},
};

/// The `dataType` of attribute records.
const DATA_TYPE: &str = "attribute";

/// The values each enumerated property of an attribute accepts: the values seen (D-52).
const ALLOWED: [(&str, &[&str]); 5] = [
    ("level", &["p"]),
    ("inheritance", &["visible", "not_visible"]),
    ("restriction", &["optional"]),
    ("sortDirection", &["MANUAL"]),
    ("mode", &["FULL"]),
];

/// An attribute's `attr` without domain and default values, as nodes list them.
pub(crate) fn plain(attribute: Attribute) -> Attr {
    Attr {
        default_val: None,
        domain_vals: None,
        id: Some(attribute.id),
        inheritance: attribute.inheritance,
        key: Some(attribute.key),
        level: attribute.level,
        localized: Some(attribute.localized.into()),
        node_id: Some(attribute.node_id),
        node_path: Some(attribute.node_path),
        restriction: attribute.restriction,
    }
}

/// Why one attribute was not saved.
#[derive(Debug)]
pub(crate) enum Fault {
    /// It breaks a rule: the text says which.
    Refused(String),
    /// The database failed.
    Storage(sqlx::Error),
}

impl From<sqlx::Error> for Fault {
    fn from(error: sqlx::Error) -> Fault {
        Fault::Storage(error)
    }
}

impl Fault {
    /// The fault as a batch item's: a refusal with the item's record.
    fn of_item(self, echo: &ResponseType) -> ItemError {
        match self {
            Fault::Refused(text) => batch::refuse(echo, text),
            Fault::Storage(error) => ItemError::Storage(error),
        }
    }
}

fn refused<T>(text: impl Into<String>) -> Result<T, Fault> {
    Err(Fault::Refused(text.into()))
}

fn invalid(value: &str, field: &str) -> Fault {
    Fault::Refused(fill(messages::INVALID_VALUE_V_FOR_FIELD, &[&value, &field]))
}

/// A record naming a stored attribute.
fn identified(mut record: ResponseType, attribute: &Attribute) -> ResponseType {
    record.id = Some(attribute.id);
    record.node_id = Some(attribute.node_id);
    record.node_path = Some(attribute.node_path.clone());
    record.key = Some(attribute.key.clone());
    record
}

/// The node an `attr` names by `nodeId` (first) or `nodePath`.
async fn find_node(
    connection: &mut AnyConnection,
    id: Option<i64>,
    path: Option<&str>,
) -> Result<Node, Fault> {
    match (id, path) {
        (Some(id), path) => match nodes::find_id(connection, id).await? {
            Some(node) if path.is_none_or(|path| path == node.path) => Ok(node),
            Some(_) => Err(invalid(path.unwrap_or_default(), "nodePath")),
            None => refused(fill(messages::NODE_WITH_ID_ID_NOT_FOUND, &[&id])),
        },
        (None, Some(path)) => match nodes::find_path(connection, path).await? {
            Some(node) => Ok(node),
            None => refused(fill(messages::NODE_WITH_PATH_PATH_NOT_FOUND, &[&path])),
        },
        (None, None) => refused(fill(
            messages::MISSING_REQUIRED_VALUE_FIELD,
            &[&"nodeId or nodePath"],
        )),
    }
}
