//! Users, roles and what they grant, and tokens with a known value (for test setups).

use schemars::JsonSchema;
use serde::Deserialize;

use super::{Bootstrap, BootstrapError, Checks, Loader, invalid};
use crate::{
    auth::{self, Grant},
    storage::{
        access::NewToken,
        import::{self, Owned},
    },
};

/// A role.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Role {
    /// The name (`admin` grants every operation by itself).
    pub name: String,
    /// Modules whose operations it grants (`Common`, `CM`, `PIM`, `PEO`, `DAM`).
    #[serde(default)]
    pub modules: Vec<String>,
    /// Operations it grants, by operation id.
    #[serde(default)]
    pub operations: Vec<String>,
}

/// A token with a known value.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Token {
    /// The user it acts for.
    pub user: String,
    /// Its roles.
    #[serde(default)]
    pub roles: Vec<String>,
    /// The token, `<selector>.<secret>` (16 and at least 32 hexadecimal digits).
    pub token: String,
}

/// Checks that roles grant modules and operations of the document, and the form of tokens.
pub(super) fn check(document: &Bootstrap, _checks: &mut Checks<'_>) -> Result<(), BootstrapError> {
    for (index, role) in document.roles.iter().enumerate() {
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
        let valid = token
            .token
            .split_once('.')
            .is_some_and(|(selector, secret)| {
                selector.len() == 16
                    && secret.len() >= 32
                    && selector
                        .chars()
                        .chain(secret.chars())
                        .all(|ch| ch.is_ascii_hexdigit())
            });
        if !valid {
            return Err(invalid(
                format!("tokens[{index}] (user {})", token.user),
                "token",
                "must be <16 hex digits>.<at least 32 hex digits>",
            ));
        }
    }
    Ok(())
}

impl Loader<'_, '_> {
    /// Stores the users, the roles with their grants (replaced) and the tokens.
    pub(super) async fn access(&mut self, document: &Bootstrap) -> Result<(), BootstrapError> {
        for user in &document.users {
            self.user(user).await?;
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
        let role_id = auth::ensure_role(self.transaction, &role.name).await?;
        self.loaded.records += 1;
        import::clear(self.transaction, Owned::RoleGrants, role_id).await?;
        let grants = Grant::list(&role.modules, &role.operations);
        auth::add_grants(self.transaction, role_id, &grants).await?;
        Ok(())
    }

    async fn token(&mut self, token: &Token) -> Result<(), BootstrapError> {
        let user_id = self.user(&token.user).await?;
        let (selector, secret) = token.token.split_once('.').unwrap_or_default();
        let secret_hash = auth::hash_secret(secret);
        let row = NewToken {
            selector,
            secret_hash: &secret_hash,
            user_id,
            created_at: &self.now,
        };
        let token_id = import::upsert_token(self.transaction, &row).await?;
        import::clear(self.transaction, Owned::TokenRoles, token_id).await?;
        auth::add_token_roles(self.transaction, token_id, &token.roles).await?;
        Ok(())
    }
}
