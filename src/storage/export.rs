//! The SQL of `core-server export` (`src/bootstrap/export.rs`): each kind of record read in
//! keyset chunks of [`CHUNK`] (by id, never by offset) inside the export's one read
//! transaction, with what the records of a chunk own read for the chunk's range of ids, so
//! that memory holds one chunk whatever the size of the database.

use sqlx::{Any, AnyConnection, FromRow, any::AnyRow};

use super::flag::Flag;

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
    /// Roles' grants (`module` or `operation`, then the name).
    RoleGrants,
    /// Tokens' roles, by name.
    TokenRoles,
}

impl Owned {
    fn statement(self) -> &'static str {
        match self {
            Owned::KeywordNames => sql!(
                "SELECT keyword_id AS owner, loc AS key, name AS value FROM keyword_names \
                 WHERE keyword_id > $1 AND keyword_id <= $2 ORDER BY keyword_id, loc"
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
