//! The SQL of `core-server export` (`src/bootstrap/export.rs`): each kind of record read in
//! keyset chunks of [`CHUNK`] (by id, never by offset) inside the export's one read
//! transaction, with what the records of a chunk own read for the chunk's range of ids, so
//! that memory holds one chunk whatever the size of the database.

use sqlx::{Any, AnyConnection, FromRow, any::AnyRow};

use super::flag::Flag;

mod catalogue;

pub(crate) use catalogue::*;

/// Records read by one statement at most.
pub(crate) const CHUNK: i64 = 1024;

/// A locale as exported.
#[derive(Debug, FromRow)]
pub(crate) struct LocaleRow {
    pub(crate) id: i64,
    pub(crate) tid: String,
    pub(crate) language: String,
    pub(crate) country: String,
    pub(crate) name: String,
    pub(crate) content_locale: Flag,
    pub(crate) default_content_locale: Flag,
    pub(crate) frontend_locale: Flag,
    pub(crate) default_frontend_locale: Flag,
    pub(crate) date_format: Option<String>,
    pub(crate) custom_date_formats_enabled: Flag,
}

/// A component and its status.
#[derive(Debug, FromRow)]
pub(crate) struct ComponentRow {
    pub(crate) name: String,
    pub(crate) status: String,
}

/// An attribute definition as exported.
#[derive(Debug, FromRow)]
pub(crate) struct DefinitionRow {
    pub(crate) id: i64,
    pub(crate) tid: String,
    #[sqlx(rename = "type")]
    pub(crate) type_: String,
    pub(crate) cardinality: Option<i64>,
    pub(crate) created_at: String,
}

/// A record known by an id and a name: a channel type, a user, a role.
#[derive(Debug, FromRow)]
pub(crate) struct NamedRow {
    pub(crate) id: i64,
    pub(crate) name: String,
    /// When it was created (users only; none for the others).
    pub(crate) created_at: Option<String>,
}

/// A keyword as exported, without what it owns.
#[derive(Debug, FromRow)]
pub(crate) struct KeywordRow {
    pub(crate) id: i64,
    pub(crate) path: String,
    pub(crate) order_number: i64,
    pub(crate) created_at: String,
}

/// Something a record owns, by the owner's id: a localized name (`key` its locale), a role's
/// grant (`key` its kind), a token's role (`key` empty).
#[derive(Debug, FromRow)]
pub(crate) struct OwnedRow {
    pub(crate) owner: i64,
    pub(crate) key: String,
    pub(crate) value: String,
}

/// A token as exported: its secret's hash, never the secret.
#[derive(Debug, FromRow)]
pub(crate) struct TokenRow {
    pub(crate) id: i64,
    pub(crate) selector: String,
    pub(crate) secret_hash: String,
    pub(crate) user_name: String,
    pub(crate) created_at: String,
    pub(crate) expires_at: Option<String>,
    pub(crate) revoked_at: Option<String>,
    pub(crate) last_used_at: Option<String>,
}

/// A message as exported.
#[derive(Debug, FromRow)]
pub(crate) struct MessageRow {
    pub(crate) id: i64,
    pub(crate) tid: Option<String>,
    pub(crate) subject: Option<String>,
    pub(crate) body: Option<String>,
    pub(crate) severity: Option<String>,
    pub(crate) recipient_user: Option<String>,
    pub(crate) recipient_role: Option<String>,
    pub(crate) sender_application: Option<String>,
    pub(crate) sender_plugin: Option<String>,
    pub(crate) parameters: Option<String>,
    pub(crate) created_at: String,
    pub(crate) sender_user: Option<String>,
}

/// A kind of record the export reads in chunks, by id.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Chunked {
    Locales,
    Definitions,
    ChannelTypes,
    Users,
    Roles,
    Keywords,
    Tokens,
    Messages,
    Glossaries,
    Assets,
    Products,
    Channels,
    Peos,
    Classifications,
    Briefings,
}

