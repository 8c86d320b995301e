//! Bearer authentication and access rights (specification, "Authentication"; D-02, D-03, D-04).
//!
//! A token is `<selector>.<secret>`: 8 random bytes that find its row and 32 random bytes (256
//! bits) of which only the SHA-256 is stored, compared in constant time. Tokens belong to a user
//! and carry roles; a role grants modules or operations, and the built-in role `admin` grants
//! every operation. A server keeps the callers it verified in memory ([`Callers`]) until the
//! access revision moves: any change to users, roles, grants or tokens, by any process, counts it
//! up (triggers, migration 0006), and a server looks at it at most every [`REVISION_CHECK`], so
//! a revocation or a grant holds on every instance within that bound (D-02). A token may
//! expire; an expired one is refused like a revoked one. The token published with the demo is
//! accepted only by a server running `--demo` ([`origin`]).
//!
//! [`Callers`] is the cache and records uses, [`commands`] what `core-server token` and `role`
//! do, [`origin`] which command made a database.

mod callers;
pub mod commands;
pub mod origin;

use core_api_support::Operation;
use sha2::{Digest, Sha256};

pub use callers::{Callers, LAST_USE_FLUSH, REVISION_CHECK};
pub use commands::{Grant, Revoke, TokenSummary, grant, issue, list, revoke, ungrant};
pub(crate) use commands::{add_grants, add_token_roles, ensure_role, ensure_user};

use crate::storage::{Database, access, now_utc};

/// The role that grants every operation.
pub const ADMIN: &str = "admin";

/// Who is calling, once the token is checked.
#[derive(Debug, Clone)]
pub struct Caller {
    /// The user the token was issued to.
    pub user: String,
    /// The token's roles.
    pub roles: Vec<String>,
    /// What the roles grant: `module:<Module>` and `operation:<operationId>`.
    grants: Vec<String>,
    /// The token's id (its uses are recorded by it).
    token_id: i64,
    /// When the token expires (UTC text; none: never).
    expires_at: Option<String>,
}

impl Caller {
    /// Whether the caller may call the operation.
    pub fn may(&self, operation: &Operation) -> bool {
        self.roles.iter().any(|role| role == ADMIN)
            || self.grants.iter().any(|grant| {
                grant.strip_prefix("module:") == Some(operation.module)
                    || grant.strip_prefix("operation:") == Some(operation.id)
            })
    }

    /// Whether the caller may see a record restricted to `roles` (per-item access rights): an
    /// unrestricted record is seen by all, a restricted one by holders of one of its roles and by
    /// `admin`.
    pub fn sees<S: AsRef<str>>(&self, roles: &[S]) -> bool {
        roles.is_empty()
            || self.roles.iter().any(|held| {
                held == ADMIN || roles.iter().any(|role| role.as_ref() == held.as_str())
            })
    }
}

/// Why a request is not authorized (the `errorMessage` of the 401 answer).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum AuthFailure {
    /// No `Authorization` header.
    #[error("missing bearer token")]
    Missing,
    /// A header that is not `Bearer <token>`.
    #[error("the Authorization header is not a bearer token")]
    NotBearer,
    /// A token that is malformed, unknown, revoked or expired (not told apart, so nothing is
    /// learnt).
    #[error("unknown or revoked token")]
    Unknown,
}

/// Why an access command failed.
#[derive(Debug, thiserror::Error)]
pub enum AccessError {
    /// The database failed.
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
    /// The system could not provide random bytes.
    #[error("no random bytes: {0}")]
    Random(String),
    /// A name that cannot be used.
    #[error("{0}")]
    Invalid(String),
    /// Nothing matched.
    #[error("{0}")]
    NotFound(String),
}

/// The selector and secret of an `Authorization` header value.
fn credential(header: Option<&[u8]>) -> Result<(&str, &str), AuthError> {
    let header = header.ok_or(AuthError::Failure(AuthFailure::Missing))?;
    let header = std::str::from_utf8(header).map_err(|_| AuthFailure::NotBearer)?;
    let (scheme, token) = header
        .trim()
        .split_once(' ')
        .ok_or(AuthFailure::NotBearer)?;
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Err(AuthFailure::NotBearer.into());
    }
    Ok(token.trim().split_once('.').ok_or(AuthFailure::Unknown)?)
}

/// The selector of the bearer token in an `Authorization` header value, when it is one.
pub fn selector(header: Option<&[u8]>) -> Option<&str> {
    credential(header).ok().map(|(selector, _)| selector)
}

impl Caller {
    /// Whether the token has expired by `now` (UTC text).
    fn expired(&self, now: &str) -> bool {
        self.expires_at
            .as_deref()
            .is_some_and(|expires| expires <= now)
    }
}

/// Checks the `Authorization` header value and finds the caller in the database.
pub async fn authenticate(database: &Database, header: Option<&[u8]>) -> Result<Caller, AuthError> {
    let (selector, secret) = credential(header)?;
    verify(database, selector, secret)
        .await
        .map(|(caller, _)| caller)
}

/// Reads a token's caller from the database and checks its secret; the caller and the stored
/// hash of the secret.
async fn verify(
    database: &Database,
    selector: &str,
    secret: &str,
) -> Result<(Caller, String), AuthError> {
    let rows = access::token_grants(database, selector, &now_utc()).await?;
    let Some(first) = rows.first() else {
        return Err(AuthFailure::Unknown.into());
    };
    let stored = first.secret_hash.clone();
    if !constant_time_eq(stored.as_bytes(), hash_secret(secret).as_bytes()) {
        return Err(AuthFailure::Unknown.into());
    }
    let mut caller = Caller {
        user: first.user_name.clone(),
        roles: Vec::new(),
        grants: Vec::new(),
        token_id: first.token_id,
        expires_at: first.expires_at.clone(),
    };
    for row in rows {
        if let Some(role) = row.role
            && !caller.roles.contains(&role)
        {
            caller.roles.push(role);
        }
        if let (Some(kind), Some(name)) = (row.kind, row.granted) {
            caller.grants.push(format!("{kind}:{name}"));
        }
    }
    Ok((caller, stored))
}

/// Why `authenticate` refused.
#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    /// The credential is not good: 401.
    #[error(transparent)]
    Failure(#[from] AuthFailure),
    /// The database failed: 500.
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
}

fn check_name(what: &str, name: &str) -> Result<(), AccessError> {
    let valid = !name.is_empty()
        && name.len() <= 200
        && !name.chars().any(|ch| ch.is_control() || ch.is_whitespace());
    if valid {
        Ok(())
    } else {
        Err(AccessError::Invalid(format!(
            "a {what} name is 1 to 200 characters without spaces or control characters: {name:?}"
        )))
    }
}

fn random<const N: usize>() -> Result<[u8; N], AccessError> {
    let mut bytes = [0u8; N];
    getrandom::fill(&mut bytes).map_err(|error| AccessError::Random(error.to_string()))?;
    Ok(bytes)
}

/// The stored form of a token's secret: its SHA-256, in hex.
pub fn hash_secret(secret: &str) -> String {
    hex::encode(Sha256::digest(secret.as_bytes()))
}

/// Equality whose time does not depend on where the inputs differ.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let difference = a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y));
    std::hint::black_box(difference) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comparison_is_exact() {
        assert!(constant_time_eq(b"abc", b"abc"));
        assert!(!constant_time_eq(b"abc", b"abd"));
        assert!(!constant_time_eq(b"abc", b"ab"));
    }
}
