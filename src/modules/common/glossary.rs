//! Glossary entries: `glossaryEntries/persist` and `glossaryEntries/perform` (D-38, D-39).
//!
//! An entry (a term or a sentence) belongs to a glossary loaded by the operator (D-01); its text,
//! forbidden flag and last edit travel in `meta`, its translations in `links/itms`, one group per
//! locale. Persist replaces the translations of the locales it names and keeps the others.

use core_api::types::{Action, GlossaryEntry, Itm, MetaItm, ResponseType, ResponseTypeStatus};
use sqlx::Row;

use super::super::batch::{self, ItemError, Tx};
use crate::error::ApiError;

/// The `dataType` of glossary entry records.
const DATA_TYPE: &str = "glossaryEntry";

/// The entry kinds (D-39; `GlossaryEntry.type` in the document, and the check constraint of
/// `glossary_entries`): another value is an item error, not a 400, so the schema lists no enum.
const ENTRY_TYPES: [&str; 2] = ["term", "sentence"];

/// The record that echoes an entry item: what identifies it, before it is applied.
pub(crate) fn echo(entry: &GlossaryEntry) -> ResponseType {
    let updating = entry.id.is_some() || entry.tid.is_some();
    let mut record = batch::record(
        DATA_TYPE,
        if updating { "update" } else { "create" },
        ResponseTypeStatus::Error,
        "",
    );
    record.id = entry.id;
    record.tid = entry.tid.clone();
    record
}

/// What an entry's `meta` says; each field only when given.
#[derive(Default)]
struct Fields {
    value: Option<String>,
    forbidden: Option<bool>,
    last_edited_username: Option<String>,
    last_edited_date: Option<String>,
}

/// A translation: a `links/itms` group.
struct Translation {
    loc: Option<String>,
    mode: Option<String>,
    type_: Option<String>,
    similarity: Option<i64>,
    fields: Fields,
}

/// Reads the keys of an entry's `meta` or of a translation's items.
fn fields<'a>(
    items: impl Iterator<Item = (&'a str, &'a str)>,
    echo: &ResponseType,
) -> Result<(Fields, Option<i64>), ItemError> {
    let mut fields = Fields::default();
    let mut similarity = None;
    for (key, value) in items {
        match key {
            "value" => fields.value = Some(value.to_string()),
            "forbidden" => {
                fields.forbidden = Some(match value {
                    "true" => true,
                    "false" => false,
                    _ => return Err(invalid(echo, value, "forbidden")),
                })
            }
            "lastEditedUsername" => fields.last_edited_username = Some(value.to_string()),
            "lastEditedDate" => fields.last_edited_date = Some(value.to_string()),
            "similarity" => {
                similarity = Some(
                    value
                        .parse::<i64>()
                        .ok()
                        .filter(|percent| (0..=100).contains(percent))
                        .ok_or_else(|| invalid(echo, value, "similarity"))?,
                )
            }
            // Other keys are not the entry's; they are ignored like unknown envelope keys.
            _ => {}
        }
    }
    Ok((fields, similarity))
}

fn invalid(echo: &ResponseType, value: &str, field: &str) -> ItemError {
    batch::refuse(echo, format!("Invalid value '{value}' for '{field}'"))
}

fn meta_fields(entry: &GlossaryEntry, echo: &ResponseType) -> Result<Fields, ItemError> {
    let items = entry
        .meta
        .iter()
        .flat_map(|meta| &meta.itm)
        .map(|MetaItm { key, value, .. }| (key.as_str(), value.as_str()));
    Ok(fields(items, echo)?.0)
}

fn translations(entry: &GlossaryEntry, echo: &ResponseType) -> Result<Vec<Translation>, ItemError> {
    let mut translations = Vec::new();
    for group in entry.links.iter().flat_map(|links| &links.itms) {
        let items = group
            .itm
            .iter()
            .filter_map(|Itm { key, value, .. }| key.as_deref().map(|key| (key, value.as_str())));
        let (fields, similarity) = fields(items, echo)?;
        translations.push(Translation {
            loc: group.loc.clone(),
            mode: group.mode.clone(),
            type_: group.type_.clone(),
            similarity,
            fields,
        });
    }
    Ok(translations)
}

