//! The SQL of idempotency keys (the rules are in `modules::idempotency`): a key claimed in a
//! batch's transaction, its answer kept there, and keys past their retention deleted.

use sqlx::{AnyConnection, AnyPool};

/// A key a batch claims: whose, which, for what.
#[derive(Debug)]
pub(crate) struct Claim<'a> {
    /// The user of the caller's token.
    pub(crate) user: &'a str,
    /// The `Idempotency-Key`.
    pub(crate) key: &'a str,
    /// The operation id.
    pub(crate) operation: &'a str,
    /// The SHA-256 of the operation and its items.
    pub(crate) fingerprint: &'a str,
}

/// A key stored by an earlier request.
#[derive(Debug, sqlx::FromRow)]
pub(crate) struct Stored {
    /// The operation it was used for.
    pub(crate) operation: String,
    /// The fingerprint of that request.
    pub(crate) fingerprint: String,
    /// Its answer, as JSON (always there once committed).
    pub(crate) answer: Option<String>,
}

/// Claims a key for this request: true when it was free (or past its retention, `now`), false
/// when a live one is stored. On PostgreSQL a claim waits for a concurrent transaction that
/// claimed the same key, and then sees what it committed.
pub(crate) async fn claim(
    connection: &mut AnyConnection,
    claim: &Claim<'_>,
    now: &str,
    expires_at: &str,
) -> Result<bool, sqlx::Error> {
    let claimed = sqlx::query(sql!(
        "INSERT INTO idempotency_keys (user_name, idem_key, operation, fingerprint, answer, \
         created_at, expires_at) VALUES ($1, $2, $3, $4, NULL, $5, $6) \
         ON CONFLICT (user_name, idem_key) DO UPDATE SET operation = excluded.operation, \
         fingerprint = excluded.fingerprint, answer = NULL, created_at = excluded.created_at, \
         expires_at = excluded.expires_at WHERE idempotency_keys.expires_at <= $5"
    ))
    .bind(claim.user)
    .bind(claim.key)
    .bind(claim.operation)
    .bind(claim.fingerprint)
    .bind(now)
    .bind(expires_at)
    .execute(connection)
    .await?;
    Ok(claimed.rows_affected() > 0)
}

/// The stored key of a user.
pub(crate) async fn stored(
    connection: &mut AnyConnection,
    user: &str,
    key: &str,
) -> Result<Option<Stored>, sqlx::Error> {
    sqlx::query_as(sql!(
        "SELECT operation, fingerprint, answer FROM idempotency_keys \
         WHERE user_name = $1 AND idem_key = $2"
    ))
    .bind(user)
    .bind(key)
    .fetch_optional(connection)
    .await
}

/// Keeps the answer of a claimed key (in the batch's transaction, before it commits).
pub(crate) async fn keep_answer(
    connection: &mut AnyConnection,
    user: &str,
    key: &str,
    answer: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query(sql!(
        "UPDATE idempotency_keys SET answer = $3 WHERE user_name = $1 AND idem_key = $2"
    ))
    .bind(user)
    .bind(key)
    .bind(answer)
    .execute(connection)
    .await?;
    Ok(())
}

/// Deletes the keys past their retention; how many.
pub(crate) async fn purge(pool: &AnyPool, now: &str) -> Result<u64, sqlx::Error> {
    let done = sqlx::query(sql!("DELETE FROM idempotency_keys WHERE expires_at <= $1"))
        .bind(now)
        .execute(pool)
        .await?;
    Ok(done.rows_affected())
}
