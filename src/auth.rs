//! Bearer authentication and access rights (specification, "Authentication"; D-02, D-03, D-04).
//!
//! A token is `<selector>.<secret>`: 8 random bytes that find its row and 32 random bytes (256
//! bits) of which only the SHA-256 is stored, compared in constant time. Tokens belong to a user
//! and carry roles; a role grants modules or operations, and the built-in role `admin` grants
//! every operation. A server keeps the callers it verified in memory ([`Callers`]) until the
//! access revision moves: any change to users, roles, grants or tokens, by any process, counts it
//! up (triggers, migration 0006), and a server looks at it at most every [`REVISION_CHECK`], so
//! a revocation or a grant holds on every instance within that bound (D-02).

use core_api_support::Operation;
use sha2::{Digest, Sha256};
use sqlx::{Any, Transaction};

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
    /// A token that is malformed, unknown or revoked (not told apart, so nothing is learnt).
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
    let rows = access::token_grants(database.reads(), selector).await?;
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

/// How long a change to who may call what (a revocation, a grant) can take to hold on a server
/// that keeps the caller in memory: the access revision is looked at most this often (D-02).
pub const REVISION_CHECK: std::time::Duration = std::time::Duration::from_millis(250);

/// The most callers a server keeps in memory; beyond, it starts again from none.
const KEPT: usize = 10_000;

/// The callers this server verified, by token selector, with the stored hash of their secret,
/// kept while the access revision stays where it was when they were read.
#[derive(Debug, Default)]
pub struct Callers {
    state: std::sync::RwLock<Kept>,
}

#[derive(Debug, Default)]
struct Kept {
    /// The access revision the callers were read at.
    revision: i64,
    /// When the revision was last looked at.
    checked: Option<std::time::Instant>,
    /// Selector → (hash of the secret, caller).
    callers: std::collections::HashMap<String, (String, std::sync::Arc<Caller>)>,
    /// Tokens refused at this revision (selector and hash of the secret): refused again without
    /// a lookup until the revision moves, so a flood of one unknown token costs one query.
    refused: std::collections::HashSet<(String, String)>,
}

impl Callers {
    /// Checks the `Authorization` header value and finds the caller: from memory when this
    /// server verified the token since the access revision last moved, else from the database.
    pub async fn authenticate(
        &self,
        database: &Database,
        header: Option<&[u8]>,
    ) -> Result<std::sync::Arc<Caller>, AuthError> {
        let (selector, secret) = credential(header)?;
        let revision = self.current(database).await?;
        let hash = hash_secret(secret);
        {
            let kept = self.read();
            if let Some((stored, caller)) = kept.callers.get(selector) {
                return if constant_time_eq(stored.as_bytes(), hash.as_bytes()) {
                    Ok(std::sync::Arc::clone(caller))
                } else {
                    Err(AuthFailure::Unknown.into())
                };
            }
            if kept.refused.contains(&(selector.to_string(), hash.clone())) {
                return Err(AuthFailure::Unknown.into());
            }
        }
        let verified = verify(database, selector, secret).await;
        let mut kept = self.write();
        let (caller, stored) = match verified {
            Ok(verified) => verified,
            Err(AuthError::Failure(failure)) => {
                // A refusal read before the revision moved is not kept.
                if kept.revision == revision {
                    if kept.refused.len() >= KEPT {
                        kept.refused.clear();
                    }
                    kept.refused.insert((selector.to_string(), hash));
                }
                return Err(failure.into());
            }
            Err(error) => return Err(error),
        };
        let caller = std::sync::Arc::new(caller);
        // A caller read before the revision moved is not kept.
        if kept.revision == revision {
            if kept.callers.len() >= KEPT {
                kept.callers.clear();
            }
            kept.callers.insert(
                selector.to_string(),
                (stored, std::sync::Arc::clone(&caller)),
            );
        }
        Ok(caller)
    }

    /// The access revision the kept callers hold for: looked up when it was last looked at more
    /// than [`REVISION_CHECK`] ago, dropping every kept caller when it moved.
    async fn current(&self, database: &Database) -> Result<i64, AuthError> {
        let (revision, checked) = {
            let kept = self.read();
            (kept.revision, kept.checked)
        };
        if checked.is_some_and(|checked| checked.elapsed() < REVISION_CHECK) {
            return Ok(revision);
        }
        let now = access::revision(database.reads()).await?;
        let mut kept = self.write();
        if kept.revision != now || kept.checked.is_none() {
            kept.callers.clear();
            kept.refused.clear();
            kept.revision = now;
        }
        kept.checked = Some(std::time::Instant::now());
        Ok(kept.revision)
    }

