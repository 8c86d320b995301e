//! Attribute definitions: `attribute-definitions/query` (D-28) and
//! `attribute-definitions/perform` (D-49). Definitions are loaded by the operator (D-01); this
//! interface finds and deletes them.

use core_api::messages;
use core_api::types::{
    Action, AttributeDefinitionsQuery, AttributeDefinitionsRequest, ResponseType,
};
use core_api_support::fill;

use super::super::{
    batch::Tx,
    deletion::{Delete, identified},
};
use crate::{
    error::ApiError,
    storage::{
        Database,
        definitions::{self as stored, Uses},
        records::{self, ATTRIBUTE_DEFINITIONS, Found, Identity},
    },
};

/// The `dataType` of attribute definition records.
const DATA_TYPE: &str = "attrDefinition";

/// The ids of the definitions of the requested types, ascending; `all` is always false (D-28).
pub(crate) async fn query(
    database: &Database,
    request: &AttributeDefinitionsQuery,
) -> Result<AttributeDefinitionsRequest, ApiError> {
    let types: Vec<String> = request.types.iter().map(ToString::to_string).collect();
    let ids = if types.is_empty() {
        Vec::new()
    } else {
        stored::ids_of_types(database, &types).await?
    };
    Ok(AttributeDefinitionsRequest { ids, all: false })
}

/// `attribute-definitions/perform`: each `delete` action applied in its transaction; a
/// definition in use is kept (D-49).
pub(crate) struct Perform;

impl Delete for Perform {
    const DATA_TYPE: &'static str = DATA_TYPE;
    const DELETED: &'static str = messages::THE_ATTRIBUTE_DEFINITION_HAS_BEEN_DELETED_SUCCESSFULLY;
    type Found = Found;

    /// All actions of a request use one kind of identifier; an action with both counts as one
    /// by `tid`, since it is applied by `tid` (D-49).
    fn check(actions: &[Action]) -> Result<(), ApiError> {
        let by_tid = actions.iter().any(|action| action.tid.is_some());
        let by_id = actions
            .iter()
            .any(|action| action.tid.is_none() && action.id.is_some());
        if by_tid && by_id {
            return Err(ApiError::Rule(
                messages::ALL_ACTIONS_OF_ONE_REQUEST_MUST_USE_THE_SAME_KIND_OF_IDENTIFIER.into(),
            ));
        }
        Ok(())
    }

    async fn find(
        transaction: &mut Tx,
        action: &Action,
    ) -> Result<Result<Found, String>, sqlx::Error> {
        let found = match Identity::preferring_tid(action.tid.as_deref(), action.id) {
            Some(identity) => {
                records::find(&mut **transaction, &ATTRIBUTE_DEFINITIONS, identity).await?
            }
            None => None,
        };
        Ok(found.ok_or_else(|| {
            messages::THERE_IS_NO_ATTRIBUTE_DEFINITION_WITH_THE_GIVEN_TID_OR_ID.into()
        }))
    }

    fn found(record: ResponseType, found: &Found) -> ResponseType {
        identified(record, found)
    }

    async fn delete(
        transaction: &mut Tx,
        found: &Found,
    ) -> Result<Result<(), String>, sqlx::Error> {
        // Locked before its uses are counted: a concurrent save of a use has ended (and is
        // counted) or waits for the delete (and then finds no definition).
        stored::lock(transaction, found.id).await?;
        let uses = stored::uses(transaction, found.id).await?;
        if let Some(reason) = reason(&uses) {
            return Ok(Err(fill(
                messages::THE_ATTRIBUTE_DEFINITION_COULD_NOT_BE_DELETED_REASON_REASON,
                &[&reason],
            )));
        }
        stored::delete(transaction, found.id).await?;
        Ok(Ok(()))
    }
}

/// Why a definition in use cannot be deleted: what uses it (none: it can be).
fn reason(uses: &Uses) -> Option<String> {
    let counted = |count: i64, one: &str, many: &str| match count {
        0 => None,
        1 => Some(format!("1 {one}")),
        n => Some(format!("{n} {many}")),
    };
    let parts: Vec<String> = [
        counted(uses.node_attributes, "node attribute", "node attributes"),
        counted(
            uses.product_links,
            "product asset link",
            "product asset links",
        ),
        counted(uses.values, "channel or PEO value", "channel or PEO values"),
        (uses.channel_registrations > 0).then(|| "a channel attribute registration".to_string()),
    ]
    .into_iter()
    .flatten()
    .collect();
    (!parts.is_empty()).then(|| format!("it is used by {}", parts.join(", ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reason_names_every_use() {
        assert_eq!(reason(&Uses::default()), None);
        let one = Uses {
            node_attributes: 1,
            ..Uses::default()
        };
        assert_eq!(
            reason(&one).as_deref(),
            Some("it is used by 1 node attribute")
        );
        let all = Uses {
            node_attributes: 2,
            product_links: 1,
            values: 3,
            channel_registrations: 1,
        };
        assert_eq!(
            reason(&all).as_deref(),
            Some(
                "it is used by 2 node attributes, 1 product asset link, 3 channel or PEO values, \
                 a channel attribute registration"
            )
        );
    }
}