impl Chunked {
    /// The statement reading the chunk of ids after `$1`, [`CHUNK`] at most, by id.
    fn statement(self) -> &'static str {
        match self {
            Chunked::Locales => sql!(
                "SELECT id, tid, language, country, name, \
                 CAST(content_locale AS INTEGER) AS content_locale, \
                 CAST(default_content_locale AS INTEGER) AS default_content_locale, \
                 CAST(frontend_locale AS INTEGER) AS frontend_locale, \
                 CAST(default_frontend_locale AS INTEGER) AS default_frontend_locale, \
                 date_format, \
                 CAST(custom_date_formats_enabled AS INTEGER) AS custom_date_formats_enabled \
                 FROM locales WHERE id > $1 ORDER BY id LIMIT $2"
            ),
            Chunked::Definitions => sql!(
                "SELECT id, tid, type, cardinality, created_at FROM attribute_definitions \
                 WHERE id > $1 ORDER BY id LIMIT $2"
            ),
            Chunked::ChannelTypes => sql!(
                "SELECT id, name, CAST(NULL AS TEXT) AS created_at FROM channel_types \
                 WHERE id > $1 ORDER BY id LIMIT $2"
            ),
            Chunked::Users => {
                sql!("SELECT id, name, created_at FROM users WHERE id > $1 ORDER BY id LIMIT $2")
            }
            Chunked::Roles => sql!(
                "SELECT id, name, CAST(NULL AS TEXT) AS created_at FROM roles \
                 WHERE id > $1 ORDER BY id LIMIT $2"
            ),
            Chunked::Keywords => sql!(
                "SELECT id, path, order_number, created_at FROM keywords \
                 WHERE id > $1 ORDER BY id LIMIT $2"
            ),
            Chunked::Tokens => sql!(
                "SELECT t.id, t.selector, t.secret_hash, u.name AS user_name, t.created_at, \
                 t.expires_at, t.revoked_at, (SELECT s.last_used_at FROM token_uses s \
                 WHERE s.token_id = t.id) AS last_used_at FROM tokens t \
                 JOIN users u ON u.id = t.user_id WHERE t.id > $1 ORDER BY t.id LIMIT $2"
            ),
            Chunked::Glossaries => sql!(
                "SELECT id, tid, name, languages, created_at FROM glossaries \
                 WHERE id > $1 ORDER BY id LIMIT $2"
            ),
            Chunked::Assets => sql!(
                "SELECT id, tid, name, path, created_at, modified_at FROM assets \
                 WHERE id > $1 ORDER BY id LIMIT $2"
            ),
            Chunked::Products => sql!(
                "SELECT id, tid, name, created_at FROM products WHERE id > $1 ORDER BY id LIMIT $2"
            ),
            Chunked::Channels => sql!(
                "SELECT c.id, c.tid, (SELECT p.tid FROM channels p WHERE p.id = c.parent_id) \
                 AS parent, (SELECT t.name FROM channel_types t WHERE t.id = c.type_id) \
                 AS type_name, c.order_sequence, c.name, c.html_icon, c.icon, \
                 c.allowed_functions, c.created_at, c.modified_at FROM channels c \
                 WHERE c.id > $1 ORDER BY c.id LIMIT $2"
            ),
            Chunked::Peos => sql!(
                "SELECT p.id, p.tid, (SELECT r.tid FROM products r WHERE r.id = p.product_id) \
                 AS product, p.template, CAST(p.is_default AS INTEGER) AS is_default, p.name, \
                 p.created_at, p.modified_at FROM peos p WHERE p.id > $1 ORDER BY p.id LIMIT $2"
            ),
            Chunked::Classifications => sql!(
                "SELECT id, tid, created_at, modified_at FROM classifications \
                 WHERE id > $1 ORDER BY id LIMIT $2"
            ),
            Chunked::Briefings => sql!(
                "SELECT l.id, (SELECT c.tid FROM channels c WHERE c.id = l.channel_id) AS channel, \
                 l.module_cfg_tid, l.locale, l.layout_key, l.name, l.attributes \
                 FROM briefing_layouts l WHERE l.id > $1 ORDER BY l.id LIMIT $2"
            ),
            Chunked::Messages => sql!(
                "SELECT id, tid, subject, body, severity, recipient_user, recipient_role, \
                 sender_application, sender_plugin, parameters, created_at, sender_user \
                 FROM messages WHERE id > $1 ORDER BY id LIMIT $2"
            ),
        }
    }
}