    /// The selector of the token in an `Authorization` header value when this server verified
    /// it and keeps it, with no database work: the caller the rate limit counts (D-37). A token
    /// not kept (unknown, or not verified since the access revision moved) gives none.
    pub fn kept(&self, header: Option<&[u8]>) -> Option<String> {
        let (selector, secret) = credential(header).ok()?;
        let kept = self.read();
        let (stored, _) = kept.callers.get(selector)?;
        constant_time_eq(stored.as_bytes(), hash_secret(secret).as_bytes())
            .then(|| selector.to_string())
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, Kept> {
        self.state
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, Kept> {
        self.state
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
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

/// Issues a token to `user` (created if new) with `roles` (created if new) and returns it: the
/// only time it is ever shown.
pub async fn issue(
    database: &Database,
    user: &str,
    roles: &[String],
) -> Result<String, AccessError> {
    check_name("user", user)?;
    for role in roles {
        check_name("role", role)?;
    }
    let selector = hex::encode(random::<8>()?);
    let secret = hex::encode(random::<32>()?);
    let now = now_utc();
    let mut transaction = database.write().await?;
    let user_id = ensure_user(&mut transaction, user, &now).await?;
    let secret_hash = hash_secret(&secret);
    let token = access::NewToken {
        selector: &selector,
        secret_hash: &secret_hash,
        user_id,
        created_at: &now,
    };
    let token_id = access::insert_token(&mut transaction, &token).await?;
    add_token_roles(&mut transaction, token_id, roles).await?;
    transaction.commit().await?;
    Ok(format!("{selector}.{secret}"))
}

/// Revokes one token (given whole), or every token of a user; returns how many were revoked.
pub async fn revoke(database: &Database, target: Revoke<'_>) -> Result<u64, AccessError> {
    let now = now_utc();
    let result = match target {
        Revoke::Token(token) => {
            let (selector, secret) = token
                .trim()
                .split_once('.')
                .ok_or_else(|| AccessError::Invalid("not a token of this service".into()))?;
            access::revoke_token(database.writes(), selector, &hash_secret(secret), &now).await?
        }
        Revoke::User(user) => access::revoke_user(database.writes(), user, &now).await?,
    };
    match result {
        0 => Err(AccessError::NotFound("no active token matched".into())),
        revoked => Ok(revoked),
    }
}

/// What `revoke` revokes.
#[derive(Debug, Clone, Copy)]
pub enum Revoke<'a> {
    /// One token, given whole.
    Token(&'a str),
    /// Every token of the user with this name.
    User(&'a str),
}

/// What a role grant names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grant<'a> {
    /// Every operation of a module (`Common`, `CM`, `PIM`, `PEO`, `DAM`).
    Module(&'a str),
    /// One operation, by its operation id.
    Operation(&'a str),
}

impl<'a> Grant<'a> {
    /// The grants of a list of module names and a list of operation ids.
    pub fn list(modules: &'a [String], operations: &'a [String]) -> Vec<Grant<'a>> {
        modules
            .iter()
            .map(|module| Grant::Module(module))
            .chain(
                operations
                    .iter()
                    .map(|operation| Grant::Operation(operation)),
            )
            .collect()
    }

    /// Whether a module or operation of the document has this name.
    pub fn names_something(&self) -> bool {
        let operations = core_api::operations::ALL;
        match self {
            Grant::Module(name) => operations.iter().any(|operation| operation.module == *name),
            Grant::Operation(name) => operations.iter().any(|operation| operation.id == *name),
        }
    }

    /// The grant as stored: its kind (`module`, `operation`) and name.
    pub fn parts(&self) -> (&'static str, &'a str) {
        match self {
            Grant::Module(name) => ("module", name),
            Grant::Operation(name) => ("operation", name),
        }
    }
}

/// Lets `role` (created if new) call a module's operations or one operation. Names are checked
/// against the document's operations, so a typo is refused rather than granting nothing.
pub async fn grant(
    database: &Database,
    role: &str,
    grants: &[Grant<'_>],
) -> Result<(), AccessError> {
    check_name("role", role)?;
    for grant in grants {
        if !grant.names_something() {
            return Err(AccessError::Invalid(format!(
                "{grant:?} names no module or operation of the document"
            )));
        }
    }
    let mut transaction = database.write().await?;
    let role_id = ensure_role(&mut transaction, role).await?;
    add_grants(&mut transaction, role_id, grants).await?;
    transaction.commit().await?;
    Ok(())
}

/// The id of the named user, inserting it when missing.
pub(crate) use access::{ensure_role, ensure_user};

/// Adds grants to a role (those it has already stay).
pub(crate) async fn add_grants(
    transaction: &mut Transaction<'_, Any>,
    role_id: i64,
    grants: &[Grant<'_>],
) -> Result<(), sqlx::Error> {
    for grant in grants {
        let (kind, name) = grant.parts();
        access::add_grant(transaction, role_id, kind, name).await?;
    }
    Ok(())
}

/// Gives a token roles (each created if new).
pub(crate) async fn add_token_roles(
    transaction: &mut Transaction<'_, Any>,
    token_id: i64,
    roles: &[String],
) -> Result<(), sqlx::Error> {
    for role in roles {
        let role_id = ensure_role(transaction, role).await?;
        access::add_token_role(transaction, token_id, role_id).await?;
    }
    Ok(())
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
