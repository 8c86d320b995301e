//! Glossaries, each with its entries written as they are read (a glossary may hold many).

use super::{ExportError, Kinds, OwnedBy, take_own};
use crate::{
    bootstrap::{Glossary, GlossaryEntry, Translation},
    storage::export::{self, Chunked, EntryRow, GlossaryRow, TranslationRow},
};

impl OwnedBy for TranslationRow {
    fn owner(&self) -> i64 {
        self.entry_id
    }
}

impl Kinds<'_, '_> {
    pub(super) async fn glossaries(&mut self) -> Result<(), ExportError> {
        self.open("glossaries", "glossaries").await?;
        let mut after = 0;
        loop {
            let glossaries: Vec<GlossaryRow> =
                export::chunk(self.connection, Chunked::Glossaries, after).await?;
            let Some(last) = glossaries.last().map(|glossary| glossary.id) else {
                break;
            };
            for glossary in glossaries {
                self.progress.advance(1);
                self.glossary(glossary).await?;
            }
            after = last;
        }
        self.close()
    }

    /// One glossary, its entries read a chunk at a time with their translations.
    async fn glossary(&mut self, row: GlossaryRow) -> Result<(), ExportError> {
        let id = row.id;
        let header = Glossary {
            id: Some(row.id),
            tid: row.tid,
            name: row.name,
            languages: row
                .languages
                .filter(|languages| !languages.is_empty())
                .map(|languages| languages.split(',').map(str::to_string).collect())
                .unwrap_or_default(),
            created_at: Some(row.created_at),
            entries: Vec::new(),
        };
        self.document.open_record(&header, "entries")?;
        let mut after = 0;
        loop {
            let entries = export::entries(self.connection, id, after).await?;
            let (Some(first), Some(last)) = (entries.first(), entries.last()) else {
                break;
            };
            let (first, last) = (first.id, last.id);
            let mut translations = export::translations(self.connection, first - 1, last).await?;
            translations.reverse();
            for entry in entries {
                let own = take_own(&mut translations, entry.id);
                self.document.item(&entry_of(entry, own))?;
            }
            after = last;
        }
        self.document.close_record()
    }
}

/// An entry as the document states it.
fn entry_of(row: EntryRow, translations: Vec<TranslationRow>) -> GlossaryEntry {
    GlossaryEntry {
        id: Some(row.id),
        tid: row.tid.unwrap_or_default(),
        type_: row.type_,
        loc: row.loc,
        value: row.value,
        forbidden: row.forbidden.into(),
        last_edited_username: row.last_edited_username,
        last_edited_date: row.last_edited_date,
        translations: translations
            .into_iter()
            .map(|translation| Translation {
                id: Some(translation.id),
                loc: translation.loc,
                value: translation.value,
                mode: translation.mode,
                type_: translation.type_,
                similarity: translation.similarity,
                forbidden: translation.forbidden.into(),
                last_edited_username: translation.last_edited_username,
                last_edited_date: translation.last_edited_date,
            })
            .collect(),
    }
}
