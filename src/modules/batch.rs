//! Batch operations (persist, perform): items in request order, each in its own transaction, one
//! result record per item (D-14), at most [`MAX_ITEMS`] items (D-37).
//!
//! An operation checks the size with [`check_size`], then hands its items to [`run`], which opens
//! a transaction per item (`Database::write`), applies the item and commits a success or rolls
//! back everything else ([`settle`]): an item is written entirely or not at all, and one failing
//! item never undoes or blocks the others.

use core_api::types::{Details, Itm, ResponseType, ResponseTypeStatus};
use sqlx::{Any, Transaction};

use std::{future::Future, pin::Pin};

use crate::{
    error::ApiError,
    storage::{Database, now_utc},
};

/// The most items one batch may carry (D-37).
pub(crate) const MAX_ITEMS: usize = 1000;

/// Refuses a batch of more than [`MAX_ITEMS`] items, naming the collection's path.
pub(crate) fn check_size(path: &str, items: usize) -> Result<(), ApiError> {
    if items > MAX_ITEMS {
        Err(ApiError::Rule(format!(
            "{path}: {items} items exceed the limit of {MAX_ITEMS} items per batch"
        )))
    } else {
        Ok(())
    }
}

/// Why an item was not applied.
#[derive(Debug)]
pub(crate) enum ItemError {
    /// The item breaks a rule: its ERROR record says which.
    Refused(Box<ResponseType>),
    /// The database failed while applying the item.
    Storage(sqlx::Error),
}

impl From<sqlx::Error> for ItemError {
    fn from(error: sqlx::Error) -> ItemError {
        ItemError::Storage(error)
    }
}

/// An item's transaction.
pub(crate) type Tx = Transaction<'static, Any>;

/// What applying one item gives, borrowing its transaction and the item.
pub(crate) type ItemFuture<'a> =
    Pin<Box<dyn Future<Output = Result<ResponseType, ItemError>> + Send + 'a>>;

/// Applies each item in request order, each in its own transaction begun at `now`, and gives one
/// record per item. `echo` is an item's record before it is applied (what identifies it), used
/// when the database fails.
pub(crate) async fn run<I: Sync>(
    database: &Database,
    items: &[I],
    echo: impl Fn(&I) -> ResponseType + Sync,
    apply: impl for<'a> Fn(&'a mut Tx, &'a I, &'a str) -> ItemFuture<'a> + Sync,
) -> Vec<ResponseType> {
    let mut records = Vec::with_capacity(items.len());
    for item in items {
        let now = now_utc();
        let record = match database.write().await {
            Ok(mut transaction) => {
                let outcome = apply(&mut transaction, item, &now).await;
                settle(transaction, outcome, || echo(item)).await
            }
            Err(error) => failed(&error, echo(item)),
        };
        records.push(record);
    }
    records
}

/// Ends an item's transaction: commits it when the item succeeded, rolls it back otherwise, and
/// gives the item's record. `echo` makes the record of the item (its identifying values), for
/// when the database fails.
async fn settle(
    transaction: Tx,
    outcome: Result<ResponseType, ItemError>,
    echo: impl FnOnce() -> ResponseType,
) -> ResponseType {
    match outcome {
        Ok(record) => match transaction.commit().await {
            Ok(()) => record,
            Err(error) => failed(&error, echo()),
        },
        // Dropping the transaction rolls it back.
        Err(ItemError::Refused(record)) => *record,
        Err(ItemError::Storage(error)) => failed(&error, echo()),
    }
}

/// The record of an item the database failed on: status ERROR and a description with a support
/// id, which the log repeats with the cause.
fn failed(error: &sqlx::Error, echo: ResponseType) -> ResponseType {
    let support_id = uuid::Uuid::new_v4().to_string();
    tracing::error!(support_id, %error, "a batch item failed in the database");
    ResponseType {
        status: ResponseTypeStatus::Error,
        description: Some(format!(
            "An unknown internal error occurred; nothing of this item was saved (supportId {support_id})"
        )),
        ..echo
    }
}

/// A record with its status and description; the other fields are set by the caller.
pub(crate) fn record(
    data_type: &str,
    action: &str,
    status: ResponseTypeStatus,
    description: impl Into<String>,
) -> ResponseType {
    ResponseType {
        action: Some(action.to_string()),
        data_type: Some(data_type.to_string()),
        description: Some(description.into()),
        details: None,
        id: None,
        issues: Vec::new(),
        key: None,
        node_id: None,
        node_path: None,
        path: None,
        status,
        tid: None,
    }
}

/// An ERROR record, refusing the item.
pub(crate) fn refuse(echo: &ResponseType, description: impl Into<String>) -> ItemError {
    ItemError::Refused(Box::new(ResponseType {
        status: ResponseTypeStatus::Error,
        description: Some(description.into()),
        ..echo.clone()
    }))
}

/// `details` of one `itm` per key and value.
pub(crate) fn details(items: &[(&str, &str)]) -> Details {
    Details {
        itm: items
            .iter()
            .map(|(key, value)| Itm {
                key: Some(key.to_string()),
                value: value.to_string(),
                loc: None,
                pos: None,
            })
            .collect(),
        ..Details::default()
    }
}

/// A write whose uniqueness constraint decides between racing writers: a violation (another
/// writer stored the same identity first) refuses the item with `taken`, any other failure is
/// the database's.
pub(crate) fn unless_taken<T>(
    written: Result<T, sqlx::Error>,
    taken: impl FnOnce() -> ItemError,
) -> Result<T, ItemError> {
    written.map_err(|error| {
        let unique = error
            .as_database_error()
            .is_some_and(|error| error.is_unique_violation());
        if unique { taken() } else { error.into() }
    })
}
