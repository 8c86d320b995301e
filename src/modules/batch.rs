//! Batch operations (persist, perform): items in request order, each stored whole or not at all
//! in one transaction per request, one result record per item (D-14).
//!
//! A batch operation is its rules plus one declaration: an [`Apply`] implementation saying how an
//! item is echoed in its record and how it is applied, handed to [`answer`] with the request and
//! its items. The document does the rest of what a batch needs: the collection is required and
//! holds at most `maxItems` items (the generated tables refuse anything else before the operation
//! runs), and the operation metadata names the collection (`x-batch`). [`answer`] checks the
//! envelope, refuses the request whole when items break the rules of their schema (one record
//! each, D-34), then opens the request's transaction (`Database::write`) and a savepoint: it
//! applies the items, keeps successes and undoes everything else ([`Run::items`]: successful
//! items share a savepoint, a failing one is undone alone), so an item is written entirely or not
//! at all, and one failing item never undoes or blocks the others. The commit at the end makes the batch's saved items durable and visible together: a
//! crash before it stores nothing of the batch, and the client, which got no answer, sends it
//! again.

use std::future::Future;

use core_api::{
    Envelope, messages, tables,
    types::{Action, Details, PimType, ResponseType, ResponseTypeStatus},
};
use core_api_support::fill;
use serde::Serialize;
use sqlx::{Any, Transaction};

use super::{
    envelope,
    idempotency::{self, Claimed},
    itm,
};
use crate::{
    auth::Caller,
    error::ApiError,
    repr::{path::Path, text::printable, tree},
    service::{Context, Service},
    storage::{
        Backend, now_utc, outage,
        records::{self, Identity, Resource},
    },
};

/// The transaction an item is applied in (the request's, inside the item's savepoint).
pub(crate) type Tx = Transaction<'static, Any>;

/// What an item is applied with besides its transaction: who calls, and when.
pub(crate) struct Scope<'a> {
    /// The caller, for per-item access rights and for who edited last.
    pub(crate) caller: &'a Caller,
    /// The time of the item's transaction, as the service stores timestamps.
    pub(crate) now: &'a str,
    /// The database's kind, for writes whose SQL differs between the two.
    pub(crate) backend: Backend,
}

/// One kind of batch item: the declaration a batch operation makes.
pub(crate) trait Apply {
    /// An item of the request.
    type Item: Serialize + Sync;

    /// The record of an item before it is applied: what identifies it. A refusal or a failure
    /// of the database answers with it.
    fn echo(item: &Self::Item) -> ResponseType;

    /// Applies one item in its transaction: its record, or why it was not applied.
    fn apply<'a>(
        transaction: &'a mut Tx,
        item: &'a Self::Item,
        scope: &'a Scope<'a>,
    ) -> impl Future<Output = Result<ResponseType, ItemError>> + Send + 'a;

    /// Refuses the request whole before any item is applied, for rules the schema language
    /// cannot state (D-39); by default nothing.
    fn check(_items: &[Self::Item]) -> Result<(), ApiError> {
        Ok(())
    }
}

/// Answers a batch request: checks the envelope and the items, applies each item in its own
/// savepoint of the request's transaction, in request order, commits, and gives the `pim`
/// answer with one record per item. When the commit fails, nothing of the batch is stored and
/// the request fails whole: no record may claim an item was saved. A batch that deadlocks with
/// a concurrent one (PostgreSQL) is rolled back whole and run again, alone ([`Run`]).
pub(crate) async fn answer<K: Apply>(
    service: &Service,
    context: &Context,
    request: &impl Envelope,
    items: &[K::Item],
) -> Result<PimType, ApiError> {
    envelope::accept(request.meta())?;
    check_items::<K>(context, items)?;
    K::check(items)?;
    let fingerprint = match context.idempotency_key {
        Some(_) => Some(idempotency::fingerprint(context.operation, items)?),
        None => None,
    };
    // The last run always answers (`Run::items` gives `None` only before it), so this ends.
    let mut attempt = 1;
    loop {
        let run = Run {
            alone: attempt > 1,
            last: attempt >= ATTEMPTS,
            fingerprint: fingerprint.as_deref(),
        };
        match run.items::<K>(service, context, items).await? {
            Some(Ran::Applied(answer)) => {
                let records = answer.responses.iter().flat_map(|all| &all.response);
                for record in records {
                    service
                        .metrics
                        .item(context.operation.id, &record.status.to_string());
                }
                return Ok(answer);
            }
            Some(Ran::Replayed(answer)) => {
                context
                    .replayed
                    .store(true, std::sync::atomic::Ordering::Relaxed);
                return Ok(answer);
            }
            None => {}
        }
        tracing::warn!(
            attempt,
            "a batch deadlocked with a concurrent one; it runs again"
        );
        attempt += 1;
    }
}

