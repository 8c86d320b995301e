//! `classes/perform` (D-24): each `delete` action applied in its transaction.

use core_api::messages;
use core_api::types::{Action, ResponseType};
use core_api_support::fill;

use super::{DATA_TYPE, find};
use crate::{
    modules::{
        batch::Tx,
        deletion::{Delete, identified},
    },
    storage::{
        classifications as stored,
        records::{Found, Identity},
    },
};

/// `classes/perform`: a classification found by `tid` (first) or `id` is deleted with its nodes.
pub(crate) struct Perform;

impl Delete for Perform {
    const DATA_TYPE: &'static str = DATA_TYPE;
    const DELETED: &'static str = messages::THE_CLASSIFICATION_HAS_BEEN_DELETED_SUCCESSFULLY;
    type Found = Found;

    async fn find(
        transaction: &mut Tx,
        action: &Action,
    ) -> Result<Result<Found, String>, sqlx::Error> {
        let Some(identity) = Identity::preferring_tid(action.tid.as_deref(), action.id) else {
            return Ok(Err(messages::MISSING_REQUIRED_VALUE_TID.into()));
        };
        let shown = match identity {
            Identity::Key(tid) => tid.to_string(),
            Identity::Id(id) => id.to_string(),
        };
        Ok(find(transaction, identity).await?.ok_or_else(|| {
            fill(
                messages::THERE_IS_NO_CLASSIFICATION_WITH_THE_GIVEN_IDENTITY_TID_OR_ID,
                &[&shown],
            )
        }))
    }

    fn found(record: ResponseType, found: &Found) -> ResponseType {
        identified(record, found)
    }

    async fn delete(
        transaction: &mut Tx,
        found: &Found,
    ) -> Result<Result<(), String>, sqlx::Error> {
        stored::delete(transaction, found.id).await?;
        Ok(Ok(()))
    }
}
