//! The SQL of access: users, roles, their grants and tokens (the rules are in `auth`).

use sqlx::{Any, AnyPool, Row, Transaction};

use super::{Database, read};

/// One row of a token's lookup: the token repeated for each of its roles' grants.
#[derive(Debug, sqlx::FromRow)]
pub(crate) struct TokenGrant {
    /// The token's id.
    pub(crate) token_id: i64,
    /// When it expires (none: never).
    pub(crate) expires_at: Option<String>,
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

/// The rows of an active token (neither revoked nor expired at `now`), by its selector, in one
/// round trip (none when unknown).
pub(crate) async fn token_grants(
    database: &Database,
    selector: &str,
    now: &str,
) -> Result<Vec<TokenGrant>, sqlx::Error> {
    read::all(database, || {
        sqlx::query_as(sql!(
            "SELECT CAST(t.id AS BIGINT) AS token_id, t.expires_at, t.secret_hash, \
             u.name AS user_name, r.name AS role, g.kind, g.name AS granted \
             FROM tokens t JOIN users u ON u.id = t.user_id \
             LEFT JOIN token_roles tr ON tr.token_id = t.id \
             LEFT JOIN roles r ON r.id = tr.role_id \
             LEFT JOIN role_grants g ON g.role_id = r.id \
             WHERE t.selector = $1 AND t.revoked_at IS NULL \
             AND (t.expires_at IS NULL OR t.expires_at > $2)"
        ))
        .bind(selector)
        .bind(now)
    })
    .await
}

/// One row of `token list`: a token with one of its roles (none when it has none).
#[derive(Debug, sqlx::FromRow)]
pub(crate) struct TokenRow {
    /// The token's id.
    pub(crate) id: i64,
    /// Its user's name.
    pub(crate) user_name: String,
    /// One of its roles.
    pub(crate) role: Option<String>,
    /// When it was issued.
    pub(crate) created_at: String,
    /// When it expires (none: never).
    pub(crate) expires_at: Option<String>,
    /// When a server last recorded a use (none: never).
    pub(crate) last_used_at: Option<String>,
    /// When it was revoked (none: it was not).
    pub(crate) revoked_at: Option<String>,
}

/// Every token with its roles, by id (a token repeated for each role); never a secret or hash.
pub(crate) async fn list_tokens(pool: &AnyPool) -> Result<Vec<TokenRow>, sqlx::Error> {
    sqlx::query_as(sql!(
        "SELECT CAST(t.id AS BIGINT) AS id, u.name AS user_name, r.name AS role, t.created_at, \
         t.expires_at, tu.last_used_at, t.revoked_at \
         FROM tokens t JOIN users u ON u.id = t.user_id \
         LEFT JOIN token_roles tr ON tr.token_id = t.id LEFT JOIN roles r ON r.id = tr.role_id \
         LEFT JOIN token_uses tu ON tu.token_id = t.id \
         ORDER BY t.id, r.name"
    ))
    .fetch_all(pool)
    .await
}

/// Records that a token was used at `at`, unless a later use is recorded already.
pub(crate) async fn record_use(pool: &AnyPool, token_id: i64, at: &str) -> Result<(), sqlx::Error> {
    sqlx::query(sql!(
        "INSERT INTO token_uses (token_id, last_used_at) \
         SELECT id, $2 FROM tokens WHERE id = $1 \
         ON CONFLICT (token_id) DO UPDATE SET last_used_at = excluded.last_used_at \
         WHERE token_uses.last_used_at < excluded.last_used_at"
    ))
    .bind(token_id)
    .bind(at)
    .execute(pool)
    .await?;
    Ok(())
}

/// Revokes the active token with this id; how many were revoked.
pub(crate) async fn revoke_token_id(
    pool: &AnyPool,
    id: i64,
    now: &str,
) -> Result<u64, sqlx::Error> {
    let done = sqlx::query(sql!(
        "UPDATE tokens SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL"
    ))
    .bind(now)
    .bind(id)
    .execute(pool)
    .await?;
    Ok(done.rows_affected())
}

/// Removes one grant from the named role; how many were removed (0 or 1).
pub(crate) async fn remove_grant(
    pool: &AnyPool,
    role: &str,
    kind: &str,
    name: &str,
) -> Result<u64, sqlx::Error> {
    let done = sqlx::query(sql!(
        "DELETE FROM role_grants WHERE kind = $2 AND name = $3 \
         AND role_id IN (SELECT id FROM roles WHERE name = $1)"
    ))
    .bind(role)
    .bind(kind)
    .bind(name)
    .execute(pool)
    .await?;
    Ok(done.rows_affected())
}

/// Writes which command made the database unless one did already; the command that did.
pub(crate) async fn claim_origin(
    pool: &AnyPool,
    made_by: &str,
    now: &str,
) -> Result<String, sqlx::Error> {
    sqlx::query(sql!(
        "INSERT INTO database_origin (id, made_by, created_at) VALUES (1, $1, $2) \
         ON CONFLICT (id) DO NOTHING"
    ))
    .bind(made_by)
    .bind(now)
    .execute(pool)
    .await?;
    sqlx::query_scalar(sql!("SELECT made_by FROM database_origin WHERE id = 1"))
        .fetch_one(pool)
        .await
}

/// Which command made the database (none: no command has written it yet).
pub(crate) async fn origin(pool: &AnyPool) -> Result<Option<String>, sqlx::Error> {
    sqlx::query_scalar(sql!("SELECT made_by FROM database_origin WHERE id = 1"))
        .fetch_optional(pool)
        .await
}

/// Whether the database holds a token besides the one with this selector.
pub(crate) async fn tokens_besides(pool: &AnyPool, selector: &str) -> Result<bool, sqlx::Error> {
    let found: Option<i64> = sqlx::query_scalar(sql!(
        "SELECT CAST(id AS BIGINT) FROM tokens WHERE selector <> $1 LIMIT 1"
    ))
    .bind(selector)
    .fetch_optional(pool)
    .await?;
    Ok(found.is_some())
}

/// Whether a token with this selector is stored (revoked or not).
pub(crate) async fn token_exists(pool: &AnyPool, selector: &str) -> Result<bool, sqlx::Error> {
    let found: Option<i64> = sqlx::query_scalar(sql!(
        "SELECT CAST(id AS BIGINT) FROM tokens WHERE selector = $1"
    ))
    .bind(selector)
    .fetch_optional(pool)
    .await?;
    Ok(found.is_some())
}

/// The access revision: it moves whenever who may call what changes.
pub(crate) async fn revision(database: &Database) -> Result<i64, sqlx::Error> {
    let (revision,) = read::one(database, || {
        sqlx::query_as(sql!(
            "SELECT CAST(revision AS BIGINT) FROM access_revision WHERE id = 1"
        ))
    })
    .await?;
    Ok(revision)
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
    /// When it expires (UTC; none: never).
    pub(crate) expires_at: Option<&'a str>,
}

/// Stores a token; its id.
pub(crate) async fn insert_token(
    transaction: &mut Transaction<'_, Any>,
    token: &NewToken<'_>,
) -> Result<i64, sqlx::Error> {
    sqlx::query(sql!(
        "INSERT INTO tokens (selector, secret_hash, user_id, created_at, expires_at) \
         VALUES ($1, $2, $3, $4, $5) RETURNING id"
    ))
    .bind(token.selector)
    .bind(token.secret_hash)
    .bind(token.user_id)
    .bind(token.created_at)
    .bind(token.expires_at)
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