/// How many times a batch runs when it deadlocks with concurrent ones: first beside them, then
/// alone (after the batches running have ended); the last run answers an item that deadlocks
/// (with a write outside batches) with an ERROR record instead.
const ATTEMPTS: u32 = 3;

/// How a batch runs.
struct Run<'a> {
    /// Alone: after a deadlock, it waits for the batches running and keeps others out.
    alone: bool,
    /// The last run: an item that deadlocks gets its ERROR record.
    last: bool,
    /// The request's fingerprint, when it has an `Idempotency-Key`.
    fingerprint: Option<&'a str>,
}

/// How a run ended.
enum Ran {
    /// The items were applied and committed: the answer.
    Applied(PimType),
    /// An earlier request with the same `Idempotency-Key` and items committed: its answer.
    Replayed(PimType),
}

impl Run<'_> {
    /// One run of a batch in one transaction: its answer once committed, or `None` when an
    /// item deadlocked and this is not the last run (everything is rolled back: the locks the
    /// batch held are given up, so the concurrent batch goes on).
    ///
    /// Successful items share a savepoint, up to [`GROUP`] of them: opening one costs an
    /// exchange with the database, on PostgreSQL as much as the item's own statement. When an
    /// item fails, the savepoint undoes it and the group before it; those items are applied
    /// again, each in its own savepoint, and then the failed one, so that only what fails is
    /// left out, as if every item had had its own savepoint from the start.
    async fn items<K: Apply>(
        &self,
        service: &Service,
        context: &Context,
        items: &[K::Item],
    ) -> Result<Option<Ran>, ApiError> {
        let waiting = std::time::Instant::now();
        let mut transaction = service.database.write().await?;
        service
            .database
            .lock_batches(&mut transaction, self.alone)
            .await?;
        service.metrics.write_wait(waiting.elapsed());
        if let Some(fingerprint) = self.fingerprint
            && let Claimed::Stored(answer) =
                idempotency::claim(&mut transaction, service, context, fingerprint).await?
        {
            return Ok(Some(Ran::Replayed(*answer)));
        }
        sqlx::raw_sql(SAVEPOINT).execute(&mut *transaction).await?;
        let backend = service.database.backend();
        let mut response = Vec::with_capacity(items.len());
        // The items since the savepoint was opened (`group..index`) all succeeded.
        let mut group = 0;
        for (index, item) in items.iter().enumerate() {
            let Some(outcome) = self
                .apply::<K>(&mut transaction, item, &context.caller, backend)
                .await?
            else {
                return Ok(None);
            };
            match outcome {
                Ok(record) => {
                    response.push(record);
                    if response.len() - group == GROUP {
                        sqlx::raw_sql(KEEP).execute(&mut *transaction).await?;
                        group = response.len();
                    }
                }
                // Alone in its savepoint: undoing it undoes nothing else, its outcome stands.
                Err(error) if group == index => {
                    response.push(settle(&mut transaction, Err(error), || K::echo(item)).await?);
                    group = response.len();
                }
                Err(_) => {
                    sqlx::raw_sql(UNDO).execute(&mut *transaction).await?;
                    response.truncate(group);
                    for item in &items[group..=index] {
                        let Some(outcome) = self
                            .apply::<K>(&mut transaction, item, &context.caller, backend)
                            .await?
                        else {
                            return Ok(None);
                        };
                        response.push(settle(&mut transaction, outcome, || K::echo(item)).await?);
                    }
                    group = response.len();
                }
            }
        }
        let answer = envelope::responses(service, response);
        idempotency::keep(&mut transaction, context, &answer).await?;
        transaction.commit().await?;
        Ok(Some(Ran::Applied(answer)))
    }

    /// Applies one item at the current time: its outcome, or `None` when it deadlocked and this
    /// is not the last run. A database that is away or full fails the whole request (503, 507):
    /// the transaction is rolled back, nothing of the batch is stored.
    async fn apply<K: Apply>(
        &self,
        transaction: &mut Tx,
        item: &K::Item,
        caller: &Caller,
        backend: Backend,
    ) -> Result<Option<Result<ResponseType, ItemError>>, ApiError> {
        let now = now_utc();
        let scope = Scope {
            caller,
            now: &now,
            backend,
        };
        match K::apply(transaction, item, &scope).await {
            Err(ItemError::Storage(error)) if outage(&error).is_some() => Err(error.into()),
            Err(ItemError::Storage(error)) if !self.last && deadlock(&error) => Ok(None),
            outcome => Ok(Some(outcome)),
        }
    }
}

