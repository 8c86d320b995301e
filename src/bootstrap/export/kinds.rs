//! Each kind an export carries, made from its rows as the bootstrap document states it.

use std::collections::BTreeMap;

use super::{ExportError, Kinds};
use crate::{
    bootstrap::{
        AttributeDefinition, Keyword, Locale, Message, Named, NamedRecord, Product, ProductAsset,
        Role, Token,
    },
    storage::export::{
        self, Chunked, DefinitionRow, KeywordRow, LocaleRow, MessageRow, NamedRow, Owned, OwnedRow,
        ProductRow, TokenRow,
    },
};

impl Kinds<'_, '_> {
    pub(super) async fn locales(&mut self) -> Result<(), ExportError> {
        self.open("locales", "locales").await?;
        self.chunked(
            Chunked::Locales,
            &[],
            |row: &LocaleRow| row.id,
            |row, _| {
                Ok(Locale {
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
                })
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
            &[],
            |row: &DefinitionRow| row.id,
            |row, _| {
                Ok(AttributeDefinition {
                    id: Some(row.id),
                    tid: row.tid,
                    type_: row.type_,
                    cardinality: row.cardinality,
                    created_at: Some(row.created_at),
                })
            },
        )
        .await?;
        self.close()
    }

    pub(super) async fn channel_types(&mut self) -> Result<(), ExportError> {
        self.open("channelTypes", "channel_types").await?;
        self.chunked(Chunked::ChannelTypes, &[], |row: &NamedRow| row.id, named)
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
            &[Owned::KeywordNames, Owned::KeywordAssets],
            |row: &KeywordRow| row.id,
            |row, owned| {
                let [names, assets] = <[Vec<OwnedRow>; 2]>::try_from(owned).unwrap_or_default();
                Ok(Keyword {
                    id: Some(row.id),
                    path: row.path,
                    order_number: Some(row.order_number),
                    created_at: Some(row.created_at),
                    names: names
                        .into_iter()
                        .map(|name| (name.key, name.value))
                        .collect(),
                    assets: assets.into_iter().map(|asset| asset.value).collect(),
                })
            },
        )
        .await?;
        self.close()
    }

    pub(super) async fn products(&mut self) -> Result<(), ExportError> {
        self.open("products", "products").await?;
        self.chunked(
            Chunked::Products,
            &[Owned::ProductRestrictions, Owned::ProductAssets],
            |row: &ProductRow| row.id,
            |row, owned| {
                let [restricted, assets] =
                    <[Vec<OwnedRow>; 2]>::try_from(owned).unwrap_or_default();
                Ok(Product {
                    id: Some(row.id),
                    tid: row.tid,
                    name: row.name,
                    created_at: Some(row.created_at),
                    restricted_to: restricted.into_iter().map(|role| role.value).collect(),
                    assets: assets
                        .into_iter()
                        .map(|link| ProductAsset {
                            asset: link.key,
                            link_type: link.value,
                        })
                        .collect(),
                })
            },
        )
        .await?;
        self.close()
    }

    pub(super) async fn users(&mut self) -> Result<(), ExportError> {
        self.open("users", "users").await?;
        self.chunked(Chunked::Users, &[], |row: &NamedRow| row.id, named)
            .await?;
        self.close()
    }

    pub(super) async fn roles(&mut self) -> Result<(), ExportError> {
        self.open("roles", "roles").await?;
        self.chunked(
            Chunked::Roles,
            &[Owned::RoleGrants],
            |row: &NamedRow| row.id,
            |row, owned| {
                let (modules, operations): (Vec<OwnedRow>, Vec<OwnedRow>) = owned
                    .into_iter()
                    .flatten()
                    .partition(|grant| grant.key == "module");
                Ok(Role {
                    id: Some(row.id),
                    name: row.name,
                    modules: modules.into_iter().map(|grant| grant.value).collect(),
                    operations: operations.into_iter().map(|grant| grant.value).collect(),
                })
            },
        )
        .await?;
        self.close()
    }

    pub(super) async fn tokens(&mut self) -> Result<(), ExportError> {
        self.open("tokens", "tokens").await?;
        self.chunked(
            Chunked::Tokens,
            &[Owned::TokenRoles],
            |row: &TokenRow| row.id,
            |row, owned| {
                Ok(Token {
                    id: Some(row.id),
                    user: row.user_name,
                    roles: owned.into_iter().flatten().map(|role| role.value).collect(),
                    token: None,
                    selector: Some(row.selector),
                    secret_sha256: Some(row.secret_hash),
                    expires_at: row.expires_at,
                    created_at: Some(row.created_at),
                    revoked_at: row.revoked_at,
                    last_used_at: row.last_used_at,
                })
            },
        )
        .await?;
        self.close()
    }

    pub(super) async fn messages(&mut self) -> Result<(), ExportError> {
        self.open("messages", "messages").await?;
        self.chunked(
            Chunked::Messages,
            &[],
            |row: &MessageRow| row.id,
            |row, _| {
                let parameters =
                    match row.parameters {
                        Some(text) => Some(serde_json::from_str(&text).map_err(|error| {
                            ExportError::Stored {
                                table: "messages",
                                id: row.id,
                                problem: format!("parameters are not a JSON object: {error}"),
                            }
                        })?),
                        None => None,
                    };
                Ok(Message {
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
                    parameters,
                })
            },
        )
        .await?;
        self.close()
    }
}

/// A named record with its id.
fn named(row: NamedRow, _: Vec<Vec<OwnedRow>>) -> Result<Named, ExportError> {
    Ok(Named::Record(NamedRecord {
        id: row.id,
        name: row.name,
        created_at: row.created_at,
    }))
}
