//! Keywords: `keywords/retrieve` and `keywords/persist` (D-15, D-16, D-56).
//!
//! A keyword's path segment is its default name: `/Season/Summer` is the keyword named `Summer`
//! under `/Season`. Paths are stored whole, so a subtree is the keyword's path and every path
//! below it; a rename rewrites the paths of the keyword and its descendants in its transaction.

use std::{pin::Pin, sync::Arc};

use core_api::{
    messages, tables,
    types::{Itms, KeywordRequest, Kwd, Links, Meta, Name, ResponseType, ResponseTypeStatus},
};
use core_api_support::fill;
use futures_util::{StreamExt, stream::BoxStream};

use super::super::{
    batch::{self, Apply, ItemError, Scope, Tx},
    itm, visible_assets,
};
use crate::{
    auth::Caller,
    error::ApiError,
    storage::{
        Backend, Database,
        keywords::{self as stored, Listed, Parent, Subtree},
        records::{self, Identity, KEYWORDS},
    },
};

/// The `dataType` of keyword records.
const DATA_TYPE: &str = "keyword";

/// The keywords below `request.path`, `request.level` generations deep (the document bounds
/// `level`), as a flat list in depth-first pre-order (siblings by `orderNumber`, then name),
/// read while the answer is written (D-59). Only those generations are read
/// (`storage::keywords::Subtree`).
pub(crate) async fn retrieve(
    database: &Database,
    caller: Arc<Caller>,
    request: &KeywordRequest,
) -> Result<BoxStream<'static, Result<Kwd, ApiError>>, ApiError> {
    let base = request.path.as_str();
    let addressed = (base != "/").then(|| base.to_string());
    let subtree = Subtree {
        base: addressed.clone(),
        // `level` is -1 (every generation) or at least 1 (the document bounds it).
        generations: if request.level > 0 {
            request.level.min(stored::DEEPEST)
        } else {
            stored::DEEPEST
        },
    };
    let mut rows = stored::listed(database, subtree, request.retrieve_links).peekable();
    // One statement answers: only an empty answer asks whether its base is stored.
    if Pin::new(&mut rows).peek().await.is_none()
        && let Some(base) = &addressed
    {
        records::find_read(database, &KEYWORDS, Identity::Key(base))
            .await?
            .ok_or_else(|| ApiError::NotFound(not_found(Identity::Key(base))))?;
    }
    // The addressed keyword is not answered, but it is its children's parent: the first row's.
    let mut base = addressed.map(|path| {
        let name = path.rsplit('/').next().unwrap_or_default().to_string();
        (path, name)
    });
    let mut ancestors: Vec<Ancestor> = Vec::new();
    Ok(rows
        .map(move |row| {
            let row = row?;
            if let (Some((path, name)), Some(id)) = (base.take(), row.parent_id) {
                ancestors.push(Ancestor { id, path, name });
            }
            Ok(kwd(row, &mut ancestors, &caller))
        })
        .boxed())
}

/// A keyword of the answer's path from its base: what its children's `parentPath` and `parent`
/// are made of.
struct Ancestor {
    id: i64,
    path: String,
    name: String,
}

/// The `kwd` of a listed keyword. `ancestors` holds the keywords from the base down to the
/// previous one (pre-order: a parent comes before its children), so its parent is found there.
fn kwd(row: Listed, ancestors: &mut Vec<Ancestor>, caller: &Caller) -> Kwd {
    while ancestors
        .last()
        .is_some_and(|ancestor| Some(ancestor.id) != row.parent_id)
    {
        ancestors.pop();
    }
    let parent = ancestors.last().filter(|_| row.parent_id.is_some());
    let mut name = vec![itm::name(None, row.name.clone())];
    name.extend(
        row.names
            .into_iter()
            .map(|(loc, text)| itm::name(Some(&loc), text)),
    );
    let mut meta = vec![
        itm::meta("creationDate", row.created_at),
        itm::meta("orderNumber", row.order_number.to_string()),
    ];
    if let Some(parent) = parent {
        meta.push(itm::meta("parent", parent.name.as_str()));
    }
    let links = match row.links {
        Some(links) => {
            let visible = visible_assets(
                caller,
                links.into_iter().map(|(tid, role)| (row.id, tid, (), role)),
            );
            let tids = visible.into_values().flatten().map(|(tid, ())| tid);
            Some(asset_groups(tids.collect()))
        }
        None => None,
    };
    let kwd = Kwd {
        id: Some(row.id),
        path: Some(row.path.clone()),
        parent_id: parent.map(|parent| parent.id),
        parent_path: parent.map(|parent| parent.path.clone()),
        name: Some(Name { itm: name }),
        meta: Some(Meta { itm: meta }),
        links,
    };
    ancestors.push(Ancestor {
        id: row.id,
        path: row.path,
        name: row.name,
    });
    kwd
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
