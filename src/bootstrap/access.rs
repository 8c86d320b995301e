//! Users, roles and what they grant, and tokens with a known value (for test setups).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Bootstrap, BootstrapError, Checks, Loader, given, invalid};
use crate::{
    auth::{self, Grant},
    storage::import::{self, Owned, TokenRow},
};

/// A role.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Role {
    /// The id it keeps when new (an export gives it); absent: the next one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub id: Option<i64>,
    /// The name (`admin` grants every operation by itself).
    pub name: String,
    /// Modules whose operations it grants (`Common`, `CM`, `PIM`, `PEO`, `DAM`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub modules: Vec<String>,
    /// Operations it grants, by operation id.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub operations: Vec<String>,
}

/// A token with a known value: given whole (`token`), or by its selector and the SHA-256 of its
/// secret (`selector`, `secretSha256`), so that a document need not hold the secret. An import
/// never revives a token that was revoked.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Token {
    /// The id it keeps when new (an export gives it); absent: the next one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub id: Option<i64>,
    /// The user it acts for.
    pub user: String,
    /// Its roles.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub roles: Vec<String>,
    /// The token, `<selector>.<secret>` (16 and at least 32 hexadecimal digits).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
    /// Instead of `token`: its selector (16 hexadecimal digits) ...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<String>,
    /// ... and the SHA-256 of its secret (64 lower-case hexadecimal digits).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret_sha256: Option<String>,
    /// When it expires (ISO 8601 UTC, `2027-01-31T00:00:00.000Z`); absent: never.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<String>,
    /// When it was issued (UTC text), kept when new; absent: the time of the import.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<String>,
    /// When it was revoked (UTC text): a revoked token stays revoked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revoked_at: Option<String>,
    /// When it was last used (UTC text), kept unless a use is recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_used_at: Option<String>,
}

impl Token {
    /// The token's selector, however it is given.
    pub fn selector(&self) -> Option<&str> {
        match &self.token {
            Some(token) => token.split_once('.').map(|(selector, _)| selector),
            None => self.selector.as_deref(),
        }
    }

    /// The stored form of its secret, however it is given.
    fn secret_hash(&self) -> Option<String> {
        match &self.token {
            Some(token) => token
                .split_once('.')
                .map(|(_, secret)| auth::hash_secret(secret)),
            None => self.secret_sha256.clone(),
        }
    }

    /// Why the token is not well-formed, if it is not.
    fn fault(&self) -> Option<(&'static str, &'static str)> {
        let hex = |text: &str| text.chars().all(|ch| ch.is_ascii_hexdigit());
        let given = (&self.token, &self.selector, &self.secret_sha256);
        match given {
            (Some(token), None, None) => {
                let valid = token.split_once('.').is_some_and(|(selector, secret)| {
                    selector.len() == 16 && secret.len() >= 32 && hex(selector) && hex(secret)
                });
                (!valid).then_some(("token", "must be <16 hex digits>.<at least 32 hex digits>"))
            }
            (None, Some(selector), Some(hash)) => {
                let valid = selector.len() == 16
                    && hex(selector)
                    && hash.len() == 64
                    && hash.chars().all(|ch| matches!(ch, '0'..='9' | 'a'..='f'));
                (!valid).then_some((
                    "selector/secretSha256",
                    "must be 16 hex digits and 64 lower-case hex digits",
                ))
            }
            _ => Some(("token", "give either token, or selector with secretSha256")),
        }
        .or_else(|| {
            let times = [
                ("expiresAt", &self.expires_at),
                ("createdAt", &self.created_at),
                ("revokedAt", &self.revoked_at),
                ("lastUsedAt", &self.last_used_at),
            ];
            let (field, _) = times.into_iter().find(|(_, time)| {
                time.as_deref()
                    .is_some_and(|time| !crate::local_time::is_utc_millis(time))
            })?;
            Some((field, "must be UTC text such as 2027-01-31T00:00:00.000Z"))
        })
    }
}

/// Checks that roles grant modules and operations of the document, and the form of tokens.
pub(super) fn check(document: &Bootstrap, _checks: &mut Checks<'_>) -> Result<(), BootstrapError> {
    for (index, user) in document.users.iter().enumerate() {
        let record = format!("users[{index}] ({})", user.name());
        given(&record, user.id(), &[("createdAt", user.created_at())])?;
    }
    for (index, role) in document.roles.iter().enumerate() {
        given(&format!("roles[{index}] ({})", role.name), role.id, &[])?;
        let grants = Grant::list(&role.modules, &role.operations);
        if let Some(grant) = grants.iter().find(|grant| !grant.names_something()) {
            return Err(invalid(
                format!("roles[{index}] ({})", role.name),
                "modules/operations",
                format!("{grant:?} names no module or operation of the document"),
            ));
        }
    }
    for (index, token) in document.tokens.iter().enumerate() {
        let record = format!("tokens[{index}] (user {})", token.user);
        if let Some((field, fault)) = token.fault() {
            return Err(invalid(record, field, fault));
        }
        given(&record, token.id, &[])?;
    }
    Ok(())
}

impl Loader<'_, '_> {
    /// Stores the users, the roles with their grants (replaced) and the tokens.
    pub(super) async fn access(&mut self, document: &Bootstrap) -> Result<(), BootstrapError> {
        for user in &document.users {
            let created_at = user.created_at().unwrap_or(&self.now).to_string();
            import::insert_user(self.transaction, user.id(), user.name(), &created_at).await?;
            self.loaded.records += 1;
        }
        for role in &document.roles {
            self.role(role).await?;
        }
        for (index, token) in document.tokens.iter().enumerate() {
            self.token(token).await.map_err(|error| {
                error.within(|| format!("tokens[{index}] (user {})", token.user))
            })?;
        }
        Ok(())
    }

    async fn user(&mut self, name: &str) -> Result<i64, BootstrapError> {
        self.loaded.records += 1;
        Ok(auth::ensure_user(self.transaction, name, &self.now).await?)
    }

    /// Replaces what a role grants.
    async fn role(&mut self, role: &Role) -> Result<(), BootstrapError> {
        let role_id = import::insert_role(self.transaction, role.id, &role.name).await?;
        self.loaded.records += 1;
        import::clear(self.transaction, Owned::RoleGrants, role_id).await?;
        let grants = Grant::list(&role.modules, &role.operations);
        auth::add_grants(self.transaction, role_id, &grants).await?;
        Ok(())
    }

    async fn token(&mut self, token: &Token) -> Result<(), BootstrapError> {
        let user_id = self.user(&token.user).await?;
        // `check` made sure that both are there.
        let selector = token.selector().unwrap_or_default();
        let secret_hash = token.secret_hash().unwrap_or_default();
        let row = TokenRow {
            id: token.id,
            selector,
            secret_hash: &secret_hash,
            user_id,
            created_at: token.created_at.as_deref().unwrap_or(&self.now),
            expires_at: token.expires_at.as_deref(),
            revoked_at: token.revoked_at.as_deref(),
        };
        let token_id = import::upsert_token(self.transaction, &row).await?;
        if let Some(used) = &token.last_used_at {
            import::token_used(self.transaction, token_id, used).await?;
        }
        import::clear(self.transaction, Owned::TokenRoles, token_id).await?;
        auth::add_token_roles(self.transaction, token_id, &token.roles).await?;
        Ok(())
    }
}
