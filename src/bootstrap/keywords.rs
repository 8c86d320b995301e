//! Keywords: a tree by path, with localized names and asset links (D-15).

use std::collections::HashMap;

use core_api::tables;
use core_api_support::Field;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{
    Bootstrap, BootstrapError, Checks, Loader, Localized, counted, fits_field, given, invalid,
};
use crate::storage::{
    backend_of,
    import::{self, KeywordAsset, KeywordName, KeywordRow, Lookup, ReferenceChecks},
    transfer::References,
};

/// A keyword. Its default name is the last segment of its path (D-15).
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Keyword {
    /// The id it keeps when new (an export gives it); absent: the next one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub id: Option<i64>,
    /// `/`-separated, such as `/Materials/Cotton`; the parent is the path without its last segment.
    pub path: String,
    /// Its place among its siblings (`orderNumber`), kept when new; absent: after the last.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub order_number: Option<i64>,
    /// When it was created (UTC text), kept when new; absent: the time of the import.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<String>,
    /// Localized names, by locale tid (replaced on a second load).
    #[serde(default, skip_serializing_if = "Localized::is_empty")]
    pub names: Localized,
    /// Linked assets, by `tid` (replaced on a second load).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub assets: Vec<String>,
}

/// The document's keywords by path, with their index: built once by [`check`], which finds a
/// path declared twice with it, and read again by the load for each keyword's parent (each of
/// a million inserts into a map of a million paths is a cache miss or two).
pub(super) type Declared<'d> = HashMap<&'d str, usize>;

/// Checks each keyword: its path (non-empty names, each a name's length, the whole within a
/// path's), declared once, its names, and that its assets are assets of the document; answers
/// the keywords by path.
pub(super) fn check<'d>(
    document: &'d Bootstrap,
    checks: &mut Checks<'d>,
) -> Result<Declared<'d>, BootstrapError> {
    // The limits are looked up once: a document may hold a million keywords.
    let limits = Limits {
        path: tables::KWD.field("path"),
        name: tables::NAME_ITM.field("value"),
        loc: tables::NAME_ITM.field("loc"),
    };
    let mut declared = Declared::with_capacity(document.keywords.len());
    for (index, keyword) in document.keywords.iter().enumerate() {
        let record = || format!("keywords[{index}] ({})", keyword.path);
        check_one(keyword, &limits).map_err(|error| error.of_record(record))?;
        if declared.insert(keyword.path.as_str(), index).is_some() {
            return Err(invalid(record(), "path", "is declared twice"));
        }
        if let Some(asset) = keyword
            .assets
            .iter()
            .find(|asset| !checks.assets.contains(asset.as_str()))
        {
            return Err(invalid(
                record(),
                "assets",
                format!("'{asset}' is not an asset of the document"),
            ));
        }
    }
    Ok(declared)
}

/// The limits of a keyword's fields.
struct Limits {
    /// Of its path.
    path: Option<&'static Field>,
    /// Of a name: a path's segment or a localized name.
    name: Option<&'static Field>,
    /// Of a localized name's locale.
    loc: Option<&'static Field>,
}

/// Checks one keyword's path and names; its errors name no record yet.
fn check_one(keyword: &Keyword, limits: &Limits) -> Result<(), BootstrapError> {
    let valid = keyword.path.starts_with('/')
        && keyword.path.len() > 1
        && keyword.path[1..]
            .split('/')
            .all(|segment| !segment.trim().is_empty());
    if !valid {
        return Err(invalid(
            String::new(),
            "path",
            "must be /-separated non-empty names, such as /Materials/Cotton",
        ));
    }
    fits_field("", "path", &keyword.path, limits.path)?;
    for segment in keyword.path[1..].split('/') {
        fits_field("", "path", segment, limits.name)?;
    }
    for (loc, localized) in &keyword.names {
        fits_field("", "names", localized, limits.name)?;
        fits_field("", "names", loc, limits.loc)?;
    }
    if keyword.order_number.is_some_and(|order| order < 1) {
        return Err(invalid(String::new(), "orderNumber", "must be 1 or more"));
    }
    given(
        "",
        keyword.id,
        &[("createdAt", keyword.created_at.as_deref())],
    )?;
    counted("", "names", keyword.names.len(), (&tables::NAME, "itm"), 1)
}

