//! The upserts of the bootstrap's records, one named row each: a second load updates a record
//! found by its identity and never duplicates it.

use sqlx::Row;

use super::Load;

/// A locale (`tid` `<language>_<COUNTRY>`).
#[derive(Debug)]
pub(crate) struct LocaleRow<'a> {
    /// The id it keeps when new; none: the next one.
    pub(crate) id: Option<i64>,
    pub(crate) tid: &'a str,
    pub(crate) language: &'a str,
    pub(crate) country: &'a str,
    pub(crate) name: &'a str,
    pub(crate) content_locale: bool,
    pub(crate) default_content_locale: bool,
    pub(crate) frontend_locale: bool,
    pub(crate) default_frontend_locale: bool,
    pub(crate) date_format: Option<&'a str>,
    pub(crate) custom_date_formats_enabled: bool,
}

/// Upserts a locale.
pub(crate) async fn upsert_locale(
    load: Load<'_, '_>,
    row: &LocaleRow<'_>,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        sql!("INSERT INTO locales (id, tid, language, country, name, content_locale, default_content_locale, \
         frontend_locale, default_frontend_locale, date_format, custom_date_formats_enabled) \
         VALUES ($11, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (tid) DO UPDATE SET \
         language = excluded.language, country = excluded.country, name = excluded.name, \
         content_locale = excluded.content_locale, default_content_locale = excluded.default_content_locale, \
         frontend_locale = excluded.frontend_locale, default_frontend_locale = excluded.default_frontend_locale, \
         date_format = excluded.date_format, custom_date_formats_enabled = excluded.custom_date_formats_enabled"),
    )
    .bind(row.tid)
    .bind(row.language)
    .bind(row.country)
    .bind(row.name)
    .bind(row.content_locale)
    .bind(row.default_content_locale)
    .bind(row.frontend_locale)
    .bind(row.default_frontend_locale)
    .bind(row.date_format)
    .bind(row.custom_date_formats_enabled)
    .bind(row.id)
    .execute(&mut **load)
    .await?;
    Ok(())
}

/// Upserts a component's status.
pub(crate) async fn upsert_component(
    load: Load<'_, '_>,
    name: &str,
    status: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query(sql!(
        "INSERT INTO components (name, status) VALUES ($1, $2) \
         ON CONFLICT (name) DO UPDATE SET status = excluded.status"
    ))
    .bind(name)
    .bind(status)
    .execute(&mut **load)
    .await?;
    Ok(())
}

/// An attribute definition (a product link type when it has a cardinality).
#[derive(Debug)]
pub(crate) struct DefinitionRow<'a> {
    /// The id it keeps when new; none: the next one.
    pub(crate) id: Option<i64>,
    pub(crate) tid: &'a str,
    pub(crate) type_: &'a str,
    pub(crate) cardinality: Option<i64>,
    /// When it was created, when new.
    pub(crate) created_at: &'a str,
}

/// Upserts an attribute definition.
pub(crate) async fn upsert_definition(
    load: Load<'_, '_>,
    row: &DefinitionRow<'_>,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        sql!("INSERT INTO attribute_definitions (id, tid, type, cardinality, created_at) VALUES ($5, $1, $2, $3, $4) \
         ON CONFLICT (tid) DO UPDATE SET type = excluded.type, cardinality = excluded.cardinality"),
    )
    .bind(row.tid)
    .bind(row.type_)
    .bind(row.cardinality)
    .bind(row.created_at)
    .bind(row.id)
    .execute(&mut **load)
    .await?;
    Ok(())
}

/// Stores a channel type (kept when it is), with the id it keeps when new (none: the next one).
pub(crate) async fn insert_channel_type(
    load: Load<'_, '_>,
    id: Option<i64>,
    name: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query(sql!(
        "INSERT INTO channel_types (id, name) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING"
    ))
    .bind(id)
    .bind(name)
    .execute(&mut **load)
    .await?;
    Ok(())
}

/// Registers an attribute definition, by `tid`, for channels (kept when it is).
pub(crate) async fn insert_channel_attribute(
    load: Load<'_, '_>,
    tid: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query(sql!(
        "INSERT INTO channel_attributes (attribute_definition_id) \
         SELECT id FROM attribute_definitions WHERE tid = $1 ON CONFLICT DO NOTHING"
    ))
    .bind(tid)
    .execute(&mut **load)
    .await?;
    Ok(())
}

