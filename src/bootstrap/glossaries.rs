//! Glossaries with their entries (terms and sentences) and the entries' translations.

use core_api::tables;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{Bootstrap, BootstrapError, Checks, Loader, fits, identifier, invalid, non_empty};
use crate::storage::import::{self, Owned, Wording};

/// A glossary and its entries.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Glossary {
    /// The identifier.
    pub tid: String,
    /// The name.
    pub name: String,
    /// Its locales, by `tid`.
    #[serde(default)]
    pub languages: Vec<String>,
    /// Its entries, by `tid`.
    #[serde(default)]
    pub entries: Vec<GlossaryEntry>,
}

/// A term or sentence of a glossary.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GlossaryEntry {
    /// The identifier.
    pub tid: String,
    /// `term` or `sentence`.
    #[serde(rename = "type")]
    pub type_: String,
    /// The locale of the entry.
    pub loc: String,
    /// The text.
    pub value: String,
    /// A forbidden term.
    #[serde(default)]
    pub forbidden: bool,
    /// Who edited it last.
    #[serde(default)]
    pub last_edited_username: Option<String>,
    /// When it was edited last (ISO 8601 UTC).
    #[serde(default)]
    pub last_edited_date: Option<String>,
    /// Its translations (replaced on a second load).
    #[serde(default)]
    pub translations: Vec<Translation>,
}

/// A translation of a glossary entry.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Translation {
    /// The locale.
    pub loc: String,
    /// The text.
    pub value: String,
    /// Similarity to the entry, in percent.
    #[serde(default)]
    pub similarity: Option<i64>,
    /// A forbidden translation.
    #[serde(default)]
    pub forbidden: bool,
    /// Who edited it last.
    #[serde(default)]
    pub last_edited_username: Option<String>,
    /// When it was edited last (ISO 8601 UTC).
    #[serde(default)]
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
        checks.unique("glossaries", &glossary.tid, record.clone())?;
        for (entry_index, entry) in glossary.entries.iter().enumerate() {
            let record = format!("{record}.entries[{entry_index}] ({})", entry.tid);
            if !matches!(entry.type_.as_str(), "term" | "sentence") {
                return Err(invalid(record, "type", "must be term or sentence"));
            }
            non_empty(&record, "tid", &entry.tid)?;
            fits(&record, "tid", &entry.tid, &tables::GLOSSARY_ENTRY, "tid")?;
            fits(&record, "loc", &entry.loc, &tables::GLOSSARY_ENTRY, "loc")?;
            fits(&record, "value", &entry.value, &tables::META_ITM, "value")?;
            for (translation_index, translation) in entry.translations.iter().enumerate() {
                let record = format!("{record}.translations[{translation_index}]");
                fits(&record, "loc", &translation.loc, &tables::ITMS, "loc")?;
                fits(&record, "value", &translation.value, &tables::ITM, "value")?;
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
            &glossary.tid,
            &glossary.name,
            &languages,
            &self.now,
        )
        .await?;
        self.loaded.records += 1;
        for entry in &glossary.entries {
            let wording = Wording {
                loc: &entry.loc,
                value: &entry.value,
                forbidden: entry.forbidden,
                last_edited_username: entry.last_edited_username.as_deref(),
                last_edited_date: entry.last_edited_date.as_deref(),
            };
            let entry_id = import::upsert_entry(
                self.transaction,
                &entry.tid,
                glossary_id,
                &entry.type_,
                &wording,
            )
            .await?;
            self.loaded.records += 1;
            import::clear(self.transaction, Owned::Translations, entry_id).await?;
            for translation in &entry.translations {
                let wording = Wording {
                    loc: &translation.loc,
                    value: &translation.value,
                    forbidden: translation.forbidden,
                    last_edited_username: translation.last_edited_username.as_deref(),
                    last_edited_date: translation.last_edited_date.as_deref(),
                };
                import::insert_translation(
                    self.transaction,
                    entry_id,
                    translation.similarity,
                    &wording,
                )
                .await?;
                self.loaded.records += 1;
            }
        }
        Ok(())
    }
}