impl Loader<'_, '_> {
    /// Stores the keywords in bulk, parents first (depth by depth, in document order within
    /// each); a keyword's names and asset links are replaced. `declared` is what [`check`]
    /// answered for the document, freed once each keyword's parent is found in it.
    pub(super) async fn keywords(
        &mut self,
        document: &Bootstrap,
        declared: Declared<'_>,
    ) -> Result<(), BootstrapError> {
        let keywords = &document.keywords;
        let parents = self.parents(keywords, &declared).await?;
        drop(declared);
        // A keyword of a greater id than this was stored by this load and owns nothing yet
        // (the load runs alone: D-01).
        let known = import::last_keyword_id(self.transaction).await?;
        let checks = ReferenceChecks::of(self.transaction).await?;
        if !keywords.is_empty() {
            self.loaded.references = References::of(checks, backend_of(self.transaction));
        }
        let mut order: Vec<usize> = (0..keywords.len()).collect();
        order.sort_by_key(|&index| depth(&keywords[index].path));
        let mut ids = vec![0; keywords.len()];
        for level in order.chunk_by(|&a, &b| depth(&keywords[a].path) == depth(&keywords[b].path)) {
            for chunk in level.chunks(import::BULK_ROWS) {
                let record = || {
                    let first = chunk.first().copied().unwrap_or_default();
                    let path = keywords
                        .get(first)
                        .map_or("", |keyword| keyword.path.as_str());
                    format!(
                        "keywords[{first}] ({path}) and the {} of its depth after it",
                        chunk.len() - 1
                    )
                };
                self.keyword_chunk(keywords, chunk, &parents, &mut ids, known, checks)
                    .await
                    .map_err(|error| error.within(record))?;
                self.loaded.records += chunk.len();
                self.progress
                    .advance(u64::try_from(chunk.len()).unwrap_or(u64::MAX));
            }
        }
        Ok(())
    }

    /// Each keyword's parent: a keyword of the document (by index), or a stored keyword (by
    /// id; the document names it but does not declare it), or none for a root.
    async fn parents(
        &mut self,
        keywords: &[Keyword],
        declared: &Declared<'_>,
    ) -> Result<Vec<Parent>, BootstrapError> {
        let mut stored: HashMap<&str, i64> = HashMap::new();
        let mut parents = Vec::with_capacity(keywords.len());
        for (index, keyword) in keywords.iter().enumerate() {
            let path = parent_of(&keyword.path);
            if path.is_empty() {
                parents.push(Parent::Root);
            } else if let Some(&parent) = declared.get(path) {
                parents.push(Parent::Declared(parent));
            } else if let Some(&id) = stored.get(path) {
                parents.push(Parent::Stored(id));
            } else {
                let Some(id) = import::id_of(self.transaction, Lookup::Keyword, path).await? else {
                    return Err(invalid(
                        format!("keywords[{index}] ({})", keyword.path),
                        "path",
                        format!("the parent keyword '{path}' is neither declared nor stored"),
                    ));
                };
                stored.insert(path, id);
                parents.push(Parent::Stored(id));
            }
        }
        Ok(parents)
    }

    /// Stores one chunk of keywords of one depth (their parents have ids), with their names and
    /// asset links; writes their ids into `ids`, by index. Only keywords of ids up to `known`
    /// were stored before the load and may own names and links to replace. The references of
    /// the keywords and names are checked as `checks` says, those of the links by the database.
    async fn keyword_chunk(
        &mut self,
        keywords: &[Keyword],
        chunk: &[usize],
        parents: &[Parent],
        ids: &mut [i64],
        known: i64,
        checks: ReferenceChecks,
    ) -> Result<(), BootstrapError> {
        let rows: Vec<KeywordRow> = chunk
            .iter()
            .map(|&index| {
                let path = keywords[index].path.as_str();
                KeywordRow {
                    id: keywords[index].id,
                    order_number: keywords[index].order_number,
                    created_at: keywords[index].created_at.as_deref(),
                    parent_id: match parents[index] {
                        Parent::Root => None,
                        Parent::Declared(parent) => Some(ids[parent]),
                        Parent::Stored(id) => Some(id),
                    },
                    name: path.rsplit_once('/').map_or(path, |(_, name)| name),
                    path,
                }
            })
            .collect();
        checks.suspend(self.transaction).await?;
        let stored = import::insert_keywords(self.transaction, &rows, known, &self.now).await?;
        let mut names = Vec::new();
        let mut assets = Vec::new();
        for (&index, &id) in chunk.iter().zip(&stored) {
            ids[index] = id;
            let keyword = &keywords[index];
            names.extend(keyword.names.iter().map(|(loc, name)| KeywordName {
                keyword_id: id,
                loc,
                name,
            }));
            assets.extend(keyword.assets.iter().map(|asset| KeywordAsset {
                keyword_id: id,
                asset,
            }));
        }
        let owners: Vec<i64> = stored.into_iter().filter(|&id| id <= known).collect();
        import::replace_keyword_names(self.transaction, &owners, &names).await?;
        // What the chunk refers to that this load did not store: parents, and the keywords
        // whose names were replaced.
        let before: Vec<i64> = rows
            .iter()
            .filter_map(|row| row.parent_id)
            .filter(|&parent| parent <= known)
            .chain(owners.iter().copied())
            .collect();
        checks.resume(self.transaction, &before).await?;
        import::replace_keyword_assets(self.transaction, &owners, &assets).await?;
        Ok(())
    }
}

/// Where a keyword's parent is.
#[derive(Debug, Clone, Copy)]
enum Parent {
    /// It has none.
    Root,
    /// It is the document's keyword of this index (written before it: it is less deep).
    Declared(usize),
    /// It is stored, with this id.
    Stored(i64),
}

/// A keyword's parent path (empty for a root).
fn parent_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(parent, _)| parent)
}

/// How deep a keyword is (1 for a root).
fn depth(path: &str) -> usize {
    path.bytes().filter(|&byte| byte == b'/').count()
}