/// Creates or updates one entry in its transaction: with `id` or `tid` an update, otherwise a
/// create in the glossary `parentId` or `parentTid` names.
pub(crate) async fn persist(
    transaction: &mut Tx,
    entry: &GlossaryEntry,
    user: &str,
    now: &str,
) -> Result<ResponseType, ItemError> {
    let echo = echo(entry);
    let mut fields = meta_fields(entry, &echo)?;
    let translations = translations(entry, &echo)?;
    if let Some(type_) = &entry.type_
        && !ENTRY_TYPES.contains(&type_.as_str())
    {
        return Err(batch::refuse(
            &echo,
            format!("Unknown translation entry type '{type_}'"),
        ));
    }
    if let Some(loc) = &entry.loc {
        check_locale(transaction, loc, &echo).await?;
    }
    for loc in translations
        .iter()
        .filter_map(|translation| translation.loc.as_deref())
    {
        check_locale(transaction, loc, &echo).await?;
    }
    // The service records who edited last and when, unless the message says it.
    fields
        .last_edited_username
        .get_or_insert_with(|| user.to_string());
    fields
        .last_edited_date
        .get_or_insert_with(|| now.to_string());
    let glossary =
        match (entry.parent_id, entry.parent_tid.as_deref()) {
            (None, None) => None,
            (id, tid) => Some(find_glossary(transaction, id, tid).await?.ok_or_else(|| {
                batch::refuse(&echo, "There is no glossary with the given identity")
            })?),
        };
    let updating = entry.id.is_some() || entry.tid.is_some();
    let (id, tid, action, description) = if updating {
        let (id, tid) = find_entry(transaction, entry.id, entry.tid.as_deref())
            .await?
            .ok_or_else(|| {
                let identity = entry
                    .id
                    .map(|id| id.to_string())
                    .or_else(|| entry.tid.clone())
                    .unwrap_or_default();
                batch::refuse(
                    &echo,
                    format!("Sentence with identity '{identity}' not found."),
                )
            })?;
        sqlx::query(
            "UPDATE glossary_entries SET glossary_id = COALESCE($1, glossary_id), \
             loc = COALESCE($2, loc), type = COALESCE($3, type), value = COALESCE($4, value), \
             forbidden = COALESCE($5, forbidden), last_edited_username = $6, last_edited_date = $7 \
             WHERE id = $8",
        )
        .bind(glossary)
        .bind(entry.loc.as_deref())
        .bind(entry.type_.as_deref())
        .bind(fields.value.as_deref())
        .bind(fields.forbidden)
        .bind(fields.last_edited_username.as_deref())
        .bind(fields.last_edited_date.as_deref())
        .bind(id)
        .execute(&mut **transaction)
        .await?;
        (
            id,
            tid,
            "update",
            "The glossary entry has been updated successfully",
        )
    } else {
        let Some(glossary) = glossary else {
            return Err(batch::refuse(
                &echo,
                "Glossary entry does not contain a link to a glossary",
            ));
        };
        let Some(loc) = entry.loc.as_deref() else {
            return Err(batch::refuse(&echo, "Missing required value 'loc'"));
        };
        let Some(type_) = entry.type_.as_deref() else {
            return Err(batch::refuse(&echo, "Missing required value 'type'"));
        };
        let tid = uuid::Uuid::new_v4().to_string();
        let row = sqlx::query(
            "INSERT INTO glossary_entries (tid, glossary_id, loc, type, value, forbidden, \
             last_edited_username, last_edited_date) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) \
             RETURNING id",
        )
        .bind(&tid)
        .bind(glossary)
        .bind(loc)
        .bind(type_)
        .bind(fields.value.as_deref())
        .bind(fields.forbidden.unwrap_or(false))
        .bind(fields.last_edited_username.as_deref())
        .bind(fields.last_edited_date.as_deref())
        .fetch_one(&mut **transaction)
        .await?;
        (
            row.try_get("id")?,
            tid,
            "create",
            "The glossary entry has been created successfully",
        )
    };
    for translation in &translations {
        sqlx::query(
            "DELETE FROM glossary_translations WHERE entry_id = $1 AND loc IS NOT DISTINCT FROM $2",
        )
        .bind(id)
        .bind(translation.loc.as_deref())
        .execute(&mut **transaction)
        .await?;
        sqlx::query(
            "INSERT INTO glossary_translations (entry_id, loc, mode, type, similarity, value, \
             forbidden, last_edited_username, last_edited_date) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        )
        .bind(id)
        .bind(translation.loc.as_deref())
        .bind(translation.mode.as_deref())
        .bind(translation.type_.as_deref())
        .bind(translation.similarity)
        .bind(translation.fields.value.as_deref())
        .bind(translation.fields.forbidden.unwrap_or(false))
        .bind(
            translation
                .fields
                .last_edited_username
                .as_deref()
                .or(fields.last_edited_username.as_deref()),
        )
        .bind(
            translation
                .fields
                .last_edited_date
                .as_deref()
                .or(fields.last_edited_date.as_deref()),
        )
        .execute(&mut **transaction)
        .await?;
    }
    let mut record = batch::record(DATA_TYPE, action, ResponseTypeStatus::Success, description);
    record.id = Some(id);
    record.tid = Some(tid);
    Ok(record)
}

async fn check_locale(
    transaction: &mut Tx,
    loc: &str,
    echo: &ResponseType,
) -> Result<(), ItemError> {
    let known = sqlx::query("SELECT id FROM locales WHERE tid = $1")
        .bind(loc)
        .fetch_optional(&mut **transaction)
        .await?
        .is_some();
    if known {
        Ok(())
    } else {
        Err(batch::refuse(echo, format!("Unknown locale '{loc}'")))
    }
}

/// A glossary's id, by id or else by tid.
async fn find_glossary(
    transaction: &mut Tx,
    id: Option<i64>,
    tid: Option<&str>,
) -> Result<Option<i64>, sqlx::Error> {
    let query = match (id, tid) {
        (Some(id), _) => sqlx::query("SELECT id FROM glossaries WHERE id = $1").bind(id),
        (None, Some(tid)) => sqlx::query("SELECT id FROM glossaries WHERE tid = $1").bind(tid),
        (None, None) => return Ok(None),
    };
    match query.fetch_optional(&mut **transaction).await? {
        Some(row) => Ok(Some(row.try_get("id")?)),
        None => Ok(None),
    }
}

/// An entry's id and tid, by `tid` when given (it takes precedence), else by `id`.
async fn find_entry(
    transaction: &mut Tx,
    id: Option<i64>,
    tid: Option<&str>,
) -> Result<Option<(i64, String)>, sqlx::Error> {
    let query = match (id, tid) {
        (_, Some(tid)) => {
            sqlx::query("SELECT id, tid FROM glossary_entries WHERE tid = $1").bind(tid)
        }
        (Some(id), None) => {
            sqlx::query("SELECT id, tid FROM glossary_entries WHERE id = $1").bind(id)
        }
        (None, None) => return Ok(None),
    };
    match query.fetch_optional(&mut **transaction).await? {
        Some(row) => Ok(Some((row.try_get("id")?, row.try_get("tid")?))),
        None => Ok(None),
    }
}

/// The target glossary of a copy or move action: its `meta` key `glossaryId`.
fn target(action: &Action) -> Option<&str> {
    action
        .meta
        .iter()
        .flat_map(|meta| &meta.itm)
        .find(|item| item.key == "glossaryId")
        .map(|item| item.value.as_str())
}

/// Refuses the request when a `glossaryId` is not an integer (D-39): a wrong data type, 400.
pub(crate) fn check_actions(actions: &[Action]) -> Result<(), ApiError> {
    for (index, action) in actions.iter().enumerate() {
        if let Some(value) = target(action)
            && value.trim().parse::<i64>().is_err()
        {
            return Err(ApiError::Invalid(crate::repr::DecodeError {
                path: format!("actions/action[{}]/meta/itm[@key='glossaryId']", index + 1),
                problem: crate::repr::Problem::WrongType {
                    expected: "integer",
                    found: format!("{value:?}"),
                },
            }));
        }
    }
    Ok(())
}

/// The record that echoes an action.
pub(crate) fn echo_action(action: &Action) -> ResponseType {
    let mut record = batch::record(DATA_TYPE, &action.type_, ResponseTypeStatus::Error, "");
    record.id = action.id;
    record.tid = action.tid.clone();
    record
}

/// Applies one action in its transaction: delete, copy or move an entry.
pub(crate) async fn perform(
    transaction: &mut Tx,
    action: &Action,
) -> Result<ResponseType, ItemError> {
    let echo = echo_action(action);
    if action.data_type != DATA_TYPE {
        return Err(batch::refuse(
            &echo,
            format!("Unsupported data type '{}'", action.data_type),
        ));
    }
    let kind = action.type_.as_str();
    if !matches!(kind, "delete" | "copyToGlossary" | "moveToGlossary") {
        return Err(batch::refuse(
            &echo,
            format!("Unsupported action type '{kind}'"),
        ));
    }
    let (id, tid) = find_entry(transaction, action.id, action.tid.as_deref())
        .await?
        .ok_or_else(|| {
            batch::refuse(
                &echo,
                "There is no glossary entry with the given tid/identity",
            )
        })?;
    let mut record = batch::record(DATA_TYPE, kind, ResponseTypeStatus::Success, "");
    record.id = Some(id);
    record.tid = Some(tid);
    if kind == "delete" {
        sqlx::query("DELETE FROM glossary_entries WHERE id = $1")
            .bind(id)
            .execute(&mut **transaction)
            .await?;
        record.description = Some("The glossary entry has been deleted successfully".to_string());
        return Ok(record);
    }
    let glossary = match target(action) {
        None => return Err(batch::refuse(&echo, "Missing required value 'glossaryId'")),
        Some(value) => value.trim().parse::<i64>().ok(),
    };
    let glossary = find_glossary(transaction, glossary, None)
        .await?
        .ok_or_else(|| batch::refuse(&echo, "There is no glossary with the given identity"))?;
    if kind == "moveToGlossary" {
        sqlx::query("UPDATE glossary_entries SET glossary_id = $1 WHERE id = $2")
            .bind(glossary)
            .bind(id)
            .execute(&mut **transaction)
            .await?;
        record.description = Some("The glossary entry has been moved successfully".to_string());
        return Ok(record);
    }
    let new_tid = uuid::Uuid::new_v4().to_string();
    let new_id: i64 = sqlx::query(
        "INSERT INTO glossary_entries (tid, glossary_id, loc, type, value, forbidden, \
         last_edited_username, last_edited_date) \
         SELECT $1, $2, loc, type, value, forbidden, last_edited_username, last_edited_date \
         FROM glossary_entries WHERE id = $3 RETURNING id",
    )
    .bind(&new_tid)
    .bind(glossary)
    .bind(id)
    .fetch_one(&mut **transaction)
    .await?
    .try_get("id")?;
    sqlx::query(
        "INSERT INTO glossary_translations (entry_id, loc, mode, type, similarity, value, \
         forbidden, last_edited_username, last_edited_date) \
         SELECT $1, loc, mode, type, similarity, value, forbidden, last_edited_username, \
         last_edited_date FROM glossary_translations WHERE entry_id = $2 ORDER BY id",
    )
    .bind(new_id)
    .bind(id)
    .execute(&mut **transaction)
    .await?;
    record.description = Some("The glossary entry has been copied successfully".to_string());
    record.details = Some(batch::details(&[
        ("newId", &new_id.to_string()),
        ("newTid", &new_tid),
    ]));
    Ok(record)
}
