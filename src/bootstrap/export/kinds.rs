//! Each kind an export carries, made from its rows as the bootstrap document states it.

use std::collections::BTreeMap;

use super::{ExportError, Kinds};
use crate::{
    bootstrap::{AttributeDefinition, Keyword, Locale, Message, Named, NamedRecord, Role, Token},
    storage::export::{
        self, Chunked, DefinitionRow, KeywordRow, LocaleRow, MessageRow, NamedRow, Owned, OwnedRow,
        TokenRow,
    },
};

impl Kinds<'_, '_> {
    pub(super) async fn locales(&mut self) -> Result<(), ExportError> {
        self.open("locales", "locales").await?;
        self.chunked(
            Chunked::Locales,
            None,
            |row: &LocaleRow| row.id,
            |row, _| Locale {
                id: Some(row.id),
                tid: row.tid,
                language: row.language,
                country: row.country,
                name: row.name,
                content_locale: row.content_locale.into(),
                default_content_locale: row.default_content_locale.into(),
                frontend_locale: row.frontend_locale.into(),
                default_frontend_locale: row.default_frontend_locale.into(),
                date_format: row.date_format,
                custom_date_formats_enabled: row.custom_date_formats_enabled.into(),
            },
        )
        .await?;
        self.close()
    }

    pub(super) async fn components(&mut self) -> Result<(), ExportError> {
        let components: BTreeMap<String, String> = export::components(self.connection)
            .await?
            .into_iter()
            .map(|row| (row.name, row.status))
            .collect();
        self.document.records += u64::try_from(components.len()).unwrap_or(0);
        self.document.whole("components", &components)
    }

    pub(super) async fn definitions(&mut self) -> Result<(), ExportError> {
        self.open("attributeDefinitions", "attribute_definitions")
            .await?;
        self.chunked(
            Chunked::Definitions,
            None,
            |row: &DefinitionRow| row.id,
            |row, _| AttributeDefinition {
                id: Some(row.id),
                tid: row.tid,
                type_: row.type_,
                cardinality: row.cardinality,
                created_at: Some(row.created_at),
            },
        )
        .await?;
        self.close()
    }

    pub(super) async fn channel_types(&mut self) -> Result<(), ExportError> {
        self.open("channelTypes", "channel_types").await?;
        self.chunked(Chunked::ChannelTypes, None, |row: &NamedRow| row.id, named)
            .await?;
        self.close()
    }

    pub(super) async fn channel_attributes(&mut self) -> Result<(), ExportError> {
        let registered = export::channel_attributes(self.connection).await?;
        self.document.records += u64::try_from(registered.len()).unwrap_or(0);
        self.document.whole("channelAttributes", &registered)
    }

    pub(super) async fn keywords(&mut self) -> Result<(), ExportError> {
        self.open("keywords", "keywords").await?;
        self.chunked(
            Chunked::Keywords,
            Some(Owned::KeywordNames),
            |row: &KeywordRow| row.id,
            |row, names| Keyword {
                id: Some(row.id),
                path: row.path,
                order_number: Some(row.order_number),
                created_at: Some(row.created_at),
                names: names.drain(..).map(|name| (name.key, name.value)).collect(),
                assets: Vec::new(),
            },
        )
        .await?;
        self.close()
    }

    pub(super) async fn users(&mut self) -> Result<(), ExportError> {
        self.open("users", "users").await?;
        self.chunked(Chunked::Users, None, |row: &NamedRow| row.id, named)
            .await?;
        self.close()
    }

    pub(super) async fn roles(&mut self) -> Result<(), ExportError> {
        self.open("roles", "roles").await?;
        self.chunked(
            Chunked::Roles,
            Some(Owned::RoleGrants),
            |row: &NamedRow| row.id,
            |row, grants| {
                let (modules, operations): (Vec<OwnedRow>, Vec<OwnedRow>) =
                    grants.drain(..).partition(|grant| grant.key == "module");
                Role {
                    id: Some(row.id),
                    name: row.name,
                    modules: modules.into_iter().map(|grant| grant.value).collect(),
                    operations: operations.into_iter().map(|grant| grant.value).collect(),
                }
            },
        )
        .await?;
        self.close()
    }

    pub(super) async fn tokens(&mut self) -> Result<(), ExportError> {
        self.open("tokens", "tokens").await?;
        self.chunked(
            Chunked::Tokens,
            Some(Owned::TokenRoles),
            |row: &TokenRow| row.id,
            |row, roles| Token {
                id: Some(row.id),
                user: row.user_name,
                roles: roles.drain(..).map(|role| role.value).collect(),
                token: None,
                selector: Some(row.selector),
                secret_sha256: Some(row.secret_hash),
                expires_at: row.expires_at,
                created_at: Some(row.created_at),
                revoked_at: row.revoked_at,
                last_used_at: row.last_used_at,
            },
        )
        .await?;
        self.close()
    }

    pub(super) async fn messages(&mut self) -> Result<(), ExportError> {
        self.open("messages", "messages").await?;
        self.chunked(
            Chunked::Messages,
            None,
            |row: &MessageRow| row.id,
            |row, _| Message {
                id: Some(row.id),
                tid: row.tid,
                created_at: row.created_at,
                severity: row.severity,
                subject: row.subject,
                body: row.body,
                recipient_user: row.recipient_user,
                recipient_role: row.recipient_role,
                sender_application: row.sender_application,
                sender_plugin: row.sender_plugin,
                sender_user: row.sender_user,
                parameters: row
                    .parameters
                    .and_then(|parameters| serde_json::from_str(&parameters).ok()),
            },
        )
        .await?;
        self.close()
    }
}

/// A named record with its id.
fn named(row: NamedRow, _: &mut Vec<OwnedRow>) -> Named {
    Named::Record(NamedRecord {
        id: row.id,
        name: row.name,
        created_at: row.created_at,
    })
}
