//! Glossary entries: `glossaryEntries/persist` and `glossaryEntries/perform` (D-38, D-39).
//!
//! An entry (a term or a sentence) belongs to a glossary loaded by the operator (D-01); its text,
//! forbidden flag and last edit travel in `meta`, its translations in `links/itms`, one group per
//! locale. Persist replaces the translations of the locales it names and keeps the others.

use core_api::messages;
use core_api::types::{Action, GlossaryEntry, ResponseType, ResponseTypeStatus};
use core_api_support::fill;

use super::super::batch::{self, Apply, ItemError, Scope, Tx};
use crate::{
    error::ApiError,
    repr::{DecodeError, Problem},
    storage::{
        glossary::{self as stored, Entry, Fields, Translation},
        records::{self, GLOSSARIES, GLOSSARY_ENTRIES, Identity, LOCALES},
    },
};

/// The `dataType` of glossary entry records.
const DATA_TYPE: &str = "glossaryEntry";

/// The entry kinds (D-39; `GlossaryEntry.type` in the document, and the check constraint of
/// `glossary_entries`): another value is an item error, not a 400, so the schema lists no enum.
const ENTRY_TYPES: [&str; 2] = ["term", "sentence"];

/// Reads the keys of an entry's `meta` or of a translation's items; the similarity too.
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
    batch::refuse(
        echo,
        fill(messages::INVALID_VALUE_VALUE_FOR_KEY, &[&value, &field]),
    )
}

fn meta_fields(entry: &GlossaryEntry, echo: &ResponseType) -> Result<Fields, ItemError> {
    let items = entry
        .meta
        .iter()
        .flat_map(|meta| &meta.itm)
        .map(|item| (item.key.as_str(), item.value.as_str()));
    Ok(fields(items, echo)?.0)
}

