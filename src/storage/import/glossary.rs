//! The writes of glossaries, their entries and the entries' translations.

use super::Load;

/// Upserts a glossary (`languages` comma-separated), with the id and creation time it keeps
/// when new; its id.
pub(crate) async fn upsert_glossary(
    load: Load<'_, '_>,
    id: Option<i64>,
    tid: &str,
    name: &str,
    languages: &str,
    created_at: &str,
) -> Result<i64, sqlx::Error> {
    sqlx::query(sql!(
        "INSERT INTO glossaries (id, tid, name, languages, created_at) VALUES ($5, $1, $2, $3, $4) \
         ON CONFLICT (tid) DO UPDATE SET name = excluded.name, languages = excluded.languages"
    ))
    .bind(tid)
    .bind(name)
    .bind(languages)
    .bind(created_at)
    .bind(id)
    .execute(&mut **load)
    .await?;
    super::stored_id(load, super::Lookup::Glossary, tid).await
}

/// A glossary entry or one of its translations: what both carry.
#[derive(Debug)]
pub(crate) struct Wording<'a> {
    pub(crate) loc: Option<&'a str>,
    pub(crate) value: Option<&'a str>,
    pub(crate) forbidden: bool,
    pub(crate) last_edited_username: Option<&'a str>,
    pub(crate) last_edited_date: Option<&'a str>,
}

/// A glossary entry as a document gives it.
#[derive(Debug)]
pub(crate) struct EntryRow<'a> {
    /// The id it keeps when new; none: the next one.
    pub(crate) id: Option<i64>,
    pub(crate) tid: &'a str,
    pub(crate) glossary_id: i64,
    pub(crate) type_: &'a str,
    pub(crate) wording: Wording<'a>,
}

/// Upserts a glossary entry (it may move between glossaries); its id.
pub(crate) async fn upsert_entry(
    load: Load<'_, '_>,
    row: &EntryRow<'_>,
) -> Result<i64, sqlx::Error> {
    let wording = &row.wording;
    sqlx::query(
        sql!("INSERT INTO glossary_entries (id, tid, glossary_id, loc, type, value, forbidden, \
         last_edited_username, last_edited_date) VALUES ($9, $1, $2, $3, $4, $5, $6, $7, $8) \
         ON CONFLICT (tid) DO UPDATE SET glossary_id = excluded.glossary_id, loc = excluded.loc, \
         type = excluded.type, value = excluded.value, forbidden = excluded.forbidden, \
         last_edited_username = excluded.last_edited_username, last_edited_date = excluded.last_edited_date"),
    )
    .bind(row.tid)
    .bind(row.glossary_id)
    .bind(wording.loc)
    .bind(row.type_)
    .bind(wording.value)
    .bind(wording.forbidden)
    .bind(wording.last_edited_username)
    .bind(wording.last_edited_date)
    .bind(row.id)
    .execute(&mut **load)
    .await?;
    super::stored_id(load, super::Lookup::GlossaryEntry, row.tid).await
}

/// A translation of a glossary entry as a document gives it.
#[derive(Debug)]
pub(crate) struct TranslationRow<'a> {
    /// The id it keeps; none: the next one.
    pub(crate) id: Option<i64>,
    pub(crate) entry_id: i64,
    pub(crate) mode: Option<&'a str>,
    pub(crate) type_: Option<&'a str>,
    pub(crate) similarity: Option<i64>,
    pub(crate) wording: Wording<'a>,
}

/// Stores a translation of a glossary entry.
pub(crate) async fn insert_translation(
    load: Load<'_, '_>,
    row: &TranslationRow<'_>,
) -> Result<(), sqlx::Error> {
    let wording = &row.wording;
    sqlx::query(sql!(
        "INSERT INTO glossary_translations (id, entry_id, loc, mode, type, similarity, value, \
         forbidden, last_edited_username, last_edited_date) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)"
    ))
    .bind(row.id)
    .bind(row.entry_id)
    .bind(wording.loc)
    .bind(row.mode)
    .bind(row.type_)
    .bind(row.similarity)
    .bind(wording.value)
    .bind(wording.forbidden)
    .bind(wording.last_edited_username)
    .bind(wording.last_edited_date)
    .execute(&mut **load)
    .await?;
    Ok(())
}
