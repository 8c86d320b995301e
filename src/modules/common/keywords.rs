//! Keywords: `keywords/retrieve` and `keywords/persist` (D-15, D-16, D-56).
//!
//! A keyword's path segment is its default name: `/Season/Summer` is the keyword named `Summer`
//! under `/Season`. Paths are stored whole, so a subtree is the keyword's path and every path
//! below it; a rename rewrites the paths of the keyword and its descendants in its transaction.

use std::collections::HashMap;

use core_api::{
    messages, tables,
    types::{Itms, KeywordRequest, Kwd, Links, Meta, Name, ResponseType, ResponseTypeStatus},
};
use core_api_support::fill;

use super::super::{
    batch::{self, Apply, ItemError, Scope, Tx},
    itm, visible_assets,
};
use crate::{
    auth::Caller,
    error::ApiError,
    storage::{
        Backend, Database,
        keywords::{self as stored, Keyword, Parent, Subtree},
        records::{self, Identity, KEYWORDS},
    },
};

/// The `dataType` of keyword records.
const DATA_TYPE: &str = "keyword";

/// The keywords below `request.path`, `request.level` generations deep (the document bounds
/// `level`), as a flat list in depth-first pre-order (siblings by `orderNumber`, then name). Only
/// those generations are read (`storage::keywords::Subtree`).
pub(crate) async fn retrieve(
    database: &Database,
    caller: &Caller,
    request: &KeywordRequest,
) -> Result<Vec<Kwd>, ApiError> {
    let base = request.path.as_str();
    let base_id = if base == "/" {
        None
    } else {
        let found = records::find(database.reads(), &KEYWORDS, Identity::Key(base))
            .await?
            .ok_or_else(|| ApiError::NotFound(not_found(Identity::Key(base))))?;
        Some(found.id)
    };
    let subtree = Subtree {
        base: base_id,
        // `level` is -1 (every generation) or at least 1 (the document bounds it).
        generations: if request.level > 0 {
            request.level.min(stored::DEEPEST)
        } else {
            stored::DEEPEST
        },
    };
    let ordered = pre_order(stored::below(database, subtree).await?, base_id);
    let mut names: HashMap<i64, Vec<_>> = HashMap::new();
    for name in stored::names_below(database, subtree).await? {
        names
            .entry(name.keyword_id)
            .or_default()
            .push(itm::name(Some(&name.loc), name.name));
    }
    let mut links = if request.retrieve_links {
        Some(asset_links(database, caller, subtree).await?)
    } else {
        None
    };
    // A parent comes before its children (pre-order): its `path` and default name are read
    // from its answer, found by id; the addressed keyword is not answered, so it is kept aside.
    let mut answered: HashMap<i64, usize> = HashMap::with_capacity(ordered.len());
    let addressed = base_id.map(|id| (id, base.rsplit('/').next().unwrap_or_default()));
    let mut kwds: Vec<Kwd> = Vec::with_capacity(ordered.len());
    for keyword in ordered {
        let parent = keyword.parent_id.and_then(|parent| match addressed {
            Some((addressed, name)) if addressed == parent => {
                Some((parent, base.to_string(), name.to_string()))
            }
            _ => answered.get(&parent).map(|&at| {
                let kwd = &kwds[at];
                let name = kwd.name.as_ref().and_then(|name| name.itm.first());
                (
                    parent,
                    kwd.path.clone().unwrap_or_default(),
                    name.map(|itm| itm.value.clone()).unwrap_or_default(),
                )
            }),
        });
        let mut name = vec![itm::name(None, keyword.name)];
        name.extend(names.remove(&keyword.id).unwrap_or_default());
        let mut meta = vec![
            itm::meta("creationDate", keyword.created_at),
            itm::meta("orderNumber", keyword.order_number.to_string()),
        ];
        if let Some((_, _, parent_name)) = &parent {
            meta.push(itm::meta("parent", parent_name.as_str()));
        }
        answered.insert(keyword.id, kwds.len());
        kwds.push(Kwd {
            id: Some(keyword.id),
            path: Some(keyword.path),
            parent_id: parent.as_ref().map(|(id, _, _)| *id),
            parent_path: parent.map(|(_, path, _)| path),
            name: Some(Name { itm: name }),
            meta: Some(Meta { itm: meta }),
            links: links
                .as_mut()
                .map(|links| asset_groups(links.remove(&keyword.id).unwrap_or_default())),
        });
    }
    Ok(kwds)
}

