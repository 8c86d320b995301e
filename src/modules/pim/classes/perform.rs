//! `classes/perform` (D-24): each `delete` action applied in its transaction.

use core_api::types::{Action, ResponseType};

use super::{DATA_TYPE, find};
use crate::{
    modules::{batch::Tx, deletion::Delete},
    storage::{
        classifications as stored,
        records::{Found, Identity},
    },
};

/// `classes/perform`: a classification found by `tid` (first) or `id` is deleted with its nodes.
pub(crate) struct Perform;

impl Delete for Perform {
    const DATA_TYPE: &'static str = DATA_TYPE;
    const DELETED: &'static str = "The classification has been deleted successfully";
    type Found = Found;

    fn identify(mut record: ResponseType, action: &Action) -> ResponseType {
        record.id = action.id;
        record.tid = action.tid.clone();
        record
    }

    async fn find(
        transaction: &mut Tx,
        action: &Action,
    ) -> Result<Result<Found, String>, sqlx::Error> {
        let Some(identity) = Identity::preferring_tid(action.tid.as_deref(), action.id) else {
            return Ok(Err("Missing required value 'tid'".into()));
        };
        let shown = match identity {
            Identity::Key(tid) => tid.to_string(),
            Identity::Id(id) => id.to_string(),
        };
        Ok(find(transaction, identity)
            .await?
            .ok_or_else(|| format!("There is no classification with the given identity '{shown}'")))
    }

    fn found(mut record: ResponseType, found: &Found) -> ResponseType {
        record.id = Some(found.id);
        record.tid = found.key.clone();
        record
    }

    async fn delete(
        transaction: &mut Tx,
        found: &Found,
    ) -> Result<Result<(), String>, sqlx::Error> {
        stored::delete(transaction, found.id).await?;
        Ok(Ok(()))
    }
}
