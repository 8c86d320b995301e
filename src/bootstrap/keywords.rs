//! Keywords: a tree by path, with localized names and asset links (D-15).

use std::collections::{BTreeMap, HashSet};

use core_api::tables;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{Bootstrap, BootstrapError, Checks, Loader, counted, fits, invalid, name};
use crate::storage::import::{self, Lookup, Names, Owned};

/// A keyword. Its default name is the last segment of its path (D-15).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Keyword {
    /// `/`-separated, such as `/Materials/Cotton`; the parent is the path without its last segment.
    pub path: String,
    /// Localized names, by locale tid (replaced on a second load).
    #[serde(default)]
    pub names: BTreeMap<String, String>,
    /// Linked assets, by `tid` (replaced on a second load).
    #[serde(default)]
    pub assets: Vec<String>,
}

/// Checks each keyword: its path (non-empty names, each a name's length, the whole within a
/// path's), declared once, its names, and that its assets are assets of the document.
pub(super) fn check<'d>(
    document: &'d Bootstrap,
    checks: &mut Checks<'d>,
) -> Result<(), BootstrapError> {
    let mut paths = HashSet::new();
    for (index, keyword) in document.keywords.iter().enumerate() {
        let record = format!("keywords[{index}] ({})", keyword.path);
        let segments: Vec<&str> = keyword.path.split('/').skip(1).collect();
        let valid = keyword.path.starts_with('/')
            && !segments.is_empty()
            && segments.iter().all(|segment| !segment.trim().is_empty());
        if !valid {
            return Err(invalid(
                record,
                "path",
                "must be /-separated non-empty names, such as /Materials/Cotton",
            ));
        }
        fits(&record, "path", &keyword.path, &tables::KWD, "path")?;
        for segment in &segments {
            name(&record, "path", segment)?;
        }
        for (loc, localized) in &keyword.names {
            name(&record, "names", localized)?;
            fits(&record, "names", loc, &tables::NAME_ITM, "loc")?;
        }
        counted(
            &record,
            "names",
            keyword.names.len(),
            (&tables::NAME, "itm"),
            1,
        )?;
        if !paths.insert(keyword.path.as_str()) {
            return Err(invalid(record, "path", "is declared twice"));
        }
        if let Some(asset) = keyword
            .assets
            .iter()
            .find(|asset| !checks.assets.contains(asset.as_str()))
        {
            return Err(invalid(
                record,
                "assets",
                format!("'{asset}' is not an asset of the document"),
            ));
        }
    }
    Ok(())
}

impl Loader<'_, '_> {
    /// Stores the keywords, parents first; a keyword's names and asset links are replaced.
    pub(super) async fn keywords(&mut self, document: &Bootstrap) -> Result<(), BootstrapError> {
        for (index, keyword) in document.keywords.iter().enumerate() {
            self.progress.advance();
            let record = || format!("keywords[{index}] ({})", keyword.path);
            self.keyword(keyword, record)
                .await
                .map_err(|error| error.within(record))?;
        }
        Ok(())
    }

    async fn keyword(
        &mut self,
        keyword: &Keyword,
        record: impl Fn() -> String,
    ) -> Result<(), BootstrapError> {
        let (parent, name) = keyword.path.rsplit_once('/').unwrap_or_default();
        let parent_id: Option<i64> = if parent.is_empty() {
            None
        } else {
            let found = import::id_of(self.transaction, Lookup::Keyword, parent).await?;
            match found {
                Some(id) => Some(id),
                None => {
                    return Err(invalid(
                        record(),
                        "path",
                        format!(
                            "the parent keyword '{parent}' is neither declared before it nor stored"
                        ),
                    ));
                }
            }
        };
        let keyword_id =
            import::insert_keyword(self.transaction, parent_id, name, &keyword.path, &self.now)
                .await?;
        self.loaded.records += 1;
        import::clear(self.transaction, Owned::KeywordNames, keyword_id).await?;
        for (loc, name) in &keyword.names {
            import::insert_name(self.transaction, Names::Keyword, keyword_id, loc, name).await?;
        }
        import::clear(self.transaction, Owned::KeywordAssets, keyword_id).await?;
        for asset in &keyword.assets {
            import::insert_keyword_asset(self.transaction, keyword_id, asset).await?;
        }
        Ok(())
    }
}