/// The records of a kind whose ids follow `after`, [`CHUNK`] at most, by id.
pub(crate) async fn chunk<R>(
    connection: &mut AnyConnection,
    kind: Chunked,
    after: i64,
) -> Result<Vec<R>, sqlx::Error>
where
    R: for<'r> FromRow<'r, AnyRow> + Send + Unpin,
{
    sqlx::query_as::<Any, R>(kind.statement())
        .bind(after)
        .bind(CHUNK)
        .fetch_all(connection)
        .await
}

/// A kind of owned rows, read for a range of owners' ids.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Owned {
    /// Keywords' localized names, by locale.
    KeywordNames,
    /// Keywords' asset links, by the asset's tid.
    KeywordAssets,
    /// Roles' grants (`module` or `operation`, then the name).
    RoleGrants,
    /// Tokens' roles, by name.
    TokenRoles,
    /// Products' asset links (`key` the asset's tid, `value` the link type's), by position.
    ProductAssets,
    /// The roles assets are restricted to, by name.
    AssetRestrictions,
    /// The roles products are restricted to, by name.
    ProductRestrictions,
    /// The roles PEOs are restricted to, by name.
    PeoRestrictions,
    /// Channels' asset links, by the asset's id.
    ChannelAssets,
    /// PEOs' nodes, by position.
    PeoNodes,
    /// PEOs' channel links, by the channel's id.
    PeoChannels,
    /// Classifications' localized names, by locale.
    ClassificationNames,
    /// Classification nodes' localized names, by locale.
    NodeNames,
    /// The products classified under nodes (`key` the node's place among the product's nodes).
    NodeProducts,
    /// Domain values' localized texts, by locale.
    DomainValueNames,
}

/// The roles the records of one kind are restricted to (`$1`..`$2` their ids).
macro_rules! restrictions {
    ($kind:literal) => {
        concat!(
            "SELECT a.record_id AS owner, '' AS key, r.name AS value FROM access_restrictions a \
             JOIN roles r ON r.id = a.role_id WHERE a.kind = '",
            $kind,
            "' AND a.record_id > $1 AND a.record_id <= $2 ORDER BY a.record_id, r.name"
        )
    };
}

