//! The SQL of access: users, roles, their grants and tokens (the rules are in `auth`).

use sqlx::{Any, AnyPool, Row, Transaction};

/// One row of a token's lookup: the token repeated for each of its roles' grants.
#[derive(Debug, sqlx::FromRow)]
pub(crate) struct TokenGrant {
    /// The stored hash of the token's secret.
    pub(crate) secret_hash: String,
    /// The name of the token's user.
    pub(crate) user_name: String,
    /// One of the token's roles (none when it has no role).
    pub(crate) role: Option<String>,
    /// What the role's grant names: `module` or `operation` (none for a role with no grant).
    pub(crate) kind: Option<String>,
    /// The module or operation granted.
    pub(crate) granted: Option<String>,
}

/// The rows of an active token, by its selector, in one round trip (none when unknown).
pub(crate) async fn token_grants(
    pool: &AnyPool,
    selector: &str,
) -> Result<Vec<TokenGrant>, sqlx::Error> {
    sqlx::query_as(sql!(
        "SELECT t.secret_hash, u.name AS user_name, r.name AS role, g.kind, g.name AS granted \
         FROM tokens t JOIN users u ON u.id = t.user_id \
         LEFT JOIN token_roles tr ON tr.token_id = t.id LEFT JOIN roles r ON r.id = tr.role_id \
         LEFT JOIN role_grants g ON g.role_id = r.id \
         WHERE t.selector = $1 AND t.revoked_at IS NULL"
    ))
    .bind(selector)
    .fetch_all(pool)
    .await
}

/// The access revision: it moves whenever who may call what changes.
pub(crate) async fn revision(pool: &AnyPool) -> Result<i64, sqlx::Error> {
    sqlx::query_scalar(sql!(
        "SELECT CAST(revision AS BIGINT) FROM access_revision WHERE id = 1"
    ))
    .fetch_one(pool)
    .await
}

/// A token to store: its selector, the hash of its secret, whose it is and when it was made.
#[derive(Debug)]
pub(crate) struct NewToken<'a> {
    /// The public half, by which the token is found.
    pub(crate) selector: &'a str,
    /// The hash of the secret half.
    pub(crate) secret_hash: &'a str,
    /// The user's id.
    pub(crate) user_id: i64,
    /// When (UTC).
    pub(crate) created_at: &'a str,
}

/// Stores a token; its id.
pub(crate) async fn insert_token(
    transaction: &mut Transaction<'_, Any>,
    token: &NewToken<'_>,
) -> Result<i64, sqlx::Error> {
    sqlx::query(sql!(
        "INSERT INTO tokens (selector, secret_hash, user_id, created_at) VALUES ($1, $2, $3, $4) \
         RETURNING id"
    ))
    .bind(token.selector)
    .bind(token.secret_hash)
    .bind(token.user_id)
    .bind(token.created_at)
    .fetch_one(&mut **transaction)
    .await?
    .try_get("id")
}

/// Revokes the active token with this selector and secret hash; how many were revoked.
pub(crate) async fn revoke_token(
    pool: &AnyPool,
    selector: &str,
    secret_hash: &str,
    now: &str,
) -> Result<u64, sqlx::Error> {
    let done = sqlx::query(sql!(
        "UPDATE tokens SET revoked_at = $1 WHERE selector = $2 AND secret_hash = $3 \
         AND revoked_at IS NULL"
    ))
    .bind(now)
    .bind(selector)
    .bind(secret_hash)
    .execute(pool)
    .await?;
    Ok(done.rows_affected())
}

/// Revokes every active token of the named user; how many were revoked.
pub(crate) async fn revoke_user(pool: &AnyPool, user: &str, now: &str) -> Result<u64, sqlx::Error> {
    let done = sqlx::query(sql!(
        "UPDATE tokens SET revoked_at = $1 WHERE revoked_at IS NULL AND user_id IN \
         (SELECT id FROM users WHERE name = $2)"
    ))
    .bind(now)
    .bind(user)
    .execute(pool)
    .await?;
    Ok(done.rows_affected())
}

/// The id of the named user, inserting it when missing.
pub(crate) async fn ensure_user(
    transaction: &mut Transaction<'_, Any>,
    name: &str,
    now: &str,
) -> Result<i64, sqlx::Error> {
    sqlx::query(sql!(
        "INSERT INTO users (name, created_at) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING"
    ))
    .bind(name)
    .bind(now)
    .execute(&mut **transaction)
    .await?;
    sqlx::query(sql!("SELECT id FROM users WHERE name = $1"))
        .bind(name)
        .fetch_one(&mut **transaction)
        .await?
        .try_get("id")
}

/// The id of the named role, inserting it when missing.
pub(crate) async fn ensure_role(
    transaction: &mut Transaction<'_, Any>,
    name: &str,
) -> Result<i64, sqlx::Error> {
    sqlx::query(sql!(
        "INSERT INTO roles (name) VALUES ($1) ON CONFLICT (name) DO NOTHING"
    ))
    .bind(name)
    .execute(&mut **transaction)
    .await?;
    sqlx::query(sql!("SELECT id FROM roles WHERE name = $1"))
        .bind(name)
        .fetch_one(&mut **transaction)
        .await?
        .try_get("id")
}

/// Adds one grant (`kind`: `module` or `operation`) to a role; one it has already stays.
pub(crate) async fn add_grant(
    transaction: &mut Transaction<'_, Any>,
    role_id: i64,
    kind: &str,
    name: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query(sql!(
        "INSERT INTO role_grants (role_id, kind, name) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING"
    ))
    .bind(role_id)
    .bind(kind)
    .bind(name)
    .execute(&mut **transaction)
    .await?;
    Ok(())
}

/// Gives a token a role; one it has already stays.
pub(crate) async fn add_token_role(
    transaction: &mut Transaction<'_, Any>,
    token_id: i64,
    role_id: i64,
) -> Result<(), sqlx::Error> {
    sqlx::query(sql!(
        "INSERT INTO token_roles (token_id, role_id) VALUES ($1, $2) ON CONFLICT DO NOTHING"
    ))
    .bind(token_id)
    .bind(role_id)
    .execute(&mut **transaction)
    .await?;
    Ok(())
}
