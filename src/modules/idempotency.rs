//! `Idempotency-Key` on batch operations (D-14): a client that lost a batch's answer sends the
//! batch again with the same key and gets the first answer again, nothing applied twice.
//!
//! The key is the caller's (the token's user) and claimed in the batch's own transaction, before
//! any item is applied; the answer is kept in that transaction before it commits. So a key is
//! stored exactly when its batch is: a batch rolled back or cut off leaves no key behind, and a
//! retry applies it then. Two requests with one key at once are serialized by the claim (on
//! SQLite by the one write lock, on PostgreSQL by the key's row, across instances): the second
//! waits for the first and answers its stored answer. The same key with another operation or
//! other items within the retention is 422.

use core_api::types::PimType;
use core_api_support::Operation;
use poem::http::HeaderMap;
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::{
    error::ApiError,
    service::{Context, Service},
    storage::{
        idempotency::{self as stored, Claim},
        now_utc, utc_after,
    },
};

/// The request header.
pub const HEADER: &str = "idempotency-key";

/// The header of an answer replayed from an earlier request with the same key.
pub const REPLAYED_HEADER: &str = "idempotent-replayed";

/// The longest key, in characters.
pub const MAX_KEY_LENGTH: usize = 255;

/// The request's key: on a batch operation, the header's value when it has one (1 to 255
/// visible ASCII characters, else 400); on other operations the header is not read.
pub(crate) fn key(operation: &Operation, headers: &HeaderMap) -> Result<Option<String>, ApiError> {
    if operation.batch.is_none() {
        return Ok(None);
    }
    let Some(value) = headers.get(HEADER) else {
        return Ok(None);
    };
    let valid = (1..=MAX_KEY_LENGTH).contains(&value.len())
        && value
            .as_bytes()
            .iter()
            .all(|byte| (0x21..=0x7e).contains(byte));
    match value.to_str() {
        Ok(key) if valid => Ok(Some(key.to_string())),
        _ => Err(ApiError::Rule(format!(
            "Idempotency-Key must be 1 to {MAX_KEY_LENGTH} visible ASCII characters"
        ))),
    }
}

/// What identifies a batch request for its key: the SHA-256 of the operation and its items (in
/// whatever representation they came; the envelope's `meta` aside).
pub(crate) fn fingerprint<T: Serialize>(
    operation: &Operation,
    items: &[T],
) -> Result<String, ApiError> {
    let items = serde_json::to_vec(items).map_err(|error| ApiError::Internal(error.to_string()))?;
    let mut hash = Sha256::new();
    hash.update(operation.id.as_bytes());
    hash.update(b"\n");
    hash.update(&items);
    Ok(hex::encode(hash.finalize()))
}

/// What claiming the request's key found.
pub(crate) enum Claimed {
    /// No key, or a key free for this request: the batch runs.
    Fresh,
    /// The answer of the earlier request with this key and these items.
    Stored(Box<PimType>),
}

/// Claims the request's key in the batch's transaction: [`Claimed::Stored`] when an earlier
/// request with the key and the same fingerprint committed, 422 when it was another request.
pub(crate) async fn claim(
    transaction: &mut crate::modules::batch::Tx,
    service: &Service,
    context: &Context,
    fingerprint: &str,
) -> Result<Claimed, ApiError> {
    let Some(key) = &context.idempotency_key else {
        return Ok(Claimed::Fresh);
    };
    let claim = Claim {
        user: &context.caller.user,
        key,
        operation: context.operation.id,
        fingerprint,
    };
    let expires_at = utc_after(service.settings.idempotency_retention);
    if stored::claim(transaction, &claim, &now_utc(), &expires_at).await? {
        return Ok(Claimed::Fresh);
    }
    let earlier = stored::stored(transaction, claim.user, key)
        .await?
        .ok_or_else(|| ApiError::Internal(format!("the key '{key}' vanished")))?;
    if earlier.operation != claim.operation || earlier.fingerprint != fingerprint {
        return Err(ApiError::IdempotencyKeyReused(key.clone()));
    }
    let answer = earlier
        .answer
        .ok_or_else(|| ApiError::Internal(format!("the key '{key}' has no answer")))?;
    serde_json::from_str(&answer)
        .map(|answer| Claimed::Stored(Box::new(answer)))
        .map_err(|error| ApiError::Internal(format!("the stored answer of '{key}': {error}")))
}

/// Keeps the batch's answer with its key, in its transaction (nothing without a key).
pub(crate) async fn keep(
    transaction: &mut crate::modules::batch::Tx,
    context: &Context,
    answer: &PimType,
) -> Result<(), ApiError> {
    let Some(key) = &context.idempotency_key else {
        return Ok(());
    };
    let text =
        serde_json::to_string(answer).map_err(|error| ApiError::Internal(error.to_string()))?;
    stored::keep_answer(transaction, &context.caller.user, key, &text).await?;
    Ok(())
}

/// Deletes the keys past their retention (the servers' housekeeping, once a minute).
pub async fn purge(database: &crate::storage::Database) -> Result<u64, sqlx::Error> {
    stored::purge(database.writes(), &now_utc()).await
}