/// How many successful items share a savepoint at most: a failing item makes the items of its
/// group run again, so the bound keeps that short, while a savepoint per 32 items costs little.
const GROUP: usize = 32;

/// The rules of the item schema (the document's), which refuse the request with one record per
/// item breaking them (D-34). How many items a request holds, the tables have counted.
fn check_items<K: Apply>(context: &Context, items: &[K::Item]) -> Result<(), ApiError> {
    let Some(batch) = &context.operation.batch else {
        return Ok(());
    };
    if batch.items.rules.is_empty() {
        return Ok(());
    }
    let mut refused = Vec::new();
    for (index, item) in items.iter().enumerate() {
        let value = serde_json::to_value(item)
            .map_err(|error| ApiError::Internal(format!("a batch item as JSON: {error}")))?;
        if let Err(error) = tree::check_item(&value, batch.items) {
            let mut path = Path::new();
            path.push_item(batch.path, index);
            refused.push(ResponseType {
                description: Some(printable(&error.to_string())),
                path: Some(path.as_str().to_string()),
                ..K::echo(item)
            });
        }
    }
    if refused.is_empty() {
        Ok(())
    } else {
        Err(ApiError::Items(refused))
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

/// Opens the first item's savepoint.
const SAVEPOINT: &str = "SAVEPOINT item";

/// Keeps what the items since the savepoint wrote and opens the next savepoint, in one exchange
/// with the database.
const KEEP: &str = "RELEASE SAVEPOINT item; SAVEPOINT item";

/// Undoes what was written since the savepoint; the savepoint stays, empty, for the next item.
const UNDO: &str = "ROLLBACK TO SAVEPOINT item";

/// Ends the savepoint of an item applied alone in it: keeps what the item wrote when it
/// succeeded, undoes it otherwise, and gives the item's record. `echo` makes the record of the
/// item (its identifying values), for when the database fails on it. An error here is the
/// transaction's: the request fails.
async fn settle(
    transaction: &mut Tx,
    outcome: Result<ResponseType, ItemError>,
    echo: impl FnOnce() -> ResponseType,
) -> Result<ResponseType, sqlx::Error> {
    let end = if outcome.is_ok() { KEEP } else { UNDO };
    sqlx::raw_sql(end).execute(&mut **transaction).await?;
    Ok(match outcome {
        Ok(record) => record,
        Err(ItemError::Refused(record)) => *record,
        Err(ItemError::Storage(error)) => failed(&error, echo()),
    })
}

/// The record of an item the database failed on: status ERROR and a description with a support
/// id, which the log repeats with the cause.
fn failed(error: &sqlx::Error, echo: ResponseType) -> ResponseType {
    let support_id = uuid::Uuid::new_v4().to_string();
    tracing::error!(support_id, %error, "a batch item failed in the database");
    let description = if deadlock(error) {
        format!(
            "This item conflicts with a concurrent request; nothing of this item was saved, send it again (supportId {support_id})"
        )
    } else {
        format!(
            "An unknown internal error occurred; nothing of this item was saved (supportId {support_id})"
        )
    };
    ResponseType {
        status: ResponseTypeStatus::Error,
        description: Some(description),
        ..echo
    }
}

/// Whether PostgreSQL broke a deadlock between concurrent batches by failing this statement.
fn deadlock(error: &sqlx::Error) -> bool {
    error
        .as_database_error()
        .and_then(|error| error.code())
        .is_some_and(|code| code == "40P01")
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

/// The echo turned into the item's SUCCESS record, saying `description`.
pub(crate) fn success(echo: ResponseType, description: impl Into<String>) -> ResponseType {
    ResponseType {
        status: ResponseTypeStatus::Success,
        description: Some(description.into()),
        ..echo
    }
}

/// The echo turned into the record of an item saved: SUCCESS saying `text`, or, when there are
/// reasons to warn, WARNING with each reason once, in the order it first arose, after `|`
/// (specification, "Result record"). The description stays within the document's `maxLength`:
/// reasons that would not fit are counted in a last one ("… and 12 more warnings").
pub(crate) fn saved(echo: ResponseType, text: &str, warnings: Vec<String>) -> ResponseType {
    if warnings.is_empty() {
        return success(echo, text);
    }
    let limit = tables::RESPONSE_TYPE
        .field("description")
        .and_then(|field| field.max_length)
        .map_or(usize::MAX, |limit| limit as usize);
    let mut seen = std::collections::HashSet::with_capacity(warnings.len());
    let mut description = text.to_string();
    let mut length = description.chars().count();
    let mut left_out = 0;
    for warning in &warnings {
        if !seen.insert(warning.as_str()) {
            continue;
        }
        let added = warning.chars().count() + 1;
        // Room is kept for the count of what is left out.
        if left_out == 0 && length + added + LEFT_OUT_ROOM <= limit {
            description.push('|');
            description.push_str(warning);
            length += added;
        } else {
            left_out += 1;
        }
    }
    if left_out > 0 {
        description.push_str(&format!("|and {left_out} more warnings"));
    }
    ResponseType {
        status: ResponseTypeStatus::Warning,
        description: Some(description),
        ..echo
    }
}

/// The characters kept for "|and <n> more warnings".
const LEFT_OUT_ROOM: usize = 40;

/// An ERROR record, refusing the item.
pub(crate) fn refuse(echo: &ResponseType, description: impl Into<String>) -> ItemError {
    ItemError::Refused(Box::new(ResponseType {
        status: ResponseTypeStatus::Error,
        description: Some(description.into()),
        ..echo.clone()
    }))
}

/// Refuses an action of another `dataType` than the operation's, or of a `type` it does not
/// perform: "Unsupported data type '…'", "Unsupported action type '…'".
pub(crate) fn supported(
    action: &Action,
    data_type: &str,
    types: &[&str],
    echo: &ResponseType,
) -> Result<(), ItemError> {
    if action.data_type != data_type {
        let text = fill(messages::UNSUPPORTED_DATA_TYPE_TYPE, &[&action.data_type]);
        return Err(refuse(echo, text));
    }
    if !types.contains(&action.type_.as_str()) {
        let text = fill(messages::UNSUPPORTED_ACTION_TYPE_TYPE, &[&action.type_]);
        return Err(refuse(echo, text));
    }
    Ok(())
}

/// `details` of one `itm` per key and value.
pub(crate) fn details(items: &[(&str, &str)]) -> Details {
    Details {
        itm: items
            .iter()
            .map(|(key, value)| itm::keyed(key, *value))
            .collect(),
        ..Details::default()
    }
}

/// Finds a record that may be restricted to roles (per-item access rights) for an item: its id
/// when the caller may see it, or the item's refusal ("… not found" or "… is not available by
/// access rights").
pub(crate) async fn visible(
    transaction: &mut Tx,
    caller: &Caller,
    resource: &Resource,
    identity: Identity<'_>,
    what: &str,
    echo: &ResponseType,
) -> Result<i64, ItemError> {
    let (id, roles) = records::find_restricted(transaction, resource, identity)
        .await?
        .ok_or_else(|| refuse(echo, format!("{what} not found")))?;
    if caller.sees(&roles) {
        Ok(id)
    } else {
        Err(refuse(
            echo,
            format!("{what} is not available by access rights"),
        ))
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