/// The keywords of a subtree in depth-first pre-order from `base` (siblings by
/// `orderNumber`, then name).
fn pre_order(keywords: Vec<Keyword>, base: Option<i64>) -> Vec<Keyword> {
    let mut children: HashMap<Option<i64>, Vec<Keyword>> = HashMap::new();
    let count = keywords.len();
    for keyword in keywords {
        children.entry(keyword.parent_id).or_default().push(keyword);
    }
    // Siblings by `orderNumber`, then name, reversed so that popping takes the first.
    for siblings in children.values_mut() {
        siblings
            .sort_by(|a, b| (b.order_number, &b.name, b.id).cmp(&(a.order_number, &a.name, a.id)));
    }
    let mut ordered: Vec<Keyword> = Vec::with_capacity(count);
    let mut stack: Vec<Option<i64>> = vec![base];
    while let Some(&parent) = stack.last() {
        match children.get_mut(&parent).and_then(Vec::pop) {
            Some(keyword) => {
                stack.push(Some(keyword.id));
                ordered.push(keyword);
            }
            None => {
                stack.pop();
            }
        }
    }
    ordered
}

/// A keyword's `links`: its assets' tids in groups (`itms type="asset"`) of at most as many as
/// the document lets a group hold, so that an answer stays within the document whatever the
/// number of links.
fn asset_groups(assets: Vec<String>) -> Links {
    let most = tables::ITMS
        .field("itm")
        .and_then(|field| field.max_items)
        .map_or(usize::MAX, |most| most as usize);
    Links {
        itms: assets
            .chunks(most.max(1))
            .map(|group| Itms {
                type_: Some("asset".to_string()),
                itm: group.iter().cloned().map(itm::text).collect(),
                ..Itms::default()
            })
            .collect(),
    }
}

/// The tids of the assets linked to the keywords of a subtree, by keyword, ordered by tid;
/// assets restricted to roles the caller does not hold are left out.
async fn asset_links(
    database: &Database,
    caller: &Caller,
    subtree: Subtree,
) -> Result<HashMap<i64, Vec<String>>, ApiError> {
    let rows = stored::asset_links_below(database.reads(), subtree).await?;
    let visible = visible_assets(
        caller,
        rows.into_iter()
            .map(|link| (link.keyword_id, link.tid, (), link.role)),
    );
    Ok(visible
        .into_iter()
        .map(|(keyword, assets)| (keyword, assets.into_iter().map(|(tid, ())| tid).collect()))
        .collect())
}

/// `keywords/persist`: each `kwd` created or updated in its transaction.
pub(crate) struct Persist;

impl Apply for Persist {
    type Item = Kwd;

    /// What identifies a keyword item, before it is applied.
    fn echo(kwd: &Kwd) -> ResponseType {
        let updating = kwd.id.is_some() || kwd.path.is_some();
        let mut record = batch::record(
            DATA_TYPE,
            if updating { "update" } else { "create" },
            ResponseTypeStatus::Error,
            "",
        );
        record.id = kwd.id;
        record.path = kwd.path.clone();
        record
    }

    /// With `id` or `path` an update, otherwise a create under `parentId`, `parentPath` or the
    /// root.
    async fn apply(
        transaction: &mut Tx,
        kwd: &Kwd,
        scope: &Scope<'_>,
    ) -> Result<ResponseType, ItemError> {
        let echo = Persist::echo(kwd);
        let names = Names::of(kwd, &echo)?;
        let key = match (kwd.id, kwd.path.as_deref()) {
            (Some(id), _) => Some(Identity::Id(id)),
            (None, Some(path)) => Some(Identity::Key(path)),
            (None, None) => None,
        };
        match key {
            Some(key) => update(transaction, kwd, key, names, echo, scope.backend).await,
            None => create(transaction, kwd, names, echo, scope).await,
        }
    }
}

/// The names of a persisted keyword: its default name and its localized ones.
struct Names<'a> {
    default: Option<&'a str>,
    localized: Vec<(&'a str, &'a str)>,
}