/// Stores a user (kept when it is), with the id and creation time it keeps when new; its id.
pub(crate) async fn insert_user(
    load: Load<'_, '_>,
    id: Option<i64>,
    name: &str,
    created_at: &str,
) -> Result<i64, sqlx::Error> {
    sqlx::query(sql!(
        "INSERT INTO users (id, name, created_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING"
    ))
    .bind(id)
    .bind(name)
    .bind(created_at)
    .execute(&mut **load)
    .await?;
    sqlx::query_scalar(sql!("SELECT id FROM users WHERE name = $1"))
        .bind(name)
        .fetch_one(&mut **load)
        .await
}

/// Stores a role (kept when it is), with the id it keeps when new; its id.
pub(crate) async fn insert_role(
    load: Load<'_, '_>,
    id: Option<i64>,
    name: &str,
) -> Result<i64, sqlx::Error> {
    sqlx::query(sql!(
        "INSERT INTO roles (id, name) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING"
    ))
    .bind(id)
    .bind(name)
    .execute(&mut **load)
    .await?;
    sqlx::query_scalar(sql!("SELECT id FROM roles WHERE name = $1"))
        .bind(name)
        .fetch_one(&mut **load)
        .await
}

/// A token as a document gives it: by the hash of its secret.
#[derive(Debug)]
pub(crate) struct TokenRow<'a> {
    /// The id it keeps when new; none: the next one.
    pub(crate) id: Option<i64>,
    pub(crate) selector: &'a str,
    pub(crate) secret_hash: &'a str,
    pub(crate) user_id: i64,
    /// When it was created, when new.
    pub(crate) created_at: &'a str,
    pub(crate) expires_at: Option<&'a str>,
    /// When it was revoked: a revocation is kept, and never undone.
    pub(crate) revoked_at: Option<&'a str>,
}

/// Upserts a token, given its selector and the hash of its secret; its id. A revoked token
/// stays revoked: an import never revives one.
pub(crate) async fn upsert_token(
    load: Load<'_, '_>,
    token: &TokenRow<'_>,
) -> Result<i64, sqlx::Error> {
    sqlx::query(sql!(
        "INSERT INTO tokens (id, selector, secret_hash, user_id, created_at, expires_at, revoked_at) \
         VALUES ($6, $1, $2, $3, $4, $5, $7) \
         ON CONFLICT (selector) DO UPDATE SET secret_hash = excluded.secret_hash, \
         user_id = excluded.user_id, expires_at = excluded.expires_at, \
         revoked_at = COALESCE(tokens.revoked_at, excluded.revoked_at) RETURNING id"
    ))
    .bind(token.selector)
    .bind(token.secret_hash)
    .bind(token.user_id)
    .bind(token.created_at)
    .bind(token.expires_at)
    .bind(token.id)
    .bind(token.revoked_at)
    .fetch_one(&mut **load)
    .await?
    .try_get("id")
}

/// Records when a token was last used, unless a use is recorded already.
pub(crate) async fn token_used(
    load: Load<'_, '_>,
    token_id: i64,
    last_used_at: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query(sql!(
        "INSERT INTO token_uses (token_id, last_used_at) VALUES ($1, $2) \
         ON CONFLICT (token_id) DO NOTHING"
    ))
    .bind(token_id)
    .bind(last_used_at)
    .execute(&mut **load)
    .await?;
    Ok(())
}

/// An asset as a document gives it.
#[derive(Debug)]
pub(crate) struct AssetRow<'a> {
    /// The id it keeps when new; none: the next one.
    pub(crate) id: Option<i64>,
    pub(crate) tid: &'a str,
    pub(crate) name: Option<&'a str>,
    pub(crate) path: Option<&'a str>,
    /// When it was created, when new.
    pub(crate) created_at: &'a str,
    pub(crate) modified_at: &'a str,
}

/// Upserts an asset.
pub(crate) async fn upsert_asset(
    load: Load<'_, '_>,
    row: &AssetRow<'_>,
) -> Result<(), sqlx::Error> {
    sqlx::query(sql!(
        "INSERT INTO assets (id, tid, name, path, created_at, modified_at) \
         VALUES ($6, $1, $2, $3, $4, $5) \
         ON CONFLICT (tid) DO UPDATE SET name = excluded.name, path = excluded.path, \
         modified_at = excluded.modified_at"
    ))
    .bind(row.tid)
    .bind(row.name)
    .bind(row.path)
    .bind(row.created_at)
    .bind(row.modified_at)
    .bind(row.id)
    .execute(&mut **load)
    .await?;
    Ok(())
}

