//! What `core-server token` and `core-server role` do: issue, list and revoke tokens; grant and
//! revoke what a role may call.

use sqlx::{Any, Transaction};

use super::{AccessError, check_name, hash_secret, random};
use crate::storage::{Database, access, now_utc, utc_after};

/// The default lifetime of a token `core-server token issue` makes (`--expires-in`,
/// `CORE_TOKEN_EXPIRES_IN`; D-02).
pub const DEFAULT_LIFETIME: &str = "90d";

/// How long an issued token lives: a number and a unit (`s`, `m`, `h`, `d`), or `never`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lifetime(pub Option<std::time::Duration>);

impl std::str::FromStr for Lifetime {
    type Err = String;

    fn from_str(text: &str) -> Result<Lifetime, String> {
        if text == "never" {
            return Ok(Lifetime(None));
        }
        let refuse = || {
            format!("'{text}' is not a lifetime: give a number and s, m, h or d (90d), or never")
        };
        let unit = match text.chars().last() {
            Some('s') => 1,
            Some('m') => 60,
            Some('h') => 3_600,
            Some('d') => 86_400,
            _ => return Err(refuse()),
        };
        let number: u64 = text[..text.len() - 1].parse().map_err(|_| refuse())?;
        // Beyond about 27 years a lifetime is `never` in all but name; refused, so that it says so.
        match number.checked_mul(unit) {
            Some(seconds) if seconds > 0 && seconds <= 10_000 * 86_400 => {
                Ok(Lifetime(Some(std::time::Duration::from_secs(seconds))))
            }
            _ => Err(format!("{}, between 1s and 10000d", refuse())),
        }
    }
}

/// Issues a token that never expires (test setups and tools; `core-server token issue` gives
/// one an expiry by default): see [`issue_expiring`].
pub async fn issue(
    database: &Database,
    user: &str,
    roles: &[String],
) -> Result<String, AccessError> {
    issue_expiring(database, user, roles, None).await
}

/// Issues a token to `user` (created if new) with `roles` (created if new), expiring after
/// `lifetime` (none: never), and returns it: the only time it is ever shown.
pub async fn issue_expiring(
    database: &Database,
    user: &str,
    roles: &[String],
    lifetime: Option<std::time::Duration>,
) -> Result<String, AccessError> {
    check_name("user", user)?;
    for role in roles {
        check_name("role", role)?;
    }
    let selector = hex::encode(random::<8>()?);
    let secret = hex::encode(random::<32>()?);
    let now = now_utc();
    let expires_at = lifetime.map(utc_after);
    let mut transaction = database.write().await?;
    let user_id = ensure_user(&mut transaction, user, &now).await?;
    let secret_hash = hash_secret(&secret);
    let token = access::NewToken {
        selector: &selector,
        secret_hash: &secret_hash,
        user_id,
        created_at: &now,
        expires_at: expires_at.as_deref(),
    };
    let token_id = access::insert_token(&mut transaction, &token).await?;
    add_token_roles(&mut transaction, token_id, roles).await?;
    transaction.commit().await?;
    Ok(format!("{selector}.{secret}"))
}

/// Revokes one token (given whole or by id), or every token of a user; returns how many were
/// revoked.
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
        Revoke::Id(id) => access::revoke_token_id(database.writes(), id, &now).await?,
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
    /// One token, by the id `token list` shows.
    Id(i64),
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

/// Removes grants from a role; how many it had (a grant it did not have is refused, so that a
/// typo does not pass for a revocation).
pub async fn ungrant(
    database: &Database,
    role: &str,
    grants: &[Grant<'_>],
) -> Result<u64, AccessError> {
    let mut removed = 0;
    for grant in grants {
        let (kind, name) = grant.parts();
        match access::remove_grant(database.writes(), role, kind, name).await? {
            0 => {
                return Err(AccessError::NotFound(format!(
                    "role '{role}' does not grant {grant:?}"
                )));
            }
            done => removed += done,
        }
    }
    Ok(removed)
}

/// What `core-server token list` shows of a token: never its secret or hash.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TokenSummary {
    /// Its id (for `token revoke --id`).
    pub id: i64,
    /// The user it acts for.
    pub user: String,
    /// Its roles, by name.
    pub roles: Vec<String>,
    /// When it was issued (UTC).
    pub created: String,
    /// When it expires (none: never).
    pub expires: Option<String>,
    /// When a server last recorded a use (at most [`LAST_USE_FLUSH`](super::LAST_USE_FLUSH) old
    /// for a running server; none: never used).
    pub last_used: Option<String>,
    /// When it was revoked (none: it was not).
    pub revoked: Option<String>,
}

/// Every token, oldest first.
pub async fn list(database: &Database) -> Result<Vec<TokenSummary>, AccessError> {
    let mut tokens: Vec<TokenSummary> = Vec::new();
    for row in access::list_tokens(database.reads()).await? {
        match tokens.last_mut() {
            Some(last) if last.id == row.id => last.roles.extend(row.role),
            _ => tokens.push(TokenSummary {
                id: row.id,
                user: row.user_name,
                roles: row.role.into_iter().collect(),
                created: row.created_at,
                expires: row.expires_at,
                last_used: row.last_used_at,
                revoked: row.revoked_at,
            }),
        }
    }
    Ok(tokens)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lifetimes_read_as_a_number_and_a_unit_or_never() {
        let day = std::time::Duration::from_secs(86_400);
        assert_eq!("90d".parse(), Ok(Lifetime(Some(day * 90))));
        assert_eq!(
            "2h".parse(),
            Ok(Lifetime(Some(std::time::Duration::from_secs(7_200))))
        );
        assert_eq!("never".parse(), Ok(Lifetime(None)));
        for wrong in [
            "",
            "d",
            "0d",
            "10001d",
            "5y",
            "-1h",
            "1.5h",
            "99999999999999999999d",
        ] {
            assert!(wrong.parse::<Lifetime>().is_err(), "{wrong}");
        }
    }
}
