//! The SQL of glossary entries and their translations: the writes of glossary entries persist and
//! perform.

use sqlx::AnyConnection;

/// What an entry's `meta` (or a translation's items) says; each field only when given.
#[derive(Debug, Default)]
pub(crate) struct Fields {
    /// The text.
    pub(crate) value: Option<String>,
    /// Whether the text is forbidden.
    pub(crate) forbidden: Option<bool>,
    /// Who edited last.
    pub(crate) last_edited_username: Option<String>,
    /// When it was edited last.
    pub(crate) last_edited_date: Option<String>,
}

/// A translation of an entry: one `links/itms` group.
#[derive(Debug)]
pub(crate) struct Translation {
    /// Its locale.
    pub(crate) loc: Option<String>,
    /// Its `mode`.
    pub(crate) mode: Option<String>,
    /// Its `type`.
    pub(crate) type_: Option<String>,
    /// The similarity in percent.
    pub(crate) similarity: Option<i64>,
    /// What it says.
    pub(crate) fields: Fields,
}

/// An entry's new values; `None` keeps the stored one.
#[derive(Debug)]
pub(crate) struct Entry<'a> {
    /// The glossary holding it.
    pub(crate) glossary: Option<i64>,
    /// Its locale.
    pub(crate) loc: Option<&'a str>,
    /// `term` or `sentence`.
    pub(crate) type_: Option<&'a str>,
    /// What its `meta` says.
    pub(crate) fields: &'a Fields,
}

/// Changes a stored entry: the values given, and who edited it last and when.
pub(crate) async fn update(
    connection: &mut AnyConnection,
    id: i64,
    entry: &Entry<'_>,
) -> Result<(), sqlx::Error> {
    sqlx::query(sql!(
        "UPDATE glossary_entries SET glossary_id = COALESCE($1, glossary_id), \
         loc = COALESCE($2, loc), type = COALESCE($3, type), value = COALESCE($4, value), \
         forbidden = COALESCE($5, forbidden), last_edited_username = $6, last_edited_date = $7 \
         WHERE id = $8"
    ))
    .bind(entry.glossary)
    .bind(entry.loc)
    .bind(entry.type_)
    .bind(entry.fields.value.as_deref())
    .bind(entry.fields.forbidden)
    .bind(entry.fields.last_edited_username.as_deref())
    .bind(entry.fields.last_edited_date.as_deref())
    .bind(id)
    .execute(connection)
    .await?;
    Ok(())
}

/// Stores a new entry under `tid` in `glossary`; its id.
pub(crate) async fn insert(
    connection: &mut AnyConnection,
    tid: &str,
    glossary: i64,
    loc: &str,
    type_: &str,
    fields: &Fields,
) -> Result<i64, sqlx::Error> {
    sqlx::query_scalar(sql!(
        "INSERT INTO glossary_entries (tid, glossary_id, loc, type, value, forbidden, \
         last_edited_username, last_edited_date) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) \
         RETURNING id"
    ))
    .bind(tid)
    .bind(glossary)
    .bind(loc)
    .bind(type_)
    .bind(fields.value.as_deref())
    .bind(fields.forbidden.unwrap_or(false))
    .bind(fields.last_edited_username.as_deref())
    .bind(fields.last_edited_date.as_deref())
    .fetch_one(connection)
    .await
}

/// Replaces the entry's translation in the translation's locale; the last edit defaults to the
/// entry's.
pub(crate) async fn set_translation(
    connection: &mut AnyConnection,
    entry: i64,
    translation: &Translation,
    entry_fields: &Fields,
) -> Result<(), sqlx::Error> {
    sqlx::query(sql!(
        "DELETE FROM glossary_translations WHERE entry_id = $1 AND loc IS NOT DISTINCT FROM $2"
    ))
    .bind(entry)
    .bind(translation.loc.as_deref())
    .execute(&mut *connection)
    .await?;
    let fields = &translation.fields;
    sqlx::query(sql!(
        "INSERT INTO glossary_translations (entry_id, loc, mode, type, similarity, value, \
         forbidden, last_edited_username, last_edited_date) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)"
    ))
    .bind(entry)
    .bind(translation.loc.as_deref())
    .bind(translation.mode.as_deref())
    .bind(translation.type_.as_deref())
    .bind(translation.similarity)
    .bind(fields.value.as_deref())
    .bind(fields.forbidden.unwrap_or(false))
    .bind(
        fields
            .last_edited_username
            .as_deref()
            .or(entry_fields.last_edited_username.as_deref()),
    )
    .bind(
        fields
            .last_edited_date
            .as_deref()
            .or(entry_fields.last_edited_date.as_deref()),
    )
    .execute(connection)
    .await?;
    Ok(())
}

/// Deletes an entry with its translations.
pub(crate) async fn delete(connection: &mut AnyConnection, id: i64) -> Result<(), sqlx::Error> {
    sqlx::query(sql!("DELETE FROM glossary_entries WHERE id = $1"))
        .bind(id)
        .execute(connection)
        .await?;
    Ok(())
}

/// Moves an entry to another glossary, keeping its id and tid.
pub(crate) async fn move_to(
    connection: &mut AnyConnection,
    id: i64,
    glossary: i64,
) -> Result<(), sqlx::Error> {
    sqlx::query(sql!(
        "UPDATE glossary_entries SET glossary_id = $1 WHERE id = $2"
    ))
    .bind(glossary)
    .bind(id)
    .execute(connection)
    .await?;
    Ok(())
}

/// Copies an entry and its translations into a glossary under `new_tid`; the copy's id.
pub(crate) async fn copy_to(
    connection: &mut AnyConnection,
    id: i64,
    glossary: i64,
    new_tid: &str,
) -> Result<i64, sqlx::Error> {
    let new_id: i64 = sqlx::query_scalar(sql!(
        "INSERT INTO glossary_entries (tid, glossary_id, loc, type, value, forbidden, \
         last_edited_username, last_edited_date) \
         SELECT $1, $2, loc, type, value, forbidden, last_edited_username, last_edited_date \
         FROM glossary_entries WHERE id = $3 RETURNING id"
    ))
    .bind(new_tid)
    .bind(glossary)
    .bind(id)
    .fetch_one(&mut *connection)
    .await?;
    sqlx::query(sql!(
        "INSERT INTO glossary_translations (entry_id, loc, mode, type, similarity, value, \
         forbidden, last_edited_username, last_edited_date) \
         SELECT $1, loc, mode, type, similarity, value, forbidden, last_edited_username, \
         last_edited_date FROM glossary_translations WHERE entry_id = $2 ORDER BY id"
    ))
    .bind(new_id)
    .bind(id)
    .execute(connection)
    .await?;
    Ok(new_id)
}
