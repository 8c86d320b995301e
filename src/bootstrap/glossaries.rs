//! Glossaries with their entries (terms and sentences) and the entries' translations.

use core_api::tables;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{
    Bootstrap, BootstrapError, Checks, Loader, fits, given, identifier, invalid, is_false,
    non_empty,
};
use crate::storage::import::{self, EntryRow, Owned, TranslationRow, Wording};

/// A glossary and its entries.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Glossary {
    /// The id it keeps when new (an export gives it); absent: the next one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub id: Option<i64>,
    /// The identifier.
    pub tid: String,
    /// The name.
    pub name: String,
    /// Its locales, by `tid`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub languages: Vec<String>,
    /// When it was created (UTC text), kept when new; absent: the time of the import.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<String>,
    /// Its entries, by `tid`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub entries: Vec<GlossaryEntry>,
}

/// A term or sentence of a glossary.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GlossaryEntry {
    /// The id it keeps when new (an export gives it); absent: the next one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub id: Option<i64>,
    /// The identifier.
    pub tid: String,
    /// `term` or `sentence`.
    #[serde(rename = "type")]
    pub type_: String,
    /// The locale of the entry (absent only in an export of an entry saved without one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loc: Option<String>,
    /// The text (absent only in an export of an entry saved without one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// A forbidden term.
    #[serde(default, skip_serializing_if = "is_false")]
    pub forbidden: bool,
    /// Who edited it last.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_edited_username: Option<String>,
    /// When it was edited last (ISO 8601 UTC).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_edited_date: Option<String>,
    /// Its translations (replaced on a second load).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub translations: Vec<Translation>,
}

/// A translation of a glossary entry.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Translation {
    /// The id it keeps (an export gives it); absent: the next one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub id: Option<i64>,
    /// The locale (absent only in an export of a translation saved without one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loc: Option<String>,
    /// The text (absent only in an export of a translation saved without one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// How it was made, as `glossaryEntries/persist` saved it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// Its type, as `glossaryEntries/persist` saved it.
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub type_: Option<String>,
    /// Similarity to the entry, in percent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub similarity: Option<i64>,
    /// A forbidden translation.
    #[serde(default, skip_serializing_if = "is_false")]
    pub forbidden: bool,
    /// Who edited it last.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_edited_username: Option<String>,
    /// When it was edited last (ISO 8601 UTC).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_edited_date: Option<String>,
}

/// Checks each glossary and entry: identities, entry types, and the lengths of what the entries
/// are answered with.
pub(super) fn check<'d>(
    document: &'d Bootstrap,
    checks: &mut Checks<'d>,
) -> Result<(), BootstrapError> {
    for (index, glossary) in document.glossaries.iter().enumerate() {
        let record = format!("glossaries[{index}] ({})", glossary.tid);
        non_empty(&record, "tid", &glossary.tid)?;
        identifier(&record, "tid", &glossary.tid)?;
        given(
            &record,
            glossary.id,
            &[("createdAt", glossary.created_at.as_deref())],
        )?;
        checks.unique("glossaries", &glossary.tid, record.clone())?;
        for (entry_index, entry) in glossary.entries.iter().enumerate() {
            let record = format!("{record}.entries[{entry_index}] ({})", entry.tid);
            if !matches!(entry.type_.as_str(), "term" | "sentence") {
                return Err(invalid(record, "type", "must be term or sentence"));
            }
            non_empty(&record, "tid", &entry.tid)?;
            fits(&record, "tid", &entry.tid, &tables::GLOSSARY_ENTRY, "tid")?;
            given(&record, entry.id, &[])?;
            if entry.id.is_none() && (entry.loc.is_none() || entry.value.is_none()) {
                return Err(invalid(
                    record,
                    "loc/value",
                    "give both (only an export may leave them out)",
                ));
            }
            if let Some(loc) = &entry.loc {
                fits(&record, "loc", loc, &tables::GLOSSARY_ENTRY, "loc")?;
            }
            if let Some(value) = &entry.value {
                fits(&record, "value", value, &tables::META_ITM, "value")?;
            }
            for (translation_index, translation) in entry.translations.iter().enumerate() {
                let record = format!("{record}.translations[{translation_index}]");
                given(&record, translation.id, &[])?;
                if let Some(loc) = &translation.loc {
                    fits(&record, "loc", loc, &tables::ITMS, "loc")?;
                }
                if let Some(value) = &translation.value {
                    fits(&record, "value", value, &tables::ITM, "value")?;
                }
            }
            checks.unique("glossary entries", &entry.tid, record)?;
        }
    }
    Ok(())
}

impl Loader<'_, '_> {
    /// Upserts the glossaries with their entries; an entry's translations are replaced.
    pub(super) async fn glossaries(&mut self, document: &Bootstrap) -> Result<(), BootstrapError> {
        for (index, glossary) in document.glossaries.iter().enumerate() {
            self.progress.advance(1);
            self.glossary(glossary).await.map_err(|error| {
                error.within(|| format!("glossaries[{index}] ({})", glossary.tid))
            })?;
        }
        Ok(())
    }

    async fn glossary(&mut self, glossary: &Glossary) -> Result<(), BootstrapError> {
        let languages = glossary.languages.join(",");
        let glossary_id = import::upsert_glossary(
            self.transaction,
            glossary.id,
            &glossary.tid,
            &glossary.name,
            &languages,
            glossary.created_at.as_deref().unwrap_or(&self.now),
        )
        .await?;
        self.loaded.records += 1;
        for entry in &glossary.entries {
            let row = EntryRow {
                id: entry.id,
                tid: &entry.tid,
                glossary_id,
                type_: &entry.type_,
                wording: Wording {
                    loc: entry.loc.as_deref(),
                    value: entry.value.as_deref(),
                    forbidden: entry.forbidden,
                    last_edited_username: entry.last_edited_username.as_deref(),
                    last_edited_date: entry.last_edited_date.as_deref(),
                },
            };
            let entry_id = import::upsert_entry(self.transaction, &row).await?;
            self.loaded.records += 1;
            import::clear(self.transaction, Owned::Translations, entry_id).await?;
            for translation in &entry.translations {
                let row = TranslationRow {
                    id: translation.id,
                    entry_id,
                    mode: translation.mode.as_deref(),
                    type_: translation.type_.as_deref(),
                    similarity: translation.similarity,
                    wording: Wording {
                        loc: translation.loc.as_deref(),
                        value: translation.value.as_deref(),
                        forbidden: translation.forbidden,
                        last_edited_username: translation.last_edited_username.as_deref(),
                        last_edited_date: translation.last_edited_date.as_deref(),
                    },
                };
                import::insert_translation(self.transaction, &row).await?;
                self.loaded.records += 1;
            }
        }
        Ok(())
    }
}