fn translations(entry: &GlossaryEntry, echo: &ResponseType) -> Result<Vec<Translation>, ItemError> {
    let mut translations = Vec::new();
    for group in entry.links.iter().flat_map(|links| &links.itms) {
        let items = group
            .itm
            .iter()
            .filter_map(|item| item.key.as_deref().map(|key| (key, item.value.as_str())));
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

/// `glossaryEntries/persist`: each entry created or updated in its transaction.
pub(crate) struct Persist;

impl Apply for Persist {
    type Item = GlossaryEntry;

    fn echo(entry: &GlossaryEntry) -> ResponseType {
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

    /// With `id` or `tid` an update, otherwise a create in the glossary `parentId` or
    /// `parentTid` names.
    async fn apply<'a>(
        transaction: &'a mut Tx,
        entry: &'a GlossaryEntry,
        scope: &'a Scope<'a>,
    ) -> Result<ResponseType, ItemError> {
        let echo = Persist::echo(entry);
        let mut fields = meta_fields(entry, &echo)?;
        let mut translations = translations(entry, &echo)?;
        if let Some(type_) = &entry.type_
            && !ENTRY_TYPES.contains(&type_.as_str())
        {
            return Err(batch::refuse(
                &echo,
                fill(messages::UNKNOWN_TRANSLATION_ENTRY_TYPE_TYPE, &[&type_]),
            ));
        }
        let locales = entry.loc.iter().chain(
            translations
                .iter()
                .filter_map(|translation| translation.loc.as_ref()),
        );
        for loc in locales {
            if records::find(&mut **transaction, &LOCALES, Identity::Key(loc))
                .await?
                .is_none()
            {
                return Err(batch::refuse(
                    &echo,
                    fill(messages::UNKNOWN_LOCALE_LOC, &[&loc]),
                ));
            }
        }
        // The service records who edited last and when: the token's user, now. What the message
        // says of them is not taken (D-39).
        let edits = translations
            .iter_mut()
            .map(|translation| &mut translation.fields);
        for edited in std::iter::once(&mut fields).chain(edits) {
            edited.last_edited_username = Some(scope.caller.user.clone());
            edited.last_edited_date = Some(scope.now.to_string());
        }
        let glossary = match (entry.parent_id, entry.parent_tid.as_deref()) {
            (None, None) => None,
            (Some(id), _) => Some(find_glossary(transaction, Identity::Id(id), &echo).await?),
            (None, Some(tid)) => Some(find_glossary(transaction, Identity::Key(tid), &echo).await?),
        };
        let saved = match Identity::preferring_tid(entry.tid.as_deref(), entry.id) {
            Some(identity) => {
                let change = Entry {
                    glossary,
                    loc: entry.loc.as_deref(),
                    type_: entry.type_.as_deref(),
                    fields: &fields,
                };
                update(transaction, identity, entry, &change, &echo).await?
            }
            None => create(transaction, glossary, entry, &fields, &echo).await?,
        };
        for translation in &translations {
            stored::set_translation(transaction, saved.id, translation, &fields).await?;
        }
        let mut record = batch::record(
            DATA_TYPE,
            saved.action,
            ResponseTypeStatus::Success,
            saved.description,
        );
        record.id = Some(saved.id);
        record.tid = Some(saved.tid);
        Ok(record)
    }
}

/// An entry saved: its identity, and how its record describes the save.
struct Saved {
    id: i64,
    tid: String,
    action: &'static str,
    description: &'static str,
}

/// Updates the entry an item names by `tid` (first) or `id`.
async fn update(
    transaction: &mut Tx,
    identity: Identity<'_>,
    entry: &GlossaryEntry,
    change: &Entry<'_>,
    echo: &ResponseType,
) -> Result<Saved, ItemError> {
    let Some(found) = find_entry(transaction, identity).await? else {
        let identity = entry
            .id
            .map(|id| id.to_string())
            .or_else(|| entry.tid.clone())
            .unwrap_or_default();
        let text = fill(messages::SENTENCE_WITH_IDENTITY_ID_NOT_FOUND, &[&identity]);
        return Err(batch::refuse(echo, text));
    };
    stored::update(transaction, found.id, change).await?;
    Ok(Saved {
        id: found.id,
        tid: found.tid,
        action: "update",
        description: messages::THE_GLOSSARY_ENTRY_HAS_BEEN_UPDATED_SUCCESSFULLY,
    })
}

/// Creates an entry (its tid a new UUID) in the glossary the item names, with its `loc` and
/// `type`.
async fn create(
    transaction: &mut Tx,
    glossary: Option<i64>,
    entry: &GlossaryEntry,
    fields: &Fields,
    echo: &ResponseType,
) -> Result<Saved, ItemError> {
    let Some(glossary) = glossary else {
        return Err(batch::refuse(
            echo,
            messages::GLOSSARY_ENTRY_DOES_NOT_CONTAIN_A_LINK_TO_A_GLOSSARY,
        ));
    };
    let Some(loc) = entry.loc.as_deref() else {
        return Err(batch::refuse(
            echo,
            fill(messages::MISSING_REQUIRED_VALUE_FIELD, &[&"loc"]),
        ));
    };
    let Some(type_) = entry.type_.as_deref() else {
        return Err(batch::refuse(
            echo,
            fill(messages::MISSING_REQUIRED_VALUE_FIELD, &[&"type"]),
        ));
    };
    let tid = uuid::Uuid::new_v4().to_string();
    let id = stored::insert(transaction, &tid, glossary, loc, type_, fields).await?;
    Ok(Saved {
        id,
        tid,
        action: "create",
        description: messages::THE_GLOSSARY_ENTRY_HAS_BEEN_CREATED_SUCCESSFULLY,
    })
}

/// A glossary's id, or the item's refusal.
async fn find_glossary(
    transaction: &mut Tx,
    identity: Identity<'_>,
    echo: &ResponseType,
) -> Result<i64, ItemError> {
    records::find(&mut **transaction, &GLOSSARIES, identity)
        .await?
        .map(|found| found.id)
        .ok_or_else(|| batch::refuse(echo, messages::THERE_IS_NO_GLOSSARY_WITH_THE_GIVEN_IDENTITY))
}

/// A stored entry's id and tid.
struct FoundEntry {
    id: i64,
    tid: String,
}

/// The stored entry with this identity.
async fn find_entry(
    transaction: &mut Tx,
    identity: Identity<'_>,
) -> Result<Option<FoundEntry>, sqlx::Error> {
    let found = records::find(&mut **transaction, &GLOSSARY_ENTRIES, identity).await?;
    Ok(found.map(|found| FoundEntry {
        id: found.id,
        tid: found.key.unwrap_or_default(),
    }))
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

/// `glossaryEntries/perform`: each action (delete, copy, move) applied in its transaction.
pub(crate) struct Perform;

impl Apply for Perform {
    type Item = Action;

    fn echo(action: &Action) -> ResponseType {
        let mut record = batch::record(DATA_TYPE, &action.type_, ResponseTypeStatus::Error, "");
        record.id = action.id;
        record.tid = action.tid.clone();
        record
    }

    /// Refuses the request when a `glossaryId` is not an integer (D-39): a wrong data type,
    /// 400. (The rule ties an item's value to its key, which the schema language cannot.)
    fn check(actions: &[Action]) -> Result<(), ApiError> {
        for (index, action) in actions.iter().enumerate() {
            if let Some(value) = target(action)
                && value.trim().parse::<i64>().is_err()
            {
                return Err(ApiError::Invalid(DecodeError::at(
                    format!("actions/action[{}]/meta/itm[@key='glossaryId']", index + 1),
                    Problem::WrongType {
                        expected: "integer",
                        found: format!("{value:?}"),
                    },
                )));
            }
        }
        Ok(())
    }

    /// Deletes, copies or moves one entry.
    async fn apply<'a>(
        transaction: &'a mut Tx,
        action: &'a Action,
        _scope: &'a Scope<'a>,
    ) -> Result<ResponseType, ItemError> {
        let echo = Perform::echo(action);
        batch::supported(
            action,
            DATA_TYPE,
            &["delete", "copyToGlossary", "moveToGlossary"],
            &echo,
        )?;
        let kind = action.type_.as_str();
        let found = match Identity::preferring_tid(action.tid.as_deref(), action.id) {
            Some(identity) => find_entry(transaction, identity).await?,
            None => None,
        };
        let FoundEntry { id, tid } = found.ok_or_else(|| {
            batch::refuse(
                &echo,
                messages::THERE_IS_NO_GLOSSARY_ENTRY_WITH_THE_GIVEN_TID_IDENTITY,
            )
        })?;
        let mut record = batch::record(DATA_TYPE, kind, ResponseTypeStatus::Success, "");
        record.id = Some(id);
        record.tid = Some(tid);
        if kind == "delete" {
            stored::delete(transaction, id).await?;
            record.description =
                Some(messages::THE_GLOSSARY_ENTRY_HAS_BEEN_DELETED_SUCCESSFULLY.into());
            return Ok(record);
        }
        let glossary = match target(action) {
            None => {
                return Err(batch::refuse(
                    &echo,
                    messages::MISSING_REQUIRED_VALUE_GLOSSARYID,
                ));
            }
            // `check` has refused a target that is not an integer.
            Some(value) => value.trim().parse::<i64>().unwrap_or_default(),
        };
        let glossary = find_glossary(transaction, Identity::Id(glossary), &echo).await?;
        if kind == "moveToGlossary" {
            stored::move_to(transaction, id, glossary).await?;
            record.description =
                Some(messages::THE_GLOSSARY_ENTRY_HAS_BEEN_MOVED_SUCCESSFULLY.into());
            return Ok(record);
        }
        let new_tid = uuid::Uuid::new_v4().to_string();
        let new_id = stored::copy_to(transaction, id, glossary, &new_tid).await?;
        record.description = Some(messages::THE_GLOSSARY_ENTRY_HAS_BEEN_COPIED_SUCCESSFULLY.into());
        record.details = Some(batch::details(&[
            ("newId", &new_id.to_string()),
            ("newTid", &new_tid),
        ]));
        Ok(record)
    }
}