impl<'a> Names<'a> {
    /// Reads and checks the `name` entries: at most one per locale (and one default), a default
    /// name not empty and without `/`.
    fn of(kwd: &'a Kwd, echo: &ResponseType) -> Result<Names<'a>, ItemError> {
        let items = kwd.name.as_ref().map_or(&[][..], |name| &name.itm[..]);
        let mut names = Names {
            default: None,
            localized: Vec::with_capacity(items.len()),
        };
        let mut locales = std::collections::HashSet::with_capacity(items.len());
        for itm in items {
            match itm.loc.as_deref() {
                None if names.default.is_some() => {
                    return Err(batch::refuse(
                        echo,
                        messages::THE_DEFAULT_NAME_IS_GIVEN_MORE_THAN_ONCE,
                    ));
                }
                None => names.default = Some(itm.value.as_str()),
                Some(loc) if !locales.insert(loc) => {
                    return Err(batch::refuse(
                        echo,
                        fill(
                            messages::THE_NAME_FOR_LOCALE_LOC_IS_GIVEN_MORE_THAN_ONCE,
                            &[&loc],
                        ),
                    ));
                }
                Some(loc) => names.localized.push((loc, itm.value.as_str())),
            }
        }
        match names.default {
            Some("") => Err(batch::refuse(echo, messages::MISSING_REQUIRED_VALUE_NAME)),
            Some(name) if name.contains('/') => Err(batch::refuse(
                echo,
                fill(
                    messages::INVALID_KEYWORD_NAME_NAME_A_NAME_MUST_NOT_CONTAIN,
                    &[&name],
                ),
            )),
            _ => Ok(names),
        }
    }
}

/// Refuses a path longer than a keyword's `path` may be (D-56): a deep keyword whose names add
/// up to more is refused rather than answered against the document.
fn check_length(path_length: usize, echo: &ResponseType) -> Result<(), ItemError> {
    let limit = tables::KWD
        .field("path")
        .and_then(|field| field.max_length)
        .map_or(usize::MAX, |limit| limit as usize);
    if path_length > limit {
        Err(batch::refuse(
            echo,
            format!(
                "A keyword path has at most {limit} characters; this one would have {path_length}"
            ),
        ))
    } else {
        Ok(())
    }
}

async fn create(
    transaction: &mut Tx,
    kwd: &Kwd,
    names: Names<'_>,
    echo: ResponseType,
    scope: &Scope<'_>,
) -> Result<ResponseType, ItemError> {
    let Some(name) = names.default else {
        return Err(batch::refuse(&echo, messages::MISSING_REQUIRED_VALUE_NAME));
    };
    // A parent named by its id is looked up for its path; one named by its path is found by the
    // insert itself.
    let (parent, parent_path) = match (kwd.parent_id, kwd.parent_path.as_deref()) {
        (Some(id), _) => {
            let (_, path) = find(transaction, Identity::Id(id)).await?.ok_or_else(|| {
                batch::refuse(
                    &echo,
                    fill(messages::PARENT_KEYWORD_WITH_IDENTITY_ID_NOT_FOUND, &[&id]),
                )
            })?;
            (Parent::Id(id), path)
        }
        (None, None | Some("/")) => (Parent::Root, "/".to_string()),
        (None, Some(path)) => (Parent::Path(path), path.to_string()),
    };
    // The insert makes the path from the parent's as it reads it (a concurrent rename of the
    // parent has ended by then); the unique path decides between racing creates.
    let path = child_path(&parent_path, name);
    let exists = || batch::refuse(&echo, fill(messages::KEYWORD_PATH_ALREADY_EXISTS, &[&path]));
    let created = stored::create(
        transaction,
        scope.backend,
        parent,
        name,
        &names.localized,
        scope.now,
    )
    .await;
    let Some(created) = batch::unless_taken(created, exists)? else {
        return Err(batch::refuse(
            &echo,
            fill(
                messages::PARENT_KEYWORD_WITH_PATH_PATH_NOT_FOUND,
                &[&parent_path],
            ),
        ));
    };
    let (id, path) = (created.id, created.path);
    // After the parent is known to exist; refusing undoes the insert (the item's savepoint).
    check_length(path.chars().count(), &echo)?;
    let mut record = batch::record(
        DATA_TYPE,
        "create",
        ResponseTypeStatus::Success,
        messages::THE_KEYWORD_HAS_BEEN_CREATED_SUCCESSFULLY,
    );
    record.id = Some(id);
    record.path = Some(path);
    Ok(record)
}

async fn update(
    transaction: &mut Tx,
    kwd: &Kwd,
    key: Identity<'_>,
    names: Names<'_>,
    echo: ResponseType,
    backend: Backend,
) -> Result<ResponseType, ItemError> {
    // Locked (PostgreSQL): a concurrent rename of it or of an ancestor has ended, and its path
    // is the one now stored.
    let stored::Located { id, path } = stored::lock(transaction, backend, key)
        .await?
        .ok_or_else(|| batch::refuse(&echo, not_found(key)))?;
    let (parent_path, current_name) = path.rsplit_once('/').unwrap_or(("", path.as_str()));
    let parent_path = if parent_path.is_empty() {
        "/"
    } else {
        parent_path
    };
    let moved = match (kwd.parent_id, kwd.parent_path.as_deref()) {
        (Some(parent_id), _) => stored::parent_of(transaction, id).await? != Some(parent_id),
        (None, Some(given)) => given != parent_path,
        (None, None) => false,
    };
    if moved {
        return Err(batch::refuse(
            &echo,
            fill(
                messages::KEYWORD_PATH_CANNOT_BE_MOVED_TO_ANOTHER_PARENT,
                &[&path],
            ),
        ));
    }
    let mut new_path = path.clone();
    if let Some(name) = names.default
        && name != current_name
    {
        new_path = child_path(parent_path, name);
        // Every descendant's path grows (or shrinks) by the difference.
        let (old, new) = (path.chars().count(), new_path.chars().count());
        let longest = stored::longest_below(transaction, id)
            .await?
            .map_or(old, |longest| {
                usize::try_from(longest).unwrap_or(usize::MAX)
            });
        check_length((longest + new).saturating_sub(old).max(new), &echo)?;
        // The unique paths decide: a sibling of that name, or its descendants, exist already.
        let exists = || {
            batch::refuse(
                &echo,
                fill(messages::KEYWORD_PATH_ALREADY_EXISTS, &[&new_path]),
            )
        };
        let renamed = stored::rename(transaction, backend, id, (&path, &new_path), name).await;
        batch::unless_taken(renamed, exists)?;
    }
    stored::set_names(transaction, id, &names.localized).await?;
    check_name_count(transaction, id, &echo).await?;
    let mut record = batch::record(
        DATA_TYPE,
        "update",
        ResponseTypeStatus::Success,
        messages::THE_KEYWORD_HAS_BEEN_UPDATED_SUCCESSFULLY,
    );
    record.id = Some(id);
    record.path = Some(new_path);
    Ok(record)
}

/// Refuses an update after which a keyword would have more names than an answer's `name` may
/// hold (the document's `maxItems`: the default name and one per locale), since updates add
/// names in new locales to those stored.
async fn check_name_count(
    transaction: &mut Tx,
    id: i64,
    echo: &ResponseType,
) -> Result<(), ItemError> {
    let most = tables::NAME
        .field("itm")
        .and_then(|field| field.max_items)
        .map_or(i64::MAX, i64::from);
    let count = stored::count_names(transaction, id).await? + 1;
    if count > most {
        return Err(batch::refuse(
            echo,
            format!("A keyword has at most {most} names; this one would have {count}"),
        ));
    }
    Ok(())
}

/// The path of the keyword named `name` under the keyword at `parent` (`/`: the root).
fn child_path(parent: &str, name: &str) -> String {
    if parent == "/" {
        format!("/{name}")
    } else {
        format!("{parent}/{name}")
    }
}

/// Why a keyword addressed by its identity is refused: it is not stored.
pub(crate) fn not_found(identity: Identity<'_>) -> String {
    match identity {
        Identity::Id(id) => fill(messages::KEYWORD_WITH_IDENTITY_ID_NOT_FOUND, &[&id]),
        Identity::Key(path) => fill(messages::KEYWORD_WITH_PATH_PATH_NOT_FOUND, &[&path]),
    }
}

/// The id and path of a stored keyword.
async fn find(
    transaction: &mut Tx,
    identity: Identity<'_>,
) -> Result<Option<(i64, String)>, sqlx::Error> {
    let found = records::find(&mut **transaction, &KEYWORDS, identity).await?;
    Ok(found.and_then(|found| Some((found.id, found.key?))))
}