impl Owned {
    fn statement(self) -> &'static str {
        match self {
            Owned::KeywordNames => sql!(
                "SELECT keyword_id AS owner, loc AS key, name AS value FROM keyword_names \
                 WHERE keyword_id > $1 AND keyword_id <= $2 ORDER BY keyword_id, loc"
            ),
            Owned::KeywordAssets => sql!(
                "SELECT k.keyword_id AS owner, '' AS key, a.tid AS value FROM keyword_assets k \
                 JOIN assets a ON a.id = k.asset_id WHERE k.keyword_id > $1 \
                 AND k.keyword_id <= $2 ORDER BY k.keyword_id, a.tid"
            ),
            Owned::ProductAssets => sql!(
                "SELECT p.product_id AS owner, a.tid AS key, d.tid AS value \
                 FROM product_assets p JOIN assets a ON a.id = p.asset_id \
                 JOIN attribute_definitions d ON d.id = p.link_type_id \
                 WHERE p.product_id > $1 AND p.product_id <= $2 \
                 ORDER BY p.product_id, p.position, a.tid, d.tid"
            ),
            Owned::AssetRestrictions => sql!(restrictions!("asset")),
            Owned::ProductRestrictions => sql!(restrictions!("product")),
            Owned::PeoRestrictions => sql!(restrictions!("peo")),
            Owned::ChannelAssets => sql!(
                "SELECT c.channel_id AS owner, '' AS key, a.tid AS value FROM channel_assets c \
                 JOIN assets a ON a.id = c.asset_id WHERE c.channel_id > $1 \
                 AND c.channel_id <= $2 ORDER BY c.channel_id, a.id"
            ),
            Owned::PeoNodes => sql!(
                "SELECT peo_id AS owner, '' AS key, node AS value FROM peo_nodes \
                 WHERE peo_id > $1 AND peo_id <= $2 ORDER BY peo_id, position"
            ),
            Owned::PeoChannels => sql!(
                "SELECT p.peo_id AS owner, '' AS key, c.tid AS value FROM peo_channels p \
                 JOIN channels c ON c.id = p.channel_id WHERE p.peo_id > $1 \
                 AND p.peo_id <= $2 ORDER BY p.peo_id, c.id"
            ),
            Owned::ClassificationNames => sql!(
                "SELECT classification_id AS owner, loc AS key, name AS value \
                 FROM classification_names WHERE classification_id > $1 \
                 AND classification_id <= $2 ORDER BY classification_id, loc"
            ),
            Owned::NodeNames => sql!(
                "SELECT node_id AS owner, loc AS key, name AS value FROM node_names \
                 WHERE node_id > $1 AND node_id <= $2 ORDER BY node_id, loc"
            ),
            Owned::NodeProducts => sql!(
                "SELECT n.node_id AS owner, CAST(n.position AS TEXT) AS key, \
                 (SELECT p.tid FROM products p WHERE p.id = n.product_id) AS value \
                 FROM product_nodes n WHERE n.node_id > $1 AND n.node_id <= $2 \
                 ORDER BY n.node_id, n.product_id"
            ),
            Owned::DomainValueNames => sql!(
                "SELECT domain_value_id AS owner, loc AS key, value FROM domain_value_names \
                 WHERE domain_value_id > $1 AND domain_value_id <= $2 \
                 ORDER BY domain_value_id, loc"
            ),
            Owned::RoleGrants => sql!(
                "SELECT role_id AS owner, kind AS key, name AS value FROM role_grants \
                 WHERE role_id > $1 AND role_id <= $2 ORDER BY role_id, kind, name"
            ),
            Owned::TokenRoles => sql!(
                "SELECT t.token_id AS owner, '' AS key, r.name AS value FROM token_roles t \
                 JOIN roles r ON r.id = t.role_id WHERE t.token_id > $1 AND t.token_id <= $2 \
                 ORDER BY t.token_id, r.name"
            ),
        }
    }
}

/// What the records of ids in `(after, last]` own, by owner.
pub(crate) async fn owned(
    connection: &mut AnyConnection,
    kind: Owned,
    after: i64,
    last: i64,
) -> Result<Vec<OwnedRow>, sqlx::Error> {
    sqlx::query_as(kind.statement())
        .bind(after)
        .bind(last)
        .fetch_all(connection)
        .await
}

/// Every component, by name (a handful).
pub(crate) async fn components(
    connection: &mut AnyConnection,
) -> Result<Vec<ComponentRow>, sqlx::Error> {
    sqlx::query_as(sql!("SELECT name, status FROM components ORDER BY name"))
        .fetch_all(connection)
        .await
}

/// The attribute definitions registered for channels, by `tid`.
pub(crate) async fn channel_attributes(
    connection: &mut AnyConnection,
) -> Result<Vec<String>, sqlx::Error> {
    sqlx::query_scalar(sql!(
        "SELECT (SELECT d.tid FROM attribute_definitions d \
         WHERE d.id = c.attribute_definition_id) AS tid FROM channel_attributes c \
         ORDER BY c.attribute_definition_id"
    ))
    .fetch_all(connection)
    .await
}
