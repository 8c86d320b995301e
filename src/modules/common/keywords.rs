//! Keywords: `keywords/retrieve` and `keywords/persist` (D-15, D-16, D-56).
//!
//! A keyword's path segment is its default name: `/Season/Summer` is the keyword named `Summer`
//! under `/Season`. Paths are stored whole, so a subtree is the keyword's path and every path
//! below it; a rename rewrites the paths of the keyword and its descendants in its transaction.

use std::collections::HashMap;

use core_api::{
    tables,
    types::{Itms, KeywordRequest, Kwd, Links, Meta, Name, ResponseType, ResponseTypeStatus},
};

use super::super::{
    batch::{self, Apply, ItemError, Scope, Tx},
    itm, visible_assets,
};
use crate::{
    auth::Caller,
    error::ApiError,
    storage::{
        Database,
        keywords::{self as stored, Keyword, Parent},
        records::{self, Identity, KEYWORDS},
    },
};

/// The `dataType` of keyword records.
const DATA_TYPE: &str = "keyword";

/// The keywords below `request.path`, `request.level` generations deep (the document bounds
/// `level`), as a flat list in depth-first pre-order (siblings by `orderNumber`, then name).
pub(crate) async fn retrieve(
    database: &Database,
    caller: &Caller,
    request: &KeywordRequest,
) -> Result<Vec<Kwd>, ApiError> {
    let pool = database.pool();
    let base = request.path.as_str();
    let (base_id, prefix) = if base == "/" {
        (None, "/".to_string())
    } else {
        let found = records::find(pool, &KEYWORDS, Identity::Key(base))
            .await?
            .ok_or_else(|| ApiError::NotFound(not_found(Identity::Key(base))))?;
        (Some(found.id), format!("{base}/"))
    };
    let mut children: HashMap<Option<i64>, Vec<Keyword>> = HashMap::new();
    for keyword in stored::below(database, &prefix).await? {
        children.entry(keyword.1).or_default().push(keyword);
    }
    // Siblings by `orderNumber`, then name, reversed so that popping takes the first.
    for siblings in children.values_mut() {
        siblings.sort_by(|a, b| (b.4, &b.2, b.0).cmp(&(a.4, &a.2, a.0)));
    }
    // Depth-first pre-order from the addressed keyword, at most `level` generations below it.
    let limit = usize::try_from(request.level).unwrap_or(usize::MAX);
    let mut ordered: Vec<Keyword> = Vec::new();
    let mut stack: Vec<(Option<i64>, usize)> = vec![(base_id, 0)];
    while let Some(&(parent, depth)) = stack.last() {
        let next = if depth < limit {
            children.get_mut(&parent).and_then(Vec::pop)
        } else {
            None
        };
        match next {
            Some(keyword) => {
                stack.push((Some(keyword.0), depth + 1));
                ordered.push(keyword);
            }
            None => {
                stack.pop();
            }
        }
    }
    drop(children);
    let mut names: HashMap<i64, Vec<_>> = HashMap::new();
    for stored::Name(keyword, loc, name) in stored::names_below(database, &prefix).await? {
        names
            .entry(keyword)
            .or_default()
            .push(itm::name(Some(&loc), name));
    }
    let mut links = if request.retrieve_links {
        Some(asset_links(database, caller, &prefix).await?)
    } else {
        None
    };
    // A parent comes before its children (pre-order): its `path` and default name are read
    // from its answer, found by id; the addressed keyword is not answered, so it is kept aside.
    let mut answered: HashMap<i64, usize> = HashMap::with_capacity(ordered.len());
    let addressed = base_id.map(|id| (id, base.rsplit('/').next().unwrap_or_default()));
    let mut kwds: Vec<Kwd> = Vec::with_capacity(ordered.len());
    for Keyword(id, parent_id, name, path, order_number, created_at) in ordered {
        let parent = parent_id.and_then(|parent| match addressed {
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
        let mut name = vec![itm::name(None, name)];
        name.extend(names.remove(&id).unwrap_or_default());
        let mut meta = vec![
            itm::meta("creationDate", created_at),
            itm::meta("orderNumber", order_number.to_string()),
        ];
        if let Some((_, _, parent_name)) = &parent {
            meta.push(itm::meta("parent", parent_name.as_str()));
        }
        answered.insert(id, kwds.len());
        kwds.push(Kwd {
            id: Some(id),
            path: Some(path),
            parent_id: parent.as_ref().map(|(id, _, _)| *id),
            parent_path: parent.map(|(_, path, _)| path),
            name: Some(Name { itm: name }),
            meta: Some(Meta { itm: meta }),
            links: links.as_mut().map(|links| {
                let assets = links.remove(&id).unwrap_or_default();
                Links {
                    itms: if assets.is_empty() {
                        Vec::new()
                    } else {
                        vec![Itms {
                            type_: Some("asset".to_string()),
                            itm: assets.into_iter().map(itm::text).collect(),
                            ..Itms::default()
                        }]
                    },
                }
            }),
        });
    }
    Ok(kwds)
}

/// The tids of the assets linked to the keywords whose paths start with `prefix`, by keyword,
/// ordered by tid; assets restricted to roles the caller does not hold are left out.
async fn asset_links(
    database: &Database,
    caller: &Caller,
    prefix: &str,
) -> Result<HashMap<i64, Vec<String>>, ApiError> {
    let rows = stored::asset_links_below(database.pool(), prefix).await?;
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
            Some(key) => update(transaction, kwd, key, names, echo).await,
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
        let mut names = Names {
            default: None,
            localized: Vec::new(),
        };
        for itm in kwd.name.iter().flat_map(|name| &name.itm) {
            match itm.loc.as_deref() {
                None if names.default.is_some() => {
                    return Err(batch::refuse(
                        echo,
                        "The default name is given more than once",
                    ));
                }
                None => names.default = Some(itm.value.as_str()),
                Some(loc) if names.localized.iter().any(|(given, _)| *given == loc) => {
                    return Err(batch::refuse(
                        echo,
                        format!("The name for locale '{loc}' is given more than once"),
                    ));
                }
                Some(loc) => names.localized.push((loc, itm.value.as_str())),
            }
        }
        match names.default {
            Some("") => Err(batch::refuse(echo, "Missing required value 'name'")),
            Some(name) if name.contains('/') => Err(batch::refuse(
                echo,
                format!("Invalid keyword name '{name}': a name must not contain '/'"),
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
        return Err(batch::refuse(&echo, "Missing required value 'name'"));
    };
    // A parent named by its id is looked up for its path; one named by its path is found by the
    // insert itself.
    let (parent, parent_path) = match (kwd.parent_id, kwd.parent_path.as_deref()) {
        (Some(id), _) => {
            let (_, path) = find(transaction, Identity::Id(id)).await?.ok_or_else(|| {
                batch::refuse(
                    &echo,
                    format!("Parent keyword with identity '{id}' not found"),
                )
            })?;
            (Parent::Id(id), path)
        }
        (None, None | Some("/")) => (Parent::Root, "/".to_string()),
        (None, Some(path)) => (Parent::Path(path), path.to_string()),
    };
    let path = child_path(&parent_path, name);
    // The unique path decides, also between racing requests.
    let exists = || batch::refuse(&echo, format!("Keyword '{path}' already exists"));
    let created = stored::create(
        transaction,
        scope.backend,
        parent,
        (name, &path),
        &names.localized,
        scope.now,
    )
    .await;
    let Some(id) = batch::unless_taken(created, exists)? else {
        return Err(batch::refuse(
            &echo,
            format!("Parent keyword with path '{parent_path}' not found"),
        ));
    };
    // After the parent is known to exist; refusing undoes the insert (the item's savepoint).
    check_length(path.chars().count(), &echo)?;
    let mut record = batch::record(
        DATA_TYPE,
        "create",
        ResponseTypeStatus::Success,
        "The keyword has been created successfully",
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
) -> Result<ResponseType, ItemError> {
    let (id, path) = find(transaction, key)
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
            format!("Keyword '{path}' cannot be moved to another parent"),
        ));
    }
    let mut new_path = path.clone();
    if let Some(name) = names.default
        && name != current_name
    {
        new_path = child_path(parent_path, name);
        // Every descendant's path grows (or shrinks) by the difference.
        let (old, new) = (path.chars().count(), new_path.chars().count());
        let longest = stored::longest_below(transaction, &path)
            .await?
            .map_or(old, |longest| {
                usize::try_from(longest).unwrap_or(usize::MAX)
            });
        check_length((longest + new).saturating_sub(old).max(new), &echo)?;
        // The unique paths decide: a sibling of that name, or its descendants, exist already.
        let exists = || batch::refuse(&echo, format!("Keyword '{new_path}' already exists"));
        let renamed = stored::rename(transaction, id, &path, &new_path, name).await;
        batch::unless_taken(renamed, exists)?;
    }
    stored::set_names(transaction, id, &names.localized).await?;
    let mut record = batch::record(
        DATA_TYPE,
        "update",
        ResponseTypeStatus::Success,
        "The keyword has been updated successfully",
    );
    record.id = Some(id);
    record.path = Some(new_path);
    Ok(record)
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
        Identity::Id(id) => format!("Keyword with identity '{id}' not found"),
        Identity::Key(path) => format!("Keyword with path '{path}' not found"),
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
