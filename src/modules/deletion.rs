//! The one implementation of a `delete` action (`classes/perform`, `attributes/perform`,
//! `attribute-definitions/perform`): the action is checked to be a `delete` of the operation's
//! `dataType`, its record is found, deleted, and answered with the kind's success text.
//! A kind states only what differs ([`Delete`]); [`Deletes`] applies it as a batch item.

use std::{future::Future, marker::PhantomData};

use core_api::types::{Action, ResponseType, ResponseTypeStatus};

use super::batch::{self, Apply, ItemError, Scope, Tx};
use crate::{error::ApiError, storage::records::Found};

/// A kind of record a `delete` action removes.
pub(crate) trait Delete {
    /// The `dataType` of its records.
    const DATA_TYPE: &'static str;
    /// The SUCCESS record's description.
    const DELETED: &'static str;
    /// The record found.
    type Found: Send + Sync;

    /// The record's fields that identify what an action names, before it is applied: by default
    /// its `id` and `tid`.
    fn identify(mut record: ResponseType, action: &Action) -> ResponseType {
        record.id = action.id;
        record.tid = action.tid.clone();
        record
    }

    /// The record an action names, or the text refusing the action.
    fn find<'a>(
        transaction: &'a mut Tx,
        action: &'a Action,
    ) -> impl Future<Output = Result<Result<Self::Found, String>, sqlx::Error>> + Send + 'a;

    /// The record's fields that identify what was found.
    fn found(record: ResponseType, found: &Self::Found) -> ResponseType;

    /// Deletes what was found, or gives the text refusing it (a check of the kind's own).
    fn delete<'a>(
        transaction: &'a mut Tx,
        found: &'a Self::Found,
    ) -> impl Future<Output = Result<Result<(), String>, sqlx::Error>> + Send + 'a;

    /// Refuses the request whole before any action is applied; by default nothing.
    fn check(_actions: &[Action]) -> Result<(), ApiError> {
        Ok(())
    }
}

/// A record naming a record found by its identity: its `id` and `tid`.
pub(crate) fn identified(mut record: ResponseType, found: &Found) -> ResponseType {
    record.id = Some(found.id);
    record.tid = found.key.clone();
    record
}

/// The batch item kind of the `delete` actions of `D`.
pub(crate) struct Deletes<D>(PhantomData<D>);

impl<D: Delete + 'static> Apply for Deletes<D> {
    type Item = Action;

    fn echo(action: &Action) -> ResponseType {
        let record = batch::record(D::DATA_TYPE, "delete", ResponseTypeStatus::Error, "");
        D::identify(record, action)
    }

    async fn apply(
        transaction: &mut Tx,
        action: &Action,
        _scope: &Scope<'_>,
    ) -> Result<ResponseType, ItemError> {
        let echo = Self::echo(action);
        batch::supported(action, D::DATA_TYPE, &["delete"], &echo)?;
        let found = match D::find(transaction, action).await? {
            Ok(found) => found,
            Err(text) => return Err(batch::refuse(&echo, text)),
        };
        let record = batch::record(D::DATA_TYPE, "delete", ResponseTypeStatus::Success, "");
        let mut record = D::found(record, &found);
        if let Err(text) = D::delete(transaction, &found).await? {
            return Err(batch::refuse(&record, text));
        }
        record.description = Some(D::DELETED.into());
        Ok(record)
    }

    fn check(actions: &[Action]) -> Result<(), ApiError> {
        D::check(actions)
    }
}