/// An asset version, stored before its content (which is written in chunks after it).
#[derive(Debug)]
pub(crate) struct VersionRow<'a> {
    /// The id it keeps when new; none: the next one.
    pub(crate) id: Option<i64>,
    pub(crate) asset_id: i64,
    pub(crate) version_number: i64,
    pub(crate) tid: Option<&'a str>,
    pub(crate) media_type: &'a str,
    pub(crate) file_name: Option<&'a str>,
    pub(crate) created_at: &'a str,
}

/// Upserts an asset version; its id.
pub(crate) async fn upsert_version(
    load: Load<'_, '_>,
    row: &VersionRow<'_>,
) -> Result<i64, sqlx::Error> {
    sqlx::query(
        sql!("INSERT INTO asset_versions (id, asset_id, version_number, tid, media_type, file_name, content, created_at) \
         VALUES ($8, $1, $2, $3, $4, $5, $6, $7) ON CONFLICT (asset_id, version_number) DO UPDATE SET \
         tid = excluded.tid, media_type = excluded.media_type, file_name = excluded.file_name \
         RETURNING id"),
    )
    .bind(row.asset_id)
    .bind(row.version_number)
    .bind(row.tid)
    .bind(row.media_type)
    .bind(row.file_name)
    .bind(Vec::<u8>::new())
    .bind(row.created_at)
    .bind(row.id)
    .fetch_one(&mut **load)
    .await?
    .try_get("id")
}

/// Records the size and entity tag of a version's content once written.
pub(crate) async fn set_version_content(
    load: Load<'_, '_>,
    version_id: i64,
    size: i64,
    etag: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query(sql!(
        "UPDATE asset_versions SET size = $1, etag = $2 WHERE id = $3"
    ))
    .bind(size)
    .bind(etag)
    .bind(version_id)
    .execute(&mut **load)
    .await?;
    Ok(())
}

/// Upserts a preview of a version, its content written in chunks already.
pub(crate) async fn upsert_preview(
    load: Load<'_, '_>,
    version_id: i64,
    format: &str,
    media_type: &str,
    size: i64,
    etag: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query(sql!(
        "INSERT INTO asset_previews (version_id, format, media_type, content, size, etag) \
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (version_id, format) DO UPDATE SET \
         media_type = excluded.media_type, size = excluded.size, etag = excluded.etag"
    ))
    .bind(version_id)
    .bind(format)
    .bind(media_type)
    .bind(Vec::<u8>::new())
    .bind(size)
    .bind(etag)
    .execute(&mut **load)
    .await?;
    Ok(())
}

/// A message as a document gives it.
#[derive(Debug)]
pub(crate) struct MessageRow<'a> {
    /// The id it keeps when new; none: the next one.
    pub(crate) id: Option<i64>,
    pub(crate) tid: Option<&'a str>,
    pub(crate) subject: Option<&'a str>,
    pub(crate) body: Option<&'a str>,
    pub(crate) severity: Option<&'a str>,
    pub(crate) recipient_user: Option<&'a str>,
    pub(crate) recipient_role: Option<&'a str>,
    pub(crate) sender_application: Option<&'a str>,
    pub(crate) sender_plugin: Option<&'a str>,
    /// Free key/value pairs, as a JSON object.
    pub(crate) parameters: Option<String>,
    /// When it was sent.
    pub(crate) created_at: &'a str,
    pub(crate) sender_user: Option<&'a str>,
}

/// Stores a message unless its tid is stored (a message is never changed once sent).
pub(crate) async fn insert_message(
    load: Load<'_, '_>,
    row: &MessageRow<'_>,
) -> Result<(), sqlx::Error> {
    sqlx::query(sql!(
        "INSERT INTO messages (id, tid, subject, body, severity, recipient_user, recipient_role, \
         sender_application, sender_plugin, parameters, created_at, sender_user) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT (tid) DO NOTHING"
    ))
    .bind(row.id)
    .bind(row.tid)
    .bind(row.subject)
    .bind(row.body)
    .bind(row.severity)
    .bind(row.recipient_user)
    .bind(row.recipient_role)
    .bind(row.sender_application)
    .bind(row.sender_plugin)
    .bind(row.parameters.as_deref())
    .bind(row.created_at)
    .bind(row.sender_user)
    .execute(&mut **load)
    .await?;
    Ok(())
}
