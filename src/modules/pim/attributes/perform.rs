//! `attributes/perform` (D-27): each `delete` action applied in its transaction.

use core_api::messages;
use core_api::types::{Action, ResponseType};
use core_api_support::fill;
use sqlx::AnyConnection;

use super::{DATA_TYPE, Fault, find_node, identified, refused};
use crate::{
    modules::{batch::Tx, deletion::Delete},
    storage::{
        attributes::{self as stored, Attribute},
        records::{self, ATTRIBUTE_DEFINITIONS, Identity},
    },
};

/// `attributes/perform`: each `delete` action applied in its transaction (D-27).
pub(crate) struct Perform;

impl Delete for Perform {
    const DATA_TYPE: &'static str = DATA_TYPE;
    const DELETED: &'static str = messages::THE_ATTRIBUTE_HAS_BEEN_DELETED_SUCCESSFULLY;
    type Found = Attribute;

    fn identify(mut record: ResponseType, action: &Action) -> ResponseType {
        record.id = action.id;
        record.node_id = action.node_id;
        record.node_path = action.node_path.clone();
        record.key = action.key.clone();
        record
    }

    async fn find(
        transaction: &mut Tx,
        action: &Action,
    ) -> Result<Result<Attribute, String>, sqlx::Error> {
        match target(transaction, action).await {
            Ok(attribute) => Ok(Ok(attribute)),
            Err(Fault::Refused(text)) => Ok(Err(text)),
            Err(Fault::Storage(error)) => Err(error),
        }
    }

    fn found(record: ResponseType, attribute: &Attribute) -> ResponseType {
        identified(record, attribute)
    }

    async fn delete(
        transaction: &mut Tx,
        attribute: &Attribute,
    ) -> Result<Result<(), String>, sqlx::Error> {
        stored::delete(transaction, attribute.id).await?;
        Ok(Ok(()))
    }
}

/// The attribute a delete action names: by `id`, else by its node and `key`.
async fn target(connection: &mut AnyConnection, action: &Action) -> Result<Attribute, Fault> {
    if let Some(id) = action.id {
        return match stored::find_id(connection, id).await? {
            Some(attribute) => Ok(attribute),
            None => refused(fill(messages::ATTRIBUTE_WITH_ID_ID_WAS_NOT_FOUND, &[&id])),
        };
    }
    let (Some(key), true) = (
        action.key.as_deref(),
        action.node_id.is_some() || action.node_path.is_some(),
    ) else {
        return refused(messages::MISSING_REQUIRED_VALUE_ID);
    };
    let node = find_node(connection, action.node_id, action.node_path.as_deref()).await?;
    let definition =
        records::find(&mut *connection, &ATTRIBUTE_DEFINITIONS, Identity::Key(key)).await?;
    let attribute = match definition {
        Some(definition) => stored::find_on(connection, node.id, definition.id).await?,
        None => None,
    };
    attribute.ok_or_else(|| {
        Fault::Refused(fill(
            messages::ATTRIBUTE_KEY_WAS_NOT_FOUND_ON_NODE_PATH,
            &[&key, &node.path],
        ))
    })
}
